"""Searching primitives: argmax, argmin, count_nonzero, nonzero, searchsorted, where (select).

argmax, argmin, count_nonzero, nonzero and searchsorted are integer-valued: they only batch. `where` passes
each tangent/cotangent through on its own side of the condition (none reaches the condition).
"""

from __future__ import annotations

import numpy as np

from stridex._core import dtypes as _dtypes
from stridex._core.avals import ShapedArray, aval_of, promote_avals
from stridex._core.storage import ALIGNED_OUTPUT_ELEMENTS, aligned_empty
from stridex._core.view import broadcast_shapes
from stridex._lax import ops
from stridex._lax.half import bfloat16_scalars, in_float32
from stridex._exec.jax_bridge import as_dtype, broadcast_to_aval, jnp, lax
from stridex._lax.primitive import Primitive
from stridex._lax.rule_shapes import batch_by_loop, batch_elementwise, batch_unary_axes, move_to_front
from stridex._lax.statistical import keep_reduced, reduced_shape, truth

_INDEX = np.dtype(np.int64)


def sort_key(x):
    """Lowering helper: keys on which lax's total order equals NumPy's sort order.

    lax orders -0 before +0 and a NaN with its sign bit set before everything; NumPy treats the zeros
    as equal and puts every NaN last. So zeros become +0 and NaNs a positive NaN; booleans become uint8.
    """
    lax_ = lax()
    if x.dtype == np.bool_:
        return lax_.convert_element_type(x, np.uint8)
    if _dtypes.np_kind(x.dtype) != "f":
        return x
    zero = lax_.full_like(x, 0)
    x = lax_.select(lax_.eq(x, zero), zero, x)
    return lax_.select(lax_.ne(x, x), lax_.full_like(x, np.nan), x)


def complex_sort_keys(x) -> tuple:
    """Lowering helper: keys giving NumPy's complex order [R + Rj, R + nanj, nan + Rj, nan + nanj],
    each class ordered by its non-NaN parts."""
    lax_ = lax()
    real, imag = lax_.real(x), lax_.imag(x)
    nan_class = lax_.add(lax_.mul(lax_.convert_element_type(lax_.ne(real, real), np.uint8), np.uint8(2)),
                         lax_.convert_element_type(lax_.ne(imag, imag), np.uint8))
    return nan_class, sort_key(real), sort_key(imag)


# --- argmax, argmin: the index of the first extremum along `axis` (None: into the flattened array) ---------


def _arg_shape(shape, axis, keepdims):
    if axis is None:
        return (1,) * len(shape) if keepdims else ()
    return reduced_shape(shape, (axis,), keepdims)


def _arg_abstract(x, *, axis, keepdims):
    return ShapedArray(_arg_shape(x.shape, axis, keepdims), _dtypes.int64)


def lower_first_extremum(x, axis: int, is_max: bool):
    """The index (int64) of the first maximum (or minimum) of JAX array `x` along `axis`, the first NaN where
    there is one, as NumPy gives, on every XLA backend.

    Not `lax.argmax`: its combiner keeps its left operand whenever that is NaN, whatever the indices, so it is
    right only where the reduction runs in order. XLA may combine partial results in any order (a GPU does from
    about 10^5 elements), and then `jnp.argmax` of data holding two NaNs gave the last one. This combiner is
    commutative: NaN beats a number, the better value wins, and a tie (NaN with NaN too) goes to the lower
    index. The initial index is the largest int64, so it loses every tie with a real element.
    """
    lax_ = lax()
    index = lax_.broadcasted_iota(np.int64, x.shape, axis)
    floating = x.dtype.kind in "fc" or x.dtype.name == "bfloat16"
    if floating:
        init = np.array(-np.inf if is_max else np.inf, x.dtype)
    else:
        info = np.iinfo(x.dtype)
        init = np.array(info.min if is_max else info.max, x.dtype)
    combine = first_extremum_combiner(is_max, floating)
    return lax_.reduce((x, index), (init, np.array(np.iinfo(np.int64).max, np.int64)), combine, (axis,))[1]


