"""The tracing interpreter: `Tracer`s stand in for arrays and every bound primitive becomes an IR equation.

Writes are functionalised. Every tracer belongs to a `Buffer` (the value of a base array, as a chain of
versions) and carries the chain of view primitives that derives it from that base, plus its symbolic
`View` (so reshape-or-copy decisions are the ones eager execution makes). `x[idx] = v` becomes a
`scatter` into the current value of x, written back through the chain (each view primitive's
`write_back` rule) into a new version of the base; any tracer of the same buffer re-derives itself
from the newest version when next read.
"""

from __future__ import annotations

import operator
import os
import sys
from typing import NamedTuple

from stridex._core import dtypes as _dtypes
from stridex._core.array import Array
from stridex._core.avals import ShapedArray, aval_of
from stridex._core.state import TraceScope, push
from stridex._core.storage import NO_STORAGE
from stridex._core.view import View
from stridex._exec import device as _device
from stridex._exec import placement as _placement
from stridex._lax import ops
from stridex._lax.array_indexing import assign, boolean_gather, scatter
from stridex._transforms import breaks, handover
from stridex._transforms.ir import Eqn, Literal, Var

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # stridex/
_DEMO = os.path.join(_PACKAGE_DIR, "demo.py")  # the tour is user code


def _is_user(filename: str, also_skip: tuple[str, ...] = ()) -> bool:
    filename = os.path.abspath(filename)
    return (not filename.startswith(_PACKAGE_DIR + os.sep) or filename == _DEMO) and not filename.startswith(also_skip)


def user_frame(also_skip: tuple[str, ...] = ()) -> str:
    """'file:line' of the innermost frame outside stridex (the user's line that triggered an error), and outside
    the package directories `also_skip` (JAX's, for `to_jax`)."""
    frame = sys._getframe(1)
    while frame is not None:
        if _is_user(frame.f_code.co_filename, also_skip):
            return f"{frame.f_code.co_filename}:{frame.f_lineno}"
        frame = frame.f_back  # type: ignore[assignment]  # (None ends the walk)
    return "<unknown>"


_LIBRARY_DIRS = (os.sep + "site-packages" + os.sep, os.sep + "dist-packages" + os.sep,
                 os.path.dirname(os.__file__) + os.sep)


def conversion_site() -> str:
    """Where a value leaves stridex: the innermost frame outside stridex, and when that is library code (NumPy,
    SciPy: a function that converted its argument), also the user's line that called the library."""
    frame = sys._getframe(1)
    while frame is not None and not _is_user(frame.f_code.co_filename):
        frame = frame.f_back  # type: ignore[assignment]  # (None ends the walk)
    if frame is None:
        return "<unknown>"
    site = f"{frame.f_code.co_filename}:{frame.f_lineno}"
    caller = frame
    while caller is not None and (not _is_user(caller.f_code.co_filename)
                                  or any(d in os.path.abspath(caller.f_code.co_filename) for d in _LIBRARY_DIRS)):
        caller = caller.f_back  # type: ignore[assignment]  # (None ends the walk)
    if caller is None or caller is frame:
        return site
    return f"{site}, called from {caller.f_code.co_filename}:{caller.f_lineno}"


class TracingError(Exception):
    """Base class of errors that only arise while tracing."""


class ConcretizationError(TracingError, TypeError):
    """A traced value was needed as a concrete value (a Python bool/int/float/index, a NumPy array, DLPack).

    The base of JAX's two names below, which are what stridex raises."""


class ConcretizationTypeError(ConcretizationError):
    """A traced value was converted to a Python scalar (`bool`, `int`, `float`, `complex`, `operator.index`),
    exported over DLPack or pickled where its trace cannot give a value: JAX's name."""


class TracerArrayConversionError(ConcretizationError):
    """A traced value was converted to a NumPy array (`np.asarray`, `__array__`, a NumPy or SciPy function
    given it) where its trace cannot give a value: JAX's name."""


