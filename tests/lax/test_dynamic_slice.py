"""`dynamic_slice` / `dynamic_update_slice` (stridex/_lax/array_indexing.py): a block at starts known at run time,
clamped as JAX clamps them. Against NumPy eagerly, JAX's `lax` functions, eager under `jit`, finite differences
and JAX for derivatives, and a Python loop under `vmap`; and `x[i]` with a traced `i` under `jit`, which reads
through `dynamic_slice` (one program for every index), against eager indexing."""

from __future__ import annotations

import os

import jax
import numpy as np
import pytest

import stridex as sx
from stridex._lax import ops

DEV = os.environ.get("STRIDEX_TEST_DEVICE", "cpu:1")
SPECIAL = np.array([np.nan, -0.0, np.inf, -np.inf, 1.5, -2.25])


def data(shape, seed=0):
    values = np.random.default_rng(seed).standard_normal(shape)
    flat = values.reshape(-1)
    flat[:len(SPECIAL)] = SPECIAL[:flat.size]
    return values


def jax_slice(x, starts, sizes):
    with jax.enable_x64(True):
        return np.asarray(jax.lax.dynamic_slice(x, [np.int64(s) for s in starts], sizes))


def jax_update(x, update, starts):
    with jax.enable_x64(True):
        return np.asarray(jax.lax.dynamic_update_slice(x, update, [np.int64(s) for s in starts]))


def same(got, expected):
    got, expected = np.asarray(got), np.asarray(expected)
    assert got.shape == expected.shape and got.dtype == expected.dtype, (got.shape, got.dtype, expected.dtype)
    assert got.tobytes() == expected.tobytes()


# (shape, sizes, starts): both sides of the aligned-output threshold (2048 elements), starts in range,
# negative and beyond the end (clamped)
CASES = [
    ((7,), (3,), (2,)),
    ((7,), (3,), (-4,)),
    ((7,), (3,), (6,)),
    ((7,), (0,), (9,)),
    ((4, 5), (2, 5), (3, 0)),
    ((4, 5), (1, 1), (-1, 100)),
    ((3000,), (2500,), (100,)),
    ((60, 60), (50, 45), (20, -3)),
]


@pytest.mark.parametrize("shape, sizes, starts", CASES)
def test_eager_and_jitted_slices_are_numpy_blocks_at_jax_clamped_starts(shape, sizes, starts):
    x = data(shape)
    expected = jax_slice(x, starts, sizes)
    clamped = tuple(min(max(s + n if s < 0 else s, 0), n - k) for s, n, k in zip(starts, shape, sizes))
    same(expected, x[tuple(slice(s, s + k) for s, k in zip(clamped, sizes))])
    same(ops.dynamic_slice(sx.asarray(x), starts, sizes), expected)
    f = sx.jit(lambda v, *s: ops.dynamic_slice(v, s, sizes))
    same(f(sx.asarray(x), *starts), expected)
    same(ops.dynamic_slice(sx.asarray(x, device=DEV), starts, sizes).to_device("cpu"), expected)


@pytest.mark.parametrize("shape, sizes, starts", CASES)
def test_eager_and_jitted_updates_are_jax_updates(shape, sizes, starts):
    x = data(shape)
    update = data(sizes, seed=1) * 10
    expected = jax_update(x, update, starts)
    same(ops.dynamic_update_slice(sx.asarray(x), sx.asarray(update), starts), expected)
    f = sx.jit(lambda v, u, *s: ops.dynamic_update_slice(v, u, s))
    same(f(sx.asarray(x), sx.asarray(update), *starts), expected)
    same(ops.dynamic_update_slice(sx.asarray(x, device=DEV), sx.asarray(update, device=DEV), starts).to_device("cpu"),
         expected)


def test_bad_starts_and_sizes_are_type_errors_naming_them():
    x = sx.ones((3, 4))
    with pytest.raises(TypeError, match="takes 2 start indices, got 1"):
        sx.jit(lambda v: ops.dynamic_slice(v, (0,), (1,)))(x)
    with pytest.raises(TypeError, match=r"slice sizes \(4, 1\) do not fit"):
        sx.jit(lambda v: ops.dynamic_slice(v, (0, 0), (4, 1)))(x)
    with pytest.raises(TypeError, match="must be a 0-D integer"):
        sx.jit(lambda v, s: ops.dynamic_slice(v, (s, 0), (1, 1)))(x, 1.5)
    with pytest.raises(TypeError, match="dtype float32 is not the operand's float64"):
        sx.jit(lambda v, u: ops.dynamic_update_slice(v, u, (0, 0)))(x, sx.ones((1, 1), dtype=sx.float32))


