"""Shape primitives that copy data: concatenate, stack, roll, tile, and repeat (by a count, or by an array of
counts, which makes the output shape data-dependent).

Every primitive here is linear in its array input(s): the JVP applies the same primitive to the tangents, and
the VJP is the adjoint (concatenate and stack split the cotangent into views, roll rolls it back, tile sums
the tiles, repeat sums each element's repeats). Batch rules move the batch axis first and shift the axis
params by one.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from stridex._core import dtypes as _dtypes
from stridex._core.avals import ShapedArray
from stridex._core.storage import aligned_result, output_buffer
from stridex._lax import ops
from stridex._exec.jax_bridge import as_dtype, jnp, lax
from stridex._lax.primitive import Primitive, RuleShape
from stridex._lax.rule_shapes import batch_unary_axes, linear_jvp, move_to_front


def _full_slices(shape) -> tuple:
    return tuple(("slice", 0, n, 1) for n in shape)


# --- concatenate, stack: join arrays along an existing axis, or along a new one ----------------------


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


def _concatenate_vjp(ct, *arrays, out, axis):
    lead, rest = _full_slices(ct.shape[:axis]), _full_slices(ct.shape[axis + 1:])
    cts, start = [], 0
    for a in arrays:
        n = a.shape[axis]
        cts.append(ops.index(ct, lead + (("slice", start, start + n, 1),) + rest) if _dtypes.is_floating(a.dtype)
                   else None)
        start += n
    return tuple(cts)


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


def _stack_vjp(ct, *arrays, out, axis):
    lead, rest = _full_slices(ct.shape[:axis]), _full_slices(ct.shape[axis + 1:])
    return tuple(ops.index(ct, lead + (("int", i),) + rest) if _dtypes.is_floating(a.dtype) else None
                 for i, a in enumerate(arrays))


def _join_jvp(prim):
    """The same join of the tangents, zeros for inputs without a tangent."""

    def jvp(primals, tangents, *, axis):
        out = prim.bind(*primals, axis=axis)
        joined = [t if t is not None else ops.zeros(p.shape, out.dtype) for p, t in zip(primals, tangents)]
        return out, prim.bind(*joined, axis=axis)

    return jvp


def _join_batch(prim):
    """Every input's batch axis first (broadcast where it has none): one join along axis + 1."""

    def batch(values, dims, *, axis_size, axis):
        return prim.bind(*(move_to_front(v, d, axis_size) for v, d in zip(values, dims)), axis=axis + 1), 0

    return batch


concatenate = Primitive(
    "concatenate",
    impl=_concatenate_impl,
    abstract_eval=_concatenate_abstract,
    lower=_concatenate_lower,
    jvp=RuleShape(_join_jvp),
    vjp=_concatenate_vjp,
    batch=RuleShape(_join_batch),
)

stack = Primitive(
    "stack",
    impl=_stack_impl,
    abstract_eval=_stack_abstract,
    lower=_stack_lower,
    jvp=RuleShape(_join_jvp),
    vjp=_stack_vjp,
    batch=RuleShape(_join_batch),
)


# --- roll: cyclic shift along axes ----------------------------------------------------------------------
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


def _roll_vjp(ct, x, *, out, shifts, axes):
    return (roll.bind(ct, shifts=tuple(x.shape[a] - s for s, a in zip(shifts, axes)), axes=axes),)


# Rules hand-written: the adjoint is one roll back; the decomposition (slices joined) would write each
# block's cotangent into zeros and add them.
roll = Primitive(
    "roll",
    impl=_roll_impl,
    abstract_eval=lambda x, *, shifts, axes: ShapedArray(x.shape, x.dtype, x.weak_type),
    lower=_roll_lower,
    jvp=linear_jvp,
    vjp=_roll_vjp,
    batch=batch_unary_axes("axes"),
)


# --- tile: repetitions[i] copies along axis i (shapes already padded to one length) -------------------------


def _tile_lower(ctx, x, *, repetitions):
    lx = lax()
    shape = x.shape
    # broadcast x to (r0, s0, r1, s1, ...) with x's axes at the odd positions, then merge each pair
    spread = tuple(n for pair in zip(repetitions, shape) for n in pair)
    x = lx.broadcast_in_dim(x, spread, tuple(range(1, 2 * len(shape), 2)))
    return lx.reshape(x, tuple(r * n for r, n in zip(repetitions, shape)))


def _tile_vjp(ct, x, *, out, repetitions):
    if all(r == 1 for r in repetitions):
        return (ct,)
    # (r0 * s0, r1 * s1, ...) -> (r0, s0, r1, s1, ...), then the sum over the copies (the even axes)
    spread = tuple(n for pair in zip(repetitions, x.shape) for n in pair)
    return (ops.sum(ops.reshape(ct, spread), tuple(range(0, len(spread), 2))),)


