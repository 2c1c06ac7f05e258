"""`from_jax`: a JAX function as a stridex function, through the higher-order primitive `jax_call`.

`jax_call(*operands; fn)` applies `fn`, a `JaxFunction` (a JAX function of flat operands returning a flat list of
JAX arrays), and its rules are JAX's own: the abstract rule is `jax.eval_shape` of the function; the lowering
calls the function on the JAX values of the program being lowered, so that under `jit` it is part of the one
compiled program (inlined, never a callback); the JVP, VJP and batching rules bind `jax_call` again with
`jax.jvp`, `jax.vjp` and `jax.vmap` of the function. Eagerly the bind runs the function compiled by `jax.jit`,
once per signature (a `jit` of the one bind: its executable cache, bounded, least recently used out, and its
zero-copy hand-over of stridex arrays).

JAX functions run with 64-bit types enabled (scoped, as all of stridex's lowering), so the dtypes of stridex
arrays reach them one to one; defaults inside them (`jnp.zeros(3)`, a Python float with an integer array) are
JAX's 64-bit ones, as with `jax_enable_x64` set.
"""

from __future__ import annotations

import functools
import operator
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from stridex._core import dtypes as _dtypes
from stridex._core.array import Array, adopt
from stridex._core.avals import ShapedArray, value_aval
from stridex._core.state import current_trace
from stridex._core.tree import freeze_or_id
from stridex._exec import device as _device
from stridex._exec.jax_bridge import jax, x64
from stridex._lax.primitive import Primitive
from stridex._transforms import handover
from stridex._transforms.autodiff import is_differentiable
from stridex._transforms.jit import Jitted

# How many compiled signatures, and how many distinct call structures, one function keeps (least recently used out).
CACHE_SIZE = 64


class JaxFunction:
    """The `fn` parameter of `jax_call`: a JAX function `fun(*operands)` returning a pytree of arrays; `flat(*ops)`
    returns its leaves. Made once per call structure and kept, so that every cache keyed by it (compiled
    executables, shapes, the variants its rules bind) is found again; hashed by identity, printed by name."""

    __slots__ = ("__weakref__", "_eager", "_lock", "_shapes", "_variants", "fun", "name", "primal_part")

    def __init__(self, fun: Callable, name: str):
        self.fun = fun
        self.name = name
        # (n operands, m outputs, all outputs): the first m outputs depend on the first n operands only (a JVP's
        # primal part, which a vmap over the tangents alone leaves unbatched)
        self.primal_part: tuple[int, int, int] | None = None
        self._shapes: OrderedDict = OrderedDict()  # input avals -> (output avals, output treedef)
        self._variants: OrderedDict = OrderedDict()  # (kind, config) -> JaxFunction: JVP, VJP, vmap of this one
        self._eager: Jitted | None = None
        self._lock = threading.Lock()

    def __repr__(self):
        return self.name

    def flat(self, *operands) -> list:
        return jax().tree_util.tree_leaves(self.fun(*operands))

    # --- the abstract rule -------------------------------------------------------------------------------
    def signature(self, avals: Sequence[ShapedArray]) -> tuple:
        """(output avals, output treedef) for operands of these avals: `jax.eval_shape`, once per signature."""
        key = tuple(avals)
        with self._lock:
            entry = self._shapes.get(key)
            if entry is not None:
                self._shapes.move_to_end(key)
                return entry
        j = jax()
        structs = [j.ShapeDtypeStruct(a.shape, a.dtype.np, weak_type=a.weak_type) for a in avals]
        trees = []

        def flat(*operands):
            leaves, tree = j.tree_util.tree_flatten(self.fun(*operands))
            trees.append(tree)
            return leaves

        with x64():
            outs = j.eval_shape(flat, *structs)
        entry = (tuple(_aval_of_output(o, k, self.name) for k, o in enumerate(outs)), trees[0])
        with self._lock:
            self._shapes[key] = entry
            if len(self._shapes) > CACHE_SIZE:
                self._shapes.popitem(last=False)
        return entry

    # --- eager execution ---------------------------------------------------------------------------------
    def run_eagerly(self, operands) -> tuple:
        """The bind with no trace: `jit` of the one bind, so the function runs as `jax.jit` compiled it (one
        executable per signature, in that jit's bounded cache), on stridex's hand-over of its operands."""
        eager = self._eager
        if eager is None:
            eager = self._eager = Jitted(lambda *xs: jax_call.bind(*xs, fn=self), (), (), (), None, None, None,
                                         graph_breaks=False)
        return eager(*operands)

    def clear_cache(self) -> None:
        with self._lock:
            self._shapes.clear()
            variants, self._variants = list(self._variants.values()), OrderedDict()
        if self._eager is not None:
            self._eager.clear_cache()
        for v in variants:
            v.clear_cache()

    # --- the functions the rules bind --------------------------------------------------------------------
    def variant(self, kind: str, config: tuple, make: Callable) -> JaxFunction:
        """The function of `kind` ("jvp", "vjp", "vmap") and `config` that a rule binds, made by `make()` once
        (least recently used out: a vmap's axis size is part of its config)."""
        key = (kind, config)
        with self._lock:
            found = self._variants.get(key)
            if found is None:
                found = self._variants[key] = JaxFunction(make(), f"{kind}({self.name})")
                if len(self._variants) > CACHE_SIZE:
                    self._variants.popitem(last=False)
            else:
                self._variants.move_to_end(key)
        return found


