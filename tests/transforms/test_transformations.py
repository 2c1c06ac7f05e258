"""Transformations across the board: grad/jvp/vjp through views and writes, compositions with jit and
vmap, error cases, and gradients against JAX's."""

from __future__ import annotations

import numpy as np
import pytest

import stridex as sx
from tests.autodiff_check import check_batch, check_grads

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")


@pytest.fixture(autouse=True)
def _jax_reference_in_64_bit():
    """The JAX reference gradients are computed in float64, like stridex's."""
    with jax.enable_x64(True):
        yield


def a64(values):
    return sx.asarray(np.asarray(values, dtype=np.float64))


def fill_and_read(y):
    """Write y into a buffer through a slice, then read the buffer back through a reversed view."""
    a = sx.zeros((4,), dtype=sx.float64)
    a[1:] = y
    return sx.sum(a[::-1] * sx.asarray([1.0, 2.0, 3.0, 4.0]))


def test_grad_through_writes_and_reversed_views():
    g = sx.grad(fill_and_read)(a64([1.0, 2.0, 3.0]))
    # a = [0, y0, y1, y2]; a[::-1] = [y2, y1, y0, 0] weighted by [1, 2, 3, 4]
    np.testing.assert_allclose(np.asarray(g), [3.0, 2.0, 1.0])
    check_grads(lambda y: fill_and_read(y), [np.array([0.5, -1.0, 2.0])])


def test_grad_through_chain_of_views_and_inplace_ops():
    def f(x):
        b = x * 1.0
        v = sx.permute_dims(b, (1, 0))[::-1]
        v[0] *= 3.0
        b[:, 0] += x[:, 1]
        return sx.sum(b * b)

    x = np.arange(6.0).reshape(2, 3) / 7
    check_grads(f, [x])
    jax_f = lambda x: _jax_version(x)
    np.testing.assert_allclose(np.asarray(sx.grad(f)(a64(x))), np.asarray(jax.grad(jax_f)(jnp.asarray(x))),
                               rtol=1e-12)


def write_through_a_flip_then_read_a_reshape(x):
    """A write through a flipped view of b leaves b's value in a flipped layout, where a transformation
    holds values; the reshape view of b taken before the write is re-derived from that value then, and a
    flipped layout cannot be reshaped in place (a transformation met an internal assertion there)."""
    b = x * 1.0
    flipped = sx.flip(b, axis=0)
    flat = sx.reshape(b, (-1,))  # a view of b while b is contiguous
    flipped[0] = x[1] * 2.0  # b[-1] = 2 x[1]
    return sx.sum(flat * sx.sin(flat))


def test_transformations_rederive_a_reshape_view_after_a_write_through_a_flip():
    x = np.arange(6.0).reshape(3, 2) / 5
    check_grads(write_through_a_flip_then_read_a_reshape, [x])
    jax_f = lambda x: jnp.sum((b := (x * 1.0).at[-1].set(x[1] * 2.0)).reshape(-1) * jnp.sin(b.reshape(-1)))
    want = np.asarray(jax.grad(jax_f)(jnp.asarray(x)))
    for how in (sx.grad, lambda f: sx.jit(sx.grad(f)), sx.jacrev, sx.jacfwd):
        np.testing.assert_allclose(np.asarray(how(write_through_a_flip_then_read_a_reshape)(a64(x))), want,
                                   rtol=1e-12)
    check_batch(write_through_a_flip_then_read_a_reshape, [a64(np.stack([x, -x, 2 * x]))])
    check_batch(sx.grad(write_through_a_flip_then_read_a_reshape), [a64(np.stack([x, -x, 2 * x]))])


def _jax_version(x):
    b = x * 1.0
    b = b.at[:, -1].multiply(3.0)  # permute then reverse: row 0 of v is column -1 of b
    b = b.at[:, 0].add(x[:, 1])
    return jnp.sum(b * b)


def test_jvp_matches_vjp_through_writes():
    def f(y):
        buf = sx.zeros((3, 3), dtype=sx.float64)
        buf[1] = y
        buf[:, 2] = y * y
        return sx.reshape(buf, (-1,))

    check_grads(f, [np.array([0.3, -0.2, 1.5])])


def test_grad_rejects_integer_inputs_and_non_scalar_outputs():
    with pytest.raises(TypeError, match="floating-point inputs"):
        sx.grad(lambda x: sx.sum(x))(sx.asarray([1, 2]))
    with pytest.raises(TypeError, match="0-D"):
        sx.grad(lambda x: x * 2.0)(a64([1.0, 2.0]))


def test_integer_intermediates_carry_no_gradient():
    def f(x):
        k = sx.astype(x, sx.int64)  # the integer path is constant for differentiation
        return sx.sum(x * sx.astype(k, sx.float64))

    g = sx.grad(f)(a64([1.5, 2.5]))
    np.testing.assert_allclose(np.asarray(g), [1.0, 2.0])


def mlp_loss(w1, w2, x):
    h = sx.tanh(x @ w1)
    return sx.mean((h @ w2) ** 2)


