"""The `fft` extension against NumPy: values, dtypes (single precision kept), shapes, n/s padding and trimming."""

from __future__ import annotations

import numpy as np
import pytest

import stridex as sx
from stridex._core.storage import ALIGNED_OUTPUT_ELEMENTS
from stridex._lax import fft as P

RNG = np.random.default_rng(7)
NORMS = ["backward", "ortho", "forward"]


def rand(shape, dtype):
    a = RNG.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * RNG.standard_normal(shape)
    return a.astype(dtype)


def check(got, want, dtype):
    g = np.asarray(got)
    assert g.dtype == np.dtype(dtype), (g.dtype, dtype)
    assert g.shape == want.shape, (g.shape, want.shape)
    single = np.dtype(dtype) in (np.float32, np.complex64)
    np.testing.assert_allclose(g, want, rtol=1e-4 if single else 1e-10, atol=1e-4 if single else 1e-10)


@pytest.mark.parametrize("name", ["fft", "ifft"])
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("n,axis", [(None, -1), (3, 0), (9, 1), (1, -1)])
@pytest.mark.parametrize("norm", NORMS)
def test_complex_1d(name, dtype, n, axis, norm):
    x = rand((4, 5, 6), dtype)
    got = getattr(sx.fft, name)(sx.asarray(x), n=n, axis=axis, norm=norm)
    check(got, getattr(np.fft, name)(x, n=n, axis=axis, norm=norm), dtype)


@pytest.mark.parametrize("name,in_dtype,out_dtype", [
    ("rfft", np.float32, np.complex64), ("rfft", np.float64, np.complex128),
    ("ihfft", np.float32, np.complex64), ("ihfft", np.float64, np.complex128),
    ("irfft", np.complex64, np.float32), ("irfft", np.complex128, np.float64),
    ("hfft", np.complex64, np.float32), ("hfft", np.complex128, np.float64),
])
@pytest.mark.parametrize("n,axis", [(None, -1), (3, 0), (8, 1), (7, -1)])
@pytest.mark.parametrize("norm", NORMS)
def test_real_1d(name, in_dtype, out_dtype, n, axis, norm):
    x = rand((4, 5, 6), in_dtype)
    got = getattr(sx.fft, name)(sx.asarray(x), n=n, axis=axis, norm=norm)
    check(got, getattr(np.fft, name)(x, n=n, axis=axis, norm=norm), out_dtype)


@pytest.mark.parametrize("name,in_dtype,out_dtype", [
    ("fftn", np.complex64, np.complex64), ("ifftn", np.complex128, np.complex128),
    ("rfftn", np.float32, np.complex64), ("irfftn", np.complex128, np.float64), ("irfftn", np.complex64, np.float32),
])
@pytest.mark.parametrize("s,axes", [(None, None), (None, (0,)), ((3, 6), (2, 0)), ((5, -1, 2), (1, 2, 0)),
                                    ((2, 3, 4), (0, 1, 2))])
@pytest.mark.parametrize("norm", NORMS)
def test_nd(name, in_dtype, out_dtype, s, axes, norm):
    x = rand((3, 4, 5), in_dtype)
    np_s = None if s is None else tuple(x.shape[a] if n == -1 else n for n, a in zip(s, axes))
    if name == "irfftn" and s is not None and s[-1] == -1:
        np_s = np_s[:-1] + (2 * (x.shape[axes[-1]] - 1),)
    got = getattr(sx.fft, name)(sx.asarray(x), s=s, axes=axes, norm=norm)
    check(got, getattr(np.fft, name)(x, s=np_s, axes=axes, norm=norm), out_dtype)


_ND = [("fftn", np.complex128, np.complex128), ("ifftn", np.complex64, np.complex64),
       ("rfftn", np.float64, np.complex128), ("irfftn", np.complex128, np.float64)]


