"""sx.lax.conv_general_dilated, conv, conv_with_general_padding, conv_transpose and dot_general against jax.lax (64-bit
types on; float64 and float32): values (with NaN and infinities), eager against jit bit for bit (the host eager rule is
the compiled lowering), grad, jvp and grad of grad against JAX's, vmap over either or both operands against a loop,
on a JAX device (cpu:1), and the errors, which name the offending value."""

from __future__ import annotations

import numpy as np
import pytest

import stridex as sx
from tests.jax_reference import DEVICE, jax, jnp

# (an infinity times a zero in the eager matmul of dot_general: NaN, as in JAX, which does not warn)
pytestmark = pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")

F64, F32 = np.float64, np.float32

# (lhs shape, rhs shape, keyword arguments of conv_general_dilated after window_strides and padding)
CONFIGS = {
    "nchw_same": ((2, 3, 7, 6), (4, 3, 3, 2), dict(window_strides=(1, 1), padding="SAME")),
    "nhwc_strided_atrous": ((2, 9, 8, 3), (3, 3, 3, 5), dict(window_strides=(2, 1), padding="VALID",
                                                            rhs_dilation=(1, 2),
                                                            dimension_numbers=("NHWC", "HWIO", "NHWC"))),
    "explicit_lhs_dilation": ((1, 2, 5, 4), (3, 2, 2, 3), dict(window_strides=(1, 2), padding=((1, 2), (0, 1)),
                                                               lhs_dilation=(2, 1))),
    "feature_groups": ((2, 4, 6, 5), (6, 2, 3, 3), dict(window_strides=(1, 1), padding="SAME",
                                                        feature_group_count=2)),
    "batch_groups": ((4, 3, 6, 5), (4, 3, 2, 2), dict(window_strides=(1, 1), padding="VALID", batch_group_count=2)),
    "one_d_same_lower": ((3, 2, 11), (2, 2, 4), dict(window_strides=(3,), padding="SAME_LOWER")),
    "three_d": ((1, 2, 4, 5, 3), (2, 2, 2, 3, 2), dict(window_strides=(1, 2, 1), padding="SAME")),
    "negative_padding": ((2, 2, 8, 8), (2, 2, 3, 3), dict(window_strides=(1, 1), padding=((-1, 0), (2, -2)))),
    "odd_layout": ((5, 2, 6, 3), (3, 3, 2, 4), dict(window_strides=(2, 1), padding="SAME",
                                                    dimension_numbers=("HNWC", "IHWO", "WCNH"))),
    "large_output": ((2, 3, 40, 40), (4, 3, 3, 3), dict(window_strides=(1, 1), padding="SAME")),  # (over 2048 out)
}


def _operands(name, dtype, seed=0, special=False):
    lhs_shape, rhs_shape, _ = CONFIGS[name]
    rng = np.random.default_rng(seed)
    lhs = rng.standard_normal(lhs_shape).astype(dtype)
    rhs = rng.standard_normal(rhs_shape).astype(dtype)
    if special:
        flat = lhs.reshape(-1)
        flat[[0, 7, 13]] = [np.nan, np.inf, -np.inf]
        flat[5] = -0.0
    return lhs, rhs


def _jax_conv(lhs, rhs, **kw):
    return jax.lax.conv_general_dilated(lhs, rhs, **kw)


def _ours(lhs, rhs, **kw):
    return sx.lax.conv_general_dilated(lhs, rhs, **kw)


def _close(got, want, dtype, scale=1.0):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, want.shape, got.dtype, want.dtype)
    tol = 1e-12 if dtype == F64 else 2e-5
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * scale)


