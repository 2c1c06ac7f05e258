"""Elementwise primitives: one record per operation, built from a few shared rule shapes.

Inputs are arrays or Python scalars (weakly typed); outputs broadcast. The eager rule calls a NumPy
ufunc (plus the spec's special-case fix-ups where NumPy differs); large outputs go to aligned storage.
"""

from __future__ import annotations

from math import prod

import numpy as np

from .. import _dtypes
from .._core import ShapedArray, primitive
from .._storage import aligned_empty
from .._view import broadcast_shapes

# Outputs with at least this many elements are written into 64-byte-aligned storage, so that JAX can
# take them without a copy; smaller ones are left where NumPy puts them (copying them is cheap).
ALIGNED_OUTPUT_ELEMENTS = 2048


def aval_of(x) -> ShapedArray:
    """The abstract value of a primitive input: arrays carry theirs; Python scalars are weak 0-D."""
    if isinstance(x, ShapedArray):
        return x
    if isinstance(x, bool):
        return ShapedArray((), _dtypes.bool, True)
    if isinstance(x, int):
        return ShapedArray((), _dtypes.int64, True)
    if isinstance(x, float):
        return ShapedArray((), _dtypes.float64, True)
    if isinstance(x, complex):
        return ShapedArray((), _dtypes.complex128, True)
    return ShapedArray(x.shape, x.dtype, False)


def promote_avals(*avals: ShapedArray) -> tuple:
    """(dtype, weak) of combining avals: strong types win; weak scalars adapt (NEP 50)."""
    strong = [a.dtype for a in avals if not a.weak_type]
    if strong:
        dtype = _dtypes.result_type_of(*strong)
        for a in avals:
            if a.weak_type:
                dtype = _dtypes.scalar_result_dtype(dtype, _PY_EXAMPLE[a.dtype])
        return dtype, False
    return _dtypes.result_type_of(*[a.dtype for a in avals]), True


_PY_EXAMPLE = {_dtypes.bool: True, _dtypes.int64: 0, _dtypes.float64: 0.0, _dtypes.complex128: 0j}


def call_ufunc(ufunc, *args, **kwargs):
    """Run a ufunc and return an ndarray (never a NumPy scalar); large results go to aligned storage."""
    shape = None
    for a in args:
        if type(a) is np.ndarray:
            s = a.shape
            if shape is None:
                shape = s
            elif s != shape:
                shape = np.broadcast_shapes(shape, s)
    if shape is None or prod(shape) < ALIGNED_OUTPUT_ELEMENTS:
        return ufunc(*args, out=..., **kwargs)
    dtype = kwargs.get("dtype")
    if dtype is None:
        dtype = ufunc.resolve_dtypes(tuple(a.dtype if type(a) is np.ndarray else type(a) for a in args)
                                     + (None,) * ufunc.nout)[-1]
    out = aligned_empty(shape, dtype)
    ufunc(*args, out=out, **kwargs)
    return out


# --- rule shapes ---------------------------------------------------------------------------------


def binary_abstract(result_dtype=None):
    """Broadcast shapes; dtype by promotion (or a fixed `result_dtype`, e.g. bool for comparisons)."""

    def abstract_eval(x1, x2):
        a1, a2 = aval_of(x1), aval_of(x2)
        dtype, weak = promote_avals(a1, a2)
        if result_dtype is not None:
            dtype, weak = result_dtype, False
        return ShapedArray(broadcast_shapes(a1.shape, a2.shape), dtype, weak)

    return abstract_eval


def unary_abstract(dtype_rule=None):
    def abstract_eval(x):
        a = aval_of(x)
        dtype = a.dtype if dtype_rule is None else dtype_rule(a.dtype)
        return ShapedArray(a.shape, dtype, a.weak_type and dtype is a.dtype)

    return abstract_eval


def ufunc_binary(name: str, ufunc, **rules):
    return primitive(name, impl=lambda x1, x2: call_ufunc(ufunc, x1, x2), abstract_eval=binary_abstract(), **rules)


# --- the records -----------------------------------------------------------------------------------

add = ufunc_binary("add", np.add)


def _copy_impl(x):
    from .._storage import aligned_copy

    return aligned_copy(np.asarray(x))


# A fresh buffer holding the same values: what `asarray(copy=True)`, `positive` and copying reshapes bind.
copy = primitive("copy", impl=_copy_impl, abstract_eval=unary_abstract())