def _tile_batch(values, dims, *, axis_size, repetitions):
    (x,), (d,) = values, dims
    return tile.bind(move_to_front(x, d, axis_size), repetitions=(1, *repetitions)), 0


# Rules hand-written: the VJP is one reshape and one sum, what the broadcast-and-reshape decomposition's
# adjoint would come to anyway, without tracing through its three steps.
tile = Primitive(
    "tile",
    impl=lambda x, *, repetitions: aligned_result(np.tile(x, repetitions)),
    abstract_eval=lambda x, *, repetitions: ShapedArray(tuple(r * n for r, n in zip(repetitions, x.shape)), x.dtype,
                                                        x.weak_type),
    lower=_tile_lower,
    jvp=linear_jvp,
    vjp=_tile_vjp,
    batch=_tile_batch,
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


def scatter_add_along(ct, index, x_shape: tuple, axis: int):
    """The adjoint of gathering along `axis` by `index` (1-D): ct's slices added into zeros at `index`."""
    return ops.scatter_add(ops.zeros(x_shape, ct.dtype), ct, _full_slices(x_shape[:axis]) + (("array", 0),), index)


def _repeat_vjp(ct, x, *, out, count, axis):
    shape = x.shape
    if not isinstance(count, int) and len(count) == 1:
        count = count[0]
    if isinstance(count, int):
        grouped = ops.reshape(ct, shape[:axis] + (shape[axis], count) + shape[axis + 1:])
        return (ops.sum(grouped, axis + 1),)
    index = ops.constant([i for i, c in enumerate(count) for _ in range(c)], _dtypes.int64, like=ct)
    return (scatter_add_along(ct, index, shape, axis),)


# Rules hand-written: the VJP sums each element's copies (a reshape and a sum for one count, a scatter-add
# by element index for one count per element), cheaper than the broadcast or gather it would decompose into.
repeat = Primitive(
    "repeat",
    impl=lambda x, *, count, axis: aligned_result(np.repeat(x, count, axis=axis)),
    abstract_eval=_repeat_abstract,
    lower=_repeat_lower,
    jvp=linear_jvp,
    vjp=_repeat_vjp,
    batch=batch_unary_axes("axis"),
)


# --- repeat_by_array: repeat with an array of counts (the output length depends on their values) ----------


def _repeat_by_array_impl(x, repeats, *, axis):
    counts = repeats.astype(np.intp, casting="unsafe")
    if counts.size and counts.min() < 0:
        raise ValueError(f"repeat: repeats must be non-negative, got {repeats.min()}")
    # (A float sum: it cannot overflow, and it is exact enough to tell an impossible size.)
    total = float(counts.sum(dtype=np.float64)) * (x.shape[axis] if counts.size == 1 else 1)
    if total * max(x.size // max(x.shape[axis], 1), 1) * x.itemsize > 2**63 - 1:
        raise ValueError(f"repeat: the counts ask for about {total:.3g} elements along axis {axis} (from an array of "
                         f"shape {x.shape}): more than any array can hold")
    return aligned_result(np.repeat(x, counts, axis=axis))


def _repeat_by_array_lower(ctx, x, repeats, *, axis):
    # Only reachable when the interpreter knows the output shape (the counts were concrete when traced).
    total = ctx.aval_out.shape[axis]
    return jnp().repeat(x, repeats, axis=axis, total_repeat_length=total)


def _repeat_by_array_jvp(primals, tangents, *, axis):
    x, repeats = primals
    return repeat_by_array.bind(x, repeats, axis=axis), repeat_by_array.bind(tangents[0], repeats, axis=axis)


def _repeat_by_array_vjp(ct, x, repeats, *, out, axis):
    index = repeat_by_array.bind(ops.arange(x.shape[axis]), repeats, axis=0)
    return scatter_add_along(ct, index, x.shape, axis), None


def _repeat_by_array_size(x, repeats, *, axis):
    """The result's length along `axis`: the sum of the counts (one count repeats every element)."""
    total = ops.sum(ops.astype(repeats, _dtypes.int64))
    return ops.multiply(total, ops.shape_of(x)[axis]) if math.prod(ops.shape_of(repeats)) == 1 else total


# Rules hand-written: the VJP is one scatter-add by each output's source index (the counts repeated
# over an arange); no decomposition into fixed-shape primitives exists.
repeat_by_array = Primitive(
    "repeat_by_array",
    impl=_repeat_by_array_impl,
    abstract_eval=None,
    lower=_repeat_by_array_lower,
    jvp=_repeat_by_array_jvp,
    vjp=_repeat_by_array_vjp,
    output_size=_repeat_by_array_size,
    data_dependent=True,
)
