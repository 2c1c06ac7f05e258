"""`stridex.numpy.linalg`: jax.numpy.linalg's names and signatures over `stridex.linalg` (array-likes taken,
integers computed in floating point), plus NumPy's `norm`, `cond`, `multi_dot`, `lstsq`, `tensorinv` and
`tensorsolve`.

>>> import stridex.numpy as jnp
>>> jnp.linalg.norm(jnp.asarray([3.0, 4.0])), jnp.linalg.det(jnp.asarray([[1, 2], [3, 4]]))
(Array(5.), Array(-2.))
"""

from __future__ import annotations

import builtins
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from stridex import linalg as _linalg
from stridex._api import creation_functions as _cr
from stridex._api import elementwise_functions as _ew
from stridex._api import manipulation_functions as _manip
from stridex._api import searching_functions as _search
from stridex._api import statistical_functions as _stat
from stridex._core import dtypes as _d
from stridex._core.array import Array
from stridex.linalg import EigResult, EighResult, QRResult, SlogdetResult, SVDResult
from stridex.numpy import _args, _products
from stridex.numpy import _dtypes as _jd

__all__ = [
    "EigResult", "EighResult", "QRResult", "SVDResult", "SlogdetResult", "cholesky", "cond", "cross", "det",
    "diagonal", "eig", "eigh", "eigvals", "eigvalsh", "inv", "lstsq", "matmul", "matrix_norm", "matrix_power",
    "matrix_rank", "matrix_transpose", "multi_dot", "norm", "outer", "pinv", "qr", "slogdet", "solve", "svd",
    "svdvals", "tensordot", "tensorinv", "tensorsolve", "trace", "vecdot", "vector_norm",
]


def _inexact(x, fname: str, position: int = 0) -> Array:
    x = _args.array(x, f"linalg.{fname}", position)
    return _args.cast(x, _jd.TO_INEXACT[x._dtype])


def _inexact_pair(fname: str, a, b) -> tuple[Array, Array]:
    a, b = _args.promote(f"linalg.{fname}", _args.array(a, f"linalg.{fname}", 0), _args.array(b, f"linalg.{fname}", 1),
                         to_inexact=True)
    return a, b


def _hermitian(a: Array, symmetrize: builtins.bool, lower: builtins.bool) -> Array:
    """The Hermitian matrices the decompositions see: (a + aᴴ) / 2, or built from one triangle of `a`."""
    adjoint = _ew.conj(_linalg.matrix_transpose(a))
    if symmetrize:
        return _ew.multiply(_ew.add(a, adjoint), 0.5)
    if lower:
        return _ew.add(_cr.tril(a), _cr.triu(adjoint, k=1))
    return _ew.add(_cr.triu(a), _cr.tril(adjoint, k=-1))


def cholesky(a: Any, *, upper: builtins.bool = False, symmetrize_input: builtins.bool = True) -> Array:
    """The Cholesky factor of Hermitian positive-definite matrices (lower, or upper with `upper`); by default the
    input is first symmetrized, (a + aᴴ) / 2, as in jax.numpy.

    >>> import stridex.numpy as jnp
    >>> jnp.linalg.cholesky(jnp.asarray([[4.0, 2.0], [2.0, 2.0]]))
    Array([[2., 0.],
           [1., 1.]])
    """
    a = _inexact(a, "cholesky")
    return _linalg.cholesky(_hermitian(a, True, True) if symmetrize_input else a, upper=upper)


def det(a: Any) -> Array:
    """The determinant of each square matrix.

    >>> import stridex.numpy as jnp
    >>> jnp.linalg.det(jnp.asarray([[2.0, 1.0], [1.0, 3.0]]))
    Array(5.)
    """
    return _linalg.det(_inexact(a, "det"))


