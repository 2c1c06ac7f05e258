"""The main namespace's linear-algebra functions: matmul, matrix_transpose, tensordot, vecdot."""

from __future__ import annotations

from ._array import Array
from ._primitives import views as _views

__all__ = ["matrix_transpose"]


def matrix_transpose(x: Array, /) -> Array:
    """Swap the last two axes of `x` (a view)."""
    if not isinstance(x, Array):
        raise TypeError(f"matrix_transpose expects an array, got {type(x).__name__}")
    if x.ndim < 2:
        raise ValueError(f"matrix_transpose needs an array of at least 2 dimensions, got shape {x.shape}")
    axes = tuple(range(x.ndim - 2)) + (x.ndim - 1, x.ndim - 2)
    return _views.permute.bind(x, axes=axes)
