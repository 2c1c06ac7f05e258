"""Automatic differentiation: forward mode (`jvp`) and reverse mode (`vjp`) as interpreters over the primitives.

Each primitive's record holds its `jvp(primals, tangents, **params) -> (out, tangent_out)` and
`vjp(cotangent, *primals, out, **params) -> cotangents` rules, written with stridex operations so that
they are themselves traced, differentiated or batched by whatever trace sits below. Rules may be
naive about broadcasting and dtypes: cotangents are summed over broadcast axes and cast to each
input's dtype here, once. Integer and boolean values carry no derivative.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Literal, ParamSpec, TypeVar, overload

from stridex._core import dtypes as _dtypes
from stridex._core import tree as _tree
from stridex._core.array import Array
from stridex._core.avals import ShapedArray, aval_of, value_aval
from stridex._core.dtypes import DType
from stridex._core.state import TraceScope, current_trace, push
from stridex._exec import device as _device
from stridex._exec import placement as _placement
from stridex._lax import ops
from stridex._lax.array_indexing import assign
from stridex._transforms import handover
from stridex._transforms.batching import vmap
from stridex._transforms.tracing import (Conversion, Trace, Tracer, TracerArrayConversionError, conversion_site,
                                        user_frame)


def is_differentiable(x) -> bool:
    return isinstance(x, Array) and x.dtype.kind in _dtypes.FLOATING_KINDS


def fit(ct, like_aval: ShapedArray):
    """Sum `ct` over the axes broadcasting added, and cast it to the dtype of the value it belongs to."""
    if not isinstance(ct, Array):
        return ct
    shape = like_aval.shape
    if ct.shape != shape:
        lead = ct.ndim - len(shape)
        axes = tuple(range(lead)) + tuple(lead + i for i, n in enumerate(shape) if n == 1 and ct.shape[lead + i] != 1)
        if axes:
            ct = ops.sum(ct, axes, keepdims=True)
        if lead or ct.shape != shape:
            ct = ops.reshape(ct, shape)
    dtype = like_aval.dtype
    if ct.dtype is not dtype:
        if ct.dtype.kind == "complex floating" and dtype.kind != "complex floating":
            ct = ops.real(ct)
        ct = ops.astype(ct, dtype)
    return ct


def add_any(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return a + b


# --- forward mode ------------------------------------------------------------------------------------


def concrete_primal(trace, tracer, conversion: Conversion):
    """The value a derivative trace's tracer stands for: its primal, which is concrete eagerly and under `jit`
    a tracer of the trace below (which decides: a graph break, or ConcretizationTypeError).

    A Python decision on a value (`bool()`) works under `grad`/`jvp` as it does eagerly, as in `jax.grad`: the
    branch taken is differentiated. Every other conversion (NumPy, a Python number, DLPack) of a value that
    carries a derivative raises: the value would leave as a constant, and its derivative would silently be
    zero. Under `jit(grad(f))` this check comes before the graph break, so a break never drops a derivative.
    """
    payload = trace.read(tracer)
    if not conversion.branch and trace.carries_derivative(payload):
        site = conversion_site() if conversion.error is TracerArrayConversionError else user_frame()
        raise conversion.error(
            f"{conversion.name} of an array that carries a derivative ({tracer._aval}, under `{trace.kind}`) at "
            f"{site}.\nLeaving stridex, the value would become a constant, and the derivative through it would "
            "silently be zero. Ways out: `sx.stop_gradient(x)` first, where no derivative should flow through the "
            "value; or compute it with stridex operations, which the transformation differentiates.")
    primal = payload.primal
    return primal._concrete(conversion) if isinstance(primal, Tracer) else primal


class JVPPayload:
    __slots__ = ("primal", "tangent")

    def __init__(self, primal, tangent):
        self.primal = primal
        self.tangent = tangent


class JVPTrace(Trace):
    kind = "jvp"
    concrete_shapes = True

    def device_of(self, tracer):
        return _device.device_of_value(tracer._var.primal)

    def concretize(self, tracer, conversion):
        return concrete_primal(self, tracer, conversion)

    def carries_derivative(self, payload) -> bool:
        return payload.tangent is not None

    def aval(self, payload) -> ShapedArray:
        return value_aval(payload.primal)

    def lift(self, x):
        return JVPPayload(x, None)

    def apply(self, prim, payloads, params):
        primals = [p.primal for p in payloads]
        tangents = [p.tangent for p in payloads]
        with self.below():
            if not prim.differentiable or all(t is None for t in tangents):
                out = prim.bind(*primals, **params)
                outs = out if prim.multiple_results else (out,)
                return [JVPPayload(o, None) for o in outs]
            if prim.jvp is None:
                raise NotImplementedError(f"primitive {prim.name} has no JVP rule (at {user_frame()})")
            out, tangent = prim.jvp(primals, tangents, **params)
            outs = out if prim.multiple_results else (out,)
            tans = tangent if prim.multiple_results else (tangent,)
            return [JVPPayload(o, fit(t, value_aval(o)) if is_differentiable(o) and t is not None else None)
                    for o, t in zip(outs, tans)]


P = ParamSpec("P")
R = TypeVar("R")
Aux = TypeVar("Aux")
Argnums = int | Sequence[int]
"""Which positional arguments to differentiate: one index (its gradient alone) or several (a tuple of them)."""


@overload
def jvp(fun: Callable[..., R], primals: Sequence[Any], tangents: Sequence[Any], *,
        has_aux: Literal[False] = False) -> tuple[R, R]: ...
@overload
def jvp(fun: Callable[..., tuple[R, Aux]], primals: Sequence[Any], tangents: Sequence[Any], *,
        has_aux: Literal[True]) -> tuple[R, R, Aux]: ...
def jvp(fun: Callable[..., Any], primals: Sequence[Any], tangents: Sequence[Any], *,
        has_aux: bool = False) -> tuple[Any, ...]:
    """Forward-mode derivative: `(fun(*primals), d fun(primals)[tangents])`.

    >>> import stridex as sx
    >>> out, t = sx.jvp(lambda x: x * x, (sx.asarray(3.0),), (sx.asarray(1.0),))
    >>> float(t)
    6.0
    """
    primals, tangents = tuple(primals), tuple(tangents)
    p_leaves, p_def = _tree.flatten(primals)
    t_leaves, t_def = _tree.flatten(tangents)
    if p_def != t_def:
        raise TypeError("jvp: primals and tangents must have the same tree structure")
    for p, t in zip(p_leaves, t_leaves):
        if value_aval(p).shape != value_aval(t).shape:
            raise ValueError(f"jvp: a tangent of shape {value_aval(t).shape} does not match its primal of shape "
                             f"{value_aval(p).shape}")
    with _placement.placing(p_leaves):
        return _jvp(fun, p_leaves, p_def, t_leaves, has_aux)


def _jvp(fun, p_leaves, p_def, t_leaves, has_aux):
    trace = JVPTrace(current_trace())
    payloads = [JVPPayload(p, t if is_differentiable(p) else None) for p, t in zip(p_leaves, t_leaves)]
    out_leaves, out_def, aux = _trace_function(trace, fun, p_leaves, p_def, payloads, has_aux)
    primal_out = [_primal_of(trace, x) for x in out_leaves]
    tangent_out = []
    for x, p in zip(out_leaves, primal_out):
        payload = trace.read(x) if isinstance(x, Tracer) and x._trace is trace else None
        t = payload.tangent if payload is not None else None
        if t is None and isinstance(p, Array):
            with _below(trace):
                t = ops.zeros_like(p)
        tangent_out.append(t)
    result = (_tree.unflatten(out_def, primal_out), _tree.unflatten(out_def, tangent_out))
    return result + (aux,) if has_aux else result


def _trace_function(trace, fun, leaves, treedef, payloads, has_aux):
    """Run `fun` on tracers of `trace` (one per input leaf, carrying `payloads`); returns the flattened
    output, its tree structure and the auxiliary data (as primals). Inputs it wrote are written back."""
    tracers = [trace.new_tracer(payload, leaf._storage_view()[1] if isinstance(leaf, Array) and leaf.size else None)
               for leaf, payload in zip(leaves, payloads)]
    with push(trace):
        try:
            out = fun(*_tree.unflatten(treedef, tracers))
        finally:
            trace.finished = True  # (also when fun raised: tracers it stored elsewhere have escaped)
    aux = None
    if has_aux:
        out, aux = out
        aux = _tree.tree_map(lambda x: _primal_of(trace, x), aux)
    trace.before_write_back(leaves, tracers)
    _write_back_inputs(trace, tracers, leaves, lambda payload: payload.primal)
    out_leaves, out_def = _tree.flatten(out)
    return out_leaves, out_def, aux


def _below(trace):

    return TraceScope(trace.parent)


def _primal_of(trace, x):
    if isinstance(x, Tracer) and x._trace is trace:
        return trace.read(x).primal
    return x


def _write_back_inputs(trace, tracers, caller_leaves, primal_of_payload):
    """Inputs the function wrote into are written in the caller's arrays, as they would be eagerly."""

    for tracer, caller in zip(tracers, caller_leaves):
        if tracer._buffer.version and isinstance(caller, Array):
            with _below(trace):
                value = primal_of_payload(tracer._buffer.var)
                # Only the parts written, when they are basic regions (another thread may write elsewhere in the
                # caller's array meanwhile: see docs/semantics.md, "Threads"); else all of it.
                regions = handover.basic_regions(tracer._buffer.writes)
                if regions is None:
                    assign.bind(caller, value, template=(("ellipsis",),))
                else:
                    handover.write_back(caller, value, handover.WriteBack(0, 0, regions, None), None)


