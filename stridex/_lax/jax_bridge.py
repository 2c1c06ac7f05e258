"""What lowering rules share: lazy access to JAX, 64-bit mode, and the context a rule receives.

A primitive's `lower(ctx, *args, **params)` receives JAX values (or Python scalars for weak inputs) and
returns JAX values; `ctx.avals_in` / `ctx.avals_out` give the stridex abstract values so a rule can
convert to the exact result dtype itself (lax does not promote). JAX is imported on first use only.
"""

from __future__ import annotations

import numpy as np

from stridex._core import dtypes as _dtypes


class LoweringContext:
    __slots__ = ("avals_in", "avals_out")

    def __init__(self, avals_in, avals_out):
        self.avals_in = tuple(avals_in)
        self.avals_out = tuple(avals_out)

    @property
    def aval_out(self):
        (aval,) = self.avals_out
        return aval


def jax():
    import jax as _jax

    return _jax


def lax():
    from jax import lax as _lax

    return _lax


def jnp():
    import jax.numpy as _jnp

    return _jnp


def x64():
    """A context in which JAX keeps 64-bit dtypes (scoped; the user's global setting is untouched)."""
    return jax().enable_x64(True)


def as_dtype(x, dtype):
    """`x` (JAX value or Python scalar) as a JAX array of stridex dtype `dtype`."""
    j = jnp()
    if not hasattr(x, "dtype"):
        return j.asarray(x, dtype=dtype.np)
    return x if x.dtype == dtype.np else lax().convert_element_type(x, dtype.np)


def broadcast_to_aval(x, aval):
    """`x` converted to `aval.dtype` and broadcast to `aval.shape`."""
    x = as_dtype(x, aval.dtype)
    if x.shape != aval.shape:
        x = jnp().broadcast_to(x, aval.shape)
    return x


def ieee_divide(a, b):
    """`lax.div(a, b)`, kept a division where `b` is broadcast to `a`'s shape (a smaller or 0-d JAX array).

    XLA's algebraic simplifier rewrites x / broadcast(y) into x * broadcast(1 / y), and x / constant into
    x * (1 / constant), whatever the optimisation flags: two roundings, so under `jit` x / 3.7, x / y[0] or a
    division by a column differed from the correctly rounded quotient (which the standard requires, and eager
    gives) in 30-70% of elements. So the operands reach such a division through a select on a predicate that
    is always true but that the simplifier cannot see through (v == v | v != v, of both operands, as either
    may be a constant it folds): no pattern matches a select, and LLVM, which folds the predicate and the
    select away, keeps an IEEE division. Where both operands are constants, XLA evaluates the division itself,
    exactly. The select costs nothing in an elementwise pass, but XLA does not fuse it into the library kernel
    (YNNPACK) it gives large sums: `sx.jit` of `sx.sum(x / 3.7)` on 10^7 float32 writes x / 3.7 out first
    and took 2.3x longer (46 against 20 ms). Divisions of arrays of one shape stay plain, and so XLA's
    rewrites of x / sqrt(y), x / exp(y) and (x / y) / z remain (docs/semantics.md)."""
    L = lax()
    if b.ndim and b.shape == a.shape:
        return L.div(a, b)
    shape = np.broadcast_shapes(a.shape, b.shape)
    a, b = jnp().broadcast_to(a, shape), jnp().broadcast_to(b, shape)
    if _dtypes.np_kind(a.dtype) != "f":
        return L.div(a, b)
    true = L.bitwise_and(L.bitwise_or(L.eq(a, a), L.ne(a, a)), L.bitwise_or(L.eq(b, b), L.ne(b, b)))
    return L.div(L.select(true, a, b), L.select(true, b, a))


def correctly_rounded_float32(fn):
    """`fn` (a lax operation: divide, sqrt) made correctly rounded for float32 operands on every backend.

    The standard requires `/`, `reciprocal` and `sqrt` of real floating-point operands to be correctly rounded
    (Accuracy, "Arithmetic Operations" and "Mathematical Functions"). XLA:CPU's float32 division and square
    root are; on a GPU they are not (PTX `div.full.f32`, documented within 2 ulp, and an approximate square
    root: a GPU run found 1-ulp differences from NumPy in about one float32 sqrt in twelve). There, float32
    operands go through float64, whose division and square root are correctly rounded, and the result is
    rounded to float32 once: exact, since 53 >= 2 * 24 + 2 bits make the double rounding innocuous for +, -,
    *, / and sqrt (Figueroa, "When is double rounding innocuous?", 1995). `lax.platform_dependent` lowers
    only the branch of the platform the program is compiled for, so XLA:CPU programs keep the plain op."""

    def op(*args):
        if not any(getattr(a, "dtype", None) == "float32" for a in args):
            return fn(*args)
        return lax().platform_dependent(*args, cpu=fn, default=lambda *xs: float32_through_float64(fn, *xs))

    return op


def float32_through_float64(fn, *xs):
    """`fn` of float32 JAX arrays `xs` computed in float64 and rounded to float32 once (see above).

    The float64 result is rounded to odd at 26 bits on its bits before the conversion: that changes nothing
    (rounding to odd with two bits to spare, then to nearest at 24, is rounding to nearest at 24), but it hides
    the float64 operation from the conversion. LLVM rewrites fptrunc(fdiv(fpext a, fpext b)) into a float32
    fdiv (a fold that is exact for IEEE division), which NVPTX then emits as the approximate div.full.f32: a
    GPU run of the plain conversion gave XLA's float32 quotients back, 1-2 ulp off."""
    L = lax()
    wide = [L.convert_element_type(x, "float64") if getattr(x, "dtype", None) == "float32" else x for x in xs]
    return L.convert_element_type(float64_rounded_to_odd(fn(*wide), 26), "float32")


def float64_rounded_to_odd(x, bits: int):
    """float64 JAX array `x` rounded to odd at `bits` significant bits, on its bits: the trailing 53 - `bits`
    mantissa bits are cut (toward zero) and the lowest kept bit is set if any of them was 1. Rounding to
    nearest at p <= `bits` - 2 bits afterwards gives the nearest p-bit value to `x` itself (one rounding, not
    two). Exact for normal values (where the whole significand is in the mantissa field); NaN stays NaN (its
    sticky bit is set), infinities and zeros are unchanged. Integer operations, so no compiler folds it into a
    neighbouring conversion."""
    L = lax()
    cut = 53 - bits
    word = L.bitcast_convert_type(x, np.uint64)
    dropped = np.uint64((1 << cut) - 1)
    sticky = L.convert_element_type(L.ne(L.bitwise_and(word, dropped), np.uint64(0)), np.uint64)
    kept = L.bitwise_and(word, np.uint64(~((1 << cut) - 1) & (2**64 - 1)))
    return L.bitcast_convert_type(L.bitwise_or(kept, L.shift_left(sticky, np.uint64(cut))), np.float64)
