"""jit's memo (`stridex/_transforms/memo.py`): the generated check that a call's arguments are the last call's.

Every call is compared with eager execution; the memo's own decisions (a direct call, running the entry,
a miss) are observed by counting the calls of the compiled entry's `run`.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

pytest.importorskip("jax")

import stridex as sx
from stridex._transforms import memo as memo_module
from stridex._transforms.handover import SNAPSHOT_MAX_BYTES
from stridex._transforms.memo import BUFFER, MISS, WINDOW, source
from tests.helpers import run_in_threads


def assert_same(a, b):
    assert a.shape == b.shape and a.dtype == b.dtype, (a.shape, a.dtype, b.shape, b.dtype)
    np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def counting_runs(jitted):
    """A list that grows by one on every call of `run` of each entry `jitted` compiles from now on."""
    runs = []
    for entry in jitted._cache.values():
        real = entry.run
        entry.run = lambda leaves, real=real: runs.append(1) or real(leaves)
    return runs


@pytest.mark.parametrize("kinds", [(), (BUFFER,), (WINDOW,), (None,), (BUFFER, WINDOW, None)])
@pytest.mark.parametrize("outputs", [None, "one", "several"])
@pytest.mark.parametrize("checks_precision", [False, True])
def test_every_shape_of_memo_compiles(kinds, outputs, checks_precision):
    text = source(kinds, outputs, checks_precision)
    compile(text, "<memo>", "exec")
    buffers = sum(k == BUFFER for k in kinds)
    assert text.count("return MISS") == 1 + 3 * buffers + 2 * (len(kinds) - buffers) + checks_precision
    assert ("remember_after" in text) == (outputs is None or bool(kinds))


def test_a_steady_loop_calls_the_executable_directly_from_the_third_call():
    f = lambda a, b: sx.sin(a) * b
    g = sx.jit(f)
    x, y = sx.asarray([0.5, 1.5]), sx.asarray([2.0, 3.0])
    r = g(x, y)  # traced, compiled; the memo is made
    runs = counting_runs(g)
    for _ in range(4):
        assert_same(g(x, y), f(x, y))
    assert len(runs) == 1  # the second call runs the entry (snapshots made); the memo then calls directly
    r2 = g(y, x)
    for _ in range(2):
        assert_same(g(r, r2), f(r, r2))  # JAX results: the memo misses, then the entry runs
    runs = counting_runs(g)
    for _ in range(3):
        assert_same(g(r, r2), f(r, r2))
    assert len(runs) == 0  # JAX results are ready at once: the memo calls directly


def test_a_written_input_runs_the_entry_with_its_new_bytes():
    f = lambda a: a * 2.0 + 1.0
    g = sx.jit(f)
    x = sx.asarray(np.array([1.0, -0.0, np.nan]))
    for _ in range(3):
        g(x)
    runs = counting_runs(g)
    x[1] = 0.0  # equal as a float to -0.0, different bytes
    assert_same(g(x), f(x))
    assert len(runs) == 1
    for _ in range(3):
        assert_same(g(x), f(x))
    assert len(runs) == 2  # once more to make the new snapshot, then direct calls


def test_the_memo_misses_on_another_argument_dtype_count_or_precision():
    g = sx.jit(lambda a, b=None: a @ a if b is None else a @ b)
    x = sx.asarray(np.arange(4.0).reshape(2, 2))
    for _ in range(3):
        g(x)
    memo = g._memo
    assert memo(g, (x,)) is not MISS
    assert memo(g, (x, x)) is MISS  # another count
    assert memo(g, (sx.asarray(np.arange(4.0).reshape(2, 2)),)) is MISS  # another window
    assert memo(g, (sx.astype(x, sx.float32),)) is MISS  # another dtype
    assert memo(g, (np.asarray(x),)) is MISS  # not a stridex array
    with sx.matmul_precision("default"):
        assert memo(g, (x,)) is MISS  # compiled under another matmul precision
    assert_same(g(x, b=x), x @ x)  # keywords never go through the memo


def test_views_and_results_of_other_calls_as_arguments():
    f = lambda a, b: a - b
    g = sx.jit(f)
    base = sx.jit(lambda a: a * 1.0)(sx.asarray(np.arange(6.0)))  # a JAX result
    cases = [(base, base), (base[1:], base[:-1]), (base[::2], base[1::2]), (base, sx.asarray(np.ones(6)))]
    for (a, b), _ in itertools.product(cases, range(3)):
        assert_same(g(a, b), f(a, b))


@pytest.mark.parametrize("count", [SNAPSHOT_MAX_BYTES // 8, SNAPSHOT_MAX_BYTES // 8 + 1])
def test_no_memo_for_a_window_over_the_snapshot_size(count):
    g = sx.jit(lambda a: a + 1.0)
    x = sx.asarray(np.arange(float(count)))
    for _ in range(3):
        assert_same(g(x), x + 1.0)
    assert (g._memo is None) == (count * 8 > SNAPSHOT_MAX_BYTES)


def test_factories_are_made_once_per_shape_of_call():
    memo_module._factory.cache_clear()
    g, h = sx.jit(lambda a: a + 1.0), sx.jit(lambda a: a * 3.0)
    x = sx.asarray([1.0, 2.0])
    for fn, _ in itertools.product((g, h), range(3)):
        assert_same(fn(x), fn._fun(x))
    info = memo_module._factory.cache_info()
    assert info.currsize == 1  # one array with a JAX copy, one output: the same code for g and h
    assert info.hits >= 1


def test_threads_calling_with_their_own_arguments_see_their_own_values():
    """The memo is replaced by whichever thread called last; each thread's results must still be its own."""
    f = lambda a, b: (a - b) * 3.0  # (exact under XLA too: no multiply feeding an add, no transcendental)
    g = sx.jit(f)

    def work(seed):
        rng = np.random.default_rng(seed)
        x = sx.asarray(rng.standard_normal(4))
        y = g(sx.asarray(rng.standard_normal(4)), x)  # a JAX result of this thread's own
        for step in range(60):
            if step % 7 == 3:
                x[step % 4] = float(step)  # a write between calls: new bytes
            for a, b in ((x, y), (y, x), (x, x)):
                np.testing.assert_array_equal(np.asarray(g(a, b)), np.asarray(f(a, b)))

    failures = run_in_threads(work, list(range(6)))
    assert not failures, failures
