"""Arrays on JAX devices, against the same program on host memory (NumPy) and an `np.arange` shadow.

tests/conftest.py gives JAX 4 CPU devices; "cpu:1" stands in for a GPU: its arrays are JAX buffers, and
every eager operation on them runs a compiled executable there, as on "cuda:0". On a GPU machine,
STRIDEX_TEST_DEVICE=cuda:0 runs the same tests on the GPU (benchmarks/gpu_check.sh does).
"""

from __future__ import annotations

import os
import subprocess
import sys

import jax
import numpy as np
import pytest

import stridex as sx
from stridex._transforms import handover

DEV = os.environ.get("STRIDEX_TEST_DEVICE", "cpu:1")
OTHER = "cpu:2"  # a second device, for transfers and mixing
PROCESS_DEFAULT = os.environ.get("STRIDEX_DEFAULT_DEVICE", "").strip() or "cpu"  # (.ci/run also runs with cpu:1)
SIZES = [5, 3000]  # both sides of the aligned-output threshold (2048 elements)


def on_dev(a, device=DEV):
    return sx.asarray(np.asarray(a), device=device)


def on_host(a):
    """A host array (shared with `a` when it is a NumPy array), whatever the default device: the suite also
    runs with a JAX device as the default (STRIDEX_DEFAULT_DEVICE, .ci/run)."""
    return sx.asarray(a, device="cpu")


def check(x, expected, device=DEV, rtol=1e-12):
    assert x.device == device, f"result on {x.device}, expected {device}"
    if not isinstance(x.device.jax, jax.sharding.Sharding):  # the label is where the buffer really is
        assert x._storage.owner.devices() == {x.device.jax}, (x.device, x._storage.owner.devices())
    got = np.asarray(x)
    expected = np.asarray(expected)
    assert got.shape == expected.shape and got.dtype == expected.dtype, (got.shape, got.dtype, expected.dtype)
    np.testing.assert_allclose(got, expected, rtol=rtol, atol=0, equal_nan=True)


# --- naming -----------------------------------------------------------------------------------------


def test_devices_are_listed_named_and_resolved():
    info = sx.__array_namespace_info__()
    names = [d.name for d in info.devices()]
    assert names[0] == "cpu" and {"cpu:0", "cpu:1", "cpu:2", "cpu:3"} <= set(names)
    d = info.devices()[names.index(DEV)]
    assert d == DEV and str(d) == DEV and repr(d) == f"Device({DEV!r})"
    assert sx.zeros(2, device=d).device is d
    assert sx.zeros(2, device=d.jax).device is d  # a JAX device names it too
    with pytest.raises(ValueError, match="available devices are .*cpu:1"):
        sx.zeros(2, device="tpu:7")
    with pytest.raises(ValueError, match="unknown device"):
        sx.asarray([1.0], device=object())


def test_a_device_written_by_hand_is_looked_up_by_name():
    # `Device('cpu:1')` is how a device prints; written back, it names that JAX device (it once gave a host
    # array that claimed nothing was wrong)
    platform, index = DEV.split(":")
    for spelled in (sx.Device(DEV), sx.Device(platform, int(index)), DEV):
        x = sx.asarray(np.arange(3.0), device=spelled)
        check(x, np.arange(3.0))
        assert x.device is next(d for d in sx.__array_namespace_info__().devices() if d.name == DEV)
        assert sx.zeros(2, device=spelled).to_device(sx.Device("cpu")).device == "cpu"
    with sx.default_device(sx.Device(DEV)):
        check(sx.ones(2), np.ones(2))
    assert sx.asarray([1.0], device=sx.Device("cpu")).device.jax is None
    assert sx.Device("cpu").is_host and not sx.Device(DEV).is_host and repr(sx.Device("cpu", 2)) == "Device('cpu:2')"
    with pytest.raises(ValueError, match="unknown device 'tpu:7'; the available devices are .*cpu:1"):
        sx.zeros(2, device=sx.Device("tpu:7"))
    with pytest.raises(TypeError, match="platform name such as"):
        sx.Device(jax.devices()[0])
    with pytest.raises(TypeError, match="id=1.5"):
        sx.Device("cpu", 1.5)
    assert sx.Device("cpu", np.int64(2)) == "cpu:2"


def test_default_device_for_a_block_and_for_the_process():
    info = sx.__array_namespace_info__()
    assert info.default_device() == PROCESS_DEFAULT
    with sx.default_device(DEV) as d:
        assert info.default_device() is d
        assert sx.ones(3).device == DEV and sx.arange(4).device == DEV and sx.asarray([1, 2]).device == DEV
        assert sx.asarray(sx.asarray(np.ones(2), device="cpu")).device == "cpu"  # an array keeps its device
        with sx.default_device("cpu"):
            assert sx.ones(3).device == "cpu"
    assert sx.ones(3).device == PROCESS_DEFAULT
    code = "import stridex as sx; x = sx.linspace(0, 1, 5); print(x.device, sx.__array_namespace_info__().default_device())"
    env = dict(os.environ, STRIDEX_DEFAULT_DEVICE="cpu:3")
    if "--xla_force_host_platform_device_count" not in env.get("XLA_FLAGS", ""):
        env["XLA_FLAGS"] = f"{env.get('XLA_FLAGS', '')} --xla_force_host_platform_device_count=4"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["cpu:3", "cpu:3"]


