"""`jit` and `make_ir`: trace a function to stridex IR once per signature, lower it to `jax.jit`, run it.

The cache key is the tree structure of the arguments, each array's shape, dtype and layout (strides
decide whether a reshape is a view, so they are part of the program's meaning), Python scalars' types
(weak, as eagerly) and the static arguments' values. Results are stridex arrays over JAX's output
buffers (zero-copy, copy-on-write); outputs that are views of inputs are views of the caller's arrays,
and inputs the function wrote into are written back into the caller's storage, exactly as eagerly.
"""

from __future__ import annotations

import functools
import operator
import threading
import warnings
import weakref
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Generic, ParamSpec, TypeVar, overload

import numpy as np

from stridex._core import processes
from stridex._core import caches as _caches
from stridex._core import tree as _tree
from stridex._core.array import Array, Device, window
from stridex._core.avals import ShapedArray, aval_of
from stridex._core.state import current_trace
from stridex._core.tree import freeze
from stridex._core.view import View
from stridex._exec import device as _device
from stridex._exec import placement as _places
from stridex._exec import jax_bridge
from stridex._lax.callbacks import effects_gated, effects_unordered
from stridex._exec.jax_bridge import computed, jax
from stridex._lax.linalg import PRECISION_SENSITIVE
from stridex._exec.precision import matmul_key
from stridex._lax.views import as_strided
from stridex._transforms import breaks, handover
from stridex._transforms.aot import Explanation, Lowered
from stridex._transforms import memo as _memo
from stridex._transforms.ir import Program, checked, has_effect
from stridex._transforms.lowering import lower_program
from stridex._transforms.passes import optimize
from stridex._transforms.tracing import Tracer, trace_to_program



@processes.in_child
def _forget_after_fork() -> None:
    """In a forked child: a lock of a jitted function may have been held by a thread of the parent (tracing), and
    where JAX's runtime had started before the fork, a memo would call an executable of that runtime, which never
    completes here: every call goes through `_dispatch`, which raises (`jax_bridge.check_runtime`)."""
    for jitted in list(_LIVE):
        jitted._lock = threading.RLock()
        if jax_bridge.RUNTIME_FORKED:
            jitted._memos = ()
            jitted.__call__ = jitted._dispatcher  # type: ignore[method-assign]  # (the slot: see the class body)


_SCALARS = (bool, int, float, complex)


P = ParamSpec("P")
R = TypeVar("R")


@overload
def jit(fun: Callable[P, R], /, *, static_argnums: int | Sequence[int] = (), static_argnames: str | Iterable[str] = (),
        donate_argnums: int | Sequence[int] = (), device: Device | str | None = None, in_shardings: Any = None,
        out_shardings: Any = None, graph_breaks: bool = True) -> Jitted[P, R]: ...
@overload
def jit(fun: None = None, /, *, static_argnums: int | Sequence[int] = (), static_argnames: str | Iterable[str] = (),
        donate_argnums: int | Sequence[int] = (), device: Device | str | None = None, in_shardings: Any = None,
        out_shardings: Any = None, graph_breaks: bool = True) -> Callable[[Callable[P, R]], Jitted[P, R]]: ...
def jit(fun: Callable[P, R] | None = None, /, *, static_argnums: int | Sequence[int] = (),
        static_argnames: str | Iterable[str] = (),
        donate_argnums: int | Sequence[int] = (), device: Device | str | None = None, in_shardings: Any = None,
        out_shardings: Any = None, graph_breaks: bool = True
        ) -> Jitted[P, R] | Callable[[Callable[P, R]], Jitted[P, R]]:
    """Compile `fun` with XLA: trace it once per input signature to stridex IR, lower that to `jax.jit`.

    Where the traced Python needs a value (`bool(x)`, `float(x)`, `np.asarray(x)`, ...) or calls an
    operation whose output shape depends on the data (`unique_*`, `nonzero`, boolean masks), the graph
    breaks: the value is computed for this call and the decision guarded, so one program per path
    through the function is compiled (see docs/jit.md). `graph_breaks=False` raises
    ConcretizationError / DataDependentShapeError there instead.

    >>> import stridex as sx
    >>> f = sx.jit(lambda x, y: sx.sum(x * y))
    >>> f(sx.asarray([1.0, 2.0]), sx.asarray([3.0, 4.0]))
    Array(11.)
    """
    if fun is None:
        return functools.partial(jit, static_argnums=static_argnums, static_argnames=static_argnames,  # type: ignore[return-value]  # (jit's decorator form)
                                 donate_argnums=donate_argnums, device=device, in_shardings=in_shardings,
                                 out_shardings=out_shardings, graph_breaks=graph_breaks)
    return Jitted(fun, static_argnums, static_argnames, donate_argnums, device, in_shardings, out_shardings,
                  graph_breaks)


def make_ir(fun: Callable[P, Any], /, *, static_argnums: int | Sequence[int] = (),
            static_argnames: str | Iterable[str] = (), optimize: bool = True) -> Callable[P, Program]:
    """A function returning the stridex IR Program that `fun` traces to for the given arguments.

    With `optimize=True` (the default) the program is the one `jit` lowers: after view folding,
    common-subexpression and dead-code elimination; `optimize=False` shows it as recorded.

    >>> import stridex as sx
    >>> print(sx.make_ir(lambda x: x + 1)(sx.asarray([1.0, 2.0])))
    { lambda a:f64[2] .
        b:f64[2] = add a 1
      in (b) }
    """
    jitted = Jitted(fun, static_argnums, static_argnames, (), None, None, None, graph_breaks=False)

    def make(*args, **kwargs):
        traced = jitted.trace(*args, **kwargs)
        return traced.program if optimize else traced.raw_program

    return make


