"""take / take_along_axis gathers along one axis (negative indices count from the end of the axis).

Both gathers are linear in x: the JVP gathers the tangent by the same indices; the VJP scatter-adds the
cotangent into zeros (repeated indices accumulate). Batching: with unbatched indices the batch axis just
shifts `axis`; with batched indices, take becomes a take_along_axis whose indices lie along `axis`, and
take_along_axis aligns the batch axes of x and indices (a size-1 axis broadcasts an unbatched one).
"""

from __future__ import annotations

import numpy as np

from stridex._core import dtypes as _dtypes
from stridex._core.avals import ShapedArray
from stridex._core.storage import aligned_result
from stridex._core.view import broadcast_shapes
from stridex._lax import ops
from stridex._exec.jax_bridge import jnp, lax
from stridex._lax.manipulation import scatter_add_along
from stridex._lax.primitive import Primitive, RuleShape
from stridex._lax.rule_shapes import move_to_front


def _normalized(indices, n: int):
    """Indices with negative entries shifted up by the axis length `n` (lowering helper)."""
    lx = lax()
    if np.dtype(indices.dtype).kind == "u":
        return indices
    return lx.select(lx.lt(indices, lx.full_like(indices, 0)), lx.add(indices, lx.full_like(indices, n)), indices)


def _gather_jvp(prim):
    """The JVP of a gather (linear in x): the same gather of x's tangent; the indices have none."""

    def jvp(primals, tangents, *, axis):
        return prim.bind(*primals, axis=axis), prim.bind(tangents[0], primals[1], axis=axis)

    return jvp


# --- take: x's `axis` replaced by the 1-D `indices` -----------------------------------------------------


def _take_abstract(x, indices, *, axis):
    return ShapedArray(x.shape[:axis] + indices.shape + x.shape[axis + 1:], x.dtype, x.weak_type)


def _take_lower(ctx, x, indices, *, axis):
    # Note: out-of-range indices are unspecified by the spec; eagerly they raise IndexError, here they clip.
    return jnp().take(x, _normalized(indices, x.shape[axis]), axis=axis, mode="clip")


def _take_vjp(ct, x, indices, *, out, axis):
    return scatter_add_along(ct, indices, x.shape, axis), None


def _take_batch(values, dims, *, axis_size, axis):
    (x, indices), (dx, di) = values, dims
    if di is None:
        return take.bind(x, indices, axis=axis + 1 if dx <= axis else axis), dx
    x = ops.expand_dims(x, 0) if dx is None else move_to_front(x, dx, axis_size)
    indices = move_to_front(indices, di, axis_size)
    example_ndim = x.ndim - 1
    indices = ops.reshape(indices,
                          (axis_size,) + (1,) * axis + (indices.shape[1],) + (1,) * (example_ndim - axis - 1))
    return take_along_axis.bind(x, indices, axis=axis + 1), 0


take = Primitive(
    "take",
    impl=lambda x, indices, *, axis: aligned_result(np.take(x, indices, axis=axis)),
    abstract_eval=_take_abstract,
    lower=_take_lower,
    jvp=RuleShape(_gather_jvp),
    vjp=_take_vjp,
    batch=_take_batch,
)


# --- take_along_axis: per-position indices along `axis`, other axes broadcast ------------------------------
# The cotangent lands in x broadcast to the output's other axes; autodiff's `fit` sums it back down to
# x's shape.


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


def _take_along_vjp(ct, x, indices, *, out, axis):
    shape = ct.shape
    ndim = len(shape)
    # x broadcast to the output's other axes; every position (i, ..., indices[i, ..., k, ...], ...) gets ct's
    # element at (i, ..., k, ...): open-grid aranges index the other axes.
    target = ops.zeros(shape[:axis] + (x.shape[axis],) + shape[axis + 1:], ct.dtype)
    grids = [indices if j == axis else
             ops.reshape(ops.arange(n, _dtypes.int64), (1,) * j + (n,) + (1,) * (ndim - j - 1))
             for j, n in enumerate(shape)]
    return ops.scatter_add(target, ct, tuple(("array", j) for j in range(ndim)), *grids), None


def _take_along_batch(values, dims, *, axis_size, axis):
    x, indices = (ops.expand_dims(v, 0) if d is None else move_to_front(v, d, axis_size)
                  for v, d in zip(values, dims))
    return take_along_axis.bind(x, indices, axis=axis + 1), 0


take_along_axis = Primitive(
    "take_along_axis",
    impl=_take_along_impl,
    abstract_eval=lambda x, indices, *, axis: ShapedArray(along_axis_shape(x.shape, indices.shape, axis), x.dtype,
                                                          x.weak_type),
    lower=_take_along_lower,
    jvp=RuleShape(_gather_jvp),
    vjp=_take_along_vjp,
    batch=_take_along_batch,
)
