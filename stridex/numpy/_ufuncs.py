"""Elementwise functions with jax.numpy's names and dtype rules: the standard's functions under NumPy's names (a
table), and the ones beyond the standard (cbrt, fmod, frexp, heaviside, isclose, nan_to_num, ...) composed of
stridex's operations.

jax.numpy computes integer and boolean inputs of inexact functions (`sqrt`, `sin`, `divide`) in float32 up to
32-bit integers and float64 for 64-bit ones; numeric functions (`square`, `power`, `floor_divide`) take a
boolean input as int32; `add`, `maximum` and `multiply`, `minimum` of booleans are `or` and `and`."""

from __future__ import annotations

import math
from collections.abc import Callable

from stridex._api import creation_functions as _cr
from stridex._api import data_type_functions as _dt
from stridex._api import elementwise_functions as _ew
from stridex._api import manipulation_functions as _manip
from stridex._api import searching_functions as _search
from stridex._api import statistical_functions as _stat
from stridex._api import transcendental_functions as _tr
from stridex._api import utility_functions as _util
from stridex._core.view import broadcast_shapes
from stridex._core import dtypes as _d
from stridex._core.array import Array
from stridex._lax import elementwise as _pe
from stridex._lax import transcendental as _pt
from stridex.numpy import _args
from stridex.numpy import _dtypes as _jd

__all__ = [
    "abs", "absolute", "acos", "acosh", "add", "allclose", "angle", "arccos", "arccosh", "arcsin", "arcsinh",
    "arctan", "arctan2", "arctanh", "around", "array_equal", "array_equiv", "asin", "asinh", "atan", "atan2",
    "atanh", "bitwise_and", "bitwise_count", "bitwise_invert", "bitwise_left_shift", "bitwise_not", "bitwise_or",
    "bitwise_right_shift", "bitwise_xor", "cbrt", "ceil", "clip", "conj", "conjugate", "copysign", "cos", "cosh",
    "deg2rad", "degrees", "divide", "divmod", "equal", "exp", "exp2", "expm1", "fabs", "float_power", "floor",
    "floor_divide", "fmax", "fmin", "fmod", "frexp", "gcd", "greater", "greater_equal", "heaviside", "hypot",
    "imag", "invert", "isclose", "iscomplex", "isfinite", "isinf", "isnan", "isneginf", "isposinf", "isreal",
    "lcm", "ldexp", "left_shift", "less", "less_equal", "log", "log10", "log1p", "log2", "logaddexp",
    "logaddexp2", "logical_and", "logical_not", "logical_or", "logical_xor", "maximum", "minimum", "mod", "modf",
    "multiply", "nan_to_num", "negative", "nextafter", "not_equal", "packbits", "positive", "pow", "power", "rad2deg",
    "radians", "real", "reciprocal", "remainder", "right_shift", "rint", "round", "sign", "signbit", "sin", "sinc",
    "sinh", "spacing", "sqrt", "square", "subtract", "tan", "tanh", "true_divide", "trunc", "unpackbits",
]

# How a function's arguments are promoted before it runs (after JAX's lattice joins them):
SAME = "same"  # the promoted dtype
INEXACT = "inexact"  # integers and bool to float32/float64 (jax's `to_inexact_dtype`)
NUMERIC = "numeric"  # bool to int32 (jax's `to_numeric_dtype`)
TRUTH = "truth"  # each argument's truth value (the logical functions take any dtype)
# What a boolean input does where the promoted dtype stays bool (None: the standard function decides, which
# raises TypeError where jax.numpy does too: negative, sign, subtract of booleans):
COPY = "copy"  # the value itself (abs, floor, real, ... of a boolean)
ZEROS = "zeros"  # all False (imag of a boolean)
OR, AND = "or", "and"  # add/maximum, multiply/minimum
SMALL_INT = "int8"  # computed on int8 (comparisons and predicates whose answer is the same)


def _make_unary(name: str, fn: Callable, promotion: str, bools: str | None, doc: str) -> Callable:
    to = _jd.TO_INEXACT if promotion == INEXACT else _jd.TO_NUMERIC if promotion == NUMERIC else None
    # The dtypes an array is passed on with as it is (no promotion, no boolean rule): one set lookup on the
    # common path, where the general one costs several microseconds.
    direct = frozenset(d for d in _d.EXTENDED_DTYPES if promotion != TRUTH and (to is None or to[d] is d)
                       and not (d is _d.bool and bools is not None))
    array_type = Array

    def function(x, /):
        if type(x) is array_type and x._dtype in direct:
            return fn(x)
        x = _args.array(x, name)
        dtype = x._dtype
        if promotion == TRUTH:
            return fn(_truth(x))
        if dtype is _d.bool and bools is not None and to is None:
            if bools == COPY:
                return _dt.astype(x, dtype)  # (a copy: the result never aliases the input)
            if bools == ZEROS:
                return _all_false(x)
            return fn(_dt.astype(x, _d.int8))
        if to is not None and to[dtype] is not dtype:
            x = _dt.astype(x, to[dtype])
        return fn(x)

    return _named(function, name, doc)


def _make_binary(name: str, fn: Callable, promotion: str, bools: str | None, doc: str) -> Callable:
    to = _jd.TO_INEXACT if promotion == INEXACT else _jd.TO_NUMERIC if promotion == NUMERIC else None
    # Operands passed on as they are (as in _make_unary): two arrays of one such dtype, or one with a Python
    # scalar whose weak promotion keeps that dtype.
    direct = frozenset(d for d in _d.EXTENDED_DTYPES if promotion != TRUTH and (to is None or to[d] is d)
                       and not (d is _d.bool and bools is not None) and not (
                           d.kind == "complex floating" and name in _LEXICOGRAPHIC))
    direct_scalar = frozenset((d, t) for d in direct for t in _args.PY_SCALARS
                              if _jd.result_of([d], [t]) is d and _args._scalar_fits(t(1), d))
    array_type = Array

    def function(x1, x2, /):
        if type(x1) is array_type:
            if type(x2) is array_type:
                if x1._dtype is x2._dtype and x1._dtype in direct:
                    return fn(x1, x2)
            elif (x1._dtype, type(x2)) in direct_scalar:
                return fn(x1, x2)
        elif type(x2) is array_type and (x2._dtype, type(x1)) in direct_scalar:
            return fn(x1, x2)
        if promotion == TRUTH:
            return fn(_truth(_args.operand(x1, name, 0)), _truth(_args.operand(x2, name, 1)))
        a, b = _args.promote(name, x1, x2, to_inexact=promotion == INEXACT, to_numeric=promotion == NUMERIC,
                             keep_scalars=True)
        if not isinstance(a, Array) and not isinstance(b, Array):
            a = _args.cast(a, _args.promoted_dtype(name, a, b))
        dtype = a._dtype if isinstance(a, Array) else b._dtype  # (the promoted dtype: an array operand has it)
        if dtype.kind == "complex floating" and name in _LEXICOGRAPHIC:
            return _LEXICOGRAPHIC[name](a, b)
        if bools is not None and dtype is _d.bool:
            if bools == OR:
                return _ew.logical_or(_as_bool_array(a), b)
            if bools == AND:
                return _ew.logical_and(_as_bool_array(a), b)
            return fn(*(_args.cast(v, _d.int8) for v in (a, b)))
        return fn(a, b)

    return _named(function, name, doc)


