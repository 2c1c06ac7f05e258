"""Indexing functions: take and take_along_axis (gathers along one axis; negative indices count from the end)."""

from __future__ import annotations

from stridex._core.array import Array
from stridex._core.view import normalize_axis
from stridex._lax import indexing as _p

__all__ = ["take", "take_along_axis"]


def _check(x, indices, fname: str):
    if not isinstance(x, Array):
        raise TypeError(f"{fname} expects an array x, got {type(x).__name__}")
    if not isinstance(indices, Array):
        raise TypeError(f"{fname} expects an integer array of indices, got {type(indices).__name__}")
    if indices.dtype.kind not in ("signed", "unsigned"):
        raise TypeError(f"{fname}: indices must have an integer dtype, got {indices.dtype.name}")


def take(x: Array, indices: Array, /, *, axis: int | None = None) -> Array:
    """The elements of `x` at positions `indices` (1-D) along `axis` (optional only for a 1-D `x`).

    >>> import stridex as sx
    >>> sx.take(sx.asarray([[1, 2], [3, 4]]), sx.asarray([1, -2]), axis=1)
    Array([[2, 1],
           [4, 3]])
    """
    _check(x, indices, "take")
    if indices.ndim != 1:
        # The spec: indices "must be one-dimensional" (NumPy and JAX take any shape; array-api-strict refuses).
        hint = ("pass reshape(indices, (1,)) or index directly, x[i]" if indices.ndim == 0 else
                "index with it, x[indices], or flatten it first")
        raise ValueError(f"take: indices must be 1-D, got shape {indices.shape}; {hint}")
    if x.ndim == 0:
        raise ValueError("take needs an array of at least one dimension, got a 0-D array")
    if axis is None:
        if x.ndim != 1:
            raise ValueError(f"take: axis is required for an array of {x.ndim} dimensions (shape {x.shape})")
        axis = 0
    axis = normalize_axis(axis, x.ndim)
    if x.shape[axis] == 0 and indices.shape[0]:
        raise IndexError(f"take: cannot take {indices.shape[0]} elements from empty axis {axis} (shape {x.shape})")
    return _p.take.bind(x, indices, axis=axis)


def take_along_axis(x: Array, indices: Array, /, *, axis: int = -1) -> Array:
    """The elements of `x` at `indices` along `axis`, position by position (other axes broadcast).

    >>> import stridex as sx
    >>> x = sx.asarray([[10, 30, 20], [60, 40, 50]])
    >>> sx.take_along_axis(x, sx.asarray([[0], [1]]), axis=1)
    Array([[10],
           [40]])
    """
    _check(x, indices, "take_along_axis")
    if x.ndim == 0:
        raise ValueError("take_along_axis needs an array of at least one dimension, got a 0-D array")
    if indices.ndim != x.ndim:
        raise ValueError(f"take_along_axis: indices of shape {indices.shape} must have as many dimensions "
                         f"as x of shape {x.shape}")
    axis = normalize_axis(axis, x.ndim)
    try:
        _p.along_axis_shape(x.shape, indices.shape, axis)
    except ValueError:
        raise ValueError(f"take_along_axis: indices of shape {indices.shape} do not broadcast with x of shape "
                         f"{x.shape} outside axis {axis}") from None
    if x.shape[axis] == 0 and indices.shape[axis]:
        raise IndexError(f"take_along_axis: cannot take elements from empty axis {axis} (shape {x.shape})")
    return _p.take_along_axis.bind(x, indices, axis=axis)
