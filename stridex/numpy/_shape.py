"""Shape manipulation with jax.numpy's names and signatures: reshaping and transposing, joining (`concatenate`,
the `*stack` family, `block`), splitting (the `*split` family), repeating (`tile`, `repeat`, `resize`), reordering
(`roll`, `rot90`, `flip*`), padding (`pad`) and the diagonal and triangle of matrices.

Where NumPy returns a view (reshape, transpose, ravel, squeeze, split, diagonal, ...), so does stridex: writing into
the result writes the input, as in NumPy (JAX's arrays are never written)."""

from __future__ import annotations

import builtins
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from stridex import linalg as _linalg
from stridex._api import creation_functions as _cr
from stridex._api import data_type_functions as _dt
from stridex._api import elementwise_functions as _ew
from stridex._api import indexing_functions as _ix
from stridex._api import linear_algebra_functions as _la
from stridex._api import manipulation_functions as _manip
from stridex._api import searching_functions as _search
from stridex._api import statistical_functions as _stat
from stridex._core import dtypes as _d
from stridex._core.array import Array
from stridex.numpy import _args, _creation
from stridex.numpy import _dtypes as _jd

__all__ = [
    "append", "array_split", "atleast_1d", "atleast_2d", "atleast_3d", "block", "broadcast_arrays",
    "broadcast_shapes", "broadcast_to", "column_stack", "concat", "concatenate", "diagonal", "dsplit", "dstack",
    "expand_dims", "flip", "fliplr", "flipud", "hsplit", "hstack", "matrix_transpose", "moveaxis", "pad",
    "permute_dims", "ravel", "repeat", "reshape", "resize", "roll", "rollaxis", "rot90", "split", "squeeze", "stack",
    "swapaxes", "tile", "trace", "transpose", "tril", "triu", "unstack", "vsplit", "vstack",
]


# --- reshaping and transposing --------------------------------------------------------------------------


def reshape(a: Any, shape: Any = None, order: str = "C", *, copy: builtins.bool | None = None) -> Array:
    """`a` with a new shape (one entry may be -1); a view when the strides allow one. `order="F"` reads and
    writes the elements in Fortran (first-axis-fastest) order.

    >>> import stridex.numpy as jnp
    >>> jnp.reshape(jnp.arange(6), (2, -1)), jnp.reshape(jnp.arange(6), (2, 3), order="F")
    (Array([[0, 1, 2],
           [3, 4, 5]]), Array([[0, 2, 4],
           [1, 3, 5]]))
    """
    a = _args.array(a, "reshape")
    if shape is None:
        raise TypeError("reshape: the new shape is required")
    shape = _args.shape_tuple(shape, "reshape")
    if order == "C":
        return _manip.reshape(a, shape, copy=copy)
    if order == "F":
        flipped = _manip.permute_dims(a, tuple(range(a.ndim - 1, -1, -1)))
        out = _manip.reshape(flipped, shape[::-1], copy=copy)
        return _manip.permute_dims(out, tuple(range(len(shape) - 1, -1, -1)))
    raise ValueError(f"reshape: order must be 'C' or 'F', got {order!r}")


def ravel(a: Any, order: str = "C") -> Array:
    """`a` flattened to one dimension (a view when the strides allow one).

    >>> import stridex.numpy as jnp
    >>> jnp.ravel(jnp.asarray([[1, 2], [3, 4]])), jnp.ravel(jnp.asarray([[1, 2], [3, 4]]), order="F")
    (Array([1, 2, 3, 4]), Array([1, 3, 2, 4]))
    """
    return reshape(a, (-1,), order)


def transpose(a: Any, axes: Sequence[int] | None = None) -> Array:
    """`a` with its axes permuted (reversed by default): a view.

    >>> import stridex.numpy as jnp
    >>> jnp.transpose(jnp.zeros((2, 3, 4))).shape, jnp.transpose(jnp.zeros((2, 3, 4)), (1, 0, 2)).shape
    ((4, 3, 2), (3, 2, 4))
    """
    a = _args.array(a, "transpose")
    if axes is None:
        axes = tuple(range(a.ndim - 1, -1, -1))
    axes = tuple(_args.axis(ax, a.ndim, "transpose", "axes entry") for ax in axes)
    if sorted(axes) != list(range(a.ndim)):
        raise ValueError(f"transpose: axes {tuple(axes)} are not a permutation of the {a.ndim} axes")
    return _manip.permute_dims(a, axes)


def permute_dims(a: Any, /, axes: tuple[int, ...]) -> Array:
    """`a` with its axes permuted (the standard's name): a view.

    >>> import stridex.numpy as jnp
    >>> jnp.permute_dims(jnp.zeros((2, 3)), (1, 0)).shape
    (3, 2)
    """
    return transpose(a, axes)


def matrix_transpose(x: Any, /) -> Array:
    """The transpose of each matrix (the last two axes swapped): a view.

    >>> import stridex.numpy as jnp
    >>> jnp.matrix_transpose(jnp.zeros((5, 2, 3))).shape
    (5, 3, 2)
    """
    return _la.matrix_transpose(_args.array(x, "matrix_transpose"))


