"""Differential fuzzing: random programs over the namespace, including views and writes, must give the
same values eagerly, under `jit`, and in NumPy (whose view and write semantics are the reference).

Where it runs: every program runs on host arrays and again with a JAX device as the default device
(STRIDEX_TEST_DEVICE, default "cpu:1", which stands in for a GPU: its eager operations, views, writes and
donation run the device code paths), eagerly, under `jit`, with closures and aliased arguments, and under
grad / jacrev / jacfwd. NumPy is the reference in both cases.

How long it runs: each test's example count is scaled by STRIDEX_FUZZ_SCALE (default 1, what CI runs);
`STRIDEX_FUZZ_SCALE=30 python -m pytest tests/transforms/test_fuzz_programs.py` is the longer run, and
STRIDEX_FUZZ_MIN_STEPS / STRIDEX_FUZZ_STEPS set the length of the random programs (1 to 8 steps by default). The
device runs fewer examples by default (every new shape compiles there, as on a GPU), scaled the same way.

A program is a list of steps over a pool of arrays. Each step is drawn while the program runs on
NumPy, so that its parameters (axes, slices) fit the shapes at hand; the recorded steps are then
replayed on stridex eagerly and inside one jitted function. At the end every array in the pool —
inputs, intermediates and views — must agree, which checks that writes reached every view. Writes
include `x[key] = y` and `x[key] += y` where y is any pool entry that fits, often a view of the storage
being written, overlapping the region (NumPy reads all of y before it writes).
"""

from __future__ import annotations

import os
import threading

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import stridex as sx
from tests.helpers import run_in_threads

pytest.importorskip("jax")

SCALE = int(os.environ.get("STRIDEX_FUZZ_SCALE", "1"))
# How many steps a random program has (`test_random_programs_agree`): 1 to 8 in CI; the long run draws
# longer ones (STRIDEX_FUZZ_MIN_STEPS=12 STRIDEX_FUZZ_STEPS=12: 12 steps each).
MIN_STEPS = int(os.environ.get("STRIDEX_FUZZ_MIN_STEPS", "1"))
MAX_STEPS = int(os.environ.get("STRIDEX_FUZZ_STEPS", "8"))
DEV = os.environ.get("STRIDEX_TEST_DEVICE", "cpu:1")
WHERE = ["host", "device"]


def examples(n: int) -> int:
    return n * SCALE


def place(where: str):
    """The block a program runs in: the host or `DEV` as stridex's default device, so that the inputs and
    every array a program makes from nothing (asarray of a weight, a gradient's seed) live there (the host
    is named: the suite may run with a device as the process's default, STRIDEX_DEFAULT_DEVICE)."""
    return sx.default_device("cpu" if where == "host" else DEV)


def budget(where: str, host: int, device: int):
    """Hypothesis settings for one placement: the device compiles per new shape, so it draws fewer examples."""
    return settings(max_examples=examples(host if where == "host" else device), deadline=None)


def on_place(where: str, *arrays):
    """Every array lives where the program was placed (the fuzzer checks the device, not only the values)."""
    want = "cpu" if where == "host" else DEV
    for a in arrays:
        assert a.device == want, f"an array on {a.device}, expected {want}"


UNARY = {
    "negative": lambda xp, a: -a,
    "sin": lambda xp, a: xp.sin(a),
    "square": lambda xp, a: a * a,
    "abs": lambda xp, a: xp.abs(a),
    "tanh": lambda xp, a: xp.tanh(a),
}
BINARY = {
    "add": lambda xp, a, b: a + b,
    "multiply": lambda xp, a, b: a * b,
    "subtract": lambda xp, a, b: a - b,
    "maximum": lambda xp, a, b: xp.maximum(a, b),
}


def _bound(draw, n):
    """A slice bound: None, in range, negative, or out of range on either side (empty slices included)."""
    return draw(st.one_of(st.none(), st.integers(-n - 3, n + 3)))


def _slices(draw, shape):
    key = []
    for n in shape:
        step = draw(st.sampled_from([None, 1, 2, -1, -2, -3]))
        key.append(slice(_bound(draw, n), _bound(draw, n), step))
    return tuple(key)



def draw_steps(data, probe: list, low: int, high: int, smooth: bool = False) -> list:
    """Between `low` and `high` steps drawn on `probe` (NumPy arrays), each run on it as it is drawn, so that
    the next one sees the views and values the earlier ones made."""
    steps = []
    for _ in range(data.draw(st.integers(low, high))):
        step = draw_step(data.draw, probe, smooth=smooth)
        run_step(np, probe, step)
        steps.append(step)
    return steps


