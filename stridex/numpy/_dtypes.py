"""Dtypes as jax.numpy names them: scalar-type names and NumPy's abstract types, dtype-likes, JAX's promotion
lattice, and the dtype and shape predicates (`issubdtype`, `iscomplexobj`, `shape`, `ndim`, ...)."""

from __future__ import annotations

import builtins
import functools
from typing import Any

import numpy as np

from stridex._api import data_type_functions as _dt
from stridex._core import dtypes as _d
from stridex._core.array import Array
from stridex._transforms.tracing import weak_scalar_example
from stridex._core.dtypes import (DType, bfloat16, complex64, complex128, float16, float32, float64, int8, int16, int32,
                                  int64, uint8, uint16, uint32, uint64)

__all__ = [
    "ComplexWarning", "bfloat16", "bool", "bool_", "can_cast", "cdouble", "character", "complex128", "complex64",
    "complex_", "complexfloating", "csingle", "double", "dtype", "finfo", "flexible", "float16", "float32", "float64",
    "float_", "floating", "generic", "iinfo", "inexact", "int16", "int32", "int64", "int8", "int_", "integer",
    "isdtype", "iscomplexobj", "isrealobj", "isscalar", "issubdtype", "iterable", "ndarray", "ndim", "number",
    "promote_types", "result_type", "shape", "signedinteger", "single", "size", "uint", "uint16", "uint32", "uint64",
    "uint8", "unsignedinteger",
]

# The dtypes are stridex's own objects, so `x.dtype == jnp.float32` holds and `sx.zeros(3, dtype=jnp.float32)`
# works; like JAX's scalar types they are callable (`jnp.float32(0.5)`, see `stridex.DType.__call__`).
bool = _d.bool  # noqa: A001  (jax.numpy's name)
bool_ = _d.bool
# NumPy's aliases, as jax.numpy has them (its 64-bit meanings: stridex's defaults are 64-bit).
float_, double, single = float64, float64, float32
int_, uint = int64, uint64
complex_, cdouble, csingle = complex128, complex128, complex64

# NumPy's abstract scalar types, for `issubdtype` (jax.numpy's are NumPy's own).
generic, number, inexact, floating, complexfloating = np.generic, np.number, np.inexact, np.floating, np.complexfloating
integer, signedinteger, unsignedinteger = np.integer, np.signedinteger, np.unsignedinteger
character, flexible = np.character, np.flexible
ComplexWarning = np.exceptions.ComplexWarning

# `isinstance(x, jnp.ndarray)` asks whether x is an array: stridex's Array (a traced value is one too).
ndarray = Array

_ABSTRACT = (generic, number, inexact, floating, complexfloating, integer, signedinteger, unsignedinteger, character,
             flexible)
_BY_NAME = {d.name: d for d in _d.EXTENDED_DTYPES}
_PY_SCALARS = (builtins.bool, int, float, complex)


# --- dtype-likes -------------------------------------------------------------------------------------


def canonical(dtype, fname: str, what: str = "dtype") -> DType:
    """The stridex dtype `dtype` names: a stridex dtype, a NumPy dtype or scalar type, a dtype's name, Python's
    bool/int/float/complex (the 64-bit defaults), or an object with a `.dtype` (a NumPy array, a JAX scalar type).
    Anything else, and dtypes stridex has no type for (strings, objects, float8...), is a TypeError naming it."""
    if isinstance(dtype, DType):
        return dtype
    out = _canonical(dtype) if _hashable(dtype) else None
    if out is None:
        raise TypeError(f"{fname}: {what} {dtype!r} is not a dtype stridex has; expected one of "
                        f"{', '.join(sorted(_BY_NAME))}, or a NumPy dtype or type naming one")
    return out


def _hashable(x) -> builtins.bool:
    try:
        hash(x)
    except TypeError:
        return isinstance(x, np.dtype)
    return True


@functools.lru_cache(maxsize=256)
def _canonical(dtype) -> DType | None:
    if isinstance(dtype, str):
        named = _BY_NAME.get(dtype)
        if named is not None:
            return named
    elif isinstance(dtype, type) and dtype in _d.PYTHON_TYPE_DTYPES:
        return _d.PYTHON_TYPE_DTYPES[dtype]
    elif isinstance(dtype, type) and issubclass(dtype, np.generic) and dtype in _ABSTRACT:
        return None
    elif not isinstance(dtype, (np.dtype, type)) and hasattr(dtype, "dtype"):
        dtype = dtype.dtype
    try:
        np_dtype = np.dtype(dtype)
    except (TypeError, ValueError):
        return None
    if np_dtype.kind == "V" and np_dtype.name == "bfloat16":
        return bfloat16
    return _d.from_numpy(np_dtype)


