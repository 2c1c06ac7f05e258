"""Reductions with jax.numpy's signatures: sums, products, extrema, means and variances (with `where=`,
`initial=`, positional `axis`), their NaN-ignoring versions, cumulative sums and products, `average` and `ptp`.

Dtypes are jax.numpy's: sums and products of small integers accumulate in 64 bits; means and variances compute
integers in float32/float64 (`to_inexact`); `cumsum` keeps an integer dtype (booleans count in int64)."""

from __future__ import annotations

import builtins
import math
from typing import Any

from stridex._api import creation_functions as _cr
from stridex._api import data_type_functions as _dt
from stridex._api import elementwise_functions as _ew
from stridex._api import manipulation_functions as _manip
from stridex._api import searching_functions as _search
from stridex._api import statistical_functions as _stat
from stridex._api import transcendental_functions as _tr
from stridex._api import utility_functions as _util
from stridex._core import dtypes as _d
from stridex._core.array import Array
from stridex._core.dtypes import DType
from stridex.numpy import _args
from stridex.numpy import _dtypes as _jd

__all__ = [
    "all", "amax", "amin", "any", "argmax", "argmin", "average", "count_nonzero", "cumprod", "cumsum",
    "cumulative_prod", "cumulative_sum", "max", "mean", "min", "nanargmax", "nanargmin", "nancumprod", "nancumsum",
    "nanmax", "nanmean", "nanmin", "nanprod", "nanstd", "nansum", "nanvar", "prod", "ptp", "std", "sum", "var",
]


def _axes(a: Array, axis, fname: str) -> tuple[int, ...]:
    return _args.axes(axis, a.ndim, fname)


_ORDERED = frozenset({"signed", "unsigned", "real floating"})


def _plain_axis(axis, ndim: int) -> builtins.bool:
    """None, or an int axis in range: what the standard's reductions take as jax.numpy would (a tuple or a bad
    axis goes through `_args.axes`, which checks it and says what is wrong)."""
    return axis is None or (type(axis) is int and -ndim <= axis < ndim)


def _masked(a: Array, where, fill, fname: str) -> Array:
    """`a` with the elements outside the `where` mask replaced by `fill` (the reduction's identity)."""
    if where is None:
        return a
    mask = _args.array(where, fname)
    if mask._dtype is not _d.bool:
        mask = _ew.not_equal(mask, 0)
    return _search.where(mask, a, _args.cast(fill, a._dtype) if not isinstance(fill, Array) else fill)


def _count(a: Array, axes: tuple, keepdims: builtins.bool, where, fname: str, dtype: DType) -> Array:
    """How many elements each reduction sees (all of them, or those in the `where` mask)."""
    if where is None:
        return _cr.asarray(float(math.prod(a.shape[ax] for ax in axes)), dtype=_d.real_of(dtype))
    mask = _manip.broadcast_to(_args.array(where, fname), a.shape)
    return _stat.sum(_args.cast(mask, _d.real_of(dtype)), axis=axes, keepdims=keepdims)


def _sum_like(fname: str, reduce, identity: int, a, axis, dtype, out, keepdims, initial, where, promote_integers):
    if type(a) is Array and where is None and initial is None and dtype is None and out is None and promote_integers \
            and _plain_axis(axis, a.ndim):  # (the common call, straight to the standard's function)
        return reduce(a, axis=axis, keepdims=bool(keepdims))
    _args.no_out(out, fname)
    a = _args.array(a, fname)
    dtype = _jd.canonical_or_none(dtype, fname)
    if dtype is None and not promote_integers and a._dtype.kind in ("signed", "unsigned"):
        dtype = a._dtype
    axes = None if axis is None else _axes(a, axis, fname)
    a = _masked(a, where, identity, fname)
    out = reduce(a, axis=axes, dtype=dtype, keepdims=builtins.bool(keepdims))
    if initial is not None:
        out = (_ew.add if identity == 0 else _ew.multiply)(out, _args.cast(_args.operand(initial, fname), out._dtype))
    return out


