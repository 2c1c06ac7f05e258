"""The host executor: a primitive's eager rule on strided NumPy windows of its operands, run now.

Each rule takes (prim, args, params) and returns the result Array(s). A storage NumPy cannot reach (a JAX
device's) raises `OnDevice` as a window of it is asked for: `stridex._exec.route`, which called the rule, then
sends the application to the device executor. The kinds of rules (see `stridex._lax.primitive.KINDS`):

- `compute`: `impl(*windows, **params)` returns fresh memory (an ndarray), wrapped as a new Array;
- `compute_many`: the same with several results (a tuple);
- `write`: `impl(target_window, *windows, **params)` writes into the target's memory (copy-on-write first).

(A view's rule is metadata only, and needs the `copy` record where a layout cannot take the view: it stays with
the records, `stridex._lax.primitive`.)
"""

from __future__ import annotations

import numpy as np

from stridex._core.array import Array, refuse_broadcast_write, window
from stridex._core.storage import window_on

def compute(prim, args, params):
    """The host rule of a single-result compute primitive. (An elementwise one's two-operand case on small host
    windows never comes here: `stridex._exec.route.apply` runs it inline, its one hot path.)"""
    wins = windows(prim, args)
    out = prim.impl(*wins, **params) if params else prim.impl(*wins)
    if type(out) is np.ndarray and out.base is None:
        return Array._from_numpy(out)
    return wrap(out, wins)


def compute_many(prim, args, params):
    """The host rule of a primitive with several results (a tuple of fresh ndarrays)."""
    wins = windows(prim, args)
    return tuple(wrap(o, wins) for o in prim.impl(*wins, **params))


def write(prim, args, params):
    """The host rule of a write: into the target's memory (a copy first where it is read-only), returning it."""
    target = args[0]
    if target._storage.readonly:
        storage, view = target._storage_view()
        target_window = window_on(storage.writable(), view, target._dtype.np)  # copy-on-write happens here
    else:
        target_window = window(target)
    if 0 in target_window.strides:
        refuse_broadcast_write(target_window)
    prim.impl(target_window, *[window(a) if isinstance(a, Array) else a for a in args[1:]], **params)
    return target


def windows(prim, args) -> list:
    """The operands as the impl takes them: Arrays as NumPy windows, Python scalars as they are."""
    wins = []
    for a in args:
        if type(a) is Array:
            w = a._np
            wins.append(w if w is not None else window(a))
        else:
            wins.append(operand(prim, a))
    return wins


def operand(prim, a):
    """A non-Array operand (or an Array subclass) as the impl takes it."""
    if type(a) in _PY_SCALARS:
        return a
    if isinstance(a, Array):  # an Array subclass, e.g. a tracer that escaped its trace
        return a._eager_window(prim)
    return a


def wrap(out, wins):
    """A compute impl's result as a new Array over fresh memory (copied where NumPy returned a view of an input)."""
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


_PY_SCALARS = frozenset({bool, int, float, complex})
