"""Differential fuzzing of eager fusion: random elementwise programs run with fusion on and off must give the
same bits, the same errors and the same floating-point warnings.

A program is a list of steps over a pool of arrays (inputs of random dtypes, shapes, strides and special
values). A step applies an elementwise operation (unary, binary with arrays or Python scalars, `where`,
`astype`, `clip`), takes a view, writes into an array (an input or a pending result, or a view of either), or
forces a value (`float`, `np.asarray`, a reduction). The same program runs with fusion off (the op-by-op eager
path, the reference) and on, with the thresholds set on both sides of each size limit: the deferral
threshold, the block size (down to a few elements, so that passes have many blocks and ragged last blocks),
the threaded-pass threshold and the 2048-element aligned-output threshold. Every pool entry is compared bit
for bit at the end, and so are the values forced in between.

In the failure mode (`test_a_failure_at_a_random_step_leaves_every_array_right_or_pending`, at the end) a
failure is injected into the passes of one random step of each program (a MemoryError at an allocation, or a
KeyboardInterrupt at a line of eager fusion's modules), and every array must be right or still pending there.

Scaled by STRIDEX_FUZZ_SCALE like tests/transforms/test_fuzz_programs.py; STRIDEX_FUZZ_FUSION_STEPS sets the
programs' length (24 steps on the host and 16 on a device by default; the device length is two thirds of it) and
STRIDEX_FUZZ_SEED offsets the seeds, for a longer run over programs CI has not drawn:
`STRIDEX_FUZZ_SCALE=20 STRIDEX_FUZZ_FUSION_STEPS=60 STRIDEX_FUZZ_SEED=5000 python -m pytest
tests/lax/test_fusion_fuzz.py`. Such runs fail a few device programs on differences XLA makes as it does under
jit (the fused values are `sx.jit`'s, bit for bit), beyond the tolerance the device comparison allows for
rounding: at seed offset 5000, seeds 66 (`log(exp(y))` simplified to `y`) and 56 (a subnormal read across an
executable's boundary); at 7000, seed 9 (a float16 chain of divisions rearranged by XLA's algebraic simplifier).
At 13000 (scale 40, 480 device programs) 6 fail: in 5 (seeds 40, 129, 140, 174, 237) the fused values of the
shortest failing prefix are `sx.jit`'s bit for bit, and in seed 187 a float32 rounding difference reaches a
float64 value. (Before passes were compiled to round half-precision values at every record, 5 more failed:
seeds 82 and 137, where a `remainder` magnified the difference, and 146, 150 and 152.) At 17000 (scale 20)
every host program passes and 3 of 240 device programs fail, sx.jit's bit for bit: seeds 33 and 113 (the
shortest failing prefix under `sx.jit`) and 38, reduced to `reciprocal(divide(astype(b, complex128), a))`,
which XLA's algebraic simplifier rewrites (the same bits as op by op with `--xla_disable_hlo_passes=algsimp`).
At 25000 (scale 40) every host program passes and 3 of 480 device programs fail: seeds 226 and 87 are sx.jit's
bit for bit; seed 200 (records3) reduces to `cos(x * x)` on complex64, where the fused values differ from op by
op (and from sx.jit of the reduced program, which equals op by op there) in the last bits of the product, which
`cos` with a large imaginary part magnifies beyond the complex64 tolerance (the fused values are the nearer
to NumPy's): XLA compiling one program's complex multiply otherwise, not reduced further. At 31000 (scale 8, 40
steps) every host program passes, the failure mode included, and device seed 7 (records3) fails on NaN positions:
reduced to `reciprocal(x) / real(clip(y, min=-1, max=2))`, complex128 over a bfloat16 zero, where op by op gives
-inf+infj and the fused pass -inf+nanj, sx.jit's bit for bit (XLA's complex division inside one program). At
47000 (scale 8, 40 steps) the same: every host program passes, the failure mode included, and device seed 12
(records512) fails on a bool: `logical_and(where(x > 0, s, x), x)` with x a bfloat16 subnormal, nonzero op by op
and zero in the fused pass, sx.jit's bit for bit (XLA's CPU flushes subnormals inside one program).
docs/fusion.md, The value rule; tests/lax/test_fusion.py, `test_on_a_device_fused_values_beyond_rounding_are_jits`.
"""

