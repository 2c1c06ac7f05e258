"""Writes whose value (or index) reads the storage they write into, on the host and on a JAX device, eagerly
and under `jit`, against the same statements run on NumPy.

On a device a write donates the target's buffer to the executable that updates it; a value read from that
same buffer (`x[0] = x[1]`, `x[2] += 1.0`, an index array that views the target) must be read inside that
executable, never passed a second time (XLA refuses a donated buffer passed twice).
"""

from __future__ import annotations

import os

import numpy as np
import pytest

import stridex as sx

DEV = os.environ.get("STRIDEX_TEST_DEVICE", "cpu:1")
DEVICES = ["cpu", DEV]

# Statements over one array `x` (4 x n floats) and the namespace `xp` (stridex or NumPy): each writes a region
# of `x` from an overlapping region of itself, through basic keys, views of views, in-place operators and
# advanced (integer array) keys, where the index array may itself be a view of x's storage, and boolean masks.
STATEMENTS = [
    "x[0] = x[1]",
    "x[:, ::-1] = x",
    "x[1:] += x[:-1]",
    "x[2] += 100.0",
    "y = x.T; y[0] = x[:, 0] * 1.0",
    "y = x.T; y[1] = x.T[0]",
    "x[::2] *= x[1::2]",
    "x += x",
    "x[...] = x[::-1, ::-1]",
    "v = x[1:, 1:]; v[:-1] -= x[:2, :-1]",
    "x[:, 0] = x[:, -1]",
    "x.T[1:, :] = x.T[:-1, :]",
    "x[ix([0, 2])] = x[1]",
    "x[ix([3, 1]), 1:3] = x[:2, 2:4]",
    "x[:, ix([1, 0])] += x[:, 2:4]",
    "i = xp.astype(x[0, :2], xp.int64) % 4; x[i] = x[3]",
    "x[:, x[1] > x[1, 0]] = -1.0",
    "x[x > 5.0] = x[x > 5.0] * 2.0",
]


def _run(statement: str, x, xp):
    """Run `statement` on `x`; `ix(values)` is an index array on x's device."""
    ix = np.asarray if xp is np else (lambda values: sx.asarray(values, device=x.device))
    exec(statement, {"x": x, "xp": xp, "ix": ix})
    return x


def _numpy(statement: str, n: int) -> np.ndarray:
    return _run(statement, np.arange(4.0 * n).reshape(4, n), np)


def _made(n: int, device: str):
    return sx.asarray(np.arange(4.0 * n).reshape(4, n), device=device)


@pytest.mark.parametrize("n", [4, 700])  # a small array, and one past the aligned-output size (2048 elements)
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("statement", STATEMENTS)
def test_eager_overlapping_write_gives_numpys_result(statement, device, n):
    x = _made(n, device)
    views = [x[1:], x.T, x[::-1]]  # every view of the storage sees the write
    _run(statement, x, sx)
    expected = _numpy(statement, n)
    assert x.device == device
    np.testing.assert_array_equal(np.asarray(x), expected)
    np.testing.assert_array_equal(np.asarray(views[0]), expected[1:])
    np.testing.assert_array_equal(np.asarray(views[1]), expected.T)
    np.testing.assert_array_equal(np.asarray(views[2]), expected[::-1])


# A boolean mask with an array value has a data-dependent shape under jit (a graph break, tested elsewhere).
JIT_STATEMENTS = [s for s in STATEMENTS if "] * 2.0" not in s]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("statement", JIT_STATEMENTS)
def test_jit_overlapping_write_gives_numpys_result(statement, device):
    n = 4

    @sx.jit
    def write(x):
        _run(statement, x, sx)
        return x[0] * 1.0

    x = _made(n, device)
    first = write(x)
    expected = _numpy(statement, n)
    np.testing.assert_array_equal(np.asarray(x), expected)
    np.testing.assert_array_equal(np.asarray(first), expected[0])
    x = _made(n, device)  # the steady call (compiled already) writes the same
    write(x)
    np.testing.assert_array_equal(np.asarray(x), expected)
    assert x.device == device


@pytest.mark.parametrize("device", DEVICES)
def test_jit_write_from_a_closed_over_reversed_view_of_the_target(device):
    # The value reads the written buffer through a reversed view, and both arrays are closed over (one alias
    # group): XLA's CPU backend updated the buffer in place while reading it (the fuzzer found it); the trace
    # writes such values through a mask instead.
    values = np.random.default_rng(2).standard_normal((1, 3))
    base = sx.asarray(values.copy(), device=device)
    view = base[:, ::-2]

    def program():
        base[:, :-1] = view
        return sx.abs(base), sx.maximum(base, base)

    first, second = sx.jit(program)()
    expected = values.copy()
    expected[:, :-1] = expected[:, ::-2]
    np.testing.assert_array_equal(np.asarray(base), expected)
    np.testing.assert_array_equal(np.asarray(first), np.abs(expected))
    np.testing.assert_array_equal(np.asarray(second), expected)
