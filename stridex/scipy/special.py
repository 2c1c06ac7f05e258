"""`stridex.scipy.special`: `jax.scipy.special`'s functions, with JAX's signatures, values and derivatives.

erf, erfc, erfinv, gammaln, digamma, ndtri and log_ndtr bind one primitive each (`stridex/_lax/special.py`), whose
eager rule runs JAX's own lowering compiled (eager values are `jit`'s and JAX's, bit for bit); the others compose
primitives as JAX composes `jax.lax`'s, with JAX's custom derivative rules where JAX has them (expit, xlogy,
xlog1py, logit, entr). Integers and booleans are promoted to the default floating dtype
(float64) first, as `jax.numpy` does; ndtr, ndtri and log_ndtr take float32 or float64 only, as JAX's.

>>> import stridex as sx
>>> from stridex.scipy.special import gammaln, xlogy
>>> gammaln(sx.asarray([1.0, 5.0]))
Array([0.        , 3.17805383])
>>> xlogy(0.0, 0.0)
Array(0.)
"""

from __future__ import annotations

import math
from typing import Literal, overload

import numpy as np

from stridex._api.jax_arguments import (ArrayLike, array, as_mask, broadcast_pair, float32_or_float64, masked_max,
                                        masked_sum, real)
from stridex._api.jax_arguments import axes as _axes
from stridex._core.array import Array
from stridex._lax import ops
from stridex._lax import special as _p
from stridex._transforms.custom import custom_jvp

__all__ = ["digamma", "entr", "erf", "erfc", "erfinv", "expit", "gammaln", "log_ndtr", "logit", "logsumexp", "ndtr",
           "ndtri", "xlog1py", "xlogy"]


# --- error functions ------------------------------------------------------------------------------------------


def erf(x: ArrayLike) -> Array:
    """The error function, 2/√π ∫₀ˣ exp(-t²) dt (`jax.scipy.special.erf`).

    >>> import stridex as sx
    >>> sx.scipy.special.erf(sx.asarray([0.0, 1.0, -2.0]))
    Array([ 0.        ,  0.84270079, -0.99532227])
    """
    (x,) = real("erf", x)
    return _p.erf.bind(x)


def erfc(x: ArrayLike) -> Array:
    """The complementary error function, 1 - erf(x), accurate where erf(x) is near 1 (`jax.scipy.special.erfc`).

    >>> import stridex as sx
    >>> sx.scipy.special.erfc(sx.asarray([0.0, 5.0]))
    Array([1.00000000e+00, 1.53745979e-12])
    """
    (x,) = real("erfc", x)
    return _p.erfc.bind(x)


def erfinv(x: ArrayLike) -> Array:
    """The inverse of the error function on [-1, 1] (±inf at ±1, NaN outside) (`jax.scipy.special.erfinv`).

    >>> import stridex as sx
    >>> sx.scipy.special.erfinv(sx.asarray([0.0, 0.5, 1.0]))
    Array([0.        , 0.47693628,        inf])
    """
    (x,) = real("erfinv", x)
    return _p.erf_inv.bind(x)


# --- the gamma function -------------------------------------------------------------------------------------


def gammaln(x: ArrayLike) -> Array:
    """log |Γ(x)| (`jax.scipy.special.gammaln`); its derivative is digamma.

    >>> import stridex as sx
    >>> sx.scipy.special.gammaln(sx.asarray([0.5, 1.0, 10.0]))
    Array([ 0.57236494,  0.        , 12.80182748])
    """
    (x,) = real("gammaln", x)
    return _p.lgamma.bind(x)


def digamma(x: ArrayLike) -> Array:
    """ψ(x) = d/dx log Γ(x) (`jax.scipy.special.digamma`); its derivative is the trigamma function.

    >>> import stridex as sx
    >>> sx.scipy.special.digamma(sx.asarray([1.0, 2.0]))
    Array([-0.57721566,  0.42278434])
    """
    (x,) = real("digamma", x)
    return _p.digamma.bind(x)


# --- x log y ------------------------------------------------------------------------------------------------


@custom_jvp
def _xlogy(x, y):
    with np.errstate(all="ignore"):  # (0 * log(0) is computed, then not chosen)
        return ops.where(ops.logical_or(ops.not_equal(x, 0), ops.isnan(y)), ops.multiply(x, ops.log(y)), 0.0)


@_xlogy.defjvp
def _xlogy_jvp(primals, tangents):
    (x, y), (x_dot, y_dot) = primals, tangents
    with np.errstate(all="ignore"):
        return _xlogy(x, y), ops.add(ops.multiply(x_dot, ops.log(y)), ops.divide(ops.multiply(y_dot, x), y))


def xlogy(x: ArrayLike, y: ArrayLike) -> Array:
    """x * log(y), and 0 where x is 0 (unless y is NaN) (`jax.scipy.special.xlogy`); the derivative is JAX's rule,
    dx log(y) + dy x / y.

    >>> import stridex as sx
    >>> sx.scipy.special.xlogy(sx.asarray([0.0, 2.0]), sx.asarray([0.0, 3.0]))
    Array([0.        , 2.19722458])
    """
    x, y = real("xlogy", x, y)
    return _xlogy(x, y)


