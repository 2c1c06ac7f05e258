"""Indexing primitives that touch data: advanced (integer-array) gathers, boolean masks, and writes.

An index is passed as a static `template` (hashable) plus the index arrays as inputs: each template
entry is ("int", i), ("slice", start, stop, step), ("newaxis",), ("ellipsis",) or ("array", k), the
last meaning "the k-th index-array input".
"""

from __future__ import annotations

import numpy as np

from stridex._core import dtypes as _dtypes
from stridex._core.array import Array
from stridex._core.avals import ShapedArray
from stridex._core.state import current_trace, push
from stridex._core.storage import aligned_copy
from stridex._core.view import View, numpy_key
from stridex._lax import ops
from stridex._exec.jax_bridge import as_dtype, jnp, lax
from stridex._lax.primitive import Primitive, RuleShape
from stridex._lax.rule_shapes import batch_by_loop, move_to_front
from stridex._exec.strided import strided_positions, write_view


def _abstract_by_numpy(x, *indices, template):
    # Shapes of advanced indexing follow NumPy's rules exactly; evaluate them on zero-stride dummies.
    dummy = np.lib.stride_tricks.as_strided(np.zeros(1, np.int8), x.shape, (0,) * len(x.shape))
    dummies = [np.zeros(i.shape, np.intp if i.dtype.kind != "bool" else np.bool_) for i in indices]
    return ShapedArray(dummy[numpy_key(template, dummies)].shape, x.dtype)


def _like_target(x, *args, **params):
    """The aval of a functional write: that of the array written into."""
    return ShapedArray(x.shape, x.dtype, x.weak_type)


def _batch_position(batched: tuple, per_example: tuple, axis_size: int) -> int:
    """Where the batch axis ended up: NumPy moves advanced-index axes first when they are not adjacent."""
    return next(i for i in range(len(batched)) if batched[:i] + batched[i + 1:] == per_example
                and batched[i] == axis_size)


# --- gather, boolean_gather: x[key] for a key with index arrays, or with a boolean mask ---------------


def _gather_impl(x, *indices, template):
    return x[numpy_key(template, indices)]


def _lower_gather(ctx, x, *indices, template):
    # Note: under jit an out-of-range integer index cannot raise; JAX clamps it (the spec leaves
    # out-of-bounds integer-array indices unspecified). Eagerly, NumPy raises IndexError.
    return x[numpy_key(template, indices)]


def _gather_jvp(prim):
    """A gather is linear in x: the same gather of x's tangent (the indices have none)."""

    def jvp(primals, tangents, *, template):
        x, *indices = primals
        return prim.bind(x, *indices, template=template), prim.bind(tangents[0], *indices, template=template)

    return jvp


def _gather_vjp(ct, x, *indices, out, template):
    keyed = _masks_as_indices(template, indices)
    return (scatter_add.bind(ops.zeros_like(x), ct, *keyed[1], template=keyed[0]),) + (None,) * len(indices)


def _masks_as_indices(template, indices) -> tuple:
    """(template, indices) with each boolean mask of one or more axes replaced by its nonzero indices, NumPy's
    meaning of a mask in a key: the scatter-add of a gather's cotangent then takes integer indices only, which
    a device's executable can lower (XLA cannot scatter through a mask whose count it does not know)."""
    if not any(getattr(i, "dtype", None) is _dtypes.bool and i.ndim for i in indices):
        return template, indices
    new_template: list = []
    arrays: list = []
    for entry in template:
        if entry[0] != "array":
            new_template.append(entry)
            continue
        index = indices[entry[1]]
        trace = None if type(index) is Array else current_trace()
        if index.dtype is _dtypes.bool and index.ndim and (
                trace is None or getattr(trace, "concrete_shapes", False) or getattr(trace, "graph_breaks", False)):
            # A concrete mask's indices are computed now, whatever the trace: a transformation (vmap of a
            # vjp, in jacrev) cannot give a data-dependent shape, and the mask's values are known. A traced
            # mask's, where its trace can know them (autodiff over eager values, jit's graph breaks); elsewhere
            # (a sub-program: a loop's or a checkpoint's body) the mask stays a mask.
            with push(trace):
                parts = ops.nonzero(index)
        else:
            parts = (index,)
        for part in parts:
            new_template.append(("array", len(arrays)))
            arrays.append(part)
    return tuple(new_template), tuple(arrays)