class Conversion(NamedTuple):
    """One way a value leaves stridex: `name` (as errors and graph breaks show it), `error` (the class raised
    where it has no value), `branch` (a Python decision on the value: allowed on a value that carries a
    derivative, whose primal decides it, as under `jax.grad`; every other conversion of such a value would
    give a constant whose derivative is silently zero, so it raises)."""

    name: str
    error: type
    branch: bool = False


BOOL = Conversion("bool()", ConcretizationTypeError, branch=True)
INT = Conversion("int()", ConcretizationTypeError)
FLOAT = Conversion("float()", ConcretizationTypeError)
COMPLEX = Conversion("complex()", ConcretizationTypeError)
INDEX = Conversion("operator.index (__index__: use as a Python integer)", ConcretizationTypeError)
NUMPY = Conversion("np.asarray (__array__: conversion to a NumPy array)", TracerArrayConversionError)
DLPACK = Conversion("__dlpack__ (DLPack export)", ConcretizationTypeError)
PICKLE = Conversion("pickling (or copy.copy)", ConcretizationTypeError)


class EscapedTracerError(TracingError, RuntimeError):
    """A tracer was used after the trace that made it had finished."""


class DataDependentShapeError(TracingError, ValueError):
    """An operation whose output shape depends on the data was traced."""


class Buffer:
    """The versions of one base value under tracing: `var` is its current value; writes bump `version`.

    `writes` (under `jit`, see `JitTrace.note_write`) lists where each write landed, so that the call writes
    back into the caller's memory only the parts written, never a stale copy of the rest."""

    __slots__ = ("aval", "initial_var", "var", "version", "view", "writes")

    def __init__(self, var, aval: ShapedArray, view: View):
        self.var = var
        self.initial_var = var
        self.version = 0
        self.aval = aval
        self.view = view
        self.writes: list[WrittenRegion] | None = None


class WrittenRegion(NamedTuple):
    """One write into a traced buffer: the chain of views from the buffer to the array written into, the
    key's template, and the key's index arrays (their IR values when written; empty for a basic key)."""

    chain: tuple
    template: tuple
    indices: tuple


class Tracer(Array):
    """An array inside a trace: what is known is its aval; its value is an IR variable."""

    __slots__ = ("_aval", "_buffer", "_chain", "_trace", "_var", "_version")

    def __init__(self, trace, aval: ShapedArray, var, buffer: Buffer, chain: tuple, view: View):
        self._trace = trace
        self._aval = aval
        self._var = var
        self._buffer = buffer
        self._chain = chain
        self._version = buffer.version
        self._dtype = aval.dtype
        self._view = view
        self._storage = NO_STORAGE  # (a traced value has no memory: its buffer is `_buffer`)
        self._np = None

    # --- what a tracer knows -------------------------------------------------------------------
    @property
    def shape(self) -> tuple:
        return self._aval.shape

    @property
    def device(self):
        """Where its values live, as its trace knows it (`Trace.device_of`): under grad, jvp or vmap of
        device arrays, their device, so that `zeros_like(t)`, `asarray(..., device=t.device)` and index
        arrays go beside them."""
        return self._trace.device_of(self)

    @property
    def aval(self) -> ShapedArray:
        return self._aval

    def _storage_view(self):
        self._check_live("its view")
        return self._buffer, self._view

    def _fast_storage(self) -> bool:
        return False

    def block_until_ready(self) -> Tracer:
        return self  # (a traced value has nothing to wait for; the program's result is waited for outside)

    def _check_live(self, what: str):
        if self._trace.finished:
            raise EscapedTracerError(
                f"a traced value ({self._aval}) escaped the {self._trace.kind} trace that made it and was used for {what} "
                f"at {user_frame()}. Return it from the jitted function instead of storing it elsewhere.")

    def _eager_window(self, prim):
        self._check_live(prim.name)
        raise EscapedTracerError(f"traced value used outside its trace by {prim.name} at {user_frame()}")

    # --- conversions to Python and NumPy values --------------------------------------------------
    # A traced value has no value yet: its trace decides (`Trace.concretize`) whether it can give one (the
    # primal of a value that carries no derivative, a graph break under `jit`) or raises `conversion.error`.
    def _concrete(self, conversion: Conversion) -> Array:
        self._check_live(conversion.name)
        return self._trace.concretize(self, conversion)

    def __bool__(self):
        return bool(self._concrete(BOOL))

    def __int__(self):
        return int(self._concrete(INT))

    def __float__(self):
        return float(self._concrete(FLOAT))

    def __complex__(self):
        return complex(self._concrete(COMPLEX))

    def __index__(self):
        return operator.index(self._concrete(INDEX))

    def __array__(self, dtype=None, copy=None):
        return self._concrete(NUMPY).__array__(dtype=dtype, copy=copy)

    def __dlpack__(self, *args, **kwargs):
        return self._concrete(DLPACK).__dlpack__(*args, **kwargs)

    def __jax_array__(self):
        self._check_live("conversion to a JAX array")
        raise TypeError(
            f"a traced stridex array ({self._aval}) was handed to JAX code (a jax.numpy function, or a JAX array's "
            f"operator) under `{self._trace.kind}` at {user_frame()}; JAX cannot see inside stridex's trace. Call the "
            "JAX code through sx.from_jax(g), which traces, differentiates and batches it with the rest.")

    def __reduce__(self):
        self._check_live("pickling")
        raise ConcretizationTypeError(self._trace.concretization_message(self, PICKLE))

    def __iter__(self):
        if not self.shape:
            raise TypeError("iteration over a 0-D array")
        return (self[i] for i in range(self.shape[0]))

    def __repr__(self):
        return f"Tracer<{self._aval}>"

    __str__ = __repr__

    def to_device(self, device, /, *, stream=None):
        """Under tracing the program runs where `jit` places it: a valid device leaves the tracer as it is."""
        _placement.resolve(device)
        return self


