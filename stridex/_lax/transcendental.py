"""Transcendental elementwise primitives: exponentials, logarithms, powers and roots, trigonometric and hyperbolic functions.

The shared rule shapes come first (eager kernels and their spec fix-ups, the layered complex lowering, the
chain-rule JVP/VJP); then one block per primitive, or per group of related ones, gives each record its
special cases, its derivative and its lowering. The lowerings compute the half types in float32 and round once
(`stridex._lax.half`), as NumPy's kernels do: composed in the half type (log2 as log(x) / log(2), logaddexp
from max, exp and log1p) they would round at each step and differ from eager by a few units in the last place.
"""

from __future__ import annotations

import cmath
import math

import numpy as np

from stridex._core import dtypes as _dtypes
from stridex._core.storage import output_buffer
from stridex._lax import ops
from stridex._lax.ufuncs import binary_abstract, call_ufunc, same_as_ufunc, unary_abstract
from stridex._lax.half import lower_in_float32
from stridex._exec.jax_bridge import broadcast_to_aval, correctly_rounded_float32, lax
from stridex._lax.primitive import Primitive
from stridex._lax.rule_shapes import batch_elementwise, scaled, sum_terms

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
    return same_as_ufunc(impl, ufunc, quiet=True, complex_results=complex_fix is None)


def _binary_impl(ufunc):
    def impl(x1, x2):
        with np.errstate(all="ignore"):
            return call_ufunc(ufunc, x1, x2)
    return same_as_ufunc(impl, ufunc, quiet=True)


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
    int_type = {2: np.int16, 4: np.int32, 8: np.int64}[np.dtype(x.dtype).itemsize]
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
    """The complex lowering from XLA's `core` and the spec's `cases` on the folded quadrant (b >= +0; a >= +0
    too for an "odd" or "even" `symmetry`)."""
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


_NN = (_NAN, _NAN)


def _binary_operands(ctx, x1, x2):
    aval = ctx.aval_out
    return broadcast_to_aval(x1, aval), broadcast_to_aval(x2, aval)


# --- transformation rules ----------------------------------------------------------------------------
# Written with internal operations (so they are themselves differentiable, traceable and batchable), with
# the conventions of `elementwise.py` (JAX's): for a holomorphic f the cotangent is `ct * f'(x)`. Where
# a derivative is infinite (sqrt at 0, log at 0, asin at ±1) it is what the formula gives (inf/NaN).
# Where a formula divides 0 by 0 the rules take 0, computed without selects so that no NaN reaches second
# derivatives either: pow has d/dx = 0 where the exponent is 0 and d/dy = 0 where the base is 0 (as JAX);
# hypot and atan2 have both partials 0 at the origin; logaddexp splits the derivative evenly between two
# equal infinities (as maximum does with ties). Every primitive here batches with `batch_elementwise`.


def _scalar(x) -> bool:
    return type(x) in _dtypes.PY_SCALARS


def _at_shape(t, out):
    """A tangent at the output's shape (an operand's tangent is smaller when the other operand broadcasts)."""
    return t if t is None or t.shape == out.shape else ops.broadcast_to(t, out.shape)


def _nonzero(v):
    """v with its zeros replaced by ones: a harmless divisor (or log argument) where the result is 0 anyway."""
    return ops.add(v, ops.equal(v, 0))


def _one_minus_square(x):
    return ops.subtract(1, ops.square(x))


# --- the record shapes ---------------------------------------------------------------------------------


def _unary(name: str, impl, complex_lower, derivative, real_lower=None):
    """A unary primitive: `impl` eagerly; on JAX `real_lower(x)` (default: the lax function `name`) or
    `complex_lower(z)`; tangent and cotangent scaled by `derivative(x, out)`."""
    real_lower = real_lower or (lambda x: getattr(lax(), name)(x))

    def lower(ctx, x):
        return complex_lower(x) if ctx.aval_out.dtype.kind == "complex floating" else real_lower(x)

    def jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        out = prim.bind(x)
        return out, ops.multiply(t, derivative(x, out))

    def vjp(ct, x, *, out):
        return (ops.multiply(ct, derivative(x, out)),)

    prim = Primitive(name, impl=impl, abstract_eval=unary_abstract(), lower=lower_in_float32(lower), jvp=jvp,
                     vjp=vjp, batch=batch_elementwise, elementwise=True)
    return prim