@pytest.mark.parametrize("name,in_dtype,out_dtype", _ND, ids=[n for n, _, _ in _ND])
@pytest.mark.parametrize("in_shape,s,axes", [
    ((16, 8, 16), (32, 16), (0, 1)),  # every transformed axis grows
    ((16, 8, 16), (8, 32), (1, 0)),  # only the last transformed axis (0) changes
    ((16, 8, 40), (32,), (1,)),  # one axis
    ((16, 8, 32), (16, 12), (0, 1)),  # only the last transformed axis changes
    ((16, 8, 8), (4, 32, 40), (2, 0, 1)),  # trims one axis, pads two
])
def test_fftn_with_s_at_aligned_size_matches_numpy(name, in_dtype, out_dtype, in_shape, s, axes):
    """Results of at least ALIGNED_OUTPUT_ELEMENTS elements take another eager path (an aligned output)."""
    x = rand(in_shape, in_dtype)
    want = getattr(np.fft, name)(x, s=s, axes=axes)
    assert want.size >= ALIGNED_OUTPUT_ELEMENTS
    check(getattr(sx.fft, name)(sx.asarray(x), s=s, axes=axes), want, out_dtype)


@pytest.mark.parametrize("name,in_dtype,out_dtype", [
    ("fft", np.complex128, np.complex128), ("ifft", np.complex64, np.complex64), ("rfft", np.float64, np.complex128),
    ("irfft", np.complex128, np.float64), ("hfft", np.complex128, np.float64), ("ihfft", np.float32, np.complex64)])
