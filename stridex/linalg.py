"""The `linalg` extension: decompositions bind one primitive each; norms, ranks and products compose others.

>>> import stridex as sx
>>> sx.linalg.det(sx.asarray([[2.0, 0.0], [0.0, 3.0]]))
Array(6.)
"""

from __future__ import annotations

import operator
from numbers import Real
from typing import Literal, NamedTuple

import numpy as np

from stridex._api import creation_functions as _cr
from stridex._api import data_type_functions as _dt
from stridex._api import elementwise_functions as _ew
from stridex._api import manipulation_functions as _manip
from stridex._api import searching_functions as _search
from stridex._api import statistical_functions as _stat
from stridex._api import transcendental_functions as _tr
from stridex._api.linear_algebra_functions import matmul, matrix_transpose, tensordot, vecdot
from stridex._core import dtypes as _dtypes
from stridex._core.array import Array, python_scalar
from stridex._core.dtypes import DType
from stridex._core.view import broadcast_shapes, normalize_axes
from stridex._lax import linalg as _p
from stridex._lax import ops
from stridex._lax import views as _views

__all__ = [
    "cholesky", "cross", "det", "diagonal", "eig", "eigh", "eigvals", "eigvalsh", "inv", "matmul", "matrix_norm",
    "matrix_power", "matrix_rank", "matrix_transpose", "outer", "pinv", "qr", "slogdet", "solve", "svd", "svdvals",
    "tensordot", "trace", "vecdot", "vector_norm",
]


class EighResult(NamedTuple):
    eigenvalues: Array
    eigenvectors: Array


class EigResult(NamedTuple):
    eigenvalues: Array
    eigenvectors: Array


class QRResult(NamedTuple):
    Q: Array
    R: Array


class SlogdetResult(NamedTuple):
    sign: Array
    logabsdet: Array


class SVDResult(NamedTuple):
    U: Array
    S: Array
    Vh: Array


_FLOATING = frozenset(_dtypes.FLOATING_DTYPES)
_NUMERIC = frozenset(_dtypes.NUMERIC_DTYPES)


# --- argument checks ---------------------------------------------------------------------------------


def _check(name: str, x, allowed=_FLOATING, category: str = "floating-point") -> None:
    if not isinstance(x, Array):
        raise TypeError(f"linalg.{name} expects an array, got {type(x).__name__}")
    if x._dtype not in allowed:
        # Note: the spec says these inputs "should" have a floating-point dtype; like array-api-strict we
        # refuse others rather than silently computing in float64 as NumPy does.
        raise TypeError(f"linalg.{name} requires a {category} dtype, got {x._dtype.name}")


def _matrices(name: str, x) -> None:
    """A floating-point stack of matrices (..., M, N)."""
    _check(name, x)
    if x.ndim < 2:
        raise ValueError(f"linalg.{name} requires an array of at least 2 dimensions, got shape {x.shape}")


def _square(name: str, x) -> None:
    """A floating-point stack of square matrices (..., M, M)."""
    _matrices(name, x)
    if x.shape[-1] != x.shape[-2]:
        raise ValueError(f"linalg.{name} requires square matrices, got shape {x.shape}")


def _expand(x: Array, *axes: int) -> Array:
    for axis in axes:
        x = _views.expand_dims.bind(x, axis=axis if axis >= 0 else x.ndim + 1 + axis)
    return x


# --- decompositions and solvers: one primitive each ----------------------------------------------------


def cholesky(x: Array, /, *, upper: bool = False) -> Array:
    """Cholesky factor of Hermitian positive-definite matrices: lower `L` (x = L Lᴴ), or upper `U` (x = Uᴴ U).

    >>> import stridex as sx
    >>> sx.linalg.cholesky(sx.asarray([[4.0, 2.0], [2.0, 2.0]]))
    Array([[2., 0.],
           [1., 1.]])
    """
    _square("cholesky", x)
    return _p.cholesky.bind(x, upper=bool(upper))


def det(x: Array, /) -> Array:
    """Determinant of each square matrix.

    >>> import stridex as sx
    >>> sx.linalg.det(sx.asarray([[1.0, 2.0], [3.0, 4.0]])).shape
    ()
    """
    _square("det", x)
    return _p.det.bind(x)


def slogdet(x: Array, /) -> SlogdetResult:
    """Sign and log of the absolute determinant of each square matrix (sign 0, logabsdet -inf when singular).

    >>> import stridex as sx
    >>> sx.linalg.slogdet(sx.asarray([[2.0, 0.0], [0.0, -1.0]])).sign
    Array(-1.)
    """
    _square("slogdet", x)
    return SlogdetResult(*_p.slogdet.bind(x))


