"""The spec's utility functions: all, any (logical reductions) and diff (forward differences)."""

from __future__ import annotations

import builtins
import operator

from stridex._api.statistical_functions import reduction_axes
from stridex._core import dtypes as _dtypes
from stridex._core.array import Array
from stridex._core.view import normalize_axis
from stridex._lax import utility as _r

__all__ = ["all", "any", "diff"]


def _check_array(x, name: str):
    if not isinstance(x, Array):
        raise TypeError(f"{name} expects an array, got {type(x).__name__}")


def all(x: Array, /, *, axis: int | tuple[int, ...] | None = None, keepdims: bool = False) -> Array:
    """Whether every element over `axis` is non-zero (NaN counts as True; an empty selection is True).

    >>> import stridex as sx
    >>> sx.all(sx.asarray([[1, 0], [2, 3]]), axis=1)
    Array([False,  True])
    """
    _check_array(x, "all")
    return _r.reduce_all.bind(x, axes=reduction_axes(x, axis, "all"), keepdims=builtins.bool(keepdims))


def any(x: Array, /, *, axis: int | tuple[int, ...] | None = None, keepdims: bool = False) -> Array:
    """Whether some element over `axis` is non-zero (NaN counts as True; an empty selection is False).

    >>> import stridex as sx
    >>> sx.any(sx.asarray([[1, 0], [0, 0]]), axis=1)
    Array([ True, False])
    """
    _check_array(x, "any")
    return _r.reduce_any.bind(x, axes=reduction_axes(x, axis, "any"), keepdims=builtins.bool(keepdims))


def diff(x: Array, /, *, axis: int = -1, n: int = 1, prepend: Array | None = None,
         append: Array | None = None) -> Array:
    """The `n`-th forward difference along `axis`, after joining `prepend` and `append` to `x` there.

    `prepend`/`append` of another dtype promote with `x` (the spec leaves this implementation-defined).

    >>> import stridex as sx
    >>> sx.diff(sx.asarray([1, 4, 9, 16]))
    Array([3, 5, 7])
    """
    _check_array(x, "diff")
    if x.dtype.kind == "bool":
        raise TypeError("diff requires a numeric array, got dtype bool")
    if x.ndim == 0:
        raise ValueError("diff requires an array of at least one dimension, got a 0-D array")
    axis = normalize_axis(axis, x.ndim)
    try:
        n = operator.index(n)
    except TypeError:
        raise TypeError(f"diff: n must be an integer, got {type(n).__name__}") from None
    if n < 0:
        raise ValueError(f"diff: n must be non-negative, got {n}")
    parts = [x]
    for name, extra in (("prepend", prepend), ("append", append)):
        if extra is None:
            continue
        _check_array(extra, f"diff ({name})")
        if extra.dtype.kind == "bool":
            raise TypeError(f"diff: {name} must be numeric, got dtype bool")
        if extra.ndim != x.ndim or any_mismatch(extra.shape, x.shape, axis):
            raise ValueError(f"diff: {name} of shape {extra.shape} must match x of shape {x.shape} "
                             f"except along axis {axis}")
        parts.insert(0 if name == "prepend" else len(parts), extra)
    _dtypes.result_type_of(*(p.dtype for p in parts))
    return _r.diff.bind(*parts, axis=axis, n=n)


def any_mismatch(shape1: tuple, shape2: tuple, axis: int) -> builtins.bool:
    return builtins.any(a != b for i, (a, b) in enumerate(zip(shape1, shape2)) if i != axis)
