"""stridex.lax's JAX names of issue 43 part B against jax.lax (64-bit types on, float64 and float32): the dynamic
slices (traced starts: one program, no graph break; clamping as JAX's), top_k (ties, NaN, signed zeros), associative
scan (any associative fn on pytrees, reverse, axis), map (batch_size), the cumulative reductions, select, clamp,
rsqrt, integer_pow, logistic, erf, lgamma, digamma and the control-flow aliases: values with NaN, +-inf, -0.0,
grad and jvp against JAX's, under sx.jit and sx.vmap, on cpu:1, and the errors."""

from __future__ import annotations

import re

import numpy as np
import pytest

import stridex as sx
from tests.jax_reference import DEVICE, assert_close, jax, jnp, on_jax

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")
SPECIAL = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 3.5])
F64, F32 = np.float64, np.float32


def data(shape, dtype=F64, seed=0, special=True):
    values = np.random.default_rng(seed).standard_normal(shape) * 3
    if special:
        flat = values.reshape(-1)
        flat[: min(flat.size, len(SPECIAL))] = SPECIAL[: flat.size]
    return values.astype(dtype)


def grads(fn_sx, fn_jax, x, *, ulps=8, atol=1e-12):
    """grad and jvp of sum(fn(x) * w) against JAX's, eagerly and under jit."""
    w = np.random.default_rng(9).standard_normal(np.shape(fn_jax(jnp.asarray(x)) if False else on_jax(fn_jax, x)))
    with jax.enable_x64(True):
        want = np.asarray(jax.grad(lambda v: jnp.sum(fn_jax(v) * w))(jnp.asarray(x)))
        t = np.random.default_rng(10).standard_normal(np.shape(x)).astype(x.dtype)
        want_t = np.asarray(jax.jvp(fn_jax, (jnp.asarray(x),), (jnp.asarray(t),))[1])
    loss = lambda v: sx.sum(fn_sx(v) * sx.asarray(w))  # noqa: E731
    assert_close(sx.grad(loss)(sx.asarray(x)), want, ulps=ulps, atol=atol, what="grad")
    assert_close(sx.jit(sx.grad(loss))(sx.asarray(x)), want, ulps=ulps, atol=atol, what="grad under jit")
    assert_close(sx.jvp(fn_sx, (sx.asarray(x),), (sx.asarray(t),))[1], want_t, ulps=ulps, atol=atol, what="jvp")


# --- dynamic slicing ----------------------------------------------------------------------------------------------

SLICES = [((7,), (3,), (2,)), ((7,), (3,), (-2,)), ((7,), (3,), (6,)), ((7,), (3,), (-20,)),
          ((4, 5), (2, 3), (3, -1)), ((60, 40), (50, 41 - 1), (30, 5))]  # (the last is past 2048 elements)


@pytest.mark.parametrize("shape,sizes,starts", SLICES)
@pytest.mark.parametrize("dtype", [F64, F32])
def test_dynamic_slice_and_update(shape, sizes, starts, dtype):
    x = data(shape, dtype)
    want = on_jax(lambda x: jax.lax.dynamic_slice(x, starts, sizes), x)
    assert_close(sx.lax.dynamic_slice(sx.asarray(x), starts, sizes), want, ulps=0, signed_zeros=True)
    update = data(sizes, dtype, seed=1)
    want_u = on_jax(lambda x, u: jax.lax.dynamic_update_slice(x, u, starts), x, update)
    xs = sx.asarray(x)
    assert_close(sx.lax.dynamic_update_slice(xs, sx.asarray(update), starts), want_u, ulps=0, signed_zeros=True)
    np.testing.assert_array_equal(np.asarray(xs), x)  # the operand is not written
    # traced starts: one program for every start, no graph break, the same clamping
    f = sx.jit(lambda x, *s: sx.lax.dynamic_slice(x, s, sizes), graph_breaks=False)
    g = sx.jit(lambda x, u, *s: sx.lax.dynamic_update_slice(x, u, s), graph_breaks=False)
    assert_close(f(xs, *starts), want, ulps=0, signed_zeros=True)
    assert_close(g(xs, sx.asarray(update), *[sx.asarray(s) for s in starts]), want_u, ulps=0, signed_zeros=True)
    assert_close(sx.lax.dynamic_slice(sx.asarray(x, device=DEVICE), starts, sizes).to_device("cpu"), want, ulps=0)


