"""Sorting and sets with jax.numpy's names: `sort`/`argsort` (flattening, booleans and complex numbers, which
order by real then imaginary part), `lexsort`, `partition`, and `unique` and the set functions, each taking
`size=`/`fill_value=` for a static length under `jit` as jax.numpy's do."""

from __future__ import annotations

import builtins
from collections import namedtuple
from typing import Any

from stridex._api import creation_functions as _cr
from stridex._api import elementwise_functions as _ew
from stridex._api import indexing_functions as _ix
from stridex._api import manipulation_functions as _manip
from stridex._api import searching_functions as _search
from stridex._api import set_functions as _set
from stridex._api import sorting_functions as _sort
from stridex._api import statistical_functions as _stat
from stridex._api import utility_functions as _util
from stridex._core import dtypes as _d
from stridex._core.array import Array
from stridex._lax import ops
from stridex.numpy import _args
from stridex.numpy import _dtypes as _jd
from stridex.numpy._indexing import _compact

__all__ = [
    "argpartition", "argsort", "intersect1d", "isin", "lexsort", "partition", "setdiff1d", "setxor1d", "sort",
    "sort_complex", "union1d", "unique", "unique_all", "unique_counts", "unique_inverse", "unique_values",
]

UniqueAllResult = namedtuple("UniqueAllResult", ["values", "indices", "inverse_indices", "counts"])
UniqueCountsResult = namedtuple("UniqueCountsResult", ["values", "counts"])
UniqueInverseResult = namedtuple("UniqueInverseResult", ["values", "inverse_indices"])


def _flat_or_axis(a: Array, axis, fname: str) -> tuple[Array, int]:
    if axis is None:
        return _manip.reshape(a, (-1,)), 0
    return a, _args.axis(axis, a.ndim, fname)


def _check_kind(kind, order, fname: str) -> None:
    if order is not None:
        raise ValueError(f"{fname}: 'order' argument is not supported (arrays have no fields)")
    if kind not in (None, "stable", "mergesort", "quicksort", "heapsort"):
        raise ValueError(f"{fname}: invalid kind {kind!r}")


def _argsort_along(a: Array, axis: int, stable: builtins.bool, descending: builtins.bool) -> Array:
    if a._dtype is _d.bool:
        a = _args.cast(a, _d.int8)
    if a._dtype.kind == "complex floating":
        # By real part, then imaginary part: two stable sorts, the primary key last.
        order = _sort.argsort(_ew.imag(a), axis=axis, stable=True, descending=descending)
        real = _ix.take_along_axis(_ew.real(a), order, axis=axis)
        return _ix.take_along_axis(order, _sort.argsort(real, axis=axis, stable=True, descending=descending),
                                   axis=axis)
    return _sort.argsort(a, axis=axis, stable=builtins.bool(stable), descending=builtins.bool(descending))


def sort(a: Any, axis: int | None = -1, *, kind: Any = None, order: Any = None, stable: builtins.bool = True,
         descending: builtins.bool = False) -> Array:
    """`a` sorted along `axis` (the flattened array when None); NaN last; complex numbers by real part, then
    imaginary part.

    >>> import stridex.numpy as jnp
    >>> jnp.sort(jnp.asarray([[3, 1], [2, 0]]), axis=None), jnp.sort(jnp.asarray([2.0, jnp.nan, 1.0]), descending=True)
    (Array([0, 1, 2, 3]), Array([nan,  2.,  1.]))
    """
    _check_kind(kind, order, "sort")
    a, axis = _flat_or_axis(_args.array(a, "sort"), axis, "sort")
    if a._dtype.kind in ("signed", "unsigned", "real floating"):
        return _sort.sort(a, axis=axis, stable=builtins.bool(stable), descending=builtins.bool(descending))
    return _ix.take_along_axis(a, _argsort_along(a, axis, stable, descending), axis=axis)


def argsort(a: Any, axis: int | None = -1, *, kind: Any = None, order: Any = None, stable: builtins.bool = True,
            descending: builtins.bool = False) -> Array:
    """The indices that sort `a` along `axis` (the flattened array when None); stable by default.

    >>> import stridex.numpy as jnp
    >>> jnp.argsort(jnp.asarray([3, 1, 2])), jnp.argsort(jnp.asarray([1, 3, 3]), descending=True)
    (Array([1, 2, 0]), Array([1, 2, 0]))
    """
    _check_kind(kind, order, "argsort")
    a, axis = _flat_or_axis(_args.array(a, "argsort"), axis, "argsort")
    return _argsort_along(a, axis, stable, descending)


