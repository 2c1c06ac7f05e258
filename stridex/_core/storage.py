"""`Storage`: the memory many arrays share, one class per kind of memory on the host (owned or borrowed NumPy
memory, read-only memory copied on the first write, a JAX result read lazily); the device kinds subclass it in
`stridex._exec.device`. Also the allocation policy of fresh buffers (64-byte aligned)."""

from __future__ import annotations

import ctypes
import sys
import threading
from typing import Any, ClassVar, NamedTuple

import numpy as np

from stridex._core import processes
from stridex._core.device import HOST, Device
from stridex._core.view import View

# --- the allocation policy: every fresh buffer a primitive writes comes from here ---------------------

ALIGNMENT = 64
# Results of at least this many elements get 64-byte-aligned memory, which JAX adopts without a copy
# (jit's hand-over); smaller ones take NumPy's allocator, which is faster for small blocks.
ALIGNED_OUTPUT_ELEMENTS = 2048


def output_buffer(shape: tuple, np_dtype) -> np.ndarray:
    """Fresh memory for a result of `shape`: aligned once it has ALIGNED_OUTPUT_ELEMENTS elements."""
    count = 1
    for n in shape:
        count *= n
    return aligned_empty(shape, np_dtype) if count >= ALIGNED_OUTPUT_ELEMENTS else np.empty(shape, np_dtype)


def aligned_result(out: np.ndarray, np_dtype=None) -> np.ndarray:
    """`out` (a fresh NumPy result) as `np_dtype` (default: its own), moved to aligned memory when it is
    large enough for the policy above and is not aligned already."""
    np_dtype = out.dtype if np_dtype is None else np.dtype(np_dtype)
    if out.size >= ALIGNED_OUTPUT_ELEMENTS and (out.dtype != np_dtype or address_of(out) % ALIGNMENT):
        moved = aligned_empty(out.shape, np_dtype)
        np.copyto(moved, out, casting="unsafe")
        return moved
    return out.astype(np_dtype, copy=False)


def allocate(nbytes: int) -> np.ndarray:
    """`nbytes` bytes of fresh memory (a uint8 ndarray): where every aligned buffer comes from (results from
    ALIGNED_OUTPUT_ELEMENTS elements, a fused pass's results and scratch). The one place a test makes
    allocation fail (tests/lax/test_fusion_failures.py replaces it, as a MemoryError would come from here)."""
    return np.empty(nbytes, np.uint8)


def aligned_empty(shape: tuple, np_dtype) -> np.ndarray:
    """A C-contiguous, uninitialised ndarray whose data pointer is 64-byte aligned."""
    np_dtype = np.dtype(np_dtype)
    count = 1
    for n in shape:
        count *= n
    nbytes = count * np_dtype.itemsize
    raw = allocate(nbytes + ALIGNMENT)
    start = -address(raw) % ALIGNMENT
    return np.ndarray(shape, np_dtype, raw, start)


