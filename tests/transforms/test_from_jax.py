"""`sx.from_jax`: a JAX function as a stridex function, eagerly, under `jit`, `grad`, `jvp`, `vjp`, `vmap`,
`hessian` and their compositions, on the host and on a JAX device ("cpu:1"), against the same JAX function
run by JAX itself under the same transformation (x64 and float32); optax training step by step."""

from __future__ import annotations

import os

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import stridex as sx
from stridex._transforms import from_jax as from_jax_module

DEV = os.environ.get("STRIDEX_TEST_DEVICE", "cpu:1")
PLACES = ["cpu", DEV]
DTYPES = [np.float32, np.float64]


@pytest.fixture(autouse=True)
def x64():
    with jax.enable_x64(True):  # the JAX side of each comparison keeps 64-bit types, as stridex's lowering does
        yield


def on(place, a, dtype=None):
    return sx.asarray(np.asarray(a, dtype=dtype), device=place)


def close(got, want, dtype=np.float64, exact=False):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, got.dtype, want.shape, want.dtype)
    if exact:  # bit for bit: NaNs where JAX has them, -0.0 told from 0.0
        assert np.array_equal(got, want, equal_nan=True), (got, want)
        assert np.array_equal(np.signbit(got), np.signbit(want))
    else:
        rtol = 2e-6 if np.dtype(dtype) == np.float32 else 1e-12
        np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol * 1e-3, equal_nan=True)


def check_device(x, place):
    assert isinstance(x, sx.Array)
    assert x.device == place, (x.device, place)


# --- JAX functions, with the values they are tried on ------------------------------------------------------------


def smooth(x):
    return jnp.logaddexp(x, 0.0) * jnp.tanh(x) + jnp.sin(3.0 * x) / (1.0 + x * x)


def mixed(x, y):
    return jnp.sum(x * y[:, None], axis=0) + jnp.exp(-jnp.abs(x[0]))


def tree_fn(params, x):
    h = jnp.tanh(x @ params["w"] + params["b"])
    return {"out": h, "norm": jnp.sum(h * h)}, jnp.max(h)


def rng(seed=0):
    return np.random.default_rng(seed)


SPECIAL = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 1e-300, -2.5, 700.0])


def values_of(n, dtype, seed=0):
    """`n` values of `dtype` with NaN, +-inf and -0.0 among them where n allows (values matter: compared exactly)."""
    v = rng(seed).normal(size=n) * 3
    k = min(n, len(SPECIAL))
    v[:k] = SPECIAL[:k]
    with np.errstate(over="ignore", under="ignore"):
        return v.astype(dtype)


# --- eager and jit ------------------------------------------------------------------------------------------


# Both sides of 2048 (aligned outputs) and of fusion's 32768-element deferral threshold.
@pytest.mark.parametrize("n", [5, 3000, 40000])
@pytest.mark.parametrize("dtype", DTYPES)
def test_eager_and_jit_equal_jax_jit(n, dtype):
    g = sx.from_jax(smooth)
    v = values_of(n, dtype)
    want = jax.jit(smooth)(jnp.asarray(v))
    for place in PLACES:
        x = on(place, v)
        got = g(x)
        check_device(got, place)
        close(got, want, dtype, exact=True)  # eagerly it is jax.jit(smooth)'s own executable
        got = sx.jit(lambda a: g(a) * 2.0 - 1.0)(x)
        check_device(got, place)
        close(got, jax.jit(lambda a: smooth(a) * 2.0 - 1.0)(jnp.asarray(v)), dtype)


def test_eager_call_compiles_once_per_signature():
    g = sx.from_jax(smooth)
    for _ in range(3):
        g(sx.ones(4))
    g(sx.ones(5))
    g(sx.ones(5, dtype=sx.float32))
    (fn,) = g._functions.values()  # one call structure
    assert fn._eager.stats["traces"] == 3  # one trace and compile per shape and dtype
    g.clear_cache()
    assert not g._functions