def _aval_of_output(out, k: int, name: str) -> ShapedArray:
    np_dtype = np.dtype(out.dtype) if isinstance(out.dtype, np.dtype) else None
    dtype = _dtypes.from_numpy(np_dtype) if np_dtype is not None else None
    if dtype is None:
        raise TypeError(f"from_jax: {name} returns an array of dtype {out.dtype} (output leaf {k}, shape "
                        f"{tuple(out.shape)}), which stridex has no dtype for; return it converted (or leave it to "
                        "JAX)")
    shape = tuple(out.shape)
    weak = bool(getattr(out, "weak_type", False)) and shape == () and dtype in _WEAK_DTYPES
    return ShapedArray(shape, dtype, weak)


_WEAK_DTYPES = frozenset({_dtypes.bool, _dtypes.int64, _dtypes.float64, _dtypes.complex128})


# --- the primitive -------------------------------------------------------------------------------------------


class JaxCallPrimitive(Primitive):
    """`jax_call`: with no trace the bind runs the JAX function compiled (`JaxFunction.run_eagerly`), whatever its
    operands' devices; under a trace it is an application like any other."""

    __slots__ = ()

    def bind(self, *args, **params):
        trace = current_trace()
        if trace is None:
            return params["fn"].run_eagerly(args)
        return trace.process(self, args, params)


def _abstract_eval(*avals, fn):
    return fn.signature(avals)[0]


def _impl(*windows, fn):
    # (what the eager interpreter would call with NumPy windows; `bind` itself runs the compiled function)
    return fn.run_eagerly([Array._from_numpy(np.array(w)) if isinstance(w, np.ndarray) else w for w in windows])


def _lower(ctx, *values, fn):
    outs = fn.flat(*values)
    return tuple(outs)


def _is_inexact(aval: ShapedArray) -> bool:
    return aval.dtype.kind in _dtypes.FLOATING_KINDS


def _jvp(primals, tangents, *, fn):
    diff = tuple(i for i, t in enumerate(tangents) if t is not None)
    out_avals = fn.signature([value_aval(p) for p in primals])[0]
    inexact = tuple(k for k, a in enumerate(out_avals) if _is_inexact(a))
    variant = fn.variant("jvp", diff, lambda: functools.partial(_jvp_of, fn.flat, len(primals), diff, inexact))
    n = len(out_avals)
    variant.primal_part = (len(primals), n, n + len(inexact))
    outs = jax_call.bind(*primals, *[tangents[i] for i in diff], fn=variant)
    tangent_out: list = [None] * n
    for k, t in zip(inexact, outs[n:]):
        tangent_out[k] = t
    return tuple(outs[:n]), tuple(tangent_out)


def _jvp_of(flat, n: int, diff: tuple, inexact: tuple, *operands):
    """`jax.jvp` of `flat` in its operands `diff` (the others held), given operands then tangents; returns the
    outputs, then the tangents of the inexact ones (JAX's float0 tangents of the others are dropped)."""
    j = jax()
    primals, tangents = list(operands[:n]), operands[n:]

    def partial_flat(*d):
        full = list(primals)
        for i, v in zip(diff, d):
            full[i] = v
        return flat(*full)

    d_primals = [primals[i] for i in diff]
    d_tangents = [_like(t, p) for t, p in zip(tangents, d_primals)]
    outs, touts = j.jvp(partial_flat, d_primals, d_tangents)
    return list(outs) + [touts[k] for k in inexact]


def _like(t, p):
    """Tangent or cotangent `t` as JAX wants it beside JAX value `p`: of p's dtype."""
    return t if getattr(t, "dtype", None) == p.dtype else jax().lax.convert_element_type(t, p.dtype)


def _vjp(ct, *primals, out, fn):
    diff = tuple(i for i, p in enumerate(primals) if is_differentiable(p))
    if not diff:
        return [None] * len(primals)
    out_avals = fn.signature([value_aval(p) for p in primals])[0]
    inexact = tuple(k for k, a in enumerate(out_avals) if _is_inexact(a))
    variant = fn.variant("vjp", diff, lambda: functools.partial(_vjp_of, fn.flat, len(primals), diff, inexact,
                                                                tuple(a.shape for a in out_avals)))
    cts = jax_call.bind(*primals, *[ct[k] for k in inexact], fn=variant)
    result: list = [None] * len(primals)
    for i, c in zip(diff, cts):
        result[i] = c
    return result


