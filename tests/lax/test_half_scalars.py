"""A Python float (or int) with a float16 or bfloat16 array is converted to the array's dtype before the operation (the
standard's rule for scalar operands), under `jit` and on a JAX device as eagerly, also by the operations that
compute half types in float32 (`half.lower_in_float32`): there the scalar used to enter as a float32, so
`x % 0.3` on float16 used 0.3 instead of float16(0.3) = 0.2998... and differed from eager in most elements."""

from __future__ import annotations

import numpy as np
import pytest

import stridex as sx

RNG = np.random.default_rng(20261127)
OPERATIONS = {
    "remainder": lambda u: u % 0.3,
    "floor_divide": lambda u: u // 0.3,
    "pow": lambda u: u ** 0.3,  # (on this data XLA's float32 pow rounds to eager's half values; atan2, hypot
    # and logaddexp too take the scalar as a half value now, but are not compared: an ulp apart now and then)
    "reversed remainder": lambda u: 7.3 % u,
    "an int's remainder": lambda u: 2049 % u,  # (2049 is 2048 in float16 and bfloat16)
    "add": lambda u: u + 0.1,
    "less": lambda u: u < 0.3,
}


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("name", list(OPERATIONS))
def test_a_python_float_meets_a_half_array_in_its_dtype(name, dtype):
    values = RNG.random(4000).astype(np.float32) * 60 + 0.5
    x = sx.astype(sx.asarray(values), getattr(sx, dtype))
    f = OPERATIONS[name]
    with np.errstate(all="ignore"):
        eager = np.asarray(f(x)).astype(np.float32)
        jitted = np.asarray(sx.jit(f)(x)).astype(np.float32)
        on_device = np.asarray(f(sx.asarray(x, device="cpu:1"))).astype(np.float32)
    np.testing.assert_array_equal(jitted, eager)
    np.testing.assert_array_equal(on_device, eager)


ARGUMENT_OPERATIONS = {
    "remainder": lambda u, s: u % s,
    "floor_divide": lambda u, s: u // s,
    "add": lambda u, s: u + s,
    "less": lambda u, s: u < s,
    "pow": lambda u, s: u ** s,
}


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("name", list(ARGUMENT_OPERATIONS))
def test_a_python_float_argument_meets_a_half_array_in_its_dtype(name, dtype):
    """The same with the scalar a run-time value: an argument of `jit`, or of a device executable (where
    Python scalars are arguments, one executable for every value): converted to the half dtype as NumPy
    converts it (float64 to float16 rounded once, not through float32)."""
    values = RNG.random(4000).astype(np.float32) * 60 + 0.5
    x = sx.astype(sx.asarray(values), getattr(sx, dtype))
    f = ARGUMENT_OPERATIONS[name]
    on_device = sx.asarray(x, device="cpu:1")
    for s in (0.3, 2.0, 1.0009765625 + 2**-12):  # (the last: a tie after a rounding to float32)
        with np.errstate(all="ignore"):
            eager = np.asarray(f(x, s)).astype(np.float32)
            jitted = np.asarray(sx.jit(f)(x, s)).astype(np.float32)
            device = np.asarray(f(on_device, s)).astype(np.float32)
        np.testing.assert_array_equal(jitted, eager)
        np.testing.assert_array_equal(device, eager)
