"""stridex.numpy under stridex's transformations: `jit` (the same values as eagerly; static shapes compile with no
graph break, data-dependent ones break and stay right), `grad` against `jax.grad` of the same jax.numpy code,
`vmap` against a Python loop, `vectorize`, and arrays on a JAX device (cpu:1 standing in for an accelerator)."""

from __future__ import annotations

import os

import numpy as np
import pytest

import stridex as sx
import stridex.numpy as snp
from tests.autodiff_check import check_batch
from tests.numpy.helpers import assert_same, jax, jnp, x64

RNG = np.random.default_rng(7)
X = RNG.standard_normal((4, 5))
Y = RNG.standard_normal((4, 5))
V = RNG.standard_normal(7)
S = np.sort(RNG.standard_normal(5))
SQ = RNG.standard_normal((3, 3)) + 3 * np.eye(3)
DEV = os.environ.get("STRIDEX_TEST_DEVICE", "cpu:1")

# (id, function of (module, *arrays), inputs): each written once for both libraries.
PROGRAMS = [
    ("pad", lambda m, x: m.pad(x, ((1, 2), (3, 0)), mode="reflect") * 2.0, [X]),
    ("pad_modes", lambda m, x: sum(m.sum(m.pad(x, 2, mode=mode)) for mode in
                                   ("constant", "edge", "wrap", "symmetric", "mean", "linear_ramp")), [X]),
    ("stack_family", lambda m, x, y: m.vstack([x, y]) + m.concatenate([y, x])
     + m.concatenate([m.hstack([x, y])[:, :5], m.dstack([x, y])[:, :, 0]]), [X, Y]),
    ("array_of_arrays", lambda m, x: m.sum(m.array([x, x * 2.0, m.sin(x)]), 0), [V]),
    ("split", lambda m, x: m.split(x, [1, 3], axis=1)[1] * m.array_split(x, 3, axis=1)[0][:, :1], [X]),
    ("take", lambda m, x: m.take(x, m.asarray([0, 9, -1, 3]), axis=1, mode="clip") + m.take(x, 3), [X]),
    ("take_along_axis", lambda m, x: m.take_along_axis(x, m.argsort(x, axis=1), axis=1), [X]),
    ("where_select", lambda m, x: m.where(x > 0, x, x ** 2) + m.select([x < -1, x > 1], [x, -x], x * 3.0), [X]),
    ("reductions", lambda m, x: m.mean(x, 0) + m.sum(m.std(x, 1, ddof=1)) + m.var(x, where=x > 0)
     + m.sum(m.max(x, 1, initial=0.5)) + m.nansum(x) + m.sum(m.prod(x[:2, :3], 1)), [X]),
    ("nan_reductions", lambda m, x: m.nanmean(m.where(x > 1.0, m.nan, x), 1) + m.nanvar(m.where(x > 1.0, m.nan, x),
                                                                                          1), [X]),
    ("cumulative", lambda m, x: m.cumsum(x, 1) + m.cumprod(x, 0) + m.nancumsum(x, axis=1), [X]),
    ("average", lambda m, x, y: m.average(x, 1, weights=m.abs(y)), [X, Y]),
    ("quantiles", lambda m, x: m.quantile(x, 0.3, axis=1) + m.median(x, 0)[:4] + m.percentile(x, 80, axis=1), [X]),
    ("nanquantile", lambda m, x: m.nanquantile(m.where(x > 1.0, m.nan, x), 0.4, axis=1), [X]),
    ("cov_corrcoef", lambda m, x: m.cov(x) + m.corrcoef(x) * 2.0, [X]),
    ("products", lambda m, x, y: m.dot(x, y.T) + m.outer(x[0], y[1])[:4, :4] + m.inner(x, y)
     + m.tensordot(x, y, axes=([1], [1])), [X, Y]),
    ("kron_cross_vdot", lambda m, x, y: m.sum(m.kron(x[:2, :2], y[:2, :2])) + m.sum(m.cross(x[:, :3], y[:, :3]))
     + m.vdot(x, y), [X, Y]),
    ("convolve", lambda m, x, y: m.convolve(x[0], y[1, :3]) + m.correlate(x[0], y[1, :3], mode="full"), [X, Y]),
    ("interp", lambda m, x, y: m.interp(x[0], m.sort(y[0]), y[1]), [X, Y]),
    ("polynomials", lambda m, x, y: m.polyval(x[0], y) + m.polyval(m.polyder(x[1]), y)
     + m.polyval(m.polyint(x[2]), y), [X, Y]),
    ("calculus", lambda m, x: m.gradient(x, axis=1) + m.diff(x, axis=1, prepend=0.0) + m.trapezoid(x)[:, None], [X]),
    ("linalg", lambda m, x: m.linalg.norm(x) + m.linalg.norm(x, "nuc") + m.sum(m.linalg.norm(x, axis=0))
     + m.linalg.det(x[:, :4]) + m.linalg.slogdet(x[:, :4])[1] + m.linalg.norm(x, 2), [X]),
    ("linalg_more", lambda m, x: m.linalg.cond(x[:, :4]) + m.sum(m.linalg.multi_dot([x, x.T, x]))
     + m.sum(m.linalg.lstsq(x, x[:, 0])[0]) + m.sum(m.linalg.pinv(x)), [X]),
    ("elementwise", lambda m, x, y: m.cbrt(x) + m.sinc(x) + m.logaddexp2(x, y) + m.hypot(x, y) + m.fmod(x, 0.7)
     + m.fmax(x, y) + m.arctan2(x, y) + m.nan_to_num(m.log(x)) + m.exp2(y) + m.heaviside(x, 0.5) * y, [X, Y]),
    ("elementwise_more", lambda m, x: m.i0(x) + m.deg2rad(x) + m.ldexp(x, 3) + m.frexp(x)[0] + m.modf(x)[0]
     + m.float_power(m.abs(x) + 1.0, 1.5), [X]),
    ("unwrap", lambda m, x: m.unwrap(x * 4.0, axis=1), [X]),
    ("creation", lambda m, x: m.linspace(x[0], x[1], 4) + m.geomspace(1.0, m.abs(x[0]) + 2.0, 4)[:, :5]
     * 0.0 + m.logspace(0.0, x[0], 4)[:, :5] + m.diag(x[0])[:4, :5], [X]),
    ("rearranging", lambda m, x: m.roll(x, 2, axis=1) + m.rot90(x, 2) + m.flip(m.tile(x[:, :1], (1, 5)), 0)
     + m.repeat(x[:, :1], 5, axis=1) + m.triu(x) + m.moveaxis(x[None], 0, -1)[..., 0], [X]),
    ("histogram_weights", lambda m, x, w: m.histogram(x, bins=4, range=(-1.0, 1.0), weights=m.abs(w))[0], [V, V[::-1]
                                                                                                          .copy()]),
]
DATA_DEPENDENT = [
    ("nonzero", lambda m, x: m.nonzero(x > 0)[0], [V]),
    ("unique", lambda m, x: m.unique(m.round(x)), [V * 3]),
    ("extract", lambda m, x: m.extract(x > 0, x), [V]),
    ("repeat", lambda m, x: m.repeat(x[:3], m.astype(m.abs(m.round(x[3:6] * 2)), int)), [V]),
]
SIZED = [
    ("nonzero_size", lambda m, x: m.nonzero(x > 0, size=5, fill_value=-1)[0], [V]),
    ("unique_size", lambda m, x: m.unique(m.round(x * 3), size=6, fill_value=0.0), [V]),
    ("unique_inverse_size", lambda m, x: m.unique(m.round(x), size=7, return_inverse=True, return_counts=True), [V]),
    ("extract_size", lambda m, x: m.extract(x > 0, x, size=4), [V]),
    ("argwhere_size", lambda m, x: m.argwhere(x > 0, size=8), [X]),
    ("compress_size", lambda m, x: m.compress(x[0] > 0, x, axis=1, size=3), [X]),
    ("repeat_total", lambda m, x: m.repeat(x[:3], m.asarray([1, 0, 2]), total_repeat_length=4), [V]),
    ("setdiff_size", lambda m, x: m.setdiff1d(m.round(x), m.asarray([0.0, 1.0]), size=5, fill_value=9.0), [V * 2]),
    ("bincount_length", lambda m, x: m.bincount(m.astype(m.abs(m.round(x)), int), length=4), [V]),
]