def _lexicographic_compare(compare: Callable) -> Callable:
    """An ordering of complex numbers as jax.numpy orders them: by real part, then by imaginary part."""

    def parts(v):
        return (_ew.real(v), _ew.imag(v)) if isinstance(v, Array) else (complex(v).real, complex(v).imag)

    def ordered(a, b):
        (a_re, a_im), (b_re, b_im) = parts(a), parts(b)
        return _search.where(_ew.equal(a_re, b_re), compare(a_im, b_im), compare(a_re, b_re))

    return ordered


def _lexicographic_pick(compare: Callable) -> Callable:
    ordered = _lexicographic_compare(compare)

    def pick(a, b):
        return _search.where(ordered(a, b), a, b)

    return pick


# Complex operands of the ordering functions (the standard's functions refuse them).
_LEXICOGRAPHIC = {
    "less": _lexicographic_compare(_ew.less), "less_equal": _lexicographic_compare(_ew.less_equal),
    "greater": _lexicographic_compare(_ew.greater), "greater_equal": _lexicographic_compare(_ew.greater_equal),
    "maximum": _lexicographic_pick(_ew.greater_equal), "minimum": _lexicographic_pick(_ew.less_equal),
}


def _all_false(x: Array) -> Array:
    return _cr.zeros_like(x, dtype=_d.bool)


def _as_bool_array(x):
    return x if isinstance(x, Array) else _args.cast(x, _d.bool)


def _truth(x):
    """A logical function's operand: booleans as they are, other values compared with zero."""
    if isinstance(x, Array):
        return x if x._dtype is _d.bool else _ew.not_equal(x, 0)
    return bool(x)


def _named(function: Callable, name: str, doc: str) -> Callable:
    function.__name__ = function.__qualname__ = name
    function.__doc__ = doc
    function.__module__ = "stridex.numpy"
    return function


def _doc(name: str, summary: str, example: str, result: str) -> str:
    return f"""{summary}

    >>> import stridex.numpy as jnp
    >>> jnp.{name}({example})
    {result}
    """


# --- the standard's functions, under their jax.numpy names -----------------------------------------------
# name: (stridex function, promotion, boolean rule, summary, example arguments, example result)

_UNARY_TABLE: dict[str, tuple] = {
    "abs": (_ew.abs, SAME, COPY, "Absolute value (a complex input's modulus).", "jnp.asarray([-1.5, 2.0])",
            "Array([1.5, 2. ])"),
    "absolute": (_ew.abs, SAME, COPY, "Absolute value: NumPy's name for `abs`.", "jnp.asarray([-3, 2])",
                 "Array([3, 2])"),
    "negative": (_ew.negative, SAME, None, "Numerical negative.", "jnp.asarray([1, -2])", "Array([-1,  2])"),
    "positive": (_ew.positive, SAME, COPY, "Numerical positive (a copy).", "jnp.asarray([1, -2])",
                 "Array([ 1, -2])"),
    "sign": (_ew.sign, SAME, None, "The sign: -1, 0 or 1 (x / |x| for complex).", "jnp.asarray([-2.0, 0.0, 3.0])",
             "Array([-1.,  0.,  1.])"),
    "square": (_ew.square, NUMERIC, None, "x * x.", "jnp.asarray([2, -3])", "Array([4, 9])"),
    "sqrt": (_tr.sqrt, INEXACT, None, "Principal square root (integers computed in floating point).",
             "jnp.asarray([4, 9])", "Array([2., 3.])"),
    "exp": (_tr.exp, INEXACT, None, "The exponential.", "jnp.asarray([0.0, 1.0])", "Array([1.        , 2.71828183])"),
    "expm1": (_tr.expm1, INEXACT, None, "exp(x) - 1, accurate near 0.", "jnp.asarray([1e-10])", "Array([1.e-10])"),
    "log": (_tr.log, INEXACT, None, "Natural logarithm.", "jnp.asarray([1.0, 0.0])", "Array([  0., -inf])"),
    "log2": (_tr.log2, INEXACT, None, "Base-2 logarithm.", "jnp.asarray([8, 1])", "Array([3., 0.])"),
    "log10": (_tr.log10, INEXACT, None, "Base-10 logarithm.", "jnp.asarray([100.0])", "Array([2.])"),
    "log1p": (_tr.log1p, INEXACT, None, "log(1 + x), accurate near 0.", "jnp.asarray([1e-10])", "Array([1.e-10])"),
    "sin": (_tr.sin, INEXACT, None, "Sine of radians.", "jnp.asarray([0.0])", "Array([0.])"),
    "cos": (_tr.cos, INEXACT, None, "Cosine of radians.", "jnp.asarray([0.0])", "Array([1.])"),
    "tan": (_tr.tan, INEXACT, None, "Tangent of radians.", "jnp.asarray([0.0])", "Array([0.])"),
    "arcsin": (_tr.asin, INEXACT, None, "Inverse sine: NumPy's name for `asin`.", "jnp.asarray([0.0, 1.0])",
               "Array([0.        , 1.57079633])"),
    "arccos": (_tr.acos, INEXACT, None, "Inverse cosine: NumPy's name for `acos`.", "jnp.asarray([1.0, 0.0])",
               "Array([0.        , 1.57079633])"),
    "arctan": (_tr.atan, INEXACT, None, "Inverse tangent: NumPy's name for `atan`.", "jnp.asarray([0.0, 1.0])",
               "Array([0.        , 0.78539816])"),
    "asin": (_tr.asin, INEXACT, None, "Inverse sine.", "jnp.asarray([0.0])", "Array([0.])"),
    "acos": (_tr.acos, INEXACT, None, "Inverse cosine.", "jnp.asarray([1.0])", "Array([0.])"),
    "atan": (_tr.atan, INEXACT, None, "Inverse tangent.", "jnp.asarray([0.0])", "Array([0.])"),
    "sinh": (_tr.sinh, INEXACT, None, "Hyperbolic sine.", "jnp.asarray([0.0])", "Array([0.])"),
    "cosh": (_tr.cosh, INEXACT, None, "Hyperbolic cosine.", "jnp.asarray([0.0])", "Array([1.])"),
    "tanh": (_tr.tanh, INEXACT, None, "Hyperbolic tangent.", "jnp.asarray([0.0])", "Array([0.])"),
    "arcsinh": (_tr.asinh, INEXACT, None, "Inverse hyperbolic sine: NumPy's name for `asinh`.",
                "jnp.asarray([0.0])", "Array([0.])"),
    "arccosh": (_tr.acosh, INEXACT, None, "Inverse hyperbolic cosine: NumPy's name for `acosh`.",
                "jnp.asarray([1.0])", "Array([0.])"),
    "arctanh": (_tr.atanh, INEXACT, None, "Inverse hyperbolic tangent: NumPy's name for `atanh`.",
                "jnp.asarray([0.0, 0.5])", "Array([0.        , 0.54930614])"),
    "asinh": (_tr.asinh, INEXACT, None, "Inverse hyperbolic sine.", "jnp.asarray([0.0])", "Array([0.])"),
    "acosh": (_tr.acosh, INEXACT, None, "Inverse hyperbolic cosine.", "jnp.asarray([1.0])", "Array([0.])"),
    "atanh": (_tr.atanh, INEXACT, None, "Inverse hyperbolic tangent.", "jnp.asarray([0.0])", "Array([0.])"),
    "reciprocal": (_ew.reciprocal, INEXACT, None, "1 / x.", "jnp.asarray([2, 4])", "Array([0.5 , 0.25])"),
    "floor": (_ew.floor, SAME, COPY, "The largest integer not above x.", "jnp.asarray([-1.5, 1.5])",
              "Array([-2.,  1.])"),
    "ceil": (_ew.ceil, SAME, COPY, "The smallest integer not below x.", "jnp.asarray([-1.5, 1.5])",
             "Array([-1.,  2.])"),
    "trunc": (_ew.trunc, SAME, COPY, "The integer part, towards zero.", "jnp.asarray([-1.5, 1.5])",
              "Array([-1.,  1.])"),
    "conj": (_ew.conj, SAME, COPY, "Complex conjugate (real inputs as they are).", "jnp.asarray([1 + 2j])",
             "Array([1.-2.j])"),
    "conjugate": (_ew.conj, SAME, COPY, "Complex conjugate: NumPy's name for `conj`.", "jnp.asarray([1 - 1j])",
                  "Array([1.+1.j])"),
    "real": (_ew.real, SAME, COPY, "The real part (real inputs as they are).", "jnp.asarray([1 + 2j])",
             "Array([1.])"),
    "imag": (_ew.imag, SAME, ZEROS, "The imaginary part (zeros for real inputs).", "jnp.asarray([1 + 2j])",
             "Array([2.])"),
    "isnan": (_ew.isnan, SAME, SMALL_INT, "Whether each element is NaN.", "jnp.asarray([1.0, jnp.nan])",
              "Array([False,  True])"),
    "isinf": (_ew.isinf, SAME, SMALL_INT, "Whether each element is infinite.", "jnp.asarray([1.0, -jnp.inf])",
              "Array([False,  True])"),
    "isfinite": (_ew.isfinite, SAME, SMALL_INT, "Whether each element is finite.", "jnp.asarray([1.0, jnp.inf])",
                 "Array([ True, False])"),
    "logical_not": (_ew.logical_not, TRUTH, None, "Logical not of each element's truth value.",
                    "jnp.asarray([0, 2])", "Array([ True, False])"),
    "bitwise_invert": (_ew.bitwise_invert, SAME, None, "Bitwise not (logical not of booleans).",
                       "jnp.asarray([0, 5], dtype=jnp.uint8)", "Array([255, 250], dtype=uint8)"),
    "bitwise_not": (_ew.bitwise_invert, SAME, None, "Bitwise not: NumPy's name for `bitwise_invert`.",
                    "jnp.asarray([True, False])", "Array([False,  True])"),
    "invert": (_ew.bitwise_invert, SAME, None, "Bitwise not: NumPy's name for `bitwise_invert`.",
               "jnp.asarray([0, -1])", "Array([-1,  0])"),
}

