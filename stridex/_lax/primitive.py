"""Primitives and `bind`: the record every stridex operation is, and the one door it goes through.

A `Primitive` is one record holding all of an operation's rules, each given when the record is made
(abstract evaluation, eager implementation, JAX lowering, JVP, VJP or transpose, batching, and for a
view its write-back and folding rules); nothing outside the record decides how it behaves. `bind` hands
it to the current interpreter: with no trace active, to the executor layer's one routing decision
(`stridex._exec.route.apply`), which runs it on the host now, defers it into a pending chain (eager
fusion), or runs its lowering on the JAX device its arguments live on.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from stridex._core.array import Array
from stridex._core.state import current_trace
from stridex._exec import host as _host
from stridex._exec.route import apply as _apply

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
                  "eager": _host.compute_many if kind == "compute" and multiple_results else _EAGER[kind]}
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
            return _apply(self, args, params)  # (eager: where it runs is `route`'s one decision)
        return trace.process(self, args, params)


# --- the eager rule of a view (metadata only; the host executor holds the other kinds': `stridex._exec.host`) --


def _eager_view(prim, args, params):
    (x,) = args
    storage, view = x._storage_view()
    out = prim.impl(view, **params)
    if out is None:  # (a layout this view cannot take: see KINDS)
        storage, view = PRIMITIVES["copy"].bind(x)._storage_view()
        out = prim.impl(view, **params)
    return Array._make(storage, out, x._dtype)


_EAGER = {"compute": _host.compute, "view": _eager_view, "write": _host.write}