# --- reverse mode ------------------------------------------------------------------------------------


class Node:
    """One recorded primitive application (or an input, when `prim` is None) on the tape."""

    __slots__ = ("inputs", "params", "prim", "primals_in", "primals_out")

    def __init__(self, prim, params, inputs, primals_in, primals_out):
        self.prim = prim
        self.params = params
        self.inputs = inputs
        self.primals_in = primals_in
        self.primals_out = primals_out


class VJPPayload:
    __slots__ = ("index", "node", "primal")

    def __init__(self, primal, node, index=0):
        self.primal = primal
        self.node = node
        self.index = index


class VJPTrace(Trace):
    kind = "grad"
    concrete_shapes = True

    def device_of(self, tracer):
        return _device.device_of_value(tracer._var.primal)

    def __init__(self, parent):
        super().__init__(parent)
        self.tape: list[Node] = []

    def concretize(self, tracer, conversion):
        return concrete_primal(self, tracer, conversion)

    def carries_derivative(self, payload) -> bool:
        return payload.node is not None

    def aval(self, payload) -> ShapedArray:
        return value_aval(payload.primal)

    def lift(self, x):
        return VJPPayload(x, None)

    def apply(self, prim, payloads, params):
        primals = [p.primal for p in payloads]
        with self.below():
            out = prim.bind(*primals, **params)
        outs = out if prim.multiple_results else (out,)
        if prim.differentiable and any(p.node is not None for p in payloads):
            if prim.vjp is None:
                raise NotImplementedError(f"primitive {prim.name} has no VJP rule (at {user_frame()})")
            node = Node(prim, params, payloads, primals, outs)
            self.tape.append(node)
            return [VJPPayload(o, node if is_differentiable(o) else None, i) for i, o in enumerate(outs)]
        return [VJPPayload(o, None) for o in outs]

    def before_write_back(self, leaves, tracers) -> None:
        """Before the inputs the function wrote into are written back: the tape's primals that view those
        inputs' storage (the inputs themselves, and views of them taken before the write) move to a copy
        of the storage as it is now, unwritten, so the pullback differentiates at the values the function
        read. (Inside the trace, writes were functional; only this final write-back touches the caller.)"""
        copies, buffers = {}, set()  # eager storages written -> their unwritten copies; traced buffers written
        for tracer, leaf in zip(tracers, leaves):
            if not tracer._buffer.version or not isinstance(leaf, Array) or not leaf.size:
                continue
            if isinstance(leaf, Tracer):  # (traced by an outer transformation, e.g. jit(grad(f)))
                buffers.add(id(leaf._buffer))
                continue
            storage = leaf._storage_view()[0]
            if id(storage) not in copies:
                copies[id(storage)] = (storage, storage.copy())
        if not copies and not buffers:
            return

        def detached(value):
            if isinstance(value, Tracer):
                # A value of the outer trace over a written buffer: pin its current (unwritten) version.
                return value._trace._current(value) if id(value._buffer) in buffers else value
            if not isinstance(value, Array):
                return value
            st = value._storage
            if id(st) not in copies or copies[id(st)][0] is not st:
                return value
            view = value._storage_view()[1]
            return Array._make(copies[id(st)][1], view, value.dtype)

        for node in self.tape:
            node.primals_in = [detached(v) for v in node.primals_in]
            node.primals_out = [detached(v) for v in node.primals_out]

    def backward(self, seeds: list) -> dict:
        """Propagate (payload, cotangent) seeds back through the tape; returns {id(input node): cotangent}."""
        # Runs in the caller's current trace (e.g. a vmap over cotangents), not necessarily self.parent.
        cts: dict = {}
        for payload, ct in seeds:
            if payload.node is not None and ct is not None:
                key = (id(payload.node), payload.index)
                cts[key] = add_any(cts.get(key), ct)
        for node in reversed(self.tape):
            outs = [cts.pop((id(node), i), None) for i in range(len(node.primals_out))]
            if all(c is None for c in outs):
                continue
            if node.prim.multiple_results:
                outs = [c if c is not None or not isinstance(o, Array) else ops.zeros_like(o)
                        for c, o in zip(outs, node.primals_out)]
                ct_out, out = tuple(outs), tuple(node.primals_out)
            else:
                ct_out, out = outs[0], node.primals_out[0]
            in_cts = node.prim.vjp(ct_out, *node.primals_in, out=out, **node.params)
            for payload, primal, ct in zip(node.inputs, node.primals_in, in_cts):
                if payload.node is None or ct is None or not is_differentiable(primal):
                    continue
                key = (id(payload.node), payload.index)
                cts[key] = add_any(cts.get(key), fit(ct, value_aval(primal)))
        return cts


