"""SciPy's array-API tests on one backend: stridex or array-api-strict.

SciPy's tests take the array namespace from the ``xp`` fixture of ``scipy/conftest.py``,
parametrised (with ``SCIPY_ARRAY_API=1``) over the installed backends it knows: numpy,
array_api_strict, torch, cupy, jax.numpy, dask.array. This plugin replaces that fixture's
parameters with the selected backend alone, marked ``array_api_backends`` as SciPy marks its own
(the runner selects the tests with ``-m array_api_backends``), and adds ``stridex`` to SciPy's
known backends, so that ``np_only`` marks skip it as they skip every non-NumPy backend.

SciPy also marks tests and functions (``skip_xp_backends`` / ``xfail_xp_backends`` and
``xp_capabilities``) for array_api_strict by name. With ``STRIDEX_INTEROP_STRICT_MARKS=inherit``
(the runner's default) stridex gets exactly array_api_strict's skips and xfails, SciPy's word on
what a standard-only eager CPU backend can run; their reasons are prefixed "as array_api_strict:".
With ``ignore``, stridex gets only the marks that name no backend (np_only, cpu_only, eager_only).
"""

import importlib
import os
import sys

import pytest

from . import backend, module

BACKEND = backend()
NAME = module()  # the namespace's module: stridex.jit_mode for the stridex_jit backend
INHERIT = os.environ.get("STRIDEX_INTEROP_STRICT_MARKS", "inherit") == "inherit"
_patched = False


def _patch_conftest(conftest):
    conftest.xp_known_backends.add(NAME)
    original = conftest._backends_kwargs_from_request

    def _backends_kwargs_from_request(request, skip_or_xfail):
        reasons = original(request, skip_or_xfail=skip_or_xfail)
        if INHERIT:
            reasons.pop(NAME, None)
            if "array_api_strict" in reasons:
                reasons[NAME] = f"as array_api_strict: {reasons['array_api_strict']}"
        return reasons

    conftest._backends_kwargs_from_request = _backends_kwargs_from_request


def _param():
    namespace = importlib.import_module(NAME)
    return pytest.param(namespace, id=BACKEND, marks=pytest.mark.array_api_backends)


@pytest.hookimpl(tryfirst=True)
def pytest_generate_tests(metafunc):
    global _patched
    if "xp" not in metafunc.fixturenames:
        return
    for fixturedef in metafunc._arg2fixturedefs.get("xp", ()):
        module = sys.modules.get(getattr(fixturedef.func, "__module__", ""))
        if module is None or not module.__name__.endswith("conftest"):
            continue
        if not getattr(module, "SCIPY_ARRAY_API", False):
            raise pytest.UsageError("SciPy's array-API tests need SCIPY_ARRAY_API=1 in the environment")
        if not _patched:
            _patch_conftest(module)
            _patched = True
        if getattr(fixturedef, "_stridex_interop", False):
            continue
        fixturedef.params = (_param(),)
        fixturedef.ids = None
        fixturedef._stridex_interop = True
