"""Elementwise primitives: one block per operation, most of them made by a few factories over NumPy ufuncs.

Inputs are arrays or Python scalars (weakly typed); outputs broadcast. The eager rule calls a NumPy
ufunc (plus the spec's special-case fix-ups where NumPy differs); large outputs go to aligned storage.
The lowering rule computes the same thing on `jax.lax`, converting operands to the exact dtype first.
Each primitive's JVP and VJP sit in its block, written with this module's primitives (so they are
themselves differentiable and batchable), and every primitive batches elementwise. Gradient conventions:
abs, sign and copysign take the subgradient 0 at 0; maximum/minimum (and clip at its bounds) share the
gradient equally between tied operands; rounding and floor_divide have zero derivative.
"""

from __future__ import annotations

import numpy as np

from stridex._core import dtypes as _dtypes
from stridex._core.avals import ShapedArray, aval_of
from stridex._core.storage import ALIGNED_OUTPUT_ELEMENTS, aligned_copy, output_buffer
from stridex._core.view import broadcast_shapes
from stridex._lax import ops
from stridex._lax.half import in_float32, lower_in_float32
from stridex._exec.jax_bridge import (
    as_dtype,
    broadcast_to_aval,
    correctly_rounded_float32,
    ieee_divide,
    lax,
    program_true,
)
from stridex._lax.primitive import Primitive, RuleShape
from stridex._lax.rule_shapes import batch_elementwise, linear_jvp, scaled, sum_terms
from stridex._lax.ufuncs import (  # noqa: F401  (call_ufunc, same_as_ufunc and the factories: by their old names too)
    _copysign,
    _is_complex,
    _is_float,
    _isinf,
    _isnan,
    _promoted,
    _quiet,
    _select,
    _signbit,
    _zeros_like,
    binary_abstract,
    call_ufunc,
    lower_binary,
    lower_unary,
    operands,
    same_as_ufunc,
    ufunc_binary,
    ufunc_unary,
    unary_abstract,
)


# --- rule helpers ------------------------------------------------------------------------------------
# Conventions, where there is a choice (JAX's, so results match jax.grad):
# - Complex values: a VJP rule is the transpose of its JVP under the real pairing Re(a * b), so for a
#   holomorphic f the cotangent is `ct * f'(x)` (no conjugate), and conj transposes to conj.
# - abs and sign take the subgradient 0 at 0 (abs'(0) = sign(0) = 0); so does copysign(x1, x2) in x1,
#   and its derivative in x2 is 0. The sign of a complex z is z / |z|, differentiated as such (JAX
#   gives it a zero derivative).
# - maximum and minimum share the derivative equally between tied operands (half each); clip is
#   minimum(maximum(x, min), max) and follows the same rule at its bounds.
# - floor_divide, round, floor, ceil, trunc and the sign of real values are piecewise constant: zero
#   derivative (their JVP gives no tangent). remainder(x1, x2) = x1 - x2 * floor(x1 / x2), so
#   d/dx1 = 1 and d/dx2 = -floor(x1 / x2).
# - Comparisons, bitwise and logical operations, predicates and nextafter are `differentiable=False`.
# A tangent or cotangent of None stands for zero.


def _scalar(x) -> bool:
    return type(x) in _dtypes.PY_SCALARS


def _is_complex_value(x) -> bool:
    return not _scalar(x) and x.dtype.kind == "complex floating"


def _at_shape(t, out):
    """A tangent at the output's shape (an operand's tangent is smaller when the other operand broadcasts)."""
    if t is None or t.shape == out.shape:
        return t
    return ops.broadcast_to(t, out.shape)


def _chain_jvp(derivative) -> RuleShape:
    """The JVP of a unary primitive whose derivative is `derivative(x, out)`: the tangent scaled by it."""

    def make(prim):
        def jvp(primals, tangents):
            (x,), (t,) = primals, tangents
            out = prim.bind(x)
            return out, multiply.bind(t, derivative(x, out))

        return jvp

    return RuleShape(make)


def _chain_vjp(derivative):
    """The VJP of a unary primitive whose derivative is `derivative(x, out)`: the cotangent scaled by it."""
    return lambda ct, x, *, out: (multiply.bind(ct, derivative(x, out)),)


# The JVP of a piecewise-constant primitive: the value, and no tangent (zero derivative everywhere).
_constant_jvp = RuleShape(lambda prim: lambda primals, tangents, **params: (prim.bind(*primals, **params), None))


def _zero_vjp(arity: int):
    """The VJP of a piecewise-constant primitive of `arity` operands: no cotangent for any of them."""
    return lambda ct, *primals, out, **params: (None,) * arity


# The VJP of a unary linear primitive that is its own transpose (negative, conj, copy): f(ct).
_self_transpose = RuleShape(lambda prim: lambda ct, x, *, out: (prim.bind(ct),))


# --- add: x1 + x2 ------------------------------------------------------------------------------------


def _add_jvp(primals, tangents):
    out = add.bind(*primals)
    return out, _at_shape(sum_terms(*tangents), out)


def _add_vjp(ct, x1, x2, *, out):
    return ct, ct


def _is_zero_literal(x, negative: bool) -> bool:
    """A Python (or NumPy) scalar zero of the given sign (0, 0.0, False are +0) written into the program, not a
    traced value."""
    return isinstance(x, (bool, int, float, np.bool_, np.integer, np.floating)) and x == 0 and \
        bool(np.signbit(x)) == negative