_BINARY_TABLE: dict[str, tuple] = {
    "add": (_ew.add, SAME, OR, "x1 + x2 (logical or of booleans).", "jnp.asarray([1, 2]), 3", "Array([4, 5])"),
    "subtract": (_ew.subtract, SAME, None, "x1 - x2.", "jnp.asarray([1, 2]), 3", "Array([-2, -1])"),
    "multiply": (_ew.multiply, SAME, AND, "x1 * x2 (logical and of booleans).", "jnp.asarray([1, 2]), 3",
                 "Array([3, 6])"),
    "divide": (_ew.divide, INEXACT, None, "x1 / x2 (integers computed in floating point).", "jnp.asarray([1, 2]), 4",
               "Array([0.25, 0.5 ])"),
    "true_divide": (_ew.divide, INEXACT, None, "x1 / x2: NumPy's name for `divide`.", "jnp.asarray([3.0]), 2.0",
                    "Array([1.5])"),
    "floor_divide": (_ew.floor_divide, NUMERIC, None, "floor(x1 / x2).", "jnp.asarray([7, -7]), 2",
                     "Array([ 3, -4])"),
    "remainder": (_ew.remainder, NUMERIC, None, "x1 - x2 * floor(x1 / x2): the divisor's sign.",
                  "jnp.asarray([7, -7]), 3", "Array([1, 2])"),
    "mod": (_ew.remainder, NUMERIC, None, "x1 - x2 * floor(x1 / x2): NumPy's name for `remainder`.",
            "jnp.asarray([7.5, -7.5]), 2.0", "Array([1.5, 0.5])"),
    "maximum": (_ew.maximum, SAME, OR, "The larger of each pair (NaN if either is NaN).",
                "jnp.asarray([1.0, jnp.nan]), 2.0", "Array([ 2., nan])"),
    "minimum": (_ew.minimum, SAME, AND, "The smaller of each pair (NaN if either is NaN).",
                "jnp.asarray([1.0, 3.0]), 2.0", "Array([1., 2.])"),
    "arctan2": (_tr.atan2, INEXACT, None, "The angle of the point (x2, x1): NumPy's name for `atan2`.",
                "jnp.asarray([1.0]), jnp.asarray([1.0])", "Array([0.78539816])"),
    "atan2": (_tr.atan2, INEXACT, None, "The angle of the point (x2, x1).", "jnp.asarray([0.0]), -1.0",
              "Array([3.14159265])"),
    "hypot": (_tr.hypot, INEXACT, None, "sqrt(x1**2 + x2**2) without undue overflow.", "jnp.asarray([3.0]), 4.0",
              "Array([5.])"),
    "copysign": (_ew.copysign, INEXACT, None, "x1's magnitude with x2's sign.", "jnp.asarray([2.0]), -0.0",
                 "Array([-2.])"),
    "nextafter": (_ew.nextafter, INEXACT, None, "The next representable value after x1 towards x2.",
                  "jnp.asarray([1.0]), 2.0", "Array([1.])"),
    "logaddexp": (_tr.logaddexp, INEXACT, None, "log(exp(x1) + exp(x2)) without overflow.",
                  "jnp.asarray([0.0]), 0.0", "Array([0.69314718])"),
    "equal": (_ew.equal, SAME, SMALL_INT, "x1 == x2.", "jnp.asarray([1, 2]), 2", "Array([False,  True])"),
    "not_equal": (_ew.not_equal, SAME, SMALL_INT, "x1 != x2.", "jnp.asarray([1, 2]), 2", "Array([ True, False])"),
    "less": (_ew.less, SAME, SMALL_INT, "x1 < x2.", "jnp.asarray([1, 2]), 2", "Array([ True, False])"),
    "less_equal": (_ew.less_equal, SAME, SMALL_INT, "x1 <= x2.", "jnp.asarray([1, 3]), 2", "Array([ True, False])"),
    "greater": (_ew.greater, SAME, SMALL_INT, "x1 > x2.", "jnp.asarray([1, 3]), 2", "Array([False,  True])"),
    "greater_equal": (_ew.greater_equal, SAME, SMALL_INT, "x1 >= x2.", "jnp.asarray([1, 2]), 2",
                      "Array([False,  True])"),
    "logical_and": (_ew.logical_and, TRUTH, None, "Logical and of the operands' truth values.",
                    "jnp.asarray([0, 1, 2]), True", "Array([False,  True,  True])"),
    "logical_or": (_ew.logical_or, TRUTH, None, "Logical or of the operands' truth values.",
                   "jnp.asarray([0, 1]), False", "Array([False,  True])"),
    "logical_xor": (_ew.logical_xor, TRUTH, None, "Logical exclusive or of the operands' truth values.",
                    "jnp.asarray([0, 1]), True", "Array([ True, False])"),
    "bitwise_and": (_ew.bitwise_and, SAME, None, "Bitwise and.", "jnp.asarray([12]), 10", "Array([8])"),
    "bitwise_or": (_ew.bitwise_or, SAME, None, "Bitwise or.", "jnp.asarray([12]), 10", "Array([14])"),
    "bitwise_xor": (_ew.bitwise_xor, SAME, None, "Bitwise exclusive or.", "jnp.asarray([12]), 10", "Array([6])"),
    "bitwise_left_shift": (_ew.bitwise_left_shift, NUMERIC, None, "x1 shifted left by x2 bits.",
                           "jnp.asarray([1, 3]), 2", "Array([ 4, 12])"),
    "bitwise_right_shift": (_ew.bitwise_right_shift, NUMERIC, None, "x1 shifted right by x2 bits.",
                            "jnp.asarray([8, 12]), 2", "Array([2, 3])"),
    "left_shift": (_ew.bitwise_left_shift, NUMERIC, None, "x1 shifted left: NumPy's name for `bitwise_left_shift`.",
                   "jnp.asarray([1]), 4", "Array([16])"),
    "right_shift": (_ew.bitwise_right_shift, NUMERIC, None,
                    "x1 shifted right: NumPy's name for `bitwise_right_shift`.", "jnp.asarray([16]), 4",
                    "Array([1])"),
}

