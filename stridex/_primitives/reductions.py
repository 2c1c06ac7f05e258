"""Reduction primitives: sum, prod, max, min, all, any, mean, var, std; cumulative sums and products; diff.

Every reduction takes the normalised `axes` (a tuple) and `keepdims`; sum, prod and the cumulative
ones also take the output `dtype` (the namespace resolves the spec's default accumulation dtype).
Reductions over all axes return 0-D arrays (NumPy returns scalars there, so the rules wrap them).
"""

from __future__ import annotations

from math import prod as _prod

import numpy as np

from .. import _dtypes
from .._core import ShapedArray, primitive
from .._lowering_support import as_dtype, lax
from .._storage import aligned_empty
from .elementwise import ALIGNED_OUTPUT_ELEMENTS


def reduced_shape(shape: tuple, axes: tuple, keepdims: bool) -> tuple:
    if keepdims:
        return tuple(1 if i in axes else n for i, n in enumerate(shape))
    return tuple(n for i, n in enumerate(shape) if i not in axes)


def _reduce(ufunc, x, axes, keepdims, np_dtype):
    """`ufunc.reduce` over `axes` as a fresh ndarray (0-D for a full reduction); large outputs aligned."""
    if x.size >= ALIGNED_OUTPUT_ELEMENTS and len(axes) < x.ndim:
        shape = reduced_shape(x.shape, axes, keepdims)
        if _prod(shape) >= ALIGNED_OUTPUT_ELEMENTS:
            out = aligned_empty(shape, np_dtype if np_dtype is not None else x.dtype)
            ufunc.reduce(x, axes, np_dtype, out, keepdims)
            return out
    out = ufunc.reduce(x, axes, np_dtype, None, keepdims)
    return out if type(out) is np.ndarray else np.asarray(out)


def _keep(y, axes, keepdims):
    """Re-insert the reduced axes of a lax reduction as size-1 axes when `keepdims`."""
    return lax().expand_dims(y, sorted(axes)) if keepdims and axes else y


def _count(shape, axes) -> int:
    n = 1
    for a in axes:
        n *= shape[a]
    return n


# --- sum, prod: the output dtype is a param ------------------------------------------------------------


def _accumulating_abstract(x, *, axes, keepdims, dtype):
    return ShapedArray(reduced_shape(x.shape, axes, keepdims), dtype)


def _lower_accumulating(reducer):
    def lower(ctx, x, *, axes, keepdims, dtype):
        return _keep(reducer(lax())(as_dtype(x, dtype), axes), axes, keepdims)

    return lower


reduce_sum = primitive(
    "reduce_sum",
    impl=lambda x, *, axes, keepdims, dtype: _reduce(np.add, x, axes, keepdims, dtype.np),
    abstract_eval=_accumulating_abstract,
    lower=_lower_accumulating(lambda lax_: lax_.reduce_sum),
)

reduce_prod = primitive(
    "reduce_prod",
    impl=lambda x, *, axes, keepdims, dtype: _reduce(np.multiply, x, axes, keepdims, dtype.np),
    abstract_eval=_accumulating_abstract,
    lower=_lower_accumulating(lambda lax_: lax_.reduce_prod),
)


# --- max, min, all, any: the dtype is fixed ------------------------------------------------------------


def _same_dtype_abstract(x, *, axes, keepdims):
    return ShapedArray(reduced_shape(x.shape, axes, keepdims), x.dtype)


def _bool_abstract(x, *, axes, keepdims):
    return ShapedArray(reduced_shape(x.shape, axes, keepdims), _dtypes.bool)


def _lower_extremum(name, bool_name):
    def lower(ctx, x, *, axes, keepdims):
        lax_ = lax()
        # lax has no max/min of booleans: for them max is "any" and min is "all".
        reducer = getattr(lax_, bool_name if x.dtype == np.bool_ else name)
        return _keep(reducer(x, axes), axes, keepdims)

    return lower


reduce_max = primitive(
    "reduce_max",
    impl=lambda x, *, axes, keepdims: _reduce(np.maximum, x, axes, keepdims, None),
    abstract_eval=_same_dtype_abstract,
    lower=_lower_extremum("reduce_max", "reduce_or"),
)