def inv(x: Array, /) -> Array:
    """Inverse of each square matrix.

    >>> import stridex as sx
    >>> sx.linalg.inv(sx.asarray([[2.0, 0.0], [0.0, 4.0]]))
    Array([[0.5 , 0.  ],
           [0.  , 0.25]])
    """
    _square("inv", x)
    return _p.inv.bind(x)


def solve(x1: Array, x2: Array, /) -> Array:
    """Solve `x1 @ result = x2` for each square matrix in `x1`.

    `x2` of shape (M,) is one right-hand-side vector for every matrix; otherwise it is a stack of (M, K)
    matrices whose leading axes broadcast with those of `x1` (the 2024.12 rule).

    >>> import stridex as sx
    >>> sx.linalg.solve(sx.asarray([[2.0, 0.0], [0.0, 4.0]]), sx.asarray([2.0, 2.0]))
    Array([1. , 0.5])
    """
    _square("solve", x1)
    _check("solve", x2)
    m = x1.shape[-1]
    if x2.ndim == 0:
        raise ValueError(f"linalg.solve requires x2 of at least one dimension, got shape {x2.shape}")
    if x2.ndim == 1:
        if x2.shape[0] != m:
            raise ValueError(f"linalg.solve: x2 of shape {x2.shape} does not match matrices of shape {x1.shape}")
        batch = x1.shape[:-2]
        rhs = _expand(_views.broadcast_to.bind(x2, shape=batch + (m,)), -1)
        out = _p.solve.bind(x1, rhs)
        return _views.squeeze.bind(out, axes=(out.ndim - 1,))
    if x2.shape[-2] != m:
        raise ValueError(f"linalg.solve: x2 of shape {x2.shape} does not match matrices of shape {x1.shape} "
                         f"(x2 must be (M,) or (..., M, K))")
    batch = broadcast_shapes(x1.shape[:-2], x2.shape[:-2])
    if x1.shape[:-2] != batch:
        x1 = _views.broadcast_to.bind(x1, shape=batch + x1.shape[-2:])
    if x2.shape[:-2] != batch:
        x2 = _views.broadcast_to.bind(x2, shape=batch + x2.shape[-2:])
    return _p.solve.bind(x1, x2)


def eigh(x: Array, /) -> EighResult:
    """Eigenvalues (ascending, real) and orthonormal eigenvectors (columns) of Hermitian/symmetric matrices.

    Only the lower triangle of each matrix is read.

    >>> import stridex as sx
    >>> sx.linalg.eigh(sx.asarray([[2.0, 0.0], [0.0, 1.0]])).eigenvalues
    Array([1., 2.])
    """
    _square("eigh", x)
    return EighResult(*_p.eigh.bind(x, compute_vectors=True))


def eigvalsh(x: Array, /) -> Array:
    """Eigenvalues (ascending, real) of Hermitian/symmetric matrices (lower triangle read).

    >>> import stridex as sx
    >>> sx.linalg.eigvalsh(sx.asarray([[2.0, 0.0], [0.0, 1.0]]))
    Array([1., 2.])
    """
    _square("eigvalsh", x)
    (w,) = _p.eigh.bind(x, compute_vectors=False)
    return w


def eig(x: Array, /) -> EigResult:
    """Eigenvalues and right eigenvectors (columns) of general square matrices, always complex.

    >>> import stridex as sx
    >>> sx.linalg.eig(sx.asarray([[2.0, 0.0], [0.0, 1.0]])).eigenvalues.dtype
    stridex.complex128
    """
    _square("eig", x)
    return EigResult(*_p.eig.bind(x, compute_vectors=True))


def eigvals(x: Array, /) -> Array:
    """Eigenvalues of general square matrices, always complex.

    >>> import stridex as sx
    >>> sx.linalg.eigvals(sx.asarray([[0.0, -1.0], [1.0, 0.0]])).shape
    (2,)
    """
    _square("eigvals", x)
    (w,) = _p.eig.bind(x, compute_vectors=False)
    return w


def svd(x: Array, /, *, full_matrices: bool = True) -> SVDResult:
    """Singular value decomposition `x = U @ diag(S) @ Vh`, singular values in descending order.

    >>> import stridex as sx
    >>> [a.shape for a in sx.linalg.svd(sx.ones((3, 2)), full_matrices=False)]
    [(3, 2), (2,), (2, 2)]
    """
    _matrices("svd", x)
    return SVDResult(*_p.svd.bind(x, full_matrices=bool(full_matrices), compute_uv=True))


