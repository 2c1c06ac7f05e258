"""Random-number primitives: each lowers to `jax.random`'s own function on raw threefry2x32 key data.

A key is a `uint32` array of shape (2,): threefry2x32's key data, what `jax.random.PRNGKey` returns and
`jax.random.key_data(jax.random.key(seed))` holds. Every primitive here is one record made by `_random`
from one entry of `_CALLS`: its lowering calls that `jax.random` function on the key data (wrapped as a
typed key with `jax.random.wrap_key_data`), so under `jit`, on a device and eagerly the bits are JAX's by
construction. Its params are

- `static`: an `Arguments` record of the Python arguments of the call (shape, NumPy dtype, flags, and Python
  scalars such as `minval=0.0` as `Scalar`s), given to the JAX function as they are, so that it sees what a
  JAX user passes;
- `names`: the JAX function's parameter names of the array inputs, in order (("key", "minval"), ...);
- `vmapped`: one `in_axes` tuple per level of `vmap` (outermost first): the batching rule moves each batched
  input's axis to the front and adds a level, and the lowering wraps the call in `jax.vmap` once per level,
  so a batch of keys gives what a Python loop over the keys gives, as `jax.vmap` of `jax.random` does.

The abstract rule is `jax.eval_shape` of the same call (cached per signature), so shapes and dtypes agree
with JAX's exactly. The eager rule runs the same call jitted, compiled once per signature and kept in the bounded
cache of `stridex._lax.compiled` (which the special functions' eager rules share), and returns an Array over JAX's
result, adopted lazily as a `jit` result is (no copy; a write copies it first).
On a JAX device the generic device executor runs the lowering there. JAX is imported by the first call, never by
`import stridex`. Everything is computed with 64-bit types on (`jax_bridge.x64`), as all of stridex's
lowering is: the bits are `jax.random`'s under `jax.enable_x64(True)` (they differ from JAX's default mode
only where a dtype or a seed's width does).

Samplers with floating parameters (`uniform`'s bounds, `truncated_normal`'s, `gamma`, `beta`, `dirichlet`,
`multivariate_normal`) differentiate in them as JAX does: their JVP binds `random_jvp` (the lowering is
`jax.jvp` of the call) and their VJP `random_vjp` (`jax.vjp`); those two have no derivatives of their own.
"""

from __future__ import annotations

import threading
from functools import partial

import numpy as np

from stridex._core import processes
from stridex._core import caches
from stridex._core.avals import ShapedArray
from stridex._core.dtypes import FROM_NUMPY
from stridex._lax import compiled, ops
from stridex._exec.jax_bridge import jax, x64
from stridex._lax.primitive import PRIMITIVES, Primitive, RuleShape
from stridex._lax.rule_shapes import move_to_front

# --- the calls: name -> a function of JAX values (keyword arguments named as jax.random names them) --------


def _typed(key):
    return jax().random.wrap_key_data(key, impl="threefry2x32")


def _seed(*, seed):
    r = jax().random
    return r.key_data(r.key(seed, impl="threefry2x32"))


def _split(*, key, num):
    r = jax().random
    return r.key_data(r.split(_typed(key), num))


def _fold_in(*, key, data):
    r = jax().random
    return r.key_data(r.fold_in(_typed(key), data))


def _sampler(name: str):
    def call(*, key, **arguments):
        return getattr(jax().random, name)(_typed(key), **arguments)

    return call


_SAMPLERS = ("uniform", "normal", "bernoulli", "randint", "choice", "permutation", "categorical", "truncated_normal",
             "exponential", "gumbel", "gamma", "beta", "dirichlet", "multivariate_normal", "laplace", "logistic",
             "poisson", "orthogonal")
_CALLS = {"seed": _seed, "split": _split, "fold_in": _fold_in} | {name: _sampler(name) for name in _SAMPLERS}
# The samplers whose floating parameters carry derivatives (in JAX as here); the others' outputs are
# integers or booleans, or depend on the key alone.
_DIFFERENTIABLE = ("uniform", "truncated_normal", "gamma", "beta", "dirichlet", "multivariate_normal")


