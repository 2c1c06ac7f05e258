"""`stridex.numpy.fft`: jax.numpy.fft's names and signatures over `stridex.fft` (positional `n`/`axis`, `norm=None`
meaning "backward", real and integer inputs promoted to complex where the transform is complex), plus the 2-D
transforms `fft2`, `ifft2`, `rfft2`, `irfft2`.

>>> import stridex.numpy as jnp
>>> jnp.fft.fft(jnp.asarray([1.0, 0.0, 0.0, 0.0]))
Array([1.+0.j, 1.+0.j, 1.+0.j, 1.+0.j])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from stridex import fft as _fft
from stridex._core import dtypes as _d
from stridex._core.array import Array
from stridex.numpy import _args
from stridex.numpy import _dtypes as _jd

__all__ = [
    "fft", "fft2", "fftfreq", "fftn", "fftshift", "hfft", "ifft", "ifft2", "ifftn", "ifftshift", "ihfft", "irfft",
    "irfft2", "irfftn", "rfft", "rfft2", "rfftfreq", "rfftn",
]


def _norm(norm: str | None, fname: str) -> str:
    if norm is None:
        return "backward"
    if norm not in ("backward", "ortho", "forward"):
        raise ValueError(f'fft.{fname}: invalid norm {norm!r}; expected None, "backward", "ortho" or "forward"')
    return norm


def _complex(a, fname: str) -> Array:
    a = _args.array(a, f"fft.{fname}")
    inexact = _jd.TO_INEXACT[a._dtype]
    return _args.cast(a, inexact if inexact.kind == "complex floating" else _d.complex_of(inexact))


def _real(a, fname: str) -> Array:
    a = _args.array(a, f"fft.{fname}")
    if a._dtype.kind == "complex floating":
        raise TypeError(f"fft.{fname} does not support complex input, got {a._dtype.name}")
    return _args.cast(a, _jd.TO_INEXACT[a._dtype])


def fft(a: Any, n: int | None = None, axis: int = -1, norm: str | None = None) -> Array:
    """The 1-D discrete Fourier transform along `axis` (padded or cut to `n` points).

    >>> import stridex.numpy as jnp
    >>> jnp.fft.fft(jnp.asarray([1, 1]))
    Array([2.+0.j, 0.+0.j])
    """
    return _fft.fft(_complex(a, "fft"), n=n, axis=axis, norm=_norm(norm, "fft"))  # type: ignore[arg-type]


def ifft(a: Any, n: int | None = None, axis: int = -1, norm: str | None = None) -> Array:
    """The 1-D inverse discrete Fourier transform along `axis`.

    >>> import stridex.numpy as jnp
    >>> jnp.fft.ifft(jnp.asarray([2.0, 0.0]))
    Array([1.+0.j, 1.+0.j])
    """
    return _fft.ifft(_complex(a, "ifft"), n=n, axis=axis, norm=_norm(norm, "ifft"))  # type: ignore[arg-type]


def rfft(a: Any, n: int | None = None, axis: int = -1, norm: str | None = None) -> Array:
    """The 1-D transform of real input: its n // 2 + 1 non-negative frequency terms.

    >>> import stridex.numpy as jnp
    >>> jnp.fft.rfft(jnp.asarray([1.0, 1.0, 1.0, 1.0]))
    Array([4.+0.j, 0.+0.j, 0.+0.j])
    """
    return _fft.rfft(_real(a, "rfft"), n=n, axis=axis, norm=_norm(norm, "rfft"))  # type: ignore[arg-type]


def irfft(a: Any, n: int | None = None, axis: int = -1, norm: str | None = None) -> Array:
    """The inverse of `rfft`: n real points (default 2 * (m - 1)).

    >>> import stridex.numpy as jnp
    >>> jnp.fft.irfft(jnp.asarray([4.0, 0.0, 0.0]))
    Array([1., 1., 1., 1.])
    """
    return _fft.irfft(_complex(a, "irfft"), n=n, axis=axis, norm=_norm(norm, "irfft"))  # type: ignore[arg-type]


def hfft(a: Any, n: int | None = None, axis: int = -1, norm: str | None = None) -> Array:
    """The transform of a Hermitian-symmetric signal given by its first half: n real points.

    >>> import stridex.numpy as jnp
    >>> jnp.fft.hfft(jnp.asarray([1.0, 0.0, 0.0]))
    Array([1., 1., 1., 1.])
    """
    return _fft.hfft(_complex(a, "hfft"), n=n, axis=axis, norm=_norm(norm, "hfft"))  # type: ignore[arg-type]


def ihfft(a: Any, n: int | None = None, axis: int = -1, norm: str | None = None) -> Array:
    """The inverse of `hfft` for real input.

    >>> import stridex.numpy as jnp
    >>> jnp.fft.ihfft(jnp.asarray([1.0, 1.0, 1.0, 1.0]))
    Array([1.-0.j, 0.-0.j, 0.-0.j])
    """
    return _fft.ihfft(_real(a, "ihfft"), n=n, axis=axis, norm=_norm(norm, "ihfft"))  # type: ignore[arg-type]


def _axes(a: Array, s, axes) -> Sequence[int] | None:
    """NumPy's default axes: all, or the last len(s) when only `s` is given."""
    if axes is None and s is not None:
        return tuple(range(a.ndim - len(s), a.ndim))
    return axes


def fftn(a: Any, s: Sequence[int] | None = None, axes: Sequence[int] | None = None, norm: str | None = None) -> Array:
    """The n-D discrete Fourier transform over `axes` (all, or the last len(s)), each padded or cut to `s`.

    >>> import stridex.numpy as jnp
    >>> jnp.fft.fftn(jnp.ones((2, 2)))
    Array([[4.+0.j, 0.+0.j],
           [0.+0.j, 0.+0.j]])
    """
    a = _complex(a, "fftn")
    return _fft.fftn(a, s=s, axes=_axes(a, s, axes), norm=_norm(norm, "fftn"))  # type: ignore[arg-type]