class Recycler:
    """Aligned buffers handed out again once nothing refers to them: the results of fused passes
    (`stridex._exec.fusion`). A fresh buffer's first write page-faults (the kernel zeroes every page), which
    costs as much as a cheap elementwise kernel; a loop that makes and drops a result of the same size on every
    iteration gets its pages back warm instead (as NumPy's temporaries do through malloc's free lists).

    A buffer is reused only when its reference count says the recycler alone holds it: every ndarray viewing
    it, every exported buffer and every JAX array adopting it refers to it, so no one can see it change. The
    idle buffers held are bounded (`max_buffers`, `max_bytes`); beyond that the oldest are let go. Callers hold
    the lock that orders the passes (`fusion.LOCK`)."""

    def __init__(self, min_bytes: int, max_bytes: int, max_buffers: int):
        self.min_bytes = min_bytes  # smaller requests go to the allocator (no page to fault per call)
        self.max_bytes = max_bytes  # the most bytes held in all (in use or idle)
        self.max_buffers = max_buffers
        self.held: list = []  # raw uint8 buffers, oldest first

    def take(self, shape: tuple, np_dtype) -> np.ndarray:
        np_dtype = np.dtype(np_dtype)
        count = 1
        for n in shape:
            count *= n
        nbytes = count * np_dtype.itemsize
        if nbytes < self.min_bytes or nbytes > self.max_bytes // 4:
            return output_buffer(shape, np_dtype)
        size = -(-(nbytes + ALIGNMENT) // 4096) * 4096  # (a page multiple: sizes that differ a little share)
        held = self.held
        getrefcount = sys.getrefcount
        for i in range(len(held)):
            raw = held[i]
            # (references: the list, this name, getrefcount's argument; no `enumerate`: its reused tuple is one more)
            if raw.size == size and getrefcount(raw) == 3:
                del held[i]
                held.append(raw)  # (most recently used last)
                return np.ndarray(shape, np_dtype, raw, -address(raw) % ALIGNMENT)
        raw = allocate(size)
        held.append(raw)
        total = sum(b.size for b in held)
        while held and (len(held) > self.max_buffers or total > self.max_bytes):
            total -= held.pop(0).size  # (a buffer still in use is simply no longer recycled)
        return np.ndarray(shape, np_dtype, raw, -address(raw) % ALIGNMENT)


def address(a: np.ndarray) -> int:
    """The data pointer of a writable ndarray (ctypes' view of its buffer: 4x cheaper than `a.ctypes.data`)."""
    return ctypes.addressof(ctypes.c_char.from_buffer(a))  # type: ignore[arg-type]  # (an ndarray is a buffer)


def aligned_copy(a: np.ndarray) -> np.ndarray:
    out = aligned_empty(a.shape, a.dtype)
    np.copyto(out, a, casting="no")
    return out


def address_of(a: np.ndarray) -> int:
    """The data pointer of any ndarray (read-only ones included)."""
    return a.__array_interface__["data"][0]


def is_aligned(a: np.ndarray) -> bool:
    return address_of(a) % ALIGNMENT == 0


# (see ReadOnlyStorage.writable; re-entrant: `writable` reads the buffer holding it)
_COPYING = processes.lock("storage.COPYING", threading.RLock())


class JaxAlias(NamedTuple):
    """A JAX array aliasing a host storage's whole buffer (`Storage.jax_alias`; see handover._alias)."""

    view: View  # the View of the storage the JAX array holds (the whole buffer)
    array: Any  # the JAX array


class Snapshot(NamedTuple):
    """`jit`'s snapshot of a small input window (`Storage.jax_copy`; see handover._snapshot)."""

    window: Any  # the NumPy window it was taken of (known by identity)
    data: bytes  # the window's bytes when taken
    copy: Any  # the JAX copy of those bytes, or None until the same bytes are seen again
    in_place: Any  # a byte view of a tiny window (compared in place, see handover.byte_view), or None


class Storage:
    """The memory arrays view: one subclass per kind of memory, each answering what the layers above ask.

    The kinds: `HostStorage` (host NumPy memory stridex may write: owned, or borrowed writable),
    `ReadOnlyStorage` (host NumPy memory that must not be written: copied on the first write),
    `JaxResultStorage` (a JAX array on the host, a jit call's result: its NumPy buffer made on first read,
    copied on the first write), and on a JAX device `stridex._exec.device.DeviceStorage` and its
    `ShardedStorage`. Two shared objects stand in for the storage of an array that has none of its own yet, and
    make it when something needs it: `NO_STORAGE` (a fresh NumPy result, whose window `a._np` is its memory;
    a traced value) and `JAX_RESULT` (a JAX result on the host, its JAX array `a._jax`: a jit call's output,
    handed to the next call as it is). Many Arrays share one Storage.

    What differs per kind is a class-level constant (`is_host`, `device`, `readonly` on the host,
    `fast_views`, `adopted`) or a method: `window(a)` (the NumPy window of array `a` over this memory),
    `storage_view(a)` (a's Storage and View, made or derived now if they are not), `numpy_buffer()`,
    `jax_argument(a)` (the JAX array `jit` hands over for `a` without a copy, or None: then the caller
    converts the window), `writable()` (the write decision: the buffer to write into, copied first where the
    memory is not stridex's), `block_until_ready(a)`, `copy()` and `host_values(a)` (a's values on the host).
    A copy-on-write turns the storage into a `HostStorage` in place (`__class__` assigned: the host kinds share
    one layout), so every Array sharing it sees the copy.

    Fields: `buf`, the 1-D NumPy buffer (on the host); `owner`, a producer kept alive while the buffer is used
    (a NumPy array, a DLPack capsule, a JAX array); `jax_view`, for a JAX result, the View of the JAX array that
    spans the buffer (`jit` then hands JAX its own array back instead of converting the NumPy window).
    """

    # Slots only (no instance dict, no weak references): cheaper to make and to free. `jax_alias` and
    # `jax_copy` are set on few storages (jit inputs): `of` sets them None, a JaxResultStorage leaves them unset
    # (two stores less), so `jit` reads them with `getattr(storage, "jax_copy", None)`.
    __slots__ = ("__weakref__", "buf", "jax_alias", "jax_copy", "jax_view", "owner", "readers")
    # --- the core's fields ---
    buf: np.ndarray  # (None only in a JaxResultStorage not read yet, which asks before reading it)
    jax_view: View | None
    owner: Any  # the producer kept alive (a DLPack capsule, a JAX array), or None
    # --- `jit`'s fields (stridex._transforms.handover owns them; a slot here, as a storage has no dict) ---
    # Set when JAX was handed this buffer and aliases it without a copy (aligned memory): `jit` passes that
    # JAX array again instead of converting the window on every call.
    jax_alias: JaxAlias | None
    # `jit`'s snapshot of a small input (see handover._snapshot).
    jax_copy: Snapshot | None
    # --- eager fusion's field (stridex._exec.fusion.pending owns it) ---
    # The pending expressions that read this memory, as weak references to their groups, or None: a write runs
    # them first. Set only while the storage is a `fusion.pending.ReadStorage`.
    readers: list | None

    # --- what a kind is (class-level constants) ---
    is_host: ClassVar[bool] = True  # whether NumPy reaches the memory (else the primitive runs on `device`)
    device: Device = HOST  # where the memory lives (a slot on the device kinds)
    readonly: bool = False  # whether a write must ask `writable()` first (copy-on-write; a slot on the device kinds)
    fast_views: ClassVar[bool] = False  # whether eager NumPy views of an array's window may share this storage
    adopted: ClassVar[bool] = True  # False for the placeholders NO_STORAGE and JAX_RESULT: no Storage of its own yet
    sharded: ClassVar[bool] = False  # whether the memory is spread over several devices (ShardedStorage)

    # Storages have no `__init__`: `HostStorage()` is an empty one whose fields the maker sets right after, as
    # `of` does here and `stridex._exec.device.adopt_out` does for JAX results. Calling the class with no
    # `__init__` costs less than `object.__new__(cls)`, and a jit call makes one for every result.

    @staticmethod
    def of(buf: np.ndarray, readonly: bool = False, owner=None) -> Storage:
        """A host storage over 1-D ndarray `buf`, kept alive by `owner` (if any); copy-on-write if `readonly`."""
        self = ReadOnlyStorage() if readonly else HostStorage()
        self.buf = buf
        self.owner = owner
        self.jax_view = None
        self.jax_alias = None
        self.jax_copy = None
        self.readers = None
        return self

    def private(self) -> bool:
        """Whether only stridex writes this memory, through paths that ask `writable()` or the eager fast
        paths (which `fast_views` gates): then eager fusion may read it later, and a write runs the pending
        reads first. Memory NumPy or a DLPack consumer also reaches (borrowed, or handed out) is not."""
        return False

    def export(self, a) -> None:
        """Array `a`'s memory is about to be handed to foreign code (`__array__`, `__dlpack__`), which may write
        it at any time: nothing may read it later expecting today's values (see `private`)."""

    def numpy_buffer(self) -> np.ndarray:
        """The 1-D NumPy buffer (on a device: OnDevice, see DeviceStorage)."""
        return self.buf

    def shared_buffer(self) -> np.ndarray | None:
        """The NumPy buffer other NumPy arrays may share the memory of, or None (memory no NumPy array has
        reached: a JAX result not read yet, a device's)."""
        return self.buf  # (None in a JaxResultStorage not read yet)

    def window(self, a) -> np.ndarray:
        """A NumPy ndarray over exactly the memory array `a` (a View of this storage) views (no copy). Not
        cached on `a`: a copy-on-write may replace the buffer (HostStorage caches it)."""
        return window_on(self.numpy_buffer(), a._view, a._dtype.np)

    def host_values(self, a) -> np.ndarray:
        """Array `a`'s values as a host ndarray: its window on the host (a device copies them over)."""
        return self.window(a)

    def storage_view(self, a) -> tuple[Storage, View]:
        """Array `a`'s (Storage, View)."""
        return self, a._view

    def jax_argument(self, a) -> Any:
        """The JAX array `jit` hands over for array `a` without converting its window, or None."""
        return None

    def writable(self) -> np.ndarray:
        """The buffer a write goes into."""
        return self.buf

    def block_until_ready(self, a) -> None:
        """Wait until the value of array `a` (a View of this memory) is computed (a JAX array's; host memory's
        is)."""

    def copy(self) -> Storage:
        """A new, private storage holding this one's elements as they are now (the same Views apply)."""
        return Storage.of(aligned_copy(self.numpy_buffer()))


class HostStorage(Storage):
    """Host NumPy memory stridex may write: its own (a fresh result), or a writable NumPy array's, shared
    both ways. Its windows are cached on the arrays (`a._np`), and eager NumPy views of them share it."""

    __slots__ = ()
    fast_views = True

    def window(self, a) -> np.ndarray:
        w = a._np = window_on(self.buf, a._view, a._dtype.np)  # (the buffer is never replaced: cached)
        return w

    def private(self) -> bool:
        return self.owner is None  # (owned by stridex, and never handed out: see `export`)

    def export(self, a) -> None:
        if self.owner is None:
            self.owner = self.window(a)  # (the memory is shared from now on: `private` says no)

    def storage_view(self, a) -> tuple[Storage, View]:
        view = a._view
        if view is None:  # an eager fast-path view: its View derived from its window now
            view = a._view = view_of_window(a._np, self.buf)
        return self, view


class ReadOnlyStorage(Storage):
    """Host memory that must not be written (a read-only NumPy array, a DLPack producer's): reads share it,
    the first write copies it to a private aligned buffer and the storage becomes a HostStorage."""

    __slots__ = ()
    readonly = True

    def writable(self) -> np.ndarray:
        with _COPYING:  # two threads' first writes make one copy, which both write into
            if self.readonly:
                copied_on_write(self)
        return self.buf


def copied_on_write(st: ReadOnlyStorage) -> None:
    """The core's one transition of kind: read-only host memory (borrowed read-only, a JAX result) becomes a
    private `HostStorage` over an aligned copy of it, on its first write (holding `_COPYING`). `__class__` is
    assigned, the host kinds sharing one layout, so every Array sharing the storage sees the copy at once (eager
    fusion's transitions are `stridex._exec.fusion.pending`'s; a device storage never changes kind: a write replaces
    its buffer, `stridex._exec.device._write`)."""
    st.buf = aligned_copy(st.numpy_buffer())
    st.__class__ = HostStorage  # type: ignore[assignment]
    st.owner = None  # (after the class: see JaxResultStorage.jax_argument)
    st.jax_view = None
    st.jax_alias = None
    st.jax_copy = None
    st.readers = None  # (unset in a JaxResultStorage: eager fusion reads it from a HostStorage)


class JaxResultStorage(ReadOnlyStorage):
    """A JAX array on the host (a jit call's result), `owner`, spanning View `jax_view`: handed to JAX again as
    it is; its NumPy buffer made on first read (`buf` None until then), copied on the first write.

    `JaxResultNotAdopted.storage_view` makes one with three stores: `buf`, `owner` and `jax_view`. (`buf` left
    unset, its first read raising AttributeError cost some 5 µs, more than the store.)"""

    __slots__ = ()

    def numpy_buffer(self) -> np.ndarray:
        buf = self.buf
        if buf is None:  # (not read yet)
            with _COPYING:  # (not while another thread's first write replaces the buffer with a copy)
                buf = self.buf
                if buf is None:
                    buf = self.buf = np.asarray(self.owner).reshape(-1)
        return buf

    def private(self) -> bool:
        return True  # (JAX's memory is immutable; a write copies it first, the old buffer staying intact)

    def jax_argument(self, a) -> Any:
        # (the owner first: a copy-on-write in another thread clears it after making this a HostStorage, so an
        # owner read here is the buffer as it was before that write)
        owner = self.owner
        if owner is not None and a._view is self.jax_view:
            return owner
        return None

    def block_until_ready(self, a) -> None:
        owner = self.owner
        if owner is not None:  # (None: another thread's first write copied it to NumPy memory meanwhile)
            owner.block_until_ready()


class NoStorage(Storage):
    """The storage of an array that has none of its own yet: a fresh NumPy result, held as its window
    (`a._np`), whose Storage and View `storage_view` makes when first needed (most results are consumed by
    the next operation and never need one), or a traced value (whose class answers instead). One object,
    `NO_STORAGE`, stands for all of them: it holds nothing."""

    __slots__ = ()
    adopted = False
    readonly = True  # (a write asks `storage_view` first: a fresh result is adopted, a traced value refuses)

    def storage_view(self, a) -> tuple[Storage, View]:
        made = storage_from_ndarray(a._np)
        a._storage, a._view = made  # type: ignore[misc]  # (a fresh NumPy result always gets a Storage)
        return made  # type: ignore[return-value]

    def window(self, a) -> np.ndarray:
        raise TypeError("an array with no storage (a traced value) has no NumPy window")

    def writable(self) -> np.ndarray:
        raise TypeError("an array with no storage (a traced value) cannot be written eagerly")


class BorrowedWindow(NoStorage):
    """As `NoStorage`, for a writable NumPy array `asarray` took as it is (its window `a._np` is the caller's
    ndarray): the storage `storage_view` makes keeps that ndarray as its `owner`, so it says it is not private
    (the caller may write it at any time). One object, `BORROWED_WINDOW`."""

    __slots__ = ()

    def storage_view(self, a) -> tuple[Storage, View]:
        made = storage_from_ndarray(a._np, owner=a._np)
        a._storage, a._view = made  # type: ignore[misc]
        return made  # type: ignore[return-value]


NO_STORAGE = NoStorage()
NO_STORAGE.buf = NO_STORAGE.owner = NO_STORAGE.jax_view = NO_STORAGE.jax_alias = NO_STORAGE.jax_copy = None  # type: ignore[assignment]
NO_STORAGE.readers = None
BORROWED_WINDOW = BorrowedWindow()
BORROWED_WINDOW.buf = BORROWED_WINDOW.owner = BORROWED_WINDOW.jax_view = None  # type: ignore[assignment]
BORROWED_WINDOW.jax_alias = BORROWED_WINDOW.jax_copy = BORROWED_WINDOW.readers = None

_ADOPTING = processes.lock("storage.ADOPTING", threading.Lock())  # (see JaxResultNotAdopted.storage_view)


class JaxResultNotAdopted(Storage):
    """The storage of a JAX result on the host (a jit call's output) until a use needs one: the Array holds
    the JAX array itself (`a._jax`) and its View, so a steady loop that feeds a program its own results makes
    one Python object per result besides JAX's array, and hands that array to the next call as it is
    (`jax_argument`). The first use that needs more (a view, a write, a NumPy window, DLPack) makes its
    `JaxResultStorage` (`storage_view`, under a lock so that two threads make one). One object, `JAX_RESULT`,
    stands for all of them: it holds nothing.

    Made at once instead (in `adopt_out` and the memo's code), the JaxResultStorage costs one object per result:
    about 65 ns in the memo's own code (1-element inputs, a call that returns at once: 372 against 437 ns, and
    485 against 651 ns for two results; minimums of 10 alternating processes, 2026-11-27), 1.01-1.02x on a
    1-element steady jit call with `benchmarks.revisions` (and 1.03-1.04x measured for an earlier layout):
    so a result's storage stays lazy, and Array keeps its `_jax` slot."""

    __slots__ = ()
    adopted = False
    readonly = True  # (a write asks `storage_view` first, then the JaxResultStorage copies)

    def storage_view(self, a) -> tuple[Storage, View]:
        with _ADOPTING:
            st = a._storage
            if st is self:
                st = JaxResultStorage()
                st.buf = None  # type: ignore[assignment]  # (not read yet)
                st.owner = a._jax
                st.jax_view = a._view
                a._storage = st
        return st, a._view

    def window(self, a) -> np.ndarray:
        return self.storage_view(a)[0].window(a)

    def host_values(self, a) -> np.ndarray:
        return self.storage_view(a)[0].window(a)

    def jax_argument(self, a) -> Any:
        return a._jax  # (nothing can have written it: a write makes the storage first)

    def shared_buffer(self) -> np.ndarray | None:
        return None  # (not read)

    def block_until_ready(self, a) -> None:
        a._jax.block_until_ready()

    def numpy_buffer(self) -> np.ndarray:
        raise TypeError("a JAX result's buffer is read through its storage: ask `storage_view(a)` first")

    writable = numpy_buffer


JAX_RESULT = JaxResultNotAdopted()
JAX_RESULT.buf = JAX_RESULT.owner = JAX_RESULT.jax_view = JAX_RESULT.jax_alias = JAX_RESULT.jax_copy = None  # type: ignore[assignment]
JAX_RESULT.readers = None


def window_on(buf: np.ndarray, view: View, np_dtype) -> np.ndarray:
    """The ndarray over `view` of 1-D buffer `buf` as `np_dtype` (the `np.ndarray` constructor: about 0.23 µs,
    against about 2 µs for `as_strided`)."""
    if 0 in view.shape:
        return np.empty(view.shape, np_dtype)
    itemsize = np_dtype.itemsize
    return np.ndarray(view.shape, np_dtype, buf, view.offset * itemsize, tuple(s * itemsize for s in view.strides))


def view_of_window(w: np.ndarray, buf: np.ndarray) -> View:
    """The View of `buf` that ndarray `w` (a NumPy view into `buf`) covers."""
    itemsize = w.itemsize
    if w.size == 0:
        return View.contiguous(w.shape)
    offset = w.__array_interface__["data"][0] - buf.__array_interface__["data"][0]
    return View(w.shape, tuple(s // itemsize for s in w.strides), offset // itemsize)


def storage_from_ndarray(a: np.ndarray, readonly: bool | None = None, owner=None) -> tuple[Storage, View] | None:
    """Wrap the memory of ndarray `a` (no copy) as (Storage, View); None if its strides are not in whole elements."""
    itemsize = a.itemsize
    if readonly is None:
        readonly = not a.flags.writeable
    if a.size == 0:
        return Storage.of(np.empty(0, a.dtype)), View.contiguous(a.shape)
    if a.flags.c_contiguous:
        return Storage.of(a.reshape(-1), readonly, owner), View.contiguous(a.shape)
    strides = []
    for s in a.strides:
        if s % itemsize:
            return None
        strides.append(s // itemsize)
    # Flip negative axes so the data pointer sits at the lowest address the array touches.
    low = a
    offset = 0
    flips = []
    for axis, (n, s) in enumerate(zip(a.shape, strides)):
        if s < 0:
            flips.append(slice(None, None, -1))
            offset += -(n - 1) * s
        else:
            flips.append(slice(None))
    if offset:
        low = a[tuple(flips)]
    span = 1 + sum((n - 1) * abs(s) for n, s in zip(a.shape, strides))
    buf = np.lib.stride_tricks.as_strided(low, shape=(span,), strides=(itemsize,), writeable=not readonly)
    return Storage.of(buf, readonly, owner), View(tuple(a.shape), tuple(strides), offset)
