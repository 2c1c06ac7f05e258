"""Array creation with jax.numpy's signatures: `array`/`asarray` (nested sequences of arrays included), the
constructors taking dtype-likes, ranges (`linspace` with array bounds, `logspace`, `geomspace`), matrices (`diag`,
`tri`, `vander`), grids (`indices`, `meshgrid`, `mgrid`, `ogrid`, `ix_`) and index helpers."""

from __future__ import annotations

import builtins
import functools
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from stridex import linalg as _linalg
from stridex._api import creation_functions as _cr
from stridex._api import data_type_functions as _dt
from stridex._api import elementwise_functions as _ew
from stridex._api import manipulation_functions as _manip
from stridex._api import searching_functions as _search
from stridex._api import transcendental_functions as _tr
from stridex._core import dtypes as _d
from stridex._core.array import Array
from stridex._core.dtypes import DType
from stridex._transforms.tracing import weak_scalar_example
from stridex.numpy import _args, _indexing
from stridex.numpy import _dtypes as _jd

__all__ = [
    "arange", "array", "asarray", "c_", "copy", "diag", "diag_indices", "diag_indices_from", "diagflat", "empty",
    "empty_like", "eye", "from_dlpack", "frombuffer", "fromfunction", "fromstring", "full", "full_like", "geomspace",
    "identity", "index_exp", "indices", "ix_", "linspace", "logspace", "mask_indices", "meshgrid", "mgrid", "ogrid",
    "ones", "ones_like", "r_", "s_", "tri", "tril_indices", "tril_indices_from", "triu_indices", "triu_indices_from", "vander",
    "zeros", "zeros_like",
]

# NumPy's index-expression helpers are plain Python (they build tuples of slices), as in jax.numpy.
s_ = np.s_
index_exp = np.index_exp


# --- array, asarray -------------------------------------------------------------------------------------


def _leaves(obj, out: list) -> builtins.bool:
    """Collect the leaves of a nested list/tuple into `out`; whether any leaf is a stridex array."""
    found = False
    for item in obj:
        if isinstance(item, (list, tuple)):
            found = _leaves(item, out) or found
        else:
            out.append(item)
            found = found or isinstance(item, Array)
    return found


def _nested_dtype(leaves: list, fname: str) -> DType:
    strong, weak = [], []
    for leaf in leaves:
        if isinstance(leaf, Array):
            example = weak_scalar_example(leaf)  # (a Python scalar argument under jit: weak, as that scalar)
            (strong.append(leaf._dtype) if example is None else weak.append(type(example)))
        elif type(leaf) in _args.PY_SCALARS:
            weak.append(type(leaf))
        elif isinstance(leaf, (np.ndarray, np.generic)):
            strong.append(_jd.canonical(leaf.dtype, fname))
        elif isinstance(leaf, _args.PY_SCALARS):
            weak.append(next(t for t in _args.PY_SCALARS if isinstance(leaf, t)))
        else:
            strong.append(_args.array(leaf, fname)._dtype)
    return _jd.result_of(strong, weak)


def _stacked(obj, dtype: DType, fname: str) -> Array:
    """A nested sequence holding stridex arrays, stacked (so that derivatives and traced values flow through)."""
    if not isinstance(obj, (list, tuple)):
        return _args.cast(obj if isinstance(obj, Array) else _cr.asarray(obj), dtype)
    parts = [_stacked(item, dtype, fname) for item in obj]
    shapes = {p.shape for p in parts}
    if len(shapes) > 1:
        raise ValueError(f"{fname}: the sequence's elements have different shapes {sorted(shapes)}; an array needs "
                         "one shape")
    return _manip.stack(parts) if parts else _cr.asarray([], dtype=dtype)


def _convert(obj, dtype: DType | None, fname: str, copy: builtins.bool | None) -> Array:
    if isinstance(obj, Array):
        out = obj if dtype is None else _args.cast(obj, dtype)
        return _cr.asarray(out, copy=True) if copy and out is obj else out
    if isinstance(obj, (list, tuple)):
        leaves: list = []
        has_arrays = _leaves(obj, leaves)
        if dtype is None:
            dtype = _nested_dtype(leaves, fname) if leaves else _d.float64
        if has_arrays:
            return _stacked(obj, dtype, fname)
        return _cr.asarray(obj, dtype=dtype)
    if type(obj) in _args.PY_SCALARS:
        return _cr.asarray(obj, dtype=dtype)
    if isinstance(obj, (np.ndarray, np.generic)) and dtype is None:
        dtype = _jd.canonical(obj.dtype, fname)
    return _cr.asarray(obj, dtype=dtype, copy=copy)