def swapaxes(a: Any, axis1: int, axis2: int) -> Array:
    """`a` with two axes swapped: a view.

    >>> import stridex.numpy as jnp
    >>> jnp.swapaxes(jnp.zeros((2, 3, 4)), 0, 2).shape
    (4, 3, 2)
    """
    a = _args.array(a, "swapaxes")
    axes = list(range(a.ndim))
    i, j = _args.axis(axis1, a.ndim, "swapaxes", "axis1"), _args.axis(axis2, a.ndim, "swapaxes", "axis2")
    axes[i], axes[j] = axes[j], axes[i]
    return _manip.permute_dims(a, tuple(axes))


def moveaxis(a: Any, source: int | Sequence[int], destination: int | Sequence[int]) -> Array:
    """`a` with axes moved to new positions (the others keep their order): a view.

    >>> import stridex.numpy as jnp
    >>> jnp.moveaxis(jnp.zeros((2, 3, 4)), 0, -1).shape
    (3, 4, 2)
    """
    a = _args.array(a, "moveaxis")
    src = source if isinstance(source, (tuple, list)) else (source,)
    dst = destination if isinstance(destination, (tuple, list)) else (destination,)
    return _manip.moveaxis(a, tuple(src), tuple(dst))


def rollaxis(a: Any, axis: int, start: int = 0) -> Array:
    """`a` with `axis` moved to just before position `start` (NumPy's older `moveaxis`).

    >>> import stridex.numpy as jnp
    >>> jnp.rollaxis(jnp.zeros((2, 3, 4)), 2).shape, jnp.rollaxis(jnp.zeros((2, 3, 4)), 0, 2).shape
    ((4, 2, 3), (3, 2, 4))
    """
    a = _args.array(a, "rollaxis")
    axis = _args.axis(axis, a.ndim, "rollaxis")
    start = _args.index(start, "rollaxis", "start")
    if not -a.ndim <= start <= a.ndim:
        raise ValueError(f"rollaxis: start {start} is out of range for an array of dimension {a.ndim}")
    start %= a.ndim + 1
    if axis < start:
        start -= 1
    return _manip.moveaxis(a, axis, start)


def squeeze(a: Any, axis: int | Sequence[int] | None = None) -> Array:
    """`a` without its length-1 axes (all of them, or those in `axis`): a view.

    >>> import stridex.numpy as jnp
    >>> jnp.squeeze(jnp.zeros((1, 3, 1))).shape, jnp.squeeze(jnp.zeros((1, 3, 1)), axis=0).shape
    ((3,), (3, 1))
    """
    a = _args.array(a, "squeeze")
    axes = tuple(i for i, n in enumerate(a.shape) if n == 1) if axis is None else _args.axes(axis, a.ndim, "squeeze")
    return _manip.squeeze(a, axes) if axes else a


def expand_dims(a: Any, axis: int | Sequence[int]) -> Array:
    """`a` with length-1 axes inserted at the positions `axis` names in the result: a view.

    >>> import stridex.numpy as jnp
    >>> jnp.expand_dims(jnp.zeros(3), (0, 2)).shape
    (1, 3, 1)
    """
    a = _args.array(a, "expand_dims")
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    return _manip.expand_dims(a, axis=tuple(_args.index(ax, "expand_dims", "axis") for ax in axes))


def broadcast_to(array: Any, shape: Any) -> Array:
    """`array` broadcast to `shape`: a view (stride 0 along the broadcast axes).

    >>> import stridex.numpy as jnp
    >>> jnp.broadcast_to(jnp.asarray([1, 2]), (2, 2))
    Array([[1, 2],
           [1, 2]])
    """
    return _manip.broadcast_to(_args.array(array, "broadcast_to"), _args.shape_tuple(shape, "broadcast_to"))


def broadcast_arrays(*args: Any) -> list[Array]:
    """The arguments broadcast against each other (views), as a list.

    >>> import stridex.numpy as jnp
    >>> [x.shape for x in jnp.broadcast_arrays(jnp.zeros((2, 1)), jnp.zeros(3), 1.0)]
    [(2, 3), (2, 3), (2, 3)]
    """
    arrays = [_args.array(a, "broadcast_arrays", i) for i, a in enumerate(args)]
    return list(_manip.broadcast_arrays(*arrays)) if arrays else []


def broadcast_shapes(*shapes: Any) -> tuple[int, ...]:
    """The shape that arrays of these shapes broadcast to (ints name 1-D shapes).

    >>> import stridex.numpy as jnp
    >>> jnp.broadcast_shapes((2, 1), (3,), 1)
    (2, 3)
    """
    return tuple(_manip.broadcast_shapes(*(_args.shape_tuple(s, "broadcast_shapes") for s in shapes)))


def atleast_1d(*arys: Any) -> Any:
    """Each input with at least one dimension (a 0-D one becomes shape (1,)); one array, or a list of them.

    >>> import stridex.numpy as jnp
    >>> jnp.atleast_1d(1.0), [x.shape for x in jnp.atleast_1d(jnp.zeros(()), jnp.zeros((2, 2)))]
    (Array([1.]), [(1,), (2, 2)])
    """
    out = [_at_least(a, 1, "atleast_1d", i) for i, a in enumerate(arys)]
    return out[0] if len(out) == 1 else out


