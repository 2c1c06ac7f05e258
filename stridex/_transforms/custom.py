"""Custom derivative rules and checkpointing: higher-order primitives whose parameters hold a sub-program.

`custom_jvp`, `custom_vjp` and `checkpoint` each bind one primitive (`custom_jvp_call`, `custom_vjp_call`,
`checkpoint`). Eagerly (no trace) the bind calls the Python function itself. Under any trace the function is
first traced once to a closed sub-program of the IR by the sub-program tracer that control flow uses too
(`subprogram.trace_function`): the arrays it closes over, concrete or tracers of enclosing traces, become
explicit leading inputs, `num_consts` of them; those it writes into are also its last outputs, `num_writes` of
them, and take their new values after the bind, as in a loop body. The program is held in the `call`
parameter; the rules (JVP, VJP, batching, lowering) interpret it:

- A custom rule says how to differentiate what the function returns: the values it writes carry no
  derivative through the rule, so differentiating a function whose writes depend on the arguments is a
  TypeError; `checkpoint` differentiates its writes like its results.
- `custom_jvp_call` also holds the user's JVP rule. Forward mode calls it; reverse mode takes the VJP of the
  rule's tangent map (linear in the tangents) with the reverse-mode interpreter (`VJPTrace`); batching binds
  the primitive again with the program and the rule under `vmap`.
- `custom_vjp_call` also holds the forward and backward functions. Under `VJPTrace` the bind runs the forward
  function instead of the program and keeps its residuals on the tape, for the backward function. Forward
  mode is JAX's TypeError.
- `checkpoint` holds a policy. Under `VJPTrace` the forward runs the program as one equation (its
  intermediate values stay inside it) and the tape keeps only its inputs, outputs and the values the policy
  saves (`checkpoint_name`); the backward pass recomputes the rest, as one equation again (lowered behind an
  optimisation barrier, so that XLA does not merge the recomputation with the forward pass).

Under `jit` (and `make_ir`) each call is one equation whose `call` parameter prints the sub-program; `jit`
differentiates before it lowers, so its lowering is the sub-program's. Under `to_jax`, whose lowering JAX
differentiates, the rules are traced beside the call and the call lowers to `jax.custom_jvp` / `jax.custom_vjp`
running them (stridex/_transforms/custom_for_jax.py).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Sequence
from typing import Any, Generic, NamedTuple, ParamSpec, TypeVar, overload

import numpy as np

from stridex._core import tree as _tree
from stridex._core.array import Array
from stridex._core.avals import ShapedArray, aval_of, value_aval
from stridex._core.state import current_trace, push
from stridex._lax import ops
from stridex._lax.array_indexing import assign
from stridex._exec.jax_bridge import lax as _jax_lax
from stridex._lax.primitive import Primitive
from stridex._lax.rule_shapes import move_to_front
from stridex._transforms import autodiff as _ad
from stridex._transforms.batching import rule_vmap
from stridex._transforms.ir import Literal, Program
from stridex._transforms.lowering import lower_program
from stridex._transforms.passes import dead_code_elimination, optimize
from stridex._transforms.subprogram import SubProgram, output_dependencies, trace_function, write_outer
from stridex._transforms.tracing import JitTrace, Tracer, TracingError

# --- staging a Python function as a closed sub-program ------------------------------------------------------


def _input_aval(x) -> ShapedArray:
    if isinstance(x, Array) and not isinstance(x, Tracer):
        return ShapedArray(x.shape, x.dtype)
    return value_aval(x)


def _input_view(x):
    if isinstance(x, Tracer):
        return x._view if x.size else None
    if isinstance(x, Array) and x.size:
        return x._storage_view()[1]
    return None


class Staged(NamedTuple):
    """A function staged by `stage`: its sub-program; the bases from outside it reads or writes (`closure`, whose
    outer values go in front of the arguments); of those, the ones it wrote (`written`, the end of `closure`);
    and the positions of the arguments it wrote (`written_args`)."""

    program: SubProgram
    closure: list
    written: list
    written_args: list


def stage(fun, args, parent, what: str, avals=None) -> Staged:
    """Trace `fun(*args) -> list of outputs` once, on abstract values of `args` (arrays, tracers of any trace or
    Python scalars), with the sub-program tracer. The program's inputs are the closure's bases, then one per
    argument; its outputs are `fun`'s, then the final values of the bases it wrote, then those of the arguments
    it wrote (an argument is written as a branch's operand is: after the call). `what` names the function in
    errors. With `avals` (a rule traced for a lowering into JAX), the function is traced on those instead, and
    writing into an argument is an error."""

    def outputs(*inputs):
        return [o if isinstance(o, Array) else ops.full((), o, aval_of(o).dtype) for o in fun(*inputs)]

    if avals is None:
        traced = trace_function(parent, what, outputs, [_input_aval(a) for a in args], [_input_view(a) for a in args],
                                operands=args)
    else:
        traced = trace_function(parent, what, outputs, list(avals))
    written_args = [i for i, t in enumerate(traced.inputs) if t._buffer.version]
    for i in written_args:
        if avals is not None:
            raise TracingError(f"{what} writes into its argument {i}; under sx.to_jax the rule cannot write into "
                               "its arguments. Write into a copy (sx.asarray(x, copy=True))")
        if not isinstance(args[i], Array):
            raise TracingError(f"{what} writes into its argument {i}, a Python {type(args[i]).__name__}, which "
                               "cannot be written into")
    written = traced.trace.written()
    closure = traced.trace.read_only() + written
    ins = [t._buffer.initial_var for t in traced.inputs]
    outs = traced.out_vars + [e.final for e in written] + [traced.inputs[i]._buffer.var for i in written_args]
    program = optimize(Program([e.initial for e in closure] + ins, [], traced.trace.eqns, outs))
    return Staged(SubProgram(program.inputs, program.constants, program.eqns, program.outputs), closure, written,
                  written_args)


def run(call, args) -> list:
    """Run a `call` parameter on `args` in the current trace: a Program is interpreted equation by equation,
    a Python function called."""
    if isinstance(call, Program):
        return evaluate_with(call, args)
    return list(call(*args))


def evaluate_with(program: Program, args, substitute=None) -> list:
    """`ir.evaluate`, binding into the current trace; `substitute(eqn, inputs)` may give an equation's outputs
    instead (a value `checkpoint` saved)."""
    env = {id(v): a for v, a in zip(program.inputs, args)}

    def read(v):
        return v.value if isinstance(v, Literal) else env[id(v)]

    for eqn in program.eqns:
        inputs = [read(v) for v in eqn.inputs]
        outs = substitute(eqn, inputs) if substitute is not None else None
        if outs is None:
            out = eqn.prim.bind(*inputs, **eqn.params)
            outs = out if eqn.prim.multiple_results else (out,)
        for v, value in zip(eqn.outputs, outs):
            env[id(v)] = value
    return [read(v) for v in program.outputs]


# --- the higher-order primitives ---------------------------------------------------------------------------


class Fn:
    """A Python function held in an equation's parameters (a rule), printed by name; hashed by identity. `key`
    names the custom function the rule belongs to (the same for its batched versions); `staged` is the rule traced
    for a lowering into JAX (`_STAGE_FOR_JAX`), where it was."""

    __slots__ = ("fn", "key", "lazy", "name", "staged")

    def __init__(self, fn, name: str, key=None, staged=None):
        self.fn = fn
        self.name = name
        self.key = key
        self.staged = staged
        self.lazy: Any = None  # (the rule as a JAX function, traced when JAX first asks for it: `_lazy_rule`)

    def __call__(self, *args):
        return self.fn(*args)

    def __repr__(self):
        return self.name


class HigherOrderPrimitive(Primitive):
    """A primitive whose `call` parameter is a function: eagerly, bind calls it; under a trace, bind first
    stages it as a sub-program (`stage`): the arrays from outside it reads join the arguments in front
    (`num_consts`); what it writes (arrays from outside, its arguments) are its last outputs too (`num_writes`)
    and take their new values after the bind."""

    __slots__ = ()

    def bind(self, *args, **params):
        trace = current_trace()
        call = params["call"]
        if trace is None:
            return tuple(run(call, args))
        if isinstance(call, Program):
            return self._bind_staged(trace, args, params)
        staged = stage(call, args, trace, f"the function of {self.name} {params['name']!r}")
        params = {**params, "call": staged.program, "num_consts": params["num_consts"] + len(staged.closure),
                  "num_writes": params["num_writes"] + len(staged.written) + len(staged.written_args)}
        outs = self._bind_staged(trace, (*[e.outer for e in staged.closure], *args), params)
        n = len(outs) - len(staged.written) - len(staged.written_args)
        for e, value in zip(staged.written, outs[n:]):
            write_outer(e.outer, value, [e.inner._buffer])
        for i, value in zip(staged.written_args, outs[n + len(staged.written):]):
            assign.bind(args[i], value, template=(("ellipsis",),))
        return tuple(outs[:n])

    def _bind_staged(self, trace, args, params):
        rule = _UNDER_VJP.get(self.name) if isinstance(trace, _ad.VJPTrace) else None
        if rule is not None:
            return rule(self, trace, args, params)
        stage_for_jax = STAGE_FOR_JAX.get(self.name)
        if stage_for_jax is not None and isinstance(trace, JitTrace):
            args, params = stage_for_jax(trace, args, params)
        return trace.process(self, args, params)


_UNDER_VJP: dict = {}  # primitive name -> how it binds under VJPTrace (what the tape keeps)


def _abstract_eval(*avals, call, **_):
    return tuple(v.aval for v in call.outputs)


def _impl(*windows, call, **_):
    args = [Array._from_numpy(np.array(w)) if isinstance(w, np.ndarray) else w for w in windows]
    with push(None):
        return tuple(np.asarray(o) for o in run(call, args))


def _lower(ctx, *values, call, prevent_cse=False, **_):
    if prevent_cse and values:
        values = _jax_lax().optimization_barrier(tuple(values))
    return tuple(lower_program(call)(*values))


# Custom calls under `sx.to_jax`, whose lowering JAX differentiates (stridex/_transforms/custom_for_jax.py installs
# both when `to_jax` is imported): how a call's rules are traced beside it while `to_jax` traces (`STAGE_FOR_JAX`),
# and how it lowers into a JAX trace (`LOWER_FOR_JAX`: to `jax.custom_jvp` / `jax.custom_vjp`). Without them, as
# under `sx.jit`, which differentiates before it lowers, a call lowers to its function, inlined.
STAGE_FOR_JAX: dict = {}  # primitive name -> stage(trace, args, params) -> (args, params)
LOWER_FOR_JAX: dict = {}  # primitive name -> lower(ctx, *values, **params)


def _lower_custom(name: str):
    def lower(ctx, *values, **params):
        for_jax = LOWER_FOR_JAX.get(name)
        return for_jax(ctx, *values, **params) if for_jax is not None else _lower(ctx, *values, **params)

    return lower


def _zero(x):
    return ops.zeros_like(x) if isinstance(x, Array) else type(x)(0)


def _moved(values, dims, axis_size):
    return ([move_to_front(v, d, axis_size) if d is not None else v for v, d in zip(values, dims)],
            tuple(None if d is None else 0 for d in dims))


def _closed_over_error(name: str, mode: str) -> TypeError:
    return TypeError(f"{mode} of the custom-rule function {name!r} with respect to a value it closes over: the "
                     "rule only says how to differentiate it with respect to its arguments. Pass the value as an "
                     "argument.")


def _check_writes(name: str, mode: str, call, num_consts, num_writes, differentiated) -> None:
    """A custom rule differentiates what its function returns: a value the function writes (the program's last
    `num_writes` outputs) may not depend on the arguments `differentiated` (their positions among the arguments)."""
    if not num_writes:
        return
    deps = output_dependencies(call)
    inputs = {num_consts + i for i in differentiated}
    if any(deps[k] & inputs for k in range(len(call.outputs) - num_writes, len(call.outputs))):
        raise TypeError(f"{mode} of the custom-rule function {name!r}, which writes a value that depends on its "
                        "arguments (into an array it closes over, or into an argument): the rule says how to "
                        "differentiate what the function returns, not what it writes. Return the value instead (or "
                        "use checkpoint, which differentiates its writes).")


def _written_values(call, num_writes, args) -> list:
    """What the function wrote (its program's last `num_writes` outputs), where a rule runs instead of it."""
    if not num_writes:
        return []
    return evaluate_with(dead_code_elimination(Program(call.inputs, [], call.eqns, call.outputs[-num_writes:])),
                         args)


# custom_jvp_call(*consts, *args; call, jvp, num_consts, num_writes, name)


def _custom_jvp_jvp(primals, tangents, *, call, jvp, num_consts, num_writes, name):
    if any(t is not None for t in tangents[:num_consts]):
        raise _closed_over_error(name, "forward-mode differentiation")
    _check_writes(name, "forward-mode differentiation", call, num_consts, num_writes,
                  [i for i, t in enumerate(tangents[num_consts:]) if t is not None])
    xs = list(primals[num_consts:])
    ts = [t if t is not None else _zero(x) for x, t in zip(xs, tangents[num_consts:])]
    outs, touts = jvp(xs, ts)
    return tuple(outs) + tuple(_written_values(call, num_writes, primals)), tuple(touts) + (None,) * num_writes


def _custom_jvp_vjp(ct, *primals, out, call, jvp, num_consts, num_writes, name):
    """The VJP of the rule's tangent map (linear in the tangents): reverse mode through a custom JVP rule. (What
    the function wrote depends on no differentiated argument: `_custom_jvp_under_vjp`.)"""
    xs = list(primals[num_consts:])
    diff = [i for i, x in enumerate(xs) if _ad.is_differentiable(x)]
    if not diff:
        return [None] * len(primals)
    n = len(out) - num_writes
    out_avals = [value_aval(o) for o in out[:n]]

    def tangent_map(*dts):
        ts = [_zero(x) for x in xs]
        for i, t in zip(diff, dts):
            ts[i] = t
        return tuple(_ad.fit(t, a) if isinstance(t, Array) else t for t, a in zip(jvp(xs, ts)[1], out_avals))

    _, pullback = _ad.vjp(tangent_map, *[ops.zeros_like(xs[i]) for i in diff])
    cts = pullback(tuple(ct[:n]))
    result = [None] * len(primals)
    for i, c in zip(diff, cts):
        result[num_consts + i] = c
    return result


def _custom_jvp_batch(values, dims, *, axis_size, call, jvp, num_consts, num_writes, name):
    values, axes = _moved(values, dims, axis_size)
    batched_call = _batched_call(call, axes, axis_size, name)
    x_axes = axes[num_consts:]
    if any(a is not None for a in axes[:num_consts]):
        batched_jvp = Fn(functools.partial(_batched_closure_error, name), f"{name}_jvp")
    else:
        batched_rule = rule_vmap(lambda p, t: tuple(map(tuple, jvp(list(p), list(t)))), (x_axes, x_axes),
                                 axis_size=axis_size)

        def batched(xs, ts):
            outs, touts = batched_rule(tuple(xs), tuple(ts))
            return list(outs), list(touts)
        batched_jvp = Fn(batched, f"{name}_jvp", key=jvp.key)
    outs = custom_jvp_call.bind(*values, call=batched_call, jvp=batched_jvp, num_consts=num_consts,
                                num_writes=num_writes, name=name)
    return outs, [0] * len(outs)


def _batched_call(call, axes, axis_size: int, name: str) -> Fn:
    """The function of a custom-rule or checkpointed call, vmapped over the batch axes `axes` of its operands
    (made now, while the batching rule runs: it takes that vmap's axis name, see `batching.rule_vmap`)."""
    batched = rule_vmap(lambda *b: tuple(run(call, b)), axes, axis_size=axis_size)
    return Fn(lambda *a: list(batched(*a)), name)


def _batched_closure_error(name, *_):
    raise NotImplementedError(f"differentiating the vmapped custom-rule function {name!r}, which closes over a "
                              "batched value: pass the value as an argument")


custom_jvp_call = HigherOrderPrimitive(
    "custom_jvp_call", impl=_impl, abstract_eval=_abstract_eval, lower=_lower_custom("custom_jvp_call"),
    jvp=_custom_jvp_jvp, vjp=_custom_jvp_vjp, batch=_custom_jvp_batch, multiple_results=True)


def _custom_jvp_under_vjp(prim, trace, args, params):
    nc = params["num_consts"]
    payloads = [trace.read(a) for a in args]
    if any(p.node is not None for p in payloads[:nc]):
        raise _closed_over_error(params["name"], "reverse-mode differentiation")
    _check_writes(params["name"], "reverse-mode differentiation", params["call"], nc, params["num_writes"],
                  [i for i, p in enumerate(payloads[nc:]) if p.node is not None])
    return trace.process(prim, args, params)


_UNDER_VJP["custom_jvp_call"] = _custom_jvp_under_vjp


# custom_vjp_call(*consts, *args; call, fwd, bwd, num_consts, num_writes, name)


def _custom_vjp_jvp(primals, tangents, **params):
    raise TypeError(f"can't apply forward-mode autodiff (jvp) to a custom_vjp function ({params['name']!r}). "
                    "Differentiate it in reverse mode (grad, vjp, jacrev), or define it with custom_jvp.")


def _custom_vjp_vjp(ct, *primals, out, call, fwd, bwd, num_consts, num_writes, name, residuals):
    cts = bwd(list(residuals), list(ct[:len(ct) - num_writes]))
    return [None] * num_consts + list(cts)


def _custom_vjp_batch(values, dims, *, axis_size, call, fwd, bwd, num_consts, num_writes, name):
    values, axes = _moved(values, dims, axis_size)
    batched_call = _batched_call(call, axes, axis_size, name)
    x_axes = axes[num_consts:]
    if any(a is not None for a in axes[:num_consts]):
        batched_fwd = batched_bwd = Fn(functools.partial(_batched_closure_error, name), f"{name}_fwd")
    else:
        batched_forward = rule_vmap(lambda *b: tuple(map(tuple, fwd(*b))), x_axes, axis_size=axis_size)
        # (every residual and output of the batched forward has its batch axis first: vmap's out_axes=0)
        batched_backward = rule_vmap(lambda r, c: tuple(bwd(list(r), list(c))), axis_size=axis_size)

        def forward(*xs):
            outs, res = batched_forward(*xs)
            return list(outs), list(res)

        def backward(res, cts):
            return list(batched_backward(tuple(res), tuple(cts)))
        batched_fwd, batched_bwd = Fn(forward, f"{name}_fwd", key=fwd.key), Fn(backward, f"{name}_bwd", key=fwd.key)
    outs = custom_vjp_call.bind(*values, call=batched_call, fwd=batched_fwd, bwd=batched_bwd, num_consts=num_consts,
                                num_writes=num_writes, name=name)
    return outs, [0] * len(outs)


custom_vjp_call = HigherOrderPrimitive(
    "custom_vjp_call", impl=_impl, abstract_eval=_abstract_eval, lower=_lower_custom("custom_vjp_call"),
    jvp=_custom_vjp_jvp, vjp=_custom_vjp_vjp, batch=_custom_vjp_batch, multiple_results=True)


def _custom_vjp_under_vjp(prim, trace, args, params):
    """The tape keeps the forward function's residuals for the backward function."""
    nc = params["num_consts"]
    payloads = [trace.read(a) for a in args]
    if any(p.node is not None for p in payloads[:nc]):
        raise _closed_over_error(params["name"], "reverse-mode differentiation")
    if all(p.node is None for p in payloads):
        return trace.process(prim, args, params)
    _check_writes(params["name"], "reverse-mode differentiation", params["call"], nc, params["num_writes"],
                  [i for i, p in enumerate(payloads[nc:]) if p.node is not None])
    primals = [p.primal for p in payloads]
    with trace.below():
        outs, residuals = params["fwd"](*primals[nc:])
        outs = list(outs) + _written_values(params["call"], params["num_writes"], primals)
    node = _ad.Node(prim, {**params, "residuals": tuple(residuals)}, payloads, primals, outs)
    trace.tape.append(node)
    return tuple(trace.new_tracer(_ad.VJPPayload(o, node if _ad.is_differentiable(o) else None, i))
                 for i, o in enumerate(outs))


_UNDER_VJP["custom_vjp_call"] = _custom_vjp_under_vjp

# checkpoint(*consts, *args; call, policy, prevent_cse, num_consts, num_writes, name): what the function writes
# is differentiated like what it returns (the written values are outputs of the program it recomputes)


def _checkpoint_jvp(primals, tangents, *, call, **_):
    ts = [t if t is not None else _zero(p) for p, t in zip(primals, tangents)]
    outs, touts = _ad.jvp(lambda *xs: tuple(run(call, xs)), primals, ts)
    return tuple(outs), tuple(touts)


def _checkpoint_vjp(ct, *primals, out, call, policy, prevent_cse, num_consts, num_writes, name, saved=()):
    """Recompute the forward pass (from the inputs and the saved values) and pull the cotangents back through
    it: one `checkpoint` equation whose sub-program does both."""
    diff = [i for i, p in enumerate(primals) if _ad.is_differentiable(p)]
    n = len(primals)
    saved_vars = [v for v, _ in saved]

    def backward(*args):
        xs, rest = list(args[:n]), args[n:]
        values, cts = rest[:len(saved_vars)], rest[len(saved_vars):]
        subst = {id(v): value for v, value in zip(saved_vars, values)}

        def recompute(*d):
            full = list(xs)
            for i, x in zip(diff, d):
                full[i] = x
            return tuple(evaluate_with(call, full, functools.partial(_substitute, subst)))

        _, pullback = _ad.vjp(recompute, *[xs[i] for i in diff])
        return list(pullback(tuple(cts)))

    grads = checkpoint_p.bind(*primals, *[value for _, value in saved], *ct, call=Fn(backward, f"{name}_bwd"),
                              policy=everything_saveable, prevent_cse=prevent_cse, num_consts=0, num_writes=0,
                              name=f"{name}_bwd")
    result = [None] * n
    for i, g in zip(diff, grads):
        result[i] = g
    return result


def _substitute(subst, eqn, inputs):
    """In the recomputation, an equation whose outputs were saved gives the saved values instead of running.
    They stay connected to the derivative: a `checkpoint_name` gives the saved value in place of its input's
    (so that the cotangent flows on to what computed it); any other equation is put on the tape with its
    saved outputs, as if it had run."""
    if id(eqn.outputs[0]) not in subst:
        return None
    trace = current_trace()
    if eqn.prim is not name_p:
        values = [subst[id(v)] for v in eqn.outputs]
        if not isinstance(trace, _ad.VJPTrace):
            return tuple(values)
        payloads = [trace.read(x) for x in inputs]
        node = None
        if eqn.prim.differentiable and any(p.node is not None for p in payloads):
            node = _ad.Node(eqn.prim, eqn.params, payloads, [p.primal for p in payloads], values)
            trace.tape.append(node)
        return tuple(trace.new_tracer(_ad.VJPPayload(v, node if node is not None and _ad.is_differentiable(v)
                                                     else None, i)) for i, v in enumerate(values))
    value = subst[id(eqn.outputs[0])]
    (x,) = inputs
    if isinstance(x, Tracer) and isinstance(trace, _ad.VJPTrace) and x._trace is trace:
        payload = trace.read(x)
        node = payload.node
        if node is not None:  # the node's own rule reads the saved value too: the recomputed one may go unused
            node.primals_out = [value if k == payload.index else o for k, o in enumerate(node.primals_out)]
        return (trace.new_tracer(_ad.VJPPayload(value, node, payload.index)),)
    return (value,)


def _checkpoint_batch(values, dims, *, axis_size, call, policy, prevent_cse, num_consts, num_writes, name):
    values, axes = _moved(values, dims, axis_size)
    batched_call = _batched_call(call, axes, axis_size, name)
    outs = checkpoint_p.bind(*values, call=batched_call, policy=policy, prevent_cse=prevent_cse,
                             num_consts=num_consts, num_writes=num_writes, name=name)
    return outs, [0] * len(outs)


checkpoint_p = HigherOrderPrimitive(
    "checkpoint", impl=_impl, abstract_eval=_abstract_eval, lower=_lower, jvp=_checkpoint_jvp,
    vjp=_checkpoint_vjp, batch=_checkpoint_batch, multiple_results=True)


def _checkpoint_under_vjp(prim, trace, args, params):
    """The forward pass as one equation; the tape keeps its inputs, outputs and the values the policy saves."""
    call, policy = params["call"], params["policy"]
    if policy.everything:  # nothing to recompute: differentiate the program as if it were inline
        return tuple(evaluate_with(call, args))
    payloads = [trace.read(a) for a in args]
    if all(p.node is None for p in payloads):
        return trace.process(prim, args, params)
    named = [v for e in call.eqns if policy.saves_eqn(e) for v in e.outputs]
    forward = SubProgram(call.inputs, [], call.eqns, call.outputs + named) if named else call
    primals = [p.primal for p in payloads]
    with trace.below():
        res = prim.bind(*primals, **{**params, "call": forward})
    n = len(call.outputs)
    outs, saved = list(res[:n]), res[n:]
    node = _ad.Node(prim, {**params, "saved": tuple(zip(named, saved))}, payloads, primals, outs)
    trace.tape.append(node)
    return tuple(trace.new_tracer(_ad.VJPPayload(o, node if _ad.is_differentiable(o) else None, i))
                 for i, o in enumerate(outs))


_UNDER_VJP["checkpoint"] = _checkpoint_under_vjp


# checkpoint_name(x; name): the identity, marking a value a checkpoint policy may save

def _identity_batch(values, dims, *, axis_size, name):
    return name_p.bind(values[0], name=name), dims[0]


name_p: Primitive = Primitive(
    "checkpoint_name", impl=lambda x, name: np.array(x), abstract_eval=lambda a, name: a,
    lower=lambda ctx, x, name: x, jvp=lambda primals, tangents, name: (name_p.bind(primals[0], name=name),
                                                                       tangents[0]),
    vjp=lambda ct, x, out, name: (ct,), batch=_identity_batch)


# --- the public functions ----------------------------------------------------------------------------------


def _fun_name(fun) -> str:
    return getattr(fun, "__name__", None) or type(fun).__name__


def _resolve(fun, args, kwargs, what):
    if not kwargs:
        return tuple(args)
    try:
        bound = inspect.signature(fun).bind(*args, **kwargs)
    except (TypeError, ValueError) as e:
        raise TypeError(f"{what}: {e}") from None
    if bound.kwargs:
        raise TypeError(f"{what}: keyword-only arguments are not supported; pass them positionally")
    return tuple(bound.args)


def _nondiff(nondiff_argnums, nargs, what) -> tuple:
    out = []
    for i in nondiff_argnums:
        if not -nargs <= i < nargs:
            raise ValueError(f"{what}: nondiff_argnums={i} is out of range for a call with {nargs} arguments")
        out.append(i % nargs)
    return tuple(sorted(set(out)))


class _Call:
    """One call of a custom function: its arguments split into static (nondiff) ones and flat leaves."""

    def __init__(self, args, nondiff):
        self.nargs = len(args)
        self.static = {i: args[i] for i in nondiff}
        self.diff = [a for i, a in enumerate(args) if i not in self.static]
        self.leaves, self.in_def = _tree.flatten(tuple(self.diff))
        self.out_def = None

    def args(self, leaves) -> list:
        diff = iter(_tree.unflatten(self.in_def, list(leaves)))  # type: ignore[call-overload]  # (a tuple: in_def flattened one)
        return [self.static[i] if i in self.static else next(diff) for i in range(self.nargs)]

    def nondiff_values(self) -> list:
        return [self.static[i] for i in sorted(self.static)]

    def set_out(self, treedef, what):
        if self.out_def is None:
            self.out_def = treedef
        elif self.out_def != treedef:
            raise TypeError(f"{what} returns a different output structure from the function's: {treedef} "
                            f"and {self.out_def}")


P = ParamSpec("P")
R = TypeVar("R")
T = TypeVar("T")


class custom_jvp(Generic[P, R]):
    """A function with a custom JVP rule, as `jax.custom_jvp`.

    >>> import stridex as sx
    >>> @sx.custom_jvp
    ... def log1pexp(x):
    ...     return sx.log(1.0 + sx.exp(x))
    >>> @log1pexp.defjvp
    ... def log1pexp_jvp(primals, tangents):
    ...     (x,), (t,) = primals, tangents
    ...     return log1pexp(x), t * (1.0 - 1.0 / (1.0 + sx.exp(x)))
    >>> sx.grad(log1pexp)(sx.asarray(100.0))
    Array(1.)

    The rule `jvp(*nondiff_args, primals, tangents) -> (primal_out, tangent_out)` must be linear in the
    tangents: reverse mode (`grad`, `vjp`, `jacrev`) transposes it. The function's body is traced to a
    sub-program under a transformation, so Python decisions on its values are errors there.
    """

    def __init__(self, fun: Callable[P, R], nondiff_argnums: Sequence[int] = ()) -> None:
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.nondiff_argnums = tuple(nondiff_argnums)
        self.jvp: Callable[..., Any] | None = None

    def defjvp(self, jvp: Callable[..., Any], symbolic_zeros: bool = False) -> Callable[..., Any]:
        """Set the JVP rule; returns it (so it can be used as a decorator)."""
        if symbolic_zeros:
            raise NotImplementedError("custom_jvp.defjvp: symbolic_zeros=True is not supported; zero tangents are "
                                      "passed as arrays of zeros")
        self.jvp = jvp
        return jvp

    def defjvps(self, *tangent_fns: Callable[..., Any] | None) -> None:
        """Set the JVP rule from one function per argument, `tangent_fn(t, primal_out, *primals)` (None: no
        dependence on that argument), summed."""
        if self.nondiff_argnums:
            raise TypeError("custom_jvp.defjvps does not support nondiff_argnums; use defjvp")

        def jvp(primals, tangents):
            out = self(*primals)
            parts = [fn(t, out, *primals) for fn, t in zip(tangent_fns, tangents) if fn is not None]
            if not parts:
                return out, _tree.tree_map(_zero, out)
            leaves, treedef = _tree.flatten(parts[0])
            for part in parts[1:]:
                leaves = [a + b for a, b in zip(leaves, _tree.flatten_up_to(treedef, part))]
            return out, _tree.unflatten(treedef, leaves)

        self.defjvp(jvp)

    def __get__(self, obj: Any, objtype: Any = None) -> Any:
        return self if obj is None else functools.partial(self, obj)

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R:
        if self.jvp is None:
            raise AttributeError(f"No JVP defined for custom_jvp function {_fun_name(self.fun)} using defjvp.")
        if not kwargs and current_trace() is None:
            # Eagerly, with nothing to differentiate, the bind below would call the function on its flattened
            # arguments and rebuild its output: the function itself, without the 15-20 us of that detour (an eager
            # `sx.nn.relu` took 20 us against 1.5 us for its `maximum`).
            return self.fun(*args)  # type: ignore[call-arg]  # (P's keyword part is empty here)
        name = _fun_name(self.fun)
        args = _resolve(self.fun, args, kwargs, f"custom_jvp function {name}")
        c = _Call(args, _nondiff(self.nondiff_argnums, len(args), f"custom_jvp function {name}"))
        fun, rule = self.fun, self.jvp

        def call(*leaves):
            out_leaves, out_def = _tree.flatten(fun(*c.args(leaves)))
            c.set_out(out_def, f"custom_jvp function {name}")
            return out_leaves

        def jvp(xs, ts):
            primals, tangents = _tree.unflatten(c.in_def, xs), _tree.unflatten(c.in_def, ts)
            result = rule(*c.nondiff_values(), primals, tangents)
            if not isinstance(result, (tuple, list)) or len(result) != 2:
                raise TypeError(f"Custom JVP rule of {name} must return a pair (primal_out, tangent_out), got "
                                f"{type(result).__name__}")
            outs, out_def = _tree.flatten(result[0])
            touts, tout_def = _tree.flatten(result[1])
            if out_def != tout_def:
                raise TypeError(f"Custom JVP rule of {name} must produce primal and tangent outputs with equal "
                                f"container (pytree) structures, but got {out_def} and {tout_def} respectively.")
            for o, t in zip(outs, touts):
                if isinstance(t, Array) and value_aval(t).shape != value_aval(o).shape:
                    raise ValueError(f"Custom JVP rule of {name} must produce primal and tangent outputs of equal "
                                     f"shapes, but got {value_aval(o).shape} and {value_aval(t).shape}")
            c.set_out(out_def, f"the JVP rule of {name}")
            return outs, touts

        outs = custom_jvp_call.bind(*c.leaves, call=Fn(call, name), jvp=Fn(jvp, f"{name}_jvp", key=self), num_consts=0,
                                    num_writes=0, name=name)
        return _tree.unflatten(c.out_def, list(outs))  # type: ignore[return-value]  # (the tree `fun` returned: an R)


class custom_vjp(Generic[P, R]):
    """A function with a custom VJP rule, as `jax.custom_vjp`: `fwd(*args) -> (out, residuals)` and
    `bwd(*nondiff_args, residuals, cotangent) -> one cotangent per (differentiable) argument`, None for zero.

    >>> import stridex as sx
    >>> @sx.custom_vjp
    ... def clip_gradient(x):
    ...     return x
    >>> clip_gradient.defvjp(lambda x: (x, None), lambda res, g: (sx.clip(g, -1.0, 1.0),))
    >>> sx.grad(lambda x: 5.0 * clip_gradient(x))(sx.asarray(2.0))
    Array(1.)

    Forward mode (`jvp`, `jacfwd`) is a TypeError, as in JAX.
    """

    def __init__(self, fun: Callable[P, R], nondiff_argnums: Sequence[int] = ()) -> None:
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.nondiff_argnums = tuple(nondiff_argnums)
        self.fwd: Callable[..., Any] | None = None
        self.bwd: Callable[..., Any] | None = None

    def defvjp(self, fwd: Callable[..., Any], bwd: Callable[..., Any], symbolic_zeros: bool = False,
               optimize_remat: bool = False) -> None:
        if symbolic_zeros:
            raise NotImplementedError("custom_vjp.defvjp: symbolic_zeros=True is not supported")
        self.fwd, self.bwd = fwd, bwd

    def __get__(self, obj: Any, objtype: Any = None) -> Any:
        return self if obj is None else functools.partial(self, obj)

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R:
        name = _fun_name(self.fun)
        if self.fwd is None:
            raise AttributeError(f"No VJP defined for custom_vjp function {name} using defvjp.")
        args = _resolve(self.fun, args, kwargs, f"custom_vjp function {name}")
        c = _Call(args, _nondiff(self.nondiff_argnums, len(args), f"custom_vjp function {name}"))
        fun, fwd_rule, bwd_rule = self.fun, self.fwd, self.bwd
        res_def: list[Any] = []

        def call(*leaves):
            out_leaves, out_def = _tree.flatten(fun(*c.args(leaves)))
            c.set_out(out_def, f"custom_vjp function {name}")
            return out_leaves

        def fwd(*leaves):
            result = fwd_rule(*c.args(leaves))
            if not isinstance(result, (tuple, list)) or len(result) != 2:
                raise TypeError(f"Custom VJP fwd rule of {name} must return a pair (output, residuals), got "
                                f"{type(result).__name__}")
            outs, out_def = _tree.flatten(result[0])
            c.set_out(out_def, f"the fwd rule of {name}")
            res, rdef = _tree.flatten(result[1])
            res_def[:] = [rdef]
            return outs, res

        def bwd(res, cts):
            grads = bwd_rule(*c.nondiff_values(), _tree.unflatten(res_def[0], res), _tree.unflatten(c.out_def, cts))
            if not isinstance(grads, (tuple, list)) or len(grads) != len(c.diff):
                raise TypeError(f"Custom VJP bwd rule of {name} must produce a tuple of length equal to the number "
                                f"of primal (non-nondiff) arguments ({len(c.diff)}), got "
                                f"{len(grads) if isinstance(grads, (tuple, list)) else type(grads).__name__}")
            flat = []
            for k, (arg, g) in enumerate(zip(c.diff, grads)):
                arg_def = _tree.flatten(arg)[1]
                if g is None:
                    flat.extend([None] * _tree.num_leaves(arg_def))
                    continue
                try:
                    flat.extend(_tree.flatten_up_to(arg_def, g))
                except ValueError as e:
                    raise TypeError(f"Custom VJP bwd rule of {name}: the cotangent for argument {k} does not match "
                                    f"its structure: {e}") from None
            return flat

        outs = custom_vjp_call.bind(*c.leaves, call=Fn(call, name), fwd=Fn(fwd, f"{name}_fwd", key=self),
                                    bwd=Fn(bwd, f"{name}_bwd", key=self), num_consts=0, num_writes=0, name=name)
        return _tree.unflatten(c.out_def, list(outs))  # type: ignore[return-value]  # (the tree `fun` returned: an R)


# --- checkpoint --------------------------------------------------------------------------------------------


class Policy:
    """Which values of a checkpointed function the forward pass saves for the backward pass (the rest are
    recomputed): everything, nothing (but the inputs), values marked with `checkpoint_name`, or the results
    of matrix products."""

    __slots__ = ("dots", "everything", "exclude", "names", "text")

    def __init__(self, text: str, *, everything=False, names=frozenset(), exclude=False, dots=None):
        self.text = text
        self.everything = everything
        self.names = frozenset(names)
        self.exclude = exclude
        self.dots = dots  # None, "all" or "no batch dims"

    def saves(self, name) -> bool:
        return self.everything or ((name not in self.names) if self.exclude else (name in self.names))

    def saves_eqn(self, eqn) -> bool:
        """Whether the forward pass saves this equation's outputs."""
        if eqn.prim is name_p:
            return self.saves(eqn.params["name"])
        if self.dots is not None and eqn.prim.name == "dot_general":
            return self.dots == "all" or not eqn.params["dimension_numbers"][1][0]
        return False

    def __repr__(self):
        return self.text


everything_saveable = Policy("everything_saveable", everything=True)
nothing_saveable = Policy("nothing_saveable")


dots_saveable = Policy("dots_saveable", dots="all")
dots_with_no_batch_dims_saveable = Policy("dots_with_no_batch_dims_saveable", dots="no batch dims")


def save_only_these_names(*names) -> Policy:
    """Save the values marked with `checkpoint_name(x, name)` for these names; recompute the rest."""
    return Policy(f"save_only_these_names{tuple(sorted(names))}", names=names)


def save_any_names_but_these(*names) -> Policy:
    """Save every value marked with `checkpoint_name`, except those with these names."""
    return Policy(f"save_any_names_but_these{tuple(sorted(names))}", names=names, exclude=True)


class checkpoint_policies:
    """The policies `checkpoint(policy=...)` takes (the names of `jax.checkpoint_policies`)."""

    everything_saveable = everything_saveable
    nothing_saveable = nothing_saveable
    dots_saveable = checkpoint_dots = dots_saveable
    dots_with_no_batch_dims_saveable = checkpoint_dots_with_no_batch_dims = dots_with_no_batch_dims_saveable
    save_only_these_names = staticmethod(save_only_these_names)
    save_any_names_but_these = staticmethod(save_any_names_but_these)


def checkpoint_name(x: T, name: str) -> T:
    """`x`, marked `name` for a checkpoint policy (`save_only_these_names`): the identity otherwise."""
    if current_trace() is None:
        return x
    return _tree.tree_map(lambda v: name_p.bind(v, name=name) if isinstance(v, Array) else v, x)


@overload
def checkpoint(fun: Callable[P, R], *, prevent_cse: bool = True, policy: Any = None,
               static_argnums: int | Sequence[int] = ()) -> Callable[P, R]: ...
@overload
def checkpoint(fun: None = None, *, prevent_cse: bool = True, policy: Any = None,
               static_argnums: int | Sequence[int] = ()) -> Callable[[Callable[P, R]], Callable[P, R]]: ...
def checkpoint(fun: Callable[P, R] | None = None, *, prevent_cse: bool = True, policy: Any = None,
               static_argnums: int | Sequence[int] = ()) -> Any:
    """`fun`, rematerialised under reverse mode, as `jax.checkpoint` (alias `remat`).

    Under `grad`/`vjp` the forward pass keeps only the function's inputs and outputs (and, with a `policy`, the
    values it saves); the backward pass recomputes the rest. Values are those of `fun` itself.

    >>> import stridex as sx
    >>> f = sx.checkpoint(lambda x: sx.sin(sx.sin(x)))
    >>> float(sx.grad(f)(sx.asarray(0.5))) == float(sx.grad(lambda x: sx.sin(sx.sin(x)))(sx.asarray(0.5)))
    True
    """
    if fun is None:
        return lambda f: checkpoint(f, prevent_cse=prevent_cse, policy=policy, static_argnums=static_argnums)
    policy = nothing_saveable if policy is None else policy
    if not isinstance(policy, Policy):
        raise TypeError(f"checkpoint: policy must be one of stridex.checkpoint_policies, got {policy!r}")
    statics = (static_argnums,) if isinstance(static_argnums, int) else tuple(static_argnums)
    name = _fun_name(fun)

    @functools.wraps(fun)
    def checkpointed(*args, **kwargs):
        args = _resolve(fun, args, kwargs, f"checkpoint of {name}")
        c = _Call(args, _nondiff(statics, len(args), f"checkpoint of {name}") if statics else ())

        def call(*leaves):
            out_leaves, out_def = _tree.flatten(fun(*c.args(leaves)))
            c.set_out(out_def, f"checkpointed function {name}")
            return out_leaves

        outs = checkpoint_p.bind(*c.leaves, call=Fn(call, name), policy=policy, prevent_cse=bool(prevent_cse),
                                 num_consts=0, num_writes=0, name=name)
        return _tree.unflatten(c.out_def, list(outs))

    return checkpointed


remat = checkpoint