def test_jit_inlines_the_function_into_one_program():
    g = sx.from_jax(smooth)
    f = sx.jit(lambda a: sx.exp(g(a)))
    x = sx.asarray([0.5, 2.0])
    ir = sx.make_ir(lambda a: sx.exp(g(a)))(x)
    assert [e.prim.name for e in ir.eqns] == ["jax_call", "exp"]
    assert "jax_call[fn=smooth]" in str(ir)
    text = f.lower(x).as_text()
    assert "callback" not in text and "tanh" in text and "sine" in text  # JAX's operations, in the one module


def test_pytrees_mixing_stridex_jax_numpy_arrays_and_scalars():
    w, b, x = rng(1).normal(size=(3, 2)), rng(2).normal(size=2), rng(3).normal(size=(4, 3))
    want = tree_fn({"w": jnp.asarray(w), "b": jnp.asarray(b)}, jnp.asarray(x))
    g = sx.from_jax(tree_fn)
    for params in ({"w": sx.asarray(w), "b": sx.asarray(b)}, {"w": jnp.asarray(w), "b": sx.asarray(b)},
                   {"w": w, "b": jnp.asarray(b)}):
        # eagerly, and under jit where the JAX and NumPy arrays are closed over (sx.jit takes stridex arrays)
        for got in (g(params, sx.asarray(x)), sx.jit(lambda x: g(params, x))(sx.asarray(x))):
            assert isinstance(got, tuple) and isinstance(got[0], dict) and isinstance(got[0]["out"], sx.Array)
            for a, e in zip(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)):
                close(a, e)
    with pytest.raises(TypeError, match="argument leaf 0 is a JAX array; convert it with stridex.asarray"):
        sx.jit(g)({"w": sx.asarray(w), "b": jnp.asarray(b)}, sx.asarray(x))
    # Python scalars are weak operands (one program for every value), as jax.jit's
    scale = sx.from_jax(lambda x, s: x * s)
    f = sx.jit(lambda x, s: scale(x, s))
    for s in (2.0, -0.5, 3):
        close(f(sx.asarray([1.0, 2.0], dtype=sx.float32), s), np.array([1.0, 2.0], np.float32) * np.float32(s),
              np.float32)
    assert f.cache_size() == 2  # a float and an int


def test_static_arguments_and_static_leaves():
    total = sx.from_jax(jnp.sum, static_argnames="axis")
    x = sx.reshape(sx.arange(6.0), (2, 3))
    close(total(x, axis=0), np.array([3.0, 5.0, 7.0]))
    close(sx.jit(lambda a: total(a, axis=1))(x), np.array([3.0, 12.0]))
    pick = sx.from_jax(lambda x, mode: jnp.max(x) if mode == "max" else jnp.min(x))
    assert float(pick(x, "max")) == 5.0 and float(pick(x, "min")) == 0.0  # (a string leaf: static by itself)
    first = sx.from_jax(lambda x, k: x[:k], static_argnums=1)
    close(first(sx.arange(5.0), 2), np.array([0.0, 1.0]))
    with pytest.raises(TypeError, match="static argument 1 of type list is not hashable"):
        first(sx.arange(5.0), [2])


def test_integer_operands_and_outputs():
    def g(x, idx):
        return x[idx] * 2.0, jnp.argmax(x), idx + 1

    f = sx.from_jax(g)
    x, idx = sx.asarray([3.0, 1.0, 4.0, 1.5]), sx.asarray([2, 0])
    v, am, i1 = f(x, idx)
    close(v, np.array([8.0, 6.0]))
    assert am.dtype == sx.int64 and int(am) == 2
    assert i1.dtype == sx.int64
    # differentiable through the float operand only; the integer outputs carry no derivative
    grad = sx.grad(lambda x: sx.sum(f(x, idx)[0]))(x)
    close(grad, np.array([2.0, 0.0, 2.0, 0.0]))
    primal, tangent = sx.jvp(lambda x: f(x, idx), (x,), (sx.ones(4),))
    close(tangent[0], np.array([2.0, 2.0]))
    assert tangent[1].dtype == sx.int64 and int(tangent[1]) == 0  # (stridex's zero tangent of an integer output)