def slogdet(a: Any, *, method: str | None = None) -> SlogdetResult:
    """(sign, log|det|) of each square matrix (`method` is accepted for jax.numpy's signature).

    >>> import stridex.numpy as jnp
    >>> jnp.linalg.slogdet(jnp.asarray([[2.0, 0.0], [0.0, -3.0]]))
    SlogdetResult(sign=Array(-1.), logabsdet=Array(1.79175947))
    """
    if method not in (None, "lu", "qr"):
        raise ValueError(f"linalg.slogdet: unknown method {method!r}")
    return _linalg.slogdet(_inexact(a, "slogdet"))


def inv(a: Any) -> Array:
    """The inverse of each square matrix.

    >>> import stridex.numpy as jnp
    >>> jnp.linalg.inv(jnp.asarray([[2, 0], [0, 4]]))
    Array([[0.5 , 0.  ],
           [0.  , 0.25]])
    """
    return _linalg.inv(_inexact(a, "inv"))


def solve(a: Any, b: Any) -> Array:
    """x with a @ x = b (b a vector, or a stack of matrices broadcasting with a's).

    >>> import stridex.numpy as jnp
    >>> jnp.linalg.solve(jnp.asarray([[2.0, 0.0], [0.0, 4.0]]), jnp.asarray([2.0, 2.0]))
    Array([1. , 0.5])
    """
    a, b = _inexact_pair("solve", a, b)
    return _linalg.solve(a, b)


def eig(a: Any) -> EigResult:
    """Eigenvalues and right eigenvectors (columns) of general square matrices (complex).

    >>> import stridex.numpy as jnp
    >>> jnp.linalg.eig(jnp.asarray([[2.0, 0.0], [0.0, 3.0]])).eigenvalues
    Array([2.+0.j, 3.+0.j])
    """
    return _linalg.eig(_inexact(a, "eig"))


def eigvals(a: Any) -> Array:
    """Eigenvalues of general square matrices (complex).

    >>> import stridex.numpy as jnp
    >>> jnp.linalg.eigvals(jnp.asarray([[0.0, -1.0], [1.0, 0.0]]))
    Array([0.+1.j, 0.-1.j])
    """
    return _linalg.eigvals(_inexact(a, "eigvals"))


def eigh(a: Any, UPLO: str | None = None, symmetrize_input: builtins.bool = True) -> EighResult:  # noqa: N803
    """Eigenvalues (ascending) and orthonormal eigenvectors of Hermitian matrices; by default of (a + aᴴ) / 2,
    else of the matrix the `UPLO` triangle ("L" or "U") describes.

    >>> import stridex.numpy as jnp
    >>> jnp.linalg.eigh(jnp.asarray([[2.0, 1.0], [1.0, 2.0]])).eigenvalues
    Array([1., 3.])
    """
    if UPLO not in (None, "L", "U"):
        raise ValueError(f"linalg.eigh: UPLO must be 'L' or 'U', got {UPLO!r}")
    a = _inexact(a, "eigh")
    return _linalg.eigh(_hermitian(a, symmetrize_input, UPLO != "U"))


def eigvalsh(a: Any, UPLO: str | None = "L", *, symmetrize_input: builtins.bool = True) -> Array:  # noqa: N803
    """Eigenvalues (ascending) of Hermitian matrices (see `eigh`).

    >>> import stridex.numpy as jnp
    >>> jnp.linalg.eigvalsh(jnp.asarray([[2.0, 1.0], [1.0, 2.0]]))
    Array([1., 3.])
    """
    if UPLO not in (None, "L", "U"):
        raise ValueError(f"linalg.eigvalsh: UPLO must be 'L' or 'U', got {UPLO!r}")
    a = _inexact(a, "eigvalsh")
    return _linalg.eigvalsh(_hermitian(a, symmetrize_input, UPLO != "U"))


def svd(a: Any, full_matrices: builtins.bool = True, compute_uv: builtins.bool = True,
        hermitian: builtins.bool = False, subset_by_index: Any = None) -> Any:
    """The singular value decomposition (U, S, Vh), or the singular values alone with `compute_uv=False`.

    >>> import stridex.numpy as jnp
    >>> jnp.linalg.svd(jnp.asarray([[3.0, 0.0], [0.0, -4.0]]), compute_uv=False)
    Array([4., 3.])
    """
    if subset_by_index is not None:
        raise NotImplementedError("linalg.svd: subset_by_index is not supported by stridex.numpy")
    a = _inexact(a, "svd")
    if not compute_uv:
        return _linalg.svdvals(a)
    return _linalg.svd(a, full_matrices=full_matrices)


