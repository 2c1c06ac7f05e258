"""Indexing primitives that touch data: advanced (integer-array) gathers, boolean masks, and writes.

An index is passed as a static `template` (hashable) plus the index arrays as inputs: each template
entry is ("int", i), ("slice", start, stop, step), ("newaxis",), ("ellipsis",) or ("array", k), the
last meaning "the k-th index-array input".
"""

from __future__ import annotations

import numpy as np

from .._core import ShapedArray, primitive


def numpy_key(template: tuple, arrays) -> tuple:
    key = []
    for entry in template:
        tag = entry[0]
        if tag == "int":
            key.append(entry[1])
        elif tag == "slice":
            # Normalised stops follow `range`: -1 with a negative step means "past the start".
            key.append(slice(entry[1], None if entry[2] < 0 else entry[2], entry[3]))
        elif tag == "newaxis":
            key.append(None)
        elif tag == "ellipsis":
            key.append(Ellipsis)
        else:
            key.append(arrays[entry[1]])
    return tuple(key)


def _abstract_by_numpy(x, *indices, template):
    # Shapes of advanced indexing follow NumPy's rules exactly; evaluate them on zero-stride dummies.
    dummy = np.lib.stride_tricks.as_strided(np.zeros(1, np.int8), x.shape, (0,) * len(x.shape))
    dummies = [np.zeros(i.shape, np.intp if i.dtype.kind != "bool" else np.bool_) for i in indices]
    return ShapedArray(dummy[numpy_key(template, dummies)].shape, x.dtype)


def _gather_impl(x, *indices, template):
    return x[numpy_key(template, indices)]


def _lower_gather(ctx, x, *indices, template):
    # Note: under jit an out-of-range integer index cannot raise; JAX clamps it (the spec leaves
    # out-of-bounds integer-array indices unspecified). Eagerly, NumPy raises IndexError.
    return x[numpy_key(template, indices)]


gather = primitive(
    "gather",
    impl=_gather_impl,
    abstract_eval=_abstract_by_numpy,
    lower=_lower_gather,
)

# Boolean masks give a data-dependent shape: the tracer must refuse to guess it.
boolean_gather = primitive(
    "boolean_gather",
    impl=_gather_impl,
    abstract_eval=None,
    data_dependent=True,
)


def _assign_impl(target, value, *indices, template):
    target[numpy_key(template, indices)] = value


def _assign_abstract(target, value, *indices, template):
    return target


# `x[key] = value`: the one primitive that mutates. Eagerly it writes into the target's storage; under
# tracing it is functionalised into `scatter` plus write-back through the target's chain of views.
assign = primitive(
    "assign", kind="write",
    impl=_assign_impl,
    abstract_eval=_assign_abstract,
    differentiable=False,
)


def _scatter_impl(x, value, *indices, template):
    from .._storage import aligned_copy

    out = aligned_copy(x)
    out[numpy_key(template, indices)] = value
    return out


def _lower_scatter(ctx, x, value, *indices, template):
    from .._lowering_support import as_dtype

    value = as_dtype(value, ctx.avals_in[0].dtype)
    return x.at[numpy_key(template, indices)].set(value)


# The functional form of `assign`: a copy of x with x[key] replaced by value (broadcast).
scatter = primitive(
    "scatter",
    impl=_scatter_impl,
    abstract_eval=lambda x, value, *indices, template: ShapedArray(x.shape, x.dtype, x.weak_type),
    lower=_lower_scatter,
)


def _scatter_flat_impl(x, value, *, shape, strides, offset):
    from .._storage import aligned_copy

    out = aligned_copy(x)
    itemsize = out.itemsize
    target = np.lib.stride_tricks.as_strided(out[offset:], shape, tuple(s * itemsize for s in strides))
    target[...] = value
    return out


def _lower_scatter_flat(ctx, x, value, *, shape, strides, offset):
    from .views import _strided_indices

    return x.at[_strided_indices(shape, strides, offset)].set(value)


# The write-back of `as_strided`: a copy of flat x with the strided window (shape, strides, offset) set.
scatter_flat = primitive(
    "scatter_flat",
    impl=_scatter_flat_impl,
    abstract_eval=lambda x, value, *, shape, strides, offset: ShapedArray(x.shape, x.dtype, x.weak_type),
    lower=_lower_scatter_flat,
)