@pytest.mark.parametrize("name", CONFIGS)
@pytest.mark.parametrize("dtype", [F64, F32])
def test_values_against_jax_and_eager_equals_jit(name, dtype):
    kw = CONFIGS[name][2]
    lhs, rhs = _operands(name, dtype, special=True)
    got = _ours(sx.asarray(lhs), sx.asarray(rhs), **kw)
    with jax.enable_x64(True):
        want = np.asarray(_jax_conv(jnp.asarray(lhs), jnp.asarray(rhs), **kw))
    assert got.dtype == sx.asarray(want).dtype
    np.testing.assert_array_equal(np.isnan(np.asarray(got)), np.isnan(want))
    _close(np.nan_to_num(np.asarray(got)), np.nan_to_num(want), dtype, scale=10)
    jitted = sx.jit(lambda a, b: _ours(a, b, **kw))(sx.asarray(lhs), sx.asarray(rhs))
    np.testing.assert_array_equal(np.asarray(jitted).view(np.uint8), np.asarray(got).view(np.uint8))


def _loss_ours(kw):
    return lambda a, b: sx.sum(sx.sin(_ours(a, b, **kw)))


def _loss_jax(kw):
    return lambda a, b: jnp.sum(jnp.sin(_jax_conv(a, b, **kw)))


@pytest.mark.parametrize("name", CONFIGS)
def test_grad_and_jvp_against_jax(name):
    kw = CONFIGS[name][2]
    lhs, rhs = _operands(name, F64, seed=1)
    grads = sx.grad(_loss_ours(kw), argnums=(0, 1))(sx.asarray(lhs), sx.asarray(rhs))
    t_lhs, t_rhs = _operands(name, F64, seed=2)
    _, tangent = sx.jvp(lambda a, b: _ours(a, b, **kw), (sx.asarray(lhs), sx.asarray(rhs)),
                        (sx.asarray(t_lhs), sx.asarray(t_rhs)))
    with jax.enable_x64(True):
        want = jax.grad(_loss_jax(kw), argnums=(0, 1))(jnp.asarray(lhs), jnp.asarray(rhs))
        _, want_tangent = jax.jvp(lambda a, b: _jax_conv(a, b, **kw), (jnp.asarray(lhs), jnp.asarray(rhs)),
                                  (jnp.asarray(t_lhs), jnp.asarray(t_rhs)))
    for g, w in zip(grads, want):
        _close(g, w, F64, scale=10)
    _close(tangent, want_tangent, F64, scale=10)
    jitted = sx.jit(sx.grad(_loss_ours(kw), argnums=(0, 1)))(sx.asarray(lhs), sx.asarray(rhs))
    for g, w in zip(jitted, want):
        _close(g, w, F64, scale=10)


@pytest.mark.parametrize("name", ["nchw_same", "nhwc_strided_atrous", "explicit_lhs_dilation", "feature_groups",
                                  "batch_groups"])
def test_grad_of_grad_against_jax(name):
    kw = CONFIGS[name][2]
    lhs, rhs = _operands(name, F64, seed=3)

    def ours(a, b):
        return sx.sum(sx.grad(_loss_ours(kw), argnums=0)(a, b) ** 2)

    def theirs(a, b):
        return jnp.sum(jax.grad(_loss_jax(kw), argnums=0)(a, b) ** 2)

    got = sx.grad(ours, argnums=(0, 1))(sx.asarray(lhs), sx.asarray(rhs))
    with jax.enable_x64(True):
        want = jax.grad(theirs, argnums=(0, 1))(jnp.asarray(lhs), jnp.asarray(rhs))
    for g, w in zip(got, want):
        _close(g, w, F64, scale=100)


