"""Signal processing and calculus with jax.numpy's names: `convolve` and `correlate` (1-D, as a gather of windows
times the kernel: no convolution primitive), `interp`, `diff`/`ediff1d`, `gradient`, `trapezoid`, `unwrap`, the
window functions and the Bessel function `i0` that `kaiser` needs."""

from __future__ import annotations

import builtins
import math
from typing import Any

import numpy as np

from stridex._api import creation_functions as _cr
from stridex._api import elementwise_functions as _ew
from stridex._api import indexing_functions as _ix
from stridex._api import linear_algebra_functions as _la
from stridex._api import manipulation_functions as _manip
from stridex._api import searching_functions as _search
from stridex._api import sorting_functions as _sort
from stridex._api import statistical_functions as _stat
from stridex._api import transcendental_functions as _tr
from stridex._api import utility_functions as _util
from stridex._core import dtypes as _d
from stridex._core.array import Array
from stridex.numpy import _args
from stridex.numpy import _dtypes as _jd

__all__ = [
    "bartlett", "blackman", "convolve", "correlate", "diff", "ediff1d", "gradient", "hamming", "hanning", "i0",
    "interp", "kaiser", "trapezoid", "unwrap",
]


# --- convolution ------------------------------------------------------------------------------------------


def _conv(fname: str, x, y, mode: str, preferred_element_type) -> Array:
    x, y = _args.array(x, fname, 0), _args.array(y, fname, 1)
    if x.ndim != 1 or y.ndim != 1:
        raise ValueError(f"{fname}() only supports 1-dimensional inputs, got shapes {x.shape} and {y.shape}")
    preferred = _jd.canonical_or_none(preferred_element_type, fname)
    if preferred is None:
        x, y = _args.promote(fname, x, y, to_inexact=True)
    else:
        x, y = _args.cast(x, preferred), _args.cast(y, preferred)
    if x.shape[0] == 0 or y.shape[0] == 0:
        raise ValueError(f"{fname}: inputs cannot be empty, got shapes {x.shape} and {y.shape}")
    reverse = False
    if fname == "correlate":
        y = _ew.conj(y)
        if x.shape[0] < y.shape[0]:
            x, y, reverse = y, x, True
    else:
        if x.shape[0] < y.shape[0]:
            x, y = y, x
        y = _manip.flip(y, axis=0)
    m = y.shape[0]
    if mode == "valid":
        before, after = 0, 0
    elif mode == "same":
        before, after = m // 2, m - m // 2 - 1
    elif mode == "full":
        before, after = m - 1, m - 1
    else:
        raise ValueError(f"{fname}: mode must be one of 'full', 'same', 'valid', got {mode!r}")
    padded = _manip.concat([_cr.zeros((before,), dtype=x._dtype), x, _cr.zeros((after,), dtype=x._dtype)])
    length = padded.shape[0] - m + 1
    # Every window of the padded signal (rows), gathered by index, times the kernel: out[i] = sum_j x[i + j] y[j].
    windows = _ix.take(padded, _cr.asarray((np.arange(length)[:, None] + np.arange(m)).reshape(-1)), axis=0)
    out = _la.matmul(_manip.reshape(windows, (length, m)), y)
    return _manip.flip(out, axis=0) if reverse else out


def convolve(a: Any, v: Any, mode: str = "full", *, precision: Any = None, preferred_element_type: Any = None) -> Array:
    """The discrete convolution of two 1-D arrays: "full" (every overlap), "same" (the length of the longer,
    centred) or "valid" (full overlaps only). Integers are computed in floating point unless
    `preferred_element_type` says otherwise.

    >>> import stridex.numpy as jnp
    >>> jnp.convolve(jnp.asarray([1.0, 2.0, 3.0]), jnp.asarray([0.0, 1.0, 0.5]))
    Array([0. , 1. , 2.5, 4. , 1.5])
    """
    return _conv("convolve", a, v, mode, preferred_element_type)