from __future__ import annotations

import contextlib
import os
import warnings

import numpy as np
import pytest

import stridex as sx
from stridex._core.dtypes import FROM_NUMPY
from stridex._exec import fusion
from stridex._exec.fusion import limits as fusion_limits

SCALE = int(os.environ.get("STRIDEX_FUZZ_SCALE", "1"))
STEPS = int(os.environ.get("STRIDEX_FUZZ_FUSION_STEPS", "24"))
SEED = int(os.environ.get("STRIDEX_FUZZ_SEED", "0"))
BF16 = sx.bfloat16.np

DTYPES = [np.float64, np.float32, np.float16, BF16, np.int64, np.int32, np.int8, np.uint8, np.bool_,
          np.complex128, np.complex64]
FLOATS = {np.dtype(d) for d in (np.float64, np.float32, np.float16, BF16)}

UNARY = ["sin", "cos", "exp", "log", "sqrt", "tanh", "abs", "negative", "square", "floor", "ceil", "round",
         "trunc", "sign", "expm1", "log1p", "isnan", "isfinite", "reciprocal", "logical_not",
         "bitwise_invert", "atan", "asinh", "real", "imag", "conj", "positive", "cosh", "tan"]
BINARY = ["add", "subtract", "multiply", "divide", "floor_divide", "remainder", "pow", "maximum", "minimum",
          "equal", "not_equal", "less", "greater_equal", "logical_and", "logical_or", "bitwise_and",
          "bitwise_xor", "hypot", "atan2", "logaddexp", "nextafter"]
# (signbit and copysign are left out: they read the sign of a NaN, which NumPy's loops choose by memory layout;
# see `_bits`. tests/lax/test_fusion.py checks them on NaN-free values.)
SCALARS = [0, 1, 2, -1, 3, 0.5, -0.0, 1e300, float("nan"), float("inf"), 2.5, True, 1j, 7]


def special_values(rng, dtype, n):
    """n values of `dtype`, random with NaN, infinities, signed zeros, subnormals and extremes mixed in."""
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return rng.random(n) < 0.5
    if dt.kind in "iu":
        info = np.iinfo(dt)
        v = rng.integers(max(info.min, -100), min(info.max, 100), n, endpoint=True).astype(dt)
        picks = rng.random(n)
        v[picks < 0.05] = info.max
        v[(picks >= 0.05) & (picks < 0.1)] = info.min
        v[(picks >= 0.1) & (picks < 0.15)] = 0
        return v
    base = np.float32 if dt == BF16 else (dt.type if dt.kind == "f" else np.float64)
    tiny = float(np.finfo(np.float16 if dt == np.float16 else (np.float32 if dt == BF16 else base)).smallest_subnormal)
    if dt == BF16:
        tiny = 9.2e-41
    specials = [np.nan, np.inf, -np.inf, -0.0, 0.0, tiny, -tiny, 1e30, -1e30, 65504.0, 1.0, -1.0]
    v = rng.standard_normal(n) * rng.choice([1.0, 10.0, 1e3], n)
    picks = rng.random(n) < 0.2
    v[picks] = rng.choice(specials, picks.sum())
    if dt.kind == "c":
        w = rng.standard_normal(n)
        w[rng.random(n) < 0.1] = np.nan
        return (v + 1j * w).astype(dt)
    with np.errstate(all="ignore"):
        return v.astype(dt)