@pytest.mark.parametrize("name", [n for n in CONFIGS if n != "large_output"])
@pytest.mark.parametrize("batched", ["lhs", "rhs", "both"])
def test_vmap_against_a_loop(name, batched):
    kw = CONFIGS[name][2]
    rng = np.random.default_rng(4)
    lhs_shape, rhs_shape, _ = CONFIGS[name]
    lhs = rng.standard_normal(((3,) if batched != "rhs" else ()) + lhs_shape)
    rhs = rng.standard_normal(((3,) if batched != "lhs" else ()) + rhs_shape)
    axes = {"lhs": (0, None), "rhs": (None, 0), "both": (0, 0)}[batched]
    got = sx.vmap(lambda a, b: _ours(a, b, **kw), in_axes=axes)(sx.asarray(lhs), sx.asarray(rhs))
    want = np.stack([np.asarray(_ours(sx.asarray(lhs[i] if axes[0] == 0 else lhs),
                                      sx.asarray(rhs[i] if axes[1] == 0 else rhs), **kw)) for i in range(3)])
    _close(got, want, F64)
    # the batch axis elsewhere than first
    moved = sx.vmap(lambda a, b: _ours(a, b, **kw), in_axes=tuple(None if a is None else -1 for a in axes))(
        sx.asarray(np.moveaxis(lhs, 0, -1) if axes[0] == 0 else lhs),
        sx.asarray(np.moveaxis(rhs, 0, -1) if axes[1] == 0 else rhs))
    _close(moved, want, F64)


def test_vmap_of_grad_against_a_loop():
    kw = CONFIGS["feature_groups"][2]
    rng = np.random.default_rng(5)
    lhs = rng.standard_normal((2,) + CONFIGS["feature_groups"][0])
    rhs = rng.standard_normal(CONFIGS["feature_groups"][1])
    got = sx.vmap(sx.grad(_loss_ours(kw), argnums=1), in_axes=(0, None))(sx.asarray(lhs), sx.asarray(rhs))
    with jax.enable_x64(True):
        want = np.stack([np.asarray(jax.grad(_loss_jax(kw), argnums=1)(jnp.asarray(x), jnp.asarray(rhs)))
                         for x in lhs])
    _close(got, want, F64, scale=10)


def test_on_a_device():
    kw = CONFIGS["nhwc_strided_atrous"][2]
    lhs, rhs = _operands("nhwc_strided_atrous", F32)
    got = _ours(sx.asarray(lhs, device=DEVICE), sx.asarray(rhs, device=DEVICE), **kw)
    assert got.device == DEVICE
    host = _ours(sx.asarray(lhs), sx.asarray(rhs), **kw)
    _close(got.to_device("cpu"), host, F32)
    g = sx.grad(_loss_ours(kw), argnums=(0, 1))(sx.asarray(lhs, device=DEVICE), sx.asarray(rhs, device=DEVICE))
    assert g[0].device == DEVICE and g[1].device == DEVICE
    with jax.enable_x64(True):
        want = jax.grad(_loss_jax(kw), argnums=(0, 1))(jnp.asarray(lhs), jnp.asarray(rhs))
    _close(g[1].to_device("cpu"), want[1], F32, scale=10)


def test_complex_operands_against_jax():
    rng = np.random.default_rng(9)
    lhs = rng.standard_normal((2, 3, 6, 5)) + 1j * rng.standard_normal((2, 3, 6, 5))
    rhs = rng.standard_normal((4, 3, 3, 2)) + 1j * rng.standard_normal((4, 3, 3, 2))

    def loss(xp, conv):
        return lambda a, b: xp.sum(xp.real(conv(a, b, (1, 1), "SAME")) ** 2) + xp.sum(xp.imag(conv(a, b, (2, 1),
                                                                                                "VALID")))

    got = sx.lax.conv(sx.asarray(lhs), sx.asarray(rhs), (1, 1), "SAME")
    grads = sx.grad(loss(sx, sx.lax.conv), argnums=(0, 1))(sx.asarray(lhs), sx.asarray(rhs))
    with jax.enable_x64(True):
        want = jax.lax.conv(jnp.asarray(lhs), jnp.asarray(rhs), (1, 1), "SAME")
        want_grads = jax.grad(loss(jnp, jax.lax.conv), argnums=(0, 1))(jnp.asarray(lhs), jnp.asarray(rhs))
    _close(got, want, F64, scale=10)
    for g, w in zip(grads, want_grads):
        _close(g, w, F64, scale=10)


