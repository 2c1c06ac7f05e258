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


gather = primitive(
    "gather",
    impl=_gather_impl,
    abstract_eval=_abstract_by_numpy,
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


assign = primitive(
    "assign", kind="write",
    impl=_assign_impl,
    abstract_eval=_assign_abstract,
)
