"""The spec's set functions: unique_all/counts/inverse/values (named tuples, data-dependent shapes) and isin."""

from __future__ import annotations

import builtins
from typing import NamedTuple

from stridex._core.array import Array
from stridex._lax import set as _p

__all__ = ["isin", "unique_all", "unique_counts", "unique_inverse", "unique_values"]


class UniqueAllResult(NamedTuple):
    values: Array
    indices: Array
    inverse_indices: Array
    counts: Array


class UniqueCountsResult(NamedTuple):
    values: Array
    counts: Array


class UniqueInverseResult(NamedTuple):
    values: Array
    inverse_indices: Array


def _check_array(x, name: str):
    if not isinstance(x, Array):
        raise TypeError(f"{name} expects an array, got {type(x).__name__}")


def unique_all(x: Array, /) -> UniqueAllResult:
    """Sorted unique values of flattened `x` with first-occurrence indices, inverse indices and counts.

    Each NaN is its own value (NaN != NaN); -0 and +0 are one value. Indices are int64.

    >>> import stridex as sx
    >>> sx.unique_all(sx.asarray([2, 1, 2])).counts
    Array([1, 2])
    """
    _check_array(x, "unique_all")
    return UniqueAllResult(*_p.unique.bind(x, with_indices=True, with_inverse=True, with_counts=True))


def unique_counts(x: Array, /) -> UniqueCountsResult:
    """Sorted unique values of flattened `x` and how often each occurs (int64).

    >>> import stridex as sx
    >>> sx.unique_counts(sx.asarray([2, 1, 2]))
    UniqueCountsResult(values=Array([1, 2]), counts=Array([1, 2]))
    """
    _check_array(x, "unique_counts")
    return UniqueCountsResult(*_p.unique.bind(x, with_indices=False, with_inverse=False, with_counts=True))


def unique_inverse(x: Array, /) -> UniqueInverseResult:
    """Sorted unique values of flattened `x` and the indices (shaped like `x`) that rebuild `x` from them.

    >>> import stridex as sx
    >>> sx.unique_inverse(sx.asarray([2, 1, 2])).inverse_indices
    Array([1, 0, 1])
    """
    _check_array(x, "unique_inverse")
    return UniqueInverseResult(*_p.unique.bind(x, with_indices=False, with_inverse=True, with_counts=False))


def unique_values(x: Array, /) -> Array:
    """Sorted unique values of flattened `x` (each NaN distinct).

    >>> import stridex as sx
    >>> sx.unique_values(sx.asarray([[2, 1], [2, 3]]))
    Array([1, 2, 3])
    """
    _check_array(x, "unique_values")
    (values,) = _p.unique.bind(x, with_indices=False, with_inverse=False, with_counts=False)
    return values


def isin(x1: Array | int, x2: Array | int, /, *, invert: bool = False) -> Array:
    """For each element of `x1`, whether it equals some element of `x2` (or not, with `invert`).

    >>> import stridex as sx
    >>> sx.isin(sx.asarray([1, 2, 3]), sx.asarray([3, 1]))
    Array([ True, False,  True])
    """
    if not isinstance(x1, Array) and not isinstance(x2, Array):
        raise TypeError(f"isin: at least one of x1 and x2 must be an array, got "
                        f"{type(x1).__name__} and {type(x2).__name__}")
    for x in (x1, x2):
        if not isinstance(x, Array) and (isinstance(x, builtins.bool) or not isinstance(x, int)):
            raise TypeError(f"isin takes arrays or Python ints, got {type(x).__name__}")
    return _p.isin.bind(x1, x2, invert=builtins.bool(invert))