def test_dynamic_slice_negative_indices_not_allowed_and_in_dim_forms():
    x = np.arange(24.0).reshape(4, 6)
    with pytest.raises(ValueError, match="index -1 is out of bounds for axis 0 of size 4"):
        sx.lax.dynamic_slice(sx.asarray(x), (-1, 2), (2, 2), allow_negative_indices=False)
    f = sx.jit(lambda x, i: sx.lax.dynamic_slice(x, (i, 2), (2, 2), allow_negative_indices=False))
    assert_close(f(sx.asarray(x), -1), x[:2, 2:4], ulps=0)  # (traced: clamped to 0, as in JAX)
    for fn in (lambda m, x: m.dynamic_slice(x, (1, 2), (2, 2), allow_negative_indices=False),
               lambda m, x: m.dynamic_slice_in_dim(x, -2, 2, axis=1),
               lambda m, x: m.dynamic_slice_in_dim(x, 5, 3, axis=1),
               lambda m, x: m.dynamic_index_in_dim(x, -1, axis=0, keepdims=False),
               lambda m, x: m.dynamic_index_in_dim(x, 9, axis=1),
               lambda m, x: m.dynamic_update_slice_in_dim(x, x[:2, :1] * 0 - 1, 5, axis=1),
               lambda m, x: m.dynamic_update_index_in_dim(x, x[0] * 0 - 1, -1, axis=0),
               lambda m, x: m.dynamic_update_index_in_dim(x, x[:1] * 0 - 1, 2, axis=0)):
        want = on_jax(lambda x: fn(jax.lax, x), x)
        assert_close(fn(sx.lax, sx.asarray(x)), want, ulps=0)
        assert_close(sx.jit(lambda x: fn(sx.lax, x))(sx.asarray(x)), want, ulps=0)


def test_dynamic_slice_derivatives_and_vmap():
    x = data((5, 4), seed=2, special=False)
    grads(lambda v: sx.lax.dynamic_slice(v, (3, -1), (2, 2)), lambda v: jax.lax.dynamic_slice(v, (3, -1), (2, 2)), x)
    u = data((2, 2), seed=3, special=False)
    grads(lambda v: sx.lax.dynamic_update_slice(v, sx.asarray(u) * sx.sum(v), (1, 9)),
          lambda v: jax.lax.dynamic_update_slice(v, u * jnp.sum(v), (1, 9)), x)
    starts = np.array([0, 4, -1, 2])
    got = sx.vmap(lambda i: sx.lax.dynamic_slice_in_dim(sx.asarray(x), i, 2, axis=0))(sx.asarray(starts))
    loop = np.stack([np.asarray(sx.lax.dynamic_slice_in_dim(sx.asarray(x), int(i), 2)) for i in starts])
    assert_close(got, loop, ulps=0)


def test_dynamic_slice_errors():
    x = sx.zeros((3, 4))
    with pytest.raises(TypeError, match="takes 2 start indices, got 1"):
        sx.lax.dynamic_slice(x, (0,), (1, 1))
    with pytest.raises(TypeError, match=r"slice sizes \(4, 1\) do not fit an operand of shape \(3, 4\)"):
        sx.lax.dynamic_slice(x, (0, 0), (4, 1))
    with pytest.raises(TypeError, match="start index 1 must be a 0-D integer, got float64"):
        sx.lax.dynamic_slice(x, (0, sx.asarray(1.0)), (1, 1))
    with pytest.raises(TypeError, match="dtype float32 is not the operand's float64"):
        sx.lax.dynamic_update_slice(x, sx.zeros((1, 1), dtype=sx.float32), (0, 0))
    with pytest.raises(TypeError, match=r"shape \(4, 1\) does not fit"):
        sx.lax.dynamic_update_slice(x, sx.zeros((4, 1)), (0, 0))


