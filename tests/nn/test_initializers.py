"""stridex.nn.initializers against jax.nn.initializers: the same key, shape and real dtype give the same bits (JAX
with 64-bit types on), eagerly and under jit; complex dtypes agree to an ulp (exp(1j θ) rounds otherwise in NumPy);
fans, axes and errors as JAX's."""

from __future__ import annotations

import numpy as np
import pytest

import stridex as sx
from stridex.nn import initializers as I
from tests.jax_reference import DEVICE, assert_close, jax, jnp, on_jax, same_bits

JI = jax.nn.initializers
DTYPES = {"float64": (sx.float64, jnp.float64), "float32": (sx.float32, jnp.float32),
          "float16": (sx.float16, jnp.float16), "bfloat16": (sx.bfloat16, jnp.bfloat16)}
SHAPES = [(3, 4), (5, 2, 7), (2, 3, 4, 6), (64, 33)]

# name: (stridex initializer, JAX initializer)
MAKERS = {
    "normal": (I.normal(), JI.normal()),
    "normal_5": (I.normal(5.0), JI.normal(5.0)),
    "uniform": (I.uniform(), JI.uniform()),
    "uniform_3": (I.uniform(3.0), JI.uniform(3.0)),
    "truncated_normal": (I.truncated_normal(), JI.truncated_normal()),
    "truncated_normal_bounds": (I.truncated_normal(2.0, lower=-1.0, upper=3.0),
                                JI.truncated_normal(2.0, lower=-1.0, upper=3.0)),
    "glorot_uniform": (I.glorot_uniform(), JI.glorot_uniform()),
    "glorot_normal": (I.glorot_normal(), JI.glorot_normal()),
    "xavier_uniform": (I.xavier_uniform(), JI.xavier_uniform()),
    "xavier_normal": (I.xavier_normal(), JI.xavier_normal()),
    "he_uniform": (I.he_uniform(), JI.he_uniform()),
    "he_normal": (I.he_normal(), JI.he_normal()),
    "kaiming_uniform": (I.kaiming_uniform(), JI.kaiming_uniform()),
    "kaiming_normal": (I.kaiming_normal(), JI.kaiming_normal()),
    "lecun_uniform": (I.lecun_uniform(), JI.lecun_uniform()),
    "lecun_normal": (I.lecun_normal(), JI.lecun_normal()),
    "variance_scaling_fan_out_normal": (I.variance_scaling(0.7, "fan_out", "normal"),
                                        JI.variance_scaling(0.7, "fan_out", "normal")),
    "variance_scaling_geo_avg": (I.variance_scaling(1.3, "fan_geo_avg", "truncated_normal"),
                                 JI.variance_scaling(1.3, "fan_geo_avg", "truncated_normal")),
    "variance_scaling_axes": (I.variance_scaling(2.0, "fan_avg", "uniform", in_axis=0, out_axis=(1,), batch_axis=()),
                              JI.variance_scaling(2.0, "fan_avg", "uniform", in_axis=0, out_axis=(1,), batch_axis=())),
    "orthogonal": (I.orthogonal(), JI.orthogonal()),
    "orthogonal_scaled_axis0": (I.orthogonal(2.0, column_axis=0), JI.orthogonal(2.0, column_axis=0)),
    "constant": (I.constant(-7.5), JI.constant(-7.5)),
    "zeros": (I.zeros, JI.zeros),
    "ones": (I.ones, JI.ones),
}


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("name", list(MAKERS))
def test_same_bits_as_jax(name, dtype):
    ours, theirs = MAKERS[name]
    sx_dtype, jax_dtype = DTYPES[dtype]
    if name.startswith("orthogonal") and dtype in ("float16", "bfloat16"):  # (no QR in half precision, in JAX either)
        with pytest.raises(NotImplementedError, match="Unsupported dtype"):
            ours(sx.random.key(0), (3, 3), sx_dtype)
        return
    for seed, shape in zip((0, 1, 42, 2**31 + 5), SHAPES):
        got = ours(sx.random.key(seed), shape, sx_dtype)
        with jax.enable_x64(True):
            want = np.asarray(theirs(jax.random.PRNGKey(seed), shape, jax_dtype))
        assert got.dtype == sx_dtype and got.shape == shape
        same_bits(got, want, f"{name} {dtype} {shape} key {seed}")


@pytest.mark.parametrize("name", ["normal", "uniform", "truncated_normal", "glorot_normal", "he_uniform", "orthogonal",
                                  "lecun_normal"])
def test_under_jit_same_bits_as_jax_jit(name):
    ours, theirs = MAKERS[name]
    for dtype in ("float64", "float32"):
        sx_dtype, jax_dtype = DTYPES[dtype]
        got = sx.jit(lambda k: ours(k, (6, 5), sx_dtype))(sx.random.key(3))
        with jax.enable_x64(True):
            want = np.asarray(jax.jit(lambda k: theirs(k, (6, 5), jax_dtype))(jax.random.PRNGKey(3)))
        same_bits(got, want, f"jit {name} {dtype}")