def _plus_zero_for_zeros(x):
    """`x + 0.0` as XLA cannot fold it: x, with either zero as +0.0."""
    zero = lax().full_like(x, 0)
    return lax().select(lax().eq(x, zero), zero, x)


def _lower_add(ctx, x1, x2):
    a, b = operands(ctx, (x1, x2))
    if ctx.aval_out.dtype.kind == "real floating":
        # XLA's algebraic simplifier folds `x + 0` to `x`, which keeps -0.0 where IEEE 754 and the spec give
        # +0.0 ("if x1_i is -0 and x2_i is +0, the result is +0"). A literal +0 (`x + 0.0`, the idiom for a
        # fresh copy) is lowered as what the addition computes. (A zero array made inside the program, such
        # as `x + zeros_like(x)`, is still folded by XLA: docs/semantics.md.)
        for literal, other in ((x1, b), (x2, a)):
            if _is_zero_literal(literal, negative=False):
                return _plus_zero_for_zeros(other)
    return lax().add(a, b)


add = ufunc_binary("add", np.add, lower=_lower_add, jvp=_add_jvp, vjp=_add_vjp)


# --- subtract: x1 - x2 -------------------------------------------------------------------------------


def _subtract_jvp(primals, tangents):
    out = subtract.bind(*primals)
    t1, t2 = tangents
    tangent = negative.bind(t2) if t1 is None else t1 if t2 is None else subtract.bind(t1, t2)
    return out, _at_shape(tangent, out)


def _subtract_vjp(ct, x1, x2, *, out):
    return ct, negative.bind(ct)


def _lower_subtract(ctx, x1, x2):
    a, b = operands(ctx, (x1, x2))
    if ctx.aval_out.dtype.kind == "real floating" and _is_zero_literal(x2, negative=True):
        return _plus_zero_for_zeros(a)  # x - (-0.0) is x + 0.0, which XLA folds to x as well (see add)
    return lax().sub(a, b)


subtract = ufunc_binary("subtract", np.subtract, lower=_lower_subtract, jvp=_subtract_jvp, vjp=_subtract_vjp)


# --- multiply: x1 * x2 -------------------------------------------------------------------------------


def _multiply_jvp(primals, tangents):
    x1, x2 = primals
    out = multiply.bind(x1, x2)
    return out, _at_shape(sum_terms(scaled(tangents[0], x2), scaled(tangents[1], x1)), out)


def _multiply_vjp(ct, x1, x2, *, out):
    return None if _scalar(x1) else multiply.bind(ct, x2), None if _scalar(x2) else multiply.bind(ct, x1)


def _lower_multiply(ctx, x1, x2):
    a, b = operands(ctx, (x1, x2))
    masks = [aval.dtype is _dtypes.bool and hasattr(x, "dtype") for aval, x in zip(ctx.avals_in, (x1, x2))]
    if masks[0] != masks[1] and ctx.aval_out.dtype is not _dtypes.bool:
        # x * mask (the derivative rules of maximum, minimum and clip take shares so): XLA rewrites a product with a
        # converted boolean into select(mask, x, 0), which drops NaN * False = NaN (NumPy's value, and eager's); a
        # select between x and x * 0 keeps it, and every signed zero.
        x, mask = (a, x2) if masks[1] else (b, x1)
        return lax().select(broadcast_to_aval(mask, ShapedArray(ctx.aval_out.shape, _dtypes.bool)), x,
                            lax().mul(x, lax().full_like(x, 0)))
    return lax().mul(a, b)


multiply = ufunc_binary("multiply", np.multiply, lower=_lower_multiply, jvp=_multiply_jvp, vjp=_multiply_vjp)


# --- divide: x1 / x2 (integer and bool operands divide in the default floating dtype, as NumPy) ------


def _divide_jvp(primals, tangents):
    x1, x2 = primals
    t1, t2 = tangents
    out = divide.bind(x1, x2)
    # d(x1 / x2) = (dx1 - out * dx2) / x2
    numerator = t1 if t2 is None else subtract.bind(t1, multiply.bind(t2, out)) if t1 is not None \
        else negative.bind(multiply.bind(t2, out))
    return out, _at_shape(divide.bind(numerator, x2), out)


def _divide_vjp(ct, x1, x2, *, out):
    ct_1 = divide.bind(ct, x2)
    return ct_1, None if _scalar(x2) else negative.bind(multiply.bind(ct_1, out))


_div = correctly_rounded_float32(lambda a, b: lax().div(a, b))


def _lower_divide(ctx, x1, x2):
    if ctx.avals_in[1].shape == ctx.aval_out.shape and ctx.aval_out.shape:
        return _div(*operands(ctx, (x1, x2)))
    # (a divisor broadcast to the result, or a 0-d one: kept a division, see ieee_divide, whose predicate is
    # taken here, outside platform_dependent's branches)
    a = broadcast_to_aval(x1, ctx.aval_out)
    b = as_dtype(x2, ctx.aval_out.dtype)
    true = program_true() if ctx.aval_out.dtype.kind == "real floating" else None
    if true is None:
        return correctly_rounded_float32(ieee_divide)(a, b)
    return correctly_rounded_float32(ieee_divide)(a, b, true)


divide = Primitive(
    "divide",
    impl=same_as_ufunc(_quiet(lambda x1, x2: call_ufunc(np.divide, x1, x2)), np.divide, quiet=True),
    abstract_eval=binary_abstract(dtype_rule=_dtypes.default_float_for),
    lower=_lower_divide,
    jvp=_divide_jvp,
    vjp=_divide_vjp,
    batch=batch_elementwise,
    elementwise=True,
)


