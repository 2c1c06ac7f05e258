"""View primitives: O(1) movement operations whose eager rule maps a View to a View over the same storage.

Each record's `impl` is the pure View rule and `abstract_eval` the output aval. Besides the rules every
primitive has, a view carries what writes and the IR's passes need of it:

- `write_back(parent, child, **params)`: the parent's new value once the view `child` of it was written
  (how tracing functionalises `y = x[1:]; y[0] = 5`). It is the view's adjoint, so it is also the VJP:
  the cotangent written back through the view into zeros.
- `compose(first, first_params, params, out_aval)` and `is_identity(in_aval, **params)`: how view folding
  merges this view into the view before it, and drops it when it changes nothing.

A view is linear: its JVP applies the same view to the tangent. Its batching rule moves the batch axis
first and applies the view with its axis params shifted by one.
"""

from __future__ import annotations

from stridex._core import dtypes as _dtypes
from stridex._core.avals import ShapedArray, value_aval
from stridex._core.view import View, numpy_key
from stridex._lax import ops
from stridex._exec.jax_bridge import jnp, lax
from stridex._lax.primitive import Primitive
from stridex._lax.rule_shapes import linear_jvp, move_to_front
from stridex._exec.strided import read_view


def _same_dtype(shape_rule):
    def abstract_eval(x, **params):
        return ShapedArray(shape_rule(x.shape, **params), x.dtype, x.weak_type)

    return abstract_eval


def _vjp_by_write_back(write_back):
    """A view's VJP: the cotangent written back through the view into zeros (the write-back is the adjoint)."""
    return lambda ct, x, *, out, **params: (write_back(ops.zeros_like(value_aval(x)), ct, **params),)


def _batched(rule):
    """A view's batching rule from `rule(x, axis_size, **params)`, applied with the batch axis first."""

    def batch(values, dims, *, axis_size, **params):
        (x,), (d,) = values, dims
        return rule(move_to_front(x, d, axis_size), axis_size, **params), 0

    return batch


def _inverse(axes):
    inv = [0] * len(axes)
    for i, a in enumerate(axes):
        inv[a] = i
    return tuple(inv)


# --- basic_index: x[ints, slices, None, ...] ---------------------------------------------------------


def _index_shape(shape, *, entries):
    return View(shape, (0,) * len(shape)).index(entries).shape


def _basic_index_write_back(parent, child, *, entries):
    return ops.scatter(parent, child, entries)


basic_index: Primitive  # (declared first: its batching rule binds it)
basic_index = Primitive(
    "basic_index", kind="view",
    impl=lambda view, *, entries: view.index(entries),
    abstract_eval=_same_dtype(_index_shape),
    lower=lambda ctx, x, *, entries: x[numpy_key(entries, ())],
    jvp=linear_jvp,
    vjp=_vjp_by_write_back(_basic_index_write_back),
    batch=_batched(lambda x, n, *, entries: basic_index.bind(x, entries=(("slice", 0, n, 1), *entries))),
    write_back=_basic_index_write_back,
)


# --- permute: a permutation of the axes --------------------------------------------------------------


def _permute_write_back(parent, child, *, axes):
    return permute.bind(child, axes=_inverse(axes))


def _permute_compose(first, first_params, params, out_aval):
    if first is not permute:
        return None
    return permute, {"axes": tuple(first_params["axes"][i] for i in params["axes"])}


permute: Primitive  # (declared first: its batching rule binds it)
permute = Primitive(
    "permute", kind="view",
    impl=lambda view, *, axes: view.permute(axes),
    abstract_eval=_same_dtype(lambda shape, *, axes: tuple(shape[a] for a in axes)),
    lower=lambda ctx, x, *, axes: lax().transpose(x, axes),
    jvp=linear_jvp,
    vjp=_vjp_by_write_back(_permute_write_back),
    batch=_batched(lambda x, n, *, axes: permute.bind(x, axes=(0, *(a + 1 for a in axes)))),
    write_back=_permute_write_back,
    compose=_permute_compose,
    is_identity=lambda x, *, axes: axes == tuple(range(len(axes))),
)


