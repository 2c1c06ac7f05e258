"""Custom derivative rules lowered into a JAX trace (`sx.to_jax`): a custom call lowers to `jax.custom_jvp` /
`jax.custom_vjp` whose rules are stridex's, lowered too (installed into `custom.STAGE_FOR_JAX` and
`custom.LOWER_FOR_JAX` when this module is imported, as `to_jax` imports it)."""

from __future__ import annotations

import contextlib
import contextvars
from typing import NamedTuple

import numpy as np

from stridex._exec.jax_bridge import jax as _jax
from stridex._exec.jax_bridge import lax as _jax_lax
from stridex._exec.jax_bridge import x64 as _x64
from stridex._transforms.custom import (LOWER_FOR_JAX, STAGE_FOR_JAX, Fn, _check_writes, _closed_over_error, _lower,
                                        stage)
from stridex._transforms.ir import Program, Var
from stridex._transforms.lowering import lower_program
from stridex._transforms.passes import dead_code_elimination
from stridex._transforms.subprogram import SubProgram

# `sx.jit` differentiates before it lowers: a custom call reaching its lowering is the primal alone, inlined.
# Under `sx.to_jax` JAX differentiates the lowering, so there a custom call lowers to `jax.custom_jvp` /
# `jax.custom_vjp` whose rules are stridex's, lowered too. The rules are traced while `to_jax` traces its function
# (`_STAGE_FOR_JAX`, at the bind), while the values they close over are still live: those become leading
# inputs of the equation (after the function's own closure, whose count the staged rule keeps), unused by its
# sub-program. What a rule writes outside itself is dropped: JAX's rules cannot write, and a rule writes what it
# does by calling its function again, whose own writes the call keeps. A call met again while its own rule is
# being traced (`log1pexp`'s rule calls `log1pexp`) has its JVP rule traced only if JAX asks for it (a higher
# derivative), then on JAX's values (`_lazy_rule`); a custom_vjp call met so lowers to its function alone.

_TRACING_FOR_JAX = contextvars.ContextVar("stridex_custom_rules_traced_for_jax", default=False)
_LOWERING_FOR_JAX = contextvars.ContextVar("stridex_custom_rules_lowered_for_jax", default=None)
_STAGING = contextvars.ContextVar("stridex_custom_rules_being_staged", default=())


@contextlib.contextmanager
def tracing_for_jax():
    """The scope in which `to_jax` traces its function: custom calls bound in it trace their rules."""
    token = _TRACING_FOR_JAX.set(True)
    try:
        yield
    finally:
        _TRACING_FOR_JAX.reset(token)


@contextlib.contextmanager
def lowering_for_jax(as_jax):
    """The scope in which a program is lowered into a JAX trace that JAX may differentiate (`to_jax`): custom calls
    lower to `jax.custom_jvp` / `jax.custom_vjp` (64-bit types on, as in `to_jax`'s lowering). `as_jax(f, static,
    names)` makes a stridex function a JAX one (`to_jax`'s `ToJax`: a rule traced only when JAX asks for it)."""
    token = _LOWERING_FOR_JAX.set(as_jax)
    try:
        with _x64():
            yield
    finally:
        _LOWERING_FOR_JAX.reset(token)


class _JaxJVP(NamedTuple):
    """A JVP rule traced for JAX: `program(*rule_consts, *xs, *ts) -> (*outs, *touts)`."""

    program: Program
    call_consts: int  # the function's own closure (the first consts); the rule's follow


class _JaxVJP(NamedTuple):
    """fwd and bwd traced for JAX: `fwd(*fwd_consts, *xs) -> (*outs, *residuals)`,
    `bwd(*bwd_consts, *residuals, *cts) -> the cotangents that are not None` (`given` says which)."""

    fwd: Program
    bwd: Program
    call_consts: int
    fwd_consts: int
    given: tuple


def _stage_rule(trace, fn, args, avals, name):
    """`fn` traced as a sub-program of `trace` (`stage`); its closure's outer values are returned beside it."""
    key = getattr(fn, "key", None)
    token = _STAGING.set((*_STAGING.get(), key))
    try:
        staged = stage(fn, args, trace, name, avals)
    finally:
        _STAGING.reset(token)
    program = staged.program
    if staged.written:  # (a rule calling its function again writes what the function writes: the call's writes stand)
        kept = program.outputs[:len(program.outputs) - len(staged.written)]
        program = SubProgram(program.inputs, [], program.eqns, kept)
    return program, [e.outer for e in staged.closure], [e.initial.aval for e in staged.closure]


def _with_consts(args, params, n_before, outer, avals):
    """The equation's operands and its function with `outer` (of `avals`) put after the first `n_before` consts."""
    nc, call = params["num_consts"], params["call"]
    extra = [Var(a) for a in avals]
    call = SubProgram(list(call.inputs[:n_before]) + extra + list(call.inputs[n_before:]), list(call.constants),
                      call.eqns, call.outputs)
    args = (*args[:n_before], *outer, *args[n_before:])
    return args, {**params, "call": call, "num_consts": nc + len(outer)}


