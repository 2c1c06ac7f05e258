"""`sx.custom_jvp` / `sx.custom_vjp` rules through `sx.to_jax`: JAX's `grad`, `jvp`, `vjp`, `hessian`, `vmap(grad)`
and `jit` of a `to_jax` function use the stridex rules (lowered as `jax.custom_jvp` / `jax.custom_vjp`), not the
derivative of the lowered primal: against `sx.grad` of the same function and the same program written with
`jax.custom_jvp` / `jax.custom_vjp`, in float32 and float64, on the host and on "cpu:1"; the errors stridex raises
(a derivative with respect to a closed-over value, a written value that depends on the arguments) are raised
there too; `sx.jit`'s IR is unchanged."""

from __future__ import annotations

import os

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import stridex as sx

DEV = os.environ.get("STRIDEX_TEST_DEVICE", "cpu:1")
PLACES = ["cpu", DEV]
DTYPES = [np.float32, np.float64]
X = [100.0, 0.5, -3.0, 0.0, 2.0]  # (exp(100) overflows float32: the primal's derivative there is nan, the rule's 1)


@pytest.fixture(autouse=True)
def x64():
    with jax.enable_x64(True):
        yield


def close(got, want, dtype):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, got.dtype, want.shape, want.dtype)
    rtol = 2e-5 if np.dtype(dtype) == np.float32 else 1e-12
    np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol * 1e-2, equal_nan=True)


def placed(place, a, dtype):
    platform, _, index = place.partition(":")
    return jax.device_put(np.asarray(a, dtype), jax.devices(platform)[int(index or 0)])


# --- the same programs with stridex's rules and with JAX's --------------------------------------------------


def make(xp, custom_jvp, custom_vjp, relu):
    @custom_jvp
    def log1pexp(x):  # a numerically stable rule: the primal's derivative is inf / inf at large x
        return xp.log(1.0 + xp.exp(x))

    @log1pexp.defjvp
    def _(primals, tangents):
        (x,), (t,) = primals, tangents
        return log1pexp(x), t * (1.0 - 1.0 / (1.0 + xp.exp(x)))

    @custom_vjp
    def clip_gradient(x):  # a gradient clip: the identity with cotangents clipped to [-1, 1]
        return x

    clip_gradient.defvjp(lambda x: (x, None), lambda _, g: (xp.clip(g, -1.0, 1.0),))

    @custom_vjp
    def scaled_sin(x, w):  # residuals as a pytree; a rule that differs visibly (the w-cotangent is halved)
        return xp.sin(x) * w

    def fwd(x, w):
        return scaled_sin(x, w), {"cos": xp.cos(x), "sin": xp.sin(x), "w": w}

    def bwd(res, g):
        return g * res["cos"] * res["w"], 0.5 * g * res["sin"]

    scaled_sin.defvjp(fwd, bwd)

    def jvp_program(x, w):  # custom_jvp (and relu's rule at 0) only: forward mode and hessian
        return xp.sum(log1pexp(x) * w) + xp.sum(relu(x - 2.0) * w)

    def vjp_program(x, w):
        return xp.sum(5.0 * clip_gradient(x * w)) + xp.sum(scaled_sin(x, w) ** 2) + jvp_program(x, w)

    return jvp_program, vjp_program


sx_jvp_program, sx_vjp_program = make(sx, sx.custom_jvp, sx.custom_vjp, sx.nn.relu)
jax_jvp_program, jax_vjp_program = make(jnp, jax.custom_jvp, jax.custom_vjp, jax.nn.relu)


