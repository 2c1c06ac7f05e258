"""Polynomials with jax.numpy's names, as coefficient arrays with the highest power first: evaluation (`polyval`,
Horner's rule over the coefficients), arithmetic, calculus, fitting (`polyfit`, least squares) and roots (`roots`,
the eigenvalues of the companion matrix; `poly`, the inverse)."""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

from stridex import linalg as _linalg
from stridex._api import creation_functions as _cr
from stridex._api import elementwise_functions as _ew
from stridex._api import manipulation_functions as _manip
from stridex._api import searching_functions as _search
from stridex._api import statistical_functions as _stat
from stridex._api import transcendental_functions as _tr
from stridex._core import dtypes as _d
from stridex._core.array import Array
from stridex.numpy import _args
from stridex.numpy import linalg as _np_linalg
from stridex.numpy._creation import vander
from stridex.numpy._indexing import trim_zeros
from stridex.numpy._signal import convolve

__all__ = ["poly", "polyadd", "polyder", "polydiv", "polyfit", "polyint", "polymul", "polysub", "polyval", "roots"]


def polyval(p: Any, x: Any, *, unroll: int = 16) -> Array:
    """The polynomial with coefficients `p` (highest power first) at x, by Horner's rule (`unroll` is accepted
    for jax.numpy's signature: the loop over the coefficients is unrolled in full).

    >>> import stridex.numpy as jnp
    >>> jnp.polyval(jnp.asarray([1, -2, 3]), jnp.asarray([0, 1, 2]))
    Array([3, 2, 3])
    """
    p, x = _args.promote("polyval", _args.array(p, "polyval", 0), _args.array(x, "polyval", 1))
    shape = _manip.broadcast_shapes(p.shape[1:], x.shape)
    y = _cr.zeros(shape, dtype=x._dtype)
    for k in range(p.shape[0]):
        y = _ew.add(_ew.multiply(y, x), p[k])
    return y


def _pair(fname: str, a1, a2, inexact: builtins.bool = False) -> tuple[Array, Array]:
    a, b = _args.promote(fname, _args.array(a1, fname, 0), _args.array(a2, fname, 1), to_inexact=inexact)
    return _manip.reshape(a, (-1,)) if a.ndim == 0 else a, _manip.reshape(b, (-1,)) if b.ndim == 0 else b


def _aligned(a: Array, b: Array) -> tuple[Array, Array]:
    """The two coefficient arrays, the shorter padded with leading zeros."""
    n = builtins.max(a.shape[0], b.shape[0])
    pad = [_cr.zeros((n - x.shape[0],) + x.shape[1:], dtype=x._dtype) for x in (a, b)]
    return _manip.concat([pad[0], a]), _manip.concat([pad[1], b])


def polyadd(a1: Any, a2: Any) -> Array:
    """The sum of two polynomials.

    >>> import stridex.numpy as jnp
    >>> jnp.polyadd(jnp.asarray([1, 2]), jnp.asarray([3, 4, 5]))
    Array([3, 5, 7])
    """
    a, b = _aligned(*_pair("polyadd", a1, a2))
    return _ew.add(a, b)


def polysub(a1: Any, a2: Any) -> Array:
    """The difference of two polynomials.

    >>> import stridex.numpy as jnp
    >>> jnp.polysub(jnp.asarray([1, 2]), jnp.asarray([3, 4, 5]))
    Array([-3, -3, -3])
    """
    a, b = _aligned(*_pair("polysub", a1, a2))
    return _ew.subtract(a, b)


def polymul(a1: Any, a2: Any, *, trim_leading_zeros: builtins.bool = False) -> Array:
    """The product of two polynomials (the convolution of their coefficients).

    >>> import stridex.numpy as jnp
    >>> jnp.polymul(jnp.asarray([1.0, 1.0]), jnp.asarray([1.0, -1.0]))
    Array([ 1.,  0., -1.])
    """
    a, b = _pair("polymul", a1, a2, inexact=True)
    if trim_leading_zeros and (a.shape[0] > 1 or b.shape[0] > 1):
        a, b = trim_zeros(a, trim="f"), trim_zeros(b, trim="f")
    if a.shape[0] == 0:
        a = _cr.zeros((1,), dtype=b._dtype)
    if b.shape[0] == 0:
        b = _cr.zeros((1,), dtype=a._dtype)
    return convolve(a, b)


