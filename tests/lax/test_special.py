"""The records of stridex/_lax/special.py and the compiled host rule they share with the random samplers
(stridex/_lax/compiled.py): the lowering is the eager value, bit for bit; the abstract rule refuses non-floating
dtypes; eager windows of any layout; the derivative chain (lgamma -> digamma -> polygamma(1) -> polygamma(2));
and the bounded cache of compiled programs (least recently used out, compiled again when used again)."""

from __future__ import annotations

import numpy as np
import pytest

import stridex as sx
from stridex._core.avals import ShapedArray
from stridex._exec import compiled
from stridex._lax import special as P
from tests.jax_reference import jax, same_bits
from tests.lowering_check import check_primitive_lowering

RECORDS = [(P.erf, {}), (P.erfc, {}), (P.erf_inv, {}), (P.lgamma, {}), (P.digamma, {}), (P.polygamma, {"order": 1}),
           (P.polygamma, {"order": 3}), (P.ndtri, {}), (P.log_ndtr, {"series_order": 3}),
           (P.log_ndtr, {"series_order": 0})]


def _operand(prim, dtype=np.float64):
    x = np.linspace(-3.5, 3.5, 29)
    if prim in (P.erf_inv, P.ndtri):
        x = np.linspace(-0.2, 1.2, 29) if prim is P.ndtri else np.linspace(-1.1, 1.1, 29)
    return np.concatenate([x, [np.nan, np.inf, -np.inf, -0.0]]).astype(dtype)


@pytest.mark.parametrize("prim,params", RECORDS, ids=[f"{p.name}{params or ''}" for p, params in RECORDS])
def test_lowering_is_the_eager_value(prim, params):
    for dtype in (np.float64, np.float32):
        x = sx.asarray(_operand(prim, dtype))
        # (polygamma's lowering run op by op, as this check runs it, rounds otherwise than compiled in one program,
        # where XLA folds its constant order: 2 ulp apart in float64, 16 in float32; the jit and eager programs
        # agree bit for bit below)
        # (so does ndtri's, JAX's composition: 1 ulp)
        tolerance = {P.polygamma: 1e-15 if dtype == np.float64 else 4e-6,
                     P.ndtri: 4e-16 if dtype == np.float64 else 2.4e-7}.get(prim, 0)
        check_primitive_lowering(prim, x, rtol=tolerance, **params)
        same_bits(sx.jit(lambda v: prim.bind(v, **params))(x), np.asarray(prim.bind(x, **params)), prim.name)


def test_abstract_rule_refuses_what_is_not_real_floating():
    for dtype in (sx.int64, sx.bool, sx.complex128):
        with pytest.raises(TypeError, match=f"erf requires a real floating-point dtype, got {dtype.name}"):
            P.erf.abstract_eval(ShapedArray((3,), dtype))
    assert P.lgamma.abstract_eval(ShapedArray((2, 3), sx.float32)) == ShapedArray((2, 3), sx.float32)


def test_eager_windows_of_any_layout_and_size():
    base = np.linspace(0.1, 9.0, 60).reshape(6, 10)
    x = sx.asarray(base)
    for view, expected in ((x[::2, ::-3], base[::2, ::-3]), (x.T, base.T), (x[3], base[3]), (x[0, 0], base[0, 0]),
                           (x[:0], base[:0])):
        got = P.lgamma.bind(view)
        assert got.shape == expected.shape
        same_bits(got, np.asarray(P.lgamma.bind(sx.asarray(np.array(expected)))))
    y = P.erf.bind(x)
    y[0, 0] = 5.0  # a result over JAX's read-only output: a write copies it first
    assert float(y[0, 0]) == 5.0 and float(P.erf.bind(x)[0, 0]) != 5.0


def test_the_derivative_chain_of_lgamma():
    x = sx.asarray([0.5, 1.5, 4.0, -0.5])
    d1 = sx.vmap(sx.grad(lambda v: P.lgamma.bind(v)))(x)
    same_bits(d1, np.asarray(P.digamma.bind(x)))
    d2 = sx.vmap(sx.grad(sx.grad(lambda v: P.lgamma.bind(v))))(x)
    same_bits(d2, np.asarray(P.polygamma.bind(x, order=1)))
    d3 = sx.vmap(sx.grad(sx.grad(sx.grad(lambda v: P.lgamma.bind(v)))))(x)
    with jax.enable_x64(True):
        want = np.asarray(jax.vmap(jax.grad(jax.grad(jax.grad(jax.lax.lgamma))))(np.asarray(x)))
    np.testing.assert_allclose(np.asarray(d3), want, rtol=1e-13)


def test_compiled_programs_are_cached_least_recently_used_out():
    previous = sx.set_cache_limit("host", 2)
    try:
        _compiled_programs_are_cached_least_recently_used_out()
    finally:
        sx.set_cache_limit("host", previous)


def _compiled_programs_are_cached_least_recently_used_out():
    compiled.clear()
    shapes = [(3,), (4,), (5,)]
    values = [np.linspace(-1.0, 1.0, n[0]) for n in shapes]
    first = [np.asarray(P.erf.bind(sx.asarray(v))) for v in values]  # three programs, the first evicted
    count = compiled.compilations()
    P.erf.bind(sx.asarray(values[2]))  # (the most recent: cached)
    assert compiled.compilations() == count
    again = np.asarray(P.erf.bind(sx.asarray(values[0])))  # evicted: compiled again, the same values
    assert compiled.compilations() == count + 1
    same_bits(again, first[0])
    assert len(compiled._KERNELS) == 2
    compiled.clear()
    assert not compiled._KERNELS
    same_bits(P.erf.bind(sx.asarray(values[1])), first[1])


def test_random_samplers_share_the_cache():
    key = sx.random.key(0)
    compiled.clear()
    before = compiled.compilations()
    sx.random.normal(key, (17, 3))
    assert compiled.compilations() == before + 1
    assert len(compiled._KERNELS) == 1