# --- storage, transfers, DLPack -------------------------------------------------------------------------


def test_creation_and_transfers():
    a = np.arange(12.0).reshape(3, 4)
    x = on_dev(a)
    assert type(x._storage).__name__ == "DeviceStorage" and x._storage.owner.devices() == {x.device.jax}
    check(x, a)
    assert x.to_device(DEV) is x
    check(x.to_device(OTHER), a, OTHER)
    h = x.to_device("cpu")
    assert h.device == "cpu" and np.array_equal(np.asarray(h), a)
    check(sx.full((2, 3), 7, dtype=sx.int32, device=DEV), np.full((2, 3), 7, np.int32))
    check(sx.eye(3, k=1, device=DEV), np.eye(3, k=1))
    check(sx.linspace(0, 1, 7, device=DEV), np.linspace(0, 1, 7))
    check(sx.zeros_like(x), np.zeros_like(a))  # device=None: the device of x
    check(sx.astype(x, sx.float32), a.astype(np.float32))
    with pytest.raises(ValueError, match="copy"):
        sx.asarray(x, device=OTHER, copy=False)


def test_jax_arrays_are_shared_and_copied_on_write():
    dev = sx.asarray(0.0, device=DEV).device
    with jax.enable_x64(True):
        j = jax.device_put(np.arange(6.0), dev.jax)
    # A JAX array keeps its device (only one on JAX's first CPU device, cpu:0, is the host's: see below).
    assert sx.asarray(j).device == DEV and sx.from_dlpack(j).device == DEV
    x = sx.asarray(j, device=DEV)
    assert x.device == DEV and x._storage.owner is j  # zero-copy
    y = sx.from_dlpack(j, device=DEV)
    assert y._storage.owner is j
    x[0] = 100.0  # the caller's JAX array is never written, nor donated
    assert not j.is_deleted() and float(j[0]) == 0.0 and float(x[0]) == 100.0
    assert x.__dlpack_device__() == j.__dlpack_device__()
    back = jax.dlpack.from_dlpack(x)
    assert np.array_equal(np.asarray(back), np.asarray(x))


@pytest.mark.parametrize("convert", ["asarray", "from_dlpack"])
def test_jax_arrays_keep_their_device_and_buffer(convert):
    """asarray / from_dlpack of a JAX array on a device give an array there over the same buffer (no copy);
    its first write copies (the caller's array is neither written nor donated), and every view of it sees
    the write."""
    take = getattr(sx, convert)
    for name in (DEV, OTHER):
        device = sx.asarray(0.0, device=name).device
        with jax.enable_x64(True):
            j = jax.device_put(np.arange(12.0).reshape(3, 4), device.jax)
        x = take(j)
        assert x.device == name and x._storage.owner is j  # zero-copy
        v = x[1:, ::2]
        x[1, 0] = -5.0
        want = np.arange(12.0).reshape(3, 4)
        assert not j.is_deleted() and np.array_equal(np.asarray(j), want)  # the caller's array is untouched
        want[1, 0] = -5.0
        check(x, want, name)
        check(v, want[1:, ::2], name)  # the copy made by the write is the storage every view sees
        check(sx.sum(x * 2.0, axis=0), want.sum(axis=0) * 2.0, name)  # operations run on its device
        assert take(j).device == name and take(j)._storage.owner is j  # a fresh wrapper shares it again
        with pytest.raises(ValueError, match="copy"):
            sx.asarray(j, device="cpu", copy=False)
    # A sharded JAX array keeps its sharding (the device is the mesh), without a copy.
    mesh = jax.sharding.Mesh(np.array(jax.devices("cpu")[:2]), ("i",))
    with jax.enable_x64(True):
        js = jax.device_put(np.arange(8.0), jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec("i")))
    xs = take(js)
    assert xs._storage.owner is js and xs.device.name == "sharded(cpu:0,cpu:1)"
    check(xs + 1.0, np.arange(8.0) + 1.0, xs.device)


