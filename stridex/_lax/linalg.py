"""Linear-algebra primitives: dot_general (matmul, tensordot, vecdot, outer) and one record per decomposition.

Every decomposition works on stacks: its input's last two axes are the matrix axes, the leading ones are
batch axes. The eager rules call NumPy's LAPACK-backed `np.linalg` (which keeps float32/complex64 in single
precision); the lowerings call `jax.lax.linalg` or, where its semantics equal the spec's, `jax.numpy.linalg`.
Each primitive's block holds all its rules; the transformation rules are the standard matrix-calculus
formulas, and their conventions (which triangle cholesky/eigh differentiate, eigenvector and singular-vector
gauges, degenerate spectra) are written down above the helpers they share.

Note: where the spec leaves failures implementation-defined (a singular matrix for inv/solve, one that is not
positive definite for cholesky, NaN input to svd/eig), the eager rules raise NumPy's LinAlgError (a
ValueError) while compiled code, which cannot raise on data, returns NaNs as JAX does.
"""

from __future__ import annotations

from math import prod

import numpy as np

from stridex._core import dtypes as _dtypes
from stridex._core.avals import ShapedArray
from stridex._core.storage import ALIGNED_OUTPUT_ELEMENTS, aligned_empty, aligned_result
from stridex._lax import ops
from stridex._exec import precision as _precision
from stridex._exec.jax_bridge import as_dtype, jnp, lax
from stridex._lax.primitive import PRIMITIVES, Primitive, RuleShape
from stridex._lax.rule_shapes import move_to_front

# --- dot_general: contraction of two arrays over given axes, with batch axes -------------------------------
# `dimension_numbers = ((lhs_contract, rhs_contract), (lhs_batch, rhs_batch))`, as in `lax.dot_general`.
# The result's axes are: the batch axes, then the free axes of x1, then the free axes of x2, each in
# order. Batch axes must have equal sizes (the namespace broadcasts first); `out_dtype` is the promoted
# dtype both inputs are computed in.
# Rules hand-written: bilinear, so its JVP, VJP and batching are dot_general itself (no decomposition).


def _free_axes(ndim: int, *taken: tuple) -> tuple:
    used = set().union(*taken)
    return tuple(a for a in range(ndim) if a not in used)


def _dot_general_abstract(x1, x2, *, dimension_numbers, out_dtype):
    (c1, c2), (b1, b2) = dimension_numbers
    s1, s2 = x1.shape, x2.shape
    if any(s1[i] != s2[j] for i, j in zip(c1 + b1, c2 + b2)):
        raise ValueError(f"dot_general: contracted/batch axes of shapes {s1} and {s2} differ in size "
                         f"(dimension_numbers {dimension_numbers})")
    return ShapedArray(_dot_general_shape(s1, s2, dimension_numbers), out_dtype)


def _dot_general_shape(s1: tuple, s2: tuple, dimension_numbers) -> tuple:
    """The result shape: the batch axes, then the free axes of x1, then the free axes of x2."""
    (c1, c2), (b1, b2) = dimension_numbers
    return (tuple(s1[a] for a in b1) + tuple(s1[a] for a in _free_axes(len(s1), c1, b1))
            + tuple(s2[a] for a in _free_axes(len(s2), c2, b2)))


def _is_matmul_layout(ndim1: int, ndim2: int, dimension_numbers) -> bool:
    """Whether dot_general means exactly `np.matmul(x1, x2)` (which is then called directly)."""
    (c1, c2), (b1, b2) = dimension_numbers
    if c1 != (ndim1 - 1,) or c2 != (max(ndim2 - 2, 0),):
        return False
    if not b1:
        return not b2 and (ndim2 <= 2 or ndim1 == 1)
    return b1 == b2 == tuple(range(len(b1))) and ndim1 == ndim2 == len(b1) + 2


def _is_matrix_times_stack(ndim1: int, ndim2: int, dimension_numbers) -> bool:
    """Whether dot_general contracts a matrix x1 (M, K) with each matrix of a stack x2 (..., K, N)."""
    return ndim1 == 2 and ndim2 > 2 and dimension_numbers == (((1,), (ndim2 - 2,)), ((), ()))


def _matmul_into(a, b, shape, dtype):
    """`np.matmul(a, b)` reshaped to `shape` (the dot_general result), written into aligned memory when large.

    The storage policy's threshold is checked here rather than through `output_buffer`: below it, letting
    matmul allocate its result is faster than its `out=` path.
    """
    if prod(shape) >= ALIGNED_OUTPUT_ELEMENTS:
        out = aligned_empty(shape, dtype)
        np.matmul(a, b, out=out.reshape(a.shape[:-1] + b.shape[-1:]) if a.ndim >= 2 and b.ndim >= 2 else out)
        return out
    out = np.matmul(a, b)
    return out if type(out) is np.ndarray else np.asarray(out)