def svdvals(x: Any, /) -> Array:
    """The singular values of each matrix, descending.

    >>> import stridex.numpy as jnp
    >>> jnp.linalg.svdvals(jnp.asarray([[1.0, 0.0], [0.0, 2.0]]))
    Array([2., 1.])
    """
    return _linalg.svdvals(_inexact(x, "svdvals"))


def qr(a: Any, mode: str = "reduced") -> Any:
    """The QR decomposition (Q, R) of each matrix ("reduced" or "complete"), or R alone with mode="r".

    >>> import stridex.numpy as jnp
    >>> jnp.abs(jnp.linalg.qr(jnp.asarray([[3.0, 1.0], [4.0, 2.0]]), mode="r"))
    Array([[5. , 2.2],
           [0. , 0.4]])
    """
    a = _inexact(a, "qr")
    if mode == "r":
        return _linalg.qr(a, mode="reduced").R
    if mode not in ("reduced", "complete"):
        raise ValueError(f"linalg.qr: unsupported mode {mode!r}; expected 'reduced', 'complete' or 'r'")
    return _linalg.qr(a, mode=mode)  # type: ignore[arg-type]  # (checked just above)


def matrix_power(a: Any, n: int) -> Array:
    """Each square matrix raised to the integer power n (the inverse's for negative n).

    >>> import stridex.numpy as jnp
    >>> jnp.linalg.matrix_power(jnp.asarray([[1, 1], [0, 1]]), 3)
    Array([[1, 3],
           [0, 1]])
    """
    a = _args.array(a, "linalg.matrix_power")
    n = _args.index(n, "linalg.matrix_power", "n")
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError(f"linalg.matrix_power requires square matrices, got shape {a.shape}")
    if a._dtype.kind in _d.FLOATING_KINDS or n < 0:
        return _linalg.matrix_power(_args.cast(a, _jd.TO_INEXACT[a._dtype]), n)
    # Integers (which stridex.linalg refuses): repeated squaring, exact as integer matmuls are.
    if n == 0:
        return _cr.asarray(_manip.broadcast_to(_cr.eye(a.shape[-1], dtype=a._dtype), a.shape), copy=True)
    result, base = None, a
    while n:
        if n & 1:
            result = base if result is None else _linalg.matmul(result, base)
        n >>= 1
        if n:
            base = _linalg.matmul(base, base)
    return result  # type: ignore[return-value]  # (n > 0: set at the first set bit)


def _tolerance_args(rtol, rcond):
    if rcond is not None:
        if rtol is not None:
            raise ValueError("pinv: rtol and rcond can't both be given")
        rtol = rcond
    return rtol


def matrix_rank(M: Any, rtol: Any = None, *, hermitian: builtins.bool = False, tol: Any = None) -> Array:  # noqa: N803
    """The number of singular values of each matrix above rtol * the largest (or above the absolute `tol`).

    >>> import stridex.numpy as jnp
    >>> jnp.linalg.matrix_rank(jnp.asarray([[1.0, 2.0], [2.0, 4.0]]))
    Array(1)
    """
    m = _inexact(M, "matrix_rank")
    if tol is not None:
        s = _linalg.svdvals(m) if m.ndim >= 2 else _ew.abs(m)
        return _stat.sum(_ew.greater(s, _args.operand(tol, "linalg.matrix_rank")), axis=-1)
    return _linalg.matrix_rank(m, rtol=rtol)


def pinv(a: Any, rtol: Any = None, hermitian: builtins.bool = False, *, rcond: Any = None) -> Array:
    """The Moore-Penrose pseudo-inverse (singular values below rtol * the largest are dropped).

    >>> import stridex.numpy as jnp
    >>> jnp.linalg.pinv(jnp.asarray([[2.0, 0.0], [0.0, 0.0]]))
    Array([[0.5, 0. ],
           [0. , 0. ]])
    """
    return _linalg.pinv(_inexact(a, "pinv"), rtol=_tolerance_args(rtol, rcond))


