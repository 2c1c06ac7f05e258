"""The spec's elementwise functions: argument checks and dtype rules, then one primitive each.

Arithmetic, comparison, bitwise, logical, rounding and predicate functions live here, together with
the validators (`_binary`, `_unary`) that the transcendental chapter shares. The functions are built
from two factories, one line each (name, accepted dtype category, docstring example), so the
definitions read as the list of what accepts what.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TypeVar

from stridex._core import dtypes as _dtypes
from stridex._core.state import current_trace
from stridex._exec.route import binary as _route_binary
from stridex._core.array import (Array, AnyBinaryFunction, BinaryFunction, BitwiseBinaryFunction,
                                 IntegerBinaryFunction, LogicalBinaryFunction, RealBinaryFunction, Scalar,
                                 UnaryFunction)
from stridex._lax import elementwise as _p
from stridex._lax import ops
from stridex._transforms.tracing import Tracer, note_scalar_store
from stridex._transforms.tracing import weak_scalar_example as _weak_scalar

_PY_SCALARS = (bool, int, float, complex)
F = TypeVar("F", bound=Callable[..., object])
# (The extended categories: the half types are accepted wherever the spec's floating types are.)
_ALLOWED = {category: frozenset(dtypes) for category, dtypes in _dtypes.EXTENDED_CATEGORIES.items()}
_ALLOWED["logical"] = frozenset((_dtypes.bool,) + _dtypes.REAL_DTYPES + _dtypes.HALF_DTYPES)
_NUMERIC = _ALLOWED["numeric"]


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


def _python_scalar(value):
    """The plain Python scalar a scalar-like operand stands for, or None.

    NumPy scalars (np.float64(1.0), np.int8(3)) and subclasses of int/float/complex act as the Python
    scalar of the same value: weak, like every Python scalar operand.
    """
    if type(value).__module__ == "numpy" and getattr(value, "shape", None) == ():
        value = value.item()
        return value if type(value) in _PY_SCALARS else None
    for kind in (bool, int, float, complex):
        if isinstance(value, kind):
            return kind(value)  # type: ignore[arg-type]  # (value is an instance of kind here)
    return None


def _binary(prim, allowed: frozenset, category: str, x1, x2):
    """Validate a two-argument elementwise call, then bind `prim` (the fast path: two arrays)."""
    if type(x1) is Array and type(x2) is Array:
        d1, d2 = x1._dtype, x2._dtype
        if d1 not in allowed or d2 not in allowed:
            bad = d1 if d1 not in allowed else d2
            raise TypeError(f"{prim.name} requires {category} dtypes, got {bad.name}")
        if d1 is not d2 and (d1 in _HALF or d2 in _HALF):
            x1, x2 = _common_dtype(x1, x2)
        return prim.bind(x1, x2)
    return _binary_slow(prim, allowed, category, x1, x2)


_HALF = frozenset(_dtypes.HALF_DTYPES)


def _common_dtype(x1: Array, x2: Array) -> tuple:
    """Two arrays of different dtypes, one of them a half type, cast to the dtype they promote to.

    The half types promote as JAX does (float16 with int32 gives float16), which NumPy's kernels would not
    follow (they widen to float64, or find no common type for bfloat16), so the operands are converted
    first, as `jax.numpy` converts them before calling `lax`. Spec dtypes never come here: NumPy's kernels
    promote them by the table already.
    """
    dtype = _dtypes.promote(x1.dtype, x2.dtype)
    return ops.astype(x1, dtype), ops.astype(x2, dtype)


def _binary_slow(prim, allowed, category, x1, x2):
    """Everything but two plain arrays: subclasses (tracers), Python and NumPy scalars, bad types."""
    operands = []
    for x in (x1, x2):
        if type(x) not in _PY_SCALARS and not isinstance(x, Array):
            scalar = _python_scalar(x)
            if scalar is None:
                raise TypeError(f"{prim.name} takes arrays or Python scalars, got {type(x).__name__}")
            x = scalar
        operands.append(x)
    x1, x2 = operands
    arrays = [x for x in operands if isinstance(x, Array)]
    if len(arrays) == 2 and (_weak_scalar(x1) is None) != (_weak_scalar(x2) is None):
        # One operand is a traced Python scalar: check it as the scalar it is, bind it as it is.
        weak, strong = (x1, x2) if _weak_scalar(x1) is not None else (x2, x1)
        if strong.dtype not in allowed:
            raise TypeError(f"{prim.name} requires {category} dtypes, got {strong.dtype.name}")
        _check_operands(prim, allowed, category, strong, _weak_scalar(weak))
        # NumPy converts a Python int operand to an integer result's dtype, and raises OverflowError where it
        # does not fit; jit checks the argument per call the same way. (Comparisons, which compare the values,
        # and true division, which computes in floating point, have no integer result: nothing to check.)
        avals = [getattr(x, "_aval", None) or _p.aval_of(x) for x in (x1, x2)]  # (a tracer's aval keeps it weak)
        note_scalar_store(weak, prim.abstract_eval(*avals).dtype)
        return prim.bind(x1, x2)
    if not arrays:
        raise TypeError(f"{prim.name} requires at least one array argument, got "
                        f"{type(x1).__name__} and {type(x2).__name__}")
    for x in arrays:
        if x.dtype not in allowed:
            raise TypeError(f"{prim.name} requires {category} dtypes, got {x.dtype.name}")
    if len(arrays) == 1:
        array = arrays[0]
        _check_operands(prim, allowed, category, array, x2 if array is x1 else x1)
    elif x1.dtype is not x2.dtype and (x1.dtype in _HALF or x2.dtype in _HALF):
        x1, x2 = _common_dtype(x1, x2)
    return prim.bind(x1, x2)


def _check_operands(prim, allowed, category, array, scalar):
    """An array with a Python scalar operand: the scalar's kind must fit, and so must the promoted dtype."""
    _check_scalar(array.dtype, scalar, prim.name)
    promoted = _dtypes.scalar_result_dtype(array.dtype, scalar)
    if promoted not in allowed:
        raise TypeError(f"{prim.name} requires {category} operands; a {array.dtype.name} array with the "
                        f"Python {type(scalar).__name__} {scalar!r} promotes to {promoted.name}")


