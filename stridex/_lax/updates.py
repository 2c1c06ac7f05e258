"""JAX's indexed reads and updates with out-of-bounds modes (`x.at[idx]`): `at_get`, `at_set`, `at_add`, `at_mul`,
`at_min`, `at_max`, each a gather or scatter that never writes its operand.

An index is a static `template` plus the index arrays, as in `stridex._lax.array_indexing`, except that an ("int", i)
entry keeps the user's integer as given (negative, or out of range): what it selects is decided by the params
`wrap` (a negative index counts from the end, JAX's `wrap_negative_indices`) and `mode`, JAX's
`GatherScatterMode`: "clip" clamps each index into its axis; "fill" and "drop" read `fill_value` for (and drop
updates to) an out-of-range position; "promise_in_bounds" reads as "clip" and updates as "drop" (what JAX's
executables do with an index the user promised was in range). An integer entry indexes like a 0-D index array
(NumPy's rule, which JAX's shares: the result's axes are placed alike).

The update's value always has the indexed shape (the public layer broadcasts it) and the operand's dtype.
Repeated indices apply every update: `at_add`, `at_mul`, `at_min`, `at_max` accumulate, and `at_set` keeps the last
(JAX's CPU and NumPy's order). Eagerly each runs NumPy (`np.<ufunc>.at`); under `jit` and on a device each lowers
to JAX's own `x.at[key].<method>(..., mode=...)`: one gather or one scatter.
"""

from __future__ import annotations

import functools

import numpy as np

from stridex._core import dtypes as _dtypes
from stridex._core.avals import ShapedArray
from stridex._core.storage import aligned_copy
from stridex._core.view import numpy_key, slice_key
from stridex._lax import ops
from stridex._exec.jax_bridge import as_dtype
from stridex._lax.primitive import Primitive, RuleShape
from stridex._lax.rule_shapes import batch_by_loop, move_to_front

MODES = ("promise_in_bounds", "clip", "drop", "fill")


# --- shapes and keys ------------------------------------------------------------------------------------------


def _axes_consumed(template: tuple) -> int:
    return sum(1 for e in template if e[0] in ("int", "slice", "array"))


def indexed_shape(shape: tuple, template: tuple, index_shapes) -> tuple:
    """The shape `x[key]` has (NumPy's rules, integers as 0-D index arrays), for `x` of `shape`."""
    return _indexed_shape(tuple(shape), template, tuple(tuple(s) for s in index_shapes))


@functools.lru_cache(maxsize=512)
def _indexed_shape(shape: tuple, template: tuple, index_shapes: tuple) -> tuple:
    padded = tuple(n + 1 for n in shape)  # (every index 0 is then in range, even on an empty axis)
    dummy = np.lib.stride_tricks.as_strided(np.zeros(1, np.int8), padded, (0,) * len(padded))
    key: list = []
    for e in _explicit(template, shape):
        tag = e[0]
        if tag == "int":
            key.append(np.zeros((), np.intp))
        elif tag == "array":
            key.append(np.zeros(index_shapes[e[1]], np.intp))
        elif tag == "slice":
            key.append(slice_key(*e[1:]))
        else:
            key.append(None if tag == "newaxis" else Ellipsis)
    return dummy[tuple(key)].shape


def _explicit(template: tuple, shape: tuple) -> tuple:
    """The template with its ellipsis and the axes after its last entry spelt out as full slices."""
    consumed = _axes_consumed(template)
    out: list = []
    axis = 0
    for e in template:
        if e[0] == "ellipsis":
            out.extend(("slice", 0, n, 1) for n in shape[axis:axis + len(shape) - consumed])
            axis += len(shape) - consumed
            continue
        out.append(e)
        axis += e[0] in ("int", "slice", "array")
    out.extend(("slice", 0, n, 1) for n in shape[axis:])
    return tuple(out)