def matmul(x1: Any, x2: Any, /, *, precision: Any = None, preferred_element_type: Any = None) -> Array:
    """The matrix product (see `stridex.numpy.matmul`).

    >>> import stridex.numpy as jnp
    >>> jnp.linalg.matmul(jnp.eye(2), jnp.asarray([1.0, 2.0]))
    Array([1., 2.])
    """
    return _products.matmul(x1, x2, precision=precision, preferred_element_type=preferred_element_type)


def vecdot(x1: Any, x2: Any, /, *, axis: int = -1, precision: Any = None, preferred_element_type: Any = None) -> Array:
    """The dot product of vectors along `axis`, the first conjugated.

    >>> import stridex.numpy as jnp
    >>> jnp.linalg.vecdot(jnp.asarray([1.0, 2.0]), jnp.asarray([3.0, 4.0]))
    Array(11.)
    """
    return _products.vecdot(x1, x2, axis=axis, preferred_element_type=preferred_element_type)


def tensordot(x1: Any, x2: Any, /, *, axes: Any = 2, precision: Any = None, preferred_element_type: Any = None) -> Array:
    """The tensor product summed over `axes` (see `stridex.numpy.tensordot`).

    >>> import stridex.numpy as jnp
    >>> jnp.linalg.tensordot(jnp.ones((2, 3)), jnp.ones((3, 4)), axes=1).shape
    (2, 4)
    """
    return _products.tensordot(x1, x2, axes, preferred_element_type=preferred_element_type)


def outer(x1: Any, x2: Any, /) -> Array:
    """The outer product of two vectors.

    >>> import stridex.numpy as jnp
    >>> jnp.linalg.outer(jnp.asarray([1, 2]), jnp.asarray([3, 4]))
    Array([[3, 4],
           [6, 8]])
    """
    x1, x2 = _args.promote("linalg.outer", _args.array(x1, "linalg.outer", 0), _args.array(x2, "linalg.outer", 1))
    if x1.ndim != 1 or x2.ndim != 1:
        raise ValueError(f"linalg.outer requires 1-D arrays, got shapes {x1.shape} and {x2.shape}")
    return _linalg.outer(x1, x2)


def cross(x1: Any, x2: Any, /, *, axis: int = -1) -> Array:
    """The cross product of 3-vectors along `axis`.

    >>> import stridex.numpy as jnp
    >>> jnp.linalg.cross(jnp.asarray([0, 1, 0]), jnp.asarray([0, 0, 1]))
    Array([1, 0, 0])
    """
    x1, x2 = _args.promote("linalg.cross", _args.array(x1, "linalg.cross", 0), _args.array(x2, "linalg.cross", 1))
    return _linalg.cross(x1, x2, axis=axis)


def diagonal(x: Any, /, *, offset: int = 0) -> Array:
    """The `offset` diagonal of each matrix (the last two axes): a view.

    >>> import stridex.numpy as jnp
    >>> jnp.linalg.diagonal(jnp.asarray([[1, 2], [3, 4]]))
    Array([1, 4])
    """
    return _linalg.diagonal(_args.array(x, "linalg.diagonal"), offset=offset)


def trace(x: Any, /, *, offset: int = 0, dtype: Any = None) -> Array:
    """The sum of the `offset` diagonal of each matrix (the last two axes).

    >>> import stridex.numpy as jnp
    >>> jnp.linalg.trace(jnp.asarray([[1, 2], [3, 4]]))
    Array(5)
    """
    return _linalg.trace(_args.array(x, "linalg.trace"), offset=offset,
                         dtype=_jd.canonical_or_none(dtype, "linalg.trace"))


def matrix_transpose(x: Any, /) -> Array:
    """The transpose of each matrix: a view.

    >>> import stridex.numpy as jnp
    >>> jnp.linalg.matrix_transpose(jnp.zeros((2, 3))).shape
    (3, 2)
    """
    return _linalg.matrix_transpose(_args.array(x, "linalg.matrix_transpose"))