def _unary(prim, allowed: frozenset, category: str, x, **params):
    """Validate a one-argument elementwise call (an array of an `allowed` dtype), then bind `prim`."""
    if type(x) is not Array and not isinstance(x, Array):
        raise TypeError(f"{prim.name} takes an array, got {type(x).__name__}")
    if x._dtype not in allowed:
        raise TypeError(f"{prim.name} requires {category} dtypes, got {x._dtype.name}")
    return prim.bind(x, **params)


def _docstring(summary: str, example: str, result: str) -> str:
    return f"""{summary}

    >>> import stridex as sx
    >>> {example}
    {result}
    """


def _binary_function(name: str, category: str, summary: str, example: str, result: str) -> AnyBinaryFunction:
    prim = getattr(_p, name)
    allowed = _ALLOWED[category]
    # The fast path tests dtype *names*: str hashes are cached in C, DType.__hash__ runs Python code. Two half
    # arrays take the slow path, which converts operands of different dtypes first (see `_common_dtype`).
    names = frozenset(d.name for d in allowed if d not in _HALF)
    scalar_ok = frozenset((d.name, kind) for d, kind in _scalar_pairs(allowed))
    bind, array, tracer = prim.bind, Array, Tracer  # closure cells: cheaper than global and attribute lookups
    tracing, routed = current_trace, _route_binary

    def function(x1: Array | Scalar, x2: Array | Scalar, /) -> Array:
        if type(x1) is array:
            if type(x2) is array:
                if x1._dtype.name in names and x2._dtype.name in names:
                    # (eagerly what bind does, `route.apply`'s two-operand case, two calls shorter; so too with a
                    # Python scalar below: x * 2.0 1.54 against 1.73 µs through bind)
                    return routed(prim, x1, x2) if tracing() is None else bind(x1, x2)
            elif (x1._dtype.name, type(x2)) in scalar_ok:
                return routed(prim, x1, x2) if tracing() is None else bind(x1, x2)
        elif type(x1) is tracer:  # (the same under tracing, unless one stands for a Python scalar argument)
            if type(x2) is tracer:
                if x1._dtype.name in names and x2._dtype.name in names \
                        and not x1._aval.weak_type and not x2._aval.weak_type:
                    return bind(x1, x2)
            elif (x1._dtype.name, type(x2)) in scalar_ok:
                return bind(x1, x2)
        elif (type(x2) is array or type(x2) is tracer) and (x2._dtype.name, type(x1)) in scalar_ok:
            return bind(x1, x2)
        return _binary_slow(prim, allowed, category, x1, x2)

    # What Array's operators need to take the same fast path without a second call (see `_array._binary`).
    function.fast_path = (names, prim)  # type: ignore[attr-defined]  # (a function attribute: mypy has no
                                        # way to declare one on a def)
    return _named(function, name, _docstring(summary, example, result))


