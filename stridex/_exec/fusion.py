"""Eager fusion: elementwise work recorded instead of run, and run later as one pass, block by block.

An eager elementwise primitive (`Primitive(elementwise=True)`) on large enough arrays returns an Array whose
storage is a `PendingStorage`: the record of the primitive, its params and its inputs (NumPy windows of the
input arrays' memory, Python scalars, or other pending records). Shape and dtype come from the primitive's
abstract evaluation at the call. Records that feed each other form a `Group`; forcing any member (asking its
storage for memory: a window, a buffer, a write) runs every live member of the group in one pass: the
blocks of the result (`BLOCK_ELEMENTS` each) go through every record in turn, each running the NumPy ufunc
its eager impl is (`same_as_ufunc`) into scratch memory, or the impl itself, and the records whose arrays are
still alive write their block into their result. The values are those of the op-by-op eager path, bit for
bit: every such impl is elementwise (a block's result is the whole result's block) and sees the same values
in the same layout (strided windows are not deferred: NumPy picks its kernels by layout).

Writes are never reordered: a storage that pending records read becomes a `ReadStorage` (writes ask it
first, and it runs its readers before the write), and a write into a pending array runs it first. Memory
foreign code may write behind stridex's back (borrowed NumPy memory, a window handed out by `__array__` or
DLPack) is never read later: an operation reading it runs now.

On a JAX device the records' leaves are device buffers and a pass is one executable made of their lowerings
(`PendingDeviceStorage`, `DeviceGroup`, `_run_device_group`).

The switch: `fusion(False)` (a context manager) or `STRIDEX_FUSION=0` in the environment.
"""

from __future__ import annotations

import contextlib
import contextvars
import itertools
import math
import os
import threading
import weakref
from math import prod
from typing import TYPE_CHECKING, Any

import numpy as np

from stridex._core import processes
from stridex._core import caches
from stridex._core.array import Array
from stridex._core.avals import ShapedArray, aval_of
from stridex._core.device import HOST
from stridex._core.dtypes import FROM_NUMPY
from stridex._core.storage import HostStorage, JaxResultStorage, Recycler, Storage, aligned_empty
from stridex._core.view import View
from stridex._exec import device as _device
from stridex._exec import jax_bridge
from stridex._exec import lower
from stridex._exec.jax_bridge import weakly_typed
from stridex._exec.lower import Const, Executable, LoweringContext, Step, settle
from stridex._exec.precision import matmul_key
from stridex._exec.strided import read_view

if TYPE_CHECKING:
    from collections.abc import Iterator
    from concurrent.futures import ThreadPoolExecutor

# --- the thresholds (measured: see docs/fusion.md and benchmarks/fusion.py) ---------------------------------

# An elementwise operation whose operands have fewer elements than this runs at once. Measured with
# `python -m benchmarks.fusion --crossover` (every operation deferred against op by op, side by side, on an
# idle 2-core machine, 2026-11-28 08:50 UTC): the 10-op chain 1.38x at 8192 elements, 1.28x at 16384, 0.33x at
# 32768; Black-Scholes (whose `where`s a pass blends) 0.87x, 0.67x, 0.44x. The chain decides: recording costs
# some 3 us an operation, which its cheap operations on small arrays do not repay.
# (STRIDEX_FUSION_MIN_ELEMENTS overrides it: a test suite run with 1 defers everything it can.)
DEFER_MIN_ELEMENTS = int(os.environ.get("STRIDEX_FUSION_MIN_ELEMENTS", "32768"))
# Elements per block of a pass: each block goes through the whole expression in scratch memory that stays in
# the cache.
BLOCK_ELEMENTS = 16384
# A pass with at least this many elements runs its blocks on a thread pool as well as the calling thread, each
# thread's share in one block of up to 4 * BLOCK_ELEMENTS (`_pass_block`: fewer NumPy calls, so fewer hand-overs
# of the GIL between the threads). Measured on an idle 2-core machine (pass alone, two threads against one,
# minimums of interleaved runs): at 49152 elements Black-Scholes 1.10x faster, the 10-op chain 1.33x, the 50-step
# loop 1.86x; at 10^5 1.43x, 1.58x, 1.68x; at 32768 Black-Scholes was 1.07x slower. Blocks are claimed one at a
# time, so a thread the machine's load delays leaves its share to the others.
THREADED_MIN_ELEMENTS = 49152
# A group holds at most this many records and reads at most this many distinct input windows; a record that
# would exceed either runs the group first (and starts a new one), so memory held by pending work is bounded.
MAX_RECORDS = 512
MAX_LEAVES = 32

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
                    run_group(group)
        storage.readers = None
        if type(storage) is ReadStorage:
            storage.__class__ = HostStorage  # type: ignore[assignment]  # (the host kinds share one layout)


class Record:
    """One pending primitive application: `prim.impl(*inputs, **params)` where each input is a NumPy window
    already broadcast to `shape` (a leaf), a Python scalar, or an earlier `Record` of the same group and shape."""

    __slots__ = ("__weakref__", "dtype", "group", "inputs", "params", "prim", "result", "shape", "storage", "view")

    def __init__(self, prim, params, inputs, shape, dtype, group):
        self.prim = prim
        self.params = params
        self.inputs = inputs
        self.shape = shape
        self.dtype = dtype
        self.group = group
        self.view = View.contiguous(shape)
        self.result = None
        self.storage = None  # a weak reference to the PendingStorage, set by `record`


class Group:
    """Records that feed each other, in the order they were made (a topological order), held weakly: a record
    lives as long as its array or a later record that reads it. Run as one pass, on the host (`DeviceGroup` is
    its counterpart on a JAX device)."""

    __slots__ = ("__weakref__", "done", "errors", "leaves", "members", "storages")

    def __init__(self, errors: dict):
        self.errors = errors  # NumPy's error state when its records were made (one per group)
        self.members: list = []  # weak references to the Records
        self.leaves: dict = {}  # id(window) -> the window broadcast to the record's shape (the inputs it reads)
        self.storages: list = []  # the storages whose memory the leaves view (their `readers` name this group)
        self.done = False


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


# --- recording ---------------------------------------------------------------------------------------------

_PY_SCALARS = frozenset({bool, int, float, complex})
_DEFERRABLE_ERRORS = frozenset({"warn", "ignore"})