def _run(module, fn, inputs):
    return fn(module, *inputs)


def _jax_inputs(inputs):
    return [jnp.asarray(a) for a in inputs]


@pytest.mark.parametrize("name,fn,inputs", PROGRAMS + SIZED, ids=[p[0] for p in PROGRAMS + SIZED])
def test_jit_equals_eager_with_no_graph_break(name, fn, inputs):
    args = [sx.asarray(a) for a in inputs]
    eager = _run(snp, fn, args)
    jitted = sx.jit(lambda *a: fn(snp, *a))
    assert_same(jitted(*args), eager, rtol=1e-12, atol=1e-12)
    assert jitted.stats["breaks"] == 0, jitted.stats
    with x64():
        want = fn(jnp, *_jax_inputs(inputs))
    assert_same(eager, want, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("name,fn,inputs", DATA_DEPENDENT, ids=[p[0] for p in DATA_DEPENDENT])
def test_data_dependent_shapes_break_the_graph_and_stay_right(name, fn, inputs):
    args = [sx.asarray(a) for a in inputs]
    eager = _run(snp, fn, args)
    jitted = sx.jit(lambda *a: fn(snp, *a))
    assert_same(jitted(*args), eager)
    assert jitted.stats["breaks"] >= 1
    other = [sx.asarray(a[::-1].copy()) for a in inputs]
    assert_same(jitted(*other), _run(snp, fn, other))


@pytest.mark.parametrize("name,fn,inputs", PROGRAMS, ids=[p[0] for p in PROGRAMS])
def test_grad_equals_jax_grad(name, fn, inputs):
    def total(module, *a):
        out = fn(module, *a)
        return module.sum(out * module.reshape(module.arange(out.size), out.shape) * 0.1) if out.ndim else out

    argnums = tuple(range(len(inputs)))
    got = sx.grad(lambda *a: total(snp, *a), argnums=argnums)(*[sx.asarray(a) for a in inputs])
    with x64():
        want = jax.grad(lambda *a: total(jnp, *a), argnums=argnums)(*_jax_inputs(inputs))
    assert_same(list(got), list(want), rtol=1e-8, atol=1e-8)


@pytest.mark.parametrize("name,fn,inputs", PROGRAMS[:18] + SIZED, ids=[p[0] for p in PROGRAMS[:18] + SIZED])
def test_vmap_equals_a_loop(name, fn, inputs):
    batched = [np.stack([a, a * 0.5 + 0.1, -a]) for a in inputs]

    def f(*a):
        out = fn(snp, *a)
        return out[0] if isinstance(out, tuple) else out

    check_batch(f, [sx.asarray(b) for b in batched], in_axes=0, rtol=1e-12, atol=1e-12)


def test_vectorize_with_and_without_signature():
    def f(a, b):
        return snp.sum(a * b) if a.ndim else a * b + 1.0

    x, y = sx.asarray(X), sx.asarray(V[:5])
    np.testing.assert_allclose(np.asarray(snp.vectorize(f)(x, y)), X * V[:5] + 1.0)
    inner = snp.vectorize(f, signature="(n),(n)->()")
    np.testing.assert_allclose(np.asarray(inner(x, y)), X @ V[:5])
    np.testing.assert_allclose(np.asarray(sx.jit(inner)(x, y)), X @ V[:5])
    with x64():
        want = jnp.vectorize(lambda a, b: jnp.sum(a * b), signature="(n),(n)->()")(jnp.asarray(X), jnp.asarray(V[:5]))
    np.testing.assert_allclose(np.asarray(inner(x, y)), np.asarray(want), rtol=1e-12)
    outer = snp.vectorize(lambda a, k: snp.sum(a[:k]), excluded={1}, signature="(n)->()")
    np.testing.assert_allclose(np.asarray(outer(x, 2)), X[:, :2].sum(1))
    pair = snp.vectorize(lambda a: (snp.min(a), snp.max(a)), signature="(n)->(),()")
    lo, hi = pair(x)
    np.testing.assert_array_equal(np.asarray(lo), X.min(1))
    with pytest.raises(ValueError, match="inconsistent size for core dimension 'n'"):
        inner(x, sx.asarray(V[:4]))
    with pytest.raises(ValueError, match="not a valid gufunc signature"):
        snp.vectorize(f, signature="(n)->(")(x, y)


@pytest.mark.parametrize("name,fn,inputs", PROGRAMS[::3] + SIZED[:3], ids=[p[0] for p in PROGRAMS[::3] + SIZED[:3]])
def test_on_a_device(name, fn, inputs):
    host = _run(snp, fn, [sx.asarray(a) for a in inputs])
    on_device = _run(snp, fn, [sx.asarray(a, device=DEV) for a in inputs])
    outs = on_device if isinstance(on_device, tuple) else (on_device,)
    assert all(o.device.name == DEV for o in outs)
    assert_same([o.to_device("cpu") for o in outs], list(host) if isinstance(host, tuple) else [host],
                rtol=1e-10, atol=1e-10)
    jitted = sx.jit(lambda *a: fn(snp, *a))(*[sx.asarray(a, device=DEV) for a in inputs])
    assert_same([o.to_device("cpu") for o in (jitted if isinstance(jitted, tuple) else (jitted,))],
                list(host) if isinstance(host, tuple) else [host], rtol=1e-10, atol=1e-10)
