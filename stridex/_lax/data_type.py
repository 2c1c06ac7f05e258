"""Dtype conversion primitive: `convert_element_type` (what `astype` and dtype-changing `asarray` bind)."""

from __future__ import annotations

import numpy as np

from stridex._core import dtypes as _dtypes
from stridex._core.avals import ShapedArray
from stridex._core.storage import output_buffer
from stridex._lax import ops
from stridex._exec.jax_bridge import float64_rounded_to_odd, lax
from stridex._lax.primitive import Primitive

# --- floating to integer: XLA's saturating conversion --------------------------------------------------
# The spec leaves NaN, infinities and out-of-range values cast to an integer dtype undefined; C (and so NumPy)
# makes them undefined behaviour, while XLA defines them: truncation toward zero, NaN -> 0, and values beyond
# the dtype's range -> its minimum or maximum. Eager execution follows XLA, so that `astype` gives the same
# integers eagerly and under `jit`. In-range values (the common case) take NumPy's cast unchanged.

# Targets whose cast sets the floating-point "invalid" flag for every NaN, infinity and out-of-range value
# (x86's cvtt* and ARM's fcvtz* conversions, which NumPy's loops use for 32- and 64-bit signed results): the
# check costs nothing. Narrower and unsigned targets are cast through a wider register without the flag, so
# their input's range is checked (min and max) before the cast.
_FLAGGED_TARGETS = frozenset({np.dtype(np.int32), np.dtype(np.int64)})
# Per integer dtype: (min, max + 1) as floats. Both are 0 or powers of two, exact in every floating type, so
# `min <= v < max + 1` is exactly "v truncates into the range".
_BOUNDS = {np.dtype(t): (float(np.iinfo(t).min), float(np.iinfo(t).max) + 1)
           for t in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64)}


def copy_to_integers(out: np.ndarray, x: np.ndarray) -> None:
    """Cast floating `x` (complex: its real part, as XLA) into the integer array `out`, saturating as XLA does."""
    if x.dtype.kind == "c":
        x = x.real
    elif x.dtype.itemsize == 2:  # float16 or bfloat16: as float32, exactly (the checks below assume NumPy's loops)
        x = x.astype(np.float32)
    if out.dtype in _FLAGGED_TARGETS:
        try:
            with np.errstate(invalid="raise", over="ignore"):
                np.copyto(out, x, casting="unsafe")
            return
        except FloatingPointError:
            pass  # some value was NaN, infinite or out of range
    elif _within(x, out.dtype):
        np.copyto(out, x, casting="unsafe")
        return
    _saturate(out, x)


def _within(x: np.ndarray, dtype) -> bool:
    """Whether every value of `x` truncates into `dtype`'s range (False for NaN: comparisons with it fail)."""
    if x.size == 0:
        return True
    low, high = _BOUNDS[dtype]
    return bool(x.min() >= low) and bool(x.max() < high)


def _saturate(out: np.ndarray, x: np.ndarray) -> None:
    info = np.iinfo(out.dtype)
    low, high = _BOUNDS[out.dtype]
    with np.errstate(invalid="ignore"):
        above = x >= high
        below = x <= low - 1  # (int64: -2**63 - 1 rounds to -2**63, which saturates to itself anyway)
        np.copyto(out, np.where(above | below | np.isnan(x), 0, x), casting="unsafe")  # NaN -> 0; the rest fits
    out[above] = info.max
    out[below] = info.min



# --- convert_element_type: x in another dtype ----------------------------------------------------------


def _convert_impl(x, *, new_dtype):
    out = output_buffer(x.shape, new_dtype.np)
    if _dtypes.np_kind(x.dtype) in "fc" and new_dtype.kind in ("signed", "unsigned"):
        copy_to_integers(out, x)
    else:
        np.copyto(out, x, casting="unsafe")
    return out


def _convert_lower(ctx, x, *, new_dtype):
    (aval_in,) = ctx.avals_in
    if new_dtype.kind == "bool" and aval_in.dtype.kind == "complex floating":
        # Note: the spec casts a complex value to True unless it is 0 + 0j; lax's conversion drops the
        # imaginary part first (so 1j would become False), hence the explicit comparison.
        return lax().ne(x, lax().full_like(x, 0))
    if aval_in.dtype.kind == "complex floating" and new_dtype.kind != "complex floating":
        x = lax().real(x)  # what the conversion keeps, taken explicitly (lax would warn that it drops the rest)
    if x.dtype == np.float64 and new_dtype.np == np.float16:
        x = float32_round_to_odd(x)
    return lax().convert_element_type(x, new_dtype.np)


def float32_round_to_odd(x):
    """float64 JAX array `x` rounded to odd at float32's 24 bits (toward zero, the last bit set where inexact),
    still float64; every value float16 can round to converts to float32 from it exactly.

    XLA converts float64 to float16 through float32, rounding twice, which misses the nearest float16 for
    about one value in 20000 (a tie created by the first rounding). Rounded to odd, 24 bits keep the
    information the second rounding needs (24 >= 11 + 2), so the float16 result is the nearest one, as
    NumPy's direct conversion gives (eagerly). Done on the bits: the 29 mantissa bits float32 drops are cut,
    and the lowest kept bit is set if any was 1. (Not by converting to float32 and back to test exactness: XLA
    may fold that round trip away, and on a GPU it did.) Values outside float32's normal range need no care:
    below it, float16 gives a zero of the same sign; above, infinity. NaN stays NaN (its sticky bit is set)."""
    return float64_rounded_to_odd(x, 24)


# The conversion is linear: the JVP converts the tangent, the VJP hands the cotangent back (autodiff's
# `fit` casts it to the input's dtype, taking the real part for a real input converted to complex). An
# integer or bool result carries no derivative: no tangent, and the cotangent is None.


def _convert_jvp(primals, tangents, *, new_dtype):
    out = convert_element_type.bind(primals[0], new_dtype=new_dtype)
    if not _dtypes.is_floating(new_dtype):
        return out, None
    t = tangents[0]
    if t.dtype.kind == "complex floating" and new_dtype.kind != "complex floating":
        t = ops.real(t)  # the conversion keeps the real part
    return out, convert_element_type.bind(t, new_dtype=new_dtype)


def _convert_vjp(ct, x, *, out, new_dtype):
    return (ct if _dtypes.is_floating(new_dtype) else None,)


def _convert_batch(values, dims, *, axis_size, new_dtype):
    return convert_element_type.bind(values[0], new_dtype=new_dtype), dims[0]  # elementwise: the axis stays


convert_element_type = Primitive(
    "convert_element_type",
    impl=_convert_impl,
    abstract_eval=lambda x, *, new_dtype: ShapedArray(x.shape, new_dtype, False),
    lower=_convert_lower,
    jvp=_convert_jvp,
    vjp=_convert_vjp,
    batch=_convert_batch,
    elementwise=True,
)
