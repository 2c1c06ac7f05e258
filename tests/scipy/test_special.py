"""stridex.scipy.special against jax.scipy.special (64-bit types on), float64 and float32: values on inputs with NaN,
±inf, -0.0, the domains' ends and large magnitudes; the compiled special functions bit for bit (eagerly, under jit,
on a device: they run JAX's own lowering); derivatives (grad, jvp) against JAX's, at x = 0 of xlogy too; jit, vmap,
cpu:1; and the errors JAX raises."""

from __future__ import annotations

import numpy as np
import pytest

import stridex as sx
import stridex.scipy.special as S
from tests.jax_reference import DEVICE, assert_close, eps_atol, jax, on_jax, same_bits

JS = pytest.importorskip("jax.scipy.special")
F64, F32 = np.float64, np.float32
BIG = {F64: 1e300, F32: 1e30}

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")  # (see tests/nn/test_nn.py)


def _domain(kind: str, n: int, dtype, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    big = BIG[dtype]
    if kind == "real":
        body = rng.standard_normal(n) * rng.choice([0.1, 1.0, 5.0, 40.0], n)
        special = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 6.0, -6.0, 30.0, -30.0, big, -big, 1e-300]
    elif kind == "unit":  # [0, 1] and around it
        body = rng.uniform(0, 1, n)
        special = [0.0, -0.0, 1.0, 1e-300, 1e-30, 1 - 1e-7, 0.5, np.nan, 2.0, -1.0, np.inf, -np.inf]
    elif kind == "symmetric":  # [-1, 1] and around it
        body = rng.uniform(-1, 1, n)
        special = [0.0, -0.0, 1.0, -1.0, 1 - 1e-7, -1 + 1e-7, np.nan, 2.0, -2.0, np.inf]
    else:  # "gamma": positive, negative, poles
        body = np.concatenate([rng.uniform(0, 30, n // 2), rng.uniform(-8, 0, n - n // 2)])
        special = [0.0, -0.0, -1.0, -2.0, 0.5, 1.0, 2.0, 1e-300, np.nan, np.inf, -np.inf, 1e30, -0.5]
    return np.concatenate([body, special]).astype(dtype)


# name: (stridex call, JAX call, domain, value tolerance (ulps, atol in eps * (1 + |x|)) or "bits", derivative ulps)
UNARY = {
    "erf": (S.erf, JS.erf, "real", "bits", 4),
    "erfc": (S.erfc, JS.erfc, "real", "bits", 4),
    "erfinv": (S.erfinv, JS.erfinv, "symmetric", "bits", 4),
    "gammaln": (S.gammaln, JS.gammaln, "gamma", "bits", 0),
    "digamma": (S.digamma, JS.digamma, "gamma", "bits", 16),
    "ndtri": (S.ndtri, JS.ndtri, "unit", (4, 0), 4096),
    "log_ndtr": (S.log_ndtr, JS.log_ndtr, "real", "bits", 4),
    "log_ndtr_1": (lambda x: S.log_ndtr(x, series_order=1), lambda x: JS.log_ndtr(x, series_order=1), "real", "bits",
                   4),
    "ndtr": (S.ndtr, JS.ndtr, "real", (0, 0), 4),  # (composed of erf, erfc: NumPy keeps subnormals XLA flushes)
    "expit": (S.expit, JS.expit, "real", (4, 0), 16),
    "logit": (S.logit, JS.logit, "unit", (4, 4), 4),
    "entr": (S.entr, JS.entr, "gamma", (4, 4), 4),
}
COMPILED = ["erf", "erfc", "erfinv", "gammaln", "digamma", "log_ndtr", "log_ndtr_1", "ndtri"]  # one primitive each


def _values(name, dtype, n=60, seed=0):
    ours, theirs, domain, tol, _ = UNARY[name]
    x = _domain(domain, n, dtype, seed)
    got = ours(sx.asarray(x, copy=True))
    if tol == "bits":
        same_bits(got, on_jax(theirs, x), name)
    else:
        assert_close(got, on_jax(theirs, x), ulps=tol[0], atol=eps_atol(x, dtype, tol[1]), what=name)
    return x, got


@pytest.mark.parametrize("dtype", [F64, F32], ids=["float64", "float32"])
@pytest.mark.parametrize("name", list(UNARY))
def test_values_against_jax(name, dtype):
    _values(name, dtype)


@pytest.mark.parametrize("size", [3000, 40000])
@pytest.mark.parametrize("name", ["erf", "gammaln", "ndtr", "expit", "ndtri", "entr"])
def test_values_on_both_sides_of_the_thresholds(name, size):
    _, got = _values(name, F64, size, seed=size)
    with sx.fusion(False):
        x = _domain(UNARY[name][2], size, F64, size)
        assert np.asarray(UNARY[name][0](sx.asarray(x, copy=True))).tobytes() == np.asarray(got).tobytes()


@pytest.mark.parametrize("name", COMPILED)
def test_compiled_functions_are_jaxs_bits_under_jit_and_on_a_device(name):
    ours, theirs, domain, *_ = UNARY[name]
    for dtype in (F64, F32):
        x = _domain(domain, 50, dtype, 3)
        eager = ours(sx.asarray(x))
        same_bits(sx.jit(ours)(sx.asarray(x)), np.asarray(eager), f"jit {name}")
        same_bits(sx.jit(ours)(sx.asarray(x)), on_jax(jax.jit(theirs), x), f"jit against jax.jit {name}")
        on_device = ours(sx.asarray(x, device=DEVICE))
        assert on_device.device == DEVICE
        same_bits(on_device.to_device("cpu"), np.asarray(eager), f"{DEVICE} {name}")


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("name", ["erf", "erfc", "erfinv", "gammaln", "digamma"])
def test_compiled_functions_in_half_precision_are_jaxs_bits(name, dtype):
    ours, theirs, domain, *_ = UNARY[name]
    x = _domain(domain, 40, F32, 4)
    half = getattr(sx, dtype)
    got = ours(sx.astype(sx.asarray(x), half))
    assert got.dtype == half
    want = on_jax(lambda v: theirs(v.astype(dtype)), x)
    assert np.asarray(sx.astype(got, sx.float32)).tobytes() == want.astype(np.float32).tobytes()


@pytest.mark.parametrize("name", list(UNARY))
def test_grad_and_jvp_against_jax(name):
    ours, theirs, domain, _, ulps = UNARY[name]
    x = _domain(domain, 40, F64, 5)
    if name == "ndtri":  # (p = 1e-300: the exact derivative against the composition's, ill-conditioned far out)
        x = x[np.abs(x - 0.5) < 0.5 - 1e-200]
    want = on_jax(jax.vmap(jax.grad(theirs)), x)
    got = sx.grad(lambda v: sx.sum(ours(v)))(sx.asarray(x))
    assert_close(got, want, ulps=ulps, atol=eps_atol(x, F64, 4), what=f"grad {name}")
    t = np.random.default_rng(6).standard_normal(x.shape)
    _, tangent = sx.jvp(ours, (sx.asarray(x),), (sx.asarray(t),))
    _, want_tangent = on_jax(lambda a, b: jax.jvp(theirs, (a,), (b,)), x, t)
    assert_close(tangent, want_tangent, ulps=ulps, atol=eps_atol(x, F64, 4), what=f"jvp {name}")
    assert_close(sx.jit(sx.vmap(sx.grad(ours)))(sx.asarray(x)), np.asarray(got), ulps=ulps,
                 atol=eps_atol(x, F64, 4), what=f"jit(vmap(grad)) {name}")


def test_second_derivatives_of_the_gamma_functions_are_jaxs():
    x = np.array([0.5, 1.0, 2.5, 7.0, -0.5, -2.5])
    for ours, theirs in [(S.gammaln, JS.gammaln), (S.digamma, JS.digamma), (S.erf, JS.erf), (S.erfinv, JS.erfinv)]:
        x_ = x / 10 if ours is S.erfinv else x
        want = on_jax(jax.vmap(jax.grad(jax.grad(theirs))), x_)
        assert_close(sx.vmap(sx.grad(sx.grad(ours)))(sx.asarray(x_)), want, ulps=16, what=ours.__name__)


@pytest.mark.parametrize("name", list(UNARY))
def test_vmap_equals_the_loop(name):
    ours = UNARY[name][0]
    x = _domain(UNARY[name][2], 48, F64, 7)[:54].reshape(6, 9)
    got = np.asarray(sx.vmap(ours)(sx.asarray(x)))
    assert got.tobytes() == np.stack([np.asarray(ours(sx.asarray(r))) for r in x]).tobytes()


# --- two arguments: xlogy, xlog1py ---------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [F64, F32], ids=["float64", "float32"])
@pytest.mark.parametrize("name", ["xlogy", "xlog1py"])
def test_xlogy_and_xlog1py_against_jax(name, dtype):
    ours, theirs = getattr(S, name), getattr(JS, name)
    rng = np.random.default_rng(8)
    xs = np.concatenate([rng.standard_normal(30), [0.0, 0.0, 0.0, -0.0, 0.0, 2.0, np.nan, np.inf, 1.0, 0.0]])
    ys = np.concatenate([rng.uniform(-2, 5, 30), [0.0, np.nan, -1.0, 1.0, np.inf, 0.0, 1.0, 2.0, -1.0, -2.0]])
    x, y = xs.astype(dtype), ys.astype(dtype)
    assert_close(ours(sx.asarray(x), sx.asarray(y)), on_jax(theirs, x, y), ulps=4, what=name, signed_zeros=True)
    assert_close(sx.jit(ours)(sx.asarray(x), sx.asarray(y)), on_jax(jax.jit(theirs), x, y), ulps=4, what=f"jit {name}")
    # derivatives: JAX's rule, dx log(y) + dy x / y (NaN or inf at x = y = 0, as JAX's)
    for argnums in (0, 1):
        want = on_jax(jax.vmap(jax.grad(theirs, argnums=argnums)), x, y)
        got = sx.vmap(sx.grad(ours, argnums=argnums))(sx.asarray(x), sx.asarray(y))
        assert_close(got, want, ulps=4, what=f"grad {name} argument {argnums}")
    # broadcasting, scalars and integers promote as jax.numpy's
    assert_close(ours(sx.asarray([[1.0], [2.0]]), 3.0), on_jax(lambda a: theirs(a, 3.0), np.array([[1.0], [2.0]])))
    assert_close(ours(sx.asarray([0, 2]), sx.asarray([0, 3])), on_jax(theirs, np.array([0.0, 2.0]),
                                                                        np.array([0.0, 3.0])))


def test_xlogy_is_zero_at_x_zero_with_the_derivatives_jax_gives():
    assert float(S.xlogy(0.0, 0.0)) == 0.0 and np.isnan(float(S.xlogy(0.0, np.nan)))
    dx, dy = sx.grad(S.xlogy, argnums=(0, 1))(sx.asarray(0.0), sx.asarray(2.0))
    wx, wy = on_jax(jax.grad(JS.xlogy, argnums=(0, 1)), np.float64(0.0), np.float64(2.0))
    assert (float(dx), float(dy)) == (float(wx), float(wy)) == (np.log(2.0), 0.0)
    g = sx.grad(lambda v: S.entr(v))(sx.asarray(1.0))
    assert float(g) == float(on_jax(jax.grad(JS.entr), np.float64(1.0))) == -1.0


# --- logsumexp (its axes, b, return_sign and where: tests/nn/test_nn.py) --------------------------------------


def test_logsumexp_is_jax_scipy_special_logsumexp():
    a = np.random.default_rng(9).standard_normal((3, 4))
    assert_close(S.logsumexp(sx.asarray(a), axis=1), on_jax(lambda v: JS.logsumexp(v, axis=1), a), ulps=4)
    assert sx.nn.logsumexp is S.logsumexp
    b = np.array([1.0, -2.0, 0.5, 0.0])
    assert np.isnan(float(S.logsumexp(sx.asarray(a[0]), b=sx.asarray(-np.abs(b)))))  # a negative sum: NaN
    got = sx.jit(lambda v: S.logsumexp(v, b=sx.asarray(b), return_sign=True))(sx.asarray(a[0]))
    want = on_jax(lambda v: JS.logsumexp(v, b=b, return_sign=True), a[0])
    assert_close(got[0], want[0], ulps=4)
    assert_close(got[1], want[1], ulps=0)


# --- errors -----------------------------------------------------------------------------------------------------


def test_errors_are_jaxs():
    with pytest.raises(TypeError, match="erf does not accept dtype complex128"):
        S.erf(sx.asarray([1j]))
    with pytest.raises(TypeError, match="gammaln requires ndarray or scalar arguments, got list"):
        S.gammaln([1.0])
    with pytest.raises(TypeError, match="x.dtype=int64 is not supported"):
        S.ndtri(sx.asarray([1]))
    with pytest.raises(TypeError, match="x.dtype=float16 is not supported"):
        S.ndtr(sx.asarray([1.0], dtype=sx.float16))
    with pytest.raises(TypeError, match="series_order must be a Python integer"):
        S.log_ndtr(sx.asarray([1.0]), series_order=2.0)
    with pytest.raises(ValueError, match="series_order must be <= 30"):
        S.log_ndtr(sx.asarray([1.0]), series_order=31)
    with pytest.raises(ValueError, match="series_order must be non-negative"):
        S.log_ndtr(sx.asarray([1.0]), series_order=-1)
    with pytest.raises(ValueError, match="entr does not support complex-valued inputs"):
        S.entr(sx.asarray([1j]))
    # integers promote to the default floating dtype, as jax.numpy's promote_args_inexact does
    assert S.erf(sx.asarray([1, 2])).dtype == sx.float64 and S.gammaln(3).dtype == sx.float64
    assert S.erf(sx.asarray([1.0], dtype=sx.float32)).dtype == sx.float32