def test_promotion_and_preferred_element_type():
    lhs, rhs = _operands("nchw_same", F32)
    kw = CONFIGS["nchw_same"][2]
    mixed = _ours(sx.asarray(lhs), sx.asarray(rhs.astype(F64)), **kw)
    assert mixed.dtype == sx.float64
    _close(mixed, _ours(sx.asarray(lhs.astype(F64)), sx.asarray(rhs.astype(F64)), **kw), F64)
    ints = _ours(sx.asarray(np.arange(2 * 3 * 7 * 6, dtype=np.int8).reshape(2, 3, 7, 6) % 5),
                 sx.asarray(np.ones((4, 3, 3, 2), np.int8)), preferred_element_type=sx.int32, **kw)
    assert ints.dtype == sx.int32
    with jax.enable_x64(True):
        want = jax.lax.conv_general_dilated(np.arange(2 * 3 * 7 * 6, dtype=np.int8).reshape(2, 3, 7, 6) % 5,
                                            np.ones((4, 3, 3, 2), np.int8), preferred_element_type=np.int32, **kw)
    np.testing.assert_array_equal(np.asarray(ints), np.asarray(want))


def test_array_likes_are_taken():
    lhs, rhs = _operands("nchw_same", F64)
    kw = CONFIGS["nchw_same"][2]
    want = _ours(sx.asarray(lhs), sx.asarray(rhs), **kw)
    _close(_ours(lhs, rhs.tolist(), **kw), want, F64)
    with jax.enable_x64(True):
        _close(_ours(jnp.asarray(lhs), sx.asarray(rhs), **kw), want, F64)


def test_conv_and_conv_with_general_padding():
    rng = np.random.default_rng(6)
    lhs, rhs = rng.standard_normal((2, 3, 9, 8)), rng.standard_normal((4, 3, 3, 2))
    with jax.enable_x64(True):
        want = jax.lax.conv(jnp.asarray(lhs), jnp.asarray(rhs), (2, 1), "SAME")
        want_general = jax.lax.conv_with_general_padding(jnp.asarray(lhs), jnp.asarray(rhs), (1, 2), ((1, 0), (2, 1)),
                                                         (2, 1), (1, 2))
    _close(sx.lax.conv(sx.asarray(lhs), sx.asarray(rhs), (2, 1), "SAME"), want, F64)
    _close(sx.lax.conv_with_general_padding(sx.asarray(lhs), sx.asarray(rhs), (1, 2), ((1, 0), (2, 1)), (2, 1),
                                            (1, 2)), want_general, F64)


TRANSPOSES = [
    ((1, 5, 4, 2), (3, 3, 2, 4), dict(strides=(2, 2), padding="SAME")),
    ((2, 5, 6, 3), (2, 3, 3, 2), dict(strides=(1, 2), padding="VALID")),
    ((2, 5, 6, 3), (3, 4, 3, 2), dict(strides=(3, 2), padding="SAME", rhs_dilation=(1, 2))),
    ((1, 4, 4, 2), (3, 3, 2, 5), dict(strides=(2, 2), padding=((1, 2), (0, 1)))),
    ((1, 4, 4, 2), (3, 3, 5, 2), dict(strides=(2, 2), padding="SAME", transpose_kernel=True)),
    ((1, 4, 4, 2), (3, 3, 2, 5), dict(strides=(2, 2), padding=((1, 1), (0, 2)), use_consistent_padding=True)),
    ((2, 3, 7), (4, 3, 5), dict(strides=(2,), padding="VALID", dimension_numbers=("NCH", "OIH", "NCH"))),
]


