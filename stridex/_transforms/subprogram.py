"""The sub-program tracer: how every higher-order primitive turns a Python function into a sub-program of the IR.

`cond`/`switch`, `while_loop`/`fori_loop`, `scan` (`control_flow.py`), `custom_jvp`, `custom_vjp` and
`checkpoint` (`custom.py`) trace their Python functions here, once each, with `trace_function`, into a
`SubprogramTrace` whose `parent` is the trace the primitive is bound to.

Closure conversion: an array the function reads from outside (closed over, a branch's operand) becomes an
explicit input of the sub-program, keyed by its base buffer (`tracing.Buffer`), so views of one array share
one input, and each view is replayed inside from that input. Those inputs are the `closure`, in order of first
use; the primitive passes their outer values as operands.

The writes-inside-bodies rule: a function that writes into an array from outside (or a view of it) writes into
that input functionally, as any traced write. The bases it wrote (`SubprogramTrace.written`) are inputs and
outputs of the sub-program both: extra carry of a loop, extra outputs of a branch or of a custom-rule or
checkpointed call; once the primitive is bound, `write_outer` gives each outer base its new value, so every
view of it re-reads the newest version, as the same Python code would have written it eagerly. Whether the
array may be written at all is the outer trace's decision (`Trace.writable_target`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from stridex._core import tree as _tree
from stridex._core.array import Array
from stridex._core.avals import ShapedArray
from stridex._core.state import current_trace, push
from stridex._lax.array_indexing import assign
from stridex._transforms.ir import Program, Var, print_program
from stridex._transforms.tracing import (DataDependentShapeError, JitTrace, Tracer, TracerArrayConversionError,
                                        WrittenRegion, conversion_site, user_frame)


class SubProgram(Program):
    """A Program a higher-order primitive holds in its parameters, built from a `trace_function` trace: printed
    indented under its equation."""

    __slots__ = ()

    def __str__(self):
        return print_program(self).replace("\n", "\n        ")

    __repr__ = __str__


class Closure(NamedTuple):
    """One base array from outside that a sub-program reads (or writes): `key` names its base buffer, `outer` is
    that base as a value of the parent trace (the operand the primitive passes), `inner` its input tracer here."""

    key: int
    outer: Any
    inner: Tracer

    @property
    def written(self) -> bool:
        return bool(self.inner._buffer.version)

    @property
    def initial(self) -> Var:
        """The sub-program's input for this base."""
        return self.inner._buffer.initial_var

    @property
    def final(self) -> Var:
        """The base's value once the function ran (its input, where nothing wrote it)."""
        return self.inner._buffer.var


class SubprogramTrace(JitTrace):
    """Records one function (a loop body, a branch, a function with custom rules, a checkpointed function) into
    a sub-program. Values from outside become inputs, one per base buffer (`closure`); graph breaks are not
    available inside."""

    kind = "sub-program"

    def __init__(self, parent, what: str, operands=()):
        super().__init__(False, None)
        self.parent = parent  # the trace the primitive is bound to (None: eager)
        self.what = what  # "the body_fun `step` of fori_loop": named in errors
        self.operands = operands  # the values the primitive passes for the inputs (a loop's initial carry)
        self.closure: dict[int, Closure] = {}  # key -> its entry, in order of first use
        self._inner: dict = {}  # id(outer value) -> (outer value, inner tracer)

    def device_of(self, tracer):
        """Where the primitive that runs this sub-program runs, and so where a rule's constants must go
        (`ops.constant(like=...)`: the index arrays of a write through a diagonal view, say): the device of the
        outside arrays it reads, its operands or its closure (under grad or vmap of device arrays, or eagerly);
        the host when none lives on a device, as inside jit (where a program runs is decided per call)."""
        for value in (*self.operands, *(entry.outer for entry in self.closure.values())):
            if isinstance(value, Array):
                device = value.device
                if not device.is_host:
                    return device
        return super().device_of(tracer)

    # --- errors --------------------------------------------------------------------------------
    def concretization_message(self, tracer, conversion) -> str:
        where = conversion_site() if conversion.error is TracerArrayConversionError else user_frame()
        return (f"{conversion.name} needs a concrete value, but this array is traced ({tracer._aval}) inside "
                f"{self.what}, at {where}.\nA loop body, a branch, a function with custom rules or a checkpointed "
                "function is traced once into a sub-program (a loop body for all its iterations), so Python "
                "control flow and NumPy cannot see its values, and graph breaks are not available inside it (only "
                "around it). Ways out: express the decision with `where` or `cond` and the computation with stridex "
                "operations, or compute it outside.")

    def data_dependent(self, prim, args, params):
        raise DataDependentShapeError(
            f"{prim.name} has an output shape that depends on the values of its input, inside {self.what} at "
            f"{user_frame()}: a sub-program has one set of shapes (every iteration of a loop, every branch). Use a "
            "fixed-size alternative (e.g. `where` instead of boolean-mask indexing), or call it outside.")

    # --- values from outside -------------------------------------------------------------------
    def inner(self, x) -> Tracer:
        """The tracer of this trace standing for an outside array `x` (a view of its base's input)."""
        entry = self._inner.get(id(x))
        if entry is not None:
            return entry[1]
        if isinstance(x, Tracer) and x._trace.finished:
            x._check_live("an operation")
        if self.parent is None:  # (eager: the array itself is the base)
            chain: tuple = ()
            key, outer_base, aval = id(x), x, ShapedArray(x.shape, x.dtype)
            view = x._storage_view()[1] if x.size else None
        else:
            with push(self.parent):
                outer = self.parent.to_tracer(x)
            buffer = outer._buffer
            key, aval, view, chain = id(buffer), buffer.aval, buffer.view, outer._chain
            outer_base = outer if not chain else Tracer(self.parent, buffer.aval, buffer.var, buffer, (), buffer.view)
        entry = self.closure.get(key)
        if entry is None:
            result = self.preset(key, outer_base, ShapedArray(aval.shape, aval.dtype, aval.weak_type), view)
        else:
            result = entry.inner
        for prim, params in chain:
            result = prim.bind(result, **params)
        self._inner[id(x)] = (x, result)
        return result

    def preset(self, key, outer_base, aval, view) -> Tracer:
        """The input for the base `key` (made before tracing for a loop's written base, read by its cond_fun)."""
        base = self.new_input(aval, view)
        self.closure[key] = Closure(key, outer_base, base)
        return base

    def to_tracer(self, x) -> Tracer:
        if isinstance(x, Tracer) and x._trace is self:
            return x
        if isinstance(x, Array):
            return self.inner(x)
        return super().to_tracer(x)

    def lift(self, x):
        if isinstance(x, Array):
            return self.read(self.inner(x))
        return super().lift(x)

    def writable_target(self, target) -> Tracer:
        if isinstance(target, Tracer) and target._trace is self:
            return target
        if self.parent is not None:  # the trace outside decides whether this array may be written
            with push(self.parent):
                target = self.parent.writable_target(target)
        return self.inner(target)

    def output(self, x):
        """The program output for a value the function returned (an array from outside becomes its input's
        view; a Python scalar a literal)."""
        if isinstance(x, Array):
            return self.read(self.to_tracer(x))
        return super().lift(x)

    # --- the writes-inside-bodies rule ---------------------------------------------------------------
    def read_only(self) -> list[Closure]:
        """The bases from outside the function read and did not write: operands of the primitive alone."""
        return [e for e in self.closure.values() if not e.written]

    def written(self) -> list[Closure]:
        """The bases from outside the function wrote into: operands and outputs of the primitive both."""
        return [e for e in self.closure.values() if e.written]