def vector_norm(x: Any, /, *, axis: Any = None, keepdims: builtins.bool = False, ord: Any = 2) -> Array:  # noqa: A002
    """The vector p-norm over `axis` (all elements when None): ord = 2, 1, inf, -inf, 0 (the count of nonzero
    elements) or any p.

    >>> import stridex.numpy as jnp
    >>> jnp.linalg.vector_norm(jnp.asarray([[3.0, 4.0]]), axis=1), jnp.linalg.vector_norm(jnp.asarray([1.0, -5.0]), ord=jnp.inf)
    (Array([5.]), Array(5.))
    """
    x = _inexact(x, "vector_norm")
    if isinstance(ord, str):
        raise ValueError(f"linalg.vector_norm: invalid ord {ord!r} for vectors")
    if ord == 0:
        axes = _args.axes(axis, x.ndim, "linalg.vector_norm")
        count = _stat.sum(_args.cast(_ew.not_equal(x, 0), _d.real_of(x._dtype)), axis=axes, keepdims=keepdims)
        return count
    return _linalg.vector_norm(x, axis=axis, keepdims=keepdims, ord=ord)


def matrix_norm(x: Any, /, *, keepdims: builtins.bool = False, ord: Any = "fro") -> Array:  # noqa: A002
    """The matrix norm of each matrix (the last two axes): "fro", "nuc", inf, -inf, 1, -1, 2, -2.

    >>> import stridex.numpy as jnp
    >>> jnp.linalg.matrix_norm(jnp.asarray([[1.0, 2.0], [3.0, 4.0]]), ord=1)
    Array(6.)
    """
    return _linalg.matrix_norm(_inexact(x, "matrix_norm"), keepdims=keepdims, ord=ord)


def norm(x: Any, ord: Any = None, axis: Any = None, keepdims: builtins.bool = False) -> Array:  # noqa: A002
    """NumPy's norm: of a vector (1-D input, or `axis` an int), of a matrix (2-D input, or `axis` a pair of
    axes; the Frobenius norm by default), or the 2-norm of the flattened array (n-D input, no axis, no ord).

    >>> import stridex.numpy as jnp
    >>> x = jnp.asarray([[1.0, 2.0], [3.0, 4.0]])
    >>> jnp.linalg.norm(x), jnp.linalg.norm(x, axis=1), jnp.linalg.norm(x, ord=1)
    (Array(5.47722558), Array([2.23606798, 5.        ]), Array(6.))
    """
    x = _inexact(x, "norm")
    if axis is None:
        if x.ndim == 1 or (ord is None and x.ndim != 2):
            flat = _manip.reshape(x, (-1,))
            out = vector_norm(flat, ord=2 if ord is None else ord)
            return _manip.reshape(out, (1,) * x.ndim) if keepdims else out
        if x.ndim != 2:
            raise ValueError(f"linalg.norm: improper number of dimensions to norm ({x.shape}) for ord={ord!r}")
        axes: tuple = (0, 1)
    elif isinstance(axis, (tuple, list)):
        axes = tuple(axis)
    else:
        axes = (axis,)
    axes = tuple(_args.axis(a, x.ndim, "linalg.norm") for a in axes)
    if len(axes) == 1:
        return vector_norm(x, axis=axes[0], keepdims=keepdims, ord=2 if ord is None else ord)
    if len(axes) != 2 or axes[0] == axes[1]:
        raise ValueError(f"linalg.norm: invalid axis {axis!r} for an array of dimension {x.ndim}")
    moved = _manip.moveaxis(x, axes, (-2, -1))
    out = _linalg.matrix_norm(moved, ord="fro" if ord is None else ord, keepdims=False)
    if keepdims:
        out = _manip.expand_dims(out, axis=tuple(sorted(axes)))
    return out