@overload
def vjp(fun: Callable[..., R], *primals: Any, has_aux: Literal[False] = False
        ) -> tuple[R, Callable[[Any], tuple[Any, ...]]]: ...
@overload
def vjp(fun: Callable[..., tuple[R, Aux]], *primals: Any, has_aux: Literal[True]
        ) -> tuple[R, Callable[[Any], tuple[Any, ...]], Aux]: ...
def vjp(fun: Callable[..., Any], *primals: Any, has_aux: bool = False) -> tuple[Any, ...]:
    """Reverse-mode derivative: `(fun(*primals), pullback)`; `pullback(cotangent)` gives one cotangent
    per primal (a tuple, in the primals' tree structure).

    >>> import stridex as sx
    >>> out, pullback = sx.vjp(lambda x: sx.sum(x * x), sx.asarray([1.0, 2.0]))
    >>> pullback(sx.asarray(1.0))[0]
    Array([2., 4.])
    """
    p_leaves, p_def = _tree.flatten(primals)
    trace = VJPTrace(current_trace())
    input_nodes = [Node(None, None, [], [], [p]) for p in p_leaves]
    payloads = [VJPPayload(p, n if is_differentiable(p) else None) for p, n in zip(p_leaves, input_nodes)]
    with _placement.placing(p_leaves):
        out_leaves, out_def, aux = _trace_function(trace, fun, p_leaves, p_def, payloads, has_aux)
    out_payloads = [trace.read(x) if isinstance(x, Tracer) and x._trace is trace else VJPPayload(x, None)
                    for x in out_leaves]
    primal_out = _tree.unflatten(out_def, [p.primal for p in out_payloads])

    def pullback(cotangent):
        ct_leaves, ct_def = _tree.flatten(cotangent)
        if ct_def != out_def:
            raise TypeError("vjp: the cotangent must have the structure of the function's output")
        for p, ct in zip(out_payloads, ct_leaves):
            if value_aval(ct).shape != value_aval(p.primal).shape:
                raise ValueError(f"vjp: cotangent of shape {value_aval(ct).shape} for an output of shape "
                                 f"{value_aval(p.primal).shape}")
        with _placement.placing(p_leaves):
            cts = trace.backward(list(zip(out_payloads, ct_leaves)))
            grads = []
            for p, node in zip(p_leaves, input_nodes):
                g = cts.get((id(node), 0))
                if g is None and isinstance(p, Array):
                    g = ops.zeros_like(p)
                grads.append(g)
        return _tree.unflatten(p_def, grads)

    return (primal_out, pullback, aux) if has_aux else (primal_out, pullback)


