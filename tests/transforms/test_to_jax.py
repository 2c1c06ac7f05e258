"""`sx.to_jax`: a stridex function as a JAX function under every JAX transformation (`jit`, `grad`, `vjp`, `jvp`,
`vmap`, `hessian`, `lax.scan` / `cond` / `while_loop`), with views and writes inside, on the host and on a JAX
device ("cpu:1"), against the same program written in `jax.numpy`; the errors it raises, and JAX's x64 mode."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import stridex as sx
from stridex._transforms import to_jax as to_jax_module
from stridex._transforms.to_jax import ToJaxError
from stridex._transforms.tracing import ConcretizationError, DataDependentShapeError

DEV = os.environ.get("STRIDEX_TEST_DEVICE", "cpu:1")
PLACES = ["cpu", DEV]
DTYPES = [np.float32, np.float64]


@pytest.fixture(autouse=True)
def x64():
    with jax.enable_x64(True):
        yield


def close(got, want, dtype=np.float64):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, got.dtype, want.shape, want.dtype)
    rtol = 2e-5 if np.dtype(dtype) == np.float32 else 1e-12
    np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol * 1e-2, equal_nan=True)


def tree_close(got, want, dtype=np.float64):
    assert jax.tree_util.tree_structure(got) == jax.tree_util.tree_structure(want)
    for g, w in zip(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)):
        assert isinstance(g, jax.Array), type(g)
        close(g, w, dtype)


def placed(place, a, dtype):
    """`a` as a JAX array of `dtype` on `place` (the host's JAX device, or the one standing in for a GPU)."""
    platform, _, index = place.partition(":")
    return jax.device_put(np.asarray(a, dtype), jax.devices(platform)[int(index or 0)])


# --- the same programs in stridex and in jax.numpy -----------------------------------------------------------
# Each stridex program writes through views; its twin computes the same values functionally.


def views_sx(x):
    y = sx.zeros((3,) + x.shape, dtype=x.dtype)
    y[0] = x
    y[1, ::2] = x[::2] * 2.0  # a write through a strided view
    tail = y[1:, ::-1]  # a view, written through below
    tail[1] = sx.sin(x)
    return sx.sum(y * y, axis=0) + y[1][::-1]


def views_jnp(x):
    y = jnp.zeros((3,) + x.shape, dtype=x.dtype)
    y = y.at[0].set(x)
    y = y.at[1, ::2].set(x[::2] * 2.0)
    y = y.at[2].set(jnp.sin(x)[::-1])
    return jnp.sum(y * y, axis=0) + y[1][::-1]


def tree_sx(params, x):
    h = sx.tanh(x @ params["w"] + params["b"])
    h[..., 0] = h[..., 0] * 0.5  # a write into an array made inside
    return {"h": h, "penalty": sx.sum(params["w"] ** 2)}


def tree_jnp(params, x):
    h = jnp.tanh(x @ params["w"] + params["b"])
    h = h.at[..., 0].set(h[..., 0] * 0.5)
    return {"h": h, "penalty": jnp.sum(params["w"] ** 2)}


def loss(tree_fn, xp):
    def f(params, x):
        out = tree_fn(params, x)
        return xp.sum(out["h"] ** 2) + out["penalty"]
    return f


def rng(seed):
    return np.random.default_rng(seed)


# --- every JAX transformation -------------------------------------------------------------------------------


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_views_and_writes_under_every_transformation(place, dtype):
    f = sx.to_jax(views_sx)
    x = placed(place, rng(0).normal(size=6), dtype)
    t = placed(place, rng(1).normal(size=6), dtype)
    scalar = lambda fn: lambda a: jnp.sum(fn(a) ** 2)  # noqa: E731
    close(f(x), views_jnp(x), dtype)  # eagerly
    got = jax.jit(f)(x)
    assert got.devices() == x.devices()
    close(got, jax.jit(views_jnp)(x), dtype)
    close(jax.grad(scalar(f))(x), jax.grad(scalar(views_jnp))(x), dtype)
    close(jax.jit(jax.grad(scalar(f)))(x), jax.grad(scalar(views_jnp))(x), dtype)
    out, tangent = jax.jvp(f, (x,), (t,))
    want_out, want_tangent = jax.jvp(views_jnp, (x,), (t,))
    close(out, want_out, dtype)
    close(tangent, want_tangent, dtype)
    out, pullback = jax.vjp(f, x)
    close(pullback(t)[0], jax.vjp(views_jnp, x)[1](t)[0], dtype)
    xs = placed(place, rng(2).normal(size=(4, 6)), dtype)
    close(jax.vmap(f)(xs), jax.vmap(views_jnp)(xs), dtype)
    close(jax.jit(jax.vmap(jax.grad(scalar(f))))(xs), jax.vmap(jax.grad(scalar(views_jnp)))(xs), dtype)
    close(jax.vmap(f, in_axes=1, out_axes=1)(xs.T), jax.vmap(views_jnp, in_axes=1, out_axes=1)(xs.T), dtype)
    close(jax.hessian(scalar(f))(x), jax.hessian(scalar(views_jnp))(x), dtype)
    close(jax.jit(jax.jacfwd(f))(x), jax.jacfwd(views_jnp)(x), dtype)


def test_jax_control_flow_traces_through():
    f = sx.to_jax(lambda c, x: c * sx.cos(x) + sx.sum(c) * 0.1)
    g = lambda c, x: c * jnp.cos(x) + jnp.sum(c) * 0.1  # noqa: E731
    c0, xs = jnp.ones(3), jnp.asarray(rng(3).normal(size=(5, 3)))

    def scanned(step):
        return jax.lax.scan(lambda c, x: (step(c, x), jnp.sum(c)), c0, xs)

    tree_close(jax.jit(lambda: scanned(f))(), scanned(g))
    tree_close(jax.grad(lambda c: jnp.sum(jax.lax.scan(lambda c, x: (f(c, x), None), c, xs)[0]))(c0),
               jax.grad(lambda c: jnp.sum(jax.lax.scan(lambda c, x: (g(c, x), None), c, xs)[0]))(c0))
    branch = lambda p, step: jax.lax.cond(p, lambda c: step(c, xs[0]), lambda c: -c, c0)  # noqa: E731
    for p in (True, False):
        tree_close(jax.jit(branch, static_argnums=1)(p, f), branch(p, g))
    loop = lambda step: jax.lax.fori_loop(0, 4, lambda i, c: step(c, xs[i]), c0)  # noqa: E731
    tree_close(jax.jit(loop, static_argnums=0)(f), loop(g))
    tree_close(jax.lax.while_loop(lambda c: jnp.sum(c) < 10.0, lambda c: f(c, xs[0]) + 1.0, c0),
               jax.lax.while_loop(lambda c: jnp.sum(c) < 10.0, lambda c: g(c, xs[0]) + 1.0, c0))


@pytest.mark.parametrize("place", PLACES)
def test_pytrees_in_and_out(place):
    f = sx.to_jax(tree_sx)
    params = {"w": placed(place, rng(4).normal(size=(3, 2)), np.float64),
              "b": placed(place, rng(5).normal(size=2), np.float64)}
    x = placed(place, rng(6).normal(size=(5, 3)), np.float64)
    tree_close(f(params, x), tree_jnp(params, x))
    tree_close(jax.jit(f)(params, x), tree_jnp(params, x))
    tree_close(jax.grad(loss(f, jnp))(params, x), jax.grad(loss(tree_jnp, jnp))(params, x))
    tree_close(jax.jit(jax.grad(loss(f, jnp), argnums=(0, 1)))(params, x),
               jax.grad(loss(tree_jnp, jnp), argnums=(0, 1))(params, x))
    # keyword arguments, and a class registered with jax.tree_util
    tree_close(jax.jit(lambda p, x: f(params=p, x=x))(params, x), tree_jnp(params, x))
    pair = Pair(x, x * 2.0)
    swap = sx.to_jax(lambda p: Pair(p.b, sx.flip(p.a, axis=0)))
    out = jax.jit(swap)(pair)
    assert isinstance(out, Pair)
    tree_close(out, Pair(pair.b, jnp.flip(pair.a, axis=0)))


@jax.tree_util.register_pytree_node_class
class Pair:
    def __init__(self, a, b):
        self.a, self.b = a, b

    def tree_flatten(self):
        return (self.a, self.b), None

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(*children)


def test_traced_once_per_signature_with_static_arguments():
    f = sx.to_jax(lambda x, n, *, mode: sx.sum(x[:n]) if mode == "sum" else sx.max(x[:n]),
                  static_argnums=1, static_argnames="mode")
    jf = jax.jit(f, static_argnums=1, static_argnames="mode")
    x = jnp.arange(6.0)
    assert float(jf(x, 3, mode="sum")) == 3.0
    assert float(jf(x, 3, mode="max")) == 2.0
    assert float(jf(x + 1.0, 3, mode="max")) == 3.0  # (jax.jit's cache: no new trace of f)
    assert float(jax.grad(lambda x: f(x, 3, mode="sum"))(x)[1]) == 1.0  # (the same signature: traced before)
    assert f.stats["traces"] == 2
    assert float(jf(jnp.arange(7.0), 3, mode="sum")) == 3.0  # another shape: another trace
    assert f.stats["traces"] == 3
    with pytest.raises(TypeError, match="static argument 1 of type list is not hashable"):
        jax.jit(lambda x: f(x, [2], mode="sum"))(x)


def test_closed_over_arrays_are_read_at_each_call():
    scale = sx.asarray([1.0, 2.0, 3.0])
    f = sx.to_jax(lambda x: x * scale)
    x = jnp.ones(3)
    close(jax.jit(f)(x), np.array([1.0, 2.0, 3.0]))
    scale[0] = 10.0
    close(jax.jit(lambda x: f(x) + 0.0)(x), np.array([10.0, 2.0, 3.0]))


@pytest.mark.parametrize("n", [5, 3000, 40000])  # both sides of 2048 (aligned outputs) and of fusion's 32768
def test_concrete_calls_run_eagerly_with_stridex_values(n):
    def f(x):
        y = sx.where(sx.isnan(x), 0.0, x)
        return sx.sum(y * 2.0), y[::2] + 1.0, sx.unique_values(y)[:3]  # (a data-dependent shape: fine eagerly)

    v = rng(7).normal(size=n)
    v[:4] = [np.nan, np.inf, -0.0, -np.inf]
    with np.errstate(invalid="ignore"):  # (inf + -inf in the sum)
        got = sx.to_jax(f)(jnp.asarray(v))
        want = f(sx.asarray(v))
    for g, w in zip(got, want):
        assert isinstance(g, jax.Array)
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))
        assert np.array_equal(np.signbit(np.asarray(g)), np.signbit(np.asarray(w)))


