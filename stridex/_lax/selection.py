"""top_k: the k largest entries along an axis and their positions (`stridex.lax.top_k`, JAX's `lax.top_k`).

The order is JAX's: descending, ties in order of position, floats compared in IEEE total order (NaN above +inf,
+0.0 above -0.0, a NaN with its sign bit set below -inf). The positions are int32, as JAX's.
"""

from __future__ import annotations

import numpy as np

from stridex._core import dtypes as _dtypes
from stridex._core.avals import ShapedArray
from stridex._core.storage import aligned_copy
from stridex._lax import ops
from stridex._exec.jax_bridge import lax
from stridex._lax.primitive import PRIMITIVES, Primitive
from stridex._lax.rule_shapes import move_to_front

_SIGNED_BITS = {2: np.int16, 4: np.int32, 8: np.int64}


def _total_order_key(x: np.ndarray) -> np.ndarray:
    """Integers that order as `x` does (for floats, IEEE total order: sign-magnitude bits made two's complement)."""
    if x.dtype.kind == "f" or x.dtype.name == "bfloat16":
        bits = x.view(_SIGNED_BITS[x.dtype.itemsize])
        return np.where(bits < 0, bits ^ np.iinfo(bits.dtype).max, bits)
    return x


def _abstract(x, *, k, axis):
    if x.dtype.kind == "complex floating":
        raise TypeError(f"top_k is not defined for complex arrays ({x.dtype.name}): they have no order")
    if not x.shape:
        raise TypeError("top_k requires an operand of at least one dimension, got a 0-D array")
    if not 0 <= k <= x.shape[axis]:
        raise ValueError(f"top_k: k={k} must be between 0 and the length {x.shape[axis]} of axis {axis}")
    shape = x.shape[:axis] + (k,) + x.shape[axis + 1:]
    return ShapedArray(shape, x.dtype, x.weak_type), ShapedArray(shape, _dtypes.int32)


def _impl(x, *, k, axis):
    key = np.moveaxis(_total_order_key(x), axis, -1)
    n = key.shape[-1]
    # A stable ascending sort of the reversed axis, read backwards: descending, ties by ascending position.
    order = (n - 1 - np.argsort(key[..., ::-1], axis=-1, kind="stable"))[..., ::-1][..., :k]
    values = np.take_along_axis(np.moveaxis(x, axis, -1), order, axis=-1)
    return (aligned_copy(np.moveaxis(values, -1, axis)),
            aligned_copy(np.moveaxis(order, -1, axis).astype(np.int32)))


def _lower(ctx, x, *, k, axis):
    return tuple(lax().top_k(x, k, axis=axis))


def _jvp(primals, tangents, *, k, axis):
    (x,), (t,) = primals, tangents
    values, positions = top_k.bind(x, k=k, axis=axis)
    return (values, positions), (ops.take_along_axis(t, positions, axis), None)


def _vjp(cts, x, *, out, k, axis):
    # (reading the values at the positions along `axis` is a take_along_axis: its adjoint is that record's)
    return (PRIMITIVES["take_along_axis"].vjp(cts[0], x, out[1], out=out[0], axis=axis)[0],)


def _batch(values, dims, *, axis_size, k, axis):
    (x,), (d,) = values, dims
    x = move_to_front(x, d, axis_size)
    return top_k.bind(x, k=k, axis=axis + 1), (0, 0)


top_k: Primitive  # (declared first: its rules bind it)
top_k = Primitive(
    "top_k",
    impl=_impl,
    abstract_eval=_abstract,
    lower=_lower,
    jvp=_jvp,
    vjp=_vjp,
    batch=_batch,
    multiple_results=True,
)
