"""Data type functions: astype against NumPy (values, copies, lowering), can_cast, finfo, iinfo, isdtype, result_type."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import stridex as sx
from stridex._array import window
from stridex._primitives.convert import convert_element_type

from .lowering_check import check_primitive_lowering

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
        sx.astype(x, sx.int8, device="gpu")


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
    want = sx._dtypes.FROM_NUMPY[np.promote_types(a.np, b.np)]
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
    with pytest.raises(TypeError):
        sx.result_type()
    with pytest.raises(TypeError):
        sx.result_type(1, 2.0)
    with pytest.raises(TypeError):
        sx.result_type(sx.int8, "int8")
    with pytest.raises(TypeError):
        sx.result_type(np.int8)
