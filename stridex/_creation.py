"""Creation functions: `asarray` (adopting NumPy, DLPack producers and Python data) and the spec's constructors."""

from __future__ import annotations

import numpy as np

from . import _dtypes
from ._array import Array, adopt, check_device, raise_if_unsupported
from ._dtypes import DType

__all__ = ["asarray", "from_dlpack"]

_PY_DEFAULT = {bool: _dtypes.bool, int: _dtypes.int64, float: _dtypes.float64, complex: _dtypes.complex128}


def _np_dtype(dtype):
    if dtype is None:
        return None
    if not isinstance(dtype, DType):
        raise TypeError(f"dtype must be a stridex dtype, got {dtype!r}")
    return dtype.np


def asarray(obj, /, *, dtype: DType | None = None, device=None, copy: bool | None = None) -> Array:
    """Convert `obj` (an array, NumPy array, DLPack producer, Python scalar or nested sequence) to an Array.

    NumPy arrays and DLPack producers are shared, not copied, unless `copy=True` or a dtype change needs it;
    `copy=False` raises ValueError when a copy cannot be avoided.

    >>> import stridex as sx
    >>> sx.asarray([[1, 2], [3, 4]], dtype=sx.float32).shape
    (2, 2)
    """
    check_device(device)
    np_dtype = _np_dtype(dtype)
    if isinstance(obj, Array):
        if np_dtype is None or obj.dtype is dtype:
            return obj._copy() if copy else obj
        if copy is False:
            raise ValueError(f"asarray(copy=False) cannot change dtype {obj.dtype.name} to {dtype.name} without a copy")
        from ._data_type import astype

        return astype(obj, dtype)
    if type(obj) in _PY_DEFAULT:
        if copy is False:
            raise ValueError("asarray(copy=False) of a Python scalar would need a copy")
        return _from_python(obj, np_dtype)
    if isinstance(obj, np.ndarray) or isinstance(obj, np.generic):
        return _from_numpy_like(np.asarray(obj), np_dtype, copy)
    if hasattr(obj, "__dlpack__"):
        try:
            return _from_numpy_like(np.from_dlpack(obj), np_dtype, copy)
        except (BufferError, TypeError, RuntimeError):
            if copy is False:
                raise
            return _from_numpy_like(np.asarray(obj), np_dtype, True)
    if hasattr(obj, "__array__") or hasattr(obj, "__array_interface__") or _is_buffer(obj):
        return _from_numpy_like(np.asarray(obj), np_dtype, copy)
    if copy is False:
        raise ValueError(f"asarray(copy=False) of a {type(obj).__name__} would need a copy")
    return _from_python(obj, np_dtype)


def _is_buffer(obj) -> bool:
    try:
        memoryview(obj)
        return True
    except TypeError:
        return False


def _from_numpy_like(a: np.ndarray, np_dtype, copy) -> Array:
    raise_if_unsupported(a.dtype)
    if np_dtype is not None and a.dtype != np_dtype:
        if copy is False:
            raise ValueError(f"asarray(copy=False) cannot change dtype {a.dtype} to {np_dtype} without a copy")
        return Array._from_numpy(a.astype(np_dtype))
    return adopt(a, copy=bool(copy))


def _from_python(obj, np_dtype) -> Array:
    if np_dtype is None:
        a = np.asarray(_unwrap(obj))
        if a.dtype == object:
            raise OverflowError(f"Python integer out of the range of int64/uint64 in {obj!r}")
        if a.dtype.kind in "US":
            raise TypeError(f"cannot make an array from {type(obj).__name__} data {obj!r}")
        if a.dtype == np.float16 or a.dtype.kind not in "biufc":
            raise TypeError(f"unsupported data {obj!r}")
    else:
        a = np.asarray(_unwrap(obj), dtype=np_dtype)
    return Array._from_numpy(a)


def _unwrap(obj):
    """Replace stridex arrays nested in Python sequences by NumPy windows."""
    if isinstance(obj, Array):
        return np.asarray(obj)
    if isinstance(obj, (list, tuple)):
        return [_unwrap(o) for o in obj]
    return obj


def from_dlpack(x, /, *, device=None, copy: bool | None = None) -> Array:
    """Import any DLPack producer (NumPy, JAX, PyTorch, ...), sharing its memory unless `copy=True`.

    Read-only producer memory (a JAX result, say) is copied on the first write, never written through.
    """
    check_device(device)
    if isinstance(x, Array):
        return x._copy() if copy else x
    if not hasattr(x, "__dlpack__"):
        raise TypeError(f"from_dlpack needs an object with __dlpack__, got {type(x).__name__}")
    a = np.from_dlpack(x, copy=copy)
    return adopt(a, copy=bool(copy))