class Trace:
    """A functionalising interpreter. Subclasses say what a value's *payload* is (an IR Var for `jit`, a
    primal with its tangent for `jvp`, ...) through `apply` (run a primitive on payloads) and `lift`
    (the payload of a value from outside this trace); views, writes and re-derivation are shared here."""

    kind = "trace"
    concrete_shapes = False  # True where payloads hold values whose shapes are known (autodiff over eager)

    def __init__(self, parent=None):
        self.parent = parent  # the trace this one's computations are bound to (None: eager)
        self.finished = False

    # --- hooks ---------------------------------------------------------------------------------
    def apply(self, prim, payloads: list, params: dict) -> list:
        raise NotImplementedError

    def lift(self, x):
        raise NotImplementedError

    def aval(self, payload) -> ShapedArray:
        raise NotImplementedError

    def device_of(self, tracer: Tracer):
        """The device `tracer`'s values live on; by default the host (under `jit`, where a program runs is
        decided per call, from its arguments)."""
        return _device.HOST

    def concretize(self, tracer: Tracer, conversion: Conversion) -> Array:
        """The concrete value of `tracer`, needed for `conversion` (bool(), a NumPy conversion, ...); by
        default there is none: `conversion.error` (ConcretizationTypeError, TracerArrayConversionError)."""
        raise conversion.error(self.concretization_message(tracer, conversion))

    def concretization_message(self, tracer: Tracer, conversion: Conversion) -> str:
        where = conversion_site() if conversion.error is TracerArrayConversionError else user_frame()
        if conversion.error is TracerArrayConversionError or conversion is DLPACK:
            why = (f"Inside `{self.kind}` an array has no values for NumPy (or a library that converts with it, "
                   "such as SciPy) to read. Ways out: compute it with stridex operations, which the transformation "
                   "sees, or convert outside the transformed function.")
        else:
            why = (f"Python control flow cannot depend on values inside `{self.kind}`. Ways out: pass the value as a "
                   "static argument (static_argnums=/static_argnames=), compute the decision outside the transformed "
                   "function, or express it with array operations such as `where`.")
        return f"{conversion.name} needs a concrete value, but this array is traced ({tracer._aval}) at {where}.\n{why}"

    def data_dependent(self, prim, args, params):
        raise DataDependentShapeError(
            f"{prim.name} has an output shape that depends on the values of its input, which `{self.kind}` "
            f"cannot know while tracing (at {user_frame()}). Call it outside the transformed function, or use "
            "a fixed-size alternative (e.g. `where` instead of boolean-mask indexing).")

    # --- tracers -------------------------------------------------------------------------------
    def new_tracer(self, payload, view: View | None = None) -> Tracer:
        aval = self.aval(payload)
        view = view if view is not None else View.contiguous(aval.shape)
        return Tracer(self, aval, payload, Buffer(payload, aval, view), (), view)

    def to_tracer(self, x) -> Tracer:
        """x as a tracer of this trace (values from outside become tracers over their lifted payload)."""
        if isinstance(x, Tracer) and x._trace is self:
            return x
        view = x._storage_view()[1] if isinstance(x, Array) and not isinstance(x, Tracer) and x.size else None
        if isinstance(x, Tracer) and x.size:
            view = x._view
        return self.new_tracer(self.lift(x), view)

    def read(self, x):
        """The payload for `x`, re-derived through its chain of views if its buffer was written since."""
        if isinstance(x, Tracer) and x._trace is self:
            if x._version != x._buffer.version:
                self._rederive(x)
            return x._var
        if isinstance(x, Tracer) and x._trace.finished:
            x._check_live("an operation")
        return self.lift(x)

    def _rederive(self, x: Tracer) -> None:
        buffer = x._buffer
        payload = buffer.var
        for prim, params in x._chain:
            (payload,) = self.apply(prim, [payload], params)
        x._var = payload
        x._version = buffer.version

    # --- the interpreter -----------------------------------------------------------------------
    def process(self, prim, args, params):
        if prim.kind == "write":
            return self._process_write(prim, args, params)
        if prim.data_dependent and not self.concrete_shapes:
            return self.data_dependent(prim, args, params)
        # (`read`, inlined for this trace's own tracers whose buffer was not written since: the common case)
        payloads = [a._var if type(a) is Tracer and a._trace is self and a._version == a._buffer.version
                    else self.read(a) for a in args]
        outputs = self.apply(prim, payloads, params)
        if prim.kind == "view":
            x = self.to_tracer(args[0])
            (payload,) = outputs
            view = prim.impl(x._view, **params)
            if view is not None:
                return Tracer(self, self.aval(payload), payload, x._buffer, x._chain + ((prim, params),), view)
            # x's layout cannot take this view: a chain recorded by the trace above, replayed here after a
            # write changed the layout. The values are the view's; the trace above tracks the aliasing.
        tracers = [self.new_tracer(p) for p in outputs]
        return tuple(tracers) if prim.multiple_results else tracers[0]

    def _process_write(self, prim, args, params):

        target, value, *indices = args
        if not self.concrete_shapes and any(getattr(i, "dtype", None) is _dtypes.bool for i in indices) \
                and getattr(value, "size", 1) != 1:
            # x[mask] = values-per-selected-element: how many are selected depends on the data.
            return self.data_dependent(prim, args, params)
        target = self.writable_target(target)
        current = self._current(target)
        operands = [self.to_tracer(v) if isinstance(v, Array) else v for v in (value, *indices)]
        if any(isinstance(v, Tracer) and v._buffer is target._buffer for v in operands):
            # The value (or an index) reads the buffer being written (`x[:, :-1] = x[:, ::-2]`). XLA's CPU
            # backend (JAX 0.10) updates a dynamic-update-slice in place even when its update is read from
            # that buffer through a reshape, and so reads elements it has already overwritten. Here the
            # update goes into fresh zeros and is selected by a mask of the elements written: O(target),
            # for such writes only (tests/transforms/test_fuzz_programs.py found it).
            placed = scatter.bind(ops.zeros_like(current), value, *indices, **params)
            mask = scatter.bind(ops.full(current.shape, False, _dtypes.bool), True, *indices, **params)
            updated = ops.where(mask, placed, current)
        else:
            updated = scatter.bind(current, value, *indices, **params)
        self.write_back(target, updated)
        self.note_write(target, params["template"], indices)
        return target

    def note_write(self, target: Tracer, template: tuple, indices) -> None:
        """Called after each write into `target` (a view of its buffer): records where it landed, so that the
        write-back into the caller's array can store only the parts written (`handover.write_back`). Here the
        index arrays are kept as given (only whether there are any is read); `jit` keeps their IR values."""
        buffer = target._buffer
        if buffer.writes is None:
            buffer.writes = []
        buffer.writes.append(WrittenRegion(target._chain, template, tuple(indices)))

    def writable_target(self, target) -> Tracer:
        if isinstance(target, Tracer) and target._trace is self:
            return target
        raise TracingError(
            f"under {self.kind}, writing into an array from outside the transformed function is not supported "
            f"(at {user_frame()}); pass the array in as an argument")

    def _current(self, x: Tracer) -> Tracer:
        """A tracer with x's current value and x's view (so further derivations see the right strides)."""
        payload = self.read(x)
        return Tracer(self, x._aval, payload, Buffer(payload, x._aval, x._view), (), x._view)  # type: ignore[arg-type]  # (a tracer has its View)

    def write_back(self, target: Tracer, new_value: Tracer) -> None:
        """Make `new_value` the value of view `target` by writing it back through target's chain."""
        buffer = target._buffer
        base = Tracer(self, buffer.aval, buffer.var, Buffer(buffer.var, buffer.aval, buffer.view), (), buffer.view)
        parents = [base]
        for prim, params in target._chain[:-1]:
            parents.append(prim.bind(parents[-1], **params))
        child = new_value if isinstance(new_value, Tracer) and new_value._trace is self else self.to_tracer(new_value)
        for (prim, params), parent in zip(reversed(target._chain), reversed(parents)):
            child = prim.write_back(parent, child, **params)
        if child.shape != buffer.aval.shape or child.dtype is not buffer.aval.dtype:
            raise AssertionError(f"write-back produced {child.aval}, expected {buffer.aval}")
        buffer.var = self.read(child)
        buffer.version += 1

    # --- running computations one level down ---------------------------------------------------
    def before_write_back(self, leaves, tracers) -> None:
        """Called once the function has run, before the inputs it wrote into are written back into the caller's
        arrays (`leaves`); a trace that keeps values for later (the VJP tape) protects them here."""

    def below(self):
        """A context in which binds go to this trace's parent (where its payloads' values live)."""
        return TraceScope(self.parent)


