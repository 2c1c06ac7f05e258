"""Reduction primitives: sum, prod, max, min, mean, var, std; cumulative sums and products.

Every reduction takes the normalised `axes` (a tuple) and `keepdims`; sum, prod and the cumulative
ones also take the output `dtype` (the namespace resolves the spec's default accumulation dtype).
Reductions over all axes return 0-D arrays (NumPy returns scalars there, so the rules wrap them).

Gradient conventions: max and min send the gradient to the elements equal to the result, shared
equally between ties (`max([1, 3, 3])` gives `[0, 1/2, 1/2]`; a NaN result shares it between the slice's
NaNs). The gradients of prod and cumulative_prod are exact at zeros (products of the other elements, no
division). var and std follow `correction` (M - correction in the denominator); std's gradient is
infinite or NaN where std is 0, and both are NaN where M - correction <= 0, like their values.

The half types (float16, bfloat16) are summed, multiplied and averaged in float32 and rounded once at the
end, eagerly and lowered alike (`stridex._lax.half`), as `jax.numpy` does: accumulating in the half type
would lose most digits over a few thousand elements.

Transformation rules compute with internal operations (`stridex._lax.ops`) and these primitives, so they
are traced, differentiated again and batched like any user code.
"""

from __future__ import annotations

import math

import numpy as np

from stridex._core import dtypes as _dtypes
from stridex._core.avals import ShapedArray
from stridex._core.storage import ALIGNED_OUTPUT_ELEMENTS, aligned_result, output_buffer
from stridex._lax import ops
from stridex._lax.half import BFLOAT16_KIND, FLOAT16_NP, FLOAT32_NP, in_float32, lower_in_float32
from stridex._exec.jax_bridge import as_dtype, ieee_divide, lax
from stridex._lax.primitive import Primitive
from stridex._lax.rule_shapes import batch_unary_axes, linear_jvp


def reduced_shape(shape: tuple, axes: tuple, keepdims: bool) -> tuple:
    if keepdims:
        return tuple(1 if i in axes else n for i, n in enumerate(shape))
    return tuple(n for i, n in enumerate(shape) if i not in axes)


def reduce_with(ufunc, x, axes, keepdims, np_dtype):
    """`ufunc.reduce` over `axes` as a fresh ndarray (0-D for a full reduction); large outputs aligned.

    A half-precision result is accumulated in float32 and rounded once (see `stridex._lax.half`).
    """
    target = x.dtype if np_dtype is None else np_dtype
    if target is FLOAT16_NP or (isinstance(target, np.dtype) and target.kind == BFLOAT16_KIND):
        return aligned_result(reduce_with(ufunc, x, axes, keepdims, FLOAT32_NP), target)
    if x.size >= ALIGNED_OUTPUT_ELEMENTS and len(axes) < x.ndim:  # else the output is small (or 0-D)
        out = output_buffer(reduced_shape(x.shape, axes, keepdims), np_dtype if np_dtype is not None else x.dtype)
        ufunc.reduce(x, axes, np_dtype, out, keepdims)
        return out
    out = ufunc.reduce(x, axes, np_dtype, None, keepdims)
    return out if type(out) is np.ndarray else np.asarray(out)


def keep_reduced(y, axes, keepdims):
    """Lowering helper: re-insert the reduced axes of a lax reduction as size-1 axes when `keepdims`."""
    return lax().expand_dims(y, sorted(axes)) if keepdims and axes else y


def truth(x):
    """Lowering helper: a JAX bool array, True where `x` is non-zero (NaN counts as non-zero)."""
    if x.dtype == np.bool_:
        return x
    return lax().ne(x, lax().full_like(x, 0))


def _count(shape, axes) -> int:
    n = 1
    for a in axes:
        n *= shape[a]
    return n


def slice_along(x, axis: int, start: int, stop: int):
    """`x[start:stop]` along `axis` (a view)."""
    return ops.index(x, tuple(("slice", start, stop, 1) if i == axis else ("slice", 0, n, 1)
                              for i, n in enumerate(x.shape)))


