"""stridex in one file: the whole architecture in miniature, runnable.

This script rebuilds stridex's design at toy scale, in the spirit of JAX's *autodidax*: a strided
`View` over a flat buffer; a handful of primitives, each one record of rules; `bind` and a stack of
interpreters (eager, tracing to an IR, forward and reverse differentiation, batching); and lowering
of the IR to `jax.lax` under `jax.jit`. It imports only NumPy and JAX. Each section names the module
of the real package that does the same job, so it doubles as a map of `stridex/`.

Run it with `python docs/stridex_in_one_file.py`: it prints a short tour and checks every result
against NumPy or JAX with `assert`.
"""

from __future__ import annotations

import contextlib
import math
from collections import namedtuple

import jax
import jax.numpy as jnp
import numpy as np

# ## 1. The strided core: a View over a flat Storage
#
# An array is a *view* of a flat buffer: `shape`, `strides` (counted in elements, not bytes) and an
# `offset` map an index `(i, j, ...)` to the slot `offset + i*strides[0] + j*strides[1] + ...`.
# Movement operations (slicing, transposing, broadcasting with stride 0) compute a new View and move
# no data. In stridex, `View` is `stridex/_core/view.py` (pure Python, no NumPy), the flat buffer is a
# `Storage` (`stridex/_core/storage.py`), and `Array = (Storage, View, DType)` is `stridex/_core/array.py`. To
# compute, stridex builds a NumPy *window* over exactly the viewed memory with the
# `np.ndarray(shape, dtype, buffer, offset, strides)` constructor, as `window` does here.


class View(namedtuple("View", "shape strides offset")):
    @staticmethod
    def contiguous(shape):
        strides = [math.prod(shape[i + 1:]) for i in range(len(shape))]
        return View(tuple(shape), tuple(strides), 0)

    def slice(self, starts, steps):  # x[start::step, ...] along every axis (non-negative steps here)
        shape = [max(0, math.ceil((n - a) / s)) for n, a, s in zip(self.shape, starts, steps)]
        offset = self.offset + sum(a * st for a, st in zip(starts, self.strides))
        return View(tuple(shape), tuple(st * s for st, s in zip(self.strides, steps)), offset)

    def transpose(self, perm):
        return View(tuple(self.shape[p] for p in perm), tuple(self.strides[p] for p in perm), self.offset)

    def broadcast_in_dim(self, shape, dims):  # input axis i becomes output axis dims[i]; new axes get stride 0
        strides = [0] * len(shape)
        for i, d in enumerate(dims):
            strides[d] = self.strides[i]
        return View(tuple(shape), tuple(strides), self.offset)


class Array:
    def __init__(self, storage, view):
        self.storage, self.view = storage, view  # a flat 1-D ndarray, shared by every view of it

    shape = property(lambda self: self.view.shape)
    dtype = property(lambda self: self.storage.dtype)
    T = property(lambda self: transpose(self, tuple(reversed(range(len(self.shape))))))
    __add__ = __radd__ = lambda self, other: add(self, other)
    __mul__ = __rmul__ = lambda self, other: mul(self, other)
    __repr__ = lambda self: f"Array({window(self).tolist()})"


def window(a):
    v, size = a.view, a.storage.itemsize
    return np.ndarray(v.shape, a.storage.dtype, a.storage, v.offset * size, [s * size for s in v.strides])


def asarray(x):
    x = np.asarray(x, dtype=np.float64)
    return Array(x.copy().reshape(-1), View.contiguous(x.shape))


# ## 2. Abstract values and the primitive record
#
# Tracing needs only what an array *is*: its abstract value, a `ShapedArray` (shape and dtype). A
# Python scalar operand is *weak*: it takes the array's dtype, and the IR keeps it as a literal.
# Every operation is a `Primitive`, one record holding all of its rules, so an interpreter never has
# to look anywhere else. stridex's record (`primitive(...)` in `stridex/_lax/primitive.py`) has these fields
# and a few more (`differentiable`, `multiple_results`, `data_dependent`), and its `kind` is
# "compute", "view" or "write". Writes are left out of this miniature: eagerly they write through
# the window; under tracing stridex turns them into functional updates of the base buffer
# (`stridex/_transforms/tracing.py`), so views and writes survive `jit`, `grad` and `vmap`.

