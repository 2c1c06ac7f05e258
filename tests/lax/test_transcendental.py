"""Derivatives of the transcendental functions: finite differences, JAX, vmap loops, higher order."""

from __future__ import annotations

import numpy as np
import pytest

import stridex as sx
from tests.autodiff_check import check_batch, check_grads

jax = pytest.importorskip("jax")
jnp = jax.numpy

# (function, a safe input domain (low, high)) for each unary function
UNARY = {
    "sin": (-3, 3), "cos": (-3, 3), "tan": (-1.2, 1.2), "asin": (-0.9, 0.9), "acos": (-0.9, 0.9),
    "atan": (-3, 3), "sinh": (-2, 2), "cosh": (-2, 2), "tanh": (-2, 2), "asinh": (-3, 3),
    "acosh": (1.2, 4), "atanh": (-0.9, 0.9), "exp": (-2, 2), "expm1": (-2, 2), "log": (0.2, 4),
    "log1p": (-0.7, 3), "log2": (0.2, 4), "log10": (0.2, 4), "sqrt": (0.2, 4),
}
BINARY = {"atan2": ((-2, 2), (0.3, 2)), "hypot": ((0.2, 2), (-2, 2)), "logaddexp": ((-2, 2), (-2, 2)),
          "pow": ((0.3, 2), (-2, 2))}


def sample(low, high, shape, seed):
    return np.random.default_rng(seed).uniform(low, high, shape)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_derivatives(name):
    f = getattr(sx, name)
    x = sample(*UNARY[name], (5,), seed=len(name))
    check_grads(f, [x], rtol=1e-5, atol=1e-7)
    with jax.enable_x64(True):
        jax_name = {"asin": "arcsin", "acos": "arccos", "atan": "arctan", "asinh": "arcsinh",
                    "acosh": "arccosh", "atanh": "arctanh"}.get(name, name)
        want = jax.grad(lambda v: jnp.sum(getattr(jnp, jax_name)(v)))(jnp.asarray(x))
    np.testing.assert_allclose(np.asarray(sx.grad(lambda v: sx.sum(f(v)))(sx.asarray(x))), np.asarray(want),
                               rtol=1e-10)
    check_batch(f, [sx.asarray(x.reshape(5, 1))])


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_derivatives(name):
    f = getattr(sx, name)
    (lo1, hi1), (lo2, hi2) = BINARY[name]
    x1, x2 = sample(lo1, hi1, (4,), 1), sample(lo2, hi2, (4,), 2)
    check_grads(f, [x1, x2], rtol=1e-5, atol=1e-7)
    check_batch(f, [sx.asarray(x1), sx.asarray(x2)])
    check_batch(f, [sx.asarray(x1), sx.asarray(x2)], in_axes=(0, None))


def test_pow_edge_conventions():
    """d/dx x**y is 0 where y == 0 (x**0 is constant; JAX gives NaN at x = y = 0), d/dy is 0 where x == 0."""
    x, y = np.array([0.0, 2.0, 0.0]), np.array([0.0, 0.0, 2.0])
    g = sx.grad(lambda a, b: sx.sum(sx.pow(a, b)), argnums=(0, 1))(sx.asarray(x), sx.asarray(y))
    with jax.enable_x64(True):
        want = jax.grad(lambda a, b: jnp.sum(a ** b), argnums=(0, 1))(jnp.asarray(x), jnp.asarray(y))
    np.testing.assert_allclose(np.asarray(g[0]), [0.0, 0.0, 0.0])
    np.testing.assert_allclose(np.asarray(g[0])[1:], np.asarray(want[0])[1:])
    np.testing.assert_allclose(np.asarray(g[1]), np.asarray(want[1]))


def test_higher_order_and_jit():
    f = lambda t: sx.sum(sx.exp(sx.sin(t)) * sx.log1p(t * t))
    x = sx.asarray([0.3, -0.8])
    d2 = sx.jacfwd(sx.grad(f))(x)
    with jax.enable_x64(True):
        jf = lambda t: jnp.sum(jnp.exp(jnp.sin(t)) * jnp.log1p(t * t))
        want = jax.hessian(jf)(jnp.asarray([0.3, -0.8]))
    np.testing.assert_allclose(np.asarray(d2), np.asarray(want), rtol=1e-10)
    np.testing.assert_allclose(np.asarray(sx.jit(sx.grad(f))(x)), np.asarray(sx.grad(f)(x)), rtol=1e-12)


def test_complex_derivatives_are_holomorphic_transposes():
    z = sx.asarray(np.array([0.3 + 0.4j, -0.2 + 0.1j]))
    t = sx.asarray(np.array([1.0 + 0.5j, -0.3 + 0.2j]))
    _, tangent = sx.jvp(sx.exp, (z,), (t,))
    np.testing.assert_allclose(np.asarray(tangent), np.exp(np.asarray(z)) * np.asarray(t))
    _, pullback = sx.vjp(sx.sin, z)
    np.testing.assert_allclose(np.asarray(pullback(t)[0]), np.cos(np.asarray(z)) * np.asarray(t))


NEAR_BRANCH_POINTS = [5.495305939359671e-30 + 1j, -1e-30 - 1j, 1e-30 + 1j, 1e-10 + 1j, 1 + 1e-30j, 1 - 1e-30j,
                      -1 + 1e-25j, 1 + 1e-20j, 0.999999 + 1e-20j, 1.000001 + 1e-30j, 1e-200 + 1j, 1 + 1e-160j,
                      0.3 + 0.2j, 2 + 0j]


@pytest.mark.parametrize("device", ["cpu", "cpu:1"])
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("name", ["atan", "atanh"])
def test_complex_atan_and_atanh_near_their_branch_points_under_jit(name, dtype, device):
    """Within sqrt(tiny) of ±1 (atanh) or ±i (atan), XLA's real part of atanh squared |1 - z| to 0 and gave inf:
    atan(5.5e-30 + 1j) was +inf + 0.785j in complex64 under jit (the conformance suite's test_atan at 100
    examples). Compiled, on the host and on a device, it is NumPy's value in complex128 rounded, to float32's or
    float64's precision."""
    values = np.array(NEAR_BRANCH_POINTS, dtype)
    with np.errstate(divide="ignore"):  # (complex64 rounds 1e-200 + 1j to 1j: atan's pole, inf)
        want = getattr(np, "arc" + name[1:])(values.astype(np.complex128))
    x = sx.asarray(values, device=device)
    got = np.asarray(sx.jit(getattr(sx, name))(x)).astype(np.complex128)
    rtol = 1e-5 if dtype is np.complex64 else 1e-13
    for part in (np.real, np.imag):
        finite = np.isfinite(part(want))
        assert np.array_equal(np.isfinite(part(got)), finite), (values, got, want)
        np.testing.assert_allclose(part(got)[finite], part(want)[finite], rtol=rtol, atol=0)