@pytest.mark.parametrize("convert", ["asarray", "from_dlpack"])
def test_a_jax_array_on_the_first_cpu_device_is_a_host_array(convert):
    """JAX's first CPU device (cpu:0) is where JAX computes stridex's host arrays (jit on host inputs runs
    there, and its results are host arrays): a JAX array there is host memory, shared with NumPy, no copy."""
    with jax.enable_x64(True):
        j = jax.device_put(np.arange(5.0), jax.devices("cpu")[0])
    with sx.default_device("cpu"):  # (host data goes to the default device, as asarray of a NumPy array does)
        h = getattr(sx, convert)(j)
    assert h.device == "cpu"
    assert np.asarray(h).__array_interface__["data"][0] == j.unsafe_buffer_pointer()  # shared
    h[0] = 7.0  # copy-on-write: the JAX array stays as it was
    assert float(j[0]) == 0.0 and float(h[0]) == 7.0
    # Naming the device keeps it a device array there, still without a copy.
    k = sx.asarray(j, device="cpu:0")
    assert k.device == "cpu:0" and k._storage.owner is j


@pytest.mark.parametrize("max_version", [None, (1, 0)])
def test_dlpack_export_to_the_host(max_version):
    # Asking a device array for host memory (dl_device=kDLCPU): a GPU's buffer comes as a copy, for a legacy
    # consumer (no max_version) too, and copy=False refuses, as the standard's __dlpack__ says of a
    # cross-device request; a JAX CPU device's buffer is host memory already.
    from stridex._exec import device as device_module

    x = on_dev(np.arange(4.0))
    kwargs = {} if max_version is None else {"max_version": max_version}
    assert x.__dlpack__(dl_device=(1, 0), **kwargs) is not None
    if x.__dlpack_device__()[0] != 1:
        with pytest.raises(BufferError, match=DEV):
            x.__dlpack__(dl_device=(1, 0), copy=False, **kwargs)
    host = device_module.to_host(x)  # what the copy is made of: a new, writable host array
    assert host.flags.writeable and np.array_equal(host, np.arange(4.0))
    host[0] = 7.0
    assert float(x[0]) == 0.0


# --- eager operations, against NumPy ---------------------------------------------------------------------

UNARY = [sx.sin, sx.exp, sx.abs, sx.negative, sx.sqrt, sx.floor, sx.isnan, sx.square]
BINARY = [sx.add, sx.multiply, sx.divide, sx.maximum, sx.less, sx.atan2, sx.pow]


@pytest.mark.parametrize("n", SIZES)
def test_elementwise_families(n):
    rng = np.random.default_rng(n)
    a, b = rng.uniform(0.5, 2.0, n), rng.uniform(0.5, 2.0, n)
    x, y = on_dev(a), on_dev(b)
    for f in UNARY:
        check(f(x), np.asarray(f(on_host(a))))
    for f in BINARY:
        check(f(x, y), np.asarray(f(on_host(a), on_host(b))))
    check(x * 2 + 1, a * 2 + 1)
    check(2.5 - x, 2.5 - a)
    check(sx.where(x > 1, x, -y), np.where(a > 1, a, -b))


