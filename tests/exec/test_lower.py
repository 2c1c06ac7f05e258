"""The executor layer's one lowering driver (`stridex._exec.lower`): every path that runs primitives' lowering
rules reaches them through `_run_steps`, and each result matches the path it stands for."""

from __future__ import annotations

import os

import numpy as np
import pytest

import stridex as sx
from stridex._exec import lower

DEV = os.environ.get("STRIDEX_TEST_DEVICE", "cpu:1")


@pytest.fixture
def counted(monkeypatch):
    """The primitives whose lowering rules the driver ran (names, in order, once per trace of a program), and
    every `lower` rule reached from elsewhere recorded as a stray call."""
    seen: list = []
    real = lower._run_steps

    def run_steps(steps, env, outputs, check):
        seen.extend(step.prim.name for step in steps)
        return real(steps, env, outputs, check)

    monkeypatch.setattr(lower, "_run_steps", run_steps)
    sx.clear_caches()  # (programs compiled before would not be lowered again)
    yield seen
    sx.clear_caches()


def test_a_device_eager_operation_is_lowered_by_the_driver(counted):
    x = sx.asarray(np.arange(6.0), device=DEV)
    with sx.fusion(False):
        y = sx.sum(x * 2.0)
    assert counted == ["multiply", "reduce_sum"]
    assert float(y) == 30.0
    x[1] = 7.0  # a write: assign's own lowering, between the View's read and its write-back
    assert counted[-1] == "assign"
    np.testing.assert_array_equal(np.asarray(x), [0.0, 7.0, 2.0, 3.0, 4.0, 5.0])


def test_a_device_fusion_pass_is_lowered_by_the_driver(counted):
    x = sx.asarray(np.linspace(0.0, 1.0, 1000), device=DEV)
    y = sx.sin(x) * 2.0 + 1.0
    assert sx.fusion.pending(y) is not None
    sx.eval(y)
    assert counted == ["sin", "multiply", "add"]  # (one pass: the three records, once)
    np.testing.assert_allclose(np.asarray(y), np.sin(np.linspace(0.0, 1.0, 1000)) * 2.0 + 1.0, rtol=1e-15)


def test_a_jit_program_is_lowered_by_the_driver(counted):
    f = sx.jit(lambda a, b: sx.exp(a) @ b)
    a = sx.asarray(np.eye(3))
    out = f(a, a)
    assert sorted(counted) == ["dot_general", "exp"]
    f(a, a)  # (cached: not lowered again)
    assert sorted(counted) == ["dot_general", "exp"]
    np.testing.assert_allclose(np.asarray(out), np.exp(np.eye(3)), rtol=1e-15)


def test_a_host_compiled_program_is_lowered_by_the_driver(counted):
    v = np.linspace(-1.0, 1.0, 5)
    y = sx.scipy.special.erf(sx.asarray(v))
    assert counted == ["erf"]
    import math

    np.testing.assert_allclose(np.asarray(y), [math.erf(t) for t in v], rtol=1e-15)


def test_only_the_driver_calls_lowering_rules():
    """A walk over the package's source: `.lower(ctx` (a lowering rule called) appears in the driver alone (rules
    that compose other rules call them by name, on the same context, inside one step)."""
    import pathlib
    import re

    root = pathlib.Path(sx.__file__).parent
    callers = sorted(str(p.relative_to(root)) for p in root.rglob("*.py")
                     if re.search(r"\b(prim|step\.prim|eqn\.prim|scatter)\.lower\(", p.read_text()))
    assert callers == ["_exec/lower.py"]
