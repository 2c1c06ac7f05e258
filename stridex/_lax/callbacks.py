"""Host callbacks: Python that runs on the host inside stridex programs (serve `stridex.debug`, `pure_callback`).

`debug_callback` calls a function for its effect (printing) and returns nothing: it is `effectful`, so `jit`'s
passes keep it, in program order, and its lowering is `jax.debug.callback`. `pure_callback` calls a function
that computes results of declared shapes and dtypes, which XLA may call any number of times (or not at all,
when the results are unused), as JAX's; its lowering is `jax.pure_callback`. Both take the function as a
`HostFunction` param, which receives stridex arrays on the host: read-only views of the values, which the
function may keep or convert (NumPy, `float`, printing) as it likes. Eagerly (no trace) a bind calls the
function at once on the arguments' values, from whatever device they live on.

Under `vmap` both call the function once per member (or, for `pure_callback`, as its `vmap_method` says); under
differentiation `debug_callback` sees the primal values (it has no derivative), and `pure_callback` of a value
that carries a derivative raises JAX's ValueError (wrap it in `custom_jvp` to give it one).
"""

from __future__ import annotations

import contextlib
from contextvars import ContextVar

import numpy as np

from stridex._core.array import Array, adopt, host_window
from stridex._core.avals import ShapedArray
from stridex._core.state import current_trace
from stridex._exec import device as _device
from stridex._exec import placement as _placement
from stridex._exec.jax_bridge import jax, lax
from stridex._lax.primitive import Primitive
from stridex._lax.rule_shapes import move_to_front

_SILENT: ContextVar = ContextVar("stridex_silent_callbacks", default=False)
# While lowering: None (effects run), False (they are left out) or a JAX boolean (they run where it holds).
_GATE: ContextVar = ContextVar("stridex_effect_gate", default=None)
# While lowering: whether effects may be ordered (JAX orders them on one device only; `jit` with shardings
# lowers them unordered).
_ORDERED: ContextVar = ContextVar("stridex_ordered_effects", default=True)


@contextlib.contextmanager
def effects_suppressed():
    """A block in which effectful callbacks do nothing: where a program already recorded is evaluated again to
    learn a value (a graph break of `jit`), so that the effect happens once, when the compiled program runs."""
    token = _SILENT.set(True)
    try:
        yield
    finally:
        _SILENT.reset(token)


@contextlib.contextmanager
def effects_gated(predicate):
    """A block in which the lowering of an effectful callback runs it only where `predicate` holds (a JAX boolean
    of the program being lowered), or leaves it out (`predicate` False): how `jit` keeps a path whose graph-break
    guards fail from printing (`jit._gated`)."""
    token = _GATE.set(predicate)
    try:
        yield
    finally:
        _GATE.reset(token)


@contextlib.contextmanager
def effects_unordered():
    """A block in which effectful callbacks lower unordered: a program over several devices (`jit` with
    shardings), where JAX refuses ordered effects."""
    token = _ORDERED.set(False)
    try:
        yield
    finally:
        _ORDERED.reset(token)


class HostFunction:
    """A Python function a callback primitive runs on the host, held in its params (hashed by identity, printed
    by name): called with one stridex array (or Python number) per operand; for `pure_callback` it returns one
    NumPy array per result, of exactly the declared shape and dtype."""

    __slots__ = ("fn", "name")

    def __init__(self, fn, name: str):
        self.fn = fn
        self.name = name

    def __call__(self, *values):
        return self.fn(*values)

    def __repr__(self):
        return self.name


def host_value(value):
    """An operand as the host function sees it: an array becomes a read-only stridex array over its values (no
    copy on the host); a Python number stays one."""
    if isinstance(value, (bool, int, float, complex)):
        return value
    w = np.asarray(value)  # (a NumPy window, or the host buffer of a JAX array)
    if w.flags.writeable:
        w = w.view()
        w.flags.writeable = False
    return adopt(w)


class HostCallback(Primitive):
    """A callback primitive: with no trace active, `bind` calls the function now, on the operands' values
    copied from wherever they live (a device's are fetched; no program is compiled for the call)."""

    __slots__ = ()

    def bind(self, *args, **params):
        trace = current_trace()
        if trace is not None:
            return trace.process(self, args, params)
        values = [host_window(a) if isinstance(a, Array) else a for a in args]
        outs = self.impl(*values, **params)
        if not outs:
            return ()
        results = [Array._from_numpy(o) for o in outs]
        device = next((a.device for a in args if isinstance(a, Array) and not a.device.is_host), None)
        if device is None:
            device = _placement.placement() if not any(isinstance(a, Array) for a in args) else None
        return tuple(_device.transfer(r, device) for r in results) if device is not None else tuple(results)