# --- derivatives and batching, against JAX's own ----------------------------------------------------------------


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_derivatives_equal_jax(place, dtype):
    g = sx.from_jax(smooth)
    v = rng(5).normal(size=6).astype(dtype)
    x, j = on(place, v), jnp.asarray(v)

    def loss_sx(a):
        return sx.sum(g(a) ** 2)

    def loss_jax(a):
        return jnp.sum(smooth(a) ** 2)

    for got in (sx.grad(loss_sx)(x), sx.jit(sx.grad(loss_sx))(x)):
        check_device(got, place)
        close(got, jax.grad(loss_jax)(j), dtype)
    t = rng(6).normal(size=6).astype(dtype)
    out, tangent = sx.jvp(g, (x,), (on(place, t),))
    want_out, want_tangent = jax.jvp(smooth, (j,), (jnp.asarray(t),))
    close(out, want_out, dtype)
    close(tangent, want_tangent, dtype)
    out, pullback = sx.vjp(g, x)
    (ct,) = pullback(on(place, t))
    close(ct, jax.vjp(smooth, j)[1](jnp.asarray(t))[0], dtype)
    close(sx.jit(sx.hessian(loss_sx))(x), jax.hessian(loss_jax)(j), dtype)
    close(sx.hessian(loss_sx)(x), jax.hessian(loss_jax)(j), dtype)  # (eagerly, the basis made on x's device)


@pytest.mark.parametrize("place", PLACES)
def test_vmap_and_its_compositions_equal_jax(place):
    g = sx.from_jax(mixed)
    xs, ys = rng(7).normal(size=(5, 3)), rng(8).normal(size=(5, 4))
    jx, jy = jnp.asarray(xs), jnp.asarray(ys)
    X, Y = on(place, xs), on(place, ys)
    close(sx.vmap(g)(X, Y), jax.vmap(mixed)(jx, jy))
    close(sx.vmap(g, in_axes=(0, None))(X, Y[0]), jax.vmap(mixed, in_axes=(0, None))(jx, jy[0]))
    close(sx.jit(sx.vmap(g, in_axes=(None, 0)))(X[0], Y), jax.vmap(mixed, in_axes=(None, 0))(jx[0], jy))

    def loss(xp, fn):
        return lambda x, y: xp.sum(fn(x, y) ** 2)

    want = jax.vmap(jax.grad(loss(jnp, mixed)))(jx, jy)
    close(sx.vmap(sx.grad(loss(sx, g)))(X, Y), want)
    close(sx.jit(sx.vmap(sx.grad(loss(sx, g))))(X, Y), want)
    close(sx.grad(lambda x: sx.sum(sx.vmap(g)(x, Y)))(X), jax.grad(lambda x: jnp.sum(jax.vmap(mixed)(x, jy)))(jx))
    jac = sx.jacfwd(lambda x: g(x, Y[0]))(X[0])
    close(jac, jax.jacfwd(lambda x: mixed(x, jy[0]))(jx[0]))
    close(sx.jacrev(lambda x: g(x, Y[0]))(X[0]), jac)