class Traced(NamedTuple):
    """A function traced by `trace_function`: its trace, its input tracers, what it returned (flat leaves and
    their tree structure) and the program outputs for those leaves. An input's program variable is
    `tracer._buffer.initial_var` (its `_var` moves on when the function writes into it)."""

    trace: SubprogramTrace
    inputs: list
    leaves: list
    treedef: Any
    out_vars: list


def trace_function(parent, what: str, fn: Callable, in_avals, in_views=None, presets=(), operands=()) -> Traced:
    """Run `fn(*inputs)` (one input per aval) in a new `SubprogramTrace` whose parent is `parent`. `presets`
    are (key, outer base, aval, view) of closure inputs made before the others (see `SubprogramTrace.preset`).
    `operands` are the values the primitive will pass for the inputs, where known (they say where it runs).
    `what` names the function in errors."""
    trace = SubprogramTrace(parent, what, tuple(operands))
    inputs = [trace.new_input(a, v) for a, v in zip(in_avals, in_views or [None] * len(in_avals))]
    for key, outer_base, aval, view in presets:
        trace.preset(key, outer_base, aval, view)
    with push(trace):
        try:
            out = fn(*inputs)
            leaves, treedef = _tree.flatten(out)
            out_vars = [trace.output(x) for x in leaves]
        finally:
            trace.finished = True
    return Traced(trace, inputs, leaves, treedef, out_vars)


def write_outer(outer_base, value, inner_buffers) -> None:
    """After a primitive: the outer base array takes its new value (its views re-read it when next used).

    `inner_buffers` are the bases inside the sub-programs (bodies, branches) that wrote it: where each write
    landed is recorded on the outer base too, so that `jit` writes back into the caller's array only the parts
    written (`handover.write_plan`), as for a write outside a sub-program. A write whose index arrays live
    inside the sub-program cannot be named outside it: then all of the base counts as written."""
    trace = current_trace()
    if isinstance(outer_base, Tracer) and outer_base._trace is trace and trace is not None:
        buffer = outer_base._buffer
        buffer.var = trace.read(trace.to_tracer(value))
        buffer.version += 1
        whole = WrittenRegion((), (("ellipsis",),), ())
        regions: list[WrittenRegion] = []
        for inner in inner_buffers:
            regions += [w if not w.indices else whole for w in inner.writes] if inner.writes else [whole]
        if buffer.writes is None:
            buffer.writes = []
        buffer.writes.extend(regions)
    else:
        assign.bind(outer_base, value, template=(("ellipsis",),))


def output_dependencies(program: Program) -> list:
    """For each output of `program`, the set of input positions it depends on."""
    position = {id(v): {i} for i, v in enumerate(program.inputs)}
    for eqn in program.eqns:
        deps = set().union(*[position.get(id(v), set()) for v in eqn.inputs if isinstance(v, Var)])
        for v in eqn.outputs:
            position[id(v)] = deps
    return [position.get(id(v), set()) if isinstance(v, Var) else set() for v in program.outputs]


__all__ = ["Closure", "SubProgram", "SubprogramTrace", "Traced", "output_dependencies", "trace_function",
           "write_outer"]