def _argnums_tuple(argnums):
    """`argnums` as a tuple of ints; TypeError for a non-integer, ValueError for a repeated one."""
    nums = (argnums,) if not isinstance(argnums, (tuple, list)) else tuple(argnums)
    for i in nums:
        if not isinstance(i, int) or isinstance(i, bool):
            raise TypeError(f"argnums must be an int or a tuple of ints, got {argnums!r}")
    if len(set(nums)) != len(nums):
        raise ValueError(f"argnums must not repeat an argument, got {argnums!r}")
    return nums


def _check_argnums(nums: tuple, nargs: int, what: str) -> tuple:
    """`nums` made non-negative for a call with `nargs` positional arguments; ValueError when out of range."""
    for i in nums:
        if not -nargs <= i < nargs:
            raise ValueError(f"{what}: argnums={i} is out of range for a call with {nargs} positional "
                             f"argument{'s' if nargs != 1 else ''}")
    normal = tuple(i % nargs for i in nums)
    if len(set(normal)) != len(normal):
        raise ValueError(f"{what}: argnums {nums} name one argument twice")
    return normal


def _inexact_kind(leaf) -> str:
    kind = leaf.dtype.kind
    return "complex" if kind == "complex floating" else "real" if kind == "real floating" else "integer"


def _differentiated(what: str, args: list, nums: tuple, holomorphic: bool, allow_int: bool) -> None:
    """Check the leaves of the differentiated arguments, as JAX's reverse mode does (complex ones under
    `holomorphic`; integer and boolean ones only with `allow_int`); Python floats and complex numbers become 0-D
    arrays (float64, complex128), as do Python ints and bools under `allow_int`."""
    for i in nums:
        leaves, treedef = _tree.flatten(args[i])
        for j, leaf in enumerate(leaves):
            if isinstance(leaf, (float, complex)) or (allow_int and isinstance(leaf, int)):
                leaf = leaves[j] = ops.constant(leaf, aval_of(leaf).dtype)
            if not isinstance(leaf, Array):
                raise TypeError(f"{what} requires floating-point inputs, but argument {i} has a leaf of type "
                                f"{type(leaf).__name__}")
            kind = _inexact_kind(leaf)
            if holomorphic and kind != "complex":
                raise TypeError(f"{what} with holomorphic=True requires inputs with complex dtype, but argument {i} "
                                f"has dtype {leaf.dtype.name}")
            if kind == "integer" and not allow_int:
                raise TypeError(f"{what} requires floating-point inputs, but argument {i} has dtype {leaf.dtype.name}; "
                                "integer and boolean values carry no gradient (allow_int=True takes them, with a "
                                "gradient of zeros)")
        args[i] = _tree.unflatten(treedef, leaves)