def arguments(place, dtype):
    x = placed(place, X, dtype)
    w = placed(place, [1.5, -2.0, 0.25, 3.0, 1.0], dtype)
    return x, w


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_reverse_mode_uses_the_custom_rules(place, dtype):
    x, w = arguments(place, dtype)
    sx_x, sx_w = sx.asarray(x), sx.asarray(w)
    f = sx.to_jax(sx_vjp_program)
    want = jax.grad(jax_vjp_program, argnums=(0, 1))(x, w)
    stridex_grads = sx.grad(sx_vjp_program, argnums=(0, 1))(sx_x, sx_w)
    assert np.isfinite(np.asarray(want[0])).all()  # (the primal's own derivative is nan at 100 in float32)
    for how in (jax.grad, lambda f, **kw: jax.jit(jax.grad(f, **kw)), lambda f, **kw: jax.grad(jax.jit(f), **kw)):
        got = how(f, argnums=(0, 1))(x, w)
        for g, jw, sw in zip(got, want, stridex_grads):
            close(g, jw, dtype)
            close(g, np.asarray(sw), dtype)
            assert g.devices() == x.devices()
    out, pullback = jax.vjp(f, x, w)
    _, jax_pullback = jax.vjp(jax_vjp_program, x, w)
    for g, jw in zip(pullback(jnp.asarray(1.5, dtype)), jax_pullback(jnp.asarray(1.5, dtype))):
        close(g, jw, dtype)
    close(out, jax_vjp_program(x, w), dtype)


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_forward_mode_hessian_and_vmap_use_the_custom_rules(place, dtype):
    x, w = arguments(place, dtype)
    f = sx.to_jax(sx_jvp_program)
    t = placed(place, np.linspace(-1.0, 1.0, len(X)), dtype)
    got = jax.jvp(f, (x, w), (t, w))
    want = jax.jvp(jax_jvp_program, (x, w), (t, w))
    close(got[0], want[0], dtype)
    close(got[1], want[1], dtype)
    h = x.at[0].set(30.0)  # (second derivatives where exp does not overflow: the rule's own nan would spread)
    close(jax.hessian(f)(h, w), jax.hessian(jax_jvp_program)(h, w), dtype)
    close(jax.hessian(f, argnums=(0, 1))(h, w)[0][1], jax.hessian(jax_jvp_program, argnums=(0, 1))(h, w)[0][1], dtype)
    close(jax.jit(jax.hessian(f))(h, w), np.asarray(sx.hessian(sx_jvp_program)(sx.asarray(h), sx.asarray(w))),
          dtype)
    xs = jnp.stack([x, x * 0.5, -x])
    per_row = jax.vmap(jax.grad(jax_jvp_program), in_axes=(0, None))(xs, w)
    close(jax.vmap(jax.grad(f), in_axes=(0, None))(xs, w), per_row, dtype)
    g = sx.to_jax(sx_vjp_program)
    per_row = jax.vmap(jax.grad(jax_vjp_program), in_axes=(0, None))(xs, w)
    close(jax.vmap(jax.grad(g), in_axes=(0, None))(xs, w), per_row, dtype)
    close(jax.jit(jax.vmap(jax.grad(g, argnums=1)))(xs, jnp.stack([w, w, w])),
          jax.vmap(jax.grad(jax_vjp_program, argnums=1))(xs, jnp.stack([w, w, w])), dtype)


def test_forward_mode_of_a_custom_vjp_is_jaxs_type_error():
    x, w = arguments("cpu", np.float64)
    with pytest.raises(TypeError, match="can't apply forward-mode autodiff"):
        jax.jvp(sx.to_jax(sx_vjp_program), (x, w), (x, w))
    with pytest.raises(TypeError, match="can't apply forward-mode autodiff"):
        jax.jvp(jax_vjp_program, (x, w), (x, w))


@pytest.mark.parametrize("place", PLACES)
def test_rules_closing_over_the_functions_values(place):
    """A rule closing over a value the `to_jax` function computed (and over an argument) keeps it: differentiating
    with respect to the arguments uses it; with respect to the closed-over value is stridex's TypeError."""

    def g(x, w):
        scale = w * 2.0

        @sx.custom_jvp
        def scaled(x):
            return x * scale

        scaled.defjvp(lambda p, t: (scaled(p[0]), t[0] * scale * 3.0))  # (3x the primal's derivative)

        @sx.custom_vjp
        def shifted(x):
            return x + w

        shifted.defvjp(lambda x: (shifted(x), None), lambda _, c: (c * w,))
        return sx.sum(scaled(x) ** 2) + sx.sum(shifted(x))

    x, w = arguments(place, np.float64)
    want = 2 * np.asarray(x) * (2 * np.asarray(w)) ** 2 * 3.0 + np.asarray(w)
    f = sx.to_jax(g)
    close(jax.grad(f)(x, w), want, np.float64)
    close(jax.jit(jax.grad(f))(x, w), want, np.float64)
    close(jax.vjp(lambda x: f(x, w), x)[1](jnp.asarray(2.0))[0], 2.0 * want, np.float64)
    for mode in (jax.grad, sx.grad):
        fun = f if mode is jax.grad else g
        a = (x, w) if mode is jax.grad else (sx.asarray(x), sx.asarray(w))
        with pytest.raises(TypeError, match="with respect to a value it closes over"):
            mode(fun, argnums=1)(*a)


