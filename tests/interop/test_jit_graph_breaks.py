"""Real client-library functions wrapped in `sx.jit`: scikit-learn (array_api_dispatch), SciPy (SCIPY_ARRAY_API)
and array-api-extra validate inputs, branch on values, call data-dependent functions and fall back to NumPy.
Under `jit` each such place is a graph break; the results must be eager's, and a second call with the same
inputs must trace nothing (its guards hold)."""

import numpy as np
import pytest

import stridex as sx

from .conftest import require_scipy_array_api
from .helpers import to_sx

rng = np.random.default_rng(20261126)
X = rng.normal(size=(12, 3))
Y = rng.normal(size=(5, 3))
V = rng.normal(size=20)
LABELS = rng.integers(0, 3, size=20)
PRED = np.where(rng.uniform(size=20) < 0.7, LABELS, (LABELS + 1) % 3)


def _values(obj):
    if isinstance(obj, (tuple, list)):
        return [v for item in obj for v in _values(item)]
    return [np.asarray(obj) if isinstance(obj, sx.Array) else obj]


def check_jitted(fn, *arrays, rtol=1e-9):
    """`sx.jit(fn)` against `fn` eagerly on stridex copies of `arrays`: the same values (to `rtol`: XLA and
    NumPy may differ in the last bits), and a second identical call traces nothing."""
    eager = fn(*to_sx(*arrays)) if len(arrays) > 1 else fn(to_sx(*arrays))
    jitted = sx.jit(fn)
    args = to_sx(*arrays)
    args = args if isinstance(args, tuple) else (args,)
    first = jitted(*args)
    traces = jitted.stats["traces"]
    second = jitted(*to_sx(*arrays)) if len(arrays) > 1 else jitted(to_sx(*arrays))
    assert jitted.stats["traces"] == traces, "the second call with the same inputs traced again"
    for got in (first, second):
        for g, e in zip(_values(got), _values(eager), strict=True):
            if isinstance(e, np.ndarray):
                assert g.shape == e.shape and g.dtype == e.dtype, (g, e)
                np.testing.assert_allclose(g, e, rtol=rtol, atol=1e-12)
            else:
                assert g == pytest.approx(e, rel=rtol), (g, e)
    return jitted


def test_sklearn_metrics_and_kernels_under_jit():
    sklearn = pytest.importorskip("sklearn")
    require_scipy_array_api()
    from sklearn import metrics
    from sklearn.metrics import pairwise
    from sklearn.preprocessing import MinMaxScaler

    with sklearn.config_context(array_api_dispatch=True):
        assert check_jitted(metrics.accuracy_score, LABELS, PRED).stats["breaks"]  # (validation breaks)
        check_jitted(metrics.r2_score, V, V * 0.9 + 0.1)
        check_jitted(metrics.mean_squared_error, V, V * 0.5)
        check_jitted(pairwise.rbf_kernel, X, Y)
        check_jitted(pairwise.euclidean_distances, X, Y)
        check_jitted(lambda x: MinMaxScaler().fit_transform(x), X)


def test_scipy_stats_and_special_under_jit():
    require_scipy_array_api()
    from scipy import special, stats

    assert check_jitted(stats.zscore, V).stats["breaks"]
    check_jitted(stats.skew, V)
    check_jitted(lambda v: stats.moment(v, order=3), V)
    check_jitted(special.logsumexp, V)
    # A special function SciPy computes with NumPy: np.asarray is the break.
    assert check_jitted(special.entr, np.abs(V)).stats["breaks"] == 1


def test_array_api_extra_under_jit():
    xpx = pytest.importorskip("array_api_extra")

    assert check_jitted(xpx.nunique, LABELS).stats["breaks"] == 1  # a data-dependent length
    check_jitted(lambda a, b: xpx.setdiff1d(a, b), LABELS, np.array([1]))
    check_jitted(xpx.cov, X.T)
    check_jitted(lambda x: xpx.pad(x, 2), V)
    check_jitted(lambda x: xpx.isclose(x, x + 1e-12), V)
    check_jitted(xpx.sinc, V)
