"""Creation functions: `asarray`/`from_dlpack` (adopting NumPy, DLPack producers and Python data) and the constructors."""

from __future__ import annotations

import functools
import math
import operator
from collections.abc import Callable
from typing import Any, Literal, TypeVar

import numpy as np

from stridex._api.elementwise_functions import floor
from stridex._api.manipulation_functions import concat, reshape
from stridex._api.searching_functions import where
from stridex._core import dtypes as _dtypes
from stridex._core.array import (Array, DeviceLike, NestedSequence, SupportsArray, SupportsBufferProtocol, adopt,
                                 python_scalar, raise_if_unsupported)
from stridex._core.device import DEFAULT_DEVICE, KDL_CPU
from stridex._core.dtypes import DType
from stridex._core.state import current_trace
from stridex._core.storage import aligned_copy, aligned_empty
from stridex._core.view import View, normalize_shape
from stridex._lax import creation as _p
from stridex._exec import device as _device
from stridex._exec import placement as _placement
from stridex._lax import ops
from stridex._lax import views as _views
from stridex._lax.data_type import convert_element_type
from stridex._lax.elementwise import copy as _copy_prim
from stridex._transforms.tracing import (
    ConcretizationError,
    ConcretizationTypeError,
    Conversion,
    DataDependentShapeError,
    Tracer,
    note_scalar_store,
    weak_scalar_example,
)

__all__ = ["arange", "asarray", "empty", "empty_like", "eye", "from_dlpack", "full", "full_like",
           "linspace", "meshgrid", "ones", "ones_like", "tril", "triu", "zeros", "zeros_like"]

_PY_DEFAULT = {bool: _dtypes.bool, int: _dtypes.int64, float: _dtypes.float64, complex: _dtypes.complex128}
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


# --- argument checks --------------------------------------------------------------------------------


def _check_dtype(dtype, fname: str) -> DType | None:
    """`dtype` as a stridex dtype (Python's bool/int/float/complex name the default dtypes), or None."""
    if dtype is None or isinstance(dtype, DType):
        return dtype
    out = _dtypes.as_dtype(dtype)
    if out is None:
        raise TypeError(f"{fname}: dtype must be a stridex dtype (such as stridex.float64), one of the Python types "
                        f"bool/int/float/complex, or None; got {dtype!r}")
    return out


def _check_shape(shape, fname: str) -> tuple:
    """A shape given as an int or a sequence of ints, each non-negative."""
    return normalize_shape(shape, fname, allow_int=True)


def _filled(fname: str, shape: tuple, dtype, value: int) -> Array:
    """`shape` filled with 0 or 1 (False or True for bool), float64 unless `dtype` says otherwise."""
    dtype = _check_dtype(dtype, fname) or _dtypes.float64
    return _p.full.bind(shape=shape, fill_value=bool(value) if dtype is _dtypes.bool else value, dtype=dtype)


F = TypeVar("F", bound=Callable[..., Array])


def _placed(like: bool = False) -> Callable[[F], F]:
    """A creation function made on its `device=`: the host runs NumPy as usual; for a JAX device the
    function runs with that device as the default, so its primitives (which take no array) run there, and
    a result built on the host on the way (from Python values) is moved there once. `device=None` means
    the default device, or with `like`, the device of the array argument (the spec's inference rule)."""

    def decorate(fn: F) -> F:
        @functools.wraps(fn)
        def placed(*args: Any, device: Any = None, **kwargs: Any) -> Array:
            if device is None:
                dev = args[0].device if like and args and isinstance(args[0], Array) else None
            else:
                dev = _placement.resolve(device)
            if dev is None:
                if _placement.placement() is None:
                    return fn(*args, **kwargs)  # the usual case: the host, nothing to arrange
                dev = _placement.current_default()
            if dev.is_host and _placement.placement() is None:
                return fn(*args, **kwargs)
            token = DEFAULT_DEVICE.set(dev)
            try:
                out = fn(*args, **kwargs)
            finally:
                DEFAULT_DEVICE.reset(token)
            if current_trace() is None and out.device != dev:
                out = _device.transfer(out, dev)
            return out

        return placed  # type: ignore[return-value]  # (a wrapper taking fn's arguments)

    return decorate


def _check_array(x, fname: str) -> Array:
    if not isinstance(x, Array):
        raise TypeError(f"{fname} expects an array, got {type(x).__name__}")
    return x