class JitTrace(Trace):
    """Records equations into a Program. Inputs and closed-over arrays each become a Buffer of their own.

    With `graph_breaks`, a value the Python code needs concretely (a conversion of a tracer, the length of
    a data-dependent result) is computed by evaluating the program so far on the call's actual inputs
    (`input_values`), and the decision is recorded as a guard (`stridex/_transforms/breaks.py`)."""

    kind = "jit"

    def __init__(self, graph_breaks: bool = False, input_values=None):
        super().__init__(None)
        self.graph_breaks = graph_breaks and input_values is not None
        self.evaluator = breaks.Evaluator()
        self.guards: list[breaks.Guard] = []
        self._input_values = list(input_values or ())
        self.eqns: list[Eqn] = []
        self.constants: dict[int, tuple] = {}  # id(array) -> (Var, array, Tracer)
        # (Var, DType): a Python scalar argument stored into an integer dtype; `jit` checks its value per call.
        self.scalar_stores: list[tuple] = []
        # id(array) -> Tracer, for closed-over arrays that `jit` passes as inputs (they alias others).
        self.bound_constants: dict[int, Tracer] = {}

    def aval(self, payload) -> ShapedArray:
        return payload.aval

    def new_input(self, aval: ShapedArray, view: View | None = None) -> Tracer:
        return self.new_tracer(Var(aval), view)

    def constant(self, array: Array) -> Tracer:
        """A concrete array the traced function closed over: an implicit input (read at call time)."""
        bound = self.bound_constants.get(id(array))
        if bound is not None:
            return bound
        entry = self.constants.get(id(array))
        if entry is None:
            aval = ShapedArray(array.shape, array.dtype)
            tracer = self.new_input(aval, array._storage_view()[1] if array.size else None)
            self.evaluator.bind(tracer._var, array)
            entry = (tracer._var, array, tracer)
            self.constants[id(array)] = entry
        return entry[2]

    def to_tracer(self, x) -> Tracer:
        if isinstance(x, Array) and not isinstance(x, Tracer):
            return self.constant(x)
        return super().to_tracer(x)

    def writable_target(self, target) -> Tracer:
        if isinstance(target, Array) and not isinstance(target, Tracer):
            return self.constant(target)  # written back into the closed-over array after the call
        return super().writable_target(target)

    def lift(self, x):
        if isinstance(x, Tracer):
            x._check_live("an operation")
            raise EscapedTracerError(f"a value traced by another transformation was used inside jit at {user_frame()}")
        if isinstance(x, Array):
            return self.read(self.constant(x))
        if isinstance(x, (bool, int, float, complex)):
            return Literal(x, aval_of(x))
        raise TypeError(f"a jitted computation received an operand of type {type(x).__name__}")

    def apply(self, prim, payloads, params):
        avals = prim.abstract_eval(*[p.aval for p in payloads], **params)
        avals = avals if prim.multiple_results else (avals,)
        outputs = [Var(a) for a in avals]
        self.eqns.append(Eqn(prim, payloads, params, outputs))
        return outputs

    # --- graph breaks ----------------------------------------------------------------------------
    def bind_inputs(self, tracers) -> None:
        """Pair the program's input tracers with the call's concrete inputs (for evaluation at a break)."""
        for t, value in zip(tracers, self._input_values):
            self.evaluator.bind(t._var, value)

    def value(self, var):
        """The concrete value of IR variable `var` in this call (the eager interpreter runs what it needs)."""
        return self.evaluator.value(var, self.eqns)

    def _guard(self, var, value, what: str) -> None:
        if len(self.guards) >= breaks.MAX_BREAKS:
            raise breaks.TooManyBreaks(user_frame())
        self.guards.append(breaks.Guard(var, breaks.snapshot(value), what, user_frame()))

    def concretize(self, tracer: Tracer, conversion: Conversion) -> Array:
        if not self.graph_breaks:
            return super().concretize(tracer, conversion)
        var = self.read(tracer)
        value = self.value(var)
        self._guard(var, value, conversion.name)
        return value

    def data_dependent(self, prim, args, params):
        if not self.graph_breaks:
            return super().data_dependent(prim, args, params)
        if prim is boolean_gather or prim is assign:  # x[mask] and x[mask] = v: the mask's indices, then as usual
            return self._without_masks(prim, args, params)
        if prim.output_size is None:
            return super().data_dependent(prim, args, params)
        payloads = [self.read(a) for a in args]
        values = [self.value(p) for p in payloads]
        with push(None):  # run eagerly: the lengths of this call's results
            outs = prim.bind(*values, **params)
        outs = outs if prim.multiple_results else (outs,)
        outputs = [Var(ShapedArray(o.shape, o.dtype)) for o in outs]
        self.eqns.append(Eqn(prim, payloads, params, outputs))
        for v, o in zip(outputs, outs):
            self.evaluator.bind(v, o)
        # The guard: the data-dependent length, computed in the program, must be the one observed now.
        size = self.read(self.to_tracer(prim.output_size(*args, **params)))
        self._guard(size, self.value(size), f"the length of {prim.name}'s result")
        tracers = [self.new_tracer(v) for v in outputs]
        return tuple(tracers) if prim.multiple_results else tracers[0]

    def write_back_eagerly(self, in_tracers) -> None:
        """After the traced function raised: write what it wrote into its inputs and closed-over arrays so far
        into the caller's arrays, as eager execution would have before raising (the values are known here)."""
        pairs = [(t, v) for t, v in zip(in_tracers, self._input_values) if isinstance(v, Array)]
        pairs += [(tracer, array) for _, array, tracer in self.constants.values()]
        writes = []
        for t, target in pairs:
            if t._buffer.version:  # (only the parts written, as after a call: see `handover.write_plan`)
                outputs: list = []
                plan = handover.write_plan(self, 0, t._buffer, outputs)
                writes.append((target, plan, [self.value(v) for v in outputs]))
        with push(None):
            for target, plan, values in writes:
                handover.write_back(target, values[plan.output], plan, None if plan.mask is None else values[plan.mask])

    def note_write(self, target: Tracer, template: tuple, indices) -> None:
        buffer = target._buffer
        if buffer.writes is None:
            buffer.writes = []
        # (the index arrays' values now: a later write into an index array must not move this write)
        buffer.writes.append(WrittenRegion(target._chain, template, tuple(self.read(i) for i in indices)))

    def _process_write(self, prim, args, params):
        # A write through boolean masks compiles as a select when one leading mask (not 0-D) meets a
        # one-element value; any other, with graph breaks, writes at the masks' nonzero indices.
        _, value, *indices = args
        template = params["template"]
        masks = [i for i in indices if getattr(i, "dtype", None) is _dtypes.bool]
        if self.graph_breaks and masks and not (
                len(indices) == 1 and masks[0].shape and template[0] == ("array", 0)
                and all(e[0] == "ellipsis" for e in template[1:]) and getattr(value, "size", 1) == 1):
            return self._without_masks(prim, args, params)
        return super()._process_write(prim, args, params)

    def _without_masks(self, prim, args, params):
        """`x[mask]` / `x[mask] = v` with each boolean mask replaced by its nonzero indices (NumPy's meaning)."""
        if prim is assign:
            target, value, *indices = args
        else:
            target, *indices = args
        template, arrays = [], []
        for entry in params["template"]:
            if entry[0] != "array":
                template.append(entry)
                continue
            index = indices[entry[1]]
            if getattr(index, "dtype", None) is _dtypes.bool:
                if not index.shape:  # a 0-D mask adds an axis of length 0 or 1: no nonzero to take
                    return self._zero_d_mask(prim, args, params, entry)
                parts = ops.nonzero(index)
            else:
                parts = (index,)
            for part in parts:
                template.append(("array", len(arrays)))
                arrays.append(part)
        if prim is assign:
            return self.process(prim, (target, value, *arrays), {**params, "template": tuple(template)})
        return ops.gather(target, tuple(template), *arrays)

    def _zero_d_mask(self, prim, args, params, mask_entry):
        """`x[..., m, ...]` with a 0-D boolean `m` and otherwise basic entries (NumPy: a new axis there, of
        length 1 where m is True and 0 where it is False): the mask's value is taken (a graph break)."""
        template = params["template"]
        indices = args[2:] if prim is assign else args[1:]
        if sum(1 for e in template if e[0] == "array") != 1:
            return super().data_dependent(prim, args, params)
        keep = bool(indices[mask_entry[1]])
        shape = ops.shape_of(args[0])
        consumed = sum(1 for e in template if e[0] in ("int", "slice"))
        basic, position, axis = [], None, 0  # the key with the mask as a new axis, in full (as View.index takes it)
        if not any(e[0] == "ellipsis" for e in template):
            template = (*template, ("ellipsis",))
        for e in template:
            if e is mask_entry:
                position = len([b for b in basic if b[0] != "int"])
                basic.append(("newaxis",))
            elif e[0] == "ellipsis":
                for _ in range(len(shape) - consumed):
                    basic.append(("slice", 0, shape[axis], 1))
                    axis += 1
            else:
                basic.append(e)
                axis += e[0] in ("int", "slice")
        basic = tuple(basic)
        if prim is assign:
            target, value = args[:2]
            if not keep:
                return target  # nothing is selected
            rest = tuple(e for e in basic if e[0] != "newaxis")
            region = len(shape) - sum(1 for e in rest if e[0] == "int")
            value_shape = ops.shape_of(value)
            while len(value_shape) > region and value_shape[0] == 1:  # (leading 1s: the new axis, broadcast)
                value_shape = value_shape[1:]
                value = ops.reshape(value, value_shape)
            return self.process(prim, (target, value), {**params, "template": rest})
        out = ops.index(args[0], basic)
        if keep:
            return out
        empty = tuple(("slice", 0, 0, 1) if a == position else ("slice", 0, n, 1)
                      for a, n in enumerate(ops.shape_of(out)))
        return ops.index(out, empty)


