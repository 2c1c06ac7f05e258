"""Shadow tests for the strided core: every view rule against NumPy on `np.arange` data, plus aliasing.

Each View is materialised from a flat arange through its (shape, strides, offset) and compared element
by element with NumPy's answer; writes through a view must show up in every array sharing its storage.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import stridex as sx
from stridex._api import array_indexing as _getitem
from stridex._core.array import window
from stridex._core.view import View

shapes = hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=5)


def materialise(view: View, flat: np.ndarray) -> np.ndarray:
    """The values `view` selects from `flat`, computed from its strides alone."""
    out = np.empty(view.shape, flat.dtype)
    for idx in np.ndindex(*view.shape):
        out[idx] = flat[view.offset + sum(i * s for i, s in zip(idx, view.strides))]
    return out


def fresh(shape):
    base = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)
    return base, sx.asarray(base.copy())


@settings(max_examples=150, deadline=None)
@given(data=st.data(), shape=shapes)
def test_basic_index_view_rule_matches_numpy(data, shape):
    key = data.draw(hnp.basic_indices(shape, allow_newaxis=True, allow_ellipsis=True))
    base = np.arange(int(np.prod(shape))).reshape(shape)
    expected = base[key]
    entries = _getitem._normalize_basic(key if isinstance(key, tuple) else (key,), shape)
    view = View.contiguous(shape).index(entries)
    np.testing.assert_array_equal(materialise(view, base.reshape(-1)), expected)


@settings(max_examples=150, deadline=None)
@given(data=st.data(), shape=shapes)
def test_getitem_is_a_view_and_writes_through(data, shape):
    key = data.draw(hnp.basic_indices(shape, allow_newaxis=True, allow_ellipsis=True))
    base, x = fresh(shape)
    for get in (lambda a, k: a[k], _getitem.getitem):  # the eager fast path and the View path
        base, x = fresh(shape)
        y = get(x, key)
        np.testing.assert_array_equal(np.asarray(y), base[key])
        assert y.shape == base[key].shape
        if y.size:
            y[...] = -1
            base[key] = -1
            np.testing.assert_array_equal(np.asarray(x), base)
            assert y._storage_view()[0] is x._storage_view()[0]


@settings(max_examples=100, deadline=None)
@given(data=st.data(), shape=shapes)
def test_fast_path_view_equals_view_rule(data, shape):
    key = data.draw(hnp.basic_indices(shape, allow_newaxis=True, allow_ellipsis=True))
    _, x = fresh(shape)
    fast, slow = x[key], _getitem.getitem(x, key)
    if fast.size:
        assert fast._storage_view()[1] == slow._storage_view()[1]


@settings(max_examples=100, deadline=None)
@given(data=st.data(), shape=shapes)
def test_setitem_basic_matches_numpy(data, shape):
    key = data.draw(hnp.basic_indices(shape, allow_newaxis=True, allow_ellipsis=True))
    base, x = fresh(shape)
    target_shape = base[key].shape
    value = np.arange(int(np.prod(target_shape))).reshape(target_shape) * 10 + 7
    base[key] = value
    x[key] = sx.asarray(value)
    np.testing.assert_array_equal(np.asarray(x), base)
    base[key] = 3
    _getitem.setitem(x, key, 3)  # the bound `assign` primitive, not the fast path
    np.testing.assert_array_equal(np.asarray(x), base)


def test_chain_of_views_writes_reach_every_view():
    base, x = fresh((4, 6))
    a = x[1:, ::-2]           # slice with negative step
    b = a.T                   # transpose of that
    c = b[1]                  # integer index of that
    c[...] = 100
    base[1:, ::-2].T[1] = 100
    np.testing.assert_array_equal(np.asarray(x), base)
    np.testing.assert_array_equal(np.asarray(a), base[1:, ::-2])
    x[2] += 1                  # in-place operator through a view
    base[2] += 1
    np.testing.assert_array_equal(np.asarray(b), base[1:, ::-2].T)


def test_inplace_operator_on_strided_view():
    base, x = fresh((10,))
    v = x[::2]
    v += 5
    base[::2] += 5
    np.testing.assert_array_equal(np.asarray(x), base)


def test_integer_array_and_mask_indexing_copy():
    base, x = fresh((4, 5))
    idx = np.array([3, 0, 3])
    y = x[sx.asarray(idx), 1:]
    np.testing.assert_array_equal(np.asarray(y), base[idx, 1:])
    y[...] = -5  # a copy: the base is unchanged
    np.testing.assert_array_equal(np.asarray(x), base)
    mask = base % 3 == 0
    np.testing.assert_array_equal(np.asarray(x[sx.asarray(mask)]), base[mask])
    x[sx.asarray(mask)] = 0
    base[mask] = 0
    np.testing.assert_array_equal(np.asarray(x), base)


def test_index_errors_name_the_problem():
    _, x = fresh((3, 4))
    with pytest.raises(IndexError, match="out of bounds"):
        x[3]
    with pytest.raises(IndexError, match="out of bounds"):
        _getitem.getitem(x, (0, -5))
    with pytest.raises(IndexError, match="too many indices"):
        _getitem.getitem(x, (0, 0, 0))
    with pytest.raises(IndexError):
        x[..., ...]
    with pytest.raises(IndexError):
        x[1.5]
    with pytest.raises(IndexError, match="boolean index"):
        x[sx.asarray(np.ones((2, 4), bool))]


def test_setitem_rejects_values_of_a_wider_kind():
    _, x = fresh((3,))
    with pytest.raises(TypeError, match="float"):
        x[0] = 1.5
    with pytest.raises(TypeError, match="float64"):
        x[0] = sx.asarray(np.ones((), np.float64))
    # Casts to another kind stay refused, naming the way out.
    for target, value in ((np.int32, np.float64), (np.float64, np.complex128), (np.uint8, np.int8),
                          (np.bool_, np.int8)):
        x = sx.asarray(np.zeros(3, target))
        with pytest.raises(TypeError, match=f"astype\\(value, {np.dtype(target).name}\\)"):
            x[1:] = sx.asarray(np.ones(2, value))


# (target, value) dtype pairs NumPy's "same_kind" casting allows and the spec's promotion does not.
_SAME_KIND_DOWNCASTS = [(np.complex64, np.complex128), (np.float32, np.float64), (np.int32, np.int64),
                        (np.uint8, np.uint16), (np.int16, np.uint16), (np.float32, np.int64),
                        (np.complex64, np.float64)]


@pytest.mark.parametrize("target, value", _SAME_KIND_DOWNCASTS)
def test_setitem_casts_array_values_of_the_same_kind_like_numpy(target, value):
    rng = np.random.default_rng(0)
    src = (rng.standard_normal((4, 3)) * 50).astype(value) if np.dtype(value).kind in "fc" else \
        rng.integers(0, 100, (4, 3)).astype(value)
    if np.dtype(value).kind == "c":
        src = src + 1j * src[::-1].real.astype(value)
    keys = [(Ellipsis,), (slice(1, 3),), (1,), (sx.asarray([0, 2]),), (sx.asarray([True, False, True, False]),)]
    for key in keys:
        np_key = tuple(np.asarray(k) if isinstance(k, sx.Array) else k for k in key)
        want = np.zeros((4, 3), target)
        want[np_key] = src[np_key]
        x = sx.asarray(np.zeros((4, 3), target))
        x[key] = sx.asarray(src[np_key])
        assert x.dtype.np == np.dtype(target)
        np.testing.assert_array_equal(np.asarray(x), want)
    pytest.importorskip("jax")

    def write(x, v):
        x[1:3] = v
        return x

    eager = write(sx.asarray(np.zeros((4, 3), target)), sx.asarray(src[1:3]))
    jitted = sx.jit(write)(sx.asarray(np.zeros((4, 3), target)), sx.asarray(src[1:3]))
    assert jitted.dtype is eager.dtype
    np.testing.assert_array_equal(np.asarray(jitted), np.asarray(eager))


def test_numpy_index_arrays_and_scalars_are_accepted():
    base = np.arange(30.0).reshape(5, 6)
    x = sx.asarray(base.copy())
    keys = [np.asarray([1, 3]), (np.asarray([1, 3]), Ellipsis), (slice(None), np.asarray([0, 5, 2], np.uint8)),
            np.asarray([True, False, True, True, False]), (np.asarray([4, 0]), np.asarray([1, 2])),
            (np.int64(2), np.asarray([1, 1])), np.bool_(True), (Ellipsis, np.asarray([-1])),
            np.asarray(base > 20)]
    for key in keys:
        got = x[key]
        want = base[key]
        assert got.shape == want.shape, key
        np.testing.assert_array_equal(np.asarray(got), want)
        y, y_np = sx.asarray(base.copy()), base.copy()
        y[key] = -1.0
        y_np[key] = -1.0
        np.testing.assert_array_equal(np.asarray(y), y_np)
    with pytest.raises(IndexError, match="float64"):
        x[np.asarray([1.0])]
    pytest.importorskip("jax")

    def f(x):  # (a boolean-mask gather has a data-dependent shape, which jit refuses whatever the mask)
        x[np.asarray([0, 2]), ...] = 0.0
        x[np.asarray([True, False, False, False, True])] = 7.0
        return x[np.asarray([2, 4])], x[np.int64(3), np.asarray([5, 0])]

    eager = f(sx.asarray(base.copy()))
    jitted = sx.jit(f)(sx.asarray(base.copy()))
    for e, j in zip(eager, jitted):
        np.testing.assert_array_equal(np.asarray(j), np.asarray(e))


@settings(max_examples=200, deadline=None)
@given(data=st.data(), shape=hnp.array_shapes(min_dims=0, max_dims=4, min_side=1, max_side=4))
def test_reshape_view_rule_matches_numpy(data, shape):
    base = np.arange(int(np.prod(shape))).reshape(shape)
    perm = data.draw(st.permutations(range(len(shape))))
    steps = tuple(data.draw(st.sampled_from([1, 1, 2, -1])) for _ in shape)
    view = View.contiguous(shape).permute(tuple(perm))
    arr = base.transpose(perm)
    entries = tuple(("slice", *slice(None, None, s).indices(n)) for s, n in zip(steps, view.shape))
    view, arr = view.index(entries), arr[tuple(slice(None, None, s) for s in steps)]
    n = arr.size
    target = data.draw(st.sampled_from([(n,), (1, n), (n, 1)] + [(d, n // d) for d in range(1, n + 1) if n % d == 0]))
    got = view.reshape(target)
    try:
        numpy_view = arr.reshape(target, copy=False)
    except ValueError:
        numpy_view = None
    assert (got is None) == (numpy_view is None)
    if got is not None:
        np.testing.assert_array_equal(materialise(got, base.reshape(-1)), arr.reshape(target))


@settings(max_examples=100, deadline=None)
@given(data=st.data(), shape=hnp.array_shapes(min_dims=2, max_dims=4, min_side=0, max_side=5))
def test_movement_view_rules_match_numpy(data, shape):
    base = np.arange(int(np.prod(shape))).reshape(shape)
    flat, v = base.reshape(-1), View.contiguous(shape)
    perm = tuple(data.draw(st.permutations(range(len(shape)))))
    np.testing.assert_array_equal(materialise(v.permute(perm), flat), base.transpose(perm))
    axes = tuple(sorted(data.draw(st.sets(st.integers(0, len(shape) - 1)))))
    np.testing.assert_array_equal(materialise(v.flip(axes), flat), np.flip(base, axes))
    offset = data.draw(st.integers(-6, 6))
    a1, a2 = data.draw(st.permutations(range(len(shape))))[:2]
    np.testing.assert_array_equal(materialise(v.diagonal(offset, a1, a2), flat),
                                  np.diagonal(base, offset, a1, a2))
    target = (2, *shape)
    np.testing.assert_array_equal(materialise(v.broadcast(target), flat), np.broadcast_to(base, target))


def test_storage_windows_are_64_byte_aligned_for_copies():
    x = sx.asarray(np.arange(5000.0), copy=True)
    assert window(x).ctypes.data % 64 == 0


def test_read_only_memory_is_copied_on_first_write():
    ro = np.arange(6.0)
    ro.flags.writeable = False
    x = sx.asarray(ro)
    y = x[1:]
    assert np.shares_memory(window(x), ro)  # shared, not copied, while only read
    y[0] = 50.0
    assert ro[1] == 1.0  # the producer's memory is untouched
    np.testing.assert_array_equal(np.asarray(x), [0, 50, 2, 3, 4, 5])  # every view sees the write


def test_numpy_memory_is_shared():
    base = np.arange(6.0)
    x = sx.asarray(base)
    x[2] = -1
    assert base[2] == -1
    with pytest.raises(ValueError):
        sx.asarray([1, 2], copy=False)


def test_writes_through_broadcast_views_are_refused_eagerly_and_under_jit():
    def f(x):
        b = sx.broadcast_to(x, (3, 2))
        b[0] = 5.0
        return b

    with pytest.raises(ValueError, match="broadcast view"):
        f(sx.asarray([1.0, 2.0]))
    with pytest.raises(ValueError, match="broadcast view"):
        sx.jit(f)(sx.asarray([1.0, 2.0]))
    e = sx.expand_dims(sx.asarray([1.0, 2.0]), axis=0)  # stride 0 on a size-1 axis is an ordinary view
    e[0, 1] = 3.0
    assert float(e[0, 1]) == 3.0


# Empty and out-of-range slices, positive and negative steps. `slice.indices` normalises an empty slice
# with a negative step to start (and stop) -1, which must not be read as "the last element".
_EDGE_SLICES = [slice(-5, None, -1), slice(10, None, -1), slice(None, -10, -1), slice(3, 1), slice(5, None),
                slice(None, None, -3), slice(-10, None, -2), slice(-1, -10, -1), slice(0, -10, -1),
                slice(-10, 10, 2), slice(2, 2, -1), slice(None, None, -1)]
_EDGE_LENGTHS = [0, 1, 4, 5]


def _edge_base(n):
    return np.arange(n, dtype=np.float64) + 1.0


def _read_edges(x):
    return tuple(x[k] * 2.0 for k in _EDGE_SLICES)


def _write_edges(x):
    """One copy of x per slice, with that slice set to -7 (a write through the copy's own view)."""
    outs = []
    for k in _EDGE_SLICES:
        y = x * 1.0
        y[k] = -7.0
        outs.append(y)
    return tuple(outs)


def _edge_loss(x):
    return sum(sx.sum(x[k] * x[k] * float(i + 1)) for i, k in enumerate(_EDGE_SLICES)) + sx.sum(x)


@pytest.mark.parametrize("n", _EDGE_LENGTHS)
def test_edge_slices_read_like_numpy_eagerly_under_jit_and_vmap(n):
    base = _edge_base(n)
    wants = [base[k] * 2.0 for k in _EDGE_SLICES]
    x = sx.asarray(base.copy())
    runs = {"eager": _read_edges(x), "basic_index": _read_edges_by_primitive(x)}
    if n:
        rows = sx.asarray(np.stack([base, -base]))
        runs["vmap"] = tuple(r[0] for r in sx.vmap(_read_edges)(rows))
    pytest.importorskip("jax")
    runs["jit"] = sx.jit(_read_edges)(x)
    for name, got in runs.items():
        for k, g, w in zip(_EDGE_SLICES, got, wants, strict=True):
            assert g.shape == w.shape, (name, n, k)
            np.testing.assert_array_equal(np.asarray(g), w, err_msg=f"{name}: x[{k}] of length {n}")


def _read_edges_by_primitive(x):
    """The reads through the basic_index primitive itself (the eager fast path hands keys to NumPy)."""
    from stridex._lax import views

    return tuple(views.basic_index.bind(x, entries=_getitem._normalize_basic((k,), x.shape)) * 2.0
                 for k in _EDGE_SLICES)


def _write_edges_by_primitive(base):
    """The writes through the assign primitive: into read-only memory, which the eager fast path leaves alone."""
    outs = []
    for k in _EDGE_SLICES:
        ro = base.copy()
        ro.flags.writeable = False
        y = sx.asarray(ro)
        y[k] = -7.0
        outs.append(y)
    return tuple(outs)


@pytest.mark.parametrize("n", _EDGE_LENGTHS)
def test_edge_slice_writes_match_numpy_eagerly_and_under_jit(n):
    base = _edge_base(n)
    wants = []
    for k in _EDGE_SLICES:
        w = base * 1.0
        w[k] = -7.0
        wants.append(w)
    runs = {"eager": _write_edges(sx.asarray(base.copy())), "assign": _write_edges_by_primitive(base)}
    pytest.importorskip("jax")
    runs["jit"] = sx.jit(_write_edges)(sx.asarray(base.copy()))
    for name, got in runs.items():
        for k, g, w in zip(_EDGE_SLICES, got, wants, strict=True):
            np.testing.assert_array_equal(np.asarray(g), w, err_msg=f"{name}: x[{k}] = -7 on length {n}")


@pytest.mark.parametrize("n", _EDGE_LENGTHS)
def test_gradient_through_edge_slices_is_the_known_answer(n):
    base = _edge_base(n)
    want = np.ones(n)
    for i, k in enumerate(_EDGE_SLICES):
        np.add.at(want, np.arange(n)[k], 2.0 * (i + 1) * base[k])
    x = sx.asarray(base.copy())
    np.testing.assert_allclose(np.asarray(sx.grad(_edge_loss)(x)), want, rtol=1e-12)
    pytest.importorskip("jax")
    np.testing.assert_allclose(np.asarray(sx.jit(sx.grad(_edge_loss))(x)), want, rtol=1e-12)


def test_empty_negative_step_slice_writes_nothing_under_jit():
    def f(a):
        a[-5::-1] = 7.0
        a[-5::-2] = 8.0
        return a

    assert np.asarray(f(sx.asarray(np.arange(4.0)))).tolist() == [0.0, 1.0, 2.0, 3.0]
    pytest.importorskip("jax")
    x = sx.asarray(np.arange(4.0))
    assert np.asarray(sx.jit(f)(x)).tolist() == [0.0, 1.0, 2.0, 3.0]
    assert np.asarray(x).tolist() == [0.0, 1.0, 2.0, 3.0]


def test_empty_negative_step_slice_reads_nothing_under_jit_and_grad():
    x = sx.asarray(np.arange(4.0))
    pytest.importorskip("jax")
    assert sx.jit(lambda a: a[-5::-1] + 1.0)(x).shape == (0,)
    grad = sx.grad(lambda a: sx.sum(a[-5::-1]) + sx.sum(a))
    assert np.asarray(grad(x)).tolist() == [1.0] * 4
    assert np.asarray(sx.jit(grad)(x)).tolist() == [1.0] * 4