def cond(x: Any, p: Any = None) -> Array:
    """The condition number of each matrix in the `p` norm (the ratio of extreme singular values for p = None,
    2 or -2; norm(x) * norm(inv(x)) otherwise).

    >>> import stridex.numpy as jnp
    >>> jnp.linalg.cond(jnp.asarray([[1.0, 0.0], [0.0, 4.0]]))
    Array(4.)
    """
    x = _inexact(x, "cond")
    if x.ndim < 2:
        raise ValueError(f"linalg.cond requires at least 2 dimensions, got shape {x.shape}")
    if p is None or p == 2 or p == -2:
        s = _linalg.svdvals(x)
        top, bottom = s[..., 0], s[..., -1]
        out = _ew.divide(bottom, top) if p == -2 else _ew.divide(top, bottom)
        return out
    if x.shape[-1] != x.shape[-2]:
        raise ValueError(f"linalg.cond: ord {p!r} needs square matrices, got shape {x.shape}")
    out = _ew.multiply(_linalg.matrix_norm(x, ord=p), _linalg.matrix_norm(_linalg.inv(x), ord=p))
    return _search.where(_ew.isnan(out), math.inf, out)


def multi_dot(arrays: Sequence[Any], *, precision: Any = None) -> Array:
    """The product of a chain of matrices (the first may be a row vector, the last a column vector), in the
    order of multiplications that costs the fewest operations.

    >>> import stridex.numpy as jnp
    >>> jnp.linalg.multi_dot([jnp.ones(3), jnp.ones((3, 4)), jnp.ones((4, 2))])
    Array([12., 12.])
    """
    items = list(arrays)
    if len(items) < 2:
        raise ValueError(f"linalg.multi_dot: expecting at least 2 arrays, got {len(items)}")
    mats = _args.promote("linalg.multi_dot", *(_args.array(a, "linalg.multi_dot", i) for i, a in enumerate(items)))
    first_vector, last_vector = mats[0].ndim == 1, mats[-1].ndim == 1
    if first_vector:
        mats[0] = _manip.reshape(mats[0], (1, -1))
    if last_vector:
        mats[-1] = _manip.reshape(mats[-1], (-1, 1))
    for i, m in enumerate(mats):
        if m.ndim != 2:
            raise ValueError(f"linalg.multi_dot: array {i} must be 2-D (the first and last may be 1-D), got {m.shape}")
    dims = [m.shape[0] for m in mats] + [mats[-1].shape[1]]
    n = len(mats)
    # The classic matrix-chain order: cost[i][j] of multiplying mats[i..j], split[i][j] where to split.
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = math.inf  # type: ignore[call-overload]
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k

    def chain(i: int, j: int) -> Array:
        return mats[i] if i == j else _linalg.matmul(chain(i, split[i][j]), chain(split[i][j] + 1, j))

    out = chain(0, n - 1)
    if first_vector:
        out = out[0]
    if last_vector:
        out = out[..., 0]
    return out


