"""Creation functions against NumPy: values, dtypes, shapes, copy/sharing semantics, alignment, lowerings."""

from __future__ import annotations

import array
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import stridex as sx
from stridex._core.array import window
from stridex._core.storage import is_aligned
from stridex._lax import creation as cp
from stridex._transforms.tracing import DataDependentShapeError
from tests.lowering_check import check_primitive_lowering

ALL = [sx.bool, sx.int8, sx.int16, sx.int32, sx.int64, sx.uint8, sx.uint16, sx.uint32, sx.uint64,
       sx.float32, sx.float64, sx.complex64, sx.complex128]
NUMERIC = ALL[1:]
shapes = hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=5)


def same(got, want):
    """`got` (a stridex array) equals ndarray `want` in dtype, shape and values (NaNs equal)."""
    assert isinstance(got, sx.Array)
    g = np.asarray(got)
    assert g.dtype == want.dtype, (g.dtype, want.dtype)
    assert g.shape == want.shape, (g.shape, want.shape)
    np.testing.assert_array_equal(g, want)


# --- asarray -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("value, dtype", [(True, sx.bool), (3, sx.int64), (2.5, sx.float64), (1 - 2j, sx.complex128)])
def test_asarray_python_scalars_take_default_dtypes(value, dtype):
    x = sx.asarray(value)
    assert x.dtype is dtype and x.shape == ()
    assert x.dtype.np.type(value) == window(x)[()]


@pytest.mark.parametrize("obj, dtype", [
    ([True, False], sx.bool), ([True, 2], sx.int64), ([1, 2.5], sx.float64), ([1, 2j], sx.complex128),
    ([[1, 2], [3, 4]], sx.int64), ((1.0, (2, 3)[0]), sx.float64), ([], sx.float64),
])
def test_asarray_nested_sequences_infer_the_spec_dtype(obj, dtype):
    x = sx.asarray(obj)
    assert x.dtype is dtype
    same(x, np.asarray(obj, dtype=dtype.np))


def test_asarray_python_data_with_dtype():
    same(sx.asarray([1, 2], dtype=sx.float32), np.asarray([1, 2], np.float32))
    same(sx.asarray(True, dtype=sx.complex64), np.asarray(True, np.complex64))
    same(sx.asarray(7, dtype=sx.uint8), np.asarray(7, np.uint8))
    with pytest.raises(OverflowError):
        sx.asarray(300, dtype=sx.uint8)
    with pytest.raises(TypeError):
        sx.asarray(1j, dtype=sx.float64)


def test_asarray_large_python_ints_follow_numpy():
    assert sx.asarray(2**63).dtype is sx.uint64
    assert sx.asarray([2**63]).dtype is sx.uint64
    with pytest.raises(OverflowError):
        sx.asarray(2**64)
    with pytest.raises(OverflowError):
        sx.asarray([2**64])


def test_asarray_rejects_non_numeric_data():
    for bad in (["a", "b"], "text", [object()], None):
        with pytest.raises((TypeError, ValueError)):
            sx.asarray(bad)
    with pytest.raises(TypeError):
        sx.asarray(np.zeros(2, "datetime64[s]"))  # (float16, once refused here, is a stridex dtype now)
    with pytest.raises(TypeError):
        sx.asarray([1, 2], dtype=np.float32)


def test_asarray_of_sequences_holding_arrays():
    a, b = sx.asarray([1, 2]), sx.asarray([3, 4])
    same(sx.asarray([a, b]), np.asarray([[1, 2], [3, 4]]))
    same(sx.asarray([sx.asarray(1.5), 2]), np.asarray([1.5, 2.0]))


@settings(max_examples=40, deadline=None)
@given(a=hnp.arrays(st.sampled_from([d.np for d in ALL]), shapes))
def test_asarray_shares_numpy_memory_unless_asked_to_copy(a):
    shared = sx.asarray(a)
    same(shared, a)
    copied = sx.asarray(a, copy=True)
    same(copied, a)
    never = sx.asarray(a, copy=False)
    if a.size:
        old = a.reshape(-1)[0].copy()
        a.reshape(-1)[0] = 0 if old != 0 else 1  # differs from old, NaN included
        new = a.reshape(-1)[0]
        np.testing.assert_array_equal(window(shared).reshape(-1)[0], new)
        np.testing.assert_array_equal(window(never).reshape(-1)[0], new)
        np.testing.assert_array_equal(window(copied).reshape(-1)[0], old)


