"""Indexing with jax.numpy's names: gathers (`take`, `take_along_axis`, `choose`), selections (`where`, `select`,
`piecewise`, `compress`, `extract`), positions (`nonzero`, `argwhere`, `flatnonzero`, `unravel_index`,
`ravel_multi_index`), writes (`put`, `place`, `fill_diagonal`, ...), and `insert`/`delete`.

Functions whose result length depends on the data (`nonzero`, `argwhere`, `compress`, ...) take `size=` (and
`fill_value=`) as jax.numpy's do: the result then has that static length, so they compile under `jit` with no
graph break. Without `size` they run eagerly, and under `jit` they are a graph break (stridex's rule for
data-dependent shapes)."""

from __future__ import annotations

import builtins
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from stridex._api import creation_functions as _cr
from stridex._api import data_type_functions as _dt
from stridex._api import elementwise_functions as _ew
from stridex._api import indexing_functions as _ix
from stridex._api import manipulation_functions as _manip
from stridex._api import searching_functions as _search
from stridex._api import statistical_functions as _stat
from stridex._api import utility_functions as _util
from stridex._core import dtypes as _d
from stridex._core.array import Array
from stridex._lax import ops
from stridex.numpy import _args
from stridex.numpy import _dtypes as _jd

__all__ = [
    "argwhere", "choose", "compress", "delete", "extract", "fill_diagonal", "flatnonzero", "insert", "nonzero",
    "piecewise", "place", "put", "put_along_axis", "ravel_multi_index", "searchsorted", "select", "take",
    "take_along_axis", "trim_zeros", "unravel_index", "where",
]


def _fill_default(dtype) -> Any:
    """jax.numpy's value for out-of-bound gathers in "fill" mode: NaN, the most negative signed value, the largest
    unsigned value, or True."""
    if dtype is _d.bool:
        return True
    if dtype.kind == "signed":
        return int(np.iinfo(dtype.np).min)
    if dtype.kind == "unsigned":
        return int(np.iinfo(dtype.np).max)
    return complex(np.nan, np.nan) if dtype.kind == "complex floating" else float("nan")


def _filled_indices(indices: Array, n: int, fname: str) -> tuple[Array, Array]:
    """jax.numpy's "fill" mode: (indices safe to gather with, the mask of valid ones); negative indices wrap
    once, others out of range are invalid."""
    if indices._dtype.kind not in ("signed", "unsigned"):
        raise TypeError(f"{fname}: indices must be integers, got {indices._dtype.name}")
    indices = _args.cast(indices, _d.int64)
    wrapped = _search.where(_ew.less(indices, 0), _ew.add(indices, n), indices)
    valid = _ew.logical_and(_ew.greater_equal(wrapped, 0), _ew.less(wrapped, n))
    return _search.where(valid, wrapped, 0), valid


def _bounded_indices(indices: Array, n: int, mode, fname: str) -> tuple[Array, Array | None]:
    """(indices safe to gather with, the mask of valid ones or None) for jax.numpy's modes: "fill" (the
    default, see `_filled_indices`), "clip" and "wrap"."""
    if mode is None or mode == "fill":
        return _filled_indices(indices, n, fname)
    if indices._dtype.kind not in ("signed", "unsigned"):
        raise TypeError(f"{fname}: indices must be integers, got {indices._dtype.name}")
    indices = _args.cast(indices, _d.int64)
    if mode == "clip":
        return _ew.minimum(_ew.maximum(indices, 0), builtins.max(n - 1, 0)), None
    if mode == "wrap":
        return _ew.remainder(indices, n), None
    if mode == "raise":
        raise NotImplementedError(f"{fname}: mode='raise' is not supported (as in jax.numpy); use 'fill', 'clip' or "
                                  "'wrap'")
    raise ValueError(f"{fname}: invalid mode {mode!r}; expected 'fill', 'clip' or 'wrap'")


def take(a: Any, indices: Any, axis: int | None = None, out: None = None, mode: str | None = None,
         unique_indices: builtins.bool = False, indices_are_sorted: builtins.bool = False,
         fill_value: Any = None) -> Array:
    """The elements of `a` at `indices` (any shape) along `axis` (of the flattened `a` when None). Out-of-range
    indices follow jax.numpy's `mode`: "fill" (the default: `fill_value`, or NaN / the most negative integer /
    True; negative indices count from the end), "clip" or "wrap".

    >>> import stridex.numpy as jnp
    >>> x = jnp.asarray([10.0, 20.0, 30.0])
    >>> jnp.take(x, jnp.asarray([[0, 2], [-1, 5]])), jnp.take(x, jnp.asarray([5]), mode="clip")
    (Array([[10., 30.],
           [30., nan]]), Array([30.]))
    """
    _args.no_out(out, "take")
    a = _args.array(a, "take")
    indices = _args.array(indices, "take", 1)
    if axis is None:
        a, axis = _manip.reshape(a, (-1,)), 0
    axis = _args.axis(axis, a.ndim, "take")
    n = a.shape[axis]
    if n == 0:
        if indices.size:
            raise IndexError("take: cannot do a non-empty take from an empty axis")
        return a
    safe, valid = _bounded_indices(indices, n, mode, "take")
    out_array = _gather_along(a, safe, axis)
    if valid is None:
        return out_array
    fill = _fill_default(a._dtype) if fill_value is None else fill_value
    mask = _manip.reshape(valid, (1,) * axis + valid.shape + (1,) * (a.ndim - axis - 1))
    return _search.where(mask, out_array, _args.cast(_args.operand(fill, "take"), a._dtype))