for _name, (_fn, _promotion, _bools, _summary, _example, _result) in _UNARY_TABLE.items():
    globals()[_name] = _make_unary(_name, _fn, _promotion, _bools, _doc(_name, _summary, _example, _result))
for _name, (_fn, _promotion, _bools, _summary, _example, _result) in _BINARY_TABLE.items():
    globals()[_name] = _make_binary(_name, _fn, _promotion, _bools, _doc(_name, _summary, _example, _result))
del _name, _fn, _promotion, _bools, _summary, _example, _result


_pow_of_arrays = _make_binary("pow", _tr.pow, NUMERIC, None, "")


def pow(x1, x2, /) -> Array:  # noqa: A001  (jax.numpy's name)
    """x1 raised to x2; with a Python int exponent the result keeps x1's dtype (booleans as int32).

    >>> import stridex.numpy as jnp
    >>> jnp.pow(jnp.asarray([2, 3]), 2), jnp.pow(jnp.asarray([4.0]), jnp.asarray([0.5]))
    (Array([4, 9]), Array([2.]))
    """
    if type(x2) is int:
        x1 = _args.array(x1, "pow")
        return _tr.pow(_args.cast(x1, _jd.TO_NUMERIC[x1._dtype]), x2)
    return _pow_of_arrays(x1, x2)


def power(x1, x2, /) -> Array:
    """x1 raised to x2: NumPy's name for `pow`.

    >>> import stridex.numpy as jnp
    >>> jnp.power(jnp.asarray([2.0, 4.0]), 0.5)
    Array([1.41421356, 2.        ])
    """
    return pow(x1, x2)


# --- beyond the standard -------------------------------------------------------------------------------


def _real_inexact(x, fname: str) -> Array:
    x = _args.inexact(x, fname)
    if x._dtype.kind == "complex floating":
        raise TypeError(f"{fname} does not support complex-valued inputs, got {x._dtype.name}")
    return x


def cbrt(x, /) -> Array:
    """The real cube root (negative for negative x; integers computed in floating point).

    >>> import stridex.numpy as jnp
    >>> jnp.cbrt(jnp.asarray([27.0, -8.0]))
    Array([ 3., -2.])
    """
    return _pt.cbrt.bind(_real_inexact(x, "cbrt"))


def exp2(x, /) -> Array:
    """2 ** x.

    >>> import stridex.numpy as jnp
    >>> jnp.exp2(jnp.asarray([3.0, -1.0]))
    Array([8. , 0.5])
    """
    x = _args.inexact(x, "exp2")
    return _tr.pow(2.0, x)


def deg2rad(x, /) -> Array:
    """Degrees to radians.

    >>> import stridex.numpy as jnp
    >>> jnp.deg2rad(jnp.asarray([180.0]))
    Array([3.14159265])
    """
    return _ew.multiply(_args.inexact(x, "deg2rad"), math.pi / 180)


def rad2deg(x, /) -> Array:
    """Radians to degrees.

    >>> import stridex.numpy as jnp
    >>> jnp.rad2deg(jnp.asarray([jnp.pi / 2]))
    Array([90.])
    """
    return _ew.multiply(_args.inexact(x, "rad2deg"), 180 / math.pi)


def radians(x, /) -> Array:
    """Degrees to radians: NumPy's other name for `deg2rad`.

    >>> import stridex.numpy as jnp
    >>> jnp.radians(jnp.asarray([90.0]))
    Array([1.57079633])
    """
    return deg2rad(x)


def degrees(x, /) -> Array:
    """Radians to degrees: NumPy's other name for `rad2deg`.

    >>> import stridex.numpy as jnp
    >>> jnp.degrees(jnp.asarray([jnp.pi]))
    Array([180.])
    """
    return rad2deg(x)


def fabs(x, /) -> Array:
    """Absolute value of real inputs, as floating point (complex inputs are refused).

    >>> import stridex.numpy as jnp
    >>> jnp.fabs(jnp.asarray([-2, 3]))
    Array([2., 3.])
    """
    return _ew.abs(_real_inexact(x, "fabs"))