def make_input(rng, dtype, shape):
    """A stridex array of `shape`, sometimes a strided, flipped or transposed view of a larger one."""
    kind = max(0, int(rng.integers(-2, 4)))  # (half of them contiguous: strided windows are read at once)
    if kind == 0 or len(shape) == 0:
        values = special_values(rng, dtype, int(np.prod(shape))).reshape(shape)
        return sx.asarray(values, copy=True)
    if kind == 1:  # every other element
        big = list(shape)
        big[-1] *= 2
        values = special_values(rng, dtype, int(np.prod(big))).reshape(big)
        return sx.asarray(values, copy=True)[..., ::2]
    if kind == 2:  # flipped
        values = special_values(rng, dtype, int(np.prod(shape))).reshape(shape)
        return sx.flip(sx.asarray(values, copy=True), axis=-1)
    values = special_values(rng, dtype, int(np.prod(shape))).reshape(shape[::-1])
    return sx.permute_dims(sx.asarray(values, copy=True), tuple(range(len(shape)))[::-1])


def draw_program(seed: int, n_steps: int):
    """The program's steps, drawn once (so that both runs make the same calls)."""
    rng = np.random.default_rng(seed)
    n = int(rng.choice([5, 40, 300, 2047, 2048, 2049, 5000]))
    rows = int(rng.choice([1, 3, 7]))
    shape = (rows, n) if rows > 1 else (n,)
    input_specs = []
    for _ in range(int(rng.integers(2, 5))):
        dtype = DTYPES[int(rng.integers(0, len(DTYPES)))]
        s = shape
        r = rng.random()
        if r < 0.15 and len(shape) == 2:
            s = (1, shape[1])  # broadcast along rows
        elif r < 0.25 and len(shape) == 2:
            s = (shape[0], 1)
        elif r < 0.3:
            s = ()
        input_specs.append((dtype, s, int(rng.integers(0, 2**31))))
    steps = []
    for _ in range(n_steps):
        r = rng.random()
        pick = lambda: int(rng.integers(0, 10**6))  # noqa: E731  (an index into the pool, taken modulo its size)
        if r < 0.3:
            steps.append(("unary", UNARY[int(rng.integers(0, len(UNARY)))], pick()))
        elif r < 0.6:
            other = SCALARS[int(rng.integers(0, len(SCALARS)))] if rng.random() < 0.3 else None
            steps.append(("binary", BINARY[int(rng.integers(0, len(BINARY)))], pick(), pick(), other,
                          bool(rng.random() < 0.5)))
        elif r < 0.65:
            steps.append(("where", pick(), pick(), pick()))
        elif r < 0.7:
            steps.append(("astype", pick(), DTYPES[int(rng.integers(0, len(DTYPES)))]))
        elif r < 0.73:
            steps.append(("clip", pick(), pick()))
        elif r < 0.8:
            steps.append(("view", pick(), int(rng.integers(0, 3))))
        elif r < 0.88:
            steps.append(("write", pick(), pick(), int(rng.integers(0, 3))))
        elif r < 0.93:
            steps.append(("force", pick(), int(rng.integers(0, 3))))
        else:
            steps.append(("drop", pick()))
    return input_specs, steps


DROPPED = "dropped pending, "  # (the prefix of the outcome of a step that dropped a pending array unread)


def run_program(input_specs, steps, snapshot_at: int | None = None):
    """Run the program; returns (pool values, forced values, outcomes of each step, warnings, whether a
    pending array was dropped unread, and the pool's values before and after step `snapshot_at`)."""
    pool = []
    for dtype, shape, seed in input_specs:
        pool.append(make_input(np.random.default_rng(seed), dtype, shape))
    forced, outcomes, snapshots = [], [], []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for i, step in enumerate(steps):
            if i == snapshot_at:
                snapshots.append([_bits(x) for x in pool])
            try:
                outcomes.append(_step(pool, forced, step))
            except Exception as e:  # noqa: BLE001  (both runs must raise the same error at the same step)
                outcomes.append(type(e).__name__)
            if i == snapshot_at:
                snapshots.append([_bits(x) for x in pool])
        final = [_bits(x) for x in pool]
    messages = sorted({f"{w.category.__name__}: {w.message}" for w in caught})
    return final, forced, outcomes, messages, any(o.startswith(DROPPED) for o in outcomes), snapshots