def lexsort(keys: Any, axis: int = -1) -> Array:
    """The indices that sort by several keys: by the last key, ties broken by the one before, and so on.

    >>> import stridex.numpy as jnp
    >>> surnames, names = jnp.asarray([1, 0, 1, 0]), jnp.asarray([4, 3, 2, 1])
    >>> jnp.lexsort((names, surnames))
    Array([3, 1, 2, 0])
    """
    if isinstance(keys, (Array,)) or hasattr(keys, "__array__") and not isinstance(keys, (list, tuple)):
        keys = list(_manip.unstack(_args.array(keys, "lexsort")))
    keys = [_args.array(k, "lexsort", i) for i, k in enumerate(keys)]
    if not keys:
        raise TypeError("lexsort: need at least one key")
    shapes = {k.shape for k in keys}
    if len(shapes) > 1:
        raise ValueError(f"lexsort: all keys need to be the same shape, got {sorted(shapes)}")
    axis = _args.axis(axis, keys[0].ndim, "lexsort")
    order = _argsort_along(keys[0], axis, True, False)
    for key in keys[1:]:
        reordered = _ix.take_along_axis(key, order, axis=axis)
        order = _ix.take_along_axis(order, _argsort_along(reordered, axis, True, False), axis=axis)
    return order


def partition(a: Any, kth: int, axis: int = -1) -> Array:
    """`a` rearranged along `axis` so that the element at `kth` is the one a sort puts there, smaller ones
    before and larger ones after. (stridex sorts fully, which is one such arrangement; the order within the two
    sides is unspecified, in jax.numpy as in NumPy.)

    >>> import stridex.numpy as jnp
    >>> jnp.partition(jnp.asarray([5, 1, 4, 2]), 1)[1]
    Array(2)
    """
    a = _args.array(a, "partition")
    axis = _args.axis(axis, a.ndim, "partition")
    _check_kth(kth, a.shape[axis], "partition")
    return sort(a, axis=axis)


def argpartition(a: Any, kth: int, axis: int = -1) -> Array:
    """The indices that `partition` `a` (a stable argsort here; see `partition`).

    >>> import stridex.numpy as jnp
    >>> jnp.argpartition(jnp.asarray([5, 1, 4, 2]), 1)[1]
    Array(3)
    """
    a = _args.array(a, "argpartition")
    axis = _args.axis(axis, a.ndim, "argpartition")
    _check_kth(kth, a.shape[axis], "argpartition")
    return argsort(a, axis=axis)


def _check_kth(kth, n: int, fname: str) -> None:
    k = _args.index(kth, fname, "kth")
    if not -n <= k < n:
        raise ValueError(f"{fname}: kth {k} is out of bounds for an axis of length {n}")


def sort_complex(a: Any) -> Array:
    """`a` sorted (by real part, then imaginary part) as a complex array.

    >>> import stridex.numpy as jnp
    >>> jnp.sort_complex(jnp.asarray([1 + 2j, 1 - 1j, 0j]))
    Array([0.+0.j, 1.-1.j, 1.+2.j])
    """
    a = _args.array(a, "sort_complex")
    complex_dtype = _d.complex_of(_jd.TO_INEXACT[a._dtype]) if a._dtype.kind != "complex floating" else a._dtype
    return _args.cast(sort(a, axis=-1), complex_dtype)


# --- unique ---------------------------------------------------------------------------------------------


def _nan_mask(a: Array) -> Array | None:
    if a._dtype.kind == "complex floating":
        return _ew.logical_or(_ew.isnan(_ew.real(a)), _ew.isnan(_ew.imag(a)))
    return _ew.isnan(a) if a._dtype.kind == "real floating" else None


def _sorted_runs(rows: Array, equal_nan: builtins.bool) -> tuple[Array, Array, Array]:
    """(the rows of a 2-D array sorted, lexicographically and stably; the permutation; the mask of the rows
    that start a run of equal rows)."""
    n, width = rows.shape
    if width == 0:
        order = _cr.zeros((n,), dtype=_d.int64)
    else:
        order = lexsort([rows[:, j] for j in range(width - 1, -1, -1)], axis=0)
    ordered = _ix.take(rows, order, axis=0)
    if n == 0:
        return ordered, order, _cr.zeros((0,), dtype=_d.bool)
    differ = _ew.not_equal(ordered[1:], ordered[:-1])
    nan = _nan_mask(ordered)
    if equal_nan and nan is not None:
        differ = _ew.logical_and(differ, _ew.logical_not(_ew.logical_and(nan[1:], nan[:-1])))
    starts = _manip.concat([_cr.ones((1,), dtype=_d.bool), _util.any(differ, axis=1) if width else
                            _cr.zeros((n - 1,), dtype=_d.bool)])
    return ordered, order, starts


