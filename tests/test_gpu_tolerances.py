"""The GPU tolerance table and its assertions, with the GPU branch forced (`backend="gpu"`) so a CPU-only run
checks it: differences within a row pass, larger ones fail, and special values must match exactly."""

from __future__ import annotations

import numpy as np
import pytest

from stridex._lax.primitive import PRIMITIVES
from tests.gpu_tolerances import (
    EPS64,
    GPU_TOLERANCES,
    JIT_OF_DERIVATIVES,
    assert_lowering_close,
    assert_lowering_equal,
    computed_in,
    ulp_distance,
)

RNG = np.random.default_rng(20261201)


def steps(a: np.ndarray, n: int) -> np.ndarray:
    """`a` moved `n` representable values up (n > 0) or down, elementwise."""
    a = np.array(a)
    for _ in range(abs(n)):
        a = np.nextafter(a, np.array(np.inf if n > 0 else -np.inf, a.dtype))
    return a


def quotients32(n=64):
    x = RNG.uniform(-4, 4, n).astype(np.float32)
    y = (RNG.uniform(0.5, 3, n) * RNG.choice([-1, 1], n)).astype(np.float32)
    return x, y, x / y


def test_every_row_names_a_primitive_and_says_why():
    for op, row in GPU_TOLERANCES.items():
        assert op in PRIMITIVES, op
        assert row.ulps and all(n > 0 for n in row.ulps.values()), op
        assert set(row.ulps) <= {"float32", "float64", "complex64", "complex128"}, op
        assert len(row.reason) > 40, op


def test_ulp_distance_counts_representable_values():
    one = np.array([1.0, 1.0, -1.0, 0.0], np.float32)
    assert ulp_distance(steps(one, 3), one).tolist() == [3, 3, 3, 3]
    assert ulp_distance(steps(one, -2), one).tolist() == [2, 2, 2, 2]
    tiny = np.array([np.finfo(np.float64).smallest_subnormal])
    assert ulp_distance(-tiny, tiny).tolist() == [2]  # through zero
    assert ulp_distance(np.array([-0.0]), np.array([0.0])).tolist() == [0]
    big = np.array([np.finfo(np.float64).max])
    assert int(ulp_distance(-big, big)[0]) == 2 * int(big.view(np.uint64)[0])  # no overflow


def test_cpu_stays_bitwise():
    _, _, q = quotients32()
    assert_lowering_equal(q, q.copy(), "divide", backend="cpu")
    with pytest.raises(AssertionError, match="0 ulp"):
        assert_lowering_equal(steps(q, 1), q, "divide", backend="cpu")


# (The divide row's 2 ulp are for complex64, whose float32 components come from XLA's float32 division: the
# quotients below stand for such components, `dtype=np.complex64`. A real float32 quotient is exact.)
C64 = np.complex64


def test_within_the_rows_ulps_passes_on_a_gpu():
    _, _, q = quotients32()
    for n in (-2, -1, 1, 2):
        assert_lowering_equal(steps(q, n), q, "divide", dtype=C64, backend="gpu")


def test_an_approximate_division_passes_on_a_gpu_only():
    """x * (1 / y) rounds twice (within 1.5 ulp of x / y), as an approximate division does."""
    x, y, q = quotients32(256)
    approximate = x * (np.float32(1) / y)
    assert (approximate != q).any()
    assert_lowering_equal(approximate, q, "divide", dtype=C64, backend="gpu")
    with pytest.raises(AssertionError):
        assert_lowering_equal(approximate, q, "divide", backend="gpu")  # a real float32 quotient: exact
    with pytest.raises(AssertionError):
        assert_lowering_equal(approximate, q, "divide", backend="cpu")


def test_beyond_the_rows_ulps_fails_on_a_gpu():
    _, _, q = quotients32()
    with pytest.raises(AssertionError, match="more than 2 ulp"):
        assert_lowering_equal(steps(q, 3), q, "divide", dtype=C64, backend="gpu")


def test_without_a_row_a_gpu_is_exact_too():
    a = RNG.uniform(1, 2, 8)
    for op, dtype in (("add", np.float64), ("divide", np.float64), ("divide", np.float32), ("sqrt", np.float32),
                      ("reciprocal", np.float32), ("abs", np.float32), ("sign", np.float32)):
        want = a.astype(dtype)
        with pytest.raises(AssertionError, match="0 ulp"):
            assert_lowering_equal(steps(want, 1), want, op, backend="gpu")


def test_nan_positions_must_match_on_a_gpu():
    _, _, q = quotients32()
    got = q.copy()
    got[3] = np.nan
    with pytest.raises(AssertionError, match="NaN"):
        assert_lowering_equal(got, q, "divide", backend="gpu")
    want = q.copy()
    want[5] = np.nan
    with pytest.raises(AssertionError, match="NaN"):
        assert_lowering_equal(q, want, "divide", backend="gpu")
    got = want.copy()
    assert_lowering_equal(got, want, "divide", backend="gpu")  # NaN where NaN passes


