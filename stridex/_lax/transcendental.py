"""Transcendental elementwise primitives: exponentials, logarithms, powers and roots, trigonometric and hyperbolic functions."""

from __future__ import annotations

import cmath
import math

import numpy as np

from stridex._core.storage import aligned_empty
from stridex._lax.elementwise import binary_abstract, call_ufunc, unary_abstract
from stridex._lax.jax_bridge import broadcast_to_aval, lax
from stridex._lax.primitive import primitive

_INF = math.inf
_NAN = math.nan
_PI = math.pi

# --- eager rules -----------------------------------------------------------------------------------
# Each impl runs one NumPy ufunc under errstate(all="ignore") (these functions warn on ordinary inputs:
# log(0), sqrt(-1), exp overflow) and then patches, with masks on the fresh result, the few complex
# results where NumPy's kernels break the spec's special cases or symmetries. A patch costs one mask
# test on the input (or result) and recomputes only the masked elements.


def _unary_impl(ufunc, complex_fix=None):
    if complex_fix is None:
        def impl(x):
            with np.errstate(all="ignore"):
                return call_ufunc(ufunc, x)
    else:
        def impl(x):
            with np.errstate(all="ignore"):
                out = call_ufunc(ufunc, x)
                if out.dtype.kind == "c":
                    complex_fix(x, out)
            return out
    return impl


def _fix_expm1(x, out):
    # Note: NumPy's complex expm1 gives NaN parts for infinite/NaN real parts and on overflow (e.g.
    # expm1(inf+0j) and expm1(800+0j) are inf+nanj), against the spec's table and conj symmetry. There
    # the spec's values are exp(x) - 1 (NumPy's complex exp follows it), and on the real axis (b == 0)
    # exactly expm1(a) + bj. The spec's expm1(-0 + 0j) is 0 + 0j (NumPy: -0 + 0j).
    bad = ~np.isfinite(out)
    if bad.any():
        xs = x[bad]
        fixed = np.exp(xs) - 1
        real_axis = xs.imag == 0
        fixed.real[real_axis] = np.expm1(xs.real[real_axis])
        fixed.imag[real_axis] = xs.imag[real_axis]
        out[bad] = fixed
    zero = x == 0
    if zero.any():
        out.real[zero] = 0.0


def _fix_log1p(x, out):
    # NumPy's complex log1p is log(1 + x), which loses the real part near 0 (all of it in complex64);
    # there log|1 + x| = log1p(a * (2 + a) + b * b) / 2 and arg(1 + x) = atan2(b, 1 + a) (computed in
    # float64 for complex64).
    near = (np.abs(x.real) < 0.5) & (np.abs(x.imag) < 0.5)
    if near.any():
        xs = x[near]
        a, b = xs.real.astype(np.float64), xs.imag.astype(np.float64)
        out.real[near] = 0.5 * np.log1p(a * (2.0 + a) + b * b)
        out.imag[near] = np.arctan2(b, 1.0 + a)


def _fix_atanh(x, out):
    # Note: the spec requires atanh(-x) == -atanh(x); NumPy's complex arctanh differs in the last bit on
    # the left half plane, so it is computed there as -atanh(-x).
    flip = np.signbit(x.real)
    if flip.any():
        out[flip] = -np.arctanh(-x[flip])


_atanh_impl = _unary_impl(np.arctanh, _fix_atanh)


def _atan_impl(x):
    if x.dtype.kind != "c":
        with np.errstate(all="ignore"):
            return call_ufunc(np.arctan, x)
    # Note: NumPy's complex arctan breaks the spec's atan(conj(x)) == conj(atan(x)) in the last bit;
    # the spec defines it as -1j * atanh(1j * x), which is computed here with exact rotations.
    rotated = np.empty(x.shape, x.dtype)
    rotated.real = -x.imag
    rotated.imag = x.real
    w = _atanh_impl(rotated)
    out = aligned_empty(w.shape, w.dtype)
    out.real = w.imag
    out.imag = -w.real
    return out


