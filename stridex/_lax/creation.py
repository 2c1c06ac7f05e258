"""Creation primitives: iota (arange), full, empty, eye, triangle (tril/triu) and linspace.

Every output is a fresh, 64-byte-aligned buffer, so JAX can take it over without a copy. Parameters are
Python scalars, shapes (tuples) and stridex dtypes.
"""

from __future__ import annotations

import numpy as np

from stridex._core.avals import ShapedArray
from stridex._core.storage import aligned_empty
from stridex._lax import ops
from stridex._lax.data_type import copy_to_integers
from stridex._exec.jax_bridge import ieee_divide, lax
from stridex._lax.primitive import Primitive, RuleShape
from stridex._lax.rule_shapes import linear_jvp

_U64 = np.dtype(np.uint64)
_F64 = np.dtype(np.float64)
_C128 = np.dtype(np.complex128)


def _fixed_aval(shape_of):
    """abstract_eval for an array made from parameters only: the shape rule plus the `dtype` parameter."""

    def abstract_eval(**params):
        return ShapedArray(shape_of(**params), params["dtype"], False)

    return abstract_eval


# The batching rule of a primitive without array inputs (start, stop and fill values are Python scalars fixed
# in the params): vmap never calls it, since a primitive without batched inputs is bound as it is, but it
# exists for completeness. Such a primitive carries no derivative either (`differentiable=False`).
_no_inputs_batch = RuleShape(lambda prim: lambda values, dims, *, axis_size, **params: (prim.bind(**params), None))


# --- iota: start + i * step for i in range(num) ------------------------------------------------------
# Integer results use wrap-around uint64 arithmetic (exact for every in-range result, whatever the dtype);
# floating results are computed in float64 and rounded once to the output dtype.


def _iota_impl(*, start, step, num, dtype):
    out = aligned_empty((num,), dtype.np)
    if dtype.kind in ("signed", "unsigned"):
        values = np.arange(num, dtype=_U64)
        values *= np.uint64(step % 2**64)
        values += np.uint64(start % 2**64)
    else:
        values = np.arange(num, dtype=_F64)
        values *= step
        values += start
    np.copyto(out, values, casting="unsafe")
    return out


def _word(value):
    """An integer iota's start or step as the uint64 its arithmetic wraps in (a JAX value: stored so already)."""
    return value % 2**64 if isinstance(value, (int, float)) else value


def _store_iota(value, params):
    """How the device executor passes a start or step (`Primitive.values`): as the lowering computes with it."""
    if params["dtype"].kind in ("signed", "unsigned"):
        return np.asarray(np.uint64(value % 2**64))
    return np.asarray(value, _F64)


def _iota_lower(ctx, *, start, step, num, dtype):
    lx = lax()
    if dtype.kind in ("signed", "unsigned"):
        values = lx.iota(_U64, num)
        values = lx.add(lx.mul(values, lx.full_like(values, _word(step))), lx.full_like(values, _word(start)))
    else:
        values = lx.iota(_F64, num)
        values = lx.add(lx.mul(values, lx.full_like(values, step)), lx.full_like(values, start))
    return lx.convert_element_type(values, dtype.np)


iota = Primitive(
    "iota",
    impl=_iota_impl,
    abstract_eval=_fixed_aval(lambda *, num, **_: (num,)),
    lower=_iota_lower,
    batch=_no_inputs_batch,
    differentiable=False,
    values={"start": _store_iota, "step": _store_iota},
)


# --- full, empty: an array of one value, or of uninitialised memory ----------------------------------


def _full_impl(*, shape, fill_value, dtype):
    out = aligned_empty(shape, dtype.np)
    out[...] = fill_value
    return out


full = Primitive(
    "full",
    impl=_full_impl,
    abstract_eval=_fixed_aval(lambda *, shape, **_: shape),
    lower=lambda ctx, *, shape, fill_value, dtype: lax().full(shape, fill_value, dtype.np),
    batch=_no_inputs_batch,
    differentiable=False,
    # (stored into the dtype on the host as the eager rule stores it: NumPy's conversion, its errors included)
    values={"fill_value": lambda value, params: np.asarray(value, params["dtype"].np)},
)

# Uninitialised memory eagerly; a traced program has no such thing, so its lowering fills zeros.
empty = Primitive(
    "empty",
    impl=lambda *, shape, dtype: aligned_empty(shape, dtype.np),
    abstract_eval=_fixed_aval(lambda *, shape, **_: shape),
    lower=lambda ctx, *, shape, dtype: lax().full(shape, 0, dtype.np),
    batch=_no_inputs_batch,
    differentiable=False,
)


def _clamped(k: int) -> int:
    """A diagonal offset within int64 (one beyond any matrix's size selects the same: nothing, or everything)."""
    return max(-(2**62), min(k, 2**62))


# --- eye: ones on the k-th diagonal of a matrix, zeros elsewhere -------------------------------------


def _eye_impl(*, n_rows, n_cols, k, dtype):
    out = aligned_empty((n_rows, n_cols), dtype.np)
    out[...] = 0
    length = max(0, min(n_rows, n_cols - k) if k >= 0 else min(n_rows + k, n_cols))
    if length:
        first = k if k >= 0 else -k * n_cols
        out.reshape(-1)[first:first + length * (n_cols + 1):n_cols + 1] = 1
    return out