# --- top_k -------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [F64, F32, np.int32, np.uint8])
@pytest.mark.parametrize("shape,k,axis", [((9,), 9, -1), ((9,), 3, -1), ((4, 7), 2, -1), ((4, 7), 3, 0),
                                          ((3, 2, 2048), 5, -1), ((5,), 0, -1)])
def test_top_k_against_jax(dtype, shape, k, axis):
    rng = np.random.default_rng(4)
    if np.dtype(dtype).kind == "f":
        x = np.round(data(shape, dtype, seed=4), 0)  # (rounded: many ties)
        flat = x.reshape(-1)
        flat[:3] = [np.nan, -np.nan, 0.0]
    else:
        x = rng.integers(0, 6, size=shape).astype(dtype)
    want_v, want_i = on_jax(lambda x: tuple(jax.lax.top_k(x, k, axis=axis)), x)
    got_v, got_i = sx.lax.top_k(sx.asarray(x), k, axis=axis)
    assert_close(got_v, want_v, ulps=0, signed_zeros=True)
    np.testing.assert_array_equal(np.asarray(got_i), want_i)
    assert got_i.dtype == sx.int32
    jit_v, jit_i = sx.jit(lambda x: sx.lax.top_k(x, k, axis=axis))(sx.asarray(x))
    assert_close(jit_v, want_v, ulps=0, signed_zeros=True)
    np.testing.assert_array_equal(np.asarray(jit_i), want_i)
    dev_v, dev_i = sx.lax.top_k(sx.asarray(x, device=DEVICE), k, axis=axis)
    assert dev_v.device == DEVICE
    np.testing.assert_array_equal(np.asarray(dev_i.to_device("cpu")), want_i)


def test_top_k_derivatives_and_vmap():
    x = np.array([[1.0, 3.0, 3.0, -2.0, 0.5], [4.0, -1.0, 2.0, 2.0, 9.0]])
    grads(lambda v: sx.lax.top_k(v, 3)[0], lambda v: jax.lax.top_k(v, 3)[0], x)
    grads(lambda v: sx.lax.top_k(v, 1, axis=0)[0], lambda v: jax.lax.top_k(v, 1, axis=0)[0], x)
    got_v, got_i = sx.vmap(lambda r: sx.lax.top_k(r, 2))(sx.asarray(x))
    loop = [sx.lax.top_k(sx.asarray(r), 2) for r in x]
    assert_close(got_v, np.stack([np.asarray(v) for v, _ in loop]), ulps=0)
    np.testing.assert_array_equal(np.asarray(got_i), np.stack([np.asarray(i) for _, i in loop]))
    got_v, _ = sx.vmap(lambda c: sx.lax.top_k(c, 1), in_axes=1)(sx.asarray(x))
    assert_close(got_v, on_jax(lambda x: jax.lax.top_k(x.T, 1)[0], x), ulps=0)


def test_top_k_errors():
    with pytest.raises(ValueError, match="k=4 must be between 0 and the length 3"):
        sx.lax.top_k(sx.zeros(3), 4)
    with pytest.raises(TypeError, match="complex"):
        sx.lax.top_k(sx.zeros(3, dtype=sx.complex128), 1)
    with pytest.raises(TypeError, match="0-D"):
        sx.lax.top_k(sx.asarray(1.0), 1)