def _gather_batch(values, dims, *, axis_size, template):
    """A leading full slice for the batch axis; batched index arrays loop."""
    x, *indices = values
    if any(d is not None for d in dims[1:]):
        return batch_by_loop(gather)(values, dims, axis_size=axis_size, template=template)
    x = move_to_front(x, dims[0], axis_size)
    new_template = (("slice", 0, axis_size, 1), *template)
    per_example = _abstract_by_numpy(ShapedArray(x.shape[1:], x.dtype), *indices, template=template).shape
    batched = _abstract_by_numpy(ShapedArray(x.shape, x.dtype), *indices, template=new_template).shape
    out_dim = _batch_position(batched, per_example, axis_size)
    return gather.bind(x, *indices, template=new_template), out_dim


gather = Primitive(
    "gather",
    impl=_gather_impl,
    abstract_eval=_abstract_by_numpy,
    lower=_lower_gather,
    jvp=RuleShape(_gather_jvp),
    vjp=_gather_vjp,
    batch=_gather_batch,
)

# Boolean masks give a data-dependent shape: the tracer must refuse to guess it.
boolean_gather = Primitive(
    "boolean_gather",
    impl=_gather_impl,
    abstract_eval=None,
    jvp=RuleShape(_gather_jvp),
    vjp=_gather_vjp,
    data_dependent=True,
)


# --- assign: x[key] = value, in place ---------------------------------------------------------------


def _assign_impl(target, value, *indices, template):
    target[numpy_key(template, indices)] = value


def _assign_abstract(target, value, *indices, template):
    return target


def _lower_assign(ctx, target, value, *indices, template):
    """The new value of the target's View (on a JAX device, whose executor writes it back into the buffer in
    place): `scatter`'s lowering."""
    return _lower_scatter(ctx, target, value, *indices, template=template)


# The one primitive that mutates. Eagerly it writes into the target's storage (on a device: `lower`, the View's
# new value, written back by the device executor); under tracing it is functionalised into `scatter` plus
# write-back through the target's chain of views.
assign = Primitive(
    "assign", kind="write",
    impl=_assign_impl,
    abstract_eval=_assign_abstract,
    lower=_lower_assign,
    differentiable=False,
)


# --- scatter, scatter_add: a copy of x with x[key] replaced by value, or value added at x[key] --------


def _scatter_impl(x, value, *indices, template):
    out = aligned_copy(x)
    out[numpy_key(template, indices)] = value
    return out


def _lower_scatter(ctx, x, value, *indices, template):
    value = as_dtype(value, ctx.avals_in[0].dtype)
    masks = [k for k, aval in enumerate(ctx.avals_in[2:]) if aval.dtype.kind == "bool"]
    if masks:
        return _lower_masked_set(ctx, x, value, indices, template)
    if not indices:
        updated = _lower_block_set(x, value, template)
        if updated is not None:
            return updated
    return x.at[numpy_key(template, indices)].set(value)


def _lower_block_set(x, value, template):
    """`x[key] = value` for a basic key selecting a block (every slice of step ±1, or one element): the
    value broadcast and flipped into the block's order, then a `dynamic_update_slice` (or the value
    itself when the block is all of x). None for strided slices, which `.at[].set` lowers.

    XLA's CPU simplifier aborts the process on a scatter with empty indices, which is what `.at[].set`
    emits for a write of the whole window (`x[::-1][...] = c`): this lowering never emits one."""
    lax_ = lax()
    explicit = sum(1 for e in template if e[0] in ("int", "slice"))
    entries = []
    for e in template:
        if e[0] == "ellipsis":
            start = sum(1 for f in entries if f[0] in ("int", "slice"))
            entries += [("slice", 0, n, 1) for n in x.shape[start:start + x.ndim - explicit]]
        else:
            entries.append(e)
    covered = sum(1 for e in entries if e[0] in ("int", "slice"))
    entries += [("slice", 0, n, 1) for n in x.shape[covered:]]
    starts, block, indexed, flips = [], [], [], []
    for e in entries:
        if e[0] == "newaxis":
            indexed.append(1)
        elif e[0] == "int":
            starts.append(e[1])
            block.append(1)
        else:
            selected = range(*e[1:])
            if not selected:
                return x  # an empty selection writes nothing
            if len(selected) > 1 and abs(selected.step) != 1:
                return None
            if selected.step < 0 and len(selected) > 1:
                flips.append(len(indexed))
            starts.append(min(selected[0], selected[-1]))
            block.append(len(selected))
            indexed.append(len(selected))
    value = jnp().broadcast_to(value, tuple(indexed))
    if flips:
        value = lax_.rev(value, tuple(flips))
    value = value.reshape(tuple(block))
    if tuple(block) == tuple(x.shape):
        return value
    return lax_.dynamic_update_slice(x, value, tuple(starts))