ShapedArray = namedtuple("ShapedArray", "shape dtype")
ShapedArray.__repr__ = lambda a: f"{a.dtype.kind}{a.dtype.itemsize * 8}[{','.join(map(str, a.shape))}]"


class Primitive(namedtuple("Primitive", "name kind impl abstract_eval lower jvp vjp batch")):
    def bind(self, *args, **params):
        # The one door: with no trace active, run eagerly now; otherwise the current trace receives it
        # (stridex: `Primitive.bind` reads `stridex/_core/state.py`'s per-thread context variable).
        if _current_trace is None:
            return eager(self, args, params)
        return _current_trace.process(self, args, params)


def aval_of(x):
    if isinstance(x, Tracer):
        return x.aval
    return ShapedArray(tuple(x.shape), np.dtype(x.dtype)) if isinstance(x, Array) else None


# ## 3. A handful of primitives
#
# Each record holds an eager rule on NumPy windows (or, for a view, on the `View`), an abstract rule,
# a lowering written on `jax.lax` (not `jax.numpy`, whose semantics can differ from the standard's),
# a JVP rule, a VJP rule and a batching rule. The derivative and batching rules are written with the
# namespace functions (`add`, `mul`, ...), so they are themselves traced, differentiated or batched by
# whatever interpreter sits underneath: that is what makes the transformations compose. Rule *shapes*
# are shared, not copied (`batch_elementwise` here; `stridex/_lax/elementwise.py` and
# `stridex/_transforms/batching.py` there). In this miniature, binary operands have equal shapes or are Python
# scalars, and a tangent of `None` is a zero.


def elementwise_abstract(*avals):
    avals = [a for a in avals if a is not None]
    assert all(a == avals[0] for a in avals), f"shapes differ: {avals}"
    return avals[0]


def batch_elementwise(values, dims, axis_size, prim):  # batched operands are at axis 0: broadcast the rest
    return prim.bind(*[v if d is not None or not isinstance(v, Array) else
                       broadcast_in_dim(v, (axis_size, *v.shape), range(1, len(v.shape) + 1))
                       for v, d in zip(values, dims)]), 0


def sum_tangents(*terms):
    terms = [t for t in terms if t is not None]
    return None if not terms else terms[0] if len(terms) == 1 else add(*terms)


def mul_jvp(primals, tangents):
    (x, y), (tx, ty) = primals, tangents
    return mul(x, y), sum_tangents(None if tx is None else mul(tx, y), None if ty is None else mul(x, ty))


def elementwise(name, impl, lower, jvp, vjp):
    prim = Primitive(name, "compute", impl, elementwise_abstract, lower, jvp, vjp,
                     batch=lambda values, dims, axis_size: batch_elementwise(values, dims, axis_size, prim))
    return prim


add_p = elementwise("add", np.add, jax.lax.add, lambda primals, tangents: (add(*primals), sum_tangents(*tangents)),
                    vjp=lambda ct, x, y: (ct, ct))
mul_p = elementwise("mul", np.multiply, jax.lax.mul, mul_jvp, vjp=lambda ct, x, y: (mul(ct, y), mul(ct, x)))
sin_p = elementwise("sin", np.sin, jax.lax.sin, lambda primals, tangents: (sin(primals[0]), mul(tangents[0], cos(primals[0]))),
                    vjp=lambda ct, x: (mul(ct, cos(x)),))
cos_p = elementwise("cos", np.cos, jax.lax.cos,
                    lambda primals, tangents: (cos(primals[0]), mul(tangents[0], mul(sin(primals[0]), -1.0))),
                    vjp=lambda ct, x: (mul(ct, mul(sin(x), -1.0)),))
reduce_sum_p = Primitive(
    "reduce_sum", "compute", lambda x, axes: np.sum(x, axis=axes),
    lambda x, axes: ShapedArray(tuple(n for i, n in enumerate(x.shape) if i not in axes), x.dtype),
    lambda x, axes: jax.lax.reduce_sum(x, axes),
    jvp=lambda primals, tangents, axes: (reduce_sum(primals[0], axes), reduce_sum(tangents[0], axes)),
    vjp=lambda ct, x, axes: (broadcast_in_dim(ct, x.shape, [i for i in range(len(x.shape)) if i not in axes]),),
    batch=lambda values, dims, axis_size, axes: (reduce_sum(values[0], [a + 1 for a in axes]), 0))

