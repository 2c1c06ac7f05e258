"""pytest plugins the runner loads into the client libraries' test runs (``-p interop._plugins.NAME``).

Each backend plugin reads ``STRIDEX_INTEROP_BACKEND`` (``stridex``, ``stridex_jit`` or
``array_api_strict``) and makes the library's own backend parametrisation yield that backend only (stridex
is not among the backends the libraries know). ``stridex_jit`` is the namespace ``stridex.jit_mode``: every
function and operator run through ``sx.jit`` (docs/jit.md).
"""

import os

BACKENDS = ("stridex", "stridex_jit", "array_api_strict")
MODULES = {"stridex": "stridex", "stridex_jit": "stridex.jit_mode", "array_api_strict": "array_api_strict"}


def backend():
    name = os.environ.get("STRIDEX_INTEROP_BACKEND", "stridex")
    if name not in BACKENDS:
        raise ValueError(f"STRIDEX_INTEROP_BACKEND must be one of {BACKENDS}, not {name!r}")
    return name


def module():
    """The module name of the selected backend's namespace."""
    return MODULES[backend()]