def draw_step(draw, pool, smooth: bool = False):
    """One step (kind, params) valid for the current NumPy pool; mutates nothing. `smooth`: only steps
    that are differentiable everywhere the inputs are likely to land (no abs, maximum or scalar steps)."""
    i = draw(st.integers(0, len(pool) - 1))
    x = pool[i]
    kinds = ["unary", "binary", "slice", "flip", "reshape", "expand", "sum", "write", "inplace", "assign", "iadd"]
    if not smooth:
        kinds.append("scalar")
    if x.ndim >= 2:
        kinds.append("transpose")
    if 1 in x.shape:
        kinds.append("squeeze")
    if x.ndim >= 2:
        kinds.append("diagonal")
    if x.ndim:
        kinds += ["index_write", "mask_write"]
    if x.ndim and x.shape[0]:
        kinds.append("integer_write")
    kind = draw(st.sampled_from(kinds))
    if kind == "scalar":
        return draw_scalar_step(draw, pool)
    if kind == "unary":
        return ("unary", i, draw(st.sampled_from(sorted(set(UNARY) - ({"abs"} if smooth else set())))))
    if kind == "binary":
        same = [j for j, y in enumerate(pool) if y.shape == x.shape or y.shape == ()]
        names = sorted(set(BINARY) - ({"maximum"} if smooth else set()))
        return ("binary", i, draw(st.sampled_from(same)), draw(st.sampled_from(names)))
    if kind == "slice":
        return ("slice", i, _slices(draw, x.shape))
    if kind == "flip":
        return ("flip", i, draw(st.sampled_from([None] + list(range(x.ndim)))) if x.ndim else None)
    if kind == "transpose":
        return ("transpose", i, tuple(draw(st.permutations(range(x.ndim)))))
    if kind == "reshape":
        return ("reshape", i, (-1,))
    if kind == "expand":
        return ("expand", i, draw(st.integers(0, x.ndim)))
    if kind == "squeeze":
        return ("squeeze", i, x.shape.index(1))
    if kind == "sum":
        return ("sum", i, draw(st.sampled_from([None] + list(range(x.ndim)))) if x.ndim else None)
    if kind == "diagonal":  # (a view: writes through it reach the array it is the diagonal of)
        return ("diagonal", i, draw(st.integers(-x.shape[-2], x.shape[-1])))
    if kind == "index_write":  # x[..., idx, :] = v with an integer array (distinct elements, negative ones too)
        axis = draw(st.integers(0, x.ndim - 1))
        n = x.shape[axis]
        picked = draw(st.lists(st.integers(0, n - 1), max_size=n, unique=True)) if n else []
        index = tuple(k - n if draw(st.booleans()) else k for k in picked)
        return ("index_write", i, axis, index, float(draw(st.integers(-3, 3))))
    if kind == "mask_write":  # x[mask] = v, the mask over all of x's axes or its leading ones
        ndim = draw(st.integers(1, x.ndim))
        bits = draw(st.lists(st.booleans(), min_size=int(np.prod(x.shape[:ndim])),
                             max_size=int(np.prod(x.shape[:ndim]))))
        return ("mask_write", i, tuple(bits), x.shape[:ndim], float(draw(st.integers(-3, 3))))
    if kind == "integer_write":  # x[k] = v, k an integer (negative too) on a leading axis
        n = x.shape[0]
        return ("integer_write", i, draw(st.integers(-n, n - 1)), float(draw(st.integers(-3, 3))))
    if kind in ("assign", "iadd"):
        # x[key] = y or x[key] += y, where y is any pool entry that broadcasts to the region: often a view of
        # the same storage, overlapping the region written (x[::-1] = x, v += x[1:], ...).
        key = _slices(draw, x.shape)
        region = x[(*key, ...)].shape
        fits = [j for j, y in enumerate(pool) if _broadcasts(y.shape, region)]
        if fits:
            return (kind, i, key, draw(st.sampled_from(fits)))
        kind = "write"
    value = float(draw(st.integers(-3, 3)))
    return (kind, i, _slices(draw, x.shape), value)


def _broadcasts(shape, to) -> bool:
    try:
        return np.broadcast_shapes(shape, to) == to
    except ValueError:
        return False