def _resolve(shape: tuple, template: tuple, indices, mode: str, wrap: bool, reading: bool):
    """(key, dropped): the NumPy key with every integer index wrapped, clipped or (out of range) pointed at 0, and
    the boolean mask, of the indexed shape, of the positions an out-of-range index selected (None where none
    did)."""
    clip = mode == "clip" or (mode == "promise_in_bounds" and reading)
    key: list = []
    bad_entries = []  # (key position, axis, the index, its out-of-range mask)
    axis = 0
    for e in template:
        tag = e[0]
        if tag == "newaxis":
            key.append(None)
        elif tag == "ellipsis":
            key.append(Ellipsis)
            axis += len(shape) - _axes_consumed(template)
        elif tag == "slice":
            key.append(slice_key(*e[1:]))
            axis += 1
        else:
            index = np.asarray(e[1] if tag == "int" else indices[e[1]])
            index = index.astype(np.int64, copy=False) if index.dtype != np.uint64 else index
            n = shape[axis]
            if n == 0 and index.size:
                raise TypeError(f"x.at[...]: an index into axis {axis} of size 0 is out of range whatever the mode "
                                "(JAX's gather and scatter refuse it too)")
            if index.size and 0 <= index.min() and index.max() < n:  # (the common case: every index in range)
                key.append(index)
                axis += 1
                continue
            if wrap:
                index = np.where(index < 0, index + n, index)
            if clip:
                index = np.clip(index, 0, max(n - 1, 0))
            else:
                bad = (index < 0) | (index >= n)
                if bad.any():
                    bad_entries.append((len(key), axis, index, bad))
                    index = np.where(bad, 0, index)
            key.append(index)
            axis += 1
    dropped = None
    for position, axis, index, bad in bad_entries:
        # A marker along `axis` (one past its end is True) indexed by the same key, the bad indices pointing past
        # the end: True exactly where this index was out of range, in the indexed shape and order.
        n = shape[axis]
        marker = np.zeros(n + 1, np.bool_)
        marker[n] = True
        marker_shape = tuple(n + 1 if a == axis else m for a, m in enumerate(shape))
        marker = np.broadcast_to(marker.reshape(tuple(n + 1 if a == axis else 1 for a in range(len(shape)))),
                                 marker_shape)
        marked = list(key)
        marked[position] = np.where(bad, n, index)
        hit = marker[tuple(marked)]
        dropped = hit if dropped is None else dropped | hit
    return tuple(key), dropped


def default_fill(dtype):
    """JAX's fill value for an out-of-range read: NaN for inexact types, the most negative value of a signed
    type, the largest of an unsigned one, True for booleans."""
    if dtype is _dtypes.bool:
        return True
    if dtype.kind in ("real floating", "complex floating"):
        return float("nan")
    info = np.iinfo(dtype.np)
    return int(info.min) if dtype.kind == "signed" else int(info.max)


def _jax_key(template: tuple, indices) -> tuple:
    return numpy_key(template, indices)


# --- at_get: x[key] with a mode ---------------------------------------------------------------------------------


def _get_abstract(x, *indices, template, mode, wrap, fill_value, indices_are_sorted, unique_indices):
    return ShapedArray(indexed_shape(x.shape, template, [i.shape for i in indices]), x.dtype, x.weak_type)


def _get_impl(x, *indices, template, mode, wrap, fill_value, indices_are_sorted, unique_indices):
    key, dropped = _resolve(x.shape, template, indices, mode, wrap, reading=True)
    out = aligned_copy(x[key])
    if dropped is not None:
        out[dropped] = default_fill(_dtypes.FROM_NUMPY[x.dtype]) if fill_value is None else fill_value
    return out


def _get_lower(ctx, x, *indices, template, mode, wrap, fill_value, indices_are_sorted, unique_indices):
    return x.at[_jax_key(template, indices)].get(mode=mode, fill_value=fill_value, wrap_negative_indices=wrap,
                                                 indices_are_sorted=indices_are_sorted,
                                                 unique_indices=unique_indices)