def array(object: Any, dtype: Any = None, copy: builtins.bool = True, order: str | None = "K",  # noqa: A002
          ndmin: int = 0, *, device: Any = None) -> Array:
    """An array from an array, NumPy array, scalar or nested sequence (which may hold stridex arrays: they are
    stacked, so that `jnp.array([x, y])` differentiates and traces); a copy unless `copy=False`.

    The dtype, when none is given, is jax.numpy's: Python scalars are weak (`[x_float32, 1.0]` is float32),
    64-bit defaults otherwise.

    >>> import stridex.numpy as jnp
    >>> x = jnp.asarray([1.0, 2.0], dtype=jnp.float32)
    >>> jnp.array([x, 3.0 * x]), jnp.array([[1, 2]], ndmin=3).shape
    (Array([[1., 2.],
           [3., 6.]], dtype=float32), (1, 1, 2))
    """
    if order not in (None, "K", "A", "C"):
        raise NotImplementedError(f"array: only C order is supported, got order={order!r}")
    dtype = _jd.canonical_or_none(dtype, "array")
    out = _convert(object, dtype, "array", True if copy else None)
    if copy and isinstance(object, Array) and out is object:
        out = _cr.asarray(out, copy=True)
    ndmin = _args.index(ndmin, "array", "ndmin")
    if out.ndim < ndmin:
        out = _manip.reshape(out, (1,) * (ndmin - out.ndim) + out.shape)
    return out if device is None else _cr.asarray(out, device=device)


def asarray(a: Any, dtype: Any = None, order: str | None = None, *, copy: builtins.bool | None = None,
            device: Any = None) -> Array:
    """`a` as an array, shared rather than copied where it can be (`copy=True` copies, `copy=False` refuses to).

    >>> import stridex.numpy as jnp
    >>> jnp.asarray([1, 2.5]), jnp.asarray(3, dtype="float32")
    (Array([1. , 2.5]), Array(3., dtype=float32))
    """
    if order not in (None, "K", "A", "C"):
        raise NotImplementedError(f"asarray: only C order is supported, got order={order!r}")
    dtype = _jd.canonical_or_none(dtype, "asarray")
    if isinstance(a, Array) or isinstance(a, (list, tuple)) or type(a) in _args.PY_SCALARS:
        out = _convert(a, dtype, "asarray", copy)
        if copy is False and out is not a and isinstance(a, Array):
            raise ValueError("asarray(copy=False): a copy is needed to change the dtype")
        return out if device is None else _cr.asarray(out, device=device)
    if isinstance(a, (np.ndarray, np.generic)) and dtype is None:
        dtype = _jd.canonical(a.dtype, "asarray")
    return _cr.asarray(a, dtype=dtype, copy=copy, device=device)


def copy(a: Any, order: str | None = None) -> Array:
    """A copy of `a` (never sharing its memory).

    >>> import stridex.numpy as jnp
    >>> x = jnp.arange(3)
    >>> y = jnp.copy(x)
    >>> y[0] = 7
    >>> x, y
    (Array([0, 1, 2]), Array([7, 1, 2]))
    """
    return array(a, copy=True, order=order)


def from_dlpack(x: Any, /, *, device: Any = None, copy: builtins.bool | None = None) -> Array:
    """An array sharing a DLPack producer's memory (the standard's `from_dlpack`).

    >>> import numpy as np, stridex.numpy as jnp
    >>> jnp.from_dlpack(np.arange(3))
    Array([0, 1, 2])
    """
    return _cr.from_dlpack(x, device=device, copy=copy)


def frombuffer(buffer: Any, dtype: Any = float, count: int = -1, offset: int = 0) -> Array:
    """A 1-D array of a buffer's bytes read as `dtype` (a copy, as in jax.numpy).

    >>> import numpy as np, stridex.numpy as jnp
    >>> jnp.frombuffer(np.arange(3, dtype=np.int16).tobytes(), dtype=jnp.int16)
    Array([0, 1, 2], dtype=int16)
    """
    dtype = _jd.canonical(dtype, "frombuffer")
    return _cr.asarray(np.frombuffer(buffer, dtype=dtype.np, count=count, offset=offset).copy())


def fromstring(string: str, dtype: Any = float, count: int = -1, *, sep: str) -> Array:
    """A 1-D array of the numbers in a string separated by `sep`.

    >>> import stridex.numpy as jnp
    >>> jnp.fromstring("1 2 3", dtype=int, sep=" ")
    Array([1, 2, 3])
    """
    dtype = _jd.canonical(dtype, "fromstring")
    return _cr.asarray(np.fromstring(string, dtype=dtype.np, count=count, sep=sep))


# --- constructors ---------------------------------------------------------------------------------------


def zeros(shape: Any, dtype: Any = None, *, device: Any = None) -> Array:
    """An array of zeros (float64 unless `dtype` says otherwise).

    >>> import stridex.numpy as jnp
    >>> jnp.zeros((2, 2), "int8")
    Array([[0, 0],
           [0, 0]], dtype=int8)
    """
    return _cr.zeros(_args.shape_tuple(shape, "zeros"), dtype=_jd.canonical_or_none(dtype, "zeros"), device=device)


def ones(shape: Any, dtype: Any = None, *, device: Any = None) -> Array:
    """An array of ones (float64 unless `dtype` says otherwise).

    >>> import stridex.numpy as jnp
    >>> jnp.ones(3, dtype=bool)
    Array([ True,  True,  True])
    """
    return _cr.ones(_args.shape_tuple(shape, "ones"), dtype=_jd.canonical_or_none(dtype, "ones"), device=device)


