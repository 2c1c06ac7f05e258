"""View primitives: O(1) movement operations whose eager rule maps a View to a View over the same storage.

Each record's `impl` is the pure View rule; `abstract_eval` gives the output aval from the input aval.
"""

from __future__ import annotations

from .._core import ShapedArray, primitive
from .._lowering_support import lax
from .._view import View

# Each view primitive also has a `write_back(parent, child, **params)` rule, used when tracing
# functionalises a write: given the value the view was taken of (`parent`) and the new value of the
# view (`child`), it returns the new value of the parent. Rules are built by binding primitives.
WRITE_BACK = {}


def write_back_rule(prim):
    def register(rule):
        WRITE_BACK[prim.name] = rule
        return rule

    return register


def _inverse(axes):
    inv = [0] * len(axes)
    for i, a in enumerate(axes):
        inv[a] = i
    return tuple(inv)


def _same_dtype(shape_rule):
    def abstract_eval(x, **params):
        return ShapedArray(shape_rule(x.shape, **params), x.dtype, x.weak_type)

    return abstract_eval


def _index_shape(shape, *, entries):
    return View(shape, (0,) * len(shape)).index(entries).shape


def _entries_key(entries):
    from .indexing import numpy_key

    return numpy_key(entries, ())


basic_index = primitive(
    "basic_index", kind="view",
    impl=lambda view, *, entries: view.index(entries),
    abstract_eval=_same_dtype(_index_shape),
    lower=lambda ctx, x, *, entries: x[_entries_key(entries)],
)

permute = primitive(
    "permute", kind="view",
    impl=lambda view, *, axes: view.permute(axes),
    abstract_eval=_same_dtype(lambda shape, *, axes: tuple(shape[a] for a in axes)),
    lower=lambda ctx, x, *, axes: lax().transpose(x, axes),
)

broadcast_to = primitive(
    "broadcast_to", kind="view",
    impl=lambda view, *, shape: view.broadcast(shape),
    abstract_eval=_same_dtype(lambda _, *, shape: shape),
    lower=lambda ctx, x, *, shape: lax().broadcast_in_dim(
        x, shape, tuple(range(len(shape) - x.ndim, len(shape)))) if x.shape != shape else x,
)

flip = primitive(
    "flip", kind="view",
    impl=lambda view, *, axes: view.flip(axes),
    abstract_eval=_same_dtype(lambda shape, *, axes: shape),
    lower=lambda ctx, x, *, axes: lax().rev(x, axes),
)

expand_dims = primitive(
    "expand_dims", kind="view",
    impl=lambda view, *, axis: view.expand(axis),
    abstract_eval=_same_dtype(lambda shape, *, axis: shape[:axis] + (1,) + shape[axis:]),
    lower=lambda ctx, x, *, axis: lax().expand_dims(x, (axis,)),
)

squeeze = primitive(
    "squeeze", kind="view",
    impl=lambda view, *, axes: view.squeeze(axes),
    abstract_eval=_same_dtype(lambda shape, *, axes: tuple(n for i, n in enumerate(shape) if i not in axes)),
    lower=lambda ctx, x, *, axes: lax().squeeze(x, axes),
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
    lower=lambda ctx, x, *, shape: lax().reshape(x, shape),
)


def _diagonal_shape(shape, *, offset, axis1, axis2):
    return View(shape, (0,) * len(shape)).diagonal(offset, axis1, axis2).shape


diagonal = primitive(
    "diagonal", kind="view",
    impl=lambda view, *, offset, axis1, axis2: view.diagonal(offset, axis1, axis2),
    abstract_eval=_same_dtype(_diagonal_shape),
    lower=lambda ctx, x, *, offset, axis1, axis2: _lower_diagonal(x, offset, axis1, axis2),
)


def _lower_diagonal(x, offset, axis1, axis2):
    import jax.numpy as jnp

    return jnp.diagonal(x, offset, axis1, axis2)


# --- write-back rules ------------------------------------------------------------------------------


def _reshape_any(x, shape):
    """Reshape a (traced) value, copying first when its view cannot take the new shape."""
    from .elementwise import copy

    if x._storage_view()[1].reshape(shape) is None:
        x = copy.bind(x)
    return reshape_view.bind(x, shape=shape)


@write_back_rule(basic_index)
def _(parent, child, *, entries):
    from .indexing import scatter

    return scatter.bind(parent, child, template=entries)


@write_back_rule(permute)
def _(parent, child, *, axes):
    return permute.bind(child, axes=_inverse(axes))


@write_back_rule(flip)
def _(parent, child, *, axes):
    return flip.bind(child, axes=axes)


@write_back_rule(expand_dims)
def _(parent, child, *, axis):
    return squeeze.bind(child, axes=(axis,))


@write_back_rule(squeeze)
def _(parent, child, *, axes):
    return _reshape_any(child, parent.shape)


@write_back_rule(reshape_view)
def _(parent, child, *, shape):
    return _reshape_any(child, parent.shape)


@write_back_rule(broadcast_to)
def _(parent, child, *, shape):
    raise ValueError(f"cannot write through a broadcast view of shape {shape}: its elements share memory "
                     "(stride 0); write into the array it was broadcast from instead")


@write_back_rule(diagonal)
def _(parent, child, *, offset, axis1, axis2):
    from .. import _creation
    from .indexing import scatter

    nd = len(parent.shape)
    rest = [a for a in range(nd) if a not in (axis1, axis2)]
    moved = permute.bind(parent, axes=tuple(rest) + (axis1, axis2))
    n = child.shape[-1]
    rows = _creation.asarray([i - min(offset, 0) for i in range(n)])
    cols = _creation.asarray([i + max(offset, 0) for i in range(n)])
    updated = scatter.bind(moved, child, rows, cols, template=(("ellipsis",), ("array", 0), ("array", 1)))
    return permute.bind(updated, axes=_inverse(tuple(rest) + (axis1, axis2)))


# --- arbitrary strided views of a flat buffer ------------------------------------------------------


def _strided_indices(shape, strides, offset):
    """Flat indices (int64 JAX array of `shape`) of a strided view."""
    import jax.numpy as jnp

    idx = jnp.full(shape, offset, dtype=jnp.int64)
    for axis, stride in enumerate(strides):
        if stride:
            idx = idx + lax().broadcasted_iota(jnp.int64, shape, axis) * stride
    return idx


# Used by `jit` when several arguments share one storage: they become strided views of a single flat
# input, so a write through one is seen by the others, as eagerly.
as_strided = primitive(
    "as_strided", kind="view",
    impl=lambda view, *, shape, strides, offset: View(shape, strides, view.offset + offset),
    abstract_eval=_same_dtype(lambda _, *, shape, strides, offset: shape),
    lower=lambda ctx, x, *, shape, strides, offset: x[_strided_indices(shape, strides, offset)],
)


@write_back_rule(as_strided)
def _(parent, child, *, shape, strides, offset):
    from .indexing import scatter_flat

    return scatter_flat.bind(parent, child, shape=shape, strides=strides, offset=offset)
