"""`to_jax`: a stridex function as a JAX function, traced to stridex's IR once per signature and lowered into the
enclosing JAX trace, so that `jax.jit`, `jax.grad`, `jax.vmap` and JAX's control flow see plain `jax.lax`.

Inside the function the arguments are stridex arrays (tracers), so views, writes, `array_namespace` and Array API
library code keep their stridex meaning; the lowering is emitted with 64-bit types enabled (scoped), and with
JAX's x64 mode off the 64-bit results are handed back as JAX's 32-bit types, as `jnp.asarray` narrows a NumPy
array there. Called with concrete values (no JAX trace around the call), the function runs eagerly on stridex
arrays sharing the JAX arrays' memory, as `jax.numpy` code runs op by op outside `jax.jit`.
"""

from __future__ import annotations

import functools
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from stridex._core import dtypes as _dtypes
from stridex._core.array import Array
from stridex._core.avals import ShapedArray, aval_of
from stridex._core.storage import storage_from_ndarray
from stridex._exec import placement as _placement
from stridex._exec.jax_bridge import jax
from stridex._transforms import custom_for_jax, handover
from stridex._transforms.from_jax import StaticArguments
from stridex._transforms.ir import Program, checked
from stridex._transforms.lowering import lower_program
from stridex._transforms.passes import optimize
from stridex._transforms.tracing import DataDependentShapeError, JitTrace, Tracer, trace_to_program, user_frame

CACHE_SIZE = 256  # programs kept per function (least recently used out)

# A JAX weak-typed 0-D value (a Python scalar jax.jit traced) is a weak stridex value of its kind's 64-bit type.
_WEAK = {"b": _dtypes.bool, "i": _dtypes.int64, "u": _dtypes.int64, "f": _dtypes.float64, "c": _dtypes.complex128}


def to_jax(fun: Callable[..., Any], /, *, static_argnums: int | Sequence[int] = (),
           static_argnames: str | Iterable[str] = ()) -> ToJax:
    """A stridex function as a JAX function: it takes and returns JAX arrays (and JAX pytrees of them), and
    `jax.jit`, `jax.grad`, `jax.vjp`, `jax.jvp`, `jax.vmap`, `jax.hessian` and JAX's control flow trace through it.

    Under a JAX trace the function is traced to stridex's IR once per signature (shapes, dtypes and the values
    of `static_argnums` / `static_argnames`, as in `jax.jit`) and its lowering is emitted into JAX's trace, so
    JAX transforms plain `jax.lax`. Inside, the arguments are stridex arrays: views and writes keep their
    meaning, and `array_namespace` sees stridex, so Array API library code runs (and JAX differentiates it).
    Where the function needs a concrete value (a Python branch on an array, a data-dependent shape) under a
    JAX trace, the error names the value and the way out. Called with concrete arrays, it runs eagerly.

    >>> import jax
    >>> import jax.numpy as jnp
    >>> import stridex as sx
    >>> f = sx.to_jax(lambda x: sx.sum(sx.sin(x) ** 2))
    >>> g = jax.grad(jax.jit(f))(jnp.asarray([0.5, 1.0], dtype=jnp.float32))
    >>> g.dtype, [round(float(v), 5) for v in g]
    (dtype('float32'), [0.84147, 0.9093])
    """
    return ToJax(fun, static_argnums, static_argnames)


class ToJaxError(TypeError):
    """`to_jax`'s function does what a JAX function cannot (writes into an array JAX owns, returns a value JAX
    cannot take)."""


