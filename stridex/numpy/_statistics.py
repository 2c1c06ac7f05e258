"""Order statistics and histograms with jax.numpy's names: `quantile`/`percentile`/`median` and their
NaN-ignoring versions (jax.numpy's five interpolation methods), `cov`, `corrcoef`, `histogram` and its relatives,
`bincount` and `digitize`. Every result has a static shape (bins and lengths are arguments), so each composes
under `jit`, `grad` and `vmap`; `bincount` without `length` reads max(x) on the host (a graph break)."""

from __future__ import annotations

import builtins
import math
from typing import Any, Literal

import numpy as np

from stridex import linalg as _linalg
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
from stridex._lax import ops
from stridex.numpy import _args
from stridex.numpy import _dtypes as _jd
from stridex.numpy._creation import _linspace

__all__ = [
    "bincount", "corrcoef", "cov", "digitize", "histogram", "histogram2d", "histogram_bin_edges", "histogramdd",
    "median", "nanmedian", "nanpercentile", "nanquantile", "percentile", "quantile",
]

_METHODS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(fname: str, a, q, axis, out, overwrite_input, method, keepdims, ignore_nan: builtins.bool,
              weights=None) -> Array:
    _args.no_out(out, fname)
    if weights is not None:
        raise NotImplementedError(f"{fname}: weights are not supported by stridex.numpy")
    if method not in _METHODS:
        raise ValueError(f"{fname}: method must be one of {_METHODS}, got {method!r}")
    a = _args.array(a, fname)
    if a._dtype.kind == "complex floating":
        raise ValueError(f"{fname} does not support complex input, got {a._dtype.name}")
    q_value = _args.operand(q, fname, 1)
    compute = _jd.TO_INEXACT[a._dtype]  # (jax.numpy's: q is taken in a's inexact dtype)
    a = _args.cast(a, compute)
    q = _args.cast(q_value, compute)
    if q.ndim > 1:
        raise ValueError(f"{fname}: q must have rank <= 1, got shape {q.shape}")
    if not isinstance(q_value, Array) or q_value is q:  # (a value given on the host: checked there)
        host_q = np.asarray(q_value) if not isinstance(q_value, Array) else None
        if host_q is not None and (np.any(host_q < 0) or np.any(host_q > 1)):
            raise ValueError(f"{fname}: quantiles must be in the range [0, 1], got {q_value!r}")
    axes = _args.axes(axis, a.ndim, fname)
    kept = tuple(i for i in range(a.ndim) if i not in axes)
    moved = _manip.permute_dims(a, kept + axes)
    lead_shape = tuple(a.shape[i] for i in kept)
    n = int(np.prod([a.shape[i] for i in axes])) if axes else 1
    flat = _manip.reshape(moved, lead_shape + (n,))
    ordered = _sort.sort(flat, axis=-1)  # NaN sorts last
    nan = _ew.isnan(flat)
    if ignore_nan:
        count = _stat.sum(_args.cast(_ew.logical_not(nan), compute), axis=-1, keepdims=True)
    else:
        count = _cr.full((), float(n), dtype=compute)
    # positions q * (count - 1), one per (q, lane): q's axis first.
    qs = _manip.reshape(q, q.shape + (1,) * (len(lead_shape) + 1))
    position = _ew.multiply(qs, _ew.subtract(count, 1.0))
    low, high = _ew.floor(position), _ew.ceil(position)
    high_weight = _ew.subtract(position, low)
    low_weight = _ew.subtract(1.0, high_weight)
    top = _ew.maximum(_ew.subtract(count, 1.0), 0.0)
    low = _args.cast(_ew.minimum(_ew.maximum(low, 0.0), top), _d.int64)
    high = _args.cast(_ew.minimum(_ew.maximum(high, 0.0), top), _d.int64)
    target = q.shape + lead_shape + (1,)
    source = _manip.broadcast_to(ordered, q.shape + ordered.shape)
    low_value = _ix.take_along_axis(source, _manip.broadcast_to(low, target), axis=-1)
    high_value = _ix.take_along_axis(source, _manip.broadcast_to(high, target), axis=-1)
    if method == "linear":
        result = _ew.add(_ew.multiply(low_value, low_weight), _ew.multiply(high_value, high_weight))
    elif method == "lower":
        result = low_value
    elif method == "higher":
        result = high_value
    elif method == "nearest":
        result = _search.where(_ew.less_equal(high_weight, 0.5), low_value, high_value)
    else:
        result = _ew.multiply(_ew.add(low_value, high_value), 0.5)
    result = _manip.squeeze(result, -1)
    if ignore_nan:
        none_left = _ew.equal(_manip.squeeze(count, -1), 0.0)
        result = _search.where(none_left, math.nan, result)
    elif n:
        result = _search.where(_util.any(nan, axis=-1), math.nan, result)
    if keepdims:
        shape = q.shape + tuple(1 if i in axes else a.shape[i] for i in range(a.ndim))
        result = _manip.reshape(result, shape)
    return result