def test_asarray_writes_through_to_numpy_and_back():
    a = np.arange(6.0).reshape(2, 3)
    x = sx.asarray(a)
    x[0, 1] = -1.0
    assert a[0, 1] == -1.0
    a[1, 2] = 42.0
    assert float(x[1, 2]) == 42.0
    strided = a[:, ::2]
    y = sx.asarray(strided)
    y[1, 1] = 7.0
    assert a[1, 2] == 7.0


def test_asarray_copy_semantics_on_arrays():
    x = sx.asarray([1, 2, 3])
    assert sx.asarray(x) is x
    assert sx.asarray(x, copy=False) is x
    y = sx.asarray(x, copy=True)
    y[0] = 10
    assert int(x[0]) == 1
    z = sx.asarray(x, dtype=sx.float32)
    assert z.dtype is sx.float32
    with pytest.raises(ValueError):
        sx.asarray(x, dtype=sx.float32, copy=False)
    with pytest.raises(ValueError):
        sx.asarray(np.arange(3), dtype=sx.float32, copy=False)
    with pytest.raises(ValueError):
        sx.asarray([1, 2], copy=False)
    with pytest.raises(ValueError):
        sx.asarray(1.0, copy=False)
    with pytest.raises(TypeError):
        sx.asarray(sx.asarray([1j]), dtype=sx.float64)


def test_asarray_copies_are_aligned_and_independent():
    a = np.arange(10.0)[1:]  # an unaligned view
    x = sx.asarray(a, copy=True)
    assert is_aligned(window(x))
    a[0] = -5
    assert float(x[0]) == 1.0


def test_asarray_buffer_protocol_objects():
    buf = bytearray(b"\x01\x02\x03")
    x = sx.asarray(buf)
    same(x, np.asarray([1, 2, 3], np.uint8))
    x[0] = 9
    assert buf[0] == 9  # bytearray is writable: shared
    ro = b"\x01\x02"
    y = sx.asarray(ro)
    y[0] = 5  # bytes are read-only: copied on the first write
    assert ro == b"\x01\x02" and int(y[0]) == 5
    same(sx.asarray(array.array("d", [1.5, 2.5])), np.asarray([1.5, 2.5]))
    same(sx.asarray(memoryview(array.array("i", [1, -2]))), np.asarray([1, -2], np.int32))
    with pytest.raises(ValueError):
        sx.asarray(bytearray(b"\x01"), dtype=sx.int64, copy=False)


def test_asarray_numpy_scalars_and_byte_order():
    same(sx.asarray(np.float32(1.5)), np.asarray(1.5, np.float32))
    same(sx.asarray(np.int16(-3), dtype=sx.int64), np.asarray(-3, np.int64))
    swapped = np.arange(4, dtype=">i4")
    same(sx.asarray(swapped), np.arange(4, dtype=np.int32))
    with pytest.raises(ValueError):
        sx.asarray(swapped, copy=False)


def test_asarray_device_keyword():
    info = sx.__array_namespace_info__()
    assert sx.asarray([1], device=info.default_device()).device == info.default_device()
    assert sx.asarray([1], device="cpu").shape == (1,)
    with pytest.raises(ValueError):
        sx.asarray([1], device="tpu:7")


