"""Transcendental elementwise functions: values, dtypes and shapes against NumPy, argument checks, every
special case of the spec (real and complex, eager and lowered), the spec's symmetries, and integer pow."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import stridex as sx
from stridex._core.avals import ShapedArray
from stridex._core.dtypes import FROM_NUMPY
from stridex._lax import transcendental as T
from stridex._exec.jax_bridge import LoweringContext, x64
from tests.lowering_check import check_primitive_lowering

INF, NAN, PI = math.inf, math.nan, math.pi

UNARY = {"acos": np.arccos, "acosh": np.arccosh, "asin": np.arcsin, "asinh": np.arcsinh, "atan": np.arctan,
         "atanh": np.arctanh, "cos": np.cos, "cosh": np.cosh, "exp": np.exp, "expm1": np.expm1, "log": np.log,
         "log1p": np.log1p, "log2": np.log2, "log10": np.log10, "sin": np.sin, "sinh": np.sinh, "sqrt": np.sqrt,
         "tan": np.tan, "tanh": np.tanh}
REAL_BINARY = {"atan2": np.arctan2, "hypot": np.hypot, "logaddexp": np.logaddexp}
FLOATING = [sx.float32, sx.float64, sx.complex64, sx.complex128]
NON_FLOATING = [sx.bool, sx.int8, sx.int16, sx.int32, sx.int64, sx.uint8, sx.uint16, sx.uint32, sx.uint64]
INTEGER = NON_FLOATING[1:]
RTOL = {sx.float32: 2e-5, sx.complex64: 2e-5, sx.float64: 1e-12, sx.complex128: 1e-12}


def sample(dtype, shape=(3, 4), seed=0, low=-0.9, high=0.9):
    """Values inside every function's real domain (|x| < 1) plus some larger ones for the unbounded ones."""
    rng = np.random.default_rng(seed)
    a = rng.uniform(low, high, size=shape)
    if dtype.kind == "complex floating":
        a = a + 1j * rng.uniform(low, high, size=shape)
    return a.astype(dtype.np)


def domain(name, a):
    """Shift samples into the real domain where the function needs it (acosh: x >= 1)."""
    if name == "acosh" and a.dtype.kind == "f":
        return (np.abs(a) + 1).astype(a.dtype)
    return a


def assert_same(got, want, rtol):
    """Equal values, dtypes and shapes; zeros, infinities and NaNs exactly (sign of zero included)."""
    got = np.asarray(got)
    want = np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, want.dtype, got.shape, want.shape)
    real = (lambda v: v.view(v.real.dtype).reshape(-1)) if got.dtype.kind == "c" else (lambda v: v.reshape(-1))
    g, w = real(np.ascontiguousarray(got)), real(np.ascontiguousarray(want))
    exact = (w == 0) | np.isinf(w)
    assert np.array_equal(np.isnan(g), np.isnan(w)), (got, want)
    assert np.array_equal(g[exact], w[exact]) and np.array_equal(np.signbit(g[exact]), np.signbit(w[exact])), (got, want)
    np.testing.assert_allclose(g, w, rtol=rtol, equal_nan=True)


# --- values, dtypes, shapes ------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", FLOATING)
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_against_numpy(name, dtype):
    a = domain(name, sample(dtype))
    got = getattr(sx, name)(sx.asarray(a))
    assert got.dtype == dtype and got.shape == a.shape
    with np.errstate(all="ignore"):
        want = UNARY[name](a)
    np.testing.assert_allclose(np.asarray(got), want, rtol=RTOL[dtype])


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_strided_and_empty_inputs(name):
    a = domain(name, sample(sx.float64, shape=(4, 6)))
    x = sx.asarray(a)
    views = [(x[::2, ::-3], a[::2, ::-3]), (sx.permute_dims(x, (1, 0)), a.T), (x[1], a[1]),
             (x[:0], a[:0]), (x[0, 0], a[0, 0])]
    for view, ref in views:
        got = getattr(sx, name)(view)
        assert got.shape == ref.shape
        with np.errstate(all="ignore"):
            want = UNARY[name](ref)
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12)


@pytest.mark.parametrize("dtype", NON_FLOATING)
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_requires_floating_point(name, dtype):
    x = sx.asarray(np.zeros(3, dtype.np))
    with pytest.raises(TypeError, match=dtype.name):
        getattr(sx, name)(x)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_rejects_non_arrays(name):
    with pytest.raises(TypeError):
        getattr(sx, name)(0.5)
    with pytest.raises(TypeError):
        getattr(sx, name)(np.ones(2))