def _being_staged(*rules) -> bool:
    return any(r.staged is not None or (r.key is not None and r.key in _STAGING.get()) for r in rules)


def _stage_custom_jvp_for_jax(trace, args, params):
    jvp, nc = params["jvp"], params["num_consts"]
    if _being_staged(jvp):
        return args, params
    xs = list(args[nc:])
    n = len(xs)

    def rule(*xts):
        outs, touts = jvp(list(xts[:n]), list(xts[n:]))
        return list(outs) + list(touts)

    program, outer, avals = _stage_rule(trace, Fn(rule, jvp.name, jvp.key), xs + xs, None, f"the JVP rule of "
                                        f"{params['name']!r}")
    args, params = _with_consts(args, params, nc, outer, avals)
    return args, {**params, "jvp": Fn(jvp.fn, jvp.name, jvp.key, _JaxJVP(program, nc))}


def _stage_custom_vjp_for_jax(trace, args, params):
    fwd, bwd, nc, call = params["fwd"], params["bwd"], params["num_consts"], params["call"]
    if _being_staged(fwd, bwd):
        return args, params
    xs = list(args[nc:])
    n_out = len(call.outputs) - params["num_writes"]

    def forward(*xs):
        outs, res = fwd(*xs)
        return list(outs) + list(res)

    f_program, f_outer, f_avals = _stage_rule(trace, Fn(forward, fwd.name, fwd.key), xs, None,
                                              f"the fwd rule of {params['name']!r}")
    res_avals = [v.aval for v in f_program.outputs[n_out:]]
    ct_avals = [v.aval for v in call.outputs[:n_out]]
    given: list = []

    def backward(*rcs):
        cts = bwd(list(rcs[:len(res_avals)]), list(rcs[len(res_avals):]))
        given[:] = [c is not None for c in cts]
        return [c for c in cts if c is not None]

    b_program, b_outer, b_avals = _stage_rule(trace, Fn(backward, bwd.name, bwd.key), None, res_avals + ct_avals,
                                              f"the bwd rule of {params['name']!r}")
    args, params = _with_consts(args, params, nc, f_outer + b_outer, f_avals + b_avals)
    staged = _JaxVJP(f_program, b_program, nc, len(f_outer), tuple(given))
    return args, {**params, "fwd": Fn(fwd.fn, fwd.name, fwd.key, staged), "bwd": bwd}


class _Unstaged(NamedTuple):
    """A rule whose tracing failed (a Python decision on a traced value, a bwd returning the wrong structure): the
    error is raised if JAX asks for the rule, as stridex raises it only when it differentiates."""

    error: Exception
    call_consts: int


def _staged_or_deferred(stage_rules):
    """`stage_rules(trace, args, params)`, its error kept in the rule for JAX's first request (`_Unstaged`)."""

    def staging(trace, args, params):
        if not _TRACING_FOR_JAX.get():
            return args, params
        try:
            return stage_rules(trace, args, params)
        except Exception as e:  # noqa: BLE001  (any error of the user's rule: raised where JAX differentiates)
            rule = params["jvp" if "jvp" in params else "fwd"]
            unstaged = Fn(rule.fn, rule.name, rule.key, _Unstaged(e, params["num_consts"]))
            return args, {**params, ("jvp" if "jvp" in params else "fwd"): unstaged}

    return staging


STAGE_FOR_JAX.update({"custom_jvp_call": _staged_or_deferred(_stage_custom_jvp_for_jax),
                      "custom_vjp_call": _staged_or_deferred(_stage_custom_vjp_for_jax)})


def _symbolic_zero(t) -> bool:
    return isinstance(t, _jax().custom_derivatives.SymbolicZero) or getattr(t, "dtype", None) == _float0()


def _float0():
    return _jax().dtypes.float0


def _as_stridex_zero(t, like):
    """A JAX tangent or cotangent for stridex: a symbolic zero (or float0) as zeros of `like`'s type."""
    if _symbolic_zero(t):
        return np.zeros(like.shape, like.dtype)
    if t.dtype != like.dtype:
        return _jax_lax().convert_element_type(t, like.dtype)
    return t


def _for_jax(t, like):
    """A stridex tangent or cotangent as JAX wants it for a primal like `like`: float0 for integers and booleans."""
    if not np.issubdtype(like.dtype, np.inexact):
        return np.zeros(like.shape, _float0())
    return t if t.dtype == like.dtype else _jax_lax().convert_element_type(t, like.dtype)


def _like(aval) -> np.ndarray:
    """A (read-only, one-element) NumPy array of `aval`'s shape and dtype, as `_as_stridex_zero` and `_for_jax`
    read them."""
    return np.broadcast_to(np.zeros((), aval.dtype.np), aval.shape)


def _jax_written(call, num_writes, values) -> list:
    if not num_writes:
        return []
    program = dead_code_elimination(Program(call.inputs, [], call.eqns, call.outputs[-num_writes:]))
    return list(lower_program(program)(*values))