def sum(a: Any, axis: Any = None, dtype: Any = None, out: None = None, keepdims: builtins.bool = False,  # noqa: A001
        initial: Any = None, where: Any = None, promote_integers: builtins.bool = True) -> Array:
    """The sum over `axis` (an int, a tuple, or None for all), of the elements in the `where` mask, plus
    `initial`. Integers and booleans accumulate in 64 bits unless `promote_integers=False`.

    >>> import stridex.numpy as jnp
    >>> x = jnp.asarray([[1, 2], [3, 4]])
    >>> jnp.sum(x), jnp.sum(x, 0), jnp.sum(x, where=x > 1, initial=10)
    (Array(10), Array([4, 6]), Array(19))
    """
    return _sum_like("sum", _stat.sum, 0, a, axis, dtype, out, keepdims, initial, where, promote_integers)


def prod(a: Any, axis: Any = None, dtype: Any = None, out: None = None, keepdims: builtins.bool = False,
         initial: Any = None, where: Any = None, promote_integers: builtins.bool = True) -> Array:
    """The product over `axis`, of the elements in the `where` mask, times `initial`.

    >>> import stridex.numpy as jnp
    >>> jnp.prod(jnp.asarray([[1, 2], [3, 4]]), axis=1)
    Array([ 2, 12])
    """
    return _sum_like("prod", _stat.prod, 1, a, axis, dtype, out, keepdims, initial, where, promote_integers)


def _extremum(fname: str, largest: builtins.bool, a, axis, out, keepdims, initial, where) -> Array:
    if type(a) is Array and initial is None and where is None and out is None and a._dtype.kind in _ORDERED:
        if a.size and _plain_axis(axis, a.ndim):  # (an empty array's error, and a bad axis's, are below)
            return (_stat.max if largest else _stat.min)(a, axis=axis, keepdims=bool(keepdims))
    _args.no_out(out, fname)
    a = _args.array(a, fname)
    axes = _axes(a, axis, fname)
    if where is not None and initial is None:
        raise ValueError(f"reduction operation {fname!r} does not have an identity, so to use a where mask one "
                         "has to specify 'initial'")
    if initial is None and builtins.any(a.shape[ax] == 0 for ax in axes):
        raise ValueError(f"zero-size array to reduction operation {fname} which has no identity (shape {a.shape}); "
                         "give initial=")
    if a._dtype.kind == "complex floating":
        raise TypeError(f"{fname} of complex values is not supported by stridex.numpy, got {a._dtype.name}")
    if a._dtype is _d.bool:
        reduce, combine = (_util.any, _ew.logical_or) if largest else (_util.all, _ew.logical_and)
    else:
        reduce, combine = (_stat.max, _ew.maximum) if largest else (_stat.min, _ew.minimum)
    if initial is not None:
        initial = _args.cast(_args.operand(initial, fname), a._dtype)
        a = _masked(a, where, initial, fname)
        if builtins.any(a.shape[ax] == 0 for ax in axes):
            shape = tuple(1 if i in axes else n for i, n in enumerate(a.shape)) if keepdims else tuple(
                n for i, n in enumerate(a.shape) if i not in axes)
            return _cr.asarray(_manip.broadcast_to(initial, shape), copy=True)
    result = reduce(a, axis=axes, keepdims=builtins.bool(keepdims))
    return result if initial is None else combine(result, initial)


def max(a: Any, axis: Any = None, out: None = None, keepdims: builtins.bool = False, initial: Any = None,  # noqa: A001
        where: Any = None) -> Array:
    """The largest element over `axis` (NaN if any is NaN), of those in the `where` mask and `initial`.

    >>> import stridex.numpy as jnp
    >>> jnp.max(jnp.asarray([[1, 5], [3, 2]]), axis=1), jnp.max(jnp.asarray([1.0, 2.0]), initial=3.0)
    (Array([5, 3]), Array(3.))
    """
    return _extremum("max", True, a, axis, out, keepdims, initial, where)