def _unique(ar: Array, axis, return_index, return_inverse, return_counts, equal_nan, size, fill_value, fname):
    out_shape: tuple[int, ...] = ()
    if axis is None:
        moved = _manip.reshape(ar, (-1, 1))
    else:
        axis = _args.axis(axis, ar.ndim, fname)
        moved = _manip.moveaxis(ar, axis, 0)
        out_shape = moved.shape[1:]
        moved = _manip.reshape(moved, (moved.shape[0], -1))
    n = moved.shape[0]
    if n == 0 and size and fill_value is None:
        raise ValueError(f"{fname}: for a zero-sized input with a nonzero size, fill_value must be given")
    ordered, order, starts = _sorted_runs(moved, equal_nan)
    if size is None:
        firsts = _search.nonzero(starts)[0]  # (the number of distinct values decides the length: data-dependent)
        count = firsts.shape[0]
        valid = None
    else:
        size = _args.index(size, fname, "size")
        firsts = _compact(starts, size, 0)
        count = size
        valid = _ew.less(_cr.arange(size), _stat.sum(_args.cast(starts, _d.int64)))
    values = _ix.take(ordered, firsts, axis=0) if n else _cr.zeros((count, moved.shape[1]), dtype=ar._dtype)
    if valid is not None:
        fill = ordered[0:1] if fill_value is None and n else _args.cast(_args.operand(
            0 if fill_value is None else fill_value, fname), ar._dtype)
        values = _search.where(_manip.reshape(valid, (-1, 1)), values, fill)
    values = _manip.reshape(values, (-1,)) if axis is None else _manip.moveaxis(
        _manip.reshape(values, (count,) + out_shape), 0, axis)
    results = [values]
    if return_index:
        index = _ix.take(order, firsts) if n else _cr.zeros((count,), dtype=_d.int64)
        results.append(index if valid is None else _search.where(valid, index, 0))
    if return_inverse:
        run = _ew.subtract(_stat.cumulative_sum(_args.cast(starts, _d.int64)), 1) if n else order
        inverse = ops.scatter(_cr.zeros((n,), dtype=_d.int64), run, (("array", 0),), order) if n else run
        results.append(_manip.reshape(inverse, ar.shape) if axis is None else inverse)
    if return_counts:
        ends = _manip.concat([firsts[1:], _cr.full((1,), n, dtype=_d.int64)]) if count else firsts
        if valid is not None:
            total = _stat.sum(_args.cast(starts, _d.int64))
            ends = _search.where(_ew.less(_cr.arange(count) + 1, total), ends, n) if count else ends
        counts = _ew.subtract(ends, firsts)
        results.append(counts if valid is None else _search.where(valid, counts, 0))
    return results[0] if len(results) == 1 else tuple(results)


def unique(ar: Any, return_index: builtins.bool = False, return_inverse: builtins.bool = False,
           return_counts: builtins.bool = False, axis: int | None = None, *, equal_nan: builtins.bool = True,
           size: int | None = None, fill_value: Any = None, sorted: builtins.bool = True) -> Any:
    """The sorted distinct values of `ar` (flattened, or the distinct slices along `axis`), and, if asked, the
    index of each one's first occurrence, the inverse (which distinct value each element is) and the counts.
    NaNs are one value unless `equal_nan=False`. With `size`, exactly that many values (padded with
    `fill_value`, default the smallest value), a static shape for `jit`.

    >>> import stridex.numpy as jnp
    >>> jnp.unique(jnp.asarray([3, 1, 3, 2])), jnp.unique(jnp.asarray([3, 1, 3]), return_counts=True)
    (Array([1, 2, 3]), (Array([1, 3]), Array([1, 2])))
    >>> jnp.unique(jnp.asarray([2, 2, 5]), size=3, fill_value=0)
    Array([2, 5, 0])
    """
    ar = _args.array(ar, "unique")
    return _unique(ar, axis, return_index, return_inverse, return_counts, equal_nan, size, fill_value, "unique")