@custom_jvp
def _xlog1py(x, y):
    with np.errstate(all="ignore"):
        return ops.where(ops.logical_or(ops.not_equal(x, 0), ops.isnan(y)),
                         ops.multiply(x, ops.log1p(y)), 0.0)


@_xlog1py.defjvp
def _xlog1py_jvp(primals, tangents):
    (x, y), (x_dot, y_dot) = primals, tangents
    with np.errstate(all="ignore"):
        return _xlog1py(x, y), ops.add(ops.multiply(x_dot, ops.log1p(y)),
                                       ops.divide(ops.multiply(y_dot, x), ops.add(1, y)))


def xlog1py(x: ArrayLike, y: ArrayLike) -> Array:
    """x * log1p(y), and 0 where x is 0 (unless y is NaN) (`jax.scipy.special.xlog1py`); the derivative is JAX's
    rule, dx log1p(y) + dy x / (1 + y).

    >>> import stridex as sx
    >>> sx.scipy.special.xlog1py(sx.asarray([0.0, 2.0]), sx.asarray([-1.0, 1e-10]))
    Array([0.e+00, 2.e-10])
    """
    x, y = real("xlog1py", x, y)
    return _xlog1py(x, y)


@custom_jvp
def _xlogx(x):
    return _xlogy(x, x)


@_xlogx.defjvp
def _xlogx_jvp(primals, tangents):
    (x,), (x_dot,) = primals, tangents
    return _xlogx(x), ops.multiply(x_dot, ops.add(ops.log(x), 1))


def entr(x: ArrayLike) -> Array:
    """The entropy term: -x log(x) for x > 0, 0 at 0, -inf for x < 0 (`jax.scipy.special.entr`).

    >>> import stridex as sx
    >>> sx.scipy.special.entr(sx.asarray([0.0, 0.5, -1.0]))
    Array([-0.        ,  0.34657359,        -inf])
    """
    x = array("entr", x)
    if x.dtype.kind == "complex floating":
        raise ValueError("entr does not support complex-valued inputs.")
    (x,) = real("entr", x)
    return ops.where(ops.less(x, 0), -math.inf, ops.negative(_xlogx(x)))


# --- the logistic function and its inverse -------------------------------------------------------------------


@custom_jvp
def _logistic(x):
    # JAX's lax.logistic, step by step as XLA runs it: 1 / (1 + exp(-x)). A composition (with JAX's derivative as a
    # custom rule) rather than a primitive: its four ufuncs fuse eagerly, where one primitive's kernel ran 1.2x
    # slower in a pass (python -m benchmarks.nn)
    return ops.divide(1.0, ops.add(1.0, ops.exp(ops.negative(x))))


# JAX's rule, expit(x) (1 - expit(x)): finite where the formula's own derivative is inf / inf (x below -709)
_logistic.defjvps(lambda g, ans, x: ops.multiply(g, ops.multiply(ans, ops.subtract(1, ans))))


def expit(x: ArrayLike) -> Array:
    """The logistic sigmoid 1 / (1 + exp(-x)) (`jax.scipy.special.expit`, `jax.nn.sigmoid`); its derivative is
    JAX's, expit(x) (1 - expit(x)).

    >>> import stridex as sx
    >>> sx.scipy.special.expit(sx.asarray([0.0, 2.0]))
    Array([0.5       , 0.88079708])
    """
    (x,) = real("expit", x)
    return _logistic(x)


@custom_jvp
def _logit(x):
    with np.errstate(all="ignore"):  # (logit(1) = log(1 / 0))
        return ops.log(ops.divide(x, ops.subtract(1, x)))


@_logit.defjvp
def _logit_jvp(primals, tangents):
    (x,), (x_dot,) = primals, tangents
    with np.errstate(all="ignore"):
        return _logit(x), ops.divide(x_dot, ops.multiply(x, ops.subtract(1, x)))


def logit(x: ArrayLike) -> Array:
    """log(x / (1 - x)), the inverse of expit (`jax.scipy.special.logit`); its derivative is JAX's rule,
    1 / (x (1 - x)).

    >>> import stridex as sx
    >>> sx.scipy.special.logit(sx.asarray([0.5, 0.9, 1.0]))
    Array([0.        , 2.19722458,        inf])
    """
    (x,) = real("logit", x)
    return _logit(x)


# --- the normal distribution --------------------------------------------------------------------------------


def ndtr(x: ArrayLike) -> Array:
    """The standard normal CDF, (1 + erf(x / √2)) / 2, by JAX's formula (erfc in the tails)
    (`jax.scipy.special.ndtr`). float32 and float64 only (JAX's TypeError otherwise).

    >>> import stridex as sx
    >>> sx.scipy.special.ndtr(sx.asarray([0.0, 1.0, -10.0]))
    Array([5.00000000e-01, 8.41344746e-01, 7.61985302e-24])
    """
    x = float32_or_float64("ndtr", x)
    half_sqrt_2 = float(x.dtype.np.type(0.5) * np.sqrt(x.dtype.np.type(2.0)))
    w = ops.multiply(x, half_sqrt_2)
    z = ops.abs(w)
    tails = ops.where(ops.greater(w, 0), ops.subtract(2.0, _p.erfc.bind(z)), _p.erfc.bind(z))
    y = ops.where(ops.less(z, half_sqrt_2), ops.add(1.0, _p.erf.bind(w)), tails)
    return ops.multiply(0.5, y)


