"""Primitives, `bind` and the eager interpreter: the one door every stridex operation goes through.

A `Primitive` is one record holding all of an operation's rules (abstract evaluation, eager
implementation, JAX lowering, and the transformation slots). `bind` hands it to the current
interpreter: with no trace active, the eager interpreter runs it now on strided NumPy windows.
"""

from __future__ import annotations

import numpy as np

from stridex._core.array import Array, refuse_broadcast_write, window
from stridex._core.dtypes import FROM_NUMPY
from stridex._core.state import current_trace

# --- primitives --------------------------------------------------------------------------------

PRIMITIVES: dict[str, Primitive] = {}

# How the eager interpreter runs each kind of primitive:
#   "compute": impl(*numpy_windows, **params) -> ndarray (or tuple) in fresh memory
#   "view":    impl(View, **params) -> View over the same storage (O(1), no data touched)
#   "write":   impl(target_window, *input_windows, **params) writes into the target's storage
KINDS = ("compute", "view", "write")


class Primitive:
    """One operation and all its rules, in one record."""

    __slots__ = (
        "abstract_eval",
        "batch",
        "data_dependent",
        "differentiable",
        "eager",
        "impl",
        "jvp",
        "kind",
        "lower",
        "multiple_results",
        "name",
        "transpose",
        "vjp",
    )

    def __init__(self, name: str, *, kind: str = "compute", impl, abstract_eval, lower=None, jvp=None,
                 transpose=None, vjp=None, batch=None, differentiable: bool = True,
                 multiple_results: bool = False, data_dependent: bool = False):
        if name in PRIMITIVES:
            raise ValueError(f"primitive {name!r} is registered twice")
        if kind not in KINDS:
            raise ValueError(f"primitive kind must be one of {KINDS}, got {kind!r}")
        self.name = name
        self.kind = kind
        self.impl = impl
        self.abstract_eval = abstract_eval
        self.lower = lower
        self.jvp = jvp
        self.transpose = transpose
        self.vjp = vjp
        self.batch = batch
        self.differentiable = differentiable
        self.multiple_results = multiple_results
        self.data_dependent = data_dependent
        self.eager = _eager_compute_many if kind == "compute" and multiple_results else _EAGER[kind]
        PRIMITIVES[name] = self

    def __repr__(self):
        return f"Primitive({self.name})"

    def bind(self, *args, **params):
        trace = current_trace()
        if trace is None:
            return self.eager(self, args, params)
        return trace.process(self, args, params)


def primitive(name: str, **rules) -> Primitive:
    return Primitive(name, **rules)


# --- the eager interpreter ---------------------------------------------------------------------


def _eager_compute(prim, args, params):
    # The hot path of every eager operation: keep it free of generic machinery.
    if len(args) == 2:
        a, b = args
        if type(a) is Array:
            wa = a._np
            if wa is None:
                wa = window(a)
        else:
            wa = _eager_operand(prim, a)
        if type(b) is Array:
            wb = b._np
            if wb is None:
                wb = window(b)
        else:
            wb = _eager_operand(prim, b)
        out = prim.impl(wa, wb, **params) if params else prim.impl(wa, wb)
        if type(out) is np.ndarray and out.base is None:
            result = object.__new__(Array)
            result._np = out
            result._storage = None
            result._view = None
            result._dtype = FROM_NUMPY[out.dtype]
            return result
        return _wrap(out, (wa, wb))
    wins = _windows(prim, args)
    out = prim.impl(*wins, **params) if params else prim.impl(*wins)
    if type(out) is np.ndarray and out.base is None:
        return Array._from_numpy(out)
    return _wrap(out, wins)


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
        w = w.base
    return False


def _eager_view(prim, args, params):
    (x,) = args
    storage, view = x._storage_view()
    return Array._make(storage, prim.impl(view, **params), x._dtype)


def _eager_write(prim, args, params):
    target = args[0]
    storage = target._storage
    if storage is None or storage.readonly:
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