def atleast_2d(*arys: Any) -> Any:
    """Each input with at least two dimensions (shape (n,) becomes (1, n)).

    >>> import stridex.numpy as jnp
    >>> jnp.atleast_2d(jnp.asarray([1, 2])).shape
    (1, 2)
    """
    out = [_at_least(a, 2, "atleast_2d", i) for i, a in enumerate(arys)]
    return out[0] if len(out) == 1 else out


def atleast_3d(*arys: Any) -> Any:
    """Each input with at least three dimensions ((n,) becomes (1, n, 1), (m, n) becomes (m, n, 1)).

    >>> import stridex.numpy as jnp
    >>> jnp.atleast_3d(jnp.zeros(3)).shape, jnp.atleast_3d(jnp.zeros((2, 3))).shape
    ((1, 3, 1), (2, 3, 1))
    """
    out = [_at_least(a, 3, "atleast_3d", i) for i, a in enumerate(arys)]
    return out[0] if len(out) == 1 else out


def _at_least(a, ndim: int, fname: str, position: int) -> Array:
    a = _args.array(a, fname, position)
    if a.ndim >= ndim:
        return a
    if ndim == 3 and a.ndim:  # (NumPy's rule: a vector becomes (1, n, 1), a matrix (m, n, 1))
        return _manip.reshape(a, ((1,) if a.ndim == 1 else ()) + a.shape + (1,))
    return _manip.reshape(a, (1,) * (ndim - a.ndim) + a.shape)


# --- joining ----------------------------------------------------------------------------------------------


def _joined(arrays, fname: str, dtype) -> list[Array]:
    if dtype is None and type(arrays) in (list, tuple) and arrays and all(type(a) is Array for a in arrays):
        first = arrays[0]._dtype
        if all(a._dtype is first for a in arrays):
            return list(arrays)  # (the common call: arrays of one dtype)
    if isinstance(arrays, (Array, np.ndarray)):
        arrays = list(_manip.unstack(_args.array(arrays, fname))) if arrays.ndim else [arrays]
    items = [_args.operand(a, fname, i) for i, a in enumerate(arrays)]
    if not items:
        raise ValueError(f"{fname}: need at least one array to join")
    target = _jd.canonical_or_none(dtype, fname) or _args.promoted_dtype(fname, *items)
    return [_args.cast(a, target) for a in items]


def concatenate(arrays: Any, axis: int | None = 0, dtype: Any = None) -> Array:
    """The arrays joined along an existing axis (`axis=None`: flattened first), promoted to one dtype.

    >>> import stridex.numpy as jnp
    >>> jnp.concatenate([jnp.asarray([1, 2]), jnp.asarray([3.5])])
    Array([1. , 2. , 3.5])
    """
    items = _joined(arrays, "concatenate", dtype)
    if axis is None:
        return _manip.concat([_manip.reshape(a, (-1,)) for a in items], axis=0)
    return _manip.concat(items, axis=_args.index(axis, "concatenate", "axis"))


def concat(arrays: Any, /, *, axis: int | None = 0) -> Array:
    """The arrays joined along an existing axis (the standard's name for `concatenate`).

    >>> import stridex.numpy as jnp
    >>> jnp.concat([jnp.zeros((1, 2)), jnp.ones((1, 2))], axis=1).shape
    (1, 4)
    """
    return concatenate(arrays, axis)


def stack(arrays: Any, axis: int = 0, out: None = None, dtype: Any = None) -> Array:
    """The arrays (of one shape) joined along a new axis.

    >>> import stridex.numpy as jnp
    >>> jnp.stack([jnp.zeros(3), jnp.ones(3)], axis=1).shape
    (3, 2)
    """
    _args.no_out(out, "stack")
    items = _joined(arrays, "stack", dtype)
    shapes = {a.shape for a in items}
    if len(shapes) > 1:
        raise ValueError(f"stack: all input arrays must have the same shape, got {sorted(shapes)}")
    return _manip.stack(items, axis=_args.index(axis, "stack", "axis"))


def hstack(tup: Any, dtype: Any = None) -> Array:
    """The arrays joined along their second axis (the first for 1-D arrays).

    >>> import stridex.numpy as jnp
    >>> jnp.hstack([jnp.asarray([1, 2]), jnp.asarray([3])])
    Array([1, 2, 3])
    """
    items = [_at_least(a, 1, "hstack", i) for i, a in enumerate(_sequence(tup, "hstack"))]
    return concatenate(items, axis=0 if items and items[0].ndim == 1 else 1, dtype=dtype)


def vstack(tup: Any, dtype: Any = None) -> Array:
    """The arrays joined along their first axis, 1-D arrays as rows.

    >>> import stridex.numpy as jnp
    >>> jnp.vstack([jnp.asarray([1, 2]), jnp.asarray([3, 4])])
    Array([[1, 2],
           [3, 4]])
    """
    return concatenate([_at_least(a, 2, "vstack", i) for i, a in enumerate(_sequence(tup, "vstack"))], axis=0,
                       dtype=dtype)


def dstack(tup: Any, dtype: Any = None) -> Array:
    """The arrays joined along their third axis (1-D and 2-D arrays extended as `atleast_3d`).

    >>> import stridex.numpy as jnp
    >>> jnp.dstack([jnp.zeros((2, 2)), jnp.ones((2, 2))]).shape
    (2, 2, 2)
    """
    return concatenate([_at_least(a, 3, "dstack", i) for i, a in enumerate(_sequence(tup, "dstack"))], axis=2,
                       dtype=dtype)