reduce_min = primitive(
    "reduce_min",
    impl=lambda x, *, axes, keepdims: _reduce(np.minimum, x, axes, keepdims, None),
    abstract_eval=_same_dtype_abstract,
    lower=_lower_extremum("reduce_min", "reduce_and"),
)


def truth(x):
    """Lowering helper: a JAX bool array, True where `x` is non-zero (NaN counts as non-zero)."""
    if x.dtype == np.bool_:
        return x
    return lax().ne(x, lax().full_like(x, 0))


def _lower_logical(name):
    def lower(ctx, x, *, axes, keepdims):
        return _keep(getattr(lax(), name)(truth(x), axes), axes, keepdims)

    return lower


reduce_all = primitive(
    "reduce_all",
    impl=lambda x, *, axes, keepdims: _reduce(np.logical_and, x, axes, keepdims, np.bool_),
    abstract_eval=_bool_abstract,
    lower=_lower_logical("reduce_and"),
    differentiable=False,
)

reduce_any = primitive(
    "reduce_any",
    impl=lambda x, *, axes, keepdims: _reduce(np.logical_or, x, axes, keepdims, np.bool_),
    abstract_eval=_bool_abstract,
    lower=_lower_logical("reduce_or"),
    differentiable=False,
)


# --- mean, var, std ---------------------------------------------------------------------------------


def _float_abstract(x, *, axes, keepdims, **_):
    return ShapedArray(reduced_shape(x.shape, axes, keepdims), _dtypes.default_float_for(x.dtype))


def _mean_impl(x, *, axes, keepdims):
    np_dtype = np.float64 if x.dtype.kind in "biu" else x.dtype
    total = np.asarray(np.add.reduce(x, axes, np_dtype, None, keepdims))
    n = _count(x.shape, axes)
    with np.errstate(all="ignore"):  # an empty mean is 0/0 = NaN, as the spec asks
        if total.dtype.kind != "c":
            return np.divide(total, n, out=total)
        # Note: the spec wants each component divided on its own (a NaN real part must not make the
        # imaginary part NaN); NumPy's complex division by (n + 0j) mixes them.
        np.divide(total.real, n, out=total.real)
        np.divide(total.imag, n, out=total.imag)
    return total


def _lower_mean(ctx, x, *, axes, keepdims):
    lax_ = lax()
    dtype = ctx.aval_out.dtype
    total = lax_.reduce_sum(as_dtype(x, dtype), axes)
    n = _count(ctx.avals_in[0].shape, axes)
    if dtype.kind == "complex floating":
        real_dtype = _dtypes.real_of(dtype).np
        scale = lax_.full((), n, real_dtype)
        total = lax_.complex(lax_.div(lax_.real(total), scale), lax_.div(lax_.imag(total), scale))
    else:
        total = lax_.div(total, lax_.full((), n, dtype.np))
    return _keep(total, axes, keepdims)


reduce_mean = primitive(
    "reduce_mean",
    impl=_mean_impl,
    abstract_eval=_float_abstract,
    lower=_lower_mean,
)


def _var_impl(x, *, axes, keepdims, correction):
    out_dtype = np.float64 if x.dtype.kind in "biu" else x.dtype
    if _count(x.shape, axes) - correction <= 0:
        # The spec: when M - correction <= 0 the variance is NaN (NumPy gives inf or NaN with a warning).
        return np.full(reduced_shape(x.shape, axes, keepdims), np.nan, out_dtype)
    with np.errstate(all="ignore"):
        return np.asarray(np.var(x, axis=axes, dtype=out_dtype, ddof=correction, keepdims=keepdims))


def _std_impl(x, *, axes, keepdims, correction):
    out = _var_impl(x, axes=axes, keepdims=keepdims, correction=correction)
    return np.sqrt(out, out=out)


def _lower_var(ctx, x, *, axes, keepdims, correction):
    lax_ = lax()
    dtype = ctx.aval_out.dtype.np
    n = _count(ctx.avals_in[0].shape, axes)
    if n - correction <= 0:
        return lax_.full(ctx.aval_out.shape, np.nan, dtype)
    x = as_dtype(x, ctx.aval_out.dtype)
    mean = lax_.div(lax_.reduce_sum(x, axes), lax_.full((), n, dtype))
    kept = [i for i in range(x.ndim) if i not in axes]
    deviation = lax_.sub(x, lax_.broadcast_in_dim(mean, x.shape, kept))
    squares = lax_.reduce_sum(lax_.mul(deviation, deviation), axes)
    return _keep(lax_.div(squares, lax_.full((), n - correction, dtype)), axes, keepdims)