_WIDE = {"float64": np.float64, "int64": np.int64, "uint64": np.uint64, "complex128": np.complex128}


def _host_operands(ctx, values):
    """What a lowering passes to JAX's callback for its operands, and a function turning what the host receives
    back into the operands' host values (`host_value`).

    Python numbers (a program's literals) stay in the lowering and are put back on the host as they are. A
    64-bit operand travels as its bits, in uint32 pairs: JAX hands callback operands to the host through a
    `device_put` that, in the thread running the callback, takes JAX's global 32-bit mode (stridex's 64-bit mode
    is scoped to the caller), and would round float64 to float32."""
    lax_, jnp_ = lax(), jax().numpy
    positions, sent = [], []
    for i, (v, aval) in enumerate(zip(values, ctx.avals_in)):
        if isinstance(v, (bool, int, float, complex)):
            continue
        positions.append(i)
        if aval.dtype.name == "complex128":
            v = jnp_.stack([lax_.real(v), lax_.imag(v)], axis=-1)
        sent.append(lax_.bitcast_convert_type(v, np.uint32) if aval.dtype.name in _WIDE else v)

    def rebuild(received):
        full = list(values)
        for i, v in zip(positions, received):
            wide = _WIDE.get(ctx.avals_in[i].dtype.name)
            if wide is not None:
                bits = np.ascontiguousarray(np.asarray(v))
                v = bits.view(np.float64 if wide is np.complex128 else wide)[..., 0]
                if wide is np.complex128:
                    v = np.ascontiguousarray(v).view(np.complex128)[..., 0]
            full[i] = host_value(v)
        return full

    return sent, rebuild


def _batched_operands(values, dims, axis_size, vmap_method):
    """The operands of a callback over a batch, each member's the function's call at that member (the batch axis
    first); `vmap_method` says how a value the same for every member is passed (None: as it is)."""
    out = []
    for v, d in zip(values, dims):
        if d is not None:
            out.append(move_to_front(v, d, axis_size))
        elif vmap_method == "expand_dims" and isinstance(v, Array):
            out.append(move_to_front(v, None, 1))
        elif vmap_method == "broadcast_all" and isinstance(v, Array):
            out.append(move_to_front(v, None, axis_size))
        else:
            out.append(v)
    return out


# --- debug_callback: a function called for its effect ---------------------------------------------------


def _debug_impl(*values, callback, ordered):
    if not _SILENT.get():
        callback(*[host_value(v) for v in values])
    return ()


def _debug_lower(ctx, *values, callback, ordered):
    gate = _GATE.get()
    if gate is False:
        return ()
    arrays, rebuild = _host_operands(ctx, values)

    def emit():
        jax().debug.callback(lambda *host: callback(*rebuild(host)), *arrays, ordered=ordered and _ORDERED.get())

    if gate is None:
        emit()
    else:
        lax().cond(gate, emit, lambda: None)
    return ()


def _debug_batch(values, dims, *, axis_size, callback, ordered):
    """One call per member, in order (as JAX's rule, which unrolls the callback over the batch)."""
    batched = [d is not None for d in dims]

    def each_member(*members):
        for i in range(axis_size):
            callback(*[m[i] if b else m for m, b in zip(members, batched)])

    debug_callback.bind(*_batched_operands(values, dims, axis_size, None),
                        callback=HostFunction(each_member, callback.name), ordered=ordered)
    return (), ()


debug_callback = HostCallback(
    "debug_callback",
    impl=_debug_impl,
    abstract_eval=lambda *avals, callback, ordered: (),
    lower=_debug_lower,
    batch=_debug_batch,
    multiple_results=True,
    differentiable=False,  # (under jvp and grad the function sees the primal values)
    effectful=True,
)


# --- pure_callback: a function computing results of declared shapes -------------------------------------


