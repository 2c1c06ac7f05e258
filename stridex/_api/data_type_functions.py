"""Data type functions: astype, can_cast, finfo, iinfo, isdtype and result_type."""

from __future__ import annotations

import functools

import numpy as np

from stridex._core import dtypes as _dtypes
from stridex._core.array import Array, DeviceLike
from stridex._core.dtypes import DType
from stridex._exec import device as _device
from stridex._exec import placement as _placement
from stridex._lax import ops
from stridex._lax.data_type import convert_element_type

__all__ = ["astype", "can_cast", "finfo", "iinfo", "isdtype", "result_type"]


def _check_dtype(dtype, fname: str, what: str = "dtype") -> DType:
    """`dtype` as a stridex dtype (Python's bool/int/float/complex name the default dtypes, as in NumPy)."""
    if isinstance(dtype, DType):
        return dtype
    out = _dtypes.as_dtype(dtype)
    if out is None:
        raise TypeError(f"{fname}: {what} must be a stridex dtype (such as stridex.float64) or one of the Python "
                        f"types bool/int/float/complex, got {dtype!r}")
    return out


def astype(x: Array, dtype: DType, /, *, copy: bool = True, device: DeviceLike | None = None) -> Array:
    """Cast `x` to `dtype` regardless of promotion rules (a new array unless `copy=False` and the dtype matches).

    Casting a complex array to a real or integer dtype is a TypeError: take `real` or `imag` first.

    >>> import stridex as sx
    >>> sx.astype(sx.asarray([1.7, -2.2]), sx.int32)
    Array([ 1, -2], dtype=int32)
    """
    if not isinstance(x, Array):
        raise TypeError(f"astype expects an array, got {type(x).__name__}")
    dtype = _check_dtype(dtype, "astype")
    if device is not None:  # (None: where x is)
        moved = _device.transfer(x, _placement.resolve(device))
        if moved is not x:
            x, copy = moved, False  # (already a copy)
    if dtype is x._dtype:
        return ops.copy(x) if copy else x
    if x._dtype.kind == "complex floating" and dtype.kind not in ("complex floating", "bool"):
        # Note: NumPy drops the imaginary part; the spec says this cast "should not be permitted".
        raise TypeError(f"astype cannot cast complex dtype {x._dtype.name} to {dtype.name}; "
                        "use real(x) or imag(x) to choose a component first")
    return convert_element_type.bind(x, new_dtype=dtype)


def can_cast(from_: DType | Array, to: DType, /) -> bool:
    """Whether `from_` (a dtype or an array's dtype) casts to `to` under the promotion rules.

    Within a kind this is the spec's promotion lattice; across kinds (integer to floating, say), which
    the spec leaves open, it is NumPy 2's "safe" casting.

    >>> import stridex as sx
    >>> sx.can_cast(sx.int8, sx.int16), sx.can_cast(sx.int16, sx.int8)
    (True, False)
    """
    if isinstance(from_, Array):
        from_ = from_._dtype
    from_ = _check_dtype(from_, "can_cast", "from_")
    to = _check_dtype(to, "can_cast", "to")
    return _can_cast(from_, to)


# Note: NumPy's safe-casting table equals the spec's lattice wherever the spec defines a promotion. For the
# half types it is what `jax.numpy.can_cast` answers too (ml_dtypes registers bfloat16's safe casts): a cast
# that keeps every value, so int8 casts to float16 but int16 does not, and float16 and bfloat16 not to each other.
# (Asked of NumPy once per pair, on first use: a bfloat16 pair needs ml_dtypes, which `import stridex` does not load.)
@functools.cache
def _can_cast(from_: DType, to: DType) -> bool:
    return bool(np.can_cast(from_.np, to.np, "safe"))


class finfo_object:
    """Machine limits of a real floating dtype: bits, eps, max, min, smallest_normal (Python floats) and dtype."""

    __slots__ = ("bits", "dtype", "eps", "max", "min", "smallest_normal")

    def __init__(self, dtype: DType):
        if dtype is _dtypes.bfloat16:
            import ml_dtypes  # (NumPy's finfo does not know bfloat16; ml_dtypes' extends it. Loaded with bfloat16.)

            info = ml_dtypes.finfo(dtype.np)
        else:
            info = np.finfo(dtype.np)  # type: ignore[assignment]  # (NumPy's finfo, with the fields of ml_dtypes')
        self.bits = int(info.bits)
        self.eps = float(info.eps)
        self.max = float(info.max)
        self.min = float(info.min)
        self.smallest_normal = float(info.smallest_normal)
        self.dtype = dtype

    def __repr__(self):
        return (f"finfo(bits={self.bits}, eps={self.eps!r}, max={self.max!r}, min={self.min!r}, "
                f"smallest_normal={self.smallest_normal!r}, dtype={self.dtype.name})")


class iinfo_object:
    """Machine limits of an integer dtype: bits, max, min (Python ints) and dtype."""

    __slots__ = ("bits", "dtype", "max", "min")

    def __init__(self, dtype: DType):
        info = np.iinfo(dtype.np)
        self.bits = int(info.bits)
        self.max = int(info.max)
        self.min = int(info.min)
        self.dtype = dtype

    def __repr__(self):
        return f"iinfo(bits={self.bits}, max={self.max}, min={self.min}, dtype={self.dtype.name})"


# The dtype whose limits `finfo` gives for each floating dtype (a complex one's real component).
_FINFO_OF = {d: d for d in _dtypes.EXTENDED_CATEGORIES["real floating"]} | {
    _dtypes.complex64: _dtypes.float32, _dtypes.complex128: _dtypes.float64}