@pytest.mark.parametrize("name", sorted(REAL_BINARY))
def test_real_binary_against_numpy(name):
    for dtype in (sx.float32, sx.float64):
        a, b = sample(dtype, (3, 1), seed=1), sample(dtype, (4,), seed=2)
        got = getattr(sx, name)(sx.asarray(a), sx.asarray(b))
        assert got.dtype == dtype and got.shape == (3, 4)
        np.testing.assert_allclose(np.asarray(got), REAL_BINARY[name](a, b), rtol=RTOL[dtype])
    # mixed float32/float64 arrays promote; Python scalars are weak on either side
    a32, a64 = sample(sx.float32), sample(sx.float64, seed=3)
    assert getattr(sx, name)(sx.asarray(a32), sx.asarray(a64)).dtype == sx.float64
    for scalar in (2, 0.5, -1.5):
        got = getattr(sx, name)(sx.asarray(a32), scalar)
        assert got.dtype == sx.float32
        np.testing.assert_allclose(np.asarray(got), REAL_BINARY[name](a32, np.float32(scalar)), rtol=2e-5)
        got = getattr(sx, name)(scalar, sx.asarray(a64))
        assert got.dtype == sx.float64
        np.testing.assert_allclose(np.asarray(got), REAL_BINARY[name](scalar, a64), rtol=1e-12)


@pytest.mark.parametrize("name", sorted(REAL_BINARY))
def test_real_binary_argument_checks(name):
    f = getattr(sx, name)
    x = sx.asarray([0.5, 1.5])
    for dtype in NON_FLOATING + [sx.complex64, sx.complex128]:
        with pytest.raises(TypeError, match=dtype.name):
            f(x, sx.asarray(np.ones(2, dtype.np)))
        with pytest.raises(TypeError, match=dtype.name):
            f(sx.asarray(np.ones(2, dtype.np)), 1.0)
    with pytest.raises(TypeError):
        f(x, 1j)
    with pytest.raises(TypeError):
        f(1.0, 2.0)
    with pytest.raises(ValueError):
        f(x, sx.asarray([1.0, 2.0, 3.0]))


def test_no_runtime_warnings():
    specials = np.array([0.0, -0.0, -1.0, 1.0, 2.0, -2.0, 1e38, INF, -INF, NAN])
    complex_specials = np.array([complex(a, b) for a, b in zip(specials, specials[::-1])])
    inputs = [sx.asarray((complex_specials if dtype.kind == "complex floating" else specials).astype(dtype.np))
              for dtype in FLOATING]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for x in inputs:
            for name in UNARY:
                getattr(sx, name)(x)
            sx.pow(x, x)
            sx.pow(x, -1)
        x = sx.asarray(specials)
        for name in REAL_BINARY:
            getattr(sx, name)(x, x[::-1])
        sx.pow(sx.asarray([0, 2, -3]), sx.asarray([-1, -2, 3]))


# --- pow -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", INTEGER + FLOATING)
def test_pow_dtypes_and_values(dtype):
    rng = np.random.default_rng(4)
    if dtype.kind in ("signed", "unsigned"):
        a = rng.integers(0 if dtype.kind == "unsigned" else -5, 6, size=(3, 4)).astype(dtype.np)
        b = rng.integers(0, 4, size=(4,)).astype(dtype.np)
    else:
        a, b = sample(dtype, low=0.1, high=3.0), sample(dtype, (4,), seed=5, low=-2, high=2)
    got = sx.pow(sx.asarray(a), sx.asarray(b))
    assert got.dtype == dtype and got.shape == (3, 4)
    np.testing.assert_allclose(np.asarray(got), np.power(a, b), rtol=RTOL.get(dtype, 0))
    # the operators
    x, y = sx.asarray(a), sx.asarray(b)
    np.testing.assert_allclose(np.asarray(x ** y), np.power(a, b), rtol=RTOL.get(dtype, 0))
    np.testing.assert_allclose(np.asarray(x ** 2), np.power(a, 2), rtol=RTOL.get(dtype, 0))
    np.testing.assert_allclose(np.asarray(2 ** y), np.power(dtype.np.type(2), b), rtol=RTOL.get(dtype, 0))
    z = sx.asarray(a.copy())
    z **= 2
    np.testing.assert_allclose(np.asarray(z), np.power(a, 2), rtol=RTOL.get(dtype, 0))
    assert (x ** 2).dtype == dtype and (2 ** y).dtype == dtype