def _dot_general_impl(x1, x2, *, dimension_numbers, out_dtype):
    dtype = out_dtype.np
    if _dtypes.is_half(out_dtype):  # multiplied in float32, rounded once (stridex._lax.half)
        out = _dot_general_impl(x1, x2, dimension_numbers=dimension_numbers, out_dtype=_dtypes.float32)
        return aligned_result(out, dtype)
    if x1.dtype is not dtype:
        x1 = x1.astype(dtype, copy=False)
    if x2.dtype is not dtype:
        x2 = x2.astype(dtype, copy=False)
    if _is_matmul_layout(x1.ndim, x2.ndim, dimension_numbers):
        return _matmul_into(x1, x2, _dot_general_shape(x1.shape, x2.shape, dimension_numbers), dtype)
    if _is_matrix_times_stack(x1.ndim, x2.ndim, dimension_numbers):
        # (M, K) with (..., K, N) gives (M, ..., N): NumPy's broadcasting matmul, its M axis moved to the
        # front (a view; matmul's caller moves it back, so the product is written once, in its final order).
        shape = x2.shape[:-2] + x1.shape[:1] + x2.shape[-1:]
        out = aligned_empty(shape, dtype) if prod(shape) >= ALIGNED_OUTPUT_ELEMENTS else None
        return np.moveaxis(np.matmul(x1, x2, out=out), -2, 0)
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
    # The precision is read when JAX traces this rule, so every cache of compiled lowerings keys on
    # `precision.matmul_key()` (stridex/_exec/precision.py says which setting wins). Half types accumulate in
    # float32 and are rounded once, as eagerly; their operands stay half, for the GPU's half-precision units.
    accumulate = _dtypes.float32 if _dtypes.is_half(out_dtype) else out_dtype
    out = lax().dot_general(as_dtype(x1, out_dtype), as_dtype(x2, out_dtype), dimension_numbers,
                            precision=_precision.lax_precision(out_dtype), preferred_element_type=accumulate.np)
    return as_dtype(out, out_dtype)


def _dot_general_jvp(primals, tangents, *, dimension_numbers, out_dtype):
    x1, x2 = primals
    t1, t2 = tangents
    params = {"dimension_numbers": dimension_numbers, "out_dtype": out_dtype}
    out = dot_general.bind(x1, x2, **params)
    tangent = None
    if t1 is not None:
        tangent = dot_general.bind(t1, x2, **params)
    if t2 is not None:
        part = dot_general.bind(x1, t2, **params)
        tangent = part if tangent is None else tangent + part
    return out, tangent


def _permute_to(r, source):
    """r, whose axis i stands for axis source[i] of an operand, with its axes in the operand's order."""
    return ops.permute(r, tuple(source.index(a) for a in range(len(source))))


def _dot_general_vjp(ct, x1, x2, *, out, dimension_numbers, out_dtype):
    # The cotangent contracted with the other operand over that operand's free axes; the result's axes
    # (batch, own free, own contracted) are then permuted back into place.
    (c1, c2), (b1, b2) = dimension_numbers
    n1, n2 = x1.ndim, x2.ndim
    f1, f2 = _free_axes(n1, c1, b1), _free_axes(n2, c2, b2)
    nb = len(b1)
    ct_batch = tuple(range(nb))
    ct_free1 = tuple(range(nb, nb + len(f1)))
    ct_free2 = tuple(range(nb + len(f1), nb + len(f1) + len(f2)))
    g1 = g2 = None
    if _is_floating(x1):
        r = dot_general.bind(ct, x2, dimension_numbers=((ct_free2, f2), (ct_batch, b2)),
                             out_dtype=_dtypes.promote(ct.dtype, x2.dtype))
        # r's axes: x1's batch axes, x1's free axes, then x1's contracted axes in the order of x2's (sorted).
        source = list(b1) + list(f1) + [c1[i] for i in sorted(range(len(c2)), key=c2.__getitem__)]
        g1 = _permute_to(r, source)
    if _is_floating(x2):
        r = dot_general.bind(ct, x1, dimension_numbers=((ct_free1, f1), (ct_batch, b1)),
                             out_dtype=_dtypes.promote(ct.dtype, x1.dtype))
        source = list(b2) + list(f2) + [c2[i] for i in sorted(range(len(c1)), key=c1.__getitem__)]
        g2 = _permute_to(r, source)
    return g1, g2