def _lower_masked_set(ctx, x, value, indices, template):
    """`x[..., mask, ...] = value` with one boolean mask, every other entry a full slice or an ellipsis, and
    a value of one element: a `select` with the mask broadcast over the axes it covers.

    (A value with one element per selected position has a data-dependent shape; tracing refuses it.)"""
    lax_ = lax()
    mask = indices[0] if len(indices) == 1 else None
    at = template.index(("array", 0)) if mask is not None and ("array", 0) in template else None
    start = _mask_axis(template, at, x.shape, mask.ndim) if at is not None else None
    if start is None or any(n != 1 for n in ctx.avals_in[1].shape):
        raise NotImplementedError("under jit (and on a device), boolean-mask assignment supports x[..., mask, ...] = "
                                  f"value with one mask, full slices elsewhere and a one-element value; got the key "
                                  f"{template} and a value of shape {ctx.avals_in[1].shape}")
    mask = lax_.broadcast_in_dim(mask, x.shape, tuple(range(start, start + mask.ndim)))
    value = lax_.broadcast_in_dim(value.reshape(()), x.shape, ())
    return lax_.select(mask, value, x)


def _mask_axis(template, at: int, shape: tuple, mask_ndim: int) -> int | None:
    """The first axis a boolean mask at template position `at` covers, when every other entry of the key is a
    full slice or an ellipsis (at most one); None otherwise."""
    axis = 0
    for position, entry in enumerate(template):
        if position == at:
            start = axis
            axis += mask_ndim
        elif entry[0] == "ellipsis":
            after = sum(mask_ndim if e[0] == "array" else 1 for e in template[position + 1:])
            axis = len(shape) - after
        elif entry[0] == "slice" and axis < len(shape) and range(*entry[1:]) == range(shape[axis]):
            axis += 1
        else:
            return None
    return start


def _scatter_jvp(primals, tangents, *, template):
    x, value, *indices = primals
    tx = tangents[0] if tangents[0] is not None else ops.zeros_like(x)
    tv = tangents[1] if tangents[1] is not None else 0.0
    return scatter.bind(x, value, *indices, template=template), scatter.bind(tx, tv, *indices, template=template)


def _scatter_vjp(ct, x, value, *indices, out, template):
    # (the value's cotangent gathers through masks as their nonzero indices: a device compiles no mask gather)
    keyed = _masks_as_indices(template, indices)
    return (scatter.bind(ct, 0.0, *indices, template=template), gather.bind(ct, *keyed[1], template=keyed[0])) \
        + (None,) * len(indices)


def _scatter_add_impl(x, value, *indices, template):
    out = aligned_copy(x)
    np.add.at(out, numpy_key(template, indices), value)
    return out


def _lower_scatter_add(ctx, x, value, *indices, template):
    return x.at[numpy_key(template, indices)].add(as_dtype(value, ctx.avals_in[0].dtype))


def _scatter_add_jvp(primals, tangents, *, template):
    x, value, *indices = primals
    tx = tangents[0] if tangents[0] is not None else ops.zeros_like(x)
    tv = tangents[1] if tangents[1] is not None else 0.0
    return (scatter_add.bind(x, value, *indices, template=template),
            scatter_add.bind(tx, tv, *indices, template=template))