def test_pow_promotion_with_scalars():
    i8, f32, c64 = sx.asarray(np.int8([1, 2])), sx.asarray(np.float32([1, 2])), sx.asarray(np.complex64([1, 2j]))
    assert sx.pow(i8, 3).dtype == sx.int8
    assert sx.pow(f32, 3).dtype == sx.float32
    assert sx.pow(f32, 0.5).dtype == sx.float32
    assert sx.pow(f32, 2j).dtype == sx.complex64
    assert sx.pow(c64, 2).dtype == sx.complex64
    assert sx.pow(3, i8).dtype == sx.int8
    assert sx.pow(i8, sx.asarray(np.int16([1, 2]))).dtype == sx.int16
    assert sx.pow(i8, f32).dtype == sx.float32
    with pytest.raises(TypeError, match="bool"):
        sx.pow(sx.asarray([True]), 2)
    with pytest.raises(TypeError):
        sx.pow(i8, 2j)
    with pytest.raises(TypeError):
        sx.pow(2, 3)


@pytest.mark.parametrize("dtype", [sx.int8, sx.int16, sx.int32, sx.int64])
def test_integer_pow_negative_exponents(dtype):
    base = np.array([-3, -2, -1, -1, 0, 1, 1, 2, 5, 2], dtype.np)
    exponent = np.array([-1, -2, -3, -4, -1, -7, 3, -1, 2, 0], dtype.np)
    want = np.array([0, 0, -1, 1, 0, 1, 1, 0, 25, 1], dtype.np)
    got = sx.pow(sx.asarray(base), sx.asarray(exponent))
    assert got.dtype == dtype
    np.testing.assert_array_equal(np.asarray(got), want)
    np.testing.assert_array_equal(np.asarray(sx.pow(sx.asarray(base), -1)), [0, 0, -1, -1, 0, 1, 1, 0, 0, 0])
    np.testing.assert_array_equal(np.asarray(sx.pow(-1, sx.asarray(exponent))), [-1, 1, -1, 1, -1, -1, -1, -1, 1, 1])
    if dtype in (sx.int8, sx.int64):
        np.testing.assert_array_equal(lowered(T.pow, base, exponent), want)


def test_integer_pow_wraps_like_numpy():
    for dtype in INTEGER:
        base = np.array([3, 2, 7, 255 if dtype.kind == "unsigned" else -7], dtype.np)
        exponent = np.array([40, 63, 9, 5], dtype.np)
        got = sx.pow(sx.asarray(base), sx.asarray(exponent))
        np.testing.assert_array_equal(np.asarray(got), np.power(base, exponent))
        if dtype in (sx.int8, sx.uint64):
            np.testing.assert_array_equal(lowered(T.pow, base, exponent), np.power(base, exponent))


# --- special cases: the spec's tables, transcribed from the 2025.12 stubs ---------------------------

REAL_CASES = {  # first matching case wins; "x" means the input itself
    "acos": [("nan", NAN), (">1", NAN), ("<-1", NAN), ("1", 0.0)],
    "acosh": [("nan", NAN), ("<1", NAN), ("1", 0.0), ("+inf", INF)],
    "asin": [("nan", NAN), (">1", NAN), ("<-1", NAN), ("0", "x")],
    "asinh": [("nan", NAN), ("0", "x"), ("inf", "x")],
    "atan": [("nan", NAN), ("0", "x"), ("+inf", PI / 2), ("-inf", -PI / 2)],
    "atanh": [("nan", NAN), ("<-1", NAN), (">1", NAN), ("-1", -INF), ("1", INF), ("0", "x")],
    "cos": [("nan", NAN), ("0", 1.0), ("inf", NAN)],
    "cosh": [("nan", NAN), ("0", 1.0), ("inf", INF)],
    "exp": [("nan", NAN), ("0", 1.0), ("+inf", INF), ("-inf", 0.0)],
    "expm1": [("nan", NAN), ("0", "x"), ("+inf", INF), ("-inf", -1.0)],
    "log": [("nan", NAN), ("<0", NAN), ("0", -INF), ("1", 0.0), ("+inf", INF)],
    "log1p": [("nan", NAN), ("<-1", NAN), ("-1", -INF), ("0", "x"), ("+inf", INF)],
    "log2": [("nan", NAN), ("<0", NAN), ("0", -INF), ("1", 0.0), ("+inf", INF)],
    "log10": [("nan", NAN), ("<0", NAN), ("0", -INF), ("1", 0.0), ("+inf", INF)],
    "sin": [("nan", NAN), ("0", "x"), ("inf", NAN)],
    "sinh": [("nan", NAN), ("0", "x"), ("inf", "x")],
    "sqrt": [("nan", NAN), ("<0", NAN), ("0", "x"), ("+inf", INF)],
    "tan": [("nan", NAN), ("0", "x"), ("inf", NAN)],
    "tanh": [("nan", NAN), ("0", "x"), ("+inf", 1.0), ("-inf", -1.0)],
}
REAL_TESTS = {"nan": math.isnan, ">1": lambda v: v > 1, "<-1": lambda v: v < -1, "<1": lambda v: v < 1,
              "<0": lambda v: v < 0, "1": lambda v: v == 1, "-1": lambda v: v == -1, "0": lambda v: v == 0,
              "+inf": lambda v: v == INF, "-inf": lambda v: v == -INF, "inf": math.isinf}