def canonical_or_none(dtype, fname: str, what: str = "dtype") -> DType | None:
    return None if dtype is None else canonical(dtype, fname, what)


class _DTypeMeta(type):
    def __instancecheck__(cls, instance) -> builtins.bool:
        return isinstance(instance, DType)


class dtype(metaclass=_DTypeMeta):  # noqa: N801  (jax.numpy's name)
    """The stridex dtype a dtype-like names (`jnp.dtype("float32")`, `jnp.dtype(np.int8)`, `jnp.dtype(float)`).

    jax.numpy's `dtype` is NumPy's class; here it returns stridex's dtype objects, so that the result compares
    equal to an array's `.dtype` and is accepted by every stridex function. `isinstance(d, dtype)` asks
    whether `d` is a stridex dtype.

    >>> import stridex.numpy as jnp
    >>> jnp.dtype("float32") == jnp.float32, jnp.dtype(int).itemsize
    (True, 8)
    """

    def __new__(cls, dtype: Any, align: builtins.bool = False, copy: builtins.bool = False) -> DType:  # type: ignore[misc]
        return canonical(dtype, "dtype", "argument")


# --- JAX's promotion lattice ---------------------------------------------------------------------------
# jax.numpy promotes as stridex does (the standard's table, NEP 50 for Python scalars, JAX's own rules for the
# half types) except where a 32- or 64-bit integer meets float32 or complex64: JAX keeps the float type there
# (int64 + float32 -> float32), NumPy 2 and stridex's operators widen (float64). stridex.numpy's functions
# promote as JAX does; `tests/numpy/test_dtypes.py` checks the whole table against `jax.numpy.promote_types`.
_PROMOTION = dict(_d.PROMOTION)
for _int in (int32, int64, uint32, uint64):
    for _float in (float32, complex64):
        _PROMOTION[_int, _float] = _PROMOTION[_float, _int] = _float
del _int, _float

# The inexact dtype jax.numpy computes an integer or boolean input in (jax's `to_inexact_dtype`): float32 up to
# 32-bit integers, float64 for 64-bit ones.
TO_INEXACT = {d: d for d in _d.EXTENDED_DTYPES} | {
    _d.bool: float32, int8: float32, int16: float32, int32: float32, uint8: float32, uint16: float32,
    uint32: float32, int64: float64, uint64: float64}
# The numeric dtype jax.numpy computes a boolean input in where a function takes numbers (`to_numeric_dtype`).
TO_NUMERIC = {d: d for d in _d.EXTENDED_DTYPES} | {_d.bool: int32}
# Python scalars are weak: each kind's dtype when no array names one (64-bit, as under `jax_enable_x64`).
_WEAK_DEFAULT = {builtins.bool: _d.bool, int: int64, float: float64, complex: complex128}
_KIND_RANK = {"bool": 0, "signed": 1, "unsigned": 1, "real floating": 2, "complex floating": 3}


def promote_pair(a: DType, b: DType) -> DType:
    return _PROMOTION[a, b]


def _with_weak(out: DType, kind: type) -> DType:
    """The dtype of `out` combined with a weak Python scalar of type `kind`."""
    if kind is builtins.bool or kind is int and out is not _d.bool:
        return out
    if kind is int:
        return int64
    if kind is float:
        return out if _KIND_RANK[out.kind] >= 2 else float64
    if out.kind == "complex floating":
        return out
    return _d.complex_of(out) if out.kind == "real floating" else complex128


def result_of(strong: list, weak: list) -> DType:
    """JAX's result dtype of the dtypes `strong` and the weak Python scalar types `weak`."""
    if strong:
        out = strong[0]
        for d in strong[1:]:
            out = _PROMOTION[out, d]
    else:
        out = _WEAK_DEFAULT[max(weak, key=lambda t: _KIND_RANK[_WEAK_DEFAULT[t].kind])] if weak else float64
        weak = []
    for kind in weak:
        out = _with_weak(out, kind)
    return out


def _split(args, fname: str) -> tuple[list, list]:
    strong, weak = [], []
    for a in args:
        if isinstance(a, Array):
            example = weak_scalar_example(a)  # (a Python scalar argument under jit: weak, as that scalar)
            (strong.append(a._dtype) if example is None else weak.append(type(example)))
        elif isinstance(a, _PY_SCALARS):
            weak.append(type(a) if type(a) in _PY_SCALARS else next(t for t in _PY_SCALARS if isinstance(a, t)))
        elif isinstance(a, (np.ndarray, np.generic)):
            strong.append(canonical(a.dtype, fname))
        else:
            strong.append(canonical(a, fname, "argument"))
    return strong, weak


