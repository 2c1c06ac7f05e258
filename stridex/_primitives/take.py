"""take / take_along_axis gathers along one axis (negative indices count from the end of the axis)."""

from __future__ import annotations

import numpy as np

from .._core import ShapedArray, primitive
from .._lowering_support import jnp, lax
from .._view import broadcast_shapes
from .shape import aligned_result


def _normalized(indices, n: int):
    """Indices with negative entries shifted up by the axis length `n` (lowering helper)."""
    lx = lax()
    if np.dtype(indices.dtype).kind == "u":
        return indices
    return lx.select(lx.lt(indices, lx.full_like(indices, 0)), lx.add(indices, lx.full_like(indices, n)), indices)


# --- take: x's `axis` replaced by the 1-D `indices` -----------------------------------------------------


def _take_abstract(x, indices, *, axis):
    return ShapedArray(x.shape[:axis] + indices.shape + x.shape[axis + 1:], x.dtype, x.weak_type)


def _take_lower(ctx, x, indices, *, axis):
    # Note: out-of-range indices are unspecified by the spec; eagerly they raise IndexError, here they clip.
    return jnp().take(x, _normalized(indices, x.shape[axis]), axis=axis, mode="clip")


take = primitive(
    "take",
    impl=lambda x, indices, *, axis: aligned_result(np.take(x, indices, axis=axis)),
    abstract_eval=_take_abstract,
    lower=_take_lower,
)


# --- take_along_axis: per-position indices along `axis`, other axes broadcast ------------------------------


def along_axis_shape(x_shape: tuple, indices_shape: tuple, axis: int) -> tuple:
    """Output shape of take_along_axis: the other axes broadcast, `axis` as long as the indices' one."""
    rest = broadcast_shapes(x_shape[:axis] + x_shape[axis + 1:], indices_shape[:axis] + indices_shape[axis + 1:])
    return rest[:axis] + (indices_shape[axis],) + rest[axis:]


def _take_along_impl(x, indices, *, axis):
    shape = along_axis_shape(x.shape, indices.shape, axis)
    x_shape = shape[:axis] + (x.shape[axis],) + shape[axis + 1:]
    x = np.broadcast_to(x, x_shape)
    indices = np.broadcast_to(indices, shape)
    if x.size == 0 or indices.size == 0:
        return np.empty(shape, x.dtype)
    return aligned_result(np.take_along_axis(x, indices, axis=axis))


def _take_along_lower(ctx, x, indices, *, axis):
    shape = ctx.aval_out.shape
    x_shape = shape[:axis] + (x.shape[axis],) + shape[axis + 1:]
    j = jnp()
    x = j.broadcast_to(x, x_shape)
    indices = j.broadcast_to(_normalized(indices, x_shape[axis]), shape)
    return j.take_along_axis(x, indices, axis=axis, mode="clip")


take_along_axis = primitive(
    "take_along_axis",
    impl=_take_along_impl,
    abstract_eval=lambda x, indices, *, axis: ShapedArray(along_axis_shape(x.shape, indices.shape, axis), x.dtype,
                                                          x.weak_type),
    lower=_take_along_lower,
)