def _dot_general_batch(values, dims, *, axis_size, dimension_numbers, out_dtype):
    """Both operands batched: a new leading batch axis. One batched: its batch axis is one more free axis."""
    (x1, x2), (d1, d2) = values, dims
    (c1, c2), (b1, b2) = dimension_numbers

    def shift(axes):
        return tuple(a + 1 for a in axes)

    if d1 is not None and d2 is not None:
        x1, x2 = move_to_front(x1, d1, axis_size), move_to_front(x2, d2, axis_size)
        numbers, out_dim = ((shift(c1), shift(c2)), ((0, *shift(b1)), (0, *shift(b2)))), 0
    elif d1 is not None:
        x1 = move_to_front(x1, d1, axis_size)
        numbers, out_dim = ((shift(c1), c2), (shift(b1), b2)), len(b1)  # the first of x1's free axes
    else:
        x2 = move_to_front(x2, d2, axis_size)
        numbers = ((c1, shift(c2)), (b1, shift(b2)))
        out_dim = len(b1) + len(_free_axes(x1.ndim, c1, b1))  # the first of x2's free axes
    return dot_general.bind(x1, x2, dimension_numbers=numbers, out_dtype=out_dtype), out_dim


dot_general = Primitive(
    "dot_general",
    impl=_dot_general_impl,
    abstract_eval=_dot_general_abstract,
    lower=_dot_general_lower,
    jvp=_dot_general_jvp,
    vjp=_dot_general_vjp,
    batch=_dot_general_batch,
)


# --- what the decompositions share: eager kernels, batching, matrix-calculus helpers ------------------------


def _real(dtype):
    return _dtypes.real_of(dtype)


def _complex(dtype):
    return _dtypes.complex_of(dtype)


def _cast(a, dtype) -> np.ndarray:
    """`a` as an ndarray of stridex dtype `dtype` (NumPy may return another precision or a scalar).

    Large results are moved to aligned storage (JAX then takes them without a copy); against the
    O(n^3) decomposition that made them, the copy is cheap.
    """
    return aligned_result(np.asarray(a), dtype.np)


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

    return Primitive(name, impl=_quiet(impl), abstract_eval=abstract_eval, **rules)


def _leading_batch(prim):
    def rule(values, dims, *, axis_size, **params):
        out = prim.bind(*[move_to_front(v, d, axis_size) for v, d in zip(values, dims)], **params)
        return (out, (0,) * len(out)) if prim.multiple_results else (out, 0)

    return rule


# The batching rule of every decomposition: the batch axis becomes the first stack axis (one call on the stack).
_batch_leading = RuleShape(_leading_batch)


# The transformation rules are written in internal operations, so they are traced, differentiated (grad of
# grad) and batched like user code. Complex conventions follow JAX: a VJP is the transpose of the JVP under
# the pairing Re(sum(a * b)) (no conjugation), so holomorphic maps transpose without conjugates.
#
# Which derivative: the exact derivative of what the eager rule computes, wherever LAPACK's output is a
# smooth, well-defined function of the input:
# * cholesky and eigh read one triangle of their input (cholesky: the lower one, or the upper one when
#   upper=True; eigh: the lower one), so their derivative is that of the Hermitian matrix built from that
#   triangle: gradients are supported on the triangle read (off-diagonal entries carry both halves); on
#   Hermitian tangents this equals the usual symmetric rule (Murray 2016 for cholesky).
# * eig's eigenvectors follow LAPACK's normalisation (unit norm, largest-modulus component real), and qr's
#   R has a real diagonal, so their derivatives are exact too.
# * Where LAPACK's output is not unique, a gauge is chosen: eigh's complex eigenvectors and svd's complex
#   singular vectors move with no phase change (Im diag(V^H dV) = 0); svd with full_matrices and qr in
#   "complete" mode extend U (V, Q) by a complement that turns only as much as the first columns force it
#   to. Functions invariant under these choices (eigenvalues, singular values, projectors U U^H, sign- or
#   phase-invariant products) get their exact derivative.
# * Degenerate eigenvalues (or singular values) have no eigenvector derivative; where two are exactly
#   equal the rules use 0 instead of 1/0 for their coupling, so functions of the eigenvalues alone (whose
#   vector cotangents are zero) still get finite gradients. inv, det, slogdet and solve need invertible
#   matrices (a singular one raises eagerly, as the primal does).
#
# Composite kernels (inv, det, slogdet, solve: one LAPACK call each, several steps inside it) keep
# hand-written rules: stridex has no LU or triangular-solve primitive to decompose them into, and their
# closed forms reuse the primitives themselves.


def _is_complex(x) -> bool:
    return x.dtype.kind == "complex floating"


def _is_floating(x) -> bool:
    return _dtypes.is_floating(x.dtype)


_mT = ops.matrix_transpose  # the transpose of the last two axes
_mm = ops.matmul
_diag = ops.diagonal  # the diagonal of the last two axes


