"""Pending memory: the storage kinds of arrays eager fusion has not computed yet, and forcing them.

A pending array's storage is a `PendingStorage` (on the host: its `owner` is the `Record` that computes it) or a
`PendingDeviceStorage` (on a JAX device: its `buf` is (its `DeviceGroup`, its index there)); a host storage that
pending records read is a `ReadStorage`. Every request for a pending storage's memory forces it: its group runs
(`group.run()`: a host pass, `stridex._exec.fusion.host_pass`, or a device pass,
`stridex._exec.fusion.device_pass`), and the storage changes kind through one of the transitions below. This
module knows the groups only by those few fields and `run`.

One lock orders recording and forcing across threads (`LOCK`).
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import threading

import numpy as np

from stridex._core import processes
from stridex._core.array import Array
from stridex._core.storage import HostStorage, Storage
from stridex._exec import device as _device
from stridex._exec.fusion import limits

_ENABLED_BY_DEFAULT = os.environ.get("STRIDEX_FUSION", "1").strip().lower() not in ("0", "false", "off", "no")
_ENABLED: contextvars.ContextVar[bool] = contextvars.ContextVar("stridex_fusion", default=_ENABLED_BY_DEFAULT)

# One lock orders recording and forcing across threads: a group is run once, by one thread, and its
# members' storages change kind under it. (The blocks of a pass run on the pool without it.) Work on a device
# takes `device.OWNERS` first, then LOCK, never the other way: device code holding OWNERS reads a pending
# storage's buffer, which forces it (a thread recording under LOCK while waiting for OWNERS deadlocked with one
# copying a pending array to the host: tests/transforms/test_threads.py). A fork takes both in that order first
# (`stridex._core.processes`), so that a child never inherits a pass half run.
LOCK = processes.lock("fusion.LOCK", threading.RLock())


class PendingStorage(Storage):
    """The memory of a pending array: not computed yet. Its `owner` is the `Record` that computes it; every
    request for the memory (a window, a buffer, a write, a hand-over to JAX) runs the record's group first,
    after which the storage is a `HostStorage` (or a `ReadStorage`, while later records read it) holding the
    result. Views of a pending array share this storage, as views do, without running it."""

    __slots__ = ()
    readonly = True  # (a write asks `writable()`, which runs it first)

    def window(self, a) -> np.ndarray:
        force(self)
        return self.window(a)  # (its class is a host one now)

    def host_values(self, a) -> np.ndarray:
        force(self)
        return self.window(a)

    def numpy_buffer(self) -> np.ndarray:
        force(self)
        return self.buf

    def shared_buffer(self) -> np.ndarray | None:
        return None  # (no NumPy array has reached memory not computed yet)

    def jax_argument(self, a):
        force(self)
        return self.jax_argument(a)

    def writable(self) -> np.ndarray:
        force(self)
        return self.writable()

    def block_until_ready(self, a) -> None:
        force(self)

    def copy(self) -> Storage:
        force(self)
        return self.copy()

    def private(self) -> bool:
        return True

    def export(self, a) -> None:
        force(self)
        self.export(a)


class ReadStorage(HostStorage):
    """Host memory that pending records read (`readers`): a write asks `writable()`, which runs them first and
    makes the storage a `HostStorage` again. The eager fast paths (which write windows directly) are off."""

    __slots__ = ()
    readonly = True
    fast_views = False

    def writable(self) -> np.ndarray:
        run_readers(self)
        return self.buf

    def export(self, a) -> None:
        run_readers(self)
        HostStorage.export(self, a)


def run_readers(storage: Storage) -> None:
    """Run the pending groups that read `storage` (before a write into it), and make it a plain host storage.
    Its readers are forgotten only once they have all run: a pass that fails leaves the rest of them readers, so
    that the write (which the failure stops) cannot happen before them later either."""
    with LOCK:
        readers = storage.readers
        if readers:
            for ref in list(readers):  # (a pass drops its group from the list)
                group = ref()
                if group is not None and not group.done:
                    group.run()
        storage.readers = None
        if type(storage) is ReadStorage:
            read_to_host(storage)




# --- the switch --------------------------------------------------------------------------------------------


def enabled() -> bool:
    """Whether eager elementwise work may be deferred in this context."""
    return _ENABLED.get()


@contextlib.contextmanager
def enable(on: bool = True):
    """Within the block, eager fusion is on (`on` True) or off, in this thread (a context variable)."""
    token = _ENABLED.set(bool(on))
    try:
        yield
    finally:
        _ENABLED.reset(token)




def _joined_group(args, shape, pending_kind, group_of, merge):
    """The group a new record of `shape` joins, or None: its pending operands' groups (storages of class
    `pending_kind`; `group_of(a, shape)` gives a's when `a` is a whole member of that shape, else None), merged
    (by `merge`) into the largest while they fit (`MAX_RECORDS`, `MAX_LEAVES`, the same error state), the others
    run. A pending operand that is a view, or of another shape, is run first and read as memory."""
    groups: list = []
    for a in args:
        if type(a) is Array and type(a._storage) is pending_kind:
            g = group_of(a, shape)
            if g is None:
                force(a._storage)
            elif g not in groups:
                groups.append(g)
    if len(groups) == 1:  # (the usual case: every pending operand a member of one group)
        return None if groups[0].done else groups[0]
    groups = [g for g in groups if not g.done]  # (a force above may have run one)
    if not groups:
        return None
    group = max(groups, key=lambda g: len(g.members))
    for other in groups:
        if other is not group:
            if len(group.members) + len(other.members) < limits.MAX_RECORDS and \
                    len(group.leaves) + len(other.leaves) <= limits.MAX_LEAVES and other.errors == group.errors:
                merge(group, other)
            else:
                other.run()
    return group




# --- the transitions: every change of kind of a storage eager fusion makes is one of these --------------------
#
#   PendingStorage --pending_to_host--> HostStorage (or ReadStorage, while later records read it)
#   HostStorage --host_to_read--> ReadStorage --read_to_host--> HostStorage (its readers run, before a write)
#   PendingDeviceStorage --pending_to_device--> DeviceStorage
#
# Each reassigns `__class__`: the kinds of each row share one layout (the slots of `Storage`), so the change is
# one store, and every Array and View sharing the storage sees it at once (a new object would have to be found
# and swapped into each of them). Each runs holding LOCK.


def pending_to_host(st: PendingStorage, buf: np.ndarray) -> None:
    """A pending host storage computed: host memory over `buf` (its record's result, 1-D), a `ReadStorage` while
    other pending records read it (`readers`). The owner (its record) is dropped after the class changes: a
    pending storage's owner is its record, so an interruption between the two leaves it pending and runnable."""
    st.buf = buf
    st.__class__ = ReadStorage if st.readers else HostStorage  # type: ignore[assignment]
    st.owner = None


def host_to_read(st: HostStorage) -> None:
    """Host memory that a pending record now reads: writes into it run its readers first (`ReadStorage`)."""
    st.__class__ = ReadStorage


def read_to_host(st: ReadStorage) -> None:
    """Host memory its pending readers have all run on (`run_readers`): a plain host storage again."""
    st.__class__ = HostStorage  # type: ignore[assignment]


def pending_to_device(st: PendingDeviceStorage, buffer) -> None:
    """A pending device storage computed: a `DeviceStorage` over `buffer` (its result), with no host buffer (a
    pending one's `buf` was its group)."""
    _OWNER_SLOT.__set__(st, buffer)
    st.__class__ = _device.DeviceStorage  # type: ignore[assignment]
    st.buf = None  # type: ignore[assignment]


# --- forcing -----------------------------------------------------------------------------------------------


def force(storage) -> None:
    """Compute a pending storage (with every live record of its group, in one pass). A pass that fails leaves it
    pending (`run_group`): this raises the pass's error, and a later call runs it again."""
    if type(storage) is PendingDeviceStorage:
        with _device.OWNERS, LOCK:  # (in this order: see LOCK)
            if type(storage) is PendingDeviceStorage:  # (unless another thread ran it meanwhile)
                storage.buf[0].run()  # (a pending device storage's buf: (group, index))
    elif type(storage) is PendingStorage:
        with LOCK:
            if type(storage) is PendingStorage:
                storage.owner.group.run()
    else:
        return
    if type(storage) in _PENDING:  # (a pass must leave its live records computed: never loop on one)
        raise RuntimeError("stridex internal error: a pending array's pass left it pending")


def evaluate(*arrays) -> None:
    """Run the pending work of every array in `arrays` (nested lists, tuples and dicts too)."""
    stack = list(arrays)
    while stack:
        x = stack.pop()
        if isinstance(x, Array):
            st = x._storage
            if type(st) in _PENDING:
                force(st)
        elif isinstance(x, (list, tuple)):
            stack.extend(x)
        elif isinstance(x, dict):
            stack.extend(x.values())




def _pending_owner(self):
    force(self)
    return _OWNER_SLOT.__get__(self)


def _set_owner(self, value):
    _OWNER_SLOT.__set__(self, value)


_OWNER_SLOT = Storage.__dict__["owner"]


class PendingDeviceStorage(_device.DeviceStorage):
    """The memory of a pending array on a JAX device: `buf` holds (its `DeviceGroup`, its index there), and
    reading `owner` (the buffer, which every device path reads) runs it first, after which the storage is a
    `DeviceStorage` holding the result."""

    __slots__ = ()
    owner = property(_pending_owner, _set_owner)

    def block_until_ready(self, a) -> None:
        force(self)
        self.block_until_ready(a)

    def copy(self):
        force(self)
        return self.copy()


_PENDING = (PendingStorage, PendingDeviceStorage)
# (device, shape) -> a weak reference to the group a record with no pending operand joins (under LOCK)
