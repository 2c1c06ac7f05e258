"""Named `vmap` axes and the collectives of `stridex.lax` (issue 42), against `jax.vmap(axis_name=...)` and
`jax.lax`'s collectives: values, derivatives, under `jit`, `grad`, nested `vmap`s and loops, on the host and on a
JAX device."""

from __future__ import annotations

import os

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import stridex as sx

DEV = os.environ.get("STRIDEX_TEST_DEVICE", "cpu:1")


@pytest.fixture(autouse=True)
def _jax_reference_in_64_bit():
    """The JAX references are computed with 64-bit types, like stridex's."""
    with jax.enable_x64(True):
        yield
RNG = np.random.default_rng(42)
X = RNG.standard_normal((4, 3))
X[1, 2] = X[3, 2]  # (a tie for pmax/pmin's derivative)


def close(got, want, rtol=1e-12):
    got = got.to_device("cpu") if isinstance(got, sx.Array) else got
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=rtol, atol=1e-12)
    assert np.asarray(got).dtype == np.asarray(want).dtype, (np.asarray(got).dtype, np.asarray(want).dtype)


# Each case: a stridex function and its JAX twin over one member (a row of X), the collectives over axis "i".
CASES = {
    "psum": (lambda v: sx.lax.psum(v, "i") * v, lambda v: jax.lax.psum(v, "i") * v),
    "pmean": (lambda v: v - sx.lax.pmean(v, "i"), lambda v: v - jax.lax.pmean(v, "i")),
    "pmax": (lambda v: sx.lax.pmax(v * v, "i") + v, lambda v: jax.lax.pmax(v * v, "i") + v),
    "pmin": (lambda v: sx.lax.pmin(v, "i") * v, lambda v: jax.lax.pmin(v, "i") * v),
    "all_gather": (lambda v: sx.lax.all_gather(v, "i") * v, lambda v: jax.lax.all_gather(v, "i") * v),
    "all_gather axis=1": (lambda v: sx.lax.all_gather(v, "i", axis=1), lambda v: jax.lax.all_gather(v, "i", axis=1)),
    "all_gather tiled": (lambda v: sx.lax.all_gather(v, "i", tiled=True), lambda v: jax.lax.all_gather(v, "i", tiled=True)),
    "axis_index": (lambda v: v * sx.astype(sx.lax.axis_index("i"), v.dtype),
                   lambda v: v * jax.lax.axis_index("i").astype(v.dtype)),
    "psum of a number": (lambda v: v * sx.lax.psum(1, "i"), lambda v: v * jax.lax.psum(1, "i")),
    "softmax over the axis": (
        lambda v: sx.exp(v - sx.lax.pmax(v, "i")) / sx.lax.psum(sx.exp(v - sx.lax.pmax(v, "i")), "i"),
        lambda v: jnp.exp(v - jax.lax.pmax(v, "i")) / jax.lax.psum(jnp.exp(v - jax.lax.pmax(v, "i")), "i")),
}

# pmax/pmin: JAX has no derivative rule for them; stridex's is checked against finite differences below.
DIFFERENTIABLE_IN_JAX = [k for k in CASES if k not in ("pmax", "pmin", "softmax over the axis")]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("device", [None, DEV], ids=["host", "device"])
@pytest.mark.parametrize("jit", [False, True], ids=["eager", "jit"])
@pytest.mark.parametrize("case", list(CASES))
def test_collective_values_match_jax(case, jit, device, dtype):
    f, f_jax = CASES[case]
    mapped = sx.vmap(f, axis_name="i")
    x = X.astype(dtype)
    got = (sx.jit(mapped) if jit else mapped)(sx.asarray(x, device=device))
    if device is not None:
        assert got.device == sx.asarray(x, device=device).device
    close(got, jax.vmap(f_jax, axis_name="i")(jnp.asarray(x)), rtol=1e-12 if dtype == "float64" else 1e-6)


