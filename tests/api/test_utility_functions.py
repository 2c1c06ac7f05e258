"""Utility functions against NumPy: all and any (every dtype, axes, empty input) and diff."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import stridex as sx
from tests.helpers import check

ALL = [sx.bool, sx.int8, sx.int16, sx.int32, sx.int64, sx.uint8, sx.uint16, sx.uint32, sx.uint64,
       sx.float32, sx.float64, sx.complex64, sx.complex128]
NUMERIC = ALL[1:]


def sample(dtype, shape=(3, 4), seed=0):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 3, size=shape)
    if dtype.kind == "complex floating":
        a = a * 1j + rng.integers(0, 2, size=shape)
    return a.astype(dtype.np)


@pytest.mark.parametrize("dtype", ALL)
def test_all_any(dtype):
    a = sample(dtype)
    for axis in (None, 0, 1, -1, (0, 1), ()):
        for keepdims in (False, True):
            check(sx.all(sx.asarray(a), axis=axis, keepdims=keepdims), np.all(a, axis=axis, keepdims=keepdims),
                  sx.bool)
            check(sx.any(sx.asarray(a), axis=axis, keepdims=keepdims), np.any(a, axis=axis, keepdims=keepdims),
                  sx.bool)


def test_all_any_special():
    special = np.array([np.nan, np.inf, -np.inf])
    assert bool(sx.all(sx.asarray(special)))
    assert bool(sx.any(sx.asarray(np.array([0.0, np.nan]))))
    assert bool(sx.any(sx.asarray(np.array([0j, 1j]))))
    assert not bool(sx.all(sx.asarray(np.array([0j, 1j]))))
    assert bool(sx.all(sx.asarray(np.zeros(0))))
    assert not bool(sx.any(sx.asarray(np.zeros(0))))
    check(sx.all(sx.asarray(np.zeros((2, 0))), axis=1), [True, True])
    check(sx.any(sx.asarray(np.zeros((2, 0))), axis=1), [False, False])
    with pytest.raises(IndexError):
        sx.any(sx.asarray(np.zeros(2)), axis=1)


@pytest.mark.parametrize("dtype", NUMERIC)
def test_diff(dtype):
    a = sample(dtype, (3, 5))
    for axis in (0, 1, -1):
        for n in (0, 1, 2, 3):
            check(sx.diff(sx.asarray(a), axis=axis, n=n), np.diff(a, n=n, axis=axis), dtype)
    p = sample(dtype, (3, 2), seed=1)
    q = sample(dtype, (3, 1), seed=2)
    check(sx.diff(sx.asarray(a), prepend=sx.asarray(p), append=sx.asarray(q), n=2),
          np.diff(a, n=2, prepend=p, append=q), dtype)
    check(sx.diff(sx.asarray(a), append=sx.asarray(q)), np.diff(a, append=q), dtype)
    check(sx.diff(sx.asarray(a), axis=0, prepend=sx.asarray(a[:1])), np.diff(a, axis=0, prepend=a[:1]), dtype)


def test_diff_edge_cases():
    x = sx.asarray(np.arange(4.0))
    check(sx.diff(x, n=10), np.zeros(0))
    check(sx.diff(sx.asarray(np.array([1, 5], np.int8)), prepend=sx.asarray(np.array([300], np.int16))),
          [-299, 4], sx.int16)
    out = sx.diff(x, n=0)
    out[0] = 7.0
    assert float(x[0]) == 0.0  # n=0 still returns a new array
    with pytest.raises(TypeError):
        sx.diff(sx.asarray([True, False]))
    with pytest.raises(ValueError, match="0-D"):
        sx.diff(sx.asarray(np.float64(1.0)))
    with pytest.raises(ValueError, match="non-negative"):
        sx.diff(x, n=-1)
    with pytest.raises(ValueError, match="shape"):
        sx.diff(sx.asarray(np.ones((2, 3))), axis=1, append=sx.asarray(np.ones((3, 1))))
    with pytest.raises(IndexError):
        sx.diff(x, axis=1)


@settings(max_examples=50, deadline=None)
@given(hnp.arrays(st.sampled_from([np.int16, np.uint8, np.float64, np.complex64]),
                  hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=5), elements=st.integers(0, 9)),
       st.data())
def test_diff_hypothesis(a, data):
    axis = data.draw(st.integers(-a.ndim, a.ndim - 1))
    n = data.draw(st.integers(0, 4))
    check(sx.diff(sx.asarray(a), axis=axis, n=n), np.diff(a, axis=axis, n=n), sx.asarray(a).dtype)