def test_asarray_and_from_dlpack_share_jax_memory_copy_on_write():
    jax = pytest.importorskip("jax")
    jnp = jax.numpy
    j = jnp.arange(4.0)
    # JAX's first CPU device is where stridex's host arrays live in JAX (any other device is a device).
    in_host_memory = j.devices() == {jax.devices("cpu")[0]}
    x = sx.asarray(j)
    y = sx.from_dlpack(j)
    if in_host_memory:
        # A JAX CPU buffer is host memory: both imports share it with NumPy's view of it, zero-copy.
        assert np.shares_memory(window(x), np.asarray(j))
        assert np.shares_memory(window(y), np.asarray(j))
    else:
        # Device memory (a GPU's): both imports are arrays on that device over JAX's very buffer.
        for imported in (x, y):
            assert imported.device.jax in j.devices()
            assert imported._storage.owner.unsafe_buffer_pointer() == j.unsafe_buffer_pointer()
        np.testing.assert_array_equal(np.asarray(x), np.asarray(j))
        np.testing.assert_array_equal(np.asarray(y), np.asarray(j))
    x[0] = 100.0  # copy-on-write wherever the memory is: JAX's array and the other import keep their values
    assert float(j[0]) == 0.0 and float(x[0]) == 100.0 and float(y[0]) == 0.0
    z = sx.from_dlpack(j, copy=True)
    if in_host_memory:
        assert not np.shares_memory(window(z), np.asarray(j))
    z[1] = -1.0
    assert float(j[1]) == 1.0 and float(y[1]) == 1.0
    assert sx.asarray(jnp.arange(3, dtype=jnp.int32)).dtype is sx.int32


def test_from_dlpack():
    a = np.arange(6).reshape(2, 3)
    x = sx.from_dlpack(a)
    same(x, a)
    x[0, 0] = 9
    assert a[0, 0] == 9
    c = sx.from_dlpack(a, copy=True)
    c[0, 0] = 0
    assert a[0, 0] == 9
    assert sx.from_dlpack(x) is x
    same(sx.from_dlpack(x, copy=True), a)
    with pytest.raises(TypeError, match="does not implement the DLPack protocol"):
        sx.from_dlpack([1, 2])
    with pytest.raises(ValueError):
        sx.from_dlpack(a, device="tpu:7")


# --- arange ------------------------------------------------------------------------------------------


@settings(max_examples=100, deadline=None)
@given(start=st.integers(-50, 50), stop=st.integers(-50, 50), step=st.integers(-7, 7).filter(bool))
def test_arange_integers_match_numpy(start, stop, step):
    same(sx.arange(start, stop, step), np.arange(start, stop, step))
    same(sx.arange(stop), np.arange(stop))


@settings(max_examples=100, deadline=None)
@given(start=st.floats(-100, 100), stop=st.floats(-100, 100),
       step=st.floats(0.05, 10) | st.floats(-10, -0.05), dtype=st.sampled_from([sx.float32, sx.float64]))
def test_arange_floats(start, stop, step, dtype):
    out = sx.arange(start, stop, step, dtype=dtype)
    assert out.dtype is dtype and out.ndim == 1
    assert out.shape[0] == max(math.ceil((stop - start) / step), 0)
    want = (start + np.arange(out.shape[0]) * step).astype(dtype.np)
    np.testing.assert_array_equal(np.asarray(out), want)


@pytest.mark.parametrize("dtype", [sx.int8, sx.int16, sx.int32, sx.int64, sx.uint8, sx.uint16, sx.uint32, sx.uint64])
def test_arange_integer_dtypes_at_the_edges_of_their_range(dtype):
    info = sx.iinfo(dtype)
    same(sx.arange(info.max, info.max - 5, -2, dtype=dtype), np.arange(info.max, info.max - 5, -2, dtype=dtype.np))
    same(sx.arange(info.min, info.min + 5, 2, dtype=dtype), np.arange(info.min, info.min + 5, 2, dtype=dtype.np))
    same(sx.arange(10, 0, -3, dtype=dtype), np.arange(10, 0, -3, dtype=dtype.np))


def test_arange_dtypes_and_errors():
    assert sx.arange(3).dtype is sx.int64
    assert sx.arange(3.0).dtype is sx.float64
    assert sx.arange(0, 3, 0.5).dtype is sx.float64
    same(sx.arange(0.5, 3, dtype=sx.int32), np.asarray([0, 1, 2], np.int32))
    same(sx.arange(np.int32(3)), np.arange(3))
    with pytest.raises(ValueError):
        sx.arange(0, 5, 0)
    with pytest.raises(TypeError, match="bool"):
        sx.arange(3, dtype=sx.bool)
    with pytest.raises(TypeError):
        sx.arange(1j)
    with pytest.raises(TypeError, match=r"shape \(1,\)"):
        sx.arange(sx.asarray([3]))


