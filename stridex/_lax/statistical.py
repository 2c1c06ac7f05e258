"""Reduction primitives: sum, prod, max, min, all, any, mean, var, std; cumulative sums and products; diff.

Every reduction takes the normalised `axes` (a tuple) and `keepdims`; sum, prod and the cumulative
ones also take the output `dtype` (the namespace resolves the spec's default accumulation dtype).
Reductions over all axes return 0-D arrays (NumPy returns scalars there, so the rules wrap them).

Gradient conventions: max and min send the gradient to the elements equal to the result, shared
equally between ties (`max([1, 3, 3])` gives `[0, 1/2, 1/2]`; a NaN result shares it between the slice's
NaNs). The gradients of prod and cumulative_prod are exact at zeros (products of the other elements, no
division). var and std follow `correction` (M - correction in the denominator); std's gradient is
infinite or NaN where std is 0, and both are NaN where M - correction <= 0, like their values.
"""

from __future__ import annotations

from math import prod as _prod

import numpy as np

from stridex._core import dtypes as _dtypes
from stridex._core.avals import ShapedArray
from stridex._core.storage import aligned_empty
from stridex._lax import views as _views
from stridex._lax.elementwise import ALIGNED_OUTPUT_ELEMENTS
from stridex._lax.jax_bridge import as_dtype, lax
from stridex._lax.primitive import primitive


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


# --- transformation rules ----------------------------------------------------------------------------
# Rules compute with stridex operations (imported where used: the namespace imports this module), so
# they are traced, differentiated again and batched like any user code.


def _slice(x, axis: int, start: int, stop: int):
    """`x[start:stop]` along `axis` (a view)."""

    entries = tuple(("slice", start, stop, 1) if i == axis else ("slice", 0, n, 1) for i, n in enumerate(x.shape))
    return _views.basic_index.bind(x, entries=entries)


def _flip(x, axis: int):

    return _views.flip.bind(x, axes=(axis,))


def _filled(like, axis: int, length: int, value):
    """A constant shaped like `like` except `length` along `axis`."""
    from stridex._api.creation_functions import full

    return full(like.shape[:axis] + (length,) + like.shape[axis + 1:], value, dtype=like.dtype)


def _cast(x, dtype):
    from stridex._api.data_type_functions import astype

    return x if x.dtype is dtype else astype(x, dtype)


def _restore(ct, shape: tuple, axes: tuple, keepdims: bool):
    """A reduction's cotangent broadcast back over the reduced axes to the operand's `shape`."""
    from stridex._api.manipulation_functions import reshape

    if not keepdims and axes:
        ct = reshape(ct, reduced_shape(shape, axes, True))
    return _views.broadcast_to.bind(ct, shape=shape) if ct.shape != shape else ct


def lazy_batch(make):
    """A batching rule built by `make()` on first use (the batching module cannot be imported here yet)."""
    built = []

    def rule(values, dims, **params):
        if not built:
            built.append(make())
        return built[0](values, dims, **params)

    return rule


def batch_axes(prim, name="axes"):
    """The batching rule of a one-operand primitive whose param `name` holds its axis or axes."""

    def make():
        from stridex._transforms.batching import batch_unary_axes

        return batch_unary_axes(prim, (name,))

    return lazy_batch(make)


def _linear_jvp(prim):
    """The JVP of a primitive linear in its (single) operand: the primitive applied to the tangent."""
    return lambda primals, tangents, **params: (prim.bind(*primals, **params), prim.bind(*tangents, **params))


# sum and mean are linear; their adjoint spreads the cotangent over the reduced axes.

reduce_sum.jvp = _linear_jvp(reduce_sum)
reduce_sum.vjp = lambda ct, x, *, out, axes, keepdims, dtype: (_restore(ct, x.shape, axes, keepdims),)
reduce_sum.batch = batch_axes(reduce_sum)

reduce_mean.jvp = _linear_jvp(reduce_mean)
reduce_mean.vjp = lambda ct, x, *, out, axes, keepdims: (_restore(ct, x.shape, axes, keepdims)
                                                         / _count(x.shape, axes),)
reduce_mean.batch = batch_axes(reduce_mean)


# prod: the derivative by x_i is the product of every other element, built from exclusive running
# products from the left and from the right, so zeros need no special case (no division).


def _product_of_others(x, axes: tuple):
    """For each element of `x`, the product of the other elements of its reduced slice."""
    from stridex._api.manipulation_functions import reshape

    kept = tuple(i for i in range(x.ndim) if i not in axes)
    order = kept + axes
    moved = _views.permute.bind(x, axes=order) if order != tuple(range(x.ndim)) else x
    kept_shape = tuple(x.shape[i] for i in kept)
    size, last = _count(x.shape, axes), len(kept)
    rows = reshape(moved, kept_shape + (size,))

    def exclusive_products(v):
        return _slice(cumulative_prod.bind(v, axis=last, dtype=x.dtype, include_initial=True), last, 0, size)

    others = exclusive_products(rows) * _flip(exclusive_products(_flip(rows, last)), last)
    others = reshape(others, kept_shape + tuple(x.shape[a] for a in axes))
    inverse = tuple(order.index(i) for i in range(x.ndim))
    return _views.permute.bind(others, axes=inverse) if order != tuple(range(x.ndim)) else others