# --- floor_divide: floor(x1 / x2), with the spec's infinite cases ------------------------------------


def _floor_divide_impl(x1, x2):
    out = call_ufunc(np.floor_divide, x1, x2)
    if _dtypes.np_kind(out.dtype) == "f":  # (bfloat16 too, which NumPy files under "V")
        # Note: the spec asks for floor(x1 / x2) when an operand is infinite (inf // 2 is +inf and
        # 1 // -inf is -0); NumPy pairs // with % there (NaN and -1).
        infinite = np.isinf(x1) | np.isinf(x2)
        if infinite.any():
            np.copyto(out, np.floor(call_ufunc(np.divide, x1, x2)).astype(out.dtype), where=infinite)
    return out


def _lower_floor_divide(ctx, x1, x2):
    L = lax()
    a, b = operands(ctx, (x1, x2))
    if not _is_float(a):
        return _int_floor_divide(a, b)
    # NumPy's floating divmod, step by step, then the spec's infinite cases.
    zero = L.full_like(a, 0)
    mod = L.rem(a, b)
    div = L.div(L.sub(a, mod), b)
    adjust = L.bitwise_and(L.ne(mod, zero), L.ne(L.lt(b, zero), L.lt(mod, zero)))
    div = _select(adjust, L.sub(div, L.full_like(div, 1)), div)
    floor = L.floor(div)
    floor = _select(L.gt(L.sub(div, floor), L.full_like(div, 0.5)), L.add(floor, L.full_like(div, 1)), floor)
    quotient = L.div(a, b)
    floor = _select(L.ne(div, zero), floor, _copysign(zero, quotient))
    out = _select(L.eq(b, zero), quotient, floor)
    return _select(L.bitwise_or(_isinf(a), _isinf(b)), L.floor(quotient), out)


def _int_floor_divide(a, b):
    """Integer floor division with NumPy's answers at the edges (x // 0 is 0)."""
    L = lax()
    zero = L.full_like(a, 0)
    nonzero_b = _select(L.eq(b, zero), L.full_like(b, 1), b)
    q = L.div(a, nonzero_b)
    if np.dtype(a.dtype).kind == "i":
        r = L.rem(a, nonzero_b)
        q = _select(L.bitwise_and(L.ne(r, zero), L.ne(L.lt(r, zero), L.lt(b, zero))), L.sub(q, L.full_like(q, 1)), q)
    return _select(L.eq(b, zero), zero, q)


# Rules: piecewise constant, so zero derivative (nothing to derive from the composition).
floor_divide = Primitive(
    "floor_divide",
    impl=_quiet(_floor_divide_impl),
    abstract_eval=binary_abstract(),
    lower=lower_in_float32(_lower_floor_divide),  # (half types: one rounding, as NumPy's kernel)
    jvp=_constant_jvp,
    vjp=_zero_vjp(2),
    batch=batch_elementwise,
    elementwise=True,
)


# --- remainder: x1 - x2 * floor(x1 / x2), the divisor's sign -----------------------------------------


def _lower_remainder(ctx, x1, x2):
    L = lax()
    a, b = operands(ctx, (x1, x2))
    zero = L.full_like(a, 0)
    if not _is_float(a):
        nonzero_b = _select(L.eq(b, zero), L.full_like(b, 1), b)
        r = L.rem(a, nonzero_b)
        if np.dtype(a.dtype).kind == "i":
            r = _select(L.bitwise_and(L.ne(r, zero), L.ne(L.lt(r, zero), L.lt(b, zero))), L.add(r, b), r)
        return _select(L.eq(b, zero), zero, r)
    # Python's % from C's fmod, as NumPy computes it: the result takes the divisor's sign.
    mod = L.rem(a, b)
    mod = _select(L.bitwise_and(L.ne(mod, zero), L.ne(L.lt(b, zero), L.lt(mod, zero))), L.add(mod, b), mod)
    return _select(L.eq(mod, zero), _copysign(zero, b), mod)


def _remainder_jvp(primals, tangents):
    x1, x2 = primals
    t1, t2 = tangents
    out = remainder.bind(x1, x2)
    scaled = None if t2 is None else negative.bind(multiply.bind(t2, floor_divide.bind(x1, x2)))
    return out, _at_shape(sum_terms(t1, scaled), out)


def _remainder_vjp(ct, x1, x2, *, out):
    return ct, None if _scalar(x2) else negative.bind(multiply.bind(ct, floor_divide.bind(x1, x2)))


# jvp/vjp hand-written: d/dx1 = 1, d/dx2 = -floor_divide(x1, x2), one extra primitive; the decomposition
# would also evaluate x2 * floor(x1 / x2) and the subtraction, and loses the spec's sign-of-zero fix-ups.
remainder = Primitive(
    "remainder",
    impl=same_as_ufunc(_quiet(lambda x1, x2: call_ufunc(np.remainder, x1, x2)), np.remainder, quiet=True),
    abstract_eval=binary_abstract(),
    lower=lower_in_float32(_lower_remainder),  # (half types: one rounding, as NumPy's kernel)
    jvp=_remainder_jvp,
    vjp=_remainder_vjp,
    batch=batch_elementwise,
    elementwise=True,
)


# --- fmod: C's fmod, x1 - x2 * trunc(x1 / x2), the dividend's sign (stridex.numpy.fmod) ----------------


