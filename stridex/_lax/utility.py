"""The utility chapter's primitives: the logical reductions `all` and `any`, and `diff`.

They share the reductions' conventions and helpers (`stridex._lax.statistical`): normalised `axes` and
`keepdims`; reductions over all axes return 0-D arrays.
"""

from __future__ import annotations

import numpy as np

from stridex._core import dtypes as _dtypes
from stridex._core.avals import ShapedArray
from stridex._lax import ops
from stridex._exec.jax_bridge import as_dtype, lax
from stridex._lax.primitive import Primitive
from stridex._lax.rule_shapes import batch_unary_axes, move_to_front
from stridex._lax.statistical import filled_along, keep_reduced, reduce_with, reduced_shape, slice_along, truth

# --- reduce_all, reduce_any: logical reductions over `axes` (bool results; not differentiable) -------------


def _logical(name, ufunc, lax_name):
    def lower(ctx, x, *, axes, keepdims):
        return keep_reduced(getattr(lax(), lax_name)(truth(x), axes), axes, keepdims)

    return Primitive(
        name,
        impl=lambda x, *, axes, keepdims: reduce_with(ufunc, x, axes, keepdims, np.bool_),
        abstract_eval=lambda x, *, axes, keepdims: ShapedArray(reduced_shape(x.shape, axes, keepdims), _dtypes.bool),
        lower=lower,
        batch=batch_unary_axes(),
        differentiable=False,
    )


reduce_all = _logical("reduce_all", np.logical_and, "reduce_and")
reduce_any = _logical("reduce_any", np.logical_or, "reduce_or")


# --- diff: the n-th forward difference along `axis` ---------------------------------------------------------
# Inputs are the pieces to join along `axis` before differencing: (x,), or (prepend?, x, append?).
# diff is linear in its joined input: one difference's adjoint is minus a difference of the cotangent padded
# with a zero at both ends, so n of them are (-1)^n times the n-th difference of the cotangent padded with n
# zeros at both ends; the result is split back into the joined pieces.
# Rules hand-written: one diff of the padded cotangent, where the decomposition (concat, n slice-subtracts)
# would transpose n subtractions and n pairs of slices.


def _diff_impl(*parts, axis, n):
    joined = parts[0] if len(parts) == 1 else np.concatenate(parts, axis=axis)
    if n == 0:
        return np.array(joined, copy=True)
    return np.diff(joined, n=n, axis=axis)


def _diff_abstract(*parts, axis, n):
    dtype = _dtypes.result_type_of(*(p.dtype for p in parts))
    length = sum(p.shape[axis] for p in parts)
    shape = parts[0].shape
    return ShapedArray(shape[:axis] + (max(length - n, 0),) + shape[axis + 1:], dtype)


def _lower_diff(ctx, *parts, axis, n):
    lax_ = lax()
    dtype = ctx.aval_out.dtype
    parts = [as_dtype(p, dtype) for p in parts]
    joined = parts[0] if len(parts) == 1 else lax_.concatenate(parts, axis)
    for _ in range(n):
        length = joined.shape[axis]
        if length == 0:
            break
        joined = lax_.sub(lax_.slice_in_dim(joined, 1, length, axis=axis),
                          lax_.slice_in_dim(joined, 0, length - 1, axis=axis))
    return joined


def _diff_jvp(primals, tangents, *, axis, n):
    tangents = [t if t is not None else ops.zeros_like(p) for p, t in zip(primals, tangents)]
    return diff.bind(*primals, axis=axis, n=n), diff.bind(*tangents, axis=axis, n=n)


def _diff_vjp(ct, *parts, out, axis, n):
    if ct.shape[axis] == 0:  # nothing came out: no gradient flows
        return tuple(ops.zeros(p.shape, ct.dtype) for p in parts)
    if n:
        pad = filled_along(ct, axis, n, 0)
        ct = diff.bind(pad, ct, pad, axis=axis, n=n)
        ct = -ct if n % 2 else ct
    pieces, start = [], 0
    for p in parts:
        length = p.shape[axis]
        pieces.append(slice_along(ct, axis, start, start + length))
        start += length
    return tuple(pieces)


def _diff_batch(values, dims, *, axis_size, axis, n):
    parts = [move_to_front(v, d, axis_size) for v, d in zip(values, dims)]
    return diff.bind(*parts, axis=axis + 1, n=n), 0


diff = Primitive(
    "diff",
    impl=_diff_impl,
    abstract_eval=_diff_abstract,
    lower=_lower_diff,
    jvp=_diff_jvp,
    vjp=_diff_vjp,
    batch=_diff_batch,
)