def _check_output(what: str, out, holomorphic: bool, scalar: bool) -> None:
    """The output checks of JAX's reverse mode: real floating (complex under `holomorphic`), 0-D for `grad`."""
    leaves = _tree.flatten(out)[0]
    for leaf in leaves:
        dtype = getattr(leaf, "dtype", None)
        kind = _inexact_kind(leaf) if isinstance(leaf, Array) else None
        shape_ok = not scalar or getattr(leaf, "shape", None) == ()
        if holomorphic:
            if kind != "complex" or not shape_ok:
                got = getattr(dtype, "name", type(leaf).__name__)
                raise TypeError(f"{what} with holomorphic=True requires a function returning complex "
                                f"{'0-D arrays' if scalar else 'arrays'}, got {got} of shape {getattr(leaf, 'shape', None)}")
        elif kind != "real" or not shape_ok:
            hint = " (for a holomorphic function, pass holomorphic=True)" if kind == "complex" else ""
            raise TypeError(f"{what} requires a function returning a real floating-point "
                            f"{'0-D array' if scalar else 'array'}, got {getattr(dtype, 'name', type(leaf).__name__)} "
                            f"of shape {getattr(leaf, 'shape', None)}{hint}")


def value_and_grad(fun: Callable[P, Any], argnums: Argnums = 0, has_aux: bool = False, holomorphic: bool = False,
                   allow_int: bool = False) -> Callable[P, tuple[Any, Any]]:
    """A function returning `(fun(*args), gradient of fun with respect to args[argnums])`.

    `fun` must return a real floating 0-D array (a complex one with `holomorphic=True`, whose gradient is then
    `f'(z)`); the arguments differentiated (pytrees of arrays) must be floating-point (complex with
    `holomorphic=True`; integers and booleans with `allow_int=True`, whose gradient is zeros of their dtype:
    stridex has no `float0`). Python floats are taken as float64 0-D arrays.

    >>> import stridex as sx
    >>> sx.value_and_grad(lambda x: sx.sum(x ** 2))(sx.asarray([1.0, 3.0]))[1]
    Array([2., 6.])
    """
    _argnums_tuple(argnums)  # (TypeError / ValueError now, not at the first call)

    def value_and_grad_fun(*args, **kwargs):
        nums = _check_argnums(_argnums_tuple(argnums), len(args), "grad")
        args_list = list(args)
        _differentiated("grad", args_list, nums, holomorphic, allow_int)

        def partial_fun(*diff_args):
            full = list(args_list)
            for i, a in zip(nums, diff_args):
                full[i] = a
            return fun(*full, **kwargs)

        res = vjp(partial_fun, *[args_list[i] for i in nums], has_aux=has_aux)
        out, pullback = res[0], res[1]
        if not isinstance(out, Array):
            raise TypeError(f"grad requires a function returning a real floating-point 0-D array, got "
                            f"{type(out).__name__}")
        _check_output("grad", out, holomorphic, scalar=True)
        with _scope(current_trace()), _placement.placing([out]):
            seed = ops.ones((), out.dtype)
        grads = pullback(seed)
        grads = grads[0] if isinstance(argnums, int) else tuple(grads)
        return ((out, res[2]), grads) if has_aux else (out, grads)

    return value_and_grad_fun


