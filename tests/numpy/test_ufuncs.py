"""The elementwise functions against jax.numpy on every dtype (bool, integers, floating, complex), with NaN, +-inf
and -0.0 among the floating inputs, Python scalars as the second operand, and on both sides of the size thresholds
(aligned outputs from 2048 elements, eager fusion from 32768)."""

from __future__ import annotations

import numpy as np
import pytest

from stridex.numpy import _ufuncs
from tests.numpy.helpers import DTYPES, compare, sample

UNARY = sorted(set(_ufuncs._UNARY_TABLE) | {
    "cbrt", "exp2", "deg2rad", "rad2deg", "radians", "degrees", "fabs", "rint", "round", "around", "signbit", "sinc",
    "spacing", "isneginf", "isposinf", "iscomplex", "isreal", "angle", "nan_to_num", "frexp", "modf",
    "bitwise_count"})
BINARY = sorted(set(_ufuncs._BINARY_TABLE) | {
    "pow", "power", "fmod", "divmod", "fmax", "fmin", "float_power", "logaddexp2", "heaviside", "gcd", "lcm",
    "isclose", "array_equal", "array_equiv", "ldexp"})

# Where stridex and jax.numpy differ by design (docs/from-jax.md):
# - special values of complex functions follow the standard's (C99) special cases in stridex; jax.numpy's kernels
#   differ at infinities and NaNs, so complex inputs here are finite;
# - floor_divide and divmod follow the standard where an operand is infinite (inf // 2 is inf; jax.numpy: NaN), so
#   those cases are left out of the value comparison;
# - complex atan2 and logaddexp are refused (jax.numpy computes them); both raise nothing comparable.
INFINITE_DIFFER = {"floor_divide", "divmod"}
COMPLEX_REFUSED = {"arctan2", "atan2", "logaddexp", "logaddexp2"}


def _second(dtype: str) -> np.ndarray:
    """A second operand: for integers small and positive (no division by zero, no negative integer powers:
    jax.numpy's answers there are whatever XLA gives)."""
    x = sample(dtype, seed=1, special=False)
    if np.dtype(dtype).kind in "iub":
        x = (np.abs(x.astype(np.int64)) % 5 + 1).astype(dtype)
    return x


def _skip(name: str, dtype: str) -> None:
    if np.dtype(dtype).kind == "c" and name in COMPLEX_REFUSED:
        pytest.skip("refused for complex input by design (docs/from-jax.md)")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", UNARY)
def test_unary(name, dtype):
    compare(name, sample(dtype, special=np.dtype(dtype).kind != "c"))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", BINARY)
def test_binary(name, dtype):
    _skip(name, dtype)
    if name == "ldexp":
        compare(name, sample(dtype, special=False), np.array([1, -2, 3, 0, 60, -1074]))
        return
    special = np.dtype(dtype).kind not in "c" and name not in INFINITE_DIFFER
    compare(name, sample(dtype, special=special), _second(dtype))


@pytest.mark.parametrize("scalar", [2, 1.5, True, -0.5])
@pytest.mark.parametrize("dtype", ["bool", "int8", "uint8", "int32", "float32", "float64", "complex64"])
@pytest.mark.parametrize("name", BINARY)
def test_binary_with_python_scalars(name, dtype, scalar):
    _skip(name, dtype)
    if name == "ldexp" or (np.dtype(dtype).kind in "iub" and name in ("pow", "power") and scalar == -0.5):
        pytest.skip("ldexp takes an integer array exponent; negative integer powers are XLA's choice")
    if np.dtype(dtype).kind in "iub" and name in ("floor_divide", "remainder", "mod", "fmod", "divmod") and \
            isinstance(scalar, bool):
        scalar = 3  # (True as a divisor is fine, but x % True is 0 everywhere: take a more telling one)
    special = np.dtype(dtype).kind not in "c" and name not in INFINITE_DIFFER
    compare(name, sample(dtype, special=special), scalar)
    if name not in ("array_equal", "array_equiv", "isclose"):
        compare(name, scalar, _second(dtype))


@pytest.mark.parametrize("n", [2047, 2048, 32767, 32768, 40000])
@pytest.mark.parametrize("name", ["sinc", "cbrt", "fmod", "heaviside", "nan_to_num", "logaddexp2", "fmax", "isclose",
                                  "hypot", "exp2", "deg2rad", "frexp"])
def test_both_sides_of_the_size_thresholds(name, n):
    rng = np.random.default_rng(n)
    x = rng.uniform(-50, 50, n)
    x[:6] = [np.nan, np.inf, -np.inf, -0.0, 0.0, 1e-300]  # (not a subnormal: XLA flushes those to zero)
    y = rng.uniform(0.5, 3, n)
    if name in ("sinc", "cbrt", "nan_to_num", "exp2", "deg2rad", "frexp"):
        compare(name, x)
    else:
        compare(name, x, y)


def test_infinite_floor_division_follows_the_standard():
    import stridex.numpy as jnp

    # floor(x1 / x2): inf // 2 is inf (jax.numpy: NaN), 1 // -inf is -0.0 (NumPy: -1.0).
    got = np.asarray(jnp.floor_divide(np.array([np.inf, -np.inf, 1.0]), np.array([2.0, 2.0, -np.inf])))
    np.testing.assert_array_equal(got, [np.inf, -np.inf, -0.0])
    assert np.signbit(got[2])