def svdvals(x: Array, /) -> Array:
    """Singular values of each matrix, in descending order.

    >>> import stridex as sx
    >>> sx.linalg.svdvals(sx.asarray([[3.0, 0.0], [0.0, 4.0]]))
    Array([4., 3.])
    """
    _matrices("svdvals", x)
    (s,) = _p.svd.bind(x, full_matrices=False, compute_uv=False)
    return s


def qr(x: Array, /, *, mode: Literal["reduced", "complete"] = "reduced") -> QRResult:
    """QR decomposition: `mode="reduced"` gives Q (..., M, K), R (..., K, N); "complete" Q (..., M, M), R (..., M, N).

    >>> import stridex as sx
    >>> [a.shape for a in sx.linalg.qr(sx.ones((3, 2)))]
    [(3, 2), (2, 2)]
    """
    _matrices("qr", x)
    if mode not in ("reduced", "complete"):
        raise ValueError(f"linalg.qr: mode must be 'reduced' or 'complete', got {mode!r}")
    return QRResult(*_p.qr.bind(x, mode=mode))


# --- views and reductions over the matrix axes --------------------------------------------------------------


def diagonal(x: Array, /, *, offset: int = 0) -> Array:
    """The `offset` diagonal of each matrix (last two axes), as a view sharing `x`'s storage.

    >>> import stridex as sx
    >>> sx.linalg.diagonal(sx.asarray([[1, 2], [3, 4]]), offset=1)
    Array([2])
    """
    if not isinstance(x, Array):
        raise TypeError(f"linalg.diagonal expects an array, got {type(x).__name__}")
    if x.ndim < 2:
        raise ValueError(f"linalg.diagonal requires an array of at least 2 dimensions, got shape {x.shape}")
    offset = _as_int("diagonal", "offset", offset)
    return _views.diagonal.bind(x, offset=offset, axis1=x.ndim - 2, axis2=x.ndim - 1)


def trace(x: Array, /, *, offset: int = 0, dtype: DType | None = None) -> Array:
    """Sum of the `offset` diagonal of each matrix; `dtype` as in `sum` (small integers widen).

    >>> import stridex as sx
    >>> sx.linalg.trace(sx.asarray([[1, 2], [3, 4]]))
    Array(5)
    """
    _check("trace", x, _NUMERIC, "numeric")
    return _stat.sum(diagonal(x, offset=offset), axis=-1, dtype=dtype)


def _as_int(name: str, what: str, value) -> int:
    if isinstance(value, bool):
        raise TypeError(f"linalg.{name}: {what} must be an integer, got a bool")
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"linalg.{name}: {what} must be an integer, got {type(value).__name__}") from None


# --- products ------------------------------------------------------------------------------------------


def outer(x1: Array, x2: Array, /) -> Array:
    """Outer product of two vectors: `result[i, j] = x1[i] * x2[j]`.

    >>> import stridex as sx
    >>> sx.linalg.outer(sx.asarray([1, 2]), sx.asarray([1, 10, 100])).shape
    (2, 3)
    """
    _check("outer", x1, _NUMERIC, "numeric")
    _check("outer", x2, _NUMERIC, "numeric")
    if x1.ndim != 1 or x2.ndim != 1:
        raise ValueError(f"linalg.outer requires two 1-D arrays, got shapes {x1.shape} and {x2.shape}")
    return _ew.multiply(_expand(x1, 1), _expand(x2, 0))


def cross(x1: Array, x2: Array, /, *, axis: int = -1) -> Array:
    """Cross product of 3-element vectors along `axis`; the other axes broadcast.

    >>> import stridex as sx
    >>> sx.linalg.cross(sx.asarray([1, 0, 0]), sx.asarray([0, 1, 0]))
    Array([0, 0, 1])
    """
    _check("cross", x1, _NUMERIC, "numeric")
    _check("cross", x2, _NUMERIC, "numeric")
    s1, s2 = x1.shape, x2.shape
    n = min(len(s1), len(s2))
    if n == 0:
        raise ValueError(f"linalg.cross requires arrays of at least one dimension, got shapes {s1} and {s2}")
    axis = _as_int("cross", "axis", axis)
    if axis >= 0:
        if len(s1) != len(s2):
            # Note: since 2023.12 the spec counts `axis` from the end; a nonnegative one is only
            # unambiguous when both arrays have the same number of dimensions.
            raise ValueError(f"linalg.cross: axis must be negative for arrays of shapes {s1} and {s2}, got {axis}")
        axis -= len(s1)
    if not -n <= axis <= -1:
        raise IndexError(f"linalg.cross: axis {axis} is out of bounds for arrays of shapes {s1} and {s2}")
    if s1[axis] != 3 or s2[axis] != 3:
        raise ValueError(f"linalg.cross: axis {axis} must have size 3 in both arrays, got shapes {s1} and {s2}")
    # Broadcasting the other axes is checked up front so that the error names the user's shapes.
    broadcast_shapes(s1[:axis] + s1[axis + 1:] if axis != -1 else s1[:-1],
                     s2[:axis] + s2[axis + 1:] if axis != -1 else s2[:-1])
    a = [_component(x1, axis, i) for i in range(3)]
    b = [_component(x2, axis, i) for i in range(3)]
    mul, sub = _ew.multiply, _ew.subtract
    parts = [sub(mul(a[1], b[2]), mul(a[2], b[1])),
             sub(mul(a[2], b[0]), mul(a[0], b[2])),
             sub(mul(a[0], b[1]), mul(a[1], b[0]))]
    return _manip.stack(parts, axis=axis)