def _binary(name: str, impl, lower, partials):
    """A binary primitive whose derivatives are `partials(x1, x2, out, need_1, need_2) -> (d/dx1, d/dx2)` (a
    partial that is not needed, for an operand without tangent or a Python scalar, may be None)."""

    def jvp(primals, tangents):
        x1, x2 = primals
        t1, t2 = tangents
        out = prim.bind(x1, x2)
        d1, d2 = partials(x1, x2, out, t1 is not None, t2 is not None)
        return out, _at_shape(sum_terms(scaled(t1, d1), scaled(t2, d2)), out)

    def vjp(ct, x1, x2, *, out):
        d1, d2 = partials(x1, x2, out, not _scalar(x1), not _scalar(x2))
        return tuple(None if d is None else ops.multiply(ct, d) for d in (d1, d2))

    prim = Primitive(name, impl=impl, abstract_eval=binary_abstract(), lower=lower_in_float32(lower), jvp=jvp,
                     vjp=vjp, batch=batch_elementwise, elementwise=True)
    return prim


# --- exp, expm1: exponentials ------------------------------------------------------------------------

exp = _unary("exp", _unary_impl(np.exp), _complex_rule(lambda z: lax().exp(z), [
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
]), derivative=lambda x, out: out)


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


expm1 = _unary("expm1", _unary_impl(np.expm1, _fix_expm1), _complex_rule(lambda z: lax().expm1(z), [
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
]), derivative=lambda x, out: ops.add(out, 1))


# --- log, log1p, log2, log10: logarithms -------------------------------------------------------------
# log2 and log10 lower as log(x) / log(base); for complex x each part is divided (the spec's change-of-base
# formula). Their derivatives are hand-written, 1 / (x log(base)): the decomposition's own derivative, one
# operation shorter.

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

_complex_log = _complex_rule(lambda z: lax().log(z), [
    ("-0", "0", -_INF, _PI),
    ("+0", "0", -_INF, 0.0),
] + _LOG_TAIL)

log = _unary("log", _unary_impl(np.log), _complex_log, derivative=lambda x, out: ops.reciprocal(x))


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


log1p = _unary("log1p", _unary_impl(np.log1p, _fix_log1p), _complex_rule(lambda z: lax().log1p(z), [
    ("-1", "0", -_INF, 0.0),
] + _LOG_TAIL), derivative=lambda x, out: ops.reciprocal(ops.add(x, 1)))


def _log_base(base: float):
    """(real lowering, complex lowering) of the logarithm to `base`."""
    scale = math.log(base)

    def real(x):
        return lax().div(lax().log(x), _k(x, scale))

    def complex_(z):
        re, im = _parts(_complex_log(z))
        return lax().complex(lax().div(re, _k(re, scale)), lax().div(im, _k(im, scale)))

    return real, complex_


_real_log2, _complex_log2 = _log_base(2.0)
log2 = _unary("log2", _unary_impl(np.log2), _complex_log2, real_lower=_real_log2,
              derivative=lambda x, out: ops.reciprocal(ops.multiply(x, float(np.log(2.0)))))

_real_log10, _complex_log10 = _log_base(10.0)
log10 = _unary("log10", _unary_impl(np.log10), _complex_log10, real_lower=_real_log10,
               derivative=lambda x, out: ops.reciprocal(ops.multiply(x, float(np.log(10.0)))))


# --- sqrt: the principal square root ------------------------------------------------------------------

sqrt = _unary("sqrt", _unary_impl(np.sqrt), _complex_rule(lambda z: lax().sqrt(z), [
    ("0", "0", 0.0, 0.0),
    ("any", "+inf", _INF, _INF),
    ("finite", "nan", *_NN),
    ("-inf", "finite", 0.0, _INF),
    ("+inf", "finite", _INF, 0.0),
    ("-inf", "nan", _NAN, _INF),
    ("+inf", "nan", _INF, _NAN),
    ("nan", "any", *_NN),
]), derivative=lambda x, out: ops.divide(0.5, out),
              real_lower=correctly_rounded_float32(lambda x: lax().sqrt(x)))


# --- cbrt: the real cube root (stridex.numpy.cbrt; real floating inputs only, as NumPy's kernel) ----------
# A primitive, not x ** (1/3): NumPy and XLA both have the kernel, and the power is wrong for negative x and
# off by an ulp for exact cubes.

def _no_complex_cbrt(z):
    raise TypeError(f"cbrt is defined for real floating inputs, got {z.dtype}")  # (as NumPy's kernel)


cbrt = _unary("cbrt", _unary_impl(np.cbrt), _no_complex_cbrt,
              derivative=lambda x, out: ops.divide(1.0 / 3.0, ops.square(out)))