def test_compositions():
    rng = np.random.default_rng(0)
    w1, w2, x = (a64(rng.standard_normal(s)) for s in [(3, 4), (4, 2), (5, 3)])
    g_eager = sx.grad(mlp_loss, argnums=(0, 1))(w1, w2, x)
    g_jit = sx.jit(sx.grad(mlp_loss, argnums=(0, 1)))(w1, w2, x)
    g_inner_jit = sx.grad(sx.jit(mlp_loss), argnums=(0, 1))(w1, w2, x)
    jax_g = jax.grad(lambda a, b, c: jnp.mean((jnp.tanh(c @ a) @ b) ** 2), argnums=(0, 1))(
        *(jnp.asarray(np.asarray(v)) for v in (w1, w2, x)))
    for got in (g_eager, g_jit, g_inner_jit):
        for a, b in zip(got, jax_g):
            np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-10)

    # grad(grad(f)) of a scalar function
    f = lambda t: sx.sum(sx.sin(t) * t)
    d2 = sx.grad(lambda t: sx.grad(f)(t)[0])(a64([0.7]))
    np.testing.assert_allclose(np.asarray(d2), [2 * np.cos(0.7) - 0.7 * np.sin(0.7)], rtol=1e-12)

    # vmap(grad(f)), jit(vmap(f)), vmap(vmap(f))
    xs = a64(rng.standard_normal((4, 3)))
    per_row = sx.vmap(sx.grad(lambda r: sx.sum(r ** 3)))(xs)
    np.testing.assert_allclose(np.asarray(per_row), 3 * np.asarray(xs) ** 2, rtol=1e-12)
    check_batch(lambda r: sx.sum(r * r), [xs])
    jitted = sx.jit(sx.vmap(lambda r: r[::-1] * 2.0))(xs)
    np.testing.assert_allclose(np.asarray(jitted), np.asarray(xs)[:, ::-1] * 2)
    nested = sx.vmap(sx.vmap(lambda v: v * v))(xs)
    np.testing.assert_allclose(np.asarray(nested), np.asarray(xs) ** 2)

    # jacfwd(jacrev(f)) equals the hessian
    h = sx.jacfwd(sx.jacrev(lambda v: sx.sum(v ** 3)))(a64([1.0, 2.0]))
    np.testing.assert_allclose(np.asarray(h), np.diag([6.0, 12.0]))
    np.testing.assert_allclose(np.asarray(sx.hessian(lambda v: sx.sum(v ** 3))(a64([1.0, 2.0]))),
                               np.diag([6.0, 12.0]))


def test_jacobians_match_jax():
    def f(v):
        return sx.sin(v) * v[::-1]

    v = np.array([0.1, 0.4, -0.3])
    jf = lambda v: jnp.sin(v) * v[::-1]
    np.testing.assert_allclose(np.asarray(sx.jacfwd(f)(a64(v))), np.asarray(jax.jacfwd(jf)(jnp.asarray(v))),
                               rtol=1e-12)
    np.testing.assert_allclose(np.asarray(sx.jacrev(f)(a64(v))), np.asarray(jax.jacrev(jf)(jnp.asarray(v))),
                               rtol=1e-12)


def test_vmap_views_writes_axes_and_errors():
    x = a64(np.arange(12.0).reshape(3, 4))

    def f(row):
        out = row * 1.0
        out[::2] = 0.0
        return out[::-1]

    check_batch(f, [x])
    check_batch(f, [sx.permute_dims(x, (1, 0))], in_axes=1)
    y = sx.vmap(lambda a, b: a + b, in_axes=(0, None))(x, a64([1.0, 2.0, 3.0, 4.0]))
    np.testing.assert_allclose(np.asarray(y), np.asarray(x) + [1, 2, 3, 4])
    z = sx.vmap(lambda r: sx.sum(r), in_axes=-1)(x)
    np.testing.assert_allclose(np.asarray(z), np.asarray(x).sum(axis=0))
    out = sx.vmap(lambda r: r * 2.0, out_axes=1)(x)
    np.testing.assert_allclose(np.asarray(out), (np.asarray(x) * 2).T)
    with pytest.raises(ValueError, match="different sizes"):
        sx.vmap(lambda a, b: a + b)(x, a64(np.ones(4)))

    def writes_input(row):
        row[0] = -1.0
        return row

    x2 = a64(np.arange(6.0).reshape(2, 3))
    sx.vmap(writes_input)(x2)
    np.testing.assert_allclose(np.asarray(x2), [[-1.0, 1.0, 2.0], [-1.0, 4.0, 5.0]])


def test_vmap_matmul_sort_take_where_reductions():
    rng = np.random.default_rng(1)
    a = a64(rng.standard_normal((3, 2, 4)))
    b = a64(rng.standard_normal((3, 4, 5)))
    check_batch(lambda p, q: p @ q, [a, b])
    check_batch(lambda p: sx.sort(p, axis=-1), [a])
    check_batch(lambda p: sx.take(p, sx.asarray([2, 0]), axis=1), [a])
    check_batch(lambda p: sx.where(p > 0, p, -p), [a])
    check_batch(lambda p: sx.sum(p, axis=1, keepdims=True), [a])
    check_batch(lambda p: sx.max(p, axis=0), [a])