# The view primitives run on the View eagerly: O(1), and the result shares the storage. In stridex a
# view primitive also has a write-back rule (`WRITE_BACK` in `stridex/_lax/views.py`), which the
# tracer uses to turn `x.T[0] = v` into an update of `x`'s base buffer.
transpose_p = Primitive(
    "transpose", "view", lambda view, perm: view.transpose(perm),
    lambda x, perm: ShapedArray(tuple(x.shape[p] for p in perm), x.dtype),
    lambda x, perm: jax.lax.transpose(x, perm),
    jvp=lambda primals, tangents, perm: (transpose(primals[0], perm), transpose(tangents[0], perm)),
    vjp=lambda ct, x, perm: (transpose(ct, np.argsort(perm).tolist()),),
    batch=lambda values, dims, axis_size, perm: (transpose(values[0], (0, *(p + 1 for p in perm))), 0))
broadcast_in_dim_p = Primitive(
    "broadcast_in_dim", "view", lambda view, shape, dims: view.broadcast_in_dim(shape, dims),
    lambda x, shape, dims: ShapedArray(shape, x.dtype),
    lambda x, shape, dims: jax.lax.broadcast_in_dim(x, shape, dims),
    jvp=lambda primals, tangents, shape, dims: (broadcast_in_dim(primals[0], shape, dims),
                                                broadcast_in_dim(tangents[0], shape, dims)),
    vjp=lambda ct, x, shape, dims: (reduce_sum(ct, [i for i in range(len(shape)) if i not in dims]),),
    batch=lambda values, batch_dims, axis_size, shape, dims: (
        broadcast_in_dim(values[0], (axis_size, *shape), (0, *(d + 1 for d in dims))), 0))

# The namespace functions. In stridex they validate their arguments the way the standard says (one
# module per spec chapter: `stridex/_api/elementwise_functions.py`, `stridex/_api/statistical_functions.py`, ...), then bind.
add, mul, sin, cos = add_p.bind, mul_p.bind, sin_p.bind, cos_p.bind
reduce_sum = lambda x, axes: reduce_sum_p.bind(x, axes=tuple(axes))
transpose = lambda x, perm: transpose_p.bind(x, perm=tuple(perm))
broadcast_in_dim = lambda x, shape, dims: broadcast_in_dim_p.bind(x, shape=tuple(shape), dims=tuple(dims))


# ## 4. The eager interpreter
#
# With no trace active, a compute primitive runs its NumPy rule on windows and the result is adopted
# as a fresh Array; a view primitive maps the View and shares the storage. stridex has one eager
# function per kind in `stridex/_exec/host.py` (`compute`, `write`; a view's, `_eager_view`, is in
# `stridex/_lax/primitive.py`), and adopts NumPy's result without a copy.


def eager(prim, args, params):
    if prim.kind == "view":
        return Array(args[0].storage, prim.impl(args[0].view, **params))
    out = np.asarray(prim.impl(*[window(a) if isinstance(a, Array) else a for a in args], **params))
    return Array(out.copy().reshape(-1), View.contiguous(out.shape))


# ## 5. Traces, tracers and the IR
#
# Every other interpreter is a `Trace`. While one is current, `bind` calls `trace.process`, and the
# values flowing through the user's code are `Tracer`s: arrays carrying a *payload* (an IR variable
# for jit, a primal and its tangent for jvp, ...). A subclass says how a primitive runs on payloads
# (`apply`) and what the payload of an outside value is (`lift`). Traces nest: each binds its own
# work to the trace below it (`below()`), so `jit(grad(f))` records the derivative's operations in the
# jit trace. stridex's base class is `Trace` in `stridex/_transforms/tracing.py`, where the base also handles
# views and writes for every subclass.

_current_trace = None


@contextlib.contextmanager
def current(trace):
    global _current_trace
    saved, _current_trace = _current_trace, trace
    try:
        yield
    finally:
        _current_trace = saved


class Tracer(Array):
    def __init__(self, trace, payload):
        self.trace, self.payload, self.aval = trace, payload, trace.aval(payload)

    shape = property(lambda self: self.aval.shape)
    dtype = property(lambda self: self.aval.dtype)


