"""Windowed reductions (`sx.lax.reduce_window` with add, max or min: pooling) and the linear maps their derivatives
need, one record each, as JAX's `reduce_window_sum` / `_max` / `_min`, `select_and_gather_add` and
`select_and_scatter_add`.

Parameters, all static: `window_dimensions`, `window_strides`, `padding` (explicit `(low, high)` pairs),
`base_dilation`, `window_dilation`. The padding holds the monoid's identity (0 for a sum, -inf or the dtype's
lowest value for a maximum), so it never wins a maximum and adds nothing to a sum.

The value rule: every record's host eager rule is its own lowering compiled once per signature (the one cache of
the host's compiled programs, `stridex._lax.compiled.lowered`), so eager, `jit` and a device agree bit for bit,
and with `jax.lax.reduce_window` (a windowed sum adds in XLA's order, which NumPy's pairwise sum does not
reproduce). The derivative of a windowed maximum is JAX's: the tangent of the element each window selects (the
first of tied maxima, as XLA's select), and its transpose scatters the cotangent back there; these two records are
lowered through JAX's own JVP and VJP of the windowed reduction, so the selection is JAX's exactly.
"""

from __future__ import annotations

import numpy as np

from stridex._core.avals import ShapedArray
from stridex._lax import compiled as _compiled
from stridex._exec import jax_bridge as _bridge
from stridex._lax import ops
from stridex._lax.convolution import dilate, window_count
from stridex._lax.primitive import Primitive
from stridex._lax.rule_shapes import move_to_front

# (declared first: the rules of each refer to the others)
reduce_window_sum: Primitive
reduce_window_sum_transpose: Primitive
select_and_gather_add: Primitive
select_and_scatter_add: Primitive

_WINDOW = ("window_dimensions", "window_strides", "padding", "base_dilation", "window_dilation")


def window_shape(shape: tuple, *, window_dimensions, window_strides, padding, base_dilation, window_dilation) -> tuple:
    """The shape of a windowed reduction of an operand of `shape` (ValueError naming the offending parameter)."""
    n = len(shape)
    for name, value in (("window_dimensions", window_dimensions), ("window_strides", window_strides),
                        ("padding", padding), ("base_dilation", base_dilation), ("window_dilation", window_dilation)):
        if len(value) != n:
            raise ValueError(f"reduce_window: {name} must have one entry per dimension of the operand (shape "
                             f"{shape}), got {value}")
    for name, value in (("window_dimensions", window_dimensions), ("window_strides", window_strides),
                        ("base_dilation", base_dilation), ("window_dilation", window_dilation)):
        if any(v < 1 for v in value):
            raise ValueError(f"reduce_window: {name} must be positive, got {value}")
    out = []
    for i in range(n):
        size = dilate(shape[i], base_dilation[i]) + padding[i][0] + padding[i][1]
        if size < 0:
            raise ValueError(f"reduce_window: negative padding {padding[i]} is larger than dimension {i} of the "
                             f"operand (shape {shape})")
        out.append(window_count(size, dilate(window_dimensions[i], window_dilation[i]), window_strides[i]))
    return tuple(out)


def _unit_window(params: dict) -> dict:
    """`params` for an operand with one more, leading axis that every window covers alone (a vmapped axis)."""
    return {**params, "window_dimensions": (1, *params["window_dimensions"]),
            "window_strides": (1, *params["window_strides"]), "padding": ((0, 0), *params["padding"]),
            "base_dilation": (1, *params["base_dilation"]), "window_dilation": (1, *params["window_dilation"])}


def identity(computation: str, dtype: np.dtype):
    """The identity of `computation` ("sum", "max", "min") in NumPy dtype `dtype`: what padding holds."""
    if computation == "sum":
        return np.zeros((), dtype)
    if dtype == np.bool_:
        return np.asarray(computation == "min")
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return np.asarray(info.min if computation == "max" else info.max, dtype)
    return np.asarray(-np.inf if computation == "max" else np.inf, dtype)


def _jax_reduce_window(computation: str, x, window):
    monoid = {"sum": _bridge.lax().add, "max": _bridge.lax().max, "min": _bridge.lax().min}[computation]
    return _bridge.lax().reduce_window(x, identity(computation, np.dtype(x.dtype)), monoid, window["window_dimensions"],
                               window["window_strides"], window["padding"], window["base_dilation"],
                               window["window_dilation"])


def _window_params(params: dict) -> dict:
    return {name: params[name] for name in _WINDOW}


# --- reduce_window_sum / max / min ---------------------------------------------------------------------------------


def _reducer(computation: str) -> Primitive:
    def abstract_eval(x, **window):
        if computation == "sum" and x.dtype.kind == "bool":
            raise TypeError("reduce_window with add is not defined for bool operands (JAX's lax.add refuses them)")
        if x.dtype.kind == "complex floating" and computation != "sum":
            raise TypeError(f"reduce_window with {computation} is not defined for complex operands ({x.dtype.name}): "
                            "they have no order")
        return ShapedArray(window_shape(x.shape, **window), x.dtype)

    def lower(ctx, x, **window):
        return _jax_reduce_window(computation, x, window)

    def batch(values, dims, *, axis_size, **window):
        (x,), (d,) = values, dims
        return prim.bind(move_to_front(x, d, axis_size), **_unit_window(window)), 0

    if computation == "sum":
        def jvp(primals, tangents, **window):
            return prim.bind(*primals, **window), prim.bind(*tangents, **window)

        def vjp(ct, x, *, out, **window):
            return (reduce_window_sum_transpose.bind(ct, operand_shape=ops.shape_of(x), **window),)
    else:
        def jvp(primals, tangents, **window):
            (x,), (t,) = primals, tangents
            return prim.bind(x, **window), select_and_gather_add.bind(t, x, computation=computation, **window)

        def vjp(ct, x, *, out, **window):
            return (select_and_scatter_add.bind(ct, x, computation=computation, **window),)

    prim = Primitive(f"reduce_window_{computation}", impl=_compiled.lowered, abstract_eval=abstract_eval, lower=lower,
                     jvp=jvp, vjp=vjp, batch=batch)
    return prim


