"""Dtype conversion primitive: `convert_element_type` (what `astype` and dtype-changing `asarray` bind)."""

from __future__ import annotations

import numpy as np

from .._core import ShapedArray, primitive
from .._lowering_support import lax
from .shape import output_buffer


def _convert_impl(x, *, new_dtype):
    out = output_buffer(x.shape, new_dtype.np)
    if x.dtype.kind in "fc" and new_dtype.kind in ("signed", "unsigned"):
        # NaN/inf/out-of-range floats cast to integers are implementation-defined (the spec leaves them
        # open); NumPy warns about them, which is noise for a cast the user asked for.
        with np.errstate(all="ignore"):
            np.copyto(out, x, casting="unsafe")
    else:
        np.copyto(out, x, casting="unsafe")
    return out


def _convert_lower(ctx, x, *, new_dtype):
    (aval_in,) = ctx.avals_in
    if new_dtype.kind == "bool" and aval_in.dtype.kind == "complex floating":
        # Note: the spec casts a complex value to True unless it is 0 + 0j; lax's conversion drops the
        # imaginary part first (so 1j would become False), hence the explicit comparison.
        return lax().ne(x, lax().full_like(x, 0))
    return lax().convert_element_type(x, new_dtype.np)


convert_element_type = primitive(
    "convert_element_type",
    impl=_convert_impl,
    abstract_eval=lambda x, *, new_dtype: ShapedArray(x.shape, new_dtype, False),
    lower=_convert_lower,
)


# --- transformation rules ----------------------------------------------------------------------------
# The conversion is linear: the JVP converts the tangent, the VJP hands the cotangent back (autodiff's
# `fit` casts it to the input's dtype, taking the real part for a real input converted to complex). An
# integer or bool result carries no derivative: no tangent, and the cotangent is None.

_FLOATING = ("real floating", "complex floating")


def _convert_jvp(primals, tangents, *, new_dtype):
    out = convert_element_type.bind(primals[0], new_dtype=new_dtype)
    if new_dtype.kind not in _FLOATING:
        return out, None
    t = tangents[0]
    if t.dtype.kind == "complex floating" and new_dtype.kind != "complex floating":
        from .elementwise import real

        t = real.bind(t)  # the conversion keeps the real part
    return out, convert_element_type.bind(t, new_dtype=new_dtype)


def _convert_vjp(ct, x, *, out, new_dtype):
    return (ct if new_dtype.kind in _FLOATING else None,)


convert_element_type.jvp = _convert_jvp
convert_element_type.vjp = _convert_vjp
convert_element_type.batch = lambda values, dims, *, axis_size, new_dtype: (
    convert_element_type.bind(values[0], new_dtype=new_dtype), dims[0])