def quantile(a: Any, q: Any, axis: Any = None, out: None = None, overwrite_input: builtins.bool = False,
             method: str = "linear", keepdims: builtins.bool = False, *, weights: Any = None) -> Array:
    """The q-th quantiles (q in [0, 1], a scalar or 1-D) over `axis`; NaN where a slice holds NaN. `method`:
    "linear" (interpolate), "lower", "higher", "midpoint" or "nearest". A 1-D q adds a leading axis.

    >>> import stridex.numpy as jnp
    >>> x = jnp.asarray([[1.0, 2.0, 3.0, 4.0], [10.0, 20.0, 30.0, 40.0]])
    >>> jnp.quantile(x, 0.5, axis=1), jnp.quantile(x, jnp.asarray([0.0, 1.0]), axis=1)
    (Array([ 2.5, 25. ]), Array([[ 1., 10.],
           [ 4., 40.]]))
    """
    return _quantile("quantile", a, q, axis, out, overwrite_input, method, keepdims, False, weights)


def nanquantile(a: Any, q: Any, axis: Any = None, out: None = None, overwrite_input: builtins.bool = False,
                method: str = "linear", keepdims: builtins.bool = False, *, weights: Any = None) -> Array:
    """The q-th quantiles over `axis` of the elements that are not NaN (NaN where all are).

    >>> import stridex.numpy as jnp
    >>> jnp.nanquantile(jnp.asarray([1.0, jnp.nan, 3.0]), 0.5)
    Array(2.)
    """
    return _quantile("nanquantile", a, q, axis, out, overwrite_input, method, keepdims, True, weights)


def _as_fraction(q, fname: str):
    q = _args.operand(q, fname, 1)
    return _ew.divide(q, 100.0) if isinstance(q, Array) else (np.asarray(q) / 100.0).tolist()


def percentile(a: Any, q: Any, axis: Any = None, out: None = None, overwrite_input: builtins.bool = False,
               method: str = "linear", keepdims: builtins.bool = False, *, weights: Any = None) -> Array:
    """The q-th percentiles (q in [0, 100]) over `axis`: `quantile(a, q / 100)`.

    >>> import stridex.numpy as jnp
    >>> jnp.percentile(jnp.asarray([1.0, 2.0, 3.0, 4.0, 5.0]), 25)
    Array(2.)
    """
    return _quantile("percentile", a, _as_fraction(q, "percentile"), axis, out, overwrite_input, method, keepdims,
                     False, weights)


def nanpercentile(a: Any, q: Any, axis: Any = None, out: None = None, overwrite_input: builtins.bool = False,
                  method: str = "linear", keepdims: builtins.bool = False, *, weights: Any = None) -> Array:
    """The q-th percentiles over `axis` of the elements that are not NaN.

    >>> import stridex.numpy as jnp
    >>> jnp.nanpercentile(jnp.asarray([1.0, jnp.nan, 3.0]), 50)
    Array(2.)
    """
    return _quantile("nanpercentile", a, _as_fraction(q, "nanpercentile"), axis, out, overwrite_input, method,
                     keepdims, True, weights)


