"""sx.lax.reduce_window with add, max and min against jax.lax.reduce_window (64-bit types on; float64 and float32):
values with NaN, infinities and -0.0, eager against jit bit for bit (the host eager rule is the compiled lowering),
initial values other than the identity, integer operands, grad (ties as JAX's: the first of tied maxima), jvp and
grad of grad against JAX's, vmap against a loop, on a JAX device (cpu:1), and the errors."""

from __future__ import annotations

import numpy as np
import pytest

import stridex as sx
from tests.jax_reference import DEVICE, jax, jnp

F64, F32 = np.float64, np.float32

# (operand shape, window_dimensions, window_strides, padding, base_dilation, window_dilation)
CONFIGS = {
    "pool_2x2": ((2, 6, 8, 3), (1, 2, 2, 1), (1, 2, 2, 1), "VALID", None, None),
    "same_3x3": ((2, 7, 5), (1, 3, 3), (1, 1, 1), "SAME", None, None),
    "strided_same": ((9, 10), (3, 2), (2, 3), "SAME", None, None),
    "explicit": ((6, 7), (2, 3), (1, 2), ((1, 2), (0, 1)), None, None),
    "base_dilation": ((5, 4), (2, 2), (1, 1), ((1, 0), (0, 1)), (2, 1), None),
    "window_dilation": ((9, 8), (2, 3), (2, 1), "VALID", None, (3, 2)),
    "one_d": ((17,), (4,), (3,), "SAME", None, None),
    "large": ((2, 64, 64), (1, 2, 2), (1, 2, 2), "VALID", None, None),  # (over 2048 elements out)
}
MONOIDS = {"add": (sx.lax.add, jax.lax.add, 0.0), "max": (sx.lax.max, jax.lax.max, -np.inf),
           "min": (sx.lax.min, jax.lax.min, np.inf)}


def _operand(name, dtype, seed=0, special=True, ties=False):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(CONFIGS[name][0])
    if ties:
        x = np.round(x * 2) / 2  # (many equal values in a window)
    if special:
        flat = x.reshape(-1)
        flat[[1, 6, 11]] = [np.nan, np.inf, -np.inf]
        flat[[3, 4]] = [-0.0, 0.0]
    return x.astype(dtype)


def _window(name):
    _, dims, strides, padding, base, dilation = CONFIGS[name]
    return dict(window_dimensions=dims, window_strides=strides, padding=padding, base_dilation=base,
                window_dilation=dilation)


def _ours(x, monoid, init, name):
    return sx.lax.reduce_window(x, init, MONOIDS[monoid][0], **_window(name))


def _theirs(x, monoid, init, name):
    return jax.lax.reduce_window(x, np.asarray(init, x.dtype), MONOIDS[monoid][1], **_window(name))


def _same(got, want, dtype, exact):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, want.shape, got.dtype, want.dtype)
    if exact:
        np.testing.assert_array_equal(got, want)
        zero = (want == 0)
        np.testing.assert_array_equal(np.signbit(got[zero]), np.signbit(want[zero]))
    else:
        np.testing.assert_allclose(got, want, rtol=1e-13 if dtype == F64 else 1e-6, atol=1e-13 if dtype == F64 else
                                   1e-6)


@pytest.mark.parametrize("name", CONFIGS)
@pytest.mark.parametrize("monoid", MONOIDS)
@pytest.mark.parametrize("dtype", [F64, F32])
def test_values_against_jax_and_eager_equals_jit(name, monoid, dtype):
    x = _operand(name, dtype)
    init = MONOIDS[monoid][2]
    got = _ours(sx.asarray(x), monoid, init, name)
    with jax.enable_x64(True):
        want = _theirs(jnp.asarray(x), monoid, init, name)
    _same(got, want, dtype, exact=True)  # (the same XLA program: bit for bit, NaN, infinities and signed zeros too)
    jitted = sx.jit(lambda v: _ours(v, monoid, init, name))(sx.asarray(x))
    np.testing.assert_array_equal(np.asarray(jitted).view(np.uint8), np.asarray(got).view(np.uint8))


