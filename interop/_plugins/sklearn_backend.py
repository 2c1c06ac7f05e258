"""scikit-learn's array-API tests on one backend: stridex or array-api-strict.

scikit-learn parametrises its array-API tests with ``yield_namespaces``,
``yield_namespace_device_dtype_combinations`` and ``yield_mixed_namespace_input_permutations``
from ``sklearn.utils._array_api``, called when the test modules are imported; this plugin is loaded
before collection (``-p``) and replaces them so that they yield the selected backend only:

- stridex: ``(stridex, None, float64)`` and ``(stridex, None, float32)`` (one device; the two
  dtypes array-api-strict is tested with);
- array_api_strict: scikit-learn's own two combinations (``CPU_DEVICE``/float64, ``device1``/float32);
- mixed inputs (estimator checks, metrics): ``backend -> numpy`` and ``numpy -> backend``.

The estimator check ``check_array_api_same_namespace``, which scikit-learn runs with
array-api-strict only, runs with the selected backend. The runner selects the tests with
``-k <backend>``. Needs ``SCIPY_ARRAY_API=1`` in the environment (scikit-learn refuses
array-API dispatch without it).
"""

import functools

from . import module

BACKEND = module()  # the namespace's importable name: stridex.jit_mode for the stridex_jit backend

from sklearn.utils import _array_api

_original_combinations = _array_api.yield_namespace_device_dtype_combinations
NamespaceAndDevice = _array_api.NamespaceAndDevice


def yield_namespaces(include_numpy_namespaces=True):
    yield BACKEND


def yield_namespace_device_dtype_combinations(include_numpy_namespaces=True):
    if BACKEND == "array_api_strict":
        yield from _original_combinations(include_numpy_namespaces=False)  # uses the patched yield_namespaces
    else:
        yield BACKEND, None, "float64"
        yield BACKEND, None, "float32"


def yield_mixed_namespace_input_permutations():
    yield NamespaceAndDevice(BACKEND, None), NamespaceAndDevice("numpy", None), f"{BACKEND} to numpy"
    yield NamespaceAndDevice("numpy", None), NamespaceAndDevice(BACKEND, None), f"numpy to {BACKEND}"


_array_api.yield_namespaces = yield_namespaces
_array_api.yield_namespace_device_dtype_combinations = yield_namespace_device_dtype_combinations
_array_api.yield_mixed_namespace_input_permutations = yield_mixed_namespace_input_permutations

import sklearn.utils.estimator_checks as _checks

_checks.yield_namespace_device_dtype_combinations = yield_namespace_device_dtype_combinations
_checks.yield_mixed_namespace_input_permutations = yield_mixed_namespace_input_permutations
_original_yield_array_api_checks = _checks._yield_array_api_checks


def _yield_array_api_checks(estimator, only_numpy=False):
    for check in _original_yield_array_api_checks(estimator, only_numpy=only_numpy):
        if (isinstance(check, functools.partial) and check.func is _checks.check_array_api_same_namespace
                and check.keywords.get("array_namespace") == "array_api_strict"):
            check = functools.partial(check.func, *check.args, **{**check.keywords, "array_namespace": BACKEND})
        yield check


_checks._yield_array_api_checks = _yield_array_api_checks