def record(prim, args, params):
    """A pending Array for `prim.bind(*args, **params)`, or None: then the caller runs it now."""
    if not _ENABLED.get():
        return None
    large = False
    dev = None
    host = False
    ints = False
    key = [prim]
    for a in args:  # (one walk: where the operands live, and the signature's key)
        t = type(a)
        if t is Array:
            st = a._storage
            w = a._np
            if w is not None:
                if dev is not None:
                    raise _device._mixed(prim, dev, HOST)
                host = True
                shape = w.shape
                if w.size >= DEFER_MIN_ELEMENTS:
                    large = True
            else:
                shape = a._view.shape if a._view is not None else a.shape
                if not st.is_host:
                    d = st.device
                    if dev is None:
                        if host:
                            raise _device._mixed(prim, HOST, d)
                        if st.sharded:
                            return None  # (a mesh: op by op)
                        dev = d
                    elif d is not dev and d != dev:
                        raise _device._mixed(prim, dev, d)
                    large = True
                elif dev is not None:
                    raise _device._mixed(prim, dev, HOST)
                else:
                    host = True
                    if type(st) is PendingStorage or prod(shape) >= DEFER_MIN_ELEMENTS:
                        large = True
            key.append(a._dtype)
            key.append(shape)
        elif t in _PY_SCALARS:
            key.append(t)
            ints = ints or t is int
        else:
            return None
    if not large:
        return None
    if params:
        key.append(tuple(params.items()))
    try:
        signature = _SIGNATURES.get(tuple(key))
    except TypeError:  # (unhashable params)
        return None
    if signature is None:
        signature = _signature(prim, args, params)
        if len(_SIGNATURES) > 4096:
            _SIGNATURES.clear()
        _SIGNATURES[tuple(key)] = signature
    if signature is False:
        return None
    shape, dtype, size = signature
    if ints and not _scalars_fit(args):
        return None  # (the signature knows a Python int's type, not its value: op by op raises at this line)
    if dev is not None:
        return _record_on_device(prim, args, params, dev, shape, dtype) if size else None
    if size < DEFER_MIN_ELEMENTS:
        return None
    errors = _error_state()
    if errors is None:
        return None  # (errors that raise or print must do so at this line)
    with LOCK:
        return _record(prim, args, params, shape, dtype, errors)


# NumPy keeps its error state in a context variable (one object per `np.errstate`): `np.geterr()` (0.5 us) is
# asked only when that object changes.
_EXTOBJ = getattr(getattr(getattr(np, "_core", None), "_multiarray_umath", None), "_extobj_contextvar", None)
_LAST_ERRORS: list = [(None, None)]  # [(the context variable's value, np.geterr() then, or None if not deferrable)]


def _error_state() -> dict | None:
    """NumPy's error state (`np.geterr()`), or None when some error raises or prints (not deferrable)."""
    if _EXTOBJ is not None:
        current = _EXTOBJ.get()
        last = _LAST_ERRORS[0]  # (one pair, read at once: threads replace it whole)
        if current is last[0]:
            return last[1]
    errors = dict(np.geterr())
    state = errors if all(mode in _DEFERRABLE_ERRORS for mode in errors.values()) else None
    if _EXTOBJ is not None:
        _LAST_ERRORS[0] = (current, state)
    return state


# (primitive, operand dtypes and shapes or scalar types, params) -> (shape, dtype, size) of the result, or False
# where the operation is not deferred
_SIGNATURES: dict = {}


def _signature(prim, args, params):
    """The result's (shape, dtype, size) by the primitive's abstract evaluation, or False where the operation
    must run at once: an error to raise at this line, or a warning NumPy gives once per call."""
    try:
        aval = prim.abstract_eval(*[aval_of(a) for a in args], **params)
    except Exception:  # noqa: BLE001
        return False  # (the op-by-op path raises its own error, at this line)
    if prim.name == "convert_element_type" and args[0].dtype.kind == "complex floating" \
            and params["new_dtype"].kind != "complex floating":
        return False  # (NumPy warns ComplexWarning once per call: a pass would warn once per block)
    if not _runs(prim, args, params):
        return False
    return aval.shape, aval.dtype, prod(aval.shape)


# (primitive, params, operand kinds) -> whether the impl runs on such operands (see `_runs`)
_RUNS: dict = {}


def _runs(prim, args, params) -> bool:
    """Whether `prim`'s impl runs on operands of these dtypes (NumPy has a loop for them): tried once per
    signature on one element of each operand, so that an error that does not depend on the values (no loop
    for bfloat16 in some kernel) is raised at the call by the op-by-op path, not later by a pass."""
    kinds = tuple((a._dtype, a.ndim == 0) if type(a) is Array else type(a) for a in args)
    try:
        key = (prim, tuple(params.items()), kinds)
        known = _RUNS.get(key)
    except TypeError:  # (unhashable params)
        return False
    if known is not None:
        return known
    samples = []
    for a, kind in zip(args, kinds):
        if type(a) is Array:
            samples.append(np.zeros((1,) * a.ndim if a.ndim else (), a._dtype.np))
        else:
            samples.append(a)
    try:
        with np.errstate(all="ignore"):
            prim.impl(*samples, **params)
        known = True
    except Exception:  # noqa: BLE001  (whatever it raises, the op-by-op path raises it at the call)
        known = False
    if len(_RUNS) > 4096:
        _RUNS.clear()
    _RUNS[key] = known
    return known


def _scalars_fit(args) -> bool:
    """Whether every Python int operand converts to the arrays' dtypes without error (NumPy raises
    OverflowError at the call otherwise, which must happen at this line)."""
    for s in args:
        if type(s) is int:
            for a in args:
                if type(a) is Array:
                    d = a._dtype.np
                    if d.kind in "iu":
                        info = np.iinfo(d)
                        if not info.min <= s <= info.max:
                            return False
                    elif d == np.float16:
                        if not -65504 <= s <= 65504:
                            return False
                    elif d.kind != "b" and not -(1 << 63) <= s < (1 << 63):
                        return False
    return True


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
            if len(group.members) + len(other.members) < MAX_RECORDS and \
                    len(group.leaves) + len(other.leaves) <= MAX_LEAVES and other.errors == group.errors:
                merge(group, other)
            else:
                run_group(other)
    return group


def _member_of_host_group(a: Array, shape: tuple):
    """The group of pending host array `a` when `a` is a whole member of shape `shape`, else None."""
    rec = a._storage.owner
    return rec.group if a._view is rec.view and rec.shape == shape and not rec.group.done else None