@pytest.mark.parametrize("monoid,init", [("max", 0.0), ("max", 2.5), ("min", -1.0), ("add", 1.5), ("add", -2.0)])
@pytest.mark.parametrize("name", ["same_3x3", "explicit", "base_dilation", "pool_2x2"])
def test_initial_values_other_than_the_identity(monoid, init, name):
    x = _operand(name, F64, special=False)
    got = _ours(sx.asarray(x), monoid, init, name)
    with jax.enable_x64(True):
        want = _theirs(jnp.asarray(x), monoid, init, name)
    _same(got, want, F64, exact=monoid != "add")


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint8])
@pytest.mark.parametrize("monoid", MONOIDS)
def test_integer_operands(dtype, monoid):
    x = (np.random.default_rng(3).integers(0, 100, (6, 7))).astype(dtype)
    init = {"add": 0, "max": np.iinfo(dtype).min, "min": np.iinfo(dtype).max}[monoid]
    got = _ours(sx.asarray(x), monoid, init, "explicit")
    with jax.enable_x64(True):
        want = _theirs(jnp.asarray(x), monoid, init, "explicit")
    _same(got, want, dtype, exact=True)


def _loss(fn, xp):
    return lambda v: xp.sum(xp.sin(fn(v)) * fn(v))


# (JAX has no VJP of a windowed max or min with window dilation, nor has stridex: test_no_vjp_where_jax_has_none)
@pytest.mark.parametrize("name,monoid", [(n, m) for n in CONFIGS for m in MONOIDS
                                         if n != "large" and (n != "window_dilation" or m == "add")])
def test_grad_and_jvp_against_jax_with_ties(name, monoid):
    x = _operand(name, F64, seed=1, special=False, ties=True)
    init = MONOIDS[monoid][2]
    t = np.random.default_rng(2).standard_normal(x.shape)
    got = sx.grad(_loss(lambda v: _ours(v, monoid, init, name), sx))(sx.asarray(x))
    _, tangent = sx.jvp(lambda v: _ours(v, monoid, init, name), (sx.asarray(x),), (sx.asarray(t),))
    with jax.enable_x64(True):
        want = jax.grad(_loss(lambda v: _theirs(v, monoid, init, name), jnp))(jnp.asarray(x))
        _, want_tangent = jax.jvp(lambda v: _theirs(v, monoid, init, name), (jnp.asarray(x),), (jnp.asarray(t),))
    _same(got, want, F64, exact=False)
    _same(tangent, want_tangent, F64, exact=monoid != "add")
    jitted = sx.jit(sx.grad(_loss(lambda v: _ours(v, monoid, init, name), sx)))(sx.asarray(x))
    _same(jitted, want, F64, exact=False)


@pytest.mark.parametrize("monoid", MONOIDS)
def test_grad_of_grad_against_jax(monoid):
    x = _operand("same_3x3", F64, seed=4, special=False)
    init = MONOIDS[monoid][2]

    def ours(v):
        return sx.sum(sx.grad(_loss(lambda u: _ours(u, monoid, init, "same_3x3"), sx))(v) ** 2)

    def theirs(v):
        return jnp.sum(jax.grad(_loss(lambda u: _theirs(u, monoid, init, "same_3x3"), jnp))(v) ** 2)

    got = sx.grad(ours)(sx.asarray(x))
    with jax.enable_x64(True):
        want = jax.grad(theirs)(jnp.asarray(x))
    _same(got, want, F64, exact=False)


@pytest.mark.parametrize("name", ["pool_2x2", "strided_same", "base_dilation", "window_dilation"])
@pytest.mark.parametrize("monoid", MONOIDS)
def test_vmap_and_vmap_of_grad_against_a_loop(name, monoid):
    rng = np.random.default_rng(5)
    xs = rng.standard_normal((3,) + CONFIGS[name][0])
    init = MONOIDS[monoid][2]
    got = sx.vmap(lambda v: _ours(v, monoid, init, name), in_axes=-1)(sx.asarray(np.moveaxis(xs, 0, -1)))
    want = np.stack([np.asarray(_ours(sx.asarray(x), monoid, init, name)) for x in xs])
    _same(got, want, F64, exact=True)
    if name == "window_dilation" and monoid != "add":
        return  # (no VJP, as in JAX: test_no_vjp_where_jax_has_none)
    loss = _loss(lambda v: _ours(v, monoid, init, name), sx)
    grads = sx.vmap(sx.grad(loss))(sx.asarray(xs))
    _same(grads, np.stack([np.asarray(sx.grad(loss)(sx.asarray(x))) for x in xs]), F64, exact=False)


def test_no_vjp_where_jax_has_none():
    x = _operand("window_dilation", F64, special=False)
    with pytest.raises(NotImplementedError, match="window dilation"):
        jax.grad(_loss(lambda v: _theirs(v, "max", -np.inf, "window_dilation"), jnp))(jnp.asarray(x))
    with pytest.raises(NotImplementedError, match="window dilation"):
        sx.grad(_loss(lambda v: _ours(v, "max", -np.inf, "window_dilation"), sx))(sx.asarray(x))
    t = np.ones_like(x)  # (the JVP exists, as in JAX)
    _, tangent = sx.jvp(lambda v: _ours(v, "max", -np.inf, "window_dilation"), (sx.asarray(x),), (sx.asarray(t),))
    np.testing.assert_array_equal(np.asarray(tangent), 1.0)


