"""`stop_gradient` and the collectives over a named `vmap` axis (`psum`, `pmean`, `pmax`, `pmin`, `all_gather`,
`axis_index`): the primitives of `stridex._lax.differentiation` and `stridex._lax.parallel`."""

from __future__ import annotations

import math
from collections.abc import Hashable
from typing import Any, TypeVar

import numpy as np

from stridex._core import dtypes as _dtypes
from stridex._core import tree as _tree
from stridex._core.array import Array
from stridex._core.view import normalize_axis
from stridex._lax import differentiation as _differentiation
from stridex._lax import ops as _ops
from stridex._lax import parallel as _parallel
from stridex._transforms.batching import bound_axis_size

T = TypeVar("T")
AxisName = Hashable
"""An axis name (any hashable value, usually a string), or a tuple of them where a collective takes several."""

_SCALARS = (bool, int, float, complex)


# --- stop_gradient ---------------------------------------------------------------------------------------


def stop_gradient(x: T) -> T:
    """`x` with the same values and no derivative: the transformations (`grad`, `jvp`, `vjp`, the Jacobians)
    differentiate through it as through a constant. `x` is an array or a pytree of them (other leaves, such as
    Python numbers, carry no derivative and come back as they are); each array comes back as a new array.

    A value computed from `stop_gradient(x)` alone carries no derivative, so it may leave stridex under
    differentiation (`np.asarray`, `float`), which a value that carries one may not.

    >>> import stridex as sx
    >>> def straight_through_round(x):
    ...     return x + sx.stop_gradient(sx.round(x) - x)  # rounds; derivative 1
    >>> sx.grad(lambda x: sx.sum(straight_through_round(x)))(sx.asarray([0.2, 1.7]))
    Array([1., 1.])
    """
    return _tree.tree_map(lambda leaf: _differentiation.stop_gradient.bind(leaf) if isinstance(leaf, Array)
                          else leaf, x)


# --- collectives over a named vmap axis ------------------------------------------------------------------
# `vmap(f, axis_name="i")` names its axis; inside `f`, these work across the members of that axis (the vmap
# that binds the name resolves them: `stridex._lax.parallel`). A name no enclosing vmap binds is JAX's
# NameError, "unbound axis name: i".


def _names(axis_name: AxisName | tuple[AxisName, ...]) -> tuple:
    return tuple(axis_name) if isinstance(axis_name, (tuple, list)) else (axis_name,)


def _sizes(names: tuple, what: str, axis_index_groups: Any) -> list[int]:
    if axis_index_groups is not None:
        raise NotImplementedError(f"{what}: axis_index_groups is not supported over vmap axes (nor is it by JAX's "
                                  "vmap); reduce over a reshaped axis instead")
    return [bound_axis_size(name, what) for name in names]


def _leaf(leaf, what: str) -> Array | bool | int | float | complex:
    if isinstance(leaf, (Array, *_SCALARS)):
        return leaf
    raise TypeError(f"{what} takes arrays, Python numbers or pytrees of them, got a leaf of type {type(leaf).__name__}")


def psum(x: T, axis_name: AxisName | tuple[AxisName, ...], *, axis_index_groups: Any = None) -> T:
    """The sum of `x` over the members of the named axis (or axes), the same for every member.

    A boolean array sums as int32 (JAX's rule); a Python number gives the number times the axis's length
    (`psum(1, "i")` is the length of axis "i", as in JAX).

    >>> import stridex as sx
    >>> sx.vmap(lambda v: sx.lax.psum(v, "i"), axis_name="i")(sx.asarray([1.0, 2.0, 3.0]))
    Array([6., 6., 6.])
    """
    names = _names(axis_name)
    size = math.prod(_sizes(names, "psum", axis_index_groups))
    if not names:
        return x

    def leaf(v):
        v = _leaf(v, "psum")
        if not isinstance(v, Array):
            return v * size
        if v.dtype is _dtypes.bool:
            v = _ops.astype(v, _dtypes.int32)
        return _parallel.psum.bind(v, axes=names)

    return _tree.tree_map(leaf, x)


def pmean(x: T, axis_name: AxisName | tuple[AxisName, ...], *, axis_index_groups: Any = None) -> T:
    """The mean of `x` over the members of the named axis (or axes): `psum(x) / n` (integers give floats).

    >>> import stridex as sx
    >>> sx.vmap(lambda v: sx.lax.pmean(v, "i"), axis_name="i")(sx.asarray([1, 2, 6]))
    Array([3., 3., 3.])
    """
    names = _names(axis_name)
    size = math.prod(_sizes(names, "pmean", axis_index_groups))
    return _tree.tree_map(lambda v: v / size, psum(x, names))


