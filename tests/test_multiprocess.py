"""Beyond one process.

docs/examples/multiprocess_spmd.py launches two processes on this machine (loopback only, two CPU devices each)
that run one stridex program (eager reductions, a write, `jit` of `grad`) over one global array sharded across
both, connected by `jax.distributed` and JAX's CPU collectives. Each process checks its result against NumPy on
the whole data set; the example exits 77 where this JAX has no CPU collectives, and the test then skips.

Eager fusion under fork, forkserver and spawn (docs/fusion.md, Processes and failures): a forked child records
and forces fused work after the parent ran a pass (its pool's threads are not in the child), with pending work
the parent recorded (computed from the parent's values), and while another thread of the parent runs passes; a
`multiprocessing` pool maps fused work under each start method; and after JAX's runtime started in the parent,
a forked child's device work raises where JAX would hang, while its host work runs. Each scenario runs in a
process of its own with a timeout (`helpers.run_isolated`): a hang fails the test.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
import traceback
from pathlib import Path

import numpy as np
import pytest

from tests.helpers import run_isolated

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "docs" / "examples" / "multiprocess_spmd.py"


def test_a_program_sharded_over_two_processes_agrees_with_numpy():
    pytest.importorskip("jax")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep))
    env.pop("XLA_FLAGS", None)  # (the example gives each process its own CPU devices)
    env.pop("STRIDEX_DEFAULT_DEVICE", None)
    try:
        done = subprocess.run([sys.executable, str(EXAMPLE), "--timeout", "90"], env=env, capture_output=True,
                              text=True, timeout=150)
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"the two processes did not finish in 150 s: {exc.stdout}")
    if done.returncode == 77:
        pytest.skip(f"no CPU collectives across processes in this JAX: {done.stdout[-500:]}")
    assert done.returncode == 0, done.stdout + done.stderr
    lines = [line for line in done.stdout.splitlines() if line.startswith("process ")]
    assert len(lines) == 2 and all(line.endswith(": OK") for line in lines), done.stdout
    assert "process 0 of 2" in lines[0] and "process 1 of 2" in lines[1]


# --- eager fusion across processes: the scenarios (each run in a process of its own) ------------------------

MODULE = "tests.test_multiprocess"
N = 300_000  # (a pass of this many elements runs on the pool's threads too: above THREADED_MIN_ELEMENTS)


def _values(seed: int, n: int = N) -> np.ndarray:
    values = np.random.default_rng(seed).standard_normal(n)
    values[::101] = np.nan
    return values


def _work(xp, x):
    """Fused work (a few records in one group), written once for stridex and NumPy."""
    return xp.exp(xp.sin(x) * 0.5 + 1.0) - x


def _expected(values: np.ndarray) -> bytes:
    with np.errstate(all="ignore"):
        return _work(np, values).tobytes()


def _same(x, values: np.ndarray) -> None:
    assert np.asarray(x).tobytes() == _expected(values), "fused values differ from NumPy's"


def _pending(x) -> bool:
    import stridex as sx

    return sx.fusion.pending(x) is not None


def _in_child(check) -> int:
    """Fork; the child runs `check()` and exits 0 when it returns (1, its traceback printed, when it raises);
    returns the child's exit status."""
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            check()
            code = 0
        except BaseException:  # noqa: BLE001  (reported, and the exit status says so)
            traceback.print_exc()
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


def fork_after_a_pass() -> None:
    import stridex as sx
    from stridex._exec import fusion
    from stridex._exec.fusion import host_pass

    xs = _values(0)
    x = sx.asarray(xs, copy=True)
    assert host_pass._POOL is None
    early = _work(sx, x)  # (pending before any pass ran: a child forked now has no pool to forget)
    assert _in_child(lambda: (_same(early, xs), _same(_work(sx, x), xs))) == 0
    _same(_work(sx, x), xs)  # (a threaded pass: the pool's threads start)
    assert host_pass._POOL is not None

    def child():
        assert host_pass._POOL is None  # (the parent's pool, whose threads this process does not have, is let go)
        y = _work(sx, x)
        assert _pending(y)
        _same(y, xs)  # (a threaded pass: the child starts a pool of its own)
        assert host_pass._POOL is not None
        small = sx.asarray(xs[:40_000], copy=True)
        _same(_work(sx, small), xs[:40_000])  # (a pass on the calling thread alone)
        assert _in_child(lambda: _same(_work(sx, x), xs)) == 0  # (and a child of the child)
        # (JAX's runtime had not started in the parent: the child starts its own, and jit runs)
        assert np.array_equal(np.asarray(sx.jit(lambda v: v * 2.0)(small)), xs[:40_000] * 2.0, equal_nan=True)

    assert _in_child(child) == 0
    _same(_work(sx, x), xs)  # (the parent's pool still runs passes)
    print("OK")