def _component(x: Array, axis: int, i: int) -> Array:
    """The view `x[..., i, ...]` taking index `i` on (negative) `axis`."""
    axis += x.ndim
    whole = tuple(("slice", 0, n, 1) for n in x.shape)
    return _views.basic_index.bind(x, entries=whole[:axis] + (("int", i),) + whole[axis + 1:])


# --- composed matrix functions ---------------------------------------------------------------------------


def matrix_power(x: Array, n: int, /) -> Array:
    """Raise each square matrix to the integer power `n` (n < 0 inverts first; n = 0 gives identities).

    >>> import stridex as sx
    >>> sx.linalg.matrix_power(sx.asarray([[1.0, 1.0], [0.0, 1.0]]), 3)
    Array([[1., 3.],
           [0., 1.]])
    """
    _square("matrix_power", x)
    n = _as_int("matrix_power", "n", n)
    if n == 0:
        eye = _cr.eye(x.shape[-1], dtype=x.dtype)
        return ops.copy(_views.broadcast_to.bind(eye, shape=x.shape))
    base = x
    if n < 0:
        base, n = inv(x), -n
    result = None
    while True:  # binary exponentiation: log2(n) squarings
        if n & 1:
            result = base if result is None else matmul(result, base)
        n >>= 1
        if not n:
            break
        base = matmul(base, base)
    return ops.copy(result) if result is x else result  # type: ignore[return-value]  # (n >= 1 here: result is set)


def _real_dtype(x: Array) -> _dtypes.DType:
    return _dtypes.real_of(x._dtype)


def _tolerance(name: str, x: Array, s: Array, rtol) -> Array:
    """rtol * largest singular value, shaped (..., 1) to compare with the singular values `s` (..., K)."""
    smax = _stat.max(s, axis=-1, keepdims=True)
    if rtol is None:
        eps = float(np.finfo(_real_dtype(x).np).eps)
        return _ew.multiply(smax, max(x.shape[-2:]) * eps)
    if isinstance(rtol, Array):
        if rtol._dtype not in _dtypes.REAL_FLOATING_DTYPES:
            raise TypeError(f"linalg.{name}: rtol must have a real floating-point dtype, got {rtol._dtype.name}")
        return _ew.multiply(smax, _expand(rtol, -1))
    if isinstance(rtol, bool) or not isinstance(rtol, Real):
        raise TypeError(f"linalg.{name}: rtol must be a float or an array, got {type(rtol).__name__}")
    return _ew.multiply(smax, float(rtol))


def matrix_rank(x: Array, /, *, rtol: float | Array | None = None) -> Array:
    """Number of singular values above `rtol * largest singular value` (default rtol: max(M, N) * eps).

    >>> import stridex as sx
    >>> sx.linalg.matrix_rank(sx.asarray([[1.0, 2.0], [2.0, 4.0]]))
    Array(1)
    """
    _matrices("matrix_rank", x)
    s = svdvals(x)
    if s.shape[-1] == 0:
        batch = x.shape[:-2]
        if isinstance(rtol, Array):
            batch = broadcast_shapes(batch, rtol.shape)
        return _cr.zeros(batch, dtype=_dtypes.int64)
    above = _ew.greater(s, _tolerance("matrix_rank", x, s, rtol))
    return _stat.sum(above, axis=-1, dtype=_dtypes.int64)


