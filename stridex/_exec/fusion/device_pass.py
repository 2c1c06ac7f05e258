"""Eager fusion on a JAX device: records whose leaves are device buffers (JAX arrays, immutable: a storage pending
work reads is marked `readonly`, so that a write copies its buffer instead of donating it), run as one executable
made of the records' own lowerings (`lower.program`), compiled once per structure (the primitives, params,
scalars and layouts) and kept in the "device_pass" cache."""

from __future__ import annotations

import itertools
import weakref

from stridex._core import caches
from stridex._core.array import Array
from stridex._core.avals import ShapedArray, aval_of
from stridex._core.view import View
from stridex._exec import device as _device
from stridex._exec import jax_bridge
from stridex._exec import lower
from stridex._exec.fusion import limits
from stridex._exec.fusion.pending import LOCK, PendingDeviceStorage, _joined_group, pending_to_device
from stridex._exec.jax_bridge import weakly_typed
from stridex._exec.lower import Const, Executable, LoweringContext, Step, settle
from stridex._exec.precision import matmul_key
from stridex._exec.strided import read_view

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

    def run(self) -> None:
        """Run this group on its device as one executable (holding OWNERS, then LOCK): `_run_device_group`."""
        if not self.done:
            _run_device_group(self)


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
        if group is not None and (len(group.plan) + 1 >= limits.MAX_RECORDS
                                  or len(group.buffers) + n_leaves > limits.MAX_LEAVES):
            group.run()
            group = None  # (its members among the operands are computed now: leaves, read below)
            sources = None
        if group is None:
            # No pending operand: the record joins the open group of its device and shape, if there is one with
            # room (independent subexpressions, `S / K` and `r * T`, would otherwise start groups that a later
            # operation merges: some 17 us a merge).
            ref = _OPEN_DEVICE_GROUPS.get((dev, shape))
            group = ref() if ref is not None else None
            if group is None or group.done or len(group.plan) + 1 >= limits.MAX_RECORDS \
                    or len(group.buffers) + n_leaves > limits.MAX_LEAVES:
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
            pending_to_device(st, buffer)
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