@pytest.mark.parametrize("n", SIZES)
def test_reductions_sorting_linalg_and_manipulation(n):
    rng = np.random.default_rng(1)
    a = rng.standard_normal((n // 5 + 1, 5))
    x = on_dev(a)
    check(sx.sum(x, axis=0), a.sum(axis=0))
    check(sx.mean(x), np.asarray(a.mean()))
    check(sx.max(x, axis=1), a.max(axis=1))
    check(sx.cumulative_sum(x, axis=0), np.cumsum(a, axis=0))
    check(sx.sort(x, axis=0), np.sort(a, axis=0))
    check(sx.argmax(x, axis=0), a.argmax(axis=0))
    check(x.T @ x, a.T @ a, rtol=1e-10)
    check(sx.concat([x, x], axis=1), np.concatenate([a, a], axis=1))
    check(sx.reshape(x, (-1,)), a.reshape(-1))
    check(sx.stack([x[0], x[1]]), np.stack([a[0], a[1]]))
    check(sx.linalg.vector_norm(x), np.asarray(np.linalg.norm(a)))
    check(sx.fft.fft(sx.astype(x, sx.complex128), axis=0), np.fft.fft(a, axis=0), rtol=1e-9)


def test_data_dependent_shapes_run_through_the_host():
    a = np.array([3.0, 1.0, 3.0, 0.0, 2.0])
    x = on_dev(a)
    check(sx.unique_values(x), np.unique(a))
    (idx,) = sx.nonzero(x)
    check(idx, np.nonzero(a)[0])
    check(x[x > 1], a[a > 1])


# --- views and writes, against an np.arange shadow ------------------------------------------------------

VIEWS = [
    lambda t: t[1:3],
    lambda t: t[::2, ::-1],
    lambda t: t[..., 1],
    lambda t: t.T,
    lambda t: t[None, 2:, 1:4],
    lambda t: t[::-2],
    lambda t: t[:, 3:4],
]


@pytest.mark.parametrize("n", [6, 600])
@pytest.mark.parametrize("k", range(len(VIEWS)))
def test_views_are_metadata_and_writes_reach_every_view(n, k):
    shadow = np.arange(n * 5, dtype=np.float64).reshape(n, 5)
    x = on_dev(shadow)
    view = VIEWS[k]
    v = view(x)
    assert v._storage is x._storage and v.device == DEV  # O(1): the same storage, nothing read
    check(v, view(shadow))
    check(sx.sin(v) + v, np.sin(view(shadow)) + view(shadow))
    other = x[1:]  # another view of the same storage, made before the write
    v[...] = -7.0
    view(shadow)[...] = -7.0
    check(x, shadow)
    check(other, shadow[1:])
    v += 1
    view(shadow)[...] += 1
    check(x, shadow)


def test_setitem_keys_and_broadcast_write_refused():
    shadow = np.arange(40.0).reshape(8, 5)
    x = on_dev(shadow)
    for key, value in [((2, 3), 100.0), ((slice(1, 7, 2), slice(None, None, -2)), -1.0),
                       ((np.array([0, 5]),), 9.0), ((shadow > 30,), 0.5)]:
        x[key] = value
        shadow[key] = value
        check(x, shadow)
    x[1:3] = on_dev(np.ones((2, 5)))
    shadow[1:3] = 1
    check(x, shadow)
    b = sx.broadcast_to(x[0], (3, 5))
    with pytest.raises(ValueError, match="broadcast view"):
        b[...] = 1.0


def test_writes_donate_the_buffer_so_a_small_write_is_in_place():
    x = on_dev(np.zeros(100_000))
    old = x._storage.owner
    x[10:12] = 1.0
    assert old.is_deleted()  # donated: XLA updated the buffer in place
    assert float(sx.sum(x)) == 2.0


def test_mixing_devices_is_an_error():
    x, y = on_dev([1.0, 2.0]), on_host([1.0, 2.0])
    with pytest.raises(ValueError, match=rf"different devices \({DEV} and cpu\)"):
        sx.add(x, y)
    with pytest.raises(ValueError, match="different devices"):
        x + on_dev([1.0, 2.0], OTHER)
    with pytest.raises(ValueError, match="different devices"):
        sx.jit(lambda a, b: a + b)(x, on_dev([1.0, 2.0], OTHER))


KINDS = ["adopted", "owned", "pending", "view"]


def _operand(place: str, kind: str, n: int = 40_000):
    """An array of `n` elements on `place` ("cpu" or a device's name): memory adopted from NumPy (on the host
    borrowed as it is; on a device a JAX array taken over), memory of stridex's own, a pending result (eager
    fusion: `n` is above its host threshold), or a strided view."""
    values = np.linspace(-1.0, 1.0, n)
    if kind == "adopted":
        return sx.asarray(values, device="cpu") if place == "cpu" else sx.asarray(jax.device_put(values, sx.asarray(
            values[:1], device=place).device.jax))
    if kind == "view":
        return sx.asarray(np.linspace(-1.0, 1.0, 2 * n), copy=True, device=place)[::2]
    x = sx.asarray(values, copy=True, device=place)
    return sx.sin(x) * 2.0 if kind == "pending" else x


@pytest.mark.parametrize("places", [("cpu", DEV), (DEV, OTHER)], ids=["host-device", "device-device"])
@pytest.mark.parametrize("second", KINDS)
@pytest.mark.parametrize("first", KINDS)
def test_mixing_devices_in_an_elementwise_operation_is_an_error_before_anything_is_recorded(first, second, places):
    """Each kind of operand on each side, in both orders: the error op by op gives (`device._mixed`), raised
    before anything is recorded (pending operands stay as they were: nothing forced, nothing joined)."""
    for a_place, b_place in (places, places[::-1]):
        a, b = _operand(a_place, first), _operand(b_place, second)
        condition = a > 0.0  # (on a's device, pending where a is)
        before = [sx.fusion.pending(x) for x in (a, b)]
        assert (before[0] is not None) == (first == "pending") and (before[1] is not None) == (second == "pending")
        messages = []
        operations = (lambda a, b, c: a + b, lambda a, b, c: sx.where(c, a, b), lambda a, b, c: sx.multiply(b, a))
        for fused in (True, False):
            for operation in operations:
                with sx.fusion(fused), pytest.raises(ValueError, match="different devices") as caught:
                    operation(a, b, condition)
                messages.append(str(caught.value))
                if fused:
                    assert [sx.fusion.pending(x) for x in (a, b)] == before
        wanted = [f"({a_place} and {b_place})", f"({a_place} and {b_place})", f"({b_place} and {a_place})"] * 2
        assert all(w in m for w, m in zip(wanted, messages)), messages
        assert messages[:3] == messages[3:]  # (fused and op by op: the same error)
        expected = np.sin(np.linspace(-1.0, 1.0, 40_000)) * 2.0
        for x, kind in ((a, first), (b, second)):
            if kind == "pending":
                np.testing.assert_allclose(np.asarray(x.to_device("cpu")), expected, rtol=1e-13)


def test_nothing_crosses_to_the_host():
    with jax.transfer_guard("disallow"):
        with sx.default_device(DEV):
            x = sx.arange(12.0)
            m = sx.reshape(x, (3, 4))
        m[1, ::2] = 5.0
        y = sx.sum(sx.sin(m.T) * 2, axis=0)
        f = sx.jit(lambda a: sx.cos(a) @ a.T)
        z = f(m)
        g = sx.grad(lambda a: sx.sum(a * a))(m)
        w = sx.jit(sx.grad(lambda a: sx.sum(sx.exp(a))))(m)
        v = sx.vmap(lambda r: sx.sum(r * r))(m)
        for r in (y, z, g, w, v):
            assert r.device == DEV
    shadow = np.arange(12.0).reshape(3, 4)
    shadow[1, ::2] = 5.0
    np.testing.assert_allclose(np.asarray(y), np.sum(np.sin(shadow.T) * 2, axis=0))
    np.testing.assert_allclose(np.asarray(z), np.cos(shadow) @ shadow.T)
    np.testing.assert_allclose(np.asarray(g), 2 * shadow)
    np.testing.assert_allclose(np.asarray(w), np.exp(shadow))
    np.testing.assert_allclose(np.asarray(v), (shadow * shadow).sum(axis=1))


# --- jit ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("n", SIZES)
def test_jit_takes_device_inputs_without_a_copy_and_leaves_outputs_there(n):
    a = np.linspace(0, 1, n)
    x = on_dev(a)
    argument, in_place = handover.jax_argument(x)
    assert argument is x._storage.owner and not in_place  # (its own buffer, not host memory read in place)
    f = sx.jit(lambda t: sx.sin(t) * 2 + t[::-1])
    for _ in range(3):  # first call, then the memo's direct path
        check(f(x), np.sin(a) * 2 + a[::-1])
    h = on_host(a)  # the same function on host memory still gives host results
    r = f(h)
    assert r.device == "cpu" and np.allclose(np.asarray(r), np.sin(a) * 2 + a[::-1])
    check(f(x), np.sin(a) * 2 + a[::-1])  # and back on the device: the memo does not mix them up


@pytest.mark.parametrize("n", SIZES)
def test_jit_with_several_outputs_on_device_inputs(n):
    # A pure program with two outputs (gradients, say): after the first calls, the memo's direct call; its
    # outputs stay on the device, and one array passed twice is one input.
    a = np.linspace(0, 1, n)
    x = on_dev(a)
    f = sx.jit(lambda t, u: (t * u, t - u[0]))
    for _ in range(4):
        p, q = f(x, x)
        check(p, a * a)
        check(q, a - a[0])
    y = on_dev(a[::-1].copy())
    for _ in range(3):
        p, q = f(x, y)
        check(p, a * a[::-1])
        check(q, a - a[-1])
    g = sx.jit(sx.grad(lambda t, u: sx.sum(sx.sin(t) * u), argnums=(0, 1)))
    for _ in range(3):
        gt, gu = g(x, y)
        check(gt, np.cos(a) * a[::-1])
        check(gu, np.sin(a))


def test_jit_writes_into_device_arguments():
    shadow = np.arange(20.0).reshape(4, 5)
    x = on_dev(shadow)
    view = x[1:]

    def g(t):
        t[0, :2] = -1.0
        return sx.sum(t)

    out = sx.jit(g)(x)
    shadow[0, :2] = -1.0
    check(out, np.asarray(shadow.sum()))
    check(x, shadow)
    check(view, shadow[1:])


# --- sharding ------------------------------------------------------------------------------------------------


def test_a_sharded_array_runs_spmd():
    mesh = jax.sharding.Mesh(np.array(jax.devices("cpu")[:4]), ("i",))
    sharding = jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec("i"))
    a = np.arange(16.0).reshape(8, 2)
    x = sx.asarray(a, device=sharding)
    assert x.device.name == "sharded(cpu:0,cpu:1,cpu:2,cpu:3)"
    assert len(x._storage.owner.sharding.device_set) == 4
    y = sx.sin(x) * 2
    assert y._storage.owner.sharding.is_equivalent_to(sharding, 2)  # elementwise keeps the sharding
    # (the storage kind of sharded memory, for every result: eager, a copy, a jit call's)
    for made in (x, y, sx.asarray(x, copy=True), sx.jit(lambda t: t + 1.0)(x)):
        assert type(made._storage).__name__ == "ShardedStorage" and made._storage.sharded
    check(y, np.sin(a) * 2, x.device)
    check(sx.sum(x, axis=0), a.sum(axis=0), x.device)
    check(sx.jit(lambda t: t @ t.T)(x), a @ a.T, x.device)
    x[3] = 0.0
    a[3] = 0.0
    check(x, a, x.device)


def test_arrays_on_one_mesh_with_different_layouts():
    """Arrays sharded and replicated over the same mesh have one device label; eager operations and writes
    on them compile per layout (an executable compiled for one refused the other's buffers)."""
    mesh = jax.sharding.Mesh(np.array(jax.devices("cpu")[:4]), ("i",))
    rows = jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec("i"))
    everywhere = jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec())
    a, b = np.arange(8.0), np.arange(8.0) * 10
    x, r = sx.asarray(a, device=rows), sx.asarray(b, device=everywhere)
    assert x.device == r.device
    check(x * x, a * a, x.device)
    check(r * r, b * b, x.device)
    check(x * r, a * b, x.device)
    x[0] = 5.0
    r[0] = 6.0
    x[1:3] = r[4:6]
    r[2:4] = x[0:2]
    a[0], b[0] = 5.0, 6.0
    a[1:3] = b[4:6]
    b[2:4] = a[0:2]
    check(x, a, x.device)
    check(r, b, x.device)


