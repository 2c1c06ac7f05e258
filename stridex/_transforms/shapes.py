"""`eval_shape`: the shapes and dtypes a function returns, from tracing it alone (nothing is computed)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from stridex._core import tree as _tree
from stridex._core.array import Array
from stridex._core.avals import ShapeDtypeStruct, ShapedArray, aval_of
from stridex._transforms.tracing import Tracer, trace_to_program

_SCALARS = (bool, int, float, complex)


def _spec(leaf) -> ShapeDtypeStruct:
    if isinstance(leaf, Tracer):
        aval = leaf.aval
        return ShapeDtypeStruct(aval.shape, aval.dtype, weak_type=aval.weak_type)
    if isinstance(leaf, _SCALARS):
        aval = aval_of(leaf)
        return ShapeDtypeStruct(aval.shape, aval.dtype, weak_type=True)
    if isinstance(leaf, (Array, ShapeDtypeStruct)) or (hasattr(leaf, "shape") and hasattr(leaf, "dtype")):
        return ShapeDtypeStruct.of(leaf, "eval_shape")
    raise TypeError(f"eval_shape: the function returned a leaf of type {type(leaf).__name__}, which is not an array")


def eval_shape(fun: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """What `fun(*args, **kwargs)` returns, as a pytree of `ShapeDtypeStruct`s, found by tracing `fun` once on
    abstract values: no operation runs, no program is compiled, and nothing is written into the arguments.

    Arguments are pytrees whose leaves are arrays, `ShapeDtypeStruct`s (or anything with `shape` and `dtype`,
    such as a NumPy or JAX array: only those are read) and Python numbers (weakly typed, as under `jit`); other
    leaves are passed to `fun` as they are. As under `jit`, a Python decision on a traced value is a
    ConcretizationTypeError and an operation whose output shape depends on the data a DataDependentShapeError.

    >>> import stridex as sx
    >>> x = sx.ShapeDtypeStruct((1000, 3), sx.float32)
    >>> sx.eval_shape(lambda x, w: {"y": x @ w, "n": sx.sum(x)}, x, sx.ShapeDtypeStruct((3, 2), sx.float32))
    {'n': ShapeDtypeStruct(shape=(), dtype=float32), 'y': ShapeDtypeStruct(shape=(1000, 2), dtype=float32)}
    """
    if not callable(fun):
        raise TypeError(f"eval_shape: expected a function, got {type(fun).__name__}")
    leaves, treedef = _tree.flatten((args, kwargs))
    positions, avals = [], []
    for i, leaf in enumerate(leaves):
        if isinstance(leaf, Tracer):  # (inside another transformation: its abstract value)
            positions.append(i)
            avals.append(ShapedArray(leaf.shape, leaf.dtype, leaf.aval.weak_type))
        elif isinstance(leaf, _SCALARS):
            positions.append(i)
            avals.append(aval_of(leaf))
        elif isinstance(leaf, (Array, ShapeDtypeStruct)) or (hasattr(leaf, "shape") and hasattr(leaf, "dtype")):
            spec = ShapeDtypeStruct.of(leaf, "eval_shape")
            positions.append(i)
            avals.append(ShapedArray(spec.shape, spec.dtype, spec.weak_type))

    def flat_fun(*tracers):
        full = list(leaves)
        for i, t in zip(positions, tracers):
            full[i] = t
        call_args, call_kwargs = _tree.unflatten(treedef, full)
        return fun(*call_args, **call_kwargs)

    trace, _, out = trace_to_program(flat_fun, avals)
    try:
        out_leaves, out_def = _tree.flatten(out)
        return _tree.unflatten(out_def, [_spec(leaf) for leaf in out_leaves])
    finally:
        trace.finished = True