class Trace:
    def __init__(self):
        self.parent = _current_trace

    def below(self):
        return current(self.parent)

    def aval(self, payload):  # the payload of jvp, grad and vmap is a pair (value, something)
        return aval_of(payload[0])

    def lift(self, x):
        return (x, None)

    def process(self, prim, args, params):
        payloads = [a.payload if isinstance(a, Tracer) and a.trace is self else self.lift(a) for a in args]
        return Tracer(self, self.apply(prim, payloads, params))

    def unpack(self, out):  # the payload of a function's result (a value from outside is lifted)
        return out.payload if isinstance(out, Tracer) and out.trace is self else self.lift(out)


# The IR (stridex: `stridex/_transforms/ir.py`): equations over variables that carry abstract values, printed
# one equation a line in stridex's format. A Python scalar in an equation is a literal.
Var = namedtuple("Var", "aval")
Eqn = namedtuple("Eqn", "prim inputs params output")


class Program(namedtuple("Program", "constants inputs eqns output")):
    def __str__(self):
        names = {}

        def name(v):  # variables are named a, b, ..., z, aa, ab, ... in order of appearance
            if not isinstance(v, Var):
                return repr(v)
            if id(v) not in names:
                n, names[id(v)] = len(names) + 1, ""
                while n:
                    n, r = divmod(n - 1, 26)
                    names[id(v)] = chr(ord("a") + r) + names[id(v)]
            return names[id(v)]

        def binders(vs):
            return " ".join(f"{name(v)}:{v.aval}" for v in vs)

        head = (binders([v for v, _ in self.constants]) + " ; " if self.constants else "") + binders(self.inputs)
        lines = [f"{{ lambda {head} ."]
        for e in self.eqns:
            params = ", ".join(f"{k}={str(v).replace(' ', '')}" for k, v in e.params.items())
            lines.append(f"    {name(e.output)}:{e.output.aval} = {e.prim.name}{f'[{params}]' if params else ''} "
                         + " ".join(map(name, e.inputs)))
        return "\n".join(lines + [f"  in ({name(self.output)}) }}"])


class JitTrace(Trace):  # stridex: `JitTrace` in `stridex/_transforms/tracing.py`
    def __init__(self):
        super().__init__()
        self.eqns, self.constants = [], {}

    def aval(self, var):
        return var.aval

    def lift(self, x):  # an array the function closed over becomes an input of the program; a scalar, a literal
        return self.constants.setdefault(id(x), (Var(aval_of(x)), x))[0] if isinstance(x, Array) else x

    def apply(self, prim, inputs, params):
        out = Var(prim.abstract_eval(*[v.aval if isinstance(v, Var) else None for v in inputs], **params))
        self.eqns.append(Eqn(prim, inputs, params, out))
        return out


def make_ir(f):
    def traced(*args):
        trace, inputs = JitTrace(), [Var(aval_of(a)) for a in args]
        with current(trace):
            out = f(*[Tracer(trace, v) for v in inputs])
        return Program(list(trace.constants.values()), inputs, trace.eqns, trace.unpack(out))
    return traced


# Before lowering, stridex's `jit` folds chains of views and removes common subexpressions and dead
# code (`stridex/_transforms/passes.py`; `make_ir(f, optimize=False)` shows the program as recorded). Dead-code
# elimination is the simplest of those passes.
#
# Running a Program is one loop, whatever runs each equation: binding the primitive evaluates it
# with the current interpreter (stridex: `evaluate` in `stridex/_transforms/ir.py`, which the tests use to check
# lowering against eager execution), and calling the record's `lower` rule turns it into JAX.


def dead_code_elimination(program):
    live, kept = {id(program.output)}, []
    for e in reversed(program.eqns):
        if id(e.output) in live:
            kept.append(e)
            live.update(id(v) for v in e.inputs if isinstance(v, Var))
    constants = [(v, c) for v, c in program.constants if id(v) in live]
    return Program(constants, program.inputs, kept[::-1], program.output)


def run_program(program, args, run_equation):
    env = {id(v): a for v, a in zip([v for v, _ in program.constants] + program.inputs, args)}
    for e in program.eqns:
        env[id(e.output)] = run_equation(e, [env[id(v)] if isinstance(v, Var) else v for v in e.inputs])
    return env[id(program.output)]


def evaluate(program, *args):
    return run_program(program, [c for _, c in program.constants] + list(args),
                       lambda e, inputs: e.prim.bind(*inputs, **e.params))


