"""Primitives, `bind` and the eager interpreter: the one door every stridex operation goes through.

A `Primitive` is one record holding all of an operation's rules, each given when the record is made
(abstract evaluation, eager implementation, JAX lowering, JVP, VJP or transpose, batching, and for a
view its write-back and folding rules); nothing outside the record decides how it behaves. `bind` hands
it to the current interpreter: with no trace active, the eager interpreter runs it now on strided
NumPy windows — or, when an argument lives on a JAX device (its storage raises `OnDevice` as NumPy
reaches for it), `stridex._exec.device` runs the primitive's lowering there.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from stridex._core.array import Array, refuse_broadcast_write, window
from stridex._core.device import OnDevice
from stridex._core.dtypes import FROM_NUMPY
from stridex._core.state import current_trace
from stridex._core.storage import NO_STORAGE
from stridex._exec import device as _device
from stridex._exec import placement as _placement
from stridex._exec import fusion as _fusion

# --- primitives --------------------------------------------------------------------------------

PRIMITIVES: dict[str, Primitive] = {}

# How the eager interpreter runs each kind of primitive:
#   "compute": impl(*numpy_windows, **params) -> ndarray (or tuple) in fresh memory
#   "view":    impl(View, **params) -> View over the same storage (O(1), no data touched), or None where
#              this View's layout cannot take it (reshape_view of a non-contiguous View): the primitive then
#              views a contiguous copy. The API functions copy first themselves; only a transformation that
#              replays a recorded chain of views on a value of another layout (after a write through a
#              flipped view, say) meets None, and it needs the values, not the aliasing (see `Trace.process`).
#   "write":   impl(target_window, *input_windows, **params) writes into the target's storage
KINDS = ("compute", "view", "write")


class RuleShape:
    """A rule written once for many primitives (`stridex._lax.rule_shapes`): given to a record as one of its
    rules, it is completed with that record; `shape(primitive)` gives the rule for a primitive."""

    __slots__ = ("make",)

    def __init__(self, make):
        self.make = make

    def __call__(self, prim):
        return self.make(prim)


_RULES = ("abstract_eval", "impl", "lower", "jvp", "transpose", "vjp", "batch", "write_back", "compose",
          "is_identity", "output_size")


class Primitive:
    """One operation and all its rules, in one record."""

    __slots__ = (
        "abstract_eval",
        "batch",
        "compose",
        "data_dependent",
        "differentiable",
        "eager",
        "effectful",
        "elementwise",
        "impl",
        "is_identity",
        "jvp",
        "kind",
        "lower",
        "multiple_results",
        "name",
        "output_size",
        "transpose",
        "values",
        "vjp",
        "write_back",
    )
    name: str
    kind: str
    impl: Callable[..., Any]
    abstract_eval: Callable[..., Any]
    eager: Callable[..., Any]
    differentiable: bool
    effectful: bool
    elementwise: bool
    multiple_results: bool
    data_dependent: bool
    # the optional rules (None where the primitive has none; see __init__)
    lower: Callable[..., Any] | None
    jvp: Callable[..., Any] | None
    transpose: Callable[..., Any] | None
    vjp: Callable[..., Any] | None
    batch: Callable[..., Any] | None
    write_back: Callable[..., Any] | None
    compose: Callable[..., Any] | None
    is_identity: Callable[..., Any] | None
    output_size: Callable[..., Any] | None
    values: dict[str, Callable[..., Any]] | None

    def __init__(self, name: str, *, kind: str = "compute", impl, abstract_eval, lower=None, jvp=None,
                 transpose=None, vjp=None, batch=None, write_back=None, compose=None, is_identity=None,
                 output_size=None, differentiable: bool = True, multiple_results: bool = False, data_dependent: bool = False,
                 elementwise: bool = False, values=None, effectful: bool = False):
        """The rules, each `None` where the primitive has none:

        abstract_eval(*avals, **params) -> aval (a tuple of avals with `multiple_results`)
        impl         the eager kernel; its signature depends on `kind` (see KINDS above)
        lower(ctx, *jax_values, **params) -> jax value(s): the JAX lowering
        jvp(primals, tangents, **params) -> (primal_out, tangent_out)
        vjp(ct, *primals, out, **params) -> one cotangent per primal (None where there is none)
        transpose(ct, *primals, out, **params): a linear primitive's VJP, where it reads better so
        batch(values, dims, *, axis_size, **params) -> (out, out_dim): the vmap rule
        write_back(parent, child, **params) -> the parent's new value once the view `child` of it was
            written (views only: how tracing functionalises a write through a view)
        compose(first, first_params, params, out_aval) -> (primitive, params) or None: this view applied
            after the view `first` as one view (views only: the IR's view folding)
        is_identity(in_aval, **params) -> bool: whether this view returns its input unchanged
        output_size(*args, **params) -> an int64 array: the data-dependent length(s) of the result
            (data-dependent primitives only: what `jit` guards when it compiles one with a known length;
            written in internal operations, so it is traced into the program like any other rule)

        values       {param: store(value, params) -> 0-D ndarray}: the params that are values, not structure (a
            fill value, a start): the device executor passes each to one executable as an argument, stored
            by its rule, instead of compiling one program per value. The lowering receives such a param as a
            Python scalar (under `jit`, from the IR) or as the stored 0-D JAX value.

        `elementwise`: each element of the result depends only on the same element of the (broadcast) inputs,
        and `impl` computes it the same whatever block of the arrays it is given (so eager fusion may defer it
        and run it block by block: see `stridex._exec.fusion`). Only single-result compute primitives.
        `effectful`: running it does something beyond computing its results (a host callback that prints), so
        an equation of it is kept and run in program order: the passes never remove or merge one, and a graph
        break's evaluation of the program so far skips it (the compiled program runs it).
        """
        if name in PRIMITIVES:
            raise ValueError(f"primitive {name!r} is registered twice")
        if kind not in KINDS:
            raise ValueError(f"primitive kind must be one of {KINDS}, got {kind!r}")
        if kind != "view" and (write_back or compose or is_identity):
            raise ValueError(f"primitive {name!r}: only views have write-back and folding rules")
        if output_size is not None and not data_dependent:
            raise ValueError(f"primitive {name!r}: only data-dependent primitives have an output_size rule")
        if elementwise and (kind != "compute" or multiple_results):
            raise ValueError(f"primitive {name!r}: only single-result compute primitives are elementwise")
        fields = {"name": name, "kind": kind, "impl": impl, "abstract_eval": abstract_eval, "lower": lower,
                  "jvp": jvp, "transpose": transpose, "vjp": vjp, "batch": batch, "write_back": write_back,
                  "compose": compose, "is_identity": is_identity, "output_size": output_size, "differentiable": differentiable,
                  "multiple_results": multiple_results, "data_dependent": data_dependent, "elementwise": elementwise,
                  "values": values, "effectful": effectful,
                  "eager": (_eager_elementwise if elementwise else
                            _eager_compute_many if kind == "compute" and multiple_results else _EAGER[kind])}
        for slot, value in fields.items():
            object.__setattr__(self, slot, value)
        for slot in _RULES:  # rule shapes are completed with this record
            rule = getattr(self, slot)
            if isinstance(rule, RuleShape):
                object.__setattr__(self, slot, rule.make(self))
        PRIMITIVES[name] = self

    def __setattr__(self, name, value):
        raise AttributeError(f"primitive {self.name!r} is immutable: give its {name!r} rule to the constructor, "
                             "in the primitive's one block")

    def __repr__(self):
        return f"Primitive({self.name})"

    def bind(self, *args, **params):
        trace = current_trace()
        if trace is None:
            try:
                return self.eager(self, args, params)
            except OnDevice:  # an argument lives on a JAX device: run the primitive there
                return _device.run(self, args, params)
        return trace.process(self, args, params)


# --- the eager interpreter ---------------------------------------------------------------------


def _eager_compute(prim, args, params):
    # The hot path of every eager operation: keep it free of generic machinery.
    if len(args) == 2:
        a, b = args
        if type(a) is Array:
            wa = a._np
            if wa is None:
                st = a._storage
                if not st.is_host:  # (on a JAX device: run there, without OnDevice's detour)
                    return _device.run(prim, args, params)
                wa = st.window(a)
        else:
            wa = _eager_operand(prim, a)
        if type(b) is Array:
            wb = b._np
            if wb is None:
                st = b._storage
                if not st.is_host:
                    return _device.run(prim, args, params)
                wb = st.window(b)
        else:
            wb = _eager_operand(prim, b)
        out = prim.impl(wa, wb, **params) if params else prim.impl(wa, wb)
        if type(out) is np.ndarray and out.base is None:
            result = Array()
            result._np = out
            result._storage = NO_STORAGE
            result._view = None
            result._dtype = FROM_NUMPY[out.dtype]
            return result
        return _wrap(out, (wa, wb))
    if not args and _placement.placement() is not None:  # creation (no array inputs) on a default JAX device
        return _device.run(prim, args, params)
    wins = _windows(prim, args)
    out = prim.impl(*wins, **params) if params else prim.impl(*wins)
    if type(out) is np.ndarray and out.base is None:
        return Array._from_numpy(out)
    return _wrap(out, wins)


def _eager_elementwise(prim, args, params):
    """The eager rule of an elementwise primitive: `_eager_compute`'s, deferred (`stridex._exec.fusion`) when an
    operand is large enough or pending. (The two-operand path is `_eager_compute`'s, inline: a call less on the
    one-element operations whose dispatch cost this path keeps.)"""
    if len(args) == 2:
        a, b = args
        if type(a) is Array:
            wa = a._np
            if wa is None or wa.size >= _fusion.DEFER_MIN_ELEMENTS:
                return _deferred(prim, args, params)
        else:
            wa = _eager_operand(prim, a)
        if type(b) is Array:
            wb = b._np
            if wb is None or wb.size >= _fusion.DEFER_MIN_ELEMENTS:
                return _deferred(prim, args, params)
        else:
            wb = _eager_operand(prim, b)
        out = prim.impl(wa, wb, **params) if params else prim.impl(wa, wb)
        if type(out) is np.ndarray and out.base is None:
            result = Array()
            result._np = out
            result._storage = NO_STORAGE
            result._view = None
            result._dtype = FROM_NUMPY[out.dtype]
            return result
        return _wrap(out, (wa, wb))
    for a in args:
        if type(a) is Array:
            w = a._np
            if w is None or w.size >= _fusion.DEFER_MIN_ELEMENTS:
                return _deferred(prim, args, params)
    return _eager_compute(prim, args, params)


NO_PARAMS: dict = {}  # the params of a call without any (shared: never changed)


def eager_binary(prim, a: Array, b: Array):
    """`prim.eager(prim, (a, b), {})` for an elementwise `prim` and two Arrays: Array's operators call it (the
    one-element `x + y` is all dispatch: two host windows below the deferral threshold go straight to the
    impl, without the argument tuple the general rule unpacks); a large, pending or device operand goes where
    the general rule sends it (`_deferred`)."""
    wa = a._np
    wb = b._np
    if wa is not None and wb is not None:
        defer = _fusion.DEFER_MIN_ELEMENTS
        if wa.size < defer and wb.size < defer:
            out = prim.impl(wa, wb)
            if type(out) is np.ndarray and out.base is None:
                # (Array._from_numpy inline, as in `_eager_compute` and `_eager_elementwise`: the call costs
                # 50 ns, a fifth of NumPy's whole one-element `x + y`)
                result = Array()
                result._np = out
                result._storage = NO_STORAGE
                result._view = None
                result._dtype = FROM_NUMPY[out.dtype]
                return result
            return _wrap(out, (wa, wb))
    return _deferred(prim, (a, b), NO_PARAMS)  # (what the general rule does with a large, pending or device operand)


def _deferred(prim, args, params):
    """`prim` recorded as pending work, or run now where fusion declines (small, on a device, memory foreign
    code shares, an error to raise at this line)."""
    out = _fusion.record(prim, args, params)
    return out if out is not None else _eager_compute(prim, args, params)


def _eager_compute_many(prim, args, params):
    """The eager rule of a primitive with several results (a tuple of fresh ndarrays)."""
    wins = _windows(prim, args)
    return tuple(_wrap(o, wins) for o in prim.impl(*wins, **params))


def _windows(prim, args) -> list:
    wins = []
    for a in args:
        if type(a) is Array:
            w = a._np
            wins.append(w if w is not None else window(a))
        else:
            wins.append(_eager_operand(prim, a))
    return wins


def _eager_operand(prim, a):
    if type(a) in _PY_SCALARS:
        return a
    if isinstance(a, Array):  # an Array subclass, e.g. a tracer that escaped its trace
        return a._eager_window(prim)
    return a


def _wrap(out, wins):
    if type(out) is Array:  # (an eager rule that ran a compiled JAX program: its result, adopted lazily)
        return out
    if type(out) is not np.ndarray:
        out = np.asarray(out)
    elif out.base is not None and any(type(w) is np.ndarray and _is_view_of(out, w) for w in wins):
        # A compute primitive's result owns fresh memory; NumPy sometimes returns a view of an input.
        out = out.copy()
    return Array._from_numpy(out)


def _is_view_of(out: np.ndarray, w: np.ndarray) -> bool:
    """Whether `out` views the memory `w` views: NumPy collapses `out.base` to an owner up w's chain."""
    base = out.base
    while isinstance(w, np.ndarray):
        if base is w:
            return True
        w = w.base  # type: ignore[assignment]  # (None ends the walk)
    return False


def _eager_view(prim, args, params):
    (x,) = args
    storage, view = x._storage_view()
    out = prim.impl(view, **params)
    if out is None:  # (a layout this view cannot take: see KINDS)
        storage, view = PRIMITIVES["copy"].bind(x)._storage_view()
        out = prim.impl(view, **params)
    return Array._make(storage, out, x._dtype)


def _eager_write(prim, args, params):
    target = args[0]
    if target._storage.readonly:
        storage, view = target._storage_view()
        target_window = _window_on(storage.writable(), view, target._dtype.np)  # copy-on-write happens here
    else:
        target_window = window(target)
    if 0 in target_window.strides:
        refuse_broadcast_write(target_window)
    prim.impl(target_window, *[window(a) if isinstance(a, Array) else a for a in args[1:]], **params)
    return target


def _window_on(buf, view, np_dtype):
    itemsize = np_dtype.itemsize
    if 0 in view.shape:
        return np.empty(view.shape, np_dtype)
    return np.ndarray(view.shape, np_dtype, buf, view.offset * itemsize, tuple(s * itemsize for s in view.strides))


_PY_SCALARS = frozenset({bool, int, float, complex})
_EAGER = {"compute": _eager_compute, "view": _eager_view, "write": _eager_write}