# --- Array API library code ------------------------------------------------------------------------------------


def test_jax_grad_through_scipy_and_scikit_learn_array_api_functions():
    """SciPy reads SCIPY_ARRAY_API at its first import, so this runs in a fresh process."""
    pytest.importorskip("sklearn")
    code = textwrap.dedent("""
        import jax, jax.numpy as jnp, numpy as np, sklearn
        from scipy import special
        from sklearn.metrics import pairwise
        import stridex as sx

        jax.config.update("jax_enable_x64", True)
        v = jnp.asarray(np.random.default_rng(0).normal(size=9))
        f = sx.to_jax(special.logsumexp)
        for g in (jax.grad(f), jax.jit(jax.grad(f))):
            np.testing.assert_allclose(g(v), jax.nn.softmax(v), rtol=1e-13)
        X = jnp.asarray(np.random.default_rng(1).normal(size=(4, 3)))
        Y = jnp.asarray(np.random.default_rng(2).normal(size=(5, 3)))
        kernel = lambda a: sx.sum(pairwise.rbf_kernel(a, sx.asarray(np.asarray(Y)), gamma=0.5))
        k_jnp = lambda a: jnp.sum(jnp.exp(-0.5 * jnp.sum((a[:, None] - Y[None]) ** 2, -1)))
        with sklearn.config_context(array_api_dispatch=True, assume_finite=True):
            np.testing.assert_allclose(jax.jit(jax.grad(sx.to_jax(kernel)))(X), jax.grad(k_jnp)(X), rtol=1e-12)
        with sklearn.config_context(array_api_dispatch=True):  # its finiteness check branches on a value
            try:  # (a new to_jax: programs are kept per signature, as jax.jit keeps them, whatever the config)
                jax.grad(sx.to_jax(kernel))(X)
            except TypeError as e:
                assert "sx.to_jax" in str(e) and "validation.py" in str(e), e
            else:
                raise AssertionError("no error")
        print("ok")
    """)
    env = dict(os.environ, SCIPY_ARRAY_API="1")
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-3000:]