# --- full, zeros, ones, empty and the _like forms ------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(shape=shapes, dtype=st.sampled_from(ALL))
def test_zeros_ones_empty_full(shape, dtype):
    same(sx.zeros(shape, dtype=dtype), np.zeros(shape, dtype.np))
    same(sx.ones(shape, dtype=dtype), np.ones(shape, dtype.np))
    e = sx.empty(shape, dtype=dtype)
    assert e.shape == shape and e.dtype is dtype
    same(sx.full(shape, True, dtype=dtype), np.full(shape, True, dtype.np))
    x = sx.asarray(np.zeros(shape, np.int8))
    same(sx.zeros_like(x, dtype=dtype), np.zeros(shape, dtype.np))
    same(sx.ones_like(x, dtype=dtype), np.ones(shape, dtype.np))
    same(sx.full_like(x, 1, dtype=dtype), np.full(shape, 1, dtype.np))
    assert sx.empty_like(x, dtype=dtype).dtype is dtype and sx.empty_like(x).dtype is sx.int8
    for made in (sx.zeros(shape, dtype=dtype), sx.ones(shape, dtype=dtype), e, sx.empty_like(x)):
        assert is_aligned(window(made)) or made.size == 0


def test_full_infers_dtype_from_the_fill_value():
    assert sx.full(2, True).dtype is sx.bool
    assert sx.full(2, 3).dtype is sx.int64
    assert sx.full(2, 3.5).dtype is sx.float64
    assert sx.full((2, 2), 1 + 1j).dtype is sx.complex128
    same(sx.full((), float("nan")), np.asarray(float("nan")))
    same(sx.full((2,), complex(float("inf"), -0.0), dtype=sx.complex64),
         np.full((2,), complex(float("inf"), -0.0), np.complex64))
    assert sx.zeros(3).dtype is sx.float64 and sx.ones((1, 2)).dtype is sx.float64
    assert sx.full_like(sx.zeros(2, dtype=sx.uint8), 7).dtype is sx.uint8


def test_full_and_shape_errors():
    with pytest.raises(TypeError):
        sx.full(2, 1j, dtype=sx.float64)
    with pytest.raises(TypeError):
        sx.full(2, "x")
    with pytest.raises(TypeError, match=r"shape \(2,\)"):
        sx.full(2, sx.asarray([1.0, 2.0]))
    with pytest.raises(TypeError, match="complex128"):
        sx.full(2, sx.asarray(1j), dtype=sx.float64)
    with pytest.raises(ValueError):
        sx.zeros((2, -1))
    with pytest.raises(TypeError):
        sx.ones((2.0, 3))
    with pytest.raises(TypeError):
        sx.zeros(2, dtype="float64")
    with pytest.raises(TypeError):
        sx.zeros_like(np.zeros(2))
    with pytest.raises(ValueError):
        sx.empty(2, device="tpu")


# --- eye, tril, triu ------------------------------------------------------------------------------------


@settings(max_examples=80, deadline=None)
@given(n=st.integers(0, 6), m=st.none() | st.integers(0, 6), k=st.integers(-8, 8), dtype=st.sampled_from(ALL))
def test_eye_matches_numpy(n, m, k, dtype):
    out = sx.eye(n, m, k=k, dtype=dtype)
    same(out, np.eye(n, m, k=k, dtype=dtype.np))
    assert is_aligned(window(out)) or out.size == 0


def test_eye_errors():
    with pytest.raises(ValueError):
        sx.eye(-1)
    with pytest.raises(TypeError):
        sx.eye(2.0)
    with pytest.raises(TypeError):
        sx.eye(2, k=1.5)


@settings(max_examples=80, deadline=None)
@given(shape=hnp.array_shapes(min_dims=2, max_dims=4, min_side=0, max_side=5), k=st.integers(-6, 6),
       dtype=st.sampled_from(ALL))
def test_tril_triu_match_numpy(shape, k, dtype):
    a = (np.arange(math.prod(shape)).reshape(shape) % 7).astype(dtype.np)
    x = sx.asarray(a)
    same(sx.tril(x, k=k), np.tril(a, k))
    same(sx.triu(x, k=k), np.triu(a, k))