def _cis(scale, minus_one=False):
    def value(a, b):
        return (-1.0 if minus_one else scale * math.cos(b), scale * math.sin(b))
    return value


NN = ("nan", "nan")
LOG_TAIL = [
    ("finite", "+inf", ("+inf", PI / 2)), ("finite", "nan", NN), ("-inf", "pfinite", ("+inf", PI)),
    ("+inf", "pfinite", ("+inf", "+0")), ("-inf", "+inf", ("+inf", 3 * PI / 4)), ("+inf", "+inf", ("+inf", PI / 4)),
    ("inf", "nan", ("+inf", "nan")), ("nan", "finite", NN), ("nan", "+inf", ("+inf", "nan")), ("nan", "nan", NN),
]
# name -> (cases, symmetry). Cases are (real condition, imaginary condition, (real, imaginary)) in the
# stub's order; conj symmetry holds for all, odd/even where the stub says so. "±" marks an unspecified sign;
# an unsigned "0" in a result (expm1's "0 + 0j") is read as +0, as the official suite reads it.
COMPLEX_CASES = {
    "acos": ([
        ("0", "+0", (PI / 2, "-0")), ("0", "nan", (PI / 2, "nan")), ("finite", "+inf", (PI / 2, "-inf")),
        ("nzfinite", "nan", NN), ("-inf", "pfinite", (PI, "-inf")), ("+inf", "pfinite", ("+0", "-inf")),
        ("-inf", "+inf", (3 * PI / 4, "-inf")), ("+inf", "+inf", (PI / 4, "-inf")), ("inf", "nan", ("nan", "±inf")),
        ("nan", "finite", NN), ("nan", "+inf", ("nan", "-inf")), ("nan", "nan", NN)], None),
    "acosh": ([
        ("0", "+0", ("+0", PI / 2)), ("finite", "+inf", ("+inf", PI / 2)), ("nzfinite", "nan", NN),
        ("+0", "nan", ("nan", "±pi/2")), ("-inf", "pfinite", ("+inf", PI)), ("+inf", "pfinite", ("+inf", "+0")),
        ("-inf", "+inf", ("+inf", 3 * PI / 4)), ("+inf", "+inf", ("+inf", PI / 4)), ("inf", "nan", ("+inf", "nan")),
        ("nan", "finite", NN), ("nan", "+inf", ("+inf", "nan")), ("nan", "nan", NN)], None),
    "asinh": ([
        ("+0", "+0", ("+0", "+0")), ("pfinite", "+inf", ("+inf", PI / 2)), ("finite", "nan", NN),
        ("+inf", "pfinite", ("+inf", "+0")), ("+inf", "+inf", ("+inf", PI / 4)), ("nan", "+0", ("nan", "+0")),
        ("nan", "nzfinite", NN), ("nan", "+inf", ("±inf", "nan")), ("nan", "nan", NN)], "odd"),
    "atanh": ([
        ("+0", "+0", ("+0", "+0")), ("+0", "nan", ("+0", "nan")), ("1", "+0", ("+inf", "+0")),
        ("pfinite", "+inf", ("+0", PI / 2)), ("nzfinite", "nan", NN), ("+inf", "pfinite", ("+0", PI / 2)),
        ("+inf", "+inf", ("+0", PI / 2)), ("+inf", "nan", ("+0", "nan")), ("nan", "finite", NN),
        ("nan", "+inf", ("±0", PI / 2)), ("nan", "nan", NN)], "odd"),
    "cosh": ([
        ("+0", "+0", (1.0, "+0")), ("+0", "+inf", ("nan", "±0")), ("+0", "nan", ("nan", "±0")),
        ("nzfinite", "+inf", NN), ("nzfinite", "nan", NN), ("+inf", "+0", ("+inf", "+0")),
        ("+inf", "nzfinite", _cis(INF)), ("+inf", "+inf", ("±inf", "nan")), ("+inf", "nan", ("+inf", "nan")),
        ("nan", "0", ("nan", "±0")), ("nan", "nzfinite", NN), ("nan", "nan", NN)], "even"),
    "exp": ([
        ("0", "+0", (1.0, "+0")), ("finite", "+inf", NN), ("finite", "nan", NN), ("+inf", "+0", ("+inf", "+0")),
        ("-inf", "finite", _cis(0.0)), ("+inf", "nzfinite", _cis(INF)), ("-inf", "+inf", ("±0", "±0")),
        ("+inf", "+inf", ("±inf", "nan")), ("-inf", "nan", ("±0", "±0")), ("+inf", "nan", ("±inf", "nan")),
        ("nan", "+0", ("nan", "+0")), ("nan", "nz", NN), ("nan", "nan", NN)], None),
    "expm1": ([
        ("0", "+0", ("+0", "+0")), ("finite", "+inf", NN), ("finite", "nan", NN), ("+inf", "+0", ("+inf", "+0")),
        ("-inf", "finite", _cis(0.0, minus_one=True)), ("+inf", "nzfinite", _cis(INF)),
        ("-inf", "+inf", (-1.0, "±0")), ("+inf", "+inf", ("±inf", "nan")), ("-inf", "nan", (-1.0, "±0")),
        ("+inf", "nan", ("±inf", "nan")), ("nan", "+0", ("nan", "+0")), ("nan", "nz", NN), ("nan", "nan", NN)], None),
    "log": ([("-0", "+0", ("-inf", PI)), ("+0", "+0", ("-inf", "+0"))] + LOG_TAIL, None),
    "log1p": ([("-1", "+0", ("-inf", "+0"))] + LOG_TAIL, None),
    "sinh": ([
        ("+0", "+0", ("+0", "+0")), ("+0", "+inf", ("±0", "nan")), ("+0", "nan", ("±0", "nan")),
        ("pfinite", "+inf", NN), ("pfinite", "nan", NN), ("+inf", "+0", ("+inf", "+0")),
        ("+inf", "pfinite", _cis(INF)), ("+inf", "+inf", ("±inf", "nan")), ("+inf", "nan", ("±inf", "nan")),
        ("nan", "+0", ("nan", "+0")), ("nan", "nzfinite", NN), ("nan", "nan", NN)], "odd"),
    "sqrt": ([
        ("0", "+0", ("+0", "+0")), ("any", "+inf", ("+inf", "+inf")), ("finite", "nan", NN),
        ("-inf", "pfinite", ("+0", "+inf")), ("+inf", "pfinite", ("+inf", "+0")), ("-inf", "nan", ("nan", "±inf")),
        ("+inf", "nan", ("+inf", "nan")), ("nan", "any", NN)], None),
    "tanh": ([
        ("+0", "+0", ("+0", "+0")), ("nzfinite", "+inf", NN), ("+0", "+inf", ("+0", "nan")), ("nzfinite", "nan", NN),
        ("+0", "nan", ("+0", "nan")), ("+inf", "pfinite", (1.0, "+0")), ("+inf", "+inf", (1.0, "±0")),
        ("+inf", "nan", (1.0, "±0")), ("nan", "+0", ("nan", "+0")), ("nan", "nz", NN), ("nan", "nan", NN)], "odd"),
}
# The stub defines these through others: sin(x) = -1j*sinh(1j*x) (exact rotations), cos(x) = cosh(1j*x),
# log2(x) = log(x) / log(2).
DERIVED = {"asin": ("asinh", "rotate"), "atan": ("atanh", "rotate"), "sin": ("sinh", "rotate"),
           "tan": ("tanh", "rotate"), "cos": ("cosh", "inner"), "log2": ("log", math.log(2)),
           "log10": ("log", math.log(10))}
