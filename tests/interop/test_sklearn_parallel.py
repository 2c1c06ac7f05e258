"""scikit-learn's own `test_pairwise_parallel_array_api` with `stridex.jit_mode` as the namespace, on the host
and on a JAX device.

With `n_jobs=2`, `pairwise_distances` and `pairwise_kernels` split their output into column blocks and have a
thread pool (joblib's threading backend) write each block into one shared array (`ret[:, s] = ...`). In jit
mode each such write is a jitted call that writes into its input, on a device a write donates the storage's
buffer: both must keep the other thread's block (docs/semantics.md, "Threads"). The test runs with Python
switching threads every 10 µs, so that the two workers' writes interleave.
"""

import os

import pytest

from .conftest import require_scipy_array_api

pytest.importorskip("sklearn")
require_scipy_array_api()
test_pairwise = pytest.importorskip("sklearn.metrics.tests.test_pairwise")  # (scikit-learn's tests, installed)

import stridex as sx
from tests.helpers import fast_switching
from sklearn.metrics.pairwise import pairwise_distances, pairwise_kernels

DEV = os.environ.get("STRIDEX_TEST_DEVICE", "cpu:1")

CASES = [
    pytest.param(pairwise_distances, "euclidean", {}, id="pairwise_distances-euclidean"),
    pytest.param(pairwise_kernels, "laplacian", {"gamma": 0.1}, id="pairwise_kernels-laplacian"),
]


@pytest.fixture(autouse=True)
def fine_switching():
    """Switch threads every 10 µs (Python's default is 5 ms), so that their steps interleave finely."""
    with fast_switching(1e-5):
        yield


@pytest.mark.parametrize("device", ["cpu", DEV])
@pytest.mark.parametrize(("func", "metric", "kwds"), CASES)
def test_pairwise_parallel_array_api_in_jit_mode(func, metric, kwds, device):
    # (scikit-learn makes the arrays with `xp.asarray(..., device=None)`: the default device is where they go)
    with sx.default_device(device):
        test_pairwise.test_pairwise_parallel_array_api(func, metric, kwds, "stridex.jit_mode", None, "float64")