def _fix_tanh(x, out):
    # Note: the spec's tanh(+inf + bj) is 1 + 0j for b > 0 (conj symmetric, odd); NumPy follows C99,
    # 1 + 0*sin(2b) j, whose zero takes the sign of sin(2b).
    mask = np.isinf(x.real)
    if mask.any():
        out.real[mask] = np.copysign(1.0, x.real[mask])
        out.imag[mask] = np.copysign(0.0, x.imag[mask])


def _fix_tan(x, out):
    # Note: tan(x) = -1j * tanh(1j * x) (spec), so tan(a + inf j) = copysign(0, a) + copysign(1, b) j.
    mask = np.isinf(x.imag)
    if mask.any():
        out.real[mask] = np.copysign(0.0, x.real[mask])
        out.imag[mask] = np.copysign(1.0, x.imag[mask])


def _pow_impl(x1, x2):
    with np.errstate(all="ignore"):
        try:
            return call_ufunc(np.power, x1, x2)
        except ValueError:
            if np.result_type(x1, x2).kind not in "iu":
                raise
            # NumPy refuses integers to negative integer powers.
            return _integer_pow_negative(x1, x2)


def _integer_pow_negative(x1, x2):
    # Note: the spec leaves integer x1 ** negative x2 implementation-defined; stridex gives the
    # truncated value of 1 / x1 ** -x2: 1 for x1 == 1, +-1 for x1 == -1 (by parity), 0 otherwise.
    dtype = np.result_type(x1, x2)
    base = np.asarray(x1, dtype)
    exponent = np.asarray(x2, dtype)
    negative = exponent < 0
    out = np.power(base, np.where(negative, 0, exponent).astype(dtype))
    one = np.ones((), dtype)
    odd = (exponent & one).astype(bool)
    by_negative = np.where(base == one, one, np.where(base == -one, np.where(odd, -one, one), 0))
    return np.asarray(np.where(negative, by_negative, out), dtype)


# --- lowering rules ----------------------------------------------------------------------------------
# Real inputs lower to the lax function of the same name. XLA's complex kernels miss many of the spec's
# special cases (signed zeros, infinities, NaNs), so a complex rule is built in three layers:
#   1. symmetry: the input is folded into the closed upper half plane (b >= +0) with
#      f(conj z) = conj f(z), and for odd/even functions into the right half plane too; the result
#      is unfolded the same way. This alone settles every signed-zero and branch-cut sign.
#   2. core: XLA's kernel (or an accurate formula where XLA loses precision) on the folded input.
#   3. cases: the spec's table for the folded quadrant overrides the result where it applies.
# The trigonometric functions are the spec's rotations of the hyperbolic ones (sin z = -1j sinh(1j z)).


def _parts(z):
    L = lax()
    return L.real(z), L.imag(z)


def _k(x, value):
    """`value` as a NumPy scalar of x's dtype (lax does not promote Python scalars under 64-bit mode)."""
    return x.dtype.type(value)


def _signbit(x):
    L = lax()
    int_type = np.int32 if x.dtype == np.float32 else np.int64
    return L.lt(L.bitcast_convert_type(x, int_type), int_type(0))


_CONDITIONS = {
    "any": None,
    "nan": lambda x: lax().ne(x, x),
    "+inf": lambda x: lax().eq(x, _k(x, _INF)),
    "-inf": lambda x: lax().eq(x, _k(x, -_INF)),
    "inf": lambda x: lax().eq(lax().abs(x), _k(x, _INF)),
    "finite": lambda x: lax().lt(lax().abs(x), _k(x, _INF)),
    "0": lambda x: lax().eq(x, _k(x, 0)),
    "+0": lambda x: lax().bitwise_and(lax().eq(x, _k(x, 0)), lax().bitwise_not(_signbit(x))),
    "-0": lambda x: lax().bitwise_and(lax().eq(x, _k(x, 0)), _signbit(x)),
    "nzfinite": lambda x: lax().bitwise_and(lax().lt(lax().abs(x), _k(x, _INF)), lax().ne(x, _k(x, 0))),
    "nz": lambda x: lax().ne(x, _k(x, 0)),
    "1": lambda x: lax().eq(x, _k(x, 1)),
    "-1": lambda x: lax().eq(x, _k(x, -1)),
}


