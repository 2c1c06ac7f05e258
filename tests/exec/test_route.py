"""The one routing decision (`stridex._exec.route.apply`, and `route.binary`, its two-operand case): for each eager
entry point (`bind`, Array's operators and the namespace functions, the device executor handing work back), where
an application runs, and the values against NumPy."""

from __future__ import annotations

import os

import numpy as np
import pytest

import stridex as sx
from stridex._exec import route
from stridex._exec.fusion import limits

DEV = os.environ.get("STRIDEX_TEST_DEVICE", "cpu:1")
N = limits.DEFER_MIN_ELEMENTS


def _where(a) -> str:
    if sx.fusion.pending(a) is not None:
        return "deferred"
    return "device" if a.device != "cpu" else "host"


@pytest.mark.parametrize("n", [1, 1000, N - 1, N, N + 1])
def test_host_now_or_deferred_by_size_on_both_entries(n):
    a, b = np.linspace(-2.0, 2.0, n), np.linspace(1.0, 3.0, n)
    x, y = sx.asarray(a, copy=True), sx.asarray(b, copy=True)  # (private memory: borrowed is read now)
    by_operator = x * y  # (Array's operator: route.binary, apply's two-operand case)
    by_function = sx.multiply(x, y)  # (the namespace function: route.binary too)
    by_bind = sx.multiply.fast_path[1].bind(x, y)  # (Primitive.bind -> route.apply -> route.binary)
    want = "deferred" if n >= N else "host"
    assert _where(by_operator) == _where(by_function) == _where(by_bind) == want
    for z in (by_operator, by_function, by_bind):
        np.testing.assert_array_equal(np.asarray(z), a * b)


def test_fusion_off_runs_now_and_a_strided_view_is_read_now():
    a = np.linspace(0.0, 1.0, 2 * N)
    x = sx.asarray(a, copy=True)
    with sx.fusion(False):
        assert _where(sx.sin(x)) == "host"
    assert _where(sx.sin(x[::2])) == "host"  # (a strided window is never deferred: NumPy picks loops by layout)
    np.testing.assert_array_equal(np.asarray(sx.sin(x[::2])), np.sin(a[::2]))


def test_special_values_across_the_threshold():
    a = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 1.0] * (N // 6 + 1))
    for x in (sx.asarray(a[:6]), sx.asarray(a)):
        n = x.shape[0]
        np.testing.assert_array_equal(np.asarray(x * -1.0), a[:n] * -1.0)
        np.testing.assert_array_equal(np.signbit(np.asarray(x + 0.0)), np.signbit(a[:n] + 0.0))


def test_device_operands_go_to_the_device():
    a = np.arange(6.0)
    x = sx.asarray(a, device=DEV)
    assert (x + x).device == DEV and sx.sum(x).device == DEV
    np.testing.assert_array_equal(np.asarray(x + x), a + a)
    with pytest.raises(ValueError, match="different devices"):
        x + sx.asarray(a)


def test_creation_from_nothing_goes_to_the_default_device():
    with sx.default_device(DEV):
        z = sx.zeros(3)
    assert z.device == DEV
    np.testing.assert_array_equal(np.asarray(z), np.zeros(3))


def test_the_device_executor_hands_data_dependent_work_back_through_the_host():
    a = np.array([3.0, 1.0, 3.0, 2.0])
    x = sx.asarray(a, device=DEV)
    u = sx.unique_values(x)  # (its result's shape depends on the data: run on the host, sent back)
    assert u.device == DEV
    np.testing.assert_array_equal(np.asarray(u), [1.0, 2.0, 3.0])
    x[x > 2.0] = sx.asarray(np.array([7.0, 8.0]), device=DEV)  # (a mask write: through the host too)
    assert x.device == DEV
    np.testing.assert_array_equal(np.asarray(x), [7.0, 1.0, 8.0, 2.0])


def test_apply_takes_scalars_and_subclass_free_operands_as_bind_does():
    a = np.arange(4.0)
    x = sx.asarray(a)
    p = sx.add.fast_path[1]
    np.testing.assert_array_equal(np.asarray(route.apply(p, (x, 2.5), {})), a + 2.5)
    np.testing.assert_array_equal(np.asarray(route.apply(p, (2.5, x), {})), 2.5 + a)
    np.testing.assert_array_equal(np.asarray(p.bind(x, x)), a + a)