def test_infinities_and_zeros_must_match_exactly_on_a_gpu():
    big = np.finfo(np.float32).max
    want = np.array([np.inf, -np.inf, 0.0, -0.0, 1.5], np.float32)
    for got in ([big, -np.inf, 0.0, -0.0, 1.5],  # 1 ulp below infinity: still not infinity
                [np.inf, -np.inf, 1e-45, -0.0, 1.5],  # the smallest subnormal, not zero
                [np.inf, -np.inf, 0.0, -0.0, np.inf]):  # an infinity where a finite value is expected
        with pytest.raises(AssertionError, match="special values"):
            assert_lowering_equal(np.array(got, np.float32), want, "divide", backend="gpu")
    swapped_zeros = np.array([np.inf, -np.inf, -0.0, 0.0, 1.5], np.float32)
    with pytest.raises(AssertionError, match="special values"):
        assert_lowering_equal(swapped_zeros, want, "divide", backend="gpu")
    assert_lowering_equal(swapped_zeros, want, "divide", signed_zeros=False, backend="gpu")


def test_integers_and_bools_are_exact_on_a_gpu():
    ints = np.arange(10, dtype=np.int32)
    with pytest.raises(AssertionError):
        assert_lowering_equal(ints + (ints == 4), ints, "divide", dtype=np.float32, backend="gpu")
    flags = ints % 2 == 0
    with pytest.raises(AssertionError):
        assert_lowering_equal(~flags, flags, "divide", dtype=np.float32, backend="gpu")


def test_complex_components_each_within_the_row():
    z = (RNG.standard_normal(16) + 1j * RNG.standard_normal(16)).astype(np.complex64)
    want = z / np.abs(z)
    got = steps(want.real, 12) + 1j * steps(want.imag, -12)
    assert_lowering_equal(got.astype(np.complex64), want, "sign", backend="gpu")
    got = want.real + 1j * steps(want.imag, 13)
    with pytest.raises(AssertionError, match="imaginary part"):
        assert_lowering_equal(got.astype(np.complex64), want, "sign", backend="gpu")
    nan_imag = want.copy()
    nan_imag[0] = complex(want[0].real, np.nan)
    with pytest.raises(AssertionError, match="NaN"):
        assert_lowering_equal(nan_imag, want, "sign", backend="gpu")


def test_the_computation_dtype_picks_the_row():
    """abs of complex64 gives float32 values, within the complex64 row; abs of a float32 array is exact."""
    assert computed_in([np.complex64], np.float32) == np.complex64
    assert computed_in([np.int8, np.int8], np.float64) == np.float64
    modulus = np.abs(RNG.standard_normal(8) + 1j).astype(np.float32)
    assert_lowering_equal(steps(modulus, 4), modulus, "abs", dtype=computed_in([np.complex64], np.float32),
                          backend="gpu")
    with pytest.raises(AssertionError):
        assert_lowering_equal(steps(modulus, 4), modulus, "abs", backend="gpu")


def test_close_widens_a_tolerance_only_on_a_gpu():
    values = np.linspace(-3.0, 7.5, 11, endpoint=False).astype(np.float32)
    nudged = steps(values, 1)
    assert_lowering_close(nudged, values, "linspace", rtol=0, atol=0, backend="gpu")
    with pytest.raises(AssertionError):
        assert_lowering_close(nudged, values, "linspace", rtol=0, atol=0, backend="cpu")
    with pytest.raises(AssertionError, match="more than 1 ulp"):
        assert_lowering_close(steps(values, 2), values, "linspace", rtol=0, atol=0, backend="gpu")
    assert_lowering_close(steps(values, 2), values, "linspace", rtol=1e-6, atol=0, backend="cpu")  # the rtol still
    with pytest.raises(AssertionError):
        assert_lowering_close(steps(values, 1), values, "iota", rtol=0, atol=0, backend="gpu")  # no row: exact


def test_program_tolerance_adds_an_absolute_term_on_a_gpu_only():
    assert JIT_OF_DERIVATIVES.kwargs(scale=8.0, backend="cpu") == {"rtol": 512 * EPS64, "atol": 0.0}
    assert JIT_OF_DERIVATIVES.kwargs(scale=8.0, backend="gpu") == {"rtol": 512 * EPS64, "atol": 8 * 512 * EPS64}
    # Cancellation: a - b with terms near 8 and a result near 0 is off by a few ulp of the terms, not of the result.
    want, got = np.array([1e-15]), np.array([1e-15 + 4 * np.spacing(8.0)])
    np.testing.assert_allclose(got, want, **JIT_OF_DERIVATIVES.kwargs(scale=8.0, backend="gpu"))
    with pytest.raises(AssertionError):
        np.testing.assert_allclose(got, want, **JIT_OF_DERIVATIVES.kwargs(scale=8.0, backend="cpu"))
