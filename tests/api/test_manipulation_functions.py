"""Manipulation and take functions against NumPy.

The view functions are shadowed on `np.arange` data with hypothesis-drawn shapes and axes: values are
compared element by element, the result must share the input's memory, and a write through the view
must land on exactly the base elements NumPy's view of an index array says it covers. The copying
functions (concat, stack, repeat, roll, tile, take, take_along_axis) are compared with NumPy and must
not share memory with their inputs.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import stridex as sx
from stridex._core.array import window
from stridex._core.avals import aval_of
from stridex._lax import indexing as take_prims
from stridex._lax import manipulation as shape_prims
from stridex._exec.jax_bridge import LoweringContext, x64
from tests.lowering_check import check_primitive_lowering

shapes = hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=4)
nonscalar_shapes = hnp.array_shapes(min_dims=1, max_dims=4, min_side=0, max_side=4)
DTYPES = [sx.bool, sx.int8, sx.uint16, sx.int32, sx.int64, sx.uint64, sx.float32, sx.float64, sx.complex64,
          sx.complex128]


def layouts(shape):
    """Strategies for a writable NumPy view of arange data with `shape`: contiguous, reversed or transposed."""
    def build(kind):
        size = math.prod(shape)
        if kind == "contiguous" or len(shape) == 0:
            return np.arange(size).reshape(shape)
        if kind == "reversed":
            return np.arange(size).reshape(shape)[..., ::-1]
        if kind == "transposed":
            return np.arange(size).reshape(shape[::-1]).T
        padded = np.arange(size * 2).reshape(shape[:-1] + (shape[-1] * 2,))  # every other column
        return padded[..., ::2]
    return st.sampled_from(["contiguous", "reversed", "transposed", "strided"]).map(build)


def shadow(view_fn, np_fn, base: np.ndarray):
    """Run `view_fn` on an Array over `base` and `np_fn` on `base`; check values, aliasing and write-through."""
    x = sx.asarray(base)
    assert np.shares_memory(window(x), base) or base.size == 0
    y = view_fn(x)
    want = np_fn(base)
    outs = y if isinstance(y, tuple) else (y,)
    wants = want if isinstance(want, (tuple, list)) else (want,)
    assert len(outs) == len(wants)
    for out, expected in zip(outs, wants):
        assert out.dtype is x.dtype and out.shape == expected.shape
        np.testing.assert_array_equal(np.asarray(out), expected)
    ids = np.arange(base.size).reshape(base.shape)
    touched = np_fn(ids)
    touched = touched if isinstance(touched, (tuple, list)) else (touched,)
    for out, covered in zip(outs, touched):
        if out.size == 0:
            continue
        assert np.shares_memory(window(out), base)
        before = base.copy()
        w = window(out)
        if any(stride == 0 and n > 1 for n, stride in zip(w.shape, w.strides)):
            # A broadcast view refuses writes; its aliasing shows the other way: writes to the base show in it.
            with pytest.raises(ValueError, match="broadcast view"):
                out[...] = -1
            base[...] = -1
            assert np.all(np.asarray(out) == -1)
            base[...] = before
            continue
        out[...] = -1
        expected = before.reshape(-1).copy()
        expected[np.unique(covered)] = -1
        np.testing.assert_array_equal(base.reshape(-1), expected)
        base[...] = before  # restore for the next output


def permutations(n):
    return st.permutations(list(range(n))).map(tuple)


@settings(max_examples=120, deadline=None)
@given(data=st.data(), shape=shapes)
def test_permute_dims_shadow(data, shape):
    base = data.draw(layouts(shape))
    axes = data.draw(permutations(len(shape)))
    if axes and data.draw(st.booleans()):
        axes = tuple(a - len(shape) for a in axes)  # negative axes (2025.12)
    shadow(lambda x: sx.permute_dims(x, axes), lambda b: np.transpose(b, axes), base)


@settings(max_examples=120, deadline=None)
@given(data=st.data(), shape=nonscalar_shapes)
def test_moveaxis_shadow(data, shape):
    base = data.draw(layouts(shape))
    n = len(shape)
    k = data.draw(st.integers(1, n))
    source = tuple(data.draw(st.permutations(list(range(-n, 0)) if data.draw(st.booleans()) else list(range(n))))[:k])
    dest = tuple(data.draw(st.permutations(list(range(n))))[:k])
    shadow(lambda x: sx.moveaxis(x, source, dest), lambda b: np.moveaxis(b, source, dest), base)
    shadow(lambda x: sx.moveaxis(x, source[0], dest[0]), lambda b: np.moveaxis(b, source[0], dest[0]), base)


@settings(max_examples=120, deadline=None)
@given(data=st.data(), shape=shapes)
def test_expand_dims_shadow(data, shape):
    base = data.draw(layouts(shape))
    k = data.draw(st.integers(1, 3))
    out_ndim = len(shape) + k
    axes = tuple(data.draw(st.lists(st.integers(-out_ndim, out_ndim - 1), min_size=k, max_size=k,
                                    unique_by=lambda a: a % out_ndim)))
    shadow(lambda x: sx.expand_dims(x, axis=axes), lambda b: np.expand_dims(b, axes), base)
    single = data.draw(st.integers(-len(shape) - 1, len(shape)))
    shadow(lambda x: sx.expand_dims(x, axis=single), lambda b: np.expand_dims(b, single), base)


@settings(max_examples=120, deadline=None)
@given(data=st.data(), shape=hnp.array_shapes(min_dims=0, max_dims=4, min_side=1, max_side=3))
def test_squeeze_shadow(data, shape):
    base = data.draw(layouts(shape))
    ones = [i for i, n in enumerate(shape) if n == 1]
    axes = tuple(data.draw(st.lists(st.sampled_from(ones), unique=True))) if ones else ()
    shadow(lambda x: sx.squeeze(x, axes), lambda b: np.squeeze(b, axes), base)
    if ones:
        shadow(lambda x: sx.squeeze(x, axis=ones[0] - len(shape)), lambda b: np.squeeze(b, ones[0]), base)


@settings(max_examples=120, deadline=None)
@given(data=st.data(), shape=shapes)
def test_flip_shadow(data, shape):
    base = data.draw(layouts(shape))
    n = len(shape)
    axis = data.draw(st.none() | (st.integers(-n, n - 1) if n else st.none())
                     | st.lists(st.integers(0, n - 1), unique=True).map(tuple) if n else st.none())
    shadow(lambda x: sx.flip(x, axis=axis), lambda b: np.flip(b, axis), base)


@settings(max_examples=120, deadline=None)
@given(data=st.data(), shapes_=hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=4, max_side=4))
def test_broadcast_to_shadow(data, shapes_):
    shape = shapes_.input_shapes[0]
    target = shapes_.result_shape
    base = data.draw(layouts(shape))
    shadow(lambda x: sx.broadcast_to(x, target), lambda b: np.broadcast_to(b, target), base)


@settings(max_examples=80, deadline=None)
@given(data=st.data(), shapes_=hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, max_side=4))
def test_broadcast_arrays_shadow(data, shapes_):
    s1, s2 = shapes_.input_shapes
    b1 = data.draw(layouts(s1))
    other = sx.asarray(np.ones(s2, np.int64))
    shadow(lambda x: sx.broadcast_arrays(x, other)[:1], lambda b: tuple(np.broadcast_arrays(b, np.ones(s2)))[:1], b1)
    out = sx.broadcast_arrays(sx.asarray(b1), other)
    assert isinstance(out, tuple) and all(o.shape == shapes_.result_shape for o in out)
    assert sx.broadcast_arrays() == ()


@settings(max_examples=120, deadline=None)
@given(data=st.data(), shape=nonscalar_shapes)
def test_unstack_shadow(data, shape):
    base = data.draw(layouts(shape))
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    shadow(lambda x: sx.unstack(x, axis=axis), lambda b: tuple(np.moveaxis(b, axis, 0)), base)


@settings(max_examples=120, deadline=None)
@given(data=st.data(), shape=shapes)
def test_reshape_shadow_and_copies(data, shape):
    base = data.draw(layouts(shape))
    size = math.prod(shape)
    factors = [d for d in range(1, size + 1) if size % d == 0] or [1]
    first = data.draw(st.sampled_from(factors))
    target = data.draw(st.sampled_from([(size,), (first, -1), (-1, first, 1), (1, size) if size else (0, 5)]))
    if size == 0 and -1 in target:
        target = (0,)
    want = np.reshape(base, target)
    if np.shares_memory(want, base) or base.size == 0:
        shadow(lambda x: sx.reshape(x, target), lambda b: np.reshape(b, target), base)
        shadow(lambda x: sx.reshape(x, target, copy=False), lambda b: np.reshape(b, target), base)
    else:
        with pytest.raises(ValueError):
            sx.reshape(sx.asarray(base), target, copy=False)
    copied = sx.reshape(sx.asarray(base), target, copy=True)
    np.testing.assert_array_equal(np.asarray(copied), want)
    assert not np.shares_memory(window(copied), base)
    y = sx.reshape(sx.asarray(base), target)
    np.testing.assert_array_equal(np.asarray(y), want)


def test_view_function_errors():
    x = sx.asarray(np.arange(6).reshape(2, 3))
    with pytest.raises(ValueError):
        sx.permute_dims(x, (0,))
    with pytest.raises(ValueError):
        sx.permute_dims(x, (0, 0))
    with pytest.raises(IndexError):
        sx.permute_dims(x, (0, 2))
    with pytest.raises(IndexError):
        sx.expand_dims(x, axis=3)
    with pytest.raises(IndexError):
        sx.expand_dims(x, axis=-4)
    with pytest.raises((IndexError, ValueError)):
        sx.expand_dims(x, axis=(0, -4))
    with pytest.raises(ValueError):
        sx.squeeze(x, 0)
    with pytest.raises(IndexError):
        sx.flip(x, axis=2)
    with pytest.raises(ValueError):
        sx.broadcast_to(x, (3, 3))
    with pytest.raises(ValueError):
        sx.broadcast_to(x, (3,))
    with pytest.raises(ValueError):
        sx.broadcast_shapes((2, 3), (3, 2))
    with pytest.raises(ValueError):
        sx.moveaxis(x, (0, 1), (0,))
    with pytest.raises(ValueError):
        sx.unstack(sx.asarray(1))
    with pytest.raises(ValueError):
        sx.reshape(x, (4, -1))
    with pytest.raises(ValueError):
        sx.reshape(x, (-1, -1))
    with pytest.raises(TypeError):
        sx.flip(np.arange(3))


# --- copying functions ------------------------------------------------------------------------------


def arange_of(shape, dtype, start=0):
    return np.asarray(np.arange(start, start + math.prod(shape)).reshape(shape) % 11).astype(dtype.np)


def assert_fresh(out, *inputs):
    for x in inputs:
        assert not np.shares_memory(window(out), window(x))


@settings(max_examples=100, deadline=None)
@given(data=st.data(), shape=nonscalar_shapes, dtypes=st.lists(st.sampled_from(DTYPES), min_size=1, max_size=3))
def test_concat_matches_numpy(data, shape, dtypes):
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    lengths = data.draw(st.lists(st.integers(0, 3), min_size=len(dtypes), max_size=len(dtypes)))
    parts = []
    for i, (dtype, n) in enumerate(zip(dtypes, lengths)):
        s = list(shape)
        s[axis] = n
        parts.append(arange_of(tuple(s), dtype, start=i * 5))
    xs = [sx.asarray(p) for p in parts]
    out = sx.concat(xs, axis=axis)
    want = np.concatenate(parts, axis=axis)
    assert out.dtype is sx.result_type(*xs)
    np.testing.assert_array_equal(np.asarray(out), want.astype(out.dtype.np))
    assert_fresh(out, *xs)
    flat = sx.concat(tuple(xs), axis=None)
    np.testing.assert_array_equal(np.asarray(flat), np.concatenate([p.reshape(-1) for p in parts]).astype(out.dtype.np))


def test_concat_single_array_copies_and_errors():
    x = sx.asarray([[1, 2], [3, 4]])
    out = sx.concat([x])
    assert_fresh(out, x)
    np.testing.assert_array_equal(np.asarray(out), [[1, 2], [3, 4]])
    np.testing.assert_array_equal(np.asarray(sx.concat([sx.asarray(1), sx.asarray([2, 3])], axis=None)), [1, 2, 3])
    with pytest.raises(ValueError):
        sx.concat([x, sx.ones((3, 3))], axis=0)
    with pytest.raises(ValueError):
        sx.concat([x, sx.ones(2)])
    with pytest.raises(ValueError):
        sx.concat([sx.asarray(1), sx.asarray(2)])
    with pytest.raises(IndexError):
        sx.concat([x, x], axis=2)
    with pytest.raises(ValueError):
        sx.concat([])
    with pytest.raises(TypeError):
        sx.concat(x)
    with pytest.raises(TypeError):
        sx.concat([x, np.ones((2, 2))])


@settings(max_examples=100, deadline=None)
@given(data=st.data(), shape=shapes, dtypes=st.lists(st.sampled_from(DTYPES), min_size=1, max_size=3))
def test_stack_matches_numpy(data, shape, dtypes):
    axis = data.draw(st.integers(-len(shape) - 1, len(shape)))
    parts = [arange_of(shape, d, start=i) for i, d in enumerate(dtypes)]
    xs = [sx.asarray(p) for p in parts]
    out = sx.stack(xs, axis=axis)
    assert out.dtype is sx.result_type(*xs)
    np.testing.assert_array_equal(np.asarray(out), np.stack(parts, axis=axis).astype(out.dtype.np))
    assert_fresh(out, *xs)


def test_stack_errors():
    with pytest.raises(ValueError):
        sx.stack([sx.ones(2), sx.ones(3)])
    with pytest.raises(IndexError):
        sx.stack([sx.ones(2)], axis=2)
    with pytest.raises(ValueError):
        sx.stack(())


@settings(max_examples=120, deadline=None)
@given(data=st.data(), shape=nonscalar_shapes, dtype=st.sampled_from(DTYPES))
def test_repeat_matches_numpy(data, shape, dtype):
    a = arange_of(shape, dtype)
    base = data.draw(st.sampled_from([a, a[..., ::-1]]))
    x = sx.asarray(base)
    axis = data.draw(st.none() | st.integers(-len(shape), len(shape) - 1))
    n = base.size if axis is None else shape[axis]
    kind = data.draw(st.sampled_from(["int", "one", "each"]))
    if kind == "int":
        reps = data.draw(st.integers(0, 3))
        out = sx.repeat(x, reps, axis=axis)
        want = np.repeat(base, reps, axis=axis)
    else:
        counts = np.asarray(data.draw(st.lists(st.integers(0, 3), min_size=1 if kind == "one" else n,
                                               max_size=1 if kind == "one" else n)), dtype=np.int64)
        rdtype = data.draw(st.sampled_from([sx.int8, sx.int32, sx.int64, sx.uint8, sx.uint64]))
        out = sx.repeat(x, sx.asarray(counts.astype(rdtype.np)), axis=axis)
        want = np.repeat(base, counts, axis=axis)
    assert out.dtype is dtype and out.shape == want.shape
    np.testing.assert_array_equal(np.asarray(out), want)
    assert_fresh(out, x)


def test_repeat_scalar_input_and_errors():
    np.testing.assert_array_equal(np.asarray(sx.repeat(sx.asarray(5), 3)), [5, 5, 5])
    x = sx.asarray([[1, 2], [3, 4]])
    with pytest.raises(ValueError):
        sx.repeat(x, -1)
    with pytest.raises(ValueError):
        sx.repeat(x, sx.asarray([1, -1]), axis=0)
    with pytest.raises(ValueError):
        sx.repeat(x, sx.asarray([1, 2, 3]), axis=0)
    with pytest.raises(TypeError):
        sx.repeat(x, sx.asarray([1.0, 2.0]), axis=0)
    with pytest.raises(TypeError):
        sx.repeat(x, 1.5)
    with pytest.raises(IndexError):
        sx.repeat(x, 2, axis=2)
    with pytest.raises(ValueError):
        sx.repeat(sx.asarray(1), 2, axis=0)


@settings(max_examples=120, deadline=None)
@given(data=st.data(), shape=shapes, dtype=st.sampled_from(DTYPES))
def test_roll_matches_numpy(data, shape, dtype):
    a = arange_of(shape, dtype)
    base = data.draw(st.sampled_from([a, a.T]))
    x = sx.asarray(base)
    n = base.ndim
    shift_st = st.integers(-10, 10)
    if n and data.draw(st.booleans()):
        axes = tuple(data.draw(st.lists(st.integers(-n, n - 1), min_size=1, max_size=n + 1)))
        shift = tuple(data.draw(st.lists(shift_st, min_size=len(axes), max_size=len(axes))))
        if data.draw(st.booleans()):
            shift = shift[0]
        out, want = sx.roll(x, shift, axis=axes), np.roll(base, shift, axis=axes)
    else:
        axis = data.draw(st.none() | (st.integers(-n, n - 1) if n else st.none()))
        shift = data.draw(shift_st)
        out, want = sx.roll(x, shift, axis=axis), np.roll(base, shift, axis=axis)
    assert out.dtype is dtype and out.shape == want.shape
    np.testing.assert_array_equal(np.asarray(out), want)
    assert_fresh(out, x)


def test_roll_errors():
    x = sx.asarray([[1, 2], [3, 4]])
    with pytest.raises(ValueError):
        sx.roll(x, (1, 2), axis=0)
    with pytest.raises(ValueError):
        sx.roll(x, (1, 2))
    with pytest.raises(IndexError):
        sx.roll(x, 1, axis=2)
    with pytest.raises(TypeError):
        sx.roll(x, 1.5, axis=0)


@settings(max_examples=120, deadline=None)
@given(data=st.data(), shape=shapes, dtype=st.sampled_from(DTYPES))
def test_tile_matches_numpy(data, shape, dtype):
    a = arange_of(shape, dtype)
    base = data.draw(st.sampled_from([a, a[..., ::-1]])) if a.ndim else a
    reps = tuple(data.draw(st.lists(st.integers(0, 3), min_size=0, max_size=len(shape) + 2)))
    x = sx.asarray(base)
    out = sx.tile(x, reps)
    want = np.tile(base, reps)
    assert out.dtype is dtype and out.shape == want.shape
    np.testing.assert_array_equal(np.asarray(out), want)
    assert_fresh(out, x)


def test_tile_errors():
    with pytest.raises(TypeError):
        sx.tile(sx.ones(2), 2)
    with pytest.raises(ValueError):
        sx.tile(sx.ones(2), (-1,))


# --- take / take_along_axis ----------------------------------------------------------------------------


@settings(max_examples=120, deadline=None)
@given(data=st.data(), shape=hnp.array_shapes(min_dims=1, max_dims=4, min_side=1, max_side=4),
       dtype=st.sampled_from(DTYPES))
def test_take_matches_numpy(data, shape, dtype):
    a = arange_of(shape, dtype)
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    n = shape[axis]
    idx = np.asarray(data.draw(st.lists(st.integers(-n, n - 1), max_size=6)), dtype=np.int64)
    idtype = data.draw(st.sampled_from([sx.int8, sx.int16, sx.int32, sx.int64]))
    x = sx.asarray(a)
    out = sx.take(x, sx.asarray(idx.astype(idtype.np)), axis=axis)
    want = np.take(a, idx, axis=axis)
    assert out.dtype is dtype and out.shape == want.shape
    np.testing.assert_array_equal(np.asarray(out), want)
    assert_fresh(out, x)
    if len(shape) == 1:
        np.testing.assert_array_equal(np.asarray(sx.take(x, sx.asarray(idx))), want)


def test_take_errors():
    x = sx.asarray([[1, 2], [3, 4]])
    with pytest.raises(ValueError):
        sx.take(x, sx.asarray([0]))
    with pytest.raises(ValueError):
        sx.take(x, sx.asarray([[0]]), axis=0)
    with pytest.raises(TypeError):
        sx.take(x, sx.asarray([0.0]), axis=0)
    with pytest.raises(TypeError):
        sx.take(x, [0], axis=0)
    with pytest.raises(IndexError):
        sx.take(x, sx.asarray([0]), axis=2)
    with pytest.raises(IndexError):
        sx.take(x, sx.asarray([5]), axis=0)
    with pytest.raises(ValueError):
        sx.take(sx.asarray(1), sx.asarray([0]))


def test_take_of_0d_indices_is_refused_naming_the_fix():
    # The spec: indices "must be one-dimensional" (NumPy and JAX take a 0-D index; array-api-strict refuses).
    x = sx.asarray([[1, 2], [3, 4]])
    with pytest.raises(ValueError, match=r"got shape \(\); pass reshape\(indices, \(1,\)\)"):
        sx.take(x, sx.asarray(1), axis=0)
    with pytest.raises(ValueError, match=r"got shape \(1, 1\); index with it"):
        sx.take(x, sx.asarray([[0]]), axis=0)
    np.testing.assert_array_equal(np.asarray(sx.take(x, sx.reshape(sx.asarray(1), (1,)), axis=0)),
                                  np.take(np.asarray(x), [1], axis=0))


@settings(max_examples=120, deadline=None)
@given(data=st.data(), shape=hnp.array_shapes(min_dims=1, max_dims=4, min_side=1, max_side=4),
       dtype=st.sampled_from(DTYPES))
def test_take_along_axis_matches_numpy(data, shape, dtype):
    a = arange_of(shape, dtype)
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    n = shape[axis]
    new_len = data.draw(st.integers(0, 2 * n))
    idx_shape = list(shape)
    idx_shape[axis] = new_len
    # some other axes of the indices are 1 and broadcast against x
    for i in range(len(shape)):
        if i != axis % len(shape) and data.draw(st.booleans()):
            idx_shape[i] = 1
    idx = data.draw(hnp.arrays(np.int64, tuple(idx_shape), elements=st.integers(-n, n - 1)))
    x = sx.asarray(a)
    out = sx.take_along_axis(x, sx.asarray(idx), axis=axis)
    bshape = list(shape)
    bshape[axis] = new_len
    want = np.take_along_axis(a, np.broadcast_to(idx, bshape), axis=axis)
    assert out.dtype is dtype and out.shape == want.shape
    np.testing.assert_array_equal(np.asarray(out), want)


def test_take_along_axis_default_axis_and_errors():
    x = sx.asarray([[10, 30, 20], [60, 40, 50]])
    np.testing.assert_array_equal(np.asarray(sx.take_along_axis(x, sx.asarray([[2, 0], [-1, 1]]))),
                                  [[20, 10], [50, 40]])
    with pytest.raises(ValueError):
        sx.take_along_axis(x, sx.asarray([0, 1]))
    with pytest.raises(ValueError):
        sx.take_along_axis(x, sx.asarray([[0], [1], [1]]), axis=1)
    with pytest.raises(IndexError):
        sx.take_along_axis(x, sx.asarray([[0]]), axis=2)
    with pytest.raises(TypeError):
        sx.take_along_axis(x, sx.asarray([[0.5]]))


# --- lowering rules --------------------------------------------------------------------------------------


def test_shape_and_take_lowerings():
    pytest.importorskip("jax")
    a = sx.asarray(arange_of((2, 3), sx.int32))
    b = sx.asarray(arange_of((2, 2), sx.float32))
    c = sx.asarray(arange_of((2, 1), sx.uint64))
    check_primitive_lowering(shape_prims.concatenate, a, b, c, axis=1)
    check_primitive_lowering(shape_prims.concatenate, a, a, axis=0)
    check_primitive_lowering(shape_prims.stack, a, sx.asarray(arange_of((2, 3), sx.uint8)), axis=2)
    check_primitive_lowering(shape_prims.stack, b, axis=0)
    check_primitive_lowering(shape_prims.tile, a, repetitions=(2, 3))
    check_primitive_lowering(shape_prims.tile, sx.asarray(arange_of((1, 2, 3), sx.bool)), repetitions=(2, 1, 0))
    check_primitive_lowering(shape_prims.repeat, a, count=3, axis=1)
    check_primitive_lowering(shape_prims.repeat, a, count=0, axis=0)
    check_primitive_lowering(shape_prims.repeat, a, count=(1, 0, 2), axis=1)
    check_primitive_lowering(shape_prims.repeat, a, count=(3,), axis=0)
    x = sx.asarray(arange_of((3, 4, 5), sx.complex64))
    check_primitive_lowering(shape_prims.roll, x, shifts=(1, 3), axes=(0, 2))
    check_primitive_lowering(shape_prims.roll, x, shifts=(2,), axes=(1,))
    check_primitive_lowering(take_prims.take, x, sx.asarray([0, -1, 2, 1]), axis=1)
    check_primitive_lowering(take_prims.take, x, sx.asarray(np.asarray([4, 0], np.uint8)), axis=2)
    idx = sx.asarray(np.asarray([[[0, -1]], [[2, 1]], [[-3, 0]]]))
    check_primitive_lowering(take_prims.take_along_axis, x, idx, axis=2)
    check_primitive_lowering(take_prims.take_along_axis, x, sx.asarray(np.zeros((1, 4, 1), np.int16)), axis=0)


def test_repeat_by_array_lowering_with_a_known_output_shape():
    pytest.importorskip("jax")
    import jax.numpy as jnp

    x = sx.asarray(arange_of((2, 3), sx.float64))
    for counts, axis in (([1, 0, 2], 1), ([3], 0), ([2, 1], 0)):
        repeats = sx.asarray(counts)
        eager = shape_prims.repeat_by_array.bind(x, repeats, axis=axis)
        ctx = LoweringContext([aval_of(x), aval_of(repeats)], [aval_of(eager)])
        with x64():
            got = shape_prims.repeat_by_array.lower(ctx, jnp.asarray(np.asarray(x)), jnp.asarray(np.asarray(repeats)),
                                                   axis=axis)
            np.testing.assert_array_equal(np.asarray(got), np.asarray(eager))


# --- under jit -------------------------------------------------------------------------------------------


def test_copying_functions_under_jit_match_eager():
    pytest.importorskip("jax")
    a = sx.asarray(arange_of((2, 3), sx.float32))
    b = sx.asarray(arange_of((2, 3), sx.int16))

    def f(a, b):
        return (sx.concat([a, b], axis=1), sx.concat([a, b], axis=None), sx.stack([a, b], axis=-1),
                sx.repeat(a, 2, axis=0), sx.repeat(b, sx.asarray([1, 0, 3]), axis=1), sx.repeat(a, 3),
                sx.roll(a, (1, -1), axis=(0, 1)), sx.roll(b, 4), sx.tile(a, (2, 1, 2)),
                sx.take(a, sx.asarray([2, -1, 0]), axis=1), sx.take_along_axis(b, sx.asarray([[0], [2]]), axis=1),
                sx.broadcast_arrays(a, sx.asarray([1.0, 2.0, 3.0]))[1], sx.unstack(b, axis=1)[2],
                sx.moveaxis(sx.expand_dims(a, axis=(0, 3)), 0, -1), sx.flip(sx.squeeze(sx.reshape(b, (1, 6)), 0)))

    eager = f(a, b)
    jitted = sx.jit(f)(a, b)
    assert len(eager) == len(jitted)
    for e, j in zip(eager, jitted):
        assert e.shape == j.shape and e.dtype is j.dtype
        np.testing.assert_array_equal(np.asarray(e), np.asarray(j))


def test_repeat_with_traced_counts_names_the_problem():
    pytest.importorskip("jax")
    from stridex._transforms.tracing import DataDependentShapeError

    with pytest.raises(DataDependentShapeError, match="repeat"):
        sx.jit(lambda x, r: sx.repeat(x, r), graph_breaks=False)(sx.ones(3), sx.asarray([1, 2, 3]))
    # With graph breaks (the default), the result's length is taken and guarded.
    got = sx.jit(lambda x, r: sx.repeat(x, r))(sx.arange(3.0), sx.asarray([1, 2, 3]))
    assert np.asarray(got).tolist() == [0.0, 1.0, 1.0, 2.0, 2.0, 2.0]


def test_repeat_to_impossible_size_is_value_error():
    x = sx.asarray(np.arange(8, dtype=np.int8))
    for repeats in (2**60, 2**62):
        with pytest.raises(ValueError, match=f"shape \\({8 * repeats},\\)"):
            sx.repeat(x, repeats)
    with pytest.raises(ValueError, match="axis 1"):
        sx.repeat(sx.ones((2, 3)), 2**61, axis=1)
    with pytest.raises(ValueError, match="more than any array can hold"):
        sx.repeat(x, sx.asarray([2**60] * 8))
    assert sx.repeat(sx.ones((0, 3)), 5, axis=1).shape == (0, 15)  # large counts of nothing are fine