COMPLEX_TESTS = {
    "any": lambda v: True, "nan": math.isnan, "+0": lambda v: v == 0 and math.copysign(1, v) > 0,
    "-0": lambda v: v == 0 and math.copysign(1, v) < 0, "0": lambda v: v == 0, "finite": math.isfinite,
    "nzfinite": lambda v: math.isfinite(v) and v != 0, "pfinite": lambda v: math.isfinite(v) and v > 0,
    "nz": lambda v: v != 0, "+inf": lambda v: v == INF, "-inf": lambda v: v == -INF, "inf": math.isinf,
    "1": lambda v: v == 1, "-1": lambda v: v == -1,
}


def _negate(spec):
    if isinstance(spec, str):
        return {"+0": "-0", "-0": "+0", "+inf": "-inf", "-inf": "+inf"}.get(spec, spec)
    return -spec


def expected_complex(name, a, b, depth=0):
    """The spec's (real, imaginary) for f(a + bj), or None where no special case applies."""
    if name in DERIVED:
        base, how = DERIVED[name]
        if how == "rotate":
            r = expected_complex(base, -b, a)
            return None if r is None else (r[1], _negate(r[0]))
        if how == "inner":
            return expected_complex(base, -b, a)
        r = expected_complex(base, a, b)
        return None if r is None else tuple(v if isinstance(v, str) else v / how for v in r)
    cases, symmetry = COMPLEX_CASES[name]
    if depth < 4 and not math.isnan(b) and math.copysign(1, b) < 0:  # f(conj z) = conj f(z)
        r = expected_complex(name, a, -b, depth + 1)
        if r is not None:
            return r[0], _negate(r[1])
    if depth < 4 and symmetry and not math.isnan(a) and math.copysign(1, a) < 0:  # f(-z) = -f(z) or f(z)
        r = expected_complex(name, -a, -b, depth + 1)
        if r is not None:
            return r if symmetry == "even" else (_negate(r[0]), _negate(r[1]))
    for cond_a, cond_b, result in cases:
        if COMPLEX_TESTS[cond_a](a) and COMPLEX_TESTS[cond_b](b):
            return result(a, b) if callable(result) else result
    return None


