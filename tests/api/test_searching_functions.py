"""Searching functions against NumPy: argmax/argmin, count_nonzero, nonzero, searchsorted, where."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import stridex as sx
from stridex._core.avals import aval_of
from stridex._lax import searching as S
from stridex._exec.jax_bridge import LoweringContext, x64
from tests.lowering_check import check_primitive_lowering

REAL = [sx.int8, sx.int16, sx.int32, sx.int64, sx.uint8, sx.uint16, sx.uint32, sx.uint64, sx.float32, sx.float64]
ALL = [sx.bool] + REAL + [sx.complex64, sx.complex128]


def sample(dtype, shape=(3, 4), seed=0):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 4, size=shape)
    if dtype.kind == "complex floating":
        a = a + 1j * rng.integers(0, 2, size=shape)
    return a.astype(dtype.np)


def check(got, want, dtype=None):
    assert isinstance(got, sx.Array)
    want = np.asarray(want)
    got_np = np.asarray(got)
    assert got_np.shape == want.shape, (got_np.shape, want.shape)
    if dtype is not None:
        assert got.dtype == dtype, (got.dtype, dtype)
    np.testing.assert_array_equal(got_np, want)


@pytest.mark.parametrize("dtype", REAL + [sx.bool])
@pytest.mark.parametrize("name", ["argmax", "argmin"])
def test_argmax_argmin(dtype, name):
    a = sample(dtype)
    f, g = getattr(sx, name), getattr(np, name)
    for axis in (None, 0, 1, -1):
        for keepdims in (False, True):
            check(f(sx.asarray(a), axis=axis, keepdims=keepdims), g(a, axis=axis, keepdims=keepdims), sx.int64)


def test_argmax_special():
    a = np.array([1.0, np.nan, 3.0, np.nan])
    check(sx.argmax(sx.asarray(a)), 1)
    check(sx.argmin(sx.asarray(a)), 1)
    check(sx.argmax(sx.asarray(np.array(5.0))), 0)
    check(sx.argmax(sx.asarray(np.array(5.0)), keepdims=True), 0)
    with pytest.raises(ValueError, match="empty"):
        sx.argmax(sx.asarray(np.zeros((0, 3))))
    with pytest.raises(ValueError, match="size 0"):
        sx.argmin(sx.asarray(np.zeros((0, 3))), axis=0)
    check(sx.argmin(sx.asarray(np.zeros((0, 3))), axis=1), np.zeros(0, np.int64))
    with pytest.raises(IndexError):
        sx.argmax(sx.asarray(np.zeros((2, 3))), axis=2)
    with pytest.raises(TypeError):
        sx.argmax(sx.asarray(np.zeros(3, complex)))


@pytest.mark.parametrize("dtype", ALL)
def test_count_nonzero(dtype):
    a = sample(dtype)
    if dtype.kind == "real floating":
        a[0, 0] = np.nan
    for axis in (None, 0, 1, (0, 1), (), -1):
        for keepdims in (False, True):
            check(sx.count_nonzero(sx.asarray(a), axis=axis, keepdims=keepdims),
                  np.count_nonzero(a, axis=axis, keepdims=keepdims), sx.int64)


@pytest.mark.parametrize("dtype", ALL)
def test_nonzero(dtype):
    for shape in ((7,), (3, 4), (2, 3, 2), (0, 3)):
        a = sample(dtype, shape)
        got = sx.nonzero(sx.asarray(a))
        want = np.nonzero(a)
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            check(g, w, sx.int64)
    with pytest.raises(ValueError, match="0-D"):
        sx.nonzero(sx.asarray(np.float64(1.0)))
    z = np.array([0.0, -0.0, complex(0, 1).imag, np.nan])
    check(sx.nonzero(sx.asarray(z))[0], [2, 3])
    c = np.array([0j, 1j, 1 + 0j, complex(np.nan, 0)])
    check(sx.nonzero(sx.asarray(c))[0], [1, 2, 3])


def test_nonzero_results_own_their_memory():
    out = sx.nonzero(sx.asarray(np.ones((2, 2))))
    out[0][0] = 5
    assert int(out[1][0]) == 0


@pytest.mark.parametrize("dtype", REAL)
@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted(dtype, side):
    x1 = np.array([0, 1, 1, 2, 3, 5], dtype.np)
    x2 = np.array([[0, 1, 4], [5, 6, 2]], dtype.np)
    check(sx.searchsorted(sx.asarray(x1), sx.asarray(x2), side=side), np.searchsorted(x1, x2, side=side), sx.int64)
    check(sx.searchsorted(sx.asarray(x1), 2, side=side), np.searchsorted(x1, 2, side=side), sx.int64)
    perm = np.array([3, 0, 5, 1, 4, 2])
    shuffled = np.empty_like(x1)
    shuffled[perm] = x1
    sorter = np.argsort(shuffled, kind="stable")
    check(sx.searchsorted(sx.asarray(shuffled), sx.asarray(x2), side=side, sorter=sx.asarray(sorter)),
          np.searchsorted(shuffled, x2, side=side, sorter=sorter), sx.int64)


def test_searchsorted_special():
    x1 = np.array([-np.inf, -1.0, 0.0, 2.5, np.inf, np.nan])
    x1s = sx.asarray(x1)
    for v in (-np.inf, -0.0, 0.0, 2.5, np.inf, np.nan, 7):
        for side in ("left", "right"):
            check(sx.searchsorted(x1s, v, side=side), np.searchsorted(x1, v, side=side))
    check(sx.searchsorted(sx.asarray(np.array([1, 2, 3], np.int8)), 2.5), 2)
    with pytest.raises(ValueError, match="1-D"):
        sx.searchsorted(sx.asarray(np.zeros((2, 2))), 1.0)
    with pytest.raises(ValueError, match="side"):
        sx.searchsorted(x1s, 1.0, side="middle")
    with pytest.raises(TypeError):
        sx.searchsorted(x1s, "a")
    with pytest.raises(TypeError, match="sorter"):
        sx.searchsorted(x1s, 1.0, sorter=x1s)
    with pytest.raises(ValueError, match="sorter"):
        sx.searchsorted(x1s, 1.0, sorter=sx.asarray(np.arange(3)))


@pytest.mark.parametrize("d1", [sx.bool, sx.int8, sx.uint8, sx.int32, sx.float32, sx.float64, sx.complex64])
@pytest.mark.parametrize("d2", [sx.bool, sx.int16, sx.uint32, sx.float32, sx.complex128])
def test_where_promotion(d1, d2):
    c = np.array([[True], [False]])
    a = np.array([1, 0, 1], d1.np)
    b = np.array([1, 2, 3], d2.np)
    got = sx.where(sx.asarray(c), sx.asarray(a), sx.asarray(b))
    want = np.where(c, a, b)
    check(got, want, sx.asarray(want).dtype)


@pytest.mark.parametrize("scalar", [True, 3, 2.5, 1j])
@pytest.mark.parametrize("dtype", [sx.bool, sx.int8, sx.uint16, sx.float32, sx.float64, sx.complex64])
def test_where_scalars(scalar, dtype):
    c = np.array([True, False, True])
    a = sample(dtype, (3,))
    allowed = {bool: True, int: dtype.kind != "bool", float: dtype.kind != "bool",
               complex: dtype.kind in ("real floating", "complex floating")}[type(scalar)]
    if not allowed:
        with pytest.raises(TypeError):
            sx.where(sx.asarray(c), sx.asarray(a), scalar)
        return
    for args in ((a, scalar), (scalar, a)):
        got = sx.where(sx.asarray(c), *(sx.asarray(v) if isinstance(v, np.ndarray) else v for v in args))
        want = np.where(c, *args)
        check(got, want, sx.asarray(want).dtype)


def test_where_takes_0d_arrays_like_numpy():
    # x1/x2 as 0-D arrays where Python scalars are taken (SciPy's loops); they promote as arrays, as in NumPy 2.
    c = np.array([True, False, True])
    a = np.array([1.5, 2.5, 3.5], np.float32)
    zero, big = np.asarray(0.0), np.asarray(7, np.int16)
    for args in ((a, zero), (zero, a), (zero, big), (big, a)):
        got = sx.where(sx.asarray(c), *(sx.asarray(v) for v in args))
        want = np.where(c, *args)
        check(got, want, sx.asarray(want).dtype)
    pytest.importorskip("jax")
    f = sx.jit(lambda c, a, s: sx.where(c, a, s))
    check(f(sx.asarray(c), sx.asarray(a), sx.asarray(zero)), np.where(c, a, zero), sx.float64)


def test_where_errors_and_large():
    with pytest.raises(TypeError, match="at least one"):
        sx.where(sx.asarray([True]), 1, 2)
    with pytest.raises(TypeError):
        sx.where([True], sx.asarray([1]), 2)
    with pytest.raises(ValueError):
        sx.where(sx.asarray([True, False]), sx.asarray([1, 2, 3]), 0)
    c = np.arange(6000) % 3 == 0
    a = np.arange(6000.0).reshape(2, 3000)
    check(sx.where(sx.asarray(c.reshape(2, 3000)), sx.asarray(a), -1.0), np.where(c.reshape(2, 3000), a, -1.0))
    check(sx.where(sx.asarray(np.array([1, 0, 2])), sx.asarray(np.ones(3)), 0.0), [1.0, 0.0, 1.0])


@settings(max_examples=50, deadline=None)
@given(hnp.arrays(st.sampled_from([np.int8, np.uint8, np.float32, np.float64]),
                  hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4),
                  elements=st.integers(0, 3)),
       st.data())
def test_arg_and_count_hypothesis(a, data):
    axis = data.draw(st.none() | st.integers(-a.ndim, a.ndim - 1))
    keepdims = data.draw(st.booleans())
    check(sx.argmax(sx.asarray(a), axis=axis, keepdims=keepdims), np.argmax(a, axis=axis, keepdims=keepdims))
    check(sx.argmin(sx.asarray(a), axis=axis, keepdims=keepdims), np.argmin(a, axis=axis, keepdims=keepdims))
    check(sx.count_nonzero(sx.asarray(a), axis=axis, keepdims=keepdims),
          np.count_nonzero(a, axis=axis, keepdims=keepdims))
    for g, w in zip(sx.nonzero(sx.asarray(a)), np.nonzero(a)):
        check(g, w)


# --- lowering ----------------------------------------------------------------------------------------


def check_data_dependent_lowering(prim, *args, **params):
    """Lower with the output shapes the eager run found, and compare with the eager result."""
    import jax.numpy as jnp

    eager = prim.bind(*args, **params)
    avals_in = [aval_of(a) for a in args]
    avals_out = [aval_of(o) for o in eager]
    with x64():
        jargs = [jnp.asarray(np.asarray(a)) if isinstance(a, sx.Array) else a for a in args]
        outs = prim.lower(LoweringContext(avals_in, avals_out), *jargs, **params)
        assert len(outs) == len(eager)
        for got, want in zip(outs, eager):
            got, want = np.asarray(got), np.asarray(want)
            assert got.dtype == want.dtype and got.shape == want.shape, (prim.name, got, want)
            np.testing.assert_array_equal(got, want, err_msg=prim.name)


@pytest.mark.parametrize("dtype", [sx.bool, sx.int8, sx.uint64, sx.float32, sx.float64])
def test_lowering_searching(dtype):
    pytest.importorskip("jax")
    a = sample(dtype, (3, 4))
    if dtype.kind == "real floating":
        a[1, 2] = np.nan
    x = sx.asarray(a)
    for axis in (None, 0, 1):
        for keepdims in (False, True):
            check_primitive_lowering(S.argmax, x, axis=axis, keepdims=keepdims)
            check_primitive_lowering(S.argmin, x, axis=axis, keepdims=keepdims)
    for axes in ((0, 1), (1,), ()):
        check_primitive_lowering(S.count_nonzero, x, axes=axes, keepdims=False)
        check_primitive_lowering(S.count_nonzero, x, axes=axes, keepdims=True)
    check_primitive_lowering(S.where, sx.asarray(a > 1), x, sx.asarray(a[0]))
    check_primitive_lowering(S.where, sx.asarray(a), x, 1)
    check_primitive_lowering(S.where, sx.asarray(a > 1), True, x)
    check_data_dependent_lowering(S.nonzero, x)
    check_data_dependent_lowering(S.nonzero, sx.asarray(a[0]))


@pytest.mark.parametrize("dtype", [sx.int8, sx.uint32, sx.float32, sx.float64])
def test_lowering_searchsorted(dtype):
    pytest.importorskip("jax")
    x1 = np.array([0, 1, 1, 2, 3, 5], dtype.np)
    x2 = np.array([[0, 1, 4], [5, 6, 2]], dtype.np)
    for side in ("left", "right"):
        check_primitive_lowering(S.searchsorted, sx.asarray(x1), sx.asarray(x2), side=side)
        check_primitive_lowering(S.searchsorted, sx.asarray(x1), 3, side=side)
        sorter = sx.asarray(np.array([5, 4, 3, 2, 1, 0]))
        check_primitive_lowering(S.searchsorted, sx.asarray(x1[::-1].copy()), sx.asarray(x2), sorter, side=side)
    special = sx.asarray(np.array([-np.inf, -1.0, 0.0, 2.5, np.inf, np.nan]))
    values = sx.asarray(np.array([-np.inf, -0.0, 0.0, 2.5, np.inf, np.nan, -np.nan]))
    for side in ("left", "right"):
        check_primitive_lowering(S.searchsorted, special, values, side=side)


def test_where_with_python_scalar_argument_under_jit():
    """A Python scalar argument of a jitted function is a scalar operand of where, as eagerly: kind rules, weak
    promotion, and an int that does not fit the integer result is an OverflowError (never a wrapped value)."""
    pytest.importorskip("jax")
    x = sx.asarray([1, 2, 3], dtype=sx.int8)
    f = lambda a, s: sx.where(a > 1, a, s)
    for s in (5, -128, True, 2.5):
        eager, traced = f(x, s), sx.jit(f)(x, s)
        assert traced.dtype is eager.dtype
        np.testing.assert_array_equal(np.asarray(traced), np.asarray(eager))
    for s in (300, -129):
        with pytest.raises(OverflowError, match=f"Python integer {s} out of bounds for int8"):
            f(x, s)
        with pytest.raises(OverflowError, match=f"Python integer {s} out of bounds for int8"):
            sx.jit(f)(x, s)
    with pytest.raises(TypeError, match="complex"):
        sx.jit(f)(x, 1j)
    with pytest.raises(TypeError, match="at least one"):
        sx.jit(lambda a, s, t: sx.where(a > 1, s, t))(x, 1, 2)  # two scalars: as eagerly
    assert np.asarray(sx.where(x > 1, x, np.int64(7))).tolist() == [7, 2, 3]  # NumPy scalars as Python's


def test_searchsorted_with_python_int_outside_the_dtype():
    pytest.importorskip("jax")
    for dtype in (sx.int8, sx.uint8, sx.uint64, sx.int64):
        x = sx.asarray([0, 0, 1, 2, 100], dtype=dtype)
        for s in (-5, -1, 0, 100, 258, 2**40):
            for side in ("left", "right"):
                want = int(np.searchsorted(np.asarray(x), s, side=side))
                assert int(sx.searchsorted(x, s, side=side)) == want
                traced = sx.jit(lambda a, v, side=side: sx.searchsorted(a, v, side=side))(x, s)
                literal = sx.jit(lambda a, s=s, side=side: sx.searchsorted(a, s, side=side))(x)
                assert int(traced) == int(literal) == want, (dtype, s, side)
    with pytest.raises(TypeError, match="bool"):
        sx.jit(lambda a, v: sx.searchsorted(a, v))(sx.asarray([1.0]), True)