def fork_with_pending_work() -> None:
    import stridex as sx

    xs, ys = _values(1), _values(2)
    x, y = sx.asarray(xs, copy=True), sx.asarray(ys, copy=True)
    _same(_work(sx, x), xs)  # (the pool's threads start)
    pending = _work(sx, x)  # (pending at the fork, reading x)
    other = _work(sx, y)  # (another group, reading y)
    view = pending[::7]
    assert _pending(pending) and _pending(other)

    def child():
        assert _pending(pending) and _pending(other)
        x[:100] = 5.0  # (a write into an input: the pending work recorded before it runs first)
        _same(pending, xs)
        assert np.asarray(view).tobytes() == np.frombuffer(_expected(xs))[::7].tobytes()
        _same(other, ys)
        written = xs.copy()
        written[:100] = 5.0
        _same(_work(sx, x), written)

    assert _in_child(child) == 0
    y[:3] = -1.0  # (the parent's own pending work, unchanged by the child, sees its inputs as they were)
    _same(other, ys)
    _same(pending, xs)
    print("OK")


def fork_while_a_thread_runs_passes() -> None:
    import stridex as sx

    xs = _values(3)
    x = sx.asarray(xs, copy=True)
    # (the pool is made here first: its first use imports concurrent.futures, which registers fork handlers of its
    # own, and a registration between a fork's `before` and `after` handlers makes the stdlib release a lock it
    # did not take: an "Exception ignored" message, harmless)
    _same(_work(sx, x), xs)
    stop = threading.Event()
    latest: list = []
    errors: list = []

    def passes():
        try:
            while not stop.is_set():
                y = _work(sx, x)
                latest[:] = [y]  # (pending: a child may inherit it so)
                _same(y, xs)
                latest[:] = [_work(sx, x), y]
        except BaseException as e:  # noqa: BLE001  (reported by the main thread)
            errors.append(e)

    worker = threading.Thread(target=passes)
    worker.start()
    try:
        for i in range(8):
            time.sleep(0.003 * i)

            def child():
                for inherited in latest:  # (the child's only thread: nothing changes it)
                    _same(inherited, xs)
                _same(_work(sx, x), xs)

            assert _in_child(child) == 0, f"child {i}"
    finally:
        stop.set()
        worker.join()
    assert not errors, errors
    print("OK")


def fork_while_a_thread_holds_each_lock() -> None:
    """Each of stridex's locks held by another thread when the main thread forks: the fork waits for it (and a
    child never starts with it held, which would deadlock its first use), and the child records and forces fused
    work, writes into an input pending work reads, and makes a jitted function."""
    import stridex as sx
    from stridex._core import processes

    xs = _values(8)
    x = sx.asarray(xs, copy=True)
    _same(_work(sx, x), xs)  # (the pool's threads start)
    import stridex._lax.random  # noqa: F401  (registers its lock)

    assert set(processes._LOCKS) == set(processes.ORDER), sorted(processes._LOCKS)
    for name in processes.ORDER:
        lock = processes._LOCKS[name]
        taken, release = threading.Event(), threading.Event()

        def hold(lock=lock, taken=taken, release=release):
            with lock:
                taken.set()
                release.wait(60)

        holder = threading.Thread(target=hold)
        holder.start()
        taken.wait(60)
        timer = threading.Timer(0.3, release.set)
        timer.start()
        pending = _work(sx, x) if name not in ("fusion.LOCK", "device.OWNERS") else None
        start = time.monotonic()

        def child(pending=pending):
            if pending is not None:
                x[:5] = 1.0
                _same(pending, xs)
            y = sx.asarray(xs, copy=True)
            _same(_work(sx, y), xs)

        status = _in_child(child)
        waited = time.monotonic() - start
        holder.join()
        assert status == 0, name
        assert waited >= 0.2, (name, waited)  # (the fork waited for the lock)
        if pending is not None:
            _same(pending, xs)
    print("OK")


def _map_work(seed: int) -> bytes:
    """A pool worker's fused work, checked against NumPy in the worker; returns its values' bytes."""
    import stridex as sx

    xs = _values(seed, 120_000)
    y = _work(sx, sx.asarray(xs, copy=True))
    assert _pending(y)
    _same(y, xs)
    return np.asarray(y).tobytes()


def pool_map(method: str) -> None:
    import multiprocessing

    import stridex as sx

    xs = _values(4)
    x = sx.asarray(xs, copy=True)
    _same(_work(sx, x), xs)  # (the pool's threads start)
    pending = _work(sx, x)  # (pending while the workers start)
    with multiprocessing.get_context(method).Pool(2) as workers:
        got = workers.map(_map_work, range(6))
    assert got == [_expected(_values(seed, 120_000)) for seed in range(6)]
    _same(pending, xs)
    print("OK")


