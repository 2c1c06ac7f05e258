"""The vocabulary of types: the 13 Array API dtypes, their sets and categories, the Python scalar types,
and the type-promotion rules (spec table + NEP 50). Every module names these from here.

Beyond the spec, two half-precision types, `float16` and `bfloat16` (stored as ml_dtypes' bfloat16, the
type JAX uses), promote as JAX defines it. They are kept out of the spec-facing sets (`ALL_DTYPES`,
`CATEGORIES`, and so `info.dtypes()`), which the conformance suite enumerates; what must know every dtype
(conversion from NumPy, pickling, promotion, casting, validation) uses `EXTENDED_DTYPES` and
`EXTENDED_CATEGORIES`."""

from __future__ import annotations

import builtins as _builtins
from typing import TYPE_CHECKING, Any

import numpy as np

_pybool = _builtins.bool

__all__ = [
    "DType",
    "bfloat16",
    "bool",
    "complex64",
    "complex128",
    "float16",
    "float32",
    "float64",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
]


class DType:
    """An Array API dtype: a name, a kind category and the NumPy dtype that stores it."""

    __slots__ = ("__weakref__", "itemsize", "kind", "name", "np")

    def __init__(self, name: str, kind: str, np_dtype: Any = None) -> None:
        self.name = name
        self.kind = kind  # "bool" | "signed" | "unsigned" | "real floating" | "complex floating"
        self.np = np.dtype(name if np_dtype is None else np_dtype)
        self.itemsize = self.np.itemsize

    def __repr__(self) -> str:
        return f"stridex.{self.name}"

    __str__ = lambda self: self.name  # type: ignore[attr-defined]  # (a lambda's `self` is untyped)

    # Dtypes are singletons: identity equality and hashing (the object defaults, kept in C for speed).

    if TYPE_CHECKING:  # (installed by stridex/_api/creation_functions.py, which can make arrays: `float32(0.5)`)

        def __call__(self, value: Any, /) -> Any: ...

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        return (_by_name, (self.name,))


bool = DType("bool", "bool")
int8, int16, int32, int64 = (DType(f"int{n}", "signed") for n in (8, 16, 32, 64))
uint8, uint16, uint32, uint64 = (DType(f"uint{n}", "unsigned") for n in (8, 16, 32, 64))
float32, float64 = DType("float32", "real floating"), DType("float64", "real floating")
complex64, complex128 = DType("complex64", "complex floating"), DType("complex128", "complex floating")


class _BFloat16(DType):
    """bfloat16, whose NumPy dtype is ml_dtypes' (imported when that dtype is first needed: some 10 ms that
    `import stridex` does not pay)."""

    __slots__ = ()

    def __init__(self):
        self.name, self.kind, self.itemsize = "bfloat16", "real floating", 2

    @property
    def np(self):  # type: ignore[override]  # (a property over the base's slot: ml_dtypes' dtype, made when first read)
        return _bfloat16_numpy()


# Half precision, beyond the spec (see the module docstring).
float16, bfloat16 = DType("float16", "real floating"), _BFloat16()

ALL_DTYPES = (bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
              float32, float64, complex64, complex128)
INTEGER_DTYPES = (int8, int16, int32, int64, uint8, uint16, uint32, uint64)
REAL_FLOATING_DTYPES = (float32, float64)
COMPLEX_DTYPES = (complex64, complex128)
FLOATING_DTYPES = REAL_FLOATING_DTYPES + COMPLEX_DTYPES
REAL_DTYPES = INTEGER_DTYPES + REAL_FLOATING_DTYPES
NUMERIC_DTYPES = REAL_DTYPES + COMPLEX_DTYPES
HALF_DTYPES = (float16, bfloat16)
EXTENDED_DTYPES = ALL_DTYPES + HALF_DTYPES

