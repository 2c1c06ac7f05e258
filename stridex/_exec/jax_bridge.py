"""What lowering rules share: lazy access to JAX, 64-bit mode, and the context a rule receives.

`jax()`, `lax()` and `jnp()` are stridex's one way to JAX: in a process forked after JAX's runtime had started
they raise (`check_runtime`) where JAX would wait forever for threads the fork left behind.

A primitive's `lower(ctx, *args, **params)` receives JAX values (or Python scalars for weak inputs) and
returns JAX values; `ctx.avals_in` / `ctx.avals_out` give the stridex abstract values so a rule can
convert to the exact result dtype itself (lax does not promote). JAX is imported on first use only.
"""

from __future__ import annotations

import contextlib
import contextvars
import sys

import numpy as np

from stridex._core import dtypes as _dtypes
from stridex._core import processes


class LoweringContext:
    __slots__ = ("avals_in", "avals_out")

    def __init__(self, avals_in, avals_out):
        self.avals_in = tuple(avals_in)
        self.avals_out = tuple(avals_out)

    @property
    def aval_out(self):
        (aval,) = self.avals_out
        return aval


# Whether this process was forked after JAX's runtime (its backends: client threads, device buffers) had started
# in the parent. JAX does not survive a fork: the child has none of the runtime's threads, so a computation is
# dispatched and never completes, and reading its result waits forever (JAX only warns at the fork). Set in the
# child by `_note_fork`; inherited by its own children.
RUNTIME_FORKED = False


def _runtime_started() -> bool:
    """Whether JAX's backends are initialised in this process (read without JAX's lock, which a thread of the
    parent may have held at the fork); unknown (a JAX whose internals moved) counts as started."""
    bridge = sys.modules.get("jax._src.xla_bridge")
    if bridge is None:
        return False
    backends = getattr(bridge, "_backends", None)
    return True if backends is None else bool(backends)


@processes.in_child
def _note_fork() -> None:
    global RUNTIME_FORKED
    RUNTIME_FORKED = RUNTIME_FORKED or _runtime_started()


def check_runtime() -> None:
    """Raise RuntimeError when JAX cannot run in this process (forked after its runtime started): what device
    work and every way into JAX call first, where JAX would hang."""
    if RUNTIME_FORKED:
        raise RuntimeError(
            "JAX's runtime had started in the parent of this process before it was forked (os.fork, or "
            "multiprocessing's 'fork' start method, the default on Linux before Python 3.14), and JAX does not "
            "survive a fork: its threads are not in this process, and JAX work here would wait for them forever. "
            "Host arrays, eager NumPy work and eager fusion on the host work here; for device arrays, jit or "
            "anything else that runs JAX, start the process with multiprocessing's 'spawn' or 'forkserver' "
            "method, or start JAX only after the fork")


def jax():
    if RUNTIME_FORKED:
        check_runtime()
    import jax as _jax

    return _jax


def lax():
    if RUNTIME_FORKED:
        check_runtime()
    from jax import lax as _lax

    return _lax


def jnp():
    if RUNTIME_FORKED:
        check_runtime()
    import jax.numpy as _jnp

    return _jnp


def x64():
    """A context in which JAX keeps 64-bit dtypes (scoped; the user's global setting is untouched)."""
    return jax().enable_x64(True)


def computed(out):
    """`out` (a JAX array, or a tuple or list of them) once JAX has computed it: the program that made it has
    read its inputs then. For calls that hand JAX host memory, which it reads asynchronously (a conversion, an
    alias), so that a write into that memory right after the call cannot reach the program."""
    if type(out) is tuple or type(out) is list:
        for o in out:
            o.block_until_ready()
        return out
    return out.block_until_ready()


def as_dtype(x, dtype):
    """`x` (JAX value or Python scalar) as an array of stridex dtype `dtype`: a Python scalar becomes a 0-d
    NumPy constant (a literal of the program, about 100x cheaper to make than `jnp.asarray`'s device array,
    which a first call paid for every scalar operand), a JAX value is converted when its dtype differs."""
    if not hasattr(x, "dtype"):
        with np.errstate(over="ignore"):  # (a float beyond float16's range is inf, as jnp.asarray made it)
            return np.asarray(x, dtype=dtype.np)
    if x.dtype == dtype.np:
        return x
    if x.dtype == np.float64 and dtype.np == np.float16:
        # (XLA converts through float32, rounding twice: rounded to odd first, the result is NumPy's nearest
        # float16, as for a Python float above; see `data_type.float32_round_to_odd`. A Python scalar argument
        # of `jit` or of a device executable is such a float64 value.)
        x = float64_rounded_to_odd(x, 24)
    return lax().convert_element_type(x, dtype.np)