def test_writes_keep_stridex_semantics():
    """A custom function writing into an array made in the `to_jax` function: the write happens; differentiating
    a written value that depends on the arguments is stridex's TypeError."""

    def make_f(depends):
        def f(x):
            buf = sx.zeros(x.shape, dtype=x.dtype)

            @sx.custom_jvp
            def g(x):
                buf[...] = x * 2.0 if depends else 7.0
                return sx.sin(x)

            g.defjvp(lambda p, t: (g(p[0]), t[0] * 10.0))
            return sx.sum(g(x)) + sx.sum(buf)
        return f

    x = jnp.asarray([0.5, 1.0])
    ok = sx.to_jax(make_f(False))
    close(ok(x), np.sum(np.sin(x)) + 14.0, np.float64)
    close(jax.jit(ok)(x), np.sum(np.sin(x)) + 14.0, np.float64)
    close(jax.grad(ok)(x), np.full(2, 10.0), np.float64)
    bad = make_f(True)
    close(jax.jit(sx.to_jax(bad))(x), np.sum(np.sin(x)) + np.sum(4 * x) / 2, np.float64)
    for grad, fun, arg in ((jax.grad, sx.to_jax(bad), x), (sx.grad, bad, sx.asarray(x))):
        with pytest.raises(TypeError, match="writes a value that depends on its arguments"):
            grad(fun)(arg)


def test_without_x64_float32_uses_the_rules():
    with jax.enable_x64(False):
        x, w = (jnp.asarray(v, jnp.float32) for v in (X, [1.5, -2.0, 0.25, 3.0, 1.0]))
        f = sx.to_jax(sx_vjp_program)
        got = jax.jit(jax.grad(f, argnums=(0, 1)))(x, w)
        want = jax.grad(jax_vjp_program, argnums=(0, 1))(x, w)
        for g, jw in zip(got, want):
            close(g, jw, np.float32)


def test_sx_jit_ir_is_unchanged_by_to_jax():
    """`sx.jit` differentiates before it lowers: its programs hold no rule inputs, whether or not the function was
    traced by `to_jax` before."""
    x, w = sx.asarray(np.asarray(X)), sx.asarray(np.ones(len(X)))
    before = str(sx.make_ir(sx_vjp_program)(x, w))
    jax.grad(sx.to_jax(sx_vjp_program))(jnp.asarray(X), jnp.ones(len(X)))
    after = str(sx.make_ir(sx_vjp_program)(x, w))
    assert before == after
    assert before.count("custom_jvp_call") == 2 and before.count("custom_vjp_call") == 2


def make_doubled(xp, custom_jvp):
    @custom_jvp
    def log1pexp(x):  # (a rule twice the primal's derivative: visibly the rule's)
        return xp.log(1.0 + xp.exp(x))

    @log1pexp.defjvp
    def _(primals, tangents):
        (x,), (t,) = primals, tangents
        return log1pexp(x), t * (1.0 - 1.0 / (1.0 + xp.exp(x))) * 2.0

    return log1pexp


DS, DJ = make_doubled(sx, sx.custom_jvp), make_doubled(jnp, jax.custom_jvp)
COMPOSED = {  # a custom function under stridex's transformations and control flow, inside the to_jax function
    "grad": (lambda x: sx.sum(sx.grad(lambda y: sx.sum(DS(y) * x))(x) * x),
             lambda x: jnp.sum(jax.grad(lambda y: jnp.sum(DJ(y) * x))(x) * x)),
    "jvp": (lambda x: sx.sum(sx.jvp(DS, (x,), (x,))[1]), lambda x: jnp.sum(jax.jvp(DJ, (x,), (x,))[1])),
    "vmap": (lambda x: sx.sum(sx.vmap(DS)(x)), lambda x: jnp.sum(jax.vmap(DJ)(x))),
    "cond": (lambda x: sx.sum(sx.cond(sx.sum(x) < 0, DS, lambda y: y * 2.0, x)),
             lambda x: jnp.sum(jax.lax.cond(jnp.sum(x) < 0, DJ, lambda y: y * 2.0, x))),
    "fori_loop": (lambda x: sx.sum(sx.fori_loop(0, 3, lambda i, y: DS(y), x)),
                  lambda x: jnp.sum(jax.lax.fori_loop(0, 3, lambda i, y: DJ(y), x))),
    "checkpoint": (lambda x: sx.sum(sx.checkpoint(DS)(x)), lambda x: jnp.sum(jax.checkpoint(DJ)(x))),
    "jit": (lambda x: sx.sum(sx.jit(DS)(x)), lambda x: jnp.sum(jax.jit(DJ)(x))),
}