def _python_scalar(value, fname: str, what: str, kinds=(bool, int, float, complex)):
    """`value` as a Python bool/int/float/complex (NumPy scalars and 0-D arrays are unwrapped); else TypeError."""
    if isinstance(value, np.generic):
        value = value.item()
    elif isinstance(value, Array):
        if value.shape != ():
            raise TypeError(f"{fname}: {what} must be a Python scalar or a 0-D array, got an array of shape "
                            f"{value.shape}")
        value = python_scalar(value)
    for kind in (bool, int, float, complex):  # bool first: it is also an int
        if isinstance(value, kind):
            if kind in kinds:
                return kind(value)  # type: ignore[arg-type]  # (value is an instance of kind here)
            break
    names = "/".join(k.__name__ for k in kinds)
    raise TypeError(f"{fname}: {what} must be a Python {names}, got {type(value).__name__}")


# --- asarray and from_dlpack ------------------------------------------------------------------------


def asarray(obj: Array | bool | int | float | complex | NestedSequence[bool | int | float | complex | Array]
            | SupportsBufferProtocol | SupportsArray, /, *, dtype: DType | None = None,
            device: DeviceLike | None = None, copy: bool | None = None) -> Array:
    """Convert `obj` (an array, NumPy array, DLPack producer, buffer, Python scalar or nested sequence) to an Array.

    Arrays, NumPy arrays, DLPack producers (JAX, PyTorch, ...) and buffer-protocol objects are shared, not
    copied, unless `copy=True` or a dtype change needs a copy; `copy=False` raises ValueError when a copy
    cannot be avoided. Memory that must not be written (a JAX result, `bytes`) is copied on the first write.

    `device=None` places the result where `obj` is when it is an array (a JAX array on a GPU stays there,
    shared), else on the default device; another device means a copy there (ValueError with `copy=False`).

    >>> import stridex as sx
    >>> sx.asarray([[1, 2], [3, 4]], dtype=sx.float32).shape
    (2, 2)
    """
    dtype = _check_dtype(dtype, "asarray")
    if copy is not None and copy is not True and copy is not False:
        raise TypeError(f"asarray: copy must be True, False or None, got {copy!r}")
    dev = None if device is None else _placement.resolve(device)
    trace = current_trace()
    if trace is None or (not isinstance(obj, Array) and _values_are_eager(trace)):
        if _device.is_jax_array(obj) and not copy and (dev is None or dev.is_host) and _device.is_host_jax_array(obj):
            jax_array: Any = obj
            own = _dtypes.from_numpy(jax_array.dtype) if isinstance(jax_array.dtype, np.dtype) else None
            if own is not None and (dtype is None or dtype is own):
                # A JAX array on the host is kept as a jit call's result is (`adopt_out`): handed to JAX again as
                # it is, so that a steady jit loop over it takes the memo's direct call (through DLPack it was
                # a read-only NumPy buffer that every call converted back, 10-20 µs); read through NumPy without
                # a copy, copied on the first write.
                return _device.adopt_out(jax_array, View.contiguous(tuple(jax_array.shape)), own)
        if _device.is_jax_array(obj) and (not _device.is_host_jax_array(obj) or (dev is not None and not dev.is_host)):
            out = _device.from_jax(obj, dev, copy)
            if dtype is None or out._dtype is dtype:
                return out
            if copy is False:
                raise ValueError(f"asarray(copy=False) cannot change dtype {out.dtype.name} to {dtype.name} without "
                                 "a copy")
            return _cast(out, dtype)
        if isinstance(obj, Array):
            if dev is not None and obj.device != dev:
                if copy is False:
                    raise ValueError(f"asarray(copy=False): the array lives on {obj.device.name}, not {dev.name}; "
                                     "moving it is a copy")
                obj, copy = _device.transfer(obj, dev), None
            return _asarray_here(obj, dtype, copy)
        dev = dev if dev is not None else _placement.current_default()
        if not dev.is_host:
            if copy is False:
                raise ValueError(f"asarray(copy=False): host data cannot be shared with {dev.name}; moving it is a "
                                 "copy")
            return _device.transfer(_asarray_here(obj, dtype, copy), dev)
    return _asarray_here(obj, dtype, copy)


def _values_are_eager(trace) -> bool:
    """Whether the values under `trace` are computed eagerly (grad, jvp or vmap over eager arrays, no `jit`
    below): data made there from Python or NumPy values is placed as eagerly, on the default device (which
    those transformations set to their inputs' device), so that it can meet their device arrays."""
    while trace is not None:
        if trace.kind == "jit":
            return False
        trace = trace.parent
    return True