# --- broadcast_to: new leading axes and size-1 axes stretched (stride 0) -----------------------------


def _broadcast_write_back(parent, child, *, shape):
    raise ValueError(f"cannot write through a broadcast view of shape {shape}: its elements share memory "
                     "(stride 0); write into the array it was broadcast from instead")


def _batch_broadcast(x, n, *, shape):
    per_example = ops.shape_of(x)[1:]
    x = ops.reshape(x, (n,) + (1,) * (len(shape) - len(per_example)) + per_example)
    return ops.broadcast_to(x, (n, *shape))


broadcast_to = Primitive(
    "broadcast_to", kind="view",
    impl=lambda view, *, shape: view.broadcast(shape),
    abstract_eval=_same_dtype(lambda _, *, shape: shape),
    lower=lambda ctx, x, *, shape: lax().broadcast_in_dim(
        x, shape, tuple(range(len(shape) - x.ndim, len(shape)))) if x.shape != shape else x,
    jvp=linear_jvp,
    # The adjoint is the sum over the broadcast axes, which autodiff's `fit` applies to every cotangent.
    vjp=lambda ct, x, *, out, shape: (ct,),
    batch=_batched(_batch_broadcast),
    write_back=_broadcast_write_back,
)


# --- flip: reversed axes (negative strides) ----------------------------------------------------------


def _flip_write_back(parent, child, *, axes):
    return flip.bind(child, axes=axes)


def _flip_compose(first, first_params, params, out_aval):
    if first is not flip:
        return None
    return flip, {"axes": tuple(sorted(set(first_params["axes"]) ^ set(params["axes"])))}


flip: Primitive  # (declared first: its batching rule binds it)
flip = Primitive(
    "flip", kind="view",
    impl=lambda view, *, axes: view.flip(axes),
    abstract_eval=_same_dtype(lambda shape, *, axes: shape),
    lower=lambda ctx, x, *, axes: lax().rev(x, axes),
    jvp=linear_jvp,
    vjp=_vjp_by_write_back(_flip_write_back),
    batch=_batched(lambda x, n, *, axes: flip.bind(x, axes=tuple(a + 1 for a in axes))),
    write_back=_flip_write_back,
    compose=_flip_compose,
    is_identity=lambda x, *, axes: all(x.shape[a] <= 1 for a in axes),
)


# --- reshape_view, expand_dims, squeeze: new shapes over the same elements ---------------------------
# Folding merges any run of these into one reshape_view of the first one's input.


def _reshape_compose(first, first_params, params, out_aval):
    if first.compose is not _reshape_compose:
        return None
    return reshape_view, {"shape": out_aval.shape}


def _expand_write_back(parent, child, *, axis):
    return squeeze.bind(child, axes=(axis,))


expand_dims: Primitive  # (declared first: its batching rule binds it)
expand_dims = Primitive(
    "expand_dims", kind="view",
    impl=lambda view, *, axis: view.expand(axis),
    abstract_eval=_same_dtype(lambda shape, *, axis: shape[:axis] + (1,) + shape[axis:]),
    lower=lambda ctx, x, *, axis: lax().expand_dims(x, (axis,)),
    jvp=linear_jvp,
    vjp=_vjp_by_write_back(_expand_write_back),
    batch=_batched(lambda x, n, *, axis: expand_dims.bind(x, axis=axis + 1)),
    write_back=_expand_write_back,
    compose=_reshape_compose,
)


def _squeeze_write_back(parent, child, *, axes):
    return ops.reshape(child, parent.shape)  # a copy first when the view cannot take the shape


squeeze: Primitive  # (declared first: its batching rule binds it)
squeeze = Primitive(
    "squeeze", kind="view",
    impl=lambda view, *, axes: view.squeeze(axes),
    abstract_eval=_same_dtype(lambda shape, *, axes: tuple(n for i, n in enumerate(shape) if i not in axes)),
    lower=lambda ctx, x, *, axes: lax().squeeze(x, axes),
    jvp=linear_jvp,
    vjp=_vjp_by_write_back(_squeeze_write_back),
    batch=_batched(lambda x, n, *, axes: squeeze.bind(x, axes=tuple(a + 1 for a in axes))),
    write_back=_squeeze_write_back,
    compose=_reshape_compose,
)