def median(a: Any, axis: Any = None, out: None = None, overwrite_input: builtins.bool = False,
           keepdims: builtins.bool = False) -> Array:
    """The median over `axis` (the mean of the two middle values of an even count).

    >>> import stridex.numpy as jnp
    >>> jnp.median(jnp.asarray([[1, 3, 2], [4, 6, 5]]), axis=1), jnp.median(jnp.asarray([1.0, 4.0, 2.0, 3.0]))
    (Array([2., 5.]), Array(2.5))
    """
    return _quantile("median", a, 0.5, axis, out, overwrite_input, "midpoint", keepdims, False)


def nanmedian(a: Any, axis: Any = None, out: None = None, overwrite_input: builtins.bool = False,
              keepdims: builtins.bool = False) -> Array:
    """The median over `axis` of the elements that are not NaN.

    >>> import stridex.numpy as jnp
    >>> jnp.nanmedian(jnp.asarray([1.0, jnp.nan, 4.0, 2.0]))
    Array(2.)
    """
    return _quantile("nanmedian", a, 0.5, axis, out, overwrite_input, "midpoint", keepdims, True)


# --- covariance -------------------------------------------------------------------------------------------


def cov(m: Any, y: Any = None, rowvar: builtins.bool = True, bias: builtins.bool = False, ddof: int | None = None,
        fweights: Any = None, aweights: Any = None, dtype: Any = None) -> Array:
    """The covariance matrix of the variables in the rows of `m` (columns with `rowvar=False`), `y` adding
    more; normalised by N - 1 (N with `bias`, or N - ddof), with frequency and observation weights.

    >>> import stridex.numpy as jnp
    >>> jnp.cov(jnp.asarray([[0.0, 1.0, 2.0], [2.0, 1.0, 0.0]]))
    Array([[ 1., -1.],
           [-1.,  1.]])
    """
    m = _args.array(m, "cov")
    if m.ndim > 2:
        raise ValueError(f"cov: m has more than 2 dimensions (shape {m.shape})")
    x = _manip.reshape(m, (1, -1)) if m.ndim < 2 else m
    if not rowvar and x.shape[0] != 1:
        x = _manip.permute_dims(x, (1, 0))
    if y is not None:
        y = _args.array(y, "cov", 1)
        if y.ndim > 2:
            raise ValueError(f"cov: y has more than 2 dimensions (shape {y.shape})")
        y = _manip.reshape(y, (1, -1)) if y.ndim < 2 else y
        if not rowvar and y.shape[0] != 1:
            y = _manip.permute_dims(y, (1, 0))
        x, y = _args.promote("cov", x, y)
        x = _manip.concat([x, y], axis=0)
    compute = _jd.canonical_or_none(dtype, "cov") or _jd.TO_INEXACT[x._dtype]
    x = _args.cast(x, _jd.TO_INEXACT[compute])
    if ddof is None:
        ddof = 0 if bias else 1
    n = x.shape[1]
    weights = None
    if fweights is not None:
        weights = _args.cast(_args.array(fweights, "cov"), x._dtype)
    if aweights is not None:
        aw = _args.cast(_args.array(aweights, "cov"), x._dtype)
        weights = aw if weights is None else _ew.multiply(weights, aw)
    factor: Array
    if weights is None:
        average = _stat.mean(x, axis=1, keepdims=True)
        factor = _cr.asarray(float(n - ddof), dtype=_d.real_of(x._dtype))
    else:
        total = _stat.sum(weights)
        average = _ew.divide(_stat.sum(_ew.multiply(x, weights), axis=1, keepdims=True), total)
        if ddof == 0:
            factor = total
        elif aweights is None:
            factor = _ew.subtract(total, float(ddof))
        else:
            aw = _args.cast(_args.array(aweights, "cov"), x._dtype)
            factor = _ew.subtract(total, _ew.divide(_ew.multiply(float(ddof), _stat.sum(_ew.multiply(weights, aw))),
                                                    total))
    centered = _ew.subtract(x, average)
    weighted = centered if weights is None else _ew.multiply(centered, weights)
    product = _la.matmul(weighted, _ew.conj(_manip.permute_dims(centered, (1, 0))))
    out = _ew.divide(product, _ew.maximum(_ew.real(factor), 0.0))
    return _manip.squeeze(out, (0, 1)) if out.shape == (1, 1) else out