class ToJaxTrace(JitTrace):
    """`jit`'s tracer, refusing writes into what JAX owns (the arguments, and arrays the function closes over) where
    they happen, and naming `to_jax`'s ways out (and the argument a traced value came in as) in its errors."""

    kind = "to_jax"

    def __init__(self, graph_breaks, input_values, *, inputs: list, name_of: Callable[[int], str], fname: str):
        super().__init__(False, None)
        self.inputs = inputs  # the input tracers (filled as the traced function starts)
        self.name_of = name_of  # argument leaf k -> its name for the user
        self.fname = fname

    def _argument(self, buffer) -> int | None:
        for k, t in enumerate(self.inputs):
            if t._buffer is buffer:
                return k
        return None

    def note_write(self, target: Tracer, template: tuple, indices) -> None:
        k = self._argument(target._buffer)
        if k is not None:
            raise ToJaxError(
                f"to_jax({self.fname}) writes into its argument {self.name_of(k)} at {_user_frame()}, and that is a "
                "JAX array: JAX arrays never change, and the caller would not see the write. Write into a copy made "
                "inside the function (y = sx.asarray(x, copy=True); under jit XLA copies only what it must), or "
                "return the new value")
        if any(target._buffer is tracer._buffer for _, _, tracer in self.constants.values()):
            raise ToJaxError(
                f"to_jax({self.fname}) writes into an array it closes over ({target._buffer.aval}) at {_user_frame()}; "
                "a JAX function cannot change arrays outside it. Pass the array in and return its new value")
        super().note_write(target, template, indices)

    def concretization_message(self, tracer: Tracer, conversion) -> str:
        what = getattr(conversion, "name", conversion)  # (a tracing.Conversion: bool(), float(), ...)
        k = self._argument(tracer._buffer)
        arrival = ""
        if k is not None and not tracer._chain and not tracer._buffer.version:  # (the argument itself, as it came in)
            arrival = (f" It is argument {self.name_of(k)}, which JAX traced (jax.jit, grad and vmap trace Python "
                       "numbers too): if the function needs it as a Python value, mark it static in to_jax "
                       "(static_argnums=/static_argnames=) and in the jax.jit around it.")
        return (f"{what} needs a concrete value, but under sx.to_jax inside a JAX transformation this array is traced "
                f"({tracer._aval}) at {_user_frame()}: JAX runs the traced computation later, so Python cannot branch "
                f"on its values now.{arrival} Ways out: compute the decision with array operations (sx.where), branch "
                "with sx.cond / sx.switch, or pass the value as a static argument.")

    def data_dependent(self, prim, args, params):
        raise DataDependentShapeError(
            f"{prim.name} has an output shape that depends on the values of its input, which a JAX computation "
            f"cannot have (its shapes are fixed when it is traced), at {_user_frame()}: under sx.to_jax inside a JAX "
            "transformation it cannot run. Use a fixed-size alternative (sx.where instead of boolean-mask indexing), "
            "or call the function outside the JAX transformation, where it runs eagerly.")


class _Entry:
    """One traced signature: the lowered program and how its outputs make the function's result."""

    __slots__ = ("constants", "out_specs", "out_tree", "run")

    def __init__(self, run, constants: list, out_specs: list, out_tree):
        self.run = run  # (*constants, *inputs) -> outputs, JAX values
        self.constants = constants  # stridex arrays the function closes over (read at each call)
        # per output leaf: ("out", k) program output k, ("array", a) stridex array a, ("value", v) v as it is
        self.out_specs = out_specs
        self.out_tree = out_tree


