"""Beyond one process: docs/examples/multiprocess_spmd.py launches two processes on this machine (loopback
only, two CPU devices each) that run one stridex program (eager reductions, a write, `jit` of `grad`) over
one global array sharded across both, connected by `jax.distributed` and JAX's CPU collectives. Each process
checks its result against NumPy on the whole data set; the example exits 77 where this JAX has no CPU
collectives, and the test then skips."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("jax")

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "docs" / "examples" / "multiprocess_spmd.py"


def test_a_program_sharded_over_two_processes_agrees_with_numpy():
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
