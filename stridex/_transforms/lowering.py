"""Lowering: turn a stridex Program into a function of JAX values by calling each primitive's `lower` rule."""

from __future__ import annotations

from stridex._exec.jax_bridge import LoweringContext, lowering_program
from stridex._transforms.ir import InternalError, Literal, Program


class LoweringError(Exception):
    """A primitive has no lowering, or its lowering returned the wrong shape or dtype."""


def lower_program(program: Program):
    """A function (*constants, *inputs) -> list of outputs, built from the primitives' JAX rules."""
    contexts = [LoweringContext([v.aval for v in e.inputs], [v.aval for v in e.outputs]) for e in program.eqns]
    for eqn in program.eqns:
        if eqn.prim.lower is None:
            raise LoweringError(f"primitive {eqn.prim.name} has no JAX lowering yet")
    binders = [v for v, _ in program.constants] + list(program.inputs)
    n_constants = len(program.constants)

    def run(*args):
        with lowering_program(args[n_constants:]):
            return evaluate(args)

    def evaluate(args):
        env = {id(v): a for v, a in zip(binders, args)}

        def read(v):
            if isinstance(v, Literal):
                return v.value
            try:
                return env[id(v)]
            except KeyError:  # (`jit` verifies every program it lowers: a program that reaches this is a bug)
                raise InternalError(f"stridex internal error: lowering met {v!r}, which nothing in the program "
                                    f"defines. This is a bug in stridex; please report it with this program:\n"
                                    f"{program}") from None

        for eqn, ctx in zip(program.eqns, contexts):
            out = eqn.prim.lower(ctx, *[read(v) for v in eqn.inputs], **eqn.params)
            outs = out if eqn.prim.multiple_results else (out,)
            for v, value in zip(eqn.outputs, outs):
                if tuple(value.shape) != v.aval.shape or value.dtype != v.aval.dtype.np:
                    raise LoweringError(
                        f"the lowering of {eqn.prim.name} returned {value.dtype}{list(value.shape)}, "
                        f"but its abstract rule says {v.aval}")
                env[id(v)] = value
        return [read(v) for v in program.outputs]

    return run