@pytest.mark.parametrize("case", range(len(TRANSPOSES)))
def test_conv_transpose_against_jax(case):
    lhs_shape, rhs_shape, kw = TRANSPOSES[case]
    rng = np.random.default_rng(7)
    lhs, rhs = rng.standard_normal(lhs_shape), rng.standard_normal(rhs_shape)
    got = sx.lax.conv_transpose(sx.asarray(lhs), sx.asarray(rhs), **kw)
    with jax.enable_x64(True):
        want = jax.lax.conv_transpose(jnp.asarray(lhs), jnp.asarray(rhs), **kw)
        want_grad = jax.grad(lambda a: jnp.sum(jnp.cos(jax.lax.conv_transpose(a, jnp.asarray(rhs), **kw))))(
            jnp.asarray(lhs))
    _close(got, want, F64)
    grad = sx.grad(lambda a: sx.sum(sx.cos(sx.lax.conv_transpose(a, sx.asarray(rhs), **kw))))(sx.asarray(lhs))
    _close(grad, want_grad, F64)


@pytest.mark.parametrize("call,error,match", [
    (lambda: sx.lax.conv(sx.ones((1, 3, 5, 5)), sx.ones((2, 4, 3, 3)), (1, 1), "SAME"), ValueError,
     r"3 // 1 != 4"),
    (lambda: sx.lax.conv(sx.ones((1, 3, 5, 5)), sx.ones((2, 3, 3)), (1, 1), "SAME"), TypeError,
     r"\(1, 3, 5, 5\) and \(2, 3, 3\)"),
    (lambda: sx.lax.conv(sx.ones((1, 3, 5, 5)), sx.ones((2, 3, 3, 3)), (1,), "SAME"), ValueError,
     r"window_strides must have one entry per spatial dimension \(2\), got \(1,\)"),
    (lambda: sx.lax.conv(sx.ones((1, 3, 5, 5)), sx.ones((2, 3, 3, 3)), (1, 1), "FULL"), ValueError, r"'FULL'"),
    (lambda: sx.lax.conv(sx.ones((1, 3, 5, 5)), sx.ones((2, 3, 3, 3)), (0, 1), "SAME"), ValueError,
     r"window_strides must be positive, got \(0, 1\)"),
    (lambda: sx.lax.conv_general_dilated(sx.ones((1, 4, 5, 5)), sx.ones((2, 2, 3, 3)), (1, 1), "SAME",
                                         feature_group_count=3), ValueError, r"feature_group_count=3"),
    (lambda: sx.lax.conv_general_dilated(sx.ones((3, 4, 5, 5)), sx.ones((2, 4, 3, 3)), (1, 1), "SAME",
                                         batch_group_count=2), ValueError, r"batch_group_count=2 must divide .* 3"),
    (lambda: sx.lax.conv_general_dilated(sx.ones((2, 4, 5, 5)), sx.ones((2, 2, 3, 3)), (1, 1), "SAME",
                                         feature_group_count=2, batch_group_count=2), ValueError, r"at most one"),
    (lambda: sx.lax.conv_general_dilated(sx.ones((1, 5, 5, 3)), sx.ones((3, 3, 3, 2)), (1, 1), "SAME",
                                         dimension_numbers=("NHWC", "HWIO", "NHWX")), TypeError, r"'NHWX'"),
    (lambda: sx.lax.conv_general_dilated(sx.ones((1, 5, 5, 3)), sx.ones((3, 3, 3, 2)), (1, 1), "SAME",
                                         dimension_numbers=("NHWC", "HWIO", "NHC")), TypeError, r"'NHC'"),
    (lambda: sx.lax.conv_general_dilated(sx.ones((1, 3, 5, 5)), sx.ones((2, 3, 3, 3)), (1, 1), "SAME",
                                         lhs_dilation=(2, 2)), ValueError, r"string padding \('SAME'\)"),
    (lambda: sx.lax.conv(sx.ones((1, 3, 5, 5), dtype=sx.bool), sx.ones((2, 3, 3, 3)), (1, 1), "SAME"), TypeError,
     r"numeric operands, got bool"),
    (lambda: sx.lax.conv(sx.ones((1, 3, 5, 5)), sx.ones((2, 3, 3, 3)), (1, 1), [(1, 1)]), ValueError,
     r"one \(low, high\) pair per spatial dimension \(2\)"),
    (lambda: sx.lax.conv(sx.ones((1, 3, 2, 2)), sx.ones((2, 3, 1, 1)), (1, 1), [(-3, 0), (0, 0)]), ValueError,
     r"negative padding \(-3, 0\)"),
    (lambda: sx.lax.conv(object(), sx.ones((1, 1)), (), "SAME"), TypeError, r"lhs must be an array, got object"),
    (lambda: sx.lax.conv(sx.ones((1, 3, 5, 5)), sx.ones((2, 3, 3, 3)), (1, 1), "SAME", precision="hihgest"),
     ValueError, r"precision must be None, .* got 'hihgest'"),
    (lambda: sx.lax.dot_general(sx.ones((2, 3)), sx.ones((3,)), (((1,), (0,)), ((), ())), precision=("high", 3)),
     ValueError, r"got \('high', 3\)"),
])
def test_errors_name_the_offending_value(call, error, match):
    with pytest.raises(error, match=match):
        call()