def _gather_along(a: Array, indices: Array, axis: int) -> Array:
    """a[..., indices, ...] with `indices` (any shape) at `axis`."""
    if indices.ndim == 1:
        return _ix.take(a, indices, axis=axis)
    flat = _ix.take(a, _manip.reshape(indices, (-1,)), axis=axis)
    return _manip.reshape(flat, a.shape[:axis] + indices.shape + a.shape[axis + 1:])


def take_along_axis(arr: Any, indices: Any, axis: int | None = -1, mode: str | None = None,
                    fill_value: Any = None) -> Array:
    """The elements of `arr` at `indices` along `axis` (the flattened array when None), the other axes
    broadcast: what `argsort` and `argmax(keepdims=True)` give back. Out-of-range indices as in `take`.

    >>> import stridex.numpy as jnp
    >>> x = jnp.asarray([[3, 1, 2], [9, 7, 8]])
    >>> jnp.take_along_axis(x, jnp.argsort(x, axis=1), axis=1)
    Array([[1, 2, 3],
           [7, 8, 9]])
    """
    arr = _args.array(arr, "take_along_axis")
    indices = _args.array(indices, "take_along_axis", 1)
    if axis is None:
        arr, axis = _manip.reshape(arr, (-1,)), 0
        indices = _manip.reshape(indices, (-1,))
    axis = _args.axis(axis, arr.ndim, "take_along_axis")
    if indices.ndim != arr.ndim:
        raise ValueError(f"take_along_axis: indices and arr must have the same number of dimensions, got "
                         f"{indices.ndim} and {arr.ndim}")
    n = arr.shape[axis]
    safe, valid = _bounded_indices(indices, builtins.max(n, 1), mode, "take_along_axis")
    shape = list(_manip.broadcast_shapes(tuple(1 if i == axis else s for i, s in enumerate(arr.shape)),
                                         tuple(1 if i == axis else s for i, s in enumerate(indices.shape))))
    arr = _manip.broadcast_to(arr, tuple(shape[:axis] + [n] + shape[axis + 1:]))
    safe = _manip.broadcast_to(safe, tuple(shape[:axis] + [indices.shape[axis]] + shape[axis + 1:]))
    out = _ix.take_along_axis(arr, safe, axis=axis)
    if valid is None:
        return out
    fill = _fill_default(arr._dtype) if fill_value is None else fill_value
    return _search.where(_manip.broadcast_to(valid, out.shape), out, _args.cast(_args.operand(fill, "take"),
                                                                                arr._dtype))


def choose(a: Any, choices: Any, out: None = None, mode: str = "raise") -> Array:
    """Element i of the result is `choices[a[i]][i]` (the choices broadcast together with `a`). Out-of-range
    choices follow `mode`: "clip", "wrap", or "raise" (checked eagerly; under `jit` jax.numpy cannot raise, and
    stridex's check is then a graph break).

    >>> import stridex.numpy as jnp
    >>> jnp.choose(jnp.asarray([0, 1, 0]), [jnp.asarray([1, 2, 3]), jnp.asarray([10, 20, 30])])
    Array([ 1, 20,  3])
    """
    _args.no_out(out, "choose")
    a = _args.array(a, "choose")
    items = list(_manip.unstack(_args.array(choices, "choose", 1))) if isinstance(choices, (Array, np.ndarray)) \
        else [_args.operand(c, "choose", 1) for c in choices]
    dtype = _args.promoted_dtype("choose", *items)
    items = [_args.cast(c, dtype) for c in items]
    n = len(items)
    if mode == "raise":
        if builtins.bool(_search_any(_ew.logical_or(_ew.less(a, 0), _ew.greater_equal(a, n)))):
            raise ValueError(f"choose: invalid entry in the choice array (every entry must be in [0, {n}))")
        index = a
    elif mode == "clip":
        index = _ew.minimum(_ew.maximum(a, 0), n - 1)
    elif mode == "wrap":
        index = _ew.remainder(a, n)
    else:
        raise ValueError(f"choose: invalid mode {mode!r}; expected 'raise', 'clip' or 'wrap'")
    shape = _manip.broadcast_shapes(index.shape, *(c.shape for c in items))
    stacked = _manip.stack([_manip.broadcast_to(c, shape) for c in items])
    index = _manip.expand_dims(_manip.broadcast_to(_args.cast(index, _d.int64), shape), axis=0)
    return _manip.squeeze(_ix.take_along_axis(stacked, index, axis=0), 0)


