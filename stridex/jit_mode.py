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
run through `jit`. Array arguments are traced, and so are Python scalars that are values (weakly typed, as
under `jit`): the operands of elementwise functions and operators, fill values, clip bounds, `where`'s
operands, written values (`VALUE_PARAMETERS`); other arguments are static (part of the cache key: shapes,
axes, dtypes). A basic index (ints, slices) selects a view as eagerly, with no program; a write through one
compiles once per view shape, whatever the index (docs/jit.md, "What is static and what is traced").
Data-dependent output shapes and Python decisions on values are graph breaks (docs/jit.md): `BREAKS` counts
the calls that took one, per function; `FALLBACKS` the calls that still ran eagerly (jit could not compile
them). With STRIDEX_FALLBACK_LOG naming a file, both are written at exit to
that name plus `.<process id>`.
"""

from __future__ import annotations

import atexit
import builtins
import contextlib
import functools
import inspect
import json
import os
import sys
from collections import Counter

import stridex
from stridex import fft as _fft
from stridex import linalg as _linalg
from stridex._api import array_indexing as _array_indexing
from stridex._api import array_object, versions
from stridex._api import elementwise_functions as _elementwise
from stridex._api import transcendental_functions as _transcendental
from stridex._core import caches as _caches
from stridex._core import tree as _tree
from stridex._core.array import Array
from stridex._core.dtypes import DType
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
    # the precision switch and the caches of compiled programs: settings, not computations
    "matmul_precision", "set_matmul_precision", "get_matmul_precision", "cache_stats", "clear_caches",
    "set_cache_limit",
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


class _Value:
    """A Python scalar argument that is a value (see `traced_per_call`): a traced, weakly typed input."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


def _value_positions(fn, names: tuple) -> tuple:
    """(position or None, name) of each of `fn`'s parameters `names`: where a call may pass it."""
    parameters = list(inspect.signature(fn).parameters.values())
    found = []
    for name in names:
        position = next((i for i, p in enumerate(parameters) if p.name == name and p.kind in (
            inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)), None)
        by_keyword = builtins.any(p.name == name and p.kind != inspect.Parameter.POSITIONAL_ONLY for p in parameters)
        keyword = name if by_keyword else None
        found.append((position, keyword))
    return tuple(found)


def traced_per_call(fn, name: str, operands: bool, values: tuple = ()):
    """`fn` run through `jit` on each call, its array arguments traced, one compiled entry per signature.

    Python scalars are traced, weakly typed arguments where they are values: with `operands` (elementwise
    functions and operators), every positional one, when an array comes too (else the call is left to raise as
    eagerly: `add(1, 2)` is a TypeError); and the parameters named in `values` (a fill value, a clip bound, the
    value written), always. Every other Python scalar is structure (a shape, an axis, a flag) and part of the
    signature. The signatures are kept in a least-recently-used cache (the "jit_mode" kind of
    `sx.set_cache_limit`)."""
    jits = _caches.ProgramCache("jit_mode")
    where = _value_positions(fn, values) if values else ()

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if current_trace() is not None:
            return fn(*args, **kwargs)
        marked, original_kwargs = args, kwargs
        if operands and builtins.any(isinstance(a, Array) for a in args):
            marked = tuple(_Value(a) if type(a) in PY_SCALARS else a for a in args)
        for position, keyword in where:
            if position is not None and position < len(args):
                if type(args[position]) in PY_SCALARS:
                    marked = (*marked[:position], _Value(args[position]), *marked[position + 1:])
            elif keyword is not None and type(kwargs.get(keyword)) in PY_SCALARS:
                kwargs = {**kwargs, keyword: _Value(kwargs[keyword])}
        leaves, treedef = _tree.flatten((marked, kwargs))
        dynamic, key = [], [treedef]
        for j, leaf in enumerate(leaves):
            if type(leaf) is _Value:
                leaves[j] = leaf = leaf.value
                dynamic.append(leaf)
                key.append((_VALUE, type(leaf)))
            elif isinstance(leaf, Array):
                dynamic.append(leaf)
                key.append(_VALUE)
            else:
                key.append(freeze_or_id(leaf))
        key = tuple(key)
        jitted = jits.get(key)
        if jitted is None:
            jitted = Jitted(_flat_call(fn, treedef, leaves, key), (), (), (), None, None, None)
            jits.put(key, jitted)
        stats = jitted.stats
        broke, eager = stats["calls_with_breaks"], stats["eager_calls"]
        device = kwargs.get("device")
        # An array made from no array goes where `device=` says: a program given no array runs on the default
        # device, so that is made `device` for the call (else the argument, static, is lost in the trace).
        placed = stridex.default_device(device) if device is not None and not builtins.any(
            isinstance(d, Array) for d in dynamic) else contextlib.nullcontext()
        try:
            with placed:
                out = _outputs(jitted(*map(_plain, dynamic)))
        except (DataDependentShapeError, ConcretizationError):
            FALLBACKS[name] += 1
            return _outputs(fn(*args, **original_kwargs))
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