def jax_after_fork() -> None:
    """JAX's runtime started in the parent (device work, a device pass): a forked child's host work runs, and its
    device work raises RuntimeError (JAX would wait forever for threads the fork left behind), whichever way it
    reaches JAX; the parent's device work goes on."""
    import warnings

    import stridex as sx

    warnings.filterwarnings("ignore", message="os.fork", category=RuntimeWarning)  # (JAX's own warning)
    dev = os.environ.get("STRIDEX_TEST_DEVICE", "cpu:1")
    xs = _values(5, 5000)
    a = sx.asarray(xs, device=dev)
    computed = sx.cos(a) + 1.0
    sx.eval(computed)  # (a device pass: JAX's runtime started)
    pending = sx.sin(a) * 2.0  # (pending on the device at the fork)
    hs = _values(6)
    h = sx.asarray(hs, copy=True)
    small = sx.asarray(hs[:10], copy=True)
    doubled = sx.jit(lambda v: v * 2.0)
    for _ in range(4):  # (a steady call: its memo calls the executable directly)
        doubled(small)

    def child():
        _same(_work(sx, h), hs)  # (host work: NumPy's)
        attempts = {
            "force a pending device array": lambda: sx.eval(pending),
            "record device work": lambda: a * 3.0,
            "copy to the host": lambda: computed.to_device("cpu"),
            "print": lambda: repr(computed),
            "a new device array": lambda: sx.asarray(np.ones(3), device=dev),
            "jit": lambda: sx.jit(lambda v: v + 1.0)(h),
            "a jitted function's steady call": lambda: doubled(small),
        }
        for what, attempt in attempts.items():
            try:
                attempt()
            except RuntimeError as e:
                assert "fork" in str(e), (what, e)
            else:
                raise AssertionError(f"{what}: no error in a child forked after JAX started")
        assert _pending(pending)

    assert _in_child(child) == 0
    np.testing.assert_allclose(np.asarray(pending.to_device("cpu")), np.sin(xs) * 2.0, rtol=1e-14)
    print("OK")


def _device_map_work(seed: int) -> bytes:
    import stridex as sx

    dev = os.environ.get("STRIDEX_TEST_DEVICE", "cpu:1")
    y = _work(sx, sx.asarray(_values(seed, 5000), device=dev))
    assert _pending(y)
    return np.asarray(y.to_device("cpu")).tobytes()


def devices_under_spawn(method: str) -> None:
    """JAX's runtime started in the parent; workers started by `method` (spawn, forkserver: fresh processes)
    start their own, and their device passes give the parent's values."""
    import multiprocessing

    assert np.frombuffer(_device_map_work(7)).shape == (5000,)  # (the parent's runtime started)
    with multiprocessing.get_context(method).Pool(2) as workers:
        got = workers.map(_device_map_work, [7, 8])
    for seed, values in zip([7, 8], got):
        np.testing.assert_allclose(np.frombuffer(values), np.frombuffer(_device_map_work(seed)), rtol=1e-14)
    print("OK")


# --- the tests ---------------------------------------------------------------------------------------------

needs_fork = pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork: POSIX only")


def _scenario(name: str, *args: str, timeout: float = 900.0) -> None:
    out = run_isolated(f"{MODULE}:{name}", *args, timeout=timeout)
    assert out.strip().endswith("OK"), out


@needs_fork
def test_a_forked_child_runs_fused_work_after_the_parent_ran_a_pass():
    _scenario("fork_after_a_pass")


@needs_fork
def test_pending_work_forked_into_a_child_gives_the_parents_values():
    _scenario("fork_with_pending_work")


@needs_fork
def test_a_fork_while_another_thread_runs_passes():
    _scenario("fork_while_a_thread_runs_passes")


@needs_fork
def test_a_fork_while_another_thread_holds_each_of_stridexs_locks():
    _scenario("fork_while_a_thread_holds_each_lock")


@pytest.mark.parametrize("method", ["fork", "forkserver", "spawn"])
def test_a_multiprocessing_pool_maps_fused_work(method):
    import multiprocessing

    if method not in multiprocessing.get_all_start_methods():
        pytest.skip(f"no {method} start method here")
    _scenario("pool_map", method)


@needs_fork
def test_after_jax_started_a_forked_childs_device_work_raises_and_its_host_work_runs():
    pytest.importorskip("jax")
    _scenario("jax_after_fork")


@pytest.mark.parametrize("method", ["forkserver", "spawn"])
def test_workers_of_a_fresh_start_method_run_device_passes(method):
    pytest.importorskip("jax")
    import multiprocessing

    if method not in multiprocessing.get_all_start_methods():
        pytest.skip(f"no {method} start method here")
    _scenario("devices_under_spawn", method)
