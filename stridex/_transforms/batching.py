"""Batching: `vmap` as an interpreter over the primitives.

A batched value is a payload (value, dim): `value` holds every example, stacked along axis `dim`
(None: the same for all examples). Each primitive's `batch(values, dims, **params) -> (out, out_dim)`
rule computes all examples at once with ordinary stridex operations; the helpers below are the shared
rule shapes (elementwise, reductions over axes, ...).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

from stridex._core import tree as _tree
from stridex._core.array import Array
from stridex._core.avals import ShapedArray, aval_of
from stridex._core.state import TraceScope, current_trace, push
from stridex._core.view import normalize_axis
from stridex._lax import device as _device
from stridex._lax import ops
from stridex._lax.array_indexing import assign
from stridex._lax.rule_shapes import move_to_front
from stridex._transforms.tracing import Trace, Tracer, user_frame


class BatchPayload:
    __slots__ = ("dim", "value")

    def __init__(self, value, dim):
        self.value = value
        self.dim = dim


def _aval(x) -> ShapedArray:
    if isinstance(x, Tracer):
        return x._aval
    if isinstance(x, Array):
        return ShapedArray(x.shape, x.dtype)
    return aval_of(x)


class BatchTrace(Trace):
    kind = "vmap"

    def __init__(self, parent, axis_size: int):
        super().__init__(parent)
        self.axis_size = axis_size

    def device_of(self, tracer):
        return _device.device_of_value(tracer._var.value)

    def aval(self, payload) -> ShapedArray:
        a = _aval(payload.value)
        if payload.dim is None:
            return a
        return ShapedArray(a.shape[:payload.dim] + a.shape[payload.dim + 1:], a.dtype, a.weak_type)

    def lift(self, x):
        return BatchPayload(x, None)

    def apply(self, prim, payloads, params):
        values = [p.value for p in payloads]
        dims = [p.dim for p in payloads]
        with self.below():
            if all(d is None for d in dims):
                out = prim.bind(*values, **params)
                outs = out if prim.multiple_results else (out,)
                return [BatchPayload(o, None) for o in outs]
            if prim.batch is None:
                raise NotImplementedError(f"primitive {prim.name} has no batching rule (at {user_frame()})")
            out, out_dims = prim.batch(values, dims, axis_size=self.axis_size, **params)
        if prim.multiple_results:
            return [BatchPayload(o, d) for o, d in zip(out, out_dims)]
        return [BatchPayload(out, out_dims)]


# --- shared rule shapes ---------------------------------------------------------------------------------


# --- vmap ------------------------------------------------------------------------------------------------


def _broadcast_prefix(axes, tree) -> list:
    """One axis spec per leaf of `tree`, where `axes` is a prefix of its structure (int/None broadcast)."""
    if axes is None or isinstance(axes, int):
        return [axes] * len(_tree.flatten(tree)[0])
    if isinstance(axes, (tuple, list)) and isinstance(tree, (tuple, list)):
        if len(axes) != len(tree):
            raise ValueError(f"vmap: in_axes {axes!r} has {len(axes)} entries for {len(tree)} arguments")
        return [a for sub_axes, sub in zip(axes, tree) for a in _broadcast_prefix(sub_axes, sub)]
    if isinstance(axes, dict) and isinstance(tree, dict):
        return [a for k in sorted(tree, key=repr) for a in _broadcast_prefix(axes[k], tree[k])]
    raise ValueError(f"vmap: axis specification {axes!r} does not match the argument structure")


P = ParamSpec("P")
R = TypeVar("R")


def vmap(fun: Callable[P, R], in_axes: Any = 0, out_axes: Any = 0) -> Callable[P, R]:
    """Vectorise `fun` over axis `in_axes` of its arguments, stacking results along `out_axes`.

    >>> import stridex as sx
    >>> sx.vmap(lambda row: sx.sum(row))(sx.reshape(sx.arange(6.0), (2, 3)))
    Array([ 3., 12.])
    """

    def batched(*args):
        with _device.placing(_tree.flatten(args)[0]):
            return _batched(*args)

    def _batched(*args):
        if isinstance(in_axes, list):
            axes_spec = tuple(in_axes)
        else:
            axes_spec = in_axes
        leaves, treedef = _tree.flatten(args)
        axes = _broadcast_prefix(axes_spec, args)
        sizes = {}
        norm_axes = []
        for i, (leaf, ax) in enumerate(zip(leaves, axes)):
            if ax is None:
                norm_axes.append(None)
                continue
            shape = _aval(leaf).shape
            if not isinstance(leaf, Array):
                raise TypeError(f"vmap: argument leaf {i} is a {type(leaf).__name__}, which has no axis {ax} to map")
            ax = normalize_axis(ax, len(shape), "vmap in_axes entry")
            norm_axes.append(ax)
            sizes.setdefault(shape[ax], []).append((i, ax))
        if not sizes:
            raise ValueError("vmap: no argument is mapped (every in_axes entry is None)")
        if len(sizes) > 1:
            detail = "; ".join(f"size {n} at (leaf, axis) {pairs}" for n, pairs in sizes.items())
            raise ValueError(f"vmap: mapped axes have different sizes: {detail}")
        (axis_size,) = sizes
        trace = BatchTrace(current_trace(), axis_size)
        tracers = []
        for leaf, ax in zip(leaves, norm_axes):
            if ax is None:
                tracers.append(leaf)
            else:
                view = leaf._storage_view()[1].select(ax, 0) if not isinstance(leaf, Tracer) and leaf.size \
                    else None
                tracers.append(trace.new_tracer(BatchPayload(leaf, ax), view))
        with push(trace):
            try:
                out = fun(*_tree.unflatten(treedef, tracers))
            finally:
                trace.finished = True  # (also when fun raised: tracers it stored elsewhere have escaped)
        _write_back(trace, tracers, leaves, norm_axes)
        out_leaves, out_def = _tree.flatten(out)
        out_axes_list = _broadcast_prefix(out_axes, out) if not isinstance(out_axes, int) else \
            [out_axes] * len(out_leaves)
        results = []
        with TraceScope(trace.parent):
            for x, oax in zip(out_leaves, out_axes_list):
                payload = trace.read(x) if isinstance(x, Tracer) and x._trace is trace else BatchPayload(x, None)
                results.append(_place(payload, oax, axis_size))
        return _tree.unflatten(out_def, results)

    return batched  # type: ignore[return-value]  # (it takes fun's positional arguments)


def _place(payload, out_axis, axis_size):
    value = payload.value
    if out_axis is None:
        if payload.dim is not None:
            raise ValueError("vmap: out_axes is None for an output that varies over the mapped axis")
        return value
    x = move_to_front(value, payload.dim, axis_size)
    if not isinstance(x, Array):  # a Python scalar the function returned
        x = ops.full((axis_size,), x, aval_of(x).dtype)
    out_axis = normalize_axis(out_axis, x.ndim, "vmap out_axes entry")
    return ops.moveaxis(x, 0, out_axis) if out_axis else x


def _write_back(trace, tracers, leaves, axes):
    for tracer, leaf, ax in zip(tracers, leaves, axes):
        if ax is not None and isinstance(tracer, Tracer) and tracer._buffer.version:
            payload = tracer._buffer.var
            with TraceScope(trace.parent):
                value = move_to_front(payload.value, payload.dim, trace.axis_size)
                assign.bind(leaf, ops.moveaxis(value, 0, ax) if ax else value, template=(("ellipsis",),))
