"""Assertions and harnesses shared by the test modules."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import threading

import numpy as np

import stridex as sx


# The suite may run with a JAX device as stridex's default device (STRIDEX_DEFAULT_DEVICE=cpu:1, a subset in
# .ci/run): arrays made without device= then live there and every operation runs compiled by XLA, which
# flushes subnormal floats to zero (as jax.numpy does there, and as on a GPU); value tests that draw inputs
# leave subnormals out in that run.
DEFAULT_IS_DEVICE = os.environ.get("STRIDEX_DEFAULT_DEVICE", "").strip() not in ("", "cpu")


def check(got, want, dtype=None):
    """`got` is a stridex array equal to `want` in shape and values (and of `dtype` when given)."""
    assert isinstance(got, sx.Array)
    got_np, want = np.asarray(got), np.asarray(want)
    assert got_np.shape == want.shape, (got_np.shape, want.shape)
    if dtype is not None:
        assert got.dtype == dtype
    np.testing.assert_array_equal(got_np, want)


@contextlib.contextmanager
def fast_switching(interval: float = 1e-5):
    """Within the block, Python switches threads every `interval` seconds (its default is 5 ms), so that the
    steps of threads interleave finely; the caller's interval is restored after."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(interval)
    try:
        yield
    finally:
        sys.setswitchinterval(before)


def run_in_threads(work, args: list, timeout: float = 120.0) -> list:
    """Run `work(arg)` for each of `args` in its own thread, switching threads as often as Python allows; the
    (arg, repr of the exception) of each call that raised, for the caller to assert empty."""
    failures = []

    def guarded(arg):
        try:
            work(arg)
        except Exception as e:  # noqa: BLE001  (reported on the main thread)
            failures.append((arg, repr(e)))

    with fast_switching(1e-6):
        threads = [threading.Thread(target=guarded, args=(arg,)) for arg in args]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout)
    return failures


ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_isolated(target: str, *args: str, timeout: float = 900.0, env: dict | None = None) -> str:
    """Run `target` ("package.module:function", called with the string arguments `args`) in a fresh Python
    process, and fail unless it returns within `timeout` seconds: a hang (a deadlock after a fork, a lock left
    held by a failed pass) fails the test instead of stalling the suite, and a crash takes only that process
    down. The process imports this checkout (PYTHONPATH), and sees JAX's 4 CPU devices as the suite does.
    Returns what it printed. (The timeout is many times a run's time on a shared, loaded machine: a hang is
    told from slowness by it, not by a tight bound.)

    On a hang, every process of the run (the process and the children it forked: one session) first prints
    the Python stack of each of its threads (`faulthandler`, on SIGUSR1), which the failure shows; then the
    session is killed, so that no forked child is left behind."""
    environment = dict(os.environ if env is None else env)
    environment["PYTHONPATH"] = os.pathsep.join([ROOT, environment.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    code = ("import faulthandler, importlib, signal, sys; "
            "faulthandler.register(signal.SIGUSR1, all_threads=True) if hasattr(signal, 'SIGUSR1') else None; "
            "module, _, name = sys.argv[1].partition(':'); "
            "getattr(importlib.import_module(module), name)(*sys.argv[2:])")
    command = [sys.executable, "-c", code, target, *args]
    posix = os.name == "posix"
    process = subprocess.Popen(command, cwd=ROOT, env=environment, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, start_new_session=posix)
    try:
        out, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        if posix:
            import signal

            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGUSR1)  # (the stacks, from every process of the session)
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(5)
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
        else:
            process.kill()
        out, err = process.communicate()
        raise AssertionError(f"{target}{list(args)} did not finish in {timeout} s (a hang); the stacks of its "
                             f"processes' threads follow what it printed\n{out}\n{err}") from None
    finally:
        if process.poll() is None:  # (interrupted: nothing of the run is left running)
            process.kill()
            process.wait()
    if process.returncode != 0:
        raise AssertionError(f"{target}{list(args)} exited with {process.returncode}\n{out}\n{err}")
    return out
