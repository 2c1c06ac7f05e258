"""Structured control flow (`cond`, `switch`, `while_loop`, `fori_loop`, `scan`): each against its `jax.lax`
counterpart on the same function written in `jax.numpy` (eager, jit, grad, vmap, jit(grad), vmap(grad)),
derivatives against finite differences, writes inside bodies and branches against the same Python loop
run eagerly, the IR (printed once, nested; verified; passes inside), errors, and a device."""

from __future__ import annotations

import numpy as np
import pytest

import stridex as sx
from stridex._transforms.ir import verify
from stridex._transforms.tracing import ConcretizationError, DataDependentShapeError
from tests.autodiff_check import check_grads, check_jvp

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
lax = jax.lax


@pytest.fixture(autouse=True)
def _jax_in_64_bit():
    with jax.enable_x64(True):
        yield


RNG = np.random.default_rng(0)
W = RNG.standard_normal((4, 4)) * 0.4


# --- the cases: the same function in stridex and in jax.numpy, of one vector, returning a scalar -------


def sx_fori(x):
    w = sx.asarray(W)
    h = sx.fori_loop(0, 5, lambda i, h: sx.tanh(w @ h) + 0.1 * i, x)
    return sx.sum(h * h)


def jax_fori(x):
    h = lax.fori_loop(0, 5, lambda i, h: jnp.tanh(jnp.asarray(W) @ h) + 0.1 * i, x)
    return jnp.sum(h * h)


def sx_scan(x, reverse=False):
    xs = sx.reshape(x, (2, 2))

    def step(c, r):
        return sx.sin(c) * r + c, c * r

    c, ys = sx.scan(step, x[:2] * 0.5, xs, reverse=reverse)
    return sx.sum(c) + sx.sum(ys * ys * sx.asarray([[1.0, 2.0], [3.0, 4.0]]))


def jax_scan(x, reverse=False):
    xs = jnp.reshape(x, (2, 2))

    def step(c, r):
        return jnp.sin(c) * r + c, c * r

    c, ys = lax.scan(step, x[:2] * 0.5, xs, reverse=reverse)
    return jnp.sum(c) + jnp.sum(ys * ys * jnp.asarray([[1.0, 2.0], [3.0, 4.0]]))


def sx_cond(x):
    y = sx.cond(sx.sum(x) > 0, lambda v, k: sx.sin(v) * k, lambda v, k: v * v - k, x, 2.0)
    return sx.sum(y)


def jax_cond(x):
    y = lax.cond(jnp.sum(x) > 0, lambda v, k: jnp.sin(v) * k, lambda v, k: v * v - k, x, 2.0)
    return jnp.sum(y)


def sx_switch(x):
    i = sx.astype(x[0] > 0, sx.int64) + sx.astype(x[1] > 0, sx.int64)
    y = sx.switch(i, [lambda v: v * 3.0, lambda v: sx.exp(v), lambda v: v * v], x)
    return sx.sum(y)


def jax_switch(x):
    i = (x[0] > 0).astype(jnp.int64) + (x[1] > 0).astype(jnp.int64)
    y = lax.switch(i, [lambda v: v * 3.0, lambda v: jnp.exp(v), lambda v: v * v], x)
    return jnp.sum(y)


CASES = {
    "fori_loop": (sx_fori, jax_fori),
    "scan": (sx_scan, jax_scan),
    "scan_reverse": (lambda x: sx_scan(x, True), lambda x: jax_scan(x, True)),
    "cond": (sx_cond, jax_cond),
    "switch": (sx_switch, jax_switch),
}
X = np.array([0.3, -0.7, 0.5, 1.1])
XB = np.array([[0.3, -0.7, 0.5, 1.1], [-0.2, 0.4, -1.0, 0.2], [1.5, 0.6, -0.3, -0.8]])


def close(a, b, rtol=1e-10):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=rtol, atol=1e-12)