def rint(x, /) -> Array:
    """Round to the nearest integer, halves to even; integer inputs become float64 (as in jax.numpy).

    >>> import stridex.numpy as jnp
    >>> jnp.rint(jnp.asarray([0.5, 1.5, -2.5]))
    Array([ 0.,  2., -2.])
    """
    x = _args.array(x, "rint")
    if x._dtype.kind not in _d.FLOATING_KINDS:
        return _dt.astype(x, _d.float64)
    return _ew.round(x)


def round(a, decimals: int = 0, out: None = None) -> Array:  # noqa: A001  (jax.numpy's name)
    """Round to `decimals` decimal places, halves to even (`decimals` may be negative).

    Floating values are scaled by 10**decimals, rounded and scaled back, as jax.numpy does; integers round to
    tens, hundreds, ... when `decimals` is negative and are kept otherwise.

    >>> import stridex.numpy as jnp
    >>> jnp.round(jnp.asarray([1.25, 2.5, 0.35]), 1), jnp.round(jnp.asarray([1234, 1250]), -2)
    (Array([1.2, 2.5, 0.4]), Array([1200, 1200]))
    """
    _args.no_out(out, "round")
    a = _args.array(a, "round")
    decimals = _args.index(decimals, "round", "decimals")
    dtype = a._dtype
    if dtype is _d.bool:
        raise ValueError("round: boolean arrays are not supported; convert with astype first")
    if dtype.kind in ("signed", "unsigned"):
        if decimals >= 0:
            return _dt.astype(a, dtype)
        factor = 10 ** -decimals
        as_float = _ew.divide(_dt.astype(a, _d.float64), float(factor))
        return _dt.astype(_ew.multiply(_ew.round(as_float), float(factor)), dtype)
    if decimals == 0:
        return _ew.round(a)
    if dtype.kind == "complex floating":
        return _ew.add(round(_ew.real(a), decimals), _ew.multiply(round(_ew.imag(a), decimals), 1j))
    factor = 10.0 ** decimals
    if decimals > 0:
        return _ew.divide(_ew.round(_ew.multiply(a, factor)), factor)
    return _ew.multiply(_ew.round(_ew.divide(a, 10.0 ** -decimals)), 10.0 ** -decimals)


def around(a, decimals: int = 0, out: None = None) -> Array:
    """Round to `decimals` decimal places: NumPy's other name for `round`.

    >>> import stridex.numpy as jnp
    >>> jnp.around(jnp.asarray([0.125, 3.14159]), 2)
    Array([0.12, 3.14])
    """
    return round(a, decimals, out)


def signbit(x, /) -> Array:
    """Whether the sign bit is set (-0.0 and negative values; x < 0 for integers).

    >>> import stridex.numpy as jnp
    >>> jnp.signbit(jnp.asarray([-0.0, 1.0])), jnp.signbit(jnp.asarray([-3, 3]))
    (Array([ True, False]), Array([ True, False]))
    """
    x = _args.array(x, "signbit")
    if x._dtype is _d.bool:
        return _all_false(x)
    if x._dtype.kind in ("signed", "unsigned"):
        return _ew.less(x, 0)
    return _ew.signbit(x)


def sinc(x, /) -> Array:
    """sin(pi x) / (pi x), and 1 at 0 (whose derivative is 0 there).

    >>> import stridex.numpy as jnp
    >>> jnp.sinc(jnp.asarray([0.0, 0.5]))
    Array([1.        , 0.63661977])
    """
    x = _args.inexact(x, "sinc")
    zero = _ew.equal(x, 0)
    safe = _search.where(zero, 1.0, x)  # (the other branch is never 0 / 0, so its derivative at 0 is 0 too)
    scaled = _ew.multiply(safe, math.pi)
    return _search.where(zero, 1.0, _ew.divide(_tr.sin(scaled), scaled))


def spacing(x, /) -> Array:
    """The distance from x to the next representable value away from zero (negative for negative x).

    >>> import stridex.numpy as jnp
    >>> jnp.spacing(jnp.asarray([1.0, -1.0]))
    Array([ 2.22044605e-16, -2.22044605e-16])
    """
    x = _real_inexact(x, "spacing")
    away = _ew.copysign(_cr.full_like(x, math.inf), x)
    return _ew.subtract(_ew.nextafter(x, away), x)


def _infinite_of_sign(x, fname: str, negative_sign: bool) -> Array:
    x = _args.array(x, fname)
    if x._dtype.kind == "complex floating":
        raise ValueError(f"{fname} is not defined for complex inputs, got {x._dtype.name}")
    if x._dtype.kind not in _d.FLOATING_KINDS:
        return _all_false(x)
    return _ew.equal(x, -math.inf if negative_sign else math.inf)


def isneginf(x, /, out: None = None) -> Array:
    """Whether each element is -inf.

    >>> import stridex.numpy as jnp
    >>> jnp.isneginf(jnp.asarray([-jnp.inf, jnp.inf, 0.0]))
    Array([ True, False, False])
    """
    _args.no_out(out, "isneginf")
    return _infinite_of_sign(x, "isneginf", True)


def isposinf(x, /, out: None = None) -> Array:
    """Whether each element is +inf.

    >>> import stridex.numpy as jnp
    >>> jnp.isposinf(jnp.asarray([-jnp.inf, jnp.inf, 0.0]))
    Array([False,  True, False])
    """
    _args.no_out(out, "isposinf")
    return _infinite_of_sign(x, "isposinf", False)


def iscomplex(x) -> Array:
    """Whether each element has a nonzero imaginary part.

    >>> import stridex.numpy as jnp
    >>> jnp.iscomplex(jnp.asarray([1 + 0j, 1 + 1j]))
    Array([False,  True])
    """
    x = _args.array(x, "iscomplex")
    if x._dtype.kind != "complex floating":
        return _all_false(x)
    return _ew.not_equal(_ew.imag(x), 0)


def isreal(x) -> Array:
    """Whether each element's imaginary part is zero (every element of a real array).

    >>> import stridex.numpy as jnp
    >>> jnp.isreal(jnp.asarray([1 + 0j, 1 + 1j]))
    Array([ True, False])
    """
    return _ew.logical_not(iscomplex(x))


def angle(z, deg: bool = False) -> Array:
    """The argument of complex numbers (radians, or degrees with `deg`); 0 or pi for real numbers.

    >>> import stridex.numpy as jnp
    >>> jnp.angle(jnp.asarray([1j, -1.0])), jnp.angle(jnp.asarray([1 + 1j]), deg=True)
    (Array([1.57079633, 3.14159265]), Array([45.]))
    """
    z = _args.array(z, "angle")
    if z._dtype.kind not in _d.FLOATING_KINDS:
        z = _dt.astype(z, _d.float64)  # (jax.numpy: integers and booleans in float64)
    if z._dtype.kind == "complex floating":
        out = _tr.atan2(_ew.imag(z), _ew.real(z))
    else:
        out = _tr.atan2(_cr.zeros_like(z), z)
    return _ew.multiply(out, 180 / math.pi) if deg else out