def test_tril_triu_zero_out_nans_and_need_matrices():
    a = np.full((3, 3), np.nan)
    same(sx.tril(sx.asarray(a)), np.tril(a))
    same(sx.triu(sx.asarray(a)[:, ::-1]), np.triu(a[:, ::-1]))
    with pytest.raises(ValueError):
        sx.tril(sx.asarray([1.0, 2.0]))
    with pytest.raises(TypeError):
        sx.triu(sx.ones((2, 2)), k=0.5)


# --- linspace, meshgrid -----------------------------------------------------------------------------------


@settings(max_examples=100, deadline=None)
@given(start=st.floats(-1e6, 1e6) | st.integers(-1000, 1000), stop=st.floats(-1e6, 1e6),
       num=st.integers(0, 20), endpoint=st.booleans(), dtype=st.sampled_from([None, sx.float32, sx.float64]))
def test_linspace_matches_numpy(start, stop, num, endpoint, dtype):
    want = np.linspace(start, stop, num, endpoint=endpoint, dtype=None if dtype is None else dtype.np)
    same(sx.linspace(start, stop, num, endpoint=endpoint, dtype=dtype), want)


def test_linspace_complex_integer_and_errors():
    same(sx.linspace(0, 1 + 2j, 5), np.linspace(0, 1 + 2j, 5))
    same(sx.linspace(1j, 2, 3, dtype=sx.complex64, endpoint=False),
         np.linspace(1j, 2, 3, endpoint=False, dtype=np.complex64))
    same(sx.linspace(0, 10, 4, dtype=sx.int64), np.linspace(0, 10, 4, dtype=np.int64))
    same(sx.linspace(0.0, 5e-324, 3), np.linspace(0.0, 5e-324, 3))
    same(sx.linspace(2.0, 3.0, 1), np.linspace(2.0, 3.0, 1))
    with pytest.raises(ValueError):
        sx.linspace(0, 1, -1)
    with pytest.raises(TypeError):
        sx.linspace(0, 1j, 3, dtype=sx.float64)
    with pytest.raises(TypeError):
        sx.linspace(0, 1, 3, dtype=sx.bool)


@settings(max_examples=50, deadline=None)
@given(sizes=st.lists(st.integers(0, 4), min_size=0, max_size=4), indexing=st.sampled_from(["xy", "ij"]))
def test_meshgrid_matches_numpy(sizes, indexing):
    vectors = [np.arange(n) * (i + 1) for i, n in enumerate(sizes)]
    got = sx.meshgrid(*(sx.asarray(v) for v in vectors), indexing=indexing)
    want = np.meshgrid(*vectors, indexing=indexing)
    assert isinstance(got, tuple) and len(got) == len(want)
    for g, w in zip(got, want):
        same(g, w)


def test_meshgrid_outputs_are_independent_copies():
    a, b = sx.asarray([1, 2, 3]), sx.asarray([4, 5])
    x, _ = sx.meshgrid(a, b)
    x[0, 0] = 100
    assert int(a[0]) == 1 and int(x[1, 0]) == 1
    with pytest.raises(ValueError):
        sx.meshgrid(a, indexing="yx")
    with pytest.raises(ValueError):
        sx.meshgrid(sx.ones((2, 2)))


# --- lowering rules -------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", NUMERIC[:10])
def test_creation_lowerings(dtype):
    pytest.importorskip("jax")
    check_primitive_lowering(cp.iota, start=3, step=-2, num=5, dtype=dtype) if dtype.kind == "signed" else None
    check_primitive_lowering(cp.iota, start=1, step=3, num=6, dtype=dtype)
    check_primitive_lowering(cp.full, shape=(2, 3), fill_value=1, dtype=dtype)
    check_primitive_lowering(cp.eye, n_rows=3, n_cols=5, k=1, dtype=dtype)
    check_primitive_lowering(cp.eye, n_rows=4, n_cols=2, k=-1, dtype=dtype)
    x = sx.asarray((np.arange(24).reshape(2, 3, 4) % 5).astype(dtype.np))
    for k in (-1, 0, 2):
        check_primitive_lowering(cp.triangle, x, k=k, upper=False)
        check_primitive_lowering(cp.triangle, x, k=k, upper=True)