def empty(shape: Any, dtype: Any = None, *, device: Any = None) -> Array:
    """An array of `shape` whose values are unspecified (jax.numpy's are zeros; stridex's are not).

    >>> import stridex.numpy as jnp
    >>> jnp.empty((2, 3)).shape
    (2, 3)
    """
    return _cr.empty(_args.shape_tuple(shape, "empty"), dtype=_jd.canonical_or_none(dtype, "empty"), device=device)


def _fill_dtype(fill_value) -> DType:
    if isinstance(fill_value, Array):
        return fill_value._dtype
    return _args.promoted_dtype("full", fill_value)


def full(shape: Any, fill_value: Any, dtype: Any = None, *, device: Any = None) -> Array:
    """An array of `shape` filled with `fill_value` (a scalar, or an array broadcast to `shape`).

    >>> import stridex.numpy as jnp
    >>> jnp.full((2, 2), jnp.asarray([1.0, 2.0])), jnp.full(2, 7)
    (Array([[1., 2.],
           [1., 2.]]), Array([7, 7]))
    """
    shape = _args.shape_tuple(shape, "full")
    dtype = _jd.canonical_or_none(dtype, "full")
    fill = _args.operand(fill_value, "full", 1)
    if isinstance(fill, Array) and fill.ndim:
        out = _manip.broadcast_to(_args.cast(fill, dtype or fill._dtype), shape)
        return _cr.asarray(out, copy=True, device=device)
    dtype = dtype or _fill_dtype(fill)
    return _cr.full(shape, _fill_as(fill, dtype), dtype=dtype, device=device)


def _like(fname: str, a, dtype, shape):
    a = _args.array(a, fname)
    dtype = _jd.canonical_or_none(dtype, fname) or a._dtype
    return a, dtype, a.shape if shape is None else _args.shape_tuple(shape, fname)


def zeros_like(a: Any, dtype: Any = None, shape: Any = None, *, device: Any = None) -> Array:
    """Zeros with `a`'s shape and dtype (or `shape`, `dtype`).

    >>> import stridex.numpy as jnp
    >>> jnp.zeros_like(jnp.asarray([1.5, 2.5]), dtype=int)
    Array([0, 0])
    """
    a, dtype, shape = _like("zeros_like", a, dtype, shape)
    return _cr.zeros(shape, dtype=dtype, device=device or a.device)


def ones_like(a: Any, dtype: Any = None, shape: Any = None, *, device: Any = None) -> Array:
    """Ones with `a`'s shape and dtype (or `shape`, `dtype`).

    >>> import stridex.numpy as jnp
    >>> jnp.ones_like(jnp.arange(3), shape=(2,))
    Array([1, 1])
    """
    a, dtype, shape = _like("ones_like", a, dtype, shape)
    return _cr.ones(shape, dtype=dtype, device=device or a.device)


def empty_like(prototype: Any, dtype: Any = None, shape: Any = None, *, device: Any = None) -> Array:
    """An array with `prototype`'s shape and dtype whose values are unspecified.

    >>> import stridex.numpy as jnp
    >>> jnp.empty_like(jnp.zeros((2, 2), dtype=jnp.int8)).dtype
    stridex.int8
    """
    a, dtype, shape = _like("empty_like", prototype, dtype, shape)
    return _cr.empty(shape, dtype=dtype, device=device or a.device)


def full_like(a: Any, fill_value: Any, dtype: Any = None, shape: Any = None, *, device: Any = None) -> Array:
    """`a`'s shape and dtype (or `shape`, `dtype`) filled with `fill_value` (a scalar or a broadcast array).

    >>> import stridex.numpy as jnp
    >>> jnp.full_like(jnp.zeros(3, dtype=jnp.int32), 2.7)
    Array([2, 2, 2], dtype=int32)
    """
    a, dtype, shape = _like("full_like", a, dtype, shape)
    return full(shape, fill_value, dtype, device=device or a.device)


def _fill_as(fill_value, dtype: DType):
    """A fill value converted to `dtype` as jax.numpy converts it (a float into an integer dtype truncates)."""
    if type(fill_value) is float and dtype.kind in ("signed", "unsigned") and math.isfinite(fill_value):
        return int(fill_value)
    return fill_value


def identity(n: int, dtype: Any = None) -> Array:
    """The n x n identity matrix.

    >>> import stridex.numpy as jnp
    >>> jnp.identity(2, dtype=int)
    Array([[1, 0],
           [0, 1]])
    """
    n = _args.index(n, "identity", "n")
    return _cr.eye(n, dtype=_jd.canonical_or_none(dtype, "identity"))