def lstsq(a: Any, b: Any, rcond: float | None = None, *, numpy_resid: builtins.bool = False) -> tuple[Array, ...]:
    """The least-squares solution x of a @ x = b, from the SVD (singular values below rcond * the largest are
    dropped): (x, residuals, rank, singular values). The residuals are the squared norms of b - a @ x per
    column; with `numpy_resid` NumPy's (empty unless a has full column rank and more rows than columns).

    >>> import stridex.numpy as jnp
    >>> x, residuals, rank, s = jnp.linalg.lstsq(jnp.asarray([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]), jnp.asarray([1.0, 1.0, 0.0]))
    >>> jnp.round(x, 8), rank
    (Array([0.33333333, 0.33333333]), Array(2))
    """
    a, b = _inexact_pair("lstsq", a, b)
    if a.ndim != 2:
        raise TypeError(f"linalg.lstsq: a must be 2-D, got shape {a.shape}")
    if b.ndim not in (1, 2):
        raise TypeError(f"linalg.lstsq: b must be 1-D or 2-D, got shape {b.shape}")
    m, n = a.shape
    if b.shape[0] != m:
        raise ValueError(f"linalg.lstsq: a of shape {a.shape} and b of shape {b.shape} do not match")
    vector = b.ndim == 1
    rhs = _manip.reshape(b, (m, 1)) if vector else b
    eps = float(np.finfo(_d.real_of(a._dtype).np).eps)
    rcond = eps * builtins.max(m, n) if rcond is None else rcond
    if min(m, n) == 0:
        x = _cr.zeros((n, rhs.shape[1]), dtype=a._dtype)
        s = _cr.zeros((0,), dtype=_d.real_of(a._dtype))
        rank = _cr.asarray(0)
    else:
        u, s, vh = _linalg.svd(a, full_matrices=False)
        keep = _ew.greater(s, _ew.multiply(rcond, s[0]))
        inverse = _search.where(keep, _ew.divide(1.0, _search.where(keep, s, 1.0)), 0.0)
        projected = _linalg.matmul(_ew.conj(_linalg.matrix_transpose(u)), rhs)
        x = _linalg.matmul(_ew.conj(_linalg.matrix_transpose(vh)), _ew.multiply(_manip.reshape(inverse, (-1, 1)),
                                                                                  projected))
        rank = _stat.sum(_args.cast(keep, _d.int64))
    residual = _ew.subtract(rhs, _linalg.matmul(a, x))
    resid = _stat.sum(_ew.real(_ew.multiply(residual, _ew.conj(residual))), axis=0)
    if numpy_resid and not (m > n and builtins.bool(_ew.equal(rank, n))):
        resid = _cr.zeros((0,), dtype=_d.real_of(a._dtype))
    if vector:
        x = _manip.reshape(x, (n,))
        if resid.shape != (0,):
            resid = _manip.reshape(resid, (1,))
    return x, resid, rank, s


def tensorinv(a: Any, ind: int = 2) -> Array:
    """The inverse of a tensor as a linear map from its last axes (from `ind` on) to its first: shape
    a.shape[ind:] + a.shape[:ind].

    >>> import stridex.numpy as jnp
    >>> jnp.linalg.tensorinv(jnp.reshape(jnp.eye(4), (4, 2, 2)), ind=1).shape
    (2, 2, 4)
    """
    a = _inexact(a, "tensorinv")
    ind = _args.index(ind, "linalg.tensorinv", "ind")
    if ind <= 0:
        raise ValueError(f"linalg.tensorinv: ind must be positive, got {ind}")
    rows, cols = a.shape[:ind], a.shape[ind:]
    size = int(np.prod(rows))
    if int(np.prod(cols)) != size:
        raise ValueError(f"linalg.tensorinv: the products of the first {ind} and the remaining dimensions of shape "
                         f"{a.shape} must agree")
    return _manip.reshape(_linalg.inv(_manip.reshape(a, (size, size))), cols + rows)


def tensorsolve(a: Any, b: Any, axes: tuple[int, ...] | None = None) -> Array:
    """x with tensordot(a, x, x.ndim) = b (`axes` first move those axes of a to the end).

    >>> import stridex.numpy as jnp
    >>> jnp.linalg.tensorsolve(jnp.reshape(jnp.eye(4), (2, 2, 4)), jnp.ones((2, 2))).shape
    (4,)
    """
    a, b = _inexact_pair("tensorsolve", a, b)
    if axes is not None:
        others = [i for i in range(a.ndim) if i not in [_args.axis(x, a.ndim, "linalg.tensorsolve") for x in axes]]
        a = _manip.permute_dims(a, tuple(others) + tuple(_args.axis(x, a.ndim, "linalg.tensorsolve") for x in axes))
    out_shape = a.shape[b.ndim:]
    size = int(np.prod(out_shape))
    if int(np.prod(a.shape[:b.ndim])) != size:
        raise ValueError(f"linalg.tensorsolve: a of shape {a.shape} and b of shape {b.shape} do not give a square "
                         "system")
    x = _linalg.solve(_manip.reshape(a, (size, size)), _manip.reshape(b, (size,)))
    return _manip.reshape(x, out_shape)


_args.place_all(globals(), __all__)  # (each function runs where its arrays live: see stridex.numpy._args.placed)
