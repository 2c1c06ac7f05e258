"""Manipulation functions. The movement ones (permute, broadcast, flip, expand/squeeze, reshape) are O(1) views;
concat, stack, repeat, roll and tile copy."""

from __future__ import annotations

import operator

import numpy as np

from stridex._core.array import Array, window
from stridex._core.state import current_trace
from stridex._core.view import as_count, normalize_axes, normalize_axis, normalize_shape
from stridex._core.view import broadcast_shapes as _broadcast_shapes
from stridex._lax import manipulation as _shape
from stridex._lax import ops
from stridex._lax import views as _views
from stridex._lax.elementwise import copy as _copy_prim

__all__ = ["broadcast_arrays", "broadcast_shapes", "broadcast_to", "concat", "expand_dims", "flip", "moveaxis",
           "permute_dims", "repeat", "reshape", "roll", "squeeze", "stack", "tile", "unstack"]


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
    """The shape that `shapes` broadcast to; ValueError naming them if they are incompatible.

    >>> import stridex as sx
    >>> sx.broadcast_shapes((2, 1), (3,))
    (2, 3)
    """
    shapes = tuple(normalize_shape(s, "broadcast_shapes") for s in shapes)
    return _broadcast_shapes(*shapes)


def broadcast_to(x: Array, /, shape: tuple[int, ...]) -> Array:
    """A view of `x` broadcast to `shape` (stride 0 on the broadcast axes).

    >>> import stridex as sx
    >>> sx.broadcast_to(sx.asarray([1, 2, 3]), (2, 3))
    Array([[1, 2, 3],
           [1, 2, 3]])
    """
    _check_array(x, "broadcast_to")
    shape = normalize_shape(shape, "broadcast_to")
    if len(shape) < x.ndim or _broadcast_shapes(x.shape, shape) != shape:
        raise ValueError(f"cannot broadcast an array of shape {x.shape} to shape {shape}")
    if shape == x.shape:
        return x
    return _views.broadcast_to.bind(x, shape=shape)


def broadcast_arrays(*arrays: Array) -> tuple[Array, ...]:
    """Broadcast all `arrays` against each other (views); returns a tuple (a list before the 2025.12 spec).

    >>> import stridex as sx
    >>> [a.shape for a in sx.broadcast_arrays(sx.ones((2, 1)), sx.ones(3))]
    [(2, 3), (2, 3)]
    """
    for a in arrays:
        _check_array(a, "broadcast_arrays")
    shape = _broadcast_shapes(*(a.shape for a in arrays))
    return tuple(broadcast_to(a, shape) for a in arrays)


def expand_dims(x: Array, /, axis: int | tuple[int, ...] = 0) -> Array:
    """Insert size-1 axes at `axis` (positions in the result; negative counts from its end): a view.

    >>> import stridex as sx
    >>> sx.expand_dims(sx.ones((2, 3)), axis=(0, -1)).shape
    (1, 2, 3, 1)
    """
    _check_array(x, "expand_dims")
    axes = axis if isinstance(axis, tuple) else (axis,)
    out_ndim = x.ndim + len(axes)
    positions = sorted(normalize_axes(axes, out_ndim))
    for p in positions:
        x = _views.expand_dims.bind(x, axis=p)
    return x


def squeeze(x: Array, /, axis: int | tuple[int, ...]) -> Array:
    """Remove the size-1 axes `axis` (a view); ValueError naming the axis if one of them is not of size 1.

    >>> import stridex as sx
    >>> sx.squeeze(sx.ones((1, 3, 1)), (0, 2)).shape
    (3,)
    """
    _check_array(x, "squeeze")
    axes = normalize_axes(axis, x.ndim)
    for a in axes:
        if x.shape[a] != 1:
            raise ValueError(f"squeeze: axis {a} has size {x.shape[a]}, not 1 (shape {x.shape})")
    return _views.squeeze.bind(x, axes=tuple(sorted(axes)))


def flip(x: Array, /, *, axis: int | tuple[int, ...] | None = None) -> Array:
    """Reverse the order of elements along `axis` (all axes when None): a negative-stride view.

    >>> import stridex as sx
    >>> sx.flip(sx.asarray([1, 2, 3]))
    Array([3, 2, 1])
    """
    _check_array(x, "flip")
    return _views.flip.bind(x, axes=normalize_axes(axis, x.ndim))