def _bits(x):
    """x's shape, dtype and bytes, with every NaN made one NaN: the sign and payload of a NaN are what NumPy's
    loops choose by memory layout (`a + b` of two NaNs, or of an invalid operation, can give either sign when
    the same values are laid out otherwise, and NumPy itself does so), so fusion keeps NaN-ness, not them."""
    w = np.array(x, copy=True)
    if w.dtype == BF16:
        w = w.astype(np.float32)
    if w.dtype.kind == "c":
        w = np.stack([w.real, w.imag])
    if w.dtype.kind == "f":
        w[np.isnan(w)] = np.nan
    return (w.shape, str(x.dtype), np.ascontiguousarray(w).view(np.uint8).tobytes())


def _how(got, want) -> str:
    """How two `_bits` differ: shape and dtype, or the elements (as the dtype's values) that differ."""
    if got[:2] != want[:2]:
        return f"got shape {got[0]} {got[1]}, want {want[0]} {want[1]}"
    g, w = (np.frombuffer(b[2], np.uint8) for b in (got, want))
    width = g.size // max(1, int(np.prod(got[0], dtype=np.int64)))
    rows = (g.reshape(-1, width) != w.reshape(-1, width)).any(axis=1) if width else np.zeros(0, bool)
    where = np.flatnonzero(rows)
    return f"{where.size} of {rows.size} elements ({got[1]}, shape {got[0]}) differ, first at flat index {where[:5]}"


def _step(pool, forced, step):
    kind = step[0]
    get = lambda k: pool[k % len(pool)]  # noqa: E731
    if kind == "unary":
        pool.append(getattr(sx, step[1])(get(step[2])))
    elif kind == "binary":
        _, name, i, j, scalar, scalar_first = step
        a = get(i)
        b = get(j) if scalar is None else scalar
        pool.append(getattr(sx, name)(b, a) if scalar_first and scalar is not None else getattr(sx, name)(a, b))
    elif kind == "where":
        c = get(step[1])
        pool.append(sx.where(c if c.dtype == sx.bool else c > 0, get(step[2]), get(step[3])))
    elif kind == "astype":
        pool.append(sx.astype(get(step[1]), FROM_NUMPY[np.dtype(step[2])]))
    elif kind == "clip":
        x = get(step[1])
        if x.dtype in (sx.bool,) or x.dtype.kind == "complex floating":
            return "skip"
        pool.append(sx.clip(x, min=-1, max=2))
    elif kind == "view":
        x = get(step[1])
        if x.ndim == 0:
            return "skip"
        pool.append(x[..., ::2] if step[2] == 0 else sx.flip(x, axis=-1) if step[2] == 1 else x[..., 1:])
    elif kind == "write":
        target, value = get(step[1]), get(step[2])
        if target.ndim == 0:
            return "skip"
        key = (Ellipsis, slice(0, None, 3)) if step[3] == 0 else (Ellipsis, 0) if step[3] == 1 else Ellipsis
        cast = None
        try:
            if value.dtype != target.dtype:
                cast = sx.astype(value, target.dtype)
            v = cast if cast is not None else value
            v = sx.broadcast_to(v[..., :1] if v.ndim else v, target[key].shape)
        except MemoryError:  # (not an error of the step's: an allocation failing, which the failure mode injects)
            raise
        except Exception:  # noqa: BLE001
            # (a pending cast dropped here unread: a dropped pending array, as a "drop" step's)
            return DROPPED + "skip" if cast is not None and sx.fusion.pending(cast) is not None else "skip"
        if step[3] == 2:
            target += v if target.dtype not in (sx.bool,) else False
        else:
            target[key] = v
    elif kind == "force":
        x = get(step[1])
        if step[2] in (0, 1):
            forced.append(_bits(x))
        else:
            forced.append(_bits(sx.sum(x)) if x.dtype != sx.bool else _bits(sx.any(x)))
    elif kind == "drop" and len(pool) > 3:
        # (asked before the array leaves the pool: `pending` is eager fusion's code, where the failure mode may fire,
        # and a step that fails must leave the pool as it was)
        k = step[1] % len(pool)
        was_pending = sx.fusion.pending(pool[k]) is not None
        del pool[k]
        if was_pending:
            return DROPPED + "ok"
    return "ok"