def trace_to_program(fn, in_avals, in_views=None, *, input_values=None, graph_breaks: bool = False,
                     trace_class=JitTrace) -> tuple[JitTrace, list, object]:
    """Trace `fn(*tracers)`; returns (trace, input tracers, output).

    The caller turns outputs into program outputs (see `jit`); this function only runs the trace. With
    `graph_breaks` and the call's concrete `input_values` (one per input), breaks are taken (see JitTrace).
    `trace_class(graph_breaks, input_values)` makes the trace (`to_jax`'s names its own ways out in errors).
    """
    trace = trace_class(graph_breaks, input_values)
    tracers = [trace.new_input(a, v) for a, v in zip(in_avals, in_views or [None] * len(in_avals))]
    trace.bind_inputs(tracers)
    with push(trace):
        try:
            out = fn(*tracers)
        except breaks.TooManyBreaks:
            trace.finished = True  # (jit runs the call eagerly from the start: nothing is written here)
            raise
        except BaseException:
            if trace.graph_breaks:
                trace.write_back_eagerly(tracers)
            trace.finished = True  # tracers the failed function stored elsewhere have escaped
            raise
    return trace, tracers, out


_WEAK_EXAMPLES = {_dtypes.bool: True, _dtypes.int64: 1, _dtypes.float64: 1.0, _dtypes.complex128: 1j}


