"""Linear-algebra primitives: dot_general (matmul, tensordot, vecdot, outer) and one record per decomposition.

Every decomposition works on stacks: its input's last two axes are the matrix axes, the leading ones are
batch axes. The eager rules call NumPy's LAPACK-backed `np.linalg` (which keeps float32/complex64 in single
precision); the lowerings call `jax.lax.linalg` or, where its semantics equal the spec's, `jax.numpy.linalg`.

Note: where the spec leaves failures implementation-defined (a singular matrix for inv/solve, one that is not
positive definite for cholesky, NaN input to svd/eig), the eager rules raise NumPy's LinAlgError (a
ValueError) while compiled code, which cannot raise on data, returns NaNs as JAX does.
"""

from __future__ import annotations

from math import prod

import numpy as np

from .. import _dtypes
from .._core import ShapedArray, primitive
from .._lowering_support import as_dtype, jnp, lax
from .._storage import aligned_empty, is_aligned
from .elementwise import ALIGNED_OUTPUT_ELEMENTS

# --- dot_general ---------------------------------------------------------------------------------
# `dimension_numbers = ((lhs_contract, rhs_contract), (lhs_batch, rhs_batch))`, as in `lax.dot_general`.
# The result's axes are: the batch axes, then the free axes of x1, then the free axes of x2, each in
# order. Batch axes must have equal sizes (the namespace broadcasts first); `out_dtype` is the promoted
# dtype both inputs are computed in.


def _free_axes(ndim: int, *taken: tuple) -> tuple:
    used = set().union(*taken)
    return tuple(a for a in range(ndim) if a not in used)


def _dot_general_abstract(x1, x2, *, dimension_numbers, out_dtype):
    (c1, c2), (b1, b2) = dimension_numbers
    s1, s2 = x1.shape, x2.shape
    if any(s1[i] != s2[j] for i, j in zip(c1 + b1, c2 + b2)):
        raise ValueError(f"dot_general: contracted/batch axes of shapes {s1} and {s2} differ in size "
                         f"(dimension_numbers {dimension_numbers})")
    shape = (tuple(s1[a] for a in b1) + tuple(s1[a] for a in _free_axes(len(s1), c1, b1))
             + tuple(s2[a] for a in _free_axes(len(s2), c2, b2)))
    return ShapedArray(shape, out_dtype)


def _is_matmul_layout(ndim1: int, ndim2: int, dimension_numbers) -> bool:
    """Whether dot_general means exactly `np.matmul(x1, x2)` (which is then called directly)."""
    (c1, c2), (b1, b2) = dimension_numbers
    if c1 != (ndim1 - 1,) or c2 != (max(ndim2 - 2, 0),):
        return False
    if not b1:
        return not b2 and (ndim2 <= 2 or ndim1 == 1)
    return b1 == b2 == tuple(range(len(b1))) and ndim1 == ndim2 == len(b1) + 2


def _matmul_into(a, b, shape, dtype):
    if prod(shape) >= ALIGNED_OUTPUT_ELEMENTS:
        out = aligned_empty(shape, dtype)
        np.matmul(a, b, out=out.reshape(a.shape[:-1] + b.shape[-1:]) if a.ndim >= 2 and b.ndim >= 2 else out)
        return out
    out = np.matmul(a, b)
    return out if type(out) is np.ndarray else np.asarray(out)


def _dot_general_impl(x1, x2, *, dimension_numbers, out_dtype):
    dtype = out_dtype.np
    if x1.dtype is not dtype:
        x1 = x1.astype(dtype, copy=False)
    if x2.dtype is not dtype:
        x2 = x2.astype(dtype, copy=False)
    if _is_matmul_layout(x1.ndim, x2.ndim, dimension_numbers):
        if dimension_numbers[1][0]:
            shape = x1.shape[:-1] + x2.shape[-1:]
        elif x1.ndim == 1:
            shape = x2.shape[:-2] + x2.shape[-1:]
        else:
            shape = x1.shape[:-1] + x2.shape[1:]
        return _matmul_into(x1, x2, shape, dtype)
    (c1, c2), (b1, b2) = dimension_numbers
    f1, f2 = _free_axes(x1.ndim, c1, b1), _free_axes(x2.ndim, c2, b2)
    # Lay both out as stacks of matrices, (batch, free1, contract) @ (batch, contract, free2): one matmul.
    a = x1.transpose(b1 + f1 + c1)
    b = x2.transpose(b2 + c2 + f2)
    batch = a.shape[:len(b1)]
    free1, free2 = a.shape[len(b1):len(b1) + len(f1)], b.shape[len(b2) + len(c2):]
    k = prod(a.shape[len(b1) + len(f1):])
    a = a.reshape(batch + (prod(free1), k))
    b = b.reshape(batch + (k, prod(free2)))
    return _matmul_into(a, b, batch + free1 + free2, dtype).reshape(batch + free1 + free2)