def _placement(device) -> Device:
    """`device=` as a stridex Device: a JAX device, a stridex Device or its name ("cpu", "cuda:0", "cpu:1",
    ...); ValueError naming the available devices for an unknown name."""
    if not isinstance(device, (Device, str)) and not type(device).__module__.startswith(("jax", "jaxlib")):
        raise TypeError(f"jit: device must be a device name such as 'cpu' or 'cuda:0', a stridex Device or a JAX "
                        f"device, got {type(device).__name__}")
    return _places.resolve(device, "jit device")


def _jax_device(dev: Device):
    """The JAX device (or sharding) `jax.jit` places a program on for `dev`: the host's is JAX's first CPU
    device, whose memory is host memory."""
    return dev.jax if dev.jax is not None else jax().devices("cpu")[0]


def _as_tuple(x) -> tuple:
    if x is None:
        return ()
    if isinstance(x, (int, str)):
        return (x,)
    return tuple(x)


class _Signature:
    __slots__ = ("conflict", "device", "groups", "key", "leaves", "n_user", "placed", "same", "statics", "treedef")
    conflict: Any
    device: Device | None
    groups: dict[int, handover.AliasGroup]
    key: Any
    leaves: list[Any]
    n_user: int
    placed: Any
    same: Any
    statics: Any
    treedef: Any