def eye(N: int, M: int | None = None, k: int = 0, dtype: Any = None, *, device: Any = None) -> Array:  # noqa: N803
    """An N x M matrix with ones on the k-th diagonal.

    >>> import stridex.numpy as jnp
    >>> jnp.eye(2, 3, k=1)
    Array([[0., 1., 0.],
           [0., 0., 1.]])
    """
    N = _args.index(N, "eye", "N")
    M = None if M is None else _args.index(M, "eye", "M")
    k = _args.index(k, "eye", "k")
    return _cr.eye(N, M, k=k, dtype=_jd.canonical_or_none(dtype, "eye"), device=device)


def tri(N: int, M: int | None = None, k: int = 0, dtype: Any = None) -> Array:  # noqa: N803
    """An N x M matrix with ones at and below the k-th diagonal.

    >>> import stridex.numpy as jnp
    >>> jnp.tri(3, k=-1, dtype=int)
    Array([[0, 0, 0],
           [1, 0, 0],
           [1, 1, 0]])
    """
    N = _args.index(N, "tri", "N")
    M = N if M is None else _args.index(M, "tri", "M")
    k = _args.index(k, "tri", "k")
    return _cr.tril(_cr.ones((N, M), dtype=_jd.canonical_or_none(dtype, "tri") or _d.float64), k=k)


def arange(start: Any, stop: Any = None, step: Any = None, dtype: Any = None, *, device: Any = None) -> Array:
    """Evenly spaced values in [start, stop) (`arange(n)`: 0 to n - 1); the dtype of the bounds by default.

    >>> import stridex.numpy as jnp
    >>> jnp.arange(4), jnp.arange(1, 2, 0.25), jnp.arange(3, dtype="float32")
    (Array([0, 1, 2, 3]), Array([1.  , 1.25, 1.5 , 1.75]), Array([0., 1., 2.], dtype=float32))
    """
    dtype = _jd.canonical_or_none(dtype, "arange")
    bounds = [_scalar_bound(v, "arange") for v in (start, stop, step)]
    if dtype is None:
        dtype = _jd.result_of([v._dtype for v in bounds if isinstance(v, Array)],
                              [type(v) for v in bounds if v is not None and not isinstance(v, Array)])
    start, stop, step = bounds
    if stop is None:
        start, stop = 0, start
    return _cr.arange(start, stop, 1 if step is None else step, dtype=dtype, device=device)


def _scalar_bound(value, fname: str):
    """A bound of a range: a Python scalar, or a 0-D array (NumPy's as its Python value)."""
    if value is None or type(value) in _args.PY_SCALARS:
        return value
    if isinstance(value, (Array, np.ndarray, np.generic)):
        if value.ndim != 0:
            raise ValueError(f"{fname}: bounds must be scalars, got an array of shape {value.shape}")
        return value if isinstance(value, Array) else value.item()
    return _args.index(value, fname, "bound")


def linspace(start: Any, stop: Any, num: int = 50, endpoint: builtins.bool = True, retstep: builtins.bool = False,
             dtype: Any = None, axis: int = 0, *, device: Any = None) -> Array | tuple[Array, Array]:
    """`num` evenly spaced values from start to stop (stop included unless `endpoint=False`). start and stop may
    be arrays: the samples then run along a new `axis`. An integer dtype takes the floor of the samples.

    >>> import stridex.numpy as jnp
    >>> jnp.linspace(0.0, 1.0, 5), jnp.linspace(jnp.asarray([0.0, 10.0]), 20.0, 3, axis=1)
    (Array([0.  , 0.25, 0.5 , 0.75, 1.  ]), Array([[ 0., 10., 20.],
           [10., 15., 20.]]))
    """
    out, delta = _linspace(start, stop, num, endpoint, dtype, axis, device)
    return (out, delta) if retstep else out


def _linspace(start, stop, num, endpoint: builtins.bool, dtype, axis: int, device=None) -> tuple[Array, Array]:
    """linspace's samples and step."""
    num = _args.index(num, "linspace", "num")
    if num < 0:
        raise ValueError(f"linspace: number of samples, {num}, must be non-negative")
    start, stop = _args.operand(start, "linspace", 0), _args.operand(stop, "linspace", 1)
    dtype = _jd.canonical_or_none(dtype, "linspace")
    if dtype is None:
        dtype = _jd.TO_INEXACT[_args.promoted_dtype("linspace", start, stop)]
    compute = _jd.TO_INEXACT[dtype]
    start, stop = _args.cast(start, compute), _args.cast(stop, compute)
    bounds_shape = _manip.broadcast_shapes(start.shape, stop.shape)
    start, stop = _manip.broadcast_to(start, bounds_shape), _manip.broadcast_to(stop, bounds_shape)
    axis = _args.axis(axis, len(bounds_shape) + 1, "linspace")
    div = num - 1 if endpoint else num
    if num > 1:
        delta = _ew.divide(_ew.subtract(stop, start), float(div))
        iota_shape = [1] * (len(bounds_shape) + 1)
        iota_shape[axis] = div
        step = _manip.reshape(_ew.divide(_cr.arange(div, dtype=_d.real_of(compute)), float(div)), tuple(iota_shape))
        step = _args.cast(step, compute)
        lo, hi = _manip.expand_dims(start, axis=axis), _manip.expand_dims(stop, axis=axis)
        out = _ew.add(_ew.multiply(lo, _ew.subtract(1.0, step)), _ew.multiply(hi, step))
        if endpoint:
            out = _manip.concat([out, hi], axis=axis)
    elif num == 1:
        delta = _cr.full((), math.nan if endpoint else 0.0, dtype=compute)
        if not endpoint:
            delta = _ew.subtract(stop, start)
        out = _manip.expand_dims(start, axis=axis)
    else:
        delta = _cr.full((), math.nan, dtype=compute)
        shape = list(bounds_shape)
        shape.insert(axis, 0)
        out = _cr.empty(tuple(shape), dtype=compute)
    if dtype.kind in ("signed", "unsigned") and compute.kind in _d.FLOATING_KINDS:
        out = _ew.floor(out)
    out = _args.cast(out, dtype)
    if device is not None:
        out = _cr.asarray(out, device=device)
    return out, delta


