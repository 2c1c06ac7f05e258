"""The `fft` extension: every transform binds the one `fft` primitive; the shifts compose `roll`.

>>> import stridex as sx
>>> sx.fft.fft(sx.asarray([1 + 0j, 0j, 0j, 0j]))
Array([1.+0.j, 1.+0.j, 1.+0.j, 1.+0.j])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, TypeAlias

from stridex._api import manipulation_functions as _manip
from stridex._core import dtypes as _dtypes
from stridex._core.array import Array, DeviceLike
from stridex._core.dtypes import DType
from stridex._core.view import as_count, normalize_axes, normalize_axis
from stridex._exec import placement as _placement
from stridex._lax import fft as _p
from stridex._lax import ops

__all__ = [
    "fft",
    "fftfreq",
    "fftn",
    "fftshift",
    "hfft",
    "ifft",
    "ifftn",
    "ifftshift",
    "ihfft",
    "irfft",
    "irfftn",
    "rfft",
    "rfftfreq",
    "rfftn",
]

_NORMS = ("backward", "ortho", "forward")
Norm: TypeAlias = Literal["backward", "ortho", "forward"]
_COMPLEX = frozenset(_dtypes.COMPLEX_DTYPES)
_REAL = frozenset(_dtypes.REAL_FLOATING_DTYPES)
_FLOATING = frozenset(_dtypes.FLOATING_DTYPES)


def _check(name: str, x, allowed: frozenset, category: str, norm) -> None:
    if not isinstance(x, Array):
        raise TypeError(f"fft.{name} expects an array, got {type(x).__name__}")
    if x._dtype not in allowed:
        # Note: since 2023.12 the spec requires complex input for the complex transforms (NumPy also
        # accepts real input) and real floating-point input for rfft/rfftn/ihfft.
        raise TypeError(f"fft.{name} requires a {category} dtype, got {x._dtype.name}")
    if norm not in _NORMS:
        raise ValueError(f"fft.{name}: norm must be one of {_NORMS}, got {norm!r}")


def _length(name: str, n) -> int:
    return as_count(n, f"fft.{name}: the number of transform points n", minimum=1)


def _one_axis(name: str, x: Array, n, axis, norm, kind: str, allowed, category, output_n: bool) -> Array:
    """The 1-D transforms. `output_n`: `n` counts output points (irfft, hfft), default 2 * (M - 1)."""
    _check(name, x, allowed, category, norm)
    axis = normalize_axis(axis, x.ndim)
    if n is None:
        n = 2 * (x.shape[axis] - 1) if output_n else x.shape[axis]
    n = _length(name, n)
    return _p.fft.bind(x, kind=kind, axes=(axis,), lengths=(n,), norm=norm)


def _many_axes(name: str, x: Array, s, axes, norm, kind: str, allowed, category) -> Array:
    """fftn, ifftn, rfftn: `s` (input sizes, -1 meaning "as is") along `axes` (all axes when None)."""
    _check(name, x, allowed, category, norm)
    if axes is None:
        if s is not None:
            raise ValueError(f"fft.{name}: when s is given, axes must be given too (the spec requires both)")
        axes = tuple(range(x.ndim))
    else:
        axes = normalize_axes(tuple(axes), x.ndim)
    if s is None:
        s = [x.shape[a] for a in axes]
    else:
        s = list(s)
        if len(s) != len(axes):
            raise ValueError(f"fft.{name}: s {tuple(s)} and axes {axes} differ in length")
        s = [x.shape[a] if size == -1 else size for size, a in zip(s, axes)]
    if not axes:
        if kind == "rfft":
            raise ValueError(f"fft.{name} requires at least one axis, got axes=()")
        return ops.copy(x)
    lengths = tuple(_length(name, size) for size in s)
    return _p.fft.bind(x, kind=kind, axes=axes, lengths=lengths, norm=norm)


def fft(x: Array, /, *, n: int | None = None, axis: int = -1, norm: Norm = "backward") -> Array:
    """1-D discrete Fourier transform along `axis` (zero-padded or trimmed to `n` points).

    >>> import stridex as sx
    >>> sx.fft.fft(sx.asarray([1j, 1j])).shape
    (2,)
    """
    return _one_axis("fft", x, n, axis, norm, "fft", _COMPLEX, "complex floating-point", False)


def ifft(x: Array, /, *, n: int | None = None, axis: int = -1, norm: Norm = "backward") -> Array:
    """1-D inverse discrete Fourier transform along `axis`.

    >>> import stridex as sx
    >>> sx.fft.ifft(sx.asarray([2 + 0j, 0j]))
    Array([1.+0.j, 1.+0.j])
    """
    return _one_axis("ifft", x, n, axis, norm, "ifft", _COMPLEX, "complex floating-point", False)


def rfft(x: Array, /, *, n: int | None = None, axis: int = -1, norm: Norm = "backward") -> Array:
    """1-D transform of real input: the n // 2 + 1 non-negative-frequency terms.

    >>> import stridex as sx
    >>> sx.fft.rfft(sx.asarray([1.0, 1.0, 1.0, 1.0]))
    Array([4.+0.j, 0.+0.j, 0.+0.j])
    """
    return _one_axis("rfft", x, n, axis, norm, "rfft", _REAL, "real floating-point", False)


def irfft(x: Array, /, *, n: int | None = None, axis: int = -1, norm: Norm = "backward") -> Array:
    """Inverse of `rfft`: `n` real output points (default 2 * (M - 1)) from M Hermitian half-spectrum terms.

    >>> import stridex as sx
    >>> sx.fft.irfft(sx.asarray([4 + 0j, 0j, 0j]))
    Array([1., 1., 1., 1.])
    """
    return _one_axis("irfft", x, n, axis, norm, "irfft", _COMPLEX, "complex floating-point", True)


def hfft(x: Array, /, *, n: int | None = None, axis: int = -1, norm: Norm = "backward") -> Array:
    """Transform of a Hermitian-symmetric signal given by its first half: `n` real outputs (default 2 * (M - 1)).

    >>> import stridex as sx
    >>> sx.fft.hfft(sx.asarray([1 + 0j, 0j, 0j]))
    Array([1., 1., 1., 1.])
    """
    return _one_axis("hfft", x, n, axis, norm, "hfft", _COMPLEX, "complex floating-point", True)


def ihfft(x: Array, /, *, n: int | None = None, axis: int = -1, norm: Norm = "backward") -> Array:
    """Inverse of `hfft` for real input: the n // 2 + 1 terms of a Hermitian spectrum.

    >>> import stridex as sx
    >>> sx.fft.ihfft(sx.asarray([1.0, 1.0, 1.0, 1.0]))
    Array([1.-0.j, 0.-0.j, 0.-0.j])
    """
    return _one_axis("ihfft", x, n, axis, norm, "ihfft", _REAL, "real floating-point", False)


def fftn(x: Array, /, *, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
         norm: Norm = "backward") -> Array:
    """n-D discrete Fourier transform over `axes` (all when None), each padded/trimmed to `s`.

    >>> import stridex as sx
    >>> sx.fft.fftn(sx.ones((2, 3), dtype=sx.complex64)).dtype
    stridex.complex64
    """
    return _many_axes("fftn", x, s, axes, norm, "fft", _COMPLEX, "complex floating-point")


def ifftn(x: Array, /, *, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
          norm: Norm = "backward") -> Array:
    """n-D inverse discrete Fourier transform over `axes`.

    >>> import stridex as sx
    >>> sx.fft.ifftn(sx.ones((2, 2), dtype=sx.complex128)).shape
    (2, 2)
    """
    return _many_axes("ifftn", x, s, axes, norm, "ifft", _COMPLEX, "complex floating-point")


def rfftn(x: Array, /, *, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
          norm: Norm = "backward") -> Array:
    """n-D transform of real input; the last transformed axis keeps s[-1] // 2 + 1 terms.

    >>> import stridex as sx
    >>> sx.fft.rfftn(sx.ones((4, 4))).shape
    (4, 3)
    """
    return _many_axes("rfftn", x, s, axes, norm, "rfft", _REAL, "real floating-point")


def irfftn(x: Array, /, *, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
           norm: Norm = "backward") -> Array:
    """Inverse of `rfftn`: real output of sizes `s` (the last defaulting to 2 * (M - 1)).

    >>> import stridex as sx
    >>> sx.fft.irfftn(sx.ones((4, 3), dtype=sx.complex128)).shape
    (4, 4)
    """
    _check("irfftn", x, _COMPLEX, "complex floating-point", norm)
    if axes is None:
        if s is not None:
            raise ValueError("fft.irfftn: when s is given, axes must be given too (the spec requires both)")
        axes = tuple(range(x.ndim))
    else:
        axes = normalize_axes(tuple(axes), x.ndim)
    if not axes:
        raise ValueError("fft.irfftn requires at least one axis, got axes=()")
    if s is None:
        s = [x.shape[a] for a in axes[:-1]] + [2 * (x.shape[axes[-1]] - 1)]
    else:
        s = list(s)
        if len(s) != len(axes):
            raise ValueError(f"fft.irfftn: s {tuple(s)} and axes {axes} differ in length")
        s = [x.shape[a] if size == -1 else size for size, a in zip(s[:-1], axes[:-1])] + [
            2 * (x.shape[axes[-1]] - 1) if s[-1] == -1 else s[-1]]
    lengths = tuple(_length("irfftn", size) for size in s)
    return _p.fft.bind(x, kind="irfft", axes=axes, lengths=lengths, norm=norm)


# --- frequencies and shifts -------------------------------------------------------------------------------


def _freq(name: str, n, d, dtype, device, real: bool) -> Array:
    target = _placement.resolve(device)
    n = _length(name, n)
    if dtype is None:
        dtype = _dtypes.float64
    elif not isinstance(dtype, DType) or dtype not in _REAL:
        raise TypeError(f"fft.{name}: dtype must be a real floating-point dtype, got {dtype!r}")
    if isinstance(d, bool) or not isinstance(d, (int, float)):
        raise TypeError(f"fft.{name}: d must be a real number, got {type(d).__name__}")
    with _placement.default_device(target):  # (fftfreq takes no array: it is made on the default device)
        return _p.fftfreq.bind(n=n, d=float(d), dtype=dtype, real=real)


def fftfreq(n: int, /, *, d: float = 1.0, dtype: DType | None = None, device: DeviceLike | None = None) -> Array:
    """Sample frequencies of an n-point transform with sample spacing `d`: [0, 1, ..., -1] / (d * n).

    >>> import stridex as sx
    >>> sx.fft.fftfreq(4)
    Array([ 0.  ,  0.25, -0.5 , -0.25])
    """
    return _freq("fftfreq", n, d, dtype, device, False)


def rfftfreq(n: int, /, *, d: float = 1.0, dtype: DType | None = None, device: DeviceLike | None = None) -> Array:
    """Sample frequencies of `rfft`'s n // 2 + 1 outputs (the Nyquist term counted positive).

    >>> import stridex as sx
    >>> sx.fft.rfftfreq(4)
    Array([0.  , 0.25, 0.5 ])
    """
    return _freq("rfftfreq", n, d, dtype, device, True)


def _shift(name: str, x, axes, sign: int) -> Array:
    if not isinstance(x, Array):
        raise TypeError(f"fft.{name} expects an array, got {type(x).__name__}")
    axes = normalize_axes(axes if axes is None or isinstance(axes, int) else tuple(axes), x.ndim)
    if not axes:
        return ops.copy(x)
    shifts = tuple(sign * (x.shape[a] // 2) for a in axes)
    return _manip.roll(x, shifts, axis=axes)


def fftshift(x: Array, /, *, axes: int | Sequence[int] | None = None) -> Array:
    """Move the zero-frequency term to the centre along `axes` (all when None).

    >>> import stridex as sx
    >>> sx.fft.fftshift(sx.fft.fftfreq(4))
    Array([-0.5 , -0.25,  0.  ,  0.25])
    """
    return _shift("fftshift", x, axes, 1)


def ifftshift(x: Array, /, *, axes: int | Sequence[int] | None = None) -> Array:
    """Inverse of `fftshift` (they differ by one sample for odd lengths).

    >>> import stridex as sx
    >>> sx.fft.ifftshift(sx.fft.fftshift(sx.fft.fftfreq(5)))
    Array([ 0. ,  0.2,  0.4, -0.4, -0.2])
    """
    return _shift("ifftshift", x, axes, -1)