def _search_any(x: Array) -> Array:
    return _util.any(x)


def where(condition: Any, x: Any = None, y: Any = None, /, *, size: int | None = None,
          fill_value: Any = None) -> Any:
    """`x` where `condition` is true and `y` elsewhere (broadcast, promoted as jax.numpy promotes); with the
    condition alone, `nonzero(condition, size=size, fill_value=fill_value)`.

    >>> import stridex.numpy as jnp
    >>> jnp.where(jnp.asarray([True, False]), 1, 2.5), jnp.where(jnp.asarray([0, 3, 0, 4]))
    (Array([1. , 2.5]), (Array([1, 3]),))
    """
    if type(condition) is Array and type(x) is Array and type(y) is Array and condition._dtype is _d.bool and \
            x._dtype is y._dtype:
        return _search.where(condition, x, y)  # (the common call: nothing to convert or promote)
    if x is None and y is None:
        return nonzero(condition, size=size, fill_value=fill_value)
    if x is None or y is None:
        raise ValueError("where: either both or neither of x and y should be given")
    if size is not None or fill_value is not None:
        raise ValueError("where: size and fill_value are for the one-argument form only")
    condition = _args.array(condition, "where")
    if condition._dtype is not _d.bool:
        condition = _ew.not_equal(condition, 0)
    x, y = _args.promote("where", x, y, keep_scalars=True)
    if not isinstance(x, Array) and not isinstance(y, Array):
        dtype = _args.promoted_dtype("where", x, y)
        x = _args.cast(x, dtype)
    return _search.where(condition, x, y)


def _compact(mask: Array, size: int, fill: Any = 0) -> Array:
    """The positions of the first `size` true entries of a 1-D mask, in order, then `fill`: a static length, by
    one scatter of each position into its rank (the other positions go to a slot that is dropped)."""
    n = mask.shape[0]
    ranks = _ew.subtract(_stat.cumulative_sum(_args.cast(mask, _d.int64)), 1)
    slots = _search.where(_ew.logical_and(mask, _ew.less(ranks, size)), ranks, size)
    positions = ops.scatter(_cr.zeros((size + 1,), dtype=_d.int64), _cr.arange(n), (("array", 0),), slots)[:size]
    count = _stat.sum(_args.cast(mask, _d.int64))
    return _search.where(_ew.less(_cr.arange(size), count), positions, _args.cast(_args.operand(fill, "nonzero"),
                                                                                  _d.int64))


def nonzero(a: Any, *, size: int | None = None, fill_value: Any = None) -> tuple[Array, ...]:
    """The indices of the nonzero elements, one array per axis. With `size`, exactly that many (cut, or padded
    with `fill_value`, default 0), a static shape for `jit`.

    >>> import stridex.numpy as jnp
    >>> x = jnp.asarray([[0, 5], [7, 0]])
    >>> jnp.nonzero(x), jnp.nonzero(jnp.asarray([0, 1, 1]), size=4, fill_value=-1)
    ((Array([0, 1]), Array([1, 0])), (Array([ 1,  2, -1, -1]),))
    """
    a = _args.array(a, "nonzero")
    if a.ndim == 0:
        raise ValueError("Calling nonzero on 0d arrays is not allowed; use atleast_1d(x) first")
    mask = a if a._dtype is _d.bool else _ew.not_equal(a, 0)
    if size is None:
        if fill_value is not None:
            raise ValueError("nonzero: fill_value needs size")
        return _search.nonzero(mask)
    size = _args.index(size, "nonzero", "size")
    flat = _compact(_manip.reshape(mask, (-1,)), size, 0)
    coordinates = unravel_index(flat, a.shape)
    if fill_value is None:
        return coordinates
    fills = fill_value if isinstance(fill_value, tuple) else (fill_value,) * a.ndim
    if len(fills) != a.ndim:
        raise ValueError(f"nonzero: fill_value must be a scalar or a tuple of length {a.ndim}, got {fill_value!r}")
    valid = _ew.less(_cr.arange(size), _stat.sum(_args.cast(mask, _d.int64)))
    return tuple(_search.where(valid, c, _args.cast(_args.operand(f, "nonzero"), _d.int64))
                 for c, f in zip(coordinates, fills))


def argwhere(a: Any, *, size: int | None = None, fill_value: Any = None) -> Array:
    """The indices of the nonzero elements, one row per element (`size`, `fill_value` as in `nonzero`).

    >>> import stridex.numpy as jnp
    >>> jnp.argwhere(jnp.asarray([[0, 5], [7, 0]]))
    Array([[0, 1],
           [1, 0]])
    """
    a = _args.array(a, "argwhere")
    if a.ndim == 0:  # (NumPy's answer: one row, or none, of zero coordinates)
        rows = nonzero(_manip.reshape(a, (1,)), size=size, fill_value=fill_value)[0]
        return _manip.reshape(rows, (-1, 1))[:, :0]
    return _manip.stack(nonzero(a, size=size, fill_value=fill_value), axis=1)