def _dot_general_lower(ctx, x1, x2, *, dimension_numbers, out_dtype):
    L = lax()
    return L.dot_general(as_dtype(x1, out_dtype), as_dtype(x2, out_dtype), dimension_numbers,
                         precision=L.Precision.HIGHEST, preferred_element_type=out_dtype.np)


dot_general = primitive(
    "dot_general",
    impl=_dot_general_impl,
    abstract_eval=_dot_general_abstract,
    lower=_dot_general_lower,
)


# --- shared rule shapes for the decompositions ------------------------------------------------------


def _real(dtype):
    return _dtypes.real_of(dtype)


def _complex(dtype):
    return _dtypes.complex_of(dtype)


def _cast(a, dtype) -> np.ndarray:
    """`a` as an ndarray of stridex dtype `dtype` (NumPy may return another precision or a scalar).

    Large results are moved to aligned storage (JAX then takes them without a copy); against the
    O(n^3) decomposition that made them, the copy is cheap.
    """
    a = np.asarray(a)
    if a.size >= ALIGNED_OUTPUT_ELEMENTS and (a.dtype != dtype.np or not is_aligned(a)):
        out = aligned_empty(a.shape, dtype.np)
        np.copyto(out, a, casting="unsafe")
        return out
    return a.astype(dtype.np, copy=False)


def _quiet(impl):
    """Run a decomposition's NumPy call without RuntimeWarnings: NaN/inf/overflow in, NaN/inf out."""

    def quiet_impl(*args, **params):
        with np.errstate(all="ignore"):
            return impl(*args, **params)

    return quiet_impl


def _single(name: str, np_function, shape_rule, **rules):
    """A one-output decomposition keeping its input's dtype: impl = an np.linalg function."""

    def impl(x, **params):
        return _cast(np_function(x, **params), _dtypes.FROM_NUMPY[x.dtype])

    def abstract_eval(x, **params):
        return ShapedArray(shape_rule(x.shape, **params), x.dtype)

    return primitive(name, impl=_quiet(impl), abstract_eval=abstract_eval, **rules)


# --- cholesky ----------------------------------------------------------------------------------------


def _cholesky_lower(ctx, x, *, upper):
    lower = lax().linalg.cholesky(x, symmetrize_input=False)  # reads the lower triangle, as NumPy does
    return jnp().conj(jnp().swapaxes(lower, -1, -2)) if upper else lower


cholesky = _single("cholesky", lambda x, *, upper: np.linalg.cholesky(x, upper=upper),
                   lambda shape, *, upper: shape, lower=_cholesky_lower)


# --- inv, det --------------------------------------------------------------------------------------

inv = _single("inv", np.linalg.inv, lambda shape: shape, lower=lambda ctx, x: jnp().linalg.inv(x))

det = _single("det", np.linalg.det, lambda shape: shape[:-2], lower=lambda ctx, x: jnp().linalg.det(x))


# --- slogdet ----------------------------------------------------------------------------------------


def _slogdet_impl(x):
    sign, logabsdet = np.linalg.slogdet(x)
    dtype = _dtypes.FROM_NUMPY[x.dtype]
    return _cast(sign, dtype), _cast(logabsdet, _real(dtype))


def _slogdet_abstract(x):
    shape = x.shape[:-2]
    return ShapedArray(shape, x.dtype), ShapedArray(shape, _real(x.dtype))


def _slogdet_lower(ctx, x):
    sign, logabsdet = jnp().linalg.slogdet(x)
    return as_dtype(sign, ctx.avals_out[0].dtype), as_dtype(logabsdet, ctx.avals_out[1].dtype)


slogdet = primitive(
    "slogdet",
    impl=_quiet(_slogdet_impl),
    abstract_eval=_slogdet_abstract,
    lower=_slogdet_lower,
    multiple_results=True,
)


# --- solve ------------------------------------------------------------------------------------------
# x1: (..., M, M), x2: (..., M, K) with the same batch shape (the namespace broadcasts and turns a
# vector right-hand side into a one-column matrix); the result has their promoted dtype.


def _solve_abstract(x1, x2):
    if x1.shape[:-2] != x2.shape[:-2] or x1.shape[-1] != x2.shape[-2]:
        raise ValueError(f"solve: expected (..., M, M) and (..., M, K) stacks, got {x1} and {x2}")
    return ShapedArray(x2.shape, _dtypes.promote(x1.dtype, x2.dtype))


def _solve_impl(x1, x2):
    dtype = np.promote_types(x1.dtype, x2.dtype)
    return _cast(np.linalg.solve(x1.astype(dtype, copy=False), x2.astype(dtype, copy=False)),
                 _dtypes.FROM_NUMPY[dtype])


def _solve_lower(ctx, x1, x2):
    dtype = ctx.aval_out.dtype
    x1, x2 = as_dtype(x1, dtype), as_dtype(x2, dtype)
    lu, _, permutation = lax().linalg.lu(x1)
    b = jnp().take_along_axis(x2, permutation[..., :, None], axis=-2)
    y = lax().linalg.triangular_solve(lu, b, left_side=True, lower=True, unit_diagonal=True)
    return lax().linalg.triangular_solve(lu, y, left_side=True, lower=False)