def test_inside_stridex_control_flow():
    g = sx.from_jax(lambda c, x: jnp.tanh(c * x + 0.5))
    c0, xs = np.array([0.1, -0.3]), rng(9).normal(size=(4, 2))

    def run_sx(c, xs):
        return sx.scan(lambda c, x: (g(c, x), sx.sum(c)), c, xs)

    def run_jax(c, xs):
        return jax.lax.scan(lambda c, x: (jnp.tanh(c * x + 0.5), jnp.sum(c)), c, xs)

    for got, want in zip(sx.jit(run_sx)(sx.asarray(c0), sx.asarray(xs)), run_jax(jnp.asarray(c0), jnp.asarray(xs))):
        close(got, want)
    close(sx.grad(lambda c: sx.sum(run_sx(c, sx.asarray(xs))[0]))(sx.asarray(c0)),
          jax.grad(lambda c: jnp.sum(run_jax(c, jnp.asarray(xs))[0]))(jnp.asarray(c0)))
    loop = sx.jit(lambda c: sx.fori_loop(0, 3, lambda i, c: g(c, c), c))
    close(loop(sx.asarray(c0)), jax.lax.fori_loop(0, 3, lambda i, c: jnp.tanh(c * c + 0.5), jnp.asarray(c0)))


def test_pytree_outputs_differentiate_and_batch():
    g = sx.from_jax(tree_fn)
    w, b, x = rng(1).normal(size=(3, 2)), rng(2).normal(size=2), rng(3).normal(size=(4, 3))

    def loss(xp, fn):
        def f(params, x):
            out, m = fn(params, x)
            return xp.sum(out["out"]) + out["norm"] * m
        return f

    params = {"w": sx.asarray(w), "b": sx.asarray(b)}
    jparams = {"w": jnp.asarray(w), "b": jnp.asarray(b)}
    got = sx.jit(sx.grad(loss(sx, g)))(params, sx.asarray(x))
    want = jax.grad(loss(jnp, tree_fn))(jparams, jnp.asarray(x))
    close(got["w"], want["w"])
    close(got["b"], want["b"])


def test_round_trip_through_to_jax():
    def f(x):
        y = sx.zeros_like(x)
        y[1:] = x[:-1] * 2.0  # a write inside the stridex function
        return sx.cumulative_sum(y)

    back = sx.from_jax(sx.to_jax(f))
    x = sx.asarray([1.0, -2.0, 3.5, 0.25])
    close(back(x), f(x))
    close(sx.jit(back)(x), f(x))
    close(sx.grad(lambda a: sx.sum(back(a) ** 2))(x), sx.grad(lambda a: sx.sum(f(a) ** 2))(x))


def test_errors_name_the_cause():
    key = sx.from_jax(lambda: jax.random.key(0))
    with pytest.raises(TypeError, match="output leaf 0.*no dtype"):
        key()

    def inside_jax(x):
        return sx.from_jax(jnp.sin)(x)

    with pytest.raises(TypeError, match="argument leaf 0 is a JAX tracer"):
        jax.jit(inside_jax)(jnp.ones(2))


def test_closed_over_jax_arrays_and_caches_are_bounded(monkeypatch):
    const = jnp.asarray([1.0, 2.0])
    g = sx.from_jax(lambda x: x + const)
    close(sx.jit(lambda x: g(x))(sx.asarray([1.0, 1.0])), np.array([2.0, 3.0]))
    monkeypatch.setattr(from_jax_module, "CACHE_SIZE", 3)
    h = sx.from_jax(lambda x, s: x[:s], static_argnums=1)
    for s in range(1, 8):
        h(sx.arange(8.0), s)
    assert len(h._functions) == 3


def test_a_flax_apply_trains_under_jit_and_grad():
    nn = pytest.importorskip("flax.linen")
    model = nn.Sequential([nn.Dense(4), nn.tanh, nn.Dense(1)])
    variables = model.init(jax.random.key(0), jnp.ones((2, 3)))
    x = rng(17).normal(size=(5, 3))
    apply = sx.from_jax(model.apply)
    params = jax.tree_util.tree_map(sx.asarray, variables)  # (flax's nested dicts, stridex arrays at the leaves)

    def loss(xp, fn):
        return lambda p, x: xp.mean(fn(p, x) ** 2)

    close(apply(params, sx.asarray(x)), model.apply(variables, jnp.asarray(x)))
    got = sx.jit(sx.grad(loss(sx, apply)))(params, sx.asarray(x))
    want = jax.grad(loss(jnp, model.apply))(variables, jnp.asarray(x))
    assert jax.tree_util.tree_structure(got) == jax.tree_util.tree_structure(want)
    for a, e in zip(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)):
        close(a, e)