def test_on_a_device():
    x = _operand("pool_2x2", F32, special=False)
    got = _ours(sx.asarray(x, device=DEVICE), "max", -np.inf, "pool_2x2")
    assert got.device == DEVICE
    _same(got.to_device("cpu"), _ours(sx.asarray(x), "max", -np.inf, "pool_2x2"), F32, exact=True)
    g = sx.grad(_loss(lambda v: _ours(v, "max", -np.inf, "pool_2x2"), sx))(sx.asarray(x, device=DEVICE))
    assert g.device == DEVICE
    with jax.enable_x64(True):
        want = jax.grad(_loss(lambda v: _theirs(v, "max", -np.inf, "pool_2x2"), jnp))(jnp.asarray(x))
    np.testing.assert_allclose(np.asarray(g.to_device("cpu")), np.asarray(want), rtol=1e-6)


def test_initial_values_on_a_device_and_traced():
    x = _operand("explicit", F32, special=False)
    with jax.enable_x64(True):
        want = {init: np.asarray(_theirs(jnp.asarray(x), "max", init, "explicit")) for init in (0.0, 0.5)}
    got = _ours(sx.asarray(x, device=DEVICE), "max", 0.0, "explicit")
    assert got.device == DEVICE and got.dtype == sx.float32
    _same(got.to_device("cpu"), want[0.0], F32, exact=True)
    traced = sx.jit(lambda v, init: _ours(v, "max", init, "explicit"))(sx.asarray(x), sx.asarray(0.5))
    _same(traced, want[0.5], F32, exact=True)


def test_one_reduce_window_under_jit():
    x = sx.asarray(_operand("pool_2x2", F32, special=False))
    text = sx.jit(lambda v: _ours(v, "max", -np.inf, "pool_2x2")).lower(x).as_text()
    assert text.count("stablehlo.reduce_window") == 1


def test_computations_recognised():
    x = sx.asarray(np.arange(12.0).reshape(3, 4))
    want = sx.lax.reduce_window(x, -np.inf, sx.lax.max, (2, 2), (1, 1), "VALID")
    for computation in (sx.maximum, jax.lax.max):
        np.testing.assert_array_equal(np.asarray(sx.lax.reduce_window(x, -np.inf, computation, (2, 2), (1, 1),
                                                                      "VALID")), np.asarray(want))
    assert float(sx.lax.reduce_window(x, 0.0, sx.add, (3, 4), (1, 1), "VALID")[0, 0]) == 66.0


@pytest.mark.parametrize("call,error,match", [
    (lambda x: sx.lax.reduce_window(x, 0.0, lambda a, b: a * b, (2, 2), (1, 1), "VALID"), NotImplementedError,
     r"computation must be sx.lax.add, sx.lax.max or sx.lax.min"),
    (lambda x: sx.lax.reduce_window(x, 0.0, sx.lax.add, (2,), (1, 1), "VALID"), ValueError,
     r"window_dimensions must have one entry per dimension of the operand \(shape \(3, 4\)\), got \(2,\)"),
    (lambda x: sx.lax.reduce_window(x, 0.0, sx.lax.add, (2, 2), (1,), "VALID"), ValueError,
     r"window_strides must have one entry"),
    (lambda x: sx.lax.reduce_window(x, 0.0, sx.lax.add, (0, 2), (1, 1), "VALID"), ValueError,
     r"window_dimensions must be positive, got \(0, 2\)"),
    (lambda x: sx.lax.reduce_window(x > 1, False, sx.lax.add, (2, 2), (1, 1), "VALID"), TypeError,
     r"not defined for bool"),
    (lambda x: sx.lax.reduce_window(x * 1j, 0, sx.lax.max, (2, 2), (1, 1), "VALID"), TypeError, r"complex"),
    (lambda x: sx.lax.reduce_window(x, 0.0, sx.lax.add, (2, 2), (1, 1), "FULL"), ValueError, r"'FULL'"),
    (lambda x: sx.lax.reduce_window((x, x), (0.0, 0.0), sx.lax.add, (2, 2), (1, 1), "VALID"), NotImplementedError,
     r"several operands"),
    (lambda x: sx.lax.add(x, sx.astype(x, sx.float32)), TypeError, r"same dtypes, got float64, float32"),
])
def test_errors_name_the_offending_value(call, error, match):
    with pytest.raises(error, match=match):
        call(sx.asarray(np.arange(12.0).reshape(3, 4)))