# --- associative_scan, map ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [1, 2, 7, 8, 33])
@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("dtype", [F64, F32])
def test_associative_scan_matches_jax(n, reverse, dtype):
    x = data((n, 3), dtype, seed=n)
    for fn_sx, fn_jax in ((sx.add, jnp.add), (sx.multiply, jnp.multiply), (sx.maximum, jnp.maximum)):
        want = on_jax(lambda x: jax.lax.associative_scan(fn_jax, x, reverse=reverse), x)
        got = sx.lax.associative_scan(fn_sx, sx.asarray(x), reverse=reverse)
        assert_close(got, want, ulps=0, what=f"{fn_sx.__name__}")  # the same tree of operations: the same bits
        assert_close(sx.jit(lambda x: sx.lax.associative_scan(fn_sx, x, reverse=reverse))(sx.asarray(x)), want,
                     ulps=0)
    # along axis 1
    want = on_jax(lambda x: jax.lax.associative_scan(jnp.add, x, reverse=reverse, axis=1), x)
    assert_close(sx.lax.associative_scan(sx.add, sx.asarray(x), reverse=reverse, axis=1), want, ulps=0)


def test_associative_scan_on_pytrees_grad_and_vmap():
    """A linear recurrence h_t = a_t h_{t-1} + b_t, as (a, b) pairs: a non-commutative operator on a pytree."""
    a = np.random.default_rng(5).uniform(0.5, 1.0, 9)
    b = np.random.default_rng(6).standard_normal(9)

    def combine(m, p):
        return (m[0] * p[0], p[0] * m[1] + p[1])

    def combine_jax(m, p):
        return (m[0] * p[0], p[0] * m[1] + p[1])

    want = on_jax(lambda a, b: jax.lax.associative_scan(combine_jax, {"a": a, "b": b} and (a, b))[1], a, b)
    got = sx.lax.associative_scan(combine, (sx.asarray(a), sx.asarray(b)))[1]
    assert_close(got, want, ulps=0)
    grads(lambda v: sx.lax.associative_scan(combine, (sx.asarray(a), v))[1],
          lambda v: jax.lax.associative_scan(combine_jax, (a, v))[1], b)
    grads(lambda v: sx.lax.associative_scan(combine, (v, sx.asarray(b)), reverse=True)[1],
          lambda v: jax.lax.associative_scan(combine_jax, (v, b), reverse=True)[1], a)
    batch = np.stack([b, b[::-1], b * 2])
    got = sx.vmap(lambda v: sx.lax.associative_scan(combine, (sx.asarray(a), v))[1])(sx.asarray(batch))
    loop = np.stack([np.asarray(sx.lax.associative_scan(combine, (sx.asarray(a), sx.asarray(r)))[1]) for r in batch])
    assert_close(got, loop, ulps=0)
    with pytest.raises(ValueError, match="same length"):
        sx.lax.associative_scan(combine, (sx.zeros(3), sx.zeros(4)))


@pytest.mark.parametrize("batch_size", [None, 1, 2, 3, 5, 8])
def test_map_against_jax(batch_size):
    xs = data((5, 3), seed=7, special=False)
    ys = {"v": np.arange(5.0)}

    def f_sx(args):
        x, d = args
        return {"norm": sx.sum(x * x) + d["v"], "row": x[::-1]}

    def f_jax(args):
        x, d = args
        return {"norm": jnp.sum(x * x) + d["v"], "row": x[::-1]}

    with jax.enable_x64(True):
        want = jax.lax.map(f_jax, (jnp.asarray(xs), {"v": jnp.asarray(ys["v"])}), batch_size=batch_size)
    got = sx.lax.map(f_sx, (sx.asarray(xs), {"v": sx.asarray(ys["v"])}), batch_size=batch_size)
    assert_close(got["norm"], np.asarray(want["norm"]), ulps=2)
    assert_close(got["row"], np.asarray(want["row"]), ulps=0)
    jitted = sx.jit(lambda a: sx.lax.map(lambda r: sx.sum(sx.sin(r)), a, batch_size=batch_size))(sx.asarray(xs))
    assert_close(jitted, on_jax(lambda a: jax.lax.map(lambda r: jnp.sum(jnp.sin(r)), a), xs), ulps=4)
    grads(lambda a: sx.lax.map(lambda r: sx.sin(r) * r[0], a, batch_size=batch_size),
          lambda a: jax.lax.map(lambda r: jnp.sin(r) * r[0], a, batch_size=batch_size), xs)