def _scatter_add_vjp(ct, x, value, *indices, out, template):
    return (ct, gather.bind(ct, *indices, template=template)) + (None,) * len(indices)


def _batch_scatter_like(prim):
    """Batching for scatter/scatter_add: basic templates get a leading full slice; index arrays loop."""

    def rule(values, dims, *, axis_size, template):
        x, value, *indices = values
        if any(d is not None for d in dims[2:]):
            return batch_by_loop(prim)(values, dims, axis_size=axis_size, template=template)
        x = move_to_front(x, dims[0], axis_size)
        new_template = (("slice", 0, axis_size, 1), *template)
        if dims[1] is not None:
            # The value must line up with x[new_template], whose batch axis NumPy may move.
            target = _abstract_by_numpy(ShapedArray(x.shape, x.dtype), *indices, template=new_template).shape
            per_example = _abstract_by_numpy(ShapedArray(x.shape[1:], x.dtype), *indices, template=template).shape
            out_dim = _batch_position(target, per_example, axis_size)
            value = move_to_front(value, dims[1], axis_size)
            vshape = value.shape
            value = ops.reshape(value, (vshape[0],) + (1,) * (len(per_example) - len(vshape) + 1) + vshape[1:])
            if out_dim:
                value = ops.moveaxis(value, 0, out_dim)
        return prim.bind(x, value, *indices, template=new_template), 0

    return rule


scatter = Primitive(
    "scatter",
    impl=_scatter_impl,
    abstract_eval=_like_target,
    lower=_lower_scatter,
    jvp=_scatter_jvp,
    vjp=_scatter_vjp,
    batch=RuleShape(_batch_scatter_like),
)

# Repeated indices accumulate: the adjoint of `gather`.
scatter_add = Primitive(
    "scatter_add",
    impl=_scatter_add_impl,
    abstract_eval=_like_target,
    lower=_lower_scatter_add,
    jvp=_scatter_add_jvp,
    vjp=_scatter_add_vjp,
    batch=RuleShape(_batch_scatter_like),
)


# --- scatter_flat: a copy of flat x with the strided window (shape, strides, offset) set to value -----


def _scatter_flat_impl(x, value, *, shape, strides, offset):
    out = aligned_copy(x)
    itemsize = out.itemsize
    target = np.lib.stride_tricks.as_strided(out[offset:], shape, tuple(s * itemsize for s in strides))
    target[...] = value
    return out


def _lower_scatter_flat(ctx, x, value, *, shape, strides, offset):
    view = View(shape, strides, offset)
    if 0 in strides and 0 not in shape:  # a broadcast window: several of its elements are one position
        return x.at[strided_positions(view)].set(value)
    value = jnp().broadcast_to(jnp().asarray(value, dtype=x.dtype), shape)
    return write_view(x, view, value)  # (a dynamic_update_slice where the window is contiguous)


def _scatter_flat_jvp(primals, tangents, **params):
    x, value = primals
    tx = tangents[0] if tangents[0] is not None else ops.zeros_like(x)
    tv = tangents[1] if tangents[1] is not None else 0.0
    return scatter_flat.bind(x, value, **params), scatter_flat.bind(tx, tv, **params)


def _scatter_flat_vjp(ct, x, value, *, out, **params):
    return scatter_flat.bind(ct, 0.0, **params), ops.as_strided(ct, **params)


def _scatter_flat_batch(values, dims, *, axis_size, shape, strides, offset):
    """Every example's flat buffer laid end to end: one scatter with a leading batch stride."""
    x, value = values
    x = move_to_front(x, dims[0], axis_size)
    span = x.shape[1]
    if dims[1] is not None:
        value = move_to_front(value, dims[1], axis_size)
        value = ops.reshape(value, (axis_size,) + (1,) * (len(shape) - value.ndim + 1) + value.shape[1:])
    if not isinstance(value, _dtypes.PY_SCALARS):
        value = ops.broadcast_to(value, (axis_size, *shape)) if value.ndim == len(shape) + 1 else value
    out = scatter_flat.bind(ops.reshape(x, (axis_size * span,)), value, shape=(axis_size, *shape),
                            strides=(span, *strides), offset=offset)
    return ops.reshape(out, (axis_size, span)), 0


