"""Sorting primitives: sort, argsort (always stable; descending keeps equal elements in their original order).

sort's gradient follows its permutation: the JVP gathers the tangent by it, the VJP scatters the
cotangent back through it, so tied elements each keep their own gradient (no sharing, unlike max).
"""

from __future__ import annotations

import numpy as np

from stridex._core import dtypes as _dtypes
from stridex._core.avals import ShapedArray
from stridex._lax import ops
from stridex._lax.half import in_float32
from stridex._exec.jax_bridge import lax
from stridex._lax.primitive import Primitive
from stridex._lax.rule_shapes import batch_unary_axes
from stridex._lax.searching import sort_key

_INDEX = np.dtype(np.int64)


# --- sort: the values of `x` in order along `axis` ------------------------------------------------------
# sort is a permutation of its input: the JVP gathers the tangent by the sorting permutation (argsort,
# stable, so ties keep their original order), and the VJP scatters the cotangent back through it, done as a
# gather by the inverse permutation (the argsort of the permutation).
# Rules derived from argsort and take_along_axis: exact (a permutation has no better formula), and every
# transformation of them comes with those primitives.


def _sort_impl(x, *, axis, descending):
    if not descending:
        return np.sort(x, axis=axis, kind="stable")
    # Note: a stable descending sort must keep equal elements (e.g. -0 and +0) in their original order,
    # which reversing an ascending sort would not: sort the reversed array, then reverse the result.
    out = np.sort(np.flip(x, axis), axis=axis, kind="stable")
    return np.ascontiguousarray(np.flip(out, axis))


def _lower_sort(ctx, x, *, axis, descending):
    lax_ = lax()
    if descending:
        x = lax_.rev(x, (axis,))
    _, out = lax_.sort((sort_key(x), x), dimension=axis, is_stable=True, num_keys=1)
    return lax_.rev(out, (axis,)) if descending else out


def _sort_jvp(primals, tangents, *, axis, descending):
    (x,), (t,) = primals, tangents
    order = argsort.bind(x, axis=axis, descending=descending)
    return ops.take_along_axis(x, order, axis), ops.take_along_axis(t, order, axis)


def _sort_vjp(ct, x, *, out, axis, descending):
    order = argsort.bind(x, axis=axis, descending=descending)
    return (ops.take_along_axis(ct, argsort.bind(order, axis=axis, descending=False), axis),)


sort = Primitive(
    "sort",
    impl=in_float32(_sort_impl),  # (ml_dtypes' bfloat16 comparisons misplace NaN: sort in float32, exactly)
    abstract_eval=lambda x, *, axis, descending: ShapedArray(x.shape, x.dtype),
    lower=_lower_sort,
    jvp=_sort_jvp,
    vjp=_sort_vjp,
    batch=batch_unary_axes("axis"),
)


# --- argsort: the stable sorting permutation along `axis` (int64; not differentiable) ----------------------


def _argsort_impl(x, *, axis, descending):
    if not descending:
        return np.asarray(np.argsort(x, axis=axis, kind="stable"), _INDEX)
    n = x.shape[axis]
    order = np.argsort(np.flip(x, axis), axis=axis, kind="stable")
    # Positions in the reversed array map back as n-1-i; reversing the order makes it descending.
    return np.ascontiguousarray(np.subtract(n - 1, np.flip(order, axis), dtype=_INDEX))


def _lower_argsort(ctx, x, *, axis, descending):
    lax_ = lax()
    n = x.shape[axis]
    if descending:
        x = lax_.rev(x, (axis,))
    iota = lax_.broadcasted_iota(np.int64, x.shape, axis)
    _, order = lax_.sort((sort_key(x), iota), dimension=axis, is_stable=True, num_keys=1)
    if descending:
        order = lax_.sub(lax_.full_like(order, n - 1), lax_.rev(order, (axis,)))
    return order


argsort = Primitive(
    "argsort",
    impl=in_float32(_argsort_impl),
    abstract_eval=lambda x, *, axis, descending: ShapedArray(x.shape, _dtypes.int64),
    lower=_lower_argsort,
    batch=batch_unary_axes("axis"),
    differentiable=False,
)