# --- cumulative reductions -----------------------------------------------------------------------------------------

CUMULATIVE = ["cumsum", "cumprod", "cummax", "cummin", "cumlogsumexp"]


@pytest.mark.parametrize("name", CUMULATIVE)
@pytest.mark.parametrize("dtype", [F64, F32])
@pytest.mark.parametrize("shape,axis", [((9,), 0), ((4, 5), 1), ((4, 5), -2), ((3, 700), 1)])
@pytest.mark.parametrize("reverse", [False, True])
def test_cumulative_against_jax(name, dtype, shape, axis, reverse):
    x = data(shape, dtype, seed=8)
    if name == "cumprod":
        x = np.where(np.isfinite(x), np.clip(x, -1.5, 1.5), x).astype(dtype)  # (no overflow in long products)
    # (jax.lax refuses a negative axis; stridex.lax counts it from the end)
    want = on_jax(lambda x: getattr(jax.lax, name)(x, axis=axis % len(shape), reverse=reverse), x)
    got = getattr(sx.lax, name)(sx.asarray(x), axis=axis, reverse=reverse)
    # (cummax/cummin are exact; sums and products in another order round otherwise than JAX's tree)
    ulps = 0 if name in ("cummax", "cummin") else 64
    atol = 0.0 if ulps == 0 else float(np.finfo(dtype).eps) * 64 * np.maximum(1.0, np.nanmax(np.abs(
        np.where(np.isfinite(want), want, 0))))
    assert_close(got, want, ulps=ulps, atol=atol, what=name)
    assert_close(sx.jit(lambda x: getattr(sx.lax, name)(x, axis=axis, reverse=reverse))(sx.asarray(x)), want,
                 ulps=ulps, atol=atol, what=f"{name} under jit")


@pytest.mark.parametrize("name", CUMULATIVE)
def test_cumulative_derivatives_and_vmap(name):
    x = np.array([[1.0, 0.5, 2.0, 2.0, -1.0], [0.3, 0.3, -4.0, 5.0, 1.5]])  # (ties for cummax/cummin)
    grads(lambda v: getattr(sx.lax, name)(v, axis=1), lambda v: getattr(jax.lax, name)(v, axis=1), x)
    grads(lambda v: getattr(sx.lax, name)(v, axis=0, reverse=True),
          lambda v: getattr(jax.lax, name)(v, axis=0, reverse=True), x)
    got = sx.vmap(lambda r: getattr(sx.lax, name)(r))(sx.asarray(x))
    loop = np.stack([np.asarray(getattr(sx.lax, name)(sx.asarray(r))) for r in x])
    assert_close(got, loop, ulps=0)


def test_cumsum_keeps_the_dtype_and_errors():
    x = np.array([100, 100, 100], dtype=np.int8)
    assert_close(sx.lax.cumsum(sx.asarray(x)), on_jax(jax.lax.cumsum, x))  # (wraps in int8, as JAX's)
    with pytest.raises(TypeError, match="boolean"):
        sx.lax.cumsum(sx.asarray([True]))
    with pytest.raises(TypeError, match="real floating-point operand, got int64"):
        sx.lax.cumlogsumexp(sx.asarray([1, 2]))
    with pytest.raises(TypeError, match="complex"):
        sx.lax.cummax(sx.asarray([1j]))


# --- elementwise --------------------------------------------------------------------------------------------------

ELEMENTWISE = {
    "rsqrt": (sx.lax.rsqrt, jax.lax.rsqrt, 2),
    "logistic": (sx.lax.logistic, jax.lax.logistic, 4),
    "erf": (sx.lax.erf, jax.lax.erf, 0),
    "lgamma": (sx.lax.lgamma, jax.lax.lgamma, 0),
    "digamma": (sx.lax.digamma, jax.lax.digamma, 0),
    "integer_pow3": (lambda x: sx.lax.integer_pow(x, 3), lambda x: jax.lax.integer_pow(x, 3), 0),
    "integer_pow_neg2": (lambda x: sx.lax.integer_pow(x, -2), lambda x: jax.lax.integer_pow(x, -2), 0),
    "integer_pow0": (lambda x: sx.lax.integer_pow(x, 0), lambda x: jax.lax.integer_pow(x, 0), 0),
    "integer_pow7": (lambda x: sx.lax.integer_pow(x, 7), lambda x: jax.lax.integer_pow(x, 7), 0),
}