def flatnonzero(a: Any, *, size: int | None = None, fill_value: Any = None) -> Array:
    """The indices of the nonzero elements of the flattened array.

    >>> import stridex.numpy as jnp
    >>> jnp.flatnonzero(jnp.asarray([[0, 5], [7, 0]]))
    Array([1, 2])
    """
    return nonzero(_manip.reshape(_args.array(a, "flatnonzero"), (-1,)), size=size, fill_value=fill_value)[0]


def compress(condition: Any, a: Any, axis: int | None = None, *, size: int | None = None, fill_value: Any = 0,
             out: None = None) -> Array:
    """The slices of `a` along `axis` (the flattened array when None) where the 1-D `condition` is true
    (`size` and `fill_value` give a static length, as in `nonzero`).

    >>> import stridex.numpy as jnp
    >>> jnp.compress(jnp.asarray([True, False, True]), jnp.asarray([[1, 2, 3], [4, 5, 6]]), axis=1)
    Array([[1, 3],
           [4, 6]])
    """
    _args.no_out(out, "compress")
    condition = _args.array(condition, "compress")
    a = _args.array(a, "compress", 1)
    if condition.ndim != 1:
        raise ValueError(f"compress: condition must be a 1-D array, got shape {condition.shape}")
    if axis is None:
        a, axis = _manip.reshape(a, (-1,)), 0
    axis = _args.axis(axis, a.ndim, "compress")
    mask = condition if condition._dtype is _d.bool else _ew.not_equal(condition, 0)
    n = a.shape[axis]
    if mask.shape[0] > n:
        raise ValueError(f"compress: condition of length {mask.shape[0]} is longer than axis {axis} ({n})")
    mask = _manip.concat([mask, _cr.zeros((n - mask.shape[0],), dtype=_d.bool)]) if mask.shape[0] < n else mask
    if size is None:
        return _gather_along(a, _search.nonzero(mask)[0], axis)
    size = _args.index(size, "compress", "size")
    positions = _compact(mask, size, 0)
    picked = _gather_along(a, positions, axis)
    valid = _ew.less(_cr.arange(size), _stat.sum(_args.cast(mask, _d.int64)))
    valid = _manip.reshape(valid, (1,) * axis + (size,) + (1,) * (a.ndim - axis - 1))
    return _search.where(valid, picked, _args.cast(_args.operand(fill_value, "compress"), a._dtype))


def extract(condition: Any, arr: Any, *, size: int | None = None, fill_value: Any = 0) -> Array:
    """The elements of the flattened `arr` where the flattened `condition` is true.

    >>> import stridex.numpy as jnp
    >>> x = jnp.asarray([[1, 2], [3, 4]])
    >>> jnp.extract(x > 1, x), jnp.extract(x > 1, x, size=4, fill_value=-1)
    (Array([2, 3, 4]), Array([ 2,  3,  4, -1]))
    """
    condition = _manip.reshape(_args.array(condition, "extract"), (-1,))
    return compress(condition, _manip.reshape(_args.array(arr, "extract", 1), (-1,)), size=size,
                    fill_value=fill_value)


def select(condlist: Sequence[Any], choicelist: Sequence[Any], default: Any = 0) -> Array:
    """For each element, the choice of the first true condition, or `default` where none is.

    >>> import stridex.numpy as jnp
    >>> x = jnp.arange(6)
    >>> jnp.select([x < 2, x > 3], [x, x ** 2], default=-1)
    Array([ 0,  1, -1, -1, 16, 25])
    """
    if len(condlist) != len(choicelist):
        raise ValueError(f"select: condlist and choicelist must have the same length, got {len(condlist)} and "
                         f"{len(choicelist)}")
    if not condlist:
        raise ValueError("select: condlist must not be empty")
    conditions = [_args.array(c, "select") for c in condlist]
    for c in conditions:
        if c._dtype is not _d.bool:
            raise TypeError(f"select: conditions must be boolean arrays, got {c._dtype.name}")
    choices = _args.promote("select", *choicelist, default)
    out = choices[-1]
    for condition, choice in zip(reversed(conditions), reversed(choices[:-1])):
        out = _search.where(condition, choice, out)
    return out


def piecewise(x: Any, condlist: Any, funclist: Sequence[Any], *args: Any, **kw: Any) -> Array:
    """Each function (or constant) of `funclist` applied where its condition holds: one function per
    condition, plus optionally a last one for the elements no condition selects (zero otherwise); where several
    conditions hold, the last wins. Every function is evaluated on all of `x` and the results selected.

    >>> import stridex.numpy as jnp
    >>> x = jnp.asarray([-2.0, 0.5, 3.0])
    >>> jnp.piecewise(x, [x < 0, x > 1], [lambda v: -v, lambda v: v * 10, 0.0])
    Array([ 2.,  0., 30.])
    """
    x = _args.array(x, "piecewise")
    conditions = list(condlist) if isinstance(condlist, (list, tuple)) else [condlist]
    conditions = [_args.array(c, "piecewise") for c in conditions]
    if conditions and conditions[0].ndim == x.ndim + 1 and len(conditions) == 1:
        conditions = list(_manip.unstack(conditions[0]))
    n = len(conditions)
    if len(funclist) not in (n, n + 1):
        raise ValueError(f"piecewise: with {n} conditions, funclist must have {n} or {n + 1} entries, got "
                         f"{len(funclist)}")

    def value(f) -> Array:
        out = f(x, *args, **kw) if callable(f) else f
        return _args.cast(_args.operand(out, "piecewise"), x._dtype)

    out = value(funclist[n]) if len(funclist) == n + 1 else _cr.zeros((), dtype=x._dtype)
    out = _manip.broadcast_to(out, x.shape)
    for condition, f in zip(conditions, funclist[:n]):
        out = _search.where(condition, value(f), out)
    return out