def weakly_typed(x):
    """JAX value `x` (a 0-D argument standing for a Python scalar) made weakly typed, as `jax.jit` makes a Python
    scalar argument, so that `jax.numpy` promotions inside a rule treat it as the scalar it stands for (lax
    rules convert through `ctx` either way). JAX has no public spelling of this conversion: where its private
    one is missing, `x` is returned as it is."""
    global _WEAKEN
    if _WEAKEN is None:
        try:
            from jax._src.lax.lax import _convert_element_type  # (private: see the docstring)
        except ImportError:  # pragma: no cover - a JAX without it
            _WEAKEN = False
        else:
            _WEAKEN = _convert_element_type
    if _WEAKEN is False:
        return x
    return _WEAKEN(x, x.dtype, weak_type=True)


_WEAKEN = None


def broadcast_to(x, shape):
    """JAX value or NumPy constant `x` broadcast to `shape` (NumPy's rule, trailing axes aligned)."""
    shape = tuple(shape)
    if x.shape == shape:
        return x
    return lax().broadcast_in_dim(x, shape, tuple(range(len(shape) - x.ndim, len(shape))))


def broadcast_to_aval(x, aval):
    """`x` converted to `aval.dtype` and broadcast to `aval.shape`."""
    return broadcast_to(as_dtype(x, aval.dtype), aval.shape)


class _ProgramTruth:
    """The inputs of the program being lowered, and the opaque `True` made from them on first request."""

    __slots__ = ("inputs", "value")

    def __init__(self, inputs):
        self.inputs = inputs
        self.value = None


_LOWERING = contextvars.ContextVar("stridex_lowering_program", default=None)


@contextlib.contextmanager
def lowering_program(inputs):
    """The scope of one program's lowering (`lowering.lower_program`): `program_true` draws on `inputs`, the
    program's JAX inputs, in it. Sub-programs (branches, loop bodies) open their own scope in their own trace."""
    token = _LOWERING.set(_ProgramTruth(inputs))
    try:
        yield
    finally:
        _LOWERING.reset(token)


def program_true():
    """A JAX boolean scalar that is always true but that XLA cannot prove true, for `ieee_divide`'s selects,
    or None outside a program's lowering (or when all its inputs are empty).

    One per program, made on first request from one element of the program's first non-empty input:
    `v == v | v != v` of a floating-point value, which the simplifier does not fold (NaN) and which no
    compile-time constant feeds. Ask for it in the trace the division is recorded in, not inside
    `lax.platform_dependent`'s branches: it is cached for the program, and a value made in a nested trace
    would escape that trace."""
    scope = _LOWERING.get()
    if scope is None:
        return None
    if scope.value is None:
        scope.value = _true_from_inputs(lax(), scope.inputs)
    return scope.value if scope.value is not False else None


def _true_from_inputs(L, inputs):
    for x in inputs:
        if not getattr(x, "size", 0) or not isinstance(getattr(x, "dtype", None), np.dtype):
            continue  # (an empty input, a Python scalar, or a dtype of JAX's own such as a key: the next one)
        element = L.reshape(L.slice(x, (0,) * x.ndim, (1,) * x.ndim), ())
        if _dtypes.np_kind(element.dtype) not in "fc":  # (x == x of an integer is folded to true)
            element = L.convert_element_type(element, np.float32)
        return L.bitwise_or(L.eq(element, element), L.ne(element, element))
    return False


def ieee_divide(a, b, true=None):
    """`lax.div(a, b)`, kept a division where `b` is broadcast to `a`'s shape (a smaller or 0-d JAX array).

    XLA's algebraic simplifier rewrites x / broadcast(y) into x * broadcast(1 / y), and x / constant into
    x * (1 / constant), whatever the optimisation flags: two roundings, so under `jit` x / 3.7, x / y[0] or a
    division by a column differed from the correctly rounded quotient (which the standard requires, and eager
    gives) in 30-70% of elements. So the operands reach such a division through a select on a predicate that
    is always true but that the simplifier cannot see through (`program_true`, made once per program from
    an input): no pattern matches a select (the numerator's select also hides an (x / y) / z from the rewrite
    into x / (y * z)), and LLVM, which folds the predicate and the select away, keeps an IEEE division. Where
    both operands are constants and the program has no input, XLA evaluates the division itself, exactly.

    One scalar predicate per program costs the first call little: ten divisions by a Python scalar in a
    40-op program made its first call 1.2x slower with an elementwise predicate per division (eight more
    JAX operations each), 1.1x with this one (two selects each; measured on a 2-core machine, interleaved
    with the same program without divisions). The select costs nothing in an elementwise pass, but XLA does
    not fuse it into the library kernel (YNNPACK) it gives large sums: `sx.jit` of `sx.sum(x / 3.7)` on 10^7
    float32 writes x / 3.7 out first (2.3x the time of the sum alone when measured). Divisions of arrays of
    one shape stay plain, and so XLA's rewrites of x / sqrt(y), x / exp(y) and (x / y) / z remain
    (docs/semantics.md).

    `true` is `program_true()` taken by a caller that divides inside `lax.platform_dependent`."""
    L = lax()
    if b.ndim and b.shape == a.shape:
        return L.div(a, b)
    shape = np.broadcast_shapes(a.shape, b.shape)
    a, b = broadcast_to(a, shape), broadcast_to(b, shape)
    if _dtypes.np_kind(a.dtype) != "f":
        return L.div(a, b)
    if true is None:
        true = program_true()
    if true is None:  # (the predicate elementwise, of both operands, as either may be a constant XLA folds)
        true = L.bitwise_and(L.bitwise_or(L.eq(a, a), L.ne(a, a)), L.bitwise_or(L.eq(b, b), L.ne(b, b)))
    return L.div(L.select(true, a, b), L.select(true, b, a))