@pytest.mark.parametrize("dtype", [F64, F32])
@pytest.mark.parametrize("name", list(ELEMENTWISE))
def test_elementwise_against_jax(name, dtype):
    ours, theirs, ulps = ELEMENTWISE[name]
    x = data((3000,), dtype, seed=11)  # (past the 2048-element aligned-output threshold)
    if name in ("rsqrt",):
        x = np.abs(x).astype(dtype)
    want = on_jax(theirs, x)
    assert_close(ours(sx.asarray(x)), want, ulps=ulps, what=name)
    assert_close(sx.jit(ours)(sx.asarray(x)), want, ulps=ulps, what=f"{name} under jit")
    got = ours(sx.asarray(x, device=DEVICE))
    assert got.device == DEVICE
    assert_close(got.to_device("cpu"), want, ulps=ulps, what=f"{name} on {DEVICE}")
    y = np.abs(data((6, 4), F64, seed=12, special=False)) + 0.5
    grads(ours, theirs, y, ulps=16, atol=1e-13)
    assert_close(sx.vmap(ours)(sx.asarray(y)), np.stack([np.asarray(ours(sx.asarray(r))) for r in y]), ulps=0)


def test_integer_pow_of_integers():
    x = np.array([-3, 0, 2, 7], dtype=np.int32)
    assert_close(sx.lax.integer_pow(sx.asarray(x), 5), on_jax(lambda x: jax.lax.integer_pow(x, 5), x))
    with pytest.raises(TypeError, match="negative exponent"):
        sx.lax.integer_pow(sx.asarray(x), -1)


def test_select_and_clamp_against_jax():
    x = data((50,), seed=13)
    y = data((50,), seed=14)
    pred = np.random.default_rng(15).random(50) < 0.5
    assert_close(sx.lax.select(sx.asarray(pred), sx.asarray(x), sx.asarray(y)),
                 on_jax(jax.lax.select, pred, x, y), ulps=0, signed_zeros=True)
    assert_close(sx.lax.select(sx.asarray(True), sx.asarray(x), sx.asarray(y)), x, ulps=0)
    for lo, hi in ((-1.0, 1.0), (0.0, 0.0), (2.0, -2.0)):
        assert_close(sx.lax.clamp(lo, sx.asarray(x), hi), on_jax(lambda x: jax.lax.clamp(lo, x, hi), x), ulps=0,
                     signed_zeros=False, what=f"clamp {lo} {hi}")
    lo_arr, hi_arr = -np.abs(y), np.abs(y)
    assert_close(sx.lax.clamp(sx.asarray(lo_arr), sx.asarray(x), sx.asarray(hi_arr)),
                 on_jax(jax.lax.clamp, lo_arr, x, hi_arr), ulps=0)
    # derivatives at the boundaries, for all three operands
    xs = np.array([-2.0, -1.0, 0.0, 1.0, 2.0, 0.5])
    lo, hi = np.full(6, -1.0), np.array([1.0, 1.0, 1.0, 1.0, 1.0, 0.5])
    with jax.enable_x64(True):
        want = jax.grad(lambda a, b, c: jnp.sum(jax.lax.clamp(a, b, c) * jnp.arange(6.0)), argnums=(0, 1, 2))(
            jnp.asarray(lo), jnp.asarray(xs), jnp.asarray(hi))
    got = sx.grad(lambda a, b, c: sx.sum(sx.lax.clamp(a, b, c) * sx.arange(6.0)), argnums=(0, 1, 2))(
        sx.asarray(lo), sx.asarray(xs), sx.asarray(hi))
    for g, w in zip(got, want):
        assert_close(g, np.asarray(w), ulps=0)
    got = sx.vmap(lambda v: sx.lax.clamp(-1.0, v, 1.0))(sx.asarray(x.reshape(5, 10)))
    assert_close(got, on_jax(lambda x: jax.lax.clamp(-1.0, x, 1.0), x).reshape(5, 10), ulps=0)
    with pytest.raises(TypeError, match="pred must be boolean, got int64"):
        sx.lax.select(sx.asarray([1]), sx.asarray([1]), sx.asarray([2]))
    with pytest.raises(TypeError, match="one shape and dtype"):
        sx.lax.select(sx.asarray([True]), sx.asarray([1]), sx.asarray([2.0]))
    with pytest.raises(TypeError, match="0-D or of the operand's shape"):
        sx.lax.clamp(sx.zeros(2), sx.zeros(3), 1.0)
    with pytest.raises(TypeError, match="real floating-point dtype, got int64"):
        sx.lax.erf(sx.asarray([1]))


