"""`Device`: where an array's storage lives — host memory (NumPy executes) or a JAX device — and the default.

The host is `HOST` (named "cpu"). A JAX device is named after its platform and id: "cuda:0" for a GPU
("gpu:0" is accepted too), "cpu:1" for one of the extra CPU devices JAX exposes with
`--xla_force_host_platform_device_count`. "cpu:0" is JAX's first CPU device, which is not the host:
arrays there are JAX buffers and every eager operation on them runs a compiled executable, as on a GPU.
A device may also stand for a JAX `Sharding` (one array spread over several devices).

Resolving names needs JAX, so it lives one layer up (`stridex._exec.device`); this module holds only the
value type and the per-context default, which `with sx.default_device(d):` sets.
"""

from __future__ import annotations

import operator
from typing import Any
from contextvars import ContextVar

ENV_DEFAULT_DEVICE = "STRIDEX_DEFAULT_DEVICE"
KDL_CPU = 1  # DLPack's device type of host memory (kDLCPU)


class Device:
    """A stridex device: the host CPU, one JAX device, or a JAX sharding over several.

    `jax` is None for the host, else the JAX `Device` (or `Sharding`) that arrays on this device live on.
    Devices compare equal to their name (`x.device == "cuda:0"`). `Device("cuda:0")` written by hand (as
    its repr shows it) is a name to look up: every `device=` parameter resolves it to that JAX device.
    """

    __slots__ = ("id", "jax", "name", "platform")

    def __init__(self, platform: str = "cpu", id: int = 0, jax: Any = None, name: str | None = None) -> None:
        try:
            index = operator.index(id)  # (a NumPy integer too)
        except TypeError:
            index = None
        if not isinstance(platform, str) or index is None or not isinstance(name, (str, type(None))):
            raise TypeError(f"Device(platform, id=0, jax=None, name=None) takes a platform name such as 'cpu' or "
                            f"'cuda:0' and an int id, got platform={platform!r}, id={id!r}, name={name!r}; pass a "
                            "JAX device as `device=` itself, or pick one from "
                            "sx.__array_namespace_info__().devices()")
        self.platform = platform
        self.id = id = index
        self.jax = jax
        # ("cpu" is the host; `Device("cpu", 1)` written by hand names JAX's device cpu:1)
        self.name = name if name is not None else platform if jax is None and id == 0 else f"{platform}:{id}"

    @property
    def is_host(self) -> bool:
        return self.jax is None and self.name == "cpu"  # (not a JAX device named by hand, `Device("cpu:1")`)

    def __repr__(self) -> str:
        return f"Device({self.name!r})"

    def __str__(self) -> str:
        return self.name

    def __eq__(self, other: object) -> bool:
        if isinstance(other, str):
            return other == self.name or (self.platform == "cuda" and other == f"gpu:{self.id}")
        return isinstance(other, Device) and self.name == other.name

    def __hash__(self) -> int:
        return hash(self.name)


HOST = Device("cpu")

# The default device of this context: None means the process default (the environment variable
# STRIDEX_DEFAULT_DEVICE, else the host), which `stridex._exec.device.default_device()` resolves.
DEFAULT_DEVICE: ContextVar = ContextVar("stridex_default_device", default=None)


class OnDevice(Exception):
    """Raised when eager NumPy code reaches for the memory of an array that lives on a JAX device:
    `Primitive.bind` catches it and runs the primitive on that device instead."""