def logspace(start: Any, stop: Any, num: int = 50, endpoint: builtins.bool = True, base: Any = 10.0,
             dtype: Any = None, axis: int = 0) -> Array:
    """base ** linspace(start, stop, num): values spaced evenly on a log scale.

    >>> import stridex.numpy as jnp
    >>> jnp.logspace(0.0, 3.0, 4)
    Array([   1.,   10.,  100., 1000.])
    """
    dtype = _jd.canonical_or_none(dtype, "logspace")
    compute = _jd.TO_INEXACT[dtype] if dtype is not None else _jd.TO_INEXACT[
        _args.promoted_dtype("logspace", _args.operand(start, "logspace"), _args.operand(stop, "logspace"))]
    lin = _linspace(start, stop, num, endpoint, compute, axis)[0]
    base = _args.operand(base, "logspace", 4)
    if isinstance(base, Array):
        base = _manip.expand_dims(_args.cast(base, compute), axis=_args.axis(axis, lin.ndim, "logspace"))
    out = _tr.pow(base, lin)
    if dtype is not None and dtype.kind in ("signed", "unsigned"):
        out = _ew.floor(out)
    return _args.cast(out, dtype or compute)


def geomspace(start: Any, stop: Any, num: int = 50, endpoint: builtins.bool = True, dtype: Any = None,
              axis: int = 0) -> Array:
    """Values spaced evenly on a log scale from start to stop (both included; negative or complex bounds
    too), the endpoints exactly as given.

    >>> import stridex.numpy as jnp
    >>> jnp.geomspace(1.0, 1000.0, 4), jnp.geomspace(-1.0, -16.0, 3)
    (Array([   1.,   10.,  100., 1000.]), Array([ -1.,  -4., -16.]))
    """
    dtype = _jd.canonical_or_none(dtype, "geomspace")
    start, stop = _args.operand(start, "geomspace", 0), _args.operand(stop, "geomspace", 1)
    compute = _jd.TO_INEXACT[dtype if dtype is not None else _args.promoted_dtype("geomspace", start, stop)]
    start, stop = _args.cast(start, compute), _args.cast(stop, compute)
    start, stop = _manip.broadcast_arrays(start, stop)
    if compute.kind == "complex floating":
        lo, hi = _tr.log(start), _tr.log(stop)
        out = _tr.exp(_linspace(lo, hi, num, endpoint, compute, axis)[0])
    else:
        sign = _ew.sign(start)
        lo, hi = _tr.log10(_ew.abs(start)), _tr.log10(_ew.abs(stop))
        out = _ew.multiply(_manip.expand_dims(sign, axis=_args.axis(axis, start.ndim + 1, "geomspace")),
                           _tr.pow(10.0, _linspace(lo, hi, num, endpoint, compute, axis)[0]))
    if num > 0:  # the endpoints exactly
        out = _set_along(out, 0, start, axis)
        if endpoint and num > 1:
            out = _set_along(out, num - 1, stop, axis)
    if dtype is not None and dtype.kind in ("signed", "unsigned"):
        out = _ew.floor(out)
    return _args.cast(out, dtype or compute)


def _set_along(out: Array, position: int, value: Array, axis: int) -> Array:
    axis = _args.axis(axis, out.ndim, "geomspace")
    lead = (slice(None),) * axis
    pieces = [out[lead + (slice(0, position),)], _manip.expand_dims(value, axis=axis), out[lead + (slice(position + 1, None),)]]
    return _manip.concat(pieces, axis=axis)


# --- matrices -------------------------------------------------------------------------------------------