def nan_to_num(x, copy: bool = True, nan=0.0, posinf=None, neginf=None) -> Array:
    """NaN replaced by `nan`, infinities by `posinf`/`neginf` (default: the dtype's largest finite values); for
    complex input, each part. Integers and booleans are returned as they are.

    >>> import stridex.numpy as jnp
    >>> jnp.nan_to_num(jnp.asarray([jnp.nan, jnp.inf, -jnp.inf, 1.0]), posinf=9.0)
    Array([ 0.00000000e+000,  9.00000000e+000, -1.79769313e+308,  1.00000000e+000])
    """
    x = _args.array(x, "nan_to_num")
    dtype = x._dtype
    if dtype.kind not in _d.FLOATING_KINDS:
        return _dt.astype(x, dtype)
    if dtype.kind == "complex floating":
        re = nan_to_num(_ew.real(x), nan=nan, posinf=posinf, neginf=neginf)
        im = nan_to_num(_ew.imag(x), nan=nan, posinf=posinf, neginf=neginf)
        return _ew.add(_dt.astype(re, dtype), _ew.multiply(_dt.astype(im, dtype), 1j))
    info = _jd.finfo(dtype)
    high = float(info.max) if posinf is None else posinf
    low = float(info.min) if neginf is None else neginf
    out = _search.where(_ew.isnan(x), _args.cast(_args.operand(nan, "nan_to_num"), dtype), x)
    out = _search.where(_ew.equal(out, math.inf), _args.cast(_args.operand(high, "nan_to_num"), dtype), out)
    return _search.where(_ew.equal(out, -math.inf), _args.cast(_args.operand(low, "nan_to_num"), dtype), out)


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan: bool = False) -> Array:
    """Whether |a - b| <= atol + rtol * |b| elementwise; infinities are close to themselves, NaN only with
    `equal_nan`. Integers and booleans compare exactly.

    >>> import stridex.numpy as jnp
    >>> jnp.isclose(jnp.asarray([1.0, 1.0, jnp.nan]), jnp.asarray([1.0 + 1e-9, 1.1, jnp.nan]), equal_nan=True)
    Array([ True, False,  True])
    """
    a, b = _args.promote("isclose", a, b)
    if a._dtype.kind not in _d.FLOATING_KINDS:
        return _ew.equal(a, b)
    rtol = _args.cast(_args.operand(rtol, "isclose"), _d.real_of(a._dtype))
    atol = _args.cast(_args.operand(atol, "isclose"), _d.real_of(a._dtype))
    close = _ew.less_equal(_ew.abs(_ew.subtract(a, b)), _ew.add(atol, _ew.multiply(rtol, _ew.abs(b))))
    finite = _ew.logical_and(_ew.isfinite(a), _ew.isfinite(b))
    out = _search.where(finite, close, _ew.equal(a, b))  # (infinities: equal ones only)
    if equal_nan:
        out = _ew.logical_or(out, _ew.logical_and(_ew.isnan(a), _ew.isnan(b)))
    return out


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan: bool = False) -> Array:
    """Whether every element of `a` is close to `b`'s (see `isclose`), as a 0-D boolean array.

    >>> import stridex.numpy as jnp
    >>> jnp.allclose(jnp.asarray([1.0, 2.0]), jnp.asarray([1.0, 2.0 + 1e-9]))
    Array(True)
    """
    return _util.all(isclose(a, b, rtol, atol, equal_nan))


def array_equal(a1, a2, equal_nan: bool = False) -> Array:
    """Whether two arrays have the same shape and elements (NaNs equal with `equal_nan`), as a 0-D boolean array.

    Arrays of different shapes are simply not equal (a shape is static, so this decides no value under `jit`).

    >>> import stridex.numpy as jnp
    >>> jnp.array_equal(jnp.asarray([1, 2]), jnp.asarray([1, 2])), jnp.array_equal(jnp.zeros(2), jnp.zeros(3))
    (Array(True), Array(False))
    """
    a1, a2 = _args.array(a1, "array_equal", 0), _args.array(a2, "array_equal", 1)
    if a1.shape != a2.shape:
        return _args.cast(False, _d.bool)
    a1, a2 = _args.promote("array_equal", a1, a2)
    same = _ew.equal(a1, a2)
    if equal_nan and a1._dtype.kind in _d.FLOATING_KINDS:
        same = _ew.logical_or(same, _ew.logical_and(_ew.isnan(a1), _ew.isnan(a2)))
    return _util.all(same)


def array_equiv(a1, a2) -> Array:
    """Whether two arrays are equal once broadcast together (False when they do not broadcast).

    >>> import stridex.numpy as jnp
    >>> jnp.array_equiv(jnp.asarray([1, 2]), jnp.asarray([[1, 2], [1, 2]]))
    Array(True)
    """
    a1, a2 = _args.promote("array_equiv", _args.array(a1, "array_equiv", 0), _args.array(a2, "array_equiv", 1))
    try:
        broadcast_shapes(a1.shape, a2.shape)
    except ValueError:
        return _args.cast(False, _d.bool)
    return _util.all(_ew.equal(a1, a2))


def fmod(x1, x2, /) -> Array:
    """C's fmod: x1 - x2 * trunc(x1 / x2), with the dividend's sign (`remainder` takes the divisor's).

    >>> import stridex.numpy as jnp
    >>> jnp.fmod(jnp.asarray([7, -7]), 3), jnp.fmod(jnp.asarray([-7.5]), 2.0)
    (Array([ 1, -1]), Array([-1.5]))
    """
    a, b = _args.promote("fmod", x1, x2, to_numeric=True)
    if a._dtype.kind == "complex floating":
        raise TypeError(f"fmod does not support complex-valued inputs, got {a._dtype.name}")
    return _pe.fmod.bind(a, b)


def divmod(x1, x2, /) -> tuple[Array, Array]:  # noqa: A001  (jax.numpy's name)
    """(floor_divide(x1, x2), remainder(x1, x2)).

    >>> import stridex.numpy as jnp
    >>> jnp.divmod(jnp.asarray([7, -7]), 2)
    (Array([ 3, -4]), Array([1, 1]))
    """
    return floor_divide(x1, x2), remainder(x1, x2)  # type: ignore[name-defined]  # (made from the table above)


def _nan_ignoring(name: str, x1, x2, pick: Callable) -> Array:
    a, b = _args.promote(name, x1, x2)
    if a._dtype.kind == "complex floating":
        pick = _LEXICOGRAPHIC["maximum" if pick is _ew.maximum else "minimum"]
        nan_a = _ew.logical_or(_ew.isnan(_ew.real(a)), _ew.isnan(_ew.imag(a)))
        nan_b = _ew.logical_or(_ew.isnan(_ew.real(b)), _ew.isnan(_ew.imag(b)))
        return _search.where(nan_a, b, _search.where(nan_b, a, pick(a, b)))
    if a._dtype is _d.bool:
        return (_ew.logical_or if pick is _ew.maximum else _ew.logical_and)(a, b)
    if a._dtype.kind not in _d.FLOATING_KINDS:
        return pick(a, b)
    both = pick(a, b)
    return _search.where(_ew.isnan(a), b, _search.where(_ew.isnan(b), a, both))