def _conj(x):
    return ops.conj(x) if _is_complex(x) else x


def _mH(x):
    """Conjugate transpose of the last two axes."""
    return _conj(_mT(x))


def _solve(a, b):
    """a^-1 b for stacks of the same batch shape."""
    return solve.bind(a, b)


def _solve_right(b, a):
    """b a^-1 = (a^-T b^T)^T."""
    return _mT(solve.bind(_mT(a), _mT(b)))


def _row(v):
    """v (..., n) as (..., 1, n): entry [i, j] is v[j]."""
    return ops.expand_dims(v, -2)


def _col(v):
    """v (..., n) as (..., n, 1): entry [i, j] is v[i]."""
    return ops.expand_dims(v, -1)


def _diag_embed(d):
    return ops.eye(d.shape[-1], dtype=d.dtype) * _row(d)


def _real_part(x):
    return ops.real(x) if _is_complex(x) else x


def _safe_reciprocal(d):
    """1 / d where d != 0, else 0."""
    nonzero = d != 0
    return ops.where(nonzero, 1.0 / ops.where(nonzero, d, 1.0), 0.0)


def _coupling(w):
    """F[i, j] = 1 / (w[j] - w[i]) off the diagonal (0 where the two are equal, the diagonal included)."""
    return _safe_reciprocal(_row(w) - _col(w))


def _slice_axis(x, axis: int, start: int, stop: int):
    """The view x[..., start:stop, ...] on (nonnegative) `axis`."""
    if start == 0 and stop == x.shape[axis]:
        return x
    return ops.index(x, tuple(("slice", start, stop, 1) if a == axis else ("slice", 0, n, 1)
                              for a, n in enumerate(x.shape)))


def _concat(parts, axis: int):
    parts = [p for p in parts if p.shape[axis]]
    return parts[0] if len(parts) == 1 else ops.concat(parts, axis)


def _half_triangle(x, upper: bool = False):
    """The strict lower (upper) triangle of x plus half its diagonal."""
    return ops.triangle(x, 1 if upper else -1, upper) + _diag_embed(_diag(x) * 0.5)


def _hermitian_read(t, upper: bool):
    """The Hermitian matrix a decomposition reading t's lower (upper) triangle sees: H + H^H, H = half triangle."""
    half = _half_triangle(t, upper)
    return half + _mH(half)


def _hermitian_read_transpose(c, upper: bool):
    """The transpose of `_hermitian_read`: the half triangle of c + c^H."""
    return _half_triangle(c + _mH(c), upper)


def _trace_product(a, b):
    """sum(a * b) over the last two axes, as one contraction."""
    nb = a.ndim - 2
    batch = tuple(range(nb))
    return dot_general.bind(a, b, dimension_numbers=(((nb, nb + 1), (nb, nb + 1)), (batch, batch)),
                            out_dtype=_dtypes.promote(a.dtype, b.dtype))


# --- cholesky: A = L L^H (or U^H U with upper=True) -----------------------------------------------------
# dL = L Phi(L^-1 dA L^-H) with Phi = the half lower triangle (Murray 2016); the VJP is its transpose:
# dA-bar = L^-T Phi(L^T L-bar) conj(L)^-1. upper=True returns U = L^H.
# Rules hand-written: one LAPACK factorisation, not a composite.


def _cholesky_lower(ctx, x, *, upper):
    # lax reads the lower triangle; NumPy reads the lower one, or the upper one when upper=True, whose
    # conjugate transpose is the lower triangle of x^H.
    J = jnp()
    if not upper:
        return lax().linalg.cholesky(x, symmetrize_input=False)
    lower = lax().linalg.cholesky(J.conj(J.swapaxes(x, -1, -2)), symmetrize_input=False)
    return J.conj(J.swapaxes(lower, -1, -2))


def _cholesky_jvp(primals, tangents, *, upper):
    (x,), (t,) = primals, tangents
    out = cholesky.bind(x, upper=upper)
    lower = _mH(out) if upper else out
    inner = _solve(lower, _hermitian_read(t, upper))  # L^-1 dA
    inner = _mH(_solve(lower, _mH(inner)))  # L^-1 dA L^-H
    d_lower = _mm(lower, _half_triangle(inner))
    return out, _mH(d_lower) if upper else d_lower


def _cholesky_vjp(ct, x, *, out, upper):
    lower = _mH(out) if upper else out
    ct_lower = _mH(ct) if upper else ct
    phi = _half_triangle(_mm(_mT(lower), ct_lower))
    grad = _solve_right(_solve(_mT(lower), phi), _conj(lower))
    return (_hermitian_read_transpose(grad, upper),)