def diag(v: Any, k: int = 0) -> Array:
    """The k-th diagonal of a matrix (a view), or a matrix with vector `v` on its k-th diagonal.

    >>> import stridex.numpy as jnp
    >>> jnp.diag(jnp.asarray([1, 2]), k=1)
    Array([[0, 1, 0],
           [0, 0, 2],
           [0, 0, 0]])
    """
    v = _args.array(v, "diag")
    k = _args.index(k, "diag", "k")
    if v.ndim == 2:
        return _linalg.diagonal(v, offset=k)
    if v.ndim != 1:
        raise ValueError(f"diag: the input must be 1-D or 2-D, got shape {v.shape}")
    n = v.shape[0] + builtins.abs(k)
    mask = _cr.eye(n, k=k, dtype=_d.bool)
    column = _manip.reshape(v, (v.shape[0], 1))
    padded = _manip.concat([column, _cr.zeros((builtins.abs(k), 1), dtype=v._dtype)], axis=0)
    rows = padded if k >= 0 else _manip.roll(padded, -k, axis=0)
    # Row i holds v[i - max(-k, 0)] on its diagonal entry (where(mask, ...): no 0 * inf there).
    return _search.where(mask, rows, _cr.zeros((), dtype=v._dtype))


def diagflat(v: Any, k: int = 0) -> Array:
    """A matrix with the flattened input on its k-th diagonal.

    >>> import stridex.numpy as jnp
    >>> jnp.diagflat(jnp.asarray([[1, 2]]))
    Array([[1, 0],
           [0, 2]])
    """
    v = _args.array(v, "diagflat")
    return diag(_manip.reshape(v, (-1,)), k)


def vander(x: Any, N: int | None = None, increasing: builtins.bool = False) -> Array:  # noqa: N803
    """The Vandermonde matrix of a vector: columns x**(N-1), ..., x**0 (or increasing powers).

    >>> import stridex.numpy as jnp
    >>> jnp.vander(jnp.asarray([1, 2, 3]), 3)
    Array([[1, 1, 1],
           [4, 2, 1],
           [9, 3, 1]])
    """
    x = _args.array(x, "vander")
    if x.ndim != 1:
        raise ValueError(f"vander: x must be one-dimensional, got shape {x.shape}")
    n = x.shape[0] if N is None else _args.index(N, "vander", "N")
    if n < 0:
        raise ValueError(f"vander: N must be non-negative, got {n}")
    x = _args.cast(x, _jd.TO_NUMERIC[x._dtype])
    powers = _cr.arange(n) if increasing else _cr.arange(n - 1, -1, -1)
    return _tr.pow(_manip.reshape(x, (-1, 1)), _args.cast(powers, x._dtype))


def fromfunction(function: Callable[..., Any], shape: Any, *, dtype: Any = float, **kwargs: Any) -> Any:
    """`function` called on the coordinates of every element of `shape` (as jax.numpy does it: mapped over the
    coordinates with `vmap`, so the function sees one coordinate per axis at a time).

    >>> import stridex.numpy as jnp
    >>> jnp.fromfunction(lambda i, j: i * 10 + j, (2, 3), dtype=int)
    Array([[ 0,  1,  2],
           [10, 11, 12]])
    """
    from stridex._transforms.batching import vmap  # (the transformations are imported on first use)

    shape = _args.shape_tuple(shape, "fromfunction")
    dtype = _jd.canonical(dtype, "fromfunction")
    mapped: Callable[..., Any] = functools.partial(function, **kwargs)
    for position in range(len(shape) - 1, -1, -1):
        in_axes = tuple(0 if i == position else None for i in range(len(shape)))
        mapped = vmap(mapped, in_axes=in_axes)
    return mapped(*(_cr.arange(n, dtype=dtype) for n in shape))


# --- grids ----------------------------------------------------------------------------------------------


def indices(dimensions: Sequence[int], dtype: Any = None, sparse: builtins.bool = False) -> Any:
    """The coordinates of a grid: an array (one row per axis) or, `sparse`, a tuple of broadcastable arrays.

    >>> import stridex.numpy as jnp
    >>> jnp.indices((2, 3))[1]
    Array([[0, 1, 2],
           [0, 1, 2]])
    """
    dims = _args.shape_tuple(dimensions, "indices")
    dtype = _jd.canonical_or_none(dtype, "indices") or _d.int64
    out = []
    for i, n in enumerate(dims):
        shape = [1] * len(dims)
        shape[i] = n
        axis_values = _manip.reshape(_cr.arange(n, dtype=dtype), tuple(shape))
        out.append(axis_values if sparse else _cr.asarray(_manip.broadcast_to(axis_values, dims), copy=True))
    if sparse:
        return tuple(out)
    return _manip.stack(out) if out else _cr.empty((0,), dtype=dtype)


