"""The meeting of stridex memory and JAX arrays at a `jit` call.

Which arguments share memory (one storage, or NumPy memory borrowed twice) and so must be views of one
program input; what JAX receives for each array argument (the JAX array its storage holds, `Storage.jax_argument`:
a JAX result's own, a device buffer; else a snapshot of a small window, the JAX array aliasing a large aligned
buffer, or the window itself); how JAX's outputs
become stridex arrays (zero-copy, read-only, copied on the first write); and how what the function
wrote into its inputs goes back into the caller's memory: only the parts it wrote (`WriteBack`), so a
thread writing elsewhere in the same storage meanwhile keeps its write.
"""

from __future__ import annotations

import contextlib
import os
import sys
import warnings
from types import FrameType
from typing import Any, NamedTuple

import numpy as np

from stridex._core import dtypes as _dtypes
from stridex._core.array import Array, window
from stridex._core.dtypes import FROM_NUMPY
from stridex._core.state import push
from stridex._core.storage import (ALIGNMENT, JAX_RESULT, NO_STORAGE, HostStorage, JaxAlias, Snapshot, Storage,
                                    address_of, is_aligned)
from stridex._core.view import View, numpy_key
from stridex._exec import device as _device
from stridex._exec import placement as _placement
from stridex._lax import ops
from stridex._lax.array_indexing import assign
from stridex._exec.jax_bridge import computed, jax, x64

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep  # stridex/