@pytest.mark.parametrize("name", list(CASES))
def test_against_jax(name):
    f, g = CASES[name]
    x = sx.asarray(X)
    xj = jnp.asarray(X)
    want = g(xj)
    close(f(x), want)
    close(sx.jit(f)(x), want)
    close(sx.grad(f)(x), jax.grad(g)(xj))
    close(sx.jit(sx.grad(f))(x), jax.grad(g)(xj))
    close(sx.vmap(f)(sx.asarray(XB)), jax.vmap(g)(jnp.asarray(XB)))
    close(sx.vmap(sx.grad(f))(sx.asarray(XB)), jax.vmap(jax.grad(g))(jnp.asarray(XB)))
    assert f(x).dtype == sx.jit(f)(x).dtype == sx.float64


@pytest.mark.parametrize("name", ["fori_loop", "scan", "cond"])
def test_derivatives_against_finite_differences(name):
    check_grads(CASES[name][0], [X])


def test_eager_runs_python():
    calls = []

    def body(i, c):
        calls.append(i)
        return c + i

    assert int(sx.fori_loop(2, 5, body, 0)) == 9 and calls == [2, 3, 4]  # Python ints, as range() gives
    carry, ys = sx.scan(lambda c, x: (c * x, c), sx.asarray(1.0), sx.asarray([2.0, 3.0]))
    assert float(carry) == 6.0 and np.asarray(ys).tolist() == [1.0, 2.0]
    assert sx.while_loop(lambda c: c < 10, lambda c: c * 3, 1) == 27


# --- while_loop and fori_loop with traced bounds: forward mode, batching, the reverse-mode error -------


def sx_newton(a):
    def body(c):
        x, n = c
        return x - (x * x - a) / (2 * x), n + 1

    return sx.while_loop(lambda c: sx.abs(c[0] * c[0] - a) > 1e-12 * a, body, (a, 0))


def jax_newton(a):
    def body(c):
        x, n = c
        return x - (x * x - a) / (2 * x), n + 1

    return lax.while_loop(lambda c: jnp.abs(c[0] * c[0] - a) > 1e-12 * a, body, (a, 0))


def test_while_loop_against_jax():
    a, aj = sx.asarray(7.0), jnp.asarray(7.0)
    for got in (sx_newton(a), sx.jit(sx_newton)(a)):
        close(got[0], jax_newton(aj)[0])
        assert int(got[1]) == int(jax_newton(aj)[1])
    t_sx = sx.jvp(lambda a: sx_newton(a)[0], (a,), (sx.asarray(1.0),))[1]
    close(t_sx, jax.jvp(lambda a: jax_newton(a)[0], (aj,), (jnp.asarray(1.0),))[1])
    close(sx.jit(lambda a: sx.jvp(lambda a: sx_newton(a)[0], (a,), (sx.asarray(1.0),))[1])(a), t_sx)
    check_jvp(lambda a: sx_newton(a)[0], [np.array(7.0)])
    # A batched predicate: each member stops at its own iteration count.
    batch = np.array([2.0, 9.0, 1e4])
    got = sx.vmap(sx_newton)(sx.asarray(batch))
    want = jax.vmap(jax_newton)(jnp.asarray(batch))
    close(got[0], want[0])
    alone = [int(sx_newton(sx.asarray(b))[1]) for b in batch]
    assert np.asarray(got[1]).tolist() == np.asarray(want[1]).tolist() == alone
    close(sx.jit(sx.vmap(sx_newton))(sx.asarray(batch))[0], want[0])


def test_while_loop_reverse_mode_is_a_clear_error():
    with pytest.raises(ValueError, match="fori_loop with static"):
        sx.grad(lambda a: sx_newton(a)[0])(sx.asarray(2.0))
    with pytest.raises(ValueError, match="use scan|Use scan"):
        sx.jit(sx.grad(lambda a: sx_newton(a)[0]))(sx.asarray(2.0))


def test_fori_loop_traced_bounds_is_a_while():
    def f(x, n):
        return sx.fori_loop(0, n, lambda i, c: c * 2 + i, x)

    def g(x, n):
        return lax.fori_loop(0, n, lambda i, c: c * 2 + i, x)

    x = np.array([1.0, -2.0])
    for n in (0, 3, 5):
        close(sx.jit(f)(sx.asarray(x), sx.asarray(n)), g(jnp.asarray(x), n))
    assert "while[" in str(sx.make_ir(f)(sx.asarray(x), sx.asarray(3)))
    assert "scan[" in str(sx.make_ir(lambda x: f(x, 3))(sx.asarray(x)))
    close(sx.vmap(f, in_axes=(0, 0))(sx.asarray([[1.0, 2.0], [3.0, 4.0]]), sx.asarray([1, 3])),
          jax.vmap(g)(jnp.asarray([[1.0, 2.0], [3.0, 4.0]]), jnp.asarray([1, 3])))