# --- flat and multi-dimensional indices -------------------------------------------------------------------


def unravel_index(indices: Any, shape: Any) -> tuple[Array, ...]:
    """The coordinates in an array of `shape` of flat indices (negative ones count from the end, clipped to the
    array as jax.numpy clips them).

    >>> import stridex.numpy as jnp
    >>> jnp.unravel_index(jnp.asarray([5, 7]), (2, 4))
    (Array([1, 1]), Array([1, 3]))
    """
    indices = _args.array(indices, "unravel_index")
    shape = _args.shape_tuple(shape, "unravel_index")
    if indices._dtype.kind not in ("signed", "unsigned"):
        raise TypeError(f"unravel_index: indices must be integers, got {indices._dtype.name}")
    total = int(np.prod(shape))
    flat = _args.cast(indices, _d.int64)
    flat = _search.where(_ew.less(flat, 0), _ew.add(flat, total), flat)
    flat = _ew.minimum(_ew.maximum(flat, 0), builtins.max(total - 1, 0))
    out = []
    for n in reversed(shape):
        out.append(_ew.remainder(flat, n) if n else flat)
        flat = _ew.floor_divide(flat, n) if n else flat
    return tuple(_args.cast(c, _d.int64) for c in reversed(out))


def ravel_multi_index(multi_index: Sequence[Any], dims: Sequence[int], mode: str = "raise",
                      order: str = "C") -> Array:
    """The flat indices of coordinates in an array of shape `dims` (C or Fortran order). Out-of-range
    coordinates follow `mode`: "clip", "wrap", or "raise" (checked eagerly; a graph break under `jit`).

    >>> import stridex.numpy as jnp
    >>> jnp.ravel_multi_index((jnp.asarray([1, 0]), jnp.asarray([2, 3])), (2, 4))
    Array([6, 3])
    """
    dims = _args.shape_tuple(dims, "ravel_multi_index")
    if len(multi_index) != len(dims):
        raise ValueError(f"ravel_multi_index: {len(multi_index)} index arrays for {len(dims)} dimensions")
    if order not in ("C", "F"):
        raise ValueError(f"ravel_multi_index: order must be 'C' or 'F', got {order!r}")
    coords = [_args.cast(_args.array(i, "ravel_multi_index", k), _d.int64) for k, i in enumerate(multi_index)]
    for c in coords:
        if c._dtype.kind not in ("signed", "unsigned"):
            raise TypeError(f"ravel_multi_index: indices must be integers, got {c._dtype.name}")
    if mode == "raise":
        bad = [_ew.logical_or(_ew.less(c, 0), _ew.greater_equal(c, n)) for c, n in zip(coords, dims)]
        if bad and builtins.any(builtins.bool(_search_any(b)) for b in bad):
            raise ValueError(f"ravel_multi_index: invalid entry in coordinates array for dims {dims}")
    elif mode == "clip":
        coords = [_ew.minimum(_ew.maximum(c, 0), n - 1) for c, n in zip(coords, dims)]
    elif mode == "wrap":
        coords = [_ew.remainder(c, n) for c, n in zip(coords, dims)]
    else:
        raise ValueError(f"ravel_multi_index: invalid mode {mode!r}; expected 'raise', 'clip' or 'wrap'")
    strides = np.cumprod((1,) + tuple(dims[::-1]))[:-1][::-1] if order == "C" else np.cumprod((1,) + tuple(dims))[:-1]
    out = _cr.zeros((), dtype=_d.int64)
    for c, stride in zip(coords, strides.tolist()):
        out = _ew.add(out, _ew.multiply(c, int(stride)))
    return out


def searchsorted(a: Any, v: Any, side: str = "left", sorter: Any = None, *, method: str = "scan") -> Array:
    """Where the elements of `v` would be inserted into the sorted 1-D `a` to keep it sorted (before equal
    elements with side="left", after with "right"); `method` is accepted for jax.numpy's signature.

    >>> import stridex.numpy as jnp
    >>> jnp.searchsorted(jnp.asarray([1, 3, 5]), jnp.asarray([0, 3, 6])), jnp.searchsorted(jnp.asarray([1, 3]), 3, side="right")
    (Array([0, 1, 3]), Array(2))
    """
    if method not in ("scan", "scan_unrolled", "sort", "compare_all"):
        raise ValueError(f"searchsorted: invalid method {method!r}")
    a, v = _args.promote("searchsorted", a, v)
    if a.ndim != 1:
        raise ValueError(f"searchsorted: a must be 1-D, got shape {a.shape}")
    sorter = None if sorter is None else _args.array(sorter, "searchsorted", 3)
    if side not in ("left", "right"):
        raise ValueError(f"searchsorted: side must be 'left' or 'right', got {side!r}")
    if a._dtype is _d.bool:
        a, v = _args.cast(a, _d.int8), _args.cast(v, _d.int8)
    return _search.searchsorted(a, v, side="left" if side == "left" else "right", sorter=sorter)