def _vjp_of(flat, n: int, diff: tuple, inexact: tuple, out_shapes: tuple, *operands):
    """`jax.vjp` of `flat` in its operands `diff`, given operands then the cotangents of its inexact outputs (the
    others get JAX's float0 zeros); returns one cotangent per operand in `diff`. The forward pass is recomputed
    here: under `jit` it is the same program as the primal's, which XLA computes once."""
    j = jax()
    primals, cts = list(operands[:n]), operands[n:]

    def partial_flat(*d):
        full = list(primals)
        for i, v in zip(diff, d):
            full[i] = v
        return flat(*full)

    outs, pullback = j.vjp(partial_flat, *[primals[i] for i in diff])
    full_cts = [np.zeros(shape, j.dtypes.float0) for shape in out_shapes]
    for k, c in zip(inexact, cts):
        full_cts[k] = _like(c, outs[k])
    return list(pullback(full_cts))


def _batch(values, dims, *, axis_size, fn):
    dims = tuple(dims)
    out_axes: Any = 0
    if fn.primal_part is not None and all(d is None for d in dims[:fn.primal_part[0]]):
        # (a JVP batched over its tangents alone, as in jacfwd: its primal outputs stay unbatched)
        _, n, total = fn.primal_part
        out_axes = [None] * n + [0] * (total - n)
    variant = fn.variant("vmap", (dims, axis_size, out_axes != 0),
                         lambda: jax().vmap(fn.flat, in_axes=dims, out_axes=out_axes, axis_size=axis_size))
    outs = jax_call.bind(*values, fn=variant)
    return outs, ([0] * len(outs) if out_axes == 0 else out_axes)


jax_call = JaxCallPrimitive("jax_call", impl=_impl, abstract_eval=_abstract_eval, lower=_lower, jvp=_jvp, vjp=_vjp,
                            batch=_batch, multiple_results=True)


# --- from_jax ------------------------------------------------------------------------------------------------


def from_jax(fun: Callable[..., Any], /, *, static_argnums: int | Sequence[int] = (),
             static_argnames: str | Iterable[str] = ()) -> FromJax:
    """A JAX function (`jnp` code, a flax `apply`, an optax `update`) as a stridex function.

    It takes stridex arrays, and pytrees mixing stridex arrays, JAX arrays, NumPy arrays and Python scalars (JAX's
    pytrees: flax structs, optax states); it returns the function's pytree with stridex arrays at its leaves.
    Eagerly it runs the function compiled by `jax.jit` (once per signature); under `sx.jit` the function is
    inlined into the one compiled program; `sx.grad`, `sx.jvp` and `sx.vmap` use JAX's own derivatives and
    batching of it. Arguments in `static_argnums` / `static_argnames`, and leaves that are neither arrays nor
    scalars, reach the function as they are (hashable: they select the compiled program), as `jax.jit`'s
    static arguments do. The function runs with JAX's 64-bit types enabled, so stridex's dtypes reach it one to
    one (docs/mixing-jax.md).

    >>> import jax.numpy as jnp
    >>> import stridex as sx
    >>> softplus = sx.from_jax(lambda x: jnp.logaddexp(x, 0.0))
    >>> sx.grad(lambda x: sx.sum(softplus(x)))(sx.asarray([0.0, 2.0]))
    Array([0.5       , 0.88079708])
    """
    return FromJax(fun, static_argnums, static_argnames)


def _indices(x) -> tuple:
    if x is None:
        return ()
    if isinstance(x, (int, str)):
        return (x,)
    return tuple(x)