class Scalar:
    """A Python scalar argument of a call: equal to another only with the same type and the same repr (0.0 is
    not -0.0, 1 is not 1.0, NaN is NaN), so that params are exact cache keys; `value` is what the JAX function
    receives."""

    __slots__ = ("key", "value")

    def __init__(self, value):
        self.value = value
        self.key = (type(value), repr(value))

    def __eq__(self, other):
        return type(other) is Scalar and self.key == other.key

    def __hash__(self):
        return hash(self.key)

    def __repr__(self):
        return repr(self.value)


class Arguments:
    """The `static` param: the Python arguments of one call, ((name, value), ...), Python scalars as `Scalar`s.

    A record, not a tuple, so that its hash is computed once and caches keyed on params (this module's, the
    device executor's) compare it whole; equal only to the same arguments, exactly."""

    __slots__ = ("hash", "items")

    def __init__(self, items: tuple):
        self.items = items
        self.hash = hash(items)

    def __eq__(self, other):
        return type(other) is Arguments and self.items == other.items

    def __hash__(self):
        return self.hash

    def __repr__(self):
        return "(" + ", ".join(f"{n}={v.name if isinstance(v, np.dtype) else repr(v)}" for n, v in self.items) + ")"


# The JAX functions and result avals per signature (kept as long as the sampler cache's limit, and emptied with
# it), and the eager samplers compiled per signature (the "host" kind of `sx.set_cache_limit`, `stridex._lax.compiled`).
_FUNCTIONS: dict = {}
_AVALS: dict = {}
_LOCK = processes.lock("random.CACHE", threading.Lock())


def _clear_signatures() -> None:
    _FUNCTIONS.clear()
    _AVALS.clear()


caches.on_clear(_clear_signatures)


def _remember(table: dict, key, value) -> None:
    """Keep `value` in `table` (`_FUNCTIONS`, `_AVALS`), emptied when it outgrows the sampler cache's limit."""
    with _LOCK:
        if len(table) >= 4 * caches.limit("host"):
            table.clear()
        table[key] = value


def _base(mode: str, name: str, static: Arguments, names: tuple):
    """The call (`mode` "call") on its array inputs, or its JVP ("jvp": the inputs, then a tangent of each
    one but the key, gives the output's tangent) or VJP ("vjp": the inputs, then the output's cotangent,
    gives one cotangent per input but the key)."""
    call = _CALLS[name]
    arguments = {n: v.value if type(v) is Scalar else v for n, v in static.items}

    def fn(*values):
        return call(**dict(zip(names, values)), **arguments)

    if mode == "call":
        return fn
    count = len(names)

    def of_parameters(key):
        return lambda *parameters: fn(key, *parameters)

    if mode == "jvp":
        return lambda *values: jax().jvp(of_parameters(values[0]), values[1:count], values[count:])[1]
    return lambda *values: tuple(jax().vjp(of_parameters(values[0]), *values[1:count])[1](values[count]))


def _function(mode: str, name: str, static: Arguments, names: tuple, vmapped: tuple, key=None):
    """The JAX function of these params, vmapped once per level (cached)."""
    key = key or (mode, name, static, names, vmapped)
    fn = _FUNCTIONS.get(key)
    if fn is None:
        fn = _base(mode, name, static, names)
        for in_axes in reversed(vmapped):
            fn = jax().vmap(fn, in_axes=in_axes)
        _remember(_FUNCTIONS, key, fn)
    return fn


def _abstract(mode: str, name: str, avals: tuple, static: Arguments, names: tuple, vmapped: tuple):
    """The result's ShapedArray(s): `jax.eval_shape` of the function, once per signature."""
    key = (mode, name, static, names, vmapped, tuple((a.shape, a.dtype) for a in avals))
    out = _AVALS.get(key)
    if out is None:
        j = jax()
        structs = [j.ShapeDtypeStruct(a.shape, a.dtype.np) for a in avals]
        with x64():
            result = j.eval_shape(_function(mode, name, static, names, vmapped), *structs)
        if isinstance(result, tuple):
            out = tuple(ShapedArray(tuple(r.shape), FROM_NUMPY[np.dtype(r.dtype)]) for r in result)
        else:
            out = ShapedArray(tuple(result.shape), FROM_NUMPY[np.dtype(result.dtype)])
        _remember(_AVALS, key, out)
    return out