def min(a: Any, axis: Any = None, out: None = None, keepdims: builtins.bool = False, initial: Any = None,  # noqa: A001
        where: Any = None) -> Array:
    """The smallest element over `axis` (NaN if any is NaN), of those in the `where` mask and `initial`.

    >>> import stridex.numpy as jnp
    >>> jnp.min(jnp.asarray([[1, 5], [3, 2]]), axis=0)
    Array([1, 2])
    """
    return _extremum("min", False, a, axis, out, keepdims, initial, where)


def amax(a: Any, axis: Any = None, out: None = None, keepdims: builtins.bool = False, initial: Any = None,
         where: Any = None) -> Array:
    """The largest element over `axis`: NumPy's other name for `max`.

    >>> import stridex.numpy as jnp
    >>> jnp.amax(jnp.asarray([1, 7, 3]))
    Array(7)
    """
    return _extremum("amax", True, a, axis, out, keepdims, initial, where)


def amin(a: Any, axis: Any = None, out: None = None, keepdims: builtins.bool = False, initial: Any = None,
         where: Any = None) -> Array:
    """The smallest element over `axis`: NumPy's other name for `min`.

    >>> import stridex.numpy as jnp
    >>> jnp.amin(jnp.asarray([4, 7, 3]))
    Array(3)
    """
    return _extremum("amin", False, a, axis, out, keepdims, initial, where)


def ptp(a: Any, axis: Any = None, out: None = None, keepdims: builtins.bool = False) -> Array:
    """The range (max - min) over `axis`.

    >>> import stridex.numpy as jnp
    >>> jnp.ptp(jnp.asarray([[4, 9], [1, 2]]), axis=1)
    Array([5, 1])
    """
    a = _args.array(a, "ptp")
    if a._dtype is _d.bool:
        raise TypeError("ptp does not support boolean inputs")
    return _ew.subtract(max(a, axis, out, keepdims), min(a, axis, out, keepdims))


def _truth(a: Array) -> Array:
    return a if a._dtype is _d.bool else _ew.not_equal(a, 0)


def all(a: Any, axis: Any = None, out: None = None, keepdims: builtins.bool = False, *,  # noqa: A001
        where: Any = None) -> Array:
    """Whether every element over `axis` (of those in the `where` mask) is true (nonzero).

    >>> import stridex.numpy as jnp
    >>> jnp.all(jnp.asarray([[1, 0], [2, 3]]), axis=1)
    Array([False,  True])
    """
    _args.no_out(out, "all")
    a = _truth(_args.array(a, "all"))
    return _util.all(_masked(a, where, True, "all"), axis=_axes(a, axis, "all"), keepdims=builtins.bool(keepdims))


def any(a: Any, axis: Any = None, out: None = None, keepdims: builtins.bool = False, *,  # noqa: A001
        where: Any = None) -> Array:
    """Whether any element over `axis` (of those in the `where` mask) is true (nonzero).

    >>> import stridex.numpy as jnp
    >>> jnp.any(jnp.asarray([[1, 0], [0, 0]]), axis=1)
    Array([ True, False])
    """
    _args.no_out(out, "any")
    a = _truth(_args.array(a, "any"))
    return _util.any(_masked(a, where, False, "any"), axis=_axes(a, axis, "any"), keepdims=builtins.bool(keepdims))


def _argextremum(fname: str, fn, a, axis, out, keepdims) -> Array:
    _args.no_out(out, fname)
    a = _args.array(a, fname)
    if a._dtype is _d.bool:
        a = _dt.astype(a, _d.int8)
    if axis is None:
        out = fn(_manip.reshape(a, (-1,)), axis=0)
        return _manip.reshape(out, (1,) * a.ndim) if keepdims else out
    return fn(a, axis=_args.axis(axis, a.ndim, fname), keepdims=builtins.bool(keepdims))