def correlate(a: Any, v: Any, mode: str = "valid", *, precision: Any = None,
              preferred_element_type: Any = None) -> Array:
    """The cross-correlation of two 1-D arrays: sum_n a[n + k] * conj(v[n]) (modes as in `convolve`).

    >>> import stridex.numpy as jnp
    >>> jnp.correlate(jnp.asarray([1.0, 2.0, 3.0]), jnp.asarray([0.0, 1.0, 0.5]), mode="full")
    Array([0.5, 2. , 3.5, 3. , 0. ])
    """
    return _conv("correlate", a, v, mode, preferred_element_type)


# --- interpolation, differences, integrals ----------------------------------------------------------------


def interp(x: Any, xp: Any, fp: Any, left: Any = None, right: Any = None, period: Any = None) -> Array:
    """Piecewise-linear interpolation of the points (xp, fp) (xp increasing) at x; `left`/`right` (default
    fp[0]/fp[-1]) outside; with `period`, x and xp are taken modulo the period.

    >>> import stridex.numpy as jnp
    >>> jnp.interp(jnp.asarray([-1.0, 0.5, 1.5, 9.0]), jnp.asarray([0.0, 1.0, 2.0]), jnp.asarray([0.0, 10.0, 30.0]))
    Array([ 0.,  5., 20., 30.])
    """
    x = _args.array(x, "interp", 0)
    xp = _args.array(xp, "interp", 1)
    fp = _args.array(fp, "interp", 2)
    if xp.ndim != 1 or fp.ndim != 1:
        raise ValueError(f"interp: xp and fp must be one-dimensional, got shapes {xp.shape} and {fp.shape}")
    if xp.shape[0] != fp.shape[0]:
        raise ValueError(f"interp: xp and fp must have the same length, got {xp.shape[0]} and {fp.shape[0]}")
    if xp.shape[0] == 0:
        raise ValueError("interp: xp and fp cannot be empty")
    dtype = _jd.TO_INEXACT[_args.promoted_dtype("interp", x, xp, fp)]
    real = _d.real_of(dtype)
    x, xp, fp = _args.cast(x, real), _args.cast(xp, real), _args.cast(fp, dtype)
    if period is not None:
        if left is not None or right is not None:
            raise ValueError("interp: left and right are not used with period")
        period = _ew.abs(_args.cast(_args.operand(period, "interp"), real))
        x = _ew.remainder(x, period)
        xp = _ew.remainder(xp, period)
        order = _sort.argsort(xp)
        xp, fp = _ix.take(xp, order), _ix.take(fp, order)
        xp = _manip.concat([_ew.subtract(xp[-1:], period), xp, _ew.add(xp[0:1], period)])
        fp = _manip.concat([fp[-1:], fp, fp[0:1]])
    n = xp.shape[0]
    i = _ew.minimum(_ew.maximum(_search.searchsorted(xp, x, side="right"), 1), builtins.max(n - 1, 1))
    if n == 1:
        f = _manip.broadcast_to(fp[0], x.shape)
    else:
        lo, hi = _ew.subtract(i, 1), i
        x_lo, x_hi = _ix.take(xp, _manip.reshape(lo, (-1,))), _ix.take(xp, _manip.reshape(hi, (-1,)))
        f_lo, f_hi = _ix.take(fp, _manip.reshape(lo, (-1,))), _ix.take(fp, _manip.reshape(hi, (-1,)))
        x_lo, x_hi, f_lo, f_hi = (_manip.reshape(v, x.shape) for v in (x_lo, x_hi, f_lo, f_hi))
        dx = _ew.subtract(x_hi, x_lo)
        flat = _ew.less_equal(_ew.abs(dx), float(np.finfo(real.np).eps))
        slope = _ew.divide(_ew.subtract(f_hi, f_lo), _search.where(flat, 1.0, dx))
        f = _search.where(flat, f_lo, _ew.add(f_lo, _ew.multiply(_ew.subtract(x, x_lo), slope)))
    if period is None:
        low = fp[0] if left is None else _args.cast(_args.operand(left, "interp"), dtype)
        high = fp[-1] if right is None else _args.cast(_args.operand(right, "interp"), dtype)
        f = _search.where(_ew.less(x, xp[0]), low, f)
        f = _search.where(_ew.greater(x, xp[-1]), high, f)
    return f