def matches(spec, value, rtol=1e-6):
    if spec == "nan":
        return math.isnan(value)
    if spec == "±pi/2":
        return math.isclose(abs(value), PI / 2, rel_tol=rtol)
    if spec in ("±0", "±inf"):
        return abs(value) == {"±0": 0, "±inf": INF}[spec]
    if isinstance(spec, str):
        spec = float(spec.replace("inf", "infinity"))
    if math.isnan(spec):
        return math.isnan(value)
    if spec == 0 or math.isinf(spec):
        return value == spec and math.copysign(1, value) == math.copysign(1, spec)
    return math.isclose(value, spec, rel_tol=rtol)


COMPONENTS = [0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 2.0, -2.0, 1e30, -1e30, INF, -INF, NAN]


def complex_grid(dtype):
    real = dtype.np.type(0).real.dtype.type
    parts = [float(real(v)) for v in COMPONENTS]
    points = [(a, b) for a in parts for b in parts]
    return points, np.array([complex(a, b) for a, b in points], dtype.np)


_COMPILED: dict = {}


def lowered(prim, *args):
    """prim's JAX lowering run under jit on NumPy inputs (what `jit` will compile)."""
    import jax

    avals = tuple(ShapedArray(a.shape, FROM_NUMPY[a.dtype]) for a in args)
    key = (prim.name, avals)
    if key not in _COMPILED:
        ctx = LoweringContext(avals, [prim.abstract_eval(*avals)])
        _COMPILED[key] = jax.jit(lambda *xs: prim.lower(ctx, *xs))
    with x64():
        return np.asarray(_COMPILED[key](*args))


def eager(prim, *args):
    return np.asarray(prim.bind(*[sx.asarray(a) for a in args]))


def real_specials(dtype):
    return np.array([0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 2.0, -2.0, 3.0, 1e30, -1e30, INF, -INF, NAN], dtype.np)


def _check_unary_real_specials(name, values, out):
    assert out.dtype == values.dtype
    for x, got in zip(values.tolist(), out.tolist()):
        for cond, result in REAL_CASES[name]:
            if REAL_TESTS[cond](x):
                want = x if result == "x" else result
                assert matches(want, got, 1e-6), f"{name}({x}) = {got}, the spec says {want}"
                break


def _check_unary_complex_specials(name, points, out):
    failures = []
    for (a, b), got in zip(points, out.tolist()):
        want = expected_complex(name, a, b)
        if want is not None and not (matches(want[0], got.real, 1e-5) and matches(want[1], got.imag, 1e-5)):
            failures.append(f"{name}({complex(a, b)}) = {got}, the spec says {want}")
    assert not failures, failures


@pytest.mark.parametrize("dtype", [sx.float32, sx.float64])
@pytest.mark.parametrize("name", sorted(UNARY))
def test_real_special_cases(name, dtype):
    values = real_specials(dtype)
    _check_unary_real_specials(name, values, eager(getattr(T, name), values))


@pytest.mark.parametrize("dtype", [sx.complex64, sx.complex128])
@pytest.mark.parametrize("name", sorted(UNARY))
def test_complex_special_cases(name, dtype):
    points, z = complex_grid(dtype)
    out = eager(getattr(T, name), z)
    assert out.dtype == dtype.np
    _check_unary_complex_specials(name, points, out)


def spec_pow(a, b):
    """The spec's real pow special cases (None: not a special case)."""
    odd = math.isfinite(b) and b.is_integer() and b % 2 == 1
    if b == 0:
        return 1.0
    if a == 1:
        return None if math.isnan(b) else 1.0
    if math.isnan(a) or math.isnan(b):
        return NAN
    if math.isinf(b):
        if abs(a) == 1:
            return 1.0
        return INF if (abs(a) > 1) == (b > 0) else 0.0
    if a == INF:
        return INF if b > 0 else 0.0
    if a == -INF:
        return (-INF if odd else INF) if b > 0 else (-0.0 if odd else 0.0)
    if a == 0:
        negative_zero = math.copysign(1, a) < 0
        if b > 0:
            return -0.0 if negative_zero and odd else 0.0
        return -INF if negative_zero and odd else INF
    if a < 0 and not b.is_integer():
        return NAN
    return None