# --- writes inside bodies and branches: exactly the eager Python loop --------------------------------


def writing_fori(x, loop):
    buf = sx.zeros(5)

    def body(i, c):
        buf[i] = c
        buf[::-1][0] += c
        return c * x

    c = loop(0, 4, body, x * 1.0)
    return sx.sum(buf * buf) + c


def python_fori(lower, upper, body, c):
    for i in range(lower, upper):
        c = body(i, c)
    return c


def test_fori_loop_writes_into_closed_over_array_and_its_views():
    x = sx.asarray(1.5)
    want = writing_fori(x, python_fori)
    close(writing_fori(x, sx.fori_loop), want)
    close(sx.jit(lambda x: writing_fori(x, sx.fori_loop))(x), want)
    close(sx.grad(lambda x: writing_fori(x, sx.fori_loop))(x), sx.grad(lambda x: writing_fori(x, python_fori))(x))
    close(sx.jit(sx.grad(lambda x: writing_fori(x, sx.fori_loop)))(x),
          sx.grad(lambda x: writing_fori(x, python_fori))(x))
    xs = sx.asarray([0.5, 1.5, -2.0])
    close(sx.vmap(lambda x: writing_fori(x, sx.fori_loop))(xs), sx.vmap(lambda x: writing_fori(x, python_fori))(xs))
    check_grads(lambda x: writing_fori(x, sx.fori_loop), [np.array(1.2)])


def test_writes_reach_the_caller_arrays_and_earlier_views():
    def fill(buf, x):
        view = buf[::-1]  # taken before the loop: re-reads the newest version after it

        def body(c):
            i, v = c
            buf[i] = v
            view[0] += 1.0
            return i + 1, v * x

        sx.while_loop(lambda c: c[0] < 3, body, (0, x))
        return view * 1.0

    def python(buf, x):
        view = buf[::-1]
        i, v = 0, x
        while i < 3:
            buf[i] = v
            view[0] += 1.0
            i, v = i + 1, v * x
        return view * 1.0

    want_buf = sx.zeros(4)
    want = python(want_buf, sx.asarray(2.0))
    for run in (fill, sx.jit(fill)):
        buf = sx.zeros(4)
        close(run(buf, sx.asarray(2.0)), want)
        close(buf, want_buf)


def test_scan_writes_into_a_view_of_a_closed_over_array():
    def f(x):
        out = sx.zeros((3, 2))
        col = out[:, 1]

        def step(c, r):
            col[...] += r  # a write through a view, every step
            out[0] = c
            return c + r, sx.sum(out)

        c, ys = sx.scan(step, x[0], x)
        return out, ys, c

    def python(x):
        out = sx.zeros((3, 2))
        col = out[:, 1]
        c, ys = x[0], []
        for r in x:
            col[...] += r
            out[0] = c
            c, y = c + r, sx.sum(out)
            ys.append(y)
        return out, sx.stack(ys), c

    x = sx.asarray([1.0, 2.0, 4.0])
    want = python(x)
    for got in (f(x), sx.jit(f)(x)):
        for a, b in zip(got, want):
            close(a, b)
    g = sx.grad(lambda x: sx.sum(f(x)[0] ** 2) + sx.sum(f(x)[1]))(x)
    close(g, sx.grad(lambda x: sx.sum(python(x)[0] ** 2) + sx.sum(python(x)[1]))(x))