class ToJax:
    """What `to_jax` returns: call it like a JAX function."""

    def __init__(self, fun: Callable[..., Any], static_argnums: Any, static_argnames: Any):
        functools.update_wrapper(self, fun)
        self._fun = fun
        self._name = getattr(fun, "__name__", None) or type(fun).__name__
        self._statics = StaticArguments(static_argnums, static_argnames, "to_jax")
        self._cache: OrderedDict = OrderedDict()
        self._lock = threading.RLock()
        self.stats = {"traces": 0}

    def __repr__(self):
        return f"<stridex.to_jax of {getattr(self._fun, '__qualname__', self._fun)!r}>"

    def __get__(self, obj: Any, objtype: Any = None) -> Any:
        return self if obj is None else functools.partial(self, obj)

    def clear_cache(self) -> None:
        with self._lock:
            self._cache.clear()

    def cache_size(self) -> int:
        return len(self._cache)

    def __call__(self, *args, **kwargs):
        j = jax()
        nargs = len(args)
        statics, dynamic = self._statics.split(args, kwargs)
        leaves, treedef = j.tree_util.tree_flatten(dynamic)
        names = functools.partial(_leaf_name, treedef, tuple(i for i in range(nargs) if i not in statics))
        tracer_type = j.core.Tracer
        if not any(isinstance(leaf, tracer_type) for leaf in leaves):
            return self._eager(leaves, treedef, statics, nargs, names)
        avals, values = [], []
        for k, leaf in enumerate(leaves):
            aval, value = self._input(leaf, k, names)
            avals.append(aval)
            values.append(value)
        key = (treedef, tuple(avals), self._statics.key(statics), nargs)
        with self._lock:
            entry = self._cache.get(key)
            if entry is None:
                entry = self._cache[key] = self._trace(avals, treedef, statics, nargs, names)
                if len(self._cache) > CACHE_SIZE:
                    self._cache.popitem(last=False)
            else:
                self._cache.move_to_end(key)
        # (64-bit types on; custom rules lower to JAX's, which JAX differentiates)
        with custom_for_jax.lowering_for_jax(ToJax):
            constants = [handover.to_jax_array(c) for c in entry.constants]
            inputs = [_as_dtype(v, a) for v, a in zip(values, avals)]
            outs = entry.run(*constants, *inputs)
        results = [handover.as_jax_holds_it(outs[what] if kind == "out" else handover.to_jax_array(what))
                   if kind != "value" else what for kind, what in entry.out_specs]
        return entry.out_tree.unflatten(results)

    # --- the arguments ----------------------------------------------------------------------------------
    def _input(self, leaf, k: int, names: Callable[[int], str]) -> tuple:
        """(aval, JAX value) of argument leaf `k`."""
        j = jax()
        if isinstance(leaf, Array):
            self._check_not_traced(leaf, k, names)
            leaf = handover.to_jax_array(leaf)
        if type(leaf) in (bool, int, float, complex):
            aval = aval_of(leaf)
            return aval, np.asarray(leaf, aval.dtype.np)
        if isinstance(leaf, (j.Array, np.ndarray, np.generic)):
            dtype = _dtypes.from_numpy(leaf.dtype) if isinstance(leaf.dtype, np.dtype) else None
            if dtype is None:
                raise TypeError(f"to_jax({self._name}): argument {names(k)} has dtype {leaf.dtype}, "
                                "which stridex has no dtype for")
            shape = tuple(leaf.shape)
            kind = _dtypes.np_kind(leaf.dtype)
            if shape == () and getattr(leaf, "weak_type", False) and kind in _WEAK:
                return ShapedArray((), _WEAK[kind], True), leaf
            return ShapedArray(shape, dtype), leaf
        raise self._not_an_array(leaf, k, names)

    def _check_not_traced(self, leaf: Array, k: int, names: Callable[[int], str]) -> None:
        if isinstance(leaf, Tracer):
            raise TypeError(f"to_jax({self._name}): argument {names(k)} is a traced stridex array; "
                            "to_jax's function takes JAX arrays. Inside a stridex transformation call the stridex "
                            "function itself")

    def _not_an_array(self, leaf, k: int, names: Callable[[int], str]) -> TypeError:
        return TypeError(f"to_jax({self._name}): argument {names(k)} of type {type(leaf).__name__} is "
                         "not a JAX array or a Python scalar; pass it through static_argnums/static_argnames")

    # --- tracing ----------------------------------------------------------------------------------------
    def _trace(self, avals: list, treedef, statics: dict, nargs: int, names: Callable[[int], str]) -> _Entry:
        j = jax()
        fun = self._fun

        def flat_fun(*tracers):
            args, kwargs = StaticArguments.merge(statics, treedef.unflatten(tracers), nargs)
            return fun(*args, **kwargs)

        inputs: list = []

        def with_inputs(*tracers):
            inputs[:] = tracers
            return flat_fun(*tracers)

        self.stats["traces"] += 1
        make = functools.partial(ToJaxTrace, inputs=inputs, name_of=names,
                                 fname=self._name)
        # (custom rules are traced beside their calls, for JAX: see custom_for_jax.py)
        with custom_for_jax.tracing_for_jax():
            trace, in_tracers, out = trace_to_program(with_inputs, avals, trace_class=make)
        try:
            out_leaves, out_tree = j.tree_util.tree_flatten(out)
            outputs: list = []
            specs: list[tuple[str, Any]] = []
            for k, leaf in enumerate(out_leaves):
                if isinstance(leaf, Tracer):
                    if leaf._trace is not trace:
                        leaf._check_live("a to_jax output")
                        raise ToJaxError(f"to_jax({self._name}): output leaf {k} is a value traced by another "
                                         "transformation")
                    specs.append(("out", len(outputs)))
                    outputs.append(trace.read(leaf))
                elif isinstance(leaf, Array):
                    specs.append(("array", leaf))  # (an array from outside: its values when the call runs)
                elif isinstance(leaf, (bool, int, float, complex, np.ndarray, np.generic, j.Array)):
                    specs.append(("value", leaf))
                else:
                    raise ToJaxError(f"to_jax({self._name}): output leaf {k} is a {type(leaf).__name__}, which a "
                                     "JAX function cannot return; return arrays (or pytrees of them)")
            program = Program([t._buffer.initial_var for t in in_tracers],
                              [(var, arr) for var, arr, _ in trace.constants.values()], trace.eqns, outputs)
            program = checked(optimize(checked(program, "tracing")), "jit's optimisation passes")
        finally:
            trace.finished = True
        constants = [arr for _, arr in program.constants]
        return _Entry(lower_program(program), constants, specs, out_tree)

    # --- concrete calls ----------------------------------------------------------------------------------
    def _eager(self, leaves, treedef, statics: dict, nargs: int, names: Callable[[int], str]):
        """The function run eagerly on stridex arrays over the arguments' memory (read-only: a write would copy,
        and is refused, as under a trace); its arrays handed back as JAX arrays."""
        j = jax()
        arrays = []
        for k, leaf in enumerate(leaves):
            if isinstance(leaf, Array):
                self._check_not_traced(leaf, k, names)
                arrays.append(leaf)
            elif isinstance(leaf, j.Array):
                arrays.append(handover.from_jax_array(leaf))
            elif isinstance(leaf, (np.ndarray, np.generic)):
                arrays.append(_read_only(np.asarray(leaf)))
            elif type(leaf) in (bool, int, float, complex):
                arrays.append(leaf)
            else:
                raise self._not_an_array(leaf, k, names)
        storages = [(k, a._storage_view()[0]) for k, a in enumerate(arrays) if isinstance(a, Array)
                    and not isinstance(leaves[k], Array)]
        args, kwargs = StaticArguments.merge(statics, treedef.unflatten(arrays), nargs)
        with _placement.placing(arrays):  # (arrays made inside go beside device arguments, as under grad and vmap)
            out = self._fun(*args, **kwargs)
        for k, storage in storages:
            if not storage.readonly:  # (copied on a write: the function wrote into this argument)
                raise ToJaxError(f"to_jax({self._name}) writes into its argument {names(k)}, a JAX "
                                 "array: JAX arrays never change, and the caller would not see the write. Write into a "
                                 "copy made inside the function (y = sx.asarray(x, copy=True)), or return the new "
                                 "value")
        out_leaves, out_tree = j.tree_util.tree_flatten(out)
        return out_tree.unflatten([handover.as_jax_holds_it(handover.to_jax_array(leaf)) if isinstance(leaf, Array)
                                   else leaf for leaf in out_leaves])