# The dtype a sum or product accumulates in when none is asked for: integers and bool in 64 bits.
ACCUMULATION = {d: d for d in NUMERIC_DTYPES + HALF_DTYPES} | {
    bool: int64, int8: int64, int16: int64, int32: int64, uint8: uint64, uint16: uint64, uint32: uint64,
}

# Dtype kinds, as `DType.kind` spells them.
FLOATING_KINDS = frozenset({"real floating", "complex floating"})
# The Python scalar types an operand may be (bool first: it is also an int).
PY_SCALARS = (_pybool, int, float, complex)


def is_floating(dtype: DType) -> _pybool:
    return dtype.kind in FLOATING_KINDS


def is_half(dtype: DType) -> _pybool:
    return dtype is float16 or dtype is bfloat16


def np_kind(np_dtype) -> str:
    """NumPy's kind letter of a NumPy (or JAX) dtype, with ml_dtypes' bfloat16, which NumPy files under "V"
    (void: a user-defined type), as "f"."""
    np_dtype = np.dtype(np_dtype)
    return "f" if is_bfloat16_numpy(np_dtype) else np_dtype.kind


def is_bfloat16_numpy(np_dtype: np.dtype) -> _pybool:
    """Whether a NumPy dtype is ml_dtypes' bfloat16, asked without importing ml_dtypes (whoever made an array
    of that dtype has imported it)."""
    return np_dtype.kind == "V" and np_dtype.name == "bfloat16" and np_dtype == _bfloat16_numpy()


_BFLOAT16_NUMPY = None


def _bfloat16_numpy() -> np.dtype:
    """ml_dtypes' bfloat16 dtype, imported on first use and then known to `FROM_NUMPY`."""
    global _BFLOAT16_NUMPY
    if _BFLOAT16_NUMPY is None:
        import ml_dtypes  # (NumPy only, no JAX)

        FROM_NUMPY[np.dtype(ml_dtypes.bfloat16)] = bfloat16
        _BFLOAT16_NUMPY = np.dtype(ml_dtypes.bfloat16)
    return _BFLOAT16_NUMPY


class _FromNumPy(dict):
    """The stridex dtype of each NumPy dtype. bfloat16's entry is made when ml_dtypes is first needed, so a
    lookup that misses asks whether the key is that dtype (an array of it exists only once ml_dtypes is
    imported; the lookup then adds the entry). `in` and `.get` do not miss that way: `from_numpy` asks
    where the dtype may be unknown."""

    def __missing__(self, np_dtype):
        if isinstance(np_dtype, np.dtype) and is_bfloat16_numpy(np_dtype):
            return bfloat16
        raise KeyError(np_dtype)


_BY_NAME = {d.name: d for d in EXTENDED_DTYPES}
FROM_NUMPY = _FromNumPy({d.np: d for d in EXTENDED_DTYPES if d is not bfloat16})


def from_numpy(np_dtype) -> DType | None:
    """The stridex dtype of a NumPy dtype (or of what `np.dtype` takes), or None when stridex has none."""
    try:
        return FROM_NUMPY[np_dtype if isinstance(np_dtype, np.dtype) else np.dtype(np_dtype)]
    except KeyError:
        return None


def _by_name(name: str) -> DType:
    return _BY_NAME[name]


# Python's scalar types name the default dtypes, as in NumPy and JAX (`zeros(3, dtype=bool)`, `astype(x, float)`);
# the spec's dtype arguments are dtype objects and it leaves other objects unspecified, so stridex accepts these.
PYTHON_TYPE_DTYPES = {_pybool: bool, int: int64, float: float64, complex: complex128}


def as_dtype(dtype) -> DType | None:
    """`dtype` if it is a stridex dtype, the default dtype that Python's bool/int/float/complex names, else None."""
    if isinstance(dtype, DType):
        return dtype
    return PYTHON_TYPE_DTYPES.get(dtype) if isinstance(dtype, type) else None