def moveaxis(x: Array, source: int | tuple[int, ...], destination: int | tuple[int, ...], /) -> Array:
    """Move axes `source` to positions `destination` (a view).

    >>> import stridex as sx
    >>> sx.moveaxis(sx.ones((2, 3, 4)), 0, -1).shape
    (3, 4, 2)
    """
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
    """Split `x` along `axis` into a tuple of views.

    >>> import stridex as sx
    >>> sx.unstack(sx.asarray([[1, 2], [3, 4]]), axis=1)
    (Array([1, 3]), Array([2, 4]))
    """
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
    if copy is None and current_trace() is None and type(shape) is tuple and x._fast_storage():
        # Eager fast path: NumPy applies the same view-or-not rule as View.reshape (tests check it),
        # answering in C; anything it refuses goes the long way below (which copies or explains).
        w = x._np
        try:
            return x._fast_view((w if w is not None else window(x)).reshape(shape, copy=False))
        except (ValueError, TypeError):
            pass
    shape = _resolve_shape(tuple(operator.index(n) for n in shape), x.shape)
    if copy:
        return _views.reshape_view.bind(ops.copy(x), shape=shape)
    if shape == x.shape:
        return x
    view = x._storage_view()[1]
    if view.reshape(shape) is None:
        if copy is False:
            raise ValueError(f"reshape(copy=False): an array of shape {x.shape} and strides {view.strides} "
                             f"cannot be viewed as shape {shape}")
        return _views.reshape_view.bind(ops.copy(x), shape=shape)
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


# --- functions that copy ------------------------------------------------------------------------------


def _check_arrays(arrays, fname: str) -> tuple:
    if isinstance(arrays, Array) or not isinstance(arrays, (tuple, list)):
        raise TypeError(f"{fname} takes a tuple or list of arrays, got {type(arrays).__name__}")
    if not arrays:
        raise ValueError(f"{fname} needs at least one array")
    for a in arrays:
        _check_array(a, fname)
    return tuple(arrays)


def _flat(x: Array) -> Array:
    return x if x.ndim == 1 else reshape(x, (-1,))


def concat(arrays: tuple[Array, ...] | list[Array], /, *, axis: int | None = 0) -> Array:
    """Join `arrays` along an existing `axis` (flattened first when `axis` is None), promoting dtypes.

    >>> import stridex as sx
    >>> sx.concat([sx.zeros((1, 2)), sx.ones((2, 2))]).shape
    (3, 2)
    """
    arrays = _check_arrays(arrays, "concat")
    if axis is None:
        return _shape.concatenate.bind(*(_flat(a) for a in arrays), axis=0)
    ndim = arrays[0].ndim
    if ndim == 0:
        raise ValueError("concat cannot join 0-D arrays along an axis; use axis=None or stack")
    axis = normalize_axis(axis, ndim)
    first = arrays[0].shape
    for a in arrays[1:]:
        if a.ndim != ndim or a.shape[:axis] != first[:axis] or a.shape[axis + 1:] != first[axis + 1:]:
            raise ValueError(f"concat along axis {axis}: shapes {' and '.join(str(b.shape) for b in arrays)} "
                             "differ outside that axis")
    return _shape.concatenate.bind(*arrays, axis=axis)


def stack(arrays: tuple[Array, ...] | list[Array], /, *, axis: int = 0) -> Array:
    """Join same-shaped `arrays` along a new axis at position `axis` of the result, promoting dtypes.

    >>> import stridex as sx
    >>> sx.stack([sx.zeros(3), sx.ones(3)], axis=-1).shape
    (3, 2)
    """
    arrays = _check_arrays(arrays, "stack")
    shape = arrays[0].shape
    for a in arrays[1:]:
        if a.shape != shape:
            raise ValueError(f"stack needs arrays of one shape, got {' and '.join(str(b.shape) for b in arrays)}")
    return _shape.stack.bind(*arrays, axis=normalize_axis(axis, len(shape) + 1))