def _lazy_rule(rule: Fn, n: int, name: str, as_jax):
    """The JVP rule traced on JAX's values when JAX first asks for it (a rule met while its own rule was traced)."""
    if rule.lazy is None:
        def jvp_rule(xs, ts):
            outs, touts = rule(list(xs), list(ts))
            return list(outs), list(touts)
        jvp_rule.__name__ = name
        rule.lazy = as_jax(jvp_rule, (), ())
    return rule.lazy


def _lower_custom_jvp(ctx, *values, call, jvp, num_consts, num_writes, name):
    as_jax = _LOWERING_FOR_JAX.get()
    if as_jax is None:
        return _lower(ctx, *values, call=call)
    j = _jax()
    primal = lower_program(call)
    staged = jvp.staged
    call_consts = staged.call_consts if staged is not None else num_consts
    n_out = len(call.outputs) - num_writes

    def fun(*vals):
        with lowering_for_jax(as_jax):
            return tuple(primal(*vals))

    def rule(primals, tangents):
        if not all(_symbolic_zero(t) for t in tangents[:call_consts]):
            raise _closed_over_error(name, "JAX's differentiation (through sx.to_jax)")
        xs = list(primals[num_consts:])
        _check_writes(name, "JAX's differentiation (through sx.to_jax)", call, num_consts, num_writes,
                      [i for i, t in enumerate(tangents[num_consts:]) if not _symbolic_zero(t)])
        ts = [_as_stridex_zero(t, x) for t, x in zip(tangents[num_consts:], xs)]
        if isinstance(staged, _Unstaged):
            raise staged.error
        with lowering_for_jax(as_jax):
            if staged is not None:
                both = lower_program(staged.program)(*primals[call_consts:num_consts], *xs, *ts)
                outs, touts = list(both[:n_out]), list(both[n_out:])
            else:
                outs, touts = _lazy_rule(jvp, len(xs), f"{name}_jvp", as_jax)(xs, ts)
            outs = [_jax_lax().convert_element_type(o, a.aval.dtype.np) if o.dtype != a.aval.dtype.np else o
                    for o, a in zip(outs, call.outputs)]
            written = _jax_written(call, num_writes, primals)
        touts = [_for_jax(t, o) for t, o in zip(touts, outs)] + [np.zeros(w.shape, _float0())
                                                                 if not np.issubdtype(w.dtype, np.inexact)
                                                                 else _jax_lax().full_like(w, 0) for w in written]
        return tuple(outs) + tuple(written), tuple(touts)

    f = j.custom_jvp(fun)
    f.defjvp(rule, symbolic_zeros=True)
    return tuple(f(*values))


def _lower_custom_vjp(ctx, *values, call, fwd, bwd, num_consts, num_writes, name):
    staged = fwd.staged
    as_jax = _LOWERING_FOR_JAX.get()
    if as_jax is None or staged is None:  # (not staged: a fwd rule met inside its own rule's trace)
        return _lower(ctx, *values, call=call)
    j = _jax()
    primal = lower_program(call)
    n_out = len(call.outputs) - num_writes
    nc, fc = staged.call_consts, getattr(staged, "fwd_consts", 0)
    out_avals = [v.aval for v in call.outputs]
    what = "JAX's differentiation (through sx.to_jax)"

    def fun(*vals):
        with lowering_for_jax(as_jax):
            return tuple(primal(*vals))

    def forward(*prims):
        vals = [p.value for p in prims]
        if any(p.perturbed for p in prims[:nc]):
            raise _closed_over_error(name, what)
        _check_writes(name, what, call, num_consts, num_writes,
                      [i for i, p in enumerate(prims[num_consts:]) if p.perturbed])
        if isinstance(staged, _Unstaged):
            raise staged.error
        with lowering_for_jax(as_jax):
            both = lower_program(staged.fwd)(*vals[nc:nc + fc], *vals[num_consts:])
            written = _jax_written(call, num_writes, vals)
        outs = [o if o.dtype == a.dtype.np else _jax_lax().convert_element_type(o, a.dtype.np)
                for o, a in zip(both[:n_out], out_avals)]
        return tuple(outs) + tuple(written), (tuple(both[n_out:]), tuple(vals[nc + fc:num_consts]))

    def backward(residuals, cts):
        res, consts = residuals
        cts = [_as_stridex_zero(c, _like(a)) for c, a in zip(cts[:n_out], out_avals)]
        with lowering_for_jax(as_jax):
            grads = iter(lower_program(staged.bwd)(*consts, *res, *cts))
        result = [_for_jax(next(grads), _like(x.aval)) if given else None
                  for x, given in zip(call.inputs[num_consts:], staged.given)]
        return (None,) * num_consts + tuple(None if r is not None and r.dtype == _float0() else r for r in result)

    f = j.custom_vjp(fun)
    f.defvjp(forward, backward, symbolic_zeros=True)
    return tuple(f(*values))


LOWER_FOR_JAX.update({"custom_jvp_call": _lower_custom_jvp, "custom_vjp_call": _lower_custom_vjp})
