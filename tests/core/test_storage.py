"""The storage kinds (`stridex/_core/storage.py`): which kind each way of making an array gives, and what each
kind does on a read, a view and a write, checked against NumPy and against the memory it came from."""

from __future__ import annotations

import numpy as np
import pytest

import stridex as sx
from stridex._core.storage import JAX_RESULT, NO_STORAGE, HostStorage, JaxResultStorage, ReadOnlyStorage


def test_a_fresh_result_gets_its_host_storage_when_a_view_is_taken():
    x = sx.asarray([1.0, 2.0, 3.0]) + 1.0
    assert x._storage is NO_STORAGE and not x._storage.adopted  # (only its window so far)
    v = x[1:]
    assert type(x._storage) is HostStorage and v._storage is x._storage
    v[0] = -1.0  # a view shares the memory both ways
    np.testing.assert_array_equal(np.asarray(x), [2.0, -1.0, 4.0])
    assert x.device == "cpu" and x._storage.is_host and not x._storage.readonly


def test_read_only_numpy_memory_is_copied_on_the_first_write_and_becomes_host_memory():
    a = np.arange(4.0)
    a.flags.writeable = False
    x = sx.asarray(a)
    v = x[2:]
    storage = x._storage
    assert type(storage) is ReadOnlyStorage and v._storage is storage and storage.shared_buffer() is not None
    assert np.shares_memory(np.asarray(x), a)  # reads share it
    x[0] = 9.0
    assert x._storage is storage and type(storage) is HostStorage and storage.owner is None
    np.testing.assert_array_equal(a, np.arange(4.0))  # the borrowed memory is never written
    np.testing.assert_array_equal(np.asarray(x), [9.0, 1.0, 2.0, 3.0])
    v[0] = 7.0  # the view sees the copy, and writes into it
    np.testing.assert_array_equal(np.asarray(x), [9.0, 1.0, 7.0, 3.0])


@pytest.mark.parametrize("use", ["read", "view", "write"])
def test_a_jit_result_on_the_host_is_a_jax_result_storage_read_lazily(use):
    pytest.importorskip("jax")
    r = sx.jit(lambda a: a * 2.0)(sx.asarray([1.0, 2.0, 3.0]))
    assert r._storage is JAX_RESULT and r.device == "cpu"  # (its JAX array kept, no storage made)
    jax_array = r._jax
    storage = r._storage_view()[0]
    assert type(storage) is JaxResultStorage and r._storage is storage and storage.owner is jax_array
    assert storage.readonly and storage.shared_buffer() is None  # (not read)
    if use == "read":
        np.testing.assert_array_equal(np.asarray(r), [2.0, 4.0, 6.0])
        assert type(storage) is JaxResultStorage and storage.shared_buffer() is not None
    elif use == "view":
        v = r[1:]
        assert v._storage is storage and storage.shared_buffer() is None  # (a view reads nothing)
        np.testing.assert_array_equal(np.asarray(v), [4.0, 6.0])
    else:
        r[1] = 0.0
        assert r._storage is storage and type(storage) is HostStorage
        np.testing.assert_array_equal(np.asarray(r), [2.0, 0.0, 6.0])
        np.testing.assert_array_equal(np.asarray(jax_array), [2.0, 4.0, 6.0])  # the JAX array is unchanged


def test_a_copy_is_private_host_memory():
    a = np.arange(3.0)
    a.flags.writeable = False
    x = sx.asarray(a)
    storage = x._storage.copy()
    assert type(storage) is HostStorage and not np.shares_memory(storage.numpy_buffer(), a)
    np.testing.assert_array_equal(storage.numpy_buffer(), a)