def diff(a: Any, n: int = 1, axis: int = -1, prepend: Any = None, append: Any = None) -> Array:
    """The n-th discrete difference along `axis`, after joining `prepend` and `append` (scalars are broadcast to
    one slice).

    >>> import stridex.numpy as jnp
    >>> jnp.diff(jnp.asarray([1, 4, 9, 16])), jnp.diff(jnp.asarray([1, 4, 9]), n=2), jnp.diff(jnp.asarray([1, 2]), prepend=0)
    (Array([3, 5, 7]), Array([2]), Array([1, 1]))
    """
    a = _args.array(a, "diff")
    n = _args.index(n, "diff", "n")
    if n < 0:
        raise ValueError(f"diff: order must be non-negative, got {n}")
    if a.ndim == 0:
        raise ValueError("diff requires an input of at least one dimension")
    axis = _args.axis(axis, a.ndim, "diff")
    pieces: list[Array | None] = []
    for extra in (prepend, append):
        if extra is None:
            pieces.append(None)
            continue
        e = _args.array(extra, "diff")
        if e.ndim == 0:
            e = _manip.broadcast_to(e, a.shape[:axis] + (1,) + a.shape[axis + 1:])
        pieces.append(e)
    if pieces[0] is not None or pieces[1] is not None:
        dtype = _args.promoted_dtype("diff", a, *(p for p in pieces if p is not None))
        joined = [_args.cast(p, dtype) for p in (pieces[0], a, pieces[1]) if p is not None]
        a = _manip.concat(joined, axis=axis)
    if n == 0:
        return a
    if a._dtype is _d.bool:
        out = a
        for _ in range(n):
            lead = (slice(None),) * axis
            out = _ew.not_equal(out[lead + (slice(1, None),)], out[lead + (slice(None, -1),)])
        return out
    return _util.diff(a, axis=axis, n=n)


def ediff1d(ary: Any, to_end: Any = None, to_begin: Any = None) -> Array:
    """The differences of the flattened array, with `to_begin` before and `to_end` after.

    >>> import stridex.numpy as jnp
    >>> jnp.ediff1d(jnp.asarray([1, 2, 4, 7]), to_begin=jnp.asarray([-9]), to_end=99)
    Array([-9,  1,  2,  3, 99])
    """
    a = _manip.reshape(_args.array(ary, "ediff1d"), (-1,))
    out = _ew.subtract(a[1:], a[:-1]) if a.shape[0] else a
    parts = [out]
    if to_begin is not None:
        parts.insert(0, _manip.reshape(_args.cast(_args.array(to_begin, "ediff1d"), out._dtype), (-1,)))
    if to_end is not None:
        parts.append(_manip.reshape(_args.cast(_args.array(to_end, "ediff1d"), out._dtype), (-1,)))
    return _manip.concat(parts) if len(parts) > 1 else out


def gradient(f: Any, *varargs: Any, axis: Any = None, edge_order: int | None = None) -> Any:
    """The gradient of sampled values: second-order central differences inside, one-sided differences at the
    ends, along each axis; `varargs` give the spacing (scalars, or 1-D coordinates) per axis. One array per
    axis (a list), or one array for one axis.

    >>> import stridex.numpy as jnp
    >>> jnp.gradient(jnp.asarray([1.0, 2.0, 4.0, 7.0])), jnp.gradient(jnp.asarray([1.0, 2.0, 4.0]), 2.0)
    (Array([1. , 1.5, 2.5, 3. ]), Array([0.5 , 0.75, 1.  ]))
    """
    if edge_order is not None and edge_order != 1:
        raise NotImplementedError("gradient: only edge_order=1 is supported, as in jax.numpy")
    a = _args.inexact(f, "gradient")
    axes = _args.axes(axis, a.ndim, "gradient") if axis is not None else tuple(range(a.ndim))
    if not axes:
        return []
    if builtins.min(a.shape[ax] for ax in axes) < 2:
        raise ValueError(f"gradient: the array (shape {a.shape}) is too small: at least 2 elements are needed along "
                         "each axis")
    if len(varargs) == 0:
        spacings: list = [1.0] * len(axes)
    elif len(varargs) == 1:
        spacings = list(varargs) * len(axes)
    elif len(varargs) == len(axes):
        spacings = list(varargs)
    else:
        raise TypeError(f"gradient: invalid number of spacing arguments {len(varargs)} for {len(axes)} axes")
    out = [_gradient_along(a, _args.operand(h, "gradient"), ax) for ax, h in zip(axes, spacings)]
    return out[0] if len(out) == 1 else out


