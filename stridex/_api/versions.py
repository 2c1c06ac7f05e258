"""Namespaces for earlier standard versions: what `x.__array_namespace__(api_version=...)` returns.

stridex implements 2025.12. The earlier versions it supports differ from it only in return types:
2023.12 and 2024.12 return *lists* from `meshgrid`, `broadcast_arrays` and the info object's
`devices()`, where 2025.12 returns tuples. A namespace for an earlier version is a module with every
name of stridex's, those three adapted and `__array_api_version__` set to that version.
"""

from __future__ import annotations

import functools
import sys
import types

SUPPORTED = ("2023.12", "2024.12", "2025.12")
CURRENT = "2025.12"


def namespace(api_version: str | None = None, base=None):
    """The stridex namespace for `api_version` (None: the current one, 2025.12); `base` is the namespace for
    the current version (default: `stridex`; `stridex.jit_mode` passes itself)."""
    if base is None:
        import sys

        base = sys.modules["stridex"]  # (the package above this layer: loaded before any array exists)
    if api_version is None or api_version == CURRENT:
        return base
    if api_version not in SUPPORTED:
        raise ValueError(f"stridex implements Array API versions {', '.join(SUPPORTED)}, not {api_version!r}")
    return _adapted(base, api_version)


@functools.cache
def _adapted(base, api_version: str):
    module = types.ModuleType(f"{base.__name__}.api_{api_version.replace('.', '_')}",
                              f"{base.__name__} as an Array API {api_version} namespace.")
    module.__dict__.update({k: v for k, v in vars(base).items() if not k.startswith("__") or k in (
        "__array_namespace_info__",)})
    module.__array_api_version__ = api_version  # type: ignore[attr-defined]  # (a module made here: its attributes are ours)

    # The names `base` imports on first use (`linalg`, `fft`, the transformations: see stridex/__init__.py) are
    # looked up there when first asked for here, as on `base` itself.
    def __getattr__(name):
        return getattr(base, name)

    def __dir__():
        return sorted(set(module.__dict__) | set(dir(base)))

    module.__getattr__ = __getattr__  # type: ignore[method-assign]  # (PEP 562: a module's own __getattr__)
    module.__dir__ = __dir__  # type: ignore[method-assign]

    def meshgrid(*arrays, indexing="xy"):
        return list(base.meshgrid(*arrays, indexing=indexing))

    def broadcast_arrays(*arrays):
        return list(base.broadcast_arrays(*arrays))

    def __array_namespace_info__():
        return _ListDevicesInfo(base.__array_namespace_info__())

    for fn, original in ((meshgrid, base.meshgrid), (broadcast_arrays, base.broadcast_arrays),
                         (__array_namespace_info__, base.__array_namespace_info__)):
        functools.update_wrapper(fn, original)
        module.__dict__[fn.__name__] = fn
    sys.modules.setdefault(module.__name__, module)
    return module


class _ListDevicesInfo:
    """The info object of 2023.12/2024.12: `devices()` returns a list."""

    __slots__ = ("_info",)

    def __init__(self, info):
        self._info = info

    def __getattr__(self, name):
        return getattr(self._info, name)

    def devices(self):
        return list(self._info.devices())