def shared_memory(leaves, alias) -> tuple[dict, bool]:
    """Merge into one alias group the leaves of distinct storages whose NumPy memory overlaps (one NumPy
    array borrowed twice, or a stridex array exported to NumPy and borrowed back): eagerly a write through
    one is seen through the other, so under jit they must be views of one program input.

    Updates `alias` in place and returns ({leaf: offset of its storage's first element from its group
    root's, in elements}, conflict), conflict being True when overlapping memory cannot be one input
    (different dtypes, or offsets not a whole number of elements)."""
    spans = []
    for j, root in enumerate(alias):
        leaf = leaves[j]
        if root == j and isinstance(leaf, Array) and leaf.size:
            buf = leaf._storage_view()[0].shared_buffer()
            if buf is not None:  # (None: memory no NumPy array can share)
                start = buf.__array_interface__["data"][0]
                spans.append((start, start + buf.nbytes, j, buf.dtype))
    if len(spans) < 2:
        return {}, False
    spans.sort(key=lambda span: span[:2])
    merged, conflict = {}, False  # storage's first leaf -> (group root leaf, element offset)
    root_start, end, root, root_dtype = spans[0]
    for start, stop, j, dtype in spans[1:]:
        if start < end:
            if dtype == root_dtype and (start - root_start) % dtype.itemsize == 0:
                merged[j] = (root, (start - root_start) // dtype.itemsize)
            else:
                conflict = True
            end = max(end, stop)
        else:
            root_start, end, root, root_dtype = start, stop, j, dtype
    shifts = {}
    for j, first in enumerate(alias):
        if first in merged:
            alias[j], shifts[j] = merged[first]
    return shifts, conflict


class AliasGroup(NamedTuple):
    """One leaf's place in a group of arguments that share memory (one program input for the group)."""

    root: int  # the group's first leaf: the program input is the flat span of memory behind it
    strides: tuple  # this leaf's view strides
    offset: int  # this leaf's first element, counted from the group's lowest element
    span: int  # how many elements the group's memory spans
    lo: int  # the group's lowest element, counted in the root's storage
    several: bool  # whether the group spans several storages (NumPy memory borrowed twice)

    def placement(self) -> tuple:
        """Everything but the root: where the leaf lies in the group's memory (part of the signature)."""
        return self.strides, self.offset, self.span, self.lo, self.several


def alias_groups(leaves, alias, shifts) -> dict[int, AliasGroup]:
    """For array leaves that share memory with another leaf: j -> its `AliasGroup`. Empty when no two
    arguments share memory (the usual case)."""
    members: dict[int, list] = {}
    for j, root in enumerate(alias):
        members.setdefault(root, []).append(j)
    groups = {}
    for root, js in members.items():
        if len(js) < 2:
            continue
        views = {j: leaves[j]._storage_view()[1] for j in js}
        lo = min(v.extent()[0] + shifts.get(j, 0) for j, v in views.items())
        hi = max(v.extent()[1] + shifts.get(j, 0) for j, v in views.items())
        several = any(j in shifts for j in js)
        for j in js:
            groups[j] = AliasGroup(root, views[j].strides, views[j].offset + shifts.get(j, 0) - lo, hi - lo, lo,
                                   several)
    return groups


def split_identical(leaves, groups: dict[int, AliasGroup]) -> tuple[dict[int, AliasGroup], dict[int, int]]:
    """(groups, same): alias groups whose members are all one array (the same storage, View and dtype: `f(x,
    x)`) taken out of `groups` and returned as `same`, member j -> the first of them. Those members are one
    program input, so a write through one is seen through the others with no flat span of memory to read."""
    members: dict[int, list] = {}
    for j, g in groups.items():
        members.setdefault(g.root, []).append(j)
    same: dict[int, int] = {}
    for root, js in members.items():
        first = leaves[root]
        view = first._storage_view()[1]
        if all(not groups[j].several and leaves[j]._dtype is first._dtype and leaves[j]._storage_view()[1] == view
               for j in js):
            same.update((j, root) for j in js if j != root)
    if not same:
        return groups, same
    return {j: g for j, g in groups.items() if g.root not in same.values()}, same


def group_input(leaves, groups: dict[int, AliasGroup], j: int, written: bool) -> Any:
    """The caller-side value behind the program input of leaf j: the leaf itself, or, when it roots an
    alias group, the flat span of the memory the group shares (`written`: the program writes into it)."""
    group = groups.get(j)
    if group is None:
        return leaves[j]
    if not group.several:
        storage, _ = leaves[j]._storage_view()
        return Array._make(storage, View((group.span,), (1,), group.lo), leaves[j].dtype)
    members = [leaves[k] for k, g in groups.items() if g.root == j]
    return span_of_memory(members, leaves[j], group.lo, group.span, written)


def distinct_storages(args) -> bool:
    """Whether no two arguments share a storage or NumPy memory (so a program traced for distinct inputs
    is right for these, even if it writes into them)."""
    alias: list[Any]
    seen: dict[Any, Any]
    alias, seen = [], {}
    for j, a in enumerate(args):
        alias.append(seen.setdefault(id(a._storage_view()[0]), j) if a.size else j)
    if len(seen) < sum(1 for a in args if a.size):
        return False
    shifts, conflict = shared_memory(args, alias)
    return not shifts and not conflict


def span_of_memory(members, root, lo: int, span: int, written: bool) -> Array:
    """A flat array over the memory that arguments of several storages share (see `shared_memory`): the
    `span` elements from element `lo` of `root`'s storage, the one of them that begins lowest in memory.

    Memory that several NumPy arrays share is one allocation, so this view of the root's buffer (which
    keeps that buffer, and so the allocation, alive) may run past the root's end into the others'."""
    readonly = any(m._storage_view()[0].readonly for m in members)
    if written and readonly:
        raise ValueError("jit: the function writes into an argument whose memory a read-only argument "
                         "shares; pass a copy of one of them")
    buf = root._storage_view()[0].numpy_buffer()
    flat = np.lib.stride_tricks.as_strided(buf[lo:], shape=(span,), strides=(buf.itemsize,),
                                           writeable=not readonly)
    return Array._make(Storage.of(flat, readonly), View((span,), (1,), 0), root.dtype)


def adopt_jax(out, device=None) -> Array:
    """A stridex array over a JAX output buffer: on the host zero-copy, read-only, copied on the first
    write; on a device (`device`), the storage's own buffer."""
    return _device.adopt_out(out, View.contiguous(out.shape), FROM_NUMPY[out.dtype], device)  # (JAX dtypes: NumPy's)


def jax_argument(x: Array) -> tuple[Any, bool]:
    """What JAX receives for array x, cheapest first: its own JAX array when x is exactly a JAX result;
    for a small window, the JAX copy made when it last had these very bytes (`_snapshot`); for a large
    one, a JAX array aliasing its aligned memory from an earlier call; else the NumPy window itself.

    And whether that reads x's host memory in place: a NumPy window (which JAX converts, or aliases, as the
    program runs) or the JAX array aliasing it. JAX dispatches asynchronously and may read such memory after
    the call has returned, when a stridex or NumPy write may already have changed it; the caller waits for the
    program's outputs before returning then (`jax_bridge.computed`), as an eager operation reads its operands
    before it returns. (A snapshot, a JAX result or a device buffer is JAX's own: nothing writes it.)"""
    st = x._storage
    held = st.jax_argument(x)  # (a JAX result's own array; a device array's View, read on the device)
    if held is not None:
        return held, False
    w = x._np
    if w is None:
        w = st.window(x)
    if w.nbytes <= SNAPSHOT_MAX_BYTES:
        # A fresh result whose storage was never adopted has no place for a snapshot; adopting it costs
        # more than the conversion, so it is adopted only when it comes again (see `memo.remember_after`).
        if st.adopted:
            arg = _snapshot(st, w)
            return arg, arg is w
        return w, True
    storage, view = x._storage_view()
    alias = getattr(storage, "jax_alias", None)  # (unset in a JaxResultStorage)
    if alias is not None and (view is alias.view or view == alias.view):
        return alias.array, True
    if (w.size >= ALIAS_MIN_ELEMENTS and w.flags.c_contiguous and w.flags.writeable
            and view.offset == 0 and view.size == storage.numpy_buffer().size):
        return _alias(storage, view, w), True
    return w, True


def from_jax_array(x) -> Array:
    """A stridex array over JAX array `x`'s memory, where it is (what `sx.asarray(x)` gives): on the host its
    buffer read through NumPy, on a device its buffer; read-only either way (a stridex write copies it first)."""
    dtype = _dtypes.from_numpy(x.dtype) if isinstance(x.dtype, np.dtype) else None
    if dtype is None:
        raise TypeError(f"a JAX array of dtype {x.dtype} (shape {tuple(x.shape)}) has no stridex dtype")
    if _device.is_host_jax_array(x):
        return _device.adopt_out(x, View.contiguous(tuple(x.shape)), dtype)
    return _device.from_jax(x, None, None)


def to_jax_array(x: Array):
    """The JAX array holding stridex array `x`'s values, for JAX code (`jnp.asarray(x)`, `x.__jax_array__()`,
    `jax.dlpack.from_dlpack(x)`, `sx.to_jax`'s results): the same memory where neither side can change it
    afterwards, else a copy, so that a stridex write never changes an array JAX holds.

    Shared (O(1)): a JAX result's own array (a `jit` or `from_jax` result, an array made from a JAX array); a
    device array's buffer, which its storage then marks borrowed (a later stridex write copies it instead of
    donating it, as after a DLPack export); and an eager result no other array shares (64-byte aligned,
    C-contiguous, so that JAX aliases it; a fresh result, or a fused one just computed): its memory becomes the
    JAX array's, and `x` a JAX result over it (read-only, copied on its first write). Copied (O(n)): memory other arrays or NumPy may write
    (views of a storage, borrowed NumPy memory, read-only NumPy memory someone else may change). The dtype is
    kept (64-bit types included), whatever JAX's own x64 setting."""
    st = x._storage
    if not st.is_host:
        with _device.OWNERS:
            value = _device.materialized(x)
            if value is st.owner:
                st.readonly = True  # type: ignore[misc]  # (a DeviceStorage's slot: JAX holds the buffer now)
        return value
    held = st.jax_argument(x)  # (a JAX result's own array, when x spans all of it)
    if held is not None:
        return held
    del st  # (a reference less to the storage: `_held_by_it_alone` counts them)
    w = window(x)  # (a pending result is computed here)
    if (type(x) is Array and w.size >= ALIAS_MIN_ELEMENTS and w.flags.c_contiguous and w.flags.writeable
            and is_aligned(w) and _held_by_it_alone(x)):
        with x64(), _on_host():
            converted = jax().device_put(w)
        if converted.unsafe_buffer_pointer() == address_of(w):  # JAX reads this very memory: x becomes its result
            x._jax = converted
            x._view = View.contiguous(w.shape)
            x._np = None
            x._storage = JAX_RESULT
            return converted
        return _made(converted)  # (a copy after all: see below)
    with x64(), _on_host():
        return _made(jax().numpy.array(w, copy=True))


def _made(copy):
    """JAX array `copy` of host memory once made: JAX copies a NumPy array asynchronously, and a write into that
    memory right after must not reach the copy. (Under a JAX trace, the copy is a constant of the traced
    program, read as the program is lowered, before the call that traces it returns.)"""
    return copy if isinstance(copy, jax().core.Tracer) else computed(copy)


# What JAX holds a 64-bit value as when its x64 mode is off (`jax.dtypes.canonicalize_dtype`'s table).
NARROWED = {np.dtype(np.float64): np.dtype(np.float32), np.dtype(np.int64): np.dtype(np.int32),
            np.dtype(np.uint64): np.dtype(np.uint32), np.dtype(np.complex128): np.dtype(np.complex64)}


def as_jax_holds_it(value):
    """JAX value `value` (of stridex's dtype) as JAX itself would hold it: with JAX's x64 mode off, a 64-bit value
    converted to its 32-bit type, as `jnp.asarray` converts a 64-bit NumPy array there; else as it is."""
    target = NARROWED.get(value.dtype) if isinstance(value.dtype, np.dtype) else None
    if target is None or jax().config.read("jax_enable_x64"):
        return value
    with x64():
        return jax().lax.convert_element_type(value, target)


def _held_by_it_alone(x: Array) -> bool:
    """Whether no other array can reach `x`'s memory: a fresh result not adopted yet, or a private host storage (its
    memory never handed out) that only `x` refers to (a computed pending result, say)."""
    st = x._storage
    if st is NO_STORAGE:
        return True
    # (the references: x's, this frame's `st`, getrefcount's argument; any view of x, or a copy-on-write storage's
    # later owner, is one more)
    return type(st) is HostStorage and st.owner is None and sys.getrefcount(st) <= 3


def donated_argument(x: Array):
    """What JAX receives for array x when the program donates its inputs: a buffer of its own (the NumPy
    window, which JAX copies; for a device array a copy on the device, never the storage's buffer)."""
    if not x._storage.is_host:
        with x64(), _device.OWNERS:
            return jax().numpy.array(_device.materialized(x), copy=True)
    return window(x)


# Windows up to this size are snapshotted (`_snapshot`); larger ones JAX aliases or converts. Comparing 8 KiB
# of bytes costs about 0.5 µs, converting them 10 or more (measured on x86-64, JAX 0.10): snapshots win well
# past this size, which keeps the memory a snapshot holds (the bytes and the JAX copy) small. It stays below
# ALIAS_MIN_ELEMENTS float64s, so the two paths have distinct thresholds to test on both sides.
SNAPSHOT_MAX_BYTES = 8192
# Below this size converting a window costs less than checking whether JAX would alias it.
ALIAS_MIN_ELEMENTS = 2048


def _snapshot(storage: Storage, w: np.ndarray):
    """A JAX copy of small window `w`, reused while w holds the bytes it was made from, else `w` itself.

    JAX converts a NumPy argument on every call (about 1 µs each, more than the rest of a small call's
    overhead). Comparing a small window's bytes with the last call's costs about 0.05 µs, so an input
    passed again unchanged reuses its JAX copy. Equal bytes are equal values (the comparison is bitwise,
    so -0.0, NaN payloads and every dtype are exact). The copy is made only once the same bytes are seen
    a second time, so an input rewritten before every call costs one comparison and no conversion.
    """
    data = w.tobytes()
    seen = getattr(storage, "jax_copy", None)  # (unset in a JaxResultStorage)
    if seen is not None and seen.window is w and seen.data == data:
        copy = seen.copy
        if copy is None:
            # (made from `data`, not from `w`: another thread may write into w meanwhile, and the copy
            # must hold the bytes it is kept for)
            copy = _to_jax(np.frombuffer(data, w.dtype).reshape(w.shape))
            storage.jax_copy = Snapshot(w, data, copy, byte_view(w))
        return copy
    storage.jax_copy = Snapshot(w, data, None, None)
    return w


TINY_BYTES = 16
"""Up to this many bytes (a number or two), a window's bytes compare faster in place, through a byte view
of them, than copied out by `tobytes`: a memoryview compares item by item, so beyond that the copy wins."""


def byte_view(w: np.ndarray) -> memoryview | None:
    """A view of the bytes of tiny window `w` (C-contiguous, at most TINY_BYTES) that compares with a bytes
    object in place, or None (a larger or strided window, or a dtype NumPy does not export: bfloat16)."""
    if w.nbytes > TINY_BYTES or not w.flags.c_contiguous:
        return None
    try:
        return memoryview(w).cast("B")  # type: ignore[arg-type]  # (an ndarray is a buffer)
    except (TypeError, ValueError, BufferError):
        return None


_IDENTITY = None


def _on_host():
    """Where JAX copies of host memory go: JAX's default device, unless that is an accelerator; then JAX's
    first CPU device, as uncommitted arrays, so a program on host arrays (which runs there, see
    `jit.Compiled`) reads them with no transfer and a program on device arrays still takes them."""
    if _placement.host_is_jax_default():
        return contextlib.nullcontext()
    return jax().default_device(jax().devices("cpu")[0])


def _to_jax(w: np.ndarray):
    """A JAX array holding a copy of small window w: a jitted identity (one C++ dispatch, some 4 µs,
    where `jax.device_put` takes 17), in the 64-bit scope so that w's dtype is kept."""
    global _IDENTITY

    if _IDENTITY is None:
        _IDENTITY = jax().jit(lambda a: a)
    with x64(), _on_host():
        return _IDENTITY(w)


def _alias(storage, view, w):

    with x64(), _on_host():  # as the call itself: a float64 window stays float64
        converted = jax().device_put(w)
    if converted.unsafe_buffer_pointer() == w.ctypes.data:  # zero-copy: JAX reads this very memory
        storage.jax_alias = JaxAlias(view, converted)
    elif w.nbytes >= MISALIGNED_WARNING_BYTES and not is_aligned(w):
        _warn_misaligned(w)
    return converted


class MisalignedArrayWarning(RuntimeWarning):
    """A large host array handed to a jitted call is not 64-byte aligned, so JAX copies it on every call."""


MISALIGNED_WARNING_BYTES = 1 << 20
"""From this size a misaligned argument's copy on every call is worth a warning (about 0.1 ms a copy and up)."""

_misaligned_warned = False


def _warn_misaligned(w: np.ndarray) -> None:
    """Warn, once per process, that JAX copies window `w` on every call because of where its memory starts.

    NumPy's own large allocations start 16 bytes past a 64-byte boundary (glibc's), and JAX takes host memory
    without a copy only at a 64-byte boundary: a jitted program on 10^7 float64 elements adopted from NumPy
    ran 125 ms against 76 ms on the same values in stridex memory (docs/jit.md, "Alignment")."""
    global _misaligned_warned
    if _misaligned_warned:
        return
    _misaligned_warned = True
    level = 1
    frame: FrameType | None = sys._getframe(0)  # (None past the outermost frame)
    while frame is not None and (frame.f_code.co_filename.startswith(_PACKAGE_DIR)
                                 or frame.f_code.co_filename.startswith("<stridex")):
        frame, level = frame.f_back, level + 1  # (the warning points at the user's call)
    warnings.warn(
        f"stridex.jit: a {w.dtype}{list(w.shape)} argument ({w.nbytes / 2**20:.0f} MiB of NumPy memory starting "
        f"{address_of(w) % ALIGNMENT} bytes past a {ALIGNMENT}-byte boundary) is copied by JAX on every call. "
        "Take it into stridex memory once (`x = sx.asarray(a, copy=True)`), or make it with stridex "
        "(`sx.empty`, `sx.zeros`, ... and write into it); see docs/jit.md, \"Alignment\". Warned once.",
        MisalignedArrayWarning, stacklevel=level)


# --- writing back what a call wrote into its inputs ----------------------------------------------------

MAX_REGIONS = 8
"""Up to this many distinct basic writes into one input are written back region by region (views of the
caller's array); more, or any write with index arrays, are written back through a mask of the elements
written, which the program computes beside the new value."""


class WriteBack(NamedTuple):
    """How a call writes what it wrote into one input (or closed-over array) back into the caller's memory."""

    index: int  # type: ignore[assignment]  # (a field named like tuple.index: the program input written into)
    output: int  # the program output holding its new value, all of it
    regions: tuple  # (chain of views, basic key template) of each write, when `mask` is None
    mask: int | None  # else the program output holding a boolean mask of the elements written


def write_plan(trace, index: int, buffer, outputs: list) -> WriteBack:
    """The WriteBack of traced input `buffer` (written into), appending its new value, and where needed the
    mask of what was written, to the program's `outputs`.

    A call writes back only what the function wrote: the rest of the caller's array may be written by
    another thread while the program runs, and the program's copy of it is the value from before."""
    output = len(outputs)
    outputs.append(buffer.var)
    writes = buffer.writes
    if not writes:  # (no write recorded where it landed: all of it)
        return WriteBack(index, output, (((), (("ellipsis",),)),), None)
    regions = basic_regions(writes)
    if regions is not None:
        return WriteBack(index, output, regions, None)
    # The elements written: the same writes, of True, into a boolean array of the buffer's shape and layout.
    with push(trace):
        falses = ops.full(buffer.aval.shape, False, _dtypes.bool)
        mask = trace.new_tracer(trace.read(falses), buffer.view)
        for w in writes:
            target = mask
            for prim, params in w.chain:
                target = prim.bind(target, **params)
            assign.bind(target, True, *[trace.new_tracer(v) for v in w.indices], template=w.template)
        outputs.append(trace.read(mask))
    return WriteBack(index, output, (), output + 1)


def write_back(target: Array, value: Array, plan: WriteBack, mask: Array | None) -> None:
    """Write into caller array `target` the parts of `value` (the program's new value of it, on target's
    device) that the call wrote, as `plan` says."""
    on_host = type(target) is Array and target.device.is_host  # (else a device array, or a traced one)
    if plan.mask is not None:
        if on_host:  # target[mask] = value[mask]: only the elements written are stored
            selected = Array._from_numpy(window(value)[window(mask)])  # type: ignore[arg-type]  # (a mask plan has one)  # (a NumPy gather: a fresh array)
            assign.bind(target, selected, mask, template=_MASK_KEY)
        else:  # a select, read and written with no other thread's device work in between
            with _device.OWNERS:
                assign.bind(target, ops.where(mask, value, target), template=())
        return
    for chain, template in plan.regions:
        t, v = target, value
        for prim, params in chain:
            t = prim.bind(t, **params)
            v = prim.bind(v, **params)
        if on_host:  # (the value's region as a NumPy view of its window: the write takes the key itself)
            assign.bind(t, Array._from_numpy(window(v)[numpy_key(template, ())]), template=template)
            continue
        entries = _basic_entries(ops.shape_of(t), template)
        if entries is not None:
            t, v = ops.index(t, entries), ops.index(v, entries)
        assign.bind(t, v, template=())


_MASK_KEY = (("array", 0),)


def basic_regions(writes) -> tuple | None:
    """The distinct (chain, template) of `writes` (a Buffer's `writes`) when they are all basic and at most
    MAX_REGIONS, else None."""
    regions = []
    for w in writes or ():
        if w.indices:
            return None
        region = (w.chain, w.template)
        if region not in regions:
            regions.append(region)
    return tuple(regions) if regions and len(regions) <= MAX_REGIONS else None


def _basic_entries(shape: tuple, template: tuple) -> tuple | None:
    """Basic key `template` (ints, slices, newaxis, an ellipsis) on an array of `shape` as `ops.index` takes
    it, or None when it selects the whole array as it is."""
    indexing = sum(1 for e in template if e[0] in ("int", "slice"))
    entries, axis = [], 0
    for e in template:
        if e[0] == "ellipsis":
            for _ in range(len(shape) - indexing):
                entries.append(("slice", 0, shape[axis], 1))
                axis += 1
        else:
            entries.append(e)
            axis += e[0] != "newaxis"
    entries += [("slice", 0, shape[a], 1) for a in range(axis, len(shape))]
    if all(e[0] == "slice" and e[1] == 0 and e[2] == shape[a] and e[3] == 1 for a, e in enumerate(entries)):
        return None
    return tuple(entries)
