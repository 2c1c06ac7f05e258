"""Differential fuzzing: random programs over the namespace, including views and writes, must give the
same values eagerly, under `jit`, and in NumPy (whose view and write semantics are the reference).

A program is a list of steps over a pool of arrays. Each step is drawn while the program runs on
NumPy, so that its parameters (axes, slices) fit the shapes at hand; the recorded steps are then
replayed on stridex eagerly and inside one jitted function. At the end every array in the pool —
inputs, intermediates and views — must agree, which checks that writes reached every view.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import stridex as sx

pytest.importorskip("jax")

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


def _slices(draw, shape):
    key = []
    for n in shape:
        start = draw(st.integers(0, max(n - 1, 0)))
        step = draw(st.sampled_from([1, 1, 2, -1]))
        key.append(slice(start, None, step) if step > 0 else slice(None, None, -1))
    return tuple(key)


def draw_step(draw, pool):
    """One step (kind, params) valid for the current NumPy pool; mutates nothing."""
    i = draw(st.integers(0, len(pool) - 1))
    x = pool[i]
    kinds = ["unary", "binary", "slice", "flip", "reshape", "expand", "sum", "write", "inplace"]
    if x.ndim >= 2:
        kinds.append("transpose")
    if 1 in x.shape:
        kinds.append("squeeze")
    kind = draw(st.sampled_from(kinds))
    if kind == "unary":
        return ("unary", i, draw(st.sampled_from(sorted(UNARY))))
    if kind == "binary":
        same = [j for j, y in enumerate(pool) if y.shape == x.shape or y.shape == ()]
        return ("binary", i, draw(st.sampled_from(same)), draw(st.sampled_from(sorted(BINARY))))
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
    value = float(draw(st.integers(-3, 3)))
    return (kind, i, _slices(draw, x.shape), value)


def _fresh(value):
    """NumPy returns scalars from 0-D computations; the reference keeps them 0-D arrays, as stridex does."""
    return np.asarray(value) if isinstance(value, np.generic) else value


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
    elif kind == "write":
        x[step[2]] = step[3]
    elif kind == "inplace":
        view = x[(*step[2], ...)] if xp is np else x[step[2]]
        view += step[3]


@settings(max_examples=60, deadline=None)
@given(data=st.data(), shapes=st.lists(hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=4),
                                       min_size=1, max_size=2))
def test_random_programs_agree(data, shapes):
    rng = np.random.default_rng(len(shapes))
    inputs = [rng.standard_normal(s) for s in shapes]
    pool = [a.copy() for a in inputs]
    steps = []
    for _ in range(data.draw(st.integers(1, 8))):
        step = draw_step(data.draw, pool)
        run_step(np, pool, step)
        steps.append(step)

    eager_pool = [sx.asarray(a.copy()) for a in inputs]
    for step in steps:
        run_step(sx, eager_pool, step)

    def program(*args):
        local = list(args)
        for step in steps:
            run_step(sx, local, step)
        return local[len(args):]

    for k, (want, got_eager) in enumerate(zip(pool, eager_pool)):
        np.testing.assert_allclose(np.asarray(got_eager), want, rtol=1e-12, err_msg=f"eager, pool[{k}], {steps}")

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
        for k, (want, got_eager, got_jit) in enumerate(zip(pool, eager_pool, jit_pool)):
            np.testing.assert_allclose(np.asarray(got_jit), want, rtol=1e-12,
                                       err_msg=f"jit call {call}, pool[{k}], {steps}")
            assert got_jit.shape == np.shape(want) and got_jit.dtype == got_eager.dtype
