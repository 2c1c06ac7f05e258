"""Shape primitives that copy data: concatenate, stack, roll, tile, and repeat (by a count, or by an array of
counts, which makes the output shape data-dependent).
"""

from __future__ import annotations

import itertools

import numpy as np

from .. import _dtypes
from .._core import ShapedArray, primitive
from .._lowering_support import as_dtype, jnp, lax
from .._storage import aligned_empty
from .elementwise import ALIGNED_OUTPUT_ELEMENTS


def output_buffer(shape: tuple, np_dtype) -> np.ndarray:
    """Fresh memory for a result: 64-byte aligned once it is large enough for JAX's zero-copy to matter."""
    count = 1
    for n in shape:
        count *= n
    return aligned_empty(shape, np_dtype) if count >= ALIGNED_OUTPUT_ELEMENTS else np.empty(shape, np_dtype)


def aligned_result(out: np.ndarray) -> np.ndarray:
    """`out` (a fresh NumPy result), moved to 64-byte-aligned storage when it is large enough for that to matter."""
    if out.size >= ALIGNED_OUTPUT_ELEMENTS and out.ctypes.data % 64:
        moved = aligned_empty(out.shape, out.dtype)
        np.copyto(moved, out)
        return moved
    return out


# --- concatenate -------------------------------------------------------------------------------------


def _concatenate_abstract(*avals, axis):
    dtype = _dtypes.result_type_of(*(a.dtype for a in avals))
    shape = list(avals[0].shape)
    shape[axis] = sum(a.shape[axis] for a in avals)
    return ShapedArray(tuple(shape), dtype, False)


def _concatenate_impl(*arrays, axis):
    dtype = _dtypes.result_type_of(*(_dtypes.FROM_NUMPY[a.dtype] for a in arrays))
    shape = list(arrays[0].shape)
    shape[axis] = sum(a.shape[axis] for a in arrays)
    out = output_buffer(tuple(shape), dtype.np)
    np.concatenate(arrays, axis=axis, out=out)
    return out


def _concatenate_lower(ctx, *arrays, axis):
    dtype = ctx.aval_out.dtype
    return lax().concatenate([as_dtype(a, dtype) for a in arrays], axis)


concatenate = primitive(
    "concatenate",
    impl=_concatenate_impl,
    abstract_eval=_concatenate_abstract,
    lower=_concatenate_lower,
)


# --- stack: join same-shaped arrays along a new axis ---------------------------------------------------


def _stack_abstract(*avals, axis):
    dtype = _dtypes.result_type_of(*(a.dtype for a in avals))
    shape = avals[0].shape
    return ShapedArray(shape[:axis] + (len(avals),) + shape[axis:], dtype, False)


def _stack_impl(*arrays, axis):
    dtype = _dtypes.result_type_of(*(_dtypes.FROM_NUMPY[a.dtype] for a in arrays))
    shape = arrays[0].shape
    out = output_buffer(shape[:axis] + (len(arrays),) + shape[axis:], dtype.np)
    np.stack(arrays, axis=axis, out=out)
    return out


def _stack_lower(ctx, *arrays, axis):
    lx = lax()
    dtype = ctx.aval_out.dtype
    return lx.concatenate([lx.expand_dims(as_dtype(a, dtype), (axis,)) for a in arrays], axis)


stack = primitive(
    "stack",
    impl=_stack_impl,
    abstract_eval=_stack_abstract,
    lower=_stack_lower,
)


# --- roll --------------------------------------------------------------------------------------------
# `shifts` and `axes` arrive normalised: distinct sorted axes, each shift in (0, size of its axis).


def _roll_impl(x, *, shifts, axes):
    out = output_buffer(x.shape, x.dtype)
    per_axis = [[(slice(None), slice(None))] for _ in x.shape]
    for shift, axis in zip(shifts, axes):
        n = x.shape[axis]
        # (destination, source): the tail of x moves to the front, the rest moves up by `shift`.
        per_axis[axis] = [(slice(shift, None), slice(None, n - shift)), (slice(None, shift), slice(n - shift, None))]
    for blocks in itertools.product(*per_axis):
        out[tuple(d for d, _ in blocks)] = x[tuple(s for _, s in blocks)]
    return out