# --- optax on stridex parameters --------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
def test_optax_trains_stridex_parameters_step_for_step(dtype):
    optax = pytest.importorskip("optax")
    opt = optax.adam(0.05)
    init, update, apply = sx.from_jax(opt.init), sx.from_jax(opt.update), sx.from_jax(optax.apply_updates)
    w0, b0 = rng(11).normal(size=(3, 2)).astype(dtype), rng(12).normal(size=2).astype(dtype)
    xb, yb = rng(13).normal(size=(16, 3)).astype(dtype), rng(14).normal(size=(16, 2)).astype(dtype)

    def loss(xp):
        return lambda p, x, y: xp.mean((x @ p["w"] + p["b"] - y) ** 2)

    @sx.jit
    def step(params, state, x, y):
        grads = sx.grad(loss(sx))(params, x, y)
        updates, state = update(grads, state, params)
        return apply(params, updates), state

    @jax.jit
    def jax_step(params, state, x, y):
        grads = jax.grad(loss(jnp))(params, x, y)
        updates, state = opt.update(grads, state, params)
        return optax.apply_updates(params, updates), state

    params = {"w": sx.asarray(w0), "b": sx.asarray(b0)}
    state = init(params)
    assert jax.tree_util.tree_structure(state) == jax.tree_util.tree_structure(opt.init({"w": w0, "b": b0}))
    jparams = {"w": jnp.asarray(w0), "b": jnp.asarray(b0)}
    jstate = opt.init(jparams)
    x, y = sx.asarray(xb), sx.asarray(yb)
    for _ in range(6):
        params, state = step(params, state, x, y)
        jparams, jstate = jax_step(jparams, jstate, jnp.asarray(xb), jnp.asarray(yb))
        for name in ("w", "b"):
            assert isinstance(params[name], sx.Array)
            close(params[name], jparams[name], dtype)
        assert int(state[0].count) == int(jstate[0].count)
        close(state[0].mu["w"], jstate[0].mu["w"], dtype)
    assert step.cache_size() == 1  # every step ran the one compiled program


def test_optax_without_x64_differs_only_by_its_float32_bias_correction():
    """With JAX's x64 mode off, optax computes Adam's bias correction 1 - 0.999**t in float32, where the subtraction
    cancels (about 1e-5 relative in the first step); from_jax runs it with x64 (float64, rounded once). So float32
    parameters differ from optax's in such a process by about that much (docs/mixing-jax.md)."""
    optax = pytest.importorskip("optax")
    opt = optax.adam(0.05)
    update = sx.from_jax(opt.update)
    w0, g0 = rng(15).normal(size=(3, 2)).astype(np.float32), rng(16).normal(size=(3, 2)).astype(np.float32)
    ours = update({"w": sx.asarray(g0)}, sx.from_jax(opt.init)({"w": sx.asarray(w0)}), {"w": sx.asarray(w0)})[0]
    with jax.enable_x64(False):
        theirs = opt.update({"w": jnp.asarray(g0)}, opt.init({"w": jnp.asarray(w0)}), {"w": jnp.asarray(w0)})[0]
    with jax.enable_x64(True):
        exact = opt.update({"w": jnp.asarray(g0)}, opt.init({"w": jnp.asarray(w0)}), {"w": jnp.asarray(w0)})[0]
    close(ours["w"], exact["w"], np.float32)
    np.testing.assert_allclose(np.asarray(ours["w"]), np.asarray(theirs["w"]), rtol=3e-5)
    assert not np.array_equal(np.asarray(ours["w"]), np.asarray(theirs["w"]))
