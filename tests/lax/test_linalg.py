"""Transformation rules of the linalg and fft primitives: jvp/vjp against finite differences (real and complex
inputs), vmap against a Python loop, grad of grad, jit and vmap of grad, and gradients against JAX's."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import stridex as sx
from stridex._lax import fft as fft_primitives
from stridex._lax import linalg as linalg_primitives
from stridex._lax.primitive import PRIMITIVES
from tests.autodiff_check import check_batch, check_grads, check_vjp

L = sx.linalg
F = sx.fft
RNG = np.random.default_rng(20251207)


def normal(*shape, complex_=False):
    a = RNG.standard_normal(shape)
    return a + 1j * RNG.standard_normal(shape) if complex_ else a


def well_conditioned(*shape, complex_=False):
    return normal(*shape, complex_=complex_) + 3 * np.eye(shape[-1])


def positive_definite(*shape, complex_=False):
    a = normal(*shape, complex_=complex_)
    return a @ np.conj(np.swapaxes(a, -1, -2)) + shape[-1] * np.eye(shape[-1])


def separated_symmetric(n, batch=()):
    """Symmetric matrices with eigenvalues 1, 2, ..., n (well separated) in a random basis."""
    q, _ = np.linalg.qr(normal(*batch, n, n))
    return q @ (np.arange(1.0, n + 1)[:, None] * np.swapaxes(q, -1, -2))


def sq(x):
    return x * x


# --- complex inputs: jvp against finite differences, vjp as the transpose of jvp ---------------------------


def _leaves(out):
    return [np.asarray(o) for o in out] if isinstance(out, (tuple, list)) else [np.asarray(out)]


def check_complex_jvp(f, args, eps=1e-6, rtol=1e-5, atol=1e-6):
    """sx.jvp(f) equals central differences along random (complex where the input is) directions."""
    tangents = [normal(*a.shape, complex_=np.iscomplexobj(a)) for a in args]
    _, t_out = sx.jvp(f, tuple(sx.asarray(a) for a in args), tuple(sx.asarray(t) for t in tangents))
    plus = _leaves(f(*[sx.asarray(a + eps * t) for a, t in zip(args, tangents)]))
    minus = _leaves(f(*[sx.asarray(a - eps * t) for a, t in zip(args, tangents)]))
    for got, p, m in zip(_leaves(t_out), plus, minus):
        np.testing.assert_allclose(got, (p - m) / (2 * eps), rtol=rtol, atol=atol)


def check_transpose(f, args):
    """vjp is the transpose of jvp under Re(sum(a * b)): <vjp(ct), t> == <ct, jvp(t)> (JAX's convention)."""
    xs = [sx.asarray(a) for a in args]
    tangents = [normal(*a.shape, complex_=np.iscomplexobj(a)) for a in args]
    out, pullback = sx.vjp(f, *xs)
    outs = _leaves(out)
    cts = [normal(*o.shape, complex_=np.iscomplexobj(o)) for o in outs]
    if isinstance(out, (tuple, list)):
        ct = [sx.asarray(c) for c in cts]
        ct = type(out)(*ct) if hasattr(out, "_fields") else type(out)(ct)
    else:
        ct = sx.asarray(cts[0])
    grads = pullback(ct)
    _, t_out = sx.jvp(f, tuple(xs), tuple(sx.asarray(t) for t in tangents))
    lhs = sum(np.real(np.sum(np.asarray(g) * t)) for g, t in zip(grads, tangents))
    rhs = sum(np.real(np.sum(c * t)) for c, t in zip(cts, _leaves(t_out)))
    np.testing.assert_allclose(lhs, rhs, rtol=1e-9, atol=1e-9)


# --- products ----------------------------------------------------------------------------------------------


PRODUCTS = [
    ("matmul", sx.matmul, [(3, 4), (4, 2)]),
    ("matmul_stacks", sx.matmul, [(2, 1, 3, 4), (5, 4, 2)]),
    ("vector_matrix", sx.matmul, [(4,), (5, 4, 2)]),
    ("matrix_vector", sx.matmul, [(2, 3, 4), (4,)]),
    ("tensordot", lambda a, b: sx.tensordot(a, b, axes=((2, 0), (0, 1))), [(3, 4, 5), (5, 3, 2)]),
    ("vecdot", lambda a, b: sx.vecdot(a, b, axis=0), [(3, 4), (3, 1)]),
    ("outer", L.outer, [(3,), (4,)]),
    ("chain", lambda a, b: sx.matmul(sx.matmul(a, b), sx.matrix_transpose(a)), [(3, 4), (4, 4)]),
]


@pytest.mark.parametrize("case", PRODUCTS, ids=[c[0] for c in PRODUCTS])
def test_products(case):
    _, f, shapes = case
    check_grads(f, [normal(*s) for s in shapes])
    complex_args = [normal(*s, complex_=True) for s in shapes]
    check_complex_jvp(f, complex_args)
    check_transpose(f, complex_args)


@settings(max_examples=25, deadline=None)
@given(st.data())
def test_tensordot_any_contraction(data):
    """Random contractions (axes of x1 with a permutation of axes of x2), some operand dtypes mixed."""
    n1 = data.draw(st.integers(1, 4))
    shape1 = tuple(data.draw(st.lists(st.integers(1, 3), min_size=n1, max_size=n1)))
    contracted = data.draw(st.lists(st.sampled_from(range(n1)), unique=True, max_size=n1))
    free2 = tuple(data.draw(st.lists(st.integers(1, 3), max_size=2)))
    order = data.draw(st.permutations(range(len(contracted) + len(free2))))
    pieces = [shape1[a] for a in contracted] + list(free2)
    shape2 = tuple(pieces[i] for i in order)
    axes2 = [order.index(i) for i in range(len(contracted))]
    f = lambda a, b: sx.tensordot(a, b, axes=(contracted, axes2))
    check_grads(f, [normal(*shape1), normal(*shape2)])


def test_integer_operand_gets_no_cotangent():
    x = sx.asarray(np.arange(6).reshape(2, 3))
    g = sx.grad(lambda w: sx.sum(sx.matmul(x, w)))(sx.asarray(normal(3, 2)))
    np.testing.assert_allclose(np.asarray(g), np.repeat(np.arange(6).reshape(2, 3).sum(0)[:, None], 2, 1))


# --- decompositions and solvers ------------------------------------------------------------------------------


def _eigh_invariants(a):
    w, v = L.eigh(a)
    # |v|^2 and V diag(w) V^H do not depend on the eigenvectors' signs (phases)
    return w, v * sx.conj(v), sx.matmul(v * w[..., None, :], sx.conj(sx.matrix_transpose(v)))


def _svd_invariants(a):
    u, s, vh = L.svd(a, full_matrices=False)
    return s, u * sx.conj(u), sx.matmul(u * s[..., None, :], vh), sx.matmul(u, vh)


def _svd_full_projectors(a):
    u, s, vh = L.svd(a)
    k = min(a.shape[-2:])
    complement = u[..., :, k:]
    return s, sx.matmul(complement, sx.conj(sx.matrix_transpose(complement))), sx.matmul(sx.conj(vh.mT), vh)


DECOMPOSITIONS = [
    # (name, function, input maker, also differentiate complex inputs by finite differences)
    ("inv", L.inv, lambda c: well_conditioned(2, 3, 3, complex_=c), True),
    ("det", L.det, lambda c: well_conditioned(2, 3, 3, complex_=c), True),
    ("slogdet", lambda a: tuple(L.slogdet(a)), lambda c: well_conditioned(2, 3, 3, complex_=c), True),
    ("cholesky", L.cholesky, lambda c: positive_definite(2, 3, 3, complex_=c), True),
    ("cholesky_upper", lambda a: L.cholesky(a, upper=True), lambda c: positive_definite(3, 3, complex_=c), True),
    ("eigvalsh", L.eigvalsh, lambda c: normal(2, 4, 4, complex_=c), True),
    ("eigh", _eigh_invariants, lambda c: normal(4, 4, complex_=c), True),
    ("eigh_separated", lambda a: tuple(L.eigh(a)), lambda c: separated_symmetric(4, (2,)), False),
    ("eigvals", L.eigvals, lambda c: normal(2, 4, 4, complex_=c), True),
    ("eig", lambda a: tuple(L.eig(a)), lambda c: normal(4, 4, complex_=c), True),
    ("svdvals_tall", L.svdvals, lambda c: normal(2, 4, 3, complex_=c), True),
    ("svdvals_wide", L.svdvals, lambda c: normal(3, 5, complex_=c), True),
    ("svd_tall", _svd_invariants, lambda c: normal(4, 3, complex_=c), True),
    ("svd_wide", _svd_invariants, lambda c: normal(2, 3, 4, complex_=c), True),
    ("svd_real_vectors", lambda a: tuple(L.svd(a, full_matrices=False)), lambda c: normal(4, 3), False),
    ("svd_full_tall", _svd_full_projectors, lambda c: normal(4, 2, complex_=c), True),
    ("svd_full_wide", _svd_full_projectors, lambda c: normal(2, 4, complex_=c), True),
    ("qr_tall", lambda a: tuple(L.qr(a)), lambda c: normal(2, 4, 3, complex_=c), True),
    ("qr_wide", lambda a: tuple(L.qr(a)), lambda c: normal(3, 5, complex_=c), True),
    ("qr_complete_square", lambda a: tuple(L.qr(a, mode="complete")), lambda c: normal(3, 3, complex_=c), True),
    ("qr_complete_tall", lambda a: (L.qr(a, mode="complete").R, sx.matmul(L.qr(a, mode="complete").Q[:, 2:],
                                                                            sx.conj(L.qr(a, mode="complete").Q[:, 2:].mT))),
     lambda c: normal(4, 2, complex_=c), True),
    ("solve_vector", lambda a, b: L.solve(a, b), lambda c: (well_conditioned(2, 3, 3, complex_=c),
                                                           normal(3, complex_=c)), True),
    ("solve_matrix", lambda a, b: L.solve(a, b), lambda c: (well_conditioned(3, 3, complex_=c),
                                                           normal(2, 3, 2, complex_=c)), True),
]


def _args(make, complex_):
    made = make(complex_)
    return list(made) if isinstance(made, tuple) else [made]


def check_grads_each_output(f, args):
    """check_grads on each output of f, on the real and imaginary parts of complex ones (it takes one real output)."""
    out = f(*[sx.asarray(a) for a in args])
    outs = out if isinstance(out, tuple) else (out,)
    for i, o in enumerate(outs):
        g = (lambda *a, i=i: f(*a)[i]) if isinstance(out, tuple) else f
        if o.dtype.kind == "complex floating":
            check_grads(lambda *a, g=g: sx.real(g(*a)), args)
            check_grads(lambda *a, g=g: sx.imag(g(*a)), args)
        else:
            check_grads(g, args)


@pytest.mark.parametrize("case", DECOMPOSITIONS, ids=[c[0] for c in DECOMPOSITIONS])
def test_decompositions(case):
    name, f, make, complex_too = case
    # Inputs must not depend on which tests ran before: each case draws from its own seeded stream.
    RNG.bit_generator.state = np.random.default_rng(sum(map(ord, name))).bit_generator.state
    check_grads_each_output(f, _args(make, False))
    complex_args = _args(make, True)
    if complex_too:
        check_complex_jvp(f, complex_args)
    check_transpose(f, complex_args)


def test_complex_vectors_transpose_their_jvp():
    """The vector rules' gauge choices (eigh, svd phases) are their own; vjp must still be jvp's transpose."""
    check_transpose(lambda a: tuple(L.eigh(a)), [normal(4, 4, complex_=True)])
    for shape in [(4, 3), (3, 4)]:
        check_transpose(lambda a: tuple(L.svd(a, full_matrices=False)), [normal(*shape, complex_=True)])
        check_transpose(lambda a: tuple(L.svd(a)), [normal(*shape, complex_=True)])
    check_transpose(lambda a: tuple(L.qr(a, mode="complete")), [normal(4, 2, complex_=True)])


def test_cholesky_and_eigh_differentiate_the_triangle_they_read():
    """Any perturbation is allowed: only the triangle read moves the result, so the gradient lives there."""
    a = positive_definite(3, 3)
    g = np.asarray(sx.grad(lambda x: sx.sum(sq(L.cholesky(x))))(sx.asarray(a)))
    assert np.all(np.triu(g, 1) == 0)
    g = np.asarray(sx.grad(lambda x: sx.sum(sq(L.cholesky(x, upper=True))))(sx.asarray(a)))
    assert np.all(np.tril(g, -1) == 0)
    g = np.asarray(sx.grad(lambda x: sx.sum(L.eigvalsh(x) * sx.asarray([1.0, 2.0, 3.0])))(sx.asarray(a)))
    assert np.all(np.triu(g, 1) == 0)
    check_grads(lambda x: L.eigvalsh(x), [np.tril(separated_symmetric(3)) + np.triu(normal(3, 3), 1)])


def test_degenerate_eigenvalues_give_finite_eigenvalue_gradients():
    eye = sx.asarray(np.eye(3))
    for f in (lambda x: sx.sum(L.eigh(x).eigenvalues * sx.asarray([1.0, 2.0, 3.0])),
              lambda x: sx.sum(L.svd(x).S), lambda x: sx.sum(sx.real(L.eig(x).eigenvalues))):
        g = np.asarray(sx.grad(f)(eye))
        assert np.all(np.isfinite(g)), g


# --- norms and other compositions ------------------------------------------------------------------------------


COMPOSITIONS = [
    ("matrix_norm_fro", lambda a: L.matrix_norm(a), (2, 3, 4)),
    ("matrix_norm_nuc", lambda a: L.matrix_norm(a, ord="nuc"), (2, 3, 4)),
    ("matrix_norm_2", lambda a: L.matrix_norm(a, ord=2), (4, 3)),
    ("matrix_norm_-2", lambda a: L.matrix_norm(a, ord=-2), (3, 3)),
    ("matrix_norm_1", lambda a: L.matrix_norm(a, ord=1, keepdims=True), (3, 4)),
    ("matrix_norm_inf", lambda a: L.matrix_norm(a, ord=float("inf")), (3, 4)),
    ("vector_norm_2", lambda a: L.vector_norm(a, axis=(0, 2)), (2, 3, 4)),
    ("vector_norm_1", lambda a: L.vector_norm(a, ord=1, axis=-1), (3, 4)),
    ("vector_norm_inf", lambda a: L.vector_norm(a, ord=float("inf")), (3, 4)),
    ("vector_norm_3", lambda a: L.vector_norm(a, ord=3, keepdims=True), (5,)),
    ("trace", lambda a: L.trace(sx.matmul(a, a)), (2, 3, 3)),
    ("matrix_power", lambda a: L.matrix_power(a, -3), (3, 3)),
    ("pinv", L.pinv, (4, 3)),
    ("cross", lambda a: L.cross(a, a[::-1] * 2.0), (4, 3)),
]


@pytest.mark.parametrize("case", COMPOSITIONS, ids=[c[0] for c in COMPOSITIONS])
def test_compositions(case):
    _, f, shape = case
    a = normal(*shape)
    if case[0] == "matrix_power":
        a = a + 3 * np.eye(shape[-1])
    check_grads(f, [a])


# --- fft ---------------------------------------------------------------------------------------------------------


FFTS = [
    ("fft", lambda n, norm: lambda a: F.fft(a, n=n, norm=norm), (2, 5), True),
    ("ifft", lambda n, norm: lambda a: F.ifft(a, n=n, axis=0, norm=norm), (5, 2), True),
    ("rfft", lambda n, norm: lambda a: F.rfft(a, n=n, norm=norm), (2, 5), False),
    ("ihfft", lambda n, norm: lambda a: F.ihfft(a, n=n, norm=norm), (2, 5), False),
    ("irfft", lambda n, norm: lambda a: F.irfft(a, n=n, norm=norm), (2, 5), True),
    ("irfft_even", lambda n, norm: lambda a: F.irfft(a, n=n, norm=norm), (2, 4), True),
    ("hfft", lambda n, norm: lambda a: F.hfft(a, n=n, norm=norm), (2, 5), True),
    ("fftn", lambda n, norm: lambda a: F.fftn(a, s=(3, n or 5), axes=(0, 2), norm=norm), (4, 2, 5), True),
    ("ifftn", lambda n, norm: lambda a: F.ifftn(a, norm=norm), (4, 2, 3), True),
    ("rfftn", lambda n, norm: lambda a: F.rfftn(a, s=(3, n or 6), axes=(2, 0), norm=norm), (4, 2, 5), False),
    ("irfftn", lambda n, norm: lambda a: F.irfftn(a, s=(3, n or 7), axes=(0, 2), norm=norm), (4, 2, 5), True),
]


@pytest.mark.parametrize("norm", ["backward", "ortho", "forward"])
@pytest.mark.parametrize("n", [None, 3, 8])
@pytest.mark.parametrize("case", FFTS, ids=[c[0] for c in FFTS])
def test_fft(case, n, norm):
    _, make, shape, complex_input = case
    f = make(n, norm)
    args = [normal(*shape, complex_=complex_input)]
    check_complex_jvp(f, args)
    check_transpose(f, args)


def test_fft_real_gradients():
    check_grads(lambda x: sx.real(F.ifft(F.fft(x * (1 + 0j)) * F.fft(x * (1 + 0j)))), [normal(6)])
    check_grads(lambda x: F.irfft(F.rfft(x) * F.rfft(x), n=6), [normal(2, 6)])
    check_grads(lambda x: sx.abs(F.rfftn(x, axes=(0, 1))), [normal(3, 4)])
    check_grads(lambda x: F.fftshift(F.fftfreq(5) * x), [normal(5)])


# --- vmap ------------------------------------------------------------------------------------------------------


def spd(*shape):
    return sx.asarray(positive_definite(*shape))


def arr(*shape, complex_=False):
    return sx.asarray(normal(*shape, complex_=complex_))


BATCHES = [
    ("dot_general_both", sx.matmul, [arr(3, 2, 4), arr(3, 4, 5)], (0, 0)),
    ("dot_general_x1", sx.matmul, [arr(2, 3, 4), arr(4, 5)], (1, None)),
    ("dot_general_x2", sx.matmul, [arr(2, 4), arr(4, 5, 3)], (None, 2)),
    ("dot_general_vector", sx.matmul, [arr(3, 4), arr(4, 3)], (0, 1)),
    ("dot_general_tensordot", lambda a, b: sx.tensordot(a, b, axes=((0,), (1,))), [arr(3, 4, 2), arr(5, 3)],
     (2, None)),
    ("dot_general_vecdot", sx.vecdot, [arr(3, 4, complex_=True), arr(4, 3, complex_=True)], (0, 1)),
    ("cholesky", L.cholesky, [spd(3, 4, 4)], (0,)),
    ("cholesky_upper", lambda a: L.cholesky(a, upper=True), [spd(3, 4, 4)], (0,)),
    ("inv", L.inv, [arr(3, 3, 4)], (2,)),
    ("det", L.det, [arr(3, 3, 3)], (1,)),
    ("slogdet", lambda a: tuple(L.slogdet(a)), [arr(3, 3, 3)], (0,)),
    ("solve_matrix_rhs", L.solve, [arr(3, 3, 3), arr(3, 3, 2)], (2, 1)),
    ("solve_vector_rhs", L.solve, [arr(3, 3, 3), arr(3, 3)], (0, None)),
    ("solve_batched_rhs", L.solve, [arr(3, 3), arr(3, 2, 3)], (None, 1)),
    ("eigh", lambda a: tuple(L.eigh(a)), [arr(3, 4, 4)], (0,)),
    ("eigvalsh", L.eigvalsh, [arr(4, 4, 3)], (2,)),
    ("eig", lambda a: tuple(L.eig(a)), [arr(3, 4, 4)], (0,)),
    ("eigvals", L.eigvals, [arr(3, 4, 4)], (0,)),
    ("svd", lambda a: tuple(L.svd(a)), [arr(3, 4, 2)], (0,)),
    ("svdvals", L.svdvals, [arr(4, 3, 2)], (1,)),
    ("qr", lambda a: tuple(L.qr(a)), [arr(3, 4, 2)], (0,)),
    ("fft", lambda a: F.fft(a, n=6), [arr(3, 5, complex_=True)], (0,)),
    ("rfftn", lambda a: F.rfftn(a, axes=(0, 1)), [arr(3, 5, 4)], (2,)),
    ("irfft", lambda a: F.irfft(a, axis=0), [arr(3, 5, complex_=True)], (1,)),
    ("hfft", F.hfft, [arr(3, 5, complex_=True)], (0,)),
]


@pytest.mark.parametrize("case", BATCHES, ids=[c[0] for c in BATCHES])
def test_batch(case):
    _, f, args, in_axes = case
    check_batch(f, args, in_axes, rtol=1e-10, atol=1e-12)


def test_fftfreq_under_vmap():
    check_batch(lambda x: x * F.fftfreq(4), [arr(3, 4)], (0,))


# --- compositions of transformations ---------------------------------------------------------------------------


SCALAR_LOSSES = [
    ("matmul", lambda x: sx.sum(sq(sx.matmul(x, x))), lambda: normal(3, 3)),
    ("inv", lambda x: sx.sum(sq(L.inv(x))), lambda: well_conditioned(3, 3)),
    ("det", L.det, lambda: well_conditioned(3, 3)),
    ("slogdet", lambda x: L.slogdet(x).logabsdet, lambda: well_conditioned(3, 3)),
    ("solve", lambda x: sx.sum(sq(L.solve(x, sx.ones(3)))), lambda: well_conditioned(3, 3)),
    ("cholesky", lambda x: sx.sum(sq(L.cholesky(x)) * L.cholesky(x)), lambda: positive_definite(3, 3)),
    ("eigh", lambda x: sx.sum(sq(L.eigh(x).eigenvectors) * L.eigh(x).eigenvalues), lambda: separated_symmetric(3)),
    ("eigvals", lambda x: sx.sum(sq(sx.real(L.eigvals(x)))), lambda: normal(3, 3)),
    ("svd", lambda x: sx.sum(sq(sq(L.svd(x, full_matrices=False).U)) * L.svdvals(x)), lambda: normal(4, 3)),
    ("svd_full", lambda x: sx.sum(sq(L.svd(x).S)), lambda: normal(4, 3)),
    ("qr", lambda x: sx.sum(sq(L.qr(x).R) * L.qr(x).R), lambda: normal(4, 3)),
    ("qr_wide", lambda x: sx.sum(sq(L.qr(x).Q) * L.qr(x).R[:, :3]), lambda: normal(3, 4)),
    ("fft", lambda x: sx.sum(sq(F.irfft(F.rfft(x) * F.rfft(x)))), lambda: normal(6)),
    ("norms", lambda x: L.matrix_norm(x, ord="nuc") + L.vector_norm(x, ord=1), lambda: normal(4, 3)),
]


@pytest.mark.parametrize("case", SCALAR_LOSSES, ids=[c[0] for c in SCALAR_LOSSES])
def test_grad_of_grad(case):
    """The gradient's own derivative (a Hessian-vector product) against finite differences of the gradient."""
    _, f, make = case
    x = make()
    v = sx.asarray(normal(*x.shape))
    check_vjp(lambda y: sx.sum(sx.grad(f)(y) * v), [x], rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("case", SCALAR_LOSSES, ids=[c[0] for c in SCALAR_LOSSES])
def test_jit_and_vmap_of_grad(case):
    pytest.importorskip("jax")
    _, f, make = case
    x = make()
    xs = np.stack([x, x * 1.1])
    grad = sx.grad(f)
    want = np.stack([np.asarray(grad(sx.asarray(r))) for r in xs])
    np.testing.assert_allclose(np.asarray(sx.jit(grad)(sx.asarray(x))), want[0], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(np.asarray(sx.vmap(grad)(sx.asarray(xs))), want, rtol=1e-9, atol=1e-12)


def test_hessian_of_slogdet():
    """d^2 log|det A| [E, E'] = -tr(A^-1 E A^-1 E')."""
    a = well_conditioned(3, 3)
    h = np.asarray(sx.hessian(lambda x: L.slogdet(x).logabsdet)(sx.asarray(a)))
    ainv = np.linalg.inv(a)
    np.testing.assert_allclose(h, -np.einsum("jk,li->ijkl", ainv, ainv), rtol=1e-9, atol=1e-12)


# --- against JAX ---------------------------------------------------------------------------------------------------


def _jax():
    pytest.importorskip("jax")
    import jax
    import jax.numpy as jnp

    from stridex._exec.jax_bridge import x64

    return jax, jnp, x64


AGAINST_JAX = [
    ("matmul_chain", lambda m, a, b: m.sum(a @ b @ a.mT * (a @ b) * (b @ a @ b)), lambda: [normal(3, 3), normal(3, 3)]),
    ("solve", lambda m, a, b: m.sum(m.linalg.solve(a, b) * b), lambda: [well_conditioned(2, 3, 3), normal(2, 3, 2)]),
    ("slogdet", lambda m, a, b: m.sum(m.linalg.slogdet(a @ b + 3 * m.eye(3))[1]), lambda: [normal(2, 3, 3),
                                                                                           normal(3, 3)]),
    ("det_inv", lambda m, a, b: m.sum(m.linalg.det(a) * m.linalg.inv(a) @ b), lambda: [well_conditioned(3, 3),
                                                                                       normal(3, 2)]),
    ("eigvalsh", lambda m, a, b: m.sum(m.linalg.eigvalsh(a + a.mT) * b), lambda: [normal(4, 4), normal(4)]),
    ("svdvals", lambda m, a, b: m.sum(m.linalg.svdvals(a) * b), lambda: [normal(4, 3), normal(3)]),
    ("rfft", lambda m, a, b: m.sum(m.abs(m.fft.rfft(a) * b)), lambda: [normal(6), normal(4)]),
]


@pytest.mark.parametrize("case", AGAINST_JAX, ids=[c[0] for c in AGAINST_JAX])
def test_grad_matches_jax(case):
    jax, jnp, x64 = _jax()
    _, f, make = case
    args = make()
    got = sx.grad(lambda a, b: f(sx, a, b), argnums=(0, 1))(*[sx.asarray(a) for a in args])
    with x64():
        want = jax.grad(lambda a, b: f(jnp, a, b), argnums=(0, 1))(*[jnp.asarray(a) for a in args])
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-9, atol=1e-12)


def test_cholesky_grad_matches_jax_on_symmetric_tangents():
    """JAX symmetrises cholesky's input, stridex reads the lower triangle: the two gradients agree on every
    symmetric direction, so the symmetric part of stridex's equals JAX's."""
    jax, jnp, x64 = _jax()
    a = positive_definite(2, 3, 3)
    weights = normal(2, 3, 3)

    def f(m, x):
        chol = m.linalg.cholesky(x)
        return m.sum(chol * chol * m.asarray(weights))

    got = np.asarray(sx.grad(lambda x: f(sx, x))(sx.asarray(a)))
    with x64():
        want = np.asarray(jax.grad(lambda x: f(jnp, x))(jnp.asarray(a)))
    np.testing.assert_allclose((got + np.swapaxes(got, -1, -2)) / 2, want, rtol=1e-9, atol=1e-12)


def test_second_derivative_matches_jax():
    jax, jnp, x64 = _jax()
    a = well_conditioned(3, 3)
    v = normal(3, 3)

    def f(m, x):
        return m.linalg.slogdet(x)[1] + m.sum(m.linalg.inv(x) @ x @ x)

    got = sx.grad(lambda x: sx.sum(sx.grad(lambda y: f(sx, y))(x) * sx.asarray(v)))(sx.asarray(a))
    with x64():
        want = jax.grad(lambda x: jnp.sum(jax.grad(lambda y: f(jnp, y))(x) * v))(jnp.asarray(a))
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-8, atol=1e-10)


# --- the registry and lowerings ---------------------------------------------------------------------------------------


def test_every_linalg_and_fft_primitive_has_its_rules():
    mine = [p for p in PRIMITIVES.values()
            if p is getattr(linalg_primitives, p.name, None) or p is getattr(fft_primitives, p.name, None)]
    assert {p.name for p in mine} >= {"dot_general", "cholesky", "inv", "det", "slogdet", "solve", "eigh", "eig",
                                      "svd", "qr", "fft", "fftfreq"}
    for prim in mine:
        assert callable(prim.batch), prim.name
        if prim.differentiable:
            assert callable(prim.jvp) and callable(prim.vjp), prim.name
    assert not fft_primitives.fftfreq.differentiable


def test_cholesky_upper_lowering_reads_the_upper_triangle():
    pytest.importorskip("jax")
    from tests.lowering_check import check_primitive_lowering

    a = positive_definite(2, 3, 3)
    scrambled = np.triu(a) + np.tril(normal(2, 3, 3) * 100, -1)  # only the upper triangle is read
    check_primitive_lowering(linalg_primitives.cholesky, sx.asarray(scrambled), upper=True, rtol=1e-10, atol=1e-12)
    scrambled = np.tril(a) + np.triu(normal(2, 3, 3) * 100, 1)
    check_primitive_lowering(linalg_primitives.cholesky, sx.asarray(scrambled), upper=False, rtol=1e-10, atol=1e-12)