@functools.cache
def _scalar_pairs(allowed: frozenset) -> frozenset:
    """The (array dtype, Python scalar type) pairs `_binary_slow` accepts for `allowed`: its fast-path table
    (one per dtype category, shared by the functions of that category)."""
    pairs = set()
    for dtype in allowed:
        for kind, example in ((bool, True), (int, 1), (float, 1.0), (complex, 1j)):
            try:
                _check_scalar(dtype, example, "")
            except TypeError:
                continue
            if _dtypes.scalar_result_dtype(dtype, example) in allowed:
                pairs.add((dtype, kind))
    return frozenset(pairs)


def _unary_function(name: str, category: str, summary: str, example: str, result: str,
                    copy_unless: tuple[str, ...] | None = None) -> UnaryFunction:
    """A one-argument function; `copy_unless`: dtype kinds it computes, every other dtype is copied as is."""
    prim = getattr(_p, name)
    allowed = _ALLOWED[category]

    def function(x: Array, /) -> Array:
        if type(x) is not Array and not isinstance(x, Array):
            raise TypeError(f"{name} takes an array, got {type(x).__name__}")
        dtype = x._dtype
        if dtype not in allowed:
            raise TypeError(f"{name} requires {category} dtypes, got {dtype.name}")
        if copy_unless is not None and dtype.kind not in copy_unless:
            return _p.copy.bind(x)
        return prim.bind(x)

    return _named(function, name, _docstring(summary, example, result))


def _named(function: F, name: str, doc: str) -> F:
    function.__name__ = function.__qualname__ = name
    function.__doc__ = doc
    return function


_FLOATING_KINDS = ("real floating", "complex floating")
_COMPLEX_KINDS = ("complex floating",)

# What each function takes, as the standard's stubs say (the factories return the widest type, `AnyBinaryFunction`):
add: BinaryFunction
subtract: BinaryFunction
multiply: BinaryFunction
divide: BinaryFunction
floor_divide: RealBinaryFunction
remainder: RealBinaryFunction
maximum: RealBinaryFunction
minimum: RealBinaryFunction
copysign: RealBinaryFunction
less: RealBinaryFunction
less_equal: RealBinaryFunction
greater: RealBinaryFunction
greater_equal: RealBinaryFunction
equal: AnyBinaryFunction
not_equal: AnyBinaryFunction
bitwise_and: BitwiseBinaryFunction
bitwise_or: BitwiseBinaryFunction
bitwise_xor: BitwiseBinaryFunction
bitwise_left_shift: IntegerBinaryFunction
bitwise_right_shift: IntegerBinaryFunction
logical_and: LogicalBinaryFunction
logical_or: LogicalBinaryFunction
logical_xor: LogicalBinaryFunction
abs: UnaryFunction
negative: UnaryFunction
square: UnaryFunction
sign: UnaryFunction
reciprocal: UnaryFunction
ceil: UnaryFunction
floor: UnaryFunction
trunc: UnaryFunction
round: UnaryFunction
isfinite: UnaryFunction
isinf: UnaryFunction
isnan: UnaryFunction
signbit: UnaryFunction
bitwise_invert: UnaryFunction
logical_not: UnaryFunction
real: UnaryFunction
imag: UnaryFunction
conj: UnaryFunction