def test_repr_names_the_device():
    assert repr(on_dev([1.0, 2.0])) == f"Array([1., 2.], device={DEV!r})"
    assert float(on_dev(2.5)) == 2.5 and bool(on_dev([True]))


def test_jit_transfers_host_arguments_once_and_visibly():
    a = np.arange(6.0)
    x, h = on_dev(a), on_host(a * 10)
    f = sx.jit(lambda p, q: p + q)
    check(f(x, h), a + a * 10)  # the host argument goes to the device for the call (JAX's rule)
    with jax.transfer_guard("disallow"), pytest.raises(Exception, match="[Dd]isallowed host-to-device transfer"):
        f(x, on_host(a * 20))
    g = sx.jit(lambda p: p * 2, device="cpu:2")  # jit's own placement still works for host arguments
    r = g(on_host(a))
    assert np.array_equal(np.asarray(r), a * 2)


@pytest.mark.parametrize("n", [5, 3000])  # a snapshot below the alias size, an aliased buffer above it
def test_host_programs_run_on_the_host_when_jax_prefers_an_accelerator(monkeypatch, n):
    # On a GPU machine JAX's default device is the GPU. A program on host arrays still runs where its data is
    # (JAX's first CPU device, host memory) and gives host arrays, exactly as the same code run eagerly;
    # a write into a host argument lands in it. Simulated here with JAX's default moved to another device.
    from stridex._exec import placement as device_module

    monkeypatch.setattr(device_module, "_HOST_IS_DEFAULT", [])  # decided again, under the default below
    cpu0 = jax.devices("cpu")[0]
    a = np.linspace(-1, 1, n)
    with jax.default_device(jax.devices("cpu")[3]):
        pure = sx.jit(lambda t, u: sx.sin(t) * u)
        x, u = on_host(a), on_host(a[::-1].copy())
        for _ in range(3):  # the first call, then the snapshot/alias hand-over of the same inputs
            r = pure(x, u)
            assert r.device == "cpu" and r._storage_view()[0].owner.devices() == {cpu0}
            np.testing.assert_array_equal(np.asarray(r), np.asarray(sx.sin(x) * u))

        def bump(t, c):
            t[::2] += c[::2]
            return t[1:] * 2, c.shape

        writes = sx.jit(bump)
        h, shadow = on_host(a.copy()), a.copy()
        out, shape = writes(h, on_host(a))
        shadow[::2] += a[::2]
        np.testing.assert_array_equal(np.asarray(h), shadow)  # the write reached the host argument
        assert out.device == "cpu" and shape == (n,)
        np.testing.assert_array_equal(np.asarray(out), shadow[1:] * 2)
        check(pure(on_dev(a), on_host(a)), np.sin(a) * a)  # a host argument beside a device one: moved there
        with sx.default_device("cpu"):
            made = sx.jit(lambda: sx.arange(4.0) + 1)()  # no array in: the default device (here the host)
        assert made.device == "cpu" and made._storage_view()[0].owner.devices() == {cpu0}
        assert not device_module.host_is_jax_default()


