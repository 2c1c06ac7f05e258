"""Structured control flow: `cond`/`switch`, `while_loop`/`fori_loop` and `scan` as higher-order primitives.

Eagerly (no trace active) each runs the user's Python functions directly: a Python `if`, `while` or `for`.
Under a trace (`jit`, `grad`, `vmap`, ...) each branch or body is traced once, by the sub-program tracer
(`subprogram.trace_function`), into a sub-program of stridex's IR, and one primitive holding the sub-programs
in its params is bound: `cond` (an index and a tuple of branch programs), `while` (a cond and a body program)
and `scan` (a body program, the length, the direction and the unroll factor). The IR's size does not depend on
the trip count.

Closure conversion and writes into closed-over arrays are the tracer's (`subprogram.py`); here the bases a
body writes become extra carry of a loop (after the user's carry), those any branch writes extra outputs of
every branch, and the outer buffers take their new values after the primitive (`subprogram.write_outer`).

The primitives and their rules are `control_primitives`'s. Each primitive's rules (JVP, VJP, batching) are
written with the same functions: they trace Python functions that evaluate the sub-programs under `jvp`, `vjp` or
`vmap`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import numpy as np

from stridex._core import dtypes as _dtypes
from stridex._core import tree as _tree
from stridex._core.array import Array
from stridex._core.avals import value_aval
from stridex._core.state import current_trace
from stridex._lax import ops
from stridex._transforms.tracing import Tracer
from stridex._transforms.control_primitives import (
    _as,
    _check_types,
    _fit_weak,
    _fn_name,
    _scan_flat,
    _switch_flat,
    _while_flat,
    leaf_paths,
)


# --- the public functions -----------------------------------------------------------------------------


def _as_carry(x):
    """A carry leaf as an array: a Python scalar becomes a 0-D array of its default dtype (as `asarray`)."""
    if isinstance(x, Array):
        return x
    if isinstance(x, (bool, int, float, complex)):
        return ops.full((), x, value_aval(x).dtype)  # (traced, a `full` in the program, not an input per call)
    raise TypeError(f"a loop carry must hold arrays or Python scalars, got {type(x).__name__}")


T = TypeVar("T")
R = TypeVar("R")
Carry = TypeVar("Carry")
Y = TypeVar("Y")


def cond(pred: Any, true_fun: Callable[..., R], false_fun: Callable[..., R], *operands: Any) -> R:
    """`true_fun(*operands)` if `pred` else `false_fun(*operands)`.

    Eagerly a Python `if`. Traced, both branches are traced into sub-programs and one `cond` primitive
    chooses at run time; they must return the same structure, shapes and dtypes. A branch may write into its
    operands (or arrays it closes over): the written arrays are written after the `cond`, as eagerly.

    >>> import stridex as sx
    >>> f = sx.jit(lambda x: sx.cond(x[0] > 0, lambda v: v * 2, lambda v: -v, x))
    >>> f(sx.asarray([1.0, 3.0]))
    Array([2., 6.])
    """
    if isinstance(pred, Array) and pred.shape != ():
        raise TypeError(f"cond: pred must be a scalar, got an array of shape {pred.shape}; use where for "
                        "elementwise selection")
    if isinstance(pred, Array) and pred.dtype is not _dtypes.bool and not isinstance(pred, Tracer):
        pred = ops.not_equal(pred, 0)
    elif isinstance(pred, Tracer) and pred.dtype is not _dtypes.bool:
        pred = ops.not_equal(pred, 0)
    if not isinstance(pred, Tracer):
        return true_fun(*operands) if bool(pred) else false_fun(*operands)
    labels = [f"false_fun `{_fn_name(false_fun)}`", f"true_fun `{_fn_name(true_fun)}`"]
    return _switch_flat(pred, [false_fun, true_fun], list(operands), "cond", names=leaf_paths, labels=labels,
                        out_tree=True)


def switch(index: Any, branches: Sequence[Callable[..., R]], *operands: Any) -> R:
    """`branches[index](*operands)`, with `index` clamped to the valid range (as `jax.lax.switch`).

    >>> import stridex as sx
    >>> sx.switch(1, [lambda x: x + 1, lambda x: x * 10], sx.asarray(2.0))
    Array(20.)
    """
    branches = list(branches)
    if not branches:
        raise ValueError("switch: branches must not be empty")
    if isinstance(index, Array) and (index.shape != () or index.dtype.kind not in ("signed", "unsigned")):
        raise TypeError(f"switch: the index must be an integer scalar, got {index.dtype} of shape {index.shape}")
    if not isinstance(index, Tracer):
        k = min(max(int(index), 0), len(branches) - 1)
        return branches[k](*operands)
    index = ops.minimum(ops.maximum(index, 0), len(branches) - 1)
    labels = [f"branch {k} `{_fn_name(b)}`" for k, b in enumerate(branches)]
    return _switch_flat(index, branches, list(operands), "switch", names=leaf_paths, labels=labels, out_tree=True)


def while_loop(cond_fun: Callable[[T], Any], body_fun: Callable[[T], T], init_val: T) -> T:
    """`val = init_val; while cond_fun(val): val = body_fun(val)`; returns `val`.

    Traced, `cond_fun` and `body_fun` are traced once each into sub-programs (the IR does not grow with the
    number of iterations). `body_fun` must return the structure, shapes and dtypes it is given. Forward-mode
    derivatives work through it; reverse mode needs a bound: use `scan` or `fori_loop` with static bounds.

    >>> import stridex as sx
    >>> sx.while_loop(lambda c: c < 10, lambda c: c * 2, sx.asarray(1))
    Array(16)
    """
    leaves, treedef = _tree.flatten(init_val)
    leaves = [_as_carry(x) for x in leaves]
    names = leaf_paths(init_val)
    body_what = f"the body_fun `{_fn_name(body_fun)}` of while_loop"
    cond_what = f"the cond_fun `{_fn_name(cond_fun)}` of while_loop"

    def cond_fn(c):
        return cond_fun(_tree.unflatten(treedef, c))

    def body_fn(c):
        out = body_fun(_tree.unflatten(treedef, c))
        out_leaves, out_def = _tree.flatten(out)
        _check_structure(body_what, treedef, out_def, len(leaves), len(out_leaves))
        return out_leaves

    if current_trace() is None:
        out = _while_flat(cond_fn, lambda c: _checked_eager(body_fn(c), c, names, body_what), leaves, body_what)
    else:
        out = _while_flat(cond_fn, body_fn, leaves, body_what, names=names, cond_what=cond_what)
    return _tree.unflatten(treedef, out)  # type: ignore[return-value]  # (the tree the user's function gave: a T)


def fori_loop(lower: Any, upper: Any, body_fun: Callable[[Any, T], T], init_val: T, *,
              unroll: int | bool | None = None) -> T:
    """`val = init_val; for i in range(lower, upper): val = body_fun(i, val)`; returns `val`.

    With Python-int bounds the loop is a `scan` (reverse-mode derivatives work); with traced bounds, a
    `while_loop`. The body may write into arrays it closes over, exactly as the Python loop would:

    >>> import stridex as sx
    >>> buf = sx.zeros(4)
    >>> def fill():
    ...     def body(i, c):
    ...         buf[i] = c
    ...         return c * 2
    ...     return sx.fori_loop(0, 4, body, sx.asarray(1.0))
    >>> _ = sx.jit(fill)()
    >>> buf
    Array([1., 2., 4., 8.])
    """
    leaves, treedef = _tree.flatten(init_val)
    leaves = [_as_carry(x) for x in leaves]
    names = leaf_paths(init_val)
    what = f"the body_fun `{_fn_name(body_fun)}` of fori_loop"

    def step(i, c):
        out = body_fun(i, _tree.unflatten(treedef, c))
        out_leaves, out_def = _tree.flatten(out)
        _check_structure(what, treedef, out_def, len(leaves), len(out_leaves))
        return out_leaves

    static = _static_int(lower) is not None and _static_int(upper) is not None
    if current_trace() is None:
        lo, hi = int(lower), int(upper)
        carry = leaves
        for i in range(lo, hi):
            carry = _checked_eager(step(i, carry), carry, names, what)
        return _tree.unflatten(treedef, carry)  # type: ignore[return-value]  # (the tree the user's function gave: a T)
    if static:
        lo, hi = _static_int(lower), _static_int(upper)

        def scan_step(c, _):
            i, rest = c[0], c[1:]
            return [i + 1] + step(i, rest), []

        out, _ = _scan_flat(scan_step, [lo] + leaves, [], max(hi - lo, 0), False, 1 if unroll is None else unroll,
                            what, names=["(the loop index)"] + names)
        return _tree.unflatten(treedef, out[1:])  # type: ignore[return-value]  # (the tree the user's function gave: a T)

    def cond_fn(c):
        return c[0] < upper

    def body_fn(c):
        return [c[0] + 1] + step(c[0], c[1:])

    out = _while_flat(cond_fn, body_fn, [lower] + leaves, what, names=["(the loop index)"] + names,
                      cond_what=f"the bounds check of fori_loop")
    return _tree.unflatten(treedef, out[1:])  # type: ignore[return-value]  # (the tree the user's function gave: a T)


def _static_int(x):
    if isinstance(x, Tracer):
        return None
    if isinstance(x, (int, np.integer)) and not isinstance(x, bool):
        return int(x)
    if isinstance(x, Array) and x.shape == () and x.dtype.kind in ("signed", "unsigned"):
        return int(x)
    return None


def scan(f: Callable[[Carry, Any], tuple[Carry, Y]], init: Carry, xs: Any = None, length: int | None = None,
         reverse: bool = False, unroll: int | bool = 1) -> tuple[Carry, Y]:
    """Loop `f(carry, x) -> (carry, y)` over the leading axis of `xs`; returns `(carry, stacked ys)`.

    As `jax.lax.scan`: `xs` is a pytree of arrays with one leading length (or None, with `length=`), `reverse`
    scans from the end (the ys keep their order). Traced, `f` is traced once; reverse mode stores each step's
    carry and runs the body's VJP backwards.

    >>> import stridex as sx
    >>> carry, ys = sx.scan(lambda c, x: (c + x, c * x), sx.asarray(0.0), sx.asarray([1.0, 2.0, 3.0]))
    >>> carry, ys
    (Array(6.), Array([0., 2., 9.]))
    """
    leaves, treedef = _tree.flatten(init)
    leaves = [_as_carry(x) for x in leaves]
    names = leaf_paths(init)
    x_leaves, x_def = _tree.flatten(xs)
    for x in x_leaves:
        if not isinstance(x, Array) or x.ndim == 0:
            raise TypeError(f"scan: xs must hold arrays with a leading axis to scan over, got "
                            f"{getattr(x, 'shape', type(x).__name__)}")
    lengths = {x.shape[0] for x in x_leaves}
    if length is not None:
        lengths.add(int(length))
    if len(lengths) > 1:
        raise ValueError(f"scan: xs have different leading lengths (and length=): {sorted(lengths)}")
    if not lengths:
        raise ValueError("scan: with no xs, give the number of steps as length=")
    (n,) = lengths
    what = f"the body `{_fn_name(f)}` of scan"
    y_def: list = []

    def step(c, x):
        out = f(_tree.unflatten(treedef, c), _tree.unflatten(x_def, x) if x_leaves else None)
        if not isinstance(out, tuple) or len(out) != 2:
            raise TypeError(f"scan: {what} must return a pair (carry, y), got {type(out).__name__}")
        new, y = out
        out_leaves, out_def = _tree.flatten(new)
        _check_structure(what, treedef, out_def, len(leaves), len(out_leaves))
        y_leaves, yd = _tree.flatten(y)
        y_def[:] = [yd]
        return out_leaves, y_leaves

    if current_trace() is None:
        def checked(c, x):
            new, y = step(c, x)
            return _checked_eager(new, c, names, what), y
        carry, ys = _scan_flat(checked, leaves, x_leaves, n, bool(reverse), unroll, what)
    else:
        carry, ys = _scan_flat(step, leaves, x_leaves, n, bool(reverse), unroll, what, names=names)
    ys_tree = _tree.unflatten(y_def[0], ys) if y_def else None
    return _tree.unflatten(treedef, carry), ys_tree  # type: ignore[return-value]  # (the tree the user's function gave: a Carry and a Y)


def _check_structure(what, expected, got, n_expected, n_got):
    if expected != got:
        raise TypeError(f"{what} returns a carry of structure {_tree.unflatten(got, ['*'] * n_got)!r}, but the input "
                        f"carry has structure {_tree.unflatten(expected, ['*'] * n_expected)!r}")


def _checked_eager(new, old, names, what):
    """Eagerly, the same type check as traced: each output carry leaf has its input's shape and dtype."""
    avals = [value_aval(_as_carry(o)) for o in old]
    new = _fit_weak(list(new), avals)
    _check_types(what, names, avals, [value_aval(_as_carry(v)) for v in new], "the input carry", "the output carry")
    return [v if isinstance(v, Array) else _as(v, value_aval(o)) for v, o in zip(new, old)]


__all__ = ["cond", "fori_loop", "scan", "switch", "while_loop"]