def _scatter_mode(mode: str) -> str:
    """The mode of the scatter that is a gather's adjoint: a clipped read's cotangent lands where it read."""
    return "clip" if mode in ("clip", "promise_in_bounds") else "drop"


def _get_jvp(primals, tangents, **params):
    x, *indices = primals
    return at_get.bind(x, *indices, **params), at_get.bind(tangents[0], *indices, **params)


def _get_vjp(ct, x, *indices, out, template, mode, wrap, fill_value, indices_are_sorted, unique_indices):
    scattered = at_add.bind(ops.zeros_like(x), ct, *indices, template=template, mode=_scatter_mode(mode), wrap=wrap,
                            indices_are_sorted=indices_are_sorted, unique_indices=unique_indices)
    return (scattered,) + (None,) * len(indices)


def _batch_position(batched: tuple, per_example: tuple, axis_size: int) -> int:
    """Where the batch axis ended up in `batched` (NumPy moves separated index axes first)."""
    return next(i for i in range(len(batched)) if batched[:i] + batched[i + 1:] == per_example
                and batched[i] == axis_size)


def _batched_template(x, template: tuple, indices, axis_size: int):
    """(template, out_dim): the template with a leading full slice over the batch axis, and where that axis
    lands in the indexed shape."""
    new_template = (("slice", 0, axis_size, 1), *template)
    shapes = [ops.shape_of(i) for i in indices]
    per_example = indexed_shape(ops.shape_of(x)[1:], template, shapes)
    batched = indexed_shape(ops.shape_of(x), new_template, shapes)
    return new_template, _batch_position(batched, per_example, axis_size)


def _batched_indices(x, indices, dims, template: tuple, axis_size: int):
    """For index arrays batched along with `x`: (x, indices, template, permutation), where the batch is one more
    index array (its positions 0..axis_size-1, first in the key), the index arrays gain a leading batch axis (of
    length 1 where unbatched), and `permutation` takes the indexed shape of the new key to the batch axis followed
    by one example's indexed shape (NumPy places the index arrays' axes first once the batch index stands apart
    from them). None where the key's layout is not the one this assumes (then the rule loops)."""
    x = move_to_front(x, dims[0], axis_size)
    per_shapes = [ops.shape_of(i) if d is None else ops.shape_of(i)[:d] + ops.shape_of(i)[d + 1:]
                  for i, d in zip(indices, dims[1:])]
    entries = _explicit(template, ops.shape_of(x)[1:])
    advanced = [k for k, e in enumerate(entries) if e[0] in ("int", "array")]
    block = np.broadcast_shapes(*[per_shapes[e[1]] if e[0] == "array" else () for e in entries
                                  if e[0] in ("int", "array")])
    rank = len(block)
    adjacent = advanced == list(range(advanced[0], advanced[-1] + 1))
    leading = sum(1 for e in entries[:advanced[0]] if e[0] in ("slice", "newaxis")) if adjacent else 0
    moved = []
    for index, d, shape in zip(indices, dims[1:], per_shapes):
        index = ops.expand_dims(index, 0) if d is None else move_to_front(index, d, axis_size)
        moved.append(ops.reshape(index, (ops.shape_of(index)[0],) + (1,) * (rank - len(shape)) + tuple(shape)))
    batch_index = ops.reshape(ops.arange(axis_size, _dtypes.int64), (axis_size,) + (1,) * rank)
    new_template = (("array", len(moved)), *template)
    per_example = indexed_shape(ops.shape_of(x)[1:], template, per_shapes)
    batched = indexed_shape(ops.shape_of(x), new_template, [ops.shape_of(i) for i in moved] + [(axis_size,) +
                                                                                                  (1,) * rank])
    # the batched layout: (batch, block, the `leading` axes, the rest); wanted: (batch, leading, block, rest)
    permutation = (0, *range(1 + rank, 1 + rank + leading), *range(1, 1 + rank),
                   *range(1 + rank + leading, len(batched)))
    if tuple(batched[p] for p in permutation) != (axis_size, *per_example):
        return None
    return x, [*moved, batch_index], new_template, permutation