def _extremum(prim, what: str, x, axis_name, axis_index_groups):
    names = _names(axis_name)
    _sizes(names, what, axis_index_groups)

    def leaf(v):
        v = _leaf(v, what)
        if not names or not isinstance(v, Array):  # (a number the same for every member is its own extremum)
            return v
        if v.dtype.kind == "complex floating":
            raise TypeError(f"{what} is not defined for complex arrays ({v.dtype.name}): they have no order")
        return prim.bind(v, axes=names)

    return _tree.tree_map(leaf, x)


def pmax(x: T, axis_name: AxisName | tuple[AxisName, ...], *, axis_index_groups: Any = None) -> T:
    """The maximum of `x` over the members of the named axis (or axes); its derivative is shared equally
    among the members that tie, as for `max`.

    >>> import stridex as sx
    >>> sx.vmap(lambda v: sx.lax.pmax(v, "i"), axis_name="i")(sx.asarray([1.0, 5.0, 3.0]))
    Array([5., 5., 5.])
    """
    return _extremum(_parallel.pmax, "pmax", x, axis_name, axis_index_groups)


def pmin(x: T, axis_name: AxisName | tuple[AxisName, ...], *, axis_index_groups: Any = None) -> T:
    """The minimum of `x` over the members of the named axis (or axes), as `pmax`.

    >>> import stridex as sx
    >>> sx.vmap(lambda v: sx.lax.pmin(v, "i"), axis_name="i")(sx.asarray([1.0, 5.0, 3.0]))
    Array([1., 1., 1.])
    """
    return _extremum(_parallel.pmin, "pmin", x, axis_name, axis_index_groups)


def all_gather(x: T, axis_name: AxisName | tuple[AxisName, ...], *, axis_index_groups: Any = None, axis: int = 0,
               tiled: bool = False) -> T:
    """Every member's `x`, stacked along a new axis at position `axis` (with `tiled=True`, concatenated along
    the existing axis `axis`), the same for every member. Over several names, the members are ordered with the
    first name's index the slowest, as in JAX.

    >>> import stridex as sx
    >>> sx.vmap(lambda v: sx.lax.all_gather(v, "i"), axis_name="i")(sx.asarray([1.0, 2.0]))
    Array([[1., 2.],
           [1., 2.]])
    """
    names = _names(axis_name)
    sizes = _sizes(names, "all_gather", axis_index_groups)

    def leaf(v):
        v = _leaf(v, "all_gather")
        if not isinstance(v, Array):
            v = _ops.constant(v)
        ndim = v.ndim
        if tiled:
            if ndim == 0:
                raise ValueError("all_gather(tiled=True) concatenates along an existing axis; a 0-D array has none")
            position = normalize_axis(axis, ndim, "all_gather axis")
        else:
            position = normalize_axis(axis, ndim + 1, "all_gather axis")
        if len(names) == 1:
            return _parallel.all_gather.bind(v, axes=names, axis=position, tiled=tiled, size=sizes[0])
        for name, size in zip(reversed(names), reversed(sizes)):  # (the last name innermost)
            v = _parallel.all_gather.bind(v, axes=(name,), axis=position, tiled=False, size=size)
        shape = _ops.shape_of(v)
        k = len(names) + (1 if tiled else 0)  # (the gathered axes, and the chunk axis of a tiled gather)
        return _ops.reshape(v, shape[:position] + (math.prod(shape[position:position + k]),) + shape[position + k:])

    return _tree.tree_map(leaf, x)


def axis_index(axis_name: AxisName | tuple[AxisName, ...]) -> Array:
    """This member's position along the named axis, an int32 0-D array (over several names, the position in
    their product, the first name's index the slowest).

    >>> import stridex as sx
    >>> sx.vmap(lambda v: v * sx.lax.axis_index("i"), axis_name="i")(sx.asarray([5.0, 5.0, 5.0]))
    Array([ 0.,  5., 10.])
    """
    names = _names(axis_name)
    sizes = _sizes(names, "axis_index", None)
    index = None
    for name, size in zip(names, sizes):
        here = _parallel.axis_index.bind(axes=(name,))
        index = here if index is None else index * size + here
    if index is None:
        raise ValueError("axis_index needs at least one axis name")
    return index