def _asarray_here(obj, dtype: DType | None, copy: bool | None) -> Array:
    """asarray, with the result where `obj` is (an Array) or on the host."""
    if isinstance(obj, Array):
        if weak_scalar_example(obj) is not None:
            return _from_traced_scalar(obj, dtype, copy)  # type: ignore[arg-type]  # (a weak scalar is a Tracer)
        if dtype is None or obj._dtype is dtype:
            return ops.copy(obj) if copy else obj
        if copy is False:
            raise ValueError(f"asarray(copy=False) cannot change dtype {obj.dtype.name} to {dtype.name} without a copy")
        return _cast(obj, dtype)
    if type(obj) in _PY_DEFAULT:
        if copy is False:
            raise ValueError(f"asarray(copy=False): a Python {type(obj).__name__} has no buffer to share")
        return _from_scalar(obj, dtype)
    if isinstance(obj, np.ndarray):
        return _from_ndarray(obj, dtype, copy)
    if isinstance(obj, np.generic):
        if copy is False:
            raise ValueError(f"asarray(copy=False): a NumPy scalar ({obj.dtype}) has no buffer to share")
        return _from_ndarray(np.asarray(obj), dtype, True)
    if hasattr(obj, "__dlpack__"):
        try:
            shared = np.from_dlpack(obj)
        except (BufferError, TypeError, ValueError, RuntimeError) as exc:
            # Memory the CPU cannot address directly (a GPU array, say) can only arrive as a copy.
            if copy is False:
                raise ValueError(f"asarray(copy=False): a {type(obj).__name__} cannot be shared over DLPack "
                                 f"({exc}), only copied") from exc
            if not hasattr(obj, "__array__"):
                raise BufferError(f"asarray: cannot import a {type(obj).__name__} over DLPack: {exc}") from exc
            return _from_ndarray(np.asarray(obj), dtype, True)
        return _from_ndarray(shared, dtype, copy)
    if hasattr(obj, "__array__") or hasattr(obj, "__array_interface__"):
        return _from_ndarray(np.asarray(obj, copy=False if copy is False else None), dtype, copy)
    if _is_buffer(obj):
        # Note: np.asarray(bytes) would make a string array; the spec means the buffer's items.
        return _from_ndarray(np.asarray(memoryview(obj)), dtype, copy)
    if copy is False:
        raise ValueError(f"asarray(copy=False): a {type(obj).__name__} has no buffer to share")
    return _from_sequence(obj, dtype)


def _is_buffer(obj) -> bool:
    try:
        memoryview(obj)
    except TypeError:
        return False
    return True


def _cast(x: Array, dtype: DType) -> Array:
    if x._dtype.kind == "complex floating" and dtype.kind not in ("complex floating", "bool"):
        raise TypeError(f"asarray cannot convert complex dtype {x._dtype.name} to {dtype.name}; "
                        "use real(x) or imag(x) to choose a component first")
    return convert_element_type.bind(x, new_dtype=dtype)


def _from_ndarray(a: np.ndarray, dtype: DType | None, copy: bool | None) -> Array:
    own = _dtypes.from_numpy(a.dtype)
    if own is None:
        native = a.dtype.newbyteorder("=")
        if a.dtype.byteorder not in "=|" and native in _dtypes.FROM_NUMPY:
            # A byte-swapped array: the same values in the machine's byte order.
            if copy is False:
                raise ValueError(f"asarray(copy=False): dtype {a.dtype} is not in native byte order")
            return _from_ndarray(a.astype(native), dtype, None)
        raise_if_unsupported(a.dtype)
    if dtype is not None and own is not dtype:
        if copy is False:
            raise ValueError(f"asarray(copy=False) cannot change dtype {own.name} to {dtype.name} without a copy")  # type: ignore[union-attr]  # (own is None only for a dtype raise_if_unsupported refused)
        return _cast(adopt(a), dtype)
    if not copy and a.flags.writeable and _whole_element_strides(a):
        # Writable memory needs no copy-on-write bookkeeping: the ndarray itself is the array's window,
        # and its Storage is made only if a view of it is taken (one that knows the memory is the caller's).
        return Array._borrow(a)
    return adopt(a, copy=bool(copy))


def _whole_element_strides(a: np.ndarray) -> bool:
    if a.flags.c_contiguous:
        return True
    itemsize = a.itemsize
    for s in a.strides:
        if s % itemsize:
            return False
    return True