def fmax(x1, x2) -> Array:
    """The larger of each pair, ignoring NaN (NaN only where both are).

    >>> import stridex.numpy as jnp
    >>> jnp.fmax(jnp.asarray([1.0, jnp.nan, jnp.nan]), jnp.asarray([2.0, 3.0, jnp.nan]))
    Array([ 2.,  3., nan])
    """
    return _nan_ignoring("fmax", x1, x2, _ew.maximum)


def fmin(x1, x2) -> Array:
    """The smaller of each pair, ignoring NaN (NaN only where both are).

    >>> import stridex.numpy as jnp
    >>> jnp.fmin(jnp.asarray([1.0, jnp.nan]), jnp.asarray([2.0, 3.0]))
    Array([1., 3.])
    """
    return _nan_ignoring("fmin", x1, x2, _ew.minimum)


def float_power(x1, x2, /) -> Array:
    """x1 ** x2 computed in floating point.

    >>> import stridex.numpy as jnp
    >>> jnp.float_power(jnp.asarray([2, 4]), -1)
    Array([0.5 , 0.25])
    """
    a, b = _args.promote("float_power", x1, x2, to_inexact=True, keep_scalars=True)
    return _tr.pow(a, b)


def logaddexp2(x1, x2, /) -> Array:
    """log2(2**x1 + 2**x2) without overflow.

    >>> import stridex.numpy as jnp
    >>> jnp.logaddexp2(jnp.asarray([1.0]), 1.0)
    Array([2.])
    """
    a, b = _args.promote("logaddexp2", x1, x2, to_inexact=True)
    ln2 = math.log(2.0)
    return _ew.divide(_tr.logaddexp(_ew.multiply(a, ln2), _ew.multiply(b, ln2)), ln2)


def heaviside(x1, x2, /) -> Array:
    """The step function: 0 for x1 < 0, x2 at 0, 1 for x1 > 0 (NaN for NaN).

    >>> import stridex.numpy as jnp
    >>> jnp.heaviside(jnp.asarray([-1.0, 0.0, 2.0]), 0.5)
    Array([0. , 0.5, 1. ])
    """
    a, b = _args.promote("heaviside", x1, x2, to_inexact=True)
    if a._dtype.kind == "complex floating":
        raise TypeError(f"heaviside does not support complex-valued inputs, got {a._dtype.name}")
    step = _search.where(_ew.greater(a, 0), 1.0, _search.where(_ew.less(a, 0), 0.0, b))
    return _search.where(_ew.isnan(a), a, step)


def ldexp(x1, x2, /) -> Array:
    """x1 * 2**x2 for an integer x2 (in two exact steps, so that 2**x2 alone need not be representable).

    >>> import stridex.numpy as jnp
    >>> jnp.ldexp(jnp.asarray([0.75, 1.0]), jnp.asarray([2, -1074]))
    Array([3.e+000, 5.e-324])
    """
    x1 = _real_inexact(x1, "ldexp")
    x2 = _args.array(x2, "ldexp", 1)
    if x2._dtype.kind not in ("signed", "unsigned", "bool"):
        raise TypeError(f"ldexp: the exponent x2 must be an integer array, got {x2._dtype.name}")
    half = _ew.floor_divide(x2, 2)
    step = _tr.pow(2.0, _dt.astype(half, x1._dtype))
    rest = _tr.pow(2.0, _dt.astype(_ew.subtract(x2, half), x1._dtype))
    return _ew.multiply(_ew.multiply(x1, step), rest)


def frexp(x, /) -> tuple[Array, Array]:
    """(mantissa, exponent) with x = mantissa * 2**exponent and 0.5 <= |mantissa| < 1; the exponent is int32.
    Zeros, infinities and NaN come back as they are, with exponent 0.

    >>> import stridex.numpy as jnp
    >>> jnp.frexp(jnp.asarray([1.0, 3.0, -5.0]))
    (Array([ 0.5  ,  0.75 , -0.625]), Array([1, 2, 3], dtype=int32))
    """
    x = _real_inexact(x, "frexp")
    special = _ew.logical_or(_ew.equal(x, 0), _ew.logical_not(_ew.isfinite(x)))
    safe = _search.where(special, 1.0, _ew.abs(x))
    exponent = _ew.add(_ew.floor(_tr.log2(safe)), 1.0)
    # log2 may round up to the next integer just below a power of two: one step of correction each way.
    mantissa = ldexp(safe, _dt.astype(_ew.negative(exponent), _d.int32))
    low, high = _ew.less(mantissa, 0.5), _ew.greater_equal(mantissa, 1.0)
    exponent = _ew.add(exponent, _ew.subtract(_dt.astype(high, x._dtype), _dt.astype(low, x._dtype)))
    exponent = _dt.astype(_search.where(special, 0.0, exponent), _d.int32)
    mantissa = ldexp(x, _ew.negative(exponent))
    return _search.where(special, x, mantissa), exponent


def modf(x, /, out: None = None) -> tuple[Array, Array]:
    """(fractional part, integral part), both with x's sign.

    >>> import stridex.numpy as jnp
    >>> jnp.modf(jnp.asarray([2.5, -1.25]))
    (Array([ 0.5 , -0.25]), Array([ 2., -1.]))
    """
    _args.no_out(out, "modf")
    x = _real_inexact(x, "modf")
    whole = _ew.trunc(x)
    return _ew.subtract(x, whole), whole


def _integer_pair(name: str, x1, x2) -> tuple[Array, Array]:
    a, b = _args.promote(name, x1, x2)
    if a._dtype.kind not in ("signed", "unsigned"):
        raise ValueError(f"{name} requires integer arguments, got {a._dtype.name}")
    return a, b


def gcd(x1, x2) -> Array:
    """The greatest common divisor of |x1| and |x2| (0 for two zeros).

    >>> import stridex.numpy as jnp
    >>> jnp.gcd(jnp.asarray([12, 0, -9]), jnp.asarray([18, 5, 6]))
    Array([6, 5, 3])
    """
    from stridex._transforms.control_flow import while_loop  # (lazy: control flow is imported on first use)

    a, b = _integer_pair("gcd", x1, x2)
    a, b = _manip.broadcast_arrays(_ew.abs(a), _ew.abs(b))

    def step(pair):
        u, v = pair
        nonzero = _ew.not_equal(v, 0)
        safe = _search.where(nonzero, v, 1)
        return _search.where(nonzero, v, u), _search.where(nonzero, _ew.remainder(u, safe), v)

    return while_loop(lambda pair: _util.any(_ew.not_equal(pair[1], 0)), step, (a, b))[0]


def lcm(x1, x2) -> Array:
    """The least common multiple of |x1| and |x2| (0 if either is 0).

    >>> import stridex.numpy as jnp
    >>> jnp.lcm(jnp.asarray([4, 0, -6]), jnp.asarray([6, 5, 4]))
    Array([12,  0, 12])
    """
    a, b = _integer_pair("lcm", x1, x2)
    divisor = gcd(a, b)
    safe = _search.where(_ew.equal(divisor, 0), 1, divisor)
    return _ew.multiply(_ew.abs(a), _ew.floor_divide(_ew.abs(b), safe))