# ## 6. Lowering to jax.lax, and jit
#
# `jax.jit` of the lowered function hands the whole program to XLA, which fuses it. `jit` caches one
# compiled function per signature (here, the input avals). In stridex, `lower_program` is
# `stridex/_transforms/lowering.py` (it also checks each result's shape and dtype against the abstract rule), the
# door to JAX with its scoped 64-bit mode is `stridex/_exec/jax_bridge.py`, and `jit` (cache keys,
# zero-copy hand-over of memory, write-back of inputs the function wrote) is `stridex/_transforms/jit.py`.


def jit(f):
    cache = {}

    def call(*args):
        if _current_trace is not None:  # inside another transformation: inline f into that trace
            return f(*args)
        key = tuple(aval_of(a) for a in args)
        if key not in cache:
            program = dead_code_elimination(make_ir(f)(*args))
            lowered = lambda *xs: run_program(program, xs, lambda e, ins: e.prim.lower(*ins, **e.params))
            cache[key] = (program, jax.jit(lowered))
        program, compiled = cache[key]
        with jax.enable_x64(True):  # float64 stays float64, without changing the user's JAX settings
            out = compiled(*[window(c) for _, c in program.constants], *[window(a) for a in args])
        return asarray(np.asarray(out))  # (stridex adopts JAX's buffer without a copy, copy-on-write)
    call.cache = cache
    return call


# ## 7. Forward mode: jvp
#
# The payload is a (primal, tangent) pair, and `apply` calls the record's `jvp` rule on the trace
# below (stridex: `JVPTrace` in `stridex/_transforms/autodiff.py`).


class JVPTrace(Trace):
    def apply(self, prim, payloads, params):
        primals = [p for p, _ in payloads]
        with self.below():
            if all(t is None for _, t in payloads):
                return (prim.bind(*primals, **params), None)
            tangents = [asarray(np.zeros(p.shape)) if t is None and isinstance(p, Array) else t for p, t in payloads]
            return prim.jvp(primals, tangents, **params)


def jvp(f, primals, tangents):
    trace = JVPTrace()
    with current(trace):
        out = f(*[Tracer(trace, (p, t)) for p, t in zip(primals, tangents)])
    return trace.unpack(out)


# ## 8. Reverse mode: a tape, vjp rules and grad
#
# stridex's reverse mode is a tape (`VJPTrace` in `stridex/_transforms/autodiff.py`): each primitive applied to a
# value that depends on an input is recorded as a node, and the backward pass walks the tape in
# reverse, calling the records' `vjp` rules and summing cotangents per node. (JAX instead linearizes
# with jvp and transposes the linear program; stridex's record keeps a `transpose` slot for that.)
# The backward pass runs on whatever trace is current, so under `jit` it is recorded into the IR.

Node = namedtuple("Node", "prim params inputs primals")


class VJPTrace(Trace):
    def __init__(self):
        super().__init__()
        self.tape = []

    def apply(self, prim, payloads, params):  # payload: (value, the tape node it comes from, or None)
        primals = [p for p, _ in payloads]
        with self.below():
            out = prim.bind(*primals, **params)
        if all(node is None for _, node in payloads):
            return (out, None)
        self.tape.append(Node(prim, params, payloads, primals))
        return (out, self.tape[-1])

    def backward(self, output_node, seed):
        cotangents = {id(output_node): seed}
        for node in reversed(self.tape):
            ct = cotangents.pop(id(node), None)
            if ct is not None:
                for (_, input_node), input_ct in zip(node.inputs, node.prim.vjp(ct, *node.primals, **node.params)):
                    if input_node is not None:
                        key = id(input_node)
                        cotangents[key] = add(cotangents[key], input_ct) if key in cotangents else input_ct
        return cotangents


def grad(f):
    def gradient(x):
        trace, input_node = VJPTrace(), Node(None, {}, [], [])
        with current(trace):
            out = f(Tracer(trace, (x, input_node)))
        value, node = trace.unpack(out)
        assert value.shape == (), "grad needs a function with a scalar output"
        return trace.backward(node, asarray(1.0)).get(id(input_node), asarray(np.zeros(x.shape)))
    return gradient


# ## 9. Batching: vmap
#
# The payload is (value, batch axis), the axis being 0 or None (the same for every example) here. A
# record's `batch` rule computes all examples at once with ordinary operations (stridex: `BatchTrace`
# and the shared rule shapes in `stridex/_transforms/batching.py`, with any `in_axes` and `out_axes`).


