"""matmul / tensordot / vecdot / matrix_transpose and the `linalg` extension, against NumPy."""

from __future__ import annotations

import zlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import stridex as sx
from stridex._core.storage import ALIGNED_OUTPUT_ELEMENTS
from stridex._lax import linalg as P

RNG = np.random.default_rng(1234)


@pytest.fixture(autouse=True)
def _seeded_per_test(request):
    """Each test draws from its own seed (its id), whatever ran before it in this process: the data, and so
    the conditioning of random matrices against float32 tolerances, do not depend on test order."""
    global RNG
    RNG = np.random.default_rng(zlib.crc32(request.node.nodeid.encode()))
FLOATS = [np.float32, np.float64, np.complex64, np.complex128]


def rand(shape, dtype=np.float64):
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return RNG.integers(max(info.min, -20), min(info.max, 20), size=shape, endpoint=True).astype(dtype)
    a = RNG.standard_normal(shape)
    if dtype.kind == "c":
        a = a + 1j * RNG.standard_normal(shape)
    return a.astype(dtype)


def tol(dtype):
    return 2e-4 if np.dtype(dtype) in (np.float32, np.complex64) else 1e-10


def check(got, want, rtol=None, atol=None):
    """`got` (stridex) equals `want` (NumPy) in dtype, shape and value."""
    want = np.asarray(want)
    assert isinstance(got, sx.Array)
    g = np.asarray(got)
    assert g.dtype == want.dtype, (g.dtype, want.dtype)
    assert g.shape == want.shape, (g.shape, want.shape)
    rtol = tol(want.dtype) if rtol is None else rtol
    np.testing.assert_allclose(g, want, rtol=rtol, atol=rtol if atol is None else atol)


# --- matmul ---------------------------------------------------------------------------------------------

MATMUL_SHAPES = [
    ((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)), ((5, 2, 3), (3, 4)), ((2, 3), (5, 3, 4)),
    ((3,), (5, 3, 4)), ((5, 2, 3), (3,)), ((5, 1, 2, 3), (4, 3, 2)), ((1, 2, 3), (6, 1, 3, 4)), ((0, 2, 3), (3, 4)),
    ((2, 0), (0, 4)), ((4, 2, 3), (4, 3, 0)),
]


@pytest.mark.parametrize("s1,s2", MATMUL_SHAPES)
def test_matmul_shapes(s1, s2):
    a, b = rand(s1), rand(s2)
    check(sx.matmul(sx.asarray(a), sx.asarray(b)), a @ b)
    check(sx.asarray(a) @ sx.asarray(b), a @ b)


@pytest.mark.parametrize("d1,d2", [(np.int8, np.int8), (np.int8, np.uint8), (np.int16, np.int64), (np.uint8, np.uint64),
                                   (np.int32, np.float32), (np.float32, np.float64), (np.float32, np.complex64),
                                   (np.complex64, np.float64), (np.int64, np.uint64)])
def test_matmul_promotion(d1, d2):
    a, b = rand((2, 3, 4), d1), rand((4, 2), d2)
    out = sx.matmul(sx.asarray(a), sx.asarray(b))
    assert out.dtype == sx.asarray(np.empty(0, np.result_type(d1, d2))).dtype
    check(out, np.matmul(a.astype(np.result_type(d1, d2)), b.astype(np.result_type(d1, d2))))


def test_matmul_integer_wraps_like_numpy():
    a = np.full((2, 40), 100, np.int8)
    check(sx.matmul(sx.asarray(a), sx.asarray(a.T.copy())), a @ a.T)


def test_matmul_strided_and_broadcast_views():
    base = rand((6, 8))
    a = sx.asarray(base)[::2, 1::2]  # a strided view
    b = sx.matrix_transpose(sx.asarray(base))[:4, ::-2]
    check(sx.matmul(a, b), np.asarray(a) @ np.asarray(b))