def first_extremum_combiner(is_max: bool, floating: bool):
    """The reduction's combiner of two (value, index) pairs (see `lower_first_extremum`): commutative and
    associative, so XLA may apply it in any order."""
    lax_ = lax()
    better = lax_.gt if is_max else lax_.lt

    def combine(a, b):
        (av, ai), (bv, bi) = a, b
        wins, tie = better(av, bv), lax_.eq(av, bv)
        if floating:
            a_nan, b_nan = lax_.ne(av, av), lax_.ne(bv, bv)
            wins = lax_.bitwise_or(wins, lax_.bitwise_and(a_nan, lax_.bitwise_not(b_nan)))
            tie = lax_.bitwise_or(tie, lax_.bitwise_and(a_nan, b_nan))
        take_a = lax_.bitwise_or(wins, lax_.bitwise_and(tie, lax_.lt(ai, bi)))
        return lax_.select(take_a, av, bv), lax_.select(take_a, ai, bi)

    return combine


def _arg(name, np_function):
    """The record of argmax or argmin. Batching: the batch axis first; with `axis` None, each example is
    flattened to one row (the index is into the example, not the batch)."""

    def lower(ctx, x, *, axis, keepdims):
        lax_ = lax()
        if x.dtype == np.bool_:
            x = lax_.convert_element_type(x, np.uint8)
        if axis is None:
            out = lower_first_extremum(lax_.reshape(x, (x.size,)), 0, name == "argmax")
            return lax_.reshape(out, ctx.aval_out.shape)
        return keep_reduced(lower_first_extremum(x, axis, name == "argmax"), (axis,), keepdims)

    def batch(values, dims, *, axis_size, axis, keepdims):
        x = move_to_front(values[0], dims[0], axis_size)
        if axis is not None:
            return prim.bind(x, axis=axis + 1, keepdims=keepdims), 0
        per_example = 1
        for n in x.shape[1:]:
            per_example *= n
        out = prim.bind(ops.reshape(x, (axis_size, per_example)), axis=1, keepdims=False)
        return (ops.reshape(out, (axis_size,) + (1,) * (x.ndim - 1)) if keepdims else out), 0

    prim = Primitive(
        name,
        impl=lambda x, *, axis, keepdims: np.asarray(np_function(x, axis=axis, keepdims=keepdims)),
        abstract_eval=_arg_abstract,
        lower=lower,
        batch=batch,
        differentiable=False,
    )
    return prim


argmax = _arg("argmax", np.argmax)
argmin = _arg("argmin", np.argmin)


# --- count_nonzero: the number of non-zero elements over `axes` ------------------------------------------


def _count_nonzero_impl(x, *, axes, keepdims):
    if len(axes) == x.ndim and not keepdims:
        return np.asarray(np.count_nonzero(x), _INDEX)
    return np.asarray(np.count_nonzero(x, axis=axes, keepdims=keepdims), _INDEX)


def _lower_count_nonzero(ctx, x, *, axes, keepdims):
    lax_ = lax()
    counts = lax_.reduce_sum(lax_.convert_element_type(truth(x), np.int64), axes)
    return keep_reduced(counts, axes, keepdims)


count_nonzero = Primitive(
    "count_nonzero",
    impl=_count_nonzero_impl,
    abstract_eval=lambda x, *, axes, keepdims: ShapedArray(reduced_shape(x.shape, axes, keepdims), _dtypes.int64),
    lower=_lower_count_nonzero,
    batch=batch_unary_axes(),
    differentiable=False,
)


# --- nonzero: one int64 index array per axis (data-dependent: no abstract rule, no batching) ---------------


def _nonzero_impl(x):
    # NumPy's per-axis results are strided columns of one buffer; give each its own memory.
    return tuple(np.ascontiguousarray(i, _INDEX) if x.ndim > 1 else np.asarray(i, _INDEX) for i in np.nonzero(x))


def _lower_nonzero(ctx, x):
    """With the output length known (`ctx.avals_out`), the row-major non-zero positions."""
    size = ctx.avals_out[0].shape[0]
    return tuple(as_dtype(i, _dtypes.int64) for i in jnp().nonzero(truth(x), size=size))


nonzero = Primitive(
    "nonzero",
    impl=_nonzero_impl,
    abstract_eval=None,
    lower=_lower_nonzero,
    output_size=lambda x: ops.count_nonzero(x),
    multiple_results=True,
    data_dependent=True,
    differentiable=False,
)


# --- searchsorted: insertion indices of x2 in the sorted x1; inputs (x1, x2) or (x1, x2, sorter) -----------