def _lower_fmod(ctx, x1, x2):
    L = lax()
    a, b = operands(ctx, (x1, x2))
    if _is_float(a):
        return L.rem(a, b)  # (XLA's rem is C's fmod, exact as NumPy's kernel)
    zero = L.full_like(a, 0)
    return _select(L.eq(b, zero), zero, L.rem(a, _select(L.eq(b, zero), L.full_like(b, 1), b)))  # NumPy: x % 0 is 0


def _fmod_quotient(x1, x2, out):
    """trunc(x1 / x2), as the whole number (x1 - fmod(x1, x2)) / x2 rounded: trunc of the rounded quotient
    itself could step down to the next integer."""
    return round.bind(ops.divide(ops.subtract(x1, out), x2))


def _fmod_jvp(primals, tangents):
    x1, x2 = primals
    t1, t2 = tangents
    out = fmod.bind(x1, x2)
    scaled = None if t2 is None else negative.bind(multiply.bind(t2, _fmod_quotient(x1, x2, out)))
    return out, _at_shape(sum_terms(t1, scaled), out)


def _fmod_vjp(ct, x1, x2, *, out):
    return ct, None if _scalar(x2) else negative.bind(multiply.bind(ct, _fmod_quotient(x1, x2, out)))


# jvp/vjp hand-written as remainder's: d/dx1 = 1, d/dx2 = -trunc(x1 / x2). A primitive, not a composition of
# remainder: NumPy and XLA both have the exact kernel, and remainder(x1, x2) - x2 rounds where fmod is exact.
fmod = Primitive(
    "fmod",
    impl=same_as_ufunc(_quiet(lambda x1, x2: call_ufunc(np.fmod, x1, x2)), np.fmod, quiet=True),
    abstract_eval=binary_abstract(),
    lower=lower_in_float32(_lower_fmod),  # (half types: one rounding, as NumPy's kernel)
    jvp=_fmod_jvp,
    vjp=_fmod_vjp,
    batch=batch_elementwise,
    elementwise=True,
)


# --- equal, not_equal, less, less_equal, greater, greater_equal: bool, in the promoted dtype ---------


def _compare_mixed_signs(op, a, b):
    """Exact comparison of int64 with uint64 (their promoted dtype, float64, would round)."""
    L = lax()
    if np.dtype(a.dtype).kind == "u":  # make `a` the signed one, flipping the relation
        a, b = b, a
        op = {"lt": "gt", "le": "ge", "gt": "lt", "ge": "le"}.get(op, op)
    negative = L.lt(a, L.full_like(a, 0))
    a_u = L.convert_element_type(a, np.uint64)
    b_u = L.convert_element_type(b, np.uint64)
    if op == "eq":
        return L.bitwise_and(L.bitwise_not(negative), L.eq(a_u, b_u))
    if op == "ne":
        return L.bitwise_or(negative, L.ne(a_u, b_u))
    if op in ("lt", "le"):
        return L.bitwise_or(negative, getattr(L, op)(a_u, b_u))
    return L.bitwise_and(L.bitwise_not(negative), getattr(L, op)(a_u, b_u))


_FLIPPED = {"lt": "gt", "le": "ge", "gt": "lt", "ge": "le", "eq": "eq", "ne": "ne"}


def _out_of_range_comparison(ctx, op, x1, x2):
    """The constant result of comparing integers with a Python int outside their dtype (NumPy answers
    these exactly), or None when no operand is such a scalar."""
    dtype = _promoted(ctx)
    if dtype.kind not in ("signed", "unsigned"):
        return None
    info = np.iinfo(dtype.np)
    for scalar, flip in ((x2, False), (x1, True)):
        if type(scalar) is int and not info.min <= scalar <= info.max:
            relation = _FLIPPED[op] if flip else op  # now "array <relation> scalar"
            above = scalar > info.max
            value = {"lt": above, "le": above, "gt": not above, "ge": not above, "eq": False, "ne": True}[relation]
            return lax().full(ctx.aval_out.shape, value, np.bool_)
    return None


def _traced_int_comparison(ctx, op, x1, x2):
    """A comparison of an integer array with a traced Python int (a weak int64 argument of a jitted function),
    exact whatever the int's value, as NumPy's comparison with a Python int is; None for other operands.

    Converting the int to the array's dtype would wrap it. Instead the comparison is done in int64, which holds
    both; for uint64 (which int64 does not hold) a negative int decides the result by its sign alone."""
    a1, a2 = ctx.avals_in
    dtype = _promoted(ctx)
    if a1.weak_type == a2.weak_type or dtype.kind not in ("signed", "unsigned") or dtype is _dtypes.int64:
        return None
    scalar, weak = (x1, a1) if a1.weak_type else (x2, a2)
    if weak.dtype is not _dtypes.int64 or isinstance(scalar, int):
        return None  # (a Python int literal: `_out_of_range_comparison` and the plain path answer it)
    L = lax()
    if dtype is not _dtypes.uint64:
        a, b = operands(ctx, (x1, x2), _dtypes.int64)
        return getattr(L, op)(a, b)
    a, b = operands(ctx, (x1, x2), dtype)  # a negative int wraps here; those results are replaced below
    relation = _FLIPPED[op] if a1.weak_type else op  # now "array <relation> scalar"
    shape = ShapedArray(ctx.aval_out.shape, _dtypes.bool)
    negative = broadcast_to_aval(L.lt(scalar, L.full_like(scalar, 0)), shape)
    by_sign = broadcast_to_aval(relation in ("gt", "ge", "ne"), shape)  # every uint64 is above a negative int
    return L.select(negative, by_sign, getattr(L, op)(a, b))