def ndtri(p: ArrayLike) -> Array:
    """The inverse of the standard normal CDF (-inf at 0, inf at 1, NaN outside [0, 1]) (`jax.scipy.special.ndtri`).
    float32 and float64 only.

    >>> import stridex as sx
    >>> sx.scipy.special.ndtri(sx.asarray([0.5, 0.975]))
    Array([0.        , 1.95996398])
    """
    p = float32_or_float64("ndtri", p)
    return _p.ndtri.bind(p)


def log_ndtr(x: ArrayLike, series_order: int = 3) -> Array:
    """log of the standard normal CDF, accurate far in both tails (an asymptotic series of `series_order` terms
    below -20, -10 in float32) (`jax.scipy.special.log_ndtr`). float32 and float64 only.

    >>> import stridex as sx
    >>> sx.scipy.special.log_ndtr(sx.asarray([0.0, -30.0]))
    Array([  -0.69314718, -454.32124396])
    """
    if not isinstance(series_order, int) or isinstance(series_order, bool):
        raise TypeError("series_order must be a Python integer.")
    if series_order < 0:
        raise ValueError("series_order must be non-negative.")
    if series_order > 30:
        raise ValueError("series_order must be <= 30.")
    x = float32_or_float64("log_ndtr", x)
    return _p.log_ndtr.bind(x, series_order=series_order)


# --- logsumexp ----------------------------------------------------------------------------------------------


@overload
def logsumexp(a: ArrayLike, axis: int | tuple[int, ...] | None = None, b: ArrayLike | None = None,
              keepdims: bool = False, return_sign: Literal[False] = False, where: ArrayLike | None = None) -> Array: ...


@overload
def logsumexp(a: ArrayLike, axis: int | tuple[int, ...] | None = None, b: ArrayLike | None = None,
              keepdims: bool = False, *, return_sign: Literal[True],
              where: ArrayLike | None = None) -> tuple[Array, Array]: ...


def logsumexp(a: ArrayLike, axis: int | tuple[int, ...] | None = None, b: ArrayLike | None = None,
              keepdims: bool = False, return_sign: bool = False,
              where: ArrayLike | None = None) -> Array | tuple[Array, Array]:
    """log Σ b exp(a) over `axis` (all axes by default), without overflow (`jax.scipy.special.logsumexp`,
    `jax.nn.logsumexp`).

    The maximum over the axes is subtracted first (as a constant for differentiation, 0 where it is not finite),
    so rows of -inf give -inf and the derivative is softmax's. `b` scales each term (b = 0 drops it); a negative
    sum gives NaN, unless `return_sign` asks for (log |Σ|, sign of Σ). `where` selects the elements reduced.

    >>> import stridex as sx
    >>> from stridex.scipy.special import logsumexp
    >>> logsumexp(sx.asarray([[0.0, 0.0], [1000.0, -sx.inf]]), axis=1)
    Array([6.93147181e-01, 1.00000000e+03])
    >>> logsumexp(sx.asarray([1.0, 2.0]), b=sx.asarray([1.0, -1.0]), return_sign=True)
    (Array(1.54132485), Array(-1.))
    """
    mask = None if where is None else as_mask("logsumexp", where)
    values: Array
    scale: Array | None
    if b is not None:
        values, scale = real("logsumexp", a, b)
    else:
        (values,), scale = real("logsumexp", a), None
    with np.errstate(all="ignore"):
        if mask is not None:
            values = ops.where(mask, values, 0.0)
        if scale is not None:
            values = ops.where(ops.not_equal(scale, 0), values, -math.inf)
        if mask is not None:
            values, mask = broadcast_pair(values, mask)
            if scale is not None:
                values, scale = broadcast_pair(values, scale)
        axes = _axes("logsumexp", values, axis)
        amax = masked_max(values, axes, mask, keepdims)
        amax = ops.stop_gradient(ops.where(_finite(amax), amax, 0.0))
        amax_with_dims = amax if keepdims else ops.expand_dims(amax, axes)
        exp_a = ops.exp(ops.subtract(values, amax_with_dims))
        if scale is not None:
            exp_a = ops.multiply(exp_a, scale)
        sumexp = masked_sum(exp_a, axes, mask, keepdims)
        sign = ops.sign(sumexp)
        out = ops.add(ops.log(ops.abs(sumexp)), amax)
        if return_sign:
            return out, sign
        if scale is not None:
            out = ops.where(ops.less(sign, 0), math.nan, out)
        return out


def _finite(x):
    return ops.less(ops.abs(x), math.inf)