def _eye_lower(ctx, *, n_rows, n_cols, k, dtype):
    lx = lax()
    rows = lx.broadcasted_iota(np.int64, (n_rows, n_cols), 0)
    cols = lx.broadcasted_iota(np.int64, (n_rows, n_cols), 1)
    on_diagonal = lx.eq(lx.sub(cols, rows), lx.full_like(rows, k))
    return lx.convert_element_type(on_diagonal, dtype.np)


eye = Primitive(
    "eye",
    impl=_eye_impl,
    abstract_eval=_fixed_aval(lambda *, n_rows, n_cols, **_: (n_rows, n_cols)),
    lower=_eye_lower,
    batch=_no_inputs_batch,
    differentiable=False,
    values={"k": lambda k, params: np.asarray(_clamped(k), np.int64)},
)


# --- triangle: tril (upper=False) and triu (upper=True) of the last two axes --------------------------


def _keep_mask(rows: int, cols: int, k: int, upper: bool) -> np.ndarray:
    """True where tril (j - i <= k) or triu (j - i >= k) keeps the element."""
    below = np.tri(rows, cols, k - 1 if upper else k, dtype=bool)
    return ~below if upper else below


def _triangle_impl(x, *, k, upper):
    out = aligned_empty(x.shape, x.dtype)
    out[...] = 0
    np.copyto(out, x, where=_keep_mask(x.shape[-2], x.shape[-1], k, upper))
    return out


def _triangle_lower(ctx, x, *, k, upper):
    lx = lax()
    shape = x.shape
    ndim = len(shape)
    rows = lx.broadcasted_iota(np.int64, shape, ndim - 2)
    cols = lx.broadcasted_iota(np.int64, shape, ndim - 1)
    offset = lx.sub(cols, rows)
    kk = lx.full_like(offset, k)
    keep = lx.ge(offset, kk) if upper else lx.le(offset, kk)
    return lx.select(keep, x, lx.full_like(x, 0))


def _triangle_vjp(ct, x, *, out, k, upper):
    return (triangle.bind(ct, k=k, upper=upper),)  # the mask is its own adjoint


def _triangle_batch(values, dims, *, axis_size, k, upper):
    (x,), (d,) = values, dims
    if d >= x.ndim - 2:  # the batch axis is one of the matrix axes: move it out of the way
        x, d = ops.moveaxis(x, d, 0), 0
    return triangle.bind(x, k=k, upper=upper), d


# Linear in its input: the JVP masks the tangent, the VJP masks the cotangent.
triangle = Primitive(
    "triangle",
    impl=_triangle_impl,
    abstract_eval=lambda x, *, k, upper: ShapedArray(x.shape, x.dtype, x.weak_type),
    lower=_triangle_lower,
    jvp=linear_jvp,
    vjp=_triangle_vjp,
    batch=_triangle_batch,
    values={"k": lambda k, params: np.asarray(_clamped(k), np.int64)},
)


# --- linspace: num evenly spaced values from start to stop -------------------------------------------
# The eager rule is NumPy's linspace (computed in float64 or complex128, rounded once to `dtype`);
# the lowering follows the same steps so both agree.


def _linspace_impl(*, start, stop, num, endpoint, dtype):
    out = aligned_empty((num,), dtype.np)
    with np.errstate(all="ignore"):
        values = np.linspace(start, stop, num, endpoint=endpoint)
        if dtype.kind in ("signed", "unsigned"):
            np.floor(values, out=values)
            copy_to_integers(out, values)  # NaN and out-of-range values saturate, as the lowering's conversion
        else:
            np.copyto(out, values, casting="unsafe")
    return out


def _linspace_lower(ctx, *, start, stop, num, endpoint, dtype):
    lx = lax()
    work = _C128 if isinstance(start, complex) or isinstance(stop, complex) else _F64
    values = lx.iota(work, num)
    div = num - 1 if endpoint else num
    with np.errstate(all="ignore"):  # the same scalar arithmetic as NumPy's linspace, done here once
        delta = work.type(stop) - work.type(start)
        step = delta / div if div > 0 else None
    if step is None:
        values = lx.mul(values, lx.full_like(values, delta))
    elif step == 0:  # NumPy's path for denormal steps (gh-5437)
        values = lx.mul(ieee_divide(values, lx.full((), div, values.dtype)), lx.full_like(values, delta))
    else:
        values = lx.mul(values, lx.full_like(values, step))
    values = lx.add(values, lx.full_like(values, work.type(start)))
    if endpoint and num > 1:
        # The last value is `stop` itself. Concatenated, not written with dynamic_update_slice or select:
        # XLA (CPU, jaxlib 0.10) drops either of those when stop is 0.0 for some sizes (linspace(1, 0,
        # 528) ended at -1.9e-17), and keeps a concatenation.
        head = lx.slice(values, (0,), (num - 1,))
        values = lx.concatenate([head, lx.full((1,), work.type(stop), work)], 0)
    if dtype.kind in ("signed", "unsigned"):
        values = lx.floor(values)
    return lx.convert_element_type(values, dtype.np)


linspace = Primitive(
    "linspace",
    impl=_linspace_impl,
    abstract_eval=_fixed_aval(lambda *, num, **_: (num,)),
    lower=_linspace_lower,
    batch=_no_inputs_batch,
    differentiable=False,
)
