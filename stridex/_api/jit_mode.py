"""`STRIDEX_MODE=jit`: every public namespace function and array operator runs through trace → IR → jax.jit.

Installed by `stridex/__init__.py` when the environment variable is set (the conformance runner's
`--mode jit`). Array arguments are traced; everything else is static (part of the cache key), except
Python scalars passed as operands of elementwise functions and operators, which are weak-typed
dynamic inputs as under `jit`. Functions whose output shape depends on data run eagerly; each such
fallback is counted and, when STRIDEX_FALLBACK_LOG names a file, written there at exit.
"""

from __future__ import annotations

import atexit
import functools
import json
import os
from collections import Counter

from stridex._api import array_object
from stridex._api import elementwise_functions as _elementwise
from stridex._api import transcendental_functions as _transcendental
from stridex._core import tree as _tree
from stridex._core.array import Array
from stridex._core.state import current_trace
from stridex._core.tree import freeze
from stridex._transforms.jit import Jitted
from stridex._transforms.tracing import DataDependentShapeError

FALLBACKS: Counter = Counter()

# Functions with no array computation to compile: data import, dtype/shape queries, the info object.
NOT_TRACED = frozenset({
    "asarray", "from_dlpack", "finfo", "iinfo", "isdtype", "result_type", "can_cast", "broadcast_shapes",
    "__array_namespace_info__",
    # the transformations themselves: they take functions, and what they return runs through jit mode
    "jit", "make_ir", "grad", "value_and_grad", "vjp", "jvp", "jacfwd", "jacrev", "hessian", "vmap",
})
ARRAY_METHODS = array_object.OPERATORS  # the one table the operators are installed from


def _freeze(value):
    """A hashable stand-in for a static leaf (see `_tree.freeze`); unhashable objects key by identity."""
    key = freeze(value)
    try:
        hash(key)
    except TypeError:
        return ("id", id(value))
    return key


def traced_per_call(fn, name: str, scalars_dynamic: bool):
    jits: dict = {}

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if current_trace() is not None:
            return fn(*args, **kwargs)
        leaves, treedef = _tree.flatten((args, kwargs))
        dynamic, key = [], [treedef]
        for leaf in leaves:
            if isinstance(leaf, Array) or (scalars_dynamic and type(leaf) in (bool, int, float, complex)
                                           and len(args) > 0 and any(leaf is a for a in args)):
                dynamic.append(leaf)
                key.append(None)
            else:
                key.append(_freeze(leaf))
        if not any(isinstance(d, Array) for d in dynamic):
            dynamic = [d for d in dynamic if isinstance(d, Array)]
            key = [treedef] + [_freeze(leaf) for leaf in leaves]
        key = tuple(key)
        jitted = jits.get(key)
        if jitted is None:
            jitted = jits[key] = Jitted(_flat_call(fn, treedef, leaves, key), (), (), (), None, None, None)
        try:
            return jitted(*dynamic)
        except DataDependentShapeError:
            FALLBACKS[name] += 1
            return fn(*args, **kwargs)

    wrapper.__wrapped_for_jit__ = fn
    return wrapper


def _flat_call(fn, treedef, leaves, key):
    statics = [leaf if k is not None else None for leaf, k in zip(leaves, key[1:])]

    def flat(*dynamic):
        it = iter(dynamic)
        rebuilt = [next(it) if k is None else s for s, k in zip(statics, key[1:])]
        args, kwargs = _tree.unflatten(treedef, rebuilt)
        return fn(*args, **kwargs)

    return flat


def install(namespace: dict) -> None:
    """Replace the public functions of the namespace, its extensions and the Array operators."""
    from stridex import fft, linalg  # (the extensions sit above the namespace layer; install runs after them)

    elementwise = set(_elementwise.__all__) | set(_transcendental.__all__)
    for name in list(namespace.get("__all__", [])) or [n for n in namespace if not n.startswith("_")]:
        obj = namespace.get(name)
        if callable(obj) and not isinstance(obj, type) and name not in NOT_TRACED and hasattr(obj, "__module__") \
                and (obj.__module__ or "").startswith("stridex"):
            namespace[name] = traced_per_call(obj, name, name in elementwise)
    for module in (linalg, fft):
        for name in module.__all__:
            obj = getattr(module, name)
            if callable(obj) and name not in NOT_TRACED:
                setattr(module, name, traced_per_call(obj, f"{module.__name__.split('.')[-1]}.{name}", False))
    for name in ARRAY_METHODS:
        if hasattr(Array, name):
            operands = name not in ("__getitem__", "__setitem__")  # index keys are static
            setattr(Array, name, traced_per_call(getattr(Array, name), f"Array.{name}", operands))
    for prop in array_object.PROPERTIES:
        getter = getattr(Array, prop).fget
        setattr(Array, prop, property(traced_per_call(getter, f"Array.{prop}", False)))
    log = os.environ.get("STRIDEX_FALLBACK_LOG")
    if log:
        atexit.register(lambda: _write_log(log))


def _write_log(path: str) -> None:
    existing = Counter()
    if os.path.exists(path):
        with open(path) as f:
            existing.update(json.load(f))
    existing.update(FALLBACKS)
    with open(path, "w") as f:
        json.dump(dict(existing), f, indent=1, sort_keys=True)
