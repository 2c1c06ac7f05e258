"""stridex.nn against jax.nn (64-bit types on, float64 and float32): values on inputs with NaN, ±inf, -0.0, kinks and
large magnitudes, on both sides of the aligned-output (2048) and fusion (32768) thresholds; derivatives (grad, jvp,
second derivatives at the kinks) against JAX's; sx.jit against jax.jit and against eager; sx.vmap against a loop; and
on a JAX device (cpu:1). Then the normalisers' axes, masks and -inf rows, one_hot, and the errors."""

from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import pytest

import stridex as sx
from stridex._exec import fusion
from stridex._exec.fusion import limits
from tests.jax_reference import DEVICE, assert_close, eps_atol, jax, jnp, on_jax

# The elementwise activations warn where the NumPy operations of their expressions do (as the same expression in
# stridex's functions would): gelu(-inf) multiplies -inf by 0. JAX never warns; docs/nn.md says so.
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

JNN = jax.nn
F64, F32 = np.float64, np.float32
BIG = {F64: 1e300, F32: 1e30}


def inputs(n: int, dtype, kinks=(), seed: int = 0) -> np.ndarray:
    """n values: random normal ones of a few scales, then NaN, ±inf, ±0, ±1, the kinks and huge ones."""
    rng = np.random.default_rng(seed)
    special = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 30.0, -30.0, 700.0, -700.0, BIG[dtype], -BIG[dtype],
               *kinks]
    body = rng.standard_normal(n - len(special)) * rng.choice([0.1, 1.0, 3.0, 20.0], n - len(special))
    return np.concatenate([body, special]).astype(dtype)


# name: (stridex call, JAX call, kinks, value tolerance (ulps, atol in eps * (1 + |x|)), derivative tolerance)
ELEMENTWISE = {
    "relu": (sx.nn.relu, JNN.relu, (), (0, 0), (0, 0)),
    "relu6": (sx.nn.relu6, JNN.relu6, (6.0, 5.999999), (0, 0), (0, 0)),
    "sigmoid": (sx.nn.sigmoid, JNN.sigmoid, (), (4, 0), (16, 4)),
    "log_sigmoid": (sx.nn.log_sigmoid, JNN.log_sigmoid, (), (4, 4), (16, 4)),
    "softplus": (sx.nn.softplus, JNN.softplus, (), (4, 4), (16, 4)),
    "silu": (sx.nn.silu, JNN.silu, (), (4, 4), (16, 8)),
    "swish": (sx.nn.swish, JNN.swish, (), (4, 4), (16, 8)),
    "gelu": (sx.nn.gelu, JNN.gelu, (), (4, 8), (64, 256)),
    "gelu_exact": (lambda x: sx.nn.gelu(x, approximate=False), lambda x: JNN.gelu(x, approximate=False), (), (0, 0),
                   (32, 8)),
    "elu": (sx.nn.elu, JNN.elu, (), (4, 4), (4, 4)),
    "elu_alpha": (lambda x: sx.nn.elu(x, 0.5), lambda x: JNN.elu(x, 0.5), (), (4, 4), (4, 4)),
    "celu": (lambda x: sx.nn.celu(x, 1.5), lambda x: JNN.celu(x, 1.5), (), (8, 8), (16, 8)),
    "selu": (sx.nn.selu, JNN.selu, (), (8, 4), (8, 4)),
    "leaky_relu": (sx.nn.leaky_relu, JNN.leaky_relu, (), (0, 0), (0, 0)),
    "leaky_relu_slope": (lambda x: sx.nn.leaky_relu(x, 0.2), lambda x: JNN.leaky_relu(x, 0.2), (), (0, 0), (0, 0)),
    "hard_tanh": (sx.nn.hard_tanh, JNN.hard_tanh, (1.0, -1.0, 1.0000001), (0, 0), (0, 0)),
    "soft_sign": (sx.nn.soft_sign, JNN.soft_sign, (), (2, 0), (8, 4)),
    "hard_sigmoid": (sx.nn.hard_sigmoid, JNN.hard_sigmoid, (-3.0, 3.0), (2, 0), (2, 0)),
    "hard_silu": (sx.nn.hard_silu, JNN.hard_silu, (-3.0, 3.0), (4, 4), (64, 8)),
    "mish": (sx.nn.mish, JNN.mish, (), (8, 8), (64, 16)),
    "squareplus": (sx.nn.squareplus, JNN.squareplus, (), (4, 128), (64, 256)),
    "identity": (sx.nn.identity, JNN.identity, (), (0, 0), (0, 0)),
}
NAMES = list(ELEMENTWISE)