@pytest.mark.parametrize("jax_default", [0, 3])  # JAX's default device: the host's, or another (as on a GPU machine)
def test_jit_closing_over_a_device_array_runs_on_its_device(monkeypatch, jax_default):
    # An array the function closes over is an input: on a device, it places the program there as a device
    # argument does, and host arguments go to it (found on a GPU machine: the program was placed on the host
    # and JAX refused the closed-over device buffer). Two devices are a ValueError, as for arguments.
    from stridex._exec import placement as device_module

    monkeypatch.setattr(device_module, "_HOST_IS_DEFAULT", [])
    a = np.arange(6.0)
    with jax.default_device(jax.devices("cpu")[jax_default]):
        w = on_dev(a * 3)
        f = sx.jit(lambda h: sx.sin(w) + h)
        for h in (on_host(a), on_dev(a)):
            check(f(h), np.sin(a * 3) + a)
        loop = sx.jit(lambda h: sx.fori_loop(0, 3, lambda i, c: c * 0.5 + w, h))
        want = on_host(a)
        for _ in range(3):
            want = want * 0.5 + on_host(a * 3)
        check(loop(on_host(a)), np.asarray(want))
        other = sx.asarray(a).to_device("cpu:2")
        with pytest.raises(ValueError, match="different devices"):
            sx.jit(lambda h: other + w)(on_host(a))
        with pytest.raises(ValueError, match="different devices"):
            sx.jit(lambda h: other + h)(on_dev(a))