def _get_batch(values, dims, *, axis_size, **params):
    x, *indices = values
    if any(d is not None for d in dims[1:]):
        batched = _batched_indices(x, indices, dims, params["template"], axis_size)
        if batched is None:
            return batch_by_loop(at_get)(values, dims, axis_size=axis_size, **params)
        x, indices, template, permutation = batched
        params["template"] = template
        return ops.permute(at_get.bind(x, *indices, **params), permutation), 0
    x = move_to_front(x, dims[0], axis_size)
    template, out_dim = _batched_template(x, params.pop("template"), indices, axis_size)
    return at_get.bind(x, *indices, template=template, **params), out_dim


at_get: Primitive  # (declared first: its rules bind it)
at_get = Primitive(
    "at_get",
    impl=_get_impl,
    abstract_eval=_get_abstract,
    lower=_get_lower,
    jvp=_get_jvp,
    vjp=_get_vjp,
    batch=_get_batch,
)


# --- at_set, at_add, at_mul, at_min, at_max: a copy of x updated at key ------------------------------------------


def _update_abstract(name: str):
    def abstract_eval(x, value, *indices, template, mode, wrap, indices_are_sorted, unique_indices):
        want = indexed_shape(x.shape, template, [i.shape for i in indices])
        if value.shape != want or value.dtype is not x.dtype:
            raise TypeError(f"{name}: the update must have the indexed shape {want} and dtype {x.dtype.name}, got "
                            f"{value.dtype.name}{list(value.shape)}")
        return ShapedArray(x.shape, x.dtype, x.weak_type)

    return abstract_eval


def _update_impl(ufunc):
    """The eager rule of an update: `ufunc.at` (or assignment, for `ufunc` None) at the resolved key; updates an
    out-of-range index selected are dropped."""

    def impl(x, value, *indices, template, mode, wrap, indices_are_sorted, unique_indices):
        key, dropped = _resolve(x.shape, template, indices, mode, wrap, reading=False)
        out = aligned_copy(x)
        if dropped is not None:  # (flat positions of the kept updates)
            positions = np.arange(out.size).reshape(out.shape)[key]
            keep = ~dropped
            key, value, out_flat = positions[keep], np.broadcast_to(value, positions.shape)[keep], out.reshape(-1)
        else:
            out_flat = out
        if ufunc is None:
            out_flat[key] = value
        else:
            ufunc.at(out_flat, key, value)
        return out

    return impl


def _update_lower(method: str):
    def lower(ctx, x, value, *indices, template, mode, wrap, indices_are_sorted, unique_indices):
        ref = x.at[_jax_key(template, indices)]
        return getattr(ref, method)(as_dtype(value, ctx.avals_in[0].dtype), mode=mode, wrap_negative_indices=wrap,
                                    indices_are_sorted=indices_are_sorted, unique_indices=unique_indices)

    return lower


def _update_batch(prim):
    def rule(values, dims, *, axis_size, **params):
        x, value, *indices = values
        if any(d is not None for d in dims[2:]):
            batched = _batched_indices(x, indices, (dims[0], *dims[2:]), params["template"], axis_size)
            if batched is None:
                return batch_by_loop(prim)(values, dims, axis_size=axis_size, **params)
            x, indices, template, permutation = batched
            params["template"] = template
            inverse = tuple(int(p) for p in np.argsort(permutation))
            return prim.bind(x, ops.permute(move_to_front(value, dims[1], axis_size), inverse), *indices,
                             **params), 0
        x = move_to_front(x, dims[0], axis_size)
        template, value_dim = _batched_template(x, params.pop("template"), indices, axis_size)
        value = move_to_front(value, dims[1], axis_size)
        if value_dim:
            value = ops.moveaxis(value, 0, value_dim)
        return prim.bind(x, value, *indices, template=template, **params), 0

    return rule


