"""Special functions that NumPy has no kernel for (`stridex.scipy.special`, `stridex.nn`): erf, erfc, erf_inv, lgamma,
digamma, polygamma, ndtri, log_ndtr.

Each lowers to JAX: `jax.lax`'s function of the same name, or JAX's own definition where JAX composes the
function (ndtri and log_ndtr are `jax.scipy.special`'s). Their eager rule is that lowering compiled once per
signature (`stridex._lax.compiled.lowered`): eagerly, under `jit` and on a device they compute the same program, so
the values are JAX's, bit for bit. They are not `elementwise` (not deferred by eager fusion): a compiled program
called once per block of a pass cost more than it saved (docs/nn.md gives the measurements), so a chain runs the
pending work before them and defers again after.

Each derivative is JAX's rule, written in the same order of operations (`tangent(t, x, out)`); the JVP and VJP
both apply it (every rule is linear in the tangent and real). Every record batches elementwise.
"""

from __future__ import annotations

import math

from stridex._core.avals import ShapedArray, aval_of
from stridex._lax import ops
from stridex._lax.compiled import lowered
from stridex._exec.jax_bridge import jax_scipy_special, lax
from stridex._lax.primitive import Primitive
from stridex._lax.rule_shapes import batch_elementwise


def _floating_abstract(name: str):
    """The abstract rule of a real floating function: the operand's shape and dtype."""

    def abstract_eval(x, **params):
        a = aval_of(x)
        if a.dtype.kind != "real floating":
            raise TypeError(f"{name} requires a real floating-point dtype, got {a.dtype.name}")
        return ShapedArray(a.shape, a.dtype, a.weak_type)

    return abstract_eval


def _special(name: str, lower, tangent) -> Primitive:
    """A unary primitive: `lower(ctx, x, **params)` on JAX values; its tangent (and cotangent) `tangent(t, x, out,
    **params)`; its eager rule is the lowering, compiled."""

    def jvp(primals, tangents, **params):
        (x,), (t,) = primals, tangents
        out = prim.bind(x, **params)
        return out, tangent(t, x, out, **params)

    def vjp(ct, x, *, out, **params):
        return (tangent(ct, x, out, **params),)

    prim = Primitive(name, impl=lowered, abstract_eval=_floating_abstract(name), lower=lower, jvp=jvp, vjp=vjp,
                     batch=batch_elementwise)
    return prim


def _gaussian(x):
    """exp(-x²), as JAX's erf rules compute it."""
    return ops.exp(ops.negative(ops.square(x)))


# --- erf, erfc, erf_inv: the error function, its complement and its inverse ---------------------------------

erf = _special("erf", lambda ctx, x: lax().erf(x),
               lambda t, x, out: ops.multiply(2.0 / math.sqrt(math.pi), ops.multiply(t, _gaussian(x))))
erfc = _special("erfc", lambda ctx, x: lax().erfc(x),
                lambda t, x, out: ops.multiply(-2.0 / math.sqrt(math.pi), ops.multiply(t, _gaussian(x))))
erf_inv = _special("erf_inv", lambda ctx, x: lax().erf_inv(x),
                   lambda t, x, out: ops.multiply(math.sqrt(math.pi) / 2.0, ops.multiply(t, ops.exp(ops.square(out)))))


# --- lgamma, digamma, polygamma: log |Γ(x)| and its derivatives ---------------------------------------------
# polygamma's order is a parameter (a Python int): the derivatives of digamma need polygamma(1), (2), ...; JAX's
# derivative in the order is an error, and so is a traced order here.

digamma: Primitive  # (declared first: lgamma's derivative binds it, and digamma's polygamma)
polygamma: Primitive
lgamma = _special("lgamma", lambda ctx, x: lax().lgamma(x), lambda t, x, out: ops.multiply(t, digamma.bind(x)))
digamma = _special("digamma", lambda ctx, x: lax().digamma(x),
                   lambda t, x, out: ops.multiply(t, polygamma.bind(x, order=1)))
polygamma = _special("polygamma", lambda ctx, x, *, order: lax().polygamma(lax().full_like(x, order), x),
                     lambda t, x, out, *, order: ops.multiply(t, polygamma.bind(x, order=order + 1)))


# --- ndtri, log_ndtr: the normal distribution's quantile function, the log of its CDF -----------------------
# JAX's own definitions (rational approximations, asymptotic series). ndtri has no rule of its own in JAX (its
# derivative is the composition's); here the exact sqrt(2π) exp(x² / 2) at x = ndtri(p), which agrees with it to
# rounding, and 0 at p = 0 and 1 (where JAX's composition selects a constant). log_ndtr's is JAX's custom rule,
# exp(log φ(x) - log_ndtr(x)).

_LOG_SQRT_2PI = math.log(math.sqrt(2 * math.pi))


def _ndtri_tangent(t, p, out):
    slope = ops.exp(ops.multiply(ops.square(out), 0.5))
    slope = ops.where(ops.equal(ops.abs(out), math.inf), 0.0, ops.multiply(slope, math.sqrt(2 * math.pi)))
    return ops.multiply(t, slope)


ndtri = _special("ndtri", lambda ctx, x: jax_scipy_special().ndtri(x), _ndtri_tangent)


def _log_ndtr_tangent(t, x, out, *, series_order):
    log_density = ops.subtract(ops.multiply(-0.5, ops.square(x)), _LOG_SQRT_2PI)
    return ops.multiply(t, ops.exp(ops.subtract(log_density, out)))


log_ndtr = _special("log_ndtr",
                    lambda ctx, x, *, series_order: jax_scipy_special().log_ndtr(x, series_order=series_order),
                    _log_ndtr_tangent)
