"""What stridex.numpy does where jax.numpy has nothing to compare with or differs by design: views and writes,
`inplace` writes, functions of functions against NumPy, order-free results (`partition`, `roots`), I/O, and the
errors (class and message) for bad arguments."""

from __future__ import annotations

import io

import numpy as np
import pytest

import stridex as sx
import stridex.numpy as snp

RNG = np.random.default_rng(11)
X = RNG.standard_normal((4, 3))


def test_views_write_through_as_in_numpy():
    base = snp.arange(12.0)
    for view in (snp.reshape(base, (3, 4)), snp.ravel(base), snp.split(base, 3)[1], snp.flip(base),
                 snp.expand_dims(base, 0), snp.squeeze(snp.reshape(base, (1, 12)))):
        before = float(base[5])
        flat = snp.reshape(view, (-1,))
        index = int(np.flatnonzero(np.asarray(flat) == before)[0])
        flat[index] = -1.0
        assert float(base[5]) == -1.0, view
        base[5] = before
    m = snp.reshape(snp.arange(9.0), (3, 3))
    snp.diagonal(m)[1] = 40.0  # (a view, as NumPy's, but writable: stridex arrays are)
    assert float(m[1, 1]) == 40.0
    t = snp.transpose(m)
    t[0, 2] = -5.0
    assert float(m[2, 0]) == -5.0
    c = snp.array(m)
    c[0, 0] = 99.0
    assert float(m[0, 0]) == 0.0  # array() copies


def test_asarray_shares_numpy_memory_and_array_copies():
    a = np.zeros(3)
    shared, copied = snp.asarray(a), snp.array(a)
    shared[0] = 1.0
    copied[1] = 1.0
    assert a.tolist() == [1.0, 0.0, 0.0]


@pytest.mark.parametrize("name,args", [
    ("put", (np.array([0, 2]), np.array([5.0, 7.0]))),
    ("place", (np.array([True, False, False, True]), np.array([-1.0]))),
    ("fill_diagonal", (3.0,)),
])
def test_inplace_writes_the_array_and_returns_none(name, args):
    base = np.zeros((4,)) if name != "fill_diagonal" else np.zeros((2, 2))
    x = snp.asarray(base.copy())
    copy = getattr(snp, name)(x, *args, inplace=False)
    assert float(snp.sum(snp.abs(x))) == 0.0 and float(snp.sum(snp.abs(copy))) > 0
    assert getattr(snp, name)(x, *args) is None
    np.testing.assert_array_equal(np.asarray(x), np.asarray(copy))
    if name == "put":
        expected = base.copy()
        np.put(expected, *args)
        np.testing.assert_array_equal(np.asarray(x), expected)


def test_writes_into_a_view_reach_the_base_and_work_under_jit():
    base = snp.zeros((3, 4))
    snp.put_along_axis(base[:, 1:], snp.asarray([[0], [2], [1]]), 7.0, axis=1)
    expected = np.zeros((3, 4))
    expected[[0, 1, 2], [1, 3, 2]] = 7.0
    np.testing.assert_array_equal(np.asarray(base), expected)

    @sx.jit
    def fill(a):
        snp.fill_diagonal(a, 1.0)
        return snp.sum(a)

    y = snp.zeros((3, 3))
    assert float(fill(y)) == 3.0 and np.asarray(y).tolist() == np.eye(3).tolist()


def test_fill_diagonal_wrap_as_numpy():
    expected = np.zeros((7, 3))
    np.fill_diagonal(expected, 5.0, wrap=True)
    np.testing.assert_array_equal(np.asarray(snp.fill_diagonal(snp.zeros((7, 3)), 5.0, wrap=True, inplace=False)),
                                  expected)


def test_empty_has_the_shape_and_dtype():
    for out in (snp.empty((2, 3), "int8"), snp.empty_like(snp.zeros((2, 3), dtype=snp.int8))):
        assert out.shape == (2, 3) and out.dtype == snp.int8


def test_partition_places_the_kth_element():
    x = RNG.standard_normal((5, 9))
    for kth in (0, 4, -1):
        got = np.asarray(snp.partition(x, kth, axis=1))
        k = kth % 9
        want = np.sort(x, axis=1)[:, k]
        np.testing.assert_array_equal(got[:, k], want)
        assert (got[:, :k] <= want[:, None]).all() and (got[:, k + 1:] >= want[:, None]).all()
        order = np.asarray(snp.argpartition(x, kth, axis=1))
        np.testing.assert_array_equal(np.take_along_axis(x, order, axis=1)[:, k], want)
    with pytest.raises(ValueError, match="kth 9 is out of bounds"):
        snp.partition(x, 9, axis=1)