def filled_along(like, axis: int, length: int, value):
    """A constant shaped like `like` except `length` along `axis`."""
    return ops.full(like.shape[:axis] + (length,) + like.shape[axis + 1:], value, like.dtype)


def _restore(ct, shape: tuple, axes: tuple, keepdims: bool):
    """A reduction's cotangent broadcast back over the reduced axes to the operand's `shape`."""
    if not keepdims and axes:
        ct = ops.reshape(ct, reduced_shape(shape, axes, True))
    return ops.broadcast_to(ct, shape)


# --- reduce_sum: the sum over `axes`, accumulated in the `dtype` param ------------------------------------


def _accumulating_abstract(x, *, axes, keepdims, dtype):
    return ShapedArray(reduced_shape(x.shape, axes, keepdims), dtype)


def _lower_accumulating(name):
    def lower(ctx, x, *, axes, keepdims, dtype):
        return keep_reduced(getattr(lax(), name)(as_dtype(x, dtype), axes), axes, keepdims)

    return lower


# sum is linear; its adjoint spreads the cotangent over the reduced axes.
reduce_sum = Primitive(
    "reduce_sum",
    impl=lambda x, *, axes, keepdims, dtype: reduce_with(np.add, x, axes, keepdims, dtype.np),
    abstract_eval=_accumulating_abstract,
    lower=lower_in_float32(_lower_accumulating("reduce_sum")),
    jvp=linear_jvp,
    vjp=lambda ct, x, *, out, axes, keepdims, dtype: (_restore(ct, x.shape, axes, keepdims),),
    batch=batch_unary_axes(),
)


# --- reduce_prod: the product over `axes`, accumulated in the `dtype` param ---------------------------------
# The derivative by x_i is the product of every other element, built from exclusive running products from
# the left and from the right, so zeros need no special case (no division).
# jvp/vjp hand-written: a decomposition through the product's own rules would divide by x (wrong at zeros).


def _product_of_others(x, axes: tuple):
    """For each element of `x`, the product of the other elements of its reduced slice."""
    kept = tuple(i for i in range(x.ndim) if i not in axes)
    order = kept + axes
    kept_shape = tuple(x.shape[i] for i in kept)
    size, last = _count(x.shape, axes), len(kept)
    rows = ops.reshape(ops.permute(x, order), kept_shape + (size,))

    def exclusive_products(v):
        return slice_along(cumulative_prod.bind(v, axis=last, dtype=x.dtype, include_initial=True), last, 0, size)

    others = exclusive_products(rows) * ops.flip(exclusive_products(ops.flip(rows, last)), last)
    others = ops.reshape(others, kept_shape + tuple(x.shape[a] for a in axes))
    return ops.permute(others, tuple(order.index(i) for i in range(x.ndim)))


def _prod_jvp(primals, tangents, *, axes, keepdims, dtype):
    (x,), (t,) = primals, tangents
    out = reduce_prod.bind(x, axes=axes, keepdims=keepdims, dtype=dtype)
    return out, reduce_sum.bind(t * _product_of_others(x, axes), axes=axes, keepdims=keepdims, dtype=dtype)


def _prod_vjp(ct, x, *, out, axes, keepdims, dtype):
    return (_restore(ct, x.shape, axes, keepdims) * _product_of_others(x, axes),)


reduce_prod = Primitive(
    "reduce_prod",
    impl=lambda x, *, axes, keepdims, dtype: reduce_with(np.multiply, x, axes, keepdims, dtype.np),
    abstract_eval=_accumulating_abstract,
    lower=lower_in_float32(_lower_accumulating("reduce_prod")),
    jvp=_prod_jvp,
    vjp=_prod_vjp,
    batch=batch_unary_axes(),
)


# --- reduce_max, reduce_min: the extremum over `axes`, in the operand's dtype ------------------------------
# The gradient goes to the elements equal to the result, shared equally between ties (a NaN result: shared
# between the NaNs of the slice).