# --- the transpose of a windowed sum: each element receives the sum of the cotangents of the windows it is in ------
# JAX's rule: the cotangent spread out by the strides (interior padding), padded so that every window position is
# covered, and summed over windows again with the base dilation as strides.


def _sum_transpose_padding(operand_shape, out_shape, window):
    pads = []
    for i, size in enumerate(operand_shape):
        base, span = dilate(size, window["base_dilation"][i]), dilate(window["window_dimensions"][i],
                                                                     window["window_dilation"][i])
        before = span - window["padding"][i][0] - 1
        pads.append((before, base + span - 1 - dilate(out_shape[i], window["window_strides"][i]) - before,
                     window["window_strides"][i] - 1))
    return pads


def _sum_transpose_abstract(ct, *, operand_shape, **window):
    expected = window_shape(operand_shape, **window)
    if ct.shape != expected:
        raise ValueError(f"reduce_window_sum_transpose: the cotangent's shape {ct.shape} is not the windowed sum's "
                         f"{expected}")
    return ShapedArray(tuple(operand_shape), ct.dtype)


def _sum_transpose_lower(ctx, ct, *, operand_shape, **window):
    pads = _sum_transpose_padding(operand_shape, ct.shape, window)
    spread = _bridge.lax().pad(ct, np.zeros((), ct.dtype), pads)
    n = len(operand_shape)
    return _jax_reduce_window("sum", spread, {"window_dimensions": window["window_dimensions"],
                                              "window_strides": window["base_dilation"], "padding": ((0, 0),) * n,
                                              "base_dilation": (1,) * n,
                                              "window_dilation": window["window_dilation"]})


def _sum_transpose_batch(values, dims, *, axis_size, operand_shape, **window):
    (ct,), (d,) = values, dims
    return reduce_window_sum_transpose.bind(move_to_front(ct, d, axis_size), operand_shape=(axis_size, *operand_shape),
                                            **_unit_window(window)), 0


reduce_window_sum_transpose = Primitive(
    "reduce_window_sum_transpose",
    impl=_compiled.lowered,
    abstract_eval=_sum_transpose_abstract,
    lower=_sum_transpose_lower,
    jvp=lambda primals, tangents, **params: (reduce_window_sum_transpose.bind(*primals, **params),
                                             reduce_window_sum_transpose.bind(*tangents, **params)),
    vjp=lambda ct, x, *, out, operand_shape, **window: (reduce_window_sum.bind(ct, **window),),
    batch=_sum_transpose_batch,
)


# --- select_and_gather_add / select_and_scatter_add: a windowed maximum's (minimum's) JVP and its transpose -------
# Linear in their first operand (the tangent, the cotangent); the second (the reduced operand) only selects, so it
# carries no derivative, as in JAX.


def _selection_abstract(which: str):
    def abstract_eval(t, x, *, computation, **window):
        reduced = window_shape(x.shape, **window)
        expected, result = (x.shape, reduced) if which == "gather" else (reduced, x.shape)
        if t.shape != expected:
            raise ValueError(f"select_and_{which}_add: the {'tangent' if which == 'gather' else 'cotangent'}'s shape "
                             f"{t.shape} must be {expected} (operand shape {x.shape})")
        return ShapedArray(result, t.dtype)

    return abstract_eval


def _gather_lower(ctx, t, x, *, computation, **window):
    tangent = _bridge.lax().convert_element_type(t, x.dtype)
    return _bridge.jax().jvp(lambda v: _jax_reduce_window(computation, v, window), (x,), (tangent,))[1]


def _scatter_lower(ctx, ct, x, *, computation, **window):
    _, pullback = _bridge.jax().vjp(lambda v: _jax_reduce_window(computation, v, window), x)
    return pullback(_bridge.lax().convert_element_type(ct, x.dtype))[0]


def _selection(which: str) -> Primitive:
    def jvp(primals, tangents, **params):
        (t, x), (dt, _) = primals, tangents
        return prim.bind(t, x, **params), None if dt is None else prim.bind(dt, x, **params)

    def vjp(ct, t, x, *, out, **params):
        other = select_and_scatter_add if which == "gather" else select_and_gather_add
        return other.bind(ct, x, **params), None

    def batch(values, dims, *, axis_size, computation, **window):
        (t, x), (dt, dx) = values, dims
        return prim.bind(move_to_front(t, dt, axis_size), move_to_front(x, dx, axis_size), computation=computation,
                         **_unit_window(window)), 0

    prim = Primitive(f"select_and_{which}_add", impl=_compiled.lowered, abstract_eval=_selection_abstract(which),
                     lower=_gather_lower if which == "gather" else _scatter_lower, jvp=jvp, vjp=vjp, batch=batch)
    return prim


reduce_window_sum = _reducer("sum")
reduce_window_max = _reducer("max")
reduce_window_min = _reducer("min")
select_and_gather_add = _selection("gather")
select_and_scatter_add = _selection("scatter")
REDUCERS = {"sum": reduce_window_sum, "max": reduce_window_max, "min": reduce_window_min}