def test_roots_and_poly_against_numpy():
    for p in ([1.0, -3.0, 2.0], [0.0, 0.0, 2.0, -8.0, 0.0], [1.0, 0.0, 1.0], [3.0]):
        got = np.sort_complex(np.asarray(snp.roots(np.array(p))))
        np.testing.assert_allclose(got, np.sort_complex(np.roots(p).astype(complex)), atol=1e-12)
    got = np.asarray(snp.roots(np.array([1.0, -3.0, 2.0]), strip_zeros=False))
    np.testing.assert_allclose(np.sort_complex(got), [1, 2], atol=1e-12)
    np.testing.assert_allclose(np.asarray(snp.poly(np.array([1.0, 2.0]))), np.poly([1.0, 2.0]))


def test_functions_of_functions_against_numpy():
    np.testing.assert_allclose(np.asarray(snp.apply_over_axes(snp.sum, X, [0, 1])), np.apply_over_axes(np.sum, X,
                                                                                                        [0, 1]))
    np.testing.assert_allclose(np.asarray(snp.apply_along_axis(lambda v: v * 2.0, 0, X)), X * 2)
    np.testing.assert_array_equal(np.asarray(snp.fromfunction(lambda i, j: i * 10 + j, (2, 3), dtype=int)),
                                  np.fromfunction(lambda i, j: i * 10 + j, (2, 3), dtype=int))
    x = np.linspace(-2, 2, 9)
    got = snp.piecewise(x, [x < 0, x > 1], [lambda v: -v, lambda v: v * 10, 0.5])
    np.testing.assert_array_equal(np.asarray(got), np.piecewise(x, [x < 0, x > 1], [lambda v: -v, lambda v: v * 10,
                                                                                     0.5]))
    rows, cols = snp.mask_indices(4, snp.triu, 1)
    want = np.mask_indices(4, np.triu, 1)
    np.testing.assert_array_equal(np.asarray(rows), want[0])
    np.testing.assert_array_equal(np.asarray(cols), want[1])


def test_printing_and_io():
    assert snp.array_repr(snp.asarray(X)) == np.array_repr(X)
    assert snp.array_str(snp.asarray(X), precision=2) == np.array_str(X, precision=2)
    with snp.printoptions(precision=2):
        assert repr(snp.asarray([1.23456])) == "Array([1.23])"
    buffer = io.BytesIO()
    snp.save(buffer, snp.asarray(X))
    buffer.seek(0)
    loaded = snp.load(buffer)
    assert isinstance(loaded, sx.Array)
    np.testing.assert_array_equal(np.asarray(loaded), X)


@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")  # (NumPy's r_["r", ...] makes a np.matrix)
def test_r_c_and_index_tricks_as_numpy():
    cases = [(snp.r_[1:4, [5, 6], 7], np.r_[1:4, [5, 6], 7]), (snp.r_[-1:1:5j], np.r_[-1:1:5j]),
             (snp.r_["0,2", [1, 2], [3, 4]], np.r_["0,2", [1, 2], [3, 4]]), (snp.r_["r", [1, 2]], np.r_["r", [1, 2]]),
             (snp.c_[np.array([1, 2]), np.array([3, 4])], np.c_[np.array([1, 2]), np.array([3, 4])]),
             (snp.mgrid[0:2, 0:3], np.mgrid[0:2, 0:3]), (snp.mgrid[0:1:3j], np.mgrid[0:1:3j])]
    for got, want in cases:
        np.testing.assert_allclose(np.asarray(got), want)
        assert got.shape == want.shape
    for got, want in zip(snp.ogrid[0:2, 0:3], np.ogrid[0:2, 0:3]):
        assert got.shape == want.shape
    assert snp.s_[1:2, ::3] == np.s_[1:2, ::3] and snp.index_exp[2] == (2,)


def test_pack_and_unpack_bits_as_numpy():
    bits = RNG.integers(0, 2, (3, 13)).astype(bool)
    for axis in (None, 1, 0):
        for order in ("big", "little"):
            packed = np.packbits(bits, axis=axis, bitorder=order)
            np.testing.assert_array_equal(np.asarray(snp.packbits(bits, axis=axis, bitorder=order)), packed)
            np.testing.assert_array_equal(np.asarray(snp.unpackbits(packed, axis=axis, bitorder=order)),
                                          np.unpackbits(packed, axis=axis, bitorder=order))
    packed = np.packbits(bits)
    for count in (5, 50, -3):
        np.testing.assert_array_equal(np.asarray(snp.unpackbits(packed, count=count)),
                                      np.unpackbits(packed, count=count))


