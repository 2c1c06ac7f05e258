"""The spec's transcendental elementwise functions (exp/log, powers and roots, trigonometric, hyperbolic).

Each validates its arguments the way the spec says, then binds one primitive of
`stridex._lax.transcendental`; the special cases live in those primitives.
"""

from __future__ import annotations

from stridex._api.elementwise_functions import _binary, _unary
from stridex._core import dtypes as _dtypes
from stridex._core.array import Array
from stridex._lax import transcendental as _p

__all__ = ["acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "cos", "cosh", "exp", "expm1", "hypot",
           "log", "log1p", "log2", "log10", "logaddexp", "pow", "sin", "sinh", "sqrt", "tan", "tanh"]

# Note: the spec asks for floating-point inputs here; integer and boolean arrays raise TypeError (as in
# array-api-strict) instead of being computed in float64 as NumPy does.
# (The extended categories: the half types are accepted wherever the spec's floating types are.)
_FLOATING = frozenset(_dtypes.EXTENDED_CATEGORIES["floating-point"])
_REAL_FLOATING = frozenset(_dtypes.EXTENDED_CATEGORIES["real floating"])
_NUMERIC = frozenset(_dtypes.EXTENDED_CATEGORIES["numeric"])
_FLOATING_NAME = "floating-point"
_REAL_FLOATING_NAME = "real-valued floating-point"


def _real_binary(prim, x1, x2):
    """A binary function of real floating-point operands: Python complex operands are refused too."""
    if type(x1) is complex or type(x2) is complex:
        raise TypeError(f"{prim.name} requires real-valued floating-point operands, got a Python complex")
    return _binary(prim, _REAL_FLOATING, _REAL_FLOATING_NAME, x1, x2)


def acos(x: Array, /) -> Array:
    """Principal value of the inverse cosine, elementwise, in radians.

    >>> import stridex as sx
    >>> sx.acos(sx.asarray([1.0, -1.0]))
    Array([0.        , 3.14159265])
    """
    return _unary(_p.acos, _FLOATING, _FLOATING_NAME, x)


def acosh(x: Array, /) -> Array:
    """Inverse hyperbolic cosine, elementwise.

    >>> import stridex as sx
    >>> sx.acosh(sx.asarray([1.0]))
    Array([0.])
    """
    return _unary(_p.acosh, _FLOATING, _FLOATING_NAME, x)


def asin(x: Array, /) -> Array:
    """Principal value of the inverse sine, elementwise, in radians.

    >>> import stridex as sx
    >>> sx.asin(sx.asarray([0.0, 1.0]))
    Array([0.        , 1.57079633])
    """
    return _unary(_p.asin, _FLOATING, _FLOATING_NAME, x)


def asinh(x: Array, /) -> Array:
    """Inverse hyperbolic sine, elementwise.

    >>> import stridex as sx
    >>> sx.asinh(sx.asarray([0.0]))
    Array([0.])
    """
    return _unary(_p.asinh, _FLOATING, _FLOATING_NAME, x)


def atan(x: Array, /) -> Array:
    """Principal value of the inverse tangent, elementwise, in radians.

    >>> import stridex as sx
    >>> sx.atan(sx.asarray([0.0, 1.0]))
    Array([0.        , 0.78539816])
    """
    return _unary(_p.atan, _FLOATING, _FLOATING_NAME, x)


def atan2(x1: Array | int | float, x2: Array | int | float, /) -> Array:
    """Inverse tangent of `x1 / x2` with the quadrant taken from both signs (`x1` is the y-coordinate).

    >>> import stridex as sx
    >>> sx.atan2(sx.asarray([1.0, -1.0]), -1.0)
    Array([ 2.35619449, -2.35619449])
    """
    return _real_binary(_p.atan2, x1, x2)


def atanh(x: Array, /) -> Array:
    """Inverse hyperbolic tangent, elementwise.

    >>> import stridex as sx
    >>> sx.atanh(sx.asarray([0.0, 1.0]))
    Array([ 0., inf])
    """
    return _unary(_p.atanh, _FLOATING, _FLOATING_NAME, x)


def cos(x: Array, /) -> Array:
    """Cosine of angles in radians, elementwise.

    >>> import stridex as sx
    >>> sx.cos(sx.asarray([0.0]))
    Array([1.])
    """
    return _unary(_p.cos, _FLOATING, _FLOATING_NAME, x)


def cosh(x: Array, /) -> Array:
    """Hyperbolic cosine, elementwise.

    >>> import stridex as sx
    >>> sx.cosh(sx.asarray([0.0]))
    Array([1.])
    """
    return _unary(_p.cosh, _FLOATING, _FLOATING_NAME, x)


