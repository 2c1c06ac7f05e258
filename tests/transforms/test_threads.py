"""Threads that write one storage: every write lands, in all four modes (host and device, eager and `jit`).

Each test starts THREADS threads at a barrier, with Python switching threads every few microseconds, and has
each write its own block of one shared array (through basic keys, integer-array keys, views of views, or a
view passed as the jitted function's argument) several times, the last value being the one that must stay.
Blocks written by every thread (the same elements) must end with one of the values written there, and the
rest of the array must keep what its own writer wrote. Readers running meanwhile must see each element
either before or after a write. docs/semantics.md ("Threads") states the guarantees checked here.
"""

from __future__ import annotations

import os
import threading

import numpy as np
import pytest

import stridex as sx
from tests.helpers import fast_switching

DEV = os.environ.get("STRIDEX_TEST_DEVICE", "cpu:1")
MODES = [pytest.param(("cpu", False), id="host-eager"), pytest.param(("cpu", True), id="host-jit"),
         pytest.param((DEV, False), id="device-eager"), pytest.param((DEV, True), id="device-jit")]
THREADS = 6
REPEATS = 3  # writes per thread and round, each of a new value: the last must stay
ROUNDS = 5


@pytest.fixture(autouse=True)
def fine_switching():
    """Switch threads every 10 µs (Python's default is 5 ms), so that their steps interleave finely."""
    with fast_switching(1e-5):
        yield