def pinv(x: Array, /, *, rtol: float | Array | None = None) -> Array:
    """Moore-Penrose pseudo-inverse from the SVD, zeroing singular values at or below `rtol * largest`.

    >>> import stridex as sx
    >>> sx.linalg.pinv(sx.asarray([[2.0, 0.0], [0.0, 0.0]]))
    Array([[0.5, 0. ],
           [0. , 0. ]])
    """
    _matrices("pinv", x)
    *batch, m, n = x.shape
    if min(m, n) == 0:
        shape = tuple(batch) + (n, m)
        if isinstance(rtol, Array):
            shape = broadcast_shapes(tuple(batch), rtol.shape) + (n, m)
        return _cr.zeros(shape, dtype=x.dtype)
    u, s, vh = svd(x, full_matrices=False)
    keep = _ew.greater(s, _tolerance("pinv", x, s, rtol))
    s_inv = _search.where(keep, _ew.divide(1.0, _search.where(keep, s, 1.0)), 0.0)
    # pinv = V @ diag(1/s) @ Uᴴ, with V = Vhᴴ.
    v_scaled = _ew.multiply(_adjoint(vh), _expand(s_inv, -2))
    return matmul(v_scaled, _adjoint(u))


def _adjoint(x: Array) -> Array:
    xt = matrix_transpose(x)
    return _ew.conj(xt) if x._dtype.kind == "complex floating" else xt


# --- norms -------------------------------------------------------------------------------------------------

_INF = float("inf")


def vector_norm(x: Array, /, *, axis: int | tuple[int, ...] | None = None, keepdims: bool = False,
                ord: int | float = 2) -> Array:
    """Vector p-norm over `axis` (all axes when None): ord 1, 2, inf, -inf, 0 (count of nonzeros), or any p.

    >>> import stridex as sx
    >>> sx.linalg.vector_norm(sx.asarray([3.0, 4.0]))
    Array(5.)
    """
    _check("vector_norm", x)
    ord = python_scalar(ord)  # a 0-D array, as NumPy takes one
    if isinstance(ord, bool) or not isinstance(ord, Real):
        raise TypeError(f"linalg.vector_norm: ord must be an int or a float, got {ord!r}")
    axes = normalize_axes(axis, x.ndim)
    keepdims = bool(keepdims)
    a = _ew.abs(x)
    if ord == _INF:
        return _stat.max(a, axis=axes, keepdims=keepdims)
    if ord == -_INF:
        return _stat.min(a, axis=axes, keepdims=keepdims)
    if ord == 0:
        return _stat.sum(_dt.astype(_ew.not_equal(a, 0.0), _real_dtype(x)), axis=axes, keepdims=keepdims)
    if ord == 1:
        return _stat.sum(a, axis=axes, keepdims=keepdims)
    if ord == 2:
        return _tr.sqrt(_stat.sum(_ew.multiply(a, a), axis=axes, keepdims=keepdims))
    p = float(ord)
    return _tr.pow(_stat.sum(_tr.pow(a, p), axis=axes, keepdims=keepdims), 1.0 / p)


def matrix_norm(x: Array, /, *, keepdims: bool = False, ord: int | float | Literal["fro", "nuc"] | None = "fro"
                ) -> Array:
    """Matrix norm of each matrix: 'fro', 'nuc', 1, -1, 2, -2, inf, -inf.

    >>> import stridex as sx
    >>> sx.linalg.matrix_norm(sx.asarray([[3.0, 0.0], [0.0, 4.0]]), ord=2)
    Array(4.)
    """
    _matrices("matrix_norm", x)
    keepdims = bool(keepdims)
    ord = python_scalar(ord)  # a 0-D array, as NumPy takes one
    if ord == "fro":
        return vector_norm(x, axis=(-2, -1), keepdims=keepdims)
    if ord == "nuc":
        result = _stat.sum(svdvals(x), axis=-1)
    elif isinstance(ord, bool) or not isinstance(ord, Real) or ord not in (1, -1, 2, -2, _INF, -_INF):
        raise ValueError(f"linalg.matrix_norm: ord must be 'fro', 'nuc', 1, -1, 2, -2, inf or -inf, got {ord!r}")
    elif ord in (2, -2):
        reduce = _stat.max if ord == 2 else _stat.min
        result = reduce(svdvals(x), axis=-1)
    else:
        # 1 / -1: largest / smallest absolute column sum; inf / -inf: the same over rows.
        sums = _stat.sum(_ew.abs(x), axis=-2 if abs(ord) == 1 else -1)
        result = (_stat.max if ord > 0 else _stat.min)(sums, axis=-1)  # type: ignore[operator]  # (ord is 1, -1, inf or -inf)
    return _expand(result, -1, -1) if keepdims else result