def corrcoef(x: Any, y: Any = None, rowvar: builtins.bool = True, dtype: Any = None) -> Array:
    """The Pearson correlation coefficients of the variables (rows, or columns with `rowvar=False`), clipped to
    [-1, 1] (the real and imaginary parts for complex input).

    >>> import stridex.numpy as jnp
    >>> jnp.corrcoef(jnp.asarray([[0.0, 1.0, 2.0], [2.0, 1.0, 0.5]]))
    Array([[ 1.        , -0.98198051],
           [-0.98198051,  1.        ]])
    """
    c = cov(x, y, rowvar, dtype=dtype)
    if c.ndim == 0:
        return _ew.divide(c, c)
    stddev = _tr.sqrt(_ew.real(_linalg.diagonal(c)))
    c = _ew.divide(_ew.divide(c, _manip.reshape(stddev, (-1, 1))), _manip.reshape(stddev, (1, -1)))
    if c._dtype.kind == "complex floating":
        return _ew.add(_ew.clip(_ew.real(c), -1.0, 1.0), _ew.multiply(_ew.clip(_ew.imag(c), -1.0, 1.0), 1j))
    return _ew.clip(c, -1.0, 1.0)


# --- histograms and counts --------------------------------------------------------------------------------


def histogram_bin_edges(a: Any, bins: Any = 10, range: Any = None, weights: Any = None) -> Array:  # noqa: A002
    """The edges of `bins` equal bins over `range` (default: the data's min and max, widened by 0.5 each way
    when they are equal), or `bins` itself when it is a sequence of edges.

    >>> import stridex.numpy as jnp
    >>> jnp.histogram_bin_edges(jnp.asarray([0.0, 1.0, 4.0]), bins=4)
    Array([0., 1., 2., 3., 4.])
    """
    if isinstance(bins, str):
        raise NotImplementedError("histogram_bin_edges: string values for bins are not implemented")
    a = _args.array(a, "histogram_bin_edges")
    dtype = _jd.TO_INEXACT[a._dtype]
    if isinstance(bins, (list, tuple, Array, np.ndarray)) and np.ndim(np.asarray(bins) if not isinstance(
            bins, Array) else bins) == 1:
        return _args.cast(_args.array(bins, "histogram_bin_edges", 1) if not isinstance(bins, (list, tuple)) else
                          _cr.asarray(list(bins)), dtype)
    count = _args.index(bins, "histogram_bin_edges", "bins")
    if count < 1:
        raise ValueError(f"histogram_bin_edges: bins must be positive, got {count}")
    if range is None:
        low, high = _stat.min(a), _stat.max(a)
    else:
        if len(range) != 2:
            raise ValueError(f"histogram_bin_edges: range must be None or a (min, max) pair, got {range!r}")
        low, high = (_args.cast(_args.operand(v, "histogram_bin_edges"), dtype) for v in range)
    low, high = _args.cast(low, dtype), _args.cast(high, dtype)
    same = _ew.equal(low, high)
    low = _search.where(same, _ew.subtract(low, 0.5), low)
    high = _search.where(same, _ew.add(high, 0.5), high)
    return _linspace(low, high, count + 1, True, dtype, 0)[0]


def histogram(a: Any, bins: Any = 10, range: Any = None, weights: Any = None,  # noqa: A002
              density: builtins.bool | None = None) -> tuple[Array, Array]:
    """(counts, bin edges): how many elements (or how much weight) fall in each bin; the last bin includes its
    right edge, values outside the range are left out. `density` normalises to a probability density.

    >>> import stridex.numpy as jnp
    >>> jnp.histogram(jnp.asarray([0.0, 0.5, 1.0, 3.0, 4.0]), bins=4)
    (Array([2., 1., 0., 2.]), Array([0., 1., 2., 3., 4.]))
    """
    a = _args.array(a, "histogram")
    if weights is None:
        a = _args.cast(a, _jd.TO_INEXACT[a._dtype])
        weights = _cr.ones(a.shape, dtype=a._dtype)
    else:
        weights = _args.array(weights, "histogram", 3)
        if weights.shape != a.shape:
            raise ValueError(f"histogram: weights of shape {weights.shape} should have a's shape {a.shape}")
        a, weights = _args.promote("histogram", a, weights, to_inexact=True)
    edges = histogram_bin_edges(a, bins, range)
    flat, w = _manip.reshape(a, (-1,)), _manip.reshape(weights, (-1,))
    n_edges = edges.shape[0]
    index = _search.searchsorted(edges, flat, side="right")
    index = _search.where(_ew.equal(flat, edges[-1]), n_edges - 1, index)  # the last bin includes its right edge
    # Bin i + 1 of this buffer is bin i; below the range lands in 0 and above in n_edges (both dropped).
    counts = ops.scatter_add(_cr.zeros((n_edges + 1,), dtype=w._dtype), w, (("array", 0),), index)[1:n_edges]
    if density:
        widths = _ew.subtract(edges[1:], edges[:-1])
        counts = _ew.divide(_ew.divide(counts, widths), _stat.sum(counts))
    return counts, edges


