"""Test helper: run one primitive's JAX lowering on the same inputs as its eager rule and compare.

Until the tracing interpreter exists this is how a lowering rule is checked; afterwards `jit` tests
compare whole programs.
"""

from __future__ import annotations

import numpy as np

import stridex as sx
from stridex._core.avals import aval_of
from stridex._core.state import current_trace
from stridex._lax.jax_bridge import LoweringContext, x64


def check_primitive_lowering(prim, *args, rtol=1e-6, atol=0.0, **params):
    """Assert prim.lower(...) equals the eager result (values, dtype, shape) for `args` (arrays/scalars)."""
    assert current_trace() is None
    eager = prim.bind(*args, **params)
    avals_in = [aval_of(a) for a in args]
    avals_out = prim.abstract_eval(*avals_in, **params)
    avals_out = avals_out if prim.multiple_results else (avals_out,)
    import jax.numpy as jnp

    with x64():
        jargs = [jnp.asarray(np.asarray(a)) if isinstance(a, sx.Array) else a for a in args]
        out = prim.lower(LoweringContext(avals_in, avals_out), *jargs, **params)
        outs = out if prim.multiple_results else (out,)
        eagers = eager if prim.multiple_results else (eager,)
        for got, want, aval in zip(outs, eagers, avals_out):
            got = np.asarray(got)
            want = np.asarray(want)
            assert got.dtype == aval.dtype.np == want.dtype, (prim.name, got.dtype, aval.dtype, want.dtype)
            assert got.shape == tuple(aval.shape) == want.shape, (prim.name, got.shape, aval.shape, want.shape)
            np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, equal_nan=True, err_msg=prim.name)