class StaticArguments:
    """`static_argnums` / `static_argnames` as `jax.jit` takes them, for the bridges: `split` a call into its static
    values and the pytree of the rest; `merge` puts them back together for the function."""

    __slots__ = ("names", "numbers", "what")

    def __init__(self, static_argnums: Any, static_argnames: Any, what: str):
        self.numbers = frozenset(operator.index(i) for i in _indices(static_argnums))
        self.names = frozenset(_indices(static_argnames))
        self.what = what

    def split(self, args: tuple, kwargs: dict) -> tuple[dict, tuple]:
        """({position or name: static value}, (dynamic positional arguments, dynamic keyword arguments))."""
        nargs = len(args)
        positions = {i + nargs if i < 0 else i for i in self.numbers}
        statics = {i: a for i, a in enumerate(args) if i in positions}
        statics.update({k: kwargs[k] for k in sorted(kwargs) if k in self.names})
        return statics, (tuple(a for i, a in enumerate(args) if i not in positions),
                         {k: v for k, v in kwargs.items() if k not in self.names})

    def key(self, statics: dict) -> tuple:
        """The static values as part of a cache key (TypeError for an unhashable one, as `jax.jit` raises)."""
        for k, v in statics.items():
            try:
                hash(v)
            except TypeError:
                raise TypeError(f"{self.what}: static argument {k!r} of type {type(v).__name__} is not hashable, so "
                                "it cannot select the compiled program; pass a hashable value (a tuple instead of a "
                                "list)") from None
        return tuple(sorted(((k, freeze_or_id(v)) for k, v in statics.items()), key=repr))

    @staticmethod
    def merge(statics: dict, dynamic: tuple, nargs: int) -> tuple[list, dict]:
        """The call's (positional, keyword) arguments from the static values and the dynamic ones."""
        dyn_args, dyn_kwargs = dynamic
        it = iter(dyn_args)
        return ([statics[i] if i in statics else next(it) for i in range(nargs)],
                {**dyn_kwargs, **{k: v for k, v in statics.items() if isinstance(k, str)}})


class FromJax:
    """What `from_jax` returns: call it like the JAX function. One `JaxFunction` per call structure (the pytree
    structure of the arguments and their static values), kept least recently used first."""

    def __init__(self, fun: Callable[..., Any], static_argnums: Any, static_argnames: Any):
        functools.update_wrapper(self, fun)
        self._fun = fun
        self._name = getattr(fun, "__name__", None) or type(fun).__name__
        self._statics = StaticArguments(static_argnums, static_argnames, "from_jax")
        self._functions: OrderedDict = OrderedDict()
        self._lock = threading.Lock()

    def __repr__(self):
        return f"<stridex.from_jax of {getattr(self._fun, '__qualname__', self._fun)!r}>"

    def __get__(self, obj: Any, objtype: Any = None) -> Any:
        return self if obj is None else functools.partial(self, obj)

    def __call__(self, *args, **kwargs):
        statics, dynamic = self._statics.split(args, kwargs)
        leaves, treedef = jax().tree_util.tree_flatten(dynamic)
        operands, where, fixed = [], [], {}
        for k, leaf in enumerate(leaves):
            operand = _operand(leaf, k, self._name)
            if operand is None:  # (neither an array nor a scalar: passed as it is, as a static argument)
                fixed[k] = leaf
            else:
                where.append(k)
                operands.append(operand)
        # (leaves that are not arrays, such as strings, select the program too: by value where hashable)
        key = (treedef, tuple(where), self._statics.key(statics), tuple((k, freeze_or_id(v)) for k, v in fixed.items()),
               len(args))
        fn = self._function(key, treedef, statics, fixed, len(args), len(leaves))
        out_tree = fn.signature([value_aval(x) for x in operands])[1]
        return out_tree.unflatten(jax_call.bind(*operands, fn=fn))

    def _function(self, key, treedef, statics: dict, fixed: dict, nargs: int, nleaves: int) -> JaxFunction:
        with self._lock:
            fn = self._functions.get(key)
            if fn is not None:
                self._functions.move_to_end(key)
                return fn
        fun = self._fun
        dynamic_at = [k for k in range(nleaves) if k not in fixed]

        def call(*operands):
            leaves = [fixed.get(k) for k in range(nleaves)]
            for k, x in zip(dynamic_at, operands):
                leaves[k] = x
            args, kwargs = StaticArguments.merge(statics, treedef.unflatten(leaves), nargs)
            return fun(*args, **kwargs)

        fn = JaxFunction(call, self._name)
        with self._lock:
            fn = self._functions.setdefault(key, fn)
            if len(self._functions) > CACHE_SIZE:
                self._functions.popitem(last=False)
        return fn

    def clear_cache(self) -> None:
        with self._lock:
            functions, self._functions = list(self._functions.values()), OrderedDict()
        for fn in functions:
            fn.clear_cache()


def _operand(leaf, k: int, name: str):
    """What a leaf of `from_jax`'s arguments is to the bind: a stridex array (a JAX or NumPy array taken as one,
    zero-copy where it can be), a Python scalar, or None for anything else (a static value)."""
    if isinstance(leaf, Array) or type(leaf) in (bool, int, float, complex):
        return leaf
    if isinstance(leaf, jax().core.Tracer):
        raise TypeError(f"from_jax({name}): argument leaf {k} is a JAX tracer ({leaf.aval.str_short()}): inside a JAX "
                        "transformation call the JAX function itself (from_jax makes it callable on stridex arrays); "
                        "stridex code there goes through sx.to_jax")
    if _device.is_jax_array(leaf):
        return handover.from_jax_array(leaf)
    if isinstance(leaf, (np.ndarray, np.generic)):
        return adopt(np.asarray(leaf))
    return None
