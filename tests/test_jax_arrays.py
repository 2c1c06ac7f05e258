"""Arrays crossing between JAX and stridex: `sx.asarray(jax_array)`, `jnp.asarray(x)` (`x.__jax_array__()`),
DLPack both ways, on the host and on a JAX device ("cpu:1"). Memory is shared where neither side can change it
afterwards (checked by buffer address) and copied otherwise; a stridex write never changes a JAX array, nor one
JAX still holds; dtypes map one to one, and JAX's x64 mode narrows only on JAX's side."""

from __future__ import annotations

import os

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import stridex as sx
from stridex._core.storage import ALIGNED_OUTPUT_ELEMENTS, JAX_RESULT, address_of
from stridex._exec.fusion.limits import DEFER_MIN_ELEMENTS

DEV = os.environ.get("STRIDEX_TEST_DEVICE", "cpu:1")


@pytest.fixture(autouse=True)
def x64():
    with jax.enable_x64(True):
        yield


def pointer(x) -> int:
    """The address of the first element of a stridex array's memory (found without handing the memory out, which
    would change how it may be shared), or of a JAX array's buffer."""
    if isinstance(x, jax.Array):
        return x.unsafe_buffer_pointer()
    st = x._storage
    if not st.is_host:
        return st.owner.unsafe_buffer_pointer()
    if x._np is not None:
        return address_of(x._np)
    if st is JAX_RESULT:
        return x._jax.unsafe_buffer_pointer()
    return address_of(st.window(x))


def jax_device(name):
    platform, _, index = name.partition(":")
    return jax.devices(platform)[int(index or 0)]


# --- JAX to stridex ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("place", ["cpu:0", DEV])
@pytest.mark.parametrize("convert", [sx.asarray, sx.from_dlpack])
def test_a_jax_array_is_shared_and_never_written(place, convert):
    j = jax.device_put(jnp.arange(5.0), jax_device(place))
    x = convert(j)
    assert pointer(x) == pointer(j)  # shared: no copy
    assert x.device == ("cpu" if place == "cpu:0" else place)
    y = x[1:]  # a view shares too
    x[0] = 10.0  # copy-on-write: the JAX array is never changed
    np.testing.assert_array_equal(np.asarray(j), np.arange(5.0))
    np.testing.assert_array_equal(np.asarray(x), [10.0, 1.0, 2.0, 3.0, 4.0])
    np.testing.assert_array_equal(np.asarray(y), [1.0, 2.0, 3.0, 4.0])  # the view sees the write, as eagerly


# --- stridex to JAX ---------------------------------------------------------------------------------------------


N = ALIGNED_OUTPUT_ELEMENTS + 100  # fresh results this large are 64-byte aligned (JAX can alias them)
FUSED = DEFER_MIN_ELEMENTS + 100  # eager results this large are pending (eager fusion) until read


def kinds_of_memory():
    """(name, make an array, whether JAX may share it): every kind of memory a stridex array lives in."""
    return [
        ("jit result", lambda: sx.jit(lambda a: a * 2.0)(sx.ones(N)), True),
        ("from_jax result", lambda: sx.from_jax(lambda a: a * 2.0)(sx.ones(N)), True),
        ("asarray of a JAX array", lambda: sx.asarray(jnp.full(N, 2.0, jnp.float64)), True),
        ("fresh eager result", lambda: sx.ones(N) * 2.0, True),
        ("fused eager result", lambda: sx.ones(FUSED) * 2.0, True),  # (pending: computed by the export)
        ("fused result another array views", lambda: _viewed(sx.ones(FUSED) * 2.0), False),
        ("device array", lambda: sx.ones(N, device=DEV) * 2.0, True),
        ("small fresh result", lambda: sx.ones(5) * 2.0, False),  # (unaligned: JAX copies it anyway)
        ("a storage other arrays view", lambda: _viewed(sx.ones(N) * 2.0), False),
        ("a view", lambda: (sx.ones(2 * N) * 2.0)[::2], False),
        ("borrowed NumPy memory", lambda: sx.asarray(np.full(N, 2.0)), False),
        ("read-only NumPy memory", lambda: sx.asarray(_read_only(np.full(N, 2.0))), False),
    ]


_KEPT: list = []


def _viewed(x):
    _KEPT.append(x[::2])  # another array over the same storage, kept alive
    return x


def _read_only(a):
    a.flags.writeable = False
    return a


@pytest.mark.parametrize("name,make,shared", kinds_of_memory(), ids=[k[0] for k in kinds_of_memory()])
@pytest.mark.parametrize("export", ["jnp.asarray", "jax.dlpack", "__jax_array__"])
def test_jax_gets_memory_no_one_writes_afterwards(name, make, shared, export):
    x = make()
    before = np.full(x.shape, 2.0)  # (what every maker makes: read without exporting x's memory first)
    address = pointer(x)
    j = {"jnp.asarray": jnp.asarray, "jax.dlpack": jax.dlpack.from_dlpack,
         "__jax_array__": lambda a: a.__jax_array__()}[export](x)
    assert isinstance(j, jax.Array) and j.dtype == np.float64
    np.testing.assert_array_equal(np.asarray(j), before)
    if shared and not (export == "jax.dlpack" and name == "device array"):  # (DLPack names every CPU device cpu:0)
        assert pointer(j) == address, "documented as shared, but copied"
    x[0] = -1.0  # a stridex write after the export
    np.testing.assert_array_equal(np.asarray(j), before)  # JAX's array is unchanged
    assert float(x[0]) == -1.0 and float(x[1]) == before[1]
    x += 1.0
    np.testing.assert_array_equal(np.asarray(j), before)