def weak_scalar_example(x):
    """For a weakly typed traced value (a Python scalar argument of a jitted function), an example Python
    scalar of its kind, so that it is validated and promoted exactly like the scalar it stands for; else None."""
    aval = getattr(x, "_aval", None)
    if aval is not None and aval.weak_type and aval.shape == ():
        return _WEAK_EXAMPLES.get(aval.dtype)
    return None


def note_scalar_store(value, dtype) -> None:
    """Say that `value`, where it is a Python scalar, is converted to `dtype` the way NumPy stores one.

    Eagerly NumPy checks that conversion: an int out of the dtype's range raises OverflowError ("Python integer
    300 out of bounds for int8"), a NaN stored into an integer dtype ValueError, and so on; a compiled program
    would wrap or saturate instead. So for a Python scalar argument of a jitted function (a weak traced value),
    the trace records the pair, and `jit` stores each call's argument into that dtype before running the
    program, raising what eager execution raises. Only the argument itself is checked: a value computed from
    it inside the function is an int64/float64 of the program, as in JAX.
    """
    if not isinstance(value, Tracer) or dtype.kind not in ("signed", "unsigned"):
        return
    aval = value._aval
    if not aval.weak_type or aval.dtype is _dtypes.bool or (aval.dtype is dtype and dtype is _dtypes.int64):
        return  # (a bool fits every integer dtype; an int64 argument fits int64)
    trace = value._trace
    if isinstance(trace, JitTrace):
        trace.scalar_stores.append((value._var, dtype))


__all__ = [
    "ConcretizationError",
    "ConcretizationTypeError",
    "Conversion",
    "DataDependentShapeError",
    "EscapedTracerError",
    "JitTrace",
    "Tracer",
    "TracerArrayConversionError",
    "TracingError",
    "_dtypes",
    "trace_to_program",
]