@contextlib.contextmanager
def thresholds(defer: int, block: int, threaded: int, records: int = 512, leaves: int = 32):
    names = ("DEFER_MIN_ELEMENTS", "BLOCK_ELEMENTS", "THREADED_MIN_ELEMENTS", "MAX_RECORDS", "MAX_LEAVES")
    saved = [getattr(fusion_limits, name) for name in names]
    for name, value in zip(names, (defer, block, threaded, records, leaves)):
        setattr(fusion_limits, name, value)
    try:
        yield
    finally:
        for name, value in zip(names, saved):
            setattr(fusion_limits, name, value)


# (deferral threshold, block size, threaded threshold[, most records, most leaves of a group]): both sides of
# each limit (groups of at most 3 records reading at most 2 inputs: passes forced by the bounds, groups merged
# or run when an operation joins two)
SETTINGS = [(1, 7, 1 << 40), (2048, 2048, 1 << 40), (1, 1000, 1), (4096, 16384, 1 << 40), (300, 64, 2049),
            (1, 64, 1 << 40, 3, 2)]
SETTING_IDS = [f"defer{s[0]}-block{s[1]}-threads{s[2]}" + (f"-records{s[3]}-leaves{s[4]}" if len(s) > 3 else "")
               for s in SETTINGS]
# (most records, most leaves) of a group on a device
DEVICE_LIMITS = [(512, 32), (3, 2)]


DEV = os.environ.get("STRIDEX_TEST_DEVICE", "cpu:1")


@pytest.mark.parametrize("limits", DEVICE_LIMITS, ids=[f"records{r}-leaves{n}" for r, n in DEVICE_LIMITS])
@pytest.mark.parametrize("seed", range(6 * SCALE))
def test_fused_equals_op_by_op_on_a_device(seed, limits):
    """On a JAX device every elementwise operation defers; a pass is one executable of the records' lowerings.
    It must give the op-by-op device values."""
    pytest.importorskip("jax")
    input_specs, steps = draw_program((seed + SEED) * 7919 + 101 + DEVICE_LIMITS.index(limits), STEPS * 2 // 3)
    with sx.default_device(DEV):
        with sx.fusion(False):
            expected = run_program(input_specs, steps)
        with thresholds(fusion_limits.DEFER_MIN_ELEMENTS, fusion_limits.BLOCK_ELEMENTS,
                        fusion_limits.THREADED_MIN_ELEMENTS, *limits), \
                sx.fusion(True):
            got = run_program(input_specs, steps)
    assert [o.removeprefix(DROPPED) for o in got[2]] == expected[2], \
        "outcomes differ (an error raised on one side only)"
    assert len(got[1]) == len(expected[1])
    for k, (g, e) in enumerate(zip(got[1] + got[0], expected[1] + expected[0])):
        _close(g, e, f"value {k}")


# On a device a pass is one XLA program, which XLA optimises across operations as it does a jitted function's
# (its exp and tanh, for one, differ in the last bits from the op-by-op executables'): the values are compared
# as jit's are with eager's, floating values to a tolerance of their dtype, the others exactly.
_RTOL = {"float64": 1e-9, "complex128": 1e-9, "float32": 1e-4, "complex64": 1e-4, "float16": 2e-2, "bfloat16": 5e-2}


def _close(got, want, what):
    assert got[0] == want[0] and got[1] == want[1], what
    rtol = _RTOL.get(got[1])
    if rtol is None:
        assert got == want, what
        return
    dtype = {"float16": np.float16, "bfloat16": np.float32, "float32": np.float32, "complex64": np.float32}.get(
        got[1], np.float64)  # (as `_bits` lays them out)
    g, w = np.frombuffer(got[2], dtype), np.frombuffer(want[2], dtype)
    np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol * 1e-3, equal_nan=True, err_msg=what)