# --- sinh, cosh, tanh: hyperbolic functions ----------------------------------------------------------


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


_complex_sinh = _complex_rule(_hyperbolic_core(odd=True), [
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
], "odd")
cosh: Primitive  # (declared first: sinh's derivative binds it)
sinh = _unary("sinh", _unary_impl(np.sinh), _complex_sinh, derivative=lambda x, out: cosh.bind(x))

_complex_cosh = _complex_rule(_hyperbolic_core(odd=False), [
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
], "even")
cosh = _unary("cosh", _unary_impl(np.cosh), _complex_cosh, derivative=lambda x, out: sinh.bind(x))


def _fix_tanh(x, out):
    # Note: the spec's tanh(+inf + bj) is 1 + 0j for b > 0 (conj symmetric, odd); NumPy follows C99,
    # 1 + 0*sin(2b) j, whose zero takes the sign of sin(2b).
    mask = np.isinf(x.real)
    if mask.any():
        out.real[mask] = np.copysign(1.0, x.real[mask])
        out.imag[mask] = np.copysign(0.0, x.imag[mask])


_complex_tanh = _complex_rule(lambda z: lax().tanh(z), [
    ("0", "0", 0.0, 0.0),
    ("0", "+inf", 0.0, _NAN),
    ("0", "nan", 0.0, _NAN),
    ("finite", "+inf", *_NN),
    ("finite", "nan", *_NN),
    ("+inf", "any", 1.0, 0.0),
    ("nan", "0", _NAN, 0.0),
    ("nan", "any", *_NN),
], "odd")
tanh = _unary("tanh", _unary_impl(np.tanh, _fix_tanh), _complex_tanh,
              derivative=lambda x, out: _one_minus_square(out))


# --- sin, cos, tan: trigonometric functions (on JAX, the spec's rotations of sinh, cosh, tanh) ----------

cos: Primitive  # (declared first: sin's derivative binds it)
sin = _unary("sin", _unary_impl(np.sin), _rotated(_complex_sinh), derivative=lambda x, out: cos.bind(x))
cos = _unary("cos", _unary_impl(np.cos),
             lambda z: _complex_cosh(lax().complex(lax().neg(lax().imag(z)), lax().real(z))),
             derivative=lambda x, out: ops.negative(sin.bind(x)))


def _fix_tan(x, out):
    # Note: tan(x) = -1j * tanh(1j * x) (spec), so tan(a + inf j) = copysign(0, a) + copysign(1, b) j.
    mask = np.isinf(x.imag)
    if mask.any():
        out.real[mask] = np.copysign(0.0, x.real[mask])
        out.imag[mask] = np.copysign(1.0, x.imag[mask])


tan = _unary("tan", _unary_impl(np.tan, _fix_tan), _rotated(_complex_tanh),
             derivative=lambda x, out: ops.add(1, ops.square(out)))


# --- asinh, acosh, atanh: inverse hyperbolic functions -----------------------------------------------

_complex_asinh = _complex_rule(lambda z: lax().asinh(z), [
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
], "odd")
asinh = _unary("asinh", _unary_impl(np.arcsinh), _complex_asinh,
               derivative=lambda x, out: ops.reciprocal(sqrt.bind(ops.add(ops.square(x), 1))))


def _acosh_derivative(x, out):
    # 1 / (sqrt(x - 1) sqrt(x + 1)): equal to 1/sqrt(x^2 - 1) for real x > 1, and right on complex branches.
    return ops.reciprocal(ops.multiply(sqrt.bind(ops.subtract(x, 1)), sqrt.bind(ops.add(x, 1))))


acosh = _unary("acosh", _unary_impl(np.arccosh), _complex_rule(lambda z: lax().acosh(z), [
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
]), derivative=_acosh_derivative)


def _fix_atanh(x, out):
    # Note: the spec requires atanh(-x) == -atanh(x); NumPy's complex arctanh differs in the last bit on
    # the left half plane, so it is computed there as -atanh(-x).
    flip = np.signbit(x.real)
    if flip.any():
        out[flip] = -np.arctanh(-x[flip])


