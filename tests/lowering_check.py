"""Test helper: run one primitive's JAX lowering on the same inputs as its eager rule and compare.

Until the tracing interpreter exists this is how a lowering rule is checked; afterwards `jit` tests
compare whole programs.
"""

from __future__ import annotations

import numpy as np

import stridex as sx
from stridex._core.avals import aval_of
from stridex._core.state import current_trace
from stridex._exec.jax_bridge import LoweringContext, x64
from tests.gpu_tolerances import assert_lowering_close, computed_in


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
            # On a GPU, GPU_TOLERANCES may widen `rtol` for this primitive (its float32 division, say).
            computed = computed_in([a.dtype.np for a in avals_in if not a.weak_type], aval.dtype.np)
            assert_lowering_close(got, want, prim.name, rtol=rtol, atol=atol, dtype=computed, err_msg=prim.name)
