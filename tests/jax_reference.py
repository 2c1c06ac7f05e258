"""Comparing stridex with JAX for the functions with JAX's names (stridex.nn, stridex.scipy.special): JAX runs with
64-bit types on (as stridex's lowering does), and values agree within a few units in the last place, special values
(NaN, infinities) exactly.

Why ulps and not bits: eagerly stridex computes with NumPy's kernels (exp, log1p, tanh), which round otherwise than
XLA's in the last bit or two (XLA's float64 log1p is 128 ulp off near -0.41), and composed functions amplify that
where they cancel (gelu's 1 + tanh(u) for large negative x): `atol` (a multiple of eps times 1 + |x|) covers those.
XLA also flushes float32 subnormal results to zero, which NumPy keeps: a result below the smallest normal number
matches a zero."""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy

DEVICE = "cpu:1"  # a JAX device standing in for an accelerator (tests/conftest.py makes four CPU devices)


def on_jax(fn, *args, **kwargs):
    """`fn(*args, **kwargs)` with 64-bit types on, NumPy arrays in and out (a tuple stays a tuple)."""
    with jax.enable_x64(True):
        out = fn(*[jnp.asarray(a) if isinstance(a, np.ndarray) else a for a in args], **kwargs)
        if isinstance(out, tuple):
            return tuple(np.asarray(o) for o in out)
        return np.asarray(out)


def _is_floating(dtype) -> bool:
    return dtype.kind in "fc" or dtype.name == "bfloat16"


def ulp(values: np.ndarray, dtype) -> np.ndarray:
    """One unit in the last place of `values` (float64 holding values of `dtype`, a floating dtype of any width)."""
    info = jnp.finfo(dtype)
    _, exponent = np.frexp(np.abs(values))
    return np.maximum(np.ldexp(float(info.eps), exponent - 1), float(info.smallest_subnormal))


def assert_close(got, want, *, ulps: int = 4, atol=0.0, what: str = "", signed_zeros: bool = False) -> None:
    """`got` (a stridex or NumPy array) equals `want` in dtype and shape; NaN where `want` is NaN, the same infinities,
    and every finite value within `ulps` units in the last place of `want` plus `atol` (a number, or an array of
    `want`'s shape). Results below the smallest normal number match zero (XLA's flushed subnormals)."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype}, expected {want.dtype}"
    assert got.shape == want.shape, f"{what}: shape {got.shape}, expected {want.shape}"
    if not _is_floating(want.dtype):
        np.testing.assert_array_equal(got, want, err_msg=what)
        return
    if want.dtype.kind == "c":
        assert_close(got.real, want.real, ulps=ulps, atol=atol, what=f"{what} (real part)")
        assert_close(got.imag, want.imag, ulps=ulps, atol=atol, what=f"{what} (imaginary part)")
        return
    dtype = want.dtype
    g, w = got.astype(np.float64).reshape(-1), want.astype(np.float64).reshape(-1)
    atol = np.broadcast_to(np.asarray(atol, dtype=np.float64), want.shape).reshape(-1)
    nan = np.isnan(w)
    assert np.array_equal(np.isnan(g), nan), f"{what}: NaN differs at {np.flatnonzero(np.isnan(g) != nan)}: " \
        f"got {g[np.isnan(g) != nan]}, expected {w[np.isnan(g) != nan]}"
    infinite = (np.isinf(w) | np.isinf(g)) & ~nan
    wrong = infinite & (g != w)
    assert not wrong.any(), f"{what}: infinities differ at {np.flatnonzero(wrong)}: got {g[wrong]}, expected {w[wrong]}"
    finite = ~nan & ~infinite
    tiny = float(jnp.finfo(dtype).tiny)
    allowed = ulps * ulp(w[finite], dtype) + atol[finite]
    error = np.abs(g[finite] - w[finite])
    flushed = (np.abs(g[finite]) < tiny) & (np.abs(w[finite]) < tiny)
    far = (error > allowed) & ~flushed
    assert not far.any(), f"{what}: {int(far.sum())} of {far.size} values apart by more than {ulps} ulp + atol: " \
        f"got {g[finite][far][:5]}, expected {w[finite][far][:5]} (error {error[far][:5]}, allowed {allowed[far][:5]})"
    if signed_zeros:
        zero = finite & (w == 0) & (g == 0)
        assert np.array_equal(np.signbit(g[zero]), np.signbit(w[zero])), f"{what}: signs of zeros differ"


def eps_atol(x, dtype, k: float):
    """`k` eps of `dtype` times 1 + |x|: the absolute error of a result that cancels terms of the size of x."""
    x = np.asarray(x, dtype=np.float64)
    scale = np.where(np.isfinite(x), 1.0 + np.abs(x), 1.0)
    return k * float(jnp.finfo(dtype).eps) * scale


def same_bits(got, want, what: str = "") -> None:
    """Bit for bit: dtype, shape and every value (NaNs in place)."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (what, got.dtype, want.dtype, got.shape, want.shape)
    assert got.tobytes() == want.tobytes(), f"{what}: differ at {np.flatnonzero(got.reshape(-1) != want.reshape(-1))}"
