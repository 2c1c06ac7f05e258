"""Rule shapes: the forms many primitives' transformation rules share, written once in internal operations.

A record takes one of these where its rule has a common shape (`batch=batch_elementwise`,
`jvp=linear_jvp`, `batch=batch_unary_axes("axis")`): each is a `RuleShape`, which the record completes
with itself when it is made, so the rule is still given at construction, in the record's one block.
Code that needs the rule of a given primitive outside a record calls `shape(primitive)`.
"""

from __future__ import annotations

from stridex._core.array import Array
from stridex._lax import ops
from stridex._lax.primitive import RuleShape


def move_to_front(x, dim, axis_size: int):
    """`x` with its batch axis first (broadcast to `axis_size` when it has none: `dim` is None)."""
    if dim is None:
        if not isinstance(x, Array):
            return x
        return ops.broadcast_to(ops.expand_dims(x, 0), (axis_size, *ops.shape_of(x)))
    return x if dim == 0 else ops.moveaxis(x, dim, 0)


def example(x, dim: int, i: int):
    """Example `i` of a batched value (a view of it)."""
    return ops.take_index(x, i, dim)


def _batch_elementwise(prim):
    """The batching rule of an elementwise primitive: batch axes first, ranks aligned, one call."""

    def rule(values, dims, *, axis_size, **params):
        ranks = [len(ops.shape_of(v)) - (d is not None) for v, d in zip(values, dims)]
        rank = max(ranks)
        args = []
        for v, d, r in zip(values, dims, ranks):
            if d is None:
                args.append(v)
                continue
            v = ops.moveaxis(v, d, 0) if d != 0 else v
            if r < rank:
                shape = ops.shape_of(v)
                v = ops.reshape(v, (shape[0],) + (1,) * (rank - r) + shape[1:])
            args.append(v)
        return prim.bind(*args, **params), 0

    return rule


def batch_unary_axes(*axis_params: str) -> RuleShape:
    """The batching rule of a one-operand primitive whose params (named `axis_params`, default "axes") name
    axes of the operand: the batch axis first, every named axis shifted by one."""
    return RuleShape(lambda prim: _batch_unary_axes(prim, axis_params or ("axes",)))


def _batch_unary_axes(prim, axis_params):
    def rule(values, dims, *, axis_size, **params):
        (x,), (d,) = values, dims
        x = move_to_front(x, d, axis_size)
        shifted = dict(params)
        for name in axis_params:
            value = params.get(name)
            if value is None:
                continue
            shifted[name] = tuple(a + 1 for a in value) if isinstance(value, tuple) else value + 1
        return prim.bind(x, **shifted), 0

    return rule


def _batch_by_loop(prim):
    """The fallback batching rule: the primitive on each example, results stacked (exact, but a loop)."""

    def rule(values, dims, *, axis_size, **params):
        outs = []
        for i in range(axis_size):
            args = [v if d is None else example(v, d, i) for v, d in zip(values, dims)]
            outs.append(prim.bind(*args, **params))
        if prim.multiple_results:
            return tuple(ops.stack([o[k] for o in outs]) for k in range(len(outs[0]))), (0,) * len(outs[0])
        return ops.stack(outs), 0

    return rule


def _linear_jvp(prim):
    return lambda primals, tangents, **params: (prim.bind(*primals, **params), prim.bind(*tangents, **params))


# The batching rule of every elementwise primitive: batch axes first, ranks aligned, one call.
batch_elementwise = RuleShape(_batch_elementwise)
# The fallback batching rule: the primitive on each example, results stacked (exact, but a loop).
batch_by_loop = RuleShape(_batch_by_loop)
# The JVP of a primitive linear in all its operands: the same primitive on the tangents.
linear_jvp = RuleShape(_linear_jvp)


def sum_terms(*terms):
    """The sum of the tangent terms that are present (None where a tangent is absent; None if all are)."""
    present = [t for t in terms if t is not None]
    if not present:
        return None
    total = present[0]
    for t in present[1:]:
        total = ops.add(total, t)
    return total


def scaled(t, factor):
    """A tangent term `t * factor`, or None for an absent tangent."""
    return None if t is None else ops.multiply(t, factor)