def test_default_dtype_is_float64_and_a_device_key_gives_device_arrays():
    for name in ("normal", "glorot_uniform", "zeros", "constant", "orthogonal"):
        ours, theirs = MAKERS[name]
        got = ours(sx.random.key(0), (4, 3))
        assert got.dtype == sx.float64
        same_bits(got, on_jax(lambda: theirs(jax.random.PRNGKey(0), (4, 3), jnp.float64)), name)
    key = sx.asarray(np.asarray(sx.random.key(5)), device=DEVICE)
    got = I.he_normal()(key, (8, 4))
    assert got.device == DEVICE
    same_bits(got.to_device("cpu"), I.he_normal()(sx.random.key(5), (8, 4)), "he_normal on a device")


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("distribution", ["uniform", "truncated_normal", "normal"])
def test_complex_dtypes_agree_to_an_ulp(distribution, dtype):
    ours = I.variance_scaling(1.0, "fan_in", distribution)
    theirs = JI.variance_scaling(1.0, "fan_in", distribution)
    got = ours(sx.random.key(2), (7, 9), getattr(sx, dtype))
    with jax.enable_x64(True):
        want = np.asarray(theirs(jax.random.PRNGKey(2), (7, 9), getattr(jnp, dtype)))
    assert_close(got, want, ulps=4, atol=4 * float(np.finfo(want.real.dtype).eps))
    assert_close(I.orthogonal()(sx.random.key(2), (3, 3), getattr(sx, dtype)),
                 on_jax(lambda: JI.orthogonal()(jax.random.PRNGKey(2), (3, 3), getattr(jnp, dtype))), ulps=0)


def test_delta_orthogonal_against_jax():
    for shape in ((3, 2, 2), (3, 3, 4, 4), (1, 3, 3, 2, 5)):
        got = I.delta_orthogonal()(sx.random.key(1), shape)
        with jax.enable_x64(True):
            want = np.asarray(JI.delta_orthogonal()(jax.random.PRNGKey(1), shape, jnp.float64))
        same_bits(got, want, f"delta_orthogonal {shape}")
    with pytest.raises(ValueError, match="requires a 3D, 4D or 5D shape"):
        I.delta_orthogonal()(sx.random.key(1), (3, 3))
    with pytest.raises(ValueError, match="`fan_in` must be less or equal than `fan_out`"):
        I.delta_orthogonal()(sx.random.key(1), (3, 4, 2))


def test_fans_and_errors_are_jaxs():
    with pytest.raises(ValueError, match="Can't compute input and output sizes of a 1-dimensional weights tensor"):
        I.glorot_uniform()(sx.random.key(0), (5,))
    same_bits(I.lecun_normal(in_axis=0, out_axis=())(sx.random.key(0), (6,)),
              on_jax(lambda: JI.lecun_normal(in_axis=0, out_axis=())(jax.random.PRNGKey(0), (6,), jnp.float64)))
    with pytest.raises(ValueError, match="invalid mode for variance scaling initializer: fan_sum"):
        I.variance_scaling(1.0, "fan_sum", "normal")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="invalid distribution for variance scaling initializer: cauchy"):
        I.variance_scaling(1.0, "fan_in", "cauchy")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="orthogonal initializer requires at least a 2D shape"):
        I.orthogonal()(sx.random.key(0), (4,))
    assert I.orthogonal()(sx.random.key(0), (0, 4)).shape == (0, 4)
    with pytest.raises(TypeError, match="dtype must be a floating-point dtype, got int32"):
        I.normal()(sx.random.key(0), (2,), sx.int32)
    with pytest.raises(NotImplementedError, match="out_sharding"):
        I.normal()(sx.random.key(0), (2,), out_sharding=object())  # type: ignore[arg-type]
    assert I.normal(dtype=sx.float32)(sx.random.key(0), (2,)).dtype == sx.float32  # (the maker's dtype)
    assert I.zeros(sx.random.key(0), 3).shape == (3,)


def test_orthogonal_sampler_is_jax_random_orthogonal():
    for n, shape, m in ((3, (), None), (4, (2,), 2), (2, (3,), 5)):
        got = sx.random.orthogonal(sx.random.key(4), n, shape, m=m)
        with jax.enable_x64(True):
            want = np.asarray(jax.random.orthogonal(jax.random.PRNGKey(4), n, shape, m=m))
        same_bits(got, want, f"orthogonal {n} {shape} {m}")
    keys = sx.random.split(sx.random.key(0), 3)
    batched = sx.vmap(lambda k: sx.random.orthogonal(k, 3))(keys)
    same_bits(batched, np.stack([np.asarray(sx.random.orthogonal(keys[i], 3)) for i in range(3)]))
    with pytest.raises(ValueError, match="n must be non-negative"):
        sx.random.orthogonal(sx.random.key(0), -1)
