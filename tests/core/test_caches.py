"""The caches of compiled programs (`stridex/_core/caches.py`): least recently used out, per kind limits,
counters, `set_cache_limit` and `clear_caches`; and that each kind of cache evicts past its limit and compiles
an evicted program again, correctly, when it is needed (jit, jit mode, the device executor, device passes and
the eager samplers)."""

from __future__ import annotations

import contextlib
import os

import numpy as np
import pytest

import stridex as sx
from stridex._core import caches

DEV = os.environ.get("STRIDEX_TEST_DEVICE", "cpu:1")


@contextlib.contextmanager
def limited(kind: str, size: int):
    previous = sx.set_cache_limit(kind, size)
    try:
        yield
    finally:
        sx.set_cache_limit(kind, previous)


def compiles(kind: str) -> int:
    return sx.cache_stats()[kind].compiles


def test_a_cache_keeps_the_most_recently_used_entries():
    evicted = []
    cache = caches.ProgramCache("device", on_evict=evicted.extend)
    with limited("device", 3):
        for k in "abc":
            cache.put(k, k.upper())
        assert cache.get("a") == "A"  # now the most recently used
        cache.put("d", "D")
        assert evicted == ["B"] and "b" not in cache and len(cache) == 3
        assert [cache.get(k) for k in "acd"] == ["A", "C", "D"]
        cache.replace("c", "C2")  # (a faster call of the same program: no compile, no eviction)
        assert cache.get("c") == "C2" and evicted == ["B"]
    with limited("device", 1):  # a lower limit drops the oldest entries at once
        assert len(cache) == 1 and cache.get("c") == "C2"
    cache.clear()
    assert len(cache) == 0 and cache.get("c") is None


def test_counters_and_limits_are_reported_per_kind():
    stats = sx.cache_stats()
    assert set(stats) == {"jit", "jit_mode", "device", "device_pass", "host"}
    assert stats["jit"].limit == 256 and stats["device"].limit == 1024
    before = stats["jit"]
    f = sx.jit(lambda x: x * 2)
    f(sx.ones(3))
    f(sx.ones(3))
    f(sx.ones(4))
    after = sx.cache_stats()["jit"]
    assert after.compiles - before.compiles == 2
    assert after.entries >= 2


@pytest.mark.parametrize("kind, size", [("jit", 0), ("jit", -1), ("jit", 2.0), ("jit", True), ("programs", 4)])
def test_bad_limits_are_refused(kind, size):
    with pytest.raises(ValueError, match="set_cache_limit"):
        sx.set_cache_limit(kind, size)


def test_clear_caches_empties_every_kind():
    f = sx.jit(lambda x, v: x + v)
    f(sx.ones(2), 1.0)
    x = sx.ones(3, device=DEV)
    np.asarray(sx.full(3, 2.0, device=DEV).to_device("cpu"))
    np.asarray((x * 3.0 + 1.0).to_device("cpu"))
    sx.random.uniform(sx.random.key(0), (2,))
    sx.clear_caches()
    assert all(s.entries == 0 for s in sx.cache_stats().values()), sx.cache_stats()
    assert f.cache_size() == 0
    before = compiles("jit")
    np.testing.assert_array_equal(np.asarray(f(sx.ones(2), 2.0)), [3.0, 3.0])  # compiled again
    assert compiles("jit") == before + 1


def test_jit_evicts_past_its_limit_and_compiles_an_evicted_signature_again():
    f = sx.jit(lambda x: x * 2 + 1)
    with limited("jit", 2):
        for n in (1, 2, 3):  # three signatures: the first is evicted
            f(sx.ones(n))
        assert f.cache_size() == 2
        before = compiles("jit")
        for _ in range(2):  # the fast path must not keep serving an evicted program's key either
            np.testing.assert_array_equal(np.asarray(f(sx.ones(1))), [3.0])
        assert compiles("jit") == before + 1
        np.testing.assert_array_equal(np.asarray(f(sx.arange(3.0))), [1.0, 3.0, 5.0])


def test_jit_mode_evicts_past_its_limit_and_compiles_again():
    import stridex.jit_mode as xp

    x = xp.asarray([[1.0, 2.0], [3.0, 4.0]])
    with limited("jit_mode", 1):
        assert np.asarray(xp.sum(x, axis=0)).tolist() == [4.0, 6.0]
        assert np.asarray(xp.sum(x, axis=1)).tolist() == [3.0, 7.0]  # a new static signature: axis=0's is evicted
        assert len(xp.sum.jitted) == 1
        before = compiles("jit_mode")
        assert np.asarray(xp.sum(x, axis=0)).tolist() == [4.0, 6.0]
        assert compiles("jit_mode") == before + 1


def test_device_executables_evict_past_their_limit_and_compile_again():
    x = sx.arange(6.0, device=DEV)
    with sx.fusion(False), limited("device", 2):
        results = [np.asarray(f(x).to_device("cpu")) for f in (sx.sin, sx.cos, sx.exp)]
        before = compiles("device")
        np.testing.assert_allclose(np.asarray(sx.sin(x).to_device("cpu")), results[0], rtol=1e-15)
        assert compiles("device") == before + 1
        assert sx.cache_stats()["device"].entries <= 2


def test_device_passes_evict_past_their_limit_and_compile_again():
    x = sx.arange(6.0, device=DEV)
    with limited("device_pass", 1):
        a = np.asarray((sx.sin(x) + 1.0).to_device("cpu"))
        np.asarray((sx.cos(x) * 2.0).to_device("cpu"))
        before = compiles("device_pass")
        np.testing.assert_array_equal(np.asarray((sx.sin(x) + 1.0).to_device("cpu")), a)
        assert compiles("device_pass") == before + 1
        np.testing.assert_allclose(a, np.sin(np.arange(6.0)) + 1.0, rtol=1e-15)


def test_samplers_evict_past_their_limit_and_compile_again():
    key = sx.random.key(1)
    with limited("host", 1):
        first = np.asarray(sx.random.normal(key, (3,)))
        sx.random.normal(key, (4,))
        before = compiles("host")
        np.testing.assert_array_equal(np.asarray(sx.random.normal(key, (3,))), first)
        assert compiles("host") == before + 1


def test_a_forked_child_can_compile_while_the_parent_held_a_cache_lock():
    """A cache's lock held by another thread at a fork stays held in the child unless replaced there."""
    import subprocess
    import sys

    code = ("import os, stridex as sx\n"
            "from stridex._core import caches\n"
            "cache = caches.ProgramCache('device')\n"
            "cache._lock.acquire()\n"
            "pid = os.fork()\n"
            "if pid == 0:\n"
            "    cache.put('k', 1)\n"
            "    os._exit(0 if cache.get('k') == 1 else 1)\n"
            "_, status = os.waitpid(pid, 0)\n"
            "raise SystemExit(os.waitstatus_to_exitcode(status))\n")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)