def test_cond_branch_writes_into_its_operand():
    def f(x, buf):
        def true_fun(b):
            b[0] = x * 10
            b[::-1][0] = 1.0
            return sx.sum(b)

        return sx.cond(x > 0, true_fun, lambda b: sx.sum(b) * 0.5, buf)

    for x in (2.0, -2.0):
        want_buf = sx.asarray([1.0, 2.0, 3.0])
        want = f(sx.asarray(x), want_buf)  # eagerly: a Python if
        buf = sx.asarray([1.0, 2.0, 3.0])
        close(sx.jit(f)(sx.asarray(x), buf), want)
        close(buf, want_buf)
    # A batched predicate runs both branches and selects, written operands included.
    bufs = sx.asarray([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]])
    xs = sx.asarray([2.0, -1.0, 3.0])
    want_bufs = sx.asarray(np.asarray(bufs).copy())
    want = [f(xs[i], want_bufs[i]) for i in range(3)]
    close(sx.vmap(f)(xs, bufs), sx.stack(want))
    close(bufs, want_bufs)


# --- types and errors ------------------------------------------------------------------------------------


def test_carry_type_mismatch_names_the_leaf_and_both_types():
    def f(x):
        return sx.fori_loop(0, 3, lambda i, c: {"a": c["a"], "b": sx.astype(c["b"], sx.float32)},
                            {"a": x, "b": x})

    for run in (f, sx.jit(f)):
        with pytest.raises(TypeError, match=r"\['b'\].*float32\[2\].*float64\[2\]"):
            run(sx.ones(2))
    with pytest.raises(TypeError, match="structure"):
        sx.jit(lambda x: sx.scan(lambda c, _: ((c, c), None), x, length=2))(sx.ones(2))


def test_branch_type_mismatch_names_both_branches():
    with pytest.raises(TypeError, match=r"true_fun.*\[1\].*float64\[2\].*false_fun.*float64\[1\]"):
        sx.jit(lambda x: sx.cond(x[0] > 0, lambda: (x, x), lambda: (x, x[:1])))(sx.ones(2))


def test_python_decision_inside_a_body_names_the_body_and_line():
    def body(i, c):
        if c[0] > 1:  # a Python decision on a traced value
            return c
        return c * 2

    f = lambda x: sx.fori_loop(0, 3, body, x)  # noqa: E731
    close(f(sx.ones(2)), [2.0, 2.0])  # eagerly, Python decides
    with pytest.raises(ConcretizationError, match=r"body_fun `.*body` of fori_loop.*test_control_flow.py:\d+"):
        sx.jit(f)(sx.ones(2))
    with pytest.raises(DataDependentShapeError, match="scan"):
        sx.jit(lambda x: sx.scan(lambda c, r: (c + sx.sum(r[r > 0]), None), 0.0, x))(sx.ones((2, 3)))


# --- the IR ---------------------------------------------------------------------------------------------


def test_ir_size_does_not_depend_on_the_trip_count_and_passes_recurse():
    w = sx.asarray(W)

    def f(h, n):
        def body(i, h):
            a = sx.exp(h) + sx.exp(h)  # (CSE inside the body)
            return sx.tanh(w @ a)
        return sx.fori_loop(0, n, body, h)

    h = sx.ones(4)
    small = sx.make_ir(f, static_argnums=1)(h, 10)
    large = sx.make_ir(f, static_argnums=1)(h, 10_000)
    assert len(str(small).splitlines()) == len(str(large).splitlines())
    text = str(small)
    assert text.count("exp") == 1 and text.count("body = {") == 1
    raw = str(sx.make_ir(f, static_argnums=1, optimize=False)(h, 10))
    assert raw.count("exp") == 2
    verify(small)
    verify(sx.make_ir(sx.grad(lambda h: sx.sum(f(h, 3))))(h))
    verify(sx.make_ir(sx.vmap(sx_newton))(sx.asarray([2.0, 3.0])))


# --- devices --------------------------------------------------------------------------------------------


def test_loops_run_on_their_operands_device_and_compile_once():
    dev = "cpu:1"
    w = sx.asarray(W).to_device(dev)
    f = sx.jit(lambda h: sx.fori_loop(0, 4, lambda i, h: sx.tanh(w @ h), h))
    h = sx.asarray(X)
    want = f(h)
    for k in range(2):
        got = f(h.to_device(dev) * (1 + k))
        assert got.device == sx.asarray(0.0).to_device(dev).device
    assert f.stats["traces"] == 2  # (once for the host, once for the device)
    close(f(h.to_device(dev)), want)
    close(sx.grad(lambda h: sx.sum(sx.fori_loop(0, 4, lambda i, h: sx.tanh(w @ h), h)))(h.to_device(dev)),
          jax.grad(lambda h: jnp.sum(lax.fori_loop(0, 4, lambda i, h: jnp.tanh(jnp.asarray(W) @ h), h)))(
              jnp.asarray(X)))


