"""The spec's sorting functions: sort and argsort (stable, ascending or descending)."""

from __future__ import annotations

import builtins

from stridex._core.array import Array
from stridex._core.view import normalize_axis
from stridex._lax import sorting as _p

__all__ = ["argsort", "sort"]


def _sort_params(x, axis, name):
    if not isinstance(x, Array):
        raise TypeError(f"{name} expects an array, got {type(x).__name__}")
    if x.dtype.kind == "complex floating":
        raise TypeError(f"{name} requires a real-valued array (complex numbers have no order), got {x.dtype.name}")
    if x.ndim == 0:
        raise IndexError(f"{name}: a 0-D array has no axis {axis} to sort along")
    return normalize_axis(axis, x.ndim)


def sort(x: Array, /, *, axis: int = -1, descending: bool = False, stable: bool = True) -> Array:
    """A sorted copy of `x` along `axis`. Always stable, so `stable=False` gives the same (allowed) result.

    >>> import stridex as sx
    >>> sx.sort(sx.asarray([3, 1, 2]), descending=True)
    Array([3, 2, 1])
    """
    axis = _sort_params(x, axis, "sort")
    return _p.sort.bind(x, axis=axis, descending=builtins.bool(descending))


def argsort(x: Array, /, *, axis: int = -1, descending: bool = False, stable: bool = True) -> Array:
    """Indices (int64) that sort `x` along `axis`; stable, equal elements keep their order even descending.

    >>> import stridex as sx
    >>> sx.argsort(sx.asarray([3, 1, 3]), descending=True)
    Array([0, 2, 1])
    """
    axis = _sort_params(x, axis, "argsort")
    return _p.argsort.bind(x, axis=axis, descending=builtins.bool(descending))