def _same_dtype_abstract(x, *, axes, keepdims):
    return ShapedArray(reduced_shape(x.shape, axes, keepdims), x.dtype)


def _extremum_weights(x, out, axes: tuple, keepdims: bool):
    if not keepdims and axes:
        out = ops.reshape(out, reduced_shape(x.shape, axes, True))
    chosen = ops.astype(ops.logical_or(ops.equal(x, out), ops.isnan(x)), x.dtype)
    return chosen / reduce_sum.bind(chosen, axes=axes, keepdims=True, dtype=x.dtype)


# Lowering floating max and min. XLA's CPU backend hands a plain `reduce_max`/`reduce_min` of 4096 elements or
# more to a library kernel (YNNPACK) that skips NaN: `jax.jit(jnp.max)` of 4096 floats with one NaN gives the
# largest number, or -inf, by where the NaN sits. The spec wants NaN to propagate, as NumPy (eager) does. So
# floating extrema are lowered as folds: slices of the reduced axes combined elementwise by `_nan_first`, a
# select that picks NaN (a compare, an isnan and a blend per element: cheaper than XLA's `maximum`, whose
# llvm.maximum also orders -0.0 below +0.0, which the spec leaves open for max and min). No `reduce` is left:
# XLA's loop for a reduce with a select as its combiner runs one element at a time (about 2 ns each).
#  1. While the reduced axes hold TREE_MAX elements or more per result, one of them (`fold_axis`) is cut into
#     FOLD_WAYS slabs combined in one vectorised, threaded pass that leaves about 1/FOLD_WAYS of the data
#     (`_fold`).
#     The slabs are evenly spaced and overlap a little where the length does not divide (max and min do not
#     mind an element seen twice), so no remainder needs a pass of its own; and where they would start a whole
#     number of pages apart, they start an odd number of cache lines apart instead: slabs a power of two
#     apart in memory fall into the same cache sets (2^22 and 2^23 float32 took 1.5-2x longer so;
#     `python -m benchmarks.ab_choices fold`).
#  2. The fewer than TREE_MAX elements left per result are combined by one balanced tree over all of them.
# A pass reads the one before it through FOLD_WAYS slices, and XLA does not fuse a producer it would have to
# emit more than 15 times, so each pass keeps one stream per slab (only a final tree of 15 leaves or fewer may
# be fused into the last pass, a small one). Integers and booleans keep the plain reductions (no NaN). The
# cost: benchmarks/JIT_RESULTS.md and docs/semantics.md.
FOLD_WAYS = 16
TREE_MAX = 4 * FOLD_WAYS
CACHE_LINE, PAGE = 64, 4096  # bytes


def _nan_first(better):
    """The combiner of a NaN-propagating reduction: `a` if it is NaN or `better(a, b)`, else `b`."""

    def combine(a, b):
        lax_ = lax()
        return lax_.select(lax_.bitwise_or(lax_.ne(a, a), better(a, b)), a, b)

    return combine


