"""The spec's statistical functions: sums, products, extrema, mean/var/std and cumulative sums/products."""

from __future__ import annotations

import builtins
import numbers

from stridex._core import dtypes as _dtypes
from stridex._core.array import Array, python_scalar
from stridex._core.dtypes import DType
from stridex._core.view import normalize_axes, normalize_axis
from stridex._lax import statistical as _r

__all__ = ["cumulative_prod", "cumulative_sum", "max", "mean", "min", "prod", "std", "sum", "var"]

_NUMERIC = frozenset(_dtypes.EXTENDED_CATEGORIES["numeric"])  # (the half types too)

# The spec's default accumulation dtype of sum/prod/cumulative_*: integers narrower than the default
# integer widen to int64 (signed) or uint64 (unsigned); floating dtypes stay as they are.
# Note: bool is accepted as NumPy does, accumulating in the default integer dtype (the spec says inputs
# "should" be numeric).
_ACCUMULATION = _dtypes.ACCUMULATION

# Reducing over every axis of an n-D array: the `axes` param, built once per rank.
_ALL_AXES = [tuple(range(n)) for n in range(65)]


def _check_array(x, name: str):
    if not isinstance(x, Array):
        raise TypeError(f"{name} expects an array, got {type(x).__name__}")


def reduction_axes(x: Array, axis, name: str) -> tuple:
    """The spec's `axis` argument (None, an int or a tuple of ints) as a sorted tuple of distinct axes."""
    if axis is None:
        return _ALL_AXES[x.ndim]
    if type(axis) is int:
        ndim = x.ndim
        if -ndim <= axis < ndim:
            return (axis + ndim if axis < 0 else axis,)
    elif isinstance(axis, list):
        raise TypeError(f"{name}: axis must be an int or a tuple of ints, got a list")
    return tuple(sorted(normalize_axes(axis, x.ndim)))


def _accumulation_dtype(x: Array, dtype, name: str) -> DType:
    if dtype is None:
        out = _ACCUMULATION.get(x.dtype)
        if out is None:
            raise TypeError(f"{name} requires a numeric array, got dtype {x.dtype.name}")
        return out
    if not isinstance(dtype, DType):
        if _dtypes.as_dtype(dtype) is None:
            raise TypeError(f"{name}: dtype must be a stridex dtype (such as stridex.float64) or one of the Python "
                            f"types int/float/complex, got {dtype!r}")
        dtype = _dtypes.as_dtype(dtype)
    if dtype not in _NUMERIC:
        raise TypeError(f"{name}: dtype must be a numeric dtype, got {dtype.name}")
    if x.dtype not in _ACCUMULATION:
        raise TypeError(f"{name} requires a numeric array, got dtype {x.dtype.name}")
    if x.dtype.kind == "complex floating" and dtype.kind != "complex floating":
        raise TypeError(f"{name}: cannot accumulate a {x.dtype.name} array in {dtype.name} "
                        "(the imaginary parts would be discarded)")
    return dtype


def _accumulate(prim, x, axis, dtype, keepdims, name):
    _check_array(x, name)
    return prim.bind(x, axes=reduction_axes(x, axis, name), keepdims=builtins.bool(keepdims),
                     dtype=_accumulation_dtype(x, dtype, name))


def sum(x: Array, /, *, axis: int | tuple[int, ...] | None = None, dtype: DType | None = None,
        keepdims: bool = False) -> Array:
    """Sum of the elements of `x` over `axis` (all axes by default); integers accumulate in 64 bits.

    >>> import stridex as sx
    >>> sx.sum(sx.asarray([[1, 2], [3, 4]], dtype=sx.int8), axis=0)
    Array([4, 6])
    """
    if type(x) is Array and axis is None and dtype is None and keepdims is False:
        out_dtype = _ACCUMULATION.get(x._dtype)
        if out_dtype is not None:
            return _r.reduce_sum.bind(x, axes=_ALL_AXES[len(x.shape)], keepdims=False, dtype=out_dtype)
    return _accumulate(_r.reduce_sum, x, axis, dtype, keepdims, "sum")


def prod(x: Array, /, *, axis: int | tuple[int, ...] | None = None, dtype: DType | None = None,
         keepdims: bool = False) -> Array:
    """Product of the elements of `x` over `axis` (all axes by default); the empty product is 1.

    >>> import stridex as sx
    >>> sx.prod(sx.asarray([1.0, 2.0, 3.0]))
    Array(6.)
    """
    return _accumulate(_r.reduce_prod, x, axis, dtype, keepdims, "prod")


def _extremum(prim, x, axis, keepdims, name):
    _check_array(x, name)
    if x.dtype.kind == "complex floating":
        raise TypeError(f"{name} requires a real-valued array (complex numbers have no order), got {x.dtype.name}")
    axes = reduction_axes(x, axis, name)
    for a in axes:
        if x.shape[a] == 0:
            # Note: the spec leaves the extremum of nothing implementation-defined; like NumPy we refuse.
            raise ValueError(f"{name} of an empty selection: axis {a} of shape {x.shape} has size 0")
    return prim.bind(x, axes=axes, keepdims=builtins.bool(keepdims))