# The write-back of `as_strided`.
scatter_flat = Primitive(
    "scatter_flat",
    impl=_scatter_flat_impl,
    abstract_eval=_like_target,
    lower=_lower_scatter_flat,
    jvp=_scatter_flat_jvp,
    vjp=_scatter_flat_vjp,
    batch=_scatter_flat_batch,
)


# --- dynamic_slice, dynamic_update_slice: a block at starts known when the program runs ------------------
# JAX's `lax.dynamic_slice` / `lax.dynamic_update_slice`, with their index rules: a negative start counts from
# the end of its axis (once: `-1` is the last element), then each start is clamped into [0, axis length -
# block length], so the block always fits. Under `jit` an integer index that is a traced value (`x[i]` with `i`
# an argument) reads through `dynamic_slice`: one program for every index.


def clamped_starts(shape: tuple, sizes: tuple, starts) -> tuple:
    """The starts (Python ints or 0-D integers) of a block of `sizes` in `shape`, as JAX takes them: a negative
    one counted from the end, then clamped so that the block fits."""
    return tuple(min(max(int(s) + n if int(s) < 0 else int(s), 0), n - k) for s, n, k in zip(starts, shape, sizes))


def _check_starts(what: str, shape: tuple, starts) -> None:
    if len(starts) != len(shape):
        raise TypeError(f"{what}: an array of shape {shape} takes {len(shape)} start indices, got {len(starts)}")
    for i, s in enumerate(starts):
        if s.shape != () or s.dtype.kind not in ("signed", "unsigned"):
            raise TypeError(f"{what}: start index {i} must be a 0-D integer, got {s.dtype.name}{list(s.shape)}")


def _dynamic_slice_abstract(x, *starts, sizes):
    _check_starts("dynamic_slice", x.shape, starts)
    if len(sizes) != len(x.shape) or any(not 0 <= k <= n for k, n in zip(sizes, x.shape)):
        raise TypeError(f"dynamic_slice: slice sizes {sizes} do not fit an array of shape {x.shape}")
    return ShapedArray(tuple(sizes), x.dtype, x.weak_type)


def _dynamic_slice_impl(x, *starts, sizes):
    key = tuple(slice(s, s + k) for s, k in zip(clamped_starts(x.shape, sizes, starts), sizes))
    return aligned_copy(x[key])


def _lower_dynamic_slice(ctx, x, *starts, sizes):
    return lax().dynamic_slice(x, [as_dtype(s, _dtypes.int64) for s in starts], tuple(sizes))


def _dynamic_slice_vjp(ct, x, *starts, out, sizes):
    return (dynamic_update_slice.bind(ops.zeros_like(x), ct, *starts),) + (None,) * len(starts)


def _block_positions(shape: tuple, sizes: tuple, starts, dims, axis_size: int) -> list:
    """Index arrays selecting, in a batch of arrays of `shape`, each example's block of `sizes` at its own starts
    (some batched along `dims`), clamped as `clamped_starts` clamps them: the batch positions first, then per axis
    the start plus 0..size-1, shaped to broadcast into (batch, *sizes)."""
    rank = len(shape)
    grids = [ops.reshape(ops.arange(axis_size, _dtypes.int64), (axis_size,) + (1,) * rank)]
    for j, (start, d, n, k) in enumerate(zip(starts, dims, shape, sizes)):
        if d is None and not isinstance(start, Array):
            start = clamped_starts((n,), (k,), (start,))[0]
        else:
            start = ops.astype(move_to_front(start, d, axis_size) if d is not None else start, _dtypes.int64)
            start = ops.where(ops.less(start, 0), ops.add(start, n), start)
            start = ops.minimum(ops.maximum(start, 0), n - k)
            start = ops.reshape(start, (ops.shape_of(start)[0] if d is not None else 1,) + (1,) * rank)
        offsets = ops.reshape(ops.arange(k, _dtypes.int64), (1,) * (1 + j) + (k,) + (1,) * (rank - j - 1))
        grids.append(ops.add(offsets, start))
    return grids