def _gather_like(prim_params: dict, fill=0):
    """The `at_get` params that read back what an update with `prim_params` touched (a dropped update reads
    `fill`)."""
    mode = "clip" if prim_params["mode"] == "clip" else "fill"
    return {"template": prim_params["template"], "mode": mode, "wrap": prim_params["wrap"], "fill_value": fill,
            "indices_are_sorted": prim_params["indices_are_sorted"], "unique_indices": prim_params["unique_indices"]}


def _present(t, like):
    return ops.zeros_like(like) if t is None else t


def _set_jvp(primals, tangents, **params):
    x, value, *indices = primals
    tx, tv = _present(tangents[0], x), _present(tangents[1], value)
    return at_set.bind(x, value, *indices, **params), at_set.bind(tx, tv, *indices, **params)


def _set_vjp(ct, x, value, *indices, out, **params):
    read = at_get.bind(ct, *indices, **_gather_like(params))
    if not params["unique_indices"]:
        # Of several updates to one position, the last is kept; only it receives the cotangent (as in JAX): each
        # update's number is scattered, and an update is kept where its own number reads back.
        numbers = ops.reshape(ops.arange(max(1, int(np.prod(ops.shape_of(value)))), _dtypes.int64),
                              ops.shape_of(value)) if ops.shape_of(value) else ops.zeros((), _dtypes.int64)
        written = at_set.bind(ops.full(ops.shape_of(x), -1, _dtypes.int64), numbers, *indices, **params)
        kept = ops.equal(at_get.bind(written, *indices, **_gather_like(params, -1)), numbers)
        read = ops.where(kept, read, ops.zeros_like(read))
    return (at_set.bind(ct, ops.zeros_like(value), *indices, **params), read) + (None,) * len(indices)


def _add_jvp(primals, tangents, **params):
    x, value, *indices = primals
    tx, tv = _present(tangents[0], x), _present(tangents[1], value)
    return at_add.bind(x, value, *indices, **params), at_add.bind(tx, tv, *indices, **params)


def _add_vjp(ct, x, value, *indices, out, **params):
    return (ct, at_get.bind(ct, *indices, **_gather_like(params))) + (None,) * len(indices)


def _others_product(x, value, indices, params):
    """For each update, the product of the other updates to its position (1 where indices are unique): exact
    where a product of the others has a zero, else the product of the nonzero ones over its own value."""
    if params["unique_indices"]:
        return None
    zero = ops.equal(value, 0)
    nonzero_product = at_get.bind(at_mul.bind(ops.ones(ops.shape_of(x), ops.dtype_of(x)),
                                              ops.where(zero, 1, value), *indices, **params),
                                  *indices, **_gather_like(params, 1))
    zeros = at_get.bind(at_add.bind(ops.zeros(ops.shape_of(x), _dtypes.int64), ops.astype(zero, _dtypes.int64),
                                    *indices, **params), *indices, **_gather_like(params))
    safe = ops.where(zero, 1, value)
    return ops.where(zero, ops.where(ops.equal(zeros, 1), nonzero_product, 0),
                     ops.where(ops.equal(zeros, 0), ops.divide(nonzero_product, safe), 0))


def _mul_jvp(primals, tangents, **params):
    x, value, *indices = primals
    out = at_mul.bind(x, value, *indices, **params)
    tx, tv = tangents[0], tangents[1]
    tangent = at_mul.bind(tx, value, *indices, **params) if tx is not None else ops.zeros_like(x)
    if tv is not None:
        term = ops.multiply(tv, at_get.bind(x, *indices, **_gather_like(params)))
        others = _others_product(x, value, indices, params)
        term = term if others is None else ops.multiply(term, others)
        tangent = at_add.bind(tangent, term, *indices, **params)
    return out, tangent


