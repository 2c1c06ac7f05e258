"""Host Python inside stridex programs: `pure_callback` and the debug callback behind `stridex.debug`.

Each takes a function and pytrees of arguments, and binds one primitive of `stridex._lax.callbacks` on the
arguments' leaves; the function receives the pytrees rebuilt, with stridex arrays (read-only, on the host) where
the arrays were. Eagerly the function runs at once; under `jit` it runs on every call of the compiled program;
under `vmap` once per member; under `grad` and `jvp` on the primal values.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from stridex._core import tree as _tree
from stridex._core.array import Array
from stridex._core.avals import ShapeDtypeStruct, ShapedArray
from stridex._lax import callbacks as _p

_SCALARS = (bool, int, float, complex)


def _name(fn) -> str:
    return getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or type(fn).__name__


def _operands(args: tuple, kwargs: dict) -> tuple[list, Any]:
    """The stridex array and Python number leaves of (args, kwargs), and a function rebuilding (args, kwargs)
    from the values the host function receives for them (other leaves, such as strings or NumPy arrays, are
    constants passed as they are)."""
    leaves, treedef = _tree.flatten((args, kwargs))
    positions = [i for i, leaf in enumerate(leaves) if isinstance(leaf, (Array, *_SCALARS))]

    def rebuild(values):
        full = list(leaves)
        for i, v in zip(positions, values):
            full[i] = v
        return _tree.unflatten(treedef, full)

    return [leaves[i] for i in positions], rebuild


def debug_callback(callback: Callable[..., Any], *args: Any, ordered: bool = False, **kwargs: Any) -> None:
    """Call `callback(*args, **kwargs)` on the host for its effect, with the values the arguments have when the
    program runs: eagerly at once, under `jit` on every call of the compiled program (`ordered=True`: in program
    order with the other ordered callbacks), under `vmap` once per member, under `grad` with the primal values.
    Its result is ignored.

    >>> import stridex as sx
    >>> seen = []
    >>> f = sx.jit(lambda x: (sx.debug.callback(lambda v: seen.append(float(v)), x * 2), x)[1])
    >>> _ = f(sx.asarray(1.0)), f(sx.asarray(3.0))
    >>> seen
    [2.0, 6.0]
    """
    if not callable(callback):
        raise TypeError(f"debug.callback: the callback must be callable, got {type(callback).__name__}")
    operands, rebuild = _operands(args, kwargs)

    def host(*values):
        call_args, call_kwargs = rebuild(values)
        callback(*call_args, **call_kwargs)

    _p.debug_callback.bind(*operands, callback=_p.HostFunction(host, _name(callback)), ordered=bool(ordered))


def _result_avals(result_shape_dtypes) -> tuple[list[ShapedArray], Any]:
    leaves, treedef = _tree.flatten(result_shape_dtypes)
    avals = []
    for leaf in leaves:
        if isinstance(leaf, Array):
            avals.append(ShapedArray(leaf.shape, leaf.dtype))
            continue
        spec = leaf if isinstance(leaf, ShapeDtypeStruct) else ShapeDtypeStruct.of(leaf, "pure_callback")
        avals.append(ShapedArray(spec.shape, spec.dtype))
    return avals, treedef


def pure_callback(callback: Callable[..., Any], result_shape_dtypes: Any, *args: Any, sharding: Any = None,
                  vmap_method: str | None = None, **kwargs: Any) -> Any:
    """Call a pure host function `callback(*args, **kwargs)` inside stridex programs, as `jax.pure_callback`.

    `result_shape_dtypes` is a pytree of `ShapeDtypeStruct`s (or arrays) declaring what `callback` returns:
    a pytree of that structure, each array of exactly that shape and dtype. The function receives stridex
    arrays on the host. It is assumed pure: a compiled program may call it any number of times, or not at
    all when its results are unused. Under `vmap`, `vmap_method` says how it takes a batch: "sequential"
    (once per member), "expand_dims" (once, batched arguments with the batch axis first, the others with a
    leading axis of length 1), "broadcast_all" (once, every argument batched), "legacy_vectorized" (once,
    the others as they are); None raises NotImplementedError there, as in JAX. It has no derivative: given a
    value that carries one, it raises ValueError (give it one with `custom_jvp`).

    >>> import numpy as np, stridex as sx
    >>> def host_sinc(x):
    ...     return np.sinc(np.asarray(x))
    >>> f = sx.jit(lambda x: sx.pure_callback(host_sinc, sx.ShapeDtypeStruct(x.shape, x.dtype), x) * 2)
    >>> f(sx.asarray([0.0, 0.5]))
    Array([2.        , 1.27323954])
    """
    if not callable(callback):
        raise TypeError(f"pure_callback: the callback must be callable, got {type(callback).__name__}")
    if sharding is not None:
        raise NotImplementedError("pure_callback: sharding= is not supported; the callback runs where the program "
                                  "places it")
    if vmap_method is not None and vmap_method not in _p.VMAP_METHODS:
        raise ValueError(f"pure_callback: vmap_method must be one of {', '.join(map(repr, _p.VMAP_METHODS))} or "
                         f"None, got {vmap_method!r}")
    avals, out_def = _result_avals(result_shape_dtypes)
    operands, rebuild = _operands(args, kwargs)
    name = _name(callback)

    def host(*values):
        call_args, call_kwargs = rebuild(values)
        results = callback(*call_args, **call_kwargs)
        leaves, treedef = _tree.flatten(results)
        if treedef != out_def:
            raise TypeError(f"pure_callback {name} returned a result of another structure than result_shape_dtypes "
                            f"declares: {len(leaves)} leaves where {len(avals)} were declared")
        return leaves

    outs = _p.pure_callback.bind(*operands, callback=_p.HostFunction(host, name), result_avals=tuple(avals),
                                 vmap_method=vmap_method)
    return _tree.unflatten(out_def, list(outs))
