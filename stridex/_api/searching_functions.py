"""The spec's searching functions: argmax, argmin, count_nonzero, nonzero, searchsorted, where."""

from __future__ import annotations

import builtins
from typing import Literal

import numpy as np

from stridex._api.elementwise_functions import _HALF, _common_dtype, _python_scalar
from stridex._api.statistical_functions import reduction_axes
from stridex._core import dtypes as _dtypes
from stridex._core.array import Array
from stridex._core.view import normalize_axis
from stridex._lax import searching as _s
from stridex._transforms.tracing import note_scalar_store, weak_scalar_example

__all__ = ["argmax", "argmin", "count_nonzero", "nonzero", "searchsorted", "where"]

_PY_SCALARS = (builtins.bool, int, float, complex)


def _check_array(x, name: str):
    if not isinstance(x, Array):
        raise TypeError(f"{name} expects an array, got {type(x).__name__}")


def _check_orderable(x, name: str):
    if x.dtype.kind == "complex floating":
        raise TypeError(f"{name} requires a real-valued array (complex numbers have no order), got {x.dtype.name}")


def _arg_extremum(prim, x, axis, keepdims, name):
    _check_array(x, name)
    _check_orderable(x, name)
    if axis is None:
        if x.size == 0:
            raise ValueError(f"{name} of an empty array (shape {x.shape}) has no answer")
    else:
        axis = normalize_axis(axis, x.ndim)
        if x.shape[axis] == 0:
            raise ValueError(f"{name}: axis {axis} of shape {x.shape} has size 0, so there is no extremum")
    return prim.bind(x, axis=axis, keepdims=builtins.bool(keepdims))


def argmax(x: Array, /, *, axis: int | None = None, keepdims: bool = False) -> Array:
    """Index of the first largest element along `axis` (of the flattened array when None), as int64.

    >>> import stridex as sx
    >>> sx.argmax(sx.asarray([[1, 5], [7, 2]]), axis=1)
    Array([1, 0])
    """
    return _arg_extremum(_s.argmax, x, axis, keepdims, "argmax")


def argmin(x: Array, /, *, axis: int | None = None, keepdims: bool = False) -> Array:
    """Index of the first smallest element along `axis` (of the flattened array when None), as int64.

    >>> import stridex as sx
    >>> sx.argmin(sx.asarray([3, 1, 1]))
    Array(1)
    """
    return _arg_extremum(_s.argmin, x, axis, keepdims, "argmin")


def count_nonzero(x: Array, /, *, axis: int | tuple[int, ...] | None = None, keepdims: bool = False) -> Array:
    """Number of non-zero elements over `axis` (all axes by default), as int64.

    >>> import stridex as sx
    >>> sx.count_nonzero(sx.asarray([[0, 1], [2, 3]]), axis=1)
    Array([1, 2])
    """
    _check_array(x, "count_nonzero")
    return _s.count_nonzero.bind(x, axes=reduction_axes(x, axis, "count_nonzero"), keepdims=builtins.bool(keepdims))


def nonzero(x: Array, /) -> tuple[Array, ...]:
    """Indices of the non-zero elements, one int64 array per axis, in row-major order (data-dependent shape).

    >>> import stridex as sx
    >>> sx.nonzero(sx.asarray([[0, 1], [2, 0]]))
    (Array([0, 1]), Array([1, 0]))
    """
    _check_array(x, "nonzero")
    if x.ndim == 0:
        raise ValueError("nonzero requires an array of at least one dimension, got a 0-D array")
    return _s.nonzero.bind(x)


