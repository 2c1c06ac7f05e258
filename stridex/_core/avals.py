"""Abstract values: what tracing knows about an array (shape, dtype, weak type), without its data."""

from __future__ import annotations

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