cholesky = _single("cholesky", lambda x, *, upper: np.linalg.cholesky(x, upper=upper),
                   lambda shape, *, upper: shape, lower=_cholesky_lower, jvp=_cholesky_jvp, vjp=_cholesky_vjp,
                   batch=_batch_leading)


# --- inv: the inverse; dY = -Y dA Y, its transpose -Y^T Y-bar Y^T ---------------------------------------
# Rules hand-written: two matmuls with inv's own output; deriving them through solve(A, I) would cost a solve.


def _inv_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    y = inv.bind(x)
    return y, -_mm(_mm(y, t), y)


def _inv_vjp(ct, x, *, out):
    yt = _mT(out)
    return (-_mm(_mm(yt, ct), yt),)


inv = _single("inv", np.linalg.inv, lambda shape: shape, lower=lambda ctx, x: jnp().linalg.inv(x),
              jvp=_inv_jvp, vjp=_inv_vjp, batch=_batch_leading)


# --- det: the determinant; d det = det * tr(A^-1 dA), its transpose det-bar * det * A^-T ----------------
# Rules hand-written: the closed form needs one inv; NumPy's LU-and-product kernel has no primitives to
# decompose into (and det = sign * exp(logabsdet) would lose det's zeros).


def _det_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    d = det.bind(x)
    return d, d * _trace_product(_mT(inv.bind(x)), t)


def _det_vjp(ct, x, *, out):
    return (_col(_col(ct * out)) * _mT(inv.bind(x)),)


det = _single("det", np.linalg.det, lambda shape: shape[:-2], lower=lambda ctx, x: jnp().linalg.det(x),
              jvp=_det_jvp, vjp=_det_vjp, batch=_batch_leading)


# --- slogdet: (sign, log|det|) ------------------------------------------------------------------------------
# With tau = tr(A^-1 dA), d logabsdet = Re(tau) and d sign = sign * i Im(tau) (zero when real).
# Rules hand-written: the closed form needs one inv, as det's; the LU kernel has no primitives to decompose into.


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


def _slogdet_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    sign, logabsdet = slogdet.bind(x)
    tau = _trace_product(_mT(inv.bind(x)), t)
    if not _is_complex(x):
        return (sign, logabsdet), (None, tau)
    return (sign, logabsdet), (sign * (ops.imag(tau) * 1j), _real_part(tau))


def _slogdet_vjp(ct, x, *, out):
    ct_sign, ct_logabsdet = ct
    coefficient = ct_logabsdet
    if _is_complex(x):
        coefficient = coefficient + ops.imag(ct_sign * out[0]) * 1j
    return (_col(_col(coefficient)) * _mT(inv.bind(x)),)


slogdet = Primitive(
    "slogdet",
    impl=_quiet(_slogdet_impl),
    abstract_eval=_slogdet_abstract,
    lower=_slogdet_lower,
    jvp=_slogdet_jvp,
    vjp=_slogdet_vjp,
    batch=_batch_leading,
    multiple_results=True,
)


# --- solve: X = A^-1 B ------------------------------------------------------------------------------------
# x1: (..., M, M), x2: (..., M, K) with the same batch shape (the namespace broadcasts and turns a
# vector right-hand side into a one-column matrix); the result has their promoted dtype.
# dX = A^-1 (dB - dA X); the transposes: B-bar = A^-T X-bar, A-bar = -B-bar X^T.
# Rules hand-written: they reuse solve itself; the LU and triangular solves inside it are no stridex primitives.


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


def _solve_jvp(primals, tangents):
    (a, b), (ta, tb) = primals, tangents
    x = solve.bind(a, b)
    rhs = tb
    if ta is not None:
        rhs = -_mm(ta, x) if rhs is None else rhs - _mm(ta, x)
    return x, solve.bind(a, rhs)


def _solve_vjp(ct, a, b, *, out):
    ct_b = solve.bind(_mT(a), ct)
    ct_a = -_mm(ct_b, _mT(out)) if _is_floating(a) else None
    return ct_a, ct_b


solve = Primitive(
    "solve",
    impl=_quiet(_solve_impl),
    abstract_eval=_solve_abstract,
    lower=_solve_lower,
    jvp=_solve_jvp,
    vjp=_solve_vjp,
    batch=_batch_leading,
)


# --- eigh: eigenvalues (and eigenvectors) of a Hermitian matrix ---------------------------------------------
# A = V diag(w) V^H (A read from the lower triangle). With M = V^H dA V: dw = Re diag(M),
# dV = V (F * M), F[i, j] = 1 / (w[j] - w[i]). The transpose: A-bar = conj(V) G V^T with
# G = diag(w-bar) + F * (V^T V-bar).
# Rules hand-written: one LAPACK decomposition; without vectors they compute the vectors the derivative needs.


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