@pytest.mark.parametrize("jit", [False, True], ids=["eager", "jit"])
@pytest.mark.parametrize("case", DIFFERENTIABLE_IN_JAX)
def test_per_member_gradients_match_jax(case, jit):
    """vmap(grad(f)): the collective inside the differentiated function (its VJP is a collective too)."""
    f, f_jax = CASES[case]
    g = sx.vmap(sx.grad(lambda v: sx.sum(f(v) ** 2)), axis_name="i")
    want = jax.vmap(jax.grad(lambda v: jnp.sum(f_jax(v) ** 2)), axis_name="i")(jnp.asarray(X))
    close((sx.jit(g) if jit else g)(sx.asarray(X)), want, rtol=1e-10)


# The same functions over the whole batch (axis 0), for JAX's reference where it cannot differentiate pmax/pmin.
WHOLE_BATCH = {
    "pmax": lambda x: jnp.max(x * x, axis=0) + x,
    "pmin": lambda x: jnp.min(x, axis=0) * x,
    "softmax over the axis": lambda x: jax.nn.softmax(x, axis=0),
}


@pytest.mark.parametrize("jit", [False, True], ids=["eager", "jit"])
@pytest.mark.parametrize("case", list(CASES))
def test_gradient_through_the_vmap_matches_jax(case, jit):
    """grad(vmap(f)): the vmap resolves the collective into array operations, which grad differentiates."""
    f, f_jax = CASES[case]
    g = sx.grad(lambda x: sx.sum(sx.sin(sx.vmap(f, axis_name="i")(x))))
    batched = WHOLE_BATCH.get(case) or jax.vmap(f_jax, axis_name="i")
    want = jax.grad(lambda x: jnp.sum(jnp.sin(batched(x))))(jnp.asarray(X))
    close((sx.jit(g) if jit else g)(sx.asarray(X)), want, rtol=1e-10)


@pytest.mark.parametrize("name", ["pmax", "pmin"])
def test_pmax_pmin_derivatives_share_ties_like_max(name):
    """Their JVP and VJP (JAX has none) against finite differences and against `max`/`min` over the batch."""
    collective = getattr(sx.lax, name)
    reduce = sx.max if name == "pmax" else sx.min
    per_member = sx.vmap(sx.grad(lambda v: sx.sum(sx.sin(collective(v, "i")) * v)), axis_name="i")
    whole = sx.grad(lambda x: sx.sum(sx.sin(reduce(x, axis=0, keepdims=True)) * x))
    # vmap(grad) differentiates each member's output on its own: the members' results are summed by psum's
    # transpose, so per_member equals the gradient of the whole batch's sum
    close(per_member(sx.asarray(X)), whole(sx.asarray(X)), rtol=1e-10)
    t = RNG.standard_normal(X.shape)
    f = sx.vmap(lambda v: collective(v * v, "i"), axis_name="i")
    _, tangent = sx.jvp(f, (sx.asarray(X),), (sx.asarray(t),))
    eps = 1e-7
    Y = X.copy()
    Y[1, 2] += 1e-3  # (no tie: the finite difference is then the derivative)
    _, tangent = sx.jvp(f, (sx.asarray(Y),), (sx.asarray(t),))
    numeric = (np.asarray(f(sx.asarray(Y + eps * t))) - np.asarray(f(sx.asarray(Y - eps * t)))) / (2 * eps)
    np.testing.assert_allclose(np.asarray(tangent), numeric, rtol=1e-5, atol=1e-7)