def spec_logaddexp(a, b):
    if math.isnan(a) or math.isnan(b):
        return NAN
    if INF in (a, b):
        return INF
    if a == b == -INF:
        return -INF
    return max(a, b) + math.log1p(math.exp(-abs(a - b)))


BINARY_REFERENCES = {"atan2": math.atan2, "hypot": math.hypot, "logaddexp": spec_logaddexp, "pow": spec_pow}
BINARY_VALUES = [0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 2.0, -2.0, 3.0, -3.0, 2.5, 1e30, -1e30, INF, -INF, NAN]


def binary_specials(dtype):
    pairs = [(a, b) for a in BINARY_VALUES for b in BINARY_VALUES]
    return np.array([p[0] for p in pairs], dtype.np), np.array([p[1] for p in pairs], dtype.np)


def _check_binary_specials(name, x1, x2, out):
    assert out.dtype == x1.dtype
    failures = []
    for (a, b), got in zip(zip(x1.tolist(), x2.tolist()), out.tolist()):
        want = BINARY_REFERENCES[name](a, b)
        if want is not None and not matches(want, got, 1e-5):
            failures.append(f"{name}({a}, {b}) = {got}, the spec says {want}")
    assert not failures, failures


@pytest.mark.parametrize("dtype", [sx.float32, sx.float64])
@pytest.mark.parametrize("name", sorted(BINARY_REFERENCES))
def test_binary_special_cases(name, dtype):
    x1, x2 = binary_specials(dtype)
    _check_binary_specials(name, x1, x2, eager(getattr(T, name), x1, x2))


def test_hypot_symmetries():
    a = np.array([3.0, -3.0, 1e-310, 1e300, -0.0, NAN, INF])
    b = np.array([4.0, 4.0, -1e-310, -1e300, 2.0, -INF, NAN])
    ref = np.asarray(sx.hypot(sx.asarray(a), sx.asarray(b)))
    for x1, x2 in ((b, a), (a, -b), (-a, b), (-a, -b)):
        np.testing.assert_array_equal(np.asarray(sx.hypot(sx.asarray(x1), sx.asarray(x2))), ref)
    np.testing.assert_allclose(ref[:4], [5.0, 5.0, math.hypot(1e-310, 1e-310), math.hypot(1e300, 1e300)])


# --- the spec's symmetries, on finite values and the branch cuts --------------------------------------

CONJ = ["acos", "acosh", "asin", "asinh", "atan", "atanh", "cosh", "exp", "expm1", "log", "log1p", "log2",
        "log10", "sinh", "sqrt", "tanh"]
ODD = ["asinh", "atanh", "sinh", "tanh"]