def column_stack(tup: Any) -> Array:
    """1-D arrays as the columns of a matrix (2-D arrays joined along their second axis).

    >>> import stridex.numpy as jnp
    >>> jnp.column_stack([jnp.asarray([1, 2]), jnp.asarray([3, 4])])
    Array([[1, 3],
           [2, 4]])
    """
    items = []
    for i, a in enumerate(_sequence(tup, "column_stack")):
        a = _args.array(a, "column_stack", i)
        items.append(_manip.reshape(a, (-1, 1)) if a.ndim < 2 else a)
    return concatenate(items, axis=1)


def _sequence(tup, fname: str) -> list:
    if isinstance(tup, (Array, np.ndarray)):
        return list(_manip.unstack(_args.array(tup, fname)))
    return list(tup)


def block(arrays: Any) -> Array:
    """An array assembled from nested lists of blocks: the innermost lists join along the last axis, each
    outer level along the axis before.

    >>> import stridex.numpy as jnp
    >>> jnp.block([[jnp.eye(2), jnp.zeros((2, 1))], [jnp.ones((1, 2)), jnp.full((1, 1), 5.0)]])
    Array([[1., 0., 0.],
           [0., 1., 0.],
           [1., 1., 5.]])
    """

    def depth(x) -> int:
        if isinstance(x, list):
            if not x:
                raise ValueError("block: lists cannot be empty")
            depths = {depth(item) for item in x}
            if len(depths) > 1:
                raise ValueError(f"block: list depths are mismatched ({sorted(depths)})")
            return 1 + depths.pop()
        if isinstance(x, tuple):
            raise TypeError("block: blocks are given in lists, not tuples")
        return 0

    levels = depth(arrays)
    leaves: list = []

    def collect(x):
        if isinstance(x, list):
            for item in x:
                collect(item)
        else:
            leaves.append(_args.operand(x, "block"))

    collect(arrays)
    target = _args.promoted_dtype("block", *leaves)
    ndim = builtins.max([levels] + [_args.array(leaf, "block").ndim for leaf in leaves])

    def assemble(x, level: int) -> Array:
        if not isinstance(x, list):
            a = _args.cast(_args.operand(x, "block"), target)
            return _manip.reshape(a, (1,) * (ndim - a.ndim) + a.shape)
        return _manip.concat([assemble(item, level + 1) for item in x], axis=ndim - levels + level)

    return assemble(arrays, 0)


def unstack(x: Any, /, *, axis: int = 0) -> tuple[Array, ...]:
    """The arrays along `axis` (views), as a tuple.

    >>> import stridex.numpy as jnp
    >>> [u.shape for u in jnp.unstack(jnp.zeros((2, 3)), axis=1)]
    [(2,), (2,), (2,)]
    """
    return _manip.unstack(_args.array(x, "unstack"), axis=_args.index(axis, "unstack", "axis"))


def append(arr: Any, values: Any, axis: int | None = None) -> Array:
    """`values` joined after `arr` along `axis` (both flattened when `axis` is None).

    >>> import stridex.numpy as jnp
    >>> jnp.append(jnp.asarray([[1, 2]]), jnp.asarray([[3, 4]]), axis=0).shape, jnp.append(jnp.asarray([1]), 2)
    ((2, 2), Array([1, 2]))
    """
    arr, values = _args.array(arr, "append", 0), _args.array(values, "append", 1)
    return concatenate([arr, values], axis=axis)


# --- splitting --------------------------------------------------------------------------------------------


def _split(fname: str, ary, indices_or_sections, axis: int, even: builtins.bool) -> list[Array]:
    ary = _args.array(ary, fname)
    axis = _args.axis(axis, ary.ndim, fname)
    n = ary.shape[axis]
    if isinstance(indices_or_sections, (int, np.integer)) or (
            isinstance(indices_or_sections, (Array, np.ndarray)) and indices_or_sections.ndim == 0):
        sections = _args.index(indices_or_sections, fname, "sections")
        if sections <= 0:
            raise ValueError(f"{fname}: the number of sections must be larger than 0, got {sections}")
        if even and n % sections:
            raise ValueError(f"{fname}: array split does not result in an equal division: an axis of length {n} "
                             f"into {sections} sections")
        size, extra = divmod(n, sections)
        bounds = [0]
        for i in range(sections):
            bounds.append(bounds[-1] + size + (1 if i < extra else 0))
    else:
        points = [_args.index(i, fname, "split index") for i in np.asarray(indices_or_sections).tolist()]
        bounds = [0] + [builtins.min(builtins.max(p + n if p < 0 else p, 0), n) for p in points] + [n]
    lead = (slice(None),) * axis
    return [ary[lead + (slice(lo, builtins.max(lo, hi)),)] for lo, hi in zip(bounds[:-1], bounds[1:])]


def split(ary: Any, indices_or_sections: Any, axis: int = 0) -> list[Array]:
    """`ary` split into equal sections along `axis` (an int), or at the given indices: a list of views.

    >>> import stridex.numpy as jnp
    >>> jnp.split(jnp.arange(6), 3), jnp.split(jnp.arange(5), [2, 3])
    ([Array([0, 1]), Array([2, 3]), Array([4, 5])], [Array([0, 1]), Array([2]), Array([3, 4])])
    """
    return _split("split", ary, indices_or_sections, axis, True)