def _lower_compare(op):
    def lower(ctx, x1, x2):
        constant = _out_of_range_comparison(ctx, op, x1, x2)
        if constant is not None:
            return constant
        traced = _traced_int_comparison(ctx, op, x1, x2)
        if traced is not None:
            return traced
        a1, a2 = ctx.avals_in
        kinds = {a1.dtype.kind, a2.dtype.kind}
        if kinds == {"signed", "unsigned"} and not (a1.weak_type or a2.weak_type) and _promoted(ctx).kind != "signed":
            aval_1 = ShapedArray(ctx.aval_out.shape, a1.dtype)
            aval_2 = ShapedArray(ctx.aval_out.shape, a2.dtype)
            return _compare_mixed_signs(op, broadcast_to_aval(x1, aval_1), broadcast_to_aval(x2, aval_2))
        a, b = operands(ctx, (x1, x2), _promoted(ctx))
        return getattr(lax(), op)(a, b)

    return lower


def _comparison(name: str, ufunc, op: str) -> Primitive:
    return ufunc_binary(name, ufunc, abstract_eval=binary_abstract(_dtypes.bool), lower=_lower_compare(op),
                        differentiable=False)


equal = _comparison("equal", np.equal, "eq")
not_equal = _comparison("not_equal", np.not_equal, "ne")
less = _comparison("less", np.less, "lt")
less_equal = _comparison("less_equal", np.less_equal, "le")
greater = _comparison("greater", np.greater, "gt")
greater_equal = _comparison("greater_equal", np.greater_equal, "ge")


# --- maximum, minimum: NaN in either operand gives NaN (as np.maximum and lax.max) -------------------


def _share(first_wins, x1, x2, v):
    """x1's share of `v` in maximum/minimum: all of it where x1 wins, half on a tie, none otherwise (or on NaN).

    Multiplying by the boolean masks keeps `v`'s dtype and needs no conversion primitive.
    """
    return add.bind(multiply.bind(v, first_wins.bind(x1, x2)), multiply.bind(multiply.bind(v, 0.5), equal.bind(x1, x2)))


def _extremum_tangent(first_wins, x1, x2, t1, t2):
    if t2 is None:
        return _share(first_wins, x1, x2, t1)
    if t1 is None:
        return subtract.bind(t2, _share(first_wins, x1, x2, t2))
    return add.bind(t2, _share(first_wins, x1, x2, subtract.bind(t1, t2)))


def _extremum(name: str, ufunc, lower, first_wins) -> Primitive:
    """maximum or minimum: x1 is the result where `first_wins(x1, x2)`, and ties share the derivative."""

    def jvp(primals, tangents):
        x1, x2 = primals
        out = prim.bind(x1, x2)
        return out, _at_shape(_extremum_tangent(first_wins, x1, x2, *tangents), out)

    def vjp(ct, x1, x2, *, out):
        ct_1 = _share(first_wins, x1, x2, ct)
        return ct_1, subtract.bind(ct, ct_1)

    prim = ufunc_binary(name, ufunc, lower=lower, jvp=jvp, vjp=vjp)
    return prim


maximum = _extremum("maximum", np.maximum, lower_binary(lambda a, b: lax().max(a, b)), greater)
minimum = _extremum("minimum", np.minimum, lower_binary(lambda a, b: lax().min(a, b)), less)


# --- copysign: |x1| with the sign of x2 --------------------------------------------------------------


def _copysign_factor(x1, out):
    """d copysign(x1, x2) / dx1 = sign(x1) * sign(out): +-1, or 0 at x1 = 0 (as abs)."""
    return multiply.bind(sign.bind(x1), sign.bind(out))


def _copysign_jvp(primals, tangents):
    x1, x2 = primals
    out = copysign.bind(x1, x2)
    return out, _at_shape(scaled(tangents[0], _copysign_factor(x1, out)), out)


def _copysign_vjp(ct, x1, x2, *, out):
    return multiply.bind(ct, _copysign_factor(x1, out)), None


copysign = ufunc_binary("copysign", np.copysign, lower=lower_binary(_copysign), jvp=_copysign_jvp, vjp=_copysign_vjp)


# --- nextafter: a step to the neighbouring float (no derivative) -------------------------------------

nextafter = ufunc_binary("nextafter", np.nextafter, lower=lower_binary(lambda a, b: lax().nextafter(a, b)),
                         differentiable=False)


# --- negative: -x ------------------------------------------------------------------------------------


def _lower_negative(a, aval):
    return lax().neg(a)


negative = ufunc_unary("negative", np.negative, lower=lower_unary(_lower_negative), jvp=linear_jvp,
                       vjp=_self_transpose)


# --- square: x * x -----------------------------------------------------------------------------------


def _square_derivative(x, out):
    return multiply.bind(x, 2)


square = ufunc_unary("square", np.square, lower=lower_unary(lambda a, aval: lax().mul(a, a)),
                     jvp=_chain_jvp(_square_derivative), vjp=_chain_vjp(_square_derivative))


# --- abs: |x| (a complex input's modulus, in its real dtype) -----------------------------------------


def _lower_abs(a, aval):
    L = lax()
    if np.dtype(a.dtype).kind == "u":
        return a
    if not _is_complex(a):
        return L.abs(a)
    re, im = L.real(a), L.imag(a)
    out = L.abs(a)
    # Note: the spec (like hypot) makes |z| infinite whenever a component is, NaN or not.
    return _select(L.bitwise_or(_isinf(re), _isinf(im)), L.full_like(out, np.inf), out)


