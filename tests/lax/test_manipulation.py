"""Transformation rules of the creation, conversion, shape and take primitives: jvp/vjp against finite
differences and JAX, vmap against a Python loop, and jit of derivatives against eager ones."""

from __future__ import annotations

import numpy as np
import pytest

import stridex as sx
from stridex._lax import creation as _creation
from stridex._lax import data_type as _convert
from stridex._lax import indexing as _take
from stridex._lax import manipulation as _shape
from stridex._lax.primitive import PRIMITIVES
from tests.autodiff_check import check_batch, check_grads, check_vjp
from tests.gpu_tolerances import JIT_OF_DERIVATIVES

RNG = np.random.default_rng(20261126)
MODULES = (_creation, _convert, _shape, _take)


def _normal(*shape):
    return RNG.standard_normal(shape)


def _sx(a):
    return sx.asarray(a)


def _cube(x):
    return x * x * x


# --- first derivatives against finite differences --------------------------------------------------------

INDICES = _sx(np.array([0, 2, 2, -1, 1]))  # repeated and negative indices
ALONG = _sx(RNG.integers(-4, 4, (3, 5)))
ALONG_BROADCAST = _sx(RNG.integers(-3, 3, (2, 1)))

GRADS = {
    "concat_axis0": (lambda x, y: sx.concat([x, y, x], axis=0), [_normal(3, 4), _normal(2, 4)]),
    "concat_axis1": (lambda x, y: sx.concat([x, y], axis=-1), [_normal(3, 2), _normal(3, 4)]),
    "concat_flat": (lambda x, y: sx.concat([x, y], axis=None), [_normal(2, 3), _normal(4)]),
    "stack_axis0": (lambda x, y: sx.stack([x, y, x]), [_normal(3, 4), _normal(3, 4)]),
    "stack_last": (lambda x, y: sx.stack([x, y], axis=-1), [_normal(3, 4), _normal(3, 4)]),
    "roll_one_axis": (lambda x: sx.roll(x, 2, axis=1), [_normal(3, 5)]),
    "roll_axes": (lambda x: sx.roll(x, (1, -1), axis=(0, 2)), [_normal(3, 2, 4)]),
    "roll_flat": (lambda x: sx.roll(x, -4), [_normal(3, 5)]),
    "tile": (lambda x: sx.tile(x, (2, 3)), [_normal(3, 4)]),
    "tile_more_reps": (lambda x: sx.tile(x, (2, 1, 3)), [_normal(3, 4)]),
    "tile_zero": (lambda x: sx.tile(x, (0, 2)), [_normal(3, 4)]),
    "tile_0d": (lambda x: sx.tile(x, (3,)), [_normal()]),
    "repeat_count": (lambda x: sx.repeat(x, 3, axis=1), [_normal(3, 4)]),
    "repeat_flat": (lambda x: sx.repeat(x, 2), [_normal(2, 3)]),
    "repeat_zero": (lambda x: sx.repeat(x, 0, axis=0), [_normal(2, 3)]),
    # under a trace, concrete repeats arrays become a static tuple of counts
    "repeat_counts": (lambda x: sx.repeat(x, _sx(np.array([2, 0, 3])), axis=1), [_normal(2, 3)]),
    "repeat_one_count": (lambda x: sx.repeat(x, _sx(np.array([2])), axis=0), [_normal(2, 3)]),
    "repeat_by_array": (lambda x: _shape.repeat_by_array.bind(x, _sx(np.array([1, 0, 3])), axis=1),
                        [_normal(2, 3)]),
    "tril": (lambda x: sx.tril(x), [_normal(4, 3)]),
    "triu_batched": (lambda x: sx.triu(x, k=-1), [_normal(2, 3, 4)]),
    "tril_k": (lambda x: sx.tril(x, k=2), [_normal(3, 3)]),
    "take_1d": (lambda x: sx.take(x, INDICES), [_normal(4)]),
    "take_axis1": (lambda x: sx.take(x, INDICES, axis=1), [_normal(2, 3, 4)]),
    "take_axis0": (lambda x: sx.take(x, _sx(np.array([1, 1, 0])), axis=0), [_normal(2, 3)]),
    "take_along_axis": (lambda x: sx.take_along_axis(x, ALONG, axis=1), [_normal(3, 4)]),
    "take_along_axis_broadcast_x": (lambda x: sx.take_along_axis(x, ALONG, axis=1), [_normal(1, 4)]),
    "take_along_axis_broadcast_indices": (lambda x: sx.take_along_axis(x, ALONG_BROADCAST, axis=0),
                                          [_normal(3, 4)]),
    "astype_complex": (lambda x: sx.real(sx.astype(x, sx.complex128) * (1 + 2j)), [_normal(3)]),
}