def argmax(a: Any, axis: int | None = None, out: None = None, keepdims: builtins.bool | None = None) -> Array:
    """The index of the largest element over `axis` (of the flattened array when None; the first NaN wins).

    >>> import stridex.numpy as jnp
    >>> jnp.argmax(jnp.asarray([[1, 5], [7, 2]])), jnp.argmax(jnp.asarray([[1, 5], [7, 2]]), axis=1)
    (Array(2), Array([1, 0]))
    """
    return _argextremum("argmax", _search.argmax, a, axis, out, keepdims)


def argmin(a: Any, axis: int | None = None, out: None = None, keepdims: builtins.bool | None = None) -> Array:
    """The index of the smallest element over `axis` (of the flattened array when None; the first NaN wins).

    >>> import stridex.numpy as jnp
    >>> jnp.argmin(jnp.asarray([3, 1, 2]))
    Array(1)
    """
    return _argextremum("argmin", _search.argmin, a, axis, out, keepdims)


def count_nonzero(a: Any, axis: Any = None, keepdims: builtins.bool = False) -> Array:
    """How many elements over `axis` are nonzero.

    >>> import stridex.numpy as jnp
    >>> jnp.count_nonzero(jnp.asarray([[0, 1], [2, 3]]), axis=0)
    Array([1, 2])
    """
    a = _args.array(a, "count_nonzero")
    return _search.count_nonzero(a, axis=_axes(a, axis, "count_nonzero"), keepdims=builtins.bool(keepdims))


# --- means and variances ----------------------------------------------------------------------------------


def _inexact_input(a, dtype, fname: str) -> tuple[Array, DType]:
    a = _args.array(a, fname)
    dtype = _jd.canonical_or_none(dtype, fname)
    compute = _jd.TO_INEXACT[dtype if dtype is not None else a._dtype]
    return _args.cast(a, compute), dtype or compute


_MEAN_DIRECT = frozenset(d for d in _d.EXTENDED_DTYPES if d.kind in _d.FLOATING_KINDS)


def mean(a: Any, axis: Any = None, dtype: Any = None, out: None = None, keepdims: builtins.bool = False, *,
         where: Any = None) -> Array:
    """The arithmetic mean over `axis` (of the elements in the `where` mask); integers in floating point.

    >>> import stridex.numpy as jnp
    >>> jnp.mean(jnp.asarray([[1, 2], [3, 4]]), axis=0), jnp.mean(jnp.asarray([1.0, 5.0, 100.0]), where=jnp.asarray([True, True, False]))
    (Array([2., 3.]), Array(3.))
    """
    if type(a) is Array and where is None and dtype is None and out is None and a._dtype in _MEAN_DIRECT and \
            _plain_axis(axis, a.ndim):
        return _stat.mean(a, axis=axis, keepdims=bool(keepdims))
    _args.no_out(out, "mean")
    a, dtype = _inexact_input(a, dtype, "mean")
    axes = _axes(a, axis, "mean")
    if where is None:
        result = _stat.mean(a, axis=axes, keepdims=builtins.bool(keepdims))
    else:
        total = _stat.sum(_masked(a, where, 0, "mean"), axis=axes, keepdims=builtins.bool(keepdims))
        result = _ew.divide(total, _count(a, axes, builtins.bool(keepdims), where, "mean", a._dtype))
    return _args.cast(result, dtype)


