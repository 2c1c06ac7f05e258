"""Test helpers for transformations: finite-difference checks of jvp/vjp, and vmap against a Python loop."""

from __future__ import annotations

import numpy as np

import stridex as sx


def _np(x):
    return np.asarray(x)


def _flat_inputs(args):
    return [np.array(_np(a), dtype=np.float64) for a in args]


def numerical_jvp(f, args, tangents, eps=1e-6):
    """Central differences of f at args along tangents (float64)."""
    plus = f(*[sx.asarray(a + eps * t) for a, t in zip(args, tangents)])
    minus = f(*[sx.asarray(a - eps * t) for a, t in zip(args, tangents)])
    return (_np(plus) - _np(minus)) / (2 * eps)


def check_jvp(f, args, rtol=1e-5, atol=1e-6, seed=0):
    """sx.jvp(f) equals central finite differences along a random direction."""
    rng = np.random.default_rng(seed)
    args = _flat_inputs(args)
    tangents = [rng.standard_normal(a.shape) for a in args]
    _, t_out = sx.jvp(f, tuple(sx.asarray(a) for a in args), tuple(sx.asarray(t) for t in tangents))
    np.testing.assert_allclose(_np(t_out), numerical_jvp(f, args, tangents), rtol=rtol, atol=atol)


def check_vjp(f, args, rtol=1e-5, atol=1e-6, seed=1):
    """<vjp(f)(ct), t> equals <ct, jvp_numerical(f)(t)> for random ct and t (the adjoint identity)."""
    rng = np.random.default_rng(seed)
    args = _flat_inputs(args)
    out, pullback = sx.vjp(f, *[sx.asarray(a) for a in args])
    ct = rng.standard_normal(np.shape(_np(out)))
    cts = pullback(sx.asarray(ct))
    tangents = [rng.standard_normal(a.shape) for a in args]
    lhs = sum(float(np.sum(_np(c) * t)) for c, t in zip(cts, tangents))
    rhs = float(np.sum(ct * numerical_jvp(f, args, tangents)))
    np.testing.assert_allclose(lhs, rhs, rtol=rtol, atol=atol)


def check_grads(f, args, **tolerances):
    check_jvp(f, args, **tolerances)
    check_vjp(f, args, **tolerances)


def check_batch(f, args, in_axes=0, rtol=1e-7, atol=0.0):
    """sx.vmap(f, in_axes)(*args) equals stacking f over a Python loop on the mapped axis."""
    axes = in_axes if isinstance(in_axes, (tuple, list)) else (in_axes,) * len(args)
    sizes = {a.shape[ax] for a, ax in zip(args, axes) if ax is not None}
    assert len(sizes) == 1
    (n,) = sizes
    got = sx.vmap(f, in_axes=tuple(axes))(*args)
    rows = []
    for i in range(n):
        rows.append(f(*[a if ax is None else _index(a, ax, i) for a, ax in zip(args, axes)]))
    if isinstance(got, (tuple, list)):
        for k, g in enumerate(got):
            want = np.stack([_np(r[k]) for r in rows])
            assert g.dtype == rows[0][k].dtype
            np.testing.assert_allclose(_np(g), want, rtol=rtol, atol=atol)
    else:
        want = np.stack([_np(r) for r in rows])
        assert got.dtype == rows[0].dtype, (got.dtype, rows[0].dtype)
        np.testing.assert_allclose(_np(got), want, rtol=rtol, atol=atol)


def _index(a, axis, i):
    key = [slice(None)] * a.ndim
    key[axis] = i
    return a[tuple(key)]