@pytest.mark.parametrize("name", list(COMPOSED))
def test_custom_calls_under_stridex_transformations_inside(name):
    fs, fj = COMPOSED[name]
    x = jnp.asarray([1.0, 0.5, -3.0])
    close(jax.grad(sx.to_jax(fs))(x), jax.grad(fj)(x), np.float64)
    close(jax.jit(jax.grad(sx.to_jax(fs)))(x), jax.grad(fj)(x), np.float64)


def make_mixed(xp, custom_jvp, custom_vjp):
    @custom_jvp
    def power(x, k):  # an integer argument: a float0 tangent on JAX's side
        return x ** k

    power.defjvp(lambda p, t: (power(*p), t[0] * p[1] * p[0] ** (p[1] - 1) * 2.0))

    @custom_vjp
    def mix(x, y, k):  # None cotangents
        return x * y + k

    mix.defvjp(lambda x, y, k: (mix(x, y, k), (x, y)), lambda r, g: (g * r[1] * 3.0, None, None))

    scale = custom_vjp(lambda s, x: x * s, nondiff_argnums=(0,))
    scale.defvjp(lambda s, x: (x * s, None), lambda s, _, g: (g * s * 10.0,))

    def program(x, y, k):
        return xp.sum(power(x, k)) + xp.sum(mix(x, y, k)) + xp.sum(scale(2.0, x))

    return program


def test_integer_arguments_none_cotangents_and_nondiff_arguments():
    mixed_sx, mixed_jax = make_mixed(sx, sx.custom_jvp, sx.custom_vjp), make_mixed(jnp, jax.custom_jvp, jax.custom_vjp)
    x, y, k = jnp.asarray([0.5, 2.0]), jnp.asarray([1.0, -1.0]), jnp.asarray([2, 3])
    f = sx.to_jax(mixed_sx)
    for got, want in zip(jax.grad(f, argnums=(0, 1))(x, y, k), jax.grad(mixed_jax, argnums=(0, 1))(x, y, k)):
        close(got, want, np.float64)
    xs = jnp.stack([x, 2 * x])
    close(jax.jit(jax.vmap(jax.grad(f), in_axes=(0, None, None)))(xs, y, k),
          jax.vmap(jax.grad(mixed_jax), in_axes=(0, None, None))(xs, y, k), np.float64)
    close(np.asarray(sx.grad(mixed_sx)(sx.asarray(x), sx.asarray(y), sx.asarray(k))), jax.grad(mixed_jax)(x, y, k),
          np.float64)
    assert jax.grad(f, argnums=2, allow_int=True)(x, y, k).dtype == jax.dtypes.float0


def test_a_rule_that_cannot_be_traced_fails_only_where_jax_differentiates():
    """As in stridex, a rule's error (a Python branch on a traced value, a bwd of the wrong arity) is raised when
    JAX asks for the rule, not when the function only runs. (stridex's own grad runs the branch on concrete values,
    and sx.jit breaks the graph there; under a JAX trace the value is traced.)"""

    @sx.custom_jvp
    def branchy(x):
        return sx.sin(x)

    branchy.defjvp(lambda p, t: (branchy(p[0]), t[0] if sx.sum(p[0]) > 0 else -t[0]))

    @sx.custom_vjp
    def bad_arity(x):
        return x * 2.0

    bad_arity.defvjp(lambda x: (bad_arity(x), None), lambda _, g: (g, g))
    x = jnp.asarray([0.5, 1.0])
    for fun, error, match in ((branchy, sx.errors.ConcretizationTypeError, "needs a concrete value"),
                              (bad_arity, TypeError, "must produce a tuple of length")):
        f = sx.to_jax(lambda v, fun=fun: sx.sum(fun(v)))
        close(jax.jit(f)(x), np.asarray(sx.jit(lambda v: sx.sum(fun(v)))(sx.asarray(x))), np.float64)
        with pytest.raises(error, match=match):
            jax.grad(f)(x)
    with pytest.raises(TypeError, match="must produce a tuple of length"):  # (stridex's own, on differentiating)
        sx.jit(sx.grad(lambda v: sx.sum(bad_arity(v))))(sx.asarray(x))