def _variance(fname: str, a, axis, dtype, out, ddof, keepdims, where, mean_value, correction, root: builtins.bool):
    _args.no_out(out, fname)
    if correction is not None:
        if ddof != 0:
            raise ValueError(f"{fname}: ddof and correction can't be provided simultaneously")
        ddof = correction
    a, out_dtype = _inexact_input(a, dtype, fname)
    axes = _axes(a, axis, fname)
    keep = builtins.bool(keepdims)
    if where is None and mean_value is None and a._dtype.kind == "real floating":
        result = (_stat.std if root else _stat.var)(a, axis=axes, correction=ddof, keepdims=keep)
        return _args.cast(result, _d.real_of(out_dtype))
    # (A given mean has the shape of a reduction with keepdims=True, as jax.numpy asks.)
    mean_value = mean(a, axes, keepdims=True, where=where) if mean_value is None else _args.array(mean_value, fname)
    centered = _ew.subtract(a, mean_value)
    squares = _ew.real(_ew.multiply(centered, _ew.conj(centered))) if a._dtype.kind == "complex floating" else \
        _ew.square(centered)
    total = _stat.sum(_masked(squares, where, 0, fname), axis=axes, keepdims=keep)
    count = _ew.subtract(_count(a, axes, keep, where, fname, a._dtype), ddof)
    result = _search.where(_ew.greater(count, 0), _ew.divide(total, _ew.maximum(count, 0.0)), math.nan)
    if root:
        result = _tr.sqrt(result)
    return _args.cast(result, _d.real_of(out_dtype))


def var(a: Any, axis: Any = None, dtype: Any = None, out: None = None, ddof: int = 0, keepdims: builtins.bool = False,
        *, where: Any = None, mean: Any = None, correction: Any = None) -> Array:
    """The variance over `axis`: the mean squared deviation from the mean, divided by N - ddof (`correction` is
    the standard's name for ddof); a complex input's is real. `mean` may give the mean precomputed.

    >>> import stridex.numpy as jnp
    >>> jnp.var(jnp.asarray([1.0, 2.0, 3.0, 4.0])), jnp.var(jnp.asarray([1.0, 2.0, 3.0, 4.0]), ddof=1)
    (Array(1.25), Array(1.66666667))
    """
    return _variance("var", a, axis, dtype, out, ddof, keepdims, where, mean, correction, False)


def std(a: Any, axis: Any = None, dtype: Any = None, out: None = None, ddof: int = 0, keepdims: builtins.bool = False,
        *, where: Any = None, mean: Any = None, correction: Any = None) -> Array:
    """The standard deviation over `axis`: the square root of `var`.

    >>> import stridex.numpy as jnp
    >>> jnp.std(jnp.asarray([1.0, 3.0]))
    Array(1.)
    """
    return _variance("std", a, axis, dtype, out, ddof, keepdims, where, mean, correction, True)


def average(a: Any, axis: Any = None, weights: Any = None, returned: builtins.bool = False,
            keepdims: builtins.bool = False) -> Any:
    """The weighted mean over `axis` (`weights` of `a`'s shape, or 1-D along a single `axis`); with `returned`,
    also the sum of the weights.

    >>> import stridex.numpy as jnp
    >>> jnp.average(jnp.asarray([1.0, 2.0, 3.0]), weights=jnp.asarray([3.0, 1.0, 0.0]))
    Array(1.25)
    """
    a = _args.array(a, "average")
    axes = _axes(a, axis, "average")
    keep = builtins.bool(keepdims)
    if weights is None:
        avg = mean(a, axes, keepdims=keep)
        if not returned:
            return avg
        count = float(math.prod(a.shape[ax] for ax in axes))
        return avg, _cr.full(avg.shape, count, dtype=avg._dtype)
    w = _args.array(weights, "average", 2)
    compute = _jd.TO_INEXACT[_args.promoted_dtype("average", a, w)]
    a, w = _args.cast(a, compute), _args.cast(w, compute)
    if w.shape != a.shape:
        if axis is None:
            raise ValueError(f"average: axis must be given when the shapes of a {a.shape} and weights {w.shape} differ")
        if w.ndim != 1 or len(axes) != 1 or w.shape[0] != a.shape[axes[0]]:
            raise ValueError(f"average: weights of shape {w.shape} must be 1-D with the length of axis {axis} of a "
                             f"(shape {a.shape})")
        shape = [1] * a.ndim
        shape[axes[0]] = w.shape[0]
        w = _manip.reshape(w, tuple(shape))
    w = _manip.broadcast_to(w, a.shape)
    scale = _stat.sum(w, axis=axes, keepdims=keep)
    avg = _ew.divide(_stat.sum(_ew.multiply(a, w), axis=axes, keepdims=keep), scale)
    return (avg, _manip.broadcast_to(scale, avg.shape)) if returned else avg