def _prod_jvp(primals, tangents, *, axes, keepdims, dtype):
    (x,), (t,) = primals, tangents
    out = reduce_prod.bind(x, axes=axes, keepdims=keepdims, dtype=dtype)
    return out, reduce_sum.bind(t * _product_of_others(x, axes), axes=axes, keepdims=keepdims, dtype=dtype)


reduce_prod.jvp = _prod_jvp
reduce_prod.vjp = lambda ct, x, *, out, axes, keepdims, dtype: (
    _restore(ct, x.shape, axes, keepdims) * _product_of_others(x, axes),)
reduce_prod.batch = batch_axes(reduce_prod)


# max, min: the gradient goes to the elements equal to the result, shared equally between ties (a NaN
# result: shared between the NaNs of the slice).


def _extremum_weights(x, out, axes: tuple, keepdims: bool):
    from stridex._api.elementwise_functions import equal, isnan, logical_or
    from stridex._api.manipulation_functions import reshape

    if not keepdims and axes:
        out = reshape(out, reduced_shape(x.shape, axes, True))
    chosen = _cast(logical_or(equal(x, out), isnan(x)), x.dtype)
    return chosen / reduce_sum.bind(chosen, axes=axes, keepdims=True, dtype=x.dtype)


def _extremum_rules(prim):
    def jvp(primals, tangents, *, axes, keepdims):
        (x,), (t,) = primals, tangents
        out = prim.bind(x, axes=axes, keepdims=keepdims)
        weights = _extremum_weights(x, out, axes, keepdims)
        return out, reduce_sum.bind(t * weights, axes=axes, keepdims=keepdims, dtype=x.dtype)

    def vjp(ct, x, *, out, axes, keepdims):
        return (_restore(ct, x.shape, axes, keepdims) * _extremum_weights(x, out, axes, keepdims),)

    prim.jvp, prim.vjp, prim.batch = jvp, vjp, batch_axes(prim)


_extremum_rules(reduce_max)
_extremum_rules(reduce_min)

reduce_all.batch = batch_axes(reduce_all)
reduce_any.batch = batch_axes(reduce_any)


# var, std: d var = 2/(M - correction) * sum((x - mean) dx) (the mean's own derivative cancels, since
# the deviations sum to zero); d std = d var / (2 std). NaN when M - correction <= 0, as the value.


def _var_scale(shape, axes, correction) -> float:
    dof = _count(shape, axes) - correction
    return 1.0 / dof if dof > 0 else float("nan")


def _deviation(x, axes):
    return x - reduce_mean.bind(x, axes=axes, keepdims=True)


def _var_jvp(primals, tangents, *, axes, keepdims, correction):
    (x,), (t,) = primals, tangents
    out = reduce_var.bind(x, axes=axes, keepdims=keepdims, correction=correction)
    scale = 2.0 * _var_scale(x.shape, axes, correction)
    return out, reduce_sum.bind(_deviation(x, axes) * t, axes=axes, keepdims=keepdims, dtype=out.dtype) * scale


def _var_vjp(ct, x, *, out, axes, keepdims, correction):
    scale = 2.0 * _var_scale(x.shape, axes, correction)
    return (_deviation(x, axes) * _restore(ct * scale, x.shape, axes, keepdims),)


def _std_jvp(primals, tangents, *, axes, keepdims, correction):
    (x,), (t,) = primals, tangents
    out = reduce_std.bind(x, axes=axes, keepdims=keepdims, correction=correction)
    scale = _var_scale(x.shape, axes, correction)
    return out, reduce_sum.bind(_deviation(x, axes) * t, axes=axes, keepdims=keepdims, dtype=out.dtype) \
        * scale / out


def _std_vjp(ct, x, *, out, axes, keepdims, correction):
    scale = _var_scale(x.shape, axes, correction)
    return (_deviation(x, axes) * _restore(ct * scale / out, x.shape, axes, keepdims),)


reduce_var.jvp, reduce_var.vjp, reduce_var.batch = _var_jvp, _var_vjp, batch_axes(reduce_var)
reduce_std.jvp, reduce_std.vjp, reduce_std.batch = _std_jvp, _std_vjp, batch_axes(reduce_std)


# cumulative_sum is linear; its adjoint is the running sum taken from the other end.


