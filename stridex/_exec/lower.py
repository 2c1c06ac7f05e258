"""Lowering primitive records to `jax.lax`: the one driver (`program`), and the compiled executables it feeds.

Every path that runs a primitive's JAX lowering goes through `program`: an eager operation on a device (one step,
`device.run`), a write into a device buffer (`device._write`), a pass of eager fusion on a device (its records in
order), a `jit` program (its equations, `stridex._transforms.lowering`), and the host's compiled eager programs
(`stridex._exec.compiled`). A primitive's `lower` rule therefore has one caller, `_run_steps`.

The executables of the eager executors are `Executable`s, made by `compile` (the one `jax.jit(...).lower(...)
.compile()` of the layer) and kept in the caches of `stridex._core.caches` (one `ProgramCache` per kind: bounded,
counted, emptied by `sx.clear_caches()`). `jit` keeps its own entries (signatures, guards) in its per-function
caches of the same kind.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from stridex._exec.jax_bridge import LoweringContext, jax, x64

__all__ = ["Const", "Executable", "LoweringContext", "Step", "compile", "program", "settle"]


class Const(NamedTuple):
    """A step's input that is a constant of the program (a Python scalar compiled in), not a value of the
    environment. (Anything with a `value` that is not an int serves: the IR's `Literal` too.)"""

    value: Any


class Step(NamedTuple):
    """One primitive application in a program to lower: `prim.lower(ctx, *inputs, **params)`, each input the
    index of a value in the environment (the program's inputs, then every step's outputs in order) or a constant
    (`Const`, the IR's `Literal`); `dynamic` names params whose value is in the environment ((name, index): a
    primitive's value params passed as arguments, `Primitive.values`)."""

    prim: Any
    params: dict
    inputs: tuple
    ctx: LoweringContext
    dynamic: tuple = ()


def program(steps: list, outputs: tuple, check=None):
    """The function (list of input values) -> list of output values that runs `steps` by their lowering rules;
    `outputs` are indices into the environment (or constants). `check(step, outs)`, if given, is called on every
    step's outputs (`jit`'s verification of the rules against their abstract evaluation)."""
    steps = list(steps)

    def run(values):
        return _run_steps(steps, list(values), outputs, check)

    return run


def _run_steps(steps, env: list, outputs, check):
    """The one caller of primitives' lowering rules."""
    for step in steps:
        prim = step.prim
        args = [env[i] if type(i) is int else i.value for i in step.inputs]
        params = step.params
        if step.dynamic:
            params = {**params, **{name: env[i] for name, i in step.dynamic}}
        out = prim.lower(step.ctx, *args, **params)
        outs = tuple(out) if prim.multiple_results else (out,)
        if check is not None:
            check(step, outs)
        env.extend(outs)
    return [env[i] if type(i) is int else i.value for i in outputs]


class Executable:
    """A compiled eager program in a `ProgramCache`: `call` runs it (replaced by the C++ call JAX's `Compiled`
    makes on its first call once `settled`), `layouts` gives each output's (View, dtype) where the caller adopts
    them (None for a write, which returns its target), `wide` whether it must be called in JAX's 64-bit scope
    (a host program with a 64-bit input)."""

    __slots__ = ("call", "layouts", "settled", "wide")

    def __init__(self, call, layouts: tuple | None = None, wide: bool = False, settled: bool = False):
        self.call = call
        self.layouts = layouts
        self.wide = wide
        self.settled = settled


def settle(entry: Executable, call) -> None:
    """After the first call of `call`, JAX's `Compiled`: its C++ call replaces it in the entry (a Python frame less
    on every later call)."""
    entry.call = getattr(call, "_call", None) or call
    entry.settled = True


def compile(function, examples, *, donate: tuple = (), compiler_options=None, **options):  # noqa: A001
    """`function` (of JAX values) compiled for `examples` (its arguments), in JAX's 64-bit scope: the executor
    layer's one `jax.jit(...).lower(...).compile()`. `options` go to `jax.jit` (`keep_unused`, `out_shardings`)."""
    if donate:
        options["donate_argnums"] = donate
    with x64():
        lowered = jax().jit(function, **options).lower(*examples)
        return lowered.compile(compiler_options=compiler_options) if compiler_options else lowered.compile()