def promote_types(a: Any, b: Any) -> DType:
    """The dtype two dtypes promote to, as jax.numpy promotes them (64-bit types on).

    Python's int/float/complex types are weak here as in JAX: `promote_types(float, float32)` is float32.

    >>> import stridex.numpy as jnp
    >>> jnp.promote_types(jnp.int8, jnp.uint8), jnp.promote_types(jnp.int32, jnp.float32)
    (stridex.int16, stridex.float32)
    """
    weak_a = a in (int, float, complex)
    weak_b = b in (int, float, complex)
    strong = [canonical(x, "promote_types") for x, w in ((a, weak_a), (b, weak_b)) if not w]
    return result_of(strong, [x for x, w in ((a, weak_a), (b, weak_b)) if w])


def result_type(*args: Any) -> DType:
    """The dtype jax.numpy's promotion gives for arrays, dtype-likes and (weak) Python scalars.

    >>> import stridex.numpy as jnp
    >>> jnp.result_type(jnp.ones(2, dtype=jnp.float32), 2.0), jnp.result_type(1, 1.0)
    (stridex.float32, stridex.float64)
    """
    if not args:
        raise ValueError("result_type: at least one array or dtype is required")
    strong, weak = _split(args, "result_type")
    return result_of(strong, weak)


def can_cast(from_: Any, to: Any, casting: str = "safe") -> builtins.bool:
    """Whether a cast from `from_` (a dtype-like or an array) to `to` keeps values, by NumPy's `casting` rule.

    >>> import stridex.numpy as jnp
    >>> jnp.can_cast(jnp.int8, jnp.float32), jnp.can_cast("float64", "int64", casting="same_kind")
    (True, False)
    """
    source = from_._dtype if isinstance(from_, Array) else canonical(from_, "can_cast", "from_")
    return builtins.bool(np.can_cast(source.np, canonical(to, "can_cast", "to").np, casting))  # type: ignore[arg-type]


def isdtype(dtype: Any, kind: Any) -> builtins.bool:
    """The standard's `isdtype`, taking dtype-likes (`"float32"`, `np.int8`) as jax.numpy does.

    >>> import stridex.numpy as jnp
    >>> jnp.isdtype("int8", "integral"), jnp.isdtype(jnp.float32, ("real floating", "complex floating"))
    (True, True)
    """
    kinds = kind if isinstance(kind, tuple) else (kind,)
    kinds = tuple(k if isinstance(k, str) else canonical(k, "isdtype", "kind") for k in kinds)
    return _dt.isdtype(canonical(dtype, "isdtype"), kinds)


def finfo(dtype: Any) -> Any:
    """NumPy's `finfo` of a floating dtype-like or array (ml_dtypes' for bfloat16), as jax.numpy returns it:
    `eps`, `max`, `min`, `tiny`, `smallest_normal`, `resolution`, `bits`...; a complex dtype's real part.

    >>> import stridex.numpy as jnp
    >>> float(jnp.finfo(jnp.float32).tiny) == float(jnp.finfo("float32").smallest_normal)
    True
    """
    d = dtype._dtype if isinstance(dtype, Array) else canonical(dtype, "finfo")
    if d.kind not in _d.FLOATING_KINDS:
        raise ValueError(f"finfo: data type {d.name} not inexact")
    if d is bfloat16:
        import ml_dtypes  # (bfloat16's limits; NumPy only, no JAX)

        return ml_dtypes.finfo(d.np)
    return np.finfo(d.np)


def iinfo(int_type: Any) -> Any:
    """NumPy's `iinfo` of an integer dtype-like or array.

    >>> import stridex.numpy as jnp
    >>> int(jnp.iinfo(jnp.int8).min), int(jnp.iinfo("uint16").max)
    (-128, 65535)
    """
    d = int_type._dtype if isinstance(int_type, Array) else canonical(int_type, "iinfo")
    if d.kind not in ("signed", "unsigned"):
        raise ValueError(f"iinfo: invalid integer data type {d.name!r}")
    return np.iinfo(d.np)


def _numpy_dtype_of(x) -> np.dtype | type:
    if isinstance(x, DType):
        return x.np if x is not bfloat16 else np.dtype(np.float32)  # (bfloat16: floating, as below)
    if isinstance(x, type) and issubclass(x, np.generic):
        return x
    return canonical(x, "issubdtype").np


