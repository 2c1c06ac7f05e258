"""What XLA's algebraic simplifier would fold, kept as IEEE arithmetic gives it (and eager does): log(exp(x))
is not x where exp(x) overflows, sqrt(x * x) is not |x| where x * x does (`jax_bridge.unfolded`); and x ** 0.5
has the spec's special cases at -0 and -infinity, which NumPy's scalar shortcut to sqrt misses eagerly."""

from __future__ import annotations

import numpy as np
import pytest

import stridex as sx

DEVICE = "cpu:1"
VALUES = [0.0, -0.0, 1.5, -2.5, 12.0, 88.0, 89.0, 710.0, 1e200, 1e308, -1e308, np.inf, -np.inf, np.nan]


def _same(got, want):
    got, want = np.asarray(got), np.asarray(want)
    return bool(np.all(((got == want) & (np.signbit(got) == np.signbit(want))) | (np.isnan(got) & np.isnan(want))))


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16"])
@pytest.mark.parametrize("name,f,numpy_f", [
    ("log(exp(x))", lambda x: sx.log(sx.exp(x)), lambda a: np.log(np.exp(a))),
    ("sqrt(x * x)", lambda x: sx.sqrt(x * x), lambda a: np.sqrt(a * a)),
    ("sqrt(abs(square(x)))", lambda x: sx.sqrt(sx.abs(sx.square(x))), lambda a: np.sqrt(np.abs(np.square(a)))),
])
def test_overflowing_compositions_are_not_folded(name, f, numpy_f, dtype):
    with np.errstate(all="ignore"):
        a = np.array(VALUES).astype(dtype)
        want = numpy_f(a)
        assert _same(f(sx.asarray(a)), want)
        assert _same(sx.jit(f)(sx.asarray(a)), want), name
        assert _same(f(sx.asarray(a, device=DEVICE)), want), name


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "bfloat16"])
def test_pow_one_half_has_the_spec_special_cases(dtype):
    a = np.array([-0.0, 0.0, -np.inf, np.inf, 4.0, -4.0, np.nan])
    want = np.array([0.0, 0.0, np.inf, np.inf, 2.0, np.nan, np.nan])  # (pow(-0, 0.5) = +0; pow(-inf, 0.5) = +inf)
    x = sx.astype(sx.asarray(a), getattr(sx, dtype))
    with np.errstate(all="ignore"):
        for f in (lambda v: v ** 0.5, lambda v: sx.pow(v, sx.asarray(0.5, dtype=v.dtype, device=v.device))):
            for got in (f(x), sx.jit(f)(x), f(sx.asarray(x, device=DEVICE))):
                assert _same(np.asarray(sx.astype(got, sx.float64)), want), dtype