def _user_frame() -> str:
    """The user's line, past stridex's frames and JAX's (a JAX transformation calls the function)."""
    jax_dir = os.path.dirname(jax().__file__)
    return user_frame((jax_dir + os.sep, os.path.join(os.path.dirname(jax_dir), "jaxlib") + os.sep))


def _read_only(a: np.ndarray) -> Array:
    """A stridex array over NumPy array `a`'s memory that stridex never writes (a write copies it first)."""
    made = storage_from_ndarray(a, readonly=True, owner=a)
    if made is None:
        return Array._from_numpy(np.array(a))
    storage, view = made
    return Array._make(storage, view, _dtypes.FROM_NUMPY[a.dtype])


def _as_dtype(value, aval: ShapedArray):
    np_dtype = aval.dtype.np
    if getattr(value, "dtype", None) == np_dtype:
        return value
    return jax().lax.convert_element_type(value, np_dtype)


def _leaf_name(treedef, positions: tuple, k: int) -> str:
    """Argument leaf `k` named as the caller wrote it: `1` (the second positional argument), `0['w']`, `'scale'` (a
    keyword argument); `positions` are those of the positional arguments that are not static."""
    j = jax()
    try:
        path = j.tree_util.tree_flatten_with_path(treedef.unflatten(range(treedef.num_leaves)))[0][k][0]
    except Exception:  # noqa: BLE001  (a node whose constructor checks its children's types: the leaf's number)
        return f"leaf {k}"
    head, rest = path[1], path[2:]
    name = str(positions[head.idx]) if path[0].idx == 0 else repr(head.key)
    return name + j.tree_util.keystr(tuple(rest))