# Each function: its name, the dtype category it accepts, a summary, and a doctest example with its result.
add = _binary_function("add", "numeric", "Elementwise sum `x1 + x2`, broadcasting.", "sx.add(sx.asarray([1, 2]), 3)",
                       "Array([4, 5])")
subtract = _binary_function("subtract", "numeric", "Elementwise difference `x1 - x2`.",
                            "sx.subtract(sx.asarray([1.0, 2.0]), 0.5)", "Array([0.5, 1.5])")
multiply = _binary_function("multiply", "numeric", "Elementwise product `x1 * x2`.",
                            "sx.multiply(sx.asarray([1, 2]), sx.asarray([3, 4]))", "Array([3, 8])")
divide = _binary_function("divide", "numeric",
                          "Elementwise true division `x1 / x2`; integer operands give float64 (NumPy's rule).",
                          "sx.divide(sx.asarray([1, 2]), 4)", "Array([0.25, 0.5 ])")
floor_divide = _binary_function("floor_divide", "real numeric",
                                "Elementwise `x1 // x2` rounded toward -infinity (spec special cases).",
                                "sx.floor_divide(sx.asarray([7, -7]), 2)", "Array([ 3, -4])")
remainder = _binary_function("remainder", "real numeric",
                             "Elementwise `x1 % x2`; the result takes the sign of `x2` (Python's %).",
                             "sx.remainder(sx.asarray([7, -7]), 3)", "Array([1, 2])")
maximum = _binary_function("maximum", "real numeric", "Elementwise larger of `x1` and `x2`; NaN if either is NaN.",
                           "sx.maximum(sx.asarray([1.0, float('nan')]), 2.0)", "Array([ 2., nan])")
minimum = _binary_function("minimum", "real numeric", "Elementwise smaller of `x1` and `x2`; NaN if either is NaN.",
                           "sx.minimum(sx.asarray([1.0, 3.0]), 2.0)", "Array([1., 2.])")
copysign = _binary_function("copysign", "real floating", "The magnitude of `x1` with the sign bit of `x2`.",
                            "sx.copysign(sx.asarray([1.0, 2.0]), -0.0)", "Array([-1., -2.])")
equal = _binary_function("equal", "any", "Elementwise `x1 == x2` (bool); NaN equals nothing.",
                         "sx.equal(sx.asarray([1, 2]), 2)", "Array([False,  True])")
not_equal = _binary_function("not_equal", "any", "Elementwise `x1 != x2` (bool).",
                             "sx.not_equal(sx.asarray([1, 2]), 2)", "Array([ True, False])")
less = _binary_function("less", "real numeric", "Elementwise `x1 < x2` (bool).", "sx.less(sx.asarray([1, 2]), 2)",
                        "Array([ True, False])")
less_equal = _binary_function("less_equal", "real numeric", "Elementwise `x1 <= x2` (bool).",
                              "sx.less_equal(sx.asarray([1, 2]), 2)", "Array([ True,  True])")
greater = _binary_function("greater", "real numeric", "Elementwise `x1 > x2` (bool).",
                           "sx.greater(sx.asarray([1, 2]), 1)", "Array([False,  True])")
