"""pytest plugins the runner loads into the client libraries' test runs (``-p interop._plugins.NAME``).

Each backend plugin reads ``STRIDEX_INTEROP_BACKEND`` (``stridex`` or ``array_api_strict``) and makes
the library's own backend parametrisation yield that backend only (stridex is not among the backends
the libraries know).
"""

import os

BACKENDS = ("stridex", "array_api_strict")


def backend():
    name = os.environ.get("STRIDEX_INTEROP_BACKEND", "stridex")
    if name not in BACKENDS:
        raise ValueError(f"STRIDEX_INTEROP_BACKEND must be one of {BACKENDS}, not {name!r}")
    return name