def _results(callback, values, result_avals) -> tuple:
    """The function's results, checked against the declared shapes and dtypes: fresh NumPy arrays (a Python
    number is taken as the declared dtype; anything else must have it exactly, as JAX requires)."""
    results = list(callback(*values))
    if len(results) != len(result_avals):
        raise TypeError(f"pure_callback {callback.name} returned {len(results)} results where "
                        f"{len(result_avals)} were declared")
    out = []
    for k, (r, aval) in enumerate(zip(results, result_avals)):
        r = np.asarray(r, dtype=aval.dtype.np) if isinstance(r, (bool, int, float, complex)) else np.asarray(r)
        if r.shape != aval.shape or r.dtype != aval.dtype.np:
            raise TypeError(f"pure_callback {callback.name} returned a {r.dtype}{list(r.shape)} array for result {k}, "
                            f"declared {aval.dtype.name}{list(aval.shape)}; return exactly the declared shape and "
                            "dtype (convert with np.asarray(value, dtype))")
        out.append(np.array(r, copy=True))  # (fresh memory: a result never aliases an operand)
    return tuple(out)


def _pure_impl(*values, callback, result_avals, vmap_method):
    return _results(callback, [host_value(v) for v in values], result_avals)


def _pure_lower(ctx, *values, callback, result_avals, vmap_method):
    # (64-bit results come back as their bits, as the operands go: JAX checks a callback's results against the
    # declared dtypes after converting them in the callback's thread, under JAX's global 32-bit mode)
    arrays, rebuild = _host_operands(ctx, values)
    lax_ = lax()
    shapes = []
    for a in result_avals:
        name = a.dtype.name
        bits = (2, 2) if name == "complex128" else (2,) if name in _WIDE else ()
        shapes.append(jax().ShapeDtypeStruct(a.shape + bits, np.uint32 if bits else a.dtype.np))

    def host(*received):
        return tuple(_as_bits(r) for r in _results(callback, rebuild(received), result_avals))

    outs = jax().pure_callback(host, shapes, *arrays, vmap_method=vmap_method)
    results = []
    for out, a in zip(outs, result_avals):
        name = a.dtype.name
        if name == "complex128":
            parts = lax_.bitcast_convert_type(out, np.float64)
            out = lax_.complex(parts[..., 0], parts[..., 1])
        elif name in _WIDE:
            out = lax_.bitcast_convert_type(out, a.dtype.np)
        results.append(out)
    return tuple(results)


def _as_bits(result: np.ndarray) -> np.ndarray:
    """A 64-bit result as its bits in uint32 pairs (see `_pure_lower`); any other as it is."""
    name = result.dtype.name
    if name not in _WIDE:
        return result
    result = np.ascontiguousarray(result)
    if name == "complex128":
        result = result.view(np.float64).reshape(result.shape + (2,))
    return result.view(np.uint32).reshape(result.shape + (2,))


VMAP_METHODS = ("sequential", "sequential_unrolled", "expand_dims", "broadcast_all", "legacy_vectorized")


def _pure_batch(values, dims, *, axis_size, callback, result_avals, vmap_method):
    if vmap_method not in VMAP_METHODS:
        raise NotImplementedError(
            f"vmap of pure_callback {callback.name} needs vmap_method= to say how the function takes a batch: one "
            f"of {', '.join(map(repr, VMAP_METHODS))} (JAX's rule); got vmap_method={vmap_method!r}")
    operands = _batched_operands(values, dims, axis_size, vmap_method)
    if vmap_method.startswith("sequential"):
        batched = [d is not None for d in dims]

        def each_member(*members):
            outs = [_results(callback, [m[i] if b else m for m, b in zip(members, batched)], result_avals)
                    for i in range(axis_size)]
            return [np.stack([o[k] for o in outs]) if outs else np.empty((0, *a.shape), a.dtype.np)
                    for k, a in enumerate(result_avals)]

        function = HostFunction(each_member, callback.name)
    else:  # (one call on the whole batch, which returns every member's results, the batch axis first)
        function = callback
    avals = tuple(ShapedArray((axis_size, *a.shape), a.dtype) for a in result_avals)
    outs = pure_callback.bind(*operands, callback=function, result_avals=avals, vmap_method=vmap_method)
    return outs, [0] * len(outs)


def _no_derivative(*_, callback, **__):
    raise ValueError(f"Pure callbacks do not support JVP (pure_callback {callback.name} was given a value that "
                     "carries a derivative). Please use `sx.custom_jvp` to use callbacks while taking gradients.")


pure_callback = HostCallback(
    "pure_callback",
    impl=_pure_impl,
    abstract_eval=lambda *avals, callback, result_avals, vmap_method: tuple(result_avals),
    lower=_pure_lower,
    jvp=_no_derivative,
    vjp=_no_derivative,
    batch=_pure_batch,
    multiple_results=True,
)
