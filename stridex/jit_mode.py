"""`stridex.jit_mode`: the stridex namespace with every function and array operator run through `jit`.

An explicit opt-in wrapper, for running array code (such as the Array API conformance suite:
`ARRAY_API_TESTS_MODULE=stridex.jit_mode`) traced instead of eager, without changing it:

>>> import stridex.jit_mode as xp
>>> x = xp.asarray([1.0, 2.0])
>>> y = xp.sum(x + 1)            # `+` and `sum` each trace, compile once per signature, and run
>>> type(y).__name__, float(y)
('JitModeArray', 5.0)

Importing this module changes nothing in `stridex` itself: its functions wrap stridex's, and the arrays
they return are `JitModeArray`s, stridex arrays (a subclass sharing the same storage and views) whose
operators, from the same table `Array`'s are installed from (`stridex._api.array_object.OPERATORS`), also
run through `jit`. Array arguments are traced; everything else is static (part of the cache key), except
Python scalars passed as operands of elementwise functions and operators, which are weak-typed dynamic
inputs as under `jit`. Data-dependent output shapes and Python decisions on values are graph breaks
(docs/jit.md): `BREAKS` counts the calls that took one, per function; `FALLBACKS` the calls that still ran
eagerly (jit could not compile them). With STRIDEX_FALLBACK_LOG naming a file, both are written at exit to
that name plus `.<process id>`.
"""

from __future__ import annotations

import atexit
import builtins
import contextlib
import functools
import json
import os
import sys
from collections import Counter

import stridex
from stridex import fft as _fft
from stridex import linalg as _linalg
from stridex._api import array_object, versions
from stridex._api import elementwise_functions as _elementwise
from stridex._api import transcendental_functions as _transcendental
from stridex._core import tree as _tree
from stridex._core.array import Array
from stridex._core.dtypes import PY_SCALARS
from stridex._core.state import current_trace
from stridex._core.tree import freeze_or_id
from stridex._transforms.jit import Jitted
from stridex._transforms.tracing import ConcretizationError, DataDependentShapeError

BREAKS: Counter = Counter()
FALLBACKS: Counter = Counter()

# Functions with no array computation to compile: data import, dtype/shape queries, the info object.
NOT_TRACED = frozenset({
    "asarray", "from_dlpack", "finfo", "iinfo", "isdtype", "result_type", "can_cast", "broadcast_shapes",
    "__array_namespace_info__",
    # the transformations themselves: they take functions, and what they return runs through jit mode
    "jit", "make_ir", "grad", "value_and_grad", "vjp", "jvp", "jacfwd", "jacrev", "hessian", "vmap",
    # the precision switch: settings, not computations
    "matmul_precision", "set_matmul_precision", "get_matmul_precision",
    # structured control flow: they take functions
    "cond", "switch", "while_loop", "fori_loop", "scan",
})


class JitModeArray(Array):
    """A stridex array whose operators run through `jit` (see the module docstring)."""

    __slots__ = ()

    def __array_namespace__(self, /, *, api_version: str | None = None):
        return namespace(api_version)

    def to_device(self, device, /, *, stream=None):
        return _jit_mode_array(Array.to_device(self, device, stream=stream))


def _jit_mode_array(x):
    """`x` as a JitModeArray sharing its Storage (O(1)), so that either sees the other's writes; anything
    else unchanged."""
    if type(x) is not Array:
        return x
    return JitModeArray._make(*x._storage_view(), x._dtype)


def _plain(x):
    """A JitModeArray as a plain Array sharing its Storage (what `jit` takes as an argument)."""
    if type(x) is not JitModeArray:
        return x
    return Array._make(*x._storage_view(), x._dtype)


def _outputs(result):
    if type(result) is Array:
        return _jit_mode_array(result)
    if isinstance(result, (tuple, list)):
        return _tree.tree_map(_jit_mode_array, result)
    return result