def _from_scalar(value, dtype: DType | None) -> Array:
    if dtype is None:
        if type(value) is int and not _INT64_MIN <= value <= _INT64_MAX:
            return _from_sequence(value, None)  # NumPy's rule: uint64 when it fits, else OverflowError
        dtype = _PY_DEFAULT[type(value)]
    out = aligned_empty((), dtype.np)
    out[()] = value
    return Array._from_numpy(out)


def _from_traced_scalar(value: Tracer, dtype: DType | None, copy) -> Array:
    """`asarray` of a Python scalar argument of a jitted function (a weak traced value): a strong array of the
    scalar's default dtype (or `dtype`), as `asarray(3)` is eagerly, not the weak value itself (which would
    promote like a Python scalar afterwards)."""
    example = weak_scalar_example(value)
    if copy is False:
        raise ValueError(f"asarray(copy=False): a Python {type(example).__name__} has no buffer to share")
    dtype = dtype or value.dtype
    if isinstance(example, complex) and dtype.kind not in ("complex floating", "bool"):
        raise TypeError(f"asarray: a Python complex cannot be converted to dtype {dtype.name}")
    note_scalar_store(value, dtype)
    return convert_element_type.bind(value, new_dtype=dtype)


def _from_sequence(obj, dtype: DType | None) -> Array:
    if dtype is None:
        a = np.asarray(_unwrap(obj))
        if a.dtype == object:
            if all(type(v) is int for v in a.flat):
                raise OverflowError(f"asarray: a Python integer in {_short(obj)} is out of the range of int64 and uint64")
            raise TypeError(f"asarray: cannot make a numeric array from {type(obj).__name__} data {_short(obj)}")
        if a.dtype.kind in "USV":
            raise TypeError(f"asarray: cannot make an array from {type(obj).__name__} data {_short(obj)}")
        raise_if_unsupported(a.dtype)
    else:
        a = np.asarray(_unwrap(obj), dtype=dtype.np)
    return Array._from_numpy(aligned_copy(a))


def _short(obj) -> str:
    text = repr(obj)
    return text if len(text) <= 80 else text[:77] + "..."


def _unwrap(obj):
    """Replace stridex arrays nested in Python sequences by their NumPy windows."""
    if isinstance(obj, Array):
        return np.asarray(obj)
    if isinstance(obj, (list, tuple)):
        return [_unwrap(o) for o in obj]
    return obj


def from_dlpack(x: object, /, *, device: DeviceLike | None = None, copy: bool | None = None) -> Array:
    """Import any DLPack producer (NumPy, JAX, PyTorch, ...), sharing its memory unless `copy=True`.

    Read-only producer memory (a JAX result, say) is copied on the first write, never written through.

    >>> import numpy as np, stridex as sx
    >>> sx.from_dlpack(np.arange(3.0)).dtype
    stridex.float64
    """
    dev = None if device is None else _placement.resolve(device)
    if isinstance(x, Array):
        if dev is not None and x.device != dev:
            if copy is False:
                raise BufferError(f"from_dlpack(copy=False): the array lives on {x.device.name}, not {dev.name}")
            return _device.transfer(x, dev)
        return ops.copy(x) if copy else x
    if not hasattr(x, "__dlpack__") or not hasattr(x, "__dlpack_device__"):
        raise TypeError(f"from_dlpack: a {type(x).__name__} does not implement the DLPack protocol (__dlpack__ and "
                        "__dlpack_device__); use asarray for Python sequences, scalars and buffers")
    if _device.is_jax_array(x) and (not _device.is_host_jax_array(x) or dev is not None and not dev.is_host) \
            or x.__dlpack_device__()[0] != KDL_CPU:
        # Device memory (a CUDA producer, a JAX array on a device other than the host's cpu:0, sharded ones
        # included): JAX takes it without a copy, and it keeps its device.
        return _device.from_dlpack_producer(x, dev, copy)
    a = np.from_dlpack(x, copy=False if copy is False else None)
    out = adopt(a, copy=bool(copy))
    if dev is not None and not dev.is_host:
        if copy is False:
            raise BufferError(f"from_dlpack(copy=False): host memory cannot be shared with {dev.name}")
        return _device.transfer(out, dev)
    return out


# --- constructors -----------------------------------------------------------------------------------


def _number(value, fname: str, what: str):
    return _python_scalar(value, fname, what, (int, float))