def _with_cases(core, cases):
    """`core`, then the special cases (a_condition, b_condition, real, imag); earlier cases win."""
    def f(z):
        L = lax()
        a, b = _parts(z)
        re, im = _parts(core(z))
        for cond_a, cond_b, value_re, value_im in reversed(cases):
            tests = [_CONDITIONS[c](x) for c, x in ((cond_a, a), (cond_b, b)) if c != "any"]
            mask = tests[0] if len(tests) == 1 else L.bitwise_and(*tests)
            re = L.select(mask, _case_value(value_re, a, b), re)
            im = L.select(mask, _case_value(value_im, a, b), im)
        return L.complex(re, im)
    return f


def _case_value(value, a, b):
    return value(a, b) if callable(value) else lax().full_like(a, value)


def _conj_symmetric(f):
    """f on the upper half plane, extended to the lower one by f(conj z) = conj f(z)."""
    def g(z):
        L = lax()
        a, b = _parts(z)
        flip = _signbit(b)
        re, im = _parts(f(L.complex(a, L.abs(b))))
        return L.complex(re, L.select(flip, L.neg(im), im))
    return g


def _reflected(f, odd: bool):
    """f on the right half plane, extended by f(-z) = -f(z) (odd) or f(-z) = f(z) (even)."""
    def g(z):
        L = lax()
        a, b = _parts(z)
        flip = _signbit(a)
        w = f(L.complex(L.select(flip, L.neg(a), a), L.select(flip, L.neg(b), b)))
        if not odd:
            return w
        re, im = _parts(w)
        return L.complex(L.select(flip, L.neg(re), re), L.select(flip, L.neg(im), im))
    return g


def _complex_rule(core, cases, symmetry=None):
    f = _conj_symmetric(_with_cases(core, cases))
    return f if symmetry is None else _reflected(f, symmetry == "odd")


def _rotated(hyperbolic):
    """-1j * hyperbolic(1j * z), the rotations exact (the spec's definition of sin, tan, asin, atan)."""
    def f(z):
        L = lax()
        a, b = _parts(z)
        re, im = _parts(hyperbolic(L.complex(L.neg(b), a)))
        return L.complex(im, L.neg(re))
    return f


def _cis(scale):
    """scale * cis(b): the spec's value for exp/sinh/cosh at an infinite real part."""
    return (lambda a, b: lax().mul(_k(b, scale), lax().cos(b))), (lambda a, b: lax().mul(_k(b, scale), lax().sin(b)))


def _hyperbolic_core(odd: bool):
    """sinh/cosh of a + bj (a, b >= 0) from real sinh, cosh, cos, sin; scaled so that finite results do
    not overflow when cosh(a) does. (XLA's complex sinh loses precision near 0.)"""
    def core(z):
        L = lax()
        a, b = _parts(z)
        big = 709.0 if a.dtype == np.float64 else 88.0
        sh, ch = L.sinh(a), L.cosh(a)
        first, second = (sh, ch) if odd else (ch, sh)
        re, im = L.mul(first, L.cos(b)), L.mul(second, L.sin(b))
        half = L.exp(L.mul(a, _k(a, 0.5)))  # for a > big: sinh(a) ~ cosh(a) ~ half * half / 2
        re_big = L.mul(L.mul(half, L.mul(L.cos(b), _k(b, 0.5))), half)
        im_big = L.mul(L.mul(half, L.mul(L.sin(b), _k(b, 0.5))), half)
        large = L.gt(a, _k(a, big))
        re = L.select(large, re_big, re)
        im = L.select(large, L.select(L.eq(b, _k(b, 0)), b, im_big), im)
        return L.complex(re, im)
    return core


_NN = (_NAN, _NAN)
_LOG_TAIL = [
    ("finite", "+inf", _INF, _PI / 2),
    ("finite", "nan", *_NN),
    ("-inf", "finite", _INF, _PI),
    ("+inf", "finite", _INF, 0.0),
    ("-inf", "+inf", _INF, 3 * _PI / 4),
    ("+inf", "+inf", _INF, _PI / 4),
    ("inf", "nan", _INF, _NAN),
    ("nan", "finite", *_NN),
    ("nan", "+inf", _INF, _NAN),
    ("nan", "nan", *_NN),
]