# Scalar operands: Python scalars and NumPy scalars, on either side of an operator (the pool is float64,
# so every one of them gives float64 in NumPy 2, in stridex's functions and in its operators).
SCALARS = [2, -1.5, True, np.int64(3), np.float64(0.5), np.float32(2.0), np.int8(-2)]
SCALAR_OPS = {
    "add": lambda a, b: a + b,
    "radd": lambda a, b: b + a,
    "mul": lambda a, b: a * b,
    "rsub": lambda a, b: b - a,
    "iadd": None,  # in place, through the pool entry (a view writes through)
}


def draw_scalar_step(draw, pool):
    i = draw(st.integers(0, len(pool) - 1))
    return ("scalar", i, draw(st.sampled_from(sorted(SCALAR_OPS))), draw(st.integers(0, len(SCALARS) - 1)))


def _fresh(value):
    """NumPy returns scalars from 0-D computations; the reference keeps them 0-D arrays, as stridex does."""
    return np.asarray(value) if isinstance(value, np.generic) else value


def assert_compiled_close(got, want, pool, err_msg: str) -> None:
    """A value XLA computed equals NumPy's to 1e-12 relative, or to 16 ulp of the program's largest term.

    XLA's algebraic simplifier reassociates constants across add/subtract chains ((c1 - x) + c2 becomes
    (c1 + c2) - x: exact in real arithmetic; `jax.jit` does the same), so where the result cancels to near
    zero it may differ from NumPy's step-by-step rounding by an ulp of the terms, not of the result."""
    terms = max([1.0, *(float(np.max(np.abs(v))) for v in pool if np.size(v) and np.all(np.isfinite(v)))])
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12, atol=16 * np.finfo(np.float64).eps * terms,
                               err_msg=err_msg)


def _numpy_diagonal(x, offset):
    """The diagonal of x's last two axes as a writable view (NumPy's own is read-only), the reference for
    `sx.linalg.diagonal`."""
    start = x[..., offset:] if offset >= 0 else x[..., -offset:, :]
    length = max(0, min(start.shape[-2], start.shape[-1]))
    return np.lib.stride_tricks.as_strided(start, (*x.shape[:-2], length),
                                           (*x.strides[:-2], start.strides[-2] + start.strides[-1]))


def run_step(xp, pool, step):
    kind, i = step[0], step[1]
    x = pool[i]
    if kind == "unary":
        pool.append(_fresh(UNARY[step[2]](xp, x)))
    elif kind == "binary":
        pool.append(_fresh(BINARY[step[3]](xp, x, pool[step[2]])))
    elif kind == "slice":
        # NumPy returns a scalar copy for x[()] on a 0-D array; a trailing ... keeps it a view, as in stridex.
        pool.append(x[(*step[2], ...)] if xp is np else x[step[2]])
    elif kind == "flip":
        if xp is np:  # np.flip of a 0-D array returns a scalar copy; a reversed slice is always a view
            key = tuple(slice(None, None, -1) if step[2] in (None, a) else slice(None) for a in range(x.ndim))
            pool.append(x[(*key, ...)])
        else:
            pool.append(xp.flip(x, axis=step[2]))
    elif kind == "transpose":
        pool.append(xp.permute_dims(x, step[2]) if xp is not np else np.transpose(x, step[2]))
    elif kind == "reshape":
        pool.append(xp.reshape(x, step[2]))
    elif kind == "expand":
        pool.append(xp.expand_dims(x, axis=step[2]))
    elif kind == "squeeze":
        pool.append(xp.squeeze(x, axis=step[2]))
    elif kind == "sum":
        pool.append(_fresh(xp.sum(x, axis=step[2])))
    elif kind == "diagonal":
        pool.append(_numpy_diagonal(x, step[2]) if xp is np else xp.linalg.diagonal(x, offset=step[2]))
    elif kind == "index_write":
        _, _, axis, index, value = step
        x[(slice(None),) * axis + (xp.asarray(np.array(index, dtype=np.int64)),)] = value
    elif kind == "mask_write":
        _, _, bits, shape, value = step
        x[xp.asarray(np.array(bits, dtype=bool).reshape(shape))] = value
    elif kind == "integer_write":
        x[step[2]] = step[3]
    elif kind == "write":
        x[step[2]] = step[3]
    elif kind == "assign":
        # NumPy (the reference) reads the whole value before writing when the two overlap; so must stridex
        x[(*step[2], ...) if xp is np else step[2]] = pool[step[3]]
    elif kind == "iadd":
        view = x[(*step[2], ...)] if xp is np else x[step[2]]
        view += pool[step[3]]
    elif kind == "inplace":
        view = x[(*step[2], ...)] if xp is np else x[step[2]]
        view += step[3]
    elif kind == "scalar":
        scalar = SCALARS[step[3]]
        if step[2] == "iadd":
            view = x[...]
            view += scalar
        else:
            out = SCALAR_OPS[step[2]](x, scalar)
            assert xp is np or isinstance(out, sx.Array), f"{step}: {type(out).__name__} escaped stridex"
            pool.append(_fresh(out))