def _record(prim, args, params, shape, dtype, errors):
    # The pending inputs of `shape` join this record's group; others (a view of a pending array, another shape)
    # are run first and read as windows. The usual case inline (every pending operand a whole member of one
    # live group of this shape, as `_member_of_host_group` says); any other goes through `_joined_group`.
    group = None
    for a in args:
        if type(a) is Array and type(a._storage) is PendingStorage:
            rec = a._storage.owner
            g = rec.group
            if a._view is not rec.view or rec.shape != shape or g.done or (group is not None and g is not group):
                group = _joined_group(args, shape, PendingStorage, _member_of_host_group, _merge)
                break
            group = g
    leaves = []
    for a in args:
        if type(a) is Array and type(a._storage) is not PendingStorage:
            st, _ = a._storage_view()
            if not st.is_host or not st.private() or a.size == 0:
                return None
            w = a._np
            if w is None:
                w = st.window(a)
            if w.ndim and not w.flags.c_contiguous:
                # NumPy picks a ufunc's inner loop by the operands' layout, and its loops for strided operands
                # can round otherwise than its contiguous ones (exp, log, sin: scalar libm against SIMD): a
                # block would not always see the layout the whole window has, so strided windows are read now.
                return None
            leaves.append(a)
    if group is not None and (len(group.members) + 1 >= MAX_RECORDS or len(group.leaves) + len(leaves) > MAX_LEAVES
                              or group.errors != errors):
        run_group(group)
        return _record(prim, args, params, shape, dtype, errors)  # (its pending inputs are windows now)
    if group is None:
        group = Group(errors)
    inputs = []
    for a in args:
        if type(a) is not Array:
            inputs.append(a)
        elif type(a._storage) is PendingStorage:
            inputs.append(a._storage.owner)
        else:
            inputs.append(_leaf(group, a, shape))
    rec = Record(prim, params, tuple(inputs), shape, dtype.np, group)
    storage = PendingStorage()
    storage.buf = None  # (not computed yet)
    storage.owner = rec
    storage.jax_view = storage.jax_alias = storage.jax_copy = None
    storage.readers = None
    rec.storage = weakref.ref(storage)
    group.members.append(weakref.ref(rec))  # (last: a member of a group is whole, whatever interrupts this)
    return Array._make(storage, rec.view, dtype)


def _leaf(group: Group, a: Array, shape: tuple) -> np.ndarray:
    """Array `a`'s window as `group` reads it (broadcast to `shape`), its storage told that the group reads it."""
    st = a._storage
    w = a._np
    if w is None:
        w = st.window(a)
    key = id(w)
    held = group.leaves.get(key)
    if held is not None and held[0] is w:
        return held[1]
    # (a 0-D operand stays 0-D, as the impl sees it op by op: pow's x ** 0.5 fix-up, for one, asks)
    b = w if w.shape == shape or w.ndim == 0 else np.broadcast_to(w, shape)
    group.leaves[key] = (w, b)
    _add_reader(st, group)
    return b


def _add_reader(st: Storage, group: Group) -> None:
    if type(st) is JaxResultStorage:
        return  # (immutable memory: a write copies it first)
    readers = st.readers
    if readers is None:
        readers = st.readers = []
    elif len(readers) > 64:
        readers[:] = [r for r in readers if (g := r()) is not None and not g.done]
    readers.append(weakref.ref(group))
    if type(st) is HostStorage:
        st.__class__ = ReadStorage  # (the host kinds share one layout)
    group.storages.append(st)


def _merge(group: Group, other: Group) -> None:
    """Move `other`'s records into `group` (after its own: no record of one reads the other's yet)."""
    for ref in other.members:
        rec = ref()
        if rec is not None:
            rec.group = group
            group.members.append(ref)
    for key, held in other.leaves.items():
        group.leaves.setdefault(key, held)
    for st in other.storages:
        _add_reader(st, group)
    other.members = []
    other.leaves = {}
    other.storages = []
    other.done = True


# --- forcing -----------------------------------------------------------------------------------------------


def force(storage) -> None:
    """Compute a pending storage (with every live record of its group, in one pass). A pass that fails leaves it
    pending (`run_group`): this raises the pass's error, and a later call runs it again."""
    if type(storage) is PendingDeviceStorage:
        with _device.OWNERS, LOCK:  # (in this order: see LOCK)
            if type(storage) is PendingDeviceStorage:  # (unless another thread ran it meanwhile)
                run_group(storage.buf[0])  # (a pending device storage's buf: (group, index))
    elif type(storage) is PendingStorage:
        with LOCK:
            if type(storage) is PendingStorage:
                run_group(storage.owner.group)
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


def run_group(group: Group) -> None:
    """Run every live record of `group` in one pass (holding LOCK).

    A pass is atomic per array. Nothing is changed until every result is complete: the pass's buffers are taken
    and filled first, so that a failure there (MemoryError, KeyboardInterrupt, a kernel's exception, a thread of
    the pool dying) leaves every record and its group as they were, pending and runnable again, and the error
    goes to the caller as it came. Then each record gets its result (`rec.result`), and then each pending
    storage becomes a host storage over its record's result (`_commit`): a record with a result is computed, so
    whatever interrupts the commit, a later force of one of its storages finishes it instead of computing again.
    Inputs are only ever read."""
    if group.done:
        return
    if type(group) is DeviceGroup:
        _run_device_group(group)
        return
    count = len(group.members)
    live = [rec for ref in group.members if (rec := ref()) is not None]
    # The records to compute: those whose arrays are alive (outputs), and the records they read, walked back in
    # reverse record order (no recursion); a record with a result is read as memory.
    outputs = {}
    needed = set()
    for rec in reversed(live):
        if rec.result is not None:
            continue
        st = rec.storage()
        if st is not None and type(st) is PendingStorage:
            outputs[id(rec)] = st
            needed.add(id(rec))
        if id(rec) in needed:
            for x in rec.inputs:
                if type(x) is Record and x.result is None:
                    needed.add(id(x))
    steps = [rec for rec in live if id(rec) in needed]
    if steps:
        shape = steps[-1].shape
        results = {}
        for rec in steps:
            if id(rec) in outputs:
                results[id(rec)] = _RESULTS.take(shape, rec.dtype)
        execute(steps, results, shape, group.errors)
        for rec in steps:
            out = results.get(id(rec))
            if out is not None:
                rec.result = out
    _commit(group, live, count)


def _commit(group: Group, live: list, count: int) -> None:
    """Make the pending storage of each record of `live` that has a result a host storage over it, then close
    `group`: it reads its inputs no more. Any step may be interrupted: what is left is still a consistent state
    (a pending storage whose record has a result, which `run_group` commits again; a closed group)."""
    for rec in live:
        out = rec.result
        if out is not None:
            st = rec.storage()
            if st is not None and type(st) is PendingStorage:
                st.buf = out.reshape(-1)
                st.__class__ = ReadStorage if st.readers else HostStorage  # type: ignore[assignment]  # (one layout)
                st.owner = None  # (after the class: a pending storage's owner is its record)
    if len(group.members) != count:
        # Records joined the group during its pass (code run by a warning it raised): they are pending, the group
        # stays open for them (and keeps reading its inputs).
        del group.members[:count]
        return
    storages = group.storages
    group.done = True
    group.members = []
    group.leaves = {}
    group.storages = []
    for st in storages:  # (the group no longer reads them: drop it from their readers)
        readers = st.readers
        if readers is not None:
            readers[:] = [r for r in readers if (g := r()) is not None and not g.done]
    for rec in live:
        rec.inputs = ()  # (the windows it read may go)


# --- the host executor -------------------------------------------------------------------------------------

# The memory of the passes' results: a loop that drops last iteration's result gets its (warm) pages back
# instead of faulting in fresh ones, which costs as much as a cheap kernel (used under LOCK).
_RESULTS = Recycler(min_bytes=1 << 16, max_bytes=64 << 20, max_buffers=32)