def _roll_lower(ctx, x, *, shifts, axes):
    lx = lax()
    for shift, axis in zip(shifts, axes):
        n = x.shape[axis]
        x = lx.concatenate([lx.slice_in_dim(x, n - shift, n, axis=axis), lx.slice_in_dim(x, 0, n - shift, axis=axis)],
                           axis)
    return x


roll = primitive(
    "roll",
    impl=_roll_impl,
    abstract_eval=lambda x, *, shifts, axes: ShapedArray(x.shape, x.dtype, x.weak_type),
    lower=_roll_lower,
)


# --- tile: repetitions[i] copies along axis i (shapes already padded to one length) -------------------------


def _tile_lower(ctx, x, *, repetitions):
    lx = lax()
    shape = x.shape
    # broadcast x to (r0, s0, r1, s1, ...) with x's axes at the odd positions, then merge each pair
    spread = tuple(n for pair in zip(repetitions, shape) for n in pair)
    x = lx.broadcast_in_dim(x, spread, tuple(range(1, 2 * len(shape), 2)))
    return lx.reshape(x, tuple(r * n for r, n in zip(repetitions, shape)))


tile = primitive(
    "tile",
    impl=lambda x, *, repetitions: aligned_result(np.tile(x, repetitions)),
    abstract_eval=lambda x, *, repetitions: ShapedArray(tuple(r * n for r, n in zip(repetitions, x.shape)), x.dtype,
                                                        x.weak_type),
    lower=_tile_lower,
)


# --- repeat: each element `count` times along `axis` (an int, or a static tuple with one count per element) ---


def _repeated_length(n: int, count) -> int:
    if isinstance(count, int):
        return n * count
    return n * count[0] if len(count) == 1 else sum(count)


def _repeat_abstract(x, *, count, axis):
    shape = x.shape
    return ShapedArray(shape[:axis] + (_repeated_length(shape[axis], count),) + shape[axis + 1:], x.dtype, x.weak_type)


def _repeat_lower(ctx, x, *, count, axis):
    shape = x.shape
    if not isinstance(count, int):
        total = _repeated_length(shape[axis], count)
        return jnp().repeat(x, np.asarray(count), axis=axis, total_repeat_length=total)
    lx = lax()
    spread = shape[:axis + 1] + (count,) + shape[axis + 1:]
    x = lx.broadcast_in_dim(x, spread, tuple(i for i in range(len(spread)) if i != axis + 1))
    return lx.reshape(x, shape[:axis] + (shape[axis] * count,) + shape[axis + 1:])


repeat = primitive(
    "repeat",
    impl=lambda x, *, count, axis: aligned_result(np.repeat(x, count, axis=axis)),
    abstract_eval=_repeat_abstract,
    lower=_repeat_lower,
)


# --- repeat with an array of counts: the output length depends on the counts' values -------------------


def _repeat_by_array_impl(x, repeats, *, axis):
    counts = repeats.astype(np.intp, casting="unsafe")
    if counts.size and counts.min() < 0:
        raise ValueError(f"repeat: repeats must be non-negative, got {repeats.min()}")
    return aligned_result(np.repeat(x, counts, axis=axis))


def _repeat_by_array_lower(ctx, x, repeats, *, axis):
    # Only reachable when the interpreter knows the output shape (the counts were concrete when traced).
    total = ctx.aval_out.shape[axis]
    return jnp().repeat(x, repeats, axis=axis, total_repeat_length=total)


repeat_by_array = primitive(
    "repeat_by_array",
    impl=_repeat_by_array_impl,
    abstract_eval=None,
    lower=_repeat_by_array_lower,
    data_dependent=True,
)