class Jitted(Generic[P, R]):
    """A jit-compiled function: call it like the original; `.lower(...)` and `.trace(...)` inspect it."""

    # `__call__` is a slot: Python looks it up on the class, finds the slot's descriptor, and calls what this
    # instance holds there, with no Python frame in between: the memo of a recent call's arguments (the only
    # frame of a steady-state call, see `stridex/_transforms/memo.py`), or the general call, `_dispatch`.
    if TYPE_CHECKING:  # what the slot holds, as a type checker sees it: a call with the wrapped function's type
        def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R: ...
    else:
        __slots__ = ("__call__", "__dict__", "__weakref__")

    def __init__(self, fun: Callable[P, R], static_argnums: Any, static_argnames: Any, donate_argnums: Any,
                 device: Any, in_shardings: Any, out_shardings: Any, graph_breaks: bool = True) -> None:
        # First, so that what follows is this function's own state: wrapping a jitted function, the update
        # copies the inner one's attributes (its cache, its static arguments) into this one's dict.
        functools.update_wrapper(self, fun)
        self._fun = fun
        self._graph_breaks = graph_breaks
        # How tracing went: traces, breaks taken, guard failures, paths traced after a failure, eager calls.
        self.stats: Counter[str] = Counter()
        self._static_argnums = frozenset(operator.index(i) for i in _as_tuple(static_argnums))
        self._static_argnames = frozenset(_as_tuple(static_argnames))
        self._donate_argnums = frozenset(operator.index(i) for i in _as_tuple(donate_argnums))
        self._placement = None if device is None else _placement(device)  # (a stridex Device)
        self._device = None if device is None else _jax_device(self._placement)  # type: ignore[arg-type]  # (placed: a device)
        self._in_shardings = in_shardings
        self._out_shardings = out_shardings
        # The compiled signatures, least recently used out beyond the "jit" limit (`sx.set_cache_limit`).
        # (the eviction hook reaches this function through a weak reference: no cycle keeps its programs alive)
        self._cache = _caches.ProgramCache("jit", on_evict=_evicted_from(weakref.ref(self)))
        _LIVE.add(self)
        # Calls whose arguments are all plain arrays with distinct storages, keyed without flattening.
        self._fast_cache: dict = {}
        # Guards `_cache` (tracing included): the trace itself is per thread (`_state`), the cache is shared.
        self._lock = threading.RLock()
        # What a call calls: the memo of a recent fast call's arguments, for a program that writes no input
        # (the first of `_memos`, see `stridex/_transforms/memo.py`), or `_dispatch` through `_dispatcher`.
        self._dispatcher = _memo.dispatcher(self)
        self._memos = ()
        self._recent_windows: list[Any] = []  # (weak references: see `memo.comes_again`)
        self.__call__ = self._dispatcher  # type: ignore[method-assign]  # (the slot: see the class body)

    def __repr__(self):
        return f"<stridex.jit of {getattr(self._fun, '__qualname__', self._fun)!r}>"

    def __get__(self, obj: Any, objtype: Any = None) -> Any:  # behave like a function when used as a method
        return self if obj is None else functools.partial(self, obj)

    # --- signature ------------------------------------------------------------------------------
    def _signature(self, args, kwargs, constants: tuple = ()) -> _Signature:
        """The cache key of a call, and its flat leaves. `constants` (arrays the function closes over that
        share memory with an argument or with each other, see `_closure_signature`) join the leaves
        after the arguments', so that the alias analysis sees them like arguments."""
        nargs = len(args)
        static_pos = {i + nargs if i < 0 else i for i in self._static_argnums}
        statics, dynamic, static_keys = [], [], []
        for i, a in enumerate(args):
            if i in static_pos:
                statics.append((i, _hashable(a, f"static argument {i}")))
                static_keys.append((i, freeze(a)))
            else:
                dynamic.append(a)
        dyn_kwargs = {}
        for name in sorted(kwargs):
            if name in self._static_argnames:
                statics.append((name, _hashable(kwargs[name], f"static argument {name!r}")))
                static_keys.append((name, freeze(kwargs[name])))
            else:
                dyn_kwargs[name] = kwargs[name]
        leaves, treedef = _tree.flatten((tuple(dynamic), dyn_kwargs))
        n_user = len(leaves)
        leaves = leaves + list(constants)
        sigs: list[Any] = []
        storages: dict[int, int] = {}
        alias = []
        device = None  # the device of the arguments that live on a JAX device (one for all of them)
        any_array = False
        for j, leaf in enumerate(leaves):
            if isinstance(leaf, Array) and not leaf._storage.is_host and not isinstance(leaf, Tracer):
                st = leaf._storage
                if device is not None and st.device is not device and st.device != device:
                    raise ValueError(f"jit: arguments live on different devices ({device.name} and {st.device.name});"
                                     " move them to one with x.to_device(...) first")
                device = st.device
                any_array = True
                # (on a mesh, arrays of one device label differ in layout: the program is compiled for each)
                sigs.append((leaf.shape, leaf._dtype, device, st.owner.sharding if st.sharded else None))
                alias.append(storages.setdefault(id(st), j) if leaf.size else j)
            elif isinstance(leaf, Array) and not isinstance(leaf, Tracer):
                any_array = True
                w = window(leaf)
                layout = None if w.flags.c_contiguous else tuple(s // w.itemsize for s in w.strides)
                sigs.append((w.shape, leaf._dtype, layout))
                if leaf.size:  # (adopting a fresh result's storage, so that passing it twice is seen)
                    alias.append(storages.setdefault(id(leaf._storage_view()[0]), j))
                else:
                    alias.append(j)
            elif isinstance(leaf, (*_SCALARS, np.number, np.bool_)):
                if isinstance(leaf, np.generic):  # a NumPy scalar stands for its Python scalar, as in the operators
                    leaves[j] = leaf = _numpy_scalar_value(leaf, j)
                sigs.append(type(leaf))
                alias.append(j)
            elif isinstance(leaf, np.ndarray) or _device.is_jax_array(leaf):
                raise TypeError(f"jit: argument leaf {j} is a {'NumPy' if isinstance(leaf, np.ndarray) else 'JAX'} "
                                "array; convert it with stridex.asarray (zero-copy) or mark the argument static")
            else:
                if isinstance(leaf, Tracer):
                    leaf._check_live("a jit argument")  # EscapedTracerError for a tracer of a finished trace
                raise TypeError(f"jit: argument leaf {j} of type {type(leaf).__name__} is neither an array "
                                "nor a Python scalar; pass it through static_argnums/static_argnames")
        sig = _Signature()
        shifts, sig.conflict = handover.shared_memory(leaves, alias)
        sig.groups, sig.same = handover.split_identical(leaves, handover.alias_groups(leaves, alias, shifts))
        if sig.groups:  # arguments sharing memory: their placement in it is part of the signature
            sigs = [s if j not in sig.groups else s + (sig.groups[j].placement(),) for j, s in enumerate(sigs)]
        if sig.same:  # one array passed more than once: one program input (`alias` says which)
            sigs = [s if j not in sig.same else s + ("same",) for j, s in enumerate(sigs)]
        # (with the matmul precision in force: the lowering reads it, so a program compiled under one setting
        # is never served under another)
        sig.key = (treedef, tuple(sigs), tuple(static_keys), tuple(alias), matmul_key())
        if constants:
            sig.key += (tuple(map(id, constants)),)
        sig.placed = False
        if not any_array:
            # No array comes in (a creation function, say): the program runs on the default device, as the
            # same code run eagerly makes its arrays there.
            device = _places.placement()
            if device is not None:
                sig.placed = True
                sig.key += (device.name,)
        sig.leaves = leaves
        sig.device = device
        sig.n_user = n_user
        sig.treedef = treedef
        sig.statics = statics
        return sig

    # --- tracing --------------------------------------------------------------------------------
    def trace(self, *args: P.args, **kwargs: P.kwargs) -> Traced:
        sig = self._signature(args, kwargs)
        return self._trace(sig, len(args))

    def _trace(self, sig: _Signature, nargs: int) -> Traced:
        statics = dict(sig.statics)
        views: list[Any]
        avals, views, roots = [], [], []  # one program input per leaf, or per group of aliased leaves
        for j, leaf in enumerate(sig.leaves):
            group = sig.groups.get(j)
            if j in sig.same:
                continue  # the same program input as an earlier leaf
            if group is not None:
                if group.root == j:
                    roots.append(j)
                    avals.append(ShapedArray((group.span,), leaf.dtype))
                    views.append(None)
            elif isinstance(leaf, Array):
                roots.append(j)
                avals.append(ShapedArray(leaf.shape, leaf.dtype))
                views.append(leaf._storage_view()[1] if leaf.size else None)
            else:
                roots.append(j)
                avals.append(aval_of(leaf))
                views.append(None)

        def flat_fun(*inputs):
            by_root = dict(zip(roots, inputs))
            tracers = []
            for j, leaf in enumerate(sig.leaves):
                group = sig.groups.get(j)
                if j in sig.same:
                    tracers.append(tracers[sig.same[j]])
                elif group is None:
                    tracers.append(by_root[j])
                else:
                    tracers.append(as_strided.bind(by_root[group.root], shape=leaf.shape, strides=group.strides,
                                                   offset=group.offset))
            dynamic, dyn_kwargs = _tree.unflatten(sig.treedef, tracers[:sig.n_user])
            # Closed-over arrays passed as leaves (they share memory with others): the trace reads them
            # through these tracers instead of making them implicit inputs of their own.
            current_trace().bound_constants = {id(c): t for c, t in zip(sig.leaves[sig.n_user:],
                                                                         tracers[sig.n_user:])}
            it = iter(dynamic)
            call_args = [statics[i] if i in statics else next(it) for i in range(nargs)]
            call_kwargs = dict(dyn_kwargs)
            call_kwargs.update({k: v for k, v in statics.items() if isinstance(k, str)})
            return self._fun(*call_args, **call_kwargs)

        values = _input_values(sig, roots) if self._graph_breaks else None
        self.stats["traces"] += 1
        trace, in_tracers, out = trace_to_program(flat_fun, avals, views, input_values=values,
                                                  graph_breaks=self._graph_breaks)
        try:
            traced = Traced(trace, in_tracers, out, sig, roots)
        finally:
            trace.finished = True
        self.stats["breaks"] += len(traced.guards)
        return traced

    # --- calling --------------------------------------------------------------------------------
    def _dispatch(self, *args, **kwargs):
        """The general call: the fast cache for plain array arguments, else the signature and the cache."""
        if jax_bridge.RUNTIME_FORKED:  # (a compiled program of the parent's JAX runtime would never complete)
            jax_bridge.check_runtime()
        if current_trace() is not None:
            return self._fun(*args, **kwargs)  # inside another trace: inline into it
        fast_key = None
        if not kwargs and not self._static_argnums:
            fast_key = _fast_key(args)
            if fast_key is not None:
                entry = self._fast_cache.get(fast_key)
                # An entry traced for distinct storages serves arguments that share one only when the
                # program writes into none of them (reads cannot tell aliased inputs apart).
                if entry is not None:
                    if entry.pure:
                        result = entry.run(args)
                        memo = _memo.make(self, args, entry) if _memo.comes_again(self, args) else None
                        if memo is not None:
                            _memo.install(self, memo)
                        return result
                    if handover.distinct_storages((*args, *entry.constants) if entry.constants else args):
                        return entry.run(args)
        sig = self._signature(args, kwargs)
        return self._call_signature(sig, args, kwargs, fast_key)

    def _call_signature(self, sig: _Signature, args, kwargs, fast_key=None):
        """A call whose signature is `sig`: its entry (traced and compiled on a miss), then the entry's run."""
        try:
            entry = self._entry(sig, len(args))
            if not entry.pure and entry.constants:
                closure = self._closure_signature(sig, args, kwargs, entry.constants)
                if closure is not None:
                    sig = closure
                    entry = self._entry(sig, len(args))
                    fast_key = None
            _check_conflict(sig, entry)
            if isinstance(entry, Branches):
                return entry.call(self, sig, args, kwargs)
        except breaks.TooManyBreaks as e:
            return self._eager_call(args, kwargs, f"more than {breaks.MAX_BREAKS} graph breaks (the last at "
                                                  f"{e.where})")
        if fast_key is not None and not sig.groups and not sig.same and not sig.conflict:
            self._fast_cache[fast_key] = entry
        if entry.traced.scalar_checks:
            _check_scalar_arguments(entry.traced.scalar_checks, sig.leaves)
        return entry.run(sig.leaves)

    def _entry(self, sig: _Signature, nargs: int) -> Compiled | Branches:
        """The compiled program for `sig` (or, where the graph broke, its paths), traced on a miss; the cache
        is least-recently-used, as long as the "jit" limit (`sx.set_cache_limit`)."""
        with self._lock:  # concurrent first calls trace once; the LRU order is updated by one thread at a time
            entry = self._cache.get(sig.key)
            if entry is not None:
                return entry
            compiled = Compiled(self._trace(sig, nargs), self)
            entry = Branches(compiled) if compiled.traced.guards else compiled
            self._cache.put(sig.key, entry)
            return entry

    def _evicted(self, entries: list) -> None:
        """Forget the programs the cache evicted everywhere else a call could still find them."""
        with self._lock:
            gone = {id(e) for e in entries}
            self._fast_cache = {k: e for k, e in self._fast_cache.items() if id(e) not in gone}
            memos: tuple[Any, ...] = self._memos
            if any(id(getattr(memo, "entry", None)) in gone for memo in memos):
                self._memos = ()
                self.__call__ = self._dispatcher  # type: ignore[method-assign]  # (the slot: see the class body)

    def _closure_signature(self, sig, args, kwargs, constants) -> _Signature | None:
        """For a program that writes into its inputs or the arrays it closes over: when a closed-over array
        shares memory with an argument or another closed-over array, the signature with those constants as
        leaves (traced so that a write through one is seen through the other, as eagerly); else None."""
        arrays = [leaf for leaf in sig.leaves if isinstance(leaf, Array)] + list(constants)
        if handover.distinct_storages(arrays):
            return None
        return self._signature(args, kwargs, tuple(constants))

    def _eager_call(self, args, kwargs, why: str):
        """Run the call eagerly (what jit does when it cannot compile it), warning once per reason."""
        self.stats["eager_calls"] += 1
        warnings.warn(f"stridex.jit: {getattr(self._fun, '__qualname__', self._fun)} runs eagerly: {why}",
                      RuntimeWarning, stacklevel=3)
        return self._fun(*args, **kwargs)

    def explain(self, *args: P.args, **kwargs: P.kwargs) -> Explanation:
        """Trace the function for these arguments and say where its graph breaks: each break's reason, source
        line and the value observed (what the compiled path is guarded on)."""
        sig = self._signature(args, kwargs)
        return Explanation(self._trace(sig, len(args)))

    def lower(self, *args: P.args, **kwargs: P.kwargs) -> Lowered:
        """The program for these arguments, traced and lowered to JAX now (`.as_text()`, `.ir`); `.compile()`
        compiles it ahead of time, into a function of arrays of this signature.

        >>> import stridex as sx
        >>> f = sx.jit(lambda x, n: x * n, static_argnums=1)
        >>> compiled = f.lower(sx.ones(3), 2).compile()
        >>> compiled(sx.asarray([1.0, 2.0, 3.0]))  # (static arguments are left out, as in JAX)
        Array([2., 4., 6.])
        """
        sig = self._signature(args, kwargs)
        entry = self._entry(sig, len(args))
        return Lowered(self, sig, len(args), entry.paths[0] if isinstance(entry, Branches) else entry)

    def clear_cache(self) -> None:
        with self._lock:
            self._memos = ()
            self.__call__ = self._dispatcher  # type: ignore[method-assign]  # (the slot: see the class body)
        self._cache.clear()
        self._fast_cache.clear()

    def cache_size(self) -> int:
        return len(self._cache)


def _evicted_from(ref):
    """The eviction hook of the cache of the jitted function `ref` refers to (see `Jitted._evicted`)."""

    def evicted(entries: list) -> None:
        jitted = ref()
        if jitted is not None:
            jitted._evicted(entries)

    return evicted


_LIVE: weakref.WeakSet[Jitted] = weakref.WeakSet()  # every jitted function, for `sx.clear_caches`


def _clear_all() -> None:
    for jitted in list(_LIVE):
        jitted.clear_cache()


_caches.on_clear(_clear_all)


def _fast_key(args):
    """A cache key for positional, all-array arguments (the common call), else None. It does not look at
    shared storage: `handover.distinct_storages` does, when the entry found needs it."""
    key = []
    for a in args:
        if type(a) is not Array:
            return None
        w = a._np
        if w is not None:
            key.append((w.shape, a._dtype, w.strides))  # byte strides: a different tuple from element strides
        else:
            view = a._view  # (an array with no cached window has its Storage and View)
            # (its device's name: a program for host arrays is not one for a device's)
            key.append((view.shape, a._dtype, view.strides, a._storage.device.name))
    key.append(matmul_key())
    if not args:  # (a program given no array runs on the default device)
        placed = _places.placement()
        key.append(None if placed is None else placed.name)
    return tuple(key)


def _numpy_scalar_value(leaf, j: int):
    value = leaf.item()
    if not isinstance(value, _SCALARS):
        raise TypeError(f"jit: argument leaf {j} is a NumPy {leaf.dtype} scalar, which has no Python scalar of the "
                        "Array API's kinds; pass it through static_argnums/static_argnames")
    return value


def _check_scalar_arguments(checks: tuple, leaves: list) -> None:
    """Store each checked Python scalar argument into its dtype as eager code does, raising what NumPy raises
    there (OverflowError for an int out of range, ValueError for NaN into an integer dtype, ...)."""
    for j, dtype in checks:
        np.empty((), dtype.np)[()] = leaves[j]


def _hashable(value, what: str):
    try:
        hash(value)
    except TypeError:
        raise TypeError(f"jit: {what} of type {type(value).__name__} is not hashable, so it cannot be "
                        "static; pass a hashable value (e.g. a tuple instead of a list)") from None
    return value


class Traced:
    """The result of tracing: the Program plus how to map its outputs back to the caller's pytree."""

    _program: Program | None
    device: Any  # a Device, or None for the host
    placed: bool
    constants: list

    def _place_by_constants(self) -> None:
        """Arrays the function closes over are inputs too: one on a JAX device places the program there, as a
        device argument does (host arguments are then transferred), and two devices are a ValueError."""
        for c in self.constants:
            dev = c.device
            if dev.is_host:
                continue
            if self.device is None and not self.placed:
                self.device = dev
            elif self.device is not None and dev != self.device:
                raise ValueError(f"jit: arguments and the arrays the function closes over live on different devices "
                                 f"({self.device.name} and {dev.name}); move them to one with x.to_device(...) first")

    def __init__(self, trace, in_tracers, out, sig: _Signature, roots: list):
        self.device = sig.device  # where the arguments that live on a JAX device are (None: the host)
        self.placed = sig.placed  # no array comes in, and the program runs on the default device (`device`)
        out_leaves, self.out_treedef = _tree.flatten(out)
        input_buffers = {id(t._buffer): i for i, t in enumerate(in_tracers)}
        const_entries = list(trace.constants.values())
        const_buffers = {id(tracer._buffer): j for j, (_, _, tracer) in enumerate(const_entries)}
        outputs: list[Any]
        outputs, out_slots, specs = [], {}, []
        sharing: dict[int, int] = {}  # buffer id -> number of output leaves that view it
        for leaf in out_leaves:
            if isinstance(leaf, Tracer):
                sharing[id(leaf._buffer)] = sharing.get(id(leaf._buffer), 0) + 1
        for leaf in out_leaves:
            if isinstance(leaf, Tracer) and leaf._trace is trace:
                buf = leaf._buffer
                if id(buf) in input_buffers and (not leaf._chain or
                                                 isinstance(sig.leaves[roots[input_buffers[id(buf)]]], Array)):
                    # (an input, or a view of an input array; a view of a Python scalar argument, `a[...]`, is a
                    # new array, computed below)
                    specs.append(("input", input_buffers[id(buf)], leaf._chain))
                elif id(buf) in const_buffers:
                    specs.append(("const", const_buffers[id(buf)], leaf._chain))
                elif sharing[id(buf)] == 1:
                    # The only output over this buffer: XLA computes the view's value itself.
                    specs.append(("out", len(outputs), ()))
                    outputs.append(trace.read(leaf))
                else:
                    # Several outputs view one buffer: return the buffer once and re-derive the views
                    # eagerly, so the outputs share memory exactly as they would eagerly.
                    if id(buf) not in out_slots:
                        out_slots[id(buf)] = len(outputs)
                        outputs.append(buf.var)
                    specs.append(("out", out_slots[id(buf)], leaf._chain))
            elif isinstance(leaf, Tracer):
                leaf._check_live("a jit output")
                raise TypeError("jit: the function returned a value traced by a different trace")
            else:
                specs.append(("static", leaf, ()))
        # Inputs and closed-over arrays the function wrote into are written back after the call: the parts
        # written, each a `handover.WriteBack`.
        for i, t in enumerate(in_tracers):
            leaf = sig.leaves[roots[i]]
            if t._buffer.version and not isinstance(leaf, Array):  # (eagerly, `2.0[...] = v` is a TypeError too)
                raise TypeError(f"jit: the function writes into its argument leaf {roots[i]}, a Python "
                                f"{type(leaf).__name__} ({leaf!r}); only arrays can be written into. Pass "
                                f"sx.asarray({leaf!r}) to have a 0-D array written")
        self.input_writes = [handover.write_plan(trace, i, t._buffer, outputs)
                             for i, t in enumerate(in_tracers) if t._buffer.version]
        self.const_writes = [handover.write_plan(trace, j, tracer._buffer, outputs)
                             for j, (_, _, tracer) in enumerate(const_entries) if tracer._buffer.version]
        # (the plans' masks may close over arrays of their own, such as a diagonal's index arrays: the
        # program's constants are all of them, the earlier ones first, in the same order)
        const_entries = list(trace.constants.values())
        # Graph breaks: the values the path's decisions rest on, checked after each call (`Compiled.run`).
        self.guards = trace.guards
        for guard in self.guards:
            guard.output = len(outputs)
            outputs.append(guard.var)
        self.specs = specs
        self.constants = [array for _, array, _ in const_entries]
        self._place_by_constants()
        self.raw_program = checked(Program([t._buffer.initial_var for t in in_tracers],
                                           [(var, arr) for var, arr, _ in const_entries], trace.eqns, outputs),
                                   "tracing")
        self._program = None
        self.n_leaves = len(in_tracers)
        self.roots = roots  # program input i is leaf roots[i] (or the flat span of its alias group)
        self.groups = sig.groups
        self.same = sig.same  # leaf -> the earlier leaf that is the same array (one program input for both)
        # (leaf, dtype): Python scalar arguments the function stored into an integer dtype (`note_scalar_store`).
        leaf_of = {id(t._buffer.initial_var): roots[i] for i, t in enumerate(in_tracers)}
        self.scalar_checks = tuple(dict.fromkeys((leaf_of[id(var)], dtype) for var, dtype in trace.scalar_stores
                                                 if id(var) in leaf_of))

    @property
    def program(self) -> Program:
        """The program `jit` lowers: the recorded one after the passes (computed on first use)."""
        if self._program is None:
            self._program = checked(optimize(self.raw_program), "jit's optimisation passes")
        return self._program

    def __str__(self):
        return str(self.program)


class Compiled:
    """A traced program lowered to a `jax.jit` function, plus the caller-side output handling."""

    def __init__(self, traced: Traced, jitted: Jitted):

        self.traced = traced
        self.constants = traced.constants
        # Whether a call hands JAX buffers of device storages (its arguments', or arrays it closes over): it
        # does so holding `device.OWNERS`, so that no other thread's write donates them in between.
        self.reads_device = traced.device is not None or any(not c.device.is_host for c in traced.constants)
        # Where the outputs stay: the arguments' device; for host arguments, the host when the program runs
        # on a JAX CPU device (whose memory NumPy shares), else the accelerator it runs on (a GPU).
        self.out_device = traced.device if traced.device is not None else _host_call_device(jitted._placement)
        # What its matmuls are lowered under (checked by the memo path); None for a program without any,
        # which any precision setting may reuse.
        self.matmul_key = matmul_key() if any(e.prim.name in PRECISION_SENSITIVE for e in traced.program.eqns) \
            else None
        run = lower_program(traced.program)
        self.effectful = any(has_effect(e) for e in traced.program.eqns)
        if self.effectful and traced.guards:
            run = _gated(run, traced.guards)
        if self.effectful and (jitted._in_shardings is not None or jitted._out_shardings is not None):
            run = _unordered(run)
        n_consts = len(traced.constants)
        options = {}
        on_host_device = False  # placed on JAX's CPU device explicitly (JAX's default is an accelerator)
        if jitted._in_shardings is not None:
            options["in_shardings"] = (None,) * n_consts + tuple(_as_tuple(jitted._in_shardings)) \
                if isinstance(jitted._in_shardings, (tuple, list)) else jitted._in_shardings
        if jitted._out_shardings is not None:
            options["out_shardings"] = jitted._out_shardings
        if jitted._device is not None:
            options["device"] = jitted._device
        elif traced.placed and jitted._out_shardings is None:
            options["out_shardings"] = _places.creation_sharding(traced.device)
        elif traced.device is not None:
            # (JAX drops arguments a program does not read; without them, it would run on JAX's default device)
            options["keep_unused"] = True
        elif jitted._out_shardings is None and jitted._in_shardings is None and not _places.host_is_jax_default():
            # Host arguments (or none, with the host as the default device): the program runs where its data
            # is, on JAX's CPU device, and its outputs are host arrays, as the same code run eagerly gives. (On
            # a CPU-only machine that device is JAX's default, and the plain call places it there.)
            options["out_shardings"] = _places.host_sharding()
            on_host_device = True
        if jitted._donate_argnums:
            options["donate_argnums"] = tuple(n_consts + i for i in sorted(jitted._donate_argnums)
                                              if i < traced.n_leaves)
        self.donates = bool(options.get("donate_argnums"))
        self.pure = not traced.input_writes and not traced.const_writes
        # A program with effects (`sx.debug.print`, ...) runs through `run`, which waits for them before the
        # call returns, so that what it prints comes before what the caller prints next.
        # The commonest shape of a call (one output array, written nowhere else), run by `_run_single`
        # without the general output handling; its JAX function returns the array itself, not a tuple.
        self.single_output = (traced.specs == [("out", 0, ())] and traced.out_treedef == ("leaf",)
                              and self.pure and not traced.groups and not traced.same and not self.donates
                              and not traced.guards and not self.effectful)
        if self.single_output:
            self.function = jax().jit(lambda *a: run(*a)[0], **options)
            aval = traced.program.outputs[0].aval
            self.out_view, self.out_dtype = View.contiguous(aval.shape), aval.dtype
            self.run = self._run_single_locked if self.reads_device else self._run_single  # type: ignore[method-assign]  # (one frame less)
        else:
            self.function = jax().jit(lambda *a: tuple(run(*a)), **options)
        # Each output's View and dtype, for adopting its JAX buffer (the same View object for every call).
        self.out_layouts = [(View.contiguous(v.aval.shape), v.aval.dtype) for v in traced.program.outputs]
        self.x64 = jax().enable_x64
        # The ahead-of-time compiled executable's call, used when every argument is a JAX array: no
        # conversion, so no 64-bit scope is needed. Only for plain jit: placement is JAX's default or the host.
        self.aot = None
        self.direct = None
        # (the host placement is JAX's default placement made explicit: the same executable either way)
        self.plain = not options.keys() - {"keep_unused"} or (on_host_device and options.keys() == {"out_shardings"})
        # Whether `direct` can ever be set: what a memo (see `memo.py`) may call with the arguments alone.
        # Several outputs, each a program output as it is (a pure program's tuple of results, its gradients
        # say): the memo path may call the executable and adopt its outputs (`outputs`) with nothing else to do.
        self.plain_outputs = (self.pure and not traced.groups and not traced.same and not self.donates
                              and not self.effectful
                              and not traced.guards and all(kind == "out" and not chain
                                                            for kind, _, chain in traced.specs))
        self.may_call_directly = (self.single_output or self.plain_outputs) and self.plain and not self.constants
        n = len(traced.specs)  # (a tuple of the program's outputs in order: `outputs` returns them as they are)
        self.in_order_tuple = (self.plain_outputs and traced.out_treedef == ("tuple",) + (("leaf",),) * n
                               and [k for _, k, _ in traced.specs] == list(range(n))
                               and len(traced.program.outputs) == n)

    def _call(self, args):
        """Call the JAX function inside the 64-bit scope (entered only when the caller is not in one)."""
        if self.x64.value:  # (jax>=0.10: the config state is readable)
            return self.function(*args)
        with self.x64(True):
            return self.function(*args)

    def _call_aot(self, args):
        """The first call on JAX-array inputs: compile ahead of time, then keep the executable's call."""
        with self.x64(True):
            executable = self.function.lower(*args).compile()
        out = executable(*args)
        # JAX's `Compiled.__call__` is a Python method forwarding to a C++ callable that it makes on its
        # first call; calling that callable directly saves a Python frame on every later call.
        self.aot = getattr(executable, "_call", None) or executable
        if self.may_call_directly:  # (View and dtype None: several outputs, adopted by `outputs`)
            self.direct = (self.aot, self.out_view, self.out_dtype, self.out_device) if self.single_output \
                else (self.aot, None, None, self.out_device)
        return out

    def _inputs(self, leaves):
        """The caller-side arrays behind each program input: leaves, or flat spans of aliased storage."""
        traced = self.traced
        if not traced.groups:
            return [leaves[j] for j in traced.roots] if traced.same else leaves
        written = {plan.index for plan in traced.input_writes}
        return [handover.group_input(leaves, traced.groups, j, i in written) for i, j in enumerate(traced.roots)]

    def _arguments(self, inputs) -> tuple[list, bool]:
        """What JAX receives for the program's inputs (the constants first), and whether any of them reads host
        memory in place, so that the call must wait for the program before returning (`handover.jax_argument`)."""
        if self.donates:  # a donated buffer is consumed by XLA: hand over buffers of their own, cache nothing
            args = [handover.donated_argument(c) for c in self.traced.constants] + [
                handover.donated_argument(x) if isinstance(x, Array) else x for x in inputs]
            return args, any(type(a) is np.ndarray for a in args)  # (a host window, which JAX copies)
        args, in_place = [], False
        for x in (*self.traced.constants, *inputs):
            if isinstance(x, Array):
                x, reads = handover.jax_argument(x)
                in_place = in_place or reads
            elif type(x) is np.ndarray:
                in_place = True
            args.append(x)
        return args, in_place

    def run(self, leaves):
        inputs = self._inputs(leaves)
        if self.reads_device:  # (a device buffer read here must not be donated by another thread's write first)
            with _device.OWNERS:
                outs = self._execute(inputs)
        else:
            outs = self._execute(inputs)
        if self.effectful:
            jax().effects_barrier()
        traced = self.traced
        if traced.guards:
            _check_guards(traced.guards, outs)  # before any effect of the call is kept
        leaves = inputs
        bases = self._adopted(outs)
        for plan in traced.input_writes:
            self._write_back(leaves[plan.index], bases, plan)
        for plan in traced.const_writes:
            self._write_back(traced.constants[plan.index], bases, plan)
        results = []
        for kind, where, chain in traced.specs:
            if kind == "static":
                results.append(where)
                continue
            x = bases[where] if kind == "out" else leaves[where] if kind == "input" else traced.constants[where]
            for prim, params in chain:
                x = prim.bind(x, **params)
            results.append(x)
        return _tree.unflatten(traced.out_treedef, results)

    def _execute(self, inputs):
        args, in_place = self._arguments(inputs)
        if self.plain and not self.donates and _all_jax_arrays(args):
            outs = self.aot(*args) if self.aot is not None else self._call_aot(args)
        else:
            outs = self._call(args)
        if in_place:
            computed(outs)
        return outs

    def _write_back(self, target: Array, bases: list, plan) -> None:
        mask = None if plan.mask is None else self._written_back(bases[plan.mask], target)
        handover.write_back(target, self._written_back(bases[plan.output], target), plan, mask)

    def outputs(self, outs) -> object:
        """The caller's results of a `plain_outputs` program from the executable's outputs `outs`."""
        arrays = self._adopted(outs)
        if self.in_order_tuple:
            return tuple(arrays)
        return _tree.unflatten(self.traced.out_treedef, [arrays[k] for _, k, _ in self.traced.specs])

    def _adopted(self, outs) -> list:
        """Stridex arrays over the executable's output buffers, one per program output."""
        out_device = self.out_device
        return [_device.adopt_out(o, view, dtype, out_device) for o, (view, dtype) in zip(outs, self.out_layouts)]

    def _written_back(self, value: Array, target: Array) -> Array:
        """A written value on its target's device: a program placed elsewhere (`jit(device=...)` on host
        arrays) sends its writes back to the arrays it was given, as it took their values from them."""
        if self.out_device is None:
            return value
        where = target.device
        return value if where is self.out_device else _device.transfer(value, where)

    def _run_single(self, leaves):
        on_jax = True  # every argument is a JAX array already
        in_place = False  # whether one reads host memory in place (see `handover.jax_argument`)
        args = []
        for x in (*self.constants, *leaves) if self.constants else leaves:
            if type(x) is Array:
                x, reads = handover.jax_argument(x)
                if reads:
                    in_place = True
                    if type(x) is np.ndarray:  # (else a JAX array)
                        on_jax = False
            else:
                on_jax = False
                if type(x) is np.ndarray:
                    in_place = True
            args.append(x)
        if on_jax and self.plain:
            out = self.aot(*args) if self.aot is not None else self._call_aot(args)
        else:
            out = self._call(args)
        if in_place:
            out.block_until_ready()
        return _device.adopt_out(out, self.out_view, self.out_dtype, self.out_device)

    def _run_single_locked(self, leaves):
        with _device.OWNERS:  # (device buffers read: see `run`)
            return self._run_single(leaves)


def _gated(run, guards):
    """The lowering of a program with effects and graph-break guards: its effects happen only where every guard
    holds, so that a path whose guards fail (the call then runs another path) prints nothing. Lowered twice: once
    without the effects, for the guarded values, then with them, gated on those (XLA merges the two copies' work)."""

    def gated(*args):
        with effects_gated(False):
            outs = run(*args)
        with effects_gated(breaks.hold([outs[g.output] for g in guards], guards)):
            return run(*args)

    return gated


def _unordered(run):
    """The lowering of a program with effects and shardings: its prints unordered (JAX orders effects on one
    device only; a program over several would be refused)."""

    def unordered(*args):
        with effects_unordered():
            return run(*args)

    return unordered


def _all_jax_arrays(args) -> bool:
    """Whether every argument is a JAX array already (so an ahead-of-time executable can take them as they are)."""
    jax_array = jax().Array
    for a in args:
        if not isinstance(a, jax_array):
            return False
    return True


def _host_call_device(placement: Device | None) -> Device | None:
    """The device a program on host arguments leaves its outputs on: None (the host) unless `jit(device=...)`
    names a JAX device, where they stay (a result stays on the device it was computed on)."""
    return None if placement is None or placement.is_host else placement


def _check_conflict(sig: _Signature, entry) -> None:
    if sig.conflict and not entry.pure:
        raise ValueError("jit: two arguments overlap in memory with different dtypes (or at offsets that "
                         "are not a whole number of elements), and the function writes into an argument, "
                         "so its effect on the other cannot be compiled; pass a copy of one of them")


def _check_guards(guards, outs) -> None:
    for i, guard in enumerate(guards):
        if not breaks.same_value(np.asarray(outs[guard.output]), guard.expected):
            raise breaks.GuardFailure(i, [np.asarray(outs[g.output]) for g in guards[:i + 1]])


def _input_values(sig: _Signature, roots: list) -> list:
    """The concrete value of each program input in this call (a leaf, or the flat span of an alias group),
    for evaluating the program so far at a graph break (nothing is written through them)."""
    return [handover.group_input(sig.leaves, sig.groups, j, False) for j in roots]


class Branches:
    """The compiled paths of one signature whose graph broke, most recently used first: a call runs the first
    path; when one of its guards fails, the path whose guards match the outcomes observed runs instead, traced
    first if there is none (at most MAX_PATHS are kept)."""

    def __init__(self, compiled: Compiled):
        self.paths = [compiled]

    def call(self, jitted: Jitted, sig: _Signature, args, kwargs):
        jitted.stats["calls_with_breaks"] += 1
        path = self.paths[0]
        fresh = False
        tried = []  # each path runs at most once per call (two programs may round a guarded float differently)
        while True:
            tried.append(path)
            try:
                if path.traced.scalar_checks:
                    _check_scalar_arguments(path.traced.scalar_checks, sig.leaves)
                result = path.run(sig.leaves)
            except breaks.GuardFailure as failure:
                jitted.stats["guard_failures"] += 1
                if fresh:
                    # The path was traced on these very arguments, yet XLA's value differs from the eager
                    # interpreter's at a break: this call cannot be compiled consistently.
                    guard = path.traced.guards[failure.index]
                    return jitted._eager_call(args, kwargs, f"at the graph break at {guard.where} ({guard.what}) "
                                                            "the compiled value differs from the eager one")
                path = self._matching(failure, tried)
                if path is None:
                    jitted.stats["retraces"] += 1
                    _caches.note_compile("jit")
                    with jitted._lock:  # (threads share the paths; each traces on its own arguments)
                        path = Compiled(jitted._trace(sig, len(args)), jitted)
                        self.paths.insert(0, path)
                        del self.paths[breaks.MAX_PATHS:]
                    _check_conflict(sig, path)
                    fresh = True
                continue
            if path is not self.paths[0]:
                with jitted._lock:
                    if path in self.paths:
                        self.paths.remove(path)
                    self.paths.insert(0, path)
                    del self.paths[breaks.MAX_PATHS:]
            return result

    def _matching(self, failure, tried):
        for path in list(self.paths):
            if any(path is t for t in tried):
                continue
            guards = path.traced.guards
            if len(guards) > failure.index and all(
                    breaks.same_value(g.expected, seen) for g, seen in zip(guards, failure.observed)):
                return path
        return None

    # What `Jitted._dispatch` reads of an entry before `call`: over every path known so far.
    @property
    def pure(self) -> bool:
        return all(path.pure for path in self.paths)

    @property
    def constants(self) -> list:
        return list({id(c): c for path in self.paths for c in path.constants}.values())

    @property
    def traced(self):
        return self.paths[0].traced
