"""SciPy's public functions on stridex arrays against the same call on NumPy arrays.

SciPy runs its array-API paths only with SCIPY_ARRAY_API=1 set before its first import
(conftest.py sets it). Functions listed with ``namespace=False`` are ones SciPy 1.17 does not
convert: it computes them with NumPy and returns NumPy results for any input, so only values are
compared for them.
"""

import numpy as np
import pytest

from .conftest import require_scipy_array_api
from .helpers import assert_matches_numpy, np_copies, to_sx

pytest.importorskip("scipy")
require_scipy_array_api()

import scipy.fft as sfft
from scipy import (
    integrate,
    ndimage,
    signal,
    special,
    stats,
)
from scipy.cluster import vq
from scipy.spatial import distance

import stridex as sx

rng = np.random.default_rng(20251201)
V = rng.normal(size=17)  # 1-D sample
M = rng.normal(size=(6, 5))  # 2-D sample
P = rng.uniform(0.1, 0.9, size=7)  # probabilities
POS = np.abs(V) + 0.25  # positive sample
K = V[:5].copy()  # short kernel


def _case(name, func, *args, namespace=True, rtol=1e-7, marks=()):
    return pytest.param(func, args, namespace, rtol, id=name, marks=marks)


SPECIAL = [
    _case("erf", special.erf, V),
    _case("erfc", special.erfc, V),
    _case("erfinv", special.erfinv, P),
    _case("gammaln", special.gammaln, POS),
    _case("gamma", special.gamma, POS),
    _case("digamma", special.digamma, POS),
    _case("expit", special.expit, V),
    _case("logit", special.logit, P),
    _case("ndtr", special.ndtr, V),
    _case("ndtri", special.ndtri, P),
    _case("log_ndtr", special.log_ndtr, V),
    _case("xlogy", special.xlogy, P, P[::-1].copy()),
    _case("xlog1py", special.xlog1py, P, V[:7].copy()),
    _case("entr", special.entr, P),
    _case("rel_entr", special.rel_entr, P, P[::-1].copy()),
    _case("i0", special.i0, V),
    _case("i1e", special.i1e, V),
    _case("betainc", special.betainc, P, P[::-1].copy(), P),
    _case("gammainc", special.gammainc, P, P[::-1].copy()),
    _case("logsumexp", special.logsumexp, M),
    _case("logsumexp-axis", lambda a: special.logsumexp(a, axis=1), M),
    _case("logsumexp-b", lambda a, b: special.logsumexp(a, b=b, axis=0), M, np.abs(M)),
    _case("softmax", lambda a: special.softmax(a, axis=0), M),
    _case("log_softmax", lambda a: special.log_softmax(a, axis=1), M),
]

STATS = [
    _case("describe", lambda a: tuple(stats.describe(a))[1:], V),
    _case("zscore", stats.zscore, M),
    _case("zscore-axis", lambda a: stats.zscore(a, axis=1, ddof=1), M),
    _case("moment", lambda a: stats.moment(a, order=3), V),
    _case("skew", stats.skew, M),
    _case("kurtosis", stats.kurtosis, M),
    _case("sem", stats.sem, M),
    _case("variation", stats.variation, np.abs(M) + 0.1),
    _case("gmean", stats.gmean, np.abs(M) + 0.1),
    _case("hmean", stats.hmean, np.abs(M) + 0.1),
    _case("pmean", lambda a: stats.pmean(a, 2.0), np.abs(M) + 0.1),
    _case("tmean", lambda a: stats.tmean(a, (-1.0, 1.0)), V),
    _case("entropy", stats.entropy, P),
    _case("iqr", stats.iqr, V),
    _case("trim_mean", lambda a: stats.trim_mean(a, 0.1), V),
    _case("rankdata", stats.rankdata, np.round(V)),
    _case("quantile", lambda a: stats.quantile(a, 0.3), V),
    _case("ttest_1samp", lambda a: tuple(stats.ttest_1samp(a, 0.1)), V),
    _case("ttest_ind", lambda a, b: tuple(stats.ttest_ind(a, b)), V, V[::-1] + 0.3),
    _case("pearsonr", lambda a, b: tuple(stats.pearsonr(a, b))[:2], V, V**2),
    _case("skewtest", lambda a: tuple(stats.skewtest(a)), rng.normal(size=30)),
]