# --- errors ----------------------------------------------------------------------------------------------------


def test_a_python_branch_on_a_traced_value_names_the_way_out():
    def f(x):
        if sx.sum(x) > 0:
            return x
        return -x

    close(sx.to_jax(f)(jnp.ones(2)), np.ones(2))  # eagerly: a plain Python branch
    with pytest.raises(ConcretizationError, match=r"bool\(\) .* sx.to_jax .*test_to_jax.py:\d+.*sx\.where"):
        jax.jit(sx.to_jax(f))(jnp.ones(2))


def test_a_python_value_where_a_jax_tracer_arrives_names_the_argument():
    f = sx.to_jax(lambda x, n: x * float(n))
    with pytest.raises(ConcretizationError, match=r"It is argument 1, which JAX traced.*static_argnums"):
        jax.jit(f)(jnp.ones(2), 3)
    g = sx.to_jax(lambda x, n: x * float(n), static_argnums=1)
    close(jax.jit(g, static_argnums=1)(jnp.ones(2), 3), np.full(2, 3.0))
    with pytest.raises(ConcretizationError, match=r"It is argument 'p'\['k'\]"):
        jax.jit(sx.to_jax(lambda x, p: x[: int(p["k"])]))(jnp.ones(3), p={"k": 2})


def test_writes_into_what_jax_owns_are_refused_where_they_happen():
    def write_input(x):
        v = x[1:]
        v[0] = 5.0  # through a view of the argument
        return x

    for call in (jax.jit(sx.to_jax(write_input)), jax.grad(lambda x: jnp.sum(sx.to_jax(write_input)(x)))):
        with pytest.raises(ToJaxError, match=r"writes into its argument 0 at .*test_to_jax.py:\d+, .* JAX array.*"
                                             r"sx.asarray\(x, copy=True\)"):
            call(jnp.ones(3))
    shifted = sx.to_jax(lambda n, x: write_input(x), static_argnums=0)
    with pytest.raises(ToJaxError, match="writes into its argument 1 at"):  # (named as the caller counts them)
        jax.jit(shifted, static_argnums=0)(2, jnp.ones(3))
    x = jnp.ones(3)
    with pytest.raises(ToJaxError, match="writes into its argument 0"):
        sx.to_jax(write_input)(x)  # eagerly too
    np.testing.assert_array_equal(np.asarray(x), np.ones(3))  # and the JAX array is untouched
    copied = sx.to_jax(lambda x: write_input(sx.asarray(x, copy=True)))
    close(jax.jit(copied)(jnp.ones(3)), np.array([1.0, 5.0, 1.0]))
    outside = sx.zeros(3)

    def write_closure(x):
        outside[:] = x
        return x

    with pytest.raises(ToJaxError, match="writes into an array it closes over"):
        jax.jit(sx.to_jax(write_closure))(jnp.ones(3))