# --- cumulative -------------------------------------------------------------------------------------------


def _cumulative(fname: str, fn, a, axis, dtype, out) -> Array:
    _args.no_out(out, fname)
    a = _args.array(a, fname)
    dtype = _jd.canonical_or_none(dtype, fname)
    if dtype is None:
        dtype = _d.int64 if a._dtype is _d.bool else a._dtype
    if axis is None:
        a, axis = _manip.reshape(a, (-1,)), 0
    return fn(_args.cast(a, dtype), axis=_args.axis(axis, a.ndim, fname), dtype=dtype)


def cumsum(a: Any, axis: int | None = None, dtype: Any = None, out: None = None) -> Array:
    """The running sum along `axis` (of the flattened array when None), in `a`'s dtype (booleans in int64).

    >>> import stridex.numpy as jnp
    >>> jnp.cumsum(jnp.asarray([[1, 2], [3, 4]])), jnp.cumsum(jnp.asarray([[1, 2], [3, 4]]), axis=0)
    (Array([ 1,  3,  6, 10]), Array([[1, 2],
           [4, 6]]))
    """
    return _cumulative("cumsum", _stat.cumulative_sum, a, axis, dtype, out)


def cumprod(a: Any, axis: int | None = None, dtype: Any = None, out: None = None) -> Array:
    """The running product along `axis` (of the flattened array when None).

    >>> import stridex.numpy as jnp
    >>> jnp.cumprod(jnp.asarray([1, 2, 3, 4]))
    Array([ 1,  2,  6, 24])
    """
    return _cumulative("cumprod", _stat.cumulative_prod, a, axis, dtype, out)


def cumulative_sum(x: Any, /, *, axis: int | None = None, dtype: Any = None,
                   include_initial: builtins.bool = False) -> Array:
    """The running sum along `axis` (the standard's function: small integers accumulate in 64 bits), starting
    with 0 if `include_initial`.

    >>> import stridex.numpy as jnp
    >>> jnp.cumulative_sum(jnp.asarray([1, 2, 3]), include_initial=True)
    Array([0, 1, 3, 6])
    """
    return _stat.cumulative_sum(_args.array(x, "cumulative_sum"), axis=axis,
                                dtype=_jd.canonical_or_none(dtype, "cumulative_sum"), include_initial=include_initial)


def cumulative_prod(x: Any, /, *, axis: int | None = None, dtype: Any = None,
                    include_initial: builtins.bool = False) -> Array:
    """The running product along `axis` (the standard's function), starting with 1 if `include_initial`.

    >>> import stridex.numpy as jnp
    >>> jnp.cumulative_prod(jnp.asarray([2, 3, 4]))
    Array([ 2,  6, 24])
    """
    return _stat.cumulative_prod(_args.array(x, "cumulative_prod"), axis=axis,
                                 dtype=_jd.canonical_or_none(dtype, "cumulative_prod"),
                                 include_initial=include_initial)


# --- ignoring NaN -----------------------------------------------------------------------------------------


def _isnan(a: Array) -> Array | None:
    """The NaN mask of a floating array (None for others: they hold no NaN)."""
    if a._dtype.kind not in _d.FLOATING_KINDS:
        return None
    if a._dtype.kind == "complex floating":
        return _ew.logical_or(_ew.isnan(_ew.real(a)), _ew.isnan(_ew.imag(a)))
    return _ew.isnan(a)