def test_nested_vmaps_with_different_names():
    x = RNG.standard_normal((2, 3, 4))

    def f(v):
        return (sx.lax.psum(v, "outer") - sx.lax.pmean(v, "inner") + sx.lax.axis_index("inner")
                + 10 * sx.lax.axis_index("outer") + sx.lax.psum(v, ("outer", "inner")))

    def f_jax(v):
        return (jax.lax.psum(v, "outer") - jax.lax.pmean(v, "inner") + jax.lax.axis_index("inner")
                + 10 * jax.lax.axis_index("outer") + jax.lax.psum(v, ("outer", "inner")))

    ours = sx.vmap(sx.vmap(f, axis_name="inner"), axis_name="outer")
    want = jax.vmap(jax.vmap(f_jax, axis_name="inner"), axis_name="outer")(jnp.asarray(x))
    close(ours(sx.asarray(x)), want)
    close(sx.jit(ours)(sx.asarray(x)), want)
    both = sx.vmap(sx.vmap(lambda v: sx.lax.axis_index(("outer", "inner")) + 0 * v, axis_name="inner"),
                   axis_name="outer")
    close(both(sx.asarray(x)), jax.vmap(jax.vmap(lambda v: jax.lax.axis_index(("outer", "inner")) + 0 * v,
                                                 axis_name="inner"), axis_name="outer")(jnp.asarray(x)))
    gather = sx.vmap(sx.vmap(lambda v: sx.lax.all_gather(v, ("outer", "inner")), axis_name="inner"),
                     axis_name="outer")
    # (JAX's vmap rule fails on two names here: every member gets all of them, the first name's index slowest)
    close(gather(sx.asarray(x)), np.broadcast_to(x.reshape(6, 4), (2, 3, 6, 4)))
    tiled = sx.vmap(sx.vmap(lambda v: sx.lax.all_gather(v, ("outer", "inner"), tiled=True), axis_name="inner"),
                    axis_name="outer")
    close(tiled(sx.asarray(x)), np.broadcast_to(x.reshape(24), (2, 3, 24)))
    # the same name twice: the innermost binds it (as in JAX)
    shadow = sx.vmap(sx.vmap(lambda v: sx.lax.psum(v, "i"), axis_name="i"), axis_name="i")
    close(shadow(sx.asarray(x)), jax.vmap(jax.vmap(lambda v: jax.lax.psum(v, "i"), axis_name="i"),
                                          axis_name="i")(jnp.asarray(x)))


def test_in_axes_out_axes_and_axis_size():
    x = sx.asarray(X)
    f = sx.vmap(lambda v, w: sx.lax.psum(v * w, "i"), in_axes=(1, None), out_axes=1, axis_name="i")
    want = jax.vmap(lambda v, w: jax.lax.psum(v * w, "i"), in_axes=(1, None), out_axes=1, axis_name="i")(
        jnp.asarray(X), 2.0)
    close(f(x, sx.asarray(2.0)), want)
    # no mapped argument: axis_size gives the length
    g = sx.vmap(lambda w: w * sx.lax.axis_index("i"), in_axes=None, axis_size=5, axis_name="i")
    close(g(sx.asarray(2.0)), jax.vmap(lambda w: w * jax.lax.axis_index("i"), in_axes=None, axis_size=5,
                                       axis_name="i")(2.0))
    with pytest.raises(ValueError, match="axis_size argument is 5"):
        sx.vmap(lambda v: v, axis_size=5)(x)
    with pytest.raises(ValueError, match="axis_size"):
        sx.vmap(lambda v: v, in_axes=None)(x)


@pytest.mark.parametrize("loop", ["fori_loop", "scan", "while_loop", "cond"])
@pytest.mark.parametrize("jit", [False, True], ids=["eager", "jit"])
def test_collectives_inside_loops_and_branches(loop, jit):
    def f(v, lib):
        if loop == "fori_loop":
            return lib.fori_loop(0, 3, lambda i, c: c + psum(v) * 0.5 + axis_index(), v)
        if loop == "scan":
            return lib.scan(lambda c, x: (c + psum(c * x), c * axis_index()), v, jnp.arange(3.0) if lib is jax.lax
                            else sx.arange(3.0))
        if loop == "while_loop":
            return lib.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] + psum(c[1])), (0, v))[1]
        return lib.cond(v[0] > 0, lambda u: psum(u), lambda u: u * axis_index(), v)

    def run(lib, x):
        global psum, axis_index
        name = "i"
        if lib is jax.lax:
            psum, axis_index = (lambda u: jax.lax.psum(u, name)), (lambda: jax.lax.axis_index(name))
        else:
            psum, axis_index = (lambda u: sx.lax.psum(u, name)), (lambda: sx.lax.axis_index(name))
        return f(x, lib)

    ours = sx.vmap(lambda v: run(sx, v), axis_name="i")
    want = jax.vmap(lambda v: run(jax.lax, v), axis_name="i")(jnp.asarray(X))
    got = (sx.jit(ours) if jit else ours)(sx.asarray(X))
    for g, w in zip(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)):
        close(g, w)