# The spec's special cases on the folded quadrant (b >= +0; a >= +0 too for odd/even functions).
_COMPLEX_RULES = {
    "acos": (lambda z: lax().acos(z), [
        ("0", "0", _PI / 2, -0.0),
        ("0", "nan", _PI / 2, _NAN),
        ("finite", "+inf", _PI / 2, -_INF),
        ("nzfinite", "nan", *_NN),
        ("-inf", "finite", _PI, -_INF),
        ("+inf", "finite", 0.0, -_INF),
        ("-inf", "+inf", 3 * _PI / 4, -_INF),
        ("+inf", "+inf", _PI / 4, -_INF),
        ("inf", "nan", _NAN, _INF),
        ("nan", "finite", *_NN),
        ("nan", "+inf", _NAN, -_INF),
        ("nan", "nan", *_NN),
    ], None),
    "acosh": (lambda z: lax().acosh(z), [
        ("0", "0", 0.0, _PI / 2),
        ("finite", "+inf", _INF, _PI / 2),
        ("nzfinite", "nan", *_NN),
        ("0", "nan", _NAN, _PI / 2),
        ("-inf", "finite", _INF, _PI),
        ("+inf", "finite", _INF, 0.0),
        ("-inf", "+inf", _INF, 3 * _PI / 4),
        ("+inf", "+inf", _INF, _PI / 4),
        ("inf", "nan", _INF, _NAN),
        ("nan", "finite", *_NN),
        ("nan", "+inf", _INF, _NAN),
        ("nan", "nan", *_NN),
    ], None),
    "asinh": (lambda z: lax().asinh(z), [
        ("0", "0", 0.0, 0.0),
        ("finite", "+inf", _INF, _PI / 2),
        ("finite", "nan", *_NN),
        ("+inf", "finite", _INF, 0.0),
        ("+inf", "+inf", _INF, _PI / 4),
        ("+inf", "nan", _INF, _NAN),
        ("nan", "0", _NAN, 0.0),
        ("nan", "finite", *_NN),
        ("nan", "+inf", _INF, _NAN),
        ("nan", "nan", *_NN),
    ], "odd"),
    "atanh": (lambda z: lax().atanh(z), [
        ("0", "0", 0.0, 0.0),
        ("0", "nan", 0.0, _NAN),
        ("1", "0", _INF, 0.0),
        ("finite", "+inf", 0.0, _PI / 2),
        ("finite", "nan", *_NN),
        ("+inf", "finite", 0.0, _PI / 2),
        ("+inf", "+inf", 0.0, _PI / 2),
        ("+inf", "nan", 0.0, _NAN),
        ("nan", "finite", *_NN),
        ("nan", "+inf", 0.0, _PI / 2),
        ("nan", "nan", *_NN),
    ], "odd"),
    "cosh": (_hyperbolic_core(odd=False), [
        ("0", "0", 1.0, 0.0),
        ("0", "+inf", _NAN, 0.0),
        ("0", "nan", _NAN, 0.0),
        ("finite", "+inf", *_NN),
        ("finite", "nan", *_NN),
        ("+inf", "0", _INF, 0.0),
        ("+inf", "finite", *_cis(_INF)),
        ("+inf", "+inf", _INF, _NAN),
        ("+inf", "nan", _INF, _NAN),
        ("nan", "0", _NAN, 0.0),
        ("nan", "any", *_NN),
    ], "even"),
    "exp": (lambda z: lax().exp(z), [
        ("0", "0", 1.0, 0.0),
        ("finite", "+inf", *_NN),
        ("finite", "nan", *_NN),
        ("+inf", "0", _INF, 0.0),
        ("-inf", "finite", *_cis(0.0)),
        ("+inf", "finite", *_cis(_INF)),
        ("-inf", "+inf", 0.0, 0.0),
        ("+inf", "+inf", _INF, _NAN),
        ("-inf", "nan", 0.0, 0.0),
        ("+inf", "nan", _INF, _NAN),
        ("nan", "0", _NAN, 0.0),
        ("nan", "any", *_NN),
    ], None),
    "expm1": (lambda z: lax().expm1(z), [
        ("0", "0", 0.0, 0.0),
        ("finite", "+inf", *_NN),
        ("finite", "nan", *_NN),
        ("+inf", "0", _INF, 0.0),
        ("-inf", "finite", -1.0, _cis(0.0)[1]),
        ("+inf", "finite", *_cis(_INF)),
        ("-inf", "+inf", -1.0, 0.0),
        ("+inf", "+inf", _INF, _NAN),
        ("-inf", "nan", -1.0, 0.0),
        ("+inf", "nan", _INF, _NAN),
        ("nan", "0", _NAN, 0.0),
        ("nan", "any", *_NN),
    ], None),
    "log": (lambda z: lax().log(z), [
        ("-0", "0", -_INF, _PI),
        ("+0", "0", -_INF, 0.0),
    ] + _LOG_TAIL, None),
    "log1p": (lambda z: lax().log1p(z), [
        ("-1", "0", -_INF, 0.0),
    ] + _LOG_TAIL, None),
    "sinh": (_hyperbolic_core(odd=True), [
        ("0", "0", 0.0, 0.0),
        ("0", "+inf", 0.0, _NAN),
        ("0", "nan", 0.0, _NAN),
        ("finite", "+inf", *_NN),
        ("finite", "nan", *_NN),
        ("+inf", "0", _INF, 0.0),
        ("+inf", "finite", *_cis(_INF)),
        ("+inf", "+inf", _INF, _NAN),
        ("+inf", "nan", _INF, _NAN),
        ("nan", "0", _NAN, 0.0),
        ("nan", "any", *_NN),
    ], "odd"),
    "sqrt": (lambda z: lax().sqrt(z), [
        ("0", "0", 0.0, 0.0),
        ("any", "+inf", _INF, _INF),
        ("finite", "nan", *_NN),
        ("-inf", "finite", 0.0, _INF),
        ("+inf", "finite", _INF, 0.0),
        ("-inf", "nan", _NAN, _INF),
        ("+inf", "nan", _INF, _NAN),
        ("nan", "any", *_NN),
    ], None),
    "tanh": (lambda z: lax().tanh(z), [
        ("0", "0", 0.0, 0.0),
        ("0", "+inf", 0.0, _NAN),
        ("0", "nan", 0.0, _NAN),
        ("finite", "+inf", *_NN),
        ("finite", "nan", *_NN),
        ("+inf", "any", 1.0, 0.0),
        ("nan", "0", _NAN, 0.0),
        ("nan", "any", *_NN),
    ], "odd"),
}