PROGRAM_SHAPES = st.lists(hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=4), min_size=1, max_size=2)


@pytest.mark.parametrize("where", WHERE)
def test_random_programs_agree(where):
    @budget(where, 60, 20)
    @given(data=st.data(), shapes=PROGRAM_SHAPES)
    def check(data, shapes):
        with place(where):
            random_program_agrees(data, shapes, where)

    check()


def random_program_agrees(data, shapes, where):
    rng = np.random.default_rng(len(shapes))
    inputs = [rng.standard_normal(s) for s in shapes]
    pool = [a.copy() for a in inputs]
    steps = draw_steps(data, pool, MIN_STEPS, MAX_STEPS)

    eager_pool = [sx.asarray(a.copy()) for a in inputs]
    for step in steps:
        run_step(sx, eager_pool, step)

    def program(*args):
        local = list(args)
        for step in steps:
            run_step(sx, local, step)
        return local[len(args):]

    on_place(where, *eager_pool)
    for k, (want, got_eager) in enumerate(zip(pool, eager_pool)):
        if where == "host":
            np.testing.assert_allclose(np.asarray(got_eager), want, rtol=1e-12, err_msg=f"eager, pool[{k}], {steps}")
        else:  # eager on a device is compiled by XLA too (on a GPU it may contract a * b + c into an FMA)
            assert_compiled_close(got_eager, want, pool, f"eager on {DEV}, pool[{k}], {steps}")

    # Three calls: the first traces; the second, on fresh arrays, comes from the cache; the third reuses
    # the second's arrays (the last-call memo) when the program left them unwritten.
    jitted = sx.jit(program)
    jit_inputs = None
    for call in range(3):
        unwritten = jit_inputs is not None and all(
            np.array_equal(np.asarray(a), b) for a, b in zip(jit_inputs, inputs))
        if call < 2 or not unwritten:
            jit_inputs = [sx.asarray(a.copy()) for a in inputs]
        jit_pool = jit_inputs + list(jitted(*jit_inputs))
        on_place(where, *jit_pool)
        for k, (want, got_eager, got_jit) in enumerate(zip(pool, eager_pool, jit_pool)):
            assert_compiled_close(got_jit, want, pool, f"jit call {call}, pool[{k}], {steps}")
            assert got_jit.shape == np.shape(want) and got_jit.dtype == got_eager.dtype


@pytest.mark.parametrize("where", WHERE)
def test_closed_over_arrays_sharing_memory_agree(where):
    """Closed-over arrays that share memory with an argument or with each other (an argument that is a view
    of another argument, or of a closed-over array): a write through one is seen through the other under
    jit, as eagerly (NumPy, with the same aliasing, is the reference)."""

    @budget(where, 40, 15)
    @given(data=st.data(), shape=hnp.array_shapes(min_dims=1, max_dims=2, min_side=1, max_side=4))
    def check(data, shape):
        with place(where):
            closed_over_program_agrees(data, shape, where)

    check()


def closed_over_program_agrees(data, shape, where):
    base = np.random.default_rng(len(shape)).standard_normal(shape)
    key = _slices(data.draw, shape)
    passed = data.draw(st.lists(st.booleans(), min_size=2, max_size=2))  # which of (base, view) are arguments
    np_pool = [base.copy()]
    np_pool.append(np_pool[0][(*key, ...)])
    probe_base = base.copy()  # steps are drawn on a copy: the reference below runs them on np_pool
    probe = [probe_base, probe_base[(*key, ...)]]
    steps = draw_steps(data, probe, 1, 6)

    sx_base = sx.asarray(base.copy())
    sx_pool = [sx_base, sx_base[key]]

    def program(*args):
        it = iter(args)
        local = [next(it) if p else sx_pool[k] for k, p in enumerate(passed)]
        for step in steps:
            run_step(sx, local, step)
        return local[2:]

    jitted = sx.jit(program)
    for call in range(2):  # the first call traces, the second comes from the cache
        want = list(np_pool)
        for step in steps:
            run_step(np, want, step)
        got = sx_pool + list(jitted(*[a for a, p in zip(sx_pool, passed) if p]))
        on_place(where, *got)
        for k, (w, g) in enumerate(zip(want, got)):
            assert_compiled_close(g, w, want, f"call {call}, pool[{k}], passed={passed}, {steps}")