def _abs_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    out = abs.bind(x)
    s = sign.bind(x)
    if _is_complex_value(x):
        return out, real.bind(multiply.bind(conj.bind(s), t))  # Re(conj(x) dx) / |x|
    return out, multiply.bind(t, s)


def _abs_vjp(ct, x, *, out):
    s = sign.bind(x)
    return (multiply.bind(ct, conj.bind(s) if _is_complex_value(x) else s),)


abs = ufunc_unary("abs", np.absolute, abstract_eval=unary_abstract(_dtypes.real_of), lower=lower_unary(_lower_abs),
                  jvp=_abs_jvp, vjp=_abs_vjp)


# --- reciprocal: 1 / x, computed as the spec says (`1.0 / x`, so integers give the default float) ----


def _reciprocal_derivative(x, out):
    return negative.bind(square.bind(out))


reciprocal = Primitive(
    "reciprocal",
    impl=_quiet(lambda x: call_ufunc(np.divide, 1.0, x)),
    abstract_eval=unary_abstract(_dtypes.default_float_for),
    lower=lambda ctx, x: _div(*operands(ctx, (1.0, x))),
    jvp=_chain_jvp(_reciprocal_derivative),
    vjp=_chain_vjp(_reciprocal_derivative),
    batch=batch_elementwise,
    elementwise=True,
)


# --- sign: -1, 0 or +1; x / |x| for complex x --------------------------------------------------------


def _sign_impl(x):
    out = call_ufunc(np.sign, x)
    if out.dtype.kind == "c":
        # Note: the spec makes sign(z) NaN + NaN j when either component is NaN; NumPy gives
        # +-1 for inf + nan j.
        nan = np.isnan(x)
        if nan.any():
            out[nan] = complex(np.nan, np.nan)
    return out


def _lower_sign(a, aval):
    L = lax()
    if _is_float(a):
        zero = L.full_like(a, 0)
        return _select(L.eq(a, zero), zero, L.sign(a))  # +0 for either zero, as NumPy gives
    if not _is_complex(a):
        return L.sign(a)
    # NumPy's x / |x| with its infinite cases, plus the spec's NaN rule.
    re, im = L.real(a), L.imag(a)
    magnitude = _lower_abs(a, aval)
    zero = L.full_like(re, 0)
    nan = L.full_like(re, np.nan)
    finite_re = L.div(re, magnitude)
    finite_im = L.div(im, magnitude)
    re_inf, im_inf = _isinf(re), _isinf(im)
    inf_re = _select(re_inf, _select(im_inf, nan, L.sign(re)), zero)
    inf_im = _select(re_inf, _select(im_inf, nan, zero), L.sign(im))
    is_inf = L.bitwise_or(re_inf, im_inf)
    out_re = _select(is_inf, inf_re, finite_re)
    out_im = _select(is_inf, inf_im, finite_im)
    is_zero = L.eq(magnitude, zero)
    out_re = _select(is_zero, zero, out_re)
    out_im = _select(is_zero, zero, out_im)
    is_nan = L.bitwise_or(_isnan(re), _isnan(im))
    out_re = _select(is_nan, nan, out_re)
    out_im = _select(is_nan, nan, out_im)
    return L.complex(out_re, out_im)


def _safe_modulus(x):
    """|x| with zeros replaced by ones (a divisor that is harmless where the numerator vanishes)."""
    magnitude = abs.bind(x)
    return add.bind(magnitude, equal.bind(magnitude, 0))  # bool + real: the real dtype


def _sign_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    out = sign.bind(x)
    if not _is_complex_value(x):
        return out, None
    # d(x / |x|) = i s Im(conj(s) dx) / |x|, with s = sign(x); s = 0 makes it 0 at x = 0.
    rotated = multiply.bind(imag.bind(multiply.bind(conj.bind(out), t)), multiply.bind(out, 1j))
    return out, divide.bind(rotated, _safe_modulus(x))


def _sign_vjp(ct, x, *, out):
    if not _is_complex_value(x):
        return (None,)
    rotated = multiply.bind(imag.bind(multiply.bind(out, ct)), multiply.bind(conj.bind(out), 1j))
    return (divide.bind(rotated, _safe_modulus(x)),)


# jvp/vjp hand-written: for complex x the closed form i s Im(conj(s) dx) / |x| is finite at 0; the
# decomposition x / |x| would divide by zero there (and the real case is a plain zero derivative).
sign = Primitive(
    "sign",
    impl=_sign_impl,
    abstract_eval=unary_abstract(),
    lower=lower_unary(_lower_sign),
    jvp=_sign_jvp,
    vjp=_sign_vjp,
    batch=batch_elementwise,
    elementwise=True,
)


# --- ceil, floor, trunc, round: rounding of floating inputs (integers are copied by the namespace) ---


def _lower_trunc(a, aval):
    L = lax()
    return _select(L.lt(a, L.full_like(a, 0)), L.ceil(a), L.floor(a))


def _lower_round(a, aval):
    L = lax()
    even = L.RoundingMethod.TO_NEAREST_EVEN
    if _is_complex(a):
        return L.complex(L.round(L.real(a), even), L.round(L.imag(a), even))
    return L.round(a, even)