# --- compositions ---------------------------------------------------------------------------------------


def python_scan(f, init, xs):
    c, ys = init, []
    for x in xs:
        c, y = f(c, x)
        ys.append(y)
    return c, sx.stack(ys)


def test_nested_loops_writing_into_one_buffer():
    def nested(x, loop):
        buf = sx.zeros((3, 4))

        def outer(i, c):
            def inner(j, d):
                buf[i, j] += d
                buf[::-1, ::-1][0, 0] += 1.0
                return d * x
            return loop(0, 4, inner, c) + buf[i, 0]

        return loop(0, 3, outer, x), buf

    x = sx.asarray(1.1)
    want = nested(x, python_fori)
    for got in (nested(x, sx.fori_loop), sx.jit(lambda x: nested(x, sx.fori_loop))(x)):
        close(got[0], want[0])
        close(got[1], want[1])
    close(sx.grad(lambda x: sx.sum(nested(x, sx.fori_loop)[1]))(x),
          sx.grad(lambda x: sx.sum(nested(x, python_fori)[1]))(x))
    xs = sx.asarray([1.0, 0.5])
    close(sx.vmap(lambda x: nested(x, sx.fori_loop)[1])(xs), sx.vmap(lambda x: nested(x, python_fori)[1])(xs))


def test_batched_while_and_switch_with_writes():
    def wl(a):
        buf = sx.zeros(6)

        def body(c):
            i, x = c
            buf[i] = x
            return i + 1, x * 2

        sx.while_loop(lambda c: c[1] < a, body, (0, sx.asarray(1.0)))
        return buf

    a = sx.asarray([3.0, 20.0, 1.0])
    want = sx.stack([wl(v) for v in a])
    close(sx.vmap(wl)(a), want)
    close(sx.jit(sx.vmap(wl))(a), want)

    def sw(i, v):
        def b0(v):
            v[0] = -1.0
            return v[1]

        def b1(v):
            v[1] = -2.0
            return v[0]

        return sx.switch(i, [b0, b1, lambda v: v[2]], v)

    index = sx.asarray([0, 1, 2, 5])
    rows = sx.reshape(sx.arange(12.0), (4, 3))
    want_rows = sx.reshape(sx.arange(12.0), (4, 3))
    want = sx.stack([sw(index[k], want_rows[k]) for k in range(4)])
    close(sx.vmap(sw)(index, rows), want)
    close(rows, want_rows)


def test_scan_jacobians_against_the_python_loop():
    def g(v, scan):
        _, ys = scan(lambda c, x: (sx.sin(c) * x, c * x), v, sx.asarray([1.0, 2.0, -0.5]))
        return sx.reshape(ys, (-1,))

    v = sx.asarray([0.3, 0.4])
    want = sx.jacrev(lambda v: g(v, python_scan))(v)
    close(sx.jacfwd(lambda v: g(v, sx.scan))(v), want)
    close(sx.jacrev(lambda v: g(v, sx.scan))(v), want)
    close(sx.hessian(lambda v: sx.sum(g(v, sx.scan) ** 2))(v), sx.hessian(lambda v: sx.sum(g(v, python_scan) ** 2))(v))


def test_scan_details_and_a_graph_break_after_a_loop():
    for run in (lambda f: f, sx.jit):
        c, ys = run(lambda c: sx.scan(lambda c, _: (c * 2, c), c, length=0))(sx.asarray(1.0))
        assert float(c) == 1.0 and ys.shape == (0,)
        c, ys = run(lambda c: sx.scan(lambda c, x: (c * x, {"y": c}), c, sx.arange(1.0, 6.0), unroll=2))(
            sx.asarray(1.0))
        close(ys["y"], [1.0, 1.0, 2.0, 6.0, 24.0])

    def gb(v):
        r = sx.fori_loop(0, 3, lambda i, c: c * 2, v)
        if sx.any(r > 10):  # a graph break on the loop's result: the evaluator runs the loop eagerly
            return r - 100
        return r

    f = sx.jit(gb)
    for v in ([1.0, 2.0], [1.0, 0.5]):
        close(f(sx.asarray(v)), gb(sx.asarray(v)))