@pytest.mark.parametrize("name", sorted(GRADS))
def test_grads(name):
    f, args = GRADS[name]
    check_grads(f, args)


def test_joins_with_a_non_differentiable_input():
    ints = _sx(np.arange(4).reshape(1, 4))
    check_grads(lambda x: sx.concat([ints, x, ints], axis=0) * 1.5, [_normal(2, 4)])
    check_grads(lambda x: sx.stack([x, ints[0, :]], axis=1), [_normal(4)])
    g = sx.grad(lambda x: sx.sum(sx.concat([ints, x], axis=0)))(_sx(_normal(2, 4)))
    np.testing.assert_array_equal(np.asarray(g), np.ones((2, 4)))


def test_repeat_with_traced_counts():
    # repeats computed inside the function are traced values: repeat_by_array is differentiated eagerly
    def f(x):
        counts = sx.astype(x > 10.0, sx.int64) + _sx(np.array([2, 1, 3]))
        return sx.repeat(x * x, counts)

    x = np.array([0.5, -1.0, 2.0])
    check_grads(f, [x])
    np.testing.assert_allclose(np.asarray(sx.grad(lambda v: sx.sum(f(v)))(_sx(x))), 2 * x * [2, 1, 3])


def test_astype_round_trip_gradients():
    w = _normal(3, 4)
    x = _sx(_normal(3, 4))

    def down_and_up(v):
        return sx.sum(sx.astype(sx.astype(v, sx.float32), sx.float64) * _sx(w))

    g = sx.grad(down_and_up)(x)
    assert g.dtype == sx.float64
    np.testing.assert_array_equal(np.asarray(g), w.astype(np.float32).astype(np.float64))  # through float32

    x32 = _sx(_normal(3, 4).astype(np.float32))
    g32 = sx.grad(lambda v: sx.sum(sx.astype(v, sx.float64) * _sx(w)))(x32)
    assert g32.dtype == sx.float32
    np.testing.assert_array_equal(np.asarray(g32), w.astype(np.float32))

    _, t = sx.jvp(lambda v: sx.astype(v, sx.float32), (x,), (_sx(w),))
    assert t.dtype == sx.float32
    np.testing.assert_array_equal(np.asarray(t), w.astype(np.float32))


def test_astype_to_integer_or_bool_has_no_derivative():
    x = _sx(_normal(4) * 3)
    for dtype in (sx.int32, sx.bool):
        g = sx.grad(lambda v, dtype=dtype: sx.sum(sx.astype(sx.astype(v, dtype), sx.float64) * v))(x)
        np.testing.assert_array_equal(np.asarray(g), np.asarray(sx.astype(x, dtype), dtype=np.float64))
        _, t = sx.jvp(lambda v, dtype=dtype: sx.astype(v, dtype), (x,), (sx.ones_like(x),))
        assert t.dtype == dtype and not np.any(np.asarray(t))
    assert _convert.convert_element_type.vjp(x, x, out=x, new_dtype=sx.int64) == (None,)


def test_complex_tangents_and_cotangents():
    z = _normal(3) + 1j * _normal(3)
    ct = _normal(6) + 1j * _normal(6)
    _, pullback = sx.vjp(lambda v: sx.roll(sx.tile(v, (2,)), 1), _sx(z))
    (got,) = pullback(_sx(ct))
    unrolled = np.roll(ct, -1)
    np.testing.assert_allclose(np.asarray(got), unrolled[:3] + unrolled[3:], rtol=1e-15)
    _, t = sx.jvp(lambda v: sx.take(sx.concat([v, v * 1j]), _sx(np.array([4, 0]))), (_sx(z),), (_sx(z),))
    np.testing.assert_allclose(np.asarray(t), [z[1] * 1j, z[0]], rtol=1e-15)


def test_second_derivatives():
    idx = _sx(np.array([2, 0, 2]))

    def f(x):
        return sx.sum(_cube(sx.take(sx.tile(x, (2,)), idx))) + sx.sum(_cube(sx.roll(sx.concat([x, x * x]), 1)))

    check_vjp(lambda x: sx.grad(f)(x), [_normal(3)])
    h = sx.hessian(lambda x: sx.sum(_cube(sx.take_along_axis(x, ALONG, axis=1))))(_sx(_normal(3, 4)))
    assert h.shape == (3, 4, 3, 4)


# --- against JAX -----------------------------------------------------------------------------------------


def _jax():
    pytest.importorskip("jax")
    import jax
    import jax.numpy as jnp

    from stridex._exec.jax_bridge import x64

    return jax, jnp, x64