def _rounding(name: str, ufunc, lower) -> Primitive:
    """A rounding primitive: piecewise constant, so zero derivative."""
    return ufunc_unary(name, ufunc, lower=lower_unary(lower), jvp=_constant_jvp, vjp=_zero_vjp(1))


ceil = _rounding("ceil", np.ceil, lambda a, aval: lax().ceil(a))
floor = _rounding("floor", np.floor, lambda a, aval: lax().floor(a))
trunc = _rounding("trunc", np.trunc, _lower_trunc)
# np.rint rounds half to even and keeps signed zeros; complex components round independently.
round = _rounding("round", np.rint, _lower_round)


# --- bitwise_and, bitwise_or, bitwise_xor, bitwise_invert: integer or bool operands ------------------


def _integer_or_bool(dtype):
    if dtype.kind not in ("bool", "signed", "unsigned"):
        raise TypeError(f"bitwise operations need integer or boolean operands; these promote to {dtype.name}")
    return dtype


def _bitwise(name: str, ufunc, op: str) -> Primitive:
    return ufunc_binary(name, ufunc, abstract_eval=binary_abstract(dtype_rule=_integer_or_bool),
                        lower=lower_binary(lambda a, b: getattr(lax(), op)(a, b)), differentiable=False)


bitwise_and = _bitwise("bitwise_and", np.bitwise_and, "bitwise_and")
bitwise_or = _bitwise("bitwise_or", np.bitwise_or, "bitwise_or")
bitwise_xor = _bitwise("bitwise_xor", np.bitwise_xor, "bitwise_xor")
bitwise_invert = ufunc_unary("bitwise_invert", np.invert, lower=lower_unary(lambda a, aval: lax().bitwise_not(a)),
                             differentiable=False)


# --- bitwise_left_shift, bitwise_right_shift: integer operands ---------------------------------------


def _lower_shift(left: bool):
    # Note: the spec only defines counts in [0, bits); like NumPy, a negative or too-large count
    # shifts every bit out (0, or -1 for a negative value shifted right).
    def lower(ctx, x1, x2):
        L = lax()
        a, b = operands(ctx, (x1, x2))
        bits = 8 * np.dtype(a.dtype).itemsize
        in_range = L.bitwise_and(L.ge(b, L.full_like(b, 0)), L.lt(b, L.full_like(b, bits)))
        safe = _select(in_range, b, L.full_like(b, 0))
        zero = L.full_like(a, 0)
        if left:
            return _select(in_range, L.shift_left(a, safe), zero)
        if np.dtype(a.dtype).kind == "u":
            return _select(in_range, L.shift_right_logical(a, safe), zero)
        fill = _select(L.lt(a, zero), L.full_like(a, -1), zero)
        return _select(in_range, L.shift_right_arithmetic(a, safe), fill)

    return lower


def _integer(dtype):
    if dtype.kind not in ("signed", "unsigned"):
        raise TypeError(f"bit shifts need integer operands; these promote to {dtype.name}")
    return dtype


bitwise_left_shift = ufunc_binary("bitwise_left_shift", np.left_shift,
                                  abstract_eval=binary_abstract(dtype_rule=_integer),
                                  lower=_lower_shift(True), differentiable=False)
bitwise_right_shift = ufunc_binary("bitwise_right_shift", np.right_shift,
                                   abstract_eval=binary_abstract(dtype_rule=_integer),
                                   lower=_lower_shift(False), differentiable=False)


# --- logical_and, logical_or, logical_xor, logical_not: truth values, bool result --------------------


def _truth(x, aval):
    """A JAX value as bool: nonzero is True (what the logical functions do with non-bool inputs)."""
    L = lax()
    x = as_dtype(x, aval.dtype)
    return x if aval.dtype is _dtypes.bool else L.ne(x, L.full_like(x, 0))


def _lower_logical(op):
    def lower(ctx, x1, x2):
        shape_aval = ShapedArray(ctx.aval_out.shape, _dtypes.bool)
        a = broadcast_to_aval(_truth(x1, ctx.avals_in[0]), shape_aval)
        b = broadcast_to_aval(_truth(x2, ctx.avals_in[1]), shape_aval)
        return getattr(lax(), op)(a, b)

    return lower


def _logical(name: str, ufunc, op: str) -> Primitive:
    return ufunc_binary(name, ufunc, abstract_eval=binary_abstract(_dtypes.bool), lower=_lower_logical(op),
                        differentiable=False)


logical_and = _logical("logical_and", np.logical_and, "bitwise_and")
logical_or = _logical("logical_or", np.logical_or, "bitwise_or")
logical_xor = _logical("logical_xor", np.logical_xor, "bitwise_xor")
logical_not = ufunc_unary("logical_not", np.logical_not, abstract_eval=unary_abstract(lambda d: _dtypes.bool),
                          lower=lambda ctx, x: lax().bitwise_not(_truth(x, ctx.avals_in[0])), differentiable=False)


# --- isfinite, isinf, isnan, signbit: bool predicates ------------------------------------------------

_to_bool = unary_abstract(lambda d: _dtypes.bool)


def _lower_predicate(real_rule, integer_value: bool, combine: str):
    """Complex: `combine` the rule on both components; integers: a constant."""

    def fn(a, aval):
        L = lax()
        if _is_complex(a):
            return getattr(L, combine)(real_rule(L.real(a)), real_rule(L.imag(a)))
        if not _is_float(a):
            return L.full(a.shape, integer_value, np.bool_)
        return real_rule(a)

    return lower_unary(fn)