@functools.cache
def _finfo(dtype: DType) -> finfo_object:
    return finfo_object(dtype)  # (made on first use: bfloat16's needs ml_dtypes, which `import stridex` does not load)


_IINFO = {d: iinfo_object(d) for d in _dtypes.INTEGER_DTYPES}


def finfo(type: DType | Array, /) -> finfo_object:
    """Limits of a floating dtype (for complex ones, of their real component).

    >>> import stridex as sx
    >>> sx.finfo(sx.complex64).dtype, sx.finfo(sx.float64).bits
    (stridex.float32, 64)
    """
    dtype = type._dtype if isinstance(type, Array) else type
    dtype = _check_dtype(dtype, "finfo", "type")
    real = _FINFO_OF.get(dtype)
    if real is None:
        raise TypeError(f"finfo needs a floating-point dtype, got {dtype.name}")
    return _finfo(real)


def iinfo(type: DType | Array, /) -> iinfo_object:
    """Limits of an integer dtype.

    >>> import stridex as sx
    >>> sx.iinfo(sx.int8).min, sx.iinfo(sx.uint16).max
    (-128, 65535)
    """
    dtype = type._dtype if isinstance(type, Array) else type
    dtype = _check_dtype(dtype, "iinfo", "type")
    try:
        return _IINFO[dtype]
    except KeyError:
        raise TypeError(f"iinfo needs an integer dtype, got {dtype.name}") from None


_KINDS = {
    "bool": frozenset({_dtypes.bool}),
    "signed integer": frozenset(d for d in _dtypes.INTEGER_DTYPES if d.kind == "signed"),
    "unsigned integer": frozenset(d for d in _dtypes.INTEGER_DTYPES if d.kind == "unsigned"),
    "integral": frozenset(_dtypes.INTEGER_DTYPES),
    "real floating": frozenset(_dtypes.EXTENDED_CATEGORIES["real floating"]),  # (the half types too)
    "complex floating": frozenset(_dtypes.COMPLEX_DTYPES),
    "numeric": frozenset(_dtypes.EXTENDED_CATEGORIES["numeric"]),
}


def isdtype(dtype: DType, kind: DType | str | tuple[DType | str, ...]) -> bool:
    """Whether `dtype` is `kind`: a dtype, a kind name ("integral", "numeric", ...) or a tuple of those.

    >>> import stridex as sx
    >>> sx.isdtype(sx.uint8, "integral"), sx.isdtype(sx.float32, ("bool", sx.float64))
    (True, False)
    """
    dtype = _check_dtype(dtype, "isdtype")
    kinds = kind if isinstance(kind, tuple) else (kind,)
    for k in kinds:
        if isinstance(k, DType):
            if k is dtype:
                return True
        elif isinstance(k, str):
            members = _KINDS.get(k)
            if members is None:
                raise ValueError(f"isdtype: unknown kind {k!r}; expected a dtype or one of {sorted(_KINDS)}")
            if dtype in members:
                return True
        else:
            raise TypeError(f"isdtype: kind must be a dtype, a kind string or a tuple of them, got {k!r}")
    return False


_PY_SCALAR_TYPES = (bool, int, float, complex)


def _check_scalar_kind(dtype: DType, value) -> None:
    """A Python scalar must be of a kind that `dtype` holds (the spec's rules for mixing scalars and arrays)."""
    if isinstance(value, bool):
        return
    if isinstance(value, int):
        if dtype is _dtypes.bool:
            raise TypeError("result_type: a Python int does not combine with dtype bool")
    elif isinstance(value, float):
        if dtype is _dtypes.bool:
            raise TypeError("result_type: a Python float does not combine with dtype bool")
    elif dtype.kind in ("bool", "signed", "unsigned"):
        raise TypeError(f"result_type: a Python complex does not combine with dtype {dtype.name}")


def result_type(*arrays_and_dtypes: Array | DType | bool | int | float | complex) -> DType:
    """The dtype the promotion rules give for these arrays, dtypes and (weakly typed) Python scalars.

    >>> import stridex as sx
    >>> sx.result_type(sx.int8, sx.uint8), sx.result_type(sx.float32, 1.0)
    (stridex.int16, stridex.float32)
    """
    strong = []
    scalars = []
    for a in arrays_and_dtypes:
        if isinstance(a, DType):
            strong.append(a)
        elif isinstance(a, Array):
            strong.append(a._dtype)
        elif isinstance(a, _PY_SCALAR_TYPES):
            scalars.append(a)
        elif _dtypes.as_dtype(a) is not None:  # Python's bool/int/float/complex as dtypes
            strong.append(_dtypes.as_dtype(a))
        else:
            raise TypeError(f"result_type takes arrays, dtypes and Python scalars, got {type(a).__name__}")
    if not strong:
        # The spec: "At least one argument must be an array or a dtype" (Python scalars are weak: alone they
        # name no dtype). ValueError, as array-api-strict raises.
        if not scalars:
            raise ValueError("result_type needs at least one array or dtype, got no arguments")
        raise ValueError(f"result_type needs at least one array or dtype, got only Python scalars {tuple(scalars)}; "
                         "pass the dtype they should combine with too, e.g. result_type(stridex.float64, -2.0, 1.0)")
    out = _dtypes.result_type_of(*strong)
    for s in scalars:  # checked against the arrays' dtype first, so that the order of arguments never matters
        _check_scalar_kind(out, s)
    for s in scalars:
        out = _dtypes.scalar_result_dtype(out, s)
    return out