def _atanh_core(z):
    """XLA's complex atanh on the folded quadrant (a, b >= 0), its real part recomputed near z = 1.

    XLA's real part, log((1 + a)² + b²) - log((1 - a)² + b²) over 4, squares |1 - z|, which underflows to 0
    when z is within sqrt(tiny) of 1: atan(5.5e-30 + 1j) came out +inf + 0.785j in complex64 under jit (the
    conformance suite found it at 100 examples), where it is 34.03 + 0.785j. There the real part is
    (log|1 + z| - log|1 - z|) / 2, each modulus scaled by its larger part so that nothing underflows."""
    L = lax()
    w = L.atanh(z)
    a, b = _parts(z)
    re, im = _parts(w)
    u = L.sub(_k(a, 1), a)
    d = L.add(L.mul(u, u), L.mul(b, b))
    near_one = L.lt(d, _k(a, np.sqrt(np.finfo(a.dtype).tiny)))
    # (inside `near_one` |1 - z| and b are tiny, so the larger of |1 - a| and b is positive unless z == 1, whose
    # value the special cases give)
    m = L.max(L.abs(u), b)
    m = L.select(L.gt(m, _k(m, 0)), m, L.full_like(m, 1))
    log_near = L.add(L.log(m), L.mul(_k(a, 0.5), L.log(L.add(L.square(L.div(u, m)), L.square(L.div(b, m))))))
    log_far = L.mul(_k(a, 0.5), L.log(L.add(L.square(L.add(_k(a, 1), a)), L.square(b))))
    recomputed = L.mul(_k(a, 0.5), L.sub(log_far, log_near))
    return L.complex(L.select(near_one, recomputed, re), im)


_complex_atanh = _complex_rule(_atanh_core, [
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
], "odd")
atanh = _unary("atanh", _unary_impl(np.arctanh, _fix_atanh), _complex_atanh,
               derivative=lambda x, out: ops.reciprocal(_one_minus_square(x)))


# --- asin, acos, atan: inverse trigonometric functions -----------------------------------------------

asin = _unary("asin", _unary_impl(np.arcsin), _rotated(_complex_asinh),
              derivative=lambda x, out: ops.reciprocal(sqrt.bind(_one_minus_square(x))))

acos = _unary("acos", _unary_impl(np.arccos), _complex_rule(lambda z: lax().acos(z), [
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
]), derivative=lambda x, out: ops.negative(ops.reciprocal(sqrt.bind(_one_minus_square(x)))))


def _atan_impl(x):
    if x.dtype.kind != "c":
        with np.errstate(all="ignore"):
            return call_ufunc(np.arctan, x)
    # Note: NumPy's complex arctan breaks the spec's atan(conj(x)) == conj(atan(x)) in the last bit;
    # the spec defines it as -1j * atanh(1j * x), which is computed here with exact rotations.
    rotated = np.empty(x.shape, x.dtype)
    rotated.real = -x.imag
    rotated.imag = x.real
    w = atanh.impl(rotated)
    out = output_buffer(w.shape, w.dtype)
    out.real = w.imag
    out.imag = -w.real
    return out


# Derivative hand-written, 1 / (1 + x²): what the rotation -1j * atanh(1j * x) it is computed as would give,
# without the two rotations of the tangent.
atan = _unary("atan", _atan_impl, _rotated(_complex_atanh),
              derivative=lambda x, out: ops.reciprocal(ops.add(1, ops.square(x))))


# --- atan2: the angle of the point (x2, x1) ------------------------------------------------------------


def _lower_atan2(ctx, x1, x2):
    return lax().atan2(*_binary_operands(ctx, x1, x2))


def _atan2_partials(y, x, out, need_y, need_x):
    scale = ops.reciprocal(_nonzero(ops.add(ops.square(x), ops.square(y))))
    return (ops.multiply(x, scale) if need_y else None,
            ops.negative(ops.multiply(y, scale)) if need_x else None)


atan2 = _binary("atan2", _binary_impl(np.arctan2), _lower_atan2, _atan2_partials)


# --- hypot: sqrt(x1² + x2²) without overflow ----------------------------------------------------------
# Derivatives hand-written (x / hypot, 0 at the origin): the decomposition sqrt(x1² + x2²) would overflow
# where hypot does not, and divide 0 by 0 at the origin.


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


def _hypot_partials(x1, x2, out, need_1, need_2):
    scale = ops.reciprocal(_nonzero(out))
    return ops.multiply(x1, scale) if need_1 else None, ops.multiply(x2, scale) if need_2 else None


hypot = _binary("hypot", _binary_impl(np.hypot), _lower_hypot, _hypot_partials)


# --- logaddexp: log(exp(x1) + exp(x2)) without overflow ------------------------------------------------
# Derivatives hand-written (the two logistic weights): the decomposition max + log1p(exp(-|x1 - x2|)) would
# differentiate through max and abs at ties and give NaN for two equal infinities.