@_placed()
def arange(start: int | float, /, stop: int | float | None = None, step: int | float = 1, *,
           dtype: DType | None = None, device: DeviceLike | None = None) -> Array:
    """Evenly spaced values in the half-open interval [start, stop) (or [0, start) when `stop` is None).

    >>> import stridex as sx
    >>> sx.arange(1, 10, 3)
    Array([1, 4, 7])
    """
    dtype = _check_dtype(dtype, "arange")
    # The length of the result depends on the bounds' values: a traced bound is a graph break under jit.
    start, stop, step = (_concrete_bound(v, what) for v, what in ((start, "start"), (stop, "stop"), (step, "step")))
    start = _number(start, "arange", "start")
    step = _number(step, "arange", "step")
    if stop is None:
        start, stop = 0, start
    else:
        stop = _number(stop, "arange", "stop")
    if step == 0:
        raise ValueError("arange: step must not be zero")
    all_int = type(start) is int and type(stop) is int and type(step) is int
    if dtype is None:
        dtype = _dtypes.int64 if all_int else _dtypes.float64
    elif dtype is _dtypes.bool:
        raise TypeError("arange makes numeric arrays, not bool; compare an integer arange instead (arange(n) < k)")
    if all_int:
        num = len(range(start, stop, step))  # type: ignore[arg-type]  # (all three are ints here)
    else:
        span = (stop - start) / step
        if not math.isfinite(span):
            raise ValueError(f"arange({start}, {stop}, {step}) would have an unbounded number of elements")
        num = max(math.ceil(span), 0)
    if dtype.kind != "real floating" and not (type(start) is int and type(step) is int):
        start, step = float(start), float(step)
    return _p.iota.bind(start=start, step=step, num=num, dtype=dtype)


@_placed()
def empty(shape: int | tuple[int, ...], *, dtype: DType | None = None, device: DeviceLike | None = None) -> Array:
    """An uninitialised array of `shape` (float64 unless `dtype` says otherwise).

    >>> import stridex as sx
    >>> sx.empty((2, 3)).shape
    (2, 3)
    """
    shape = _check_shape(shape, "empty")
    dtype = _check_dtype(dtype, "empty") or _dtypes.float64
    return _p.empty.bind(shape=shape, dtype=dtype)


@_placed(like=True)
def empty_like(x: Array, /, *, dtype: DType | None = None, device: DeviceLike | None = None) -> Array:
    """An uninitialised array with the shape of `x` (and its dtype unless `dtype` is given).

    >>> import stridex as sx
    >>> sx.empty_like(sx.ones((2, 2), dtype=sx.int8)).dtype
    stridex.int8
    """
    _check_array(x, "empty_like")
    dtype = _check_dtype(dtype, "empty_like") or x._dtype
    return _p.empty.bind(shape=x.shape, dtype=dtype)


def _fill(fname: str, shape: tuple, fill_value, dtype: DType | None) -> Array:
    if isinstance(fill_value, Array):
        return _fill_with_array(fname, shape, fill_value, dtype)
    value = _python_scalar(fill_value, fname, "fill_value")
    if dtype is None:
        dtype = _PY_DEFAULT[type(value)]
    elif type(value) is complex and dtype.kind not in ("complex floating", "bool"):
        raise TypeError(f"{fname}: a complex fill_value {value!r} does not fit dtype {dtype.name}")
    return _p.full.bind(shape=shape, fill_value=value, dtype=dtype)


def _fill_with_array(fname: str, shape: tuple, fill: Array, dtype: DType | None) -> Array:
    """`full`/`full_like` with a 0-D array as fill_value (NumPy and JAX take one; the spec names Python scalars).

    The array's dtype is the result's when `dtype` is None. A concrete value becomes the `full` primitive's
    fill parameter, as a Python scalar would; a traced one (its value is known only when the program runs) is
    cast, broadcast to `shape` and copied, so the result is a fresh array either way.
    """
    if fill.shape != ():
        raise TypeError(f"{fname}: fill_value must be a Python scalar or a 0-D array, got an array of shape "
                        f"{fill.shape}; to fill with an array's values use broadcast_to(value, shape)")
    dtype = dtype or fill._dtype
    if fill._dtype.kind == "complex floating" and dtype.kind not in ("complex floating", "bool"):
        raise TypeError(f"{fname}: a {fill._dtype.name} fill_value does not fit dtype {dtype.name}; "
                        "take real(fill_value) or imag(fill_value) first")
    if not isinstance(fill, Tracer):
        return _p.full.bind(shape=shape, fill_value=python_scalar(fill), dtype=dtype)
    if fill._dtype is not dtype or weak_scalar_example(fill) is not None:
        # (A Python scalar argument of a jitted function is weak: the conversion makes the result strong, as
        # eagerly, and its value is checked per call as NumPy's store into `dtype` checks it.)
        note_scalar_store(fill, dtype)
        fill = convert_element_type.bind(fill, new_dtype=dtype)
    return _copy_prim.bind(_views.broadcast_to.bind(fill, shape=shape))