@pytest.mark.parametrize("call,error,message", [
    (lambda: snp.sum([1, 2]), TypeError, "sum requires ndarray or scalar arguments, got list at position 0"),
    (lambda: snp.reshape(snp.zeros(6), (4, 2)), ValueError, r"\(4, 2\)"),
    (lambda: snp.split(snp.zeros(5), 2), ValueError, "equal division: an axis of length 5 into 2 sections"),
    (lambda: snp.concatenate([]), ValueError, "need at least one array"),
    (lambda: snp.stack([snp.zeros(2), snp.zeros(3)]), ValueError, r"same shape, got \[\(2,\), \(3,\)\]"),
    (lambda: snp.take(snp.zeros(3), snp.asarray([0]), mode="bad"), ValueError, "invalid mode 'bad'"),
    (lambda: snp.take(snp.zeros(3), snp.asarray([1.5])), TypeError, "indices must be integers, got float64"),
    (lambda: snp.pad(snp.zeros(3), 1, mode="nope"), ValueError, "unimplemented padding mode 'nope'"),
    (lambda: snp.pad(snp.zeros(3), 1, mode="edge", constant_values=1), ValueError, "unsupported keyword"),
    (lambda: snp.sum(snp.zeros((2, 3)), axis=2), ValueError, "axis 2 is out of bounds for an array of dimension 2"),
    (lambda: snp.max(snp.zeros((0, 3)), axis=0), ValueError, "zero-size array to reduction operation max"),
    (lambda: snp.max(snp.zeros(3), where=snp.ones(3, dtype=bool)), ValueError, "specify 'initial'"),
    (lambda: snp.quantile(snp.zeros(3), 1.5), ValueError, r"in the range \[0, 1\]"),
    (lambda: snp.quantile(snp.zeros(3), 0.5, method="weird"), ValueError, "method must be one of"),
    (lambda: snp.zeros(3, "float8_e4m3fn"), TypeError, "float8_e4m3fn' is not a dtype stridex has"),
    (lambda: snp.nonzero(snp.asarray(1.0)), ValueError, "0d arrays"),
    (lambda: snp.convolve(snp.zeros((2, 2)), snp.zeros(2)), ValueError, r"1-dimensional inputs, got shapes \(2, 2\)"),
    (lambda: snp.interp(snp.zeros(2), snp.zeros(3), snp.zeros(2)), ValueError, "same length, got 3 and 2"),
    (lambda: snp.linalg.norm(snp.zeros((2, 2, 2)), ord=1), ValueError, "improper number of dimensions"),
    (lambda: snp.histogram(snp.zeros(3), bins="auto"), NotImplementedError, "string values"),
    (lambda: snp.sum(snp.zeros(3), out=snp.zeros(())), NotImplementedError, "The 'out' argument to sum"),
    (lambda: snp.vectorize(lambda a: a, excluded={-1})(snp.zeros(2)), ValueError, "negative"),
    (lambda: snp.arctan2(snp.ones(2, dtype=snp.complex64), 1.0), TypeError, "complex64"),
    (lambda: snp.subtract(snp.ones(2, dtype=bool), True), TypeError, "bool"),
    (lambda: snp.gcd(snp.ones(2), snp.ones(2)), ValueError, "integer arguments, got float64"),
    (lambda: snp.bincount(snp.asarray([1.5])), TypeError, "integer array, got float64"),
    (lambda: snp.linalg.det(snp.zeros((2, 3))), ValueError, r"square matrices, got shape \(2, 3\)"),
])
def test_bad_arguments_name_what_is_wrong(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_jit_mixes_python_scalars_as_weak_values():
    f = sx.jit(lambda x, s: snp.clip(x, 0.0, s) + snp.power(x, 2))
    x = snp.asarray(X, dtype=snp.float32)
    out = f(x, 0.5)
    assert out.dtype == snp.float32
    np.testing.assert_allclose(np.asarray(out), np.clip(X.astype(np.float32), 0, 0.5) + X.astype(np.float32) ** 2,
                               rtol=1e-6)
    assert f(x, 0.7).dtype == snp.float32 and f.stats["traces"] == 1