def test_matmul_errors():
    a = sx.asarray(rand((2, 3)))
    with pytest.raises(ValueError, match=r"\(2, 3\)"):
        sx.matmul(a, a)
    with pytest.raises(ValueError):
        sx.matmul(sx.asarray(1.0), a)
    with pytest.raises(ValueError):
        sx.matmul(sx.asarray(rand((3,))), sx.asarray(rand((4,))))
    with pytest.raises(ValueError):
        sx.matmul(sx.asarray(rand((2, 2, 3))), sx.asarray(rand((3, 3, 4))))  # batch 2 vs 3
    with pytest.raises(TypeError):
        sx.matmul(sx.asarray(np.ones((2, 2), bool)), sx.asarray(np.ones((2, 2), bool)))
    with pytest.raises(TypeError):
        sx.matmul(a, np.ones((3, 2)))
    assert a.__matmul__(3) is NotImplemented


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_matmul_hypothesis(data):
    batch = data.draw(st.lists(st.integers(1, 3), max_size=2))
    m, k, n = (data.draw(st.integers(0, 4)) for _ in range(3))
    b1 = [data.draw(st.sampled_from([1, s])) for s in batch]
    s1 = tuple(data.draw(st.sampled_from([b1, b1[1:], []]))) + (m, k)
    s2 = tuple(batch) + (k, n)
    dtype = data.draw(st.sampled_from([np.int32, np.float64, np.complex128]))
    a, b = rand(s1, dtype), rand(s2, dtype)
    check(sx.matmul(sx.asarray(a), sx.asarray(b)), a @ b)


_ALIGNED = ALIGNED_OUTPUT_ELEMENTS  # at and above this many elements, eager results take the aligned path
_ONE_D_PRODUCTS = [
    ("matmul", lambda xp, a, b: xp.matmul(a, b)), ("operator", lambda xp, a, b: a @ b),
    ("vecdot", lambda xp, a, b: xp.vecdot(a, b)), ("linalg.vecdot", lambda xp, a, b: xp.linalg.vecdot(a, b)),
    ("linalg.matmul", lambda xp, a, b: xp.linalg.matmul(a, b)),
    ("tensordot", lambda xp, a, b: xp.tensordot(a, b, axes=1)),
]


@pytest.mark.parametrize("n", [_ALIGNED - 1, _ALIGNED, _ALIGNED + 1])
@pytest.mark.parametrize("name,product", _ONE_D_PRODUCTS, ids=[n for n, _ in _ONE_D_PRODUCTS])
def test_matmul_1d_at_aligned_size_is_0d(name, product, n):
    a, b = rand((n,)), rand((n,))
    check(product(sx, sx.asarray(a), sx.asarray(b)), product(np, a, b))