def array_split(ary: Any, indices_or_sections: Any, axis: int = 0) -> list[Array]:
    """As `split`, but sections need not divide the axis: the first ones are one element longer.

    >>> import stridex.numpy as jnp
    >>> jnp.array_split(jnp.arange(5), 3)
    [Array([0, 1]), Array([2, 3]), Array([4])]
    """
    return _split("array_split", ary, indices_or_sections, axis, False)


def hsplit(ary: Any, indices_or_sections: Any) -> list[Array]:
    """`split` along the second axis (the first for 1-D arrays).

    >>> import stridex.numpy as jnp
    >>> [p.shape for p in jnp.hsplit(jnp.zeros((2, 4)), 2)]
    [(2, 2), (2, 2)]
    """
    ary = _args.array(ary, "hsplit")
    return _split("hsplit", ary, indices_or_sections, 1 if ary.ndim > 1 else 0, True)


def vsplit(ary: Any, indices_or_sections: Any) -> list[Array]:
    """`split` along the first axis of an array of at least two dimensions.

    >>> import stridex.numpy as jnp
    >>> [p.shape for p in jnp.vsplit(jnp.zeros((4, 2)), 2)]
    [(2, 2), (2, 2)]
    """
    ary = _args.array(ary, "vsplit")
    if ary.ndim < 2:
        raise ValueError(f"vsplit only works on arrays of 2 or more dimensions, got shape {ary.shape}")
    return _split("vsplit", ary, indices_or_sections, 0, True)


def dsplit(ary: Any, indices_or_sections: Any) -> list[Array]:
    """`split` along the third axis of an array of at least three dimensions.

    >>> import stridex.numpy as jnp
    >>> [p.shape for p in jnp.dsplit(jnp.zeros((1, 1, 4)), [1])]
    [(1, 1, 1), (1, 1, 3)]
    """
    ary = _args.array(ary, "dsplit")
    if ary.ndim < 3:
        raise ValueError(f"dsplit only works on arrays of 3 or more dimensions, got shape {ary.shape}")
    return _split("dsplit", ary, indices_or_sections, 2, True)


# --- repeating and reordering -----------------------------------------------------------------------------


def tile(A: Any, reps: Any) -> Array:  # noqa: N803  (jax.numpy's name)
    """`A` repeated `reps` times along each axis (a shorter `reps` counts from the last axis; a longer one adds
    leading axes).

    >>> import stridex.numpy as jnp
    >>> jnp.tile(jnp.asarray([1, 2]), 2), jnp.tile(jnp.asarray([1, 2]), (2, 1)).shape
    (Array([1, 2, 1, 2]), (2, 2))
    """
    a = _args.array(A, "tile")
    reps = _args.shape_tuple(reps, "tile")
    if len(reps) < a.ndim:
        reps = (1,) * (a.ndim - len(reps)) + reps
    return _manip.tile(a, reps)


def repeat(a: Any, repeats: Any, axis: int | None = None, *, total_repeat_length: int | None = None) -> Array:
    """Each element repeated `repeats` times (an int, or one count per element) along `axis` (flattened when
    None). With array counts the length depends on the data: give `total_repeat_length` (the result is then cut
    or filled with the last element to that length) to have a static shape under `jit`.

    >>> import stridex.numpy as jnp
    >>> jnp.repeat(jnp.asarray([1, 2]), 2), jnp.repeat(jnp.asarray([1, 2]), jnp.asarray([1, 3]), total_repeat_length=5)
    (Array([1, 1, 2, 2]), Array([1, 2, 2, 2, 2]))
    """
    a = _args.array(a, "repeat")
    if axis is None:
        a, axis = _manip.reshape(a, (-1,)), 0
    axis = _args.axis(axis, a.ndim, "repeat")
    if total_repeat_length is None:
        if isinstance(repeats, (Array, np.ndarray)) and repeats.ndim:
            return _manip.repeat(a, _args.array(repeats, "repeat", 1), axis=axis)
        return _manip.repeat(a, _args.index(repeats, "repeat", "repeats"), axis=axis)
    total = _args.index(total_repeat_length, "repeat", "total_repeat_length")
    counts = _manip.broadcast_to(_manip.reshape(_args.array(repeats, "repeat", 1), (-1,)), (a.shape[axis],))
    ends = _stat.cumulative_sum(_args.cast(counts, _d.int64))
    positions = _search.searchsorted(ends, _cr.arange(total), side="right")
    positions = _ew.minimum(positions, builtins.max(a.shape[axis] - 1, 0))
    return _ix.take(a, positions, axis=axis)


