"""Assertions shared by the test modules."""

from __future__ import annotations

import numpy as np

import stridex as sx


def check(got, want, dtype=None):
    """`got` is a stridex array equal to `want` in shape and values (and of `dtype` when given)."""
    assert isinstance(got, sx.Array)
    got_np, want = np.asarray(got), np.asarray(want)
    assert got_np.shape == want.shape, (got_np.shape, want.shape)
    if dtype is not None:
        assert got.dtype == dtype
    np.testing.assert_array_equal(got_np, want)
