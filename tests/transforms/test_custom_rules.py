"""Custom derivative rules (`custom_jvp`, `custom_vjp`) and checkpointing (`checkpoint`): eagerly, under jit,
grad, vjp, jacrev/jacfwd, vmap and their compositions, against `jax.custom_jvp`/`jax.custom_vjp`/`jax.checkpoint`
on the same functions in `jax.numpy`, and against finite differences."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import stridex as sx
from stridex._transforms.ir import verify
from tests.autodiff_check import check_vjp

X = np.array([100.0, 0.5, -3.0, 20.0])


def A(a):
    return np.asarray(a)


def close(got, want, **kw):
    np.testing.assert_allclose(A(got), np.asarray(want), **{"rtol": 1e-12, "atol": 1e-14, **kw})


@pytest.fixture(autouse=True)
def x64():
    with jax.enable_x64(True):
        yield


# --- custom_jvp -------------------------------------------------------------------------------------------


def make_log1pexp(xp, custom_jvp):
    @custom_jvp
    def log1pexp(x):
        return xp.log(1.0 + xp.exp(x))

    @log1pexp.defjvp
    def log1pexp_jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        return log1pexp(x), t * (1.0 - 1.0 / (1.0 + xp.exp(x)))

    return log1pexp


f_sx = make_log1pexp(sx, sx.custom_jvp)
f_jax = make_log1pexp(jnp, jax.custom_jvp)


def test_custom_jvp_fixes_an_unstable_gradient():
    # exp(100) overflows float32 (exp(1000) float64): the naive gradient is inf / inf
    for x in (sx.asarray(100.0, dtype=sx.float32), sx.asarray(1000.0)):
        with np.errstate(over="ignore", invalid="ignore"):
            naive = sx.grad(lambda x: sx.log(1.0 + sx.exp(x)))(x)
        assert np.isnan(float(naive))  # what the rule fixes
        assert float(sx.grad(f_sx)(x)) == 1.0
        assert float(sx.jit(sx.grad(f_sx))(x)) == 1.0
        assert float(sx.grad(sx.jit(f_sx))(x)) == 1.0
        assert sx.grad(f_sx)(x).dtype == x.dtype
    assert float(jax.grad(f_jax)(jnp.float32(100.0))) == 1.0


@pytest.mark.parametrize("how", ["grad", "jit(grad)", "grad(jit)", "vmap(grad)", "jit(vmap(grad))", "grad(vmap)",
                                 "jacrev", "jacfwd", "jvp", "vjp"])
def test_custom_jvp_under_transformations_matches_jax(how):
    x, jx = sx.asarray(X), jnp.asarray(X)
    scalar_sx = lambda v: sx.sum(f_sx(v))  # noqa: E731
    scalar_jax = lambda v: jnp.sum(f_jax(v))  # noqa: E731
    if how == "grad":
        got, want = sx.grad(scalar_sx)(x), jax.grad(scalar_jax)(jx)
    elif how == "jit(grad)":
        got, want = sx.jit(sx.grad(scalar_sx))(x), jax.grad(scalar_jax)(jx)
    elif how == "grad(jit)":
        got, want = sx.grad(sx.jit(scalar_sx))(x), jax.grad(scalar_jax)(jx)
    elif how == "vmap(grad)":
        got, want = sx.vmap(sx.grad(f_sx))(x), jax.vmap(jax.grad(f_jax))(jx)
    elif how == "jit(vmap(grad))":
        got, want = sx.jit(sx.vmap(sx.grad(f_sx)))(x), jax.vmap(jax.grad(f_jax))(jx)
    elif how == "grad(vmap)":
        got = sx.grad(lambda v: sx.sum(sx.vmap(f_sx)(v)))(x)
        want = jax.grad(lambda v: jnp.sum(jax.vmap(f_jax)(v)))(jx)
    elif how == "jacrev":
        got, want = sx.jacrev(f_sx)(x), jax.jacrev(f_jax)(jx)
    elif how == "jacfwd":
        got, want = sx.jacfwd(f_sx)(x), jax.jacfwd(f_jax)(jx)
    elif how == "jvp":
        t = np.array([1.0, -2.0, 0.5, 3.0])
        got = sx.jvp(f_sx, (x,), (sx.asarray(t),))
        want = jax.jvp(f_jax, (jx,), (jnp.asarray(t),))
        close(got[0], want[0])
        got, want = got[1], want[1]
    else:
        ct = np.array([1.0, 2.0, -1.0, 0.5])
        out, pullback = sx.vjp(f_sx, x)
        jout, jpullback = jax.vjp(f_jax, jx)
        close(out, jout)
        got, want = pullback(sx.asarray(ct))[0], jpullback(jnp.asarray(ct))[0]
    close(got, want)
    assert not np.isnan(A(got)).any()


def test_custom_jvp_eager_and_jit_values_are_the_function():
    x = sx.asarray(X)
    close(f_sx(x), f_jax(jnp.asarray(X)))
    close(sx.jit(f_sx)(x), f_sx(x))


def test_custom_jvp_is_one_equation_with_its_sub_program():
    x = sx.asarray(X)
    program = sx.make_ir(f_sx)(x)
    verify(program)
    (eqn,) = program.eqns
    assert eqn.prim.name == "custom_jvp_call"
    text = str(program)
    assert "custom_jvp_call" in text and "jvp=log1pexp_jvp" in text and "{ lambda" in text.split("custom_jvp_call")[1]
    assert text.count("{ lambda") == 2 and " exp " in text  # the sub-program, printed nested


def test_custom_jvp_rule_is_used_not_the_function_derivative():
    # a deliberately "wrong" rule shows the rule is what runs, in every mode
    @sx.custom_jvp
    def f(x):
        return sx.sin(x)

    f.defjvp(lambda p, t: (f(p[0]), 3.0 * t[0]))
    x = sx.asarray(np.array([0.1, 0.2]))
    close(sx.grad(lambda v: sx.sum(f(v)))(x), [3.0, 3.0])
    close(sx.jacfwd(f)(x), 3.0 * np.eye(2))
    close(sx.jit(sx.jacrev(f))(x), 3.0 * np.eye(2))


def test_custom_jvp_nondiff_argnums_and_pytrees_match_jax():
    def make(xp, custom_jvp):
        @custom_jvp
        def f(scale, tree):
            return {"prod": tree["a"] * tree["b"] * scale, "sin": (xp.sin(tree["a"]),)}

        f = custom_jvp(f.__wrapped__ if hasattr(f, "__wrapped__") else f, nondiff_argnums=(0,))

        @f.defjvp
        def f_jvp(scale, primals, tangents):
            (tree,), (t,) = primals, tangents
            out = f(scale, tree)
            return out, {"prod": scale * (t["a"] * tree["b"] + tree["a"] * t["b"]),
                         "sin": (xp.cos(tree["a"]) * t["a"],)}

        return f

    fs, fj = make(sx, sx.custom_jvp), make(jnp, jax.custom_jvp)
    a, b = np.array([0.5, 1.5]), np.array([2.0, -1.0])

    def loss(f, xp):
        return lambda a, b: xp.sum(f(2.5, {"a": a, "b": b})["prod"]) + xp.sum(f(2.5, {"a": a, "b": b})["sin"][0])

    want = jax.grad(loss(fj, jnp), argnums=(0, 1))(jnp.asarray(a), jnp.asarray(b))
    for transform in (lambda g: g, sx.jit):
        got = transform(sx.grad(loss(fs, sx), argnums=(0, 1)))(sx.asarray(a), sx.asarray(b))
        close(got[0], want[0])
        close(got[1], want[1])
    out = fs(2.5, {"a": sx.asarray(a), "b": sx.asarray(b)})
    assert set(out) == {"prod", "sin"} and isinstance(out["sin"], tuple)
    tangent = sx.jvp(lambda a: fs(2.5, {"a": a, "b": sx.asarray(b)})["prod"], (sx.asarray(a),),
                     (sx.asarray(np.ones(2)),))[1]
    close(tangent, 2.5 * b)


def test_custom_jvp_closing_over_a_jit_value_and_errors():
    def g(x, w):
        @sx.custom_jvp
        def scaled(x):
            return x * w

        scaled.defjvp(lambda p, t: (scaled(p[0]), t[0] * w))
        return sx.sum(scaled(x) ** 2)

    x, w = sx.asarray(np.array([1.0, 2.0])), sx.asarray(np.array([3.0, -1.0]))
    want = 2 * A(x) * A(w) ** 2
    close(sx.grad(g)(x, w), want)
    close(sx.jit(sx.grad(g))(x, w), want)
    close(sx.jit(g)(x, w), np.sum((A(x) * A(w)) ** 2))

    @sx.custom_jvp
    def nojvp(x):
        return x

    with pytest.raises(AttributeError, match="No JVP defined"):
        nojvp(x)

    @sx.custom_jvp
    def bad(x):
        return x

    bad.defjvp(lambda p, t: (p[0], (t[0],)))
    with pytest.raises(TypeError, match="equal container"):
        sx.jvp(bad, (x,), (x,))


def test_custom_jvp_second_order_differentiates_the_rule():
    fs = f_sx
    got = sx.grad(sx.grad(fs))(sx.asarray(0.5))
    want = jax.grad(jax.grad(f_jax))(0.5)
    close(got, want)


# --- custom_vjp -------------------------------------------------------------------------------------------

M = np.array([[2.0, -1.0, 0.5], [0.0, 3.0, 1.0]])


def make_known_adjoint(xp, custom_vjp):
    """y = M @ x + sin(x[0]): the backward function is the known adjoint."""
    m = xp.asarray(M)

    @custom_vjp
    def f(x):
        return m @ x + xp.sin(x[0])

    def fwd(x):
        return f(x), xp.cos(x[0])

    def bwd(cos_x0, g):
        ct = xp.matmul(xp.matrix_transpose(m) if xp is sx else m.T, g)
        return (ct + xp.concat([xp.sum(g)[None] * cos_x0, xp.zeros(2)]) if xp is sx else
                ct + jnp.concatenate([jnp.sum(g)[None] * cos_x0, jnp.zeros(2)]),)

    f.defvjp(fwd, bwd)
    return f


v_sx, v_jax = make_known_adjoint(sx, sx.custom_vjp), make_known_adjoint(jnp, jax.custom_vjp)
XV = np.array([0.3, -1.2, 2.0])


@pytest.mark.parametrize("how", ["grad", "jit(grad)", "grad(jit)", "vjp", "jacrev", "jit(jacrev)", "vmap(grad)",
                                 "grad(vmap)"])
def test_custom_vjp_under_transformations_matches_jax(how):
    x, jx = sx.asarray(XV), jnp.asarray(XV)
    w = np.array([1.0, -2.0])
    loss_sx = lambda v: sx.sum(v_sx(v) * sx.asarray(w))  # noqa: E731
    loss_jax = lambda v: jnp.sum(v_jax(v) * w)  # noqa: E731
    if how == "grad":
        got, want = sx.grad(loss_sx)(x), jax.grad(loss_jax)(jx)
    elif how == "jit(grad)":
        got, want = sx.jit(sx.grad(loss_sx))(x), jax.grad(loss_jax)(jx)
    elif how == "grad(jit)":
        got, want = sx.grad(sx.jit(loss_sx))(x), jax.grad(loss_jax)(jx)
    elif how == "vjp":
        out, pullback = sx.vjp(v_sx, x)
        close(out, v_jax(jx))
        got, want = pullback(sx.asarray(w))[0], jax.vjp(v_jax, jx)[1](jnp.asarray(w))[0]
    elif how == "jacrev":
        got, want = sx.jacrev(v_sx)(x), jax.jacrev(v_jax)(jx)
    elif how == "jit(jacrev)":
        got, want = sx.jit(sx.jacrev(v_sx))(x), jax.jacrev(v_jax)(jx)
    elif how == "vmap(grad)":
        xs = np.stack([XV, XV * 2, -XV])
        got = sx.vmap(sx.grad(loss_sx))(sx.asarray(xs))
        want = jax.vmap(jax.grad(loss_jax))(jnp.asarray(xs))
    else:
        xs = np.stack([XV, XV * 2])
        got = sx.grad(lambda v: sx.sum(sx.vmap(loss_sx)(v)))(sx.asarray(xs))
        want = jax.grad(lambda v: jnp.sum(jax.vmap(loss_jax)(v)))(jnp.asarray(xs))
    close(got, want)


def test_custom_vjp_known_adjoint_agrees_with_finite_differences():
    check_vjp(v_sx, [XV])


def test_custom_vjp_forward_mode_is_jaxs_type_error():
    x = sx.asarray(XV)
    with pytest.raises(TypeError, match=r"can't apply forward-mode autodiff \(jvp\) to a custom_vjp function"):
        sx.jvp(v_sx, (x,), (x,))
    with pytest.raises(TypeError, match="forward-mode"):
        sx.jacfwd(v_sx)(x)
    with pytest.raises(TypeError, match="forward-mode"):
        jax.jvp(v_jax, (jnp.asarray(XV),), (jnp.asarray(XV),))  # (the same error there)


def test_custom_vjp_nondiff_argnums_pytrees_and_none_cotangents():
    def make(xp, custom_vjp):
        @custom_vjp
        def clip_gradient(lo, hi, tree):
            return tree["x"] * tree["y"]

        clip_gradient = custom_vjp(clip_gradient.__wrapped__ if hasattr(clip_gradient, "__wrapped__")
                                   else clip_gradient, nondiff_argnums=(0, 1))

        def fwd(lo, hi, tree):
            return clip_gradient(lo, hi, tree), (tree["y"],)

        def bwd(lo, hi, res, g):
            (y,) = res
            return ({"x": xp.clip(g * y, lo, hi), "y": None},)

        clip_gradient.defvjp(fwd, bwd)
        return clip_gradient

    cs, cj = make(sx, sx.custom_vjp), make(jnp, jax.custom_vjp)
    x, y = np.array([1.0, 2.0, 3.0]), np.array([0.5, -4.0, 10.0])
    got = sx.grad(lambda t: sx.sum(cs(-1.0, 1.0, t)))({"x": sx.asarray(x), "y": sx.asarray(y)})
    want = jax.grad(lambda t: jnp.sum(cj(-1.0, 1.0, t)))({"x": jnp.asarray(x), "y": jnp.asarray(y)})
    close(got["x"], want["x"])
    close(got["y"], want["y"])  # zeros: the rule said None
    jitted = sx.jit(sx.grad(lambda t: sx.sum(cs(-1.0, 1.0, t))))({"x": sx.asarray(x), "y": sx.asarray(y)})
    close(jitted["x"], want["x"])
    close(cs(-1.0, 1.0, {"x": sx.asarray(x), "y": sx.asarray(y)}), x * y)


def test_custom_vjp_bwd_errors():
    @sx.custom_vjp
    def f(x, y):
        return x * y

    f.defvjp(lambda x, y: (x * y, (x, y)), lambda res, g: (g * res[1],))  # one cotangent for two arguments
    with pytest.raises(TypeError, match="tuple of length equal to the number of primal"):
        sx.grad(f)(sx.asarray(1.0), sx.asarray(2.0))


# --- checkpoint -------------------------------------------------------------------------------------------


def block(h):
    return sx.tanh(sx.sin(sx.tanh(h) * 1.5) + h)


def block_jax(h):
    return jnp.tanh(jnp.sin(jnp.tanh(h) * 1.5) + h)


def chain(blk, n=4):
    def f(x):
        for _ in range(n):
            x = blk(x)
        return x
    return f


def peak_live(program) -> int:
    """The most top-level values alive at once (defined, and used by a later equation or as an output)."""
    last_use = {}
    for i, eqn in enumerate(program.eqns):
        for v in eqn.inputs:
            last_use[id(v)] = i
    end = len(program.eqns)
    for v in program.outputs:
        last_use[id(v)] = end
    live, peak = set(), 0
    for i, eqn in enumerate(program.eqns):
        live = {k for k in live if last_use.get(k, -1) > i}
        live |= {id(v) for v in eqn.outputs if last_use.get(id(v), -1) > i}
        peak = max(peak, len(live))
    return peak


def test_checkpoint_values_and_gradients_equal_the_plain_function():
    x = sx.asarray(np.linspace(-1.0, 1.0, 5))
    plain, remat = chain(block), chain(sx.checkpoint(block))
    close(remat(x), plain(x))
    close(sx.jit(remat)(x), plain(x))
    loss = lambda f: lambda v: sx.sum(f(v) ** 2)  # noqa: E731
    want = jax.grad(lambda v: jnp.sum(chain(jax.checkpoint(block_jax))(v) ** 2))(jnp.asarray(A(x)))
    for transform in (lambda g: g, sx.jit):
        close(transform(sx.grad(loss(remat)))(x), want, rtol=1e-12)
        close(transform(sx.grad(loss(remat)))(x), transform(sx.grad(loss(plain)))(x), rtol=1e-15, atol=0)
    close(sx.vmap(sx.grad(lambda v: sx.sum(remat(v) ** 2)))(x), sx.vmap(sx.grad(lambda v: sx.sum(plain(v) ** 2)))(x))
    close(sx.grad(lambda v: sx.sum(sx.vmap(remat)(v)))(x), sx.grad(lambda v: sx.sum(sx.vmap(plain)(v)))(x))
    close(sx.jvp(remat, (x,), (x,))[1], sx.jvp(plain, (x,), (x,))[1])
    close(sx.jacrev(remat)(x), sx.jacfwd(plain)(x))


def test_checkpoint_second_order():
    remat = sx.checkpoint(block)
    close(sx.grad(sx.grad(remat))(sx.asarray(0.3)), jax.grad(jax.grad(jax.checkpoint(block_jax)))(0.3))


def test_checkpoint_saves_fewer_residuals_in_the_ir():
    x = sx.asarray(np.linspace(-1.0, 1.0, 8))
    loss = lambda f: lambda v: sx.sum(f(v))  # noqa: E731
    plain = sx.make_ir(sx.grad(loss(chain(block, 6))))(x)
    remat = sx.make_ir(sx.grad(loss(chain(sx.checkpoint(block), 6))))(x)
    verify(plain)
    verify(remat)
    # Without checkpointing, the forward pass's intermediates all wait for the backward pass; with it, only the
    # blocks' inputs do, and each block's are recomputed inside its backward equation.
    assert peak_live(remat) <= 8 < 15 <= peak_live(plain), (peak_live(remat), peak_live(plain))
    names = [e.prim.name for e in remat.eqns]
    # 5 forward (the last block's output is not needed by grad: dead code) + 6 backward (recompute + pullback)
    assert names.count("checkpoint") == 11
    backward = [e for e in remat.eqns if e.params.get("name") == "block_bwd"]
    assert all(any(s.prim.name == "sin" for s in e.params["call"].eqns) for e in backward)  # recomputed
    # everything_saveable: no recomputation, the plain program
    saved = sx.make_ir(sx.grad(loss(chain(sx.checkpoint(block, policy=sx.checkpoint_policies.everything_saveable),
                                          6))))(x)
    assert "checkpoint" not in [e.prim.name for e in saved.eqns]
    assert peak_live(saved) == peak_live(plain)


def test_checkpoint_policy_saves_named_values():
    def blk(h):
        s = sx.checkpoint_name(sx.sin(h * 2.0), "s")
        return sx.exp(s) * h

    x = sx.asarray(np.array([0.1, 0.7]))
    want = sx.grad(lambda v: sx.sum(blk(v)))(x)
    for policy, recomputes_sin in ((sx.checkpoint_policies.nothing_saveable, True),
                                   (sx.checkpoint_policies.save_only_these_names("s"), False),
                                   (sx.checkpoint_policies.save_any_names_but_these("t"), False),
                                   (sx.checkpoint_policies.save_any_names_but_these("s"), True)):
        f = sx.checkpoint(blk, policy=policy)
        g = lambda v: sx.sum(f(v))  # noqa: E731
        close(sx.grad(g)(x), want)
        close(sx.jit(sx.grad(g))(x), want)
        program = sx.make_ir(sx.grad(g))(x)
        (bwd,) = [e for e in program.eqns if e.params.get("name") == "blk_bwd"]
        assert any(s.prim.name == "sin" for s in bwd.params["call"].eqns) == recomputes_sin, policy
    assert sx.checkpoint_name(x, "s") is x  # eagerly the identity
    assert sx.remat is sx.checkpoint


def test_checkpoint_decorator_static_argnums_and_pytrees():
    @sx.checkpoint
    def f(tree):
        return {"y": sx.sin(tree[0]) * tree[1]}

    @sx.remat(static_argnums=(1,))
    def g(x, n):
        for _ in range(n):
            x = sx.sin(x)
        return x

    x = sx.asarray(np.array([0.2, 0.4]))
    close(sx.grad(lambda v: sx.sum(f((v, v))["y"]))(x), np.cos(A(x)) * A(x) + np.sin(A(x)))
    close(sx.jit(sx.grad(lambda v: sx.sum(g(v, 3))))(x), sx.grad(lambda v: sx.sum(sx.sin(sx.sin(sx.sin(v)))))(x))
    with pytest.raises(TypeError, match="policy"):
        sx.checkpoint(block, policy="nothing")


def test_custom_call_before_a_graph_break_and_closures():
    x, w = sx.asarray(np.array([1.0, -2.0])), sx.asarray(np.array([0.5, 3.0]))

    def h(v):
        y = f_sx(v)
        return y * 2.0 if sx.sum(y) > 0 else y  # a graph break after the custom call

    jitted = sx.jit(h)
    close(jitted(x), h(x))
    close(jitted(x), np.log1p(np.exp(A(x))) * 2.0)

    def g(v, w):
        @sx.custom_jvp
        def scaled(v):
            return v * w

        scaled.defjvp(lambda p, t: (scaled(p[0]), t[0] * w))
        return sx.sum(scaled(v) ** 2)

    for transform in (lambda f: f, sx.jit):
        with pytest.raises(TypeError, match="with respect to a value it closes over"):
            transform(sx.grad(g, argnums=1))(x, w)
    # checkpoint: closed-over values are differentiated like arguments
    k = lambda w: sx.sum(sx.checkpoint(lambda v: sx.sin(v * w))(x))  # noqa: E731
    want = np.cos(A(x) * A(w)) * A(x)
    close(sx.grad(k)(w), want)
    close(sx.jit(sx.grad(k))(w), want)
    close(sx.jacfwd(k)(w), want)


def test_eager_call_runs_the_python_function():
    calls = []

    @sx.custom_vjp
    def f(x):
        calls.append(1)
        return x * 2.0 if float(sx.sum(x)) > 0 else x  # a Python decision: fine eagerly

    f.defvjp(lambda x: (f(x), None), lambda res, g: (g * 2.0,))
    close(f(sx.asarray([1.0])), [2.0])
    close(f(sx.asarray([-1.0])), [-1.0])
    assert len(calls) == 2


def test_sub_programs_are_well_formed_and_printed_nested():
    x = sx.asarray(X)
    program = sx.make_ir(lambda v: sx.checkpoint(lambda u: f_sx(u) * 2.0)(v))(x)
    verify(program)
    (outer,) = program.eqns
    inner = outer.params["call"]
    verify(inner)
    (nested,) = [e for e in inner.eqns if e.prim.name == "custom_jvp_call"]
    verify(nested.params["call"])
    lines = str(program).splitlines()

    def depth(word):
        (line,) = [line for line in lines if f" {word}" in line]
        return len(line) - len(line.lstrip())

    assert depth("checkpoint") < depth("custom_jvp_call") < depth("exp")  # each sub-program nested in its own


def test_defjvps_matches_jax():
    def make(xp, custom_jvp):
        @custom_jvp
        def f(x, y):
            return xp.sin(x) * y

        f.defjvps(lambda t, ans, x, y: xp.cos(x) * t * y, lambda t, ans, x, y: xp.sin(x) * t)
        return f

    fs, fj = make(sx, sx.custom_jvp), make(jnp, jax.custom_jvp)
    a, b = np.array([0.3, 1.1]), np.array([2.0, -0.5])
    got = sx.grad(lambda a, b: sx.sum(fs(a, b)), argnums=(0, 1))(sx.asarray(a), sx.asarray(b))
    want = jax.grad(lambda a, b: jnp.sum(fj(a, b)), argnums=(0, 1))(jnp.asarray(a), jnp.asarray(b))
    close(got[0], want[0])
    close(got[1], want[1])


def test_custom_rules_on_a_jax_device():
    x = sx.asarray(X, device="cpu:1")
    want = 1.0 - 1.0 / (1.0 + np.exp(X))
    assert f_sx(x).device == x.device
    close(sx.grad(lambda v: sx.sum(f_sx(v)))(x).to_device("cpu"), want)
    g = sx.jit(sx.grad(lambda v: sx.sum(sx.checkpoint(f_sx)(v))))(x)
    assert g.device == x.device
    close(g.to_device("cpu"), want)
    y = sx.asarray(XV, device="cpu:1")
    close(sx.jit(sx.jacrev(v_sx))(y).to_device("cpu"), jax.jacrev(v_jax)(jnp.asarray(XV)))


@pytest.mark.parametrize("policy, recomputed_dots", [("nothing_saveable", 1), ("dots_saveable", 0),
                                                     ("dots_with_no_batch_dims_saveable", 0)])
def test_checkpoint_policies_that_save_matrix_products(policy, recomputed_dots):
    w = sx.asarray(np.array([[0.5, -1.0], [2.0, 0.25], [1.0, 1.0]]))

    def layer(w, h):
        return sx.tanh(h @ w) @ sx.matrix_transpose(w)

    def layer_jax(w, h):
        return jnp.tanh(h @ w) @ w.T

    h = sx.asarray(np.array([[0.1, 0.2, -0.3], [1.0, 0.5, 0.0]]))
    remat = sx.checkpoint(layer, policy=getattr(sx.checkpoint_policies, policy))
    loss = lambda w, h: sx.sum(remat(w, h) ** 2)  # noqa: E731
    want = jax.grad(lambda w, h: jnp.sum(jax.checkpoint(layer_jax, policy=getattr(jax.checkpoint_policies, policy))(
        w, h) ** 2), argnums=(0, 1))(jnp.asarray(A(w)), jnp.asarray(A(h)))
    for transform in (lambda f: f, sx.jit):
        got = transform(sx.grad(loss, argnums=(0, 1)))(w, h)
        close(got[0], want[0])
        close(got[1], want[1])
    program = sx.make_ir(sx.grad(loss, argnums=(0, 1)))(w, h)
    (backward,) = [e for e in program.eqns if e.params.get("name") == "layer_bwd"]
    dots = [e for e in backward.params["call"].eqns if e.prim.name == "dot_general"]
    # the backward pass of two products takes four; the forward's first product again unless it was saved
    # (the second's result is not needed by any rule)
    assert len(dots) == 4 + recomputed_dots, [str(e.params) for e in dots]


def test_defjvps_with_a_pytree_output():
    @sx.custom_jvp
    def f(x, y):
        return (x * y, sx.sin(x))

    f.defjvps(lambda t, ans, x, y: (t * y, sx.cos(x) * t), lambda t, ans, x, y: (x * t, sx.zeros_like(t)))
    x, y = sx.asarray(np.array([0.2, 0.4])), sx.asarray(np.array([3.0, -1.0]))
    got = sx.grad(lambda x, y: sx.sum(f(x, y)[0]) + sx.sum(f(x, y)[1]), argnums=(0, 1))(x, y)
    close(got[0], A(y) + np.cos(A(x)))
    close(got[1], A(x))


def test_checkpoint_lowers_behind_an_optimization_barrier():
    x = sx.asarray(np.linspace(-1.0, 1.0, 8))
    for prevent_cse, barriers in ((True, 5), (False, 0)):
        remat = sx.checkpoint(block, prevent_cse=prevent_cse)
        text = sx.jit(sx.grad(lambda v: sx.sum(chain(remat, 3)(v)))).lower(x).as_text()
        # two forward blocks (the third's output is not needed) and three backward ones
        assert text.count("optimization_barrier") == barriers
