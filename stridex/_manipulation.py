"""Manipulation functions. The movement ones (permute, broadcast, flip, expand/squeeze, reshape) are O(1) views."""

from __future__ import annotations

import operator

from ._array import Array
from ._primitives import views as _views
from ._view import broadcast_shapes as _broadcast_shapes
from ._view import normalize_axes, normalize_axis

__all__ = ["broadcast_arrays", "broadcast_shapes", "broadcast_to", "expand_dims", "flip", "moveaxis",
           "permute_dims", "reshape", "squeeze", "unstack"]


def _check_array(x, name: str):
    if not isinstance(x, Array):
        raise TypeError(f"{name} expects an array, got {type(x).__name__}")


def permute_dims(x: Array, /, axes: tuple[int, ...]) -> Array:
    """Permute the axes of `x` (a view sharing storage).

    >>> import stridex as sx
    >>> sx.permute_dims(sx.zeros((2, 3, 4)), (2, 0, 1)).shape
    (4, 2, 3)
    """
    _check_array(x, "permute_dims")
    axes = tuple(axes)
    if len(axes) != x.ndim:
        raise ValueError(f"permute_dims: axes {axes} do not match an array of dimension {x.ndim}")
    axes = normalize_axes(axes, x.ndim, "axes entry")
    return _views.permute.bind(x, axes=axes)


def broadcast_shapes(*shapes: tuple[int, ...]) -> tuple[int, ...]:
    """The shape that `shapes` broadcast to; ValueError naming them if they are incompatible."""
    return _broadcast_shapes(*(tuple(operator.index(n) for n in s) for s in shapes))


def broadcast_to(x: Array, /, shape: tuple[int, ...]) -> Array:
    """A read-through view of `x` broadcast to `shape` (stride 0 on the broadcast axes)."""
    _check_array(x, "broadcast_to")
    shape = tuple(operator.index(n) for n in shape)
    if len(shape) < x.ndim or _broadcast_shapes(x.shape, shape) != shape:
        raise ValueError(f"cannot broadcast an array of shape {x.shape} to shape {shape}")
    if shape == x.shape:
        return x
    return _views.broadcast_to.bind(x, shape=shape)


def broadcast_arrays(*arrays: Array) -> list[Array]:
    """Broadcast all `arrays` against each other (views); returns a list."""
    for a in arrays:
        _check_array(a, "broadcast_arrays")
    shape = _broadcast_shapes(*(a.shape for a in arrays))
    return [broadcast_to(a, shape) for a in arrays]


def expand_dims(x: Array, /, axis: int | tuple[int, ...] = 0) -> Array:
    """Insert size-1 axes at `axis` (positions in the result; negative counts from its end)."""
    _check_array(x, "expand_dims")
    axes = axis if isinstance(axis, tuple) else (axis,)
    out_ndim = x.ndim + len(axes)
    positions = sorted(normalize_axes(axes, out_ndim))
    for p in positions:
        x = _views.expand_dims.bind(x, axis=p)
    return x


def squeeze(x: Array, /, axis: int | tuple[int, ...]) -> Array:
    """Remove the size-1 axes `axis`; ValueError naming the axis if one of them is not of size 1."""
    _check_array(x, "squeeze")
    axes = normalize_axes(axis, x.ndim)
    for a in axes:
        if x.shape[a] != 1:
            raise ValueError(f"squeeze: axis {a} has size {x.shape[a]}, not 1 (shape {x.shape})")
    return _views.squeeze.bind(x, axes=tuple(sorted(axes)))


def flip(x: Array, /, *, axis: int | tuple[int, ...] | None = None) -> Array:
    """Reverse the order of elements along `axis` (all axes when None): a negative-stride view."""
    _check_array(x, "flip")
    return _views.flip.bind(x, axes=normalize_axes(axis, x.ndim))


def moveaxis(x: Array, source: int | tuple[int, ...], destination: int | tuple[int, ...], /) -> Array:
    """Move axes `source` to positions `destination` (a view)."""
    _check_array(x, "moveaxis")
    src = normalize_axes(source, x.ndim, "source axis")
    dst = normalize_axes(destination, x.ndim, "destination axis")
    if len(src) != len(dst):
        raise ValueError(f"moveaxis: source {source} and destination {destination} differ in length")
    order = [a for a in range(x.ndim) if a not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return _views.permute.bind(x, axes=tuple(order))


def unstack(x: Array, /, *, axis: int = 0) -> tuple[Array, ...]:
    """Split `x` along `axis` into a tuple of views."""
    _check_array(x, "unstack")
    if x.ndim == 0:
        raise ValueError("unstack needs an array of at least one dimension, got a 0-D array")
    axis = normalize_axis(axis, x.ndim)
    lead = tuple(("slice", 0, n, 1) for n in x.shape[:axis])
    rest = tuple(("slice", 0, n, 1) for n in x.shape[axis + 1:])
    return tuple(_views.basic_index.bind(x, entries=lead + (("int", i),) + rest) for i in range(x.shape[axis]))


def reshape(x: Array, /, shape: tuple[int, ...], *, copy: bool | None = None) -> Array:
    """Give `x` a new shape: a view whenever the strides allow one (NumPy's rule), else a copy.

    `copy=False` raises ValueError when no view exists; `copy=True` always copies.

    >>> import stridex as sx
    >>> sx.reshape(sx.arange(6), (2, -1)).shape
    (2, 3)
    """
    _check_array(x, "reshape")
    shape = _resolve_shape(tuple(operator.index(n) for n in shape), x.shape)
    if copy:
        return _views.reshape_view.bind(x._copy(), shape=shape)
    if shape == x.shape:
        return x
    storage, view = x._storage_view()
    if view.reshape(shape) is None:
        if copy is False:
            raise ValueError(f"reshape(copy=False): an array of shape {x.shape} and strides {view.strides} "
                             f"cannot be viewed as shape {shape}")
        return _views.reshape_view.bind(x._copy(), shape=shape)
    return _views.reshape_view.bind(x, shape=shape)


def _resolve_shape(shape: tuple, old: tuple) -> tuple:
    size = 1
    for n in old:
        size *= n
    unknown = [i for i, n in enumerate(shape) if n == -1]
    if len(unknown) > 1 or any(n < -1 for n in shape):
        raise ValueError(f"invalid shape {shape}: at most one -1 and no other negative sizes")
    known = 1
    for n in shape:
        if n != -1:
            known *= n
    if unknown:
        if known == 0 or size % known:
            raise ValueError(f"cannot reshape an array of shape {old} into shape {shape}")
        shape = shape[:unknown[0]] + (size // known,) + shape[unknown[0] + 1:]
    elif known != size:
        raise ValueError(f"cannot reshape an array of size {size} (shape {old}) into shape {shape}")
    return shape