def searchsorted(x1: Array, x2: Array | int | float, /, *, side: Literal["left", "right"] = "left",
                 sorter: Array | None = None) -> Array:
    """Indices where the elements of `x2` would be inserted into the ascending 1-D `x1` to keep it sorted.

    >>> import stridex as sx
    >>> sx.searchsorted(sx.asarray([1, 3, 5]), sx.asarray([0, 3, 6]), side="right")
    Array([0, 2, 3])
    """
    _check_array(x1, "searchsorted")
    if x1.ndim != 1:
        raise ValueError(f"searchsorted requires a 1-D x1, got shape {x1.shape}")
    _check_orderable(x1, "searchsorted")
    # A Python scalar argument of a jitted function (a weak traced value) is checked as the scalar it stands for.
    example = weak_scalar_example(x2)
    value = x2 if example is None else example
    if isinstance(value, Array):
        _check_orderable(x2, "searchsorted")
    elif not isinstance(value, (int, float)) or isinstance(value, builtins.bool):
        raise TypeError(f"searchsorted: x2 must be an array, an int or a float, got {type(value).__name__}")
    if side not in ("left", "right"):
        raise ValueError(f"searchsorted: side must be 'left' or 'right', got {side!r}")
    if sorter is None:
        return _s.searchsorted.bind(x1, x2, side=side)
    _check_array(sorter, "searchsorted (sorter)")
    if sorter.dtype not in _dtypes.INTEGER_DTYPES:
        raise TypeError(f"searchsorted: sorter must have an integer dtype, got {sorter.dtype.name}")
    if sorter.shape != x1.shape:
        raise ValueError(f"searchsorted: sorter of shape {sorter.shape} does not match x1 of shape {x1.shape}")
    return _s.searchsorted.bind(x1, x2, sorter, side=side)


def _check_scalar(array_dtype, value, name: str):
    """A Python scalar operand must be of a kind the array's dtype can hold (the spec's scalar rules)."""
    if isinstance(value, builtins.bool):
        return
    kind = array_dtype.kind
    if isinstance(value, int):
        if kind == "bool":
            raise TypeError(f"{name}: a Python int with an array of dtype bool")
    elif isinstance(value, float):
        if kind == "bool":
            raise TypeError(f"{name}: a Python float with an array of dtype bool")
    elif kind in ("bool", "signed", "unsigned"):
        raise TypeError(f"{name}: a Python complex with an array of dtype {array_dtype.name}")


def where(condition: Array, x1: Array | int | float | complex | bool, x2: Array | int | float | complex | bool,
          /) -> Array:
    """Elements of `x1` where `condition` is True, of `x2` elsewhere (broadcast; Python scalars allowed).

    >>> import stridex as sx
    >>> sx.where(sx.asarray([True, False]), sx.asarray([1, 2]), 0)
    Array([1, 0])
    """
    _check_array(condition, "where (condition)")
    x1, x2 = (_where_operand(x) for x in (x1, x2))
    # A Python scalar argument of a jitted function (a weak traced value) counts as the scalar it stands for.
    arrays = [x for x in (x1, x2) if isinstance(x, Array) and weak_scalar_example(x) is None]
    if not arrays:
        raise TypeError(f"where: at least one of x1 and x2 must be an array, got "
                        f"{type(x1).__name__} and {type(x2).__name__}")
    dtype = arrays[0].dtype
    for x in (x1, x2):
        scalar = x if not isinstance(x, Array) else weak_scalar_example(x)
        if scalar is not None:
            _check_scalar(dtype, scalar, "where")
            _check_int_fits(x, _dtypes.scalar_result_dtype(dtype, scalar))
    if len(arrays) == 2 and x1.dtype is not x2.dtype and (x1.dtype in _HALF or x2.dtype in _HALF):  # type: ignore[union-attr]  # (two arrays)
        x1, x2 = _common_dtype(x1, x2)  # type: ignore[arg-type]  # (two arrays)
    return _s.where.bind(condition, x1, x2)


def _where_operand(x):
    """An operand of `where`: an array or a Python scalar (a NumPy scalar or 0-D NumPy array as its Python scalar,
    as the elementwise functions take them)."""
    if isinstance(x, (Array, *_PY_SCALARS)):
        return x
    scalar = _python_scalar(x)
    if scalar is None:
        raise TypeError(f"where takes arrays or Python scalars, got {type(x).__name__}")
    return scalar


def _check_int_fits(value, dtype) -> None:
    """A Python int operand is converted to the result's integer dtype, so it must fit it (OverflowError, as the
    elementwise functions raise through NumPy); a traced one is checked when the jitted function is called."""
    if type(value) is int and dtype.kind in ("signed", "unsigned"):
        info = np.iinfo(dtype.np)
        if not info.min <= value <= info.max:
            raise OverflowError(f"Python integer {value} out of bounds for {dtype.name}")
    else:
        note_scalar_store(value, dtype)