def test_iota_lowering_wraps_like_eager():
    pytest.importorskip("jax")
    check_primitive_lowering(cp.iota, start=250, step=-1, num=200, dtype=sx.uint8)
    check_primitive_lowering(cp.iota, start=-128, step=1, num=256, dtype=sx.int8)
    check_primitive_lowering(cp.iota, start=2**64 - 3, step=1, num=3, dtype=sx.uint64)
    check_primitive_lowering(cp.iota, start=0.5, step=0.1, num=7, dtype=sx.float32)
    check_primitive_lowering(cp.iota, start=0.5, step=1.5, num=4, dtype=sx.int16)


def test_full_empty_eye_lowerings_other_dtypes():
    pytest.importorskip("jax")
    for dtype in (sx.bool, sx.complex64, sx.complex128):
        check_primitive_lowering(cp.full, shape=(2,), fill_value=True, dtype=dtype)
        check_primitive_lowering(cp.eye, n_rows=2, n_cols=3, k=0, dtype=dtype)
    check_primitive_lowering(cp.full, shape=(3,), fill_value=complex(1.5, -2), dtype=sx.complex64)
    check_primitive_lowering(cp.full, shape=(), fill_value=float("nan"), dtype=sx.float32)
    x = sx.asarray(np.asarray([[1 + 1j, 2], [3, 4j]]))
    check_primitive_lowering(cp.triangle, x, k=0, upper=True)
    eager = cp.empty.bind(shape=(2, 2), dtype=sx.int32)
    assert eager.shape == (2, 2) and eager.dtype is sx.int32


@pytest.mark.parametrize("start, stop, num, endpoint, dtype", [
    (0.0, 1.0, 5, True, sx.float64), (-3.0, 7.5, 11, False, sx.float32), (0.0, 10.0, 4, True, sx.int64),
    (0j, 1 + 2j, 5, True, sx.complex128), (1.0, 2.0, 1, True, sx.float64), (1.0, 2.0, 0, False, sx.float64),
    (0.0, 5e-324, 3, True, sx.float64),
])
def test_linspace_lowering(start, stop, num, endpoint, dtype):
    pytest.importorskip("jax")
    check_primitive_lowering(cp.linspace, start=start, stop=stop, num=num, endpoint=endpoint, dtype=dtype, rtol=0)


def test_linspace_under_jit_ends_exactly_at_stop():
    pytest.importorskip("jax")
    for start, stop in ((1.0, 0.0), (-1.0, 0.0), (0.3, -0.0), (2.0, 1e-300)):
        for num in (2, 3, 527, 528, 529, 1000):
            got = sx.jit(lambda a, b, n: sx.linspace(a, b, n), static_argnums=(0, 1, 2))(start, stop, num)
            last = np.asarray(got)[-1]
            assert last == stop and np.signbit(last) == np.signbit(stop), (start, stop, num, last)
            scale = max(abs(start), abs(stop))  # (XLA may fuse i * step + start: an ulp of the scale)
            np.testing.assert_allclose(np.asarray(got), np.linspace(start, stop, num), rtol=0, atol=1e-15 * scale)


def test_creation_functions_under_jit_match_eager():
    pytest.importorskip("jax")
    x = sx.asarray(np.arange(12.0).reshape(3, 4))

    def f(x):
        return (sx.zeros_like(x), sx.ones_like(x, dtype=sx.int8), sx.full_like(x, 2.5), sx.empty_like(x).shape,
                sx.eye(3, 4, k=1) + x, sx.tril(x, k=-1), sx.triu(x, k=1), sx.arange(2, 11, 3, dtype=sx.uint8),
                sx.arange(0.5, 2.0, 0.25), sx.linspace(-1, 1, 5, dtype=sx.float32), sx.linspace(0, 1j, 3),
                sx.meshgrid(x[0], x[:, 1], indexing="xy")[1], sx.full((2,), 7), sx.asarray([[1, 2]], dtype=sx.int32),
                sx.asarray(x, copy=True), sx.astype(x, sx.complex64), sx.astype(x, sx.bool))

    eager = f(x)
    jitted = sx.jit(f)(x)
    for e, j in zip(eager, jitted):
        if isinstance(e, tuple):
            assert e == j
            continue
        assert e.shape == j.shape and e.dtype is j.dtype
        np.testing.assert_array_equal(np.asarray(e), np.asarray(j))


