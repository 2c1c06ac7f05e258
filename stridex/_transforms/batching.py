"""Batching: `vmap` as an interpreter over the primitives.

A batched value is a payload (value, dim): `value` holds every example, stacked along axis `dim`
(None: the same for all examples). Each primitive's `batch(values, dims, **params) -> (out, out_dim)`
rule computes all examples at once with ordinary stridex operations; the helpers below are the shared
rule shapes (elementwise, reductions over axes, ...).

Named axes: `vmap(f, axis_name="i")` gives its axis a name, over which the collectives of `stridex.lax`
(`psum`, `pmean`, `pmax`, `pmin`, `all_gather`, `axis_index`) work; the trace that binds a name resolves them
(`stridex._lax.parallel`), and nested `vmap`s with different names each resolve their own. A higher-order
primitive's batching rule evaluates its sub-programs under a `vmap` of its own (`rule_vmap`), which takes the
name of the axis whose rule runs, so a collective inside a loop body finds its axis there.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from contextvars import ContextVar
from typing import Any, ParamSpec, TypeVar

from stridex._core import tree as _tree
from stridex._core.array import Array
from stridex._core.avals import ShapedArray, aval_of
from stridex._core.state import TraceScope, current_trace, push
from stridex._core.view import normalize_axis
from stridex._exec import device as _device
from stridex._exec import placement as _placement
from stridex._lax import ops
from stridex._lax.array_indexing import assign
from stridex._lax.parallel import Collective, unbound
from stridex._lax.rule_shapes import move_to_front
from stridex._transforms.ir import sub_programs
from stridex._transforms.tracing import Trace, Tracer, user_frame

# The axis name of the named `vmap` whose batching rule is running (None while an unnamed one's runs).
_RULE_AXIS: ContextVar = ContextVar("stridex_rule_axis", default=None)


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

    def __init__(self, parent, axis_size: int, axis_name: Hashable | None = None):
        super().__init__(parent)
        self.axis_size = axis_size
        self.axis_name = axis_name

    def device_of(self, tracer):
        return _device.device_of_value(tracer._var.value)

    def concretize(self, tracer, conversion):
        """A value the same for every member (no batch dimension) has the value of its payload, as an unmapped
        argument of `jax.vmap` does; a batched one has none (JAX's errors)."""
        payload = self.read(tracer)
        if payload.dim is not None:
            return super().concretize(tracer, conversion)
        value = payload.value
        return value._concrete(conversion) if isinstance(value, Tracer) else value

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
        name = self.axis_name
        with self.below():
            if isinstance(prim, Collective):  # (resolved here when it names this axis, whatever its operands)
                out, out_dims = prim.batch(values, dims, axis_size=self.axis_size, axis_name=name, **params)
            else:
                if name is not None and _uses_axis(params, name):
                    # A sub-program with a collective over this axis: every operand batched (a value the same for
                    # every member broadcast), so that whatever the collective makes batched has a batched place.
                    values = [_broadcast(v, d, self.axis_size) for v, d in zip(values, dims)]
                    dims = [0] * len(values)
                elif all(d is None for d in dims):
                    out = prim.bind(*values, **params)
                    outs = out if prim.multiple_results else (out,)
                    return [BatchPayload(o, None) for o in outs]
                if prim.batch is None:
                    raise NotImplementedError(f"primitive {prim.name} has no batching rule (at {user_frame()})")
                if name is None and _RULE_AXIS.get() is None:
                    out, out_dims = prim.batch(values, dims, axis_size=self.axis_size, **params)
                else:  # (the rule's own vmaps, `rule_vmap`, take this axis's name: see the module's docstring)
                    token = _RULE_AXIS.set(name)
                    try:
                        out, out_dims = prim.batch(values, dims, axis_size=self.axis_size, **params)
                    finally:
                        _RULE_AXIS.reset(token)
        if prim.multiple_results:
            return [BatchPayload(o, d) for o, d in zip(out, out_dims)]
        return [BatchPayload(out, out_dims)]


def _uses_axis(params: dict, name) -> bool:
    """Whether a sub-program in `params` (a higher-order primitive's) has a collective over axis `name`."""
    for _, program in sub_programs(params):
        for eqn in program.eqns:
            if isinstance(eqn.prim, Collective) and name in eqn.params["axes"] or _uses_axis(eqn.params, name):
                return True
    return False


def _broadcast(value, dim, axis_size: int):
    if dim is not None:
        return move_to_front(value, dim, axis_size)
    if not isinstance(value, Array):  # (a Python scalar operand: a 0-D array of its kind per member)
        return ops.full((axis_size,), value, aval_of(value).dtype)
    return move_to_front(value, None, axis_size)


def bound_axis_size(name, what: str) -> int:
    """The length of the axis an enclosing `vmap(..., axis_name=name)` maps (the innermost such); JAX's
    NameError ("unbound axis name: i") when none encloses the call, naming the axes that are bound."""
    if isinstance(name, (tuple, list)) or not isinstance(name, Hashable):
        raise TypeError(f"{what}: an axis name is a hashable value such as a string, got {name!r}")
    trace, names = current_trace(), []
    while trace is not None:
        if isinstance(trace, BatchTrace) and trace.axis_name is not None:
            if trace.axis_name == name:
                return trace.axis_size
            names.append(trace.axis_name)
        trace = trace.parent
    error = unbound(name, f"{what} (at {user_frame()})")
    if names:
        error.args = (f"{error.args[0]}; the axes named here are {names}",)
    raise error


def rule_vmap(fun: Callable, in_axes: Any = 0, out_axes: Any = 0, *, axis_size: int | None = None) -> Callable:
    """`vmap` as a batching rule uses it to evaluate a sub-program: over the axis of the `vmap` whose rule runs,
    under its name (None for an unnamed one), so that a collective inside resolves as it would outside."""
    return vmap(fun, in_axes, out_axes, axis_name=_RULE_AXIS.get(), axis_size=axis_size)


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


def vmap(fun: Callable[P, R], in_axes: Any = 0, out_axes: Any = 0, axis_name: Hashable | None = None,
         axis_size: int | None = None) -> Callable[P, R]:
    """Vectorise `fun` over axis `in_axes` of its arguments, stacking results along `out_axes`.

    `axis_name` names the mapped axis, for the collectives of `stridex.lax` (`psum`, `pmean`, `pmax`, `pmin`,
    `all_gather`, `axis_index`); `axis_size` gives its length, needed when no argument is mapped (every
    `in_axes` entry None) and checked against the mapped arguments otherwise.

    >>> import stridex as sx
    >>> sx.vmap(lambda row: sx.sum(row))(sx.reshape(sx.arange(6.0), (2, 3)))
    Array([ 3., 12.])
    >>> sx.vmap(lambda v: v / sx.lax.psum(v, "i"), axis_name="i")(sx.asarray([1.0, 3.0]))
    Array([0.25, 0.75])
    """
    if axis_size is not None and (not isinstance(axis_size, int) or isinstance(axis_size, bool) or axis_size < 0):
        raise TypeError(f"vmap: axis_size must be a non-negative int, got {axis_size!r}")
    if axis_name is not None and (isinstance(axis_name, (tuple, list)) or not isinstance(axis_name, Hashable)):
        raise TypeError(f"vmap: axis_name must be a hashable value such as a string, got {axis_name!r}")

    def batched(*args):
        with _placement.placing(_tree.flatten(args)[0]):
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
        if axis_size is not None and any(n != axis_size for n in sizes):
            detail = "; ".join(f"size {n} at (leaf, axis) {pairs}" for n, pairs in sizes.items())
            raise ValueError(f"vmap: the axis_size argument is {axis_size}, but mapped axes have {detail}")
        if not sizes and axis_size is None:
            raise ValueError("vmap: no argument is mapped (every in_axes entry is None); pass axis_size= to map "
                             "over an axis of a given length")
        if len(sizes) > 1:
            detail = "; ".join(f"size {n} at (leaf, axis) {pairs}" for n, pairs in sizes.items())
            raise ValueError(f"vmap: mapped axes have different sizes: {detail}")
        size = axis_size if axis_size is not None else next(iter(sizes))
        trace = BatchTrace(current_trace(), size, axis_name)
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
                results.append(_place(payload, oax, size))
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
