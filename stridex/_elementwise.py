"""The spec's elementwise functions: argument checks and dtype rules, then one primitive each."""

from __future__ import annotations

from . import _dtypes
from ._array import Array
from ._primitives import elementwise as _p

__all__ = ["add"]

_NUMERIC = frozenset(_dtypes.NUMERIC_DTYPES)
_PY_SCALARS = (bool, int, float, complex)


def _check_scalar(dtype, value, name: str):
    """A Python scalar operand must be of a kind the array's dtype can hold (the spec's scalar rules)."""
    if isinstance(value, bool):
        return
    if isinstance(value, int):
        if dtype is _dtypes.bool:
            raise TypeError(f"{name}: Python int operand with an array of dtype bool")
        return
    if isinstance(value, float) and dtype.kind in ("bool",):
        raise TypeError(f"{name}: Python float operand with an array of dtype bool")
    if isinstance(value, complex) and dtype.kind in ("bool", "signed", "unsigned"):
        raise TypeError(f"{name}: Python complex operand with an array of dtype {dtype.name}")


def _binary(prim, allowed: frozenset, category: str, x1, x2):
    t1, t2 = type(x1), type(x2)
    if t1 is Array and t2 is Array:
        d1, d2 = x1._dtype, x2._dtype
        if d1 not in allowed or d2 not in allowed:
            bad = d1 if d1 not in allowed else d2
            raise TypeError(f"{prim.name} requires {category} dtypes, got {bad.name}")
        return prim.bind(x1, x2)
    return _binary_slow(prim, allowed, category, x1, x2)


def _binary_slow(prim, allowed, category, x1, x2):
    arrays = [x for x in (x1, x2) if isinstance(x, Array)]
    if not arrays:
        raise TypeError(f"{prim.name} requires at least one array argument, got "
                        f"{type(x1).__name__} and {type(x2).__name__}")
    for x in (x1, x2):
        if isinstance(x, Array):
            if x.dtype not in allowed:
                raise TypeError(f"{prim.name} requires {category} dtypes, got {x.dtype.name}")
        elif isinstance(x, _PY_SCALARS):
            _check_scalar(arrays[0].dtype, x, prim.name)
        else:
            raise TypeError(f"{prim.name} takes arrays or Python scalars, got {type(x).__name__}")
    return prim.bind(x1, x2)


def _unary(prim, allowed: frozenset, category: str, x, **params):
    """Validate a one-argument elementwise call (an array of an `allowed` dtype), then bind `prim`."""
    if type(x) is not Array and not isinstance(x, Array):
        raise TypeError(f"{prim.name} takes an array, got {type(x).__name__}")
    if x._dtype not in allowed:
        raise TypeError(f"{prim.name} requires {category} dtypes, got {x._dtype.name}")
    return prim.bind(x, **params)


def add(x1, x2, /):
    """Elementwise sum, broadcasting `x1` and `x2`.

    >>> import stridex as sx
    >>> sx.add(sx.asarray([1, 2]), 3)
    Array([4, 5])
    """
    return _binary(_p.add, _NUMERIC, "numeric", x1, x2)
