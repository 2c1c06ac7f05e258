"""Shape primitives that copy data: concatenate, stack, roll, tile, and repeat (by a count, or by an array of
counts, which makes the output shape data-dependent).
"""

from __future__ import annotations

import itertools

import numpy as np

from stridex._core import dtypes as _dtypes
from stridex._core.avals import ShapedArray
from stridex._core.storage import aligned_empty
from stridex._lax import array_indexing as _array_indexing
from stridex._lax import views as _views
from stridex._lax.elementwise import ALIGNED_OUTPUT_ELEMENTS
from stridex._lax.jax_bridge import as_dtype, jnp, lax
from stridex._lax.primitive import primitive


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


repeat_by_array = primitive(
    "repeat_by_array",
    impl=_repeat_by_array_impl,
    abstract_eval=None,
    lower=_repeat_by_array_lower,
    data_dependent=True,
)


# --- transformation rules ----------------------------------------------------------------------------
# Every primitive here is linear in its array input(s): the JVP applies the same primitive to the tangents
# (zeros standing in for inputs without one), and the VJP is the adjoint: concatenate and stack split the
# cotangent into views, roll rolls it back, tile sums the tiles, repeat sums each element's repeats (a
# reshape and a sum for a single count, a scatter-add by element index for one count per element). Batch
# rules move the batch axis first and shift the axis params by one.

_FLOATING = ("real floating", "complex floating")


def _full_slices(shape) -> tuple:
    return tuple(("slice", 0, n, 1) for n in shape)


def _batch_first(values, dims, axis_size):
    from stridex._transforms.batching import move_to_front

    return [move_to_front(v, d, axis_size) for v, d in zip(values, dims)]


def _linear_unary_jvp(prim):
    return lambda primals, tangents, **params: (prim.bind(primals[0], **params), prim.bind(tangents[0], **params))


def _join_jvp(prim):
    """JVP of concatenate/stack: the same join of the tangents, zeros for inputs without a tangent."""

    def jvp(primals, tangents, *, axis):
        from stridex._api.creation_functions import zeros

        out = prim.bind(*primals, axis=axis)
        joined = [t if t is not None else zeros(p.shape, dtype=out.dtype) for p, t in zip(primals, tangents)]
        return out, prim.bind(*joined, axis=axis)

    return jvp


def _join_batch(prim):
    return lambda values, dims, *, axis_size, axis: (
        prim.bind(*_batch_first(values, dims, axis_size), axis=axis + 1), 0)


def _concatenate_vjp(ct, *arrays, out, axis):

    lead, rest = _full_slices(ct.shape[:axis]), _full_slices(ct.shape[axis + 1:])
    cts, start = [], 0
    for a in arrays:
        n = a.shape[axis]
        if a.dtype.kind in _FLOATING:
            cts.append(_views.basic_index.bind(ct, entries=lead + (("slice", start, start + n, 1),) + rest))
        else:
            cts.append(None)
        start += n
    return tuple(cts)


def _stack_vjp(ct, *arrays, out, axis):

    lead, rest = _full_slices(ct.shape[:axis]), _full_slices(ct.shape[axis + 1:])
    return tuple(_views.basic_index.bind(ct, entries=lead + (("int", i),) + rest) if a.dtype.kind in _FLOATING else None
                 for i, a in enumerate(arrays))


concatenate.jvp = _join_jvp(concatenate)
concatenate.vjp = _concatenate_vjp
concatenate.batch = _join_batch(concatenate)
stack.jvp = _join_jvp(stack)
stack.vjp = _stack_vjp
stack.batch = _join_batch(stack)


roll.jvp = _linear_unary_jvp(roll)
roll.vjp = lambda ct, x, *, out, shifts, axes: (
    roll.bind(ct, shifts=tuple(x.shape[a] - s for s, a in zip(shifts, axes)), axes=axes),)
roll.batch = lambda values, dims, *, axis_size, shifts, axes: (
    roll.bind(_batch_first(values, dims, axis_size)[0], shifts=shifts, axes=tuple(a + 1 for a in axes)), 0)


def _tile_vjp(ct, x, *, out, repetitions):
    from stridex._api.manipulation_functions import reshape
    from stridex._api.statistical_functions import sum

    if all(r == 1 for r in repetitions):
        return (ct,)
    # (r0 * s0, r1 * s1, ...) -> (r0, s0, r1, s1, ...), then the sum over the copies (the even axes)
    spread = tuple(n for pair in zip(repetitions, x.shape) for n in pair)
    return (sum(reshape(ct, spread), axis=tuple(range(0, len(spread), 2))),)


tile.jvp = _linear_unary_jvp(tile)
tile.vjp = _tile_vjp
tile.batch = lambda values, dims, *, axis_size, repetitions: (
    tile.bind(_batch_first(values, dims, axis_size)[0], repetitions=(1, *repetitions)), 0)


def scatter_add_along(ct, index, x_shape: tuple, axis: int):
    """The adjoint of gathering along `axis` by `index` (1-D): ct's slices added into zeros at `index`."""
    from stridex._api.creation_functions import zeros

    return _array_indexing.scatter_add.bind(zeros(x_shape, dtype=ct.dtype), ct, index,
                            template=_full_slices(x_shape[:axis]) + (("array", 0),))


def _repeat_vjp(ct, x, *, out, count, axis):
    from stridex._api.creation_functions import asarray
    from stridex._api.manipulation_functions import reshape
    from stridex._api.statistical_functions import sum

    shape = x.shape
    if not isinstance(count, int) and len(count) == 1:
        count = count[0]
    if isinstance(count, int):
        grouped = reshape(ct, shape[:axis] + (shape[axis], count) + shape[axis + 1:])
        return (sum(grouped, axis=axis + 1),)
    index = asarray(tuple(i for i, c in enumerate(count) for _ in range(c)), dtype=_dtypes.int64)
    return (scatter_add_along(ct, index, shape, axis),)


def _repeat_by_array_vjp(ct, x, repeats, *, out, axis):
    from stridex._api.creation_functions import arange

    index = repeat_by_array.bind(arange(x.shape[axis], dtype=_dtypes.int64), repeats, axis=0)
    return scatter_add_along(ct, index, x.shape, axis), None


repeat.jvp = _linear_unary_jvp(repeat)
repeat.vjp = _repeat_vjp
repeat.batch = lambda values, dims, *, axis_size, count, axis: (
    repeat.bind(_batch_first(values, dims, axis_size)[0], count=count, axis=axis + 1), 0)
repeat_by_array.jvp = lambda primals, tangents, *, axis: (repeat_by_array.bind(*primals, axis=axis),
                                                          repeat_by_array.bind(tangents[0], primals[1], axis=axis))
repeat_by_array.vjp = _repeat_by_array_vjp