def test_data_dependent_shapes_and_bad_arguments():
    with pytest.raises(DataDependentShapeError, match=r"unique has .* at .*test_to_jax.py:\d+: under sx.to_jax"):
        jax.jit(sx.to_jax(lambda x: sx.unique_values(x)))(jnp.ones(3))
    with pytest.raises(TypeError, match="argument 1 of type str is not a JAX array"):
        jax.jit(lambda x: sx.to_jax(lambda a, b: a)(x, "no"))(jnp.ones(2))
    with pytest.raises(ToJaxError, match="output leaf 0 is a str"):
        jax.jit(sx.to_jax(lambda a: "no"))(jnp.ones(2))
    with pytest.raises(TypeError, match="traced stridex array"):
        sx.jit(lambda x: sx.to_jax(sx.sin)(x))(sx.ones(2))


# --- x64 -------------------------------------------------------------------------------------------------------


def test_without_x64_the_results_come_back_in_jax_32_bit_types():
    def f(x):
        # inside, stridex's types: an int64 arange, a float64 sum of float32 values
        return sx.arange(3), sx.sum(x, dtype=sx.float64), x * 2.0

    with jax.enable_x64(False):
        x = jnp.asarray([1.0, 2.0, 16777217.0], jnp.float32)
        for call in (sx.to_jax(f), jax.jit(sx.to_jax(f))):
            index, total, doubled = call(x)
            assert (index.dtype, total.dtype, doubled.dtype) == (jnp.int32, jnp.float32, jnp.float32)
            assert float(total) == np.float32(16777220.0)  # (summed in float64, then narrowed once)
    index, total, _ = jax.jit(sx.to_jax(f))(jnp.asarray([1.0, 2.0, 3.0]))
    assert (index.dtype, total.dtype) == (jnp.int64, jnp.float64)


def test_programs_are_cached_within_bounds(monkeypatch):
    monkeypatch.setattr(to_jax_module, "CACHE_SIZE", 2)
    f = sx.to_jax(lambda x: x + 1.0)
    for n in range(1, 6):
        jax.jit(f)(jnp.ones(n))
    assert f.cache_size() == 2
    f.clear_cache()
    assert f.cache_size() == 0
