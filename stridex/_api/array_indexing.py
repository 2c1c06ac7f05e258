"""`x[key]` and `x[key] = value`: normalising a key, then binding a view, gather or assign primitive.

Basic keys (ints, slices, `...`, None) give O(1) views; integer arrays and boolean masks follow NumPy's
advanced-indexing rules (the spec's where it has them) and give copies.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from stridex._api.creation_functions import _values_are_eager, asarray
from stridex._core import dtypes as _dtypes
from stridex._core.array import Array
from stridex._core.device import HOST
from stridex._lax import array_indexing as _ix
from stridex._exec import device as _device
from stridex._lax import ops
from stridex._lax import views as _views
from stridex._transforms.tracing import Tracer, note_scalar_store
from stridex._transforms.tracing import weak_scalar_example as _weak_scalar


def _normalize_basic(key: tuple, shape: tuple) -> tuple:
    """Entries covering every axis for a key of ints, slices, None and at most one Ellipsis."""
    ndim = len(shape)
    n_indexing = sum(1 for k in key if k is not None and k is not Ellipsis)
    n_ellipsis = sum(1 for k in key if k is Ellipsis)
    if n_ellipsis > 1:
        raise IndexError(f"an index can have at most one ellipsis ('...'), got {n_ellipsis}")
    if n_indexing > ndim:
        raise IndexError(f"too many indices for an array of shape {shape}: {n_indexing} were given")
    entries: list[tuple[Any, ...]] = []
    axis = 0
    for k in key:
        if k is None:
            entries.append(("newaxis",))
        elif k is Ellipsis:
            for _ in range(ndim - n_indexing):
                entries.append(("slice", 0, shape[axis], 1))
                axis += 1
        elif isinstance(k, slice):
            n = shape[axis]
            if k.step == 0:
                raise ValueError("slice step cannot be zero")
            entries.append(("slice", *_slice_indices(k, n)))
            axis += 1
        else:
            n = shape[axis]
            i = k if type(k) is int else operator.index(k)
            if not -n <= i < n:
                raise IndexError(f"index {i} is out of bounds for axis {axis} with size {n}")
            entries.append(("int", i + n if i < 0 else i))
            axis += 1
    while axis < ndim:
        entries.append(("slice", 0, shape[axis], 1))
        axis += 1
    return tuple(entries)


def _slice_indices(k: slice, n: int) -> tuple:
    for part in (k.start, k.stop, k.step):
        if part is not None and not isinstance(part, int):
            try:
                operator.index(part)
            except TypeError:
                raise IndexError(f"slice indices must be integers or None, got {part!r}") from None
    return slice(*(None if p is None else operator.index(p) for p in (k.start, k.stop, k.step))).indices(n)


def _is_basic(key: tuple) -> bool:
    """True for keys of ints (any __index__ scalar that is not an array), slices, None and Ellipsis."""
    for k in key:
        if type(k) is int or k is None or k is Ellipsis or type(k) is slice:
            continue
        if isinstance(k, (bool, Array, list, tuple)) or hasattr(k, "__array_namespace__"):
            return False
        if not hasattr(k, "__index__") or getattr(k, "ndim", 0) != 0 or getattr(k, "dtype", None) == "bool":
            return False
    return True


def _as_tuple(key) -> tuple:
    return key if type(key) is tuple else (key,)


def getitem(x: Array, key) -> Array:
    key = _as_tuple(key)
    if _is_basic(key):
        return _views.basic_index.bind(x, entries=_normalize_basic(key, x.shape))
    if _has_traced_ints(key):
        return _dynamic_index(x, key)
    template, arrays, has_mask = _advanced_template(key, x.shape, _index_device(x))
    prim = _ix.boolean_gather if has_mask else _ix.gather
    return prim.bind(x, *arrays, template=template)


def _is_traced_int(k) -> bool:
    """Whether key entry `k` is a traced integer scalar (a Python int argument of a jitted function, say)."""
    return isinstance(k, Tracer) and k.shape == () and k.dtype.kind in ("signed", "unsigned")


def _has_traced_ints(key: tuple) -> bool:
    """Whether `key` is basic but for traced integer scalars, and has at least one."""
    return any(_is_traced_int(k) for k in key) and _is_basic(tuple(0 if _is_traced_int(k) else k for k in key))


def _dynamic_index(x: Array, key: tuple) -> Array:
    """`x[key]` for a basic key some of whose integers are traced: the rest of the key as a view, then one
    `dynamic_slice` of length 1 on each axis a traced integer indexes (a negative one counts from the end, as
    eagerly; one out of range is clamped into the axis, as JAX's `x[i]`: its value is not known to check it),
    those axes dropped. One program serves every index."""
    entries = _normalize_basic(tuple(slice(None) if _is_traced_int(k) else k for k in key), x.shape)
    position, traced = 0, {}  # entry position -> the traced integer there
    n_indexing = sum(1 for k in key if k is not None and k is not Ellipsis)
    for k in key:
        if k is Ellipsis:
            position += len(x.shape) - n_indexing
            continue
        if _is_traced_int(k):
            traced[position] = k
        position += 1
    whole = all(e[0] == "slice" and e[1:] == (0, n, 1) for e, n in zip(entries, x.shape)) and len(entries) == x.ndim
    view = x if whole else _views.basic_index.bind(x, entries=entries)
    shape = view.shape
    starts: list[Any] = [0] * len(shape)
    sizes = list(shape)
    axis, dropped = 0, []
    for position, entry in enumerate(entries):
        if entry[0] == "int":
            continue
        if position in traced:
            n = shape[axis]
            if n == 0:
                raise IndexError(f"an index into axis {axis} of size 0 is always out of bounds")
            starts[axis], sizes[axis] = traced[position], 1  # (dynamic_slice counts a negative one from the end)
            dropped.append(axis)
        axis += 1
    return ops.squeeze(ops.dynamic_slice(view, starts, tuple(sizes)), tuple(dropped))


def _advanced_template(key: tuple, shape: tuple, device=None):
    """Template + index arrays for a key with integer arrays, lists or masks (NumPy semantics)."""

    if any(isinstance(k, (np.ndarray, np.bool_)) for k in key):
        key = tuple(_from_numpy_index(k, device) for k in key)
    template: list[tuple[Any, ...]]
    arrays: list[Any]
    template, arrays, has_mask = [], [], False
    ndim = len(shape)
    consumed = 0
    for k in key:
        if isinstance(k, Array) and k.dtype is _dtypes.bool:
            consumed += k.ndim
        elif k is not None and k is not Ellipsis and not (type(k) is bool):
            consumed += 1
    if sum(1 for k in key if k is Ellipsis) > 1:
        raise IndexError("an index can have at most one ellipsis ('...')")
    if consumed > ndim:
        raise IndexError(f"too many indices for an array of shape {shape}: {consumed} axes are indexed")
    axis = 0
    for k in key:
        if k is None:
            template.append(("newaxis",))
        elif k is Ellipsis:
            template.append(("ellipsis",))
            axis += ndim - consumed
        elif type(k) is bool:
            template.append(("array", len(arrays)))
            arrays.append(_index_beside(asarray(k, device=HOST), device))
            has_mask = True
        elif isinstance(k, slice):
            if k.step == 0:
                raise ValueError("slice step cannot be zero")
            template.append(("slice", *_slice_indices(k, shape[axis])))
            axis += 1
        elif isinstance(k, (Array, list, tuple)):
            a = _index_beside(k if isinstance(k, Array) else asarray(k, device=HOST), device)
            if a.dtype is _dtypes.bool:
                has_mask = True
                want = shape[axis:axis + a.ndim]
                # NumPy (and the suite) accept a mask axis of size 0 against an axis of any size.
                if len(want) != a.ndim or any(k not in (n, 0) for k, n in zip(a.shape, want)):
                    raise IndexError(f"boolean index of shape {a.shape} does not match the indexed axes "
                                     f"{tuple(range(axis, axis + a.ndim))} of shape {want}")
                axis += a.ndim
            elif a.dtype.kind in ("signed", "unsigned") or a.size == 0:
                axis += 1
            else:
                raise IndexError(f"arrays used as indices must be of integer or boolean dtype, got {a.dtype.name}")
            template.append(("array", len(arrays)))
            arrays.append(a)
        else:
            try:
                i = operator.index(k)
            except TypeError:
                raise IndexError(f"only integers, slices, ..., None, and integer or boolean arrays are valid "
                                 f"indices; got {type(k).__name__}") from None
            n = shape[axis]
            if not -n <= i < n:
                raise IndexError(f"index {i} is out of bounds for axis {axis} with size {n}")
            template.append(("int", i + n if i < 0 else i))
            axis += 1
    return tuple(template), arrays, has_mask


def _index_device(x: Array):
    """Where index arrays for `x` must live: its device, or None under `jit` (the program's closed-over
    index arrays are inputs, placed per call with the arguments)."""
    if isinstance(x, Tracer) and not _values_are_eager(x._trace):
        return None
    return x.device


def _index_beside(k: Array, device) -> Array:
    """Index array `k` on `device`, where the indexed array lives. A host index of a device array is moved
    there (an explicit, O(index) transfer; PyTorch accepts host indices for CUDA tensors the same way): an
    index is part of the key, as a list or a NumPy array is, which `_advanced_template` makes there too. An
    index on another device is refused, with the way out; so is a device index of a host array (its values
    would have to come to the host)."""
    if device is None or isinstance(k, Tracer):
        return k
    here = k.device
    if here is device or here == device:
        return k
    if here.is_host:
        return _device.index_on(k, device)
    raise ValueError(f"an index array on {here.name} cannot index an array on {device.name}; move it there first "
                     f"with index.to_device({device.name!r})")


# Array values x[key] may take: NumPy's "same_kind" casts. The spec's promotion rules (a value whose dtype
# promotes to x's) are among them; beyond those it leaves assignment implementation-defined, and client libraries
# written against NumPy store a float64 result into a float32 array or complex128 into complex64. Casts to
# another kind (float into an integer array, complex into a real one, signed into unsigned) are still refused.
_ASSIGNABLE = frozenset((target, value) for target in _dtypes.ALL_DTYPES for value in _dtypes.ALL_DTYPES
                        if np.can_cast(value.np, target.np, "same_kind"))
# The half types: the same-kind rule by kind (ml_dtypes registers complex -> bfloat16 as same-kind, NumPy does not
# for float16): any real number into a half array, a half value into any floating array.
_ASSIGNABLE |= {(target, value) for target in _dtypes.EXTENDED_DTYPES for value in _dtypes.EXTENDED_DTYPES
                if (_dtypes.is_half(target) and value.kind != "complex floating")
                or (_dtypes.is_half(value) and _dtypes.is_floating(target))}


def _from_numpy_index(k, device=None):
    """A NumPy index array as a stridex one and a NumPy bool as Python's (NumPy integer scalars are already ints
    through __index__). The spec's index arrays are the namespace's own, but client libraries index with NumPy
    arrays (scikit-learn's cross-validation splits), as NumPy and JAX allow."""
    if isinstance(k, np.bool_):
        return bool(k)
    if not isinstance(k, np.ndarray):
        return k
    if k.dtype.kind not in "biu" or k.dtype not in _dtypes.FROM_NUMPY:
        raise IndexError(f"arrays used as indices must be of integer or boolean dtype, got a NumPy array of "
                         f"dtype {k.dtype}")

    return _index_beside(asarray(k, device=HOST), device)  # (beside the indexed array: an index is part of the key)


_INEXACT_KINDS = frozenset({"real floating", "complex floating"})


def check_value(x: Array, value):
    """`value` if it may be stored into `x` (a same-kind cast for an array value), else TypeError."""
    dt = x._dtype
    t = type(value)
    if t is float:  # the commonest writes first (`x[i] = 1.0`): one type test and one set lookup
        if dt.kind in _INEXACT_KINDS:
            return value
    elif t is int and dt is not _dtypes.bool:
        return value
    if isinstance(value, Array):
        example = _weak_scalar(value)
        if example is not None:
            # A Python scalar argument of a jitted function: the rules of the Python scalar it stands for, and
            # its value checked per call as NumPy's store checks it (an int out of range is an OverflowError).
            if not _scalar_fits(dt, example):
                raise TypeError(f"cannot assign a Python {type(example).__name__} (a traced argument) into an "
                                f"array of dtype {dt.name}")
            note_scalar_store(value, dt)
            return value
        if value._dtype is not dt and (dt, value._dtype) not in _ASSIGNABLE:
            raise TypeError(f"cannot assign an array of dtype {value.dtype.name} into an array of dtype {dt.name}: "
                            f"that cast changes the kind of value; convert it first with astype(value, {dt.name})")
        return value
    if not isinstance(value, (bool, int, float, complex)):
        raise TypeError(f"cannot assign a {type(value).__name__} into an array; expected an Array or Python scalar")
    if not _scalar_fits(dt, value):
        raise TypeError(f"cannot assign Python {type(value).__name__} {value!r} into an array of dtype {dt.name}")
    return value


def _scalar_fits(dt, value) -> bool:
    """Whether a Python scalar of `value`'s kind may be stored into dtype `dt` (the spec's scalar rules)."""
    if isinstance(value, bool):
        return True
    if isinstance(value, int):
        return dt is not _dtypes.bool
    if isinstance(value, float):
        return dt.kind in ("real floating", "complex floating")
    return dt.kind == "complex floating"


def setitem(x: Array, key, value) -> None:
    value = check_value(x, value)
    key = _as_tuple(key)
    if _is_basic(key):
        entries = _normalize_basic(key, x.shape)
        _ix.assign.bind(x, value, template=entries)
        return
    template, arrays, _ = _advanced_template(key, x.shape, _index_device(x))
    _ix.assign.bind(x, value, *arrays, template=template)


def assign_inplace(x: Array, result: Array, op: str) -> None:
    """The write half of an in-place operator: `x op= y` stores `x op y` into x's own storage."""
    if result.dtype is not x.dtype:
        raise TypeError(f"in-place {op} would change the dtype of an array of dtype {x.dtype.name} "
                        f"to {result.dtype.name}")
    if result.shape != x.shape:
        raise ValueError(f"in-place {op} would change the shape of an array of shape {x.shape} to {result.shape}")
    _ix.assign.bind(x, result, template=(("ellipsis",),))