def _tolerance(spec, x, dtype):
    ulps, k = spec
    return {"ulps": ulps, "atol": eps_atol(x, dtype, k)}


def _check_values(name, x, dtype, what):
    ours, theirs, _, tol, _ = ELEMENTWISE[name]
    got = ours(sx.asarray(x, copy=True))  # (an array stridex owns: eager fusion may defer work on it)
    assert_close(got, on_jax(theirs, x), **_tolerance(tol, x, dtype), what=f"{name} {what}")
    return got


# --- values ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [F64, F32], ids=["float64", "float32"])
@pytest.mark.parametrize("name", NAMES)
def test_values_against_jax(name, dtype):
    x = inputs(64, dtype, ELEMENTWISE[name][2])
    _check_values(name, x, dtype, dtype.__name__)


@pytest.mark.parametrize("size", [3000, 40000, 100000])
@pytest.mark.parametrize("name", ["relu", "sigmoid", "gelu", "gelu_exact", "silu", "elu", "softplus", "mish"])
def test_values_on_both_sides_of_the_thresholds_and_fused_equals_unfused(name, size):
    # 3000: above the aligned-output threshold (2048), run at once; 40000: deferred and fused in one thread
    # (DEFER_MIN_ELEMENTS = 32768); 100000: a pass shared by threads (THREADED_MIN_ELEMENTS = 49152)
    assert 2048 < 3000 < limits.DEFER_MIN_ELEMENTS <= 40000 < limits.THREADED_MIN_ELEMENTS <= 100000
    x = inputs(size, F64, ELEMENTWISE[name][2], seed=size)
    fused = _check_values(name, x, F64, f"size {size}")
    with sx.fusion(False):
        unfused = ELEMENTWISE[name][0](sx.asarray(x, copy=True))
    assert np.asarray(fused).tobytes() == np.asarray(unfused).tobytes()  # the value rule of eager fusion


def test_the_elementwise_activations_fuse_into_one_pass():
    x = sx.asarray(inputs(40000, F64), copy=True)
    for f in (sx.nn.gelu, sx.nn.silu, sx.nn.elu, sx.nn.mish, sx.nn.sigmoid):
        shown = sx.fusion.pending(f(x))
        assert shown is not None and shown.count("\n") >= 2, (f.__name__, shown)  # several records, one group
    assert "erfc" not in (sx.fusion.pending(sx.nn.gelu(x, approximate=False)) or "")  # (compiled: not deferred)


def test_integers_and_scalars_promote_as_jax_numpy_does():
    ints = np.array([-3, 0, 2, 7])
    assert sx.nn.relu(sx.asarray(ints)).dtype == sx.int64  # (as JAX: max(x, 0) of integers)
    assert_close(sx.nn.relu(sx.asarray(ints)), on_jax(JNN.relu, ints))
    assert sx.nn.relu6(sx.asarray(ints)).dtype == sx.float64  # (min(., 6.0): a weak float with integers)
    for f, g in [(sx.nn.sigmoid, JNN.sigmoid), (sx.nn.gelu, JNN.gelu), (sx.nn.elu, JNN.elu),
                 (sx.nn.softplus, JNN.softplus)]:
        assert_close(f(sx.asarray(ints)), on_jax(g, ints.astype(np.float64)), ulps=4, atol=eps_atol(ints, F64, 8))
    assert_close(sx.nn.sigmoid(2.0), on_jax(JNN.sigmoid, np.float64(2.0)), ulps=4)
    assert_close(sx.nn.softplus(np.float32(3.0)), on_jax(JNN.softplus, np.float32(3.0)), ulps=4)
    assert sx.nn.gelu(sx.asarray([1.0], dtype=sx.float32)).dtype == sx.float32


