"""The `debug` extension: printing and host callbacks that see the values a program computes, as `jax.debug`.

`print` and `callback` work eagerly, under `jit` (on every call of the compiled program, with the call's
values; not while tracing), under `vmap` (once per member, in order) and under `grad`/`jvp` (the primal values).
`stridex/_lax/callbacks.py` holds the primitive they bind.

>>> import stridex as sx
>>> f = sx.jit(lambda x: sx.debug.print("x = {}", x) or x + 1)
>>> _ = f(sx.asarray(1.0))
x = 1.0
>>> _ = f(sx.asarray(2.0))
x = 2.0
"""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

from stridex._core import tree as _tree
from stridex._core.array import Array
from stridex._transforms.callbacks import debug_callback as callback

__all__ = ["callback", "print"]


def print(fmt: str, *args: Any, ordered: bool = True, **kwargs: Any) -> None:  # noqa: A001  (JAX's name)
    """Print `fmt.format(*args, **kwargs)` with the values the arguments have when the program runs (a format
    spec such as `{x:.3f}` works on 0-D arrays). Under `jit` it prints on every call, in program order with the
    other prints (`ordered=False` lets XLA order them as it likes, as `jax.debug.print` does by default; a
    program over several devices, `jit` with shardings, prints unordered, as JAX orders effects on one only).

    >>> import stridex as sx
    >>> _ = sx.vmap(lambda v: sx.debug.print("member {v}", v=v) or v)(sx.asarray([1, 2]))
    member 1
    member 2
    """
    if not isinstance(fmt, str):
        raise TypeError(f"debug.print: the format must be a str, got {type(fmt).__name__}")

    def formatted(*values: Any, **named: Any) -> None:
        # (arrays as NumPy shows them, as `jax.debug.print` shows JAX's: 0-D `1.0`, where an Array's str is `1.`)
        values, named = _tree.tree_map(_as_numpy, (values, named))
        builtins.print(fmt.format(*values, **named))

    callback(formatted, *args, ordered=ordered, **kwargs)


def _as_numpy(value: Any) -> Any:
    return np.asarray(value) if isinstance(value, Array) else value