def polydiv(u: Any, v: Any, *, trim_leading_zeros: builtins.bool = False) -> tuple[Array, Array]:
    """(quotient, remainder) of polynomial division; the remainder keeps u's length unless
    `trim_leading_zeros` (which reads it on the host).

    >>> import stridex.numpy as jnp
    >>> jnp.polydiv(jnp.asarray([1.0, 0.0, -1.0]), jnp.asarray([1.0, 1.0]))
    (Array([ 1., -1.]), Array([0., 0., 0.]))
    """
    u, v = _pair("polydiv", u, v, inexact=True)
    m, n = u.shape[0] - 1, v.shape[0] - 1
    scale = _ew.divide(1.0, v[0])
    quotient = []
    remainder = u
    for k in range(m - n + 1):
        d = _ew.multiply(scale, remainder[k])
        quotient.append(d)
        update = _manip.concat([_cr.zeros((k,), dtype=u._dtype), _ew.multiply(d, v),
                                _cr.zeros((m - n - k,), dtype=u._dtype)])
        remainder = _ew.subtract(remainder, update)
    q = _manip.stack(quotient) if quotient else _cr.zeros((1,), dtype=u._dtype)
    if trim_leading_zeros:
        eps = float(np.finfo(_d.real_of(u._dtype).np).eps)
        big = _ew.greater(_ew.abs(remainder), eps ** 0.5)
        hits = _search.nonzero(big)[0]
        remainder = remainder[int(hits[0]):] if hits.shape[0] else remainder[remainder.shape[0] - 1:]
    return q, remainder


def polyder(p: Any, m: int = 1) -> Array:
    """The m-th derivative of a polynomial.

    >>> import stridex.numpy as jnp
    >>> jnp.polyder(jnp.asarray([1.0, 1.0, 1.0, 1.0]), 2)
    Array([6., 2.])
    """
    p = _args.inexact(p, "polyder")
    m = _args.index(m, "polyder", "m")
    if m < 0:
        raise ValueError(f"polyder: the order of the derivative must be non-negative, got {m}")
    n = p.shape[0]
    for _ in range(m):
        if n <= 1:
            return _cr.zeros((0,), dtype=p._dtype)
        p = _ew.multiply(p[:-1], _cr.arange(n - 1, 0, -1, dtype=_d.real_of(p._dtype)))
        n -= 1
    return p


def polyint(p: Any, m: int = 1, k: Any = None) -> Array:
    """The m-th antiderivative of a polynomial, with integration constants `k` (one, or one per integration,
    the first integration's first).

    >>> import stridex.numpy as jnp
    >>> jnp.polyint(jnp.asarray([3.0, 2.0, 1.0])), jnp.polyint(jnp.asarray([1.0]), 2, k=jnp.asarray([1.0, 2.0]))
    (Array([1., 1., 1., 0.]), Array([0.5, 1. , 2. ]))
    """
    m = _args.index(m, "polyint", "m")
    if m < 0:
        raise ValueError("polyint: the order of the integral must be non-negative (see polyder)")
    p, k_values = _args.promote("polyint", _args.array(p, "polyint"), 0 if k is None else k, to_inexact=True)
    k_values = _manip.reshape(k_values, (-1,))
    if k_values.shape[0] == 1:
        k_values = _manip.broadcast_to(k_values, (m,))
    if k_values.shape != (m,):
        raise ValueError(f"polyint: k must be a scalar or a 1-D array of length 1 or m={m}, got shape "
                         f"{k_values.shape}")
    for i in range(m):
        n = p.shape[0]
        p = _manip.concat([_ew.divide(p, _cr.arange(n, 0, -1, dtype=_d.real_of(p._dtype))), k_values[i:i + 1]])
    return p


def polyfit(x: Any, y: Any, deg: int, rcond: float | None = None, full: builtins.bool = False, w: Any = None,
            cov: Any = False) -> Any:
    """The least-squares polynomial of degree `deg` through the points (x, y) (y may be 2-D: one fit per
    column), with weights `w`; `full` also returns (residuals, rank, singular values, rcond), `cov` the
    coefficients' covariance.

    >>> import stridex.numpy as jnp
    >>> jnp.round(jnp.polyfit(jnp.asarray([0.0, 1.0, 2.0, 3.0]), jnp.asarray([1.0, 3.0, 5.0, 7.0]), 1), 8)
    Array([2., 1.])
    """
    x, y = _args.promote("polyfit", _args.array(x, "polyfit", 0), _args.array(y, "polyfit", 1), to_inexact=True)
    deg = _args.index(deg, "polyfit", "deg")
    order = deg + 1
    if deg < 0:
        raise ValueError(f"polyfit: expected deg >= 0, got {deg}")
    if x.ndim != 1:
        raise TypeError(f"polyfit: expected a 1-D vector for x, got shape {x.shape}")
    if y.ndim < 1 or y.ndim > 2:
        raise TypeError(f"polyfit: expected a 1-D or 2-D array for y, got shape {y.shape}")
    if x.shape[0] != y.shape[0]:
        raise TypeError(f"polyfit: x and y must have the same length, got {x.shape[0]} and {y.shape[0]}")
    rcond = x.shape[0] * float(np.finfo(_d.real_of(x._dtype).np).eps) if rcond is None else rcond
    lhs = vander(x, order)
    rhs = y
    if w is not None:
        w = _args.cast(_args.array(w, "polyfit", 5), x._dtype)
        if w.ndim != 1 or w.shape[0] != x.shape[0]:
            raise TypeError(f"polyfit: expected a 1-D w of x's length {x.shape[0]}, got shape {w.shape}")
        lhs = _ew.multiply(lhs, _manip.reshape(w, (-1, 1)))
        rhs = _ew.multiply(rhs, w if rhs.ndim == 1 else _manip.reshape(w, (-1, 1)))
    scale = _tr.sqrt(_stat.sum(_ew.square(_ew.abs(lhs)), axis=0))
    lhs = _ew.divide(lhs, scale)
    c, residuals, rank, s = _np_linalg.lstsq(lhs, rhs, rcond)
    c = _ew.divide(c, scale if c.ndim == 1 else _manip.reshape(scale, (-1, 1)))
    if full:
        return c, residuals, rank, s, rcond
    if cov:
        base = _linalg.inv(_linalg.matmul(_manip.permute_dims(lhs, (1, 0)), lhs))
        base = _ew.divide(base, _ew.multiply(_manip.reshape(scale, (-1, 1)), _manip.reshape(scale, (1, -1))))
        dof = x.shape[0] - order if cov != "unscaled" else 1
        factor = _ew.divide(residuals, float(dof)) if cov != "unscaled" else _cr.ones((), dtype=x._dtype)
        if y.ndim == 1:
            return c, _ew.multiply(base, factor)
        return c, _ew.multiply(_manip.expand_dims(base, axis=2), factor)
    return c