def _eigh_jvp(primals, tangents, *, compute_vectors):
    (x,), (t,) = primals, tangents
    w, v = eigh.bind(x, compute_vectors=True)
    m = _mm(_mm(_mH(v), _hermitian_read(t, False)), v)
    dw = _real_part(_diag(m))
    if not compute_vectors:
        return (w,), (dw,)
    return (w, v), (dw, _mm(v, _coupling(w) * m))


def _eigh_vjp(ct, x, *, out, compute_vectors):
    if compute_vectors:
        (w, v), (ct_w, ct_v) = out, ct
        g = _diag_embed(ct_w) + _coupling(w) * _mm(_mT(v), ct_v)
    else:
        w, v = eigh.bind(x, compute_vectors=True)
        g = _diag_embed(ct[0])
    return (_hermitian_read_transpose(_mm(_mm(_conj(v), g), _mT(v)), False),)


eigh = Primitive(
    "eigh",
    impl=_quiet(_eigh_impl),
    abstract_eval=_eigh_abstract,
    lower=_eigh_lower,
    jvp=_eigh_jvp,
    vjp=_eigh_vjp,
    batch=_batch_leading,
    multiple_results=True,
)


# --- eig: eigenvalues (and eigenvectors) of a general matrix; complex results --------------------------------
# A = V diag(w) V^-1. With M = V^-1 dA V: dw = diag(M), and dV = V (F * M) + V diag(c), where c
# keeps LAPACK's normalisation of each eigenvector v_k: unit norm (Re c_k = -Re(v_k^H du_k)) and its
# largest-modulus component v_jk real (Im c_k = -Im(du_jk) / v_jk).
# Rules hand-written: one LAPACK decomposition; without vectors they compute the vectors the derivative needs.


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


def _largest_component(v):
    """A boolean mask, True at the largest-modulus entry of each column (the first of equals, as LAPACK)."""
    rows = ops.arange(v.shape[-2])
    return _col(rows) == _row(ops.argmax(ops.abs(v), axis=-2))


def _eig_jvp(primals, tangents, *, compute_vectors):
    (x,), (t,) = primals, tangents
    w, v = eig.bind(x, compute_vectors=True)
    m = _solve(v, _mm(t, v))
    dw = _diag(m)
    if not compute_vectors:
        return (w,), (dw,)
    du = _mm(v, _coupling(w) * m)
    mask = _largest_component(v)
    pivot = _real_part(ops.sum(ops.where(mask, v, 0.0), -2))
    norm_part = _real_part(ops.sum(_conj(v) * du, -2))
    phase_part = ops.imag(ops.sum(ops.where(mask, du, 0.0), -2)) / pivot
    return (w, v), (dw, du - v * _row(norm_part + phase_part * 1j))


def _eig_vjp(ct, x, *, out, compute_vectors):
    if compute_vectors:
        (w, v), (ct_w, ct_v) = out, ct
    else:
        (w, v), (ct_w,) = eig.bind(x, compute_vectors=True), ct
    g = _diag_embed(ct_w)
    if compute_vectors:
        mask = _largest_component(v)
        pivot = _real_part(ops.sum(ops.where(mask, v, 0.0), -2))
        s = ops.sum(ct_v * v, -2)
        ct_u = ct_v - _conj(v) * _row(_real_part(s)) + ops.where(mask, _row(ops.imag(s) / pivot * -1j), 0.0)
        g = g + _coupling(w) * _mm(_mT(v), ct_u)
    vt = _mT(v)
    return (_solve(vt, _mm(g, vt)),)


eig = Primitive(
    "eig",
    impl=_quiet(_eig_impl),
    abstract_eval=_eig_abstract,
    lower=_eig_lower,
    jvp=_eig_jvp,
    vjp=_eig_vjp,
    batch=_batch_leading,
    multiple_results=True,
)


# --- svd: (U, S, Vh), or only the singular values ----------------------------------------------------------
# A = U diag(s) V^H with k = min(m, n) singular triplets. With dS = U^H dA V:
#   ds = Re diag(dS)
#   dU = U (F * (dS S + (dS S)^H) + i Im diag(dS) / s) + (I - U U^H) dA V / s
#   dV = V (F * (S dS + (S dS)^H)) + (I - V V^H) dA^H U / s,     F[i, j] = 1 / (s[j]^2 - s[i]^2)
# full_matrices: the complement Q of U (P of V) moves by dQ = -U dU^H Q (the least turning that keeps it
# orthogonal to U). The VJP is the transpose of these maps, term by term.
# Rules hand-written: one LAPACK decomposition; without U and V they compute the vectors the derivative needs.


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