greater_equal = _binary_function("greater_equal", "real numeric", "Elementwise `x1 >= x2` (bool).",
                                 "sx.greater_equal(sx.asarray([1, 2]), 2)", "Array([False,  True])")
bitwise_and = _binary_function("bitwise_and", "integer or boolean", "Elementwise bitwise AND `x1 & x2`.",
                               "sx.bitwise_and(sx.asarray([12, 10]), 6)", "Array([4, 2])")
bitwise_or = _binary_function("bitwise_or", "integer or boolean", "Elementwise bitwise OR `x1 | x2`.",
                              "sx.bitwise_or(sx.asarray([12, 10]), 1)", "Array([13, 11])")
bitwise_xor = _binary_function("bitwise_xor", "integer or boolean", "Elementwise bitwise XOR `x1 ^ x2`.",
                               "sx.bitwise_xor(sx.asarray([12, 10]), 6)", "Array([10, 12])")
bitwise_left_shift = _binary_function("bitwise_left_shift", "integer",
                                      "Elementwise `x1 << x2`; counts outside [0, bits) give 0.",
                                      "sx.bitwise_left_shift(sx.asarray([1, 3]), 2)", "Array([ 4, 12])")
bitwise_right_shift = _binary_function("bitwise_right_shift", "integer",
                                       "Elementwise arithmetic `x1 >> x2`; counts outside [0, bits) give 0 "
                                       "(or -1 for negative `x1`).",
                                       "sx.bitwise_right_shift(sx.asarray([8, -8]), 2)", "Array([ 2, -2])")
logical_and = _binary_function("logical_and", "logical",
                               "Elementwise logical AND (bool); nonzero numbers count as True.",
                               "sx.logical_and(sx.asarray([True, False]), True)", "Array([ True, False])")
logical_or = _binary_function("logical_or", "logical",
                              "Elementwise logical OR (bool); nonzero numbers count as True.",
                              "sx.logical_or(sx.asarray([True, False]), False)", "Array([ True, False])")
logical_xor = _binary_function("logical_xor", "logical",
                               "Elementwise logical XOR (bool); nonzero numbers count as True.",
                               "sx.logical_xor(sx.asarray([True, False]), True)", "Array([False,  True])")

abs = _unary_function("abs", "numeric", "Elementwise absolute value; complex input gives its real-dtype modulus.",
                      "sx.abs(sx.asarray([-1.5, 2.0]))", "Array([1.5, 2. ])")
negative = _unary_function("negative", "numeric", "Elementwise `-x`.", "sx.negative(sx.asarray([1, -2]))",
                           "Array([-1,  2])")
square = _unary_function("square", "numeric", "Elementwise `x * x`.", "sx.square(sx.asarray([2, -3]))",
                         "Array([4, 9])")
sign = _unary_function("sign", "numeric", "Elementwise sign: -1, 0 or 1 (x / |x| for complex); NaN stays NaN.",
                       "sx.sign(sx.asarray([-2.0, 0.0, 3.0]))", "Array([-1.,  0.,  1.])")
reciprocal = _unary_function("reciprocal", "numeric", "Elementwise `1.0 / x`; integer input gives float64.",
                             "sx.reciprocal(sx.asarray([2.0, 4.0]))", "Array([0.5 , 0.25])")
ceil = _unary_function("ceil", "real numeric", "Round up to the nearest integer-valued number (same dtype).",
                       "sx.ceil(sx.asarray([-1.5, 1.2]))", "Array([-1.,  2.])", copy_unless=_FLOATING_KINDS)
floor = _unary_function("floor", "real numeric", "Round down to the nearest integer-valued number (same dtype).",
                        "sx.floor(sx.asarray([-1.5, 1.2]))", "Array([-2.,  1.])", copy_unless=_FLOATING_KINDS)