def _not_nan(a: Array) -> Array:
    nan = _isnan(a)
    return _cr.ones(a.shape, dtype=_d.bool) if nan is None else _ew.logical_not(nan)


def _without_nan(a: Array, fill) -> Array:
    nan = _isnan(a)
    return a if nan is None else _search.where(nan, _args.cast(fill, a._dtype), a)


def nansum(a: Any, axis: Any = None, dtype: Any = None, out: None = None, keepdims: builtins.bool = False,
           initial: Any = None, where: Any = None) -> Array:
    """The sum over `axis`, NaN counted as zero.

    >>> import stridex.numpy as jnp
    >>> jnp.nansum(jnp.asarray([1.0, jnp.nan, 2.0]))
    Array(3.)
    """
    a = _without_nan(_args.array(a, "nansum"), 0)
    return sum(a, axis, dtype, out, keepdims, initial, where)


def nanprod(a: Any, axis: Any = None, dtype: Any = None, out: None = None, keepdims: builtins.bool = False,
            initial: Any = None, where: Any = None) -> Array:
    """The product over `axis`, NaN counted as one.

    >>> import stridex.numpy as jnp
    >>> jnp.nanprod(jnp.asarray([2.0, jnp.nan, 3.0]))
    Array(6.)
    """
    a = _without_nan(_args.array(a, "nanprod"), 1)
    return prod(a, axis, dtype, out, keepdims, initial, where)


def _nan_extremum(fname: str, largest: builtins.bool, a, axis, out, keepdims, initial, where) -> Array:
    a = _args.array(a, fname)
    nan = _isnan(a)
    if nan is None:
        return _extremum(fname, largest, a, axis, out, keepdims, initial, where)
    result = _extremum(fname, largest, _search.where(nan, -math.inf if largest else math.inf, a), axis, out, keepdims,
                       initial, where)
    all_nan = all(nan, axis, keepdims=keepdims, where=where)
    return _search.where(all_nan, math.nan, result) if initial is None else result


def nanmax(a: Any, axis: Any = None, out: None = None, keepdims: builtins.bool = False, initial: Any = None,
           where: Any = None) -> Array:
    """The largest element over `axis`, ignoring NaN (NaN where every element is).

    >>> import stridex.numpy as jnp
    >>> jnp.nanmax(jnp.asarray([[1.0, jnp.nan], [jnp.nan, jnp.nan]]), axis=1)
    Array([ 1., nan])
    """
    return _nan_extremum("nanmax", True, a, axis, out, keepdims, initial, where)


def nanmin(a: Any, axis: Any = None, out: None = None, keepdims: builtins.bool = False, initial: Any = None,
           where: Any = None) -> Array:
    """The smallest element over `axis`, ignoring NaN (NaN where every element is).

    >>> import stridex.numpy as jnp
    >>> jnp.nanmin(jnp.asarray([3.0, jnp.nan, 2.0]))
    Array(2.)
    """
    return _nan_extremum("nanmin", False, a, axis, out, keepdims, initial, where)


def _nan_argextremum(fname: str, largest: builtins.bool, a, axis, out, keepdims) -> Array:
    a = _args.array(a, fname)
    nan = _isnan(a)
    fn = argmax if largest else argmin
    if nan is None:
        return fn(a, axis, out, keepdims)
    index = fn(_search.where(nan, -math.inf if largest else math.inf, a), axis, out, keepdims)
    all_nan = all(nan, axis, keepdims=builtins.bool(keepdims))
    return _search.where(all_nan, -1, index)


def nanargmax(a: Any, axis: int | None = None, out: None = None, keepdims: builtins.bool | None = None) -> Array:
    """The index of the largest element over `axis`, ignoring NaN (-1 where every element is NaN).

    >>> import stridex.numpy as jnp
    >>> jnp.nanargmax(jnp.asarray([1.0, jnp.nan, 3.0]))
    Array(2)
    """
    return _nan_argextremum("nanargmax", True, a, axis, out, keepdims)