class BatchTrace(Trace):
    def __init__(self, axis_size):
        super().__init__()
        self.axis_size = axis_size

    def aval(self, payload):
        value, dim = payload
        return aval_of(value) if dim is None else ShapedArray(aval_of(value).shape[1:], aval_of(value).dtype)

    def apply(self, prim, payloads, params):
        values, dims = [v for v, _ in payloads], [d for _, d in payloads]
        with self.below():
            if all(d is None for d in dims):
                return (prim.bind(*values, **params), None)
            return prim.batch(values, dims, self.axis_size, **params)


def vmap(f):
    def batched(x):
        trace = BatchTrace(x.shape[0])
        with current(trace):
            out = f(Tracer(trace, (x, 0)))
        value, dim = trace.unpack(out)
        return value if dim == 0 else broadcast_in_dim(value, (x.shape[0], *value.shape), range(1, len(value.shape) + 1))
    return batched


# ## 10. A tour, checked against NumPy and JAX


def tour():
    # Views: x[::2, 1:] of a 3x4 array is shape (2, 3), strides (8, 1), offset 1: slots 1-3 and 9-11.
    x = asarray(np.arange(12.0).reshape(3, 4))
    v = Array(x.storage, x.view.slice((0, 1), (2, 1)))
    print("x[::2, 1:] is", v.view, "->", v)
    assert v.view == ((2, 3), (8, 1), 1) and (window(v) == np.arange(12.0).reshape(3, 4)[::2, 1:]).all()
    window(v)[0, 0] = -1.0  # a write through the view is seen by x: they share one storage
    assert window(x)[0, 1] == -1.0 and x.T.storage is x.storage

    def f(w, b):
        return reduce_sum(sin(w.T) * w.T * 2.0 + b, (0, 1))

    def f_jax(w, b):
        return jnp.sum(jnp.sin(w.T) * w.T * 2.0 + b)

    w, b = asarray(np.arange(6.0).reshape(2, 3) / 6), asarray(np.ones((3, 2)))
    program = make_ir(f)(w, b)
    print("the IR of f:\n" + str(program))
    value = window(f(w, b))
    assert np.allclose(value, f_jax(window(w), window(b)))
    assert np.allclose(window(evaluate(program, w, b)), value)
    fast = jit(f)
    assert np.allclose(window(fast(w, b)), value) and np.allclose(window(fast(w, b)), value)
    assert len(fast.cache) == 1  # the second call reused the compiled program
    print("f(w, b) eagerly, from its IR and under jit:", float(value))

    t = asarray(np.full((2, 3), 0.5))
    primal, tangent = jvp(lambda w: f(w, b), [w], [t])
    expected = jax.jvp(lambda w: f_jax(w, window(b)), (window(w),), (window(t),))
    assert np.allclose(window(primal), expected[0]) and np.allclose(window(tangent), expected[1])
    print("jvp of f along t:", float(window(tangent)))

    g = grad(lambda w: f(w, b))
    g_expected = jax.grad(lambda w: f_jax(w, window(b)))(window(w))
    assert np.allclose(window(g(w)), g_expected)
    assert np.allclose(window(jit(g)(w)), g_expected)  # jit(grad(f)): the backward pass is traced too
    print("grad of f:", window(g(w)).round(4).tolist())
    print("the IR of grad(f), after dead-code elimination:\n" + str(dead_code_elimination(make_ir(g)(w))))

    def h(r):
        return reduce_sum(sin(r) * r, (0,))

    def h_jax(r):
        return jnp.sum(jnp.sin(r) * r)

    rows = asarray(np.arange(12.0).reshape(4, 3) / 10)
    assert np.allclose(window(vmap(h)(rows)), jax.vmap(h_jax)(window(rows)))
    assert np.allclose(window(vmap(grad(h))(rows)), jax.vmap(jax.grad(h_jax))(window(rows)))
    assert np.allclose(window(jit(vmap(grad(h)))(rows)), jax.vmap(jax.grad(h_jax))(window(rows)))
    print("vmap(h) over 4 rows:", window(vmap(h)(rows)).round(4).tolist(), "- vmap(grad(h)) and jit of it agree with JAX")


if __name__ == "__main__":
    tour()