@pytest.mark.parametrize("dtype", [sx.float16, sx.bfloat16], ids=["float16", "bfloat16"])
@pytest.mark.parametrize("name", ["relu", "sigmoid", "gelu", "gelu_exact", "silu", "softplus", "elu"])
def test_half_precision(name, dtype):
    ours, theirs, *_ = ELEMENTWISE[name]
    x = np.linspace(-6, 6, 97)
    got = ours(sx.astype(sx.asarray(x), dtype))
    assert got.dtype == dtype
    want = on_jax(lambda v: theirs(v.astype(jnp.bfloat16 if dtype is sx.bfloat16 else jnp.float16)), x)
    assert_close(np.asarray(sx.astype(got, sx.float32)), want.astype(np.float32), ulps=0,
                 atol=4 * float(jnp.finfo(want.dtype).eps) * (1 + np.abs(x)), what=name)


# --- derivatives -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [F64, F32], ids=["float64", "float32"])
@pytest.mark.parametrize("name", NAMES)
def test_grad_against_jax(name, dtype):
    ours, theirs, kinks, _, tol = ELEMENTWISE[name]
    x = inputs(48, dtype, kinks, seed=1)
    want = on_jax(jax.vmap(jax.grad(theirs)), x)
    got = sx.grad(lambda v: sx.sum(ours(v)))(sx.asarray(x))
    assert_close(got, want, **_tolerance(tol, x, dtype), what=f"grad {name}")
    assert_close(sx.vmap(sx.grad(ours))(sx.asarray(x)), want, **_tolerance(tol, x, dtype), what=f"vmap(grad) {name}")


@pytest.mark.parametrize("name", NAMES)
def test_jvp_against_jax(name):
    ours, theirs, kinks, _, tol = ELEMENTWISE[name]
    x = inputs(40, F64, kinks, seed=2)
    t = np.random.default_rng(3).standard_normal(x.shape)
    out, tangent = sx.jvp(ours, (sx.asarray(x),), (sx.asarray(t),))
    want_out, want_tangent = on_jax(lambda a, b: jax.jvp(theirs, (a,), (b,)), x, t)
    assert_close(out, want_out, **_tolerance(ELEMENTWISE[name][3], x, F64), what=f"jvp primal {name}")
    assert_close(tangent, want_tangent, **_tolerance(tol, x, F64), what=f"jvp tangent {name}")


def test_derivatives_at_the_kinks_are_jaxs():
    at = sx.asarray([0.0, -0.0, 6.0, 1.0, -1.0, 3.0, -3.0])
    assert list(np.asarray(sx.vmap(sx.grad(sx.nn.relu))(at))) == [0, 0, 1, 1, 0, 1, 0]  # relu'(0) = 0
    assert list(np.asarray(sx.vmap(sx.grad(sx.nn.relu6))(at))) == [0, 0, 0, 1, 0, 1, 0]  # 0 at 0 and 6
    assert list(np.asarray(sx.vmap(sx.grad(sx.nn.hard_tanh))(at))) == [1, 1, 0, 1, 1, 0, 0]  # 1 at ±1 (where)
    assert list(np.asarray(sx.vmap(sx.grad(sx.nn.leaky_relu))(at))) == [1, 1, 1, 1, 0.01, 1, 0.01]
    for f, g in [(sx.nn.relu, JNN.relu), (sx.nn.relu6, JNN.relu6), (sx.nn.hard_tanh, JNN.hard_tanh),
                 (sx.nn.hard_sigmoid, JNN.hard_sigmoid), (sx.nn.celu, JNN.celu), (sx.nn.elu, JNN.elu)]:
        want = on_jax(jax.vmap(jax.grad(g)), np.asarray(at))
        assert_close(sx.vmap(sx.grad(f))(at), want, ulps=2, what=f.__name__)
        # second derivatives: zero at the kinks of the rectifiers (a custom rule's select), JAX's elsewhere
        want2 = on_jax(jax.vmap(jax.grad(jax.grad(g))), np.asarray(at))
        assert_close(sx.vmap(sx.grad(sx.grad(f)))(at), want2, ulps=4, what=f"second derivative of {f.__name__}")


def test_sigmoid_derivative_stays_finite_far_out():
    x = sx.asarray([-1000.0, -750.0, 750.0, 1000.0])
    g = sx.vmap(sx.grad(sx.nn.sigmoid))(x)
    assert np.all(np.asarray(g) == 0.0)  # JAX's rule sigmoid (1 - sigmoid); the formula's own is inf / inf
    assert_close(sx.vmap(sx.grad(sx.nn.silu))(x), on_jax(jax.vmap(jax.grad(JNN.silu)), np.asarray(x)))


