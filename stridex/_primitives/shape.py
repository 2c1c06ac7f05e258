"""Shape primitives that copy data: concatenate, roll, and repeat with a repeats array (data-dependent).

`stack`, `tile` and `repeat` with an integer count are compositions of view primitives and `copy`.
"""

from __future__ import annotations

import itertools

import numpy as np

from .. import _dtypes
from .._core import ShapedArray, primitive
from .._lowering_support import as_dtype, jnp, lax
from .._storage import aligned_empty
from .elementwise import ALIGNED_OUTPUT_ELEMENTS


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
    out = aligned_empty(tuple(shape), dtype.np)
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


# --- roll --------------------------------------------------------------------------------------------
# `shifts` and `axes` arrive normalised: distinct sorted axes, each shift in (0, size of its axis).


def _roll_impl(x, *, shifts, axes):
    out = aligned_empty(x.shape, x.dtype)
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


# --- repeat with an array of counts: the output length depends on the counts' values -------------------


def _repeat_impl(x, repeats, *, axis):
    counts = repeats.astype(np.intp, casting="unsafe")
    if counts.size and counts.min() < 0:
        raise ValueError(f"repeat: repeats must be non-negative, got {repeats.min()}")
    return aligned_result(np.repeat(x, counts, axis=axis))


def _repeat_lower(ctx, x, repeats, *, axis):
    # Only reachable when the interpreter knows the output shape (the counts were concrete when traced).
    total = ctx.aval_out.shape[axis]
    return jnp().repeat(x, repeats, axis=axis, total_repeat_length=total)


repeat_by_array = primitive(
    "repeat_by_array",
    impl=_repeat_impl,
    abstract_eval=None,
    lower=_repeat_lower,
    data_dependent=True,
)
