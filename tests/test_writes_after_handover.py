"""A write into host memory right after stridex handed that memory to JAX never reaches what JAX computes from it.

JAX dispatches asynchronously: it converts (or, for aligned memory, aliases) a NumPy argument as the program runs,
and copies host memory to a device as the transfer runs, both possibly after the call has returned. On a CPU device
`jax.device_put` aliases aligned host memory instead of copying it. Eagerly, an operation has read its operands when
it returns, and stridex keeps that meaning wherever it hands host memory over: a `jit` call given host arrays (the
general call and the memo), an eager operation that runs a compiled program (`gammaln`), a transfer to a JAX device
(`to_device`, `asarray(device=)`, an index array taken to a device), and a JAX copy (`jnp.asarray` of a view).

Each case computes on an array of ones, then writes zeros into it at once; the result must be the one computed
from ones. The work is a few million elements of transcendental functions, long enough that a program still
reading when the write lands shows (before the fix every case but the small one failed on every run).
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("jax")

import stridex as sx
from stridex._core.storage import aligned_copy

N = 1 << 21  # (2M float64: 16 MiB, some 20 ms of work on one core)


def heavy(a):
    return sx.sum(sx.sin(a) ** 2 + sx.cos(a))


_jitted = sx.jit(heavy)


def _fresh(n=N):
    return sx.asarray(np.ones(n), copy=True, device="cpu")  # (host memory, whatever the default device)


def _misaligned(n=N):
    raw = np.ones(n + 1)
    return sx.asarray(raw[1:], device="cpu")  # (8 bytes past the buffer's start: JAX copies it on every call)


def _borrowed(n=N):
    return sx.asarray(aligned_copy(np.ones(n)), device="cpu")  # (NumPy memory stridex writes through)


CASES = {
    "jit, first call": (lambda: _fresh(), _jitted),
    "jit, a small window": (lambda: _fresh(1000), sx.jit(heavy)),
    "jit, a misaligned window": (_misaligned, sx.jit(heavy)),
    "jit, a borrowed NumPy array": (_borrowed, sx.jit(heavy)),
    "eager gammaln (a compiled program)": (lambda: _fresh(), lambda x: sx.scipy.special.gammaln(x)),
    "jnp.asarray of a view": (lambda: _fresh(N + 8)[4:-4], lambda x: _jnp().asarray(x)),
}


def _jnp():
    import jax.numpy as jnp

    return jnp


def _values(y) -> np.ndarray:
    """A host copy of stridex or JAX array y's values."""
    if isinstance(y, sx.Array) and y.device != "cpu":
        y = y.to_device("cpu")
    return np.array(np.asarray(y), copy=True)


@pytest.mark.parametrize("case", list(CASES))
def test_a_write_right_after_the_call_does_not_reach_its_result(case):
    make, op = CASES[case]
    want = _values(op(make()))
    for _ in range(2):
        x = make()
        y = op(x)
        x[...] = 0.0
        np.testing.assert_array_equal(_values(y), want)


def test_a_jit_memo_over_a_large_array_waits_for_the_program():
    """The memo's direct call passes the alias of the array's memory (`memo.ALIAS`): it returns once the program
    has read it, on every call."""
    g = sx.jit(heavy)
    x = _fresh()
    want = _values(g(x))
    for _ in range(4):
        x[...] = 1.0
        y = g(x)
        x[...] = 0.0
        np.testing.assert_array_equal(_values(y), want)
    assert hasattr(g.__call__, "entry")  # (the memo's call)


@pytest.fixture
def second_device():
    import jax

    if len(jax.devices("cpu")) < 2:
        pytest.skip("JAX has one CPU device (XLA_FLAGS=--xla_force_host_platform_device_count=4 gives more)")
    return "cpu:1"


@pytest.mark.parametrize("how", ["to_device", "asarray(device=)", "asarray of NumPy memory"])
def test_a_transfer_to_a_device_is_a_copy_of_the_values_then(how, second_device):
    source = np.ones(N)
    x = sx.asarray(aligned_copy(source), device="cpu") if how == "asarray of NumPy memory" else _fresh()
    y = x.to_device(second_device) if how == "to_device" else sx.asarray(x, device=second_device)
    x[...] = 0.0
    np.testing.assert_array_equal(_values(y), source)


def test_an_index_array_taken_to_a_device_is_a_copy(second_device):
    """`x[k]` on a device takes host index array `k` there (`device.index_on`): a copy, not an alias of k."""
    from stridex._exec import device, placement

    k = sx.asarray(np.zeros(N // 8, dtype=np.int64), copy=True, device="cpu")
    on_device = device.index_on(k, placement.resolve(second_device))
    k[...] = 5
    np.testing.assert_array_equal(_values(on_device), np.zeros(N // 8, dtype=np.int64))
    values = sx.arange(10.0, device=second_device)
    y = values[k]
    k[...] = 0
    np.testing.assert_array_equal(_values(y), np.full(N // 8, 5.0))