def _loss_program(steps, weights, n_inputs, xp):
    def loss(*args):
        local = list(args)
        for step in steps:
            run_step(xp, local, step)
        total = 0.0
        for k, (entry, w) in enumerate(zip(local, weights)):
            total = total + xp.sum(entry * (xp.asarray(w) if xp is sx else w))
        return total

    return loss


def _finite_difference_gradient(loss, inputs, eps=1e-6):
    grads = []
    for i, x in enumerate(inputs):
        g = np.zeros_like(x)
        for idx in np.ndindex(x.shape):
            values = []
            for sign in (1, -1):
                moved = [a.copy() for a in inputs]
                moved[i][idx] += sign * eps
                values.append(float(loss(*moved)))
            g[idx] = (values[0] - values[1]) / (2 * eps)
        grads.append(g)
    return grads


@pytest.mark.parametrize("where", WHERE)
def test_grad_of_programs_that_write_their_inputs(where):
    """grad / jacrev / jacfwd of random view-and-write programs, writes into the differentiated inputs
    included, against central finite differences of the NumPy program on copies of the inputs; the inputs
    are left written as one eager call leaves them."""

    @budget(where, 30, 6)
    @given(data=st.data(), shapes=st.lists(hnp.array_shapes(min_dims=0, max_dims=2, min_side=1, max_side=3),
                                           min_size=1, max_size=2))
    def check(data, shapes):
        with place(where):
            gradient_agrees(data, shapes, where)

    check()


def gradient_agrees(data, shapes, where):
    rng = np.random.default_rng(len(shapes))
    inputs = [rng.standard_normal(s) for s in shapes]
    probe = [a.copy() for a in inputs]
    steps = draw_steps(data, probe, 1, 6, smooth=True)
    weights = [rng.standard_normal(np.shape(a)) for a in probe]
    want = _finite_difference_gradient(_loss_program(steps, weights, len(inputs), np), inputs)
    after = [a.copy() for a in inputs]
    _loss_program(steps, weights, len(inputs), np)(*after)  # what one call leaves in its inputs

    loss = _loss_program(steps, weights, len(inputs), sx)
    argnums = tuple(range(len(inputs)))
    for how in ("grad", "jit(grad)", "jacrev", "jacfwd"):
        args = [sx.asarray(a.copy()) for a in inputs]
        if how == "grad":
            got = sx.grad(loss, argnums=argnums)(*args)
        elif how == "jit(grad)":
            got = sx.jit(sx.grad(loss, argnums=argnums))(*args)
        else:
            transform = sx.jacrev if how == "jacrev" else sx.jacfwd
            got = transform(loss, argnums=argnums)(*args)
        on_place(where, *got, *args)
        for i, (g, w) in enumerate(zip(got, want)):
            np.testing.assert_allclose(np.asarray(g), w, rtol=1e-5, atol=1e-6,
                                       err_msg=f"{how}, argument {i}, {steps}")
        for i, (a, w) in enumerate(zip(args, after)):
            np.testing.assert_allclose(np.asarray(a), w, rtol=1e-12, err_msg=f"{how} left argument {i}, {steps}")


def test_eager_code_in_another_thread_while_jit_traces():
    """The trace is per thread: while one thread is inside a trace, another runs eagerly (Arrays, not
    tracers; `float()` works; writes land now and are not recorded into the other thread's program)."""
    inside, release = threading.Event(), threading.Event()

    def slow(x):
        inside.set()
        release.wait(10)
        return x * 2.0

    jitted = sx.jit(slow)
    results = {}
    worker = threading.Thread(target=lambda: results.setdefault("jit", jitted(sx.asarray([1.0, 2.0]))))
    worker.start()
    assert inside.wait(10)
    w = sx.asarray([1.0, 2.0, 3.0])
    y = w + 1.0
    assert type(y) is sx.Array and float(sx.sum(y)) == 9.0
    w[0] = 5.0
    assert float(w[0]) == 5.0
    release.set()
    worker.join(10)
    assert np.array_equal(np.asarray(results["jit"]), [2.0, 4.0])
    w[0] = 1.0
    assert np.array_equal(np.asarray(jitted(sx.asarray([3.0]))), [6.0])
    assert float(w[0]) == 1.0  # the eager write was not replayed by the program