def _mul_vjp(ct, x, value, *indices, out, **params):
    ct_x = at_mul.bind(ct, value, *indices, **params)
    ct_v = at_get.bind(ops.multiply(ct, x), *indices, **_gather_like(params))
    others = _others_product(x, value, indices, params)
    return (ct_x, ct_v if others is None else ops.multiply(ct_v, others)) + (None,) * len(indices)


def _extremum_coefficients(prim, x, value, indices, params):
    """JAX's rule for a scatter max or min: (operand_coef, update_coef) such that the tangent is
    `tx + at_add(0, gather(tx) * operand_coef + tv * update_coef)`. Updates (and the operand) that tie for the
    result share its tangent equally."""
    out = prim.bind(x, value, *indices, **params)
    read = _gather_like(params)
    target = at_get.bind(out, *indices, **read)
    successful = ops.equal(value, target)
    retained = ops.equal(at_get.bind(x, *indices, **read), target)
    float_dtype = ops.dtype_of(x)
    one = ops.ones(ops.shape_of(value), float_dtype)
    zero = ops.zeros(ops.shape_of(value), float_dtype)
    counts = ops.zeros(ops.shape_of(x), float_dtype)
    num_updates = at_get.bind(at_add.bind(counts, ops.where(successful, one, zero), *indices, **params),
                              *indices, **read)
    num_refs = at_get.bind(at_add.bind(counts, one, *indices, **params), *indices, **read)
    inside = ops.greater(num_refs, 0)  # (an update dropped out of range has no share)
    safe_refs = ops.where(inside, num_refs, one)
    share_with_operand = ops.divide(1.0, ops.add(num_updates, 1.0))
    update_norm = ops.where(retained, share_with_operand, ops.divide(1.0, ops.where(inside, num_updates, one)))
    update_coef = ops.where(ops.logical_and(successful, inside), update_norm, zero)
    operand_norm = ops.where(retained, share_with_operand, zero)
    operand_coef = ops.where(inside, ops.divide(ops.subtract(operand_norm, 1.0), safe_refs), zero)
    return out, operand_coef, update_coef


def _extremum_jvp(name: str):
    def jvp(primals, tangents, **params):
        x, value, *indices = primals
        prim = UPDATES[name]
        out, operand_coef, update_coef = _extremum_coefficients(prim, x, value, indices, params)
        tx, tv = _present(tangents[0], x), _present(tangents[1], value)
        term = ops.add(ops.multiply(at_get.bind(tx, *indices, **_gather_like(params)), operand_coef),
                       ops.multiply(tv, update_coef))
        return out, at_add.bind(tx, term, *indices, **params)

    return jvp


def _extremum_vjp(name: str):
    def vjp(ct, x, value, *indices, out, **params):
        _, operand_coef, update_coef = _extremum_coefficients(UPDATES[name], x, value, indices, params)
        read = at_get.bind(ct, *indices, **_gather_like(params))
        ct_x = at_add.bind(ct, ops.multiply(read, operand_coef), *indices, **params)
        return (ct_x, ops.multiply(read, update_coef)) + (None,) * len(indices)

    return vjp


def _update(name: str, ufunc, method: str, jvp, vjp) -> Primitive:
    return Primitive(name, impl=_update_impl(ufunc), abstract_eval=_update_abstract(name), lower=_update_lower(method),
                     jvp=jvp, vjp=vjp, batch=RuleShape(_update_batch))


at_set = _update("at_set", None, "set", _set_jvp, _set_vjp)
at_add = _update("at_add", np.add, "add", _add_jvp, _add_vjp)
at_mul = _update("at_mul", np.multiply, "multiply", _mul_jvp, _mul_vjp)
at_min = _update("at_min", np.minimum, "min", _extremum_jvp("at_min"), _extremum_vjp("at_min"))
at_max = _update("at_max", np.maximum, "max", _extremum_jvp("at_max"), _extremum_vjp("at_max"))
UPDATES = {"at_set": at_set, "at_add": at_add, "at_mul": at_mul, "at_min": at_min, "at_max": at_max}