def poly(seq_of_zeros: Any) -> Array:
    """The coefficients (leading coefficient 1) of the polynomial with the given roots, or with the eigenvalues
    of a square matrix as roots.

    >>> import stridex.numpy as jnp
    >>> jnp.poly(jnp.asarray([1.0, 2.0]))
    Array([ 1., -3.,  2.])
    """
    zeros = _args.inexact(seq_of_zeros, "poly")
    if zeros.ndim == 0:
        zeros = _manip.reshape(zeros, (1,))
    if zeros.ndim == 2 and zeros.shape[0] == zeros.shape[1] and zeros.shape[0] != 0:
        zeros = _linalg.eigvals(zeros)
    if zeros.ndim != 1:
        raise ValueError(f"poly: the input must be 1-D or a non-empty square 2-D array, got shape {zeros.shape}")
    if zeros.shape[0] == 0:
        return _cr.ones((), dtype=zeros._dtype)
    a = _cr.ones((1,), dtype=zeros._dtype)
    for k in range(zeros.shape[0]):
        factor = _manip.concat([_cr.ones((1,), dtype=zeros._dtype), _ew.negative(zeros[k:k + 1])])
        a = convolve(a, factor)
    return a


def roots(p: Any, *, strip_zeros: builtins.bool = True) -> Array:
    """The roots (complex) of the polynomial with coefficients `p`: the eigenvalues of its companion matrix.
    Leading zeros are stripped (which reads them on the host; with `strip_zeros=False` they are not, and give
    NaN roots, as in jax.numpy).

    >>> import stridex.numpy as jnp
    >>> jnp.sort_complex(jnp.roots(jnp.asarray([1.0, -3.0, 2.0])))
    Array([1.+0.j, 2.+0.j])
    """
    p = _args.inexact(p, "roots")
    if p.ndim == 0:
        p = _manip.reshape(p, (1,))
    if p.ndim != 1:
        raise ValueError(f"roots: the input must be 1-D, got shape {p.shape}")
    complex_dtype = _d.complex_of(p._dtype) if p._dtype.kind != "complex floating" else p._dtype
    if p.shape[0] < 2:
        return _cr.zeros((0,), dtype=complex_dtype)
    if strip_zeros:
        nonzero = _search.nonzero(_ew.not_equal(p, 0))[0]  # (the degree: data-dependent)
        if nonzero.shape[0] == 0:
            return _cr.zeros((0,), dtype=complex_dtype)
        first, last = int(nonzero[0]), int(nonzero[-1])
        trailing = p.shape[0] - 1 - last
        p = p[first:last + 1]
        found = _companion_roots(p, complex_dtype) if p.shape[0] > 1 else _cr.zeros((0,), dtype=complex_dtype)
        return _manip.concat([found, _cr.zeros((trailing,), dtype=complex_dtype)]) if trailing else found
    return _companion_roots(p, complex_dtype)


def _companion_roots(p: Array, complex_dtype) -> Array:
    n = p.shape[0] - 1
    top = _ew.negative(_ew.divide(p[1:], p[0]))
    if n == 1:
        return _args.cast(top, complex_dtype)
    below = _manip.concat([_cr.eye(n - 1, dtype=p._dtype), _cr.zeros((n - 1, 1), dtype=p._dtype)], axis=1)
    companion = _manip.concat([_manip.reshape(top, (1, n)), below], axis=0)
    return _args.cast(_linalg.eigvals(companion), complex_dtype)