def unique_values(x: Any, /, *, size: int | None = None, fill_value: Any = None) -> Array:
    """The sorted distinct values (the standard's function: each NaN is distinct).

    >>> import stridex.numpy as jnp
    >>> jnp.unique_values(jnp.asarray([2, 1, 2]))
    Array([1, 2])
    """
    x = _args.array(x, "unique_values")
    if size is None:
        return _set.unique_values(x)
    return _unique(x, None, False, False, False, False, size, fill_value, "unique_values")


def unique_counts(x: Any, /, *, size: int | None = None, fill_value: Any = None) -> UniqueCountsResult:
    """The distinct values and how often each occurs.

    >>> import stridex.numpy as jnp
    >>> jnp.unique_counts(jnp.asarray([2, 1, 2]))
    UniqueCountsResult(values=Array([1, 2]), counts=Array([1, 2]))
    """
    x = _args.array(x, "unique_counts")
    return UniqueCountsResult(*_unique(x, None, False, False, True, False, size, fill_value, "unique_counts"))


def unique_inverse(x: Any, /, *, size: int | None = None, fill_value: Any = None) -> UniqueInverseResult:
    """The distinct values and, for each element of `x`, which of them it is (in `x`'s shape).

    >>> import stridex.numpy as jnp
    >>> jnp.unique_inverse(jnp.asarray([2, 1, 2]))
    UniqueInverseResult(values=Array([1, 2]), inverse_indices=Array([1, 0, 1]))
    """
    x = _args.array(x, "unique_inverse")
    return UniqueInverseResult(*_unique(x, None, False, True, False, False, size, fill_value, "unique_inverse"))


def unique_all(x: Any, /, *, size: int | None = None, fill_value: Any = None) -> UniqueAllResult:
    """The distinct values, the index of each one's first occurrence, the inverse and the counts.

    >>> import stridex.numpy as jnp
    >>> jnp.unique_all(jnp.asarray([2, 1, 2])).indices
    Array([1, 0])
    """
    x = _args.array(x, "unique_all")
    return UniqueAllResult(*_unique(x, None, True, True, True, False, size, fill_value, "unique_all"))


# --- set functions ---------------------------------------------------------------------------------------


def _flat_pair(fname: str, ar1, ar2) -> tuple[Array, Array]:
    a, b = _args.promote(fname, _args.array(ar1, fname, 0), _args.array(ar2, fname, 1))
    return _manip.reshape(a, (-1,)), _manip.reshape(b, (-1,))


def _sized(values: Array, keep: Array, size, fill_value, fname: str) -> Array:
    """values[keep] (data-dependent), or its first `size` entries then `fill_value` (default: the smallest)."""
    if size is None:
        return _ix.take(values, _search.nonzero(keep)[0])
    size = _args.index(size, fname, "size")
    picked = _ix.take(values, _compact(keep, size, 0)) if values.shape[0] else _cr.zeros((size,), dtype=values._dtype)
    valid = _ew.less(_cr.arange(size), _stat.sum(_args.cast(keep, _d.int64)))
    if fill_value is None:
        fill = _stat.min(values) if values.shape[0] else _cr.zeros((), dtype=values._dtype)
    else:
        fill = _args.cast(_args.operand(fill_value, fname), values._dtype)
    return _search.where(valid, picked, fill)


def union1d(ar1: Any, ar2: Any, *, size: int | None = None, fill_value: Any = None) -> Array:
    """The sorted distinct values found in either array.

    >>> import stridex.numpy as jnp
    >>> jnp.union1d(jnp.asarray([3, 1]), jnp.asarray([1, 2]))
    Array([1, 2, 3])
    """
    a, b = _flat_pair("union1d", ar1, ar2)
    return unique(_manip.concat([a, b]), size=size, fill_value=fill_value)


def setdiff1d(ar1: Any, ar2: Any, assume_unique: builtins.bool = False, *, size: int | None = None,
              fill_value: Any = None) -> Array:
    """The sorted distinct values of `ar1` that are not in `ar2`.

    >>> import stridex.numpy as jnp
    >>> jnp.setdiff1d(jnp.asarray([4, 1, 2, 1]), jnp.asarray([2, 5]))
    Array([1, 4])
    """
    a, b = _flat_pair("setdiff1d", ar1, ar2)
    if assume_unique:
        values = a
    else:
        ordered, _, starts = _sorted_runs(_manip.reshape(a, (-1, 1)), True)
        values = _manip.reshape(ordered, (-1,))
        keep = _ew.logical_and(starts, _ew.logical_not(_set.isin(values, b)))
        return _sized(values, keep, size, fill_value, "setdiff1d")
    return _sized(values, _ew.logical_not(_set.isin(values, b)), size, fill_value, "setdiff1d")