def max(x: Array, /, *, axis: int | tuple[int, ...] | None = None, keepdims: bool = False) -> Array:
    """Largest element of `x` over `axis`; NaN propagates. ValueError on an empty selection.

    >>> import stridex as sx
    >>> sx.max(sx.asarray([[1, 5], [3, 2]]), axis=1)
    Array([5, 3])
    """
    return _extremum(_r.reduce_max, x, axis, keepdims, "max")


def min(x: Array, /, *, axis: int | tuple[int, ...] | None = None, keepdims: bool = False) -> Array:
    """Smallest element of `x` over `axis`; NaN propagates. ValueError on an empty selection.

    >>> import stridex as sx
    >>> sx.min(sx.asarray([[1, 5], [3, 2]]), axis=1)
    Array([1, 2])
    """
    return _extremum(_r.reduce_min, x, axis, keepdims, "min")


def _check_real_or_float(x, name, allow_complex):
    _check_array(x, name)
    kind = x.dtype.kind
    if kind == "complex floating" and not allow_complex:
        raise TypeError(f"{name} requires a real-valued array, got {x.dtype.name}")
    if kind == "bool":
        raise TypeError(f"{name} requires a numeric array, got dtype bool")


def mean(x: Array, /, *, axis: int | tuple[int, ...] | None = None, keepdims: bool = False) -> Array:
    """Arithmetic mean over `axis`; integer input gives float64. The mean of nothing is NaN.

    >>> import stridex as sx
    >>> sx.mean(sx.asarray([1, 2, 3, 4]))
    Array(2.5)
    """
    _check_real_or_float(x, "mean", allow_complex=True)
    return _r.reduce_mean.bind(x, axes=reduction_axes(x, axis, "mean"), keepdims=builtins.bool(keepdims))


def _correction(correction, name):
    correction = python_scalar(correction)  # a 0-D array, as NumPy's ddof takes one
    if isinstance(correction, builtins.bool) or not isinstance(correction, numbers.Real):
        raise TypeError(f"{name}: correction must be an int or a float, got {type(correction).__name__}")
    return int(correction) if isinstance(correction, numbers.Integral) else float(correction)


def var(x: Array, /, *, axis: int | tuple[int, ...] | None = None, correction: int | float = 0.0,
        keepdims: bool = False) -> Array:
    """Variance over `axis`, dividing by M - correction; NaN when M - correction <= 0.

    >>> import stridex as sx
    >>> sx.var(sx.asarray([1.0, 2.0, 3.0, 4.0]), correction=1)
    Array(1.66666667)
    """
    _check_real_or_float(x, "var", allow_complex=False)
    return _r.reduce_var.bind(x, axes=reduction_axes(x, axis, "var"), keepdims=builtins.bool(keepdims),
                              correction=_correction(correction, "var"))


def std(x: Array, /, *, axis: int | tuple[int, ...] | None = None, correction: int | float = 0.0,
        keepdims: bool = False) -> Array:
    """Standard deviation over `axis`, dividing by M - correction; NaN when M - correction <= 0.

    >>> import stridex as sx
    >>> sx.std(sx.asarray([1.0, 3.0]))
    Array(1.)
    """
    _check_real_or_float(x, "std", allow_complex=False)
    return _r.reduce_std.bind(x, axes=reduction_axes(x, axis, "std"), keepdims=builtins.bool(keepdims),
                              correction=_correction(correction, "std"))


def _cumulative(prim, x, axis, dtype, include_initial, name):
    _check_array(x, name)
    if x.ndim == 0:
        # Note: the spec leaves 0-D input unspecified; there is no axis to accumulate along.
        raise ValueError(f"{name} requires an array of at least one dimension, got a 0-D array")
    if axis is None:
        if x.ndim > 1:
            raise ValueError(f"{name}: axis is required for an array of {x.ndim} dimensions (shape {x.shape})")
        axis = 0
    return prim.bind(x, axis=normalize_axis(axis, x.ndim), dtype=_accumulation_dtype(x, dtype, name),
                     include_initial=builtins.bool(include_initial))


def cumulative_sum(x: Array, /, *, axis: int | None = None, dtype: DType | None = None,
                   include_initial: bool = False) -> Array:
    """Running sums along `axis` (optional for 1-D input); `include_initial` prepends the 0.

    >>> import stridex as sx
    >>> sx.cumulative_sum(sx.asarray([1, 2, 3]), include_initial=True)
    Array([0, 1, 3, 6])
    """
    return _cumulative(_r.cumulative_sum, x, axis, dtype, include_initial, "cumulative_sum")


def cumulative_prod(x: Array, /, *, axis: int | None = None, dtype: DType | None = None,
                    include_initial: bool = False) -> Array:
    """Running products along `axis` (optional for 1-D input); `include_initial` prepends the 1.

    >>> import stridex as sx
    >>> sx.cumulative_prod(sx.asarray([1, 2, 3]), include_initial=True)
    Array([1, 1, 2, 6])
    """
    return _cumulative(_r.cumulative_prod, x, axis, dtype, include_initial, "cumulative_prod")