# Categories used by the spec to say which dtypes a function accepts.
CATEGORIES = {
    "bool": (bool,),
    "integer": INTEGER_DTYPES,
    "signed integer": (int8, int16, int32, int64),
    "unsigned integer": (uint8, uint16, uint32, uint64),
    "real floating": REAL_FLOATING_DTYPES,
    "complex floating": COMPLEX_DTYPES,
    "numeric": NUMERIC_DTYPES,
    "real numeric": REAL_DTYPES,
    "floating-point": FLOATING_DTYPES,
    "real-valued floating-point": REAL_FLOATING_DTYPES,
    "complex floating-point": COMPLEX_DTYPES,
    "integer or boolean": INTEGER_DTYPES + (bool,),
    "boolean": (bool,),
    "any": ALL_DTYPES,
}

# The same categories with the half types where the spec's floating types are: what functions validate
# their arguments against (the spec's `CATEGORIES` stay what `info.dtypes()` and the test suite see).
EXTENDED_CATEGORIES = {
    category: dtypes + tuple(h for h in HALF_DTYPES if float32 in dtypes) for category, dtypes in CATEGORIES.items()
}

# --- promotion -------------------------------------------------------------------------------
# The spec defines promotion within a kind; across kinds (int with float, int64 with uint64) it is
# unspecified, and we follow NumPy 2 (NEP 50) so that client libraries that assume it keep working.
# Note: NumPy's own table already equals the spec's wherever the spec defines a result, so one table
# computed from NumPy serves both.
PROMOTION: dict[tuple[DType, DType], DType] = {
    (a, b): FROM_NUMPY[np.promote_types(a.np, b.np)] for a in ALL_DTYPES for b in ALL_DTYPES
}

# A half type with any dtype promotes as JAX defines it (`jax.numpy.promote_types` with 64-bit types on;
# tests/api/test_half_precision.py checks this table against it): bool and every integer take the half type
# (NumPy would widen float16 with int16 and wider to float32/float64), float16 with bfloat16 meets at float32,
# and wider floating types win. Written out so that no JAX import is needed.
_HALF_WITH = {float32: float32, float64: float64, complex64: complex64, complex128: complex128}
for _half in HALF_DTYPES:
    for _other in EXTENDED_DTYPES:
        if _other is _half:
            _out = _half
        elif is_half(_other):
            _out = float32
        else:
            _out = _HALF_WITH.get(_other, _half)  # bool and integers: the half type
        PROMOTION[_half, _other] = PROMOTION[_other, _half] = _out
del _half, _other, _out


def promote(a: DType, b: DType) -> DType:
    return PROMOTION[a, b]


def result_type_of(*dtypes: DType) -> DType:
    out = dtypes[0]
    for d in dtypes[1:]:
        out = PROMOTION[out, d]
    return out


def scalar_result_dtype(array_dtype: DType, scalar) -> DType:
    """Dtype of `array <op> python_scalar` under weak scalar promotion (NEP 50)."""
    if isinstance(scalar, _pybool):
        return array_dtype
    if isinstance(scalar, int):
        return int64 if array_dtype is bool else array_dtype
    if isinstance(scalar, float):
        return float64 if array_dtype.kind in ("bool", "signed", "unsigned") else array_dtype
    if isinstance(scalar, complex):
        if array_dtype.kind == "complex floating":
            return array_dtype
        return complex_of(array_dtype)
    raise TypeError(f"unsupported Python scalar type {type(scalar).__name__}")


def default_float_for(dtype: DType) -> DType:
    """The floating dtype an integer/bool input is computed in (NumPy's rule: float64)."""
    return dtype if dtype.kind in FLOATING_KINDS else float64


def complex_of(dtype: DType) -> DType:
    """The complex dtype holding `dtype`'s values: complex64 for float32 and the half types (as in JAX)."""
    return complex64 if dtype is float32 or dtype is complex64 or is_half(dtype) else complex128


def real_of(dtype: DType) -> DType:
    return {complex64: float32, complex128: float64}.get(dtype, dtype)