@pytest.mark.parametrize("s1,s2", [((3,), (_ALIGNED // 2, 3, 2)), ((_ALIGNED, 3), (3,)), ((3,), (3, _ALIGNED)),
                                   ((_ALIGNED // 4, 2, 3), (3, 2))])
def test_matmul_with_a_1d_operand_at_aligned_size_keeps_numpy_shape(s1, s2):
    a, b = rand(s1), rand(s2)
    check(sx.matmul(sx.asarray(a), sx.asarray(b)), a @ b)


def test_matrix_transpose_is_a_view():
    a = sx.asarray(rand((2, 3, 4)))
    t = sx.matrix_transpose(a)
    check(t, np.swapaxes(np.asarray(a), -1, -2))
    assert np.shares_memory(np.asarray(t), np.asarray(a))
    with pytest.raises(ValueError):
        sx.matrix_transpose(sx.asarray([1.0]))


# --- tensordot and vecdot -----------------------------------------------------------------------------------


@pytest.mark.parametrize("s1,s2,axes", [
    ((2, 3, 4), (3, 4, 5), 2), ((2, 3), (3, 4), 1), ((2, 3), (4, 5), 0), ((3, 4), (3, 4), 2),
    ((2, 3, 4), (4, 2, 3), ((0, 1), (1, 2))), ((2, 3, 4), (4, 2, 3), ([-3, -1], [1, 0])), ((2, 0, 4), (4, 0), ((1,), (1,))),
    ((), (2, 3), 0), ((5,), (5,), ((0,), (0,))),
])
def test_tensordot(s1, s2, axes):
    a, b = rand(s1), rand(s2)
    check(sx.tensordot(sx.asarray(a), sx.asarray(b), axes=axes), np.tensordot(a, b, axes=axes))
    check(sx.linalg.tensordot(sx.asarray(a), sx.asarray(b), axes=axes), np.tensordot(a, b, axes=axes))


def test_tensordot_integers_and_errors():
    a, b = rand((2, 3), np.int16), rand((3, 2), np.uint8)
    check(sx.tensordot(sx.asarray(a), sx.asarray(b), axes=1), np.tensordot(a, b, axes=1))
    x = sx.asarray(rand((2, 3)))
    with pytest.raises(ValueError, match="differ in size"):
        sx.tensordot(x, x, axes=1)
    with pytest.raises(ValueError):
        sx.tensordot(x, sx.asarray(rand((3, 1))), axes=((1,), (1,)))  # a contracted axis does not broadcast
    with pytest.raises(ValueError):
        sx.tensordot(x, x, axes=-1)
    with pytest.raises(ValueError):
        sx.tensordot(x, x, axes=3)
    with pytest.raises(IndexError):
        sx.tensordot(x, x, axes=((2,), (0,)))
    with pytest.raises(ValueError):
        sx.tensordot(x, x, axes=((0, 1), (0,)))


@pytest.mark.parametrize("s1,s2,axis", [
    ((3,), (3,), -1), ((2, 3), (3,), -1), ((3,), (4, 3), -1), ((2, 1, 3), (4, 3), -1), ((3, 2), (5, 3, 2), -2),
    ((4, 2, 3), (4, 2, 3), -3), ((2, 0), (1, 0), -1), ((2, 3), (2, 3), 1),
])
@pytest.mark.parametrize("dtype", [np.int64, np.float32, np.complex128])
def test_vecdot(s1, s2, axis, dtype):
    a, b = rand(s1, dtype), rand(s2, dtype)
    want = np.vecdot(a, b, axis=axis)
    check(sx.vecdot(sx.asarray(a), sx.asarray(b), axis=axis), want)
    check(sx.linalg.vecdot(sx.asarray(a), sx.asarray(b), axis=axis), want)


def test_vecdot_conjugates_x1():
    x1, x2 = sx.asarray([1j, 2j, 3j]), sx.asarray([1, 2j, 3])
    assert complex(sx.vecdot(x1, x2)) == 4 - 10j


def test_vecdot_errors():
    with pytest.raises(ValueError, match="size"):
        sx.vecdot(sx.asarray(rand((2, 3))), sx.asarray(rand((2, 4))))
    with pytest.raises(IndexError):
        sx.vecdot(sx.asarray(rand((2, 3))), sx.asarray(rand((3,))), axis=-2)
    with pytest.raises(ValueError):
        sx.vecdot(sx.asarray(rand((2, 3))), sx.asarray(rand((3,))), axis=0)
    with pytest.raises(ValueError):
        sx.vecdot(sx.asarray(rand((2, 3))), sx.asarray(rand((3, 3))))  # non-contracted axes 2 vs 3


# --- decompositions -------------------------------------------------------------------------------------------


def spd(shape, dtype):
    a = rand(shape, dtype)
    return (a @ np.conj(np.swapaxes(a, -1, -2)) + shape[-1] * np.eye(shape[-1])).astype(dtype)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky(dtype, upper):
    a = spd((2, 4, 4), dtype)
    check(sx.linalg.cholesky(sx.asarray(a), upper=upper), np.linalg.cholesky(a, upper=upper))


@pytest.mark.parametrize("dtype", FLOATS)
def test_det_slogdet_inv(dtype):
    a = (rand((3, 4, 4), dtype) + 4 * np.eye(4)).astype(dtype)  # well conditioned
    check(sx.linalg.det(sx.asarray(a)), np.linalg.det(a))
    check(sx.linalg.inv(sx.asarray(a)), np.linalg.inv(a), rtol=tol(dtype) * 10)
    sign, logabsdet = sx.linalg.slogdet(sx.asarray(a))
    want = np.linalg.slogdet(a)
    check(sign, want.sign)
    check(logabsdet, want.logabsdet)
    result = sx.linalg.slogdet(sx.asarray(a))
    assert result.sign is result[0] and result.logabsdet is result[1]


def test_slogdet_singular_and_empty():
    sign, logabsdet = sx.linalg.slogdet(sx.asarray(np.zeros((2, 2))))
    assert float(sign) == 0 and float(logabsdet) == -np.inf
    check(sx.linalg.det(sx.asarray(np.zeros((3, 0, 0)))), np.ones(3))
    check(sx.linalg.inv(sx.asarray(np.zeros((0, 2, 2)))), np.zeros((0, 2, 2)))


@pytest.mark.parametrize("dtype", FLOATS)
def test_eigh(dtype):
    a = spd((2, 4, 4), dtype)
    w, v = sx.linalg.eigh(sx.asarray(a))
    want = np.linalg.eigh(a)
    check(w, want.eigenvalues)
    assert v.dtype == sx.asarray(a).dtype and v.shape == a.shape
    v = np.asarray(v)
    np.testing.assert_allclose(v @ (np.asarray(w)[..., None] * np.conj(np.swapaxes(v, -1, -2))), a,
                               rtol=tol(dtype) * 10, atol=tol(dtype) * 100)
    check(sx.linalg.eigvalsh(sx.asarray(a)), np.linalg.eigvalsh(a))
    assert sx.linalg.eigh(sx.asarray(a))._fields == ("eigenvalues", "eigenvectors")


@pytest.mark.parametrize("dtype", FLOATS)
def test_eig(dtype):
    a = rand((2, 4, 4), dtype)
    w, v = sx.linalg.eig(sx.asarray(a))
    complex_dtype = np.result_type(dtype, np.complex64)
    assert np.asarray(w).dtype == complex_dtype and np.asarray(v).dtype == complex_dtype
    w, v = np.asarray(w), np.asarray(v)
    np.testing.assert_allclose(a @ v, v * w[..., None, :], rtol=tol(dtype) * 10, atol=tol(dtype) * 100)
    check(sx.linalg.eigvals(sx.asarray(a)), np.linalg.eigvals(a).astype(complex_dtype))
    # Real eigenvalues still come back complex (NumPy would return a real array here).
    diag = np.diag([1.0, 2.0]).astype(dtype)
    assert sx.linalg.eig(sx.asarray(diag)).eigenvalues.dtype == sx.asarray(np.empty(0, complex_dtype)).dtype
    assert sx.linalg.eigvals(sx.asarray(diag)).dtype == sx.asarray(np.empty(0, complex_dtype)).dtype
    empty = sx.linalg.eig(sx.asarray(np.zeros((0, 3, 3), dtype)))
    assert empty.eigenvalues.shape == (0, 3) and empty.eigenvectors.shape == (0, 3, 3)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(2, 4, 3), (3, 5), (2, 2)])
@pytest.mark.parametrize("full_matrices", [True, False])
def test_svd(dtype, shape, full_matrices):
    a = rand(shape, dtype)
    u, s, vh = sx.linalg.svd(sx.asarray(a), full_matrices=full_matrices)
    want = np.linalg.svd(a, full_matrices=full_matrices)
    check(s, want.S)
    assert u.shape == want.U.shape and vh.shape == want.Vh.shape
    assert np.asarray(u).dtype == dtype and np.asarray(vh).dtype == dtype
    k = min(shape[-2:])
    u, vh = np.asarray(u)[..., :k], np.asarray(vh)[..., :k, :]
    np.testing.assert_allclose(u @ (np.asarray(s)[..., None] * vh), a, rtol=tol(dtype) * 10, atol=tol(dtype) * 100)
    check(sx.linalg.svdvals(sx.asarray(a)), want.S)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(2, 4, 3), (3, 5), (0, 2)])
@pytest.mark.parametrize("mode", ["reduced", "complete"])
def test_qr(dtype, shape, mode):
    a = rand(shape, dtype)
    q, r = sx.linalg.qr(sx.asarray(a), mode=mode)
    want = np.linalg.qr(a, mode=mode)
    assert q.shape == want.Q.shape and r.shape == want.R.shape
    assert np.asarray(q).dtype == dtype and np.asarray(r).dtype == dtype
    np.testing.assert_array_equal(np.asarray(r), np.triu(np.asarray(r)))
    np.testing.assert_allclose(np.asarray(q) @ np.asarray(r), a, rtol=tol(dtype) * 10, atol=tol(dtype) * 100)
    with pytest.raises(ValueError):
        sx.linalg.qr(sx.asarray(a), mode="r")


@pytest.mark.parametrize("s1,s2", [
    ((3, 3), (3,)), ((2, 3, 3), (3,)), ((3, 3), (3, 2)), ((2, 3, 3), (3, 1)), ((2, 3, 3), (4, 1, 3, 2)),
    ((1, 3, 3), (5, 3, 2)), ((2, 3, 3), (2, 3, 3)),
])
def test_solve_broadcasting(s1, s2):
    a = rand(s1) + 3 * np.eye(s1[-1])
    b = rand(s2)
    got = sx.linalg.solve(sx.asarray(a), sx.asarray(b))
    if b.ndim == 1:
        want = np.linalg.solve(a, b)
        assert got.shape == s1[:-2] + s2
    else:
        want = np.linalg.solve(np.broadcast_to(a, np.broadcast_shapes(s1[:-2], s2[:-2]) + s1[-2:]), b)
    check(got, want, rtol=1e-9)


def test_solve_promotes_and_checks():
    a = (rand((3, 3)) + 3 * np.eye(3)).astype(np.float32)
    b = rand((3,), np.complex128)
    check(sx.linalg.solve(sx.asarray(a), sx.asarray(b)), np.linalg.solve(a, b))
    a64, b32 = a.astype(np.float64), rand((3, 2), np.float32)
    check(sx.linalg.solve(sx.asarray(a64), sx.asarray(b32)), np.linalg.solve(a64, b32.astype(np.float64)))
    check(sx.linalg.solve(sx.asarray(np.zeros((0, 0))), sx.asarray(np.zeros(0, np.float32))), np.zeros(0))
    with pytest.raises(ValueError):
        sx.linalg.solve(sx.asarray(a), sx.asarray(rand((4,))))
    with pytest.raises(ValueError):
        sx.linalg.solve(sx.asarray(rand((3, 4))), sx.asarray(rand((3,))))
    with pytest.raises(TypeError):
        sx.linalg.solve(sx.asarray(np.eye(3, dtype=np.int64)), sx.asarray(rand((3,))))


@pytest.mark.parametrize("name", ["cholesky", "det", "inv", "eigh", "eigvalsh", "eig", "eigvals", "slogdet",
                                  "matrix_power"])
def test_square_checks(name):
    f = getattr(sx.linalg, name)
    args = (2,) if name == "matrix_power" else ()
    with pytest.raises(ValueError, match=r"\(2, 3\)"):
        f(sx.asarray(rand((2, 3))), *args)
    with pytest.raises(ValueError):
        f(sx.asarray(rand((3,))), *args)
    with pytest.raises(TypeError):
        f(sx.asarray(np.eye(2, dtype=np.int32)), *args)


# --- views and composed functions -------------------------------------------------------------------------


@pytest.mark.parametrize("offset", [-5, -2, -1, 0, 1, 3, 7])
def test_diagonal_view(offset):
    a = sx.asarray(rand((2, 3, 4)))
    d = sx.linalg.diagonal(a, offset=offset)
    check(d, np.diagonal(np.asarray(a), offset=offset, axis1=-2, axis2=-1))
    if d.size:
        assert np.shares_memory(np.asarray(d), np.asarray(a))


@pytest.mark.parametrize("dtype,want_dtype", [(np.int8, np.int64), (np.uint16, np.uint64), (np.int64, np.int64),
                                              (np.float32, np.float32), (np.complex64, np.complex64)])
@pytest.mark.parametrize("offset", [0, 1, -2])
def test_trace(dtype, want_dtype, offset):
    a = rand((2, 3, 4), dtype)
    check(sx.linalg.trace(sx.asarray(a), offset=offset), np.trace(a, offset=offset, axis1=-2, axis2=-1, dtype=want_dtype))
    wide = np.complex128 if a.dtype.kind == "c" else np.float64
    check(sx.linalg.trace(sx.asarray(a), offset=offset, dtype=sx.asarray(np.empty(0, wide)).dtype),
          np.trace(a.astype(wide), offset=offset, axis1=-2, axis2=-1))


@pytest.mark.parametrize("d1,d2", [(np.int8, np.int16), (np.float32, np.float32), (np.uint8, np.complex128)])
def test_outer(d1, d2):
    a, b = rand((3,), d1), rand((4,), d2)
    check(sx.linalg.outer(sx.asarray(a), sx.asarray(b)), np.outer(a, b).astype(np.result_type(d1, d2)))
    with pytest.raises(ValueError):
        sx.linalg.outer(sx.asarray(rand((2, 2))), sx.asarray(b))


@pytest.mark.parametrize("s1,s2,axis", [((3,), (3,), -1), ((2, 3), (3,), -1), ((4, 3, 2), (3, 1), -2), ((3, 5), (3, 5), 0)])
@pytest.mark.parametrize("dtype", [np.int32, np.float64, np.complex64])
def test_cross(s1, s2, axis, dtype):
    a, b = rand(s1, dtype), rand(s2, dtype)
    check(sx.linalg.cross(sx.asarray(a), sx.asarray(b), axis=axis), np.cross(a, b, axis=axis))


def test_cross_errors():
    with pytest.raises(ValueError, match="size 3"):
        sx.linalg.cross(sx.asarray(rand((2,))), sx.asarray(rand((2,))))
    with pytest.raises(ValueError):
        sx.linalg.cross(sx.asarray(rand((3, 1))), sx.asarray(rand((3, 3))))  # the compute axis never broadcasts
    with pytest.raises(ValueError):
        sx.linalg.cross(sx.asarray(rand((2, 3))), sx.asarray(rand((4, 3))))


@pytest.mark.parametrize("n", [-3, -1, 0, 1, 2, 5, 8])
@pytest.mark.parametrize("dtype", [np.float32, np.complex128])
def test_matrix_power(n, dtype):
    a = (rand((2, 3, 3), dtype) + 2 * np.eye(3)).astype(dtype)
    x = sx.asarray(a)
    out = sx.linalg.matrix_power(x, n)
    check(out, np.linalg.matrix_power(a, n), rtol=tol(dtype) * 50)
    assert not np.shares_memory(np.asarray(out), a)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("rtol", [None, 0.5, "array"])
def test_matrix_rank_and_pinv(dtype, rtol):
    a = rand((3, 4, 5), dtype)
    a[1, 2] = a[1, 0] * 2  # rank 3 in the second matrix
    rt = np.array([0.1, 0.5, 1e-3], dtype=np.real(np.empty(0, dtype)).dtype) if rtol == "array" else rtol
    srt = sx.asarray(rt) if rtol == "array" else rtol
    check(sx.linalg.matrix_rank(sx.asarray(a), rtol=srt), np.linalg.matrix_rank(a, rtol=rt).astype(np.int64))
    check(sx.linalg.pinv(sx.asarray(a), rtol=srt), np.linalg.pinv(a, rtol=rt), rtol=tol(dtype) * 100)


def test_matrix_rank_pinv_empty():
    check(sx.linalg.matrix_rank(sx.asarray(np.zeros((2, 0, 3)))), np.zeros(2, np.int64))
    check(sx.linalg.pinv(sx.asarray(np.zeros((2, 0, 3)))), np.zeros((2, 3, 0)))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("ord", [2, 1, 0, -1, -2, np.inf, -np.inf, 3, 0.5, -1.5])
@pytest.mark.parametrize("axis,keepdims", [(None, False), (None, True), (1, False), ((0, 2), True), (-1, False)])
def test_vector_norm(dtype, ord, axis, keepdims):
    a = rand((2, 3, 4), dtype)
    a[0, 0, 0] = 0
    with np.errstate(divide="ignore"):
        want = np.linalg.vector_norm(a, ord=ord, axis=axis, keepdims=keepdims)
    check(sx.linalg.vector_norm(sx.asarray(a), ord=ord, axis=axis, keepdims=keepdims), want)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("ord", ["fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf])
@pytest.mark.parametrize("keepdims", [False, True])
def test_matrix_norm(dtype, ord, keepdims):
    a = rand((2, 3, 4), dtype)
    want = np.linalg.matrix_norm(a, ord=ord, keepdims=keepdims)
    check(sx.linalg.matrix_norm(sx.asarray(a), ord=ord, keepdims=keepdims), want)


def test_norms_take_a_0d_array_ord_like_numpy():
    a = rand((2, 3, 4))
    for ord in (1, 2, 0.5, np.inf):
        check(sx.linalg.vector_norm(sx.asarray(a), ord=sx.asarray(ord)), np.linalg.vector_norm(a, ord=np.asarray(ord)))
    for ord in (1, -2, np.inf):
        check(sx.linalg.matrix_norm(sx.asarray(a), ord=sx.asarray(ord)), np.linalg.matrix_norm(a, ord=np.asarray(ord)))


def test_norm_errors():
    with pytest.raises(ValueError):
        sx.linalg.matrix_norm(sx.asarray(rand((2, 2))), ord=3)
    with pytest.raises(TypeError):
        sx.linalg.vector_norm(sx.asarray(rand((2, 2))), ord="fro")
    with pytest.raises(TypeError):
        sx.linalg.vector_norm(sx.asarray(np.ones(3, np.int64)))


def test_namespace():
    expected = {"cholesky", "cross", "det", "diagonal", "eig", "eigh", "eigvals", "eigvalsh", "inv", "matmul",
                "matrix_norm", "matrix_power", "matrix_rank", "matrix_transpose", "outer", "pinv", "qr", "slogdet",
                "solve", "svd", "svdvals", "tensordot", "trace", "vecdot", "vector_norm"}
    assert set(sx.linalg.__all__) == expected
    assert sx.linalg.matmul is sx.matmul


# --- lowering -------------------------------------------------------------------------------------------------


def test_lowering_dot_general():
    pytest.importorskip("jax")
    from tests.lowering_check import check_primitive_lowering

    for d1, d2 in [(np.float64, np.float64), (np.float32, np.int8), (np.complex64, np.complex64), (np.int32, np.int16)]:
        out = sx.result_type(sx.asarray(np.empty(0, d1)).dtype, sx.asarray(np.empty(0, d2)).dtype) \
            if hasattr(sx, "result_type") else sx.asarray(np.empty(0, np.result_type(d1, d2))).dtype
        a, b = sx.asarray(rand((2, 3, 4), d1)), sx.asarray(rand((2, 4, 5), d2))
        rtol = tol(np.result_type(d1, d2))
        check_primitive_lowering(P.dot_general, a, b, dimension_numbers=(((2,), (1,)), ((0,), (0,))), out_dtype=out,
                                 rtol=rtol)
        check_primitive_lowering(P.dot_general, a, b, dimension_numbers=(((2, 0), (1, 0)), ((), ())), out_dtype=out,
                                 rtol=rtol)


@pytest.mark.parametrize("dtype", FLOATS)
def test_lowering_decompositions(dtype):
    pytest.importorskip("jax")
    from tests.lowering_check import check_primitive_lowering as lowered

    t = tol(dtype) * 10
    sq, pd = sx.asarray((rand((2, 3, 3), dtype) + 3 * np.eye(3)).astype(dtype)), sx.asarray(spd((2, 3, 3), dtype))
    lowered(P.cholesky, pd, upper=False, rtol=t, atol=t)
    lowered(P.cholesky, pd, upper=True, rtol=t, atol=t)
    lowered(P.inv, sq, rtol=t, atol=t)
    lowered(P.det, sq, rtol=t, atol=t)
    lowered(P.slogdet, sq, rtol=t, atol=t)
    lowered(P.solve, sq, sx.asarray(rand((2, 3, 2), dtype)), rtol=t, atol=t)
    lowered(P.solve, sq, sx.asarray(rand((2, 3, 2), np.float32)), rtol=t, atol=t)  # promoted inside the rule
    lowered(P.eigh, pd, compute_vectors=False, rtol=t, atol=t)
    lowered(P.eig, sq, compute_vectors=False, rtol=t, atol=t)
    lowered(P.svd, sx.asarray(rand((2, 4, 3), dtype)), full_matrices=False, compute_uv=False, rtol=t, atol=t)


def test_lowering_decomposition_shapes():
    """Eigen/singular vectors are unique only up to phase: check the lowering's avals and reconstruction."""
    jax = pytest.importorskip("jax")
    from stridex._core.avals import aval_of
    from stridex._exec.jax_bridge import LoweringContext, x64

    x = sx.asarray(rand((2, 4, 3)))
    for prim, params in [(P.svd, {"full_matrices": True, "compute_uv": True}), (P.qr, {"mode": "complete"}),
                         (P.qr, {"mode": "reduced"}), (P.eigh, {"compute_vectors": True}),
                         (P.eig, {"compute_vectors": True})]:
        arg = sx.asarray(spd((2, 3, 3), np.float64)) if prim in (P.eigh, P.eig) else x
        avals_out = prim.abstract_eval(aval_of(arg), **params)
        with x64():
            outs = prim.lower(LoweringContext([aval_of(arg)], avals_out), jax.numpy.asarray(np.asarray(arg)), **params)
            for got, aval in zip(outs, avals_out):
                assert np.asarray(got).shape == aval.shape and np.asarray(got).dtype == aval.dtype.np, prim.name


def test_jit_matches_eager():
    """A program using every composed and decomposition function, jitted (lowered) and eager."""
    pytest.importorskip("jax")
    a = sx.asarray(rand((2, 4, 4)) + 4 * np.eye(4))
    v = sx.asarray(rand((4,)))

    def program(a, v):
        pd = sx.matmul(a, sx.matrix_transpose(a))
        return (a @ v, sx.vecdot(a, v), sx.tensordot(a, v, axes=1), sx.linalg.solve(a, v), sx.linalg.det(a),
                *sx.linalg.slogdet(a), sx.linalg.inv(a), sx.linalg.cholesky(pd, upper=True), sx.linalg.eigvalsh(pd),
                sx.linalg.svdvals(a), sx.linalg.pinv(a), sx.linalg.matrix_rank(a), sx.linalg.matrix_power(a, -2),
                sx.linalg.matrix_norm(a, ord="nuc"), sx.linalg.vector_norm(a, ord=3, axis=(0, 2)),
                sx.linalg.trace(a, offset=1), sx.linalg.cross(a[..., :3], a[..., 1:]), sx.linalg.outer(v, v),
                sx.linalg.diagonal(a, offset=-1), sx.linalg.eigvals(a))

    eager = program(a, v)
    jitted = sx.jit(program)(a, v)
    for e, j in zip(eager, jitted, strict=True):
        e, j = np.asarray(e), np.asarray(j)
        assert e.dtype == j.dtype and e.shape == j.shape
        np.testing.assert_allclose(j, e, rtol=1e-8, atol=1e-10)