@pytest.mark.parametrize("n", [ALIGNED_OUTPUT_ELEMENTS // 4, 2 * ALIGNED_OUTPUT_ELEMENTS + 1])
def test_1d_with_n_at_aligned_size_matches_numpy(name, in_dtype, out_dtype, n):
    x = rand((3, ALIGNED_OUTPUT_ELEMENTS // 2), in_dtype)
    check(getattr(sx.fft, name)(sx.asarray(x), n=n, axis=1), getattr(np.fft, name)(x, n=n, axis=1), out_dtype)


def test_more_than_three_axes_and_views():
    x = rand((2, 3, 2, 3, 2), np.complex128)
    check(sx.fft.fftn(sx.asarray(x)), np.fft.fftn(x), np.complex128)
    v = sx.asarray(x)[:, ::-1, 1]  # a strided, reversed view
    check(sx.fft.ifftn(v, axes=(0, 2, 1)), np.fft.ifftn(np.asarray(v), axes=(0, 2, 1)), np.complex128)


def test_round_trips():
    x = rand((4, 6), np.float64)
    check(sx.fft.irfft(sx.fft.rfft(sx.asarray(x))), x, np.float64)
    check(sx.fft.irfftn(sx.fft.rfftn(sx.asarray(x)), s=x.shape, axes=(0, 1)), x, np.float64)
    c = rand((5,), np.complex64)
    check(sx.fft.ifft(sx.fft.fft(sx.asarray(c), norm="ortho"), norm="ortho"), c, np.complex64)


def test_errors():
    c = sx.asarray(rand((4,), np.complex128))
    r = sx.asarray(rand((4,), np.float64))
    with pytest.raises(TypeError):
        sx.fft.fft(r)  # the spec requires complex input since 2023.12
    with pytest.raises(TypeError):
        sx.fft.rfft(c)
    with pytest.raises(TypeError):
        sx.fft.fft(np.ones(4, complex))
    with pytest.raises(ValueError):
        sx.fft.fft(c, norm="none")
    with pytest.raises(ValueError):
        sx.fft.fft(c, n=0)
    with pytest.raises(IndexError):
        sx.fft.fft(c, axis=1)
    with pytest.raises(ValueError):
        sx.fft.fftn(c, s=(4,))  # s without axes
    with pytest.raises(ValueError):
        sx.fft.fftn(c, s=(4, 4), axes=(0,))
    with pytest.raises(ValueError):
        sx.fft.irfft(sx.asarray(rand((1,), np.complex128)))  # 2 * (1 - 1) = 0 points


@pytest.mark.parametrize("n", [1, 2, 5, 8])
@pytest.mark.parametrize("d", [1.0, 0.25, 3])
@pytest.mark.parametrize("dtype", [None, sx.float32, sx.float64])
def test_freqs(n, d, dtype):
    want_dtype = np.float64 if dtype is None else dtype.np
    check(sx.fft.fftfreq(n, d=d, dtype=dtype), np.fft.fftfreq(n, d).astype(want_dtype), want_dtype)
    check(sx.fft.rfftfreq(n, d=d, dtype=dtype), np.fft.rfftfreq(n, d).astype(want_dtype), want_dtype)


def test_freq_errors():
    with pytest.raises(TypeError):
        sx.fft.fftfreq(4, dtype=sx.int64)
    with pytest.raises(ValueError):
        sx.fft.fftfreq(4, device="tpu:7")
    with pytest.raises(ValueError):
        sx.fft.rfftfreq(0)


@pytest.mark.parametrize("axes", [None, 0, (1,), (0, 1), [-1]])
@pytest.mark.parametrize("shape", [(4, 5), (3, 1)])
def test_shifts(axes, shape):
    x = rand(shape, np.float32)
    np_axes = axes if not isinstance(axes, list) else tuple(axes)
    check(sx.fft.fftshift(sx.asarray(x), axes=axes), np.fft.fftshift(x, axes=np_axes), np.float32)
    check(sx.fft.ifftshift(sx.asarray(x), axes=axes), np.fft.ifftshift(x, axes=np_axes), np.float32)


def test_namespace():
    assert set(sx.fft.__all__) == {"fft", "ifft", "fftn", "ifftn", "rfft", "irfft", "rfftn", "irfftn", "hfft", "ihfft",
                                   "fftfreq", "rfftfreq", "fftshift", "ifftshift"}


# --- lowering -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("norm", NORMS)
def test_lowering_fft(norm):
    pytest.importorskip("jax")
    from tests.lowering_check import check_primitive_lowering as lowered

    c = sx.asarray(rand((3, 4, 5), np.complex128))
    r = sx.asarray(rand((3, 4, 5), np.float32))
    exact = {"rtol": 1e-9, "atol": 1e-12}
    single = {"rtol": 1e-4, "atol": 1e-5}
    lowered(P.fft, c, kind="fft", axes=(2, 0), lengths=(7, 2), norm=norm, **exact)
    lowered(P.fft, c, kind="ifft", axes=(1,), lengths=(3,), norm=norm, **exact)
    lowered(P.fft, r, kind="rfft", axes=(0, 1, 2), lengths=(3, 4, 6), norm=norm, **single)
    lowered(P.fft, c, kind="irfft", axes=(0, 2), lengths=(3, 9), norm=norm, **exact)
    lowered(P.fft, c, kind="hfft", axes=(1,), lengths=(7,), norm=norm, **exact)
    lowered(P.fft, r, kind="ihfft", axes=(1,), lengths=(5,), norm=norm, **single)
    # More than the three axes one lax.fft call takes.
    c5 = sx.asarray(rand((2, 3, 2, 3, 2), np.complex64))
    lowered(P.fft, c5, kind="ifft", axes=(4, 0, 1, 2, 3), lengths=(2, 2, 3, 2, 4), norm=norm, **single)
    lowered(P.fft, c5, kind="irfft", axes=(4, 0, 1, 3), lengths=(2, 2, 3, 4), norm=norm, **single)
    lowered(P.fft, sx.asarray(rand((2, 3, 2, 3), np.float64)), kind="rfft", axes=(3, 0, 1, 2), lengths=(3, 2, 3, 5),
            norm=norm, **exact)


def test_lowering_fftfreq():
    pytest.importorskip("jax")
    from tests.lowering_check import check_primitive_lowering as lowered

    lowered(P.fftfreq, n=7, d=0.3, dtype=sx.float32, real=False)
    lowered(P.fftfreq, n=8, d=2.0, dtype=sx.float64, real=True)


def test_jit_matches_eager():
    pytest.importorskip("jax")
    c = sx.asarray(rand((4, 6), np.complex64))
    r = sx.asarray(rand((4, 6), np.float64))

    def program(c, r):
        return (sx.fft.fft(c, n=5), sx.fft.ifftn(c, s=(3, 8), axes=(1, 0), norm="ortho"), sx.fft.rfftn(r),
                sx.fft.irfft(c, axis=0, norm="forward"), sx.fft.hfft(c, n=9), sx.fft.ihfft(r),
                sx.fft.fftshift(r, axes=0), sx.fft.ifftshift(c), sx.fft.fftfreq(6, d=0.5, dtype=sx.float32),
                sx.fft.rfftfreq(7))

    eager = program(c, r)
    jitted = sx.jit(program)(c, r)
    for e, j in zip(eager, jitted, strict=True):
        e, j = np.asarray(e), np.asarray(j)
        assert e.dtype == j.dtype and e.shape == j.shape
        np.testing.assert_allclose(j, e, rtol=1e-4, atol=1e-5)