trunc = _unary_function("trunc", "real numeric", "Round toward zero to an integer-valued number (same dtype).",
                        "sx.trunc(sx.asarray([-1.5, 1.7]))", "Array([-1.,  1.])", copy_unless=_FLOATING_KINDS)
round = _unary_function("round", "numeric", "Round to the nearest integer-valued number, halves to even.",
                        "sx.round(sx.asarray([0.5, 1.5, 2.5]))", "Array([0., 2., 2.])", copy_unless=_FLOATING_KINDS)
isfinite = _unary_function("isfinite", "numeric", "Elementwise test for finite values (bool).",
                           "sx.isfinite(sx.asarray([1.0, float('inf')]))", "Array([ True, False])")
isinf = _unary_function("isinf", "numeric", "Elementwise test for +-infinity (bool; complex: either component).",
                        "sx.isinf(sx.asarray([1.0, float('-inf')]))", "Array([False,  True])")
isnan = _unary_function("isnan", "numeric", "Elementwise test for NaN (bool; complex: either component).",
                        "sx.isnan(sx.asarray([1.0, float('nan')]))", "Array([False,  True])")
signbit = _unary_function("signbit", "real floating",
                          "Whether the sign bit is set (true for -0.0 and negative NaNs).",
                          "sx.signbit(sx.asarray([-0.0, 0.0]))", "Array([ True, False])")
bitwise_invert = _unary_function("bitwise_invert", "integer or boolean", "Elementwise bitwise NOT `~x`.",
                                 "sx.bitwise_invert(sx.asarray([0, 5]))", "Array([-1, -6])")
logical_not = _unary_function("logical_not", "logical",
                              "Elementwise logical NOT (bool); nonzero numbers count as True.",
                              "sx.logical_not(sx.asarray([True, False]))", "Array([False,  True])")
real = _unary_function("real", "numeric", "The real component (real-valued input is copied as is).",
                       "sx.real(sx.asarray([1 + 2j]))", "Array([1.])", copy_unless=_COMPLEX_KINDS)
imag = _unary_function("imag", "numeric", "The imaginary component (zeros of the same dtype for real-valued input).",
                       "sx.imag(sx.asarray([1 + 2j]))", "Array([2.])")
conj = _unary_function("conj", "numeric", "The complex conjugate (real-valued input is copied as is).",
                       "sx.conj(sx.asarray([1 + 2j]))", "Array([1.-2.j])", copy_unless=_COMPLEX_KINDS)


def positive(x: Array, /) -> Array:
    """Elementwise `+x`: a fresh array with the same values and dtype.

    >>> import stridex as sx
    >>> sx.positive(sx.asarray([1, -2]))
    Array([ 1, -2])
    """
    if not isinstance(x, Array):
        raise TypeError(f"positive takes an array, got {type(x).__name__}")
    if x._dtype not in _NUMERIC:
        raise TypeError(f"positive requires numeric dtypes, got {x._dtype.name}")
    return _p.copy.bind(x)


def nextafter(x1: Array | int | float, x2: Array | int | float, /) -> Array:
    """The next representable value after `x1` in the direction of `x2` (dtype of `x1`).

    >>> import stridex as sx
    >>> float(sx.nextafter(sx.asarray(1.0), 2.0)) - 1.0
    2.220446049250313e-16
    """
    if isinstance(x1, Array) and isinstance(x2, Array) and x1.dtype is not x2.dtype \
            and _weak_scalar(x1) is None and _weak_scalar(x2) is None:
        raise TypeError(f"nextafter requires x1 and x2 of the same dtype, got {x1.dtype.name} and {x2.dtype.name}")
    return _binary(_p.nextafter, _ALLOWED["real floating"], "real floating", x1, x2)