# --- dot_general ----------------------------------------------------------------------------------------------------

DOTS = [
    ((3, 4), (4, 5), (((1,), (0,)), ((), ()))),
    ((2, 3, 4), (2, 4, 5), (((2,), (1,)), ((0,), (0,)))),
    ((4, 2, 3), (3, 5, 2), (((2,), (0,)), ((1,), (2,)))),
    ((2, 3, 4, 5), (5, 4, 6), (((3, 2), (0, 1)), ((), ()))),
    ((3,), (4,), (((), ()), ((), ()))),
    ((6, 2, 7), (7, 6), (((2,), (0,)), ((0,), (1,)))),
]


@pytest.mark.parametrize("case", range(len(DOTS)))
@pytest.mark.parametrize("dtype", [F64, F32])
def test_dot_general_against_jax(case, dtype):
    s1, s2, numbers = DOTS[case]
    rng = np.random.default_rng(8)
    a, b = rng.standard_normal(s1).astype(dtype), rng.standard_normal(s2).astype(dtype)
    a.reshape(-1)[0] = np.inf
    got = sx.lax.dot_general(sx.asarray(a), sx.asarray(b), numbers)
    jitted = sx.jit(lambda x, y: sx.lax.dot_general(x, y, numbers))(sx.asarray(a), sx.asarray(b))
    with jax.enable_x64(True):
        want = jax.lax.dot_general(jnp.asarray(a), jnp.asarray(b), numbers)
        want_grad = jax.grad(lambda x, y: jnp.sum(jnp.tanh(jax.lax.dot_general(x, y, numbers))), argnums=(0, 1))(
            jnp.asarray(a), jnp.asarray(b))
    for g in (got, jitted):
        np.testing.assert_array_equal(np.isnan(np.asarray(g)), np.isnan(np.asarray(want)))
        _close(np.nan_to_num(np.asarray(g)), np.nan_to_num(np.asarray(want)), dtype, scale=10)
    a[np.isinf(a)] = 1.0
    grads = sx.grad(lambda x, y: sx.sum(sx.tanh(sx.lax.dot_general(x, y, numbers))), argnums=(0, 1))(
        sx.asarray(a), sx.asarray(b))
    with jax.enable_x64(True):
        want_grad = jax.grad(lambda x, y: jnp.sum(jnp.tanh(jax.lax.dot_general(x, y, numbers))), argnums=(0, 1))(
            jnp.asarray(a), jnp.asarray(b))
    for g, w in zip(grads, want_grad):
        _close(g, w, dtype, scale=10)
    looped = np.stack([np.asarray(sx.lax.dot_general(sx.asarray(a), sx.asarray(b * k), numbers)) for k in (1, 2)])
    batched = sx.vmap(lambda y: sx.lax.dot_general(sx.asarray(a), y, numbers))(sx.asarray(np.stack([b, 2 * b])))
    _close(batched, looped, dtype, scale=10)