FFT = [
    _case("fft", sfft.fft, V),
    _case("ifft", sfft.ifft, V),
    _case("rfft", sfft.rfft, V),
    _case("irfft", sfft.irfft, V),
    _case("fftn", sfft.fftn, M),
    _case("rfft2", sfft.rfft2, M),
    _case("dct", sfft.dct, V),
    _case("idct", lambda a: sfft.idct(a, type=3), V),
    _case("dst", sfft.dst, V),
    _case("fftshift", sfft.fftshift, M),
]

SIGNAL = [
    _case("convolve", signal.convolve, V, K),
    _case("correlate", signal.correlate, V, K),
    _case("fftconvolve", signal.fftconvolve, V, K),
    _case("oaconvolve", signal.oaconvolve, V, K),
    _case("hilbert", signal.hilbert, V),
    _case("detrend", signal.detrend, V),
    _case("medfilt", signal.medfilt, V),
    _case("savgol_filter", lambda a: signal.savgol_filter(a, 5, 2), V),
    # welch/periodogram compute with NumPy in SciPy 1.17: NumPy results for every input
    _case("welch", lambda a: tuple(signal.welch(a, nperseg=8)), V, namespace=False),
]

OTHER = [
    _case("cluster.vq.whiten", vq.whiten, M),
    _case("cluster.vq.vq", lambda a, b: tuple(vq.vq(a, b)), M, M[:2].copy()),
    _case("integrate.trapezoid", integrate.trapezoid, V),
    _case("integrate.cumulative_trapezoid", integrate.cumulative_trapezoid, V),
    _case("ndimage.gaussian_filter", lambda a: ndimage.gaussian_filter(a, 1.0), M),
    _case("ndimage.zoom", lambda a: ndimage.zoom(a, 2), M),
    _case("spatial.distance.pdist", distance.pdist, M),
]

@pytest.mark.parametrize(("func", "args", "namespace", "rtol"), SPECIAL + STATS + FFT + SIGNAL + OTHER)
def test_scipy_function_on_stridex_matches_numpy(func, args, namespace, rtol):
    expected = func(*np_copies(args))
    result = func(*(to_sx(a) for a in args))
    assert_matches_numpy(result, expected, namespace=namespace, rtol=rtol)


def test_creation_functions_given_xp_return_stridex_arrays():
    assert_matches_numpy(sfft.fftfreq(8, d=0.5, xp=sx), sfft.fftfreq(8, d=0.5))
    assert_matches_numpy(signal.get_window("hann", 8, xp=sx), signal.get_window("hann", 8))
    assert_matches_numpy(signal.windows.kaiser(9, 4.0, xp=sx), signal.windows.kaiser(9, 4.0))


def test_float32_input_keeps_float32():
    x32 = V.astype(np.float32)
    for func in (special.erf, special.expit, stats.zscore, sfft.rfft, vq.whiten):
        arg = x32 if func is not vq.whiten else M.astype(np.float32)
        assert_matches_numpy(func(to_sx(arg)), func(arg), rtol=1e-5, atol=1e-6)


def test_strided_views_are_valid_inputs():
    # a reversed, strided stridex view and a transposed one, against the same NumPy views
    a = to_sx(M)
    assert_matches_numpy(stats.zscore(a[::-1, ::2]), stats.zscore(M[::-1, ::2]))
    assert_matches_numpy(special.logsumexp(a.T, axis=0), special.logsumexp(M.T, axis=0))
    assert_matches_numpy(sfft.fft(a[:, 1]), sfft.fft(M[:, 1]))


# stridex words an out-of-range axis as NumPy's AxisError does, which SciPy's own tests match.
@pytest.mark.parametrize("func", [stats.chatterjeexi, stats.spearmanrho], ids=["chatterjeexi", "spearmanrho"])
def test_out_of_range_axis_error_matches_scipys_expectation(func):
    x = to_sx(V[:10])
    with pytest.raises((ValueError, IndexError), match="axis 10 is out of bounds for array"):
        func(x, x * x, axis=10)