def roll(a: Any, shift: Any, axis: int | Sequence[int] | None = None) -> Array:
    """The elements shifted cyclically by `shift` along `axis` (the flattened array when None). `shift` may be
    an array (a traced value under `jit`): the roll is then a gather.

    >>> import stridex.numpy as jnp
    >>> jnp.roll(jnp.arange(5), 2), jnp.roll(jnp.eye(2), 1, axis=0)
    (Array([3, 4, 0, 1, 2]), Array([[0., 1.],
           [1., 0.]]))
    """
    a = _args.array(a, "roll")
    if isinstance(shift, Array) or (isinstance(shift, np.ndarray) and shift.dtype.kind in "iu"):
        return _roll_dynamic(a, _args.array(shift, "roll", 1), axis)
    shifts = tuple(_args.index(s, "roll", "shift") for s in (shift if isinstance(shift, (tuple, list)) else (shift,)))
    if axis is None:
        if len(shifts) != 1:
            raise ValueError(f"roll: with axis=None, shift must be one integer, got {shift!r}")
        return _manip.reshape(_manip.roll(_manip.reshape(a, (-1,)), shifts[0]), a.shape)
    axes = tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)
    if len(shifts) == 1 and len(axes) > 1:
        shifts = shifts * len(axes)
    if len(shifts) != len(axes):
        raise ValueError(f"roll: shift {shift!r} and axis {axis!r} must have the same length")
    return _manip.roll(a, shifts if len(shifts) > 1 else shifts[0],
                       axis=tuple(_args.axis(ax, a.ndim, "roll") for ax in axes) if len(axes) > 1
                       else _args.axis(axes[0], a.ndim, "roll"))


def _roll_dynamic(a: Array, shift: Array, axis) -> Array:
    if axis is None:
        return _manip.reshape(_roll_dynamic(_manip.reshape(a, (-1,)), shift, 0), a.shape)
    axes = tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)
    shifts = _manip.broadcast_to(_manip.reshape(shift, (-1,)), (len(axes),))
    for i, ax in enumerate(axes):
        ax = _args.axis(ax, a.ndim, "roll")
        n = a.shape[ax]
        if n == 0:
            continue
        source = _ew.remainder(_ew.subtract(_cr.arange(n), shifts[i]), n)
        a = _ix.take(a, _args.cast(source, _d.int64), axis=ax)
    return a


def rot90(m: Any, k: int = 1, axes: tuple[int, int] = (0, 1)) -> Array:
    """`m` rotated by 90 degrees k times in the plane of `axes` (from the first axis towards the second): a view.

    >>> import stridex.numpy as jnp
    >>> jnp.rot90(jnp.asarray([[1, 2], [3, 4]]))
    Array([[2, 4],
           [1, 3]])
    """
    m = _args.array(m, "rot90")
    if len(axes) != 2:
        raise ValueError(f"rot90: axes must name two axes, got {axes!r}")
    ax0, ax1 = (_args.axis(ax, m.ndim, "rot90", "axes entry") for ax in axes)
    if ax0 == ax1:
        raise ValueError(f"rot90: the axes must differ, got {axes!r}")
    k = _args.index(k, "rot90", "k") % 4
    if k == 0:
        return m
    if k == 2:
        return _manip.flip(m, axis=(ax0, ax1))
    order = list(range(m.ndim))
    order[ax0], order[ax1] = order[ax1], order[ax0]
    if k == 1:
        return _manip.permute_dims(_manip.flip(m, axis=ax1), tuple(order))
    return _manip.flip(_manip.permute_dims(m, tuple(order)), axis=ax1)


def flip(m: Any, axis: int | Sequence[int] | None = None) -> Array:
    """`m` reversed along `axis` (every axis when None): a view.

    >>> import stridex.numpy as jnp
    >>> jnp.flip(jnp.asarray([[1, 2], [3, 4]]), 1)
    Array([[2, 1],
           [4, 3]])
    """
    m = _args.array(m, "flip")
    return _manip.flip(m, axis=None if axis is None else _args.axes(axis, m.ndim, "flip"))


def fliplr(m: Any) -> Array:
    """`m` reversed along its second axis (left and right): a view.

    >>> import stridex.numpy as jnp
    >>> jnp.fliplr(jnp.asarray([[1, 2]]))
    Array([[2, 1]])
    """
    m = _args.array(m, "fliplr")
    if m.ndim < 2:
        raise ValueError(f"fliplr requires an array of at least 2 dimensions, got shape {m.shape}")
    return _manip.flip(m, axis=1)


def flipud(m: Any) -> Array:
    """`m` reversed along its first axis (up and down): a view.

    >>> import stridex.numpy as jnp
    >>> jnp.flipud(jnp.asarray([1, 2, 3]))
    Array([3, 2, 1])
    """
    m = _args.array(m, "flipud")
    if m.ndim < 1:
        raise ValueError("flipud requires an array of at least 1 dimension, got a 0-D array")
    return _manip.flip(m, axis=0)