def test_threads_calling_jitted_functions_agree_with_eager():
    """8 threads call jitted functions (first calls race, then cached calls) with eager work between,
    under a very short switch interval; every result equals the eager run of the same function."""

    def f(x, y):
        v = x[::-1]
        v[0] = v[0] + y[0]
        return sx.sum(x * y) + sx.mean(sx.tanh(x)[1:]), x[1:] * 2.0

    def g(x):
        return sx.cumulative_sum(x * x)[::2]

    jf, jg = sx.jit(f), sx.jit(g)

    def work(seed):
        rng = np.random.default_rng(seed)
        for n in (4, 5, 4, 3, 5, 2048, 4):
            a, b = rng.standard_normal(n), rng.standard_normal(n)
            eager_x, jit_x = sx.asarray(a.copy()), sx.asarray(a.copy())
            want = f(eager_x, sx.asarray(b))
            got = jf(jit_x, sx.asarray(b))
            for w_, g_ in zip(want, got):
                np.testing.assert_allclose(np.asarray(g_), np.asarray(w_), rtol=1e-12)
            np.testing.assert_allclose(np.asarray(jit_x), np.asarray(eager_x), rtol=1e-12)
            eager = float(sx.sum(sx.asarray(a) ** 2))  # eager work between the calls
            np.testing.assert_allclose(eager, float(np.sum(a ** 2)), rtol=1e-12)
            np.testing.assert_allclose(np.asarray(jg(sx.asarray(a))), np.asarray(g(sx.asarray(a))), rtol=1e-12)

    failures = run_in_threads(work, list(range(8)))
    assert not failures, failures


# --- loops and branches whose bodies write into closed-over arrays and their views -------------------------


def _python_fori(lower, upper, body, carry):
    for i in range(lower, upper):
        carry = body(i, carry)
    return carry


def _python_cond(pred, true_fun, false_fun):
    return true_fun() if pred else false_fun()


def _staged(kind):
    """How the loop body's writing steps run: called directly (None), or as the function of a `checkpoint`,
    `custom_jvp` or `custom_vjp` (one more sub-program, traced by the same tracer as the loop body)."""
    if kind is None:
        return lambda f: f
    if kind == "checkpoint":
        return sx.checkpoint

    def wrap(f):
        g = (sx.custom_jvp if kind == "custom_jvp" else sx.custom_vjp)(f)
        if kind == "custom_jvp":  # (no arguments: the rules are never asked for a derivative)
            g.defjvp(lambda primals, tangents: (f(), sx.zeros(())))
        else:
            g.defvjp(lambda: (f(), None), lambda residuals, ct: ())
        return g

    return wrap


def _loop_program(pre, body, n_iter, xp, *, fori, cond, weights=None, staged=None):
    """`pre` steps, then a loop of `n_iter` iterations whose body runs `body` on a fresh list over the pool
    (the pool's arrays are closed over: writes through them, or through views taken in the body, land in
    the arrays outside), inside a `cond` on the carry on odd draws (and inside `staged`, a `_staged` kind);
    returns the pool's new entries and the carry (or, with `weights`, a scalar loss of them)."""

    def program(*args):
        pool = list(args)
        for step in pre:
            run_step(xp, pool, step)

        def run_body():
            local = list(pool)
            for step in body:
                run_step(xp, local, step)
            return xp.asarray(xp.sum(local[-1]))

        staged_body = _staged(staged)(run_body)

        def iteration(i, c):
            if cond:
                s = cond(c > 0.0, staged_body, lambda: c * 0.25)
            else:
                s = staged_body()
            return c * 0.5 + s * 0.125

        c = fori(0, n_iter, iteration, xp.asarray(0.75))
        out = pool[len(args):]
        if weights is None:
            return [*out, c]
        total = c
        for entry, w in zip(list(args) + out, weights):
            total = total + xp.sum(entry * (xp.asarray(w) if xp is sx else w))
        return total

    return program


def _draw_loop(data, inputs, smooth=False):
    probe = [a.copy() for a in inputs]
    pre = draw_steps(data, probe, 0, 4, smooth=smooth)
    body_probe = list(probe)
    body = draw_steps(data, body_probe, 1, 5, smooth=smooth)
    return pre, body, probe


