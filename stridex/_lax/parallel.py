"""Collectives over a named `vmap` axis: psum, pmax, pmin, all_gather, axis_index (serve `stridex.lax`).

A collective names the axes it works across (`axes`, a tuple of axis names). It is a `Collective`: the `vmap`
that binds one of those names resolves it, whatever the batch dimensions of its operands (a value the same
for every member still sums to `n` times itself), so `BatchTrace` hands every collective to its batching rule,
which takes one more keyword than other primitives' rules: `axis_name`, the name of that `vmap`'s axis (None
for an unnamed one). Over its own axis the rule computes the collective with ordinary operations (a sum over
the batch dimension); over another name it binds the collective again below, each member of its own batch a
member of the other axis's. Outside every `vmap` naming the axis there is nothing to reduce over: the public
functions raise JAX's NameError ("unbound axis name: i") before binding, and the eager rule raises it too.

The lowerings are `jax.lax`'s own collectives over the same names, for a program that JAX itself maps (inside
a `jax.vmap` or `shard_map` naming the axis); stridex's own transformations never leave one to lower.
"""

from __future__ import annotations

from stridex._core import dtypes as _dtypes
from stridex._core.avals import ShapedArray
from stridex._lax import ops
from stridex._exec.jax_bridge import lax
from stridex._lax.primitive import Primitive
from stridex._lax.rule_shapes import linear_jvp, move_to_front


class Collective(Primitive):
    """A primitive over named axes (its `axes` param): every `vmap` hands it to its batching rule, with the
    keyword `axis_name` (see the module's docstring)."""

    __slots__ = ()


def unbound(name, what: str) -> NameError:
    """JAX's error for a collective over an axis that no enclosing `vmap` names."""
    return NameError(f"unbound axis name: {name}. {what} works across the axis of an enclosing "
                     f"`vmap(..., axis_name={name!r})`, and none encloses it")


def _eager_unbound(*_, axes, **__):
    raise unbound(axes[0], "a collective")


def _same_aval(x, **_):
    return ShapedArray(x.shape, x.dtype, x.weak_type)


# --- psum: the sum over the named axes -------------------------------------------------------------------


def _psum_batch(values, dims, *, axis_size, axis_name, axes):
    (x,), (d,) = values, dims
    if axis_name not in axes:  # (another vmap's axis: each member of this batch sums there on its own)
        return psum.bind(x, axes=axes), d
    out = ops.multiply(x, axis_size) if d is None else ops.sum(x, d, dtype=ops.dtype_of(x))
    rest = tuple(a for a in axes if a != axis_name)
    return (psum.bind(out, axes=rest) if rest else out), None


def _psum_vjp(ct, x, *, out, axes):
    # y_j = sum_i x_i for every member j, so d/dx_i of sum_j ct_j * y_j is sum_j ct_j: the psum of the cotangent.
    return (psum.bind(ct, axes=axes),)


psum = Collective(
    "psum",
    impl=_eager_unbound,
    abstract_eval=_same_aval,
    lower=lambda ctx, x, *, axes: lax().psum(x, axes),
    jvp=linear_jvp,
    vjp=_psum_vjp,
    batch=_psum_batch,
)


# --- pmax, pmin: the extremum over the named axes ---------------------------------------------------------
# As `max`/`min` reductions: the derivative is shared equally among the members that tie for the extremum
# (and NaNs, which it propagates).