def test_unbound_axis_names_are_jaxs_name_error():
    x = sx.asarray(X)
    with pytest.raises(NameError, match="unbound axis name: j.*axes named here are \\['i'\\]"):
        sx.vmap(lambda v: sx.lax.psum(v, "j"), axis_name="i")(x)
    for call in (lambda: sx.lax.psum(x, "i"), lambda: sx.jit(lambda v: sx.lax.pmean(v, "i"))(x),
                 lambda: sx.vmap(lambda v: sx.lax.all_gather(v, "i"))(x),
                 lambda: sx.grad(lambda v: sx.sum(sx.lax.pmax(v, "i")))(x), lambda: sx.lax.axis_index("i")):
        with pytest.raises(NameError, match="unbound axis name: i"):
            call()
    with pytest.raises(NameError, match="unbound axis name: i"):  # (JAX's message starts the same way)
        jax.lax.psum(jnp.asarray(X), "i")
    with pytest.raises(NotImplementedError, match="axis_index_groups"):
        sx.vmap(lambda v: sx.lax.psum(v, "i", axis_index_groups=[[0, 1], [2, 3]]), axis_name="i")(x)
    with pytest.raises(TypeError, match="complex"):
        sx.vmap(lambda v: sx.lax.pmax(v, "i"), axis_name="i")(sx.asarray([1j, 2j]))


def test_collectives_take_pytrees_and_booleans():
    tree = {"a": sx.asarray(X), "b": (sx.asarray(X[:, 0] > 0),)}
    out = sx.vmap(lambda t: sx.lax.psum(t, "i"), axis_name="i")(tree)
    want = jax.vmap(lambda t: jax.lax.psum(t, "i"), axis_name="i")({"a": jnp.asarray(X), "b": (jnp.asarray(X[:, 0] > 0),)})
    close(out["a"], want["a"])
    close(out["b"][0], want["b"][0])  # (booleans sum as int32)


def test_jitted_psum_compiles_to_one_reduction():
    f = sx.jit(sx.vmap(lambda v: v / sx.lax.psum(v, "i"), axis_name="i"))
    text = f.lower(sx.asarray(X)).as_text()
    assert text.count("reduce") >= 1 and "all-reduce" not in text and "psum" not in text


@pytest.mark.parametrize("members", [3, 5000], ids=["3 members", "5000 members"])
def test_collectives_at_both_sides_of_the_reduction_size_threshold(members):
    """Over 4096 members XLA's CPU reductions change kernel: psum/pmax with NaN, infinities and -0.0 agree with
    NumPy eagerly and under jit (pmax propagates NaN, as `max` does; a sum of -0.0s is NumPy's +0.0)."""
    rng = np.random.default_rng(members)
    x = rng.standard_normal((members, 2))
    x[0, 0], x[-1, 0] = np.inf, -np.inf  # column 0: inf - inf = nan in the sum
    x[1 % members, 1] = np.nan
    zeros = np.full((members, 1), -0.0)
    f = sx.vmap(lambda v, z: (sx.lax.psum(v, "i"), sx.lax.pmax(v, "i"), sx.lax.pmin(v, "i"), sx.lax.psum(z, "i")),
                axis_name="i")
    for how in (f, sx.jit(f)):
        total, top, bottom, zero_sum = how(sx.asarray(x), sx.asarray(zeros))
        np.testing.assert_allclose(np.asarray(total)[0], x.sum(axis=0), rtol=1e-12)
        np.testing.assert_array_equal(np.asarray(top)[0], np.max(x, axis=0))
        np.testing.assert_array_equal(np.asarray(bottom)[0], np.min(x, axis=0))
        np.testing.assert_array_equal(np.signbit(np.asarray(zero_sum)[0]), np.signbit(zeros.sum(axis=0)))