def _svd_parts(x, out, full_matrices):
    """(U, s, V, Q, P): the k singular triplets of x and the complements of U and V (or None)."""
    m, n = x.shape[-2:]
    k = min(m, n)
    u_full, s, vh_full = out
    u, vh = _slice_axis(u_full, u_full.ndim - 1, 0, k), _slice_axis(vh_full, vh_full.ndim - 2, 0, k)
    q = _slice_axis(u_full, u_full.ndim - 1, k, m) if full_matrices and m > k else None
    p = _mH(_slice_axis(vh_full, vh_full.ndim - 2, k, n)) if full_matrices and n > k else None
    return u, s, _mH(vh), q, p


def _svd_jvp(primals, tangents, *, full_matrices, compute_uv):
    (x,), (t,) = primals, tangents
    m, n = x.shape[-2:]
    k = min(m, n)
    out = svd.bind(x, full_matrices=full_matrices and compute_uv, compute_uv=True)
    u, s, v, q, p = _svd_parts(x, out, full_matrices and compute_uv)
    ds_matrix = _mm(_mm(_mH(u), t), v)
    ds = _real_part(_diag(ds_matrix))
    if not compute_uv:
        return (s,), (ds,)
    s_row, s_col = _row(s), _col(s)
    f = _safe_reciprocal(s_row * s_row - s_col * s_col)
    s_inv = _safe_reciprocal(s)
    dss, sds = ds_matrix * s_row, s_col * ds_matrix
    inner_u = f * (dss + _mH(dss))
    if _is_complex(x):
        inner_u = inner_u + _diag_embed(ops.imag(_diag(ds_matrix)) * s_inv * 1j)
    du = _mm(u, inner_u)
    dv = _mm(v, f * (sds + _mH(sds)))
    if m > k:
        tv = _mm(t, v)
        du = du + (tv - _mm(u, _mm(_mH(u), tv))) * _row(s_inv)
    if n > k:
        tu = _mm(_mH(t), u)
        dv = dv + (tu - _mm(v, _mm(_mH(v), tu))) * _row(s_inv)
    if q is not None:
        du = _concat([du, -_mm(u, _mm(_mH(du), q))], du.ndim - 1)
    if p is not None:
        dv = _concat([dv, -_mm(v, _mm(_mH(dv), p))], dv.ndim - 1)
    return out, (du, ds, _mH(dv))


def _svd_vjp(ct, x, *, out, full_matrices, compute_uv):
    m, n = x.shape[-2:]
    k = min(m, n)
    if not compute_uv:
        u, s, v, _, _ = _svd_parts(x, svd.bind(x, full_matrices=False, compute_uv=True), False)
        return (_mm(_mm(_conj(u), _diag_embed(ct[0])), _mT(v)),)
    u, s, v, q, p = _svd_parts(x, out, full_matrices)
    ct_u_full, ct_s, ct_vh_full = ct
    ct_u = _slice_axis(ct_u_full, ct_u_full.ndim - 1, 0, k)
    ct_v = _mH(_slice_axis(ct_vh_full, ct_vh_full.ndim - 2, 0, k))
    if q is not None:  # the transpose of dQ = -U dU^H Q
        ct_q = _slice_axis(ct_u_full, ct_u_full.ndim - 1, k, m)
        ct_u = ct_u - _mm(_mm(_conj(q), _mH(ct_q)), _conj(u))
    if p is not None:
        ct_p = _mH(_slice_axis(ct_vh_full, ct_vh_full.ndim - 2, k, n))
        ct_v = ct_v - _mm(_mm(_conj(p), _mH(ct_p)), _conj(v))
    s_row, s_col = _row(s), _col(s)
    f = _safe_reciprocal(s_row * s_row - s_col * s_col)
    s_inv = _safe_reciprocal(s)
    inner_u = _mm(_mT(u), ct_u)
    inner_v = _mm(_mT(v), ct_v)
    fu, fv = f * inner_u, f * inner_v
    ct_ds = _diag_embed(ct_s) + (fu + _mH(fu)) * s_row + s_col * (fv + _mH(fv))
    if _is_complex(x):
        ct_ds = ct_ds + _diag_embed(ops.imag(_diag(inner_u)) * s_inv * 1j)
    vt = _mT(v)
    grad = _mm(_mm(_conj(u), ct_ds), vt)
    if m > k:
        grad = grad + _mm((ct_u - _mm(_conj(u), _mm(_mT(u), ct_u))) * _row(s_inv), vt)
    if n > k:
        ct_vh = _mH(ct_v)
        grad = grad + _mm(_conj(u), _col(s_inv) * (ct_vh - _mm(_mm(ct_vh, _conj(v)), vt)))
    return (grad,)