_COMPLEX = {name: _complex_rule(*rule) for name, rule in _COMPLEX_RULES.items()}
_COMPLEX["asin"] = _rotated(_COMPLEX["asinh"])
_COMPLEX["atan"] = _rotated(_COMPLEX["atanh"])
_COMPLEX["sin"] = _rotated(_COMPLEX["sinh"])
_COMPLEX["tan"] = _rotated(_COMPLEX["tanh"])
_COMPLEX["cos"] = lambda z: _COMPLEX["cosh"](lax().complex(lax().neg(lax().imag(z)), lax().real(z)))


def _log_base(base: float):
    """log(x) / log(base); for complex x each part is divided (the spec's change-of-base formula)."""
    scale = math.log(base)

    def real(x):
        return lax().div(lax().log(x), _k(x, scale))

    def complex_(z):
        re, im = _parts(_COMPLEX["log"](z))
        return lax().complex(lax().div(re, _k(re, scale)), lax().div(im, _k(im, scale)))

    return real, complex_


_COMPLEX["log2"] = _log_base(2.0)[1]
_COMPLEX["log10"] = _log_base(10.0)[1]
_REAL = {"log2": _log_base(2.0)[0], "log10": _log_base(10.0)[0]}


def _lower_unary(name: str):
    real = _REAL.get(name) or (lambda x: getattr(lax(), name)(x))
    complex_ = _COMPLEX[name]

    def lower(ctx, x):
        return complex_(x) if ctx.aval_out.dtype.kind == "complex floating" else real(x)

    return lower