def repeat(x: Array, repeats: int | Array, /, *, axis: int | None = None) -> Array:
    """Repeat each element of `x` (flattened when `axis` is None) `repeats` times along `axis`.

    `repeats` is an int, or an integer array of shape (1,) or (x.shape[axis],) giving one count per
    element; with an array, the output shape depends on its values: eagerly that is no matter; under
    `jit` the counts must be a constant of the traced function, not one of its traced inputs.

    >>> import stridex as sx
    >>> sx.repeat(sx.asarray([1, 2]), 2)
    Array([1, 1, 2, 2])
    >>> sx.repeat(sx.asarray([1, 2]), sx.asarray([1, 3]))
    Array([1, 2, 2, 2])
    """
    _check_array(x, "repeat")
    if axis is None:
        x, axis = _flat(x), 0
    else:
        if x.ndim == 0:
            raise ValueError("repeat along an axis needs an array of at least one dimension; use axis=None")
        axis = normalize_axis(axis, x.ndim)
    if isinstance(repeats, Array):
        if repeats.dtype.kind not in ("signed", "unsigned"):
            raise TypeError(f"repeat: a repeats array must have an integer dtype, got {repeats.dtype.name}")
        n = x.shape[axis]
        if repeats.shape not in ((), (1,), (n,)):
            raise ValueError(f"repeat: repeats of shape {repeats.shape} do not broadcast to ({n},), "
                             f"the length of axis {axis} of an array of shape {x.shape}")
        if current_trace() is not None and type(repeats) is Array:
            # Counts known while tracing (a constant, not a traced value): the output shape is static.
            counts = tuple(int(c) for c in np.asarray(repeats).reshape(-1))
            if min(counts, default=0) < 0:
                raise ValueError(f"repeat: repeats must be non-negative, got {min(counts)}")
            _check_repeated_size(x, axis, sum(counts))
            return _shape.repeat.bind(x, count=counts, axis=axis)
        return _shape.repeat_by_array.bind(x, repeats, axis=axis)
    count = as_count(repeats, "repeat: repeats")
    _check_repeated_size(x, axis, x.shape[axis] * count)
    return _shape.repeat.bind(x, count=count, axis=axis)


# The largest array NumPy (and so eager stridex) can describe: its byte size must fit a signed 64-bit index.
_MAX_BYTES = 2**63 - 1


def _check_repeated_size(x: Array, axis: int, length: int) -> None:
    """ValueError when repeating gives an axis of `length` and so an array too large to exist (NumPy would report
    a negative dimension, its size having overflowed), rather than a misleading error or an attempted allocation."""
    shape = x.shape[:axis] + (length,) + x.shape[axis + 1:]
    size = 1
    for n in shape:
        size *= n
    if length > _MAX_BYTES or size * x.dtype.itemsize > _MAX_BYTES:
        raise ValueError(f"repeat: the result would have shape {shape} ({length} elements along axis {axis}) of "
                         f"{x.dtype.name}, more than any array can hold (2**63 - 1 bytes)")


def roll(x: Array, /, shift: int | tuple[int, ...], *, axis: int | tuple[int, ...] | None = None) -> Array:
    """Shift the elements of `x` along `axis` (of the flattened array when None), wrapping around the ends.

    >>> import stridex as sx
    >>> sx.roll(sx.arange(5), 2)
    Array([3, 4, 0, 1, 2])
    """
    _check_array(x, "roll")
    if axis is None:
        if isinstance(shift, tuple):
            raise ValueError(f"roll: a tuple shift {shift} needs a tuple axis of the same length")
        flat = _flat(x)
        return reshape(roll(flat, shift, axis=0), x.shape)
    axes = axis if isinstance(axis, tuple) else (axis,)
    axes = tuple(normalize_axis(a, x.ndim) for a in axes)
    if isinstance(shift, tuple):
        if len(shift) != len(axes):
            raise ValueError(f"roll: shift {shift} and axis {axis} differ in length")
        shifts = shift
    else:
        shifts = (shift,) * len(axes)
    total = dict.fromkeys(range(x.ndim), 0)
    for s, a in zip(shifts, axes):
        try:
            total[a] += operator.index(s)
        except TypeError:
            raise TypeError(f"roll: shift must be an int or a tuple of ints, got {shift!r}") from None
    moves = [(total[a] % x.shape[a], a) for a in range(x.ndim) if x.shape[a] and total[a] % x.shape[a]]
    if not moves:
        return _copy_prim.bind(x)
    return _shape.roll.bind(x, shifts=tuple(s for s, _ in moves), axes=tuple(a for _, a in moves))


def tile(x: Array, repetitions: tuple[int, ...], /) -> Array:
    """Tile `x`: `repetitions[i]` copies along axis i (shapes are padded with leading 1s to match).

    >>> import stridex as sx
    >>> sx.tile(sx.asarray([1, 2]), (2, 2))
    Array([[1, 2, 1, 2],
           [1, 2, 1, 2]])
    """
    _check_array(x, "tile")
    if not isinstance(repetitions, (tuple, list)):
        raise TypeError(f"tile: repetitions must be a tuple of ints, got {type(repetitions).__name__}")
    reps = tuple(as_count(r, "tile: each repetition") for r in repetitions)
    if len(reps) > x.ndim:
        x = reshape(x, (1,) * (len(reps) - x.ndim) + x.shape)
    return _shape.tile.bind(x, repetitions=(1,) * (x.ndim - len(reps)) + reps)