def symmetry_inputs(dtype, n=400):
    rng = np.random.default_rng(6)
    z = rng.normal(size=n) * 10.0 ** rng.uniform(-5, 5, n) + 1j * rng.normal(size=n) * 10.0 ** rng.uniform(-5, 5, n)
    z[: n // 4] = z[: n // 4].real  # the real axis (+0 imaginary part): branch cuts of acos, acosh, atanh, log, sqrt
    z[n // 4: n // 2] = 1j * z[n // 4: n // 2].imag  # the imaginary axis: branch cuts of asinh, atan
    z[-4:] = [800.0, -800.0, 800 + 1j, 1e-20]  # overflow and underflow on the real axis
    return z.astype(dtype.np)


def bitwise_equal(a, b):
    a, b = a.view(a.real.dtype), b.view(b.real.dtype)
    return np.array_equal(a, b, equal_nan=True) and np.array_equal(np.signbit(a) | np.isnan(a),
                                                                   np.signbit(b) | np.isnan(b))


def _check_symmetries(name, fz, f_conj, f_neg):
    if name in CONJ:
        assert bitwise_equal(f_conj, np.conj(fz)), f"{name}(conj(x)) != conj({name}(x))"
    if name in ODD:
        assert bitwise_equal(f_neg, -fz), f"{name}(-x) != -{name}(x)"
    if name == "cosh":
        assert bitwise_equal(f_neg, fz), "cosh(-x) != cosh(x)"


@pytest.mark.parametrize("dtype", [sx.complex64, sx.complex128])
@pytest.mark.parametrize("name", sorted(set(CONJ + ODD + ["cosh"])))
def test_complex_symmetries(name, dtype):
    z = symmetry_inputs(dtype)
    _check_symmetries(name, *np.split(eager(getattr(T, name), np.concatenate([z, np.conj(z), -z])), 3))


def test_complex_log1p_is_accurate_near_zero():
    z = np.array([1.4032664499287152e-08 + 4.007030536536448e-08j, -6.684644e-08 + 3.5244063e-06j, 1e-30 + 1e-20j])
    want = [complex(1.4032665203643979e-08, 4.0070304803071314e-08),
            complex(-6.684644e-08 + 3.5244063e-06**2 / 2 - (6.684644e-08) ** 2 / 2, 3.5244063e-06), 1e-30 + 1e-20j]
    for dtype in (sx.complex64, sx.complex128):
        got = np.asarray(sx.log1p(sx.asarray(z.astype(dtype.np))))
        np.testing.assert_allclose(got.real, np.real(want), rtol=1e-6 if dtype is sx.complex64 else 1e-9)
        np.testing.assert_allclose(got.imag, np.imag(want), rtol=1e-6)


# --- lowering --------------------------------------------------------------------------------------
# One jitted call per function and dtype runs random samples, the special-case grid and the symmetry
# inputs together (compiling dominates the cost).


@pytest.mark.parametrize("dtype", FLOATING)
@pytest.mark.parametrize("name", sorted(UNARY))
def test_lowering_unary(name, dtype):
    pytest.importorskip("jax")
    prim = getattr(T, name)
    random = domain(name, sample(dtype, seed=7)).reshape(-1)
    if dtype.kind == "complex floating":
        points, grid = complex_grid(dtype)
        z = symmetry_inputs(dtype)
        pieces = [random, grid, z, np.conj(z), -z]
    else:
        pieces = [random, real_specials(dtype)]
    out = np.split(lowered(prim, np.concatenate(pieces)), np.cumsum([len(p) for p in pieces])[:-1])
    assert out[0].dtype == dtype.np
    np.testing.assert_allclose(out[0], eager(prim, random), rtol=RTOL[dtype] * 10)
    if dtype.kind != "complex floating":
        _check_unary_real_specials(name, pieces[1], out[1])
        return
    _check_unary_complex_specials(name, points, out[1])
    _check_symmetries(name, *out[2:])
    # finite inputs of all magnitudes and on the branch cuts agree with eager (XLA flushes subnormal
    # results to zero, so those are left out)
    want, got = eager(prim, z), out[2]
    tiny = np.finfo(dtype.np).tiny
    keep = np.isfinite(want) & ~((np.abs(want.real) < tiny) & (want.real != 0)) & \
        ~((np.abs(want.imag) < tiny) & (want.imag != 0))
    assert np.array_equal(np.isfinite(got), np.isfinite(want))
    np.testing.assert_allclose(got[keep], want[keep], rtol=1e-4 if dtype is sx.complex64 else 1e-9)


@pytest.mark.parametrize("dtype", [sx.float32, sx.float64])
@pytest.mark.parametrize("name", sorted(BINARY_REFERENCES))
def test_lowering_binary(name, dtype):
    pytest.importorskip("jax")
    prim = getattr(T, name)
    x1, x2 = binary_specials(dtype)
    low = 0.1 if name == "pow" else -0.9
    r1, r2 = sample(dtype, (3, 1), seed=1, low=low).reshape(-1), sample(dtype, (3,), seed=2)
    r1, r2 = np.repeat(r1, 3), np.tile(r2, 3)
    out = lowered(prim, np.concatenate([x1, r1]), np.concatenate([x2, r2]))
    _check_binary_specials(name, x1, x2, out[: len(x1)])
    np.testing.assert_allclose(out[len(x1):], eager(prim, r1, r2), rtol=RTOL[dtype] * 10)


def test_lowering_check_helper():
    """The shared helper, on the shapes of operands a traced call produces: broadcasting, weak scalars."""
    pytest.importorskip("jax")
    a, b = sx.asarray(sample(sx.float32, (3, 1), seed=1)), sx.asarray(sample(sx.float32, (4,), seed=2))
    check_primitive_lowering(T.atan2, a, b, rtol=1e-5)
    check_primitive_lowering(T.hypot, a, 2.5, rtol=1e-5)
    check_primitive_lowering(T.logaddexp, -1, b, rtol=1e-5)
    check_primitive_lowering(T.sin, a, rtol=1e-5)
    check_primitive_lowering(T.pow, sx.asarray(sample(sx.float64, low=0.1)), 3, rtol=1e-12)
    check_primitive_lowering(T.pow, 2.0, sx.asarray(sample(sx.complex64)), rtol=1e-5)
    check_primitive_lowering(T.pow, sx.asarray(np.int8([1, 2, 3])), 2)
    check_primitive_lowering(T.pow, sx.asarray(np.int8([1, 2, 3])), 2.5)
    check_primitive_lowering(T.pow, sx.asarray(np.complex128([0, 1j, 2])), sx.asarray(np.complex128([0, 2, 1 + 1j])))