def _eager(mode: str, name: str, *windows, static: Arguments, names: tuple, vmapped: tuple):
    """The function on NumPy windows, compiled once per signature (`stridex._lax.compiled`, the cache every eager
    rule that runs a compiled program shares) and run; its result is an Array over JAX's output, adopted lazily as
    `jit`'s results are (no copy, and no NumPy buffer made until a use needs one; read-only, so a write copies it
    first)."""
    key: tuple
    if len(windows) == 1:  # (a key alone: the common case)
        w = windows[0]
        key = (_eager, mode, name, static, names, vmapped, w.shape, w.dtype)
    else:
        key = (_eager, mode, name, static, names, vmapped, *[(w.shape, w.dtype) for w in windows])
    entry = compiled.kernel(key, lambda: _function(mode, name, static, names, vmapped), windows)
    out = compiled.call(entry, windows)
    if name in _KEYS and mode == "call":
        # A few words that the next calls read as NumPy windows: a private NumPy copy keeps its window cached,
        # where a JAX result's window is rebuilt on each read (about 1 us of every sampler call with the key).
        return np.array(out)
    return compiled.adopted(entry, out)


_KEYS = frozenset({"seed", "split", "fold_in"})  # the calls whose results are keys


# --- the records -------------------------------------------------------------------------------------------


def _batch_rule(prim):
    """Every batched input's axis moved to the front, and one more `vmapped` level of in_axes (0 or None)."""

    def rule(values, dims, *, axis_size, vmapped, **params):
        moved = [v if d is None else move_to_front(v, d, axis_size) for v, d in zip(values, dims)]
        level = tuple(None if d is None else 0 for d in dims)
        out = prim.bind(*moved, vmapped=(level, *vmapped), **params)
        return out, ((0,) * len(out) if prim.multiple_results else 0)

    return rule


batch_random = RuleShape(_batch_rule)


def _random(name: str) -> Primitive:
    """The record `random_<name>`: `_CALLS[name]` on its inputs (the key first, for all but `seed`)."""
    differentiable = name in _DIFFERENTIABLE

    def abstract_eval(*avals, static, names, vmapped):
        return _abstract("call", name, avals, static, names, vmapped)

    def lower(ctx, *values, static, names, vmapped):
        return _function("call", name, static, names, vmapped)(*values)

    def jvp(primals, tangents, **params):
        out = PRIMITIVES[f"random_{name}"].bind(*primals, **params)
        filled = [ops.zeros_like(p) if t is None else t for p, t in zip(primals[1:], tangents[1:])]
        return out, random_jvp.bind(*primals, *filled, of=name, **params)

    def vjp(ct, *primals, out, **params):
        return (None, *random_vjp.bind(*primals, ct, of=name, **params))

    # (the eager rule is `_eager` itself with the name bound: a Python frame less on every eager call)
    return Primitive(f"random_{name}", impl=partial(_eager, "call", name), abstract_eval=abstract_eval, lower=lower,
                     jvp=jvp if differentiable else None, vjp=vjp if differentiable else None, batch=batch_random,
                     differentiable=differentiable)


def _derivative(mode: str) -> Primitive:
    """`random_jvp` / `random_vjp`: the JVP or VJP of sampler `of` in its floating parameters (linear in the
    tangents or the cotangent; no derivatives of their own)."""

    def abstract_eval(*avals, of, static, names, vmapped):
        return _abstract(mode, of, avals, static, names, vmapped)

    def impl(*windows, of, static, names, vmapped):
        return _eager(mode, of, *windows, static=static, names=names, vmapped=vmapped)

    def lower(ctx, *values, of, static, names, vmapped):
        return _function(mode, of, static, names, vmapped)(*values)

    return Primitive(f"random_{mode}", impl=impl, abstract_eval=abstract_eval, lower=lower, batch=batch_random,
                     differentiable=False, multiple_results=mode == "vjp")


random_jvp = _derivative("jvp")
random_vjp = _derivative("vjp")
RANDOM = {name: _random(name) for name in _CALLS}
"""name -> its record `random_<name>` (seed, split, fold_in and every sampler)."""
