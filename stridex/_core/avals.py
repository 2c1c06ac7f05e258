"""Abstract values: what tracing knows about an array (shape, dtype, weak type), without its data."""

from __future__ import annotations

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