def _binary_operands(ctx, x1, x2):
    aval = ctx.aval_out
    return broadcast_to_aval(x1, aval), broadcast_to_aval(x2, aval)


def _lower_atan2(ctx, x1, x2):
    return lax().atan2(*_binary_operands(ctx, x1, x2))


def _lower_hypot(ctx, x1, x2):
    L = lax()
    x1, x2 = _binary_operands(ctx, x1, x2)
    x1, x2 = L.abs(x1), L.abs(x2)
    big, small = L.max(x1, x2), L.min(x1, x2)
    zero = L.eq(big, _k(big, 0))
    ratio = L.div(small, L.select(zero, L.full_like(big, 1), big))
    out = L.select(zero, big, L.mul(big, L.sqrt(L.add(L.mul(ratio, ratio), _k(big, 1)))))
    either_inf = L.bitwise_or(L.eq(x1, _k(x1, _INF)), L.eq(x2, _k(x2, _INF)))
    return L.select(either_inf, L.full_like(out, _INF), out)


def _lower_logaddexp(ctx, x1, x2):
    L = lax()
    x1, x2 = _binary_operands(ctx, x1, x2)
    delta = L.sub(x1, x2)
    # delta is NaN for a NaN operand and for equal infinities, where x1 + x2 is the answer.
    spread = L.add(L.max(x1, x2), L.log1p(L.exp(L.neg(L.abs(delta)))))
    return L.select(L.ne(delta, delta), L.add(x1, x2), spread)


def _lower_pow(ctx, x1, x2):
    L = lax()
    dtype = ctx.aval_out.dtype
    x1, x2 = _binary_operands(ctx, x1, x2)
    if dtype.kind in ("signed", "unsigned"):
        return _integer_pow(x1, x2, signed=dtype.kind == "signed", bits=8 * dtype.itemsize)
    out = L.pow(x1, x2)
    if dtype.kind != "complex floating":
        return out
    # exp(x2 * log(x1)) at the points where XLA's complex pow gives NaN: x2 == 0 -> 1; x1 == 0 with
    # real(x2) > 0 -> 0 (NumPy agrees).
    re, im = _parts(out)
    b_re, b_im = _parts(x2)
    a_re, a_im = _parts(x1)
    zero = _k(re, 0)
    zero_exponent = L.bitwise_and(L.eq(b_re, zero), L.eq(b_im, zero))
    zero_base = L.bitwise_and(L.bitwise_and(L.eq(a_re, zero), L.eq(a_im, zero)), L.gt(b_re, zero))
    re = L.select(zero_exponent, L.full_like(re, 1), L.select(zero_base, L.full_like(re, 0), re))
    im = L.select(L.bitwise_or(zero_exponent, zero_base), L.full_like(im, 0), im)
    return L.complex(re, im)


def _integer_pow(x1, x2, signed: bool, bits: int):
    """Binary exponentiation over every bit of the exponent (wrapping like NumPy); negative exponents as
    in `_integer_pow_negative`."""
    L = lax()
    one = L.full_like(x1, 1)
    zero = L.full_like(x1, 0)
    acc, base, exponent = one, x1, x2
    for _ in range(bits):
        acc = L.select(L.ne(L.bitwise_and(exponent, one), zero), L.mul(acc, base), acc)
        base = L.mul(base, base)
        exponent = L.shift_right_logical(exponent, one)
    if not signed:
        return acc
    odd = L.ne(L.bitwise_and(x2, one), zero)
    minus_one = L.neg(one)
    by_negative = L.select(L.eq(x1, one), one,
                           L.select(L.eq(x1, minus_one), L.select(odd, minus_one, one), zero))
    return L.select(L.lt(x2, zero), by_negative, acc)


# --- the records -----------------------------------------------------------------------------------


def _unary(name: str, ufunc, complex_fix=None):
    return primitive(name, impl=_unary_impl(ufunc, complex_fix), abstract_eval=unary_abstract(),
                     lower=_lower_unary(name))


def _binary(name: str, ufunc, lower):
    def impl(x1, x2):
        with np.errstate(all="ignore"):
            return call_ufunc(ufunc, x1, x2)

    return primitive(name, impl=impl, abstract_eval=binary_abstract(), lower=lower)