def test_jit_placed_elsewhere_writes_back_into_host_arguments():
    # `jit(device=...)` on host arrays: their values go to the device, and writes come back into them.
    f = sx.jit(lambda t: t.__setitem__(slice(1, 3), -t[4:6]), device=DEV)
    shadow = np.arange(6.0)
    shadow[1:3] = -shadow[4:6]
    for h in (on_host(np.arange(6.0)), sx.arange(6.0, device="cpu") * 1.0):  # borrowed NumPy memory; a fresh result
        f(h)
        np.testing.assert_array_equal(np.asarray(h), shadow)
        assert h.device == "cpu"


def test_jit_caches_keep_host_and_device_programs_apart():
    # One View object, two storages: a jit result on the host and an array on the device, alternating through
    # the fast cache and the memo (whose keys hold Views and windows): each call runs where its input lives.
    f = sx.jit(lambda t: t * 3)
    h = f(on_host(np.arange(4.0)))  # a host array whose storage is a JAX result
    d = on_dev(np.arange(4.0))
    for _ in range(3):
        assert f(h).device == "cpu" and f(d).device == DEV
        check(f(d), np.arange(4.0) * 3)


def test_writes_that_need_the_data_or_index_arrays():
    a = np.arange(10.0)
    x = on_dev(a)
    x[x > 4] = on_dev(-np.arange(5.0))  # how many elements the mask selects depends on the data
    a[a > 4] = -np.arange(5.0)
    check(x, a)
    b = np.arange(12.0).reshape(3, 4)
    y = on_dev(b)
    y[on_dev(np.array([0, 2])), 1:3] = on_dev(np.array([[1.0, 2.0], [3.0, 4.0]]))
    b[[0, 2], 1:3] = [[1.0, 2.0], [3.0, 4.0]]
    check(y, b)
    check(sx.repeat(on_dev([1.0, 2.0]), on_dev(np.array([2, 3]))), np.repeat([1.0, 2.0], [2, 3]))


@pytest.mark.parametrize("how", ["eager", "jit", "grad"])
def test_host_index_arrays_index_device_arrays(how):
    """`x[idx]` and `x[idx] = v` on a device array take an index array made on the host (`sx.asarray([0, 2])`,
    a mask, a NumPy array, a list): the index is moved to x's device, as PyTorch does for CUDA tensors. Values
    are not moved (a host value into a device array stays an error naming the way out)."""
    a = np.arange(12.0).reshape(3, 4)
    rows, mask = np.array([2, 0, 2]), a[:, 0] > 3
    keys = [(on_host(rows), rows), (on_host(mask), mask), ((on_host(rows), slice(1, 3)), (rows, slice(1, 3))),
            ((slice(None), on_host([3, -1])), (slice(None), [3, -1])), (rows, rows), ([1, 0], [1, 0])]
    for key, np_key in keys:
        if how == "jit" and key is keys[1][0]:
            continue  # a mask's result shape depends on the data: a graph break under jit (see below)
        want = a[np_key]
        if how == "eager":
            check(on_dev(a)[key], want)
        elif how == "jit":
            check(sx.jit(lambda t: t[key] * 2.0)(on_dev(a)), want * 2.0)
        else:
            g = np.zeros_like(a)
            np.add.at(g, np_key, 3.0)
            check(sx.grad(lambda t: sx.sum(t[key] * 3.0))(on_dev(a)), g)

        x, b = on_dev(a), a.copy()
        if how == "jit":
            def write(t):
                t[key] = -1.0
                t[key] += on_dev(np.ones(np.shape(want)))
            sx.jit(write)(x)
        else:
            x[key] = -1.0
            x[key] += on_dev(np.ones(np.shape(want)))
        b[np_key] = -1.0
        b[np_key] += 1.0
        check(x, b)
    with pytest.raises(ValueError, match="different devices"):  # a value is not an index: not moved
        on_dev(a)[on_host(rows)] = on_host(np.ones((3, 4)))


