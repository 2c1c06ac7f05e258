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
from stridex._core.avals import ShapedArray, value_aval
from stridex._core.state import TraceScope, current_trace, push
from stridex._lax import device as _device
from stridex._lax import ops
from stridex._lax.array_indexing import assign
from stridex._transforms import handover
from stridex._transforms.batching import vmap
from stridex._transforms.tracing import Trace, Tracer, user_frame


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


def concrete_primal(trace, tracer, what: str):
    """The value a derivative trace's tracer stands for: its primal, which is concrete eagerly and under `jit`
    a tracer of the trace below (which decides: a graph break, or ConcretizationError). Python control flow
    on values works under `grad`/`jvp` as it does eagerly; no derivative flows through the decision."""
    primal = trace.read(tracer).primal
    return primal._concrete(what) if isinstance(primal, Tracer) else primal


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

    def concretize(self, tracer, what):
        return concrete_primal(self, tracer, what)

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
    with _device.placing(p_leaves):
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

    def concretize(self, tracer, what):
        return concrete_primal(self, tracer, what)

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
    with _device.placing(p_leaves):
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
        with _device.placing(p_leaves):
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


def value_and_grad(fun: Callable[P, Any], argnums: Argnums = 0,
                   has_aux: bool = False) -> Callable[P, tuple[Any, Any]]:
    """A function returning `(fun(*args), gradient of fun with respect to args[argnums])`.

    `fun` must return a real floating 0-D array; arguments differentiated must be floating-point.

    >>> import stridex as sx
    >>> sx.value_and_grad(lambda x: sx.sum(x ** 2))(sx.asarray([1.0, 3.0]))[1]
    Array([2., 6.])
    """
    _argnums_tuple(argnums)  # (TypeError / ValueError now, not at the first call)

    def value_and_grad_fun(*args, **kwargs):
        nums = _check_argnums(_argnums_tuple(argnums), len(args), "grad")
        for i in nums:
            for leaf in _tree.flatten(args[i])[0]:
                if not is_differentiable(leaf):
                    dtype = getattr(leaf, "dtype", type(leaf).__name__)
                    raise TypeError(f"grad requires floating-point inputs, but argument {i} has dtype {dtype}; "
                                    "integer and boolean values carry no gradient")

        def partial_fun(*diff_args):
            full = list(args)
            for i, a in zip(nums, diff_args):
                full[i] = a
            return fun(*full, **kwargs)

        res = vjp(partial_fun, *[args[i] for i in nums], has_aux=has_aux)
        out, pullback = res[0], res[1]
        if not isinstance(out, Array) or out.shape != () or out.dtype.kind != "real floating":
            raise TypeError("grad requires a function returning a real floating-point 0-D array, got "
                            f"{getattr(out, 'dtype', type(out).__name__)} of shape {getattr(out, 'shape', None)}")
        with _scope(current_trace()), _device.placing([out]):
            seed = ops.ones((), out.dtype)
        grads = pullback(seed)
        grads = grads[0] if isinstance(argnums, int) else tuple(grads)
        return ((out, res[2]), grads) if has_aux else (out, grads)

    return value_and_grad_fun


def _scope(trace):

    return TraceScope(trace)


def grad(fun: Callable[P, Any], argnums: Argnums = 0, has_aux: bool = False) -> Callable[P, Any]:
    """The gradient of a real scalar function with respect to argument(s) `argnums`.

    >>> import stridex as sx
    >>> sx.grad(lambda x: sx.sum(sx.sin(x)))(sx.asarray([0.0]))
    Array([1.])
    """
    vg = value_and_grad(fun, argnums, has_aux)

    def grad_fun(*args, **kwargs):
        (value, grads) = vg(*args, **kwargs)
        return (grads, value[1]) if has_aux else grads

    return grad_fun


def jacfwd(fun: Callable[P, Any], argnums: Argnums = 0) -> Callable[P, Any]:
    """The Jacobian by forward mode: a JVP per input basis vector, batched with `vmap`."""

    _argnums_tuple(argnums)

    def jac_fun(*args):
        nums = _check_argnums(_argnums_tuple(argnums), len(args), "jacfwd")
        arrays = [k for k, a in enumerate(args) if isinstance(a, Array)]
        results, final = [], None
        for i in nums:
            x = args[i]
            written = []

            def pushforward(t, i=i, x=x, written=written):
                # Every direction differentiates at the arguments as given: the function runs on copies made
                # inside the vmap (unbatched), and what it writes into them is written back once, below.
                inner = [ops.copy(a) if k in arrays else a for k, a in enumerate(args)]
                tangents = [ops.reshape(t, x.shape) if k == i else ops.zeros(a.shape, a.dtype) if k in arrays else a
                            for k, a in enumerate(args)]
                tangent = jvp(fun, inner, tangents)[1]
                written[:] = [k for k in arrays if inner[k]._buffer.version]
                return tangent, [inner[k] for k in written]

            jac, after = vmap(pushforward, out_axes=(0, None))(ops.eye(x.size, dtype=x.dtype))  # (n, *out_shape)
            if final is None:
                final = list(zip(written, after))
            jac = ops.moveaxis(jac, 0, -1) if jac.ndim > 1 else jac
            results.append(ops.reshape(jac, jac.shape[:-1] + x.shape))
        for k, value in final or ():
            assign.bind(args[k], value, template=(("ellipsis",),))
        return results[0] if isinstance(argnums, int) else tuple(results)

    return jac_fun  # type: ignore[return-value]  # (it takes fun's positional arguments)


def jacrev(fun: Callable[P, Any], argnums: Argnums = 0) -> Callable[P, Any]:
    """The Jacobian by reverse mode: a VJP per output basis vector, batched with `vmap`."""

    def jac_fun(*args):
        nums = _check_argnums(_argnums_tuple(argnums), len(args), "jacrev")
        out, pullback = vjp(lambda *d: fun(*[d[nums.index(i)] if i in nums else a for i, a in enumerate(args)]),
                            *[args[i] for i in nums])
        m = out.size
        basis = ops.eye(m, dtype=out.dtype)
        jacs = vmap(lambda ct: tuple(pullback(ops.reshape(ct, out.shape))))(basis)
        results = [ops.reshape(j, out.shape + args[i].shape) for j, i in zip(jacs, nums)]
        return results[0] if isinstance(argnums, int) else tuple(results)

    return jac_fun  # type: ignore[return-value]  # (it takes fun's positional arguments)


def hessian(fun: Callable[P, Any], argnums: Argnums = 0) -> Callable[P, Any]:
    """The Hessian: `jacfwd(jacrev(fun))`."""
    return jacfwd(jacrev(fun, argnums), argnums)