def test_reverse_mode_ir_saves_residuals_once_and_prunes_unneeded_carries():
    w = sx.asarray(W)

    def loss(h, xs):
        h, _ = sx.scan(lambda h, x: (sx.tanh(w @ h + x), None), h, xs)
        return sx.sum(h * h)

    h, xs = sx.asarray(X), sx.asarray(RNG.standard_normal((5, 4)))
    program = sx.make_ir(sx.grad(loss))(h, xs)
    verify(program)
    scans = [e for e in program.eqns if e.prim.name == "scan"]
    # One forward scan (the primal one, also returning its residuals), one backward scan carrying only
    # h's cotangent (the 4x4 cotangent of w, not asked for, is pruned with what computes it).
    assert len(scans) == 2 and [e.params["reverse"] for e in scans] == [False, True]
    assert scans[1].params["num_carry"] == 1 and "tanh" not in str(scans[1].params["body"])
    want = jax.grad(lambda h, xs: jnp.sum(lax.scan(lambda h, x: (jnp.tanh(jnp.asarray(W) @ h + x), None), h, xs)[0]
                                           ** 2))(jnp.asarray(X), jnp.asarray(np.asarray(xs)))
    close(sx.jit(sx.grad(loss))(h, xs), want)


def test_second_derivatives_through_scan_and_cond():
    def f(x, scan):
        c, ys = scan(lambda c, t: (sx.sin(c) * t + c * x, c * c), x, sx.asarray([1.0, 2.0, 0.5]))
        return c + sx.sum(ys)

    x = sx.asarray(0.3)
    want = sx.grad(sx.grad(lambda x: f(x, python_scan)))(x)
    second = sx.grad(sx.grad(lambda x: f(x, sx.scan)))
    close(second(x), want)
    close(sx.jit(second)(x), want)  # (three scans extending one another: the passes merge them soundly)
    verify(sx.make_ir(second)(x))

    def g(x):
        return sx.cond(x > 0, lambda: sx.sin(x) * x, lambda: x ** 3)

    for v in (0.3, -0.3):
        want = jax.grad(jax.grad(lambda x: lax.cond(x > 0, lambda: jnp.sin(x) * x, lambda: x ** 3)))(v)
        close(sx.jit(sx.grad(sx.grad(g)))(sx.asarray(v)), want)


def test_weakly_typed_carry_outputs_take_the_carry_dtype():
    x = sx.ones(2, dtype=sx.float32)

    def f(x):
        return sx.fori_loop(0, 3, lambda i, c: (c[0] * 2, 0.5), (x, sx.asarray(1.0, dtype=sx.float32)))

    for got in (f(x), sx.jit(f)(x)):
        assert got[0].dtype == got[1].dtype == sx.float32 and float(got[1]) == 0.5
    close(f(x)[0], [8.0, 8.0])
    with pytest.raises(TypeError, match="float64.*int32"):  # a float does not fit an int carry
        sx.jit(lambda x: sx.fori_loop(0, 3, lambda i, c: 0.5, sx.asarray(1, dtype=sx.int32)))(x)


def test_jit_writes_back_what_a_loop_or_branch_wrote_into_an_input():
    # jit writes back into the caller's array only the parts a call wrote (threads may write the rest): the
    # parts written inside a loop body or a branch count, beside a write before the loop (found by the fuzzer:
    # an empty write before the loop made the loop's write go unrecorded, and lost).
    def before_and_in_loop(a):
        a[:, :0] = 0.0

        def body(i, c):
            a[:, :] = 0.0
            return c

        sx.fori_loop(0, 2, body, 0.0)
        return a * 1.0

    def in_branch(a, p):
        def write():
            a[1, :] = 7.0

        sx.cond(p, write, lambda: None)
        return a * 1.0

    for fn, extra in ((before_and_in_loop, ()), (in_branch, (sx.asarray(True),))):
        want = sx.asarray(np.arange(6.0).reshape(2, 3))
        fn(want, *extra)
        got = sx.asarray(np.arange(6.0).reshape(2, 3))
        sx.jit(fn)(got, *extra)
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