solve = primitive("solve", impl=_quiet(_solve_impl), abstract_eval=_solve_abstract, lower=_solve_lower)


# --- eigh (with or without eigenvectors) -----------------------------------------------------------------


def _eigh_impl(x, *, compute_vectors):
    dtype = _dtypes.FROM_NUMPY[x.dtype]
    if not compute_vectors:
        return (_cast(np.linalg.eigvalsh(x), _real(dtype)),)
    w, v = np.linalg.eigh(x)
    return _cast(w, _real(dtype)), _cast(v, dtype)


def _eigh_abstract(x, *, compute_vectors):
    w = ShapedArray(x.shape[:-1], _real(x.dtype))
    return (w, ShapedArray(x.shape, x.dtype)) if compute_vectors else (w,)


def _eigh_lower(ctx, x, *, compute_vectors):
    v, w = lax().linalg.eigh(x, lower=True, symmetrize_input=False, sort_eigenvalues=True)
    return (w, v) if compute_vectors else (w,)


eigh = primitive(
    "eigh",
    impl=_quiet(_eigh_impl),
    abstract_eval=_eigh_abstract,
    lower=_eigh_lower,
    multiple_results=True,
)


# --- eig (general matrices; complex results) ------------------------------------------------------------


def _eig_impl(x, *, compute_vectors):
    # Note: NumPy returns real results when every eigenvalue is real; the spec wants complex always.
    out = _complex(_dtypes.FROM_NUMPY[x.dtype])
    if not compute_vectors:
        return (_cast(np.linalg.eigvals(x), out),)
    w, v = np.linalg.eig(x)
    return _cast(w, out), _cast(v, out)


def _eig_abstract(x, *, compute_vectors):
    out = _complex(x.dtype)
    w = ShapedArray(x.shape[:-1], out)
    return (w, ShapedArray(x.shape, out)) if compute_vectors else (w,)


def _eig_lower(ctx, x, *, compute_vectors):
    out = lax().linalg.eig(x, compute_left_eigenvectors=False, compute_right_eigenvectors=compute_vectors)
    return tuple(as_dtype(o, a.dtype) for o, a in zip(out, ctx.avals_out))


eig = primitive(
    "eig",
    impl=_quiet(_eig_impl),
    abstract_eval=_eig_abstract,
    lower=_eig_lower,
    multiple_results=True,
)


# --- svd (U, S, Vh) or only the singular values --------------------------------------------------------


def _svd_impl(x, *, full_matrices, compute_uv):
    dtype = _dtypes.FROM_NUMPY[x.dtype]
    if not compute_uv:
        return (_cast(np.linalg.svd(x, compute_uv=False), _real(dtype)),)
    u, s, vh = np.linalg.svd(x, full_matrices=full_matrices)
    return _cast(u, dtype), _cast(s, _real(dtype)), _cast(vh, dtype)


def _svd_abstract(x, *, full_matrices, compute_uv):
    *batch, m, n = x.shape
    batch, k = tuple(batch), min(m, n)
    s = ShapedArray(batch + (k,), _real(x.dtype))
    if not compute_uv:
        return (s,)
    u_cols, vh_rows = (m, n) if full_matrices else (k, k)
    return ShapedArray(batch + (m, u_cols), x.dtype), s, ShapedArray(batch + (vh_rows, n), x.dtype)


def _svd_lower(ctx, x, *, full_matrices, compute_uv):
    if not compute_uv:
        return (lax().linalg.svd(x, full_matrices=False, compute_uv=False),)
    u, s, vh = lax().linalg.svd(x, full_matrices=full_matrices, compute_uv=True)
    return u, s, vh


svd = primitive(
    "svd",
    impl=_quiet(_svd_impl),
    abstract_eval=_svd_abstract,
    lower=_svd_lower,
    multiple_results=True,
)


# --- qr ---------------------------------------------------------------------------------------------------


def _qr_impl(x, *, mode):
    dtype = _dtypes.FROM_NUMPY[x.dtype]
    q, r = np.linalg.qr(x, mode=mode)
    return _cast(q, dtype), _cast(r, dtype)


def _qr_abstract(x, *, mode):
    *batch, m, n = x.shape
    batch, k = tuple(batch), min(m, n)
    rows = m if mode == "complete" else k
    return ShapedArray(batch + (m, rows), x.dtype), ShapedArray(batch + (rows, n), x.dtype)


def _qr_lower(ctx, x, *, mode):
    q, r = lax().linalg.qr(x, full_matrices=mode == "complete")
    return q, r


qr = primitive(
    "qr",
    impl=_quiet(_qr_impl),
    abstract_eval=_qr_abstract,
    lower=_qr_lower,
    multiple_results=True,
)
