"""x ** 0.5 has the spec's special cases at -0 and -infinity (+0 and +infinity) eagerly, under jit and on a
device: NumPy's shortcut for a power by the scalar 0.5 is sqrt, which gives -0 and NaN there."""

from __future__ import annotations

import numpy as np
import pytest

import stridex as sx

DEVICE = "cpu:1"


def _same(got, want):
    got, want = np.asarray(got), np.asarray(want)
    return bool(np.all(((got == want) & (np.signbit(got) == np.signbit(want))) | (np.isnan(got) & np.isnan(want))))


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "bfloat16"])
def test_pow_one_half_has_the_spec_special_cases(dtype):
    a = np.array([-0.0, 0.0, -np.inf, np.inf, 4.0, -4.0, np.nan])
    want = np.array([0.0, 0.0, np.inf, np.inf, 2.0, np.nan, np.nan])  # (pow(-0, 0.5) = +0; pow(-inf, 0.5) = +inf)
    x = sx.astype(sx.asarray(a), getattr(sx, dtype))
    with np.errstate(all="ignore"):
        for f in (lambda v: v ** 0.5, lambda v: sx.pow(v, sx.asarray(0.5, dtype=v.dtype, device=v.device))):
            for got in (f(x), sx.jit(f)(x), f(sx.asarray(x, device=DEVICE))):
                assert _same(np.asarray(sx.astype(got, sx.float64)), want), dtype