def meshgrid(*xi: Any, copy: builtins.bool = True, sparse: builtins.bool = False, indexing: str = "xy") -> list[Array]:
    """Coordinate arrays from 1-D coordinate vectors ("xy": the first two axes swapped, as in plotting; "ij":
    matrix indexing); `sparse` returns broadcastable arrays instead of full grids.

    >>> import stridex.numpy as jnp
    >>> xx, yy = jnp.meshgrid(jnp.asarray([1, 2, 3]), jnp.asarray([4, 5]))
    >>> xx
    Array([[1, 2, 3],
           [1, 2, 3]])
    """
    if indexing not in ("xy", "ij"):
        raise ValueError(f"meshgrid: indexing must be 'xy' or 'ij', got {indexing!r}")
    arrays = [_manip.reshape(_args.array(x, "meshgrid", i), (-1,)) for i, x in enumerate(xi)]
    if not arrays:
        return []
    n = len(arrays)
    out = []
    for i, a in enumerate(arrays):
        shape = [1] * n
        shape[i] = a.shape[0]
        if indexing == "xy" and n > 1 and i < 2:
            shape[0], shape[1] = shape[1], shape[0]
        out.append(_manip.reshape(a, tuple(shape)))
    if sparse:
        return out
    full_shape = _manip.broadcast_shapes(*(o.shape for o in out))
    return [_cr.asarray(_manip.broadcast_to(o, full_shape), copy=True) if copy else
            _manip.broadcast_to(o, full_shape) for o in out]


def _grid_axis(key: slice) -> Array:
    start = 0 if key.start is None else key.start
    step = 1 if key.step is None else key.step
    stop = key.stop
    if isinstance(step, complex):
        return _linspace(start, stop, int(builtins.abs(step)), True, None, 0)[0]
    values = [v for v in (start, stop, step) if v is not None]
    return arange(start, stop, step, dtype=_jd.result_of([], [type(v) for v in values]))


class _Grid:
    """mgrid / ogrid: `grid[0:3, 0:2]` gives the coordinates of a grid (dense or open); a complex step `5j`
    asks for that many points with the stop included."""

    def __init__(self, sparse: builtins.bool, name: str) -> None:
        self.sparse, self.name = sparse, name

    def __getitem__(self, key) -> Any:
        keys = key if isinstance(key, tuple) else (key,)
        if not all(isinstance(k, slice) for k in keys):
            raise IndexError(f"{self.name}: every index must be a slice, got {key!r}")
        axes = [_grid_axis(k) for k in keys]
        if not isinstance(key, tuple):
            return axes[0]
        dtype = _jd.result_of([a._dtype for a in axes], [])
        grids = meshgrid(*(_args.cast(a, dtype) for a in axes), indexing="ij", sparse=self.sparse)
        return grids if self.sparse else _manip.stack(grids)

    def __repr__(self) -> str:
        return f"stridex.numpy.{self.name}"


mgrid = _Grid(False, "mgrid")
ogrid = _Grid(True, "ogrid")


class _Concatenator:
    """r_ / c_: `r_[1:4, [5, 6], x]` joins slices (ranges, or `n` points for a complex step `nj`), scalars and
    arrays along an axis; a leading string "axis,ndmin,trans1d" (or "r", "c": a row or column matrix) says how,
    as in NumPy."""

    def __init__(self, axis: int, ndmin: int, trans1d: int, name: str) -> None:
        self.axis, self.ndmin, self.trans1d, self.name = axis, ndmin, trans1d, name

    def __getitem__(self, key) -> Array:
        items = key if isinstance(key, tuple) else (key,)
        axis, ndmin, trans1d, matrix = self.axis, self.ndmin, self.trans1d, -1
        if items and isinstance(items[0], str):
            directive, items = items[0], items[1:]
            if directive in ("r", "c"):
                matrix = 0 if directive == "r" else 1
            else:
                try:
                    values = [int(v) for v in directive.split(",")[:3]]
                except ValueError:
                    raise ValueError(f"{self.name}: could not understand directive {directive!r}") from None
                axis, ndmin, trans1d = (values + [ndmin, trans1d][len(values) - 1:])[:3]
        pieces = []
        for item in items:
            if isinstance(item, str):
                raise ValueError(f"{self.name}: a string directive must come first")
            if isinstance(item, slice):
                piece, item_ndim = _grid_axis(item), 0
            else:
                piece = array(item, copy=False)
                item_ndim = piece.ndim
            if piece.ndim < ndmin:
                piece = _manip.reshape(piece, (1,) * (ndmin - piece.ndim) + piece.shape)
                if trans1d != -1 and ndmin - item_ndim > 0:
                    order = tuple(range(ndmin))
                    shift = ndmin - builtins.abs(ndmin + trans1d + 1) % ndmin
                    piece = _manip.permute_dims(piece, order[shift:] + order[:shift])
            pieces.append(piece)
        dtype = _jd.result_of([p._dtype for p in pieces], [])
        out = _manip.concat([_args.cast(p, dtype) for p in pieces], axis=axis)
        if matrix != -1 and out.ndim == 1:
            out = _manip.expand_dims(out, axis=matrix)
        return out

    def __len__(self) -> int:
        return 0

    def __repr__(self) -> str:
        return f"stridex.numpy.{self.name}"


r_ = _Concatenator(0, 1, -1, "r_")
c_ = _Concatenator(-1, 2, 0, "c_")