class _HostOnlyProducer:
    """A DLPack producer whose memory cannot be shared (like an accelerator array): export fails, __array__ copies."""

    def __init__(self, values):
        self.values = np.asarray(values)

    def __dlpack__(self, **kwargs):
        raise BufferError("memory is not on the CPU")

    def __dlpack_device__(self):
        return (2, 0)

    def __array__(self, dtype=None, copy=None):
        return self.values.copy()


def test_asarray_of_a_producer_that_cannot_share_copies_or_raises():
    producer = _HostOnlyProducer([1.0, 2.0])
    same(sx.asarray(producer), np.asarray([1.0, 2.0]))
    same(sx.asarray(producer, dtype=sx.float32), np.asarray([1.0, 2.0], np.float32))
    with pytest.raises(ValueError):
        sx.asarray(producer, copy=False)
    with pytest.raises(BufferError):
        sx.from_dlpack(producer)


def test_huge_diagonal_offsets_are_clamped_not_overflowed():
    import stridex as sx

    assert sx.eye(0, None, k=-(2**63) - 1).shape == (0, 0)
    np.testing.assert_array_equal(np.asarray(sx.eye(2, 3, k=2**70)), np.zeros((2, 3)))
    ones = sx.ones((2, 3))
    np.testing.assert_array_equal(np.asarray(sx.tril(ones, k=-(2**70))), np.zeros((2, 3)))
    np.testing.assert_array_equal(np.asarray(sx.triu(ones, k=-(2**70))), np.ones((2, 3)))
    np.testing.assert_array_equal(np.asarray(sx.jit(lambda a: sx.triu(a, k=2**70))(ones)), np.zeros((2, 3)))


# --- inputs client libraries pass beyond the spec (docs/library-authors.md) ------------------------------


@pytest.mark.parametrize("dtype", ALL)
def test_full_and_full_like_take_a_0d_array_fill_value(dtype):
    value = np.asarray(3 if dtype is not sx.bool else True, dtype.np)
    same(sx.full((2, 3), sx.asarray(value)), np.full((2, 3), value))  # dtype None: the array's dtype
    other = sx.complex64 if dtype.kind == "complex floating" else sx.float32  # a complex value needs a complex dtype
    same(sx.full(4, sx.asarray(value), dtype=other), np.full(4, value, other.np))
    like = sx.zeros((3, 2), dtype=other)
    same(sx.full_like(like, sx.asarray(value)), np.full_like(np.zeros((3, 2), other.np), value))
    same(sx.full_like(like, sx.asarray(value), dtype=dtype), np.full((3, 2), value, dtype.np))
    if dtype.kind == "complex floating":
        with pytest.raises(TypeError, match=f"{dtype.name} fill_value does not fit dtype int16"):
            sx.full(2, sx.asarray(value), dtype=sx.int16)


def test_full_with_a_0d_array_fill_value_keeps_its_exact_value():
    big = np.asarray(2**64 - 1, np.uint64)
    same(sx.full(2, sx.asarray(big)), np.full(2, big))
    tiny = np.asarray(np.finfo(np.float32).smallest_subnormal)
    same(sx.full((), sx.asarray(tiny)), np.full((), tiny))
    same(sx.full(2, sx.asarray(np.asarray(1 - 2j, np.complex64)), dtype=sx.bool), np.full(2, 1 - 2j, np.bool_))


def test_full_with_a_traced_0d_fill_value_under_jit():
    pytest.importorskip("jax")
    f = sx.jit(lambda c: sx.full((2, 3), c, dtype=sx.int8))
    for code in (7, -3):  # one program: the value is an input, not baked into the trace
        same(f(sx.asarray(code)), np.full((2, 3), code, np.int8))
    x = sx.asarray(np.zeros((2, 2), np.float32))
    g = sx.jit(lambda x, c: sx.full_like(x, c))
    same(g(x, sx.asarray(1.5)), np.full((2, 2), 1.5, np.float32))
    same(g(x, sx.asarray(2.25)), np.full((2, 2), 2.25, np.float32))
    same(sx.jit(lambda c: sx.full(3, c))(sx.asarray(np.float32(0.1))), np.full(3, np.float32(0.1)))

    def written(c):  # the result is a fresh array: writing it leaves the fill value alone
        out = sx.full(3, c)
        out[0] = 5.0
        return out, c

    out, c = sx.jit(written)(sx.asarray(2.0))
    same(out, np.asarray([5.0, 2.0, 2.0]))
    same(c, np.asarray(2.0))
    # Derivatives flow through a traced fill value, as in JAX.
    same(sx.grad(lambda c: sx.sum(sx.full((2, 2), c)))(sx.asarray(3.0)), np.asarray(4.0))