def setxor1d(ar1: Any, ar2: Any, assume_unique: builtins.bool = False, *, size: int | None = None,
             fill_value: Any = None) -> Array:
    """The sorted values found in exactly one of the arrays.

    >>> import stridex.numpy as jnp
    >>> jnp.setxor1d(jnp.asarray([1, 2, 3]), jnp.asarray([2, 3, 4]))
    Array([1, 4])
    """
    a, b = _flat_pair("setxor1d", ar1, ar2)
    if not assume_unique:
        a, b = unique(a), unique(b)
    both = sort(_manip.concat([a, b]))
    n = both.shape[0]
    if n == 0:
        return _sized(both, _cr.zeros((0,), dtype=_d.bool), size, fill_value, "setxor1d")
    edges = _manip.concat([_cr.ones((1,), dtype=_d.bool), _ew.not_equal(both[1:], both[:-1]),
                           _cr.ones((1,), dtype=_d.bool)])
    return _sized(both, _ew.logical_and(edges[1:], edges[:-1]), size, fill_value, "setxor1d")


def intersect1d(ar1: Any, ar2: Any, assume_unique: builtins.bool = False, return_indices: builtins.bool = False, *,
                size: int | None = None, fill_value: Any = None) -> Any:
    """The sorted distinct values found in both arrays; with `return_indices`, also where each first occurs in
    each (flattened) array.

    >>> import stridex.numpy as jnp
    >>> jnp.intersect1d(jnp.asarray([1, 3, 4, 3]), jnp.asarray([3, 1, 2, 1]), return_indices=True)
    (Array([1, 3]), Array([0, 1]), Array([1, 0]))
    """
    a, b = _flat_pair("intersect1d", ar1, ar2)
    if assume_unique:
        first_a, first_b = _cr.arange(a.shape[0]), _cr.arange(b.shape[0])
    else:
        a, first_a = unique(a, return_index=True)
        b, first_b = unique(b, return_index=True)
    both = _manip.concat([a, b])
    order = _sort.argsort(both, stable=True) if both._dtype.kind != "complex floating" else argsort(both)
    ordered = _ix.take(both, order)
    if ordered.shape[0] < 2:
        keep = _cr.zeros((ordered.shape[0],), dtype=_d.bool)
    else:
        keep = _manip.concat([_ew.equal(ordered[1:], ordered[:-1]), _cr.zeros((1,), dtype=_d.bool)])
    values = _sized(ordered, keep, size, fill_value, "intersect1d")
    if not return_indices:
        return values
    if size is None:
        starts = _search.nonzero(keep)[0]
    else:
        starts = _compact(keep, _args.index(size, "intersect1d", "size"), 0)
    index_a = _ix.take(first_a, _ix.take(order, starts)) if starts.shape[0] else starts
    index_b = _ix.take(first_b, _ew.subtract(_ix.take(order, _ew.minimum(_ew.add(starts, 1), builtins.max(
        ordered.shape[0] - 1, 0))), a.shape[0])) if starts.shape[0] else starts
    return values, index_a, index_b


def isin(element: Any, test_elements: Any, assume_unique: builtins.bool = False, invert: builtins.bool = False, *,
         method: str = "auto") -> Array:
    """Whether each element of `element` is in `test_elements` (of any shape), in `element`'s shape.

    >>> import stridex.numpy as jnp
    >>> jnp.isin(jnp.asarray([[1, 2], [3, 4]]), jnp.asarray([2, 4]))
    Array([[False,  True],
           [False,  True]])
    """
    if method not in ("auto", "compare_all", "binary_search", "sort"):
        raise ValueError(f"isin: invalid method {method!r}")
    x, test = _args.promote("isin", _args.array(element, "isin", 0), _args.array(test_elements, "isin", 1))
    if x._dtype is _d.bool:
        x, test = _args.cast(x, _d.int8), _args.cast(test, _d.int8)
    return _set.isin(x, _manip.reshape(test, (-1,)), invert=builtins.bool(invert))