def _gradient_along(a: Array, h, axis: int) -> Array:
    lead = (slice(None),) * axis

    def part(start, stop, x=a):
        return x[lead + (slice(start, stop),)]

    first = _ew.subtract(part(1, 2), part(0, 1))
    last = _ew.subtract(part(-1, None), part(-2, -1))
    if not isinstance(h, Array) or h.ndim == 0:
        inner = _ew.divide(_ew.multiply(_ew.subtract(part(2, None), part(None, -2)), 0.5), h)
        first, last = _ew.divide(first, h), _ew.divide(last, h)
    elif h.ndim == 1:
        if h.shape[0] != a.shape[axis]:
            raise ValueError(f"gradient: a spacing array must have the axis' length {a.shape[axis]}, got "
                             f"{h.shape[0]}")
        shape = [1] * a.ndim
        shape[axis] = h.shape[0]
        x = _manip.reshape(_args.cast(h, a._dtype), tuple(shape))
        first = _ew.divide(first, _ew.subtract(part(1, 2, x), part(0, 1, x)))
        last = _ew.divide(last, _ew.subtract(part(-1, None, x), part(-2, -1, x)))
        dx1 = _ew.subtract(part(1, -1, x), part(0, -2, x))
        dx2 = _ew.subtract(part(2, None, x), part(1, -1, x))
        total = _ew.add(dx1, dx2)
        wa = _ew.negative(_ew.divide(dx2, _ew.multiply(dx1, total)))
        wb = _ew.divide(_ew.subtract(dx2, dx1), _ew.multiply(dx1, dx2))
        wc = _ew.divide(dx1, _ew.multiply(dx2, total))
        inner = _ew.add(_ew.add(_ew.multiply(wa, part(0, -2)), _ew.multiply(wb, part(1, -1))),
                        _ew.multiply(wc, part(2, None)))
    else:
        raise ValueError("gradient: spacing arrays must be 1-D arrays or scalars")
    return _manip.concat([first, inner, last], axis=axis)


def trapezoid(y: Any, x: Any = None, dx: Any = 1.0, axis: int = -1) -> Array:
    """The integral of sampled values by the trapezoidal rule along `axis` (sample points `x`, or spacing `dx`).

    >>> import stridex.numpy as jnp
    >>> jnp.trapezoid(jnp.asarray([1.0, 2.0, 3.0])), jnp.trapezoid(jnp.asarray([1.0, 2.0, 3.0]), x=jnp.asarray([0.0, 1.0, 3.0]))
    (Array(4.), Array(6.5))
    """
    y = _args.inexact(y, "trapezoid")
    axis = _args.axis(axis, y.ndim, "trapezoid")
    lead = (slice(None),) * axis
    if x is None:
        step = _args.operand(dx, "trapezoid")
    else:
        x = _args.array(x, "trapezoid", 1)
        if x.ndim == 1:
            step = _ew.subtract(x[1:], x[:-1])
            shape = [1] * y.ndim
            shape[axis] = step.shape[0]
            step = _manip.reshape(step, tuple(shape))
        else:
            x = _manip.broadcast_to(x, y.shape)
            step = _ew.subtract(x[lead + (slice(1, None),)], x[lead + (slice(None, -1),)])
    heights = _ew.add(y[lead + (slice(1, None),)], y[lead + (slice(None, -1),)])
    return _stat.sum(_ew.multiply(_ew.multiply(heights, step), 0.5), axis=axis)