def _lower_std(ctx, x, *, axes, keepdims, correction):
    return lax().sqrt(_lower_var(ctx, x, axes=axes, keepdims=keepdims, correction=correction))


reduce_var = primitive(
    "reduce_var",
    impl=_var_impl,
    abstract_eval=_float_abstract,
    lower=_lower_var,
)

reduce_std = primitive(
    "reduce_std",
    impl=_std_impl,
    abstract_eval=_float_abstract,
    lower=_lower_std,
)


# --- cumulative sums and products ------------------------------------------------------------------------


def _cumulative_shape(shape, axis, include_initial):
    if not include_initial:
        return shape
    return shape[:axis] + (shape[axis] + 1,) + shape[axis + 1:]


def _cumulative_impl(ufunc, identity):
    def impl(x, *, axis, dtype, include_initial):
        shape = _cumulative_shape(x.shape, axis, include_initial)
        out = aligned_empty(shape, dtype.np) if _prod(shape) >= ALIGNED_OUTPUT_ELEMENTS else np.empty(shape, dtype.np)
        target = out
        if include_initial:
            lead = (slice(None),) * axis
            out[lead + (slice(0, 1),)] = identity
            target = out[lead + (slice(1, None),)]
        if x.size:
            ufunc.accumulate(x, axis, dtype.np, target)
        return out

    return impl


def _cumulative_abstract(x, *, axis, dtype, include_initial):
    return ShapedArray(_cumulative_shape(x.shape, axis, include_initial), dtype)


def _lower_cumulative(name, identity):
    def lower(ctx, x, *, axis, dtype, include_initial):
        lax_ = lax()
        out = getattr(lax_, name)(as_dtype(x, dtype), axis)
        if include_initial:
            pads = [(1, 0, 0) if i == axis else (0, 0, 0) for i in range(out.ndim)]
            out = lax_.pad(out, lax_.full((), identity, dtype.np), pads)
        return out

    return lower


cumulative_sum = primitive(
    "cumulative_sum",
    impl=_cumulative_impl(np.add, 0),
    abstract_eval=_cumulative_abstract,
    lower=_lower_cumulative("cumsum", 0),
)

cumulative_prod = primitive(
    "cumulative_prod",
    impl=_cumulative_impl(np.multiply, 1),
    abstract_eval=_cumulative_abstract,
    lower=_lower_cumulative("cumprod", 1),
)


# --- forward differences ------------------------------------------------------------------------------
# Inputs are the pieces to join along `axis` before differencing: (x,), or (prepend?, x, append?).


def _diff_impl(*parts, axis, n):
    joined = parts[0] if len(parts) == 1 else np.concatenate(parts, axis=axis)
    if n == 0:
        return np.array(joined, copy=True)
    return np.diff(joined, n=n, axis=axis)


def _diff_abstract(*parts, axis, n):
    dtype = _dtypes.result_type_of(*(p.dtype for p in parts))
    length = sum(p.shape[axis] for p in parts)
    shape = parts[0].shape
    return ShapedArray(shape[:axis] + (max(length - n, 0),) + shape[axis + 1:], dtype)


def _lower_diff(ctx, *parts, axis, n):
    lax_ = lax()
    dtype = ctx.aval_out.dtype
    parts = [as_dtype(p, dtype) for p in parts]
    joined = parts[0] if len(parts) == 1 else lax_.concatenate(parts, axis)
    for _ in range(n):
        length = joined.shape[axis]
        if length == 0:
            break
        joined = lax_.sub(lax_.slice_in_dim(joined, 1, length, axis=axis),
                          lax_.slice_in_dim(joined, 0, length - 1, axis=axis))
    return joined


diff = primitive(
    "diff",
    impl=_diff_impl,
    abstract_eval=_diff_abstract,
    lower=_lower_diff,
)
