"""Set functions against NumPy: unique_* (named tuples, each NaN distinct, signed zeros merged) and isin."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import stridex as sx
from stridex._lax import set as P
from tests.api.test_searching_functions import check_data_dependent_lowering
from tests.helpers import check
from tests.lowering_check import check_primitive_lowering

ALL = [sx.bool, sx.int8, sx.int16, sx.int32, sx.int64, sx.uint8, sx.uint16, sx.uint32, sx.uint64,
       sx.float32, sx.float64, sx.complex64, sx.complex128]


def sample(dtype, shape=(3, 5), seed=0):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 4, size=shape)
    if dtype.kind == "complex floating":
        a = a + 1j * rng.integers(0, 2, size=shape)
    return a.astype(dtype.np)


@pytest.mark.parametrize("dtype", ALL)
def test_unique(dtype):
    a = sample(dtype)
    x = sx.asarray(a)
    values, indices, inverse, counts = np.unique(a, return_index=True, return_inverse=True, return_counts=True)
    u = sx.unique_all(x)
    assert type(u).__name__ == "UniqueAllResult" and u._fields == ("values", "indices", "inverse_indices", "counts")
    check(u.values, values, dtype)
    check(u.indices, indices, sx.int64)
    check(u.inverse_indices, inverse.reshape(a.shape), sx.int64)
    check(u.counts, counts, sx.int64)
    c = sx.unique_counts(x)
    assert c._fields == ("values", "counts")
    check(c.values, values)
    check(c.counts, counts)
    i = sx.unique_inverse(x)
    assert i._fields == ("values", "inverse_indices")
    check(i.inverse_indices, inverse.reshape(a.shape))
    check(sx.unique_values(x), values, dtype)


def test_unique_nans_distinct_and_signed_zeros_merged():
    a = np.array([np.nan, 1.0, -0.0, np.nan, 0.0, 1.0])
    u = sx.unique_all(sx.asarray(a))
    check(u.values, [0.0, 1.0, np.nan, np.nan])
    check(u.indices, [2, 1, 0, 3])
    check(u.counts, [2, 2, 1, 1])
    check(u.inverse_indices, [2, 1, 0, 3, 0, 1])
    c = np.array([complex(np.nan, 0), 1j, complex(0, np.nan), 1j])
    uc = sx.unique_counts(sx.asarray(c))
    assert np.asarray(uc.values).shape == (3,)
    check(uc.counts, [2, 1, 1])
    assert sx.unique_values(sx.asarray(np.zeros((0, 2)))).shape == (0,)
    e = sx.unique_all(sx.asarray(np.zeros((2, 0))))
    assert e.inverse_indices.shape == (2, 0) and e.counts.shape == (0,)
    assert sx.unique_values(sx.asarray(np.float64(2.0))).shape == (1,)


def test_isin():
    x1 = np.array([[1, 2, 3], [4, 5, 6]], np.int16)
    x2 = np.array([6, 1, 9], np.uint8)
    check(sx.isin(sx.asarray(x1), sx.asarray(x2)), np.isin(x1, x2), sx.bool)
    check(sx.isin(sx.asarray(x1), sx.asarray(x2), invert=True), np.isin(x1, x2, invert=True), sx.bool)
    check(sx.isin(sx.asarray(x1), 5), np.isin(x1, 5))
    check(sx.isin(5, sx.asarray(x1)), True)
    check(sx.isin(sx.asarray(np.array([np.nan, 1.0])), sx.asarray(np.array([np.nan, 1.0]))), [False, True])
    check(sx.isin(sx.asarray(x1), sx.asarray(np.zeros(0, np.int8))), np.zeros((2, 3), bool))
    with pytest.raises(TypeError, match="at least one"):
        sx.isin(1, 2)
    with pytest.raises(TypeError):
        sx.isin(sx.asarray(x1), 1.5)


@settings(max_examples=60, deadline=None)
@given(hnp.arrays(st.sampled_from([np.int8, np.uint32, np.float32, np.float64]),
                  hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=5), elements=st.integers(0, 4)))
def test_unique_hypothesis(a):
    values, indices, inverse, counts = np.unique(a, return_index=True, return_inverse=True, return_counts=True)
    u = sx.unique_all(sx.asarray(a))
    check(u.values, values)
    check(u.indices, indices)
    check(u.inverse_indices, inverse.reshape(a.shape))
    check(u.counts, counts)


@pytest.mark.parametrize("dtype", [sx.bool, sx.int8, sx.uint64, sx.float32, sx.float64, sx.complex128])
def test_lowering(dtype):
    pytest.importorskip("jax")
    a = sample(dtype)
    if dtype.kind == "real floating":
        a[0, :4] = [np.nan, -0.0, np.nan, -np.nan]
    if dtype.kind == "complex floating":
        a[0, :3] = [complex(np.nan, 1), complex(0, np.nan), complex(np.nan, 1)]
    for shape in (a.shape, (a.size,)):
        x = sx.asarray(a.reshape(shape))
        for flags in [(False, False, False), (True, True, True), (False, True, False), (False, False, True)]:
            check_data_dependent_lowering(P.unique, x, with_indices=flags[0], with_inverse=flags[1],
                                          with_counts=flags[2])
    check_data_dependent_lowering(P.unique, sx.asarray(a[:0]), with_indices=True, with_inverse=True,
                                  with_counts=True)
    check_primitive_lowering(P.isin, sx.asarray(a), sx.asarray(a[0, ::2]), invert=False)
    check_primitive_lowering(P.isin, sx.asarray(a), sx.asarray(a[1]), invert=True)
    if dtype.kind != "bool":
        check_primitive_lowering(P.isin, sx.asarray(a), 2, invert=False)
        check_primitive_lowering(P.isin, 2, sx.asarray(a), invert=False)