acos = _unary("acos", np.arccos)
acosh = _unary("acosh", np.arccosh)
asin = _unary("asin", np.arcsin)
asinh = _unary("asinh", np.arcsinh)
atanh = primitive("atanh", impl=_atanh_impl, abstract_eval=unary_abstract(), lower=_lower_unary("atanh"))
atan = primitive("atan", impl=_atan_impl, abstract_eval=unary_abstract(), lower=_lower_unary("atan"))
cos = _unary("cos", np.cos)
cosh = _unary("cosh", np.cosh)
exp = _unary("exp", np.exp)
expm1 = _unary("expm1", np.expm1, _fix_expm1)
log = _unary("log", np.log)
log1p = _unary("log1p", np.log1p, _fix_log1p)
log2 = _unary("log2", np.log2)
log10 = _unary("log10", np.log10)
sin = _unary("sin", np.sin)
sinh = _unary("sinh", np.sinh)
sqrt = _unary("sqrt", np.sqrt)
tan = _unary("tan", np.tan, _fix_tan)
tanh = _unary("tanh", np.tanh, _fix_tanh)

atan2 = _binary("atan2", np.arctan2, _lower_atan2)
hypot = _binary("hypot", np.hypot, _lower_hypot)
logaddexp = _binary("logaddexp", np.logaddexp, _lower_logaddexp)
pow = primitive("pow", impl=_pow_impl, abstract_eval=binary_abstract(), lower=_lower_pow)


# --- transformation rules ----------------------------------------------------------------------------
# Written with primitives (so they are themselves differentiable, traceable and batchable), with the
# conventions of `elementwise.py` (JAX's): for a holomorphic f the cotangent is `ct * f'(x)`. Where
# a derivative is infinite (sqrt at 0, log at 0, asin at ±1) it is what the formula gives (inf/NaN).
# Where a formula divides 0 by 0 the rules take 0, computed without selects so that no NaN reaches second
# derivatives either: pow has d/dx = 0 where the exponent is 0 and d/dy = 0 where the base is 0 (as JAX);
# hypot and atan2 have both partials 0 at the origin; logaddexp splits the derivative evenly between two
# equal infinities (as maximum does with ties).

from stridex._lax import elementwise as _ew
from stridex._lax import searching as _searching


def _d(prim, *args):
    return prim.bind(*args)


def _one_minus_square(x):
    return _ew.subtract.bind(1, _ew.square.bind(x))


_DERIVATIVES = {
    sin: lambda x, out: _d(cos, x),
    cos: lambda x, out: _ew.negative.bind(_d(sin, x)),
    tan: lambda x, out: _ew.add.bind(1, _ew.square.bind(out)),
    asin: lambda x, out: _ew.reciprocal.bind(_d(sqrt, _one_minus_square(x))),
    acos: lambda x, out: _ew.negative.bind(_ew.reciprocal.bind(_d(sqrt, _one_minus_square(x)))),
    atan: lambda x, out: _ew.reciprocal.bind(_ew.add.bind(1, _ew.square.bind(x))),
    sinh: lambda x, out: _d(cosh, x),
    cosh: lambda x, out: _d(sinh, x),
    tanh: lambda x, out: _one_minus_square(out),
    asinh: lambda x, out: _ew.reciprocal.bind(_d(sqrt, _ew.add.bind(_ew.square.bind(x), 1))),
    # 1 / (sqrt(x - 1) sqrt(x + 1)): equal to 1/sqrt(x^2 - 1) for real x > 1, and right on complex branches.
    acosh: lambda x, out: _ew.reciprocal.bind(_ew.multiply.bind(_d(sqrt, _ew.subtract.bind(x, 1)),
                                                                _d(sqrt, _ew.add.bind(x, 1)))),
    atanh: lambda x, out: _ew.reciprocal.bind(_one_minus_square(x)),
    exp: lambda x, out: out,
    expm1: lambda x, out: _ew.add.bind(out, 1),
    log: lambda x, out: _ew.reciprocal.bind(x),
    log1p: lambda x, out: _ew.reciprocal.bind(_ew.add.bind(x, 1)),
    log2: lambda x, out: _ew.reciprocal.bind(_ew.multiply.bind(x, float(np.log(2.0)))),
    log10: lambda x, out: _ew.reciprocal.bind(_ew.multiply.bind(x, float(np.log(10.0)))),
    sqrt: lambda x, out: _ew.divide.bind(0.5, out),
}
for _prim, _derivative in _DERIVATIVES.items():
    _ew._unary_chain(_prim, _derivative)