_POOL: ThreadPoolExecutor | None = None
_THREADS = max(1, min(os.cpu_count() or 1, 8))


_POOL_LOCK = processes.lock("fusion.POOL", threading.Lock())


def _pool() -> ThreadPoolExecutor:
    """The pool that runs a large pass's blocks beside the calling thread (made on first use: `import stridex`
    does not pay for concurrent.futures, some 10 ms; and in a forked child, whose copy of the parent's pool has
    no threads, on its first threaded pass: `_forget_the_parents_threads`)."""
    global _POOL
    with _POOL_LOCK:
        if _POOL is None:
            from concurrent.futures import ThreadPoolExecutor

            _POOL = ThreadPoolExecutor(max_workers=_THREADS - 1, thread_name_prefix="stridex-fusion")
        return _POOL


@processes.in_child
def _forget_the_parents_threads() -> None:
    """In a forked child: the pool's threads, and the scratch memory kept per thread, were the parent's (the
    child has one thread, which starts a pool of its own on its first threaded pass); the recycler's idle
    results were the parent's too. Pending work is kept: the child computes it from the parent's values."""
    global _POOL, _SCRATCH
    _POOL = None
    _SCRATCH = threading.local()
    _RESULTS.held = []


def block_keys(shape: tuple, block: int) -> list:
    """(key, shape) of the blocks that split an array of `shape` into about `block` elements each (whole
    trailing axes, a slice of one axis, single indices before it), in C order."""
    if not shape:
        return [((Ellipsis,), ())]
    inner = 1
    k = len(shape) - 1
    while k > 0 and inner * shape[k] <= block:
        inner *= shape[k]
        k -= 1
    step = max(1, block // inner)
    n = shape[k]
    rest = shape[k + 1:]
    # (the Ellipsis keeps a block an ndarray: a key of ints alone would give NumPy scalars)
    return [(outer + (slice(start, min(start + step, n)), Ellipsis), (min(step, n - start),) + rest)
            for outer in itertools.product(*[range(m) for m in shape[:k]])
            for start in range(0, n, step)]


# A ufunc step gets its output as its last positional argument (some 0.1 us less per call than out=), except
# where NumPy deprecates that (2.4: "Passing more than 2 positional arguments to np.maximum and np.minimum").
_OUT_BY_KEYWORD = {np.maximum: lambda x1, x2, out: np.maximum(x1, x2, out=out),
                   np.minimum: lambda x1, x2, out: np.minimum(x1, x2, out=out)}

# How a step runs: its impl (which returns fresh memory), the ufunc it is the same as (into scratch memory), or
# `where` (into scratch memory: a bitwise blend, or two copies as its impl makes them).
_IMPL, _UFUNC, _WHERE = 0, 1, 2


class _Program:
    """A pass compiled from its records. Each step reads leaves (windows, sliced per block), constants (Python
    scalars, 0-D windows) or earlier steps' block values; a step that calls a ufunc (or is `where`) writes into
    a scratch buffer of its own dtype, reused once the values it held are read for the last time, or into its
    record's result when the record's array is alive."""

    __slots__ = ("errors", "flagged", "leaves", "lock", "scratch", "steps")

    def __init__(self, steps, results, block: int, errors: dict):
        index = {id(rec): i for i, rec in enumerate(steps)}
        leaves: list = []
        leaf_index: dict = {}
        last_use: dict = {}
        compiled = []
        for i, rec in enumerate(steps):
            sources: list[tuple[int, Any]] = []
            half = rec.dtype.kind == "V"
            for x in rec.inputs:
                if type(x) is Record:
                    j = index.get(id(x))
                    if j is None:  # (computed by an earlier pass: its result is a leaf)
                        x = x.result
                    else:
                        sources.append((1, j))
                        last_use[j] = i
                        half = half or steps[j].dtype.kind == "V"
                        continue
                if type(x) is np.ndarray:
                    half = half or x.dtype.kind == "V"
                    if x.ndim or not rec.shape:
                        k = leaf_index.get(id(x))
                        if k is None:
                            k = leaf_index[id(x)] = len(leaves)
                            leaves.append(x)
                        sources.append((0, k))
                    else:
                        sources.append((2, x))  # (a 0-D operand: as it is)
                else:
                    sources.append((2, x))
            mode, fn, quiet = _IMPL, rec.prim.impl, False
            same = getattr(fn, "same_as_ufunc", None)
            if not half and rec.params == {}:
                if same is not None and (same[2] or rec.dtype.kind != "c"):
                    mode, fn, quiet = _UFUNC, same[0], same[1]
                    if fn in _OUT_BY_KEYWORD:
                        fn = _OUT_BY_KEYWORD[fn]
                    if fn is np.divide and quiet and sources[1][0] == 2:  # (quiet: never re-run by `execute`)
                        reciprocal = _exact_reciprocal(sources[1][1], rec.dtype)
                        if reciprocal is not None and _source_dtype(steps, leaves, sources[0]) == rec.dtype:
                            fn, sources[1] = np.multiply, (2, reciprocal)  # (x / 2 is x * 0.5: see there)
                elif rec.prim.name == "where" and not any(type(s[1]) is float for s in sources if s[0] == 2):
                    mode = _WHERE
            compiled.append([mode, fn, rec.params, sources, results.get(id(rec)), quiet, None, []])
        # scratch buffers: a step that writes into one takes a free one of its dtype (freed at last use)
        free: dict = {}
        scratch: list = []
        for j, last in last_use.items():
            compiled[last][7].append(j)
        blend_slots: dict = {}  # itemsize -> the scratch of a blend's mask and of its x1 ^ x2 (shared by steps)
        for i, step in enumerate(compiled):
            if step[0] == _WHERE:
                step[1] = None
                dtype = steps[i].dtype
                condition, *operands = (_source_dtype(steps, leaves, s) for s in step[3])
                # (`d is not None`: NumPy reads None as float64, so a Python int operand of a float64 `where` compared
                # equal to its dtype and reached the blend, which needs arrays)
                if dtype.itemsize in (1, 2, 4, 8) and condition == np.bool_ and \
                        all(d is not None and d == dtype for d in operands):
                    slots = blend_slots.get(dtype.itemsize)
                    if slots is None:
                        lanes = np.dtype(f"u{dtype.itemsize}")
                        slots = blend_slots[dtype.itemsize] = (len(scratch), len(scratch) + 1, lanes)
                        scratch += [lanes, lanes]
                    step[1] = slots
            if step[0] != _IMPL and step[4] is None:
                dtype = steps[i].dtype
                pool = free.setdefault(dtype, [])
                if pool:
                    step[6] = pool.pop()
                else:
                    step[6] = len(scratch)
                    scratch.append(dtype)
            for j in step[7]:  # (read for the last time here: its buffer is free for the steps after this one)
                b = compiled[j][6]
                if b is not None:
                    free.setdefault(steps[j].dtype, []).append(b)
        self.steps = compiled
        self.leaves = leaves
        self.scratch = [(dtype, block) for dtype in scratch]
        self.flagged: dict = {}  # step -> {category: the inputs of a block that raised it}
        self.lock = threading.Lock()
        self.errors = errors  # NumPy's error state of the records

    def run(self, blocks) -> None:
        flags: list = []

        def note(kind, flag):
            flags.append(kind)

        buffers = _take_scratch(self.scratch)
        try:
            self._run(blocks, buffers, note, flags)
        finally:
            _give_scratch(self.scratch, buffers)

    def _run(self, blocks, buffers, note, flags) -> None:
        # Each step's argument list is kept and patched in place: a leaf's block and an output's block change
        # with every block, a scratch buffer's view only with the block's shape, an impl's result after each
        # call (a step's own work per block is then one call).
        steps = self.steps
        n = len(steps)
        # (a ufunc step's list ends with its output: see _OUT_BY_KEYWORD)
        args: list[list[Any]] = [[None if kind != 2 else s for kind, s in sources] + ([None] if mode == _UFUNC else [])
                                 for mode, _, _, sources, _, _, _, _ in steps]
        readers: list = [[] for _ in range(n)]  # step j -> (step, position) reading its value
        leaf_readers: list = [[] for _ in self.leaves]
        for i, step in enumerate(steps):
            for pos, (kind, s) in enumerate(step[3]):
                if kind == 0:
                    leaf_readers[s].append((i, pos))
                elif kind == 1:
                    readers[s].append((i, pos))
        outputs = [i for i, step in enumerate(steps) if step[4] is not None]
        scratch = [i for i, step in enumerate(steps) if step[6] is not None]
        dest: list = [None] * n
        plan = [(i, step[0], step[1], step[2], args[i], step[5]) for i, step in enumerate(steps)]
        leaves = self.leaves
        shape = None
        with np.errstate(**{k: ("call" if v == "warn" else v) for k, v in self.errors.items()}, call=note):
            for key, bshape in blocks:
                if bshape != shape:
                    shape = bshape
                    size = prod(bshape)
                    views = [b[:size].reshape(bshape) for b in buffers]
                    for i in scratch:
                        d = dest[i] = views[steps[i][6]]
                        for c, pos in readers[i]:
                            args[c][pos] = d
                        if steps[i][0] == _UFUNC:
                            args[i][-1] = d
                for k, w in enumerate(leaves):
                    v = w[key]
                    for c, pos in leaf_readers[k]:
                        args[c][pos] = v
                for i in outputs:
                    if steps[i][0] != _IMPL:
                        d = dest[i] = steps[i][4][key]
                        for c, pos in readers[i]:
                            args[c][pos] = d
                        if steps[i][0] == _UFUNC:
                            args[i][-1] = d
                for i, mode, fn, params, a, quiet in plan:
                    if mode == _UFUNC:
                        fn(*a)
                    elif mode == _IMPL:
                        r = fn(*a, **params) if params else fn(*a)
                        out = steps[i][4]
                        if out is not None:
                            out[key] = r
                        for c, pos in readers[i]:
                            args[c][pos] = r
                    elif fn is not None:
                        # where, a boolean condition, x1 and x2 of the result's dtype: the same bits as the impl's two copies, selected
                        # without a branch (mask = -condition; x2 ^ ((x1 ^ x2) & mask)). NumPy's masked copies
                        # branch per element: 4-5x slower than these four calls where the condition is random.
                        mask, bits, lanes = views[fn[0]], views[fn[1]], fn[2]
                        np.negative(a[0].view(np.int8), out=mask, casting="unsafe")
                        x2 = a[2].view(lanes)
                        np.bitwise_xor(a[1].view(lanes), x2, out=bits)
                        np.bitwise_and(bits, mask, out=bits)
                        np.bitwise_xor(x2, bits, out=dest[i].view(lanes))
                    else:  # where, as its impl computes it on large arrays: x2, then x1 where the condition holds
                        r = dest[i]
                        np.copyto(r, a[2])
                        c, x1 = a[0], a[1]
                        if c.dtype != np.bool_:
                            c = c.astype(bool)
                        if type(x1) is np.ndarray and x1.dtype == r.dtype and x1.shape == r.shape == c.shape:
                            np.putmask(r, c, x1)  # (the same copy, 5-8x faster than copyto's masked loop)
                        else:
                            np.copyto(r, x1, where=c)
                    if flags:
                        if quiet:
                            flags.clear()
                        else:
                            self._flagged(i, flags, a[:-1] if mode == _UFUNC else a)

    def _flagged(self, i, flags, args) -> None:
        with self.lock:
            seen = self.flagged.setdefault(i, {})
            for kind in flags:
                if kind not in seen:
                    seen[kind] = [a.copy() if type(a) is np.ndarray else a for a in args]
        flags.clear()


def _exact_reciprocal(divisor, dtype: np.dtype) -> float | None:
    """1 / `divisor` when `x / divisor` and `x * (1 / divisor)` are the same bits for every x of real floating
    `dtype`, else None. That holds for a power of two whose reciprocal is a normal number of `dtype` too: the
    reciprocal is exact, so both are the correctly rounded value of the same real number (subnormal results,
    NaN payloads, signed zeros and infinities included; and both raise the same flags). A multiplication is
    several times cheaper than a division (NumPy's float16 loops compute in float32, where both are exact)."""
    if type(divisor) not in (float, int) or dtype.kind != "f" or dtype.itemsize > 8 or divisor == 0:
        return None
    try:
        mantissa, exponent = math.frexp(divisor)  # divisor = mantissa * 2**exponent, 0.5 <= |mantissa| < 1
    except OverflowError:  # (an int beyond any float)
        return None
    info = np.finfo(dtype)
    e = exponent - 1  # |divisor| = 2**e when |mantissa| is 0.5
    if abs(mantissa) != 0.5 or not (info.minexp <= e < info.maxexp and info.minexp <= -e < info.maxexp):
        return None
    return math.ldexp(1.0 if mantissa > 0 else -1.0, -e)


def _source_dtype(steps, leaves, source):
    """The dtype of a step's source (None for a Python scalar)."""
    kind, s = source
    if kind == 0:
        s = leaves[s]
    elif kind == 1:
        return steps[s].dtype
    return s.dtype if type(s) is np.ndarray else None


_SCRATCH = threading.local()  # .free: {(dtype, elements): [buffers]}, kept between passes (no page faults)


def _take_scratch(specs) -> list:
    free = getattr(_SCRATCH, "free", None)
    if free is None:
        free = _SCRATCH.free = {}
    out = []
    for spec in specs:
        pool = free.get(spec)
        out.append(pool.pop() if pool else aligned_empty((spec[1],), spec[0]))
    return out


def _give_scratch(specs, buffers) -> None:
    free = _SCRATCH.free
    for spec, b in zip(specs, buffers):
        # (kept: the two usual capacities, up to 16 buffers of each dtype per thread)
        if spec[1] in (BLOCK_ELEMENTS, 4 * BLOCK_ELEMENTS):
            pool = free.setdefault(spec, [])
            if len(pool) < 16:
                pool.append(b)


def _pass_block(size: int, threads: int) -> int:
    """Elements per block of a pass over `size` elements on `threads` threads: BLOCK_ELEMENTS on one thread;
    on several, each thread's share in one block while that is at most 4 * BLOCK_ELEMENTS, else blocks of
    2 * BLOCK_ELEMENTS. (Measured on an idle 2-core machine, the pass alone: at 10^5 elements, two blocks of
    50000 against blocks of 16384 on two threads, Black-Scholes 1.44x faster, the 10-op chain 1.19x, the 50-step
    loop 1.12x; at 2^20, blocks of 32768 against 16384: 1.25x, 1.15x, 0.92x.)"""
    if threads == 1:
        return BLOCK_ELEMENTS
    share = -(-size // threads)
    return max(BLOCK_ELEMENTS, share) if share <= 4 * BLOCK_ELEMENTS else 2 * BLOCK_ELEMENTS


def _claimed(blocks: list, counter, stop: list) -> Iterator:
    """The blocks this thread claims from `counter` (shared by the pass's threads), one at a time, until none is
    left or `stop` is not empty (a thread of the pass failed)."""
    n = len(blocks)
    for i in counter:  # (next() of an itertools.count is atomic: each index goes to one thread)
        if i >= n or stop:
            return
        yield blocks[i]


def _run_when_ready(ready: threading.Event, made: list, blocks: list, counter, stop: list) -> None:
    """A pool thread's part of a pass: the blocks it claims, once the program is made (none if making it
    failed: the calling thread raises)."""
    ready.wait()
    if made:
        try:
            made[0].run(_claimed(blocks, counter, stop))
        except BaseException:
            stop.append(True)  # (the pass has failed: the other threads claim no more blocks)
            raise


def _start_helpers(futures: list, count: int, *work) -> None:
    """Add to `futures` those of `count` pool threads each running `_run_when_ready(*work)`; fewer where no
    thread can be started (the interpreter shutting down, the system refusing one): the calling thread claims
    their share."""
    try:
        pool = _pool()
        for _ in range(count):
            futures.append(pool.submit(_run_when_ready, *work))
    except RuntimeError:  # ("cannot schedule new futures after interpreter shutdown", "can't start new thread")
        pass


def execute(steps, results, shape, errors: dict) -> None:
    """Run records `steps` (in order) over `shape`, block by block, writing the results of those in `results`,
    with NumPy's floating-point warnings as `errors` (NumPy's error state when they were recorded) says."""
    size = prod(shape)
    threads = _THREADS if size >= THREADED_MIN_ELEMENTS else 1
    blocks = block_keys(shape, _pass_block(size, threads))
    threads = min(threads, len(blocks))
    largest = max(prod(b[1]) for b in blocks)
    capacity = next((c for c in (BLOCK_ELEMENTS, 4 * BLOCK_ELEMENTS) if largest <= c), largest)
    if threads == 1:
        program = _Program(steps, results, capacity, errors)
        program.run(blocks)
    else:
        # The pool's threads are woken first: a sleeping thread takes some 50-100 us to start on a virtual
        # machine, about the time the program takes to compile (each then claims blocks until none is left).
        # Whatever interrupts the calling thread, the pool's threads are released (`ready`), stop at their next
        # block, and are waited for: no thread of a failed pass is left waiting, or writing, behind it.
        counter = itertools.count()
        ready = threading.Event()
        made: list = []
        stop: list = []
        futures: list = []
        failed = True
        try:
            try:
                _start_helpers(futures, threads - 1, ready, made, blocks, counter, stop)
                program = _Program(steps, results, capacity, errors)
                made.append(program)
            finally:
                ready.set()
            program.run(_claimed(blocks, counter, stop))
            failed = False
        finally:
            if failed:
                stop.append(True)  # (the caller's error is the one raised)
                ready.set()
            for f in futures:
                if failed:
                    f.exception()  # (waits for it)
                else:
                    f.result()  # (a pool thread's error)
    if program.flagged:
        # NumPy warns once per ufunc call: each flagged step is run again on a block that raised each flag,
        # under the caller's error state, so that NumPy itself warns as the op-by-op call would.
        with np.errstate(**errors):
            for i in sorted(program.flagged):
                step = program.steps[i]
                prim = steps[i].prim
                done: list = []
                for args in program.flagged[i].values():
                    if any(a is args for a in done):
                        continue
                    done.append(args)
                    prim.impl(*args, **step[2])


# --- on a JAX device --------------------------------------------------------------------------------------
# The same records, whose leaves are device buffers (JAX arrays, immutable: a storage pending work reads is
# marked `readonly`, so that a write copies its buffer instead of donating it), run as one executable made of
# the records' own lowerings, compiled once per structure (the primitives, params, scalars and layouts).


class DeviceGroup:
    """Records on one JAX device that feed each other, compiled as one executable; a member's storage (a
    `PendingDeviceStorage`) holds `(group, index)` as its `buf`. The structure is kept as it is recorded:
    `plan` (per member: primitive, params, sources, dtype; a source is `(0, k)` the k-th leaf read, `(1, j)`
    member j's value, `(2, v)` a Python scalar), the leaves (`buffers`; `reads`: a buffer's position, a View and
    a dtype each) and `key`, the same flattened into hashable parts: with the members still alive it is the
    executable's cache key, so a pass costs a lookup, not a walk over its records."""

    __slots__ = ("__weakref__", "buffer_index", "buffers", "device", "done", "key", "members", "plan",
                 "read_index", "reads", "shape", "view")
    errors = None  # (NumPy's error state plays no part on a device)

    def __init__(self, device, shape: tuple) -> None:
        self.device = device
        self.shape = shape
        self.view = View.contiguous(shape)  # (every member's View)
        self.done = False
        self.members: list = []  # weak references to the members' PendingDeviceStorages
        self.plan: list = []
        self.key: list = []
        self.buffers: list = []  # the device buffers read (JAX arrays; held until the pass)
        self.buffer_index: dict = {}  # id(buffer) -> position in buffers
        self.reads: list = []
        self.read_index: dict = {}  # (buffer position, id(View)) -> position in reads

    @property
    def leaves(self) -> list:
        return self.buffers


def _device_read(group: DeviceGroup, buffer, view: View, dtype) -> int:
    """The position in `group.reads` of `buffer` read through `view` (added, with its key parts, if new)."""
    b = group.buffer_index.get(id(buffer))
    if b is None:
        b = group.buffer_index[id(buffer)] = len(group.buffers)
        group.buffers.append(buffer)
        group.key.append(("buffer", buffer.shape, buffer.dtype))  # (a NumPy dtype: str() of it costs 2 us)
    k = group.read_index.get((b, id(view)))
    if k is None:
        k = group.read_index[(b, id(view))] = len(group.reads)
        group.reads.append((b, view, dtype))
        group.key.append(("read", b, view.shape, view.strides, view.offset, dtype.name))
    return k


def _device_step(group: DeviceGroup, prim, params, sources: tuple, dtype) -> None:
    """Append a step to `group`'s plan, and its parts to the key: the primitive, its params, one part per
    source (an int for a member or a leaf read, a (type, repr) pair for a scalar) and the dtype's name."""
    group.plan.append((prim, params, sources, dtype))
    key = group.key
    key.append(prim)
    key.append(_device._params_key(params) if params else ())
    for kind, v in sources:
        # (a Python scalar is an argument of the pass, keyed by its type; an int beyond int64 a constant)
        key.append(v if kind == 1 else ~v if kind == 0 else
                   type(v) if _device.passed_scalar(v) is not None else (type(v), repr(v)))
    key.append(dtype.name)


def _merge_device(group: DeviceGroup, other: DeviceGroup) -> None:
    """Move `other`'s members after `group`'s, their sources renumbered (no member of one reads the other's)."""
    offset = len(group.plan)
    reads = [_device_read(group, other.buffers[b], view, dtype) for b, view, dtype in other.reads]
    for (prim, params, sources, dtype), ref in zip(other.plan, other.members):
        moved = tuple((0, reads[v]) if kind == 0 else (1, v + offset) if kind == 1 else (kind, v)
                      for kind, v in sources)
        _device_step(group, prim, params, moved, dtype)
        group.members.append(ref)
        st = ref()
        if st is not None and type(st) is PendingDeviceStorage:
            st.buf = (group, st.buf[1] + offset)  # type: ignore[assignment]  # (see PendingDeviceStorage)
    other.members = []
    other.plan = []
    other.buffers = []
    other.done = True


def _member_of_device_group(a: Array, shape: tuple):
    """The group of pending device array `a` when `a` is a whole member of shape `shape`, else None."""
    group = a._storage.buf[0]
    return group if a._view is group.view and group.shape == shape and not group.done else None


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
_OPEN_DEVICE_GROUPS: dict = {}
# (device, matmul precision, structure, outputs) -> the compiled executable of a pass on a device
_DEVICE_PASSES = caches.ProgramCache("device_pass")


def _record_on_device(prim, args, params, dev, shape, dtype):
    # The hot path of eager work on a device (one call per operation, about a microsecond: kept flat).
    if prim.lower is None:
        return None
    if jax_bridge.RUNTIME_FORKED:  # (work that could never run: said at its line)
        jax_bridge.check_runtime()
    with _device.OWNERS, LOCK:  # (in this order: see LOCK)
        # The usual case in one walk: every pending operand a whole member of one live group of this shape (a
        # group stays live while a member's storage is pending), whose sources are then known; any other case
        # goes through `_joined_group`, and the sources are found once it has run what it had to.
        group = None
        n_leaves = 0
        sources: list | None = []
        for a in args:
            if type(a) is not Array:
                sources.append((2, a))
                continue
            st = a._storage
            if type(st) is not PendingDeviceStorage:
                n_leaves += 1
                sources.append(None)  # (a leaf read: below, once the group is known)
                continue
            g, j = st.buf
            if a._view is not g.view or g.shape != shape or (group is not None and g is not group):
                group = _joined_group(args, shape, PendingDeviceStorage, _member_of_device_group, _merge_device)
                # (the operands it ran are leaves now)
                n_leaves = sum(1 for b in args if type(b) is Array and type(b._storage) is not PendingDeviceStorage)
                sources = None
                break
            group = g
            sources.append((1, j))
        if group is not None and (len(group.plan) + 1 >= MAX_RECORDS or len(group.buffers) + n_leaves > MAX_LEAVES):
            run_group(group)
            group = None  # (its members among the operands are computed now: leaves, read below)
            sources = None
        if group is None:
            # No pending operand: the record joins the open group of its device and shape, if there is one with
            # room (independent subexpressions, `S / K` and `r * T`, would otherwise start groups that a later
            # operation merges: some 17 us a merge).
            ref = _OPEN_DEVICE_GROUPS.get((dev, shape))
            group = ref() if ref is not None else None
            if group is None or group.done or len(group.plan) + 1 >= MAX_RECORDS \
                    or len(group.buffers) + n_leaves > MAX_LEAVES:
                group = DeviceGroup(dev, shape)
                if len(_OPEN_DEVICE_GROUPS) >= 64:
                    _OPEN_DEVICE_GROUPS.clear()
                _OPEN_DEVICE_GROUPS[(dev, shape)] = weakref.ref(group)
        if sources is None or n_leaves:
            sources = []
            for a in args:
                if type(a) is not Array:
                    sources.append((2, a))
                    continue
                st = a._storage
                if type(st) is PendingDeviceStorage:
                    sources.append((1, st.buf[1]))
                    continue
                st.readonly = True  # (never donated from now on: the buffer read here stays valid; before taking it)
                sources.append((0, _device_read(group, st.owner, a._view, a._dtype)))
        storage = PendingDeviceStorage()
        storage.buf = (group, len(group.plan))  # (see PendingDeviceStorage)
        _device_step(group, prim, params, tuple(sources), dtype)
        storage.device = dev
        storage.readonly = False
        view = storage.jax_view = group.view
        storage.jax_alias = storage.jax_copy = storage.readers = None
        group.members.append(weakref.ref(storage))
        return Array._make(storage, view, dtype)


def _run_device_group(group: DeviceGroup) -> None:
    """Run `group` on its device as one executable (compiled once per structure and set of live members).
    Atomic per array as a host pass (`run_group`): a failure to compile or to run it changes nothing, and each
    member's storage then becomes a device storage over its result, in an order that leaves a storage whose
    change is interrupted pending (run again by a later force)."""
    if jax_bridge.RUNTIME_FORKED:
        jax_bridge.check_runtime()
    outputs = []
    storages = []
    for i, ref in enumerate(group.members):
        st = ref()
        if st is not None and type(st) is PendingDeviceStorage:
            outputs.append(i)
            storages.append(st)
    if outputs:
        structure = (group.device.name, matmul_key(), tuple(group.key), tuple(outputs))
        entry = _DEVICE_PASSES.get(structure)
        scalars = _passed_scalars(group)
        if entry is None:
            entry = Executable(_compile_device_pass(group, outputs, scalars))
            _DEVICE_PASSES.put(structure, entry)
        call = entry.call
        with _device.OWNERS:
            # (an error leaves the group pending: a later force raises again)
            results = call(*group.buffers, *scalars)
        if not entry.settled:
            settle(entry, call)
        for st, buffer in zip(storages, results):
            _OWNER_SLOT.__set__(st, buffer)
            st.__class__ = _device.DeviceStorage  # type: ignore[assignment]  # (one layout)
            st.buf = None  # type: ignore[assignment]  # (no host buffer; a pending one's buf is its group)
    group.done = True
    group.members = []
    group.plan = []
    group.buffers = []
    group.buffer_index = {}
    group.read_index = {}


# XLA keeps a float16 or bfloat16 value in float32 between the operations it fuses, unless told not to: the
# op-by-op executables round each operation's result to its dtype, and so must a pass, or `remainder`, `floor`
# or a comparison can land on the other side of a rounding step (`STRIDEX_FUZZ_SEED=13000`, seeds 82 and 137).
_EXACT_PRECISION = {"xla_allow_excess_precision": False}


def _passed_scalars(group: DeviceGroup) -> list:
    """The Python scalars of `group`'s plan that its pass takes as arguments, in plan order, on its device."""
    scalars = []
    for _, _, sources, _ in group.plan:
        for kind, v in sources:
            if kind == 2:
                passed = _device.passed_scalar(v)
                if passed is not None:
                    scalars.append(_device.value_on(group.device, passed))
    return scalars


def _compile_device_pass(group: DeviceGroup, outputs: list, scalars: list):
    """The executable computing members `outputs` of `group` from its leaf buffers and the Python scalars it
    takes as arguments (`scalars`, in plan order: one pass serves x * 2.0, x * 3.0, ...)."""
    plan, reads, shape = group.plan, group.reads, group.shape
    # The environment of the lowering: the leaves read, then the Python scalars passed, then each member's value.
    n_reads, n_passed = len(reads), len(scalars)
    members = n_reads + n_passed
    steps = []
    passed = itertools.count(n_reads)
    for prim, params, sources, dtype in plan:
        avals_in = [ShapedArray(reads[v][1].shape, reads[v][2]) if kind == 0 else
                    ShapedArray(shape, plan[v][3]) if kind == 1 else aval_of(v) for kind, v in sources]
        inputs = tuple(v if kind == 0 else members + v if kind == 1 else
                       next(passed) if _device.passed_scalar(v) is not None else Const(v) for kind, v in sources)
        steps.append(Step(prim, params, inputs, LoweringContext(avals_in, [ShapedArray(shape, dtype)])))
    run = lower.program(steps, tuple(members + i for i in outputs))  # (XLA drops the members no output needs)
    n_buffers = len(group.buffers)

    def program(*bufs):
        values = [read_view(bufs[b], view, None) for b, view, _ in reads]
        values += [weakly_typed(p) for p in bufs[n_buffers:]]
        return tuple(run(values))

    return lower.compile(program, [*group.buffers, *scalars], keep_unused=True, compiler_options=_EXACT_PRECISION)


# --- what was fused ----------------------------------------------------------------------------------------


def pending(x: Array) -> str | None:
    """The pending work behind array `x`, printed one record a line, or None when `x` is computed."""
    st = x._storage
    if type(st) not in _PENDING:
        return None
    with LOCK:
        if type(st) is PendingStorage:
            target = st.owner
            members = [rec for ref in target.group.members if (rec := ref()) is not None and rec.result is None]
            return _print_host(members, target)
        if type(st) is PendingDeviceStorage:
            group, index = st.buf
            return _print_device(group, index)
    return None


def _line(name, dtype, shape, prim, parts, params, mark) -> str:
    params_text = "".join(f", {k}={getattr(v, 'name', v)}" for k, v in params.items())
    return f"{name}:{dtype.name}{list(shape)} = {prim.name}({', '.join(parts)}{params_text}){'  <- x' if mark else ''}"


def _print_host(members, target) -> str:
    names: dict = {}
    leaves: dict = {}
    lines = []
    for rec in members:
        parts = []
        for x_ in rec.inputs:
            if type(x_) is Record:
                parts.append(names.get(id(x_), "?"))
            elif type(x_) is np.ndarray:
                parts.append(leaves.setdefault(id(x_), f"in{len(leaves)}"))
            else:
                parts.append(repr(x_))
        names[id(rec)] = f"r{len(names)}"
        lines.append(_line(names[id(rec)], FROM_NUMPY[rec.dtype], rec.shape, rec.prim, parts, rec.params,
                           rec is target))
    return "\n".join(lines)


def _print_device(group: DeviceGroup, target: int) -> str:
    lines = []
    for i, (prim, params, sources, dtype) in enumerate(group.plan):
        parts = [f"in{group.reads[v][0]}" if kind == 0 else f"r{v}" if kind == 1 else repr(v) for kind, v in sources]
        lines.append(_line(f"r{i}", dtype, group.shape, prim, parts, params, i == target))
    return "\n".join(lines)


# --- the public surface: `stridex.fusion` and `stridex.eval` -----------------------------------------------


class Fusion:
    """Eager fusion's switch and inspector (`stridex.fusion`).

    `with stridex.fusion(False): ...` runs every eager operation in the block at once (op by op), as
    `STRIDEX_FUSION=0` does for the whole process; `stridex.fusion(True)` turns it back on inside such a block.
    `stridex.fusion.enabled()` says whether it is on here, and `stridex.fusion.pending(x)` prints the pending work
    behind `x` (None once it is computed).

    >>> import stridex as sx
    >>> x = sx.linspace(0.0, 1.0, 100_000)
    >>> with sx.fusion(False):
    ...     y = sx.sin(x) + 1.0
    >>> sx.fusion.pending(y) is None
    True
    """

    def __call__(self, enabled: bool = True) -> contextlib.AbstractContextManager[None]:
        return enable(enabled)

    def enabled(self) -> bool:
        """Whether eager elementwise work may be deferred in this context."""
        return _ENABLED.get()

    def pending(self, x: Array) -> str | None:
        """The pending work that computes `x`, one record a line (`<- x` marks x's), or None when x is computed."""
        return pending(x)

    def __repr__(self) -> str:
        return f"stridex.fusion(enabled={_ENABLED.get()})"


fusion = Fusion()


def eval(*arrays: object) -> None:  # noqa: A001  (named as MLX's `mx.eval`, which it is)
    """Compute every pending array among `arrays` (arrays, or lists, tuples and dicts of them) now.

    Eager elementwise work on large arrays may be deferred and fused (see `stridex.fusion`); it runs when a value
    is needed anyway (printing, `float(x)`, NumPy, a reduction, `jit`). This forces it at a chosen point, as
    `mx.eval` does in MLX; `x.block_until_ready()` forces `x` too, as in JAX.

    >>> import stridex as sx
    >>> y = sx.sin(sx.linspace(0.0, 1.0, 100_000)) * 2.0
    >>> sx.eval(y)
    >>> sx.fusion.pending(y) is None
    True
    """
    evaluate(*arrays)