@_placed()
def full(shape: int | tuple[int, ...], fill_value: bool | int | float | complex, *, dtype: DType | None = None,
         device: DeviceLike | None = None) -> Array:
    """An array of `shape` filled with `fill_value` (dtype inferred from the scalar's type when None).

    >>> import stridex as sx
    >>> sx.full((2,), 7)
    Array([7, 7])
    """
    shape = _check_shape(shape, "full")
    dtype = _check_dtype(dtype, "full")
    return _fill("full", shape, fill_value, dtype)


@_placed(like=True)
def full_like(x: Array, /, fill_value: bool | int | float | complex, *, dtype: DType | None = None,
              device: DeviceLike | None = None) -> Array:
    """An array with the shape of `x` filled with `fill_value` (dtype of `x` unless `dtype` is given).

    >>> import stridex as sx
    >>> sx.full_like(sx.zeros((2,)), 3)
    Array([3., 3.])
    """
    _check_array(x, "full_like")
    dtype = _check_dtype(dtype, "full_like") or x._dtype
    return _fill("full_like", x.shape, fill_value, dtype)


@_placed()
def zeros(shape: int | tuple[int, ...], *, dtype: DType | None = None, device: DeviceLike | None = None) -> Array:
    """An array of `shape` filled with zeros (float64 unless `dtype` says otherwise).

    >>> import stridex as sx
    >>> sx.zeros(3, dtype=sx.int32)
    Array([0, 0, 0], dtype=int32)
    """
    return _filled("zeros", _check_shape(shape, "zeros"), dtype, 0)


@_placed(like=True)
def zeros_like(x: Array, /, *, dtype: DType | None = None, device: DeviceLike | None = None) -> Array:
    """Zeros with the shape of `x` (and its dtype unless `dtype` is given).

    >>> import stridex as sx
    >>> sx.zeros_like(sx.asarray([1, 2]))
    Array([0, 0])
    """
    return _filled("zeros_like", _check_array(x, "zeros_like").shape, dtype or x._dtype, 0)


@_placed()
def ones(shape: int | tuple[int, ...], *, dtype: DType | None = None, device: DeviceLike | None = None) -> Array:
    """An array of `shape` filled with ones (float64 unless `dtype` says otherwise).

    >>> import stridex as sx
    >>> sx.ones((2,), dtype=sx.complex64)
    Array([1.+0.j, 1.+0.j], dtype=complex64)
    """
    return _filled("ones", _check_shape(shape, "ones"), dtype, 1)


@_placed(like=True)
def ones_like(x: Array, /, *, dtype: DType | None = None, device: DeviceLike | None = None) -> Array:
    """Ones with the shape of `x` (and its dtype unless `dtype` is given).

    >>> import stridex as sx
    >>> sx.ones_like(sx.asarray([True, False]))
    Array([ True,  True])
    """
    return _filled("ones_like", _check_array(x, "ones_like").shape, dtype or x._dtype, 1)


def _size(value, fname: str, what: str) -> int:
    try:
        n = operator.index(value)
    except TypeError:
        raise TypeError(f"{fname}: {what} must be an integer, got {type(value).__name__}") from None
    if n < 0:
        raise ValueError(f"{fname}: {what} must be non-negative, got {n}")
    return n


@_placed()
def eye(n_rows: int, n_cols: int | None = None, /, *, k: int = 0, dtype: DType | None = None,
        device: DeviceLike | None = None) -> Array:
    """A 2-D array with ones on the `k`-th diagonal and zeros elsewhere.

    >>> import stridex as sx
    >>> sx.eye(2, 3, k=1, dtype=sx.int8)
    Array([[0, 1, 0],
           [0, 0, 1]], dtype=int8)
    """
    n_rows = _size(n_rows, "eye", "n_rows")
    n_cols = n_rows if n_cols is None else _size(n_cols, "eye", "n_cols")
    try:
        k = operator.index(k)
    except TypeError:
        raise TypeError(f"eye: k must be an integer, got {type(k).__name__}") from None
    dtype = _check_dtype(dtype, "eye") or _dtypes.float64
    # A diagonal wholly outside the matrix is all zeros whatever its offset: clamping k keeps it a
    # machine integer for the kernels (NumPy, XLA) without changing the result.
    k = max(-n_rows, min(k, n_cols))
    return _p.eye.bind(n_rows=n_rows, n_cols=n_cols, k=k, dtype=dtype)