AGAINST_JAX = [
    ("concat", lambda m, x, y: m.concat([x * y[:3, :], y], axis=0) if m is sx
     else m.concatenate([x * y[:3, :], y], axis=0), [_normal(3, 4), _normal(5, 4)]),
    ("stack", lambda m, x, y: m.stack([x, y * y, x * y], axis=1), [_normal(3, 4), _normal(3, 4)]),
    ("roll", lambda m, x, y: m.roll(x * y, (2, -1), axis=(0, 1)) * x, [_normal(4, 3), _normal(4, 3)]),
    ("tile", lambda m, x, y: m.tile(x, (2, 1, 3)) * y, [_normal(2, 3), _normal(2, 2, 9)]),
    ("take", lambda m, x, y: m.take(x, m.asarray(np.array([3, 0, 3, -1])), axis=1) * y,
     [_normal(2, 4), _normal(2, 4)]),
    ("take_along_axis", lambda m, x, y: m.take_along_axis(x, m.asarray(np.array([[1, 1, 0], [2, -1, 0]])), axis=1)
     * y, [_normal(2, 4), _normal(2, 3)]),
    ("repeat", lambda m, x, y: m.repeat(x, 2, axis=0) * y, [_normal(2, 3), _normal(4, 3)]),
    ("tril", lambda m, x, y: m.tril(x @ y, k=-1), [_normal(3, 3), _normal(3, 3)]),
]


@pytest.mark.parametrize("case", AGAINST_JAX, ids=[c[0] for c in AGAINST_JAX])
def test_vjp_matches_jax(case):
    jax, jnp, x64 = _jax()
    _, f, args = case
    out, pullback = sx.vjp(lambda a, b: f(sx, a, b), *[_sx(a) for a in args])
    ct = _normal(*out.shape)
    got = pullback(_sx(ct))
    with x64():
        _, jax_pullback = jax.vjp(lambda a, b: f(jnp, a, b), *[jnp.asarray(a) for a in args])
        want = jax_pullback(jnp.asarray(ct))
        for g, w in zip(got, want):
            np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-12, atol=1e-12)
        grad = sx.grad(lambda a, b: sx.sum(_cube(f(sx, a, b))), argnums=(0, 1))(*[_sx(a) for a in args])
        jax_grad = jax.grad(lambda a, b: jnp.sum(_cube(f(jnp, a, b))), argnums=(0, 1))(*args)
        for g, w in zip(grad, jax_grad):
            np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-12, atol=1e-12)


# --- jit of derivatives ----------------------------------------------------------------------------------


def test_jit_of_derivatives_equals_eager():
    pytest.importorskip("jax")
    idx = _sx(np.array([1, -1, 1]))

    def f(x, y):
        joined = sx.concat([sx.stack([x, y]), sx.tile(x, (1, 1, 1))], axis=0)
        moved = sx.roll(sx.repeat(joined, 2, axis=2), 1, axis=2)
        picked = sx.take(moved, idx, axis=2) * sx.take_along_axis(y, ALONG[:2, :3], axis=1)
        return sx.sum(sx.tril(picked[:2]) * sx.astype(sx.astype(x[:, :3], sx.float32), sx.float64))

    args = (_sx(_normal(2, 4)), _sx(_normal(2, 4)))
    g = sx.grad(f, argnums=(0, 1))
    want = g(*args)
    got = sx.jit(g)(*args)
    # Terms: products of two input entries (the sum's gradient reaches each factor times the other).
    largest = max(float(np.max(np.abs(np.asarray(a)))) for a in args)
    for a, b in zip(got, want):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), **JIT_OF_DERIVATIVES.kwargs(scale=largest**2))
    ct = _sx(_normal(2, 4, 2))
    pull = sx.jit(lambda x, c: sx.vjp(lambda v: sx.stack([v, sx.roll(v, 1)], axis=-1), x)[1](c)[0])
    c = np.asarray(ct)
    np.testing.assert_allclose(np.asarray(pull(args[0], ct)), c[..., 0] + _unroll_flat(c[..., 1]), rtol=1e-15)


def _unroll_flat(c):
    return np.roll(c.reshape(-1), -1).reshape(c.shape)


# --- batching ----------------------------------------------------------------------------------------------

A = _sx(_normal(5, 3, 4))
B = _sx(_normal(2, 4))