def unwrap(p: Any, discont: Any = None, axis: int = -1, period: Any = 2 * math.pi) -> Array:
    """Phases with the jumps larger than `discont` (default period / 2) removed by adding multiples of `period`.

    >>> import stridex.numpy as jnp
    >>> jnp.unwrap(jnp.asarray([0.0, 3.0, -3.0, -0.5]))
    Array([0.        , 3.        , 3.28318531, 5.78318531])
    """
    p = _args.inexact(p, "unwrap")
    if p.ndim == 0:
        raise ValueError("unwrap requires an input of at least one dimension")
    axis = _args.axis(axis, p.ndim, "unwrap")
    period = _args.operand(period, "unwrap")
    half = _ew.divide(period, 2) if isinstance(period, Array) else period / 2
    discont = half if discont is None else _args.operand(discont, "unwrap")
    lead = (slice(None),) * axis
    dd = _util.diff(p, axis=axis)
    dd_mod = _ew.subtract(_ew.remainder(_ew.add(dd, half), period), half)
    at_half = _ew.logical_and(_ew.equal(dd_mod, _ew.negative(half) if isinstance(half, Array) else -half),
                              _ew.greater(dd, 0))
    dd_mod = _search.where(at_half, half, dd_mod)
    correction = _search.where(_ew.less(_ew.abs(dd), discont), 0.0, _ew.subtract(dd_mod, dd))
    rest = _ew.add(p[lead + (slice(1, None),)], _stat.cumulative_sum(correction, axis=axis))
    return _manip.concat([p[lead + (slice(0, 1),)], rest], axis=axis)


# --- windows and i0 ---------------------------------------------------------------------------------------


def _window(fname: str, M: int, a0: float, a1: float, a2: float = 0.0) -> Array:  # noqa: N803
    M = _args.index(M, fname, "M")
    if M < 1:
        return _cr.zeros((0,), dtype=_d.float64)
    if M == 1:
        return _cr.ones((1,), dtype=_d.float64)
    n = _ew.divide(_cr.arange(1 - M, M, 2, dtype=_d.float64), float(M - 1))
    out = _ew.add(a0, _ew.multiply(a1, _tr.cos(_ew.multiply(n, math.pi))))
    return _ew.add(out, _ew.multiply(a2, _tr.cos(_ew.multiply(n, 2 * math.pi)))) if a2 else out


def bartlett(M: int) -> Array:  # noqa: N803  (jax.numpy's name)
    """The Bartlett (triangular) window of M points.

    >>> import stridex.numpy as jnp
    >>> jnp.bartlett(5)
    Array([0. , 0.5, 1. , 0.5, 0. ])
    """
    M = _args.index(M, "bartlett", "M")
    if M < 1:
        return _cr.zeros((0,), dtype=_d.float64)
    if M == 1:
        return _cr.ones((1,), dtype=_d.float64)
    n = _cr.arange(1 - M, M, 2, dtype=_d.float64)
    return _ew.subtract(1.0, _ew.divide(_ew.abs(n), float(M - 1)))


def blackman(M: int) -> Array:  # noqa: N803
    """The Blackman window of M points.

    >>> import stridex.numpy as jnp
    >>> jnp.round(jnp.blackman(3), 6)
    Array([-0.,  1., -0.])
    """
    return _window("blackman", M, 0.42, 0.5, 0.08)


def hamming(M: int) -> Array:  # noqa: N803
    """The Hamming window of M points.

    >>> import stridex.numpy as jnp
    >>> jnp.hamming(3)
    Array([0.08, 1.  , 0.08])
    """
    return _window("hamming", M, 0.54, 0.46)


def hanning(M: int) -> Array:  # noqa: N803
    """The Hann window of M points.

    >>> import stridex.numpy as jnp
    >>> jnp.hanning(3)
    Array([0., 1., 0.])
    """
    return _window("hanning", M, 0.5, 0.5)