def clip(x: Array, /, min: int | float | Array | None = None, max: int | float | Array | None = None) -> Array:
    """Clamp `x` to [`min`, `max`] (arrays, Python scalars or None); the result keeps `x`'s dtype.

    A NaN in `x`, `min` or `max` gives NaN; where `min` > `max` the result is `max`.

    >>> import stridex as sx
    >>> sx.clip(sx.asarray([-2, 0, 5]), 0, 3)
    Array([0, 0, 3])
    """
    if not isinstance(x, Array):
        raise TypeError(f"clip takes an array, got {type(x).__name__}")
    dtype = x.dtype
    if dtype not in _ALLOWED["real numeric"]:
        raise TypeError(f"clip requires a real numeric dtype, got {dtype.name}")
    if min is None and max is None:
        return _p.copy.bind(x)
    low = _clip_bound(dtype, min, "min", low=True)
    high = _clip_bound(dtype, max, "max", low=False)
    return _p.clip.bind(x, low, high)


def _clip_bound(dtype, bound, name: str, low: bool):
    """A clip bound as an array or a Python scalar inside `dtype`'s range (None: the range's end)."""
    example = _weak_scalar(bound)
    if example is not None:
        return _traced_clip_bound(dtype, bound, example, name)
    if isinstance(bound, Array):
        if bound.dtype not in _ALLOWED["real numeric"]:
            raise TypeError(f"clip: {name} must have a real numeric dtype, got {bound.dtype.name}")
        return bound
    if bound is not None and not isinstance(bound, (bool, int, float)):
        scalar = _python_scalar(bound)
        if scalar is None or isinstance(scalar, complex):
            raise TypeError(f"clip: {name} must be an array, a Python int or float, or None; "
                            f"got {type(bound).__name__}")
        bound = scalar
    if dtype.kind in ("signed", "unsigned"):
        if isinstance(bound, float):
            raise TypeError(f"clip: a float {name} ({bound!r}) cannot bound an array of dtype {dtype.name}")
        info = _INT_RANGE[dtype]
        if bound is None:
            return info[0] if low else info[1]
        # Note: the spec leaves bounds outside the dtype's range unspecified; they saturate here.
        return min(max(int(bound), info[0]), info[1])
    if bound is None:
        return float('-inf') if low else float('inf')
    return float(bound)


def _traced_clip_bound(dtype, bound, example, name: str):
    """A clip bound that is a Python scalar argument of a jitted function: checked like that scalar and, for
    an integer `x`, saturated into x's range by a clip of its own, as a Python bound is (converting it to x's
    dtype would wrap it instead)."""
    if isinstance(example, complex):
        raise TypeError(f"clip: {name} must be an array, a Python int or float, or None; got complex")
    if dtype.kind not in ("signed", "unsigned") or isinstance(example, bool):
        return bound
    if isinstance(example, float):
        raise TypeError(f"clip: a float {name} cannot bound an array of dtype {dtype.name}")
    low, high = _INT_RANGE[dtype]
    return _p.clip.bind(bound, max(low, _INT_RANGE[_dtypes.int64][0]), min(high, _INT_RANGE[_dtypes.int64][1]))


_INT_RANGE = {d: ((-(1 << (8 * d.itemsize - 1)), (1 << (8 * d.itemsize - 1)) - 1) if d.kind == "signed"
                  else (0, (1 << (8 * d.itemsize)) - 1)) for d in _dtypes.INTEGER_DTYPES}

__all__ = [
    "abs", "add", "bitwise_and", "bitwise_invert", "bitwise_left_shift", "bitwise_or", "bitwise_right_shift",
    "bitwise_xor", "ceil", "clip", "conj", "copysign", "divide", "equal", "floor", "floor_divide", "greater",
    "greater_equal", "imag", "isfinite", "isinf", "isnan", "less", "less_equal", "logical_and", "logical_not",
    "logical_or", "logical_xor", "maximum", "minimum", "multiply", "negative", "nextafter", "not_equal",
    "positive", "real", "reciprocal", "remainder", "round", "sign", "signbit", "square", "subtract", "trunc",
]