def _in_threads(work, n: int = THREADS) -> None:
    """Run work(0), ..., work(n - 1) in n threads started together; re-raise the first error, and fail
    (rather than hang) when a thread does not finish."""
    barrier = threading.Barrier(n)
    errors = []

    def body(j):
        try:
            barrier.wait()
            work(j)
        except BaseException as e:  # noqa: BLE001 - re-raised in the main thread
            errors.append(e)

    threads = [threading.Thread(target=body, args=(j,), daemon=True) for j in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not any(t.is_alive() for t in threads), "a thread did not finish: deadlock"
    if errors:
        raise errors[0]


def _values(x) -> np.ndarray:
    return np.asarray(x.to_device("cpu"))


def _value(j: int, r: int, k: int) -> float:
    """The k-th value thread j writes in round r (distinct for every thread, round and repeat)."""
    return 100.0 * r + 10.0 * (j + 1) + k


def _check_writes(mode, shape, write, region, rounds: int = ROUNDS):
    """In each round, thread j calls `write(x, j, value)` REPEATS times on a fresh zero array x (jitted, with
    j static, in a jit mode); then region(j) of x (a NumPy key) holds j's last value and the rest is 0."""
    device, jitted = mode
    run = sx.jit(write, static_argnums=1) if jitted else write
    for r in range(rounds):
        x = sx.zeros(shape, device=device)

        def work(j, x=x, r=r):
            for k in range(REPEATS):
                run(x, j, _value(j, r, k))

        _in_threads(work)
        expected = np.zeros(shape)
        for j in range(THREADS):
            expected[region(j)] = _value(j, r, REPEATS - 1)
        np.testing.assert_array_equal(_values(x), expected, err_msg=f"round {r}")


@pytest.mark.parametrize("mode", MODES)
def test_column_blocks_with_array_values(mode):
    """scikit-learn's `pairwise_distances(n_jobs=2)`: `ret[:, s] = block`, one column block per thread."""

    def write(x, j, value):
        x[:, 2 * j:2 * j + 2] = sx.full((5, 2), value, dtype=x.dtype, device=x.device)

    _check_writes(mode, (5, 2 * THREADS), write, lambda j: (slice(None), slice(2 * j, 2 * j + 2)))


@pytest.mark.parametrize("mode", MODES)
def test_views_of_views(mode):
    """Each thread passes a view of a view of the shared array (a transpose, then slices) and writes through
    further views of it: one program for every thread under jit (the offset is not part of the signature),
    its write going back through the caller's views."""
    device, jitted = mode

    def write(v, value):
        w = v[::2, :]
        w.T[...] = value

    run = sx.jit(write) if jitted else write
    for r in range(ROUNDS):
        x = sx.zeros((2 * THREADS, 6), device=device)

        def work(j, x=x, r=r):
            for k in range(REPEATS):
                run(x.T[1:, :][:, 2 * j:2 * j + 2], _value(j, r, k))

        _in_threads(work)
        expected = np.zeros((2 * THREADS, 6))
        for j in range(THREADS):
            expected[2 * j:2 * j + 2, 1::2] = _value(j, r, REPEATS - 1)
        np.testing.assert_array_equal(_values(x), expected, err_msg=f"round {r}")


@pytest.mark.parametrize("mode", MODES)
def test_integer_array_keys(mode):
    """Each thread writes its own rows, chosen by an integer array argument (one program for every thread:
    under jit written back through the mask of the elements written), and one element of another row
    through a view of a view."""
    device, jitted = mode

    def write(x, rows, value):
        x[rows, 1:] = value
        x[2 * THREADS:][:, :1][rows[:1], 0] = value

    run = sx.jit(write) if jitted else write
    for r in range(ROUNDS):
        x = sx.zeros((3 * THREADS, 4), device=device)

        def work(j, x=x, r=r):
            rows = sx.asarray([j, THREADS + j], device=device)
            for k in range(REPEATS):
                run(x, rows, _value(j, r, k))

        _in_threads(work)
        expected = np.zeros((3 * THREADS, 4))
        for j in range(THREADS):
            expected[[j, THREADS + j], 1:] = _value(j, r, REPEATS - 1)
            expected[2 * THREADS + j, 0] = _value(j, r, REPEATS - 1)
        np.testing.assert_array_equal(_values(x), expected, err_msg=f"round {r}")


@pytest.mark.parametrize("mode", MODES)
def test_a_view_as_the_argument(mode):
    """The array passed (to the jitted function) is a view of the shared one, with one program for every thread:
    its offset is not part of the signature, and the write goes back through the caller's view."""
    device, jitted = mode
    fill = sx.jit(_fill) if jitted else _fill
    for r in range(ROUNDS):
        x = sx.zeros((4, 3 * THREADS), device=device)

        def work(j, x=x, r=r):
            for k in range(REPEATS):
                fill(x.T[3 * j:3 * j + 3, 1:], _value(j, r, k))

        _in_threads(work)
        expected = np.zeros((4, 3 * THREADS))
        for j in range(THREADS):
            expected[1:, 3 * j:3 * j + 3] = _value(j, r, REPEATS - 1)
        np.testing.assert_array_equal(_values(x), expected)


def _fill(v, value):
    v[...] = value
    return None


@pytest.mark.parametrize("mode", MODES)
def test_overlapping_blocks_end_with_a_written_value(mode):
    """Every thread writes row 0 (the same elements) and its own column of rows 1..: each element of row 0 ends
    with a value some thread wrote there last, and every thread's own column keeps its value."""
    device, jitted = mode

    def write(x, j, value):
        x[0, :] = value
        x[1:, j] = value

    run = sx.jit(write, static_argnums=1) if jitted else write
    for r in range(ROUNDS):
        x = sx.zeros((3, THREADS), device=device)

        def work(j, x=x, r=r):
            for k in range(REPEATS):
                run(x, j, _value(j, r, k))

        _in_threads(work)
        got = _values(x)
        last = [_value(j, r, REPEATS - 1) for j in range(THREADS)]
        np.testing.assert_array_equal(got[1:], np.broadcast_to(last, (2, THREADS)))
        assert set(got[0]) <= set(last), got[0]


@pytest.mark.parametrize("mode", MODES)
def test_reads_see_each_element_before_or_after_a_write(mode):
    """Half the threads write their block again and again while the other half read the whole array: every
    element read holds 0 or one of the values its block's writer wrote."""
    device, jitted = mode
    writers = THREADS // 2

    def write(x, j, value):
        x[j, :] = value

    def read(x):
        return x * 1.0

    run_write = sx.jit(write, static_argnums=1) if jitted else write
    run_read = sx.jit(read) if jitted else read
    x = sx.zeros((writers, 4), device=device)
    seen = []

    def work(j):
        if j < writers:
            for k in range(REPEATS * 2):
                run_write(x, j, _value(j, 0, k))
        else:
            for _ in range(REPEATS * 2):
                x.block_until_ready()  # (its buffer may be donated by a write meanwhile)
                seen.append(_values(run_read(x)))

    _in_threads(work)
    for j in range(writers):
        allowed = {0.0} | {_value(j, 0, k) for k in range(REPEATS * 2)}
        for values in seen:
            assert set(values[j]) <= allowed, (j, values[j])
    np.testing.assert_array_equal(_values(x), [[_value(j, 0, REPEATS * 2 - 1)] * 4 for j in range(writers)])


# --- the write-back itself, deterministically: a write made while the call runs is kept ---------------------


def _basic_writes(a):
    a[:3, 1:3] = 1.0
    a.T[4:, :3][::2] = 2.0  # (a view of a view: column 4, rows 0..2)


def _integer_array_writes(a):
    a[sx.asarray([0, 2], device=a.device), 5] = 3.0
    a[1, 1:][sx.asarray([0, 3], device=a.device)] = 4.0


def _many_writes(a):
    for i in range(12):  # more distinct regions than are written back one by one: a mask
        a[i % 3, i // 2] = 5.0 + i


def _boolean_mask_writes(a):
    top = a[:3]
    top[top > -1.0] = 6.0  # (a boolean mask selecting all of rows 0..2)


@pytest.mark.parametrize("device", ["cpu", DEV])
@pytest.mark.parametrize("writes", [_basic_writes, _integer_array_writes, _many_writes, _boolean_mask_writes])
def test_a_write_made_while_the_call_runs_is_kept(writes, device, monkeypatch):
    """Another thread's write into row 3, made after the jitted call read its input and before it wrote back,
    stays: the call writes back only the elements the function wrote (none in row 3)."""
    from stridex._transforms.jit import Compiled

    expected = np.zeros((4, 6))
    writes_numpy = sx.asarray(expected, device=device)
    writes(writes_numpy)
    expected = _values(writes_numpy)
    assert not expected[3].any()
    expected[3] = 7.0

    f = sx.jit(writes)
    f(sx.zeros((4, 6), device=device))  # (traced and compiled before the write is slipped in)
    x = sx.zeros((4, 6), device=device)
    execute = Compiled._execute

    def execute_then_write(self, inputs):
        outs = execute(self, inputs)
        x[3, :] = 7.0
        return outs

    monkeypatch.setattr(Compiled, "_execute", execute_then_write)
    f(x)
    np.testing.assert_array_equal(_values(x), expected)


@pytest.mark.parametrize(("writes", "regions"), [(_basic_writes, 2), (_integer_array_writes, None),
                                                 (_many_writes, None), (_boolean_mask_writes, None)])
def test_how_each_write_is_written_back(writes, regions):
    """Basic writes go back region by region; integer-array and boolean-mask writes, or more than
    MAX_REGIONS distinct ones, through the mask of the elements written (a second program output)."""
    (plan,) = sx.jit(writes).trace(sx.zeros((4, 6))).input_writes
    if regions is None:
        assert plan.regions == () and plan.mask == plan.output + 1
    else:
        assert len(plan.regions) == regions and plan.mask is None


def _loss_writing_parts(a):
    a[:3, 1:3] *= 2.0
    a.T[4:, :3][::2] = sx.sin(a[0, 0])
    a[sx.asarray([0, 2]), 5] = 3.0  # (an integer-array key: this input then goes back whole)
    return sx.sum(a * a)


def _loss_writing_basic_parts(a):
    a[:3, 1:3] *= 2.0
    a.T[4:, :3][::2] = sx.sin(a[0, 0])
    return sx.sum(a * a)


@pytest.mark.parametrize("transform", ["grad", "jit(grad)", "vjp", "jacfwd"])
@pytest.mark.parametrize("loss", [_loss_writing_parts, _loss_writing_basic_parts])
def test_transformations_write_back_what_the_function_wrote(transform, loss):
    """grad and the other derivatives write the parts the function wrote back into the caller's array (region
    by region for basic keys), leaving it as one eager call of the function would, with the same gradient."""
    start = np.arange(24.0).reshape(4, 6) / 10
    x = sx.asarray(start.copy())
    if transform == "grad":
        g = sx.grad(loss)(x)
    elif transform == "jit(grad)":
        g = sx.jit(sx.grad(loss))(x)
    elif transform == "vjp":
        g = sx.vjp(loss, x)[1](sx.asarray(1.0))[0]
    else:
        g = sx.jacfwd(loss)(x)
    eager = sx.asarray(start.copy())
    loss(eager)
    np.testing.assert_array_equal(np.asarray(x), np.asarray(eager))
    h = 1e-6  # (central differences of the loss, each on a fresh copy: it writes into its input)
    numeric = np.zeros_like(start)
    for i in np.ndindex(start.shape):
        step = np.zeros_like(start)
        step[i] = h
        numeric[i] = (float(loss(sx.asarray(start + step))) - float(loss(sx.asarray(start - step)))) / (2 * h)
    np.testing.assert_allclose(np.asarray(g), numeric, rtol=1e-6, atol=1e-6)