def _triangle(fname: str, x, k, upper: bool) -> Array:
    _check_array(x, fname)
    if x.ndim < 2:
        raise ValueError(f"{fname} needs an array of at least 2 dimensions, got shape {x.shape}")
    try:
        k = operator.index(k)
    except TypeError:
        raise TypeError(f"{fname}: k must be an integer, got {type(k).__name__}") from None
    rows, cols = x.shape[-2], x.shape[-1]
    k = max(-rows - 1, min(k, cols + 1))  # beyond the matrix every offset selects the same elements
    return _p.triangle.bind(x, k=k, upper=upper)


def tril(x: Array, /, *, k: int = 0) -> Array:
    """The lower triangle of the matrices in `x` (elements above the `k`-th diagonal set to zero).

    >>> import stridex as sx
    >>> sx.tril(sx.ones((2, 2), dtype=sx.int64))
    Array([[1, 0],
           [1, 1]])
    """
    return _triangle("tril", x, k, upper=False)


def triu(x: Array, /, *, k: int = 0) -> Array:
    """The upper triangle of the matrices in `x` (elements below the `k`-th diagonal set to zero).

    >>> import stridex as sx
    >>> sx.triu(sx.ones((2, 2), dtype=sx.int64))
    Array([[1, 1],
           [0, 1]])
    """
    return _triangle("triu", x, k, upper=True)


@_placed()
def linspace(start: int | float | complex, stop: int | float | complex, /, num: int, *,
             dtype: DType | None = None, device: DeviceLike | None = None, endpoint: bool = True) -> Array:
    """`num` evenly spaced numbers from `start` to `stop` (included unless `endpoint=False`).

    >>> import stridex as sx
    >>> sx.linspace(0, 1, 5)
    Array([0.  , 0.25, 0.5 , 0.75, 1.  ])
    """
    if _is_traced_bound(start) or _is_traced_bound(stop):
        return _traced_linspace(start, stop, num, dtype, device, endpoint)
    start = _python_scalar(start, "linspace", "start", (int, float, complex))
    stop = _python_scalar(stop, "linspace", "stop", (int, float, complex))
    num = _size(num, "linspace", "num")
    dtype = _check_dtype(dtype, "linspace")
    if not isinstance(endpoint, (bool, np.bool_)):
        raise TypeError(f"linspace: endpoint must be a bool, got {type(endpoint).__name__}")
    is_complex = type(start) is complex or type(stop) is complex
    if dtype is None:
        dtype = _dtypes.complex128 if is_complex else _dtypes.float64
    elif dtype is _dtypes.bool:
        raise TypeError("linspace makes numeric arrays, not bool")
    elif is_complex and dtype.kind != "complex floating":
        raise TypeError(f"linspace: complex start/stop ({start!r}, {stop!r}) do not fit dtype {dtype.name}")
    convert = complex if is_complex else float
    return _p.linspace.bind(start=convert(start), stop=convert(stop), num=num, endpoint=bool(endpoint), dtype=dtype)  # type: ignore[arg-type]  # (complex only with convert complex)


def _concrete_bound(value, what: str):
    """A bound of `arange` as a concrete value: a traced one is asked for its value (a graph break under `jit`);
    where its trace cannot give one, DataDependentShapeError says what to do."""
    if not isinstance(value, Tracer):
        return value
    try:
        return value._concrete(Conversion(f"arange's {what} (the length of the result depends on it)",
                                          ConcretizationTypeError))
    except ConcretizationError:
        raise DataDependentShapeError(
            f"arange: the length of the result depends on the value of {what}, a traced 0-D array "
            f"({value.dtype.name}); pass start, stop and step as Python numbers (under jit, mark them static: "
            "static_argnums= or static_argnames=)") from None


def _is_traced_bound(value) -> bool:
    return isinstance(value, Tracer) and value.shape == ()