def issubdtype(arg1: Any, arg2: Any) -> builtins.bool:
    """Whether dtype `arg1` is `arg2` or below it in NumPy's hierarchy of types (`jnp.floating`, `jnp.integer`,
    ...); bfloat16 counts as floating, as in jax.numpy.

    >>> import stridex.numpy as jnp
    >>> x = jnp.ones(3, dtype=jnp.float32)
    >>> jnp.issubdtype(x.dtype, jnp.floating), jnp.issubdtype(x.dtype, jnp.integer), jnp.issubdtype(jnp.bfloat16, jnp.inexact)
    (True, False, True)
    """
    first = canonical(arg1, "issubdtype", "arg1") if not (isinstance(arg1, type) and arg1 in _ABSTRACT) else arg1
    if isinstance(arg2, type) and arg2 in _ABSTRACT:
        if first is bfloat16:
            return arg2 in (floating, inexact, number, generic)
        return builtins.bool(np.issubdtype(first.np if isinstance(first, DType) else first, arg2))  # type: ignore[arg-type]
    if isinstance(first, type):
        return False  # an abstract type is below no concrete dtype
    return first is canonical(arg2, "issubdtype", "arg2")


# --- predicates on values -----------------------------------------------------------------------------


def _value_dtype(x) -> DType | None:
    if isinstance(x, Array):
        return x._dtype
    if isinstance(x, (np.ndarray, np.generic)):
        return _d.from_numpy(x.dtype)
    if isinstance(x, _PY_SCALARS):
        return _WEAK_DEFAULT[next(t for t in _PY_SCALARS if isinstance(x, t))]
    if isinstance(x, DType):
        return x
    if isinstance(x, (list, tuple)):
        return _d.from_numpy(np.asarray(x).dtype) if x else float64
    return None


def iscomplexobj(x: Any) -> builtins.bool:
    """Whether `x` (an array, a scalar, a dtype) has a complex dtype, whatever its values.

    >>> import stridex.numpy as jnp
    >>> jnp.iscomplexobj(jnp.asarray([1 + 0j])), jnp.iscomplexobj(1.0)
    (True, False)
    """
    if x is None:
        return False
    d = _value_dtype(x)
    return d is not None and d.kind == "complex floating"


def isrealobj(x: Any) -> builtins.bool:
    """Not `iscomplexobj(x)`.

    >>> import stridex.numpy as jnp
    >>> jnp.isrealobj(jnp.arange(3))
    True
    """
    return not iscomplexobj(x)


def isscalar(element: Any) -> builtins.bool:
    """Whether `element` is a scalar: a Python or NumPy scalar, or an array with zero dimensions (jax.numpy's
    rule, which keeps the answer the same under `jit`).

    >>> import stridex.numpy as jnp
    >>> jnp.isscalar(1.0), jnp.isscalar(jnp.asarray(2)), jnp.isscalar(jnp.zeros(2)), jnp.isscalar([1])
    (True, True, False, False)
    """
    if isinstance(element, (Array, np.ndarray)):
        return element.ndim == 0
    return isinstance(element, (np.generic, *_PY_SCALARS))


def iterable(y: Any) -> builtins.bool:
    """Whether `iter(y)` works (a 0-D array is not iterable).

    >>> import stridex.numpy as jnp
    >>> jnp.iterable([1, 2]), jnp.iterable(2.0)
    (True, False)
    """
    try:
        iter(y)
    except TypeError:
        return False
    return True


def shape(a: Any) -> tuple[int, ...]:
    """The shape of an array, NumPy array, scalar or nested sequence.

    >>> import stridex.numpy as jnp
    >>> jnp.shape(jnp.zeros((2, 3))), jnp.shape(1.0), jnp.shape([[1, 2]])
    ((2, 3), (), (1, 2))
    """
    if isinstance(a, Array):
        return a.shape
    return np.shape(a)


def ndim(a: Any) -> int:
    """The number of dimensions of an array, NumPy array, scalar or nested sequence.

    >>> import stridex.numpy as jnp
    >>> jnp.ndim(jnp.zeros((2, 3))), jnp.ndim(3)
    (2, 0)
    """
    return len(shape(a))


def size(a: Any, axis: int | tuple[int, ...] | None = None) -> int:
    """The number of elements of `a`, or along `axis` (an int or a tuple of them).

    >>> import stridex.numpy as jnp
    >>> jnp.size(jnp.zeros((2, 3))), jnp.size(jnp.zeros((2, 3)), 1), jnp.size(jnp.zeros((2, 3, 4)), (0, 2))
    (6, 3, 8)
    """
    dims = shape(a)
    if axis is None:
        axes: tuple = tuple(range(len(dims)))
    else:
        axes = tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)
    out = 1
    for ax in axes:
        if not -len(dims) <= ax < len(dims):
            raise ValueError(f"size: axis {ax} is out of bounds for an array of {len(dims)} dimensions")
        out *= dims[ax]
    return out