def ix_(*args: Any) -> tuple[Array, ...]:
    """An open mesh from 1-D sequences, for indexing the cross product (`x[jnp.ix_(rows, cols)]`).

    >>> import stridex.numpy as jnp
    >>> rows, cols = jnp.ix_(jnp.asarray([0, 1]), jnp.asarray([2, 0]))
    >>> rows.shape, cols.shape
    ((2, 1), (1, 2))
    """
    out = []
    for i, a in enumerate(args):
        a = _args.array(a, "ix_", i)
        if a.ndim != 1:
            raise ValueError(f"ix_: arguments must be 1-D, got shape {a.shape} at position {i}")
        shape = [1] * len(args)
        shape[i] = a.shape[0]
        out.append(_manip.reshape(a, tuple(shape)))
    return tuple(out)


# --- index helpers (static shapes: computed on the host, constants of a traced program) -----------------


def _index_pair(rows: np.ndarray, cols: np.ndarray) -> tuple[Array, Array]:
    return _cr.asarray(rows.astype(np.int64)), _cr.asarray(cols.astype(np.int64))


def tril_indices(n: int, k: int = 0, m: int | None = None) -> tuple[Array, Array]:
    """The (row, column) indices of the lower triangle of an n x m matrix, at and below the k-th diagonal.

    >>> import stridex.numpy as jnp
    >>> jnp.tril_indices(3)
    (Array([0, 1, 1, 2, 2, 2]), Array([0, 0, 1, 0, 1, 2]))
    """
    return _index_pair(*np.tril_indices(_args.index(n, "tril_indices", "n"), _args.index(k, "tril_indices", "k"),
                                         None if m is None else _args.index(m, "tril_indices", "m")))


def triu_indices(n: int, k: int = 0, m: int | None = None) -> tuple[Array, Array]:
    """The (row, column) indices of the upper triangle of an n x m matrix, at and above the k-th diagonal.

    >>> import stridex.numpy as jnp
    >>> jnp.triu_indices(3, k=1)
    (Array([0, 0, 1]), Array([1, 2, 2]))
    """
    return _index_pair(*np.triu_indices(_args.index(n, "triu_indices", "n"), _args.index(k, "triu_indices", "k"),
                                         None if m is None else _args.index(m, "triu_indices", "m")))


def _matrix_shape(arr, fname: str) -> tuple[int, ...]:
    shape = _jd.shape(arr)
    if len(shape) != 2:
        raise ValueError(f"{fname}: the input must be 2-D, got shape {shape}")
    return shape


def tril_indices_from(arr: Any, k: int = 0) -> tuple[Array, Array]:
    """`tril_indices` for the shape of a 2-D array.

    >>> import stridex.numpy as jnp
    >>> jnp.tril_indices_from(jnp.zeros((2, 3)))
    (Array([0, 1, 1]), Array([0, 0, 1]))
    """
    rows, cols = _matrix_shape(arr, "tril_indices_from")
    return tril_indices(rows, k, cols)


def triu_indices_from(arr: Any, k: int = 0) -> tuple[Array, Array]:
    """`triu_indices` for the shape of a 2-D array.

    >>> import stridex.numpy as jnp
    >>> jnp.triu_indices_from(jnp.zeros((2, 3)))
    (Array([0, 0, 0, 1, 1]), Array([0, 1, 2, 1, 2]))
    """
    rows, cols = _matrix_shape(arr, "triu_indices_from")
    return triu_indices(rows, k, cols)


def mask_indices(n: int, mask_func: Callable[..., Any], k: int = 0, *, size: int | None = None) -> tuple[Array, Array]:
    """The (row, column) indices where `mask_func(ones((n, n)), k)` is nonzero (`triu`, `tril`, ...); with `size`,
    that many (see `nonzero`).

    >>> import stridex.numpy as jnp
    >>> jnp.mask_indices(3, jnp.triu, 1)
    (Array([0, 0, 1]), Array([1, 2, 2]))
    """
    n = _args.index(n, "mask_indices", "n")
    rows, cols = _indexing.nonzero(mask_func(_cr.ones((n, n), dtype=_d.int64), k), size=size)
    return rows, cols


def diag_indices(n: int, ndim: int = 2) -> tuple[Array, ...]:
    """The indices of the main diagonal of an n x ... x n array.

    >>> import stridex.numpy as jnp
    >>> jnp.diag_indices(3)
    (Array([0, 1, 2]), Array([0, 1, 2]))
    """
    n, ndim = _args.index(n, "diag_indices", "n"), _args.index(ndim, "diag_indices", "ndim")
    if n < 0 or ndim < 0:
        raise ValueError(f"diag_indices: n and ndim must be non-negative, got n={n}, ndim={ndim}")
    return tuple(_cr.arange(n) for _ in range(ndim))


def diag_indices_from(arr: Any) -> tuple[Array, ...]:
    """`diag_indices` of an array whose axes all have one length.

    >>> import stridex.numpy as jnp
    >>> jnp.diag_indices_from(jnp.zeros((2, 2)))
    (Array([0, 1]), Array([0, 1]))
    """
    shape = _jd.shape(arr)
    if len(shape) < 2 or len(set(shape)) != 1:
        raise ValueError(f"diag_indices_from: the input must be at least 2-D with all axes of one length, got {shape}")
    return diag_indices(shape[0], len(shape))