def _scope(trace):

    return TraceScope(trace)


def grad(fun: Callable[P, Any], argnums: Argnums = 0, has_aux: bool = False, holomorphic: bool = False,
         allow_int: bool = False) -> Callable[P, Any]:
    """The gradient of a real scalar function with respect to argument(s) `argnums` (pytrees of arrays); see
    `value_and_grad` for `has_aux`, `holomorphic` and `allow_int`.

    >>> import stridex as sx
    >>> sx.grad(lambda x: sx.sum(sx.sin(x)))(sx.asarray([0.0]))
    Array([1.])
    >>> sx.grad(lambda z: z * z, holomorphic=True)(sx.asarray(1.0 + 1.0j))
    Array(2.+2.j)
    """
    vg = value_and_grad(fun, argnums, has_aux, holomorphic, allow_int)

    def grad_fun(*args, **kwargs):
        (value, grads) = vg(*args, **kwargs)
        return (grads, value[1]) if has_aux else grads

    return grad_fun


# --- Jacobians over pytrees -----------------------------------------------------------------------------
# As JAX's: the result has the output's structure, and at each output leaf the structure of the argument (a
# tuple of them for a tuple `argnums`), each block of shape output leaf's shape + input leaf's shape. Both are
# computed along one flat basis over every leaf (of the inputs for jacfwd, of the outputs for jacrev), in the
# leaves' common dtype, each leaf's part cast to its own.


def _basis_dtype(leaves) -> DType:
    return _dtypes.result_type_of(*[leaf.dtype for leaf in leaves]) if leaves else _dtypes.float64


def _part(x, axis: int, start: int, stop: int):
    """The view of `x` at positions start:stop of `axis`."""
    return ops.index(x, tuple(("slice", start, stop, 1) if a == axis else ("slice", 0, n, 1)
                              for a, n in enumerate(ops.shape_of(x))))


def _split_basis(row, leaves) -> list:
    """A basis row (a flat vector over every leaf) as one array per leaf: its part, in its shape and dtype."""
    parts, start = [], 0
    for leaf in leaves:
        n = leaf.size
        part = ops.reshape(_part(row, 0, start, start + n), leaf.shape)
        parts.append(ops.astype(part, leaf.dtype) if part.dtype is not leaf.dtype else part)
        start += n
    return parts


def _blocks(stacked, leaves, outer_shape: tuple, basis_first: bool) -> list:
    """`stacked` (a Jacobian with the flat basis axis first, or last) cut into one block per leaf of the basis:
    shape outer_shape + leaf.shape (basis_first) or outer_shape's axes last."""
    out, start = [], 0
    for leaf in leaves:
        n = leaf.size
        if basis_first:
            out.append(ops.reshape(_part(stacked, 0, start, start + n), leaf.shape + outer_shape))
        else:
            out.append(ops.reshape(_part(stacked, len(ops.shape_of(stacked)) - 1, start, start + n),
                                   outer_shape + leaf.shape))
        start += n
    return out


