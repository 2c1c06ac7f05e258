"""Strided windows of a flat buffer, in JAX: the lowering of a View.

A stridex View (shape, strides, offset) selects elements of a flat buffer. Inside a compiled program, reading
one (`read_view`) or writing one (`write_view`) takes the cheapest JAX form that says the same thing: the
buffer itself, a (dynamic) slice with a step, a reshape, a transpose, a reverse and a broadcast; a gather or
scatter of computed positions only when the View walks no arithmetic progression. Device executables
(`device.py`) read and write their arguments' Views through these, and so do `as_strided` and `scatter_flat`,
the views of one flat input that `jit` makes of arguments sharing memory.
"""

from __future__ import annotations

import itertools

import numpy as np

from stridex._core.view import View, contiguous_strides
from stridex._exec.jax_bridge import jnp, lax


def _normalised(view: View):
    """(offset, kept axes as (axis, length, stride>0), flipped axes) of `view`: negative strides turned
    positive (the offset moved to the lowest element), broadcast (stride 0) and length-1 axes set apart."""
    offset, kept, flips = view.offset, [], []
    for axis, (n, s) in enumerate(zip(view.shape, view.strides)):
        if n == 1:
            continue
        if s < 0:
            offset += (n - 1) * s
            s = -s
            flips.append(axis)
        if s:
            kept.append((axis, n, s))
    return offset, kept, flips


def _positions(offset: int, ordered: list):
    """The flat positions of a strided block (axes in `ordered`, outermost first), as an int64 array."""
    L = lax()
    shape = tuple(n for _, n, _ in ordered)
    idx = None
    for d, (_, _, s) in enumerate(ordered):
        term = L.broadcasted_iota(np.int64, shape, d) * np.int64(s)
        idx = term if idx is None else idx + term
    return idx + np.int64(offset) if idx is not None else None


def _block(ordered: list):
    """(length, step) when the axes in `ordered` (outermost first) walk one arithmetic progression of
    positions — a contiguous range or a strided 1-D slice, possibly transposed — else None."""
    for (_, _, s), (_, n_in, s_in) in itertools.pairwise(ordered):
        if s != n_in * s_in:
            return None
    length = 1
    for _, n, _ in ordered:
        length *= n
    return length, (ordered[-1][2] if ordered else 1)


def is_whole(buffer_shape: tuple, view: View) -> bool:
    """Whether `view` is all of a buffer of `buffer_shape`, in order (its read is the buffer itself)."""
    return view.offset == 0 and view.shape == buffer_shape and view.strides == contiguous_strides(view.shape)


def read_view(buffer, view: View, offset=None):
    """The array `view` selects from `buffer` (a JAX value whose C-order elements are the storage).

    With `offset` (a traced int64 scalar), the View's own offset is ignored and `offset` is used: one
    executable then serves every View of that shape and those strides, wherever it starts."""
    L = lax()
    shape = view.shape
    if 0 in shape:
        return jnp().zeros(shape, buffer.dtype)
    if offset is None and is_whole(tuple(buffer.shape), view):
        return buffer
    flat = buffer.reshape(-1) if buffer.ndim != 1 else buffer
    start, kept, flips = _normalised(view)
    if offset is not None:
        start = offset + (start - view.offset)  # (flipped axes move the start by a static amount)
    ordered = sorted(kept, key=lambda t: -t[2])
    block = _block(ordered)
    if block is not None:
        length, step = block
        span = (length - 1) * step + 1
        part = L.slice(flat, (start,), (start + span,)) if offset is None else L.dynamic_slice(flat, (start,), (span,))
        if step > 1:
            part = L.slice(part, (0,), (span,), (step,))
        part = part.reshape(tuple(n for _, n, _ in ordered))
    else:
        part = jnp().take(flat, _positions(0, ordered) + start, mode="clip")
    # `part` has the kept axes in stride order: put them in axis order, then add the others back.
    rank = {t[0]: i for i, t in enumerate(ordered)}
    axes = [t[0] for t in kept]
    perm = tuple(rank[a] for a in axes)
    if perm != tuple(range(len(perm))):
        part = L.transpose(part, perm)
    out = L.broadcast_in_dim(part, shape, tuple(axes))
    return L.rev(out, tuple(flips)) if flips else out


def write_view(buffer, view: View, value, offset=None):
    """`buffer` with the elements `view` selects replaced by `value` (of the view's shape); `offset` as in
    `read_view`."""
    L = lax()
    shape = view.shape
    if 0 in shape:
        return buffer
    if offset is None and is_whole(tuple(buffer.shape), view):
        return value
    flat = buffer.reshape(-1) if buffer.ndim != 1 else buffer
    start, kept, flips = _normalised(view)
    if offset is not None:
        start = offset + (start - view.offset)
    if flips:
        value = L.rev(value, tuple(flips))
    ordered = sorted(kept, key=lambda t: -t[2])
    # Drop length-1 axes, then lay the kept axes out in stride order (broadcast axes were refused before).
    value = value.reshape(tuple(n for _, n, _ in kept))
    rank = {t[0]: i for i, t in enumerate(kept)}
    order = tuple(rank[t[0]] for t in ordered)
    if order != tuple(range(len(order))):
        value = L.transpose(value, order)
    block = _block(ordered)
    if block is not None and block[1] == 1:
        flat = L.dynamic_update_slice(flat, value.reshape(-1), (start,))
    else:
        positions = _positions(0, ordered) + start
        flat = flat.at[positions.reshape(-1)].set(value.reshape(-1), mode="promise_in_bounds")
    return flat.reshape(buffer.shape)


def strided_positions(view: View):
    """The flat position of every element of `view` (an int64 array of its shape), for a gather or scatter."""
    j = jnp()
    idx = j.full(view.shape, view.offset, dtype=j.int64)
    for axis, stride in enumerate(view.strides):
        if stride:
            idx = idx + lax().broadcasted_iota(j.int64, view.shape, axis) * stride
    return idx