# --- jit, vmap, devices ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_jit_against_jax_jit_and_eager(name):
    ours, theirs, kinks, tol, _ = ELEMENTWISE[name]
    x = inputs(64, F64, kinks, seed=4)
    got = sx.jit(ours)(sx.asarray(x))
    assert_close(got, on_jax(jax.jit(theirs), x), **_tolerance(tol, x, F64), what=f"jit {name}")
    assert_close(got, ours(sx.asarray(x)), **_tolerance(tol, x, F64), what=f"jit against eager {name}")
    g = sx.jit(sx.grad(lambda v: sx.sum(ours(v))))(sx.asarray(x))
    assert_close(g, sx.grad(lambda v: sx.sum(ours(v)))(sx.asarray(x)), **_tolerance(ELEMENTWISE[name][4], x, F64),
                 what=f"jit(grad) {name}")


@pytest.mark.parametrize("name", NAMES)
def test_vmap_equals_the_loop(name):
    ours = ELEMENTWISE[name][0]
    x = inputs(60, F64, ELEMENTWISE[name][2], seed=5).reshape(6, 10)
    got = np.asarray(sx.vmap(ours)(sx.asarray(x)))
    rows = np.stack([np.asarray(ours(sx.asarray(row))) for row in x])
    assert got.tobytes() == rows.tobytes()
    got1 = np.asarray(sx.vmap(ours, in_axes=1)(sx.asarray(x)))
    assert got1.tobytes() == np.stack([np.asarray(ours(sx.asarray(col))) for col in x.T]).tobytes()


@pytest.mark.parametrize("name", NAMES)
def test_on_a_device(name):
    ours, _, kinks, tol, _ = ELEMENTWISE[name]
    x = inputs(64, F64, kinks, seed=6)
    got = ours(sx.asarray(x, device=DEVICE))
    assert got.device == DEVICE
    host = ours(sx.asarray(x))
    # (XLA on the device against NumPy on the host: the tolerance of JAX against eager)
    assert_close(np.asarray(got.to_device("cpu")), np.asarray(host), **_tolerance(tol, x, F64), what=name)
    g = sx.grad(lambda v: sx.sum(ours(v)))(sx.asarray(x, device=DEVICE))
    assert g.device == DEVICE


# --- the normalisers ---------------------------------------------------------------------------------------------


def _rows(dtype=F64):
    rng = np.random.default_rng(7)
    x = rng.standard_normal((6, 5)) * 3
    x[1] = -np.inf  # a row of -inf
    x[2, 1] = -np.inf
    x[3, 2] = np.inf
    x[4] = [1e300 if dtype == F64 else 1e30, 0.0, -5.0, 1.0, 2.0]
    x[5, 0] = np.nan
    return x.astype(dtype)


NORMALISERS = {
    "softmax": (sx.nn.softmax, JNN.softmax),
    "log_softmax": (sx.nn.log_softmax, JNN.log_softmax),
    "logsumexp": (sx.nn.logsumexp, JNN.logsumexp),
    "standardize": (sx.nn.standardize, JNN.standardize),
}


@pytest.mark.parametrize("dtype", [F64, F32], ids=["float64", "float32"])
@pytest.mark.parametrize("axis", [-1, 0, (0, 1), None])
@pytest.mark.parametrize("name", list(NORMALISERS))
def test_normalisers_against_jax(name, axis, dtype):
    ours, theirs = NORMALISERS[name]
    x = _rows(dtype)
    if name == "standardize":
        x = np.where(np.isfinite(x) & (np.abs(x) < 1e20), x, 1.5).astype(dtype)
    got = ours(sx.asarray(x), axis=axis)
    atol = eps_atol(np.nan_to_num(x, posinf=0, neginf=0), dtype, 16) if name == "standardize" else 0
    assert_close(got, on_jax(lambda v: theirs(v, axis=axis), x), ulps=8, atol=atol, what=f"{name} axis={axis}")
    assert_close(sx.jit(lambda v: ours(v, axis=axis))(sx.asarray(x)), np.asarray(got), ulps=8, atol=atol,
                 what=f"jit {name}")


