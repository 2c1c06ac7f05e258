"""Differential checks of stridex.numpy against jax.numpy: the same call on both, with 64-bit types on in JAX
(stridex's defaults are 64-bit), compared in structure, dtype, shape and values."""

from __future__ import annotations

import numpy as np
import pytest

import stridex as sx
import stridex.numpy as snp

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")

from stridex._exec.jax_bridge import x64  # noqa: E402  (after the skip: the bridge's scope needs JAX)

DTYPES = ["bool", "int8", "uint8", "int32", "int64", "uint64", "float32", "float64", "complex64", "complex128"]
TOLERANCE = {np.dtype("float32"): 2e-6, np.dtype("complex64"): 2e-6, np.dtype("float16"): 2e-3}


def to_stridex(value):
    """NumPy arrays (in lists, tuples, dicts) as stridex arrays; everything else as it is."""
    if isinstance(value, np.ndarray):
        return sx.asarray(value.copy())
    if isinstance(value, (list, tuple)):
        return type(value)(to_stridex(v) for v in value)
    if isinstance(value, dict):
        return {k: to_stridex(v) for k, v in value.items()}
    return value


def to_jax(value):
    if isinstance(value, np.ndarray):
        return jnp.asarray(value)
    if isinstance(value, (list, tuple)):
        return type(value)(to_jax(v) for v in value)
    if isinstance(value, dict):
        return {k: to_jax(v) for k, v in value.items()}
    return value


def assert_same(got, want, rtol=None, atol=None, check_dtype=True, where=""):
    """`got` (stridex results) equals `want` (JAX results): the same nesting, and per array the same dtype,
    shape and values (NaNs equal; float32 within a few ulp unless `rtol`/`atol` say otherwise)."""
    if isinstance(want, (tuple, list)):
        assert isinstance(got, (tuple, list)), f"{where}: got {type(got).__name__}, JAX gives a sequence"
        assert len(got) == len(want), (where, len(got), len(want))
        for i, (g, w) in enumerate(zip(got, want)):
            assert_same(g, w, rtol, atol, check_dtype, f"{where}[{i}]")
        return
    if isinstance(want, np.dtype):  # a dtype: stridex's of the same name
        assert str(got) == str(want), (where, got, want)
        return
    if not hasattr(want, "dtype"):  # a Python value (a shape, a bool)
        assert got == want, (where, got, want)
        return
    assert isinstance(got, sx.Array), f"{where}: got {type(got).__name__}, not a stridex array"
    g, w = np.asarray(got), np.asarray(want)
    if check_dtype:
        assert g.dtype == w.dtype, f"{where}: dtype {g.dtype}, JAX gives {w.dtype}"
    assert g.shape == w.shape, f"{where}: shape {g.shape}, JAX gives {w.shape}"
    if w.dtype.kind in "fc":
        tol = TOLERANCE.get(w.dtype, 1e-12) if rtol is None else rtol
        np.testing.assert_allclose(g, w, rtol=tol, atol=tol if atol is None else atol, equal_nan=True,
                                   err_msg=where)
    else:
        np.testing.assert_array_equal(g, w, err_msg=where)


def compare(name: str, *args, rtol=None, atol=None, check_dtype=True, module="", **kwargs):
    """stridex.numpy.<name>(*args, **kwargs) against jax.numpy.<name>(...) (64-bit), NumPy inputs converted to
    each library's arrays. If JAX raises, stridex must raise an exception of the same class family."""
    ours = snp if not module else getattr(snp, module)
    theirs = jnp if not module else getattr(jnp, module)
    with x64():
        try:
            want = getattr(theirs, name)(*to_jax(args), **to_jax(kwargs))
        except (TypeError, ValueError, NotImplementedError, IndexError) as error:
            with pytest.raises((type(error), TypeError, ValueError)):
                getattr(ours, name)(*to_stridex(args), **to_stridex(kwargs))
            return None
    got = getattr(ours, name)(*to_stridex(args), **to_stridex(kwargs))
    assert_same(got, want, rtol, atol, check_dtype, where=name)
    return got


def sample(dtype, shape=(6,), seed=0, special=True):
    """A NumPy array of `dtype` with ordinary values and, for floating dtypes, NaN, +-inf and -0.0 among them."""
    rng = np.random.default_rng(seed)
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.integers(0, 2, shape).astype(bool)
    if dtype.kind in "iu":
        low = 0 if dtype.kind == "u" else -20
        return rng.integers(low, 20, shape).astype(dtype)
    values = rng.uniform(-3, 3, shape)
    if dtype.kind == "c":
        values = values + 1j * rng.uniform(-3, 3, shape)
    out = values.astype(dtype)
    flat = out.reshape(-1)
    if special and flat.size >= 6:
        flat[:4] = [np.nan, np.inf, -np.inf, -0.0]
    return out