def histogramdd(sample: Any, bins: Any = 10, range: Any = None, weights: Any = None,  # noqa: A002
                density: builtins.bool | None = None) -> tuple[Array, list[Array]]:
    """The D-dimensional histogram of N points (`sample` of shape (N, D)): counts of shape (bins,) * D (integers,
    as jax.numpy's, unless weighted or a density) and the edges along each dimension.

    >>> import stridex.numpy as jnp
    >>> counts, edges = jnp.histogramdd(jnp.asarray([[0.0, 0.0], [1.0, 1.0], [1.0, 0.0]]), bins=2)
    >>> counts
    Array([[1, 0],
           [1, 1]])
    """
    sample = _args.array(sample, "histogramdd")
    if sample.ndim != 2:
        raise ValueError(f"histogramdd: sample must be 2-D (N points, D dimensions), got shape {sample.shape}")
    n, dims = sample.shape
    sample = _args.cast(sample, _jd.TO_INEXACT[sample._dtype])
    bins_per_dim = list(bins) if isinstance(bins, (list, tuple)) else [bins] * dims
    if len(bins_per_dim) != dims:
        raise ValueError(f"histogramdd: bins must give one entry per dimension ({dims}), got {bins!r}")
    ranges = list(range) if range is not None else [None] * dims
    # Counts without weights are integers (jax.numpy's), weighted or density ones of the sample's dtype.
    w = _cr.ones((n,), dtype=_d.int64 if not density else sample._dtype) if weights is None else _args.cast(
        _manip.reshape(_args.array(weights, "histogramdd"), (-1,)), sample._dtype)
    edges, indices, sizes = [], [], []
    for d in builtins.range(dims):
        column = sample[:, d]
        e = histogram_bin_edges(column, bins_per_dim[d], ranges[d])
        k = _search.searchsorted(e, column, side="right")
        k = _search.where(_ew.equal(column, e[-1]), e.shape[0] - 1, k)
        edges.append(e)
        indices.append(k)
        sizes.append(e.shape[0] + 1)
    flat_index = _cr.zeros((n,), dtype=_d.int64)
    for k, size in zip(indices, sizes):
        flat_index = _ew.add(_ew.multiply(flat_index, size), k)
    counts = ops.scatter_add(_cr.zeros((int(np.prod(sizes)),), dtype=w._dtype), w, (("array", 0),), flat_index)
    counts = _manip.reshape(counts, tuple(sizes))
    counts = counts[tuple(slice(1, s - 1) for s in sizes)]
    if density:
        volume = _cr.ones((), dtype=counts._dtype)
        for d, e in enumerate(edges):
            widths = _ew.subtract(e[1:], e[:-1])
            shape = [1] * dims
            shape[d] = widths.shape[0]
            volume = _ew.multiply(volume, _manip.reshape(widths, tuple(shape)))
        counts = _ew.divide(_ew.divide(counts, _stat.sum(counts)), volume)
    return counts, edges


