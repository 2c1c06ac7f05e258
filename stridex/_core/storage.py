"""`Storage`: the flat buffer many arrays share — owned (64-byte aligned) or borrowed, copy-on-write when read-only."""

from __future__ import annotations

import ctypes
import threading
from typing import Any, NamedTuple

import numpy as np

from stridex._core.device import Device
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


def aligned_empty(shape: tuple, np_dtype) -> np.ndarray:
    """A C-contiguous, uninitialised ndarray whose data pointer is 64-byte aligned."""
    np_dtype = np.dtype(np_dtype)
    count = 1
    for n in shape:
        count *= n
    nbytes = count * np_dtype.itemsize
    raw = np.empty(nbytes + ALIGNMENT, np.uint8)
    start = -address(raw) % ALIGNMENT
    return np.ndarray(shape, np_dtype, raw, start)


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


_COPYING = threading.RLock()  # (see Storage.writable; re-entrant: `writable` reads the buffer holding it)


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
    """A flat buffer plus what the arrays viewing it need to know about its ownership and place.

    On the host (`device` None) the buffer is a 1-D NumPy array, `buf`. `readonly` marks borrowed memory
    that must not be written (a JAX result, a read-only NumPy array): the first write replaces `buf` with
    an aligned private copy, which every array sharing this Storage then sees. `owner` keeps a producer
    (DLPack capsule, JAX array) alive as long as the buffer is used.

    On a JAX device (`device` a `Device`; the subclass `stridex._lax.device.DeviceStorage`), `buf` is None
    and `owner` is the buffer: a C-contiguous JAX
    array on that device whose elements, in order, are the storage (kept in the shape it was made in, so
    that whole-array reads need no reshape and a sharded array keeps its sharding). A write replaces
    `owner` with the updated buffer (see `stridex._lax.device`); `readonly` there marks a JAX array the
    user handed in, which stridex must not donate, so the first write copies it.
    """

    # `jax_alias` and `jax_copy` are set on few storages (jit inputs), so they live in the instance
    # dict, made on first use, with None as the class default: a new Storage costs two stores less.
    __slots__ = ("__dict__", "__weakref__", "buf", "device", "jax_view", "owner", "readonly")
    buf: np.ndarray | None
    device: Device | None
    jax_view: View | None
    owner: Any  # the producer kept alive (a DLPack capsule, a JAX array), or None
    readonly: bool
    # Set when JAX was handed this buffer and aliases it without a copy (aligned memory): `jit` passes that
    # JAX array again instead of converting the window on every call.
    jax_alias: JaxAlias | None = None
    # `jit`'s snapshot of a small input (see handover._snapshot).
    jax_copy: Snapshot | None = None

    # Storage has no `__init__` (nor does its subclass `DeviceStorage`): `Storage()` is an empty one whose
    # fields the maker sets right after, as `of` does here and `stridex._lax.device.adopt_out` does for JAX
    # results. Calling the class with no `__init__` costs less than `object.__new__(Storage)`, and a jit
    # call makes one for every result. The fields: `buf`, `readonly`, `owner` and `device` as above, and
    # `jax_view`: when `owner` is a JAX array holding exactly this buffer, the View of the array that spans
    # it (`jit` then hands JAX its own array back instead of converting the NumPy window).

    @classmethod
    def of(cls, buf: np.ndarray | None, readonly: bool = False, owner=None) -> Storage:
        """A host storage over 1-D ndarray `buf`, kept alive by `owner` (if any); `buf` None for a JAX array
        `owner` on the host, whose NumPy buffer `numpy_buffer` makes on first use."""
        self = cls()
        self.buf = buf
        self.readonly = readonly
        self.owner = owner
        self.device = None
        self.jax_view = None
        return self

    def numpy_buffer(self) -> np.ndarray:
        buf = self.buf
        if buf is None:
            with _COPYING:  # (not while another thread's first write replaces the buffer with a copy)
                buf = self.buf
                if buf is None:
                    buf = self.buf = np.asarray(self.owner).reshape(-1)
        return buf

    def block_until_ready(self) -> None:
        """Wait until the JAX array holding this buffer (if any) is computed."""
        owner = self.owner
        if owner is not None:  # (None: another thread's first write copied it to NumPy memory meanwhile)
            owner.block_until_ready()

    def copy(self) -> Storage:
        """A new, private storage holding this one's elements as they are now (the same Views apply)."""
        return Storage.of(aligned_copy(self.numpy_buffer()))

    def writable(self) -> np.ndarray:
        if self.readonly:
            with _COPYING:  # two threads' first writes make one copy, which both write into
                if self.readonly:
                    self.numpy_buffer()
                    self.buf = aligned_copy(self.buf)  # type: ignore[arg-type]  # (numpy_buffer() made it)
                    self.readonly = False
                    self.owner = None
                    self.jax_view = None
                    self.jax_alias = None
                    self.jax_copy = None
        return self.buf  # type: ignore[return-value]  # (a writable host storage has its buffer)


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