def _extremum(name: str, reduce):
    def batch(values, dims, *, axis_size, axis_name, axes):
        (x,), (d,) = values, dims
        if axis_name not in axes:
            return prim.bind(x, axes=axes), d
        out = ops.copy(x) if d is None else reduce(x, d)
        rest = tuple(a for a in axes if a != axis_name)
        return (prim.bind(out, axes=rest) if rest else out), None

    def share(x, out, axes):
        chosen = ops.astype(ops.logical_or(ops.equal(x, out), ops.isnan(x)), ops.dtype_of(x))
        return chosen / psum.bind(chosen, axes=axes)

    def jvp(primals, tangents, *, axes):
        (x,), (t,) = primals, tangents
        out = prim.bind(x, axes=axes)
        return out, psum.bind(t * share(x, out, axes), axes=axes)

    def vjp(ct, x, *, out, axes):
        return (psum.bind(ct, axes=axes) * share(x, out, axes),)

    prim = Collective(
        name,
        impl=_eager_unbound,
        abstract_eval=_same_aval,
        lower=lambda ctx, x, *, axes: getattr(lax(), name)(x, axes),
        jvp=jvp,
        vjp=vjp,
        batch=batch,
    )
    return prim


pmax = _extremum("pmax", ops.reduce_max)
pmin = _extremum("pmin", ops.reduce_min)


# --- all_gather: every member's value, stacked (or concatenated: `tiled`) at `axis` -----------------------
# One axis name: `size` is its length (the public function reads it from the vmap that binds the name), which
# the result's shape needs.


def _all_gather_abstract(x, *, axes, axis, tiled, size):
    shape = x.shape
    if tiled:
        return ShapedArray(shape[:axis] + (size * shape[axis],) + shape[axis + 1:], x.dtype)
    return ShapedArray(shape[:axis] + (size,) + shape[axis:], x.dtype)


def _all_gather_batch(values, dims, *, axis_size, axis_name, axes, axis, tiled, size):
    (x,), (d,) = values, dims
    if axis_name not in axes:
        if d is None:
            return all_gather.bind(x, axes=axes, axis=axis, tiled=tiled, size=size), None
        x = move_to_front(x, d, axis_size)
        return all_gather.bind(x, axes=axes, axis=axis + 1, tiled=tiled, size=size), 0
    # Every member gets the whole batch, its axis at `axis` (a copy: the result shares no memory with x).
    stacked = ops.moveaxis(move_to_front(x, d, axis_size), 0, axis)
    if tiled:
        shape = ops.shape_of(stacked)
        stacked = ops.reshape(stacked, shape[:axis] + (shape[axis] * shape[axis + 1],) + shape[axis + 2:])
    return ops.copy(stacked), None


def _all_gather_vjp(ct, x, *, out, axes, axis, tiled, size):
    # Member i's value is part i of every member's result: its cotangent is part i of the psum of theirs.
    total = psum.bind(ct, axes=axes)
    ndim = len(ops.shape_of(total))
    index = ops.astype(axis_index.bind(axes=axes), _dtypes.int64)
    if tiled:
        chunk = ops.shape_of(x)[axis]
        positions = index * chunk + ops.arange(chunk)
        shape = tuple(chunk if a == axis else 1 for a in range(ndim))
        return (ops.take_along_axis(total, ops.reshape(positions, shape), axis),)
    picked = ops.take_along_axis(total, ops.reshape(index, (1,) * ndim), axis)
    return (ops.squeeze(picked, axis),)


all_gather = Collective(
    "all_gather",
    impl=_eager_unbound,
    abstract_eval=_all_gather_abstract,
    lower=lambda ctx, x, *, axes, axis, tiled, size: lax().all_gather(x, axes[0], axis=axis, tiled=tiled),
    jvp=linear_jvp,
    vjp=_all_gather_vjp,
    batch=_all_gather_batch,
)


# --- axis_index: each member's position along the named axis (int32, as in JAX) ---------------------------


def _axis_index_batch(values, dims, *, axis_size, axis_name, axes):
    if axis_name not in axes:
        return axis_index.bind(axes=axes), None
    return ops.arange(axis_size, _dtypes.int32), 0


axis_index = Collective(
    "axis_index",
    impl=_eager_unbound,
    abstract_eval=lambda *, axes: ShapedArray((), _dtypes.int32),
    lower=lambda ctx, *, axes: lax().axis_index(axes[0]),
    batch=_axis_index_batch,
    differentiable=False,
)