def traced_per_call(fn, name: str, scalars_dynamic: bool):
    """`fn` run through `jit` on each call, its array arguments traced, one compiled entry per signature."""
    jits: dict = {}

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if current_trace() is not None:
            return fn(*args, **kwargs)
        leaves, treedef = _tree.flatten((args, kwargs))
        dynamic, key = [], [treedef]
        for leaf in leaves:
            if isinstance(leaf, Array) or (scalars_dynamic and type(leaf) in PY_SCALARS
                                           and len(args) > 0 and builtins.any(leaf is a for a in args)):
                dynamic.append(leaf)
                key.append(None)
            else:
                key.append(freeze_or_id(leaf))
        if not builtins.any(isinstance(d, Array) for d in dynamic):
            dynamic = [d for d in dynamic if isinstance(d, Array)]
            key = [treedef] + [freeze_or_id(leaf) for leaf in leaves]
        key = tuple(key)
        jitted = jits.get(key)
        if jitted is None:
            jitted = jits[key] = Jitted(_flat_call(fn, treedef, leaves, key), (), (), (), None, None, None)
        stats = jitted.stats
        broke, eager = stats["calls_with_breaks"], stats["eager_calls"]
        device = kwargs.get("device")
        # An array made from no array goes where `device=` says: a program given no array runs on the default
        # device, so that is made `device` for the call (else the argument, static, is lost in the trace).
        placed = stridex.default_device(device) if device is not None and not dynamic else contextlib.nullcontext()
        try:
            with placed:
                out = _outputs(jitted(*map(_plain, dynamic)))
        except (DataDependentShapeError, ConcretizationError):
            FALLBACKS[name] += 1
            return _outputs(fn(*args, **kwargs))
        if stats["calls_with_breaks"] != broke:
            BREAKS[name] += 1
        if stats["eager_calls"] != eager:
            FALLBACKS[name] += 1
        return out

    wrapper.__wrapped_for_jit__ = fn  # type: ignore[attr-defined]  # (function attributes: no way to declare them)
    wrapper.jitted = jits  # type: ignore[attr-defined]  # one `Jitted` per static signature (inspection and tests)
    return wrapper


def _eager(fn):
    """A function that is not traced (data import, queries), its array results made JitModeArrays."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return _outputs(fn(*args, **kwargs))

    return wrapper


def _flat_call(fn, treedef, leaves, key):
    statics = [leaf if k is not None else None for leaf, k in zip(leaves, key[1:])]

    def flat(*dynamic):
        it = iter(dynamic)
        rebuilt = [next(it) if k is None else s for s, k in zip(statics, key[1:])]
        args, kwargs = _tree.unflatten(treedef, rebuilt)
        return fn(*args, **kwargs)

    return flat


def _wrapped(obj, name: str, scalars_dynamic: bool):
    if not callable(obj) or isinstance(obj, type) or not (getattr(obj, "__module__", None) or "").startswith("stridex"):
        return obj
    if name.rpartition(".")[2] in NOT_TRACED:
        return _eager(obj) if name.rpartition(".")[2] in ("asarray", "from_dlpack") else obj
    return traced_per_call(obj, name, scalars_dynamic)


def _extension(module):
    """`stridex.linalg` or `stridex.fft`, its functions wrapped, as a module of this namespace."""
    short = module.__name__.rpartition(".")[2]
    wrapper = type(sys)(f"{__name__}.{short}", module.__doc__)
    for name in module.__all__:
        setattr(wrapper, name, _wrapped(getattr(module, name), f"{short}.{name}", False))
    wrapper.__all__ = list(module.__all__)
    sys.modules.setdefault(wrapper.__name__, wrapper)
    return wrapper


# --- the namespace: every public name of stridex, wrapped ------------------------------------------------
# (From here on this module's globals shadow builtins stridex also names: `any`, `all`, `sum`, `abs`, ...;
# the code above calls them through `builtins`.)

_ELEMENTWISE = set(_elementwise.__all__) | set(_transcendental.__all__)
__all__ = list(stridex.__all__)
for _name in __all__:
    _obj = getattr(stridex, _name)
    if _name == "linalg":
        globals()[_name] = _extension(_linalg)
    elif _name == "fft":
        globals()[_name] = _extension(_fft)
    else:
        globals()[_name] = _wrapped(_obj, _name, _name in _ELEMENTWISE)
__array_api_version__ = stridex.__array_api_version__
__array_namespace_info__ = stridex.__array_namespace_info__

for _name in array_object.OPERATORS:
    _operands = _name not in ("__getitem__", "__setitem__")  # index keys are static
    setattr(JitModeArray, _name, traced_per_call(getattr(Array, _name), f"Array.{_name}", _operands))
for _name in array_object.PROPERTIES:
    setattr(JitModeArray, _name, property(traced_per_call(getattr(Array, _name).fget, f"Array.{_name}", False)))


def namespace(api_version: str | None = None):
    """This namespace for `api_version` (None: the current one), as `x.__array_namespace__` returns it."""
    return versions.namespace(api_version, base=sys.modules[__name__])


def _write_log(path: str) -> None:
    """Write this process's counts to `<path>.<pid>` (the suite's parallel workers each write their own file;
    the conformance runner adds them up)."""
    with open(f"{path}.{os.getpid()}", "w") as f:
        json.dump({"breaks": dict(BREAKS), "eager": dict(FALLBACKS)}, f, indent=1, sort_keys=True)


if os.environ.get("STRIDEX_FALLBACK_LOG"):
    atexit.register(_write_log, os.environ["STRIDEX_FALLBACK_LOG"])