BATCH = {
    "concat_both": (lambda x, y: sx.concat([x, y], axis=0), [A, _sx(_normal(2, 5, 4))], (0, 1)),
    "concat_one": (lambda x, y: sx.concat([y, x], axis=-1), [A, _sx(_normal(3, 2))], (0, None)),
    "stack": (lambda x, y: sx.stack([x, y], axis=1), [A, _sx(_normal(3, 4, 5))], (0, 2)),
    "stack_unbatched": (lambda x, y: sx.stack([y, x]), [A, _sx(_normal(5, 4))], (1, None)),
    "roll": (lambda x: sx.roll(x, (1, 2), axis=(0, 1)), [A], (2,)),
    "roll_flat": (lambda x: sx.roll(x, 3), [A], (0,)),
    "tile": (lambda x: sx.tile(x, (2, 1, 2)), [A], (1,)),
    "repeat": (lambda x: sx.repeat(x, 2, axis=-1), [A], (0,)),
    "repeat_counts": (lambda x: sx.repeat(x, _sx(np.array([1, 0, 2, 1])), axis=1), [A], (1,)),
    "tril_front": (lambda x: sx.tril(x, k=1), [A], (0,)),
    "triu_matrix_axis": (lambda x: sx.triu(x), [A], (2,)),
    "astype": (lambda x: sx.astype(x, sx.float32), [A], (1,)),
    "astype_int": (lambda x: sx.astype(x * 3, sx.int16), [A], (0,)),
    "take_x": (lambda x: sx.take(x, INDICES, axis=1), [A], (2,)),
    "take_x_before_axis": (lambda x: sx.take(x, INDICES, axis=1), [A], (0,)),
    "take_indices": (lambda x, i: sx.take(x, i, axis=1), [B, _sx(RNG.integers(-4, 4, (3, 5)))], (None, 1)),
    "take_both": (lambda x, i: sx.take(x, i, axis=0), [A, _sx(RNG.integers(-3, 3, (5, 2)))], (0, 0)),
    "take_along_x": (lambda x: sx.take_along_axis(x, ALONG, axis=1), [A], (0,)),
    "take_along_indices": (lambda x, i: sx.take_along_axis(x, i, axis=0),
                           [B, _sx(RNG.integers(-2, 2, (3, 5, 4)))], (None, 1)),
    "take_along_both": (lambda x, i: sx.take_along_axis(x, i, axis=1),
                        [A, _sx(RNG.integers(-4, 4, (3, 1, 5)))], (0, 2)),
}


@pytest.mark.parametrize("name", sorted(BATCH))
def test_batch(name):
    f, args, in_axes = BATCH[name]
    check_batch(f, args, in_axes)


def test_creation_inside_vmap():
    check_batch(lambda x: x @ sx.eye(4, k=1) + sx.arange(4.0) + sx.full((3, 4), 2.0) + sx.linspace(0, 1, 4)
                + sx.zeros_like(x) + 0 * sx.empty((4,)), [A], (0,))
    for prim, params in [(_creation.iota, {"start": 1, "step": 2, "num": 3, "dtype": sx.int64}),
                         (_creation.full, {"shape": (2,), "fill_value": 1.5, "dtype": sx.float32}),
                         (_creation.empty, {"shape": (2,), "dtype": sx.float32}),
                         (_creation.eye, {"n_rows": 2, "n_cols": 3, "k": 0, "dtype": sx.float64}),
                         (_creation.linspace, {"start": 0.0, "stop": 1.0, "num": 3, "endpoint": True,
                                               "dtype": sx.float64})]:
        out, dim = prim.batch([], [], axis_size=4, **params)
        assert dim is None and out.shape == prim.bind(**params).shape


def test_vmap_of_derivatives():
    idx = _sx(np.array([2, 0, 0]))

    def f(x):
        return sx.sum(sx.take(x, idx) * x[:1]) + sx.sum(sx.tile(x, (2,)) * sx.roll(sx.repeat(x, 2), 1))

    xs = _sx(_normal(4, 3))
    check_batch(sx.grad(f), [xs], (0,), rtol=1e-12)
    jac = sx.jacrev(lambda x: sx.take_along_axis(x, ALONG, axis=1))(_sx(_normal(3, 4)))
    want = np.zeros((3, 5, 3, 4))
    along = np.asarray(ALONG) % 4
    for i in range(3):
        for k in range(5):
            want[i, k, i, along[i, k]] = 1.0
    np.testing.assert_array_equal(np.asarray(jac), want)


# --- the registry ------------------------------------------------------------------------------------------


def test_every_primitive_here_has_its_rules():
    mine = [p for p in PRIMITIVES.values()
            if any(getattr(m, name, None) is p for m in MODULES for name in dir(m))]
    assert {p.name for p in mine} >= {"iota", "full", "empty", "eye", "triangle", "linspace", "convert_element_type",
                                      "concatenate", "stack", "roll", "tile", "repeat", "repeat_by_array", "take",
                                      "take_along_axis"}
    for p in mine:
        if p.differentiable:
            assert callable(p.jvp) and callable(p.vjp), p.name
        if not p.data_dependent:
            assert callable(p.batch), p.name