@pytest.mark.parametrize("pytype", [bool, int, float, complex])
def test_creation_takes_python_types_as_dtypes(pytype):
    want = np.dtype(pytype)  # NumPy's (and JAX's with x64) default dtype for that type
    same(sx.zeros(3, dtype=pytype), np.zeros(3, dtype=pytype))
    same(sx.ones((2, 2), dtype=pytype), np.ones((2, 2), dtype=pytype))
    same(sx.full(2, 1, dtype=pytype), np.full(2, 1, dtype=pytype))
    same(sx.eye(2, dtype=pytype), np.eye(2, dtype=pytype))
    same(sx.asarray([0, 1], dtype=pytype), np.asarray([0, 1], dtype=pytype))
    same(sx.zeros_like(sx.ones(2, dtype=sx.int8), dtype=pytype), np.zeros(2, dtype=pytype))
    same(sx.full_like(sx.ones(2, dtype=sx.int8), 1, dtype=pytype), np.ones(2, dtype=pytype))
    assert sx.empty(2, dtype=pytype).dtype.np == want
    assert sx.empty_like(sx.ones(2), dtype=pytype).dtype.np == want
    if pytype is not bool:
        same(sx.arange(3, dtype=pytype), np.arange(3, dtype=pytype))
        same(sx.linspace(0, 2, 5, dtype=pytype), np.linspace(0, 2, 5, dtype=pytype))
    pytest.importorskip("jax")
    same(sx.jit(lambda: sx.ones((2,), dtype=pytype))(), np.ones(2, dtype=pytype))
    with pytest.raises(TypeError, match="bool/int/float/complex"):
        sx.zeros(2, dtype=str)


def test_arange_and_linspace_take_0d_array_bounds():
    a = sx.asarray
    same(sx.arange(a(1), a(7), a(2)), np.arange(np.asarray(1), np.asarray(7), np.asarray(2)))
    same(sx.arange(a(5)), np.arange(np.asarray(5)))
    same(sx.arange(a(0.5), 3, a(0.5)), np.arange(np.asarray(0.5), 3, np.asarray(0.5)))
    same(sx.linspace(a(0.0), a(1.0), 5), np.linspace(np.asarray(0.0), np.asarray(1.0), 5))
    same(sx.linspace(a(1), a(2j), 3), np.linspace(np.asarray(1), np.asarray(2j), 3))
    with pytest.raises(TypeError, match="bool"):
        sx.arange(a(True))
    pytest.importorskip("jax")
    # Traced bounds: arange's length would depend on them, which jit refuses; linspace's are program inputs.
    with pytest.raises(DataDependentShapeError, match="stop"):
        sx.jit(lambda n: sx.arange(0, n), graph_breaks=False)(a(3))
    same(sx.jit(lambda n: sx.arange(0, n))(a(3)), np.arange(0, 3))  # a graph break: the bound is taken
    same(sx.jit(lambda s, e: sx.linspace(s, e, 5))(a(0.0), a(1.0)), np.linspace(0.0, 1.0, 5))


@pytest.mark.parametrize("dtype", [sx.complex64, sx.complex128])
def test_arange_of_complex_dtype_matches_numpy(dtype):
    same(sx.arange(3, dtype=dtype), np.arange(3, dtype=dtype.np))
    same(sx.arange(0.5, 2.0, 0.25, dtype=dtype), np.arange(0.5, 2.0, 0.25, dtype=dtype.np))
    same(sx.arange(5, -4, -3, dtype=dtype), np.arange(5, -4, -3, dtype=dtype.np))
    pytest.importorskip("jax")
    same(sx.jit(lambda: sx.arange(1, 9, 2, dtype=dtype))(), np.arange(1, 9, 2, dtype=dtype.np))
