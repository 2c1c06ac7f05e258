"""Sorting against NumPy: stable ascending and descending sorts, argsort order of ties, special values."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import stridex as sx
from stridex._lax import sorting as P
from tests.lowering_check import check_primitive_lowering

REAL = [sx.bool, sx.int8, sx.int16, sx.int32, sx.int64, sx.uint8, sx.uint16, sx.uint32, sx.uint64,
        sx.float32, sx.float64]


def sample(dtype, shape=(4, 6), seed=0):
    return np.random.default_rng(seed).integers(0, 4, size=shape).astype(dtype.np)


def reference_argsort(a, axis, descending):
    """Stable order by value; descending keeps ties in their original order (the spec's stability)."""
    a = np.moveaxis(a, axis, -1)
    out = np.empty(a.shape, np.int64)
    for idx in np.ndindex(a.shape[:-1]):
        row = list(a[idx])
        out[idx] = sorted(range(len(row)), key=lambda i: (-row[i] if descending else row[i], i))
    return np.moveaxis(out, -1, axis)


def check(got, want, dtype=None):
    assert isinstance(got, sx.Array)
    got_np, want = np.asarray(got), np.asarray(want)
    assert got_np.shape == want.shape
    if dtype is not None:
        assert got.dtype == dtype
    np.testing.assert_array_equal(got_np, want)


@pytest.mark.parametrize("dtype", REAL)
@pytest.mark.parametrize("descending", [False, True])
def test_sort_argsort(dtype, descending):
    a = sample(dtype)
    wide = a.astype(np.float64)  # reference keys that negate safely for unsigned and bool
    for axis in (0, 1, -1):
        order = reference_argsort(wide, axis, descending)
        check(sx.argsort(sx.asarray(a), axis=axis, descending=descending), order, sx.int64)
        check(sx.sort(sx.asarray(a), axis=axis, descending=descending), np.take_along_axis(a, order, axis), dtype)
        check(sx.argsort(sx.asarray(a), axis=axis, descending=descending, stable=False),
              order if not descending else np.asarray(sx.argsort(sx.asarray(a), axis=axis, descending=True)))


def test_descending_keeps_signed_zero_order():
    a = np.array([0.0, -0.0, 1.0, -0.0, 0.0])
    out = np.asarray(sx.sort(sx.asarray(a), descending=True))
    np.testing.assert_array_equal(np.signbit(out), [False, False, True, True, False])
    check(sx.argsort(sx.asarray(a), descending=True), [2, 0, 1, 3, 4])
    check(sx.argsort(sx.asarray(a)), [0, 1, 3, 4, 2])


def test_nan_and_infinities():
    a = np.array([np.nan, 1.0, -np.inf, np.nan, np.inf, -1.0])
    check(sx.sort(sx.asarray(a)), np.sort(a))
    check(sx.argsort(sx.asarray(a)), np.argsort(a, kind="stable"))
    check(sx.sort(sx.asarray(a), descending=True), [np.nan, np.nan, np.inf, 1.0, -1.0, -np.inf])
    check(sx.argsort(sx.asarray(a), descending=True), [0, 3, 4, 1, 5, 2])


def test_sort_of_views_and_errors():
    base = np.arange(24.0)[::-1].reshape(4, 6)
    x = sx.permute_dims(sx.asarray(base), (1, 0))
    check(sx.sort(x, axis=0), np.sort(base.T, axis=0))
    out = sx.sort(x)
    assert np.asarray(x)[0, 0] == 23.0  # sorting copies
    check(out, np.sort(base.T))
    with pytest.raises(TypeError):
        sx.sort(sx.asarray(np.ones(3, complex)))
    with pytest.raises(IndexError):
        sx.argsort(sx.asarray(np.ones(3)), axis=1)
    with pytest.raises(IndexError):
        sx.sort(sx.asarray(np.float64(1.0)))
    check(sx.sort(sx.asarray(np.zeros((0, 3)))), np.zeros((0, 3)))
    check(sx.argsort(sx.asarray(np.zeros((2, 0))), descending=True), np.zeros((2, 0)))


@settings(max_examples=60, deadline=None)
@given(hnp.arrays(st.sampled_from([np.int8, np.uint16, np.float32, np.float64]),
                  hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=6),
                  elements=st.integers(0, 5)),
       st.data())
def test_sort_hypothesis(a, data):
    axis = data.draw(st.integers(-a.ndim, a.ndim - 1))
    descending = data.draw(st.booleans())
    order = reference_argsort(a.astype(np.float64), axis, descending)
    check(sx.argsort(sx.asarray(a), axis=axis, descending=descending), order)
    check(sx.sort(sx.asarray(a), axis=axis, descending=descending), np.take_along_axis(a, order, axis))


@pytest.mark.parametrize("dtype", [sx.bool, sx.int8, sx.uint64, sx.float32, sx.float64])
def test_lowering(dtype):
    pytest.importorskip("jax")
    a = sample(dtype)
    if dtype.kind == "real floating":
        a[0, :4] = [np.nan, -0.0, 0.0, -np.nan]
        a[1, :3] = [0.0, -0.0, np.inf]
    for axis in (0, 1):
        for descending in (False, True):
            check_primitive_lowering(P.sort, sx.asarray(a), axis=axis, descending=descending)
            check_primitive_lowering(P.argsort, sx.asarray(a), axis=axis, descending=descending, rtol=0)
