"""Abstract values: what tracing knows about an array (shape, dtype, weak type), without its data."""

from __future__ import annotations

import math
import operator

from stridex._core import dtypes as _dtypes
from stridex._core.dtypes import DType


class ShapedArray:
    """What tracing knows about an array: its shape, dtype and whether it is a weak (Python-scalar) type."""

    __slots__ = ("dtype", "shape", "weak_type")

    def __init__(self, shape: tuple, dtype: DType, weak_type: bool = False):
        self.shape = shape
        self.dtype = dtype
        self.weak_type = weak_type

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def __eq__(self, other):
        return (isinstance(other, ShapedArray) and self.shape == other.shape
                and self.dtype is other.dtype and self.weak_type == other.weak_type)

    def __hash__(self):
        return hash((self.shape, self.dtype, self.weak_type))

    def __repr__(self):
        return f"{self.dtype.name}[{','.join(map(str, self.shape))}]" + ("{weak}" if self.weak_type else "")




class ShapeDtypeStruct:
    """A shape and a dtype, standing for an array that is not there: what `eval_shape` takes and returns, and how
    `pure_callback` declares its results (JAX's `jax.ShapeDtypeStruct`).

    >>> import stridex as sx
    >>> sx.ShapeDtypeStruct((2, 3), sx.float32)
    ShapeDtypeStruct(shape=(2, 3), dtype=float32)
    """

    __slots__ = ("dtype", "shape", "weak_type")
    shape: tuple[int, ...]
    dtype: DType
    weak_type: bool

    def __init__(self, shape: tuple[int, ...] | list[int], dtype: object, *, weak_type: bool = False) -> None:
        try:
            shape = tuple(operator.index(n) for n in shape)
        except TypeError:
            raise TypeError(f"ShapeDtypeStruct: shape must be a tuple of ints, got {shape!r}") from None
        if any(n < 0 for n in shape):
            raise ValueError(f"ShapeDtypeStruct: shape {shape} has a negative length")
        resolved = _dtypes.as_dtype(dtype)
        if resolved is None:
            try:
                resolved = _dtypes.from_numpy(dtype)  # (a NumPy or JAX dtype, or its name)
            except TypeError:
                resolved = None
        if resolved is None:
            raise TypeError(f"ShapeDtypeStruct: {dtype!r} is not a stridex dtype")
        object.__setattr__(self, "shape", shape)
        object.__setattr__(self, "dtype", resolved)
        object.__setattr__(self, "weak_type", bool(weak_type))

    @classmethod
    def of(cls, x: object, what: str) -> ShapeDtypeStruct:
        """`x` as a ShapeDtypeStruct: one as it is, else any object with `shape` and `dtype` (an array of
        stridex, NumPy or JAX); TypeError naming `what` otherwise."""
        if isinstance(x, ShapeDtypeStruct):
            return x
        if hasattr(x, "shape") and hasattr(x, "dtype"):
            return cls(x.shape, x.dtype)
        raise TypeError(f"{what}: expected a ShapeDtypeStruct (or an array), got {type(x).__name__}")

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("a ShapeDtypeStruct is immutable")

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, ShapeDtypeStruct) and self.shape == other.shape and self.dtype is other.dtype
                and self.weak_type == other.weak_type)

    def __hash__(self) -> int:
        return hash((self.shape, self.dtype, self.weak_type))

    def __repr__(self) -> str:
        weak = ", weak_type=True" if self.weak_type else ""
        return f"ShapeDtypeStruct(shape={self.shape}, dtype={self.dtype.name}{weak})"


def aval_of(x) -> ShapedArray:
    """The abstract value of a primitive input: arrays give their shape and dtype (strong); Python scalars
    are weak 0-D values of their default dtype."""
    if isinstance(x, ShapedArray):
        return x
    if isinstance(x, bool):
        return ShapedArray((), _dtypes.bool, True)
    if isinstance(x, int):
        return ShapedArray((), _dtypes.int64, True)
    if isinstance(x, float):
        return ShapedArray((), _dtypes.float64, True)
    if isinstance(x, complex):
        return ShapedArray((), _dtypes.complex128, True)
    return ShapedArray(x.shape, x.dtype, False)


def value_aval(x) -> ShapedArray:
    """What a trace knows of `x`: a tracer's own aval (weak type included), else `aval_of(x)`."""
    if hasattr(type(x), "_aval"):  # tracers carry one (a slot of their class; concrete arrays have none)
        return x._aval
    return aval_of(x)


def promote_avals(*avals: ShapedArray) -> tuple:
    """(dtype, weak) of combining avals: strong types win; weak scalars adapt (NEP 50)."""
    strong = [a.dtype for a in avals if not a.weak_type]
    if strong:
        dtype = _dtypes.result_type_of(*strong)
        for a in avals:
            if a.weak_type:
                dtype = _dtypes.scalar_result_dtype(dtype, _PY_EXAMPLE[a.dtype])
        return dtype, False
    return _dtypes.result_type_of(*[a.dtype for a in avals]), True


_PY_EXAMPLE = {_dtypes.bool: True, _dtypes.int64: 0, _dtypes.float64: 0.0, _dtypes.complex128: 0j}
