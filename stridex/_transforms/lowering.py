"""Lowering: a stridex Program as a function of JAX values, by the executor layer's one driver (`lower.program`)."""

from __future__ import annotations

from stridex._exec import lower
from stridex._exec.jax_bridge import lowering_program
from stridex._exec.lower import LoweringContext, Step
from stridex._transforms.ir import InternalError, Literal, Program


class LoweringError(Exception):
    """A primitive has no lowering, or its lowering returned the wrong shape or dtype."""


def lower_program(program: Program):
    """A function (*constants, *inputs) -> list of outputs, built from the primitives' JAX rules."""
    for eqn in program.eqns:
        if eqn.prim.lower is None:
            raise LoweringError(f"primitive {eqn.prim.name} has no JAX lowering yet")
    binders = [v for v, _ in program.constants] + list(program.inputs)
    n_constants = len(program.constants)
    index = {id(v): i for i, v in enumerate(binders)}

    def at(v):
        """The environment index of variable `v` (a Literal is a constant of the program)."""
        if isinstance(v, Literal):
            return v
        try:
            return index[id(v)]
        except KeyError:  # (`jit` verifies every program it lowers: a program that reaches this is a bug)
            raise InternalError(f"stridex internal error: lowering met {v!r}, which nothing in the program "
                                f"defines. This is a bug in stridex; please report it with this program:\n"
                                f"{program}") from None

    steps = []
    for eqn in program.eqns:
        ctx = LoweringContext([v.aval for v in eqn.inputs], [v.aval for v in eqn.outputs])
        steps.append(Step(eqn.prim, eqn.params, tuple(at(v) for v in eqn.inputs), ctx))
        for v in eqn.outputs:
            index[id(v)] = len(index)
    outputs = tuple(at(v) for v in program.outputs)

    def check(step, outs):
        for aval, value in zip(step.ctx.avals_out, outs):
            if tuple(value.shape) != aval.shape or value.dtype != aval.dtype.np:
                raise LoweringError(
                    f"the lowering of {step.prim.name} returned {value.dtype}{list(value.shape)}, "
                    f"but its abstract rule says {aval}")

    run_steps = lower.program(steps, outputs, check)

    def run(*args):
        with lowering_program(args[n_constants:]):
            return run_steps(args)

    return run