def _jacobian_tree(out_leaves, out_def, block_of, diff_defs, argnums):
    """The result's pytree: the output's structure, each leaf replaced by the arguments' structure (one, or a tuple
    of them) with `block_of(out_index, input_leaf_index)` at each input leaf."""
    per_out = []
    for o in range(len(out_leaves)):
        trees, k = [], 0
        for treedef, n in diff_defs:
            trees.append(_tree.unflatten(treedef, [block_of(o, k + j) for j in range(n)]))
            k += n
        per_out.append(trees[0] if isinstance(argnums, int) else tuple(trees))
    return _tree.unflatten(out_def, per_out)


def _check_jacfwd_inputs(leaves, holomorphic: bool) -> None:
    for leaf in leaves:
        kind = _inexact_kind(leaf) if isinstance(leaf, Array) else "integer"
        if holomorphic and kind != "complex":
            raise TypeError(f"jacfwd with holomorphic=True requires inputs with complex dtype, but got "
                            f"{getattr(leaf, 'dtype', type(leaf).__name__)}")
        if not holomorphic and kind != "real":
            raise TypeError(f"jacfwd requires real-valued floating-point inputs, but got "
                            f"{getattr(getattr(leaf, 'dtype', None), 'name', type(leaf).__name__)}. For holomorphic "
                            "differentiation, pass holomorphic=True; for functions of complex or integer inputs, use "
                            "jvp directly")


def jacfwd(fun: Callable[P, Any], argnums: Argnums = 0, has_aux: bool = False,
           holomorphic: bool = False) -> Callable[P, Any]:
    """The Jacobian by forward mode: a JVP per input basis vector, batched with `vmap`.

    Arguments and output are pytrees, as in JAX: the result has the output's structure, and at each output leaf
    the argument's (a tuple of them for a tuple `argnums`), with blocks of shape output shape + input shape.
    `has_aux=True`: `fun` returns `(output, aux)` and the result is `(jacobian, aux)`. `holomorphic=True`:
    complex inputs and outputs, the complex derivative.

    >>> import stridex as sx
    >>> j = sx.jacfwd(lambda p: {"y": p["w"] * p["b"]})({"w": sx.asarray([1.0, 2.0]), "b": sx.asarray(3.0)})
    >>> j["y"]["w"]
    Array([[3., 0.],
           [0., 3.]])
    >>> j["y"]["b"]
    Array([1., 2.])
    """

    _argnums_tuple(argnums)

    def jac_fun(*args, **kwargs):
        nums = _check_argnums(_argnums_tuple(argnums), len(args), "jacfwd")
        args = tuple(_tree.tree_map(lambda x: ops.constant(x, aval_of(x).dtype) if isinstance(x, (float, complex))
                                    else x, a) if k in nums else a for k, a in enumerate(args))
        leaves, treedef = _tree.flatten(tuple(args))
        owner = _tree.flatten(tuple(_tree.tree_map(lambda _, k=k: k, a) for k, a in enumerate(args)))[0]
        diff = [j for j, k in enumerate(owner) if k in nums]  # (the differentiated leaves, in the order of nums)
        diff.sort(key=lambda j: nums.index(owner[j]))
        diff_leaves = [leaves[j] for j in diff]
        _check_jacfwd_inputs(diff_leaves, holomorphic)
        arrays = [j for j, leaf in enumerate(leaves) if isinstance(leaf, Array)]
        written: list = []
        n = sum(leaf.size for leaf in diff_leaves)

        def pushforward(row):
            # Every direction differentiates at the arguments as given: the function runs on copies made inside
            # the vmap (unbatched), and what it writes into them is written back once, below.
            inner = [ops.copy(leaf) if j in arrays else leaf for j, leaf in enumerate(leaves)]
            tangents: list = [None] * len(leaves)
            for j, t in zip(diff, _split_basis(row, diff_leaves)):
                tangents[j] = t
            res = _jvp(lambda *a: fun(*a, **kwargs), inner, treedef, tangents, has_aux)
            written[:] = [j for j in arrays if inner[j]._buffer.version]
            return (res[0], res[1], [inner[j] for j in written]) + ((res[2],) if has_aux else ())

        with _placement.placing(leaves):
            basis = ops.eye(n, dtype=_basis_dtype(diff_leaves))
        out_axes = (None, 0, None) + ((None,) if has_aux else ())
        res = vmap(pushforward, out_axes=out_axes)(basis)
        y, jac, after = res[0], res[1], res[2]
        for j, value in zip(written, after):
            assign.bind(leaves[j], value, template=(("ellipsis",),))
        y_leaves, y_def = _tree.flatten(y)
        jac_leaves = _tree.flatten(jac)[0]
        if holomorphic:
            for leaf in y_leaves:
                if not isinstance(leaf, Array) or _inexact_kind(leaf) != "complex":
                    raise TypeError(f"jacfwd with holomorphic=True requires outputs with complex dtype, but got "
                                    f"{getattr(leaf, 'dtype', type(leaf).__name__)}")
        blocks = [_blocks(ops.moveaxis(t, 0, -1) if t.ndim > 1 else t, diff_leaves, yl.shape, basis_first=False)
                  for t, yl in zip(jac_leaves, y_leaves)]
        defs = [(_tree.flatten(args[i])[1], len(_tree.flatten(args[i])[0])) for i in nums]
        out = _jacobian_tree(y_leaves, y_def, lambda o, k: blocks[o][k], defs, argnums)
        return (out, res[3]) if has_aux else out

    return jac_fun