@pytest.mark.parametrize("name", list(NORMALISERS))
def test_normaliser_derivatives_against_jax(name):
    ours, theirs = NORMALISERS[name]
    rng = np.random.default_rng(8)
    x = rng.standard_normal((4, 5)) * 3
    x[1, 2] = -np.inf if name != "standardize" else 0.5
    x[2] = [1000.0, 999.0, -1000.0, 0.0, 1000.0]
    w = rng.standard_normal((4, 5))

    def loss_sx(v):
        return sx.sum(sx.where(sx.isfinite(ours(v)), ours(v), 0.0) * sx.asarray(w))

    def loss_jax(v):
        return jnp.sum(jnp.where(jnp.isfinite(theirs(v)), theirs(v), 0.0) * w)

    assert_close(sx.grad(loss_sx)(sx.asarray(x)), on_jax(jax.grad(loss_jax), x), ulps=16, atol=1e-13,
                 what=f"grad {name}")
    t = rng.standard_normal(x.shape)
    _, tangent = sx.jvp(lambda v: ours(v), (sx.asarray(x),), (sx.asarray(t),))
    _, want = on_jax(lambda a, b: jax.jvp(theirs, (a,), (b,)), x, t)
    assert_close(tangent, want, ulps=16, atol=1e-13, what=f"jvp {name}")
    got = sx.vmap(lambda row: ours(row))(sx.asarray(x))
    assert np.asarray(got).tobytes() == np.asarray(ours(sx.asarray(x), axis=-1)).tobytes()


@pytest.mark.parametrize("name", ["softmax", "log_softmax", "logsumexp", "standardize"])
def test_where_masks_against_jax(name):
    ours, theirs = NORMALISERS[name]
    x = np.random.default_rng(9).standard_normal((4, 6)) * 4
    mask = np.random.default_rng(10).random((4, 6)) < 0.6
    mask[0] = False  # a row with nothing selected
    mask[1] = True
    got = ours(sx.asarray(x), where=sx.asarray(mask))
    want = on_jax(lambda v, m: theirs(v, where=m), x, mask)
    if name == "standardize":  # (JAX's masked-out entries are computed from its 0/0 mean too: compare the rest)
        got, want = np.where(mask, np.asarray(got), 0.0), np.where(mask, want, 0.0)
    assert_close(got, want, ulps=8, atol=1e-14, what=f"{name} where=")
    if name != "standardize":
        g = sx.grad(lambda v: sx.sum(sx.where(sx.asarray(mask[1:]), ours(v, where=sx.asarray(mask[1:])), 0.0)))
        want_g = on_jax(jax.grad(lambda v: jnp.sum(jnp.where(mask[1:], theirs(v, where=mask[1:]), 0.0))), x[1:])
        assert_close(g(sx.asarray(x[1:])), want_g, ulps=16, atol=1e-14, what=f"grad {name} where=")


@pytest.mark.parametrize("name", ["softmax", "log_softmax", "logsumexp"])
def test_long_rows_under_jit(name):
    # XLA lowers reductions of 4096 elements and more otherwise (stridex/_lax/statistical.py): rows of 5000
    ours, theirs = NORMALISERS[name]
    x = np.random.default_rng(15).standard_normal((3, 5000)) * 10
    x[1, 7] = -np.inf
    x[2, :] = -np.inf
    got = sx.jit(lambda v: ours(v, axis=-1))(sx.asarray(x))
    # (log_softmax of a row's maximum is -log Σ exp(x - max), small where one element dominates: absolute error)
    atol = eps_atol(np.nan_to_num(x, neginf=0.0), F64, 16) if name == "log_softmax" else 0.0
    assert_close(got, np.asarray(ours(sx.asarray(x), axis=-1)), ulps=16, atol=atol, what=f"jit against eager {name}")
    assert_close(got, on_jax(jax.jit(lambda v: theirs(v, axis=-1)), x), ulps=16, atol=atol,
                 what=f"jit against jax.jit {name}")