VIEW_FUNCTIONS = {
    "slice": lambda a: a[1:, ::-2],
    "int_index": lambda a: a[1],
    "newaxis": lambda a: a[None, :, 0],
    "permute": lambda a: sx.permute_dims(a, (1, 0)),
    "mT": lambda a: a.mT,
    "flip": lambda a: sx.flip(a, axis=1),
    "expand_squeeze": lambda a: sx.squeeze(sx.expand_dims(a, axis=1), axis=1),
    "reshape_view": lambda a: sx.reshape(a, (-1,)),
    "reshape_copy": lambda a: sx.reshape(a.T, (-1,)),
    "broadcast": lambda a: sx.broadcast_to(a[:, :1], (3, 4)),
    "diagonal": lambda a: sx.linalg.diagonal(a, offset=1),
    "moveaxis": lambda a: sx.moveaxis(a, 0, 1),
    "unstack": lambda a: sx.unstack(a, axis=1)[2],
    "gather": lambda a: a[sx.asarray([2, 0, 2]), 1:],
    "mask": lambda a: a[:, sx.asarray([True, False, True, True])],
}


@pytest.mark.parametrize("name", sorted(VIEW_FUNCTIONS))
def test_every_view_differentiates_and_batches(name):
    f = VIEW_FUNCTIONS[name]
    x = np.arange(12.0).reshape(3, 4) / 5
    check_grads(lambda a: f(a) * 1.0, [x])
    if name != "mask":  # a boolean mask has a data-dependent shape: no batching rule
        check_batch(f, [sx.asarray(np.arange(24.0).reshape(2, 3, 4))])

    def write_through(a):
        b = a * 1.0
        v = f(b)
        v[...] = 2.0 if name not in ("reshape_copy", "gather", "mask", "broadcast") else v
        return b

    if name not in ("broadcast", "mask"):  # no writes through broadcasts; masks are data-dependent
        check_batch(write_through, [sx.asarray(np.arange(24.0).reshape(2, 3, 4))])


# --- regressions: derivatives of functions that write into their inputs ------------------------------


def _square_in_place(x):
    x *= x
    return sx.sum(x)


def _read_then_zero(x):
    y = sx.sin(x)
    x[...] = 0.0
    return sx.sum(y)


@pytest.mark.parametrize("transform", ["grad", "jit(grad)", "jacrev", "jacfwd", "vjp"])
@pytest.mark.parametrize("fun, want", [
    (_square_in_place, lambda a: 2 * a),
    (_read_then_zero, np.cos),
])
def test_derivative_of_function_writing_its_input_uses_unwritten_values(transform, fun, want):
    a = np.array([1.0, 2.0, 3.0])
    x = sx.asarray(a.copy())
    if transform == "grad":
        g = sx.grad(fun)(x)
    elif transform == "jit(grad)":
        g = sx.jit(sx.grad(fun))(x)
    elif transform == "vjp":
        g = sx.vjp(fun, x)[1](sx.asarray(1.0))[0]
    else:
        g = (sx.jacrev if transform == "jacrev" else sx.jacfwd)(fun)(x)
    np.testing.assert_allclose(np.asarray(g), want(a), rtol=1e-12)
    eager = sx.asarray(a.copy())
    fun(eager)
    np.testing.assert_array_equal(np.asarray(x), np.asarray(eager))  # written once, as one eager call


def test_grad_argnums_errors_name_the_problem():
    f = lambda x: sx.sum(x)
    with pytest.raises(ValueError, match="out of range"):
        sx.grad(f, argnums=3)(sx.asarray([1.0]))
    with pytest.raises(ValueError, match="repeat"):
        sx.grad(f, argnums=(0, 0))
    with pytest.raises(TypeError, match="argnums"):
        sx.grad(f, argnums=0.5)


@pytest.mark.parametrize("transform", ["grad", "vmap", "jit"])
def test_leaked_tracer_of_failed_transformation_is_escaped_tracer_error(transform):
    from stridex._transforms.tracing import EscapedTracerError

    leaked = []

    def f(x):
        leaked.append(sx.sin(x))
        raise RuntimeError("the transformed function failed")

    with pytest.raises(RuntimeError):
        {"grad": sx.grad, "vmap": sx.vmap, "jit": sx.jit}[transform](f)(sx.asarray([[1.0, 2.0], [3.0, 4.0]]))
    (t,) = leaked
    assert t.dtype is sx.float64 and "float64" in repr(t)
    for use in (lambda: t * 2, lambda: t[0], lambda: np.asarray(t), lambda: sx.mean(t)):
        with pytest.raises(EscapedTracerError, match=f"escaped the {transform} trace"):
            use()