@pytest.mark.parametrize("setting", SETTINGS, ids=SETTING_IDS)
@pytest.mark.parametrize("seed", range(8 * SCALE))
def test_fused_equals_op_by_op(seed, setting):
    input_specs, steps = draw_program((seed + SEED) * 7919 + SETTINGS.index(setting), STEPS)
    with sx.fusion(False):
        expected = run_program(input_specs, steps)
    with thresholds(*setting), sx.fusion(True):
        got = run_program(input_specs, steps)
    assert [o.removeprefix(DROPPED) for o in got[2]] == expected[2], \
        "outcomes differ (an error raised on one side only)"
    if got[4]:
        # A record whose array is dropped before its pass, read by no other pending record, is never computed:
        # the warning op by op gave for it does not come (docs/fusion.md, Limits); none comes that op by op lacks.
        assert set(got[3]) <= set(expected[3]), "floating-point warnings differ"
    else:
        assert got[3] == expected[3], "floating-point warnings differ"
    assert got[1] == expected[1], "forced values differ"
    for k, (g, e) in enumerate(zip(got[0], expected[0])):
        assert g == e, f"pool entry {k} differs"


# --- failure injection: a pass fails at a random step ------------------------------------------------------
# The program runs fused with a failure armed over one random step and then over forcing the whole pool: a
# MemoryError at the n-th allocation of a pass (`storage.allocate`, through which every buffer of a pass comes),
# or a KeyboardInterrupt at the n-th line run in eager fusion's modules (tests/lax/fusion_faults.py). Where it
# fires, every array of the pool must be computed, with the op-by-op values of that point of the program, or still
# pending; forcing them all then gives those values, the failed step runs again, and the rest of the program must end as
# the op-by-op run does. The programs run in a process of their own, with a timeout (a lock left held hangs).


def _same(got, want, what):
    assert got == want, f"{what}: {_how(got, want)}"


def run_failing(input_specs, steps, at: int, fault, snapshots, same=_same):
    """Run the program fused, `fault` armed over step `at` and then over forcing the pool (see above); returns
    what `run_program` returns (the warnings as a set: forcing early moves them) and whether the fault fired.
    `same(got, want, what)` compares a pool entry with its op-by-op value: bit for bit on the host, within
    rounding on a device (where a fused pass is one XLA program, whose values may differ in the last bits from
    op by op's, as `sx.jit`'s do, with or without a failure)."""
    from tests.lax.fusion_faults import INJECTED, fresh_memory

    pool = []
    for dtype, shape, seed in input_specs:
        pool.append(make_input(np.random.default_rng(seed), dtype, shape))
    forced, outcomes = [], []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for i, step in enumerate(steps):
            if i != at:
                try:
                    outcomes.append(_step(pool, forced, step))
                except Exception as e:  # noqa: BLE001
                    outcomes.append(type(e).__name__)
                continue
            fresh_memory()
            outcome, failed_in_step = None, False
            with fault.armed():
                try:
                    outcome = _step(pool, forced, step)
                except INJECTED:
                    if not fault.fired:
                        raise
                    failed_in_step = True
                except Exception as e:  # noqa: BLE001  (the step's own error: op by op raised it too)
                    outcome = type(e).__name__
                if not failed_in_step:
                    try:
                        sx.eval(*pool)
                    except INJECTED:
                        if not fault.fired:
                            raise
            if fault.fired:
                values = snapshots[0] if failed_in_step else snapshots[1]
                assert len(pool) == len(values), "a failed step changed the pool"
                for k, (x, want) in enumerate(zip(pool, values)):
                    # (read through a copy: handing an input's memory out would run the work pending on it)
                    if sx.fusion.pending(x) is None:
                        same(_bits(sx.asarray(x, copy=True)), want, f"pool entry {k} computed wrong after the failure")
                sx.eval(*pool)
                for k, (x, want) in enumerate(zip(pool, values)):
                    same(_bits(sx.asarray(x, copy=True)), want, f"pool entry {k} wrong once forced")
                if failed_in_step:
                    try:
                        outcome = _step(pool, forced, step)
                    except Exception as e:  # noqa: BLE001
                        outcome = type(e).__name__
            outcomes.append(outcome)
        final = [_bits(x) for x in pool]
    messages = {f"{w.category.__name__}: {w.message}" for w in caught}
    return (final, forced, outcomes, messages, True), fault.fired


