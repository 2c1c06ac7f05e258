"""The inspection namespace: `__array_namespace_info__()` (capabilities, devices, default and supported dtypes)."""

from __future__ import annotations

from stridex._core import dtypes as _dtypes
from stridex._core.array import DeviceLike
from stridex._core.device import Device
from stridex._core.dtypes import DType
from stridex._exec import placement as _placement

__all__ = ["__array_namespace_info__"]

# The kinds `dtypes(kind=...)` accepts; "integral" and "numeric" are the spec's unions.
_KIND_DTYPES = {
    "bool": (_dtypes.bool,),
    "signed integer": (_dtypes.int8, _dtypes.int16, _dtypes.int32, _dtypes.int64),
    "unsigned integer": (_dtypes.uint8, _dtypes.uint16, _dtypes.uint32, _dtypes.uint64),
    "integral": _dtypes.INTEGER_DTYPES,
    "real floating": _dtypes.REAL_FLOATING_DTYPES,
    "complex floating": _dtypes.COMPLEX_DTYPES,
    "numeric": _dtypes.NUMERIC_DTYPES,
}


class Info:
    """What `__array_namespace_info__()` returns: stridex's capabilities, devices and dtypes."""

    __slots__ = ()

    def capabilities(self) -> dict[str, bool | int | None]:
        """Boolean indexing and data-dependent shapes run eagerly; NumPy windows cap arrays at 64 dimensions.

        >>> import stridex as sx
        >>> sx.__array_namespace_info__().capabilities()["max dimensions"]
        64
        """
        return {"boolean indexing": True, "data-dependent shapes": True, "max dimensions": 64}

    def default_device(self) -> Device:
        """The device arrays are created on when no `device=` is given: the host (`Device('cpu')`) unless
        `with stridex.default_device(d):` or the environment variable STRIDEX_DEFAULT_DEVICE says otherwise."""
        return _placement.current_default()

    def devices(self) -> tuple[Device, ...]:
        """The devices arrays can be created on: the host, then every JAX device (GPUs, and JAX's CPU devices,
        named "cpu:0", "cpu:1", ...). A tuple, as the 2025.12 standard has it (2024.12 returned a list)."""
        return _placement.devices()

    def default_dtypes(self, *, device: DeviceLike | None = None) -> dict[str, DType]:
        """The default dtypes: float64, complex128, int64, and int64 for indexing.

        >>> import stridex as sx
        >>> sx.__array_namespace_info__().default_dtypes()["indexing"]
        stridex.int64
        """
        _placement.resolve(device)
        return {"real floating": _dtypes.float64, "complex floating": _dtypes.complex128,
                "integral": _dtypes.int64, "indexing": _dtypes.int64}

    def dtypes(self, *, device: DeviceLike | None = None,
               kind: str | tuple[str, ...] | None = None) -> dict[str, DType]:
        """The supported dtypes by canonical name, all 13 or those of `kind` (a kind string or a tuple of them).

        >>> import stridex as sx
        >>> list(sx.__array_namespace_info__().dtypes(kind="real floating"))
        ['float32', 'float64']
        """
        _placement.resolve(device)
        if kind is None:
            chosen = set(_dtypes.ALL_DTYPES)
        else:
            kinds = kind if isinstance(kind, tuple) else (kind,)
            chosen = set()
            for k in kinds:
                if not isinstance(k, str):
                    raise TypeError(f"dtypes(kind=...) takes a kind string or a tuple of them, got {k!r}")
                if k not in _KIND_DTYPES:
                    raise ValueError(f"unknown dtype kind {k!r}; expected one of {sorted(_KIND_DTYPES)}")
                chosen.update(_KIND_DTYPES[k])
        return {d.name: d for d in _dtypes.ALL_DTYPES if d in chosen}

    def __repr__(self) -> str:
        return "stridex.__array_namespace_info__()"


_INFO = Info()


def __array_namespace_info__() -> Info:
    """The inspection utilities of the stridex namespace.

    >>> import stridex as sx
    >>> sx.__array_namespace_info__().default_device()
    Device('cpu')
    """
    return _INFO