def test_softmax_rows_of_infinities_are_jaxs():
    x = np.array([[-np.inf, -np.inf, -np.inf], [0.0, -np.inf, -np.inf], [np.inf, 0.0, 1.0], [1e308, 1e308, -1e308]])
    for ours, theirs in [(sx.nn.softmax, JNN.softmax), (sx.nn.log_softmax, JNN.log_softmax),
                         (sx.nn.logsumexp, JNN.logsumexp)]:
        assert_close(ours(sx.asarray(x), axis=1), on_jax(lambda v: theirs(v, axis=1), x), ulps=2)
    empty = sx.nn.logsumexp(sx.zeros((3, 0)), axis=1)
    assert list(np.asarray(empty)) == [-np.inf] * 3  # (JAX: a sum of nothing)
    assert np.asarray(sx.nn.softmax(sx.zeros((2, 0)))).shape == (2, 0)


def test_logsumexp_b_sign_and_keepdims_against_jax():
    rng = np.random.default_rng(11)
    a = rng.standard_normal((3, 4))
    b = rng.standard_normal((3, 4))
    b[0, 0] = 0.0
    for kwargs in ({"axis": 1}, {"axis": 0, "keepdims": True}, {"axis": None}, {"axis": (0, 1), "keepdims": True}):
        for with_b in (False, True):
            extra = {"b": b} if with_b else {}
            got = sx.nn.logsumexp(sx.asarray(a), **kwargs, **({"b": sx.asarray(b)} if with_b else {}))
            assert_close(got, on_jax(lambda v: JNN.logsumexp(v, **kwargs, **extra), a), ulps=8)
            signed = sx.nn.logsumexp(sx.asarray(a), **kwargs, return_sign=True,
                                     **({"b": sx.asarray(b)} if with_b else {}))
            want = on_jax(lambda v: JNN.logsumexp(v, **kwargs, return_sign=True, **extra), a)
            assert_close(signed[0], want[0], ulps=8)
            assert_close(signed[1], want[1], ulps=0)
    grad = sx.grad(lambda v: sx.nn.logsumexp(v, b=sx.asarray(np.abs(b))))(sx.asarray(a))
    assert_close(grad, on_jax(jax.grad(lambda v: JNN.logsumexp(v, b=np.abs(b))), a), ulps=8)


def test_standardize_given_statistics_and_algorithms():
    x = np.random.default_rng(12).standard_normal((3, 8)) * 5 + 100
    for kwargs in ({"algorithm": "stable"}, {"algorithm": "fast"}, {"epsilon": 0.5}, {"axis": 0}):
        assert_close(sx.nn.standardize(sx.asarray(x), **kwargs), on_jax(lambda v: JNN.standardize(v, **kwargs), x),
                     ulps=16, atol=1e-10)
    mean, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
    got = sx.nn.standardize(sx.asarray(x), mean=sx.asarray(mean), variance=sx.asarray(var))
    assert_close(got, on_jax(lambda v, m, s: JNN.standardize(v, mean=m, variance=s), x, mean, var), ulps=4)
    with pytest.raises(ValueError, match="Unknown algorithm 'exact'"):
        sx.nn.standardize(sx.asarray(x), algorithm="exact")


def test_glu_against_jax():
    x = np.random.default_rng(13).standard_normal((4, 6))
    for axis in (-1, 0, 1):
        assert_close(sx.nn.glu(sx.asarray(x), axis=axis), on_jax(lambda v: JNN.glu(v, axis=axis), x), ulps=4)
    g = sx.grad(lambda v: sx.sum(sx.nn.glu(v)))(sx.asarray(x))
    assert_close(g, on_jax(jax.grad(lambda v: jnp.sum(JNN.glu(v))), x), ulps=8)
    with pytest.raises(ValueError, match="axis 1 must be divisible by 2, got 5"):
        sx.nn.glu(sx.ones((2, 5)))


# --- one_hot -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("axis", [-1, 0, 1, -2])
def test_one_hot_against_jax(axis):
    x = np.array([[0, 2, 5], [-1, 1, 4]])
    got = sx.nn.one_hot(sx.asarray(x), 5, axis=axis)
    assert_close(got, on_jax(lambda v: JNN.one_hot(v, 5, axis=axis), x), ulps=0)
    for dtype, jdtype in [(sx.float32, jnp.float32), (sx.int8, jnp.int8), (sx.bool, jnp.bool_)]:
        assert_close(sx.nn.one_hot(sx.asarray(x), 5, dtype=dtype, axis=axis),
                     on_jax(lambda v: JNN.one_hot(v, 5, dtype=jdtype, axis=axis), x), ulps=0)
    assert sx.jit(lambda v: sx.nn.one_hot(v, 5, axis=axis))(sx.asarray(x)).shape == got.shape