def histogram2d(x: Any, y: Any, bins: Any = 10, range: Any = None, weights: Any = None,  # noqa: A002
                density: builtins.bool | None = None) -> tuple[Array, Array, Array]:
    """The 2-D histogram of points (x[i], y[i]): (counts, x edges, y edges).

    >>> import stridex.numpy as jnp
    >>> counts, xe, ye = jnp.histogram2d(jnp.asarray([0.0, 1.0, 1.0]), jnp.asarray([0.0, 1.0, 0.0]), bins=2)
    >>> counts
    Array([[1, 0],
           [1, 1]])
    """
    x, y = _args.promote("histogram2d", _args.array(x, "histogram2d", 0), _args.array(y, "histogram2d", 1))
    if isinstance(bins, (list, tuple)) and len(bins) == 2 and not isinstance(bins[0], (int, float)):
        per_dim = list(bins)
    elif isinstance(bins, (list, tuple)) and len(bins) == 2:
        per_dim = list(bins)
    else:
        per_dim = [bins, bins]
    counts, edges = histogramdd(_manip.stack([x, y], axis=1), per_dim, range, weights, density)
    return counts, edges[0], edges[1]


def bincount(x: Any, weights: Any = None, minlength: int = 0, *, length: int | None = None) -> Array:
    """How often each value 0, 1, ... occurs in the non-negative integer array `x` (or the sum of the weights
    of its occurrences), `length` entries (static: give it under `jit`), or max(x) + 1 but at least
    `minlength` (which reads max(x) on the host). Values past `length` are left out; negative ones count as 0.

    >>> import stridex.numpy as jnp
    >>> jnp.bincount(jnp.asarray([0, 1, 1, 3])), jnp.bincount(jnp.asarray([0, 1, 1]), jnp.asarray([0.5, 1.0, 2.0]), length=3)
    (Array([1, 2, 0, 1]), Array([0.5, 3. , 0. ]))
    """
    x = _args.array(x, "bincount")
    if x.ndim != 1:
        raise ValueError(f"bincount: x must be one-dimensional, got shape {x.shape}")
    if x._dtype.kind not in ("signed", "unsigned", "bool"):
        raise TypeError(f"bincount: x must be an integer array, got {x._dtype.name}")
    minlength = _args.index(minlength, "bincount", "minlength")
    if minlength < 0:
        raise ValueError(f"bincount: minlength must be non-negative, got {minlength}")
    if length is None:
        largest = int(_stat.max(x)) if x.shape[0] else -1  # (the result's length: data-dependent)
        length = builtins.max(minlength, largest + 1)
    else:
        length = _args.index(length, "bincount", "length")
    if weights is None:
        w = _cr.ones(x.shape, dtype=_d.int64)
    else:
        w = _args.array(weights, "bincount", 1)
        if w.shape != x.shape:
            raise ValueError(f"bincount: weights of shape {w.shape} must have x's shape {x.shape}")
    index = _ew.maximum(_args.cast(x, _d.int64), 0)
    index = _search.where(_ew.less(index, length), index, length)  # (past the end: the dropped slot)
    return ops.scatter_add(_cr.zeros((length + 1,), dtype=w._dtype), w, (("array", 0),), index)[:length]


def digitize(x: Any, bins: Any, right: builtins.bool = False, *, method: str | None = None) -> Array:
    """The index of the bin each value falls in, for monotonic (increasing or decreasing) `bins`: i with
    bins[i-1] <= x < bins[i] (or bins[i-1] < x <= bins[i] with `right`).

    >>> import stridex.numpy as jnp
    >>> jnp.digitize(jnp.asarray([0.5, 1.0, 2.5]), jnp.asarray([1.0, 2.0, 3.0]))
    Array([0, 1, 2])
    """
    x = _args.array(x, "digitize")
    bins = _args.array(bins, "digitize", 1)
    if bins.ndim != 1:
        raise ValueError(f"digitize: bins must be a 1-dimensional array, got shape {bins.shape}")
    if bins.shape[0] == 0:
        return _cr.zeros(x.shape, dtype=_d.int64)
    x, bins = _args.promote("digitize", x, bins)
    side: Literal["left", "right"] = "left" if right else "right"
    increasing = _search.searchsorted(bins, x, side=side)
    decreasing = _ew.subtract(bins.shape[0], _search.searchsorted(_manip.flip(bins, axis=0), x, side=side))
    return _search.where(_ew.greater_equal(bins[-1], bins[0]), increasing, decreasing)