def _binary_rules(prim, partials):
    """Rules of a binary primitive from `partials(x1, x2, out, need_1, need_2) -> (d/dx1, d/dx2)` (a partial
    that is not needed, for an operand without tangent or a Python scalar, may be None)."""

    def jvp(primals, tangents):
        x1, x2 = primals
        t1, t2 = tangents
        out = prim.bind(x1, x2)
        d1, d2 = partials(x1, x2, out, t1 is not None, t2 is not None)
        return out, _ew._at_shape(_ew._sum_terms(_ew._scaled(t1, d1), _ew._scaled(t2, d2)), out)

    def vjp(ct, x1, x2, *, out):
        d1, d2 = partials(x1, x2, out, not _ew._scalar(x1), not _ew._scalar(x2))
        return tuple(None if d is None else _ew.multiply.bind(ct, d) for d in (d1, d2))

    _ew._rules(prim, jvp, vjp)


def _nonzero(v):
    """v with its zeros replaced by ones: a harmless divisor (or log argument) where the result is 0 anyway."""
    return _ew.add.bind(v, _ew.equal.bind(v, 0))


def _atan2_partials(y, x, out, need_y, need_x):
    scale = _ew.reciprocal.bind(_nonzero(_ew.add.bind(_ew.square.bind(x), _ew.square.bind(y))))
    return (_ew.multiply.bind(x, scale) if need_y else None,
            _ew.negative.bind(_ew.multiply.bind(y, scale)) if need_x else None)


def _hypot_partials(x1, x2, out, need_1, need_2):
    scale = _ew.reciprocal.bind(_nonzero(out))
    return _ew.multiply.bind(x1, scale) if need_1 else None, _ew.multiply.bind(x2, scale) if need_2 else None


def _logaddexp_partials(x1, x2, out, need_1, need_2):
    # 1 / (1 + exp(x2 - x1)) and 1 / (1 + exp(x1 - x2)); x2 - x1 is NaN only for two equal infinities
    # (or a NaN operand), where it is taken as 0: half each.

    delta = _ew.subtract.bind(x2, x1)
    delta = _searching.where.bind(_ew.not_equal.bind(delta, delta), 0.0, delta)
    return (_ew.reciprocal.bind(_ew.add.bind(_d(exp, delta), 1)) if need_1 else None,
            _ew.reciprocal.bind(_ew.add.bind(_d(exp, _ew.negative.bind(delta)), 1)) if need_2 else None)


def _pow_partials(x1, x2, out, need_1, need_2):
    d1 = d2 = None
    if need_1:
        # x2 * x1 ** (x2 - 1), the exponent moved to 0 where x2 == 0 (so the product is 0, never 0 * inf)
        exponent = x2 - 1 + (x2 == 0) if _ew._scalar(x2) else \
            _ew.add.bind(_ew.subtract.bind(x2, 1), _ew.equal.bind(x2, 0))
        d1 = _ew.multiply.bind(x2, pow.bind(x1, exponent))
    if need_2:
        # out * log(x1), the log taken at 1 where x1 == 0 (out is 0 there, or 1 when x2 == 0)
        d2 = _ew.multiply.bind(out, _scalar_log(x1) if _ew._scalar(x1) else _d(log, _nonzero(x1)))
    return d1, d2


def _scalar_log(x):
    """log of a Python-scalar base as `log` computes it for an array (NaN for a negative real), 0 for 0."""
    if x == 0:
        return 0.0
    if isinstance(x, complex):
        return cmath.log(x)
    return math.log(x) if x > 0 else math.nan


_binary_rules(atan2, _atan2_partials)
_binary_rules(hypot, _hypot_partials)
_binary_rules(logaddexp, _logaddexp_partials)
_binary_rules(pow, _pow_partials)
