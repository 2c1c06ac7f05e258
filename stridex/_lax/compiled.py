"""The eager rule of a primitive whose eager value is its own lowering, compiled (`lowered`, a rule shape): the
host's compiled programs are `stridex._exec.compiled`'s, whose names this module also gives (`kernel`, `call`,
`adopted`, `compilations`, `clear`) for the records that run a program of their own (`stridex._lax.random`)."""

from __future__ import annotations

from stridex._core.avals import ShapedArray
from stridex._core.dtypes import FROM_NUMPY
from stridex._exec import lower
from stridex._exec.compiled import adopted, call, clear, compilations, kernel  # noqa: F401  (the seam, by name)
from stridex._exec.lower import LoweringContext, Step
from stridex._lax.primitive import RuleShape


def _lowered(prim):
    """The eager rule of `prim`: its own lowering on the windows, compiled once per (params, shapes, dtypes)."""
    multiple = prim.multiple_results

    def impl(*windows, **params):
        key = (prim, tuple(params.items()), *[(w.shape, w.dtype) for w in windows])

        def make():
            avals_in = [ShapedArray(w.shape, FROM_NUMPY[w.dtype]) for w in windows]
            avals_out = prim.abstract_eval(*avals_in, **params)
            avals_out = avals_out if multiple else (avals_out,)
            n = len(windows)
            run = lower.program([Step(prim, params, tuple(range(n)), LoweringContext(avals_in, avals_out))],
                                tuple(range(n, n + len(avals_out))))
            return lambda *values: run(values) if multiple else run(values)[0]

        entry = kernel(key, make, windows)
        return adopted(entry, call(entry, windows))

    return impl


# The eager rule of a primitive whose eager value is its lowering's, compiled (all its operands arrays).
lowered = RuleShape(_lowered)