_VALUE = object()  # (in a signature: a dynamic leaf; with the type of a Python scalar, a traced value)


def _flat_call(fn, treedef, leaves, key):
    """`fn` as a function of the dynamic leaves alone, the static ones (this call's: the same in every call of
    the signature `key`) put back around them."""
    dynamic = [k is _VALUE or (type(k) is tuple and len(k) == 2 and k[0] is _VALUE) for k in key[1:]]
    statics = [None if d else leaf for leaf, d in zip(leaves, dynamic)]

    def flat(*values):
        it = iter(values)
        rebuilt = [next(it) if d else s for s, d in zip(statics, dynamic)]
        args, kwargs = _tree.unflatten(treedef, rebuilt)
        return fn(*args, **kwargs)

    return flat


def _wrapped(obj, name: str, operands: bool):
    # (a DType is callable, `sx.float32(3)` makes an array, but it is the namespace's dtype object: never wrapped)
    if not callable(obj) or isinstance(obj, (type, DType)) or \
            not (getattr(obj, "__module__", None) or "").startswith("stridex"):
        return obj
    if name.rpartition(".")[2] in NOT_TRACED:
        return _eager(obj) if name.rpartition(".")[2] in ("asarray", "from_dlpack") else obj
    return traced_per_call(obj, name, operands, VALUE_PARAMETERS.get(name, ()))


def _assign_all(target, value):
    """`target[...] = value`: the write of a basic key, into the view of the array that the key selects."""
    target[...] = value


def _is_basic_key(key) -> bool:
    return _array_indexing._is_basic(key if type(key) is tuple else (key,))


def _getitem(self, key):
    """`x[key]`: a basic key (ints, slices, `...`, None) selects a view of `x`, made here as eagerly (metadata,
    and the IndexError of an index out of range at this line): no program at all, whatever the index. (Under
    `jit` such a result is re-derived as a view of the caller's array the same way.) Other keys run through
    `jit`, their index arrays traced."""
    if current_trace() is None and _is_basic_key(key):
        return _jit_mode_array(Array.__getitem__(_plain(self), key))
    return _traced_getitem(self, key)


def _setitem(self, key, value):
    """`x[key] = value`: for a basic key, the view it selects is made as eagerly (bounds checked here), and the
    write into all of that view runs through `jit`, one program per view shape, layout and kind of value: the
    index is the view's offset, an argument of the call, and a Python scalar value a traced one. Other keys run
    through `jit` with their index arrays and the value traced."""
    if current_trace() is None and isinstance(value, Array) and \
            value._storage_view()[0] is _plain(self)._storage_view()[0]:
        # A value read from the array written (`x[i] = x[j]`) is read first, as eagerly: as an argument sharing
        # the target's memory it would make the offsets of both part of the signature (a program per pair).
        value = stridex.asarray(_plain(value), copy=True)
    if current_trace() is None and _is_basic_key(key):
        _traced_assign_all(Array.__getitem__(_plain(self), key), value)
        return
    _traced_setitem(self, key, value)


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
# The parameters of other functions that are values: a Python scalar there is a traced, weakly typed argument
# (one program for every value), as its positional operands are for an elementwise function. Every other
# Python scalar argument is structure, part of the signature: a shape, an axis, a count, a dtype, a flag; and
# also (docs/jit.md, "What is static") `k` of eye/tril/triu, roll's shift, var/std's correction, arange's and
# linspace's bounds, isin's Python int: the functions take those as Python numbers.
VALUE_PARAMETERS = {"full": ("fill_value",), "full_like": ("fill_value",), "clip": ("min", "max"),
                    "where": ("x1", "x2"), "searchsorted": ("x2",)}
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
    if _name not in ("__getitem__", "__setitem__"):
        setattr(JitModeArray, _name, traced_per_call(getattr(Array, _name), f"Array.{_name}", True))
_traced_getitem = traced_per_call(Array.__getitem__, "Array.__getitem__", False)
_traced_setitem = traced_per_call(Array.__setitem__, "Array.__setitem__", False, ("value",))
_traced_assign_all = traced_per_call(_assign_all, "Array.__setitem__", False, ("value",))
_getitem.__wrapped_for_jit__ = Array.__getitem__  # type: ignore[attr-defined]  # (as the other operators)
_setitem.__wrapped_for_jit__ = Array.__setitem__  # type: ignore[attr-defined]
JitModeArray.__getitem__ = _getitem  # type: ignore[method-assign]  # (the class's operator table)
JitModeArray.__setitem__ = _setitem  # type: ignore[method-assign]
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