@settings(max_examples=examples(25), deadline=None)
@given(data=st.data(), shapes=st.lists(hnp.array_shapes(min_dims=0, max_dims=2, min_side=1, max_side=4),
                                       min_size=1, max_size=2))
def test_random_loops_writing_closed_over_arrays_agree(data, shapes):
    """A fori_loop (and a cond inside it, and a checkpoint, custom_jvp or custom_vjp function inside that) whose
    body writes into the arrays it closes over and their views: eager stridex, jit and jit on a JAX device
    (cpu:1) agree with the same Python loop in NumPy, every pool entry (views included)."""
    rng = np.random.default_rng(len(shapes))
    inputs = [rng.standard_normal(s) for s in shapes]
    pre, body, _ = _draw_loop(data, inputs)
    n_iter = data.draw(st.integers(0, 3))
    with_cond = data.draw(st.booleans())
    staged = data.draw(st.sampled_from([None, "checkpoint", "custom_jvp", "custom_vjp"]))
    np_args = [a.copy() for a in inputs]
    want = np_args + _loop_program(pre, body, n_iter, np, fori=_python_fori,
                                   cond=_python_cond if with_cond else None)(*np_args)
    program = _loop_program(pre, body, n_iter, sx, fori=sx.fori_loop,
                            cond=(lambda p, t, f: sx.cond(p, t, f)) if with_cond else None, staged=staged)
    for how in ("eager", "jit", "jit on cpu:1"):
        device = "cpu:1" if how.endswith("cpu:1") else None
        args = [sx.asarray(a.copy(), device=device) for a in inputs]
        got = args + list((program if how == "eager" else sx.jit(program))(*args))
        for k, (g, w) in enumerate(zip(got, want)):
            assert_compiled_close(g, w, want, f"{how}, pool[{k}], cond={with_cond}, {staged=}, pre={pre}, "
                                  f"body={body}")
            assert np.shape(g) == np.shape(w)
    # vmap over two examples (the second's inputs negated, so a cond's predicate differs between them):
    # each member's pool is what the NumPy loop leaves for its inputs.
    second = [np.array(-a) for a in inputs]
    np_second = [a.copy() for a in second]
    want_second = np_second + _loop_program(pre, body, n_iter, np, fori=_python_fori,
                                            cond=_python_cond if with_cond else None)(*np_second)
    batched = [sx.asarray(np.stack([a, b])) for a, b in zip(inputs, second)]
    got = batched + list(sx.vmap(program)(*batched))
    for k, (g, w0, w1) in enumerate(zip(got, want, want_second)):
        for member, w in enumerate((w0, w1)):
            assert_compiled_close(np.asarray(g)[member], w, want, f"vmap member {member}, pool[{k}], cond={with_cond}, "
                                  f"{staged=}, pre={pre}, body={body}")


@settings(max_examples=examples(12), deadline=None)
@given(data=st.data(), shapes=st.lists(hnp.array_shapes(min_dims=0, max_dims=2, min_side=1, max_side=3),
                                       min_size=1, max_size=2))
def test_grad_of_random_writing_loops_agrees_with_the_python_loop(data, shapes):
    """grad and jit(grad) through a fori_loop/cond (and a checkpoint) whose body writes into the (differentiated)
    arrays it closes over, against grad of the same Python loop (the other tests check that one against finite
    differences)."""
    rng = np.random.default_rng(len(shapes))
    inputs = [rng.standard_normal(s) for s in shapes]
    pre, body, probe = _draw_loop(data, inputs, smooth=True)
    n_iter = data.draw(st.integers(1, 3))
    with_cond = data.draw(st.booleans())
    staged = data.draw(st.sampled_from([None, "checkpoint"]))  # (custom rules do not differentiate closures)
    weights = [rng.standard_normal(np.shape(a)) for a in probe]
    argnums = tuple(range(len(inputs)))
    want = sx.grad(_loop_program(pre, body, n_iter, sx, fori=_python_fori, cond=_python_cond if with_cond else None,
                                 weights=weights), argnums=argnums)(*[sx.asarray(a.copy()) for a in inputs])
    loss = _loop_program(pre, body, n_iter, sx, fori=sx.fori_loop,
                         cond=(lambda p, t, f: sx.cond(p, t, f)) if with_cond else None, weights=weights,
                         staged=staged)
    for how in ("grad", "jit(grad)"):
        transform = sx.grad(loss, argnums=argnums)
        got = (transform if how == "grad" else sx.jit(transform))(*[sx.asarray(a.copy()) for a in inputs])
        for i, (g, w) in enumerate(zip(got, want)):
            np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-9, atol=1e-12,
                                       err_msg=f"{how}, argument {i}, cond={with_cond}, {staged=}, pre={pre}, "
                                       f"body={body}")


