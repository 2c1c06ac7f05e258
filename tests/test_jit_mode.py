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


# --- Python scalars are arguments, not constants: one program for every index and value ----------------------


def _new_programs(action, n: int = 1000) -> int:
    """How many programs (of any kind of cache) `action(k)` for k = 2 .. n+1 compiles, after two warm-up calls."""
    action(0)
    action(1)
    before = sum(s.compiles for s in sx.cache_stats().values())
    for k in range(2, n + 2):
        action(k)
    return sum(s.compiles for s in sx.cache_stats().values()) - before


def _setitem(a, key, value):
    a[key] = value


DEVICE = __import__("os").environ.get("STRIDEX_TEST_DEVICE", "cpu:1")
A = xp.asarray(np.linspace(0.0, 1.0, 10))
KINDS = {
    "a[i] = v": lambda k: _setitem(A, k % 10, float(k)),
    "a[i]": lambda k: A[k % 10 - 5],
    "a[i:i+3]": lambda k: A[k % 7:k % 7 + 3],
    "full(5, v)": lambda k: xp.full(5, float(k)),
    "a[a > 0.5] = v": lambda k: _setitem(A, A > 0.5, float(k)),
    "a[i] = a[j]": lambda k: _setitem(A, k % 10, A[(k + 3) % 10]),
    "a + v": lambda k: A + float(k),
    "clip(a, max=v)": lambda k: xp.clip(A, max=float(k)),
    "where(a > 0.5, a, v)": lambda k: xp.where(A > 0.5, A, float(k)),
    "device full(5, v)": lambda k: sx.full(5, float(k), device=DEVICE),
    "device x + v, forced": lambda k: sx.eval(sx.ones(4, device=DEVICE) + float(k)),
    "device full_like / arange / eye": lambda k: (sx.full_like(sx.ones(3, device=DEVICE), k),
                                                  sx.arange(k, k + 4, device=DEVICE),
                                                  sx.eye(3, k=k % 5 - 2, device=DEVICE)),
}


@pytest.mark.parametrize("kind", list(KINDS))
def test_a_thousand_distinct_scalars_compile_at_most_a_handful_of_programs(kind):
    assert _new_programs(KINDS[kind]) <= 3


def test_indices_and_values_as_arguments_give_eager_results():
    base = np.arange(12.0).reshape(3, 4)
    eager, jitted = sx.asarray(base, copy=True), xp.asarray(base, copy=True)
    for a in (eager, jitted):
        a[1] = -1.0
        a[-1, 2:4] = 7.0
        a[0, ::-2] = a[2, 1:3]
        a[:, -3] = 5
        a[a > 6.5] = 0.25
    np.testing.assert_array_equal(np.asarray(jitted), np.asarray(eager))
    for key in [1, -1, (0, -2), (slice(1, 3), 2), (Ellipsis, -1), (None, 2), (slice(None, None, -1), 0), ()]:
        got, want = jitted[key], eager[key]
        assert type(got) is xp.JitModeArray
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    assert xp.full(3, 2, dtype=xp.int8).dtype == xp.int8 and xp.full(2, 1).dtype == xp.int64
    assert xp.full(2, True).dtype == xp.bool and xp.full(2, 1j).dtype == xp.complex128
    np.testing.assert_array_equal(np.asarray(xp.clip(jitted, 1.0, max=3.0)), np.asarray(sx.clip(eager, 1.0, max=3.0)))


def test_an_index_out_of_range_raises_at_the_call():
    a = xp.zeros(5)
    for key in (5, -6, (0, 1)):
        with pytest.raises(IndexError):
            a[key]
        with pytest.raises(IndexError):
            a[key] = 1.0
    with pytest.raises(OverflowError, match="300"):  # (the value is checked per call, as NumPy stores it)
        xp.zeros(3, dtype=xp.int8)[0] = 300
    with pytest.raises(TypeError):
        xp.zeros(3, dtype=xp.int8)[0] = 1.5


def test_basic_indices_still_give_views_that_see_and_make_writes():
    a = xp.asarray(np.arange(6.0), copy=True)
    row = a[2:5]
    one = a[3]
    row[0] = -1.0  # a write through the view reaches `a`
    a[3] = 9.0
    assert np.asarray(a).tolist() == [0.0, 1.0, -1.0, 9.0, 4.0, 5.0]
    assert float(one) == 9.0 and np.asarray(row).tolist() == [-1.0, 9.0, 4.0]


def test_writes_into_device_arrays_compile_once():
    a = xp.asarray(np.zeros(8), device=DEVICE)
    assert _new_programs(lambda k: _setitem(a, k % 8, float(k)), 100) <= 2
    np.testing.assert_array_equal(np.asarray(a.to_device("cpu")), [96.0, 97.0, 98.0, 99.0, 100.0, 101.0, 94.0, 95.0])


def test_ten_thousand_distinct_scalars_keep_memory_bounded():
    """Each kind of call 10,000 times with distinct scalars, in a fresh process: its RSS grows by at most 50 MiB
    (before, every value compiled a program that stayed in memory: 600 writes grew it by 870 MiB)."""
    code = r'''
import resource, sys
import numpy as np
import stridex as sx, stridex.jit_mode as xp

def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize() / 2**20

a = xp.asarray(np.linspace(0.0, 1.0, 10))
d = sys.argv[1]
def step(k):
    a[k % 10] = float(k)
    a[k % 10 - 5]
    a[k % 7:k % 7 + 3]
    xp.full(5, float(k))
    a[a > 0.5] = float(k)
    a + float(k)
    sx.full(5, float(k), device=d)
for k in range(200):
    step(k)
start = rss()
for k in range(200, 10200):
    step(k)
print(rss() - start)
'''
    import os

    env = dict(os.environ)
    flag = "--xla_force_host_platform_device_count"
    if flag not in env.get("XLA_FLAGS", ""):
        env["XLA_FLAGS"] = f"{env.get('XLA_FLAGS', '')} {flag}=4"
    out = subprocess.run([sys.executable, "-c", code, DEVICE], check=True, capture_output=True, text=True, env=env,
                         timeout=900)
    growth = float(out.stdout.strip().splitlines()[-1])
    assert growth <= 50, f"RSS grew by {growth:.1f} MiB over 10,000 calls of each kind"