def resize(a: Any, new_shape: Any) -> Array:
    """An array of `new_shape` filled with `a`'s elements, repeated cyclically as often as needed.

    >>> import stridex.numpy as jnp
    >>> jnp.resize(jnp.asarray([1, 2, 3]), (2, 4))
    Array([[1, 2, 3, 1],
           [2, 3, 1, 2]])
    """
    a = _manip.reshape(_args.array(a, "resize"), (-1,))
    shape = _args.shape_tuple(new_shape, "resize")
    if any(n < 0 for n in shape):
        raise ValueError(f"resize: all elements of new_shape must be non-negative, got {shape}")
    size = int(np.prod(shape))
    if a.shape[0] == 0:
        return _cr.zeros(shape, dtype=a._dtype)
    copies = -(-size // a.shape[0])
    return _manip.reshape(_manip.tile(a, (copies,))[:size], shape)


# --- matrices ---------------------------------------------------------------------------------------------


def diagonal(a: Any, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Array:
    """The `offset` diagonal of the matrices in the plane of `axis1` and `axis2` (NumPy's default: the first
    two axes), along a new last axis: a view.

    >>> import stridex.numpy as jnp
    >>> jnp.diagonal(jnp.asarray([[1, 2], [3, 4]])), jnp.diagonal(jnp.zeros((2, 3, 4)), axis1=1, axis2=2).shape
    (Array([1, 4]), (2, 3))
    """
    a = _args.array(a, "diagonal")
    if a.ndim < 2:
        raise ValueError(f"diagonal requires an array of at least 2 dimensions, got shape {a.shape}")
    ax1, ax2 = _args.axis(axis1, a.ndim, "diagonal", "axis1"), _args.axis(axis2, a.ndim, "diagonal", "axis2")
    if ax1 == ax2:
        raise ValueError(f"diagonal: axis1 and axis2 cannot be the same axis ({ax1})")
    return _linalg.diagonal(_manip.moveaxis(a, (ax1, ax2), (-2, -1)), offset=_args.index(offset, "diagonal",
                                                                                          "offset"))


def trace(a: Any, offset: int = 0, axis1: int = 0, axis2: int = 1, dtype: Any = None, out: None = None) -> Array:
    """The sum along the `offset` diagonal of the matrices in the plane of `axis1` and `axis2`.

    >>> import stridex.numpy as jnp
    >>> jnp.trace(jnp.asarray([[1, 2], [3, 4]])), jnp.trace(jnp.asarray([[1, 2], [3, 4]]), offset=1)
    (Array(5), Array(2))
    """
    _args.no_out(out, "trace")
    d = diagonal(a, offset, axis1, axis2)
    return _stat.sum(d, axis=-1, dtype=_jd.canonical_or_none(dtype, "trace"))


def tril(m: Any, k: int = 0) -> Array:
    """The matrices with the elements above the k-th diagonal set to zero.

    >>> import stridex.numpy as jnp
    >>> jnp.tril(jnp.ones((2, 2), dtype=int))
    Array([[1, 0],
           [1, 1]])
    """
    m = _args.array(m, "tril")
    if m.ndim < 2:
        raise ValueError(f"tril requires an array of at least 2 dimensions, got shape {m.shape}")
    return _cr.tril(m, k=_args.index(k, "tril", "k"))


def triu(m: Any, k: int = 0) -> Array:
    """The matrices with the elements below the k-th diagonal set to zero.

    >>> import stridex.numpy as jnp
    >>> jnp.triu(jnp.ones((2, 2), dtype=int))
    Array([[1, 1],
           [0, 1]])
    """
    m = _args.array(m, "triu")
    if m.ndim < 2:
        raise ValueError(f"triu requires an array of at least 2 dimensions, got shape {m.shape}")
    return _cr.triu(m, k=_args.index(k, "triu", "k"))


# --- pad ----------------------------------------------------------------------------------------------------

_GATHER_MODES = ("edge", "wrap", "reflect", "symmetric")
_STAT_MODES = ("maximum", "minimum", "mean", "median")


def _pairs(value, ndim: int, fname: str, what: str, cast=int) -> list[tuple]:
    """NumPy's broadcasting of a per-axis (before, after) argument: a scalar, a pair, or one pair per axis."""
    arr: Any = np.asarray(np.asarray(value).tolist() if isinstance(value, Array) else value, dtype=object)
    if arr.ndim == 0:
        arr = np.full((ndim, 2), arr.item(), dtype=object)
    elif arr.shape in ((1,), (2,)):
        arr = np.broadcast_to(arr, (ndim, 2))
    elif arr.shape == (1, 2) or arr.shape == (ndim, 1):
        arr = np.broadcast_to(arr, (ndim, 2))
    if arr.shape != (ndim, 2):
        raise ValueError(f"{fname}: {what} must be a scalar, a (before, after) pair or one pair per axis ({ndim}); "
                         f"got {value!r}")
    return [(cast(b), cast(a)) for b, a in arr.tolist()]


def pad(array: Any, pad_width: Any, mode: str = "constant", **kwargs: Any) -> Array:
    """`array` padded by pad_width[i] = (before, after) elements along each axis i. Modes as NumPy's: "constant"
    (`constant_values`), "edge", "wrap", "reflect" and "symmetric" (`reflect_type` "even" or "odd"),
    "linear_ramp" (`end_values`), "maximum", "minimum", "mean", "median" (`stat_length`) and "empty".

    >>> import stridex.numpy as jnp
    >>> jnp.pad(jnp.asarray([1, 2, 3]), (2, 1)), jnp.pad(jnp.asarray([1, 2, 3]), 2, mode="reflect")
    (Array([0, 0, 1, 2, 3, 0]), Array([3, 2, 1, 2, 3, 2, 1]))
    """
    a = _args.array(array, "pad")
    allowed = {"constant": {"constant_values"}, "linear_ramp": {"end_values"}, "reflect": {"reflect_type"},
               "symmetric": {"reflect_type"}, **dict.fromkeys(_STAT_MODES, {"stat_length"})}
    if callable(mode):
        raise NotImplementedError("pad: a function as the mode is not supported by stridex.numpy")
    if mode not in allowed and mode not in ("edge", "wrap", "empty"):
        raise ValueError(f"pad: unimplemented padding mode {mode!r}")
    unexpected = set(kwargs) - allowed.get(mode, set())
    if unexpected:
        raise ValueError(f"pad: unsupported keyword arguments for mode {mode!r}: {sorted(unexpected)}")
    if a.ndim == 0:
        return a
    widths = _pairs(pad_width, a.ndim, "pad", "pad_width", cast=lambda v: _args.index(v, "pad", "pad_width"))
    if any(w < 0 for pair in widths for w in pair):
        raise ValueError(f"pad: pad_width must be non-negative, got {pad_width!r}")
    for axis, (before, after) in enumerate(widths):
        if not before and not after:
            continue
        if a.shape[axis] == 0 and mode not in ("constant", "empty"):
            raise ValueError(f"pad: can't extend empty axis {axis} using modes other than 'constant' or 'empty'")
        a = _pad_axis(a, axis, before, after, mode, kwargs)
    return a


def _pad_axis(a: Array, axis: int, before: int, after: int, mode: str, kwargs: dict) -> Array:
    lead = (slice(None),) * axis
    n = a.shape[axis]

    def block(length: int, value) -> Array:
        shape = a.shape[:axis] + (length,) + a.shape[axis + 1:]
        return _manip.broadcast_to(value, shape)

    if mode == "constant":
        values = _pairs(kwargs.get("constant_values", 0), a.ndim, "pad", "constant_values", cast=lambda v: v)[axis]
        pieces = [block(before, _args.cast(_args.operand(values[0], "pad"), a._dtype)), a,
                  block(after, _args.cast(_args.operand(values[1], "pad"), a._dtype))]
    elif mode == "empty":
        pieces = [_cr.zeros(a.shape[:axis] + (before,) + a.shape[axis + 1:], dtype=a._dtype), a,
                  _cr.zeros(a.shape[:axis] + (after,) + a.shape[axis + 1:], dtype=a._dtype)]
    elif mode in _GATHER_MODES and kwargs.get("reflect_type", "even") == "even":
        # The source index of every output position, computed by NumPy's own pad of 0..n-1 (repeated reflections
        # and wraps included): one gather along the axis.
        source = np.pad(np.arange(n), (before, after), mode=mode)  # type: ignore[call-overload]  # (a mode name)
        return _ix.take(a, _cr.asarray(source.astype(np.int64)), axis=axis)
    elif mode in ("reflect", "symmetric"):
        if kwargs["reflect_type"] != "odd":
            raise ValueError(f"pad: reflect_type must be 'even' or 'odd', got {kwargs['reflect_type']!r}")
        return _pad_odd(a, axis, before, after, mode)
    elif mode == "linear_ramp":
        ends = _pairs(kwargs.get("end_values", 0), a.ndim, "pad", "end_values", cast=lambda v: v)[axis]
        first, last = a[lead + (slice(0, 1),)], a[lead + (slice(n - 1, n),)]
        ramp_before = _creation._linspace(ends[0], _manip.squeeze(first, axis), before, False, a._dtype, axis)[0]
        ramp_after = _manip.flip(_creation._linspace(ends[1], _manip.squeeze(last, axis), after, False, a._dtype,
                                                     axis)[0], axis=axis)
        pieces = [ramp_before, a, ramp_after]
    else:
        from stridex.numpy import _reductions, _statistics  # (the statistics: they are built on this module)

        functions: dict[str, Callable[..., Array]] = {
            "maximum": _reductions.max, "minimum": _reductions.min, "mean": _reductions.mean,
            "median": _statistics.median}
        stat = functions[mode]
        lengths = kwargs.get("stat_length")
        lengths = (n, n) if lengths is None else _pairs(lengths, a.ndim, "pad", "stat_length")[axis]
        if 0 in lengths:
            raise ValueError("pad: stat_length of 0 yields no value for padding")
        head = a[lead + (slice(0, builtins.min(lengths[0], n)),)]
        tail = a[lead + (slice(n - builtins.min(lengths[1], n), n),)]
        stats = []
        for part in (head, tail):
            v = stat(part, axis=axis, keepdims=True)
            if a._dtype.kind in ("signed", "unsigned"):
                v = _ew.round(v)
            stats.append(_args.cast(v, a._dtype))
        pieces = [block(before, stats[0]), a, block(after, stats[1])]
    return _manip.concat(pieces, axis=axis)


def _pad_odd(a: Array, axis: int, before: int, after: int, mode: str) -> Array:
    """Odd reflection: each reflected block is 2 * edge - mirror image, the edge moving out with each block."""
    lead = (slice(None),) * axis
    n = a.shape[axis]
    offset = 1 if mode == "reflect" and n > 1 else 0
    for side, remaining in (("before", before), ("after", after)):
        while remaining > 0:
            size = a.shape[axis]
            step = builtins.min(remaining, n - offset)
            remaining -= step
            if side == "before":
                edge = a[lead + (slice(0, 1),)]
                mirror = _manip.flip(a[lead + (slice(offset, offset + step),)], axis=axis)
            else:
                edge = a[lead + (slice(size - 1, size),)]
                mirror = _manip.flip(a[lead + (slice(size - step - offset, size - offset),)], axis=axis)
            piece = _ew.subtract(_ew.multiply(edge, 2), mirror)
            a = _manip.concat([piece, a] if side == "before" else [a, piece], axis=axis)
    return a