def _reshape_write_back(parent, child, *, shape):
    return ops.reshape(child, parent.shape)  # a copy first when the view cannot take the shape


# Bound only after View.reshape said a view exists; `reshape` in the namespace (and `ops.reshape`) copies
# otherwise.
reshape_view = Primitive(
    "reshape_view", kind="view",
    impl=lambda view, *, shape: view.reshape(shape),  # (None where the strides cannot take it)
    abstract_eval=_same_dtype(lambda _, *, shape: shape),
    lower=lambda ctx, x, *, shape: lax().reshape(x, shape),
    jvp=linear_jvp,
    vjp=_vjp_by_write_back(_reshape_write_back),
    batch=_batched(lambda x, n, *, shape: ops.reshape(x, (n, *shape))),
    write_back=_reshape_write_back,
    compose=_reshape_compose,
    is_identity=lambda x, *, shape: shape == x.shape,
)


# --- diagonal: the offset diagonal of two axes, as the last axis -------------------------------------


def _diagonal_shape(shape, *, offset, axis1, axis2):
    return View(shape, (0,) * len(shape)).diagonal(offset, axis1, axis2).shape


def _diagonal_write_back(parent, child, *, offset, axis1, axis2):
    rest = [a for a in range(len(parent.shape)) if a not in (axis1, axis2)]
    order = tuple(rest) + (axis1, axis2)
    n = ops.shape_of(child)[-1]
    rows = ops.constant([i - min(offset, 0) for i in range(n)], _dtypes.int64, like=parent)
    cols = ops.constant([i + max(offset, 0) for i in range(n)], _dtypes.int64, like=parent)
    updated = ops.scatter(permute.bind(parent, axes=order), child, (("ellipsis",), ("array", 0), ("array", 1)),
                          rows, cols)
    return permute.bind(updated, axes=_inverse(order))


diagonal: Primitive  # (declared first: its batching rule binds it)
diagonal = Primitive(
    "diagonal", kind="view",
    impl=lambda view, *, offset, axis1, axis2: view.diagonal(offset, axis1, axis2),
    abstract_eval=_same_dtype(_diagonal_shape),
    lower=lambda ctx, x, *, offset, axis1, axis2: jnp().diagonal(x, offset, axis1, axis2),
    jvp=linear_jvp,
    vjp=_vjp_by_write_back(_diagonal_write_back),
    batch=_batched(lambda x, n, *, offset, axis1, axis2: diagonal.bind(x, offset=offset, axis1=axis1 + 1,
                                                                        axis2=axis2 + 1)),
    write_back=_diagonal_write_back,
)


# --- as_strided: an arbitrary strided window of a flat buffer ----------------------------------------
# Used by `jit` when several arguments share one storage: they become strided views of a single flat
# input, so a write through one is seen by the others, as eagerly.


def _lower_as_strided(ctx, x, *, shape, strides, offset):
    # (a slice, reshape, transpose, reverse or broadcast where the window allows: a gather only where not)
    return read_view(x, View(shape, strides, offset))


def _as_strided_write_back(parent, child, *, shape, strides, offset):
    return ops.scatter_flat(parent, child, shape, strides, offset)


def _batch_as_strided(x, n, *, shape, strides, offset):
    span = ops.shape_of(x)[1]
    return as_strided.bind(ops.reshape(x, (n * span,)), shape=(n, *shape), strides=(span, *strides), offset=offset)


as_strided = Primitive(
    "as_strided", kind="view",
    impl=lambda view, *, shape, strides, offset: (  # (of a flat, contiguous View only)
        View(shape, strides, view.offset + offset) if view.strides == (1,) or view.shape in ((0,), (1,)) else None),
    abstract_eval=_same_dtype(lambda _, *, shape, strides, offset: shape),
    lower=_lower_as_strided,
    jvp=linear_jvp,
    vjp=_vjp_by_write_back(_as_strided_write_back),
    batch=_batched(_batch_as_strided),
    write_back=_as_strided_write_back,
)