def _diagonal_writing_programs():
    """Four sub-programs (a fori_loop body, a while_loop body, a cond branch, a checkpointed function), each
    writing through a diagonal view of an array it made: the write-back's index arrays are constants of the
    sub-program (`ops.constant(like=...)`)."""

    def fori(x):
        def body(i, c):
            c = c * 1.0
            d = sx.linalg.diagonal(c)
            d[...] = d * 3.0
            return c
        return sx.sum(sx.fori_loop(0, 2, body, x) ** 2)

    def while_(x):
        def body(c):
            k, m = c
            m = m * 1.0
            sx.linalg.diagonal(m)[...] = 0.5
            return k + 1, m
        return sx.sum(sx.while_loop(lambda c: c[0] < 2, body, (0, x))[1] * x)

    def cond(x):
        def branch():
            y = x * 1.0
            sx.linalg.diagonal(y)[...] = 2.0
            return sx.sum(y * x)
        return sx.cond(sx.sum(x) > 0, branch, lambda: sx.sum(x))

    def checkpointed(x):
        def f(y):
            y = y * 1.0
            sx.linalg.diagonal(y)[...] = 2.0
            return sx.sum(y * y)
        return sx.checkpoint(f)(x)

    return {"fori_loop": fori, "while_loop": while_, "cond": cond, "checkpoint": checkpointed}


@pytest.mark.parametrize(("name", "transform"),  # (reverse-mode through while_loop raises on every device)
                         [(n, t) for n in ("fori_loop", "while_loop", "cond", "checkpoint")
                          for t in ("eager", "jit", "grad", "vmap", "jit(grad)")
                          if n != "while_loop" or t in ("eager", "jit", "vmap")])
def test_transformed_sub_programs_writing_through_a_diagonal_view_on_a_device(name, transform):
    """Found by the tests above with a JAX device as the default device: under grad or vmap of device arrays, a
    sub-program's constants (the index arrays of a write through a diagonal view) were made on the host (its
    tracers said the host, as under jit), so the loop, branch or scatter that ran it on the device refused
    its mixed-device arguments. A sub-program's tracers now say the device of its operands and closure."""
    program = _diagonal_writing_programs()[name]
    fn = {"eager": program, "jit": sx.jit(program), "grad": sx.grad(program), "vmap": sx.vmap(program),
          "jit(grad)": sx.jit(sx.grad(program))}[transform]
    x = np.arange(4.0).reshape(2, 2) + 1.0
    if transform == "vmap":
        x = np.stack([x, -2.0 * x])
    want = np.asarray(fn(sx.asarray(x.copy())))
    got = fn(sx.asarray(x.copy(), device="cpu:1"))
    assert got.device == sx.asarray(0.0, device="cpu:1").device
    np.testing.assert_allclose(np.asarray(got.to_device("cpu")), want, rtol=1e-12)


@pytest.mark.parametrize("device", [None, "cpu:1"])
def test_jit_grad_of_a_checkpointed_loop_body_writing_through_a_mask(device):
    """Found by the test above: jit(grad) of a fori_loop whose checkpointed body writes into the differentiated
    argument through a mask made in the body. In the checkpoint's backward (a sub-program) the mask is traced:
    the scatter's value cotangent gathers through it as a mask (computing its nonzero indices there raised
    DataDependentShapeError)."""
    pre = [("unary", 0, "negative")] * 4
    body = [("unary", 0, "negative"), ("unary", 0, "negative"), ("mask_write", 0, (False, True), (2,), 0.0)]
    x = np.random.default_rng(1).standard_normal(2)
    probe = [x.copy()]
    for step in pre:
        run_step(np, probe, step)
    weights = [np.random.default_rng(2).standard_normal(np.shape(a)) for a in probe]
    want = sx.grad(_loop_program(pre, body, 2, sx, fori=_python_fori, cond=None, weights=weights))(sx.asarray(x))
    loss = _loop_program(pre, body, 2, sx, fori=sx.fori_loop, cond=None, weights=weights, staged="checkpoint")
    for transform in (sx.grad(loss), sx.jit(sx.grad(loss))):
        got = transform(sx.asarray(x.copy(), device=device))
        np.testing.assert_allclose(np.asarray(got.to_device("cpu")), np.asarray(want), rtol=1e-12)
