"""Where arrays live: naming and resolving devices (the host, JAX's devices and shardings), the default device,
and where work on no array, or on host arrays, is placed on JAX's side (`creation_sharding`, `host_sharding`).

Most of the package needs only this: it never runs anything on a device (that is `stridex._exec.device`).
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator

from stridex._core.array import Array
from stridex._core.device import DEFAULT_DEVICE, ENV_DEFAULT_DEVICE, HOST, Device
from stridex._exec.jax_bridge import jax

# --- naming and resolving devices ---------------------------------------------------------------

_BY_JAX: dict = {}  # JAX device or sharding -> its stridex Device (one object each, so `is` compares)


def of_jax(d) -> Device:
    """The stridex Device of a JAX device or sharding."""
    dev = _BY_JAX.get(d)
    if dev is None:
        if hasattr(d, "platform") and hasattr(d, "id"):
            platform = d.platform
            if platform == "gpu":
                version = str(getattr(getattr(d, "client", None), "platform_version", "")).lower()
                platform = "rocm" if "rocm" in version else "cuda"
            dev = Device(platform, d.id, d)
        else:
            members = sorted(d.device_set, key=lambda x: (x.platform, x.id))
            name = "sharded(" + ",".join(of_jax(x).name for x in members) + ")"
            dev = Device("sharded", 0, d, name=name)
        _BY_JAX[d] = dev
    return dev


def devices() -> tuple:
    """The host, then every JAX device: the default backend's (GPUs where there are), then JAX's CPUs."""
    j = jax()
    found = [HOST]
    seen = set()
    for backend in (None, "cpu"):
        try:
            ds = j.devices() if backend is None else j.devices(backend)
        except RuntimeError:  # a backend JAX does not have here
            ds = []
        for d in ds:
            if d not in seen:
                seen.add(d)
                found.append(of_jax(d))
    return tuple(found)


def resolve(device, what: str = "device") -> Device:
    """`device` (None for the default, a Device, a name such as "cpu", "cuda:0" or "cpu:1", a JAX device or
    a JAX sharding) as a stridex Device; ValueError naming the available ones for anything else."""
    if device is None:
        return current_default()
    if type(device) is Device:
        if device.jax is not None or device is HOST:
            return device
        device = device.name  # (one written by hand, `Device("cuda:0")` or `Device("cpu", 1)`: a name to look up)
    if isinstance(device, str):
        if device == "cpu":
            return HOST
        if ":" not in device:  # a platform alone ("cuda", "gpu"): its first device
            device += ":0"
        for d in devices():
            if d == device:
                return d
    elif type(device).__module__.startswith(("jax", "jaxlib")):
        j = jax()
        if isinstance(device, (j.Device, j.sharding.Sharding)):
            return of_jax(device)
    available = ", ".join(repr(d.name) for d in devices()) if _jax_loaded() or isinstance(device, str) else "'cpu'"
    raise ValueError(f"unknown {what} {device!r}; the available devices are {available} (or a JAX device or "
                     "sharding)")


def _jax_loaded() -> bool:
    return "jax" in sys.modules


_process_default: list = []  # [Device]: STRIDEX_DEFAULT_DEVICE resolved on first use


def current_default() -> Device:
    """The default device here: the innermost `default_device(d)` block's, else the process default
    (the environment variable STRIDEX_DEFAULT_DEVICE, e.g. "cuda:0"; the host when it is unset)."""
    d = DEFAULT_DEVICE.get()
    if d is not None:
        return d
    if not _process_default:
        name = os.environ.get(ENV_DEFAULT_DEVICE, "").strip()
        _process_default.append(resolve(name, f"device in ${ENV_DEFAULT_DEVICE}") if name else HOST)
    return _process_default[0]


def placement() -> Device | None:
    """The default device when it is a JAX device (where arrays made from no array go), else None."""
    d = DEFAULT_DEVICE.get()
    if d is None:
        d = _process_default[0] if _process_default else current_default()
    return None if d.jax is None else d


@contextlib.contextmanager
def default_device(device: Device | str) -> Iterator[Device]:
    """Within the block, arrays created without `device=` are created on `device`.

    >>> import stridex as sx
    >>> with sx.default_device("cpu"):
    ...     sx.zeros(3).device
    Device('cpu')
    """
    token = DEFAULT_DEVICE.set(resolve(device))
    try:
        yield DEFAULT_DEVICE.get()
    finally:
        DEFAULT_DEVICE.reset(token)


def placing(values):
    """A context in which arrays made from nothing (a gradient's seed, zeros for a missing cotangent) go to
    the device of the device arrays among `values`: what a transformation over them makes on the way must
    live beside them. A no-op when they all live on the host."""
    for v in values:
        if isinstance(v, Array) and not v._storage.is_host:
            return default_device(v._storage.device)
    return contextlib.nullcontext()


# --- where JAX places work -----------------------------------------------------------------------

def jax_default():
    """JAX's default device: where `jax.jit` places a program nothing else places (`jax_default_device`, set
    by `jax.default_device`, else the first device of the default backend: a GPU where there is one)."""
    j = jax()
    d = j.config.jax_default_device
    if d is None:
        return j.devices()[0]
    return j.devices(d)[0] if isinstance(d, str) else d  # (a string is a platform name: "cpu")


_HOST_IS_DEFAULT: list = []  # [bool], decided on first use


def host_is_jax_default() -> bool:
    """Whether JAX's default device is its first CPU device, the one whose memory stridex treats as the host's
    (decided once, on first use). Where it is not (a GPU machine, or JAX's default moved elsewhere), JAX work
    on host arrays is placed there explicitly (`host_sharding`, `handover._on_host`): it computes on host
    memory with no transfer, and its results are host arrays."""
    if not _HOST_IS_DEFAULT:
        _HOST_IS_DEFAULT.append(jax_default() == jax().devices("cpu")[0])
    return _HOST_IS_DEFAULT[0]


_HOST_SHARDING: list = []


def host_sharding():
    """Where a program on host arrays runs on a machine whose JAX default is an accelerator: JAX's first CPU
    device, whose memory NumPy shares (so its outputs are host arrays with no copy)."""
    if not _HOST_SHARDING:
        j = jax()
        _HOST_SHARDING.append(j.sharding.SingleDeviceSharding(j.devices("cpu")[0]))
    return _HOST_SHARDING[0]


def creation_sharding(dev: Device):
    """Where an array made from no array goes on `dev` (eagerly, or by a jitted program given no array):
    that device; on a mesh, replicated over it."""
    j = jax()
    if not isinstance(dev.jax, j.sharding.Sharding):
        return j.sharding.SingleDeviceSharding(dev.jax)
    if isinstance(dev.jax, j.sharding.NamedSharding):
        return j.sharding.NamedSharding(dev.jax.mesh, j.sharding.PartitionSpec())
    raise ValueError(f"cannot create an array from nothing on {dev.name}: give it a NamedSharding")