def bitwise_count(x, /) -> Array:
    """The number of 1 bits in each element's |x| (uint8), as jax.numpy counts them.

    >>> import stridex.numpy as jnp
    >>> jnp.bitwise_count(jnp.asarray([0, 7, -8, 255]))
    Array([0, 3, 1, 8], dtype=uint8)
    """
    x = _args.array(x, "bitwise_count")
    if x._dtype is _d.bool:
        return _dt.astype(x, _d.uint8)
    if x._dtype.kind not in ("signed", "unsigned"):
        raise TypeError(f"bitwise_count requires integer or boolean inputs, got {x._dtype.name}")
    # |x| as uint64 (exact: the magnitude of the most negative value fits), then the bits summed in parallel:
    # pairs, nibbles, bytes, and the bytes added up by one multiplication (which wraps, as uint64 does).
    v = _dt.astype(_ew.abs(x), _d.uint64) if x._dtype.kind == "signed" else _dt.astype(x, _d.uint64)
    v = _ew.subtract(v, _ew.bitwise_and(_ew.bitwise_right_shift(v, 1), 0x5555555555555555))
    v = _ew.add(_ew.bitwise_and(v, 0x3333333333333333), _ew.bitwise_and(_ew.bitwise_right_shift(v, 2),
                                                                         0x3333333333333333))
    v = _ew.bitwise_and(_ew.add(v, _ew.bitwise_right_shift(v, 4)), 0x0F0F0F0F0F0F0F0F)
    return _dt.astype(_ew.bitwise_right_shift(_ew.multiply(v, 0x0101010101010101), 56), _d.uint8)


def clip(arr=None, /, min=None, max=None) -> Array:  # noqa: A002  (jax.numpy's names)
    """`arr` limited to [min, max] (either bound may be None; bounds broadcast).

    >>> import stridex.numpy as jnp
    >>> jnp.clip(jnp.asarray([-2.0, 0.5, 3.0]), 0.0, 1.0)
    Array([0. , 0.5, 1. ])
    """
    x = _args.array(arr, "clip")
    bounds = [None if v is None else _args.operand(v, "clip", i + 1) for i, v in enumerate((min, max))]
    dtype = _args.promoted_dtype("clip", x, *bounds)
    x = _args.cast(x, dtype)
    bounds = [v if v is None or not isinstance(v, Array) else _args.cast(v, dtype) for v in bounds]
    if dtype is _d.bool:
        out = x if bounds[0] is None else _ew.logical_or(x, bounds[0])
        return out if bounds[1] is None else _ew.logical_and(out, bounds[1])
    out = x if bounds[0] is None else _ew.maximum(x, bounds[0])
    out = out if bounds[1] is None else _ew.minimum(out, bounds[1])
    return _dt.astype(out, dtype) if out is x else out


def packbits(a, axis: int | None = None, bitorder: str = "big") -> Array:
    """The truth values of `a` packed into uint8, 8 to a byte along `axis` (the flattened array when None), the
    last byte padded with zeros; "big" puts the first value in the highest bit.

    >>> import stridex.numpy as jnp
    >>> jnp.packbits(jnp.asarray([1, 0, 1, 1, 0, 0, 0, 0, 1]))
    Array([176, 128], dtype=uint8)
    """
    a = _args.array(a, "packbits")
    if a._dtype.kind not in ("bool", "signed", "unsigned"):
        raise TypeError(f"packbits: expected an integer or boolean array, got {a._dtype.name}")
    if bitorder not in ("big", "little"):
        raise ValueError(f"packbits: bitorder must be 'big' or 'little', got {bitorder!r}")
    if axis is None:
        a, axis = _manip.reshape(a, (-1,)), 0
    axis = _args.axis(axis, a.ndim, "packbits")
    bits = _dt.astype(a if a._dtype is _d.bool else _ew.not_equal(a, 0), _d.uint8)
    n = a.shape[axis]
    extra = -n % 8
    if extra:
        shape = a.shape[:axis] + (extra,) + a.shape[axis + 1:]
        bits = _manip.concat([bits, _cr.zeros(shape, dtype=_d.uint8)], axis=axis)
    grouped = _manip.reshape(bits, a.shape[:axis] + ((n + extra) // 8, 8) + a.shape[axis + 1:])
    shifts = _cr.asarray([7, 6, 5, 4, 3, 2, 1, 0] if bitorder == "big" else [0, 1, 2, 3, 4, 5, 6, 7],
                         dtype=_d.uint8)
    shifts = _manip.reshape(shifts, (8,) + (1,) * (a.ndim - axis - 1))
    return _dt.astype(_stat.sum(_ew.bitwise_left_shift(grouped, shifts), axis=axis + 1), _d.uint8)


def unpackbits(a, axis: int | None = None, count: int | None = None, bitorder: str = "big") -> Array:
    """The bits of a uint8 array as uint8 zeros and ones, 8 per byte along `axis` (the flattened array when
    None), cut or zero-padded to `count` bits.

    >>> import stridex.numpy as jnp
    >>> jnp.unpackbits(jnp.asarray([176], dtype=jnp.uint8))
    Array([1, 0, 1, 1, 0, 0, 0, 0], dtype=uint8)
    """
    a = _args.array(a, "unpackbits")
    if a._dtype is not _d.uint8:
        raise TypeError(f"unpackbits: expected an input array of unsigned byte data type, got {a._dtype.name}")
    if bitorder not in ("big", "little"):
        raise ValueError(f"unpackbits: bitorder must be 'big' or 'little', got {bitorder!r}")
    if axis is None:
        a, axis = _manip.reshape(a, (-1,)), 0
    axis = _args.axis(axis, a.ndim, "unpackbits")
    shifts = _cr.asarray([7, 6, 5, 4, 3, 2, 1, 0] if bitorder == "big" else [0, 1, 2, 3, 4, 5, 6, 7],
                         dtype=_d.uint8)
    shifts = _manip.reshape(shifts, (8,) + (1,) * (a.ndim - axis - 1))
    bits = _ew.bitwise_and(_ew.bitwise_right_shift(_manip.expand_dims(a, axis=axis + 1), shifts), 1)
    bits = _manip.reshape(bits, a.shape[:axis] + (a.shape[axis] * 8,) + a.shape[axis + 1:])
    if count is not None:
        count = _args.index(count, "unpackbits", "count")
        n = bits.shape[axis]
        if count <= n:
            bits = bits[(slice(None),) * axis + (slice(0, count if count >= 0 else n + count),)]
        else:
            shape = bits.shape[:axis] + (count - n,) + bits.shape[axis + 1:]
            bits = _manip.concat([bits, _cr.zeros(shape, dtype=_d.uint8)], axis=axis)
    return bits
