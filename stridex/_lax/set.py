"""Set primitives: unique (data-dependent: values plus any of first indices, inverse indices, counts) and isin."""

from __future__ import annotations

from math import prod

import numpy as np

from stridex._core import dtypes as _dtypes
from stridex._core.avals import ShapedArray, aval_of, promote_avals
from stridex._lax import ops
from stridex._lax.half import in_float32
from stridex._exec.jax_bridge import as_dtype, jnp, lax
from stridex._lax.primitive import Primitive
from stridex._lax.rule_shapes import move_to_front
from stridex._lax.searching import complex_sort_keys, sort_key

_INDEX = np.dtype(np.int64)


# --- unique: the distinct values, with any of first indices, inverse indices and counts ---------------------
# Data-dependent (its result's size is known only once it ran), so it has no batching rule; not differentiable.


def _unique_impl(x, *, with_indices, with_inverse, with_counts):
    # Note: equal_nan=False because the spec counts each NaN as distinct (NaN != NaN); NumPy's default
    # merges them. Signed zeros compare equal, so they merge into one value.
    results = np.unique(x, return_index=with_indices, return_inverse=with_inverse,
                        return_counts=with_counts, equal_nan=False)
    if not (with_indices or with_inverse or with_counts):
        return (results,)
    values, *rest = results
    out = [values]
    rest = iter(rest)
    if with_indices:
        out.append(np.asarray(next(rest), _INDEX))
    if with_inverse:
        out.append(np.asarray(next(rest), _INDEX).reshape(x.shape))
    if with_counts:
        out.append(np.asarray(next(rest), _INDEX))
    return tuple(out)


def _lower_unique(ctx, x, *, with_indices, with_inverse, with_counts):
    """With the number of unique values known (`ctx.avals_out`): sort, then mark where each group starts."""
    lax_, j = lax(), jnp()
    count = ctx.avals_out[0].shape[0]
    shape = x.shape
    x = lax_.reshape(x, (x.size,))
    n = x.shape[0]
    if x.dtype.kind == "c":
        keys = complex_sort_keys(x)
    else:
        keys = (sort_key(x),)
    *_, ordered, perm = lax_.sort((*keys, x, lax_.iota(np.int64, n)), dimension=0, is_stable=True,
                                  num_keys=len(keys))
    # A group starts wherever a value differs from its predecessor; NaN != NaN makes each NaN its own.
    starts = lax_.concatenate([j.ones((min(n, 1),), bool), lax_.ne(ordered[1:], ordered[:-1])], 0)
    (first,) = j.nonzero(starts, size=count)
    out = [ordered[first]]
    if with_indices:
        out.append(perm[first])
    if with_inverse:
        group = lax_.sub(lax_.cumsum(lax_.convert_element_type(starts, np.int64), 0), np.int64(1))
        inverse = j.zeros((n,), np.int64).at[perm].set(group)
        out.append(lax_.reshape(inverse, shape))
    if with_counts:
        ends = lax_.concatenate([first[1:], j.full((min(count, 1),), n, np.int64)], 0)
        out.append(lax_.sub(ends, first))
    return tuple(as_dtype(o, a.dtype) for o, a in zip(out, ctx.avals_out))


unique = Primitive(
    "unique",
    impl=in_float32(_unique_impl),  # (ml_dtypes' bfloat16 comparisons misplace NaN: sort in float32, exactly)
    abstract_eval=None,
    lower=_lower_unique,
    output_size=lambda x, **flags: ops.count_distinct(x),
    multiple_results=True,
    data_dependent=True,
    differentiable=False,
)


# --- isin: whether each element of x1 is in x2 (x1 and x2 arrays or Python ints; not differentiable) ---------
# Elementwise in x1; x2 is a set. Batched x2 compares every element of x1 with every element of its own set.


def _isin_impl(x1, x2, *, invert):
    return np.asarray(np.isin(x1, x2, invert=invert))


def _isin_abstract(x1, x2, *, invert):
    return ShapedArray(aval_of(x1).shape, _dtypes.bool)


def _lower_isin(ctx, x1, x2, *, invert):
    lax_ = lax()
    a1, a2 = aval_of(ctx.avals_in[0]), aval_of(ctx.avals_in[1])
    dtype, _ = promote_avals(a1, a2)
    x1, x2 = as_dtype(x1, dtype), as_dtype(x2, dtype)
    flat = lax_.reshape(x2, (x2.size,))
    pairs = x1.shape + flat.shape
    equal = lax_.eq(lax_.broadcast_in_dim(x1, pairs, tuple(range(x1.ndim))),
                    lax_.broadcast_in_dim(flat, pairs, (x1.ndim,)))
    found = lax_.reduce_or(equal, (x1.ndim,))
    return lax_.bitwise_not(found) if invert else found


def _isin_batch(values, dims, *, axis_size, invert):
    (x1, x2), (d1, d2) = values, dims
    if d2 is None:
        return isin.bind(x1, x2, invert=invert), d1
    # Each example has its own set: compare every element of x1 with every element of its x2.
    x2 = move_to_front(x2, d2, axis_size)
    rank = len(aval_of(x1).shape) - (d1 is not None)
    x2 = ops.reshape(x2, (axis_size,) + (1,) * rank + (prod(x2.shape[1:]),))
    if d1 is not None:
        x1 = move_to_front(x1, d1, axis_size)
    if not isinstance(x1, int):  # a Python int stays a scalar
        x1 = ops.reshape(x1, x1.shape + (1,))
    last = (rank + 1,)
    if invert:
        return ops.reduce_all(ops.not_equal(x1, x2), last), 0
    return ops.reduce_any(ops.equal(x1, x2), last), 0


isin = Primitive(
    "isin",
    impl=_isin_impl,
    abstract_eval=_isin_abstract,
    lower=_lower_isin,
    batch=_isin_batch,
    differentiable=False,
)
