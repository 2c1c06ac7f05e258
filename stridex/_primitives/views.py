"""View primitives: O(1) movement operations whose eager rule maps a View to a View over the same storage.

Each record's `impl` is the pure View rule; `abstract_eval` gives the output aval from the input aval.
"""

from __future__ import annotations

from .._core import ShapedArray, primitive
from .._view import View


def _same_dtype(shape_rule):
    def abstract_eval(x, **params):
        return ShapedArray(shape_rule(x.shape, **params), x.dtype, x.weak_type)

    return abstract_eval


def _index_shape(shape, *, entries):
    return View(shape, (0,) * len(shape)).index(entries).shape


basic_index = primitive(
    "basic_index", kind="view",
    impl=lambda view, *, entries: view.index(entries),
    abstract_eval=_same_dtype(_index_shape),
)

permute = primitive(
    "permute", kind="view",
    impl=lambda view, *, axes: view.permute(axes),
    abstract_eval=_same_dtype(lambda shape, *, axes: tuple(shape[a] for a in axes)),
)

broadcast_to = primitive(
    "broadcast_to", kind="view",
    impl=lambda view, *, shape: view.broadcast(shape),
    abstract_eval=_same_dtype(lambda _, *, shape: shape),
)

flip = primitive(
    "flip", kind="view",
    impl=lambda view, *, axes: view.flip(axes),
    abstract_eval=_same_dtype(lambda shape, *, axes: shape),
)

expand_dims = primitive(
    "expand_dims", kind="view",
    impl=lambda view, *, axis: view.expand(axis),
    abstract_eval=_same_dtype(lambda shape, *, axis: shape[:axis] + (1,) + shape[axis:]),
)

squeeze = primitive(
    "squeeze", kind="view",
    impl=lambda view, *, axes: view.squeeze(axes),
    abstract_eval=_same_dtype(lambda shape, *, axes: tuple(n for i, n in enumerate(shape) if i not in axes)),
)


def _reshape_view(view, *, shape):
    out = view.reshape(shape)
    if out is None:
        raise AssertionError(f"reshape_view bound on a view that cannot be reshaped to {shape}: {view}")
    return out


# Bound only after View.reshape said a view exists; `reshape` in the namespace copies otherwise.
reshape_view = primitive(
    "reshape_view", kind="view",
    impl=_reshape_view,
    abstract_eval=_same_dtype(lambda _, *, shape: shape),
)


def _diagonal_shape(shape, *, offset, axis1, axis2):
    return View(shape, (0,) * len(shape)).diagonal(offset, axis1, axis2).shape


diagonal = primitive(
    "diagonal", kind="view",
    impl=lambda view, *, offset, axis1, axis2: view.diagonal(offset, axis1, axis2),
    abstract_eval=_same_dtype(_diagonal_shape),
)
