"""Client libraries (scikit-learn, SciPy, array-api-extra) on stridex arrays.

SciPy reads ``SCIPY_ARRAY_API`` once, when it is first imported, and scikit-learn refuses
``array_api_dispatch=True`` without it; so it is set here, at import, before any test module
of this folder imports either library. pytest imports this conftest before it collects the
folder's test modules, and nothing else in stridex's test suite imports SciPy. Should SciPy have
been imported earlier anyway without array-API support (another plugin, an unusual file
order), the in-process tests skip and ``test_fresh_process.py`` reruns this folder in a fresh
interpreter with the variable set.

Every library is optional: a test module skips (``pytest.importorskip``) when its library is
missing, so the default ``python -m pytest`` stays green without the ``interop`` extra.
"""

import os

os.environ.setdefault("SCIPY_ARRAY_API", "1")

import sys

import pytest

# Recorded before any test module here imports SciPy: was it already imported by someone else?
SCIPY_IMPORTED_BEFORE_CONFTEST = "scipy" in sys.modules


def scipy_array_api_active():
    """True when SciPy (importing it if needed) runs with array-API support in this process."""
    if os.environ.get("SCIPY_ARRAY_API") != "1":
        return False
    try:
        from scipy._lib._array_api_override import SCIPY_ARRAY_API
    except ImportError:  # SciPy missing, or a layout this check does not know: let the tests decide
        return True
    return bool(SCIPY_ARRAY_API)


def require_scipy_array_api():
    """Skip (never fail) when this process cannot run SciPy's array-API paths."""
    pytest.importorskip("scipy")
    if not scipy_array_api_active():
        pytest.skip(
            "SciPy was imported before tests/interop/conftest.py could set SCIPY_ARRAY_API=1 "
            "(or it is set to something else); tests/interop/test_fresh_process.py reruns these "
            "tests in a fresh interpreter",
            allow_module_level=True,
        )