def test_one_hot_dtypes_floats_and_errors():
    assert sx.nn.one_hot(sx.asarray([1]), 3, dtype=np.float32).dtype == sx.float32  # (NumPy's dtype names too)
    with pytest.warns(DeprecationWarning, match="should be integer-typed"):
        got = sx.nn.one_hot(sx.asarray([0.0, 1.5, 2.0]), 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_close(got, on_jax(lambda v: JNN.one_hot(v, 3), np.array([0.0, 1.5, 2.0])), ulps=0)
    with pytest.raises(ValueError, match="axis 3 is out of bounds"):
        sx.nn.one_hot(sx.asarray([1]), 3, axis=3)
    with pytest.raises(TypeError, match="num_classes must be a concrete integer"):
        sx.nn.one_hot(sx.asarray([1]), 3.0)
    got = sx.vmap(lambda v: sx.nn.one_hot(v, 4))(sx.asarray([[0, 1], [2, 3]]))
    assert_close(got, on_jax(lambda v: JNN.one_hot(v, 4), np.array([[0, 1], [2, 3]])), ulps=0)
    assert sx.nn.one_hot(sx.asarray([1, 2], device=DEVICE), 3).device == DEVICE


# --- errors and imports ------------------------------------------------------------------------------------------


def test_bad_arguments_raise_jaxs_errors():
    with pytest.raises(TypeError, match="relu requires ndarray or scalar arguments, got list"):
        sx.nn.relu([1.0, 2.0])
    with pytest.raises(TypeError, match="sigmoid requires ndarray or scalar arguments, got list"):
        sx.nn.sigmoid([1.0])
    with pytest.raises(TypeError, match="complex128"):
        sx.nn.gelu(sx.asarray([1j]))
    with pytest.raises(ValueError, match="axis 2 is out of bounds") as info:
        sx.nn.softmax(sx.ones((2, 3)), axis=2)
    assert isinstance(info.value, IndexError)  # (NumPy's AxisError: JAX's ValueError and the standard's IndexError)
    with pytest.raises(ValueError, match="repeated axis"):
        sx.nn.logsumexp(sx.ones((2, 3)), axis=(0, 0))


def test_imports_as_jax_names_them_without_importing_jax():
    code = ("import sys\nimport stridex as sx\nimport stridex.nn\nfrom stridex import nn\nfrom stridex.nn import relu\n"
            "from stridex.nn.initializers import glorot_normal\nimport stridex.scipy.special\n"
            "assert sx.nn is nn and nn.relu is relu and sx.scipy.special.erf is stridex.scipy.special.erf\n"
            "assert nn.initializers.glorot_normal is glorot_normal\n"
            "relu(sx.asarray([1.0, -1.0])); nn.softmax(sx.ones(3)); nn.sigmoid(sx.ones(3))\n"
            "assert 'jax' not in sys.modules, 'imported JAX'\n"
            "stridex.scipy.special.erf(sx.ones(3))\nassert 'jax' in sys.modules\n")
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize("name", list(NORMALISERS))
def test_normalisers_on_a_device(name):
    ours, _ = NORMALISERS[name]
    x = np.random.default_rng(14).standard_normal((3, 7)) * 4
    got = ours(sx.asarray(x, device=DEVICE), axis=-1)
    assert got.device == DEVICE
    assert_close(np.asarray(got.to_device("cpu")), np.asarray(ours(sx.asarray(x), axis=-1)), ulps=8, atol=1e-14)
    masked = ours(sx.asarray(x, device=DEVICE), where=sx.asarray(x > 0, device=DEVICE))
    assert masked.device == DEVICE


def test_jax_and_numpy_arrays_are_taken_as_they_are():
    x = np.array([-1.0, 0.5, 2.0], dtype=np.float32)
    with jax.enable_x64(True):
        from_jax = sx.nn.gelu(jnp.asarray(x))
    assert from_jax.dtype == sx.float32
    assert_close(from_jax, on_jax(JNN.gelu, x), ulps=4, atol=eps_atol(x, F32, 4))
    assert_close(sx.nn.softmax(x), on_jax(JNN.softmax, x), ulps=4)