def fold_spacing(length: int, unit: int) -> int:
    """How far apart the FOLD_WAYS slabs folding an axis of `length` >= 2 * FOLD_WAYS elements start, an
    element of that axis spanning `unit` bytes: length // FOLD_WAYS, made smaller where that would be a whole
    number of pages, so that the starts are an odd number of cache lines apart."""
    spacing = length // FOLD_WAYS
    if (spacing * unit) % PAGE:
        return spacing
    if CACHE_LINE % unit == 0:  # (a small unit: an odd number of lines' worth of elements)
        per_line = CACHE_LINE // unit
        lines = spacing // per_line
        return (lines - (lines % 2 == 0)) * per_line
    if (unit // CACHE_LINE) % 2 == 1:  # (a unit of an odd number of lines: an odd spacing)
        return spacing - (spacing % 2 == 0)
    return spacing  # (a unit of an even number of lines: every spacing is an even number of lines)


def _tree(slabs: list, combine):
    while len(slabs) > 1:
        slabs = [combine(slabs[i], slabs[i + 1]) if i + 1 < len(slabs) else slabs[i]
                 for i in range(0, len(slabs), 2)]
    return slabs[0]


def _fold(x, axis: int, combine):
    """JAX array `x` with `axis` (2 * FOLD_WAYS elements or more) folded into FOLD_WAYS slabs (see above)."""
    lax_ = lax()
    length = x.shape[axis]
    spacing = fold_spacing(length, x.dtype.itemsize * math.prod(x.shape[axis + 1:]))
    size = length - (FOLD_WAYS - 1) * spacing  # (>= spacing: the slabs cover the axis)
    return _tree([lax_.slice_in_dim(x, i * spacing, i * spacing + size, axis=axis) for i in range(FOLD_WAYS)],
                 combine)


def lower_nan_extremum(x, axes: tuple, is_max: bool):
    """The max (or min) of JAX array `x` over `axes` (no keepdims), NaN if the slice holds one, on every XLA
    backend and at every size (see above)."""
    lax_ = lax()
    if not axes:
        return x
    x, axes = merged_axes(x, axes)
    combine = _nan_first(lax_.gt if is_max else lax_.lt)
    while math.prod(x.shape[a] for a in axes) >= TREE_MAX:
        axis = fold_axis(x.shape, axes)
        if x.shape[axis] >= 2 * FOLD_WAYS:
            x = _fold(x, axis, combine)
        else:  # (several short axes: the longest combined whole)
            x = _tree([lax_.slice_in_dim(x, i, i + 1, axis=axis) for i in range(x.shape[axis])], combine)
    return _tree([_element(x, axes, index) for index in np.ndindex(*(x.shape[a] for a in axes))], combine)


def fold_axis(shape: tuple, axes: tuple) -> int:
    """Which of `axes` to fold next: the outermost of those with 2 * FOLD_WAYS elements or more (its slabs are
    the longest runs of memory), else the longest."""
    foldable = [a for a in axes if shape[a] >= 2 * FOLD_WAYS]
    return foldable[0] if foldable else max(axes, key=lambda a: shape[a])


def _element(x, axes: tuple, index: tuple):
    """The slice of JAX array `x` at position `index` along `axes`, those axes dropped."""
    lax_ = lax()
    at = dict(zip(axes, index))
    piece = lax_.slice(x, [at.get(a, 0) for a in range(x.ndim)],
                       [at[a] + 1 if a in at else d for a, d in enumerate(x.shape)])
    return lax_.reshape(piece, tuple(d for a, d in enumerate(x.shape) if a not in at))


def merged_axes(x, axes: tuple):
    """JAX array `x` reshaped (free) so that each run of adjacent reduced `axes` is one axis, and the new axes."""
    lax_ = lax()
    reduced = set(axes)
    shape: list[int] = []
    new_axes: list[int] = []
    for a, d in enumerate(x.shape):
        if a in reduced and a - 1 in reduced:
            shape[-1] *= d
        else:
            if a in reduced:
                new_axes.append(len(shape))
            shape.append(d)
    return (x if len(shape) == x.ndim else lax_.reshape(x, tuple(shape))), tuple(new_axes)


def _extremum(name, ufunc, bool_name):
    """The record of max or min; `bool_name` is the lax reduction lowering it for booleans, which lax cannot
    take a max or min of (max is "reduce_or", min "reduce_and")."""

    def lower(ctx, x, *, axes, keepdims):
        if x.dtype.kind == "f" or x.dtype.name == "bfloat16":
            return keep_reduced(lower_nan_extremum(x, axes, name == "reduce_max"), axes, keepdims)
        reducer = getattr(lax(), bool_name if x.dtype == np.bool_ else name)
        return keep_reduced(reducer(x, axes), axes, keepdims)

    def jvp(primals, tangents, *, axes, keepdims):
        (x,), (t,) = primals, tangents
        out = prim.bind(x, axes=axes, keepdims=keepdims)
        weights = _extremum_weights(x, out, axes, keepdims)
        return out, reduce_sum.bind(t * weights, axes=axes, keepdims=keepdims, dtype=x.dtype)

    def vjp(ct, x, *, out, axes, keepdims):
        return (_restore(ct, x.shape, axes, keepdims) * _extremum_weights(x, out, axes, keepdims),)

    prim = Primitive(
        name,
        impl=lambda x, *, axes, keepdims: reduce_with(ufunc, x, axes, keepdims, None),
        abstract_eval=_same_dtype_abstract,
        lower=lower,
        jvp=jvp,
        vjp=vjp,
        batch=batch_unary_axes(),
    )
    return prim


reduce_max = _extremum("reduce_max", np.maximum, "reduce_or")
reduce_min = _extremum("reduce_min", np.minimum, "reduce_and")


# --- reduce_mean: the arithmetic mean over `axes` (floating result) --------------------------------------
# Rules hand-written: mean is linear (its own JVP) with one broadcast of ct / M as adjoint; deriving them
# from sum / M would bind a divide per derivative and need the spec's per-component complex division again.


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
        total = ieee_divide(total, lax_.full((), n, dtype.np))
    return keep_reduced(total, axes, keepdims)


reduce_mean = Primitive(
    "reduce_mean",
    impl=in_float32(_mean_impl, _float_abstract),
    abstract_eval=_float_abstract,
    lower=lower_in_float32(_lower_mean),
    jvp=linear_jvp,
    vjp=lambda ct, x, *, out, axes, keepdims: (_restore(ct, x.shape, axes, keepdims) / _count(x.shape, axes),),
    batch=batch_unary_axes(),
)


# --- reduce_var, reduce_std: variance and standard deviation over `axes`, with `correction` -----------------
# d var = 2/(M - correction) * sum((x - mean) dx) (the mean's own derivative cancels, since the deviations
# sum to zero); d std = d var / (2 std). NaN when M - correction <= 0, as the value.
# jvp/vjp hand-written: one pass over x - mean; a decomposition (mean, subtract, square, sum, sqrt) would
# differentiate the mean's term that cancels and lose the NaN convention for M - correction <= 0.


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
    mean = ieee_divide(lax_.reduce_sum(x, axes), lax_.full((), n, dtype))
    kept = [i for i in range(x.ndim) if i not in axes]
    deviation = lax_.sub(x, lax_.broadcast_in_dim(mean, x.shape, kept))
    squares = lax_.reduce_sum(lax_.mul(deviation, deviation), axes)
    return keep_reduced(ieee_divide(squares, lax_.full((), n - correction, dtype)), axes, keepdims)


def _lower_std(ctx, x, *, axes, keepdims, correction):
    return lax().sqrt(_lower_var(ctx, x, axes=axes, keepdims=keepdims, correction=correction))


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


reduce_var = Primitive(
    "reduce_var",
    impl=in_float32(_var_impl, _float_abstract),
    abstract_eval=_float_abstract,
    lower=lower_in_float32(_lower_var),
    jvp=_var_jvp,
    vjp=_var_vjp,
    batch=batch_unary_axes(),
)

reduce_std = Primitive(
    "reduce_std",
    impl=in_float32(_std_impl, _float_abstract),
    abstract_eval=_float_abstract,
    lower=lower_in_float32(_lower_std),
    jvp=_std_jvp,
    vjp=_std_vjp,
    batch=batch_unary_axes(),
)


# --- cumulative_sum, cumulative_prod: running sums and products along `axis`, in the `dtype` param ----------
# `include_initial` prepends the identity (0 or 1) along `axis`.


def _cumulative_shape(shape, axis, include_initial):
    if not include_initial:
        return shape
    return shape[:axis] + (shape[axis] + 1,) + shape[axis + 1:]


def _cumulative_impl(ufunc, identity):
    def impl(x, *, axis, dtype, include_initial):
        out = output_buffer(_cumulative_shape(x.shape, axis, include_initial), dtype.np)
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


# cumulative_sum is linear; its adjoint is the running sum taken from the other end.
# jvp from linearity; vjp hand-written: one reversed running sum (a decomposition such as a product with a
# triangular matrix of ones would be quadratic in the axis length).


def _cumsum_vjp(ct, x, *, out, axis, dtype, include_initial):
    if include_initial:
        ct = slice_along(ct, axis, 1, ct.shape[axis])
    reverse = cumulative_sum.bind(ops.flip(ct, axis), axis=axis, dtype=ct.dtype, include_initial=False)
    return (ops.flip(reverse, axis),)


cumulative_sum = Primitive(
    "cumulative_sum",
    impl=in_float32(_cumulative_impl(np.add, 0), _cumulative_abstract),
    abstract_eval=_cumulative_abstract,
    lower=lower_in_float32(_lower_cumulative("cumsum", 0)),
    jvp=linear_jvp,
    vjp=_cumsum_vjp,
    batch=batch_unary_axes("axis"),
)


# With y_i = x_0 ... x_i and e_i = y_{i-1} (e_0 = 1), the tangent obeys dy_i = x_i dy_{i-1} + e_i dx_i, and
# the cotangent of x_k is e_k * r_k with r_k = ct_k + x_{k+1} r_{k+1}. Both are linear recurrences, solved by
# a log-depth scan of products.
# jvp/vjp hand-written: no division, so zeros are exact (deriving from y / x would not be).


def _linear_recurrence(a, b, axis: int):
    """h along `axis` with h_i = a_i * h_{i-1} + b_i and h_{-1} = 0 (Hillis-Steele scan of affine maps)."""
    n = a.shape[axis]
    step = 1
    while step < n:
        a_tail = slice_along(a, axis, step, n)
        b = ops.concat([slice_along(b, axis, 0, step), a_tail * slice_along(b, axis, 0, n - step) + slice_along(b, axis, step, n)],
                       axis)
        if 2 * step < n:
            a = ops.concat([slice_along(a, axis, 0, step), a_tail * slice_along(a, axis, 0, n - step)], axis)
        step *= 2
    return b


def _cumprod_jvp(primals, tangents, *, axis, dtype, include_initial):
    (x,), (t,) = primals, tangents
    n = x.shape[axis]
    x = ops.astype(x, dtype)
    running = cumulative_prod.bind(x, axis=axis, dtype=dtype, include_initial=True)
    out = running if include_initial else slice_along(running, axis, 1, n + 1)
    tangent = _linear_recurrence(x, slice_along(running, axis, 0, n) * ops.astype(t, dtype), axis)
    if include_initial:
        tangent = ops.concat([filled_along(tangent, axis, 1, 0), tangent], axis)
    return out, tangent


def _cumprod_vjp(ct, x, *, out, axis, dtype, include_initial):
    n = x.shape[axis]
    if include_initial:
        ct = slice_along(ct, axis, 1, n + 1)
    if not n:
        return (ct,)
    if include_initial:
        exclusive = slice_along(out, axis, 0, n)
    else:
        exclusive = ops.concat([filled_along(out, axis, 1, 1), slice_along(out, axis, 0, n - 1)], axis)
    backwards = ops.flip(ops.astype(x, dtype), axis)  # r from the end: flipped, r'_i = x'_{i-1} r'_{i-1} + ct'_i
    multipliers = ops.concat([filled_along(backwards, axis, 1, 1), slice_along(backwards, axis, 0, n - 1)], axis)
    r = ops.flip(_linear_recurrence(multipliers, ops.flip(ct, axis), axis), axis)
    return (exclusive * r,)


cumulative_prod = Primitive(
    "cumulative_prod",
    impl=in_float32(_cumulative_impl(np.multiply, 1), _cumulative_abstract),
    abstract_eval=_cumulative_abstract,
    lower=lower_in_float32(_lower_cumulative("cumprod", 1)),
    jvp=_cumprod_jvp,
    vjp=_cumprod_vjp,
    batch=batch_unary_axes("axis"),
)