@pytest.mark.parametrize("make", [lambda n: sx.asarray(jnp.ones(n, jnp.float64)),
                                  lambda n: sx.jit(lambda a: a * 1.0)(sx.ones(n))], ids=["asarray", "jit result"])
def test_a_jax_result_written_then_fused(make):
    """A JAX result's storage, copied by its first write, takes part in eager fusion like any host storage (its
    fields were left unset by the copy: an AttributeError in the fused operation that followed)."""
    x = make(FUSED)
    x[0] = -1.0
    x += 1.0
    y = x * 2.0
    assert float(y[0]) == 0.0 and float(y[1]) == 4.0


def test_numpy_still_shares_both_ways_over_dlpack():
    x = sx.ones(N)
    n = np.from_dlpack(x)
    x[0] = 5.0
    assert n[0] == 5.0
    n[1] = 7.0
    assert float(x[1]) == 7.0
    r = sx.jit(lambda a: a + 1.0)(sx.ones(3))  # read-only memory (JAX's): legacy consumers get it too
    capsule = r.__dlpack__()
    assert capsule is not None


def test_a_device_export_makes_the_next_write_copy():
    x = sx.ones(4, device=DEV) * 3.0
    j = jnp.asarray(x)
    assert pointer(j) == pointer(x) and x._storage.readonly
    x[1] = 0.0
    np.testing.assert_array_equal(np.asarray(j), np.full(4, 3.0))
    assert pointer(x) != pointer(j)


# --- dtypes and x64 ---------------------------------------------------------------------------------------------


DTYPES = [sx.bool, sx.int8, sx.int16, sx.int32, sx.int64, sx.uint8, sx.uint16, sx.uint32, sx.uint64, sx.float16,
          sx.bfloat16, sx.float32, sx.float64, sx.complex64, sx.complex128]


@pytest.mark.parametrize("dtype", DTYPES, ids=[d.name for d in DTYPES])
def test_dtypes_map_one_to_one(dtype):
    x = sx.asarray([1, 0, 1], dtype=dtype)
    j = jnp.asarray(x)
    assert j.dtype == dtype.np
    back = sx.asarray(j)
    assert back.dtype is dtype
    assert sx.all(back == x)
    assert sx.from_jax(lambda a: a)(x).dtype is dtype
    out = jax.jit(sx.to_jax(lambda a: a))(j)
    assert out.dtype == dtype.np


def test_without_x64_jax_narrows_as_it_narrows_numpy_arrays():
    x = sx.asarray([1.0, 2.0 ** 30 + 1.0])
    with jax.enable_x64(False):
        j = jnp.asarray(x)  # (as jnp.asarray(np.float64 array): float32)
        assert j.dtype == jnp.float32
        back = sx.asarray(jnp.asarray([1.5], jnp.float32))
        assert back.dtype is sx.float32
        # from_jax keeps stridex's dtypes whatever JAX's setting (its functions run with x64 enabled)
        assert sx.from_jax(lambda a: a * 2)(x).dtype is sx.float64
        assert float(sx.from_jax(lambda a: a[1] - 2.0 ** 30)(x)) == 1.0


# --- __jax_array__ ---------------------------------------------------------------------------------------------


def test_jax_array_protocol_where_jax_0_10_honours_it():
    x = sx.asarray([1.0, 2.0])
    assert isinstance(jnp.asarray(x), jax.Array) and isinstance(jnp.array(x), jax.Array)
    np.testing.assert_array_equal(np.asarray(jnp.ones(2) + x), [2.0, 3.0])  # JAX's operators take it
    np.testing.assert_array_equal(np.asarray(jnp.stack([x, x])), [[1.0, 2.0]] * 2)
    # JAX 0.10's jitted functions (most of jax.numpy) refuse the protocol while abstracting their arguments; the
    # ways are jnp.asarray(x) (shared where safe) or sx.from_jax(jnp.sin)(x), which returns a stridex array
    with pytest.raises(ValueError, match="__jax_array__"):
        jnp.sin(x)
    np.testing.assert_allclose(np.asarray(jnp.sin(jnp.asarray(x))), np.sin([1.0, 2.0]))
    np.testing.assert_allclose(np.asarray(sx.from_jax(jnp.sin)(x)), np.sin([1.0, 2.0]))

    def traced(a):
        return jnp.asarray(a)

    with pytest.raises(TypeError, match="traced stridex array .* sx.from_jax"):
        sx.jit(traced)(x)