def test_one_convolution_and_one_dot_under_jit_and_on_a_device():
    lhs, rhs = _operands("nchw_same", F32)
    text = sx.jit(lambda a, b: _ours(a, b, **CONFIGS["nchw_same"][2])).lower(sx.asarray(lhs), sx.asarray(rhs)).as_text()
    assert text.count("stablehlo.convolution") == 1
    numbers = (((2,), (1,)), ((0,), (0,)))
    a, b = np.ones((2, 3, 4), np.float32), np.ones((2, 4, 5), np.float32)
    text = sx.jit(lambda x, y: sx.lax.dot_general(x, y, numbers)).lower(sx.asarray(a), sx.asarray(b)).as_text()
    assert text.count("stablehlo.dot_general") == 1
    on_device = sx.lax.dot_general(sx.asarray(a, device=DEVICE), sx.asarray(b, device=DEVICE), numbers)
    assert on_device.device == DEVICE
    np.testing.assert_array_equal(np.asarray(on_device.to_device("cpu")), np.full((2, 3, 5), 4.0, np.float32))


def test_precisions_jax_takes_are_accepted():
    a = sx.ones((2, 3))
    for precision in (None, "highest", "DEFAULT", jax.lax.Precision.HIGH, (jax.lax.Precision.HIGHEST, "highest"),
                      "BF16_BF16_F32"):
        assert float(sx.lax.dot_general(a, a, (((1,), (1,)), ((), ())), precision=precision)[0, 0]) == 3.0


def test_dot_general_dtypes_and_errors():
    a8 = sx.asarray(np.arange(6, dtype=np.int8).reshape(2, 3))
    out = sx.lax.dot_general(a8, a8, (((1,), (1,)), ((), ())), preferred_element_type=np.int32)
    assert out.dtype == sx.int32
    np.testing.assert_array_equal(np.asarray(out), np.arange(6).reshape(2, 3) @ np.arange(6).reshape(2, 3).T)
    assert sx.lax.dot_general(sx.ones((2, 3), dtype=sx.float32), sx.ones((3,)), (((1,), (0,)), ((), ()))).dtype \
        == sx.float64
    with pytest.raises(TypeError, match=r"contracting dimensions to have the same shape, got \(3,\) and \(4,\)"):
        sx.lax.dot_general(sx.ones((2, 3)), sx.ones((4, 2)), (((1,), (0,)), ((), ())))
    with pytest.raises(TypeError, match=r"lhs axes \(2,\)"):
        sx.lax.dot_general(sx.ones((2, 3)), sx.ones((3, 2)), (((2,), (0,)), ((), ())))
    with pytest.raises(TypeError, match=r"dimension_numbers must be"):
        sx.lax.dot_general(sx.ones((2, 3)), sx.ones((3, 2)), ((1,), (0,)))
    with pytest.raises(TypeError, match=r"preferred_element_type float32 must not be narrower than the operands' dtype "
                                        r"float64"):
        sx.lax.dot_general(sx.ones((2, 3)), sx.ones((3, 2)), (((1,), (0,)), ((), ())),
                           preferred_element_type=sx.float32)
    with pytest.raises(TypeError, match=r"preferred_element_type uint32 is incompatible with the operands' dtype int8"):
        sx.lax.dot_general(a8, a8, (((1,), (1,)), ((), ())), preferred_element_type=sx.uint32)
    with pytest.raises(TypeError, match=r"preferred_element_type int64 is incompatible .* float32"):
        sx.lax.conv(sx.ones((1, 1, 3, 3), dtype=sx.float32), sx.ones((1, 1, 2, 2), dtype=sx.float32), (1, 1), "SAME",
                    preferred_element_type=sx.int64)
    assert sx.lax.dot_general(a8, a8, (((1,), (1,)), ((), ())), preferred_element_type=sx.float32).dtype == sx.float32
    with pytest.raises(TypeError, match=r"preferred_element_type must be a dtype, got 'nope'"):
        sx.lax.dot_general(sx.ones((2, 3)), sx.ones((3, 2)), (((1,), (0,)), ((), ())), preferred_element_type="nope")
