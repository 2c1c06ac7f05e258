"""Half precision on NumPy and XLA: the one float32 detour for kernels that cannot run in float16/bfloat16.

NumPy computes float16 natively and bfloat16 through ml_dtypes' ufunc loops, which cover the elementwise
functions. Other kernels lack them or get them wrong: `np.clip` has no bfloat16 loop, `np.matmul` of
bfloat16 returns float32, ml_dtypes' comparisons misplace NaN in `np.sort` and `np.unique`, and reductions
accumulate in the half type itself, which loses most digits over a few thousand elements. JAX computes those
in float32 and rounds once (`jnp.sum`, `jnp.cumsum` and `jnp.mean` upcast half types; dots accumulate in
float32), and so does stridex: a primitive built with `impl=in_float32(impl, abstract_eval)` sees its half
operands and half dtype parameters as float32, and its results are rounded to the dtypes its abstract
evaluation gives. (The kernels on the eager hot path, `reduce_with` of sum, prod, max and min and the
matmul of `dot_general`, test for a half result dtype themselves, which costs less than this wrapper.) `lower=lower_in_float32(lower)` does the same on JAX values, where a lowering composed of
several lax operations would otherwise round at each step (log2 as log(x) / log(2)), so that `jit` agrees
with eager. Calls without a half operand or parameter run the rule unchanged.

`bfloat16_scalars` is the other half of bfloat16 on NumPy: ml_dtypes' loops take a Python float as a strong
float64, so the elementwise kernels (`call_ufunc`) make it a bfloat16 scalar first, keeping it weak.
"""

from __future__ import annotations

import numpy as np

from stridex._core import dtypes as _dtypes
from stridex._core.avals import ShapedArray, aval_of
from stridex._core.storage import aligned_result
from stridex._exec.jax_bridge import LoweringContext, as_dtype

# The NumPy dtypes, for kernels that test for a half type themselves (NumPy's dtype objects are singletons).
FLOAT16_NP, FLOAT32_NP = _dtypes.float16.np, _dtypes.float32.np
# bfloat16's NumPy dtype is ml_dtypes', imported only once bfloat16 is used (`stridex._core.dtypes`). It is the
# one dtype of kind "V" (NumPy's void: a user-defined type) that a stridex array can have, so kernels test the
# kind, which needs no ml_dtypes import.
BFLOAT16_KIND = "V"


def _is_half_window(a) -> bool:
    return type(a) is np.ndarray and (a.dtype is FLOAT16_NP or a.dtype.kind == BFLOAT16_KIND)


def _has_half_param(params: dict) -> bool:
    for v in params.values():
        if v is _dtypes.float16 or v is _dtypes.bfloat16:
            return True
    return False


def _has_half_window(args: tuple) -> bool:
    for a in args:
        if type(a) is np.ndarray and (a.dtype is FLOAT16_NP or a.dtype.kind == BFLOAT16_KIND):
            return True
    return False


def _wide_params(params: dict) -> dict:
    return {k: _dtypes.float32 if _dtypes.is_half(v) else v for k, v in params.items()}


def _window_aval(a) -> ShapedArray:
    """The abstract value of an eager operand: an ndarray's shape and stridex dtype, or a Python scalar's."""
    if type(a) is np.ndarray:
        return ShapedArray(a.shape, _dtypes.FROM_NUMPY[a.dtype])
    return aval_of(a)


def in_float32(impl, abstract_eval=None):
    """The eager rule `impl`, computing half operands and half dtype parameters in float32 and rounding its
    results to the dtypes `abstract_eval` gives (without one: float32 results take the half operand's dtype,
    which suits kernels that return their operand's values or indices, such as sort and unique)."""

    def run(*args, **params):
        if not _has_half_window(args) and not _has_half_param(params):
            return impl(*args, **params)
        out = impl(*[a.astype(FLOAT32_NP) if _is_half_window(a) else a for a in args], **_wide_params(params))
        several = isinstance(out, tuple)
        if abstract_eval is not None:
            want = abstract_eval(*map(_window_aval, args), **params)
            dtypes = [w.dtype.np for w in want] if several else [want.dtype.np]
        else:
            half = next(a.dtype for a in args if _is_half_window(a))  # (rules without dtype params come here)
            dtypes = [half if np.asarray(o).dtype == FLOAT32_NP else None for o in (out if several else (out,))]
        narrowed = [aligned_result(np.asarray(o), d) for o, d in zip(out if several else (out,), dtypes)]
        return tuple(narrowed) if several else narrowed[0]

    return run


def _wide_aval(aval: ShapedArray) -> ShapedArray:
    return ShapedArray(aval.shape, _dtypes.float32, aval.weak_type) if _dtypes.is_half(aval.dtype) else aval


def _weak_scalar(value, aval) -> bool:
    """Whether a lowering operand stands for a Python float or int: one itself, or a run-time value of one (a
    Python scalar argument of `jit` or of a device executable: a weak 0-D float64 or int64)."""
    if type(value) in (float, int):
        return True
    return aval.weak_type and aval.shape == () and aval.dtype in (_dtypes.float64, _dtypes.int64) \
        and hasattr(value, "dtype")


def lower_in_float32(lower):
    """The lowering rule `lower`, computing half operands and half dtype parameters in float32 and converting
    its results to the dtypes of the context's output avals."""

    def run(ctx, *args, **params):
        if not any(_dtypes.is_half(a.dtype) for a in ctx.avals_in) and not _has_half_param(params):
            return lower(ctx, *args, **params)
        wide = LoweringContext(map(_wide_aval, ctx.avals_in), map(_wide_aval, ctx.avals_out))
        half = next((aval.dtype for aval in ctx.avals_in if _dtypes.is_half(aval.dtype)), None)
        args = [as_dtype(a, _dtypes.float32) if _dtypes.is_half(aval.dtype)
                # (a Python float or int with a half array becomes a half value first, as eagerly: the spec
                # converts a scalar operand to the array's dtype)
                else as_dtype(as_dtype(a, half), _dtypes.float32) if half is not None and _weak_scalar(a, aval)
                else a
                for a, aval in zip(args, ctx.avals_in)]
        out = lower(wide, *args, **_wide_params(params))
        if isinstance(out, (tuple, list)):
            return type(out)(as_dtype(o, aval.dtype) for o, aval in zip(out, ctx.avals_out))
        return as_dtype(out, ctx.aval_out.dtype)

    return run


def bfloat16_scalars(args: tuple) -> tuple:
    """`args` of a NumPy kernel with each Python float made a bfloat16 scalar when an operand is a bfloat16 array.

    A Python scalar is weak: with a bfloat16 array the result stays bfloat16 (as with float16, which NumPy's
    own promotion handles). ml_dtypes' loops take a Python float as float64 and would return float32.
    """
    for a in args:
        if type(a) is np.ndarray and a.dtype.kind == BFLOAT16_KIND:
            scalar = a.dtype.type
            return tuple(scalar(a) if type(a) is float else a for a in args)
    return args
