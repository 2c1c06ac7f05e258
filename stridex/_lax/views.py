"""View primitives: O(1) movement operations whose eager rule maps a View to a View over the same storage.

Each record's `impl` is the pure View rule; `abstract_eval` gives the output aval from the input aval.
"""

from __future__ import annotations

from stridex._core.avals import ShapedArray
from stridex._core.view import View
from stridex._lax import elementwise as _elementwise
from stridex._lax.jax_bridge import lax
from stridex._lax.primitive import primitive

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
    from stridex._lax.array_indexing import numpy_key

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

    if x._storage_view()[1].reshape(shape) is None:
        x = _elementwise.copy.bind(x)
    return reshape_view.bind(x, shape=shape)


@write_back_rule(basic_index)
def _(parent, child, *, entries):
    from stridex._lax.array_indexing import scatter

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
    from stridex._api import creation_functions as _creation
    from stridex._lax.array_indexing import scatter

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
    from stridex._lax.array_indexing import scatter_flat

    return scatter_flat.bind(parent, child, shape=shape, strides=strides, offset=offset)


# --- transformation rules ----------------------------------------------------------------------------
# A view is linear: its JVP applies the same view to the tangent; its VJP writes the cotangent back
# through the view into zeros (the write-back rule, which is the view's adjoint); `broadcast_to`'s
# adjoint is the sum over broadcast axes, which autodiff's `fit` applies to every cotangent anyway.


def _linear_jvp(prim):
    return lambda primals, tangents, **params: (prim.bind(*primals, **params), prim.bind(*tangents, **params))


def _adjoint_vjp(prim):
    def vjp(ct, x, *, out, **params):
        from stridex._transforms.autodiff import value_aval, zeros_like_aval

        return (WRITE_BACK[prim.name](zeros_like_aval(value_aval(x)), ct, **params),)

    return vjp


def _batched_view(rule):
    """A view's batching rule: batch axis first, then the same view with params shifted by one axis."""

    def batch(values, dims, *, axis_size, **params):
        from stridex._transforms.batching import move_to_front

        (x,), (d,) = values, dims
        return rule(move_to_front(x, d, axis_size), axis_size, **params), 0

    return batch


def _set_rules(prim, batch_rule, vjp=None):
    prim.jvp = _linear_jvp(prim)
    prim.vjp = vjp or _adjoint_vjp(prim)
    prim.batch = _batched_view(batch_rule)


_set_rules(basic_index, lambda x, n, *, entries: basic_index.bind(x, entries=(("slice", 0, n, 1), *entries)))
_set_rules(permute, lambda x, n, *, axes: permute.bind(x, axes=(0, *(a + 1 for a in axes))))
_set_rules(flip, lambda x, n, *, axes: flip.bind(x, axes=tuple(a + 1 for a in axes)))
_set_rules(expand_dims, lambda x, n, *, axis: expand_dims.bind(x, axis=axis + 1))
_set_rules(squeeze, lambda x, n, *, axes: squeeze.bind(x, axes=tuple(a + 1 for a in axes)))
_set_rules(diagonal, lambda x, n, *, offset, axis1, axis2: diagonal.bind(x, offset=offset, axis1=axis1 + 1,
                                                                          axis2=axis2 + 1))


def _batch_reshape(x, n, *, shape):
    from stridex._api.manipulation_functions import reshape

    return reshape(x, (n, *shape))


def _batch_broadcast(x, n, *, shape):
    from stridex._api.manipulation_functions import reshape

    per_example = x.shape[1:]
    x = reshape(x, (n,) + (1,) * (len(shape) - len(per_example)) + per_example)
    return broadcast_to.bind(x, shape=(n, *shape)) if x.shape != (n, *shape) else x


def _batch_as_strided(x, n, *, shape, strides, offset):
    from stridex._api.manipulation_functions import reshape

    span = x.shape[1]
    return as_strided.bind(reshape(x, (n * span,)), shape=(n, *shape), strides=(span, *strides), offset=offset)


_set_rules(reshape_view, _batch_reshape)
_set_rules(broadcast_to, _batch_broadcast, vjp=lambda ct, x, *, out, shape: (ct,))
_set_rules(as_strided, _batch_as_strided)
