"""Data type functions: astype against NumPy (values, copies, lowering), can_cast, finfo, iinfo, isdtype, result_type."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import stridex as sx
from stridex._core.array import window
from stridex._core.dtypes import FROM_NUMPY
from stridex._lax.data_type import convert_element_type
from tests.lowering_check import check_primitive_lowering

ALL = [sx.bool, sx.int8, sx.int16, sx.int32, sx.int64, sx.uint8, sx.uint16, sx.uint32, sx.uint64,
       sx.float32, sx.float64, sx.complex64, sx.complex128]
INTEGER = [d for d in ALL if d.kind in ("signed", "unsigned")]
REAL_FLOAT = [sx.float32, sx.float64]
COMPLEX = [sx.complex64, sx.complex128]

# Values every dtype holds exactly, plus the spec's interesting ones for bool/complex casts.
SAMPLE = {
    "bool": [True, False, True],
    "signed": [0, 1, -3, 100],
    "unsigned": [0, 1, 3, 100],
    "real floating": [0.0, -0.0, 1.5, -2.25, 100.0],
    "complex floating": [0j, 1j, 1.5 - 2j, -0.0 + 0j],
}


def sample(dtype):
    return np.asarray(SAMPLE[dtype.kind], dtype=dtype.np)


@pytest.mark.parametrize("src, dst", list(itertools.product(ALL, ALL)))
def test_astype_matches_numpy(src, dst):
    a = sample(src)
    x = sx.asarray(a)
    if src.kind == "complex floating" and dst.kind not in ("complex floating", "bool"):
        with pytest.raises(TypeError):
            sx.astype(x, dst)
        return
    out = sx.astype(x, dst)
    assert out.dtype is dst and out.shape == x.shape
    want = a.astype(dst.np) if not (src.kind == "real floating" and dst.kind == "unsigned") else None
    got = np.asarray(out)
    if want is not None:
        np.testing.assert_array_equal(got, want)
    if src.kind == "complex floating" and dst is sx.bool:
        np.testing.assert_array_equal(got, a != 0)  # 1j is True: the spec's rule


def test_astype_copy_semantics():
    x = sx.asarray([1, 2, 3])
    same = sx.astype(x, sx.int64, copy=False)
    assert same is x
    fresh = sx.astype(x, sx.int64)
    assert fresh is not x
    fresh[0] = 9
    assert int(x[0]) == 1
    converted = sx.astype(x, sx.float32, copy=False)  # a dtype change always makes a new array
    assert converted.dtype is sx.float32 and not np.shares_memory(window(converted), window(x))


def test_astype_errors_and_device():
    x = sx.asarray([1.0])
    with pytest.raises(TypeError):
        sx.astype(x, np.float32)
    with pytest.raises(TypeError):
        sx.astype([1.0], sx.float32)
    assert sx.astype(x, sx.int8, device=sx.__array_namespace_info__().default_device()).dtype is sx.int8
    with pytest.raises(ValueError):
        sx.astype(x, sx.int8, device="tpu:7")


def test_astype_of_nan_and_inf_to_integers_is_quiet():
    with np.errstate(all="raise"):
        out = sx.astype(sx.asarray([np.nan, np.inf, -np.inf, 1e300]), sx.int32)
    assert out.dtype is sx.int32


@settings(max_examples=60, deadline=None)
@given(src=st.sampled_from(ALL), dst=st.sampled_from(ALL), data=st.data())
def test_astype_of_strided_views(src, dst, data):
    if src.kind == "complex floating" and dst.kind not in ("complex floating", "bool"):
        return
    base = np.arange(24).reshape(4, 6).astype(src.np)
    key = data.draw(st.sampled_from([(slice(None, None, 2), slice(1, None, 3)), (slice(None), slice(None, None, -1)),
                                     (1, slice(None))]))
    out = sx.astype(sx.asarray(base)[key], dst)
    np.testing.assert_array_equal(np.asarray(out), base[key].astype(dst.np))


@pytest.mark.parametrize("src, dst", [(s, d) for s, d in itertools.product(ALL, ALL)
                                      if not (s.kind == "complex floating" and d.kind not in ("complex floating", "bool"))])
def test_convert_element_type_lowering(src, dst):
    pytest.importorskip("jax")
    a = sample(src)
    if src.kind == "real floating" and dst.kind == "unsigned":
        a = np.abs(a)  # negative floats to unsigned ints are implementation-defined
    check_primitive_lowering(convert_element_type, sx.asarray(a), new_dtype=dst)


# --- can_cast ------------------------------------------------------------------------------------------

# The spec's promotion lattice (same-kind pairs it defines), as (from, to) -> result.
SPEC_PROMOTIONS = {}
for _group in ([sx.int8, sx.int16, sx.int32, sx.int64], [sx.uint8, sx.uint16, sx.uint32, sx.uint64]):
    for a, b in itertools.product(_group, _group):
        SPEC_PROMOTIONS[a, b] = a if a.itemsize >= b.itemsize else b
for u, i in itertools.product([sx.uint8, sx.uint16, sx.uint32], [sx.int8, sx.int16, sx.int32, sx.int64]):
    wider = {1: sx.int16, 2: sx.int32, 4: sx.int64}[u.itemsize]
    SPEC_PROMOTIONS[u, i] = SPEC_PROMOTIONS[i, u] = i if i.itemsize > u.itemsize else wider
for a, b in itertools.product(REAL_FLOAT + COMPLEX, REAL_FLOAT + COMPLEX):
    bits = max(np.finfo(a.np).bits, np.finfo(b.np).bits)
    is_complex = a.kind == "complex floating" or b.kind == "complex floating"
    SPEC_PROMOTIONS[a, b] = {(32, False): sx.float32, (64, False): sx.float64, (32, True): sx.complex64,
                             (64, True): sx.complex128}[bits, is_complex]
SPEC_PROMOTIONS[sx.bool, sx.bool] = sx.bool


@pytest.mark.parametrize("src, dst", list(itertools.product(ALL, ALL)))
def test_can_cast_agrees_with_the_spec_lattice(src, dst):
    spec_allows = any(SPEC_PROMOTIONS.get((src, other)) is dst for other in ALL)
    same_kind_group = (src, dst) in SPEC_PROMOTIONS
    if same_kind_group:
        assert sx.can_cast(src, dst) == spec_allows
    assert sx.can_cast(src, dst) == bool(np.can_cast(src.np, dst.np, "safe"))
    assert sx.can_cast(sx.asarray(sample(src)), dst) == sx.can_cast(src, dst)


def test_can_cast_errors():
    with pytest.raises(TypeError):
        sx.can_cast(np.float32, sx.float64)
    with pytest.raises(TypeError):
        sx.can_cast(sx.float32, "float64")


# --- finfo / iinfo -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", REAL_FLOAT + COMPLEX)
def test_finfo(dtype):
    real = {sx.complex64: sx.float32, sx.complex128: sx.float64}.get(dtype, dtype)
    ref = np.finfo(real.np)
    for arg in (dtype, sx.ones(2, dtype=dtype)):
        info = sx.finfo(arg)
        assert info.dtype is real
        assert type(info.bits) is int and info.bits == ref.bits
        for name in ("eps", "max", "min", "smallest_normal"):
            value = getattr(info, name)
            assert type(value) is float and value == float(getattr(ref, name))
    assert "finfo" in repr(sx.finfo(dtype))


@pytest.mark.parametrize("dtype", INTEGER)
def test_iinfo(dtype):
    ref = np.iinfo(dtype.np)
    for arg in (dtype, sx.zeros(1, dtype=dtype)):
        info = sx.iinfo(arg)
        assert info.dtype is dtype
        assert (info.bits, info.min, info.max) == (ref.bits, int(ref.min), int(ref.max))
        assert all(type(v) is int for v in (info.bits, info.min, info.max))
    assert "iinfo" in repr(sx.iinfo(dtype))


def test_finfo_iinfo_errors():
    with pytest.raises(TypeError):
        sx.finfo(sx.int32)
    with pytest.raises(TypeError):
        sx.iinfo(sx.float32)
    with pytest.raises(TypeError):
        sx.iinfo(sx.bool)
    with pytest.raises(TypeError):
        sx.finfo(np.float32)


# --- isdtype -------------------------------------------------------------------------------------------------

KINDS = {
    "bool": {sx.bool},
    "signed integer": {sx.int8, sx.int16, sx.int32, sx.int64},
    "unsigned integer": {sx.uint8, sx.uint16, sx.uint32, sx.uint64},
    "integral": set(INTEGER),
    "real floating": set(REAL_FLOAT),
    "complex floating": set(COMPLEX),
    "numeric": set(ALL) - {sx.bool},
}


@settings(max_examples=200, deadline=None)
@given(dtype=st.sampled_from(ALL),
       kind=st.lists(st.sampled_from(list(KINDS)) | st.sampled_from(ALL), min_size=1, max_size=3))
def test_isdtype(dtype, kind):
    expected = any(dtype in KINDS[k] if isinstance(k, str) else dtype is k for k in kind)
    assert sx.isdtype(dtype, tuple(kind)) is expected
    assert sx.isdtype(dtype, kind[0]) is (dtype in KINDS[kind[0]] if isinstance(kind[0], str) else dtype is kind[0])


def test_isdtype_errors():
    with pytest.raises(ValueError):
        sx.isdtype(sx.int8, "integer")
    with pytest.raises(TypeError):
        sx.isdtype(sx.int8, 3)
    with pytest.raises(TypeError):
        sx.isdtype(np.int8, "integral")


# --- result_type ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("a, b", list(itertools.product(ALL, ALL)))
def test_result_type_of_dtypes_and_arrays(a, b):
    want = FROM_NUMPY[np.promote_types(a.np, b.np)]
    assert sx.result_type(a, b) is want
    assert sx.result_type(sx.empty(1, dtype=a), b) is want
    assert sx.result_type(a, sx.empty((), dtype=b)) is want
    if (a, b) in SPEC_PROMOTIONS:
        assert sx.result_type(a, b) is SPEC_PROMOTIONS[a, b]


@pytest.mark.parametrize("dtype", ALL)
def test_result_type_with_python_scalars(dtype):
    assert sx.result_type(dtype, True) is dtype
    if dtype is sx.bool:
        for scalar in (1, 1.0, 1j):
            with pytest.raises(TypeError):
                sx.result_type(dtype, scalar)
        return
    assert sx.result_type(dtype, 1) is dtype
    assert sx.result_type(1.0, dtype) is (dtype if dtype.kind in ("real floating", "complex floating") else sx.float64)
    if dtype.kind in ("signed", "unsigned"):
        with pytest.raises(TypeError):
            sx.result_type(dtype, 1j)
    else:
        assert sx.result_type(dtype, 1j) is (sx.complex64 if dtype in (sx.float32, sx.complex64) else sx.complex128)


def test_result_type_is_order_independent_with_scalars():
    args = [sx.int8, 1, 2.0, sx.int16]
    for perm in itertools.permutations(args):
        assert sx.result_type(*perm) is sx.float64
    for perm in itertools.permutations([sx.float32, 1j, 1.0]):
        assert sx.result_type(*perm) is sx.complex64
    for perm in itertools.permutations([sx.int8, 1.0, 1j]):
        with pytest.raises(TypeError):
            sx.result_type(*perm)


def test_result_type_errors():
    # The spec: "At least one argument must be an array or a dtype"; ValueError, as in array-api-strict.
    with pytest.raises(ValueError, match="no arguments"):
        sx.result_type()
    with pytest.raises(ValueError, match=r"only Python scalars \(1, 2.0\).*result_type\(stridex.float64"):
        sx.result_type(1, 2.0)
    with pytest.raises(TypeError):
        sx.result_type(sx.int8, "int8")
    with pytest.raises(TypeError):
        sx.result_type(np.int8)


# --- inputs client libraries pass beyond the spec (docs/library-authors.md) ------------------------------------


def test_result_type_of_only_python_scalars_raises_value_error():
    # SciPy's `try: xp.result_type(*args) except ValueError: ...` (array-api-strict raises ValueError too).
    for scalars in ((-2.0, 1.0), (1, 2), (True,), (1j, 2)):
        with pytest.raises(ValueError, match="at least one array or dtype"):
            sx.result_type(*scalars)
    # With a dtype beside them the scalars combine weakly, as in NumPy.
    assert sx.result_type(sx.float32, -2.0, 1.0) is sx.float32
    assert sx.result_type(float, -2.0, 1.0).np == np.result_type(float, -2.0, 1.0)


@pytest.mark.parametrize("pytype", [bool, int, float, complex])
def test_dtype_functions_take_python_types_as_dtypes(pytype):
    x = np.asarray([0.0, 1.5, -2.0])
    got = sx.astype(sx.asarray(x), pytype)
    np.testing.assert_array_equal(np.asarray(got), x.astype(pytype))
    assert np.asarray(got).dtype == x.astype(pytype).dtype
    for other in ALL:
        assert sx.can_cast(pytype, other) == bool(np.can_cast(pytype, other.np))
        assert sx.can_cast(other, pytype) == bool(np.can_cast(other.np, pytype))
        assert sx.result_type(pytype, other).np == np.result_type(pytype, other.np)
    if pytype in (float, complex):
        assert sx.finfo(pytype).eps == float(np.finfo(pytype).eps)
    if pytype is int:
        assert sx.iinfo(pytype).max == int(np.iinfo(pytype).max)
    assert sx.isdtype(pytype, "bool") is (pytype is bool)
    if pytype is not bool:
        ints = np.arange(1, 5, dtype=np.int8)
        want = np.sum(ints, dtype=pytype)
        got = sx.sum(sx.asarray(ints), dtype=pytype)
        assert np.asarray(got).dtype == want.dtype and np.asarray(got) == want
    pytest.importorskip("jax")
    jitted = sx.jit(lambda a: sx.astype(a, pytype))(sx.asarray(x))
    np.testing.assert_array_equal(np.asarray(jitted), x.astype(pytype))
    assert jitted.dtype.np == np.dtype(pytype)


_NON_FINITE_AND_OUT_OF_RANGE = [np.nan, np.inf, -np.inf, 1e300, -1e300, 300.7, -300.7, -1.5, -0.5, 2.7, 5e9, -5e9,
                                1.9e19, 9.3e18, -9.3e18, 7e4, -7e4, 2.0**31, -(2.0**31) - 1, 2.0**63, -(2.0**63), 2.0**64]


def _saturated(values: np.ndarray, dtype) -> list:
    """XLA's float -> integer conversion: truncation toward zero, NaN -> 0, out-of-range -> the dtype's min/max."""
    info = np.iinfo(dtype.np)
    out = []
    for v in values.tolist():
        v = v.real if isinstance(v, complex) else v
        out.append(0 if math.isnan(v) else info.max if v >= info.max + 1 else info.min if v <= info.min - 1
                   else int(v))
    return out


@pytest.mark.parametrize("src", [sx.float32, sx.float64, sx.complex64, sx.complex128])
def test_nan_to_int_cast_agrees_eager_and_jit(src):
    """NaN, infinities and out-of-range values cast to every integer dtype saturate as XLA's conversion does,
    eagerly (astype, asarray with a dtype, the conversion primitive) and under jit, small and large arrays."""
    pytest.importorskip("jax")
    for n in (1, 4000):  # (the large case runs NumPy's vector loops)
        with np.errstate(over="ignore"):  # (1e300 is inf in float32)
            base = np.array(_NON_FINITE_AND_OUT_OF_RANGE * (n // 22 + 1), src.np)[:max(n, 22)]
        x = sx.asarray(base)
        for dst in INTEGER:
            want = _saturated(base, dst)
            if src.kind == "complex floating":
                convert = lambda a, dst=dst: convert_element_type.bind(a, new_dtype=dst)
            else:
                convert = lambda a, dst=dst: sx.astype(a, dst)
                assert np.asarray(sx.asarray(x, dtype=dst)).tolist() == want, dst
            with np.errstate(all="raise"):  # quiet, as an explicit cast should be
                assert np.asarray(convert(x)).tolist() == want, dst
            assert np.asarray(sx.jit(convert)(x)).tolist() == want, dst