def _lower_logaddexp(ctx, x1, x2):
    L = lax()
    x1, x2 = _binary_operands(ctx, x1, x2)
    delta = L.sub(x1, x2)
    # delta is NaN for a NaN operand and for equal infinities, where x1 + x2 is the answer.
    spread = L.add(L.max(x1, x2), L.log1p(L.exp(L.neg(L.abs(delta)))))
    return L.select(L.ne(delta, delta), L.add(x1, x2), spread)


def _logaddexp_partials(x1, x2, out, need_1, need_2):
    # 1 / (1 + exp(x2 - x1)) and 1 / (1 + exp(x1 - x2)); x2 - x1 is NaN for two equal infinities, where it is
    # taken as 0 (half each), and for a NaN operand, whose derivative stays NaN (as JAX's).
    delta = ops.subtract(x2, x1)
    delta = ops.where(ops.logical_and(ops.not_equal(delta, delta), ops.equal(x1, x2)), 0.0, delta)
    return (ops.reciprocal(ops.add(exp.bind(delta), 1)) if need_1 else None,
            ops.reciprocal(ops.add(exp.bind(ops.negative(delta)), 1)) if need_2 else None)


logaddexp = _binary("logaddexp", _binary_impl(np.logaddexp), _lower_logaddexp, _logaddexp_partials)


# --- pow: x1 ** x2 (integers wrap as in NumPy; negative integer powers truncate) -----------------------


def _pow_impl(x1, x2):
    with np.errstate(all="ignore"):
        try:
            out = call_ufunc(np.power, x1, x2)
        except ValueError:
            if np.result_type(x1, x2).kind not in "iu":
                raise
            # NumPy refuses integers to negative integer powers.
            return _integer_pow_negative(x1, x2)
        if np.ndim(x2) == 0 and _dtypes.np_kind(out.dtype) == "f" and x2 == 0.5:
            # Note: NumPy takes x ** 0.5 by a scalar 0.5 as sqrt(x), which gives -0 for -0 and NaN for -inf;
            # the spec (as C's pow) wants +0 and +infinity there ("x1_i is -0, x2_i greater than 0 and not an
            # odd integer: +0"; "x1_i is -infinity, ...: +infinity").
            np.add(out, 0.0, out=out, casting="unsafe")  # (-0 + 0 is +0; nothing else changes)
            np.copyto(out, np.inf, where=np.isneginf(np.asarray(x1)))
        return out


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


def _lower_pow(ctx, x1, x2):
    L = lax()
    dtype = ctx.aval_out.dtype
    run_time_scalar = ctx.avals_in[1].shape == () and hasattr(x2, "dtype")
    x1, x2 = _binary_operands(ctx, x1, x2)
    if dtype.kind in ("signed", "unsigned"):
        return _integer_pow(x1, x2, signed=dtype.kind == "signed", bits=8 * dtype.itemsize)
    out = L.pow(x1, x2)
    if dtype.kind != "complex floating":
        if run_time_scalar:
            # NumPy takes x ** 2 and x ** -1 by a scalar as a square and a reciprocal (correctly rounded), and
            # XLA rewrites a constant exponent so too, but not one known at run time (a Python scalar argument
            # of `jit`, of a device executable): its pow was 1 ulp off in 3 of 5000 squares.
            out = L.select(L.eq(x2, _k(x2, 2)), L.mul(x1, x1),
                           L.select(L.eq(x2, _k(x2, -1)), L.div(_k(x1, 1), x1), out))
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


def _pow_partials(x1, x2, out, need_1, need_2):
    d1 = d2 = None
    if need_1:
        # x2 * x1 ** (x2 - 1), the exponent moved to 0 where x2 == 0 (so the product is 0, never 0 * inf)
        exponent = x2 - 1 + (x2 == 0) if _scalar(x2) else ops.add(ops.subtract(x2, 1), ops.equal(x2, 0))
        d1 = ops.multiply(x2, pow.bind(x1, exponent))
    if need_2:
        # out * log(x1), the log taken at 1 where x1 == 0 (out is 0 there, or 1 when x2 == 0)
        d2 = ops.multiply(out, _scalar_log(x1) if _scalar(x1) else log.bind(_nonzero(x1)))
    return d1, d2


def _scalar_log(x):
    """log of a Python-scalar base as `log` computes it for an array (NaN for a negative real), 0 for 0."""
    if x == 0:
        return 0.0
    if isinstance(x, complex):
        return cmath.log(x)
    return math.log(x) if x > 0 else math.nan


pow = _binary("pow", _pow_impl, _lower_pow, _pow_partials)