def correctly_rounded_float32(fn):
    """`fn` (a lax operation: divide, sqrt) made correctly rounded for float32 operands on every backend.

    The standard requires `/`, `reciprocal` and `sqrt` of real floating-point operands to be correctly rounded
    (Accuracy, "Arithmetic Operations" and "Mathematical Functions"). XLA:CPU's float32 division and square
    root are; on a GPU they are not (PTX `div.full.f32`, documented within 2 ulp, and an approximate square
    root: a GPU run found 1-ulp differences from NumPy in about one float32 sqrt in twelve). There, float32
    operands go through float64, whose division and square root are correctly rounded, and the result is
    rounded to float32 once: exact, since 53 >= 2 * 24 + 2 bits make the double rounding innocuous for +, -,
    *, / and sqrt (Figueroa, "When is double rounding innocuous?", 1995). `lax.platform_dependent` lowers
    only the branch of the platform the program is compiled for, so XLA:CPU programs keep the plain op."""

    def op(*args):
        if not any(getattr(a, "dtype", None) == "float32" for a in args):
            return fn(*args)
        return lax().platform_dependent(*args, cpu=fn, default=lambda *xs: float32_through_float64(fn, *xs))

    return op


def float32_through_float64(fn, *xs):
    """`fn` of float32 JAX arrays `xs` computed in float64 and rounded to float32 once (see above).

    The float64 result is rounded to odd at 26 bits on its bits before the conversion: that changes nothing
    (rounding to odd with two bits to spare, then to nearest at 24, is rounding to nearest at 24), but it hides
    the float64 operation from the conversion. LLVM rewrites fptrunc(fdiv(fpext a, fpext b)) into a float32
    fdiv (a fold that is exact for IEEE division), which NVPTX then emits as the approximate div.full.f32: a
    GPU run of the plain conversion gave XLA's float32 quotients back, 1-2 ulp off."""
    L = lax()
    wide = [L.convert_element_type(x, "float64") if getattr(x, "dtype", None) == "float32" else x for x in xs]
    return L.convert_element_type(float64_rounded_to_odd(fn(*wide), 26), "float32")


def float64_rounded_to_odd(x, bits: int):
    """float64 JAX array `x` rounded to odd at `bits` significant bits, on its bits: the trailing 53 - `bits`
    mantissa bits are cut (toward zero) and the lowest kept bit is set if any of them was 1. Rounding to
    nearest at p <= `bits` - 2 bits afterwards gives the nearest p-bit value to `x` itself (one rounding, not
    two). Exact for normal values (where the whole significand is in the mantissa field); NaN stays NaN (its
    sticky bit is set), infinities and zeros are unchanged. Integer operations, so no compiler folds it into a
    neighbouring conversion."""
    L = lax()
    cut = 53 - bits
    word = L.bitcast_convert_type(x, np.uint64)
    dropped = np.uint64((1 << cut) - 1)
    sticky = L.convert_element_type(L.ne(L.bitwise_and(word, dropped), np.uint64(0)), np.uint64)
    kept = L.bitwise_and(word, np.uint64(~((1 << cut) - 1) & (2**64 - 1)))
    return L.bitcast_convert_type(L.bitwise_or(kept, L.shift_left(sticky, np.uint64(cut))), np.float64)


def jax_scipy_special():
    """`jax.scipy.special` (the lowering of the special functions JAX defines as compositions: ndtri, log_ndtr)."""
    from jax.scipy import special as _special

    return _special
