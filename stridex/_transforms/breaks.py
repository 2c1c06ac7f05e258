"""Graph breaks under `jit`: what a trace does when the traced Python needs a value it cannot know.

Real library code converts traced values to Python (`if xp.any(x < 0): raise ...`, `float(xp.max(x))`,
`np.asarray(x)`) and calls operations whose output shape depends on the data (`unique_*`, `nonzero`,
boolean masks, `repeat` with array repeats). At such a *break*, the jit trace evaluates what it recorded
so far on the call's actual arguments (with the eager interpreter, so every decision is the one eager
execution would make), hands the concrete value to the Python code, and records a *guard*: the traced
value the decision rests on and the value observed. Tracing then goes on: one program per path through
the function, with the guarded values among its outputs.

A later call runs the compiled path and checks its guards on the outputs before anything is written
back; if one fails (the data took another branch, a data-dependent length changed), no effect of the run
is kept and `jit` runs the path recorded for the outcomes observed, tracing it first if it has none.
"""

from __future__ import annotations

import numpy as np

from stridex._core import dtypes as _dtypes
from stridex._core.array import Array
from stridex._core.state import push
from stridex._exec import jax_bridge
from stridex._lax.callbacks import effects_suppressed
from stridex._transforms.ir import Literal

# Breaks one trace may take before `jit` gives up on compiling the call (a loop whose trip count depends
# on the data breaks once per iteration) and runs it eagerly instead, with a warning.
MAX_BREAKS = 64
# Paths (programs for different break outcomes) kept per signature, least recently used dropped first.
MAX_PATHS = 32


class TooManyBreaks(Exception):
    """A trace took more than MAX_BREAKS breaks; `jit` runs the call eagerly."""

    def __init__(self, where: str):
        super().__init__(where)
        self.where = where


class GuardFailure(Exception):
    """A compiled path's guard did not hold for this call: `index` is the first failing guard; `observed` the
    values of guards 0..index in this call (valid: each depends only on what precedes it)."""

    def __init__(self, index: int, observed: list):
        super().__init__(index)
        self.index = index
        self.observed = observed


class Guard:
    """A decision the traced Python took on a traced value: `var` (the IR variable holding the value, an
    output of the path's program), `expected` (its value when traced, a NumPy array), `what` (the
    conversion or the data-dependent operation) and `where` (the user's source line)."""

    __slots__ = ("expected", "output", "var", "what", "where")

    def __init__(self, var, expected: np.ndarray, what: str, where: str):
        self.var = var
        self.expected = expected
        self.what = what
        self.where = where
        self.output = None  # the program output holding the value, set when the program is assembled

    def __repr__(self):
        return f"Guard({self.what} at {self.where}: {summary(self.expected)})"


def summary(value: np.ndarray) -> str:
    if value.size <= 4:
        return repr(value.tolist()) if value.ndim else repr(value.item())
    return f"{value.dtype}{list(value.shape)} array"


def same_value(a: np.ndarray, b: np.ndarray) -> bool:
    """Equal shapes, dtypes and values, NaN equal to NaN (XLA and NumPy may differ in a NaN's bits) and the
    sign of zero significant (a Python float taken from it would differ)."""
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if _dtypes.np_kind(a.dtype) not in "fc":  # (bfloat16 is a floating type NumPy files under "V")
        return bool(np.array_equal(a, b))
    if not np.array_equal(a, b, equal_nan=True):
        return False
    for x, y in ((a.real, b.real), (a.imag, b.imag)) if a.dtype.kind == "c" else ((a, b),):
        numbers = ~np.isnan(x)
        if not np.array_equal(np.signbit(x[numbers]), np.signbit(y[numbers])):
            return False
    return True


class Evaluator:
    """The concrete values of a trace's variables: program inputs and closed-over arrays as given, each
    recorded equation run by the eager interpreter when a value is first needed (in order, once)."""

    def __init__(self):
        self.values: dict[int, object] = {}
        self.done = 0  # equations evaluated so far

    def bind(self, var, value) -> None:
        self.values[id(var)] = value

    def value(self, var, eqns: list):
        if isinstance(var, Literal):
            return var.value
        if id(var) not in self.values:
            self._run(eqns)
        return self.values[id(var)]

    def _run(self, eqns: list) -> None:
        # The equations run eagerly, whatever trace is recording; their effects (a debug print) do not happen
        # here but when the compiled program runs, once.
        with push(None), effects_suppressed():
            for eqn in eqns[self.done:]:
                if all(id(v) in self.values for v in eqn.outputs):
                    continue  # (a data-dependent equation: evaluated when it was recorded)
                args = [v.value if isinstance(v, Literal) else self.values[id(v)] for v in eqn.inputs]
                out = eqn.prim.bind(*args, **eqn.params)
                for v, o in zip(eqn.outputs, out if eqn.prim.multiple_results else (out,)):
                    self.values[id(v)] = o
            self.done = len(eqns)


def hold(values: list, guards: list):
    """Whether every guard holds, computed in the program being lowered (a JAX boolean) from the guarded values
    (JAX values, one per guard): `same_value` written in JAX operations."""
    jnp = jax_bridge.jnp()
    ok = jnp.asarray(True)
    for value, guard in zip(values, guards):
        expected = guard.expected
        if _dtypes.np_kind(expected.dtype) in "fc":
            pairs = [(jnp.real(value), expected.real), (jnp.imag(value), expected.imag)] \
                if expected.dtype.kind == "c" else [(value, expected)]
            for x, e in pairs:
                same = (x == e) & (jnp.signbit(x) == np.signbit(e)) | (jnp.isnan(x) & np.isnan(e))
                ok = ok & jnp.all(same)
        else:
            ok = ok & jnp.all(value == expected)
    return ok


def snapshot(value) -> np.ndarray:
    """A guard's expected value: a NumPy copy of a concrete array or Python scalar."""
    return np.array(value.__array__() if isinstance(value, Array) else value)