def _searchsorted_impl(x1, x2, sorter=None, *, side):
    return np.asarray(np.searchsorted(x1, x2, side=side, sorter=sorter), _INDEX)


def _searchsorted_abstract(x1, x2, sorter=None, *, side):
    return ShapedArray(aval_of(x2).shape, _dtypes.int64)


def _lower_searchsorted(ctx, x1, x2, sorter=None, *, side):
    j = jnp()
    a1, a2 = ctx.avals_in[0], aval_of(ctx.avals_in[1])
    dtype, _ = promote_avals(a1, a2)
    below = None
    if a2.weak_type and a2.dtype is _dtypes.int64 and dtype in _dtypes.INTEGER_DTYPES and dtype is not _dtypes.int64:
        # A Python int (a literal, or a traced argument) may lie outside x1's dtype, and NumPy searches for its
        # value exactly: search in int64, which holds both; uint64 does not hold a negative int, which sorts
        # before every element (index 0 on either side).
        if dtype is _dtypes.uint64:
            x2 = as_dtype(x2, _dtypes.int64)
            below = lax().lt(x2, j.zeros_like(x2))
            x2 = lax().max(x2, j.zeros_like(x2))
        else:
            dtype = _dtypes.int64
    x1 = as_dtype(x1, dtype)
    x2 = as_dtype(x2, dtype)
    if sorter is not None:
        x1 = j.take(x1, sorter)
    out = j.searchsorted(sort_key(x1), sort_key(x2), side=side)
    if below is not None:
        out = j.where(below, 0, out)
    return as_dtype(out, _dtypes.int64)


def _batch_searchsorted(values, dims, *, axis_size, side):
    if all(d is None for i, d in enumerate(dims) if i != 1):
        # Only the needles vary: searchsorted is elementwise in x2, so the batch axis stays where it is.
        return searchsorted.bind(*values, side=side), dims[1]
    # Each example searches its own sorted x1: NumPy's searchsorted is 1-D only.
    return batch_by_loop(searchsorted)(values, dims, axis_size=axis_size, side=side)


searchsorted = Primitive(
    "searchsorted",
    impl=in_float32(_searchsorted_impl),  # (ml_dtypes' bfloat16 comparisons misplace NaN: search in float32)
    abstract_eval=_searchsorted_abstract,
    lower=_lower_searchsorted,
    batch=_batch_searchsorted,
    differentiable=False,
)


# --- where (select): x1 where condition, else x2; Python scalars weak ---------------------------------------


def _where_impl(condition, x1, x2):
    if type(x1) is float or type(x2) is float:
        x1, x2 = bfloat16_scalars((x1, x2))
    shape = broadcast_shapes(*(np.shape(a) for a in (condition, x1, x2)))
    size = 1
    for n in shape:
        size *= n
    if size < ALIGNED_OUTPUT_ELEMENTS:
        return np.asarray(np.where(condition, x1, x2))
    out = aligned_empty(shape, np.result_type(x1, x2))
    np.copyto(out, x2)
    np.copyto(out, x1, where=condition if condition.dtype == np.bool_ else condition.astype(bool))
    return out


def _where_abstract(condition, x1, x2):
    a1, a2 = aval_of(x1), aval_of(x2)
    dtype, weak = promote_avals(a1, a2)
    return ShapedArray(broadcast_shapes(condition.shape, a1.shape, a2.shape), dtype, weak)


def _lower_where(ctx, condition, x1, x2):
    aval = ctx.aval_out
    condition = truth(condition)
    if condition.shape != aval.shape:
        condition = jnp().broadcast_to(condition, aval.shape)
    return lax().select(condition, broadcast_to_aval(x1, aval), broadcast_to_aval(x2, aval))


def _where_jvp(primals, tangents):
    condition, x1, x2 = primals
    out = where.bind(condition, x1, x2)
    t1, t2 = (0.0 if t is None else t for t in tangents[1:])
    return out, ops.broadcast_to(where.bind(condition, t1, t2), out.shape)


def _where_vjp(ct, condition, x1, x2, *, out):
    return None, where.bind(condition, ct, 0.0), where.bind(condition, 0.0, ct)


where = Primitive(
    "where",
    impl=_where_impl,
    abstract_eval=_where_abstract,
    lower=_lower_where,
    jvp=_where_jvp,
    vjp=_where_vjp,
    batch=batch_elementwise,
    elementwise=True,
)