def exp(x: Array, /) -> Array:
    """Exponential `e ** x`, elementwise.

    >>> import stridex as sx
    >>> sx.exp(sx.asarray([0.0, 1.0]))
    Array([1.        , 2.71828183])
    """
    return _unary(_p.exp, _FLOATING, _FLOATING_NAME, x)


def expm1(x: Array, /) -> Array:
    """`exp(x) - 1`, accurate for small `x`, elementwise.

    >>> import stridex as sx
    >>> sx.expm1(sx.asarray([1e-10]))
    Array([1.e-10])
    """
    return _unary(_p.expm1, _FLOATING, _FLOATING_NAME, x)


def hypot(x1: Array | int | float, x2: Array | int | float, /) -> Array:
    """`sqrt(x1**2 + x2**2)` without undue overflow or underflow, elementwise.

    >>> import stridex as sx
    >>> sx.hypot(sx.asarray([3.0, 1e300]), 4.0)
    Array([5.e+000, 1.e+300])
    """
    return _real_binary(_p.hypot, x1, x2)


def log(x: Array, /) -> Array:
    """Natural logarithm, elementwise.

    >>> import stridex as sx
    >>> sx.log(sx.asarray([1.0, 0.0]))
    Array([  0., -inf])
    """
    return _unary(_p.log, _FLOATING, _FLOATING_NAME, x)


def log1p(x: Array, /) -> Array:
    """`log(1 + x)`, accurate for small `x`, elementwise.

    >>> import stridex as sx
    >>> sx.log1p(sx.asarray([1e-10]))
    Array([1.e-10])
    """
    return _unary(_p.log1p, _FLOATING, _FLOATING_NAME, x)


def log2(x: Array, /) -> Array:
    """Base-2 logarithm, elementwise.

    >>> import stridex as sx
    >>> sx.log2(sx.asarray([8.0]))
    Array([3.])
    """
    return _unary(_p.log2, _FLOATING, _FLOATING_NAME, x)


def log10(x: Array, /) -> Array:
    """Base-10 logarithm, elementwise.

    >>> import stridex as sx
    >>> sx.log10(sx.asarray([1000.0]))
    Array([3.])
    """
    return _unary(_p.log10, _FLOATING, _FLOATING_NAME, x)


def logaddexp(x1: Array | int | float, x2: Array | int | float, /) -> Array:
    """`log(exp(x1) + exp(x2))` without overflow, elementwise.

    >>> import stridex as sx
    >>> sx.logaddexp(sx.asarray([1000.0]), 1000.0)
    Array([1000.69314718])
    """
    return _real_binary(_p.logaddexp, x1, x2)


def pow(x1: Array | int | float | complex, x2: Array | int | float | complex, /) -> Array:
    """`x1` raised to the power `x2`, elementwise (numeric dtypes; Python scalars are weakly typed).

    Integer bases to negative integer exponents give the truncated value of `1 / x1 ** -x2`.

    >>> import stridex as sx
    >>> sx.pow(sx.asarray([1, 2, 3]), 2)
    Array([1, 4, 9])
    """
    return _binary(_p.pow, _NUMERIC, "numeric", x1, x2)


def sin(x: Array, /) -> Array:
    """Sine of angles in radians, elementwise.

    >>> import stridex as sx
    >>> sx.sin(sx.asarray([0.0]))
    Array([0.])
    """
    return _unary(_p.sin, _FLOATING, _FLOATING_NAME, x)


def sinh(x: Array, /) -> Array:
    """Hyperbolic sine, elementwise.

    >>> import stridex as sx
    >>> sx.sinh(sx.asarray([0.0]))
    Array([0.])
    """
    return _unary(_p.sinh, _FLOATING, _FLOATING_NAME, x)


def sqrt(x: Array, /) -> Array:
    """Principal square root, elementwise (correctly rounded for real inputs).

    >>> import stridex as sx
    >>> sx.sqrt(sx.asarray([4.0, -1.0 + 0j]))
    Array([2.+0.j, 0.+1.j])
    """
    return _unary(_p.sqrt, _FLOATING, _FLOATING_NAME, x)


def tan(x: Array, /) -> Array:
    """Tangent of angles in radians, elementwise.

    >>> import stridex as sx
    >>> sx.tan(sx.asarray([0.0]))
    Array([0.])
    """
    return _unary(_p.tan, _FLOATING, _FLOATING_NAME, x)


def tanh(x: Array, /) -> Array:
    """Hyperbolic tangent, elementwise.

    >>> import stridex as sx
    >>> sx.tanh(sx.asarray([0.0, float("inf")]))
    Array([0., 1.])
    """
    return _unary(_p.tanh, _FLOATING, _FLOATING_NAME, x)
