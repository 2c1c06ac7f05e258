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


@functools.cache
def namespace(api_version: str | None = None):
    """The stridex namespace for `api_version` (None: the current one, 2025.12)."""
    import stridex

    if api_version is None or api_version == CURRENT:
        return stridex
    if api_version not in SUPPORTED:
        raise ValueError(f"stridex implements Array API versions {', '.join(SUPPORTED)}, not {api_version!r}")
    module = types.ModuleType(f"stridex.api_{api_version.replace('.', '_')}",
                              f"stridex as an Array API {api_version} namespace.")
    module.__dict__.update({k: v for k, v in vars(stridex).items() if not k.startswith("__") or k in (
        "__array_namespace_info__",)})
    module.__array_api_version__ = api_version

    def meshgrid(*arrays, indexing="xy"):
        return list(stridex.meshgrid(*arrays, indexing=indexing))

    def broadcast_arrays(*arrays):
        return list(stridex.broadcast_arrays(*arrays))

    def __array_namespace_info__():
        return _ListDevicesInfo(stridex.__array_namespace_info__())

    for fn, original in ((meshgrid, stridex.meshgrid), (broadcast_arrays, stridex.broadcast_arrays),
                         (__array_namespace_info__, stridex.__array_namespace_info__)):
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