# --- writes -----------------------------------------------------------------------------------------------
# Each write is computed as a functional scatter (one `scatter` primitive: under `jit` one XLA scatter, and
# differentiable); `inplace=True` then writes the result into the array, NumPy's meaning (stridex arrays can be
# written: every view of `a` sees it), while `inplace=False`, what jax.numpy requires, returns it.


def _scattered(a: Array, coordinates: tuple, values) -> Array:
    """A copy of `a` with a[coordinates] set to `values` (broadcast to the coordinates' shape)."""
    shape = _manip.broadcast_shapes(*(c.shape for c in coordinates))
    coordinates = tuple(_manip.broadcast_to(c, shape) for c in coordinates)
    values = _manip.broadcast_to(_args.cast(_args.operand(values, "scatter"), a._dtype), shape)
    template = tuple(("array", i) for i in range(len(coordinates)))
    return ops.scatter(a, values, template, *coordinates)


def _finish(a: Array, result: Array, inplace: builtins.bool) -> Array | None:
    if not inplace:
        return result
    a[...] = result
    return None


def _flat_positions(ind, n: int, mode, fname: str) -> tuple[Array, Array]:
    """(positions in a flat buffer of n + 1 elements, ...): out-of-range indices go to the extra, dropped slot
    (jax.numpy drops out-of-bound writes) unless `mode` clips or wraps them."""
    ind = _manip.reshape(_args.cast(_args.array(ind, fname, 1), _d.int64), (-1,))
    if mode in ("clip", "wrap"):
        return _bounded_indices(ind, n, mode, fname)[0], ind
    if mode not in (None, "fill", "raise"):
        raise ValueError(f"{fname}: invalid mode {mode!r}; expected 'clip' or 'wrap'")
    safe, valid = _filled_indices(ind, n, fname)
    return _search.where(valid, safe, n), ind