def jacrev(fun: Callable[P, Any], argnums: Argnums = 0, has_aux: bool = False, holomorphic: bool = False,
           allow_int: bool = False) -> Callable[P, Any]:
    """The Jacobian by reverse mode: a VJP per output basis vector, batched with `vmap`.

    Pytrees, `has_aux` and `holomorphic` as in `jacfwd`; `allow_int` as in `grad`.

    >>> import stridex as sx
    >>> sx.jacrev(lambda x, y: (x * y, x + y), argnums=(0, 1))(sx.asarray([1.0, 2.0]), sx.asarray(3.0))[0][1]
    Array([1., 2.])
    """

    _argnums_tuple(argnums)

    def jac_fun(*args, **kwargs):
        nums = _check_argnums(_argnums_tuple(argnums), len(args), "jacrev")
        args_list = list(args)
        _differentiated("jacrev", args_list, nums, holomorphic, allow_int)

        def partial_fun(*d):
            return fun(*[d[nums.index(i)] if i in nums else a for i, a in enumerate(args_list)], **kwargs)

        res = vjp(partial_fun, *[args_list[i] for i in nums], has_aux=has_aux)
        y, pullback = res[0], res[1]
        _check_output("jacrev", y, holomorphic, scalar=False)
        y_leaves, y_def = _tree.flatten(y)
        with _placement.placing(y_leaves):
            basis = ops.eye(sum(leaf.size for leaf in y_leaves), dtype=_basis_dtype(y_leaves))
        jac = vmap(lambda row: tuple(pullback(_tree.unflatten(y_def, _split_basis(row, y_leaves)))))(basis)
        in_leaves = _tree.flatten(tuple(args_list[i] for i in nums))[0]
        blocks = [_blocks(j, y_leaves, leaf.shape, basis_first=True) for j, leaf in
                  zip(_tree.flatten(jac)[0], in_leaves)]  # blocks[input][output]
        defs = [(_tree.flatten(args_list[i])[1], len(_tree.flatten(args_list[i])[0])) for i in nums]
        out = _jacobian_tree(y_leaves, y_def, lambda o, k: blocks[k][o], defs, argnums)
        return (out, res[2]) if has_aux else out

    return jac_fun


def hessian(fun: Callable[P, Any], argnums: Argnums = 0, has_aux: bool = False,
            holomorphic: bool = False) -> Callable[P, Any]:
    """The Hessian: `jacfwd(jacrev(fun))`, over pytrees as they are.

    >>> import stridex as sx
    >>> sx.hessian(lambda x: sx.sum(x ** 3))(sx.asarray([1.0, 2.0]))
    Array([[ 6.,  0.],
           [ 0., 12.]])
    """
    return jacfwd(jacrev(fun, argnums, has_aux, holomorphic), argnums, has_aux, holomorphic)
