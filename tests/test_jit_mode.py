"""`stridex.jit_mode`: the namespace with every function and operator run through `jit`, against eager stridex
in the same process (importing it changes nothing in `stridex`)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import stridex as sx
import stridex.jit_mode as xp


def _eager_and_jit(build):
    """`build(namespace)` run on both namespaces, results as NumPy."""
    return np.asarray(build(sx)), np.asarray(build(xp))


@pytest.mark.parametrize("build", [
    lambda ns: ns.asarray([1.5, -2.0, 3.0]) * 2 + 1,
    lambda ns: ns.sum(ns.reshape(ns.arange(12.0), (3, 4)), axis=0),
    lambda ns: ns.linalg.matrix_norm(ns.reshape(ns.arange(4.0), (2, 2))),
    lambda ns: ns.fft.fft(ns.asarray([1.0, 0.0, -1.0, 0.0], dtype=ns.complex128)),
    lambda ns: ns.where(ns.asarray([True, False]), 1, ns.asarray([5, 6], dtype=ns.int8)),
    lambda ns: ns.reshape(ns.arange(6), (2, 3)).mT @ ns.ones((2, 2), dtype=ns.int64),
    lambda ns: -ns.asarray([1, 2], dtype=ns.uint8),
    lambda ns: ns.arange(3000.0)[::-3] ** 2,  # past the aligned-output threshold (2048 elements)
])
def test_jit_mode_agrees_with_eager(build):
    eager, traced = _eager_and_jit(build)
    assert eager.dtype == traced.dtype and eager.shape == traced.shape
    np.testing.assert_array_equal(eager, traced)


def test_jit_mode_arrays_and_results_stay_in_jit_mode():
    x = xp.asarray([1.0, 2.0])
    assert type(x) is xp.JitModeArray and isinstance(x, sx.Array)
    for y in (x + 1, xp.sum(x), x.mT if x.ndim == 2 else x[::-1], xp.unique_all(x).values, x.to_device(x.device)):
        assert type(y) is xp.JitModeArray, y
    assert x.__array_namespace__() is xp
    assert x.__array_namespace__(api_version="2023.12").__array_api_version__ == "2023.12"
    assert isinstance(x.__array_namespace__(api_version="2023.12").meshgrid(x, x), list)


def test_jit_mode_operators_are_traced_and_cached():
    x = xp.asarray([1.0, 2.0, 3.0], dtype=xp.float32)
    wrapper = xp.JitModeArray.__mul__
    assert wrapper.__wrapped_for_jit__ is sx.Array.__mul__
    wrapper.jitted.clear()
    assert np.asarray(x * 3).tolist() == [3.0, 6.0, 9.0]
    assert np.asarray(x * 4).tolist() == [4.0, 8.0, 12.0]  # a Python scalar operand is a dynamic weak input
    (jitted,) = wrapper.jitted.values()
    assert jitted.cache_size() == 1  # traced and compiled once for both calls


def test_jit_mode_writes_reach_every_view_and_plain_arrays_sharing_storage():
    base = sx.arange(6.0)
    x = xp.asarray(base)  # no copy: shares base's storage
    v = x[::-1]
    x[0] = 10.0
    x += 1.0
    np.testing.assert_array_equal(np.asarray(base), [11.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    np.testing.assert_array_equal(np.asarray(v), [6.0, 5.0, 4.0, 3.0, 2.0, 11.0])


def test_jit_mode_compiles_data_dependent_shapes_through_graph_breaks():
    before, eager = xp.BREAKS["nonzero"], xp.FALLBACKS["nonzero"]
    (idx,) = xp.nonzero(xp.asarray([0, 3, 0, 4]))
    assert np.asarray(idx).tolist() == [1, 3] and type(idx) is xp.JitModeArray
    assert xp.BREAKS["nonzero"] == before + 1 and xp.FALLBACKS["nonzero"] == eager


def test_importing_jit_mode_changes_nothing_in_stridex():
    code = ("import stridex as sx; add, mul = sx.add, sx.Array.__mul__; import stridex.jit_mode as xp; "
            "assert sx.add is add and sx.Array.__mul__ is mul and xp.add is not add; "
            "assert type(sx.asarray(1.0) * 2) is sx.Array")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_jit_mode_creation_goes_to_the_device_named():
    """`device=` of a creation function places its array, whatever the default device of the thread that calls
    it (scikit-learn's worker threads make arrays with `device=` of their inputs' device)."""
    import os
    import threading

    device = os.environ.get("STRIDEX_TEST_DEVICE", "cpu:1")
    made = {}

    def make():
        made["zeros"] = xp.zeros((2, 3), device=device)
        made["full"] = xp.full((2,), 3.0, device=device)

    with sx.default_device(device):  # (a thread does not inherit this block's default device)
        worker = threading.Thread(target=make)
        worker.start()
        worker.join()
    assert made["zeros"].device == device and made["full"].device == device
    assert xp.zeros(2).device == sx.zeros(2).device  # (no `device=`: the default, as eagerly)
    np.testing.assert_array_equal(np.asarray(made["full"].to_device("cpu")), [3.0, 3.0])