def test_derivatives_are_jax_derivatives():
    x = np.random.default_rng(2).standard_normal((5, 6))  # (finite: the finite difference below needs it)
    update = np.random.default_rng(3).standard_normal((2, 3))
    starts = (2, -1)

    def through_stridex(v, u):
        return sx.sum(ops.dynamic_slice(ops.dynamic_update_slice(v * v, u * 3.0, starts), (1, 2), (3, 4)) ** 2)

    def through_jax(v, u):
        s = [np.int64(k) for k in starts]
        inner = jax.lax.dynamic_update_slice(v * v, u * 3.0, s)
        return jax.numpy.sum(jax.lax.dynamic_slice(inner, [np.int64(1), np.int64(2)], (3, 4)) ** 2)

    with jax.enable_x64(True):
        expected = jax.grad(through_jax, argnums=(0, 1))(x, update)
    for grad in (sx.grad(through_stridex, argnums=(0, 1)), sx.jit(sx.grad(through_stridex, argnums=(0, 1)))):
        got = grad(sx.asarray(x), sx.asarray(update))
        for g, e in zip(got, expected):
            np.testing.assert_allclose(np.asarray(g), np.asarray(e), rtol=1e-12, atol=0)
    # forward mode, against a finite difference
    direction = np.random.default_rng(4).standard_normal((5, 6))
    _, tangent = sx.jvp(lambda v: through_stridex(v, sx.asarray(update)), (sx.asarray(x),), (sx.asarray(direction),))
    h = 1e-6
    plus = float(through_stridex(sx.asarray(x + h * direction), sx.asarray(update)))
    minus = float(through_stridex(sx.asarray(x - h * direction), sx.asarray(update)))
    np.testing.assert_allclose(float(tangent), (plus - minus) / (2 * h), rtol=1e-6)


def test_vmap_is_a_loop_over_examples():
    xs = data((4, 6, 5), seed=5)
    updates = data((4, 2, 2), seed=6)
    starts = np.array([0, 3, -2, 9])
    slice_all = sx.vmap(lambda v, i: ops.dynamic_slice(v, (i, 1), (3, 2)))
    same(slice_all(sx.asarray(xs), sx.asarray(starts)),
         np.stack([jax_slice(xs[k], (starts[k], 1), (3, 2)) for k in range(4)]))
    same(sx.vmap(lambda v: ops.dynamic_slice(v, (2, 1), (3, 2)))(sx.asarray(xs)),
         np.stack([jax_slice(xs[k], (2, 1), (3, 2)) for k in range(4)]))
    update_all = sx.vmap(lambda v, u, i: ops.dynamic_update_slice(v, u, (1, i)), in_axes=(0, 0, None))
    same(update_all(sx.asarray(xs), sx.asarray(updates), 4),
         np.stack([jax_update(xs[k], updates[k], (1, 4)) for k in range(4)]))


# --- x[i] with a traced i -----------------------------------------------------------------------------------

KEYS = [
    lambda i: i,
    lambda i: (i, 2),
    lambda i: (slice(1, 4), i),
    lambda i: (Ellipsis, i),
    lambda i: (None, i, slice(None, None, -2)),
    lambda i: (i, None, i),
    lambda i: (-1, Ellipsis, i),
]


@pytest.mark.parametrize("make_key", KEYS)
@pytest.mark.parametrize("i", [0, 2, -1, -5])
def test_a_traced_index_gives_the_eager_result(make_key, i):
    x = sx.asarray(data((5, 6, 7)))
    f = sx.jit(lambda v, j: v[make_key(j)])
    same(f(x, i), x[make_key(i)])


def test_one_program_serves_every_traced_index():
    x = sx.asarray(data((3000,)))
    f = sx.jit(lambda v, j: v[j] * 2.0)
    before = sx.cache_stats()["jit"].compiles
    for i in range(-3000, 3000, 7):
        assert float(f(x, i)) == float(x[i]) * 2.0 or np.isnan(float(x[i]))
    assert sx.cache_stats()["jit"].compiles - before == 1
    assert "dynamic_slice" in str(sx.make_ir(lambda v, j: v[j])(x, 3))


def test_a_traced_index_out_of_range_is_clamped_and_an_empty_axis_refused():
    x = sx.arange(5.0)
    f = sx.jit(lambda v, j: v[j])
    assert float(f(x, 7)) == 4.0 and float(f(x, -9)) == 0.0  # (as JAX's x[i]: -9 + 5, clamped; not checked)
    with jax.enable_x64(True):
        g = jax.jit(lambda v, j: v[j])
        assert float(g(np.arange(5.0), 7)) == 4.0 and float(g(np.arange(5.0), -9)) == 0.0
    with pytest.raises(IndexError, match="size 0"):
        f(sx.ones((0,)), 0)