def _cumsum_vjp(ct, x, *, out, axis, dtype, include_initial):
    if include_initial:
        ct = _slice(ct, axis, 1, ct.shape[axis])
    reverse = cumulative_sum.bind(_flip(ct, axis), axis=axis, dtype=ct.dtype, include_initial=False)
    return (_flip(reverse, axis),)


cumulative_sum.jvp = _linear_jvp(cumulative_sum)
cumulative_sum.vjp = _cumsum_vjp
cumulative_sum.batch = batch_axes(cumulative_sum, "axis")


# cumulative_prod: with y_i = x_0 ... x_i and e_i = y_{i-1} (e_0 = 1), the tangent obeys
# dy_i = x_i dy_{i-1} + e_i dx_i, and the cotangent of x_k is e_k * r_k with r_k = ct_k + x_{k+1} r_{k+1}.
# Both are linear recurrences, solved by a log-depth scan of products: no division, so zeros are exact.


def _linear_recurrence(a, b, axis: int):
    """h along `axis` with h_i = a_i * h_{i-1} + b_i and h_{-1} = 0 (Hillis-Steele scan of affine maps)."""
    from stridex._api.manipulation_functions import concat

    n = a.shape[axis]
    step = 1
    while step < n:
        a_tail = _slice(a, axis, step, n)
        b = concat([_slice(b, axis, 0, step), a_tail * _slice(b, axis, 0, n - step) + _slice(b, axis, step, n)],
                   axis=axis)
        if 2 * step < n:
            a = concat([_slice(a, axis, 0, step), a_tail * _slice(a, axis, 0, n - step)], axis=axis)
        step *= 2
    return b


def _cumprod_jvp(primals, tangents, *, axis, dtype, include_initial):
    from stridex._api.manipulation_functions import concat

    (x,), (t,) = primals, tangents
    n = x.shape[axis]
    x = _cast(x, dtype)
    running = cumulative_prod.bind(x, axis=axis, dtype=dtype, include_initial=True)
    out = running if include_initial else _slice(running, axis, 1, n + 1)
    tangent = _linear_recurrence(x, _slice(running, axis, 0, n) * _cast(t, dtype), axis)
    if include_initial:
        tangent = concat([_filled(tangent, axis, 1, 0), tangent], axis=axis)
    return out, tangent


def _cumprod_vjp(ct, x, *, out, axis, dtype, include_initial):
    from stridex._api.manipulation_functions import concat

    n = x.shape[axis]
    if include_initial:
        ct = _slice(ct, axis, 1, n + 1)
    if not n:
        return (ct,)
    if include_initial:
        exclusive = _slice(out, axis, 0, n)
    else:
        exclusive = concat([_filled(out, axis, 1, 1), _slice(out, axis, 0, n - 1)], axis=axis)
    backwards = _flip(_cast(x, dtype), axis)  # r runs from the end: in flipped order r'_i = x'_{i-1} r'_{i-1} + ct'_i
    multipliers = concat([_filled(backwards, axis, 1, 1), _slice(backwards, axis, 0, n - 1)], axis=axis)
    r = _flip(_linear_recurrence(multipliers, _flip(ct, axis), axis), axis)
    return (exclusive * r,)


cumulative_prod.jvp = _cumprod_jvp
cumulative_prod.vjp = _cumprod_vjp
cumulative_prod.batch = batch_axes(cumulative_prod, "axis")


# diff is linear in its joined input: one difference's adjoint is minus a difference of the cotangent
# padded with a zero at both ends, so n of them are (-1)^n times the n-th difference of the cotangent
# padded with n zeros at both ends; the result is split back into the joined pieces.


def _diff_jvp(primals, tangents, *, axis, n):
    from stridex._transforms.autodiff import value_aval, zeros_like_aval

    tangents = [t if t is not None else zeros_like_aval(value_aval(p)) for p, t in zip(primals, tangents)]
    return diff.bind(*primals, axis=axis, n=n), diff.bind(*tangents, axis=axis, n=n)


def _diff_vjp(ct, *parts, out, axis, n):
    from stridex._api.creation_functions import zeros

    if ct.shape[axis] == 0:  # nothing came out: no gradient flows
        return tuple(zeros(p.shape, dtype=ct.dtype) for p in parts)
    if n:
        pad = _filled(ct, axis, n, 0)
        ct = diff.bind(pad, ct, pad, axis=axis, n=n)
        ct = -ct if n % 2 else ct
    pieces, start = [], 0
    for p in parts:
        length = p.shape[axis]
        pieces.append(_slice(ct, axis, start, start + length))
        start += length
    return tuple(pieces)


def _diff_batch(values, dims, *, axis_size, axis, n):
    from stridex._transforms.batching import move_to_front

    parts = [move_to_front(v, d, axis_size) for v, d in zip(values, dims)]
    return diff.bind(*parts, axis=axis + 1, n=n), 0


diff.jvp, diff.vjp, diff.batch = _diff_jvp, _diff_vjp, _diff_batch