def nanargmin(a: Any, axis: int | None = None, out: None = None, keepdims: builtins.bool | None = None) -> Array:
    """The index of the smallest element over `axis`, ignoring NaN (-1 where every element is NaN).

    >>> import stridex.numpy as jnp
    >>> jnp.nanargmin(jnp.asarray([jnp.nan, 1.0, 3.0]))
    Array(1)
    """
    return _nan_argextremum("nanargmin", False, a, axis, out, keepdims)


def nanmean(a: Any, axis: Any = None, dtype: Any = None, out: None = None, keepdims: builtins.bool = False,
            where: Any = None) -> Array:
    """The mean over `axis` of the elements that are not NaN (NaN where there are none).

    >>> import stridex.numpy as jnp
    >>> jnp.nanmean(jnp.asarray([1.0, jnp.nan, 3.0]))
    Array(2.)
    """
    a, dtype = _inexact_input(a, dtype, "nanmean")
    mask = _not_nan(a)
    if where is not None:
        mask = _ew.logical_and(mask, _manip.broadcast_to(_truth(_args.array(where, "nanmean")), a.shape))
    return mean(a, axis, dtype, out, keepdims, where=mask)


def _nan_variance(fname: str, root: builtins.bool, a, axis, dtype, out, ddof, keepdims, where, mean_value):
    a, _ = _inexact_input(a, dtype, fname)
    mask = _not_nan(a)
    if where is not None:
        mask = _ew.logical_and(mask, _manip.broadcast_to(_truth(_args.array(where, fname)), a.shape))
    clean = _search.where(mask, a, _cr.zeros((), dtype=a._dtype))
    return _variance(fname, clean, axis, dtype, out, ddof, keepdims, mask, mean_value, None, root)


def nanvar(a: Any, axis: Any = None, dtype: Any = None, out: None = None, ddof: int = 0,
           keepdims: builtins.bool = False, where: Any = None, mean: Any = None) -> Array:
    """The variance over `axis` of the elements that are not NaN.

    >>> import stridex.numpy as jnp
    >>> jnp.nanvar(jnp.asarray([1.0, jnp.nan, 3.0]))
    Array(1.)
    """
    return _nan_variance("nanvar", False, a, axis, dtype, out, ddof, keepdims, where, mean)


def nanstd(a: Any, axis: Any = None, dtype: Any = None, out: None = None, ddof: int = 0,
           keepdims: builtins.bool = False, where: Any = None, mean: Any = None) -> Array:
    """The standard deviation over `axis` of the elements that are not NaN.

    >>> import stridex.numpy as jnp
    >>> jnp.nanstd(jnp.asarray([1.0, jnp.nan, 3.0]))
    Array(1.)
    """
    return _nan_variance("nanstd", True, a, axis, dtype, out, ddof, keepdims, where, mean)


def nancumsum(a: Any, axis: int | None = None, dtype: Any = None, out: None = None) -> Array:
    """The running sum along `axis`, NaN counted as zero.

    >>> import stridex.numpy as jnp
    >>> jnp.nancumsum(jnp.asarray([1.0, jnp.nan, 2.0]))
    Array([1., 1., 3.])
    """
    return cumsum(_without_nan(_args.array(a, "nancumsum"), 0), axis, dtype, out)


def nancumprod(a: Any, axis: int | None = None, dtype: Any = None, out: None = None) -> Array:
    """The running product along `axis`, NaN counted as one.

    >>> import stridex.numpy as jnp
    >>> jnp.nancumprod(jnp.asarray([2.0, jnp.nan, 3.0]))
    Array([2., 2., 6.])
    """
    return cumprod(_without_nan(_args.array(a, "nancumprod"), 1), axis, dtype, out)