isfinite = ufunc_unary("isfinite", np.isfinite, abstract_eval=_to_bool, differentiable=False,
                       lower=_lower_predicate(lambda a: lax().is_finite(a), True, "bitwise_and"))
isinf = ufunc_unary("isinf", np.isinf, abstract_eval=_to_bool, differentiable=False,
                    lower=_lower_predicate(_isinf, False, "bitwise_or"))
isnan = ufunc_unary("isnan", np.isnan, abstract_eval=_to_bool, differentiable=False,
                    lower=_lower_predicate(_isnan, False, "bitwise_or"))
signbit = ufunc_unary("signbit", np.signbit, abstract_eval=_to_bool, differentiable=False,
                      lower=lower_unary(lambda a, aval: _signbit(a)))


# --- real: the real part (real-valued inputs are copied by the namespace) ----------------------------


def _real_vjp(ct, x, *, out):
    return (ct,)  # x + 0j: autodiff casts the cotangent to x's dtype


real = Primitive(
    "real",
    impl=lambda x: call_ufunc(np.positive, x.real),
    abstract_eval=unary_abstract(_dtypes.real_of),
    lower=lower_unary(lambda a, aval: lax().real(a) if _is_complex(a) else a),
    jvp=linear_jvp,
    vjp=_real_vjp,
    batch=batch_elementwise,
    elementwise=True,
)


# --- imag: the imaginary part (zeros for a real input) -----------------------------------------------


def _imag_impl(x):
    if x.dtype.kind == "c":
        return call_ufunc(np.positive, x.imag)
    out = output_buffer(x.shape, x.dtype)
    out.fill(0)
    return out


def _imag_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return imag.bind(x), imag.bind(t) if _is_complex_value(x) else None


def _imag_vjp(ct, x, *, out):
    return (multiply.bind(ct, -1j) if _is_complex_value(x) else None,)  # -i * ct


imag = Primitive(
    "imag",
    impl=_imag_impl,
    abstract_eval=unary_abstract(_dtypes.real_of),
    lower=lower_unary(lambda a, aval: lax().imag(a) if _is_complex(a) else _zeros_like(a)),
    jvp=_imag_jvp,
    vjp=_imag_vjp,
    batch=batch_elementwise,
    elementwise=True,
)


# --- conj: the complex conjugate (real-valued inputs are copied by the namespace) --------------------

conj = ufunc_unary("conj", np.conjugate, lower=lower_unary(lambda a, aval: lax().conj(a) if _is_complex(a) else a),
                   jvp=linear_jvp, vjp=_self_transpose)


# --- clip: minimum(maximum(x, low), high) in x's dtype, bounds broadcast with it ---------------------


def _clip_impl(x, low, high):
    shape = broadcast_shapes(*(np.shape(v) for v in (x, low, high)))
    out = output_buffer(shape, x.dtype)
    # Bounds are cast to x's dtype (the namespace keeps Python bounds inside its range). np.clip is
    # minimum(maximum(x, low), high) in one pass: NaN anywhere propagates, and low > high gives high.
    np.clip(x, low, high, out=out, dtype=x.dtype, casting="unsafe")
    return out


def _clip_abstract(x, low, high):
    avals = [aval_of(v) for v in (x, low, high)]
    return ShapedArray(broadcast_shapes(*(a.shape for a in avals)), avals[0].dtype, False)


def _lower_clip(ctx, x, low, high):
    L = lax()
    a, lo, hi = operands(ctx, (x, low, high))
    return L.min(L.max(a, lo), hi)


def _clip_jvp(primals, tangents):
    x, low, high = primals
    t_x, t_low, t_high = tangents
    out = clip.bind(x, low, high)
    inner = maximum.bind(x, low)
    t_inner = None if t_x is None and t_low is None else _extremum_tangent(greater, x, low, t_x, t_low)
    return out, _at_shape(_extremum_tangent(less, inner, high, t_inner, t_high), out)


def _clip_vjp(ct, x, low, high, *, out):
    inner = maximum.bind(x, low)
    ct_inner, ct_high = minimum.vjp(ct, inner, high, out=out)
    ct_x, ct_low = maximum.vjp(ct_inner, x, low, out=inner)
    return ct_x, ct_low, ct_high


# vjp derived: minimum's VJP, then maximum's (the same operations the hand-written one spelled out).
# jvp hand-written: its primal is the one-pass clip in x's dtype (maximum would promote x with the bounds),
# and an operand without a tangent stays None instead of entering maximum's JVP as zeros.
clip = Primitive(
    "clip",
    impl=in_float32(_clip_impl, _clip_abstract),  # (NumPy's clip has no bfloat16 loop)
    abstract_eval=_clip_abstract,
    lower=_lower_clip,
    jvp=_clip_jvp,
    vjp=_clip_vjp,
    batch=batch_elementwise,
    elementwise=True,
)


# --- copy: a fresh buffer holding the same values (`asarray(copy=True)`, `positive`, copying reshapes) ---


def _copy_impl(x):
    x = np.asarray(x)
    if x.size < ALIGNED_OUTPUT_ELEMENTS:
        return x.copy()  # C order, fresh memory (cheaper than an empty buffer filled)
    return aligned_copy(x)


copy = Primitive(
    "copy",
    impl=_copy_impl,
    abstract_eval=unary_abstract(),
    lower=lambda ctx, x: as_dtype(x, ctx.aval_out.dtype),
    jvp=linear_jvp,
    vjp=_self_transpose,
    batch=batch_elementwise,
)