svd = Primitive(
    "svd",
    impl=_quiet(_svd_impl),
    abstract_eval=_svd_abstract,
    lower=_svd_lower,
    jvp=_svd_jvp,
    vjp=_svd_vjp,
    batch=_batch_leading,
    multiple_results=True,
)


# --- qr: A = Q R ---------------------------------------------------------------------------------------------
# k = min(m, n), R = [R1 R2] (R1 k x k upper triangular with a real diagonal, as LAPACK's Householder QR
# gives). With B = dA1 R1^-1 and C = Q^H B, the skew-Hermitian Omega = Q^H dQ is
# tril(C, -1) - tril(C, -1)^H + i Im diag(C), and dQ = Q (Omega - C) + B, dR1 = (C - Omega) R1,
# dR2 = Q^H dA2 - Omega R2. In "complete" mode with m > n the complement moves as in svd.
# Rules hand-written: one LAPACK factorisation, not a composite.


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


def _omega(c):
    strict = ops.triangle(c, -1, False)
    omega = strict - _mH(strict)
    return omega + _diag_embed(ops.imag(_diag(c)) * 1j) if _is_complex(c) else omega


def _omega_transpose(c):
    omega = ops.triangle(c - _mH(c), -1, False)
    return omega + _diag_embed(ops.imag(_diag(c)) * 1j) if _is_complex(c) else omega


def _qr_parts(x, out, mode):
    m, n = x.shape[-2:]
    k = min(m, n)
    q_full, r_full = out
    q = _slice_axis(q_full, q_full.ndim - 1, 0, k)
    r = _slice_axis(r_full, r_full.ndim - 2, 0, k)
    complement = _slice_axis(q_full, q_full.ndim - 1, k, m) if mode == "complete" and m > k else None
    return q, r, complement


def _qr_jvp(primals, tangents, *, mode):
    (x,), (t,) = primals, tangents
    m, n = x.shape[-2:]
    k = min(m, n)
    last = x.ndim - 1
    out = qr.bind(x, mode=mode)
    q, r, complement = _qr_parts(x, out, mode)
    r1, r2 = _slice_axis(r, last, 0, k), _slice_axis(r, last, k, n)
    b = _solve_right(_slice_axis(t, last, 0, k), r1)
    c = _mm(_mH(q), b)
    omega = _omega(c)
    dq = _mm(q, omega - c) + b
    dr = _mm(c - omega, r1)
    if n > k:
        dr = _concat([dr, _mm(_mH(q), _slice_axis(t, last, k, n)) - _mm(omega, r2)], last)
    if complement is not None:
        dq = _concat([dq, -_mm(q, _mm(_mH(dq), complement))], last)
        dr = _concat([dr, ops.zeros(dr.shape[:-2] + (m - k, n), dr.dtype)], last - 1)
    return out, (dq, dr)


def _qr_vjp(ct, x, *, out, mode):
    m, n = x.shape[-2:]
    k = min(m, n)
    last = x.ndim - 1
    q, r, complement = _qr_parts(x, out, mode)
    ct_q_full, ct_r_full = ct
    ct_q = _slice_axis(ct_q_full, last, 0, k)
    ct_r = _slice_axis(ct_r_full, last - 1, 0, k)
    if complement is not None:
        ct_complement = _slice_axis(ct_q_full, last, k, m)
        ct_q = ct_q - _mm(_mm(_conj(complement), _mH(ct_complement)), _conj(q))
    r1 = _slice_axis(r, last, 0, k)
    qt_ct_q = _mm(_mT(q), ct_q)
    ct_omega = qt_ct_q - _mm(ct_r, _mT(r))
    ct_c = _mm(_slice_axis(ct_r, last, 0, k), _mT(r1)) - qt_ct_q + _omega_transpose(ct_omega)
    ct_b = ct_q + _mm(_conj(q), ct_c)
    grad = _solve_right(ct_b, _mT(r1))
    if n > k:
        grad = _concat([grad, _mm(_conj(q), _slice_axis(ct_r, last, k, n))], last)
    return (grad,)


qr = Primitive(
    "qr",
    impl=_quiet(_qr_impl),
    abstract_eval=_qr_abstract,
    lower=_qr_lower,
    jvp=_qr_jvp,
    vjp=_qr_vjp,
    batch=_batch_leading,
    multiple_results=True,
)


# The primitives whose lowering reads the matmul precision (`stridex._exec.precision`): every one lowered in
# this module (dot_general, and the decompositions, whose JAX lowerings multiply matrices). A compiled
# program without them is served under any precision setting (`jit`'s memo path).
PRECISION_SENSITIVE = frozenset(name for name, p in PRIMITIVES.items()
                                if p.lower is not None and p.lower.__module__ == __name__)