# Chebyshev coefficients of exp(-x) I0(x) on [0, 8] and of exp(-x) sqrt(x) I0(x) on [8, inf) (Cephes' tables, the
# ones NumPy's and JAX's i0 use).
_I0_SMALL = (
    -4.41534164647933937950e-18, 3.33079451882223809783e-17, -2.43127984654795469359e-16, 1.71539128555513303061e-15,
    -1.16853328779934516808e-14, 7.67618549860493561688e-14, -4.85644678311192946090e-13, 2.95505266312963983461e-12,
    -1.72682629144155570723e-11, 9.67580903537323691224e-11, -5.18979560163526290666e-10, 2.65982372468238665035e-9,
    -1.30002500998624804212e-8, 6.04699502254191894932e-8, -2.67079385394061173391e-7, 1.11738753912010371815e-6,
    -4.41673835845875056359e-6, 1.64484480707288970893e-5, -5.75419501008210370398e-5, 1.88502885095841655729e-4,
    -5.76375574538582365885e-4, 1.63947561694133579842e-3, -4.32430999505057594430e-3, 1.05464603945949983183e-2,
    -2.37374148058994688156e-2, 4.93052842396707084878e-2, -9.49010970480476444210e-2, 1.71620901522208775349e-1,
    -3.04682672343198398683e-1, 6.76795274409476084995e-1)
_I0_LARGE = (
    -7.23318048787475395456e-18, -4.83050448594418207126e-18, 4.46562142029675999901e-17, 3.46122286769746109310e-17,
    -2.82762398051658348494e-16, -3.42548561967721913462e-16, 1.77256013305652638360e-15, 3.81168066935262242075e-15,
    -9.55484669882830764870e-15, -4.15056934728722208663e-14, 1.54008621752140982691e-14, 3.85277838274214270114e-13,
    7.18012445138366623367e-13, -1.79417853150680611778e-12, -1.32158118404477131188e-11, -3.14991652796324136454e-11,
    1.18891471078464383424e-11, 4.94060238822496958910e-10, 3.39623202570838634515e-9, 2.26666899049817806459e-8,
    2.04891858946906374183e-7, 2.89137052083475648297e-6, 6.88975834691682398426e-5, 3.36911647825569408990e-3,
    8.04490411014108831608e-1)


def _chebyshev(x: Array, coefficients: tuple) -> Array:
    """The Chebyshev series sum c_k T_k(x/2) (Clenshaw's recurrence, in Cephes' convention)."""
    b0 = _cr.full_like(x, coefficients[0])
    b1 = _cr.zeros_like(x)
    b2 = b1
    for c in coefficients[1:]:
        b2, b1 = b1, b0
        b0 = _ew.add(_ew.subtract(_ew.multiply(x, b1), b2), c)
    return _ew.multiply(_ew.subtract(b0, b2), 0.5)


def i0(x: Any) -> Array:
    """The modified Bessel function of the first kind, order 0 (real inputs).

    >>> import stridex.numpy as jnp
    >>> jnp.i0(jnp.asarray([0.0, 1.0, 3.0]))
    Array([1.        , 1.26606588, 4.88079259])
    """
    x = _args.inexact(x, "i0")
    if x._dtype.kind == "complex floating":
        raise TypeError(f"i0 does not support complex-valued inputs, got {x._dtype.name}")
    ax = _ew.abs(x)
    small = _ew.multiply(_tr.exp(ax), _chebyshev(_ew.subtract(_ew.divide(ax, 2.0), 2.0), _I0_SMALL))
    safe = _ew.maximum(ax, 8.0)  # (the large branch away from 0, so that its derivative is finite everywhere)
    large = _ew.divide(_ew.multiply(_tr.exp(safe), _chebyshev(_ew.subtract(_ew.divide(32.0, safe), 2.0), _I0_LARGE)),
                       _tr.sqrt(safe))
    return _search.where(_ew.less_equal(ax, 8.0), small, large)


def kaiser(M: int, beta: Any) -> Array:  # noqa: N803
    """The Kaiser window of M points with shape parameter `beta`.

    >>> import stridex.numpy as jnp
    >>> jnp.kaiser(3, 5.0)
    Array([0.03671089, 1.        , 0.03671089])
    """
    M = _args.index(M, "kaiser", "M")
    if M < 1:
        return _cr.zeros((0,), dtype=_d.float64)
    if M == 1:
        return _cr.ones((1,), dtype=_d.float64)
    beta = _args.cast(_args.operand(beta, "kaiser"), _d.float64)
    alpha = (M - 1) / 2.0
    n = _ew.divide(_ew.subtract(_cr.arange(M, dtype=_d.float64), alpha), alpha)
    return _ew.divide(i0(_ew.multiply(beta, _tr.sqrt(_ew.subtract(1.0, _ew.square(n))))), i0(beta))