def failure_programs(kind: str, count: str) -> None:
    """`count` programs per host setting (and on a device, for `line`), each with a failure of `kind`
    ("allocation" or "line") armed at a random step; prints how many fired."""
    from tests.lax.fusion_faults import AllocationFault, LineFault

    fired = runs = 0
    places = [(setting, None) for setting in SETTINGS]
    if kind == "line":
        current = (fusion_limits.DEFER_MIN_ELEMENTS, fusion_limits.BLOCK_ELEMENTS, fusion_limits.THREADED_MIN_ELEMENTS)
        places += [((*current, *limits), DEV) for limits in DEVICE_LIMITS]
    for seed in range(int(count)):
        for setting, dev in places:
            program_seed = (seed + SEED) * 7919 + 53 + places.index((setting, dev))
            input_specs, steps = draw_program(program_seed, STEPS if dev is None else STEPS * 2 // 3)
            rng = np.random.default_rng(program_seed)
            at = int(rng.integers(0, len(steps)))
            fault = AllocationFault(int(rng.integers(0, 3))) if kind == "allocation" else \
                LineFault(int(rng.integers(0, 800)))
            where = f"program {program_seed}, setting {setting}, device {dev}, step {at}: {steps[at]}"
            with sx.default_device(dev) if dev else contextlib.nullcontext():
                with sx.fusion(False):
                    expected = run_program(input_specs, steps, snapshot_at=at)
                with thresholds(*setting), sx.fusion(True):
                    try:
                        got, fault_fired = run_failing(input_specs, steps, at, fault, expected[5],
                                                       _same if dev is None else _close)
                    except AssertionError as e:
                        raise AssertionError(f"{where}: {e}") from e
            runs += 1
            fired += fault_fired
            assert [o.removeprefix(DROPPED) for o in got[2]] == [o.removeprefix(DROPPED) for o in expected[2]], \
                f"{where}: outcomes differ"
            assert got[3] <= set(expected[3]), f"{where}: floating-point warnings differ"
            if dev is None:
                assert got[1] == expected[1], f"{where}: forced values differ"
                assert got[0] == expected[0], f"{where}: final values differ"
            else:
                for k, (g, e) in enumerate(zip(got[1] + got[0], expected[1] + expected[0])):
                    _close(g, e, f"{where}: value {k}")
    assert fired >= runs // 4, f"the failure fired in {fired} of {runs} programs only"
    print(f"{kind}: the failure fired in {fired} of {runs} programs")


@pytest.mark.parametrize("kind", ["allocation", "line"])
def test_a_failure_at_a_random_step_leaves_every_array_right_or_pending(kind):
    from tests.helpers import run_isolated

    if kind == "line":
        pytest.importorskip("jax")
    out = run_isolated("tests.lax.test_fusion_fuzz:failure_programs", kind, str(3 * SCALE),
                       timeout=900 + 300 * SCALE)
    print(out)
