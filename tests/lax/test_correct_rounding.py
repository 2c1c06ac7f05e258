"""float32 `/`, `reciprocal` and `sqrt` are correctly rounded on every backend (the standard's Accuracy page).

XLA:CPU's are; a GPU's are not (PTX div.full.f32, an approximate square root), so there the lowering computes
float32 through float64 (`jax_bridge.correctly_rounded_float32`). On a GPU, this whole file checks the route
where it matters: the float64 route's test runs on JAX's default device. A CPU-only run checks both halves: that the
program exported for CUDA takes the float64 route and the one for the CPU does not, and that the float64 route
gives NumPy's correctly rounded results, run here on XLA:CPU, on data with the hard cases (near-halfway
quotients and roots, the extremes of the range, subnormals, zeros, infinities, NaN).
"""

from __future__ import annotations

import os

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import stridex as sx
from stridex._exec.jax_bridge import correctly_rounded_float32, float32_through_float64

RNG = np.random.default_rng(20261127)
DEVICE = os.environ.get("STRIDEX_TEST_DEVICE", "cpu:1")  # a GPU's name on a GPU machine (benchmarks/gpu_check.sh)
F32 = np.finfo(np.float32)


def hard_float32(n: int) -> np.ndarray:
    bits = RNG.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    random_bits = bits.view(np.float32)  # every exponent and NaNs
    ordinary = RNG.standard_normal(n).astype(np.float32)
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, F32.max, -F32.max, F32.tiny, 1.0, 2.0, 3.0, 0.1,
                         1 - 2**-24, 1 + 2**-23], np.float32)
    return normal(np.concatenate([random_bits, ordinary, specials]))


def normal(a: np.ndarray) -> np.ndarray:
    """`a` with subnormals replaced by 1: XLA:CPU reads and writes them as zeros (the standard leaves subnormals
    implementation-defined); this file is about rounding."""
    return np.where((a != 0) & (np.abs(a) < F32.tiny), np.float32(1), a)


def same_bits(got, want) -> np.ndarray:
    """Equal bit for bit, NaN matching NaN; a subnormal result of NumPy's is left out (see `normal`)."""
    subnormal = (want != 0) & (np.abs(want) < F32.tiny)
    return (got.view(np.uint32) == want.view(np.uint32)) | (np.isnan(got) & np.isnan(want)) | subnormal


@pytest.mark.parametrize("name", ["divide", "reciprocal", "sqrt"])
def test_the_float64_route_is_correctly_rounded(name):
    x = hard_float32(20000)
    y = RNG.permutation(x)
    ops = {"divide": (jax.lax.div, (x, y), lambda: x / y),
           "reciprocal": (lambda a: jax.lax.div(jnp.ones_like(a), a), (x,), lambda: np.float32(1) / x),
           "sqrt": (jax.lax.sqrt, (x,), lambda: np.sqrt(x))}
    fn, args, numpy_result = ops[name]
    with np.errstate(all="ignore"), jax.enable_x64(True):
        got = np.asarray(jax.jit(lambda *a: float32_through_float64(fn, *a))(*args))
        want = numpy_result()
    assert got.dtype == np.float32
    same = same_bits(got, want)
    assert same.all(), f"{name}: {np.flatnonzero(~same)[:5]}: {got[~same][:3]} != {want[~same][:3]}"


@pytest.mark.parametrize("platform,routed", [("cuda", True), ("cpu", False)])
def test_only_the_gpu_program_takes_the_float64_route(platform, routed):
    spec = jax.ShapeDtypeStruct((8,), jnp.float32)
    for fn, n in ((jax.lax.sqrt, 1), (jax.lax.div, 2)):
        with jax.enable_x64(True):
            exported = jax.export.export(jax.jit(correctly_rounded_float32(fn)), platforms=[platform])(*[spec] * n)
        text = exported.mlir_module()
        assert ("xf64>" in text) == routed, (platform, fn)
        # (rounded to odd on the bits before the conversion, which LLVM would otherwise narrow: see
        # float32_through_float64)
        assert ("xui64>" in text) == routed, (platform, fn)


@pytest.mark.parametrize("n", [3, 3000])  # (jit's hand-over differs below and above 2048 elements)
def test_stridex_operations_use_it(n):
    x = hard_float32(n)
    with np.errstate(all="ignore"):
        for f, want in ((lambda a: a / a[::-1], x / x[::-1]), (sx.sqrt, np.sqrt(x)), (sx.reciprocal, 1 / x)):
            for device in ("cpu", DEVICE):  # (eager on a JAX device runs the lowering too)
                assert same_bits(np.asarray(f(sx.asarray(x, device=device))), want).all(), device
            assert same_bits(np.asarray(sx.jit(f)(sx.asarray(x))), want).all()


# XLA's algebraic simplifier turns a division by a broadcast or constant divisor into a multiplication by its
# reciprocal: `jax_bridge.ieee_divide` keeps those divisions. Each pattern below, under jit and eagerly on the
# device, against NumPy's correctly rounded results. (Its rewrites of x / sqrt(y), x / exp(y) and (x / y) / z,
# between arrays of one shape, remain: docs/semantics.md.)
DIVISIONS = {
    "by a Python scalar": (lambda x, y: x / 3.7, lambda x, y: x / x.dtype.type(3.7)),
    "by a 0-d array": (lambda x, y: x / y[0], lambda x, y: x / y[0]),
    "by a column": (lambda x, y: sx.reshape(x, (-1, 4)) / sx.reshape(y, (-1, 4))[:, :1],
                    lambda x, y: x.reshape(-1, 4) / y.reshape(-1, 4)[:, :1]),
    "by a row": (lambda x, y: sx.reshape(x, (-1, 4)) / y[:4], lambda x, y: x.reshape(-1, 4) / y[:4]),
    "a Python scalar by an array": (lambda x, y: 3.7 / y, lambda x, y: y.dtype.type(3.7) / y),
    "mean": (lambda x, y: sx.mean(sx.reshape(y, (-1, 8)), axis=1), None),
}


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
@pytest.mark.parametrize("name", list(DIVISIONS))
@pytest.mark.parametrize("n", [1000, 8192])
def test_divisions_stay_divisions_under_jit(name, dtype, n):
    x = (RNG.random(n) * 1000 - 500).astype(dtype)
    y = (RNG.random(n) * 4 + 0.25).astype(dtype)
    f, numpy_result = DIVISIONS[name]
    with np.errstate(all="ignore"):
        if numpy_result is None:  # (a mean: its sum is XLA's, in XLA's order; the division by n is compared)
            sums = np.asarray(sx.jit(lambda v: sx.sum(sx.reshape(v, (-1, 8)), axis=1))(sx.asarray(y)))
            want = sums / sums.dtype.type(8)
        else:
            want = numpy_result(x, y)
            np.testing.assert_array_equal(np.asarray(f(sx.asarray(x), sx.asarray(y))), want, strict=True)
        np.testing.assert_array_equal(np.asarray(sx.jit(f)(sx.asarray(x), sx.asarray(y))), want, strict=True)
        if numpy_result is not None:
            on_device = f(sx.asarray(x, device=DEVICE), sx.asarray(y, device=DEVICE))
            np.testing.assert_array_equal(np.asarray(on_device), want, strict=True)