def _dynamic_slice_batch(values, dims, *, axis_size, sizes):
    x, *starts = values
    if any(d is not None for d in dims[1:]):
        # (per-example starts: one gather of every example's block, not a loop)
        x = move_to_front(x, dims[0], axis_size)
        grids = _block_positions(ops.shape_of(x)[1:], sizes, starts, dims[1:], axis_size)
        return gather.bind(x, *grids, template=tuple(("array", i) for i in range(len(grids)))), 0
    x = move_to_front(x, dims[0], axis_size)
    return dynamic_slice.bind(x, 0, *starts, sizes=(axis_size, *sizes)), 0


def _dynamic_slice_jvp(primals, tangents, *, sizes):
    x, *starts = primals
    return dynamic_slice.bind(x, *starts, sizes=sizes), dynamic_slice.bind(tangents[0], *starts, sizes=sizes)


dynamic_slice: Primitive  # (declared first: its rules bind it)
dynamic_slice = Primitive(
    "dynamic_slice",
    impl=_dynamic_slice_impl,
    abstract_eval=_dynamic_slice_abstract,
    lower=_lower_dynamic_slice,
    jvp=_dynamic_slice_jvp,
    vjp=_dynamic_slice_vjp,
    batch=_dynamic_slice_batch,
)


def _dynamic_update_slice_abstract(x, update, *starts):
    _check_starts("dynamic_update_slice", x.shape, starts)
    if update.dtype is not x.dtype:
        raise TypeError(f"dynamic_update_slice: the update's dtype {update.dtype.name} is not the operand's "
                        f"{x.dtype.name}")
    if len(update.shape) != len(x.shape) or any(not k <= n for k, n in zip(update.shape, x.shape)):
        raise TypeError(f"dynamic_update_slice: an update of shape {update.shape} does not fit an array of shape "
                        f"{x.shape}")
    return ShapedArray(x.shape, x.dtype, x.weak_type)


def _dynamic_update_slice_impl(x, update, *starts):
    out = aligned_copy(x)
    sizes = update.shape
    out[tuple(slice(s, s + k) for s, k in zip(clamped_starts(x.shape, sizes, starts), sizes))] = update
    return out


def _lower_dynamic_update_slice(ctx, x, update, *starts):
    return lax().dynamic_update_slice(x, update, [as_dtype(s, _dtypes.int64) for s in starts])


def _dynamic_update_slice_jvp(primals, tangents):
    x, update, *starts = primals
    tx = tangents[0] if tangents[0] is not None else ops.zeros_like(x)
    tu = tangents[1] if tangents[1] is not None else ops.zeros_like(update)
    return dynamic_update_slice.bind(x, update, *starts), dynamic_update_slice.bind(tx, tu, *starts)


def _dynamic_update_slice_vjp(ct, x, update, *starts, out):
    sizes = ops.shape_of(update)
    return (dynamic_update_slice.bind(ct, ops.zeros(sizes, ops.dtype_of(ct)), *starts),
            dynamic_slice.bind(ct, *starts, sizes=sizes)) + (None,) * len(starts)


def _dynamic_update_slice_batch(values, dims, *, axis_size):
    x, update, *starts = values
    if any(d is not None for d in dims[2:]):
        # (per-example starts: one scatter of every example's block, not a loop)
        x = move_to_front(x, dims[0], axis_size)
        update = move_to_front(update, dims[1], axis_size)
        grids = _block_positions(ops.shape_of(x)[1:], ops.shape_of(update)[1:], starts, dims[2:], axis_size)
        return scatter.bind(x, update, *grids, template=tuple(("array", i) for i in range(len(grids)))), 0
    x = move_to_front(x, dims[0], axis_size)
    update = move_to_front(update, dims[1], axis_size)
    return dynamic_update_slice.bind(x, update, 0, *starts), 0


dynamic_update_slice: Primitive  # (declared first: its rules bind it)
dynamic_update_slice = Primitive(
    "dynamic_update_slice",
    impl=_dynamic_update_slice_impl,
    abstract_eval=_dynamic_update_slice_abstract,
    lower=_lower_dynamic_update_slice,
    jvp=_dynamic_update_slice_jvp,
    vjp=_dynamic_update_slice_vjp,
    batch=_dynamic_update_slice_batch,
)