def _put_flat(a: Array, ind, values, mode, fname: str) -> Array:
    n = a.size
    positions, ind = _flat_positions(ind, n, mode, fname)
    values = _manip.reshape(_args.cast(_args.operand(values, fname, 2), a._dtype), (-1,))
    if values.shape[0] == 0 or positions.shape[0] == 0:
        return _cr.asarray(a, copy=True)
    values = _manip.tile(values, (-(-positions.shape[0] // values.shape[0]),))[:positions.shape[0]]
    flat = _manip.concat([_manip.reshape(a, (-1,)), _cr.zeros((1,), dtype=a._dtype)])
    return _manip.reshape(_scattered(flat, (positions,), values)[:n], a.shape)


def put(a: Any, ind: Any, v: Any, mode: str | None = None, *, inplace: builtins.bool = True) -> Array | None:
    """Set the elements of the flattened `a` at `ind` to `v` (repeated as needed). stridex arrays can be
    written: `inplace=True` (NumPy's meaning) writes `a` and returns None; `inplace=False` (what jax.numpy
    requires) returns a written copy. Out-of-range indices are dropped, or clipped or wrapped with `mode`.

    >>> import stridex.numpy as jnp
    >>> x = jnp.zeros(4, dtype=int)
    >>> jnp.put(x, jnp.asarray([0, 2]), jnp.asarray([5, 7]), inplace=False), x
    (Array([5, 0, 7, 0]), Array([0, 0, 0, 0]))
    >>> jnp.put(x, 1, 3), x
    (None, Array([0, 3, 0, 0]))
    """
    a = _args.array(a, "put")
    return _finish(a, _put_flat(a, ind, v, mode, "put"), inplace)


def put_along_axis(arr: Any, indices: Any, values: Any, axis: int | None, inplace: builtins.bool = True, *,
                   mode: str | None = None) -> Array | None:
    """Set arr[..., indices, ...] along `axis` to `values` (the counterpart of `take_along_axis`); `inplace` and
    `mode` as in `put`.

    >>> import stridex.numpy as jnp
    >>> x = jnp.zeros((2, 3), dtype=int)
    >>> jnp.put_along_axis(x, jnp.asarray([[1], [2]]), 9, axis=1, inplace=False)
    Array([[0, 9, 0],
           [0, 0, 9]])
    """
    a = _args.array(arr, "put_along_axis")
    target = a if axis is not None else _manip.reshape(a, (-1,))
    indices = _args.cast(_args.array(indices, "put_along_axis", 1), _d.int64)
    if axis is None:
        indices, axis = _manip.reshape(indices, (-1,)), 0
    axis = _args.axis(axis, target.ndim, "put_along_axis")
    if indices.ndim != target.ndim:
        raise ValueError(f"put_along_axis: indices and arr must have the same number of dimensions, got "
                         f"{indices.ndim} and {target.ndim}")
    n = target.shape[axis]
    if mode in ("clip", "wrap"):
        indices = _bounded_indices(indices, n, mode, "put_along_axis")[0]
        padded = target
    else:
        safe, valid = _filled_indices(indices, n, "put_along_axis")
        indices = _search.where(valid, safe, n)  # (out of range: the extra slot, dropped)
        pad_shape = list(target.shape)
        pad_shape[axis] = 1
        padded = _manip.concat([target, _cr.zeros(tuple(pad_shape), dtype=target._dtype)], axis=axis)
    shape = _manip.broadcast_shapes(indices.shape, tuple(1 if i == axis else s for i, s in enumerate(target.shape)))
    coordinates = []
    for i, length in enumerate(shape):
        if i == axis:
            coordinates.append(_manip.broadcast_to(indices, shape))
        else:
            along = [1] * len(shape)
            along[i] = length
            coordinates.append(_manip.reshape(_cr.arange(length), tuple(along)))
    written = _scattered(padded, tuple(coordinates), values)
    if padded is not target:
        written = written[(slice(None),) * axis + (slice(0, n),)]
    return _finish(a, _manip.reshape(written, a.shape), inplace)


def place(arr: Any, mask: Any, vals: Any, *, inplace: builtins.bool = True) -> Array | None:
    """Set the elements of `arr` where `mask` is true to the values of `vals`, in order (repeated as needed);
    `inplace` as in `put`. Which elements are written depends on the mask's values (a graph break under `jit`).

    >>> import stridex.numpy as jnp
    >>> x = jnp.arange(5)
    >>> jnp.place(x, x > 2, jnp.asarray([-1]), inplace=False)
    Array([ 0,  1,  2, -1, -1])
    """
    a = _args.array(arr, "place")
    mask = _manip.reshape(_args.array(mask, "place", 1), (-1,))
    positions = _search.nonzero(mask if mask._dtype is _d.bool else _ew.not_equal(mask, 0))[0]
    return _finish(a, _put_flat(a, positions, vals, None, "place"), inplace)


def fill_diagonal(a: Any, val: Any, wrap: builtins.bool = False, *, inplace: builtins.bool = True) -> Array | None:
    """Set the main diagonal of `a` (2-D, or n-D with equal axes) to `val` (repeated as needed); for a tall
    matrix, `wrap` restarts the diagonal every n + 1 rows. `inplace` as in `put`.

    >>> import stridex.numpy as jnp
    >>> jnp.fill_diagonal(jnp.zeros((2, 3), dtype=int), 5, inplace=False)
    Array([[5, 0, 0],
           [0, 5, 0]])
    """
    a = _args.array(a, "fill_diagonal")
    if a.ndim < 2:
        raise ValueError(f"fill_diagonal: the array must be at least 2-D, got shape {a.shape}")
    if a.ndim > 2 and len(set(a.shape)) != 1:
        raise ValueError(f"fill_diagonal: all dimensions of an n-D array must have one length, got {a.shape}")
    if a.ndim == 2:
        rows, cols = a.shape
        step = cols + 1
        end = rows * cols if wrap else builtins.min(rows, cols) * cols
    else:
        step = int(np.sum(np.cumprod((1,) + a.shape[:-1])))
        end = int(np.prod(a.shape))
    return _finish(a, _put_flat(a, _cr.arange(0, end, step), val, None, "fill_diagonal"), inplace)


# --- insert and delete (positions known on the host) ------------------------------------------------------


def _static_positions(obj, n: int, fname: str) -> np.ndarray:
    if isinstance(obj, slice):
        return np.arange(n)[obj]
    if isinstance(obj, Array):
        obj = np.asarray(obj)  # (a graph break under jit: the positions decide the shape)
    positions = np.asarray(obj)
    if positions.dtype.kind == "b":
        if positions.shape != (n,):
            raise ValueError(f"{fname}: a boolean obj must have the axis' length {n}, got shape {positions.shape}")
        return np.nonzero(positions)[0]
    if positions.dtype.kind not in "iu" and positions.size:
        raise IndexError(f"{fname}: obj must be integers, a slice or a boolean mask, got {positions.dtype}")
    return positions.astype(np.int64)


def delete(arr: Any, obj: Any, axis: int | None = None, *, assume_unique_indices: builtins.bool = False) -> Array:
    """`arr` without the entries at `obj` (an int, a sequence, a slice or a boolean mask) along `axis` (the
    flattened array when None). The positions decide the result's shape, so they are read on the host (a graph
    break under `jit` if they are traced).

    >>> import stridex.numpy as jnp
    >>> jnp.delete(jnp.arange(5), [0, 3]), jnp.delete(jnp.asarray([[1, 2], [3, 4]]), 0, axis=1)
    (Array([1, 2, 4]), Array([[2],
           [4]]))
    """
    arr = _args.array(arr, "delete")
    if axis is None:
        arr, axis = _manip.reshape(arr, (-1,)), 0
    axis = _args.axis(axis, arr.ndim, "delete")
    n = arr.shape[axis]
    positions = _static_positions(obj, n, "delete")
    if positions.size and (positions.min() < -n or positions.max() >= n):
        raise IndexError(f"delete: index out of bounds for axis {axis} of size {n}")
    keep = np.ones(n, dtype=bool)
    keep[positions % builtins.max(n, 1)] = False
    return _ix.take(arr, _cr.asarray(np.nonzero(keep)[0].astype(np.int64)), axis=axis)


def insert(arr: Any, obj: Any, values: Any, axis: int | None = None) -> Array:
    """`arr` with `values` inserted before the positions `obj` (an int, a sequence or a slice) along `axis` (the
    flattened array when None). As in `delete`, the positions are read on the host.

    >>> import stridex.numpy as jnp
    >>> jnp.insert(jnp.asarray([1, 2, 3]), 1, 9), jnp.insert(jnp.asarray([1, 2, 3]), [0, 3], jnp.asarray([7, 8]))
    (Array([1, 9, 2, 3]), Array([7, 1, 2, 3, 8]))
    """
    arr = _args.array(arr, "insert")
    if axis is None:
        arr, axis = _manip.reshape(arr, (-1,)), 0
    axis = _args.axis(axis, arr.ndim, "insert")
    n = arr.shape[axis]
    scalar_position = isinstance(obj, (int, np.integer)) or (isinstance(obj, (Array, np.ndarray)) and obj.ndim == 0)
    positions = np.atleast_1d(_static_positions(obj, n + 1, "insert"))
    if positions.size and (positions.min() < -n or positions.max() > n):
        raise IndexError(f"insert: index out of bounds for axis {axis} of size {n}")
    positions = np.where(positions < 0, positions + n, positions)
    values = _args.cast(_args.operand(values, "insert", 2), arr._dtype)
    if scalar_position:
        # NumPy: values for one position form a block along the axis, in the position of that axis.
        values = _manip.moveaxis(values, 0, axis) if values.ndim == arr.ndim else values
        block_shape = list(arr.shape)
        block_shape[axis] = values.shape[axis] if values.ndim == arr.ndim else 1
        values = _manip.broadcast_to(values if values.ndim == arr.ndim else _manip.expand_dims(values, axis=axis),
                                     tuple(block_shape)) if values.ndim <= arr.ndim else values
        count = block_shape[axis]
        positions = np.repeat(positions, count)
    else:
        count = positions.size
        shape = list(arr.shape)
        shape[axis] = count
        if values.ndim == 1 and arr.ndim > 1 and values.shape[0] == count:
            values = _manip.reshape(values, tuple(count if i == axis else 1 for i in range(arr.ndim)))
        values = _manip.broadcast_to(values, tuple(shape))
    order = np.argsort(positions, kind="stable")
    total = n + positions.size
    from_values = np.zeros(total, dtype=bool)
    from_values[positions[order] + np.arange(positions.size)] = True
    combined = _manip.concat([arr, values], axis=axis)
    source = np.empty(total, dtype=np.int64)
    source[~from_values] = np.arange(n)
    source[from_values] = n + order
    return _ix.take(combined, _cr.asarray(source), axis=axis)


def trim_zeros(filt: Any, trim: str = "fb", axis: Any = None) -> Array:
    """`filt` without its leading ("f") and/or trailing ("b") zeros. The result's length depends on the values:
    they are read on the host (a graph break under `jit`).

    >>> import stridex.numpy as jnp
    >>> jnp.trim_zeros(jnp.asarray([0, 0, 1, 2, 0])), jnp.trim_zeros(jnp.asarray([0, 1, 0]), trim="f")
    (Array([1, 2]), Array([1, 0]))
    """
    filt = _args.array(filt, "trim_zeros")
    if any(c not in "fbFB" for c in trim):
        raise ValueError(f"trim_zeros: trim must contain only 'f' and 'b', got {trim!r}")
    axes = tuple(range(filt.ndim)) if axis is None else _args.axes(axis, filt.ndim, "trim_zeros")
    out = filt
    for ax in axes:
        other = tuple(i for i in range(filt.ndim) if i != ax)
        nonzero_along = np.asarray(_search_any_axes(_ew.not_equal(filt, 0), other))
        hits = np.nonzero(nonzero_along)[0]
        start = int(hits[0]) if hits.size and "f" in trim.lower() else (0 if hits.size else filt.shape[ax])
        stop = int(hits[-1]) + 1 if hits.size and "b" in trim.lower() else (filt.shape[ax] if hits.size else start)
        key = [slice(None)] * filt.ndim
        key[ax] = slice(start, stop)
        out = out[tuple(key)]
    return out


def _search_any_axes(x: Array, axes: tuple) -> Array:
    return _util.any(x, axis=axes) if axes else x