def _traced_linspace(start, stop, num, dtype, device, endpoint) -> Array:
    """`linspace` with a traced start or stop (a Python scalar argument of a jitted function, or a traced 0-D
    array), whose value the program only knows when it runs: NumPy's algorithm (i * step + start, the last value
    `stop` itself, then floor for an integer dtype) written with array operations, as the primitive's lowering
    computes it from constant bounds. The checks and dtype rules are those of the Python-scalar bounds."""

    bounds = [b if _is_traced_bound(b) else _python_scalar(b, "linspace", what, (int, float, complex))
              for b, what in ((start, "start"), (stop, "stop"))]
    for b, what in zip(bounds, ("start", "stop")):
        if isinstance(weak_scalar_example(b), bool):
            raise TypeError(f"linspace: {what} must be a Python int/float/complex, got bool")
    num = _size(num, "linspace", "num")
    dtype = _check_dtype(dtype, "linspace")
    if not isinstance(endpoint, (bool, np.bool_)):
        raise TypeError(f"linspace: endpoint must be a bool, got {type(endpoint).__name__}")
    is_complex = any(isinstance(b, complex) or getattr(b, "dtype", None) in _dtypes.COMPLEX_DTYPES for b in bounds)
    if dtype is None:
        dtype = _dtypes.complex128 if is_complex else _dtypes.float64
    elif dtype is _dtypes.bool:
        raise TypeError("linspace makes numeric arrays, not bool")
    elif is_complex and dtype.kind != "complex floating":
        raise TypeError(f"linspace: complex start/stop do not fit dtype {dtype.name}")
    work = _dtypes.complex128 if is_complex else _dtypes.float64
    start, stop = (asarray(b, dtype=work) for b in bounds)
    i = asarray(_p.iota.bind(start=0.0, step=1.0, num=num, dtype=_dtypes.float64), dtype=work)
    div = num - 1 if endpoint else num
    delta = stop - start
    if div > 0:
        # The divisor is an array made now, so an input of the program rather than a constant in it: XLA turns
        # a division by a constant into a multiplication by its reciprocal, which can differ in the last bit.
        divisor = asarray(float(div), dtype=work)
        step = delta / divisor
        values = where(step == 0, i / divisor * delta, i * step)  # (NumPy's path for a step that underflows to 0)
    else:
        values = i * delta
    values = values + start
    if endpoint and num > 1:
        values = concat([values[:num - 1], reshape(stop, (1,))])
    if dtype.kind in ("signed", "unsigned"):
        values = floor(values)
    return values if values.dtype is dtype else convert_element_type.bind(values, new_dtype=dtype)


def meshgrid(*arrays: Array, indexing: Literal["xy", "ij"] = "xy") -> tuple[Array, ...]:
    """Coordinate matrices from 1-D coordinate vectors ("xy": Cartesian, "ij": matrix indexing).

    Each output is a fresh array (not a broadcast view), so writing into one never touches the others.

    >>> import stridex as sx
    >>> [g.shape for g in sx.meshgrid(sx.arange(3), sx.arange(2))]
    [(2, 3), (2, 3)]
    """
    if indexing not in ("xy", "ij"):
        raise ValueError(f"meshgrid: indexing must be 'xy' or 'ij', got {indexing!r}")
    for i, a in enumerate(arrays):
        _check_array(a, "meshgrid")
        if a.ndim != 1:
            raise ValueError(f"meshgrid takes 1-D arrays; argument {i} has shape {a.shape}")
    shape = [a.shape[0] for a in arrays]
    axes = list(range(len(arrays)))
    if indexing == "xy" and len(arrays) > 1:
        shape[0], shape[1] = shape[1], shape[0]
        axes[0], axes[1] = 1, 0
    shape = tuple(shape)  # type: ignore[assignment]  # (the list, frozen)
    out = []
    for a, axis in zip(arrays, axes):
        lifted = tuple(a.shape[0] if i == axis else 1 for i in range(len(arrays)))
        grid = _views.broadcast_to.bind(_views.reshape_view.bind(a, shape=lifted), shape=shape)
        out.append(_copy_prim.bind(grid))
    return tuple(out)



# --- dtypes make arrays -------------------------------------------------------------------------------------


def _array_of_dtype(dtype: DType, value: Any, /) -> Array:
    """`dtype(value)`: `value` (a scalar, a sequence, an array) as an array of that dtype, as JAX's scalar types
    (`jnp.float32(0.5)`) make one. Beyond the standard, whose dtype objects need not be callable; stridex.numpy's
    dtypes are these objects, so that they compare equal to an array's `.dtype`.

    >>> import stridex as sx
    >>> sx.float32(0.5), sx.int8([1.7, -2.2])
    (Array(0.5, dtype=float32), Array([ 1, -2], dtype=int8))
    """
    return asarray(value, dtype=dtype)


DType.__call__ = _array_of_dtype  # type: ignore[method-assign]  # (declared in the class for type checkers)
