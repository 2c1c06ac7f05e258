"""JAX's argument conventions for the extensions with JAX's names (`stridex.nn`, `stridex.scipy.special`), and the
masked reductions their `where=` arguments ask for.

Where the standard's functions take arrays (and Python scalars where it says so), JAX's take array-likes: arrays,
NumPy arrays and scalars, Python scalars (weak), JAX arrays; never lists (JAX's TypeError). Functions that compute
in floating point promote integers and booleans to the default floating dtype first, as `jax.numpy`'s
`promote_args_inexact` does (stridex's default is float64; JAX's, without 64-bit types, float32).
"""

from __future__ import annotations

import math
import operator
from typing import Union

import numpy as np

from stridex._api import statistical_functions as _statistical
from stridex._api.creation_functions import asarray
from stridex._api.data_type_functions import astype, result_type
from stridex._core import dtypes as _dtypes
from stridex._core.array import Array
from stridex._lax import ops
from stridex._lax.ops import dtype_of

# What the JAX-named functions accept for an array argument.
ArrayLike = Union[Array, np.ndarray, np.generic, bool, int, float]

_PY_SCALARS = (bool, int, float, complex)


def array(name: str, x) -> Array:
    """`x` as a stridex array: an Array as it is; a NumPy array or scalar, a Python scalar or a DLPack producer (a
    JAX array) converted by `asarray`. Anything else, a list included (as JAX), is a TypeError naming `name`."""
    if isinstance(x, Array):
        return x
    if isinstance(x, (np.ndarray, np.generic, *_PY_SCALARS)) or hasattr(x, "__dlpack__"):
        return asarray(x)
    raise TypeError(f"{name} requires ndarray or scalar arguments, got {type(x).__name__}")


def inexact(name: str, *xs) -> list[Array]:
    """`xs` as arrays of one inexact dtype (`jax.numpy`'s `promote_args_inexact`): their promoted dtype (Python
    scalars weak), the default floating dtype in place of an integer or boolean one."""
    if len(xs) == 1 and isinstance(xs[0], Array) and xs[0].dtype.kind in _dtypes.FLOATING_KINDS:
        return [xs[0]]  # (the common case, first)
    for x in xs:
        if isinstance(x, list) or not (isinstance(x, (Array, np.ndarray, np.generic, *_PY_SCALARS))
                                       or hasattr(x, "__dlpack__")):
            raise TypeError(f"{name} requires ndarray or scalar arguments, got {type(x).__name__}")
    operands = [x if isinstance(x, (Array, *_PY_SCALARS)) else asarray(x) for x in xs]
    arrays = [x for x in operands if isinstance(x, Array)]
    if arrays:
        dtype = result_type(*operands)
    else:  # (Python scalars alone: the default dtype of their kind)
        dtype = result_type(*[asarray(x) for x in operands])
    if dtype.kind not in _dtypes.FLOATING_KINDS:
        dtype = _dtypes.float64
    device = arrays[0].device if arrays else None
    return [astype(x, dtype) if isinstance(x, Array) and dtype_of(x) is not dtype
            else x if isinstance(x, Array) else asarray(x, dtype=dtype, device=device) for x in operands]


def real(name: str, *xs) -> list[Array]:
    """`inexact(name, *xs)`, refusing complex values (JAX's TypeError, naming the dtype)."""
    out = inexact(name, *xs)
    if out and out[0].dtype.kind == "complex floating":
        raise TypeError(f"{name} does not accept dtype {out[0].dtype.name}. Accepted dtypes are subtypes of floating.")
    return out


def float32_or_float64(name: str, x) -> Array:
    """`x` as an array of dtype float32 or float64, else a TypeError naming its dtype (JAX's `ndtr`, `ndtri` and
    `log_ndtr` take nothing else, integers included)."""
    x = array(name, x)
    if x.dtype not in (_dtypes.float32, _dtypes.float64):
        raise TypeError(f"{name}: x.dtype={x.dtype.name} is not supported; it takes float32 or float64")
    return x


def as_mask(name: str, where) -> Array:
    """A `where=` argument as a boolean array (JAX takes any array-like: nonzero is true)."""
    where = array(name, where)
    return where if where.dtype is _dtypes.bool else astype(where, _dtypes.bool)


def dtype(name: str, value) -> _dtypes.DType:
    """A `dtype=` argument as a stridex dtype: a stridex dtype, a Python type (the default dtype of its kind) or
    what NumPy reads as a dtype (np.float32, "float32"), else a TypeError naming it."""
    out = _dtypes.as_dtype(value)
    if out is None:
        try:
            out = _dtypes.FROM_NUMPY.get(np.dtype(value))
        except TypeError:
            out = None
    if out is None:
        raise TypeError(f"{name}: dtype must be a stridex dtype (such as stridex.float32), got {value!r}")
    return out


# --- the masked reductions of JAX's `where=` arguments ------------------------------------------------------------


def broadcast_pair(x: Array, y: Array) -> tuple[Array, Array]:
    """`x` and `y` broadcast to their common shape (views)."""
    shape = np.broadcast_shapes(x.shape, y.shape)
    return ops.broadcast_to(x, shape), ops.broadcast_to(y, shape)


def masked_max(a: Array, axes: tuple, mask: Array | None, keepdims: bool) -> Array:
    """The maximum of `a` over `axes` where `mask` holds (everywhere for None; `mask` has `a`'s shape), -inf over
    nothing (JAX's `max(..., where=mask, initial=-inf)`)."""
    if mask is not None:
        a = ops.where(mask, a, -math.inf)
    if any(a.shape[i] == 0 for i in axes):
        shape = tuple(1 if i in axes else n for i, n in enumerate(a.shape)) if keepdims else \
            tuple(n for i, n in enumerate(a.shape) if i not in axes)
        return ops.full(shape, -math.inf, a.dtype)
    return ops.reduce_max(a, axes, keepdims)


def masked_sum(a: Array, axes: tuple, mask: Array | None, keepdims: bool) -> Array:
    """The sum of `a` over `axes` (in `a`'s dtype) where `mask` holds (everywhere for None)."""
    if mask is not None:
        a = ops.where(mask, a, 0.0)
    return ops.sum(a, axes, keepdims=keepdims, dtype=a.dtype)


# --- axes -----------------------------------------------------------------------------------------------------------
# JAX raises ValueError for an axis out of bounds, the standard IndexError: NumPy's AxisError is both.


def axes(name: str, x: Array, axis) -> tuple:
    """An `axis=` argument (None, an int or a tuple of ints) as the sorted tuple of distinct axes of `x` it names."""
    try:
        return _statistical.reduction_axes(x, axis, name)
    except IndexError as e:
        raise np.exceptions.AxisError(f"{name}: {e}") from None


def axis(name: str, value, ndim: int) -> int:
    """One axis of an array of `ndim` dimensions (negative counts from the end), as a non-negative int."""
    try:
        value = operator.index(value)
    except TypeError:
        raise TypeError(f"{name}: axis must be an integer, got {value!r}") from None
    if not -ndim <= value < ndim:
        raise np.exceptions.AxisError(f"{name}: axis {value} is out of bounds for an array of dimension {ndim}")
    return value % ndim