def test_index_arrays_on_another_device_are_refused_with_the_way_out():
    x = on_dev(np.arange(4.0))
    with pytest.raises(ValueError, match=rf"index array on {OTHER} .* array on {DEV}.*to_device\('{DEV}'\)"):
        x[on_dev([0, 1], OTHER)]
    with pytest.raises(ValueError, match=rf"index array on {DEV} .* array on cpu.*to_device\('cpu'\)"):
        on_host([1.0, 2.0])[on_dev([1])]
    with pytest.raises(ValueError, match="to_device"):
        x[on_dev([0, 1], OTHER)] = 0.0


def test_parameters_that_compare_equal_compile_apart():
    # An executable's cache key keeps apart parameter values that == confuses: -0.0 and 0.0 (a full() of
    # either, one after the other, keeps its sign, as on the host), 1 and True.
    for fill in (0.0, -0.0, 0.0):
        x = sx.full(3, fill, device=DEV)
        check(x, np.full(3, fill))
        assert np.array_equal(np.signbit(np.asarray(x)), np.signbit(np.full(3, fill)))
    check(sx.full(2, 1, device=DEV), np.full(2, 1))
    check(sx.full(2, True, device=DEV), np.full(2, True))


def test_element_writes_share_one_executable():
    from stridex._exec import device as device_module

    x = sx.zeros(64, device=DEV)
    x[0] = 0.25
    before = len(device_module._CACHE)
    for i in range(1, 64):
        x[i] = i * 0.5  # another offset and another value each time: arguments, not constants
    assert len(device_module._CACHE) == before
    check(x, np.r_[0.25, np.arange(1, 64) * 0.5])


def test_jit_of_a_function_given_no_array_runs_on_the_default_device():
    f = sx.jit(lambda: sx.arange(3.0) * 2)
    assert f().device == PROCESS_DEFAULT
    with sx.default_device(DEV):
        for _ in range(2):  # the fast cache and the signature both keep the default device apart
            check(f(), np.arange(3.0) * 2)
    with sx.default_device(OTHER):
        check(f(), np.arange(3.0) * 2, OTHER)
    assert f().device == PROCESS_DEFAULT


def test_results_that_read_no_input_stay_on_the_device():
    # XLA drops arguments a program does not read (here: empty ones); the results must still be made on the
    # device the arguments live on, not on JAX's default one.
    for r in (sx.linalg.cholesky(sx.zeros((0, 0), device=DEV)), sx.sum(sx.zeros((3, 0), device=DEV), axis=1),
              sx.zeros((0, 2), device=DEV) * 2):
        assert r.device == DEV and r._storage.owner.devices() == {r.device.jax}


def test_a_jitted_program_that_reads_no_argument_runs_where_its_arguments_are():
    f = sx.jit(lambda a: sx.zeros(3) + 1)  # `a` is not read: JAX would drop it
    for _ in range(3):
        r = f(on_dev([1.0, 2.0]))
        assert r.device == DEV and r._storage.owner.devices() == {r.device.jax}


def test_arrays_made_from_host_data_inside_grad_and_vmap_live_beside_the_inputs():
    """grad, jvp and vmap over device arrays compute eagerly there: `asarray` of Python or NumPy values
    inside them is made on the inputs' device, as the same line run eagerly with that default device
    (it once made a host array, and the next operation was a mixed-device error). Under jit it is a
    constant of the program."""
    w = np.array([0.5, -2.0, 3.0])

    def loss(x):
        return sx.sum(x * sx.asarray(w)) + sx.sum(x * sx.asarray([1.0, 1.0, 1.0]))

    a = np.array([1.0, 2.0, 3.0])
    for transform in (sx.grad(loss), sx.jit(sx.grad(loss))):
        g = transform(on_dev(a))
        check(g, w + 1.0)
    _, t = sx.jvp(loss, (on_dev(a),), (on_dev(np.ones(3)),))
    check(t, np.asarray(np.sum(w + 1.0)))
    check(sx.vmap(lambda r: r * sx.asarray(w))(on_dev(np.ones((2, 3)))), np.ones((2, 3)) * w)


def test_grad_of_a_function_that_writes_its_device_input():
    """The function writes its device argument: the gradient is taken at the values it read, and the argument
    is left written as one eager call leaves it (the unwritten copy of its storage is made on the device)."""

    def f(x):
        x[1:] = x[:-1] * 2.0  # overlapping: reads the region it writes
        return sx.sum(x * x)

    a = np.array([1.0, 2.0, 3.0])
    x = on_dev(a)
    g = sx.grad(f)(x)
    # x1 = 2 a0, x2 = 2 a1: d/da of a0^2 + 4 a0^2 + 4 a1^2 = (10 a0, 8 a1, 0)
    check(g, np.array([10 * a[0], 8 * a[1], 0.0]))
    check(x, np.array([1.0, 2.0, 4.0]))