def ifftn(a: Any, s: Sequence[int] | None = None, axes: Sequence[int] | None = None, norm: str | None = None) -> Array:
    """The n-D inverse discrete Fourier transform over `axes`.

    >>> import stridex.numpy as jnp
    >>> jnp.fft.ifftn(jnp.asarray([[4.0, 0.0], [0.0, 0.0]]))
    Array([[1.+0.j, 1.+0.j],
           [1.+0.j, 1.+0.j]])
    """
    a = _complex(a, "ifftn")
    return _fft.ifftn(a, s=s, axes=_axes(a, s, axes), norm=_norm(norm, "ifftn"))  # type: ignore[arg-type]


def rfftn(a: Any, s: Sequence[int] | None = None, axes: Sequence[int] | None = None, norm: str | None = None) -> Array:
    """The n-D transform of real input (the last axis keeps s[-1] // 2 + 1 terms).

    >>> import stridex.numpy as jnp
    >>> jnp.fft.rfftn(jnp.ones((4, 4))).shape
    (4, 3)
    """
    a = _real(a, "rfftn")
    return _fft.rfftn(a, s=s, axes=_axes(a, s, axes), norm=_norm(norm, "rfftn"))  # type: ignore[arg-type]


def irfftn(a: Any, s: Sequence[int] | None = None, axes: Sequence[int] | None = None, norm: str | None = None) -> Array:
    """The inverse of `rfftn`.

    >>> import stridex.numpy as jnp
    >>> jnp.fft.irfftn(jnp.ones((4, 3))).shape
    (4, 4)
    """
    a = _complex(a, "irfftn")
    return _fft.irfftn(a, s=s, axes=_axes(a, s, axes), norm=_norm(norm, "irfftn"))  # type: ignore[arg-type]


def fft2(a: Any, s: Sequence[int] | None = None, axes: Sequence[int] = (-2, -1), norm: str | None = None) -> Array:
    """The 2-D discrete Fourier transform over `axes` (the last two by default).

    >>> import stridex.numpy as jnp
    >>> jnp.fft.fft2(jnp.ones((2, 2))).shape
    (2, 2)
    """
    return fftn(a, s, axes, norm)


def ifft2(a: Any, s: Sequence[int] | None = None, axes: Sequence[int] = (-2, -1), norm: str | None = None) -> Array:
    """The 2-D inverse discrete Fourier transform over `axes`.

    >>> import stridex.numpy as jnp
    >>> jnp.fft.ifft2(jnp.ones((2, 2))).shape
    (2, 2)
    """
    return ifftn(a, s, axes, norm)


def rfft2(a: Any, s: Sequence[int] | None = None, axes: Sequence[int] = (-2, -1), norm: str | None = None) -> Array:
    """The 2-D transform of real input over `axes`.

    >>> import stridex.numpy as jnp
    >>> jnp.fft.rfft2(jnp.ones((4, 4))).shape
    (4, 3)
    """
    return rfftn(a, s, axes, norm)


def irfft2(a: Any, s: Sequence[int] | None = None, axes: Sequence[int] = (-2, -1), norm: str | None = None) -> Array:
    """The inverse of `rfft2`.

    >>> import stridex.numpy as jnp
    >>> jnp.fft.irfft2(jnp.ones((4, 3))).shape
    (4, 4)
    """
    return irfftn(a, s, axes, norm)


def fftfreq(n: int, d: Any = 1.0, *, dtype: Any = None, device: Any = None) -> Array:
    """The sample frequencies of an n-point transform with sample spacing `d`.

    >>> import stridex.numpy as jnp
    >>> jnp.fft.fftfreq(4, 0.5)
    Array([ 0. ,  0.5, -1. , -0.5])
    """
    return _fft.fftfreq(_args.index(n, "fft.fftfreq", "n"), d=float(d),
                        dtype=_jd.canonical_or_none(dtype, "fft.fftfreq"), device=device)


def rfftfreq(n: int, d: Any = 1.0, *, dtype: Any = None, device: Any = None) -> Array:
    """The sample frequencies of `rfft`'s n // 2 + 1 outputs.

    >>> import stridex.numpy as jnp
    >>> jnp.fft.rfftfreq(4)
    Array([0.  , 0.25, 0.5 ])
    """
    return _fft.rfftfreq(_args.index(n, "fft.rfftfreq", "n"), d=float(d),
                         dtype=_jd.canonical_or_none(dtype, "fft.rfftfreq"), device=device)


def fftshift(x: Any, axes: int | Sequence[int] | None = None) -> Array:
    """The zero-frequency term moved to the centre along `axes` (all when None).

    >>> import stridex.numpy as jnp
    >>> jnp.fft.fftshift(jnp.asarray([0, 1, 2, 3]))
    Array([2, 3, 0, 1])
    """
    return _fft.fftshift(_args.array(x, "fft.fftshift"), axes=axes)


def ifftshift(x: Any, axes: int | Sequence[int] | None = None) -> Array:
    """The inverse of `fftshift`.

    >>> import stridex.numpy as jnp
    >>> jnp.fft.ifftshift(jnp.asarray([2, 3, 0, 1]))
    Array([0, 1, 2, 3])
    """
    return _fft.ifftshift(_args.array(x, "fft.ifftshift"), axes=axes)


_args.place_all(globals(), __all__)  # (each function runs where its arrays live: see stridex.numpy._args.placed)