def test_control_flow_aliases():
    assert sx.lax.scan is sx.scan and sx.lax.cond is sx.cond and sx.lax.switch is sx.switch
    assert sx.lax.while_loop is sx.while_loop and sx.lax.fori_loop is sx.fori_loop
    carry, ys = sx.lax.scan(lambda c, x: (c + x, c * x), 0.0, sx.arange(4.0))
    with jax.enable_x64(True):
        want_c, want_y = jax.lax.scan(lambda c, x: (c + x, c * x), 0.0, jnp.arange(4.0))
    assert float(carry) == float(want_c)
    assert_close(ys, np.asarray(want_y), ulps=0)
    assert float(sx.lax.fori_loop(0, 5, lambda i, v: v + i, 0.0)) == 10.0


def test_vmap_over_starts_is_one_gather_or_scatter():
    xs = data((4, 6, 5), seed=16)
    updates = data((4, 2, 3), seed=17)
    starts = np.array([[0, 1], [5, -1], [-2, 9], [-9, 3]])
    with jax.enable_x64(True):
        want = np.asarray(jax.vmap(lambda v, s: jax.lax.dynamic_slice(v, s, (3, 2)))(xs, starts))
        want_u = np.asarray(jax.vmap(lambda v, u, s: jax.lax.dynamic_update_slice(v, u, s))(xs, updates, starts))
        want_shared = np.asarray(jax.vmap(lambda s: jax.lax.dynamic_slice(xs[0], (s[0], 2), (2, 3)))(starts))
    f = sx.vmap(lambda v, s: sx.lax.dynamic_slice(v, (s[0], s[1]), (3, 2)))
    g = sx.vmap(lambda v, u, s: sx.lax.dynamic_update_slice(v, u, (s[0], s[1])))
    h = sx.vmap(lambda s: sx.lax.dynamic_slice(sx.asarray(xs[0]), (s[0], 2), (2, 3)))
    args = (sx.asarray(xs), sx.asarray(starts))
    assert_close(f(*args), want, ulps=0)
    assert_close(g(sx.asarray(xs), sx.asarray(updates), sx.asarray(starts)), want_u, ulps=0)
    assert_close(h(sx.asarray(starts)), want_shared, ulps=0)
    assert_close(sx.jit(f)(*args), want, ulps=0)
    text = sx.jit(f).lower(*args).as_text()
    assert len(re.findall(r'["\s]stablehlo\.(gather|dynamic_slice)\b', text)) == 1
    text = sx.jit(g).lower(sx.asarray(xs), sx.asarray(updates), sx.asarray(starts)).as_text()
    assert len(re.findall(r'["\s]stablehlo\.(scatter|dynamic_update_slice)\b', text)) == 1
    grads(lambda v: sx.vmap(lambda r, s: sx.lax.dynamic_slice(r, (s[0], s[1]), (3, 2)))(v, sx.asarray(starts)),
          lambda v: jax.vmap(lambda r, s: jax.lax.dynamic_slice(r, s, (3, 2)))(v, starts), xs)
