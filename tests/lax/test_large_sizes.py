"""Every primitive family past XLA's size thresholds: the same answer under `jit` and on a JAX device as eagerly.

XLA's CPU backend changes code path with size (vectorised and threaded loops, and from 4096 elements library
kernels: `reduce_max`/`reduce_min` there skipped NaN, docs/semantics.md), and the conformance suite draws
small arrays, so this sweep runs each family at 4096, 65536 and 100003 elements (and the full sweep also
at 131072) on data that holds NaN of both signs, +-inf, -0.0 and +0.0, ties, and, in a second variant,
subnormals. Each case compares

* `sx.jit(op)` on host arrays with eager `op` on the host, and
* eager `op` on JAX device "cpu:1" (tests/conftest.py; STRIDEX_TEST_DEVICE names another, such as a GPU)
  with eager `op` on the host.

Values are compared exactly where the spec fixes them: NaN where NaN, every other value equal, and the sign of
a zero where the standard specifies it (`signed=False` where it leaves it open, as for max, min, maximum,
minimum and clip: "the order of signed zeros is unspecified and thus implementation-defined"). Floating
maths is compared to a tolerance scaled by the dtype (and, for sums, by the magnitude of the partial sums).

Subnormals: XLA's CPU code runs with denormals-are-zero and flush-to-zero, and the standard allows it ("IEEE
754-2019 requires support for subnormal numbers ... Accordingly, subnormal behavior is left unspecified and,
thus, implementation-defined", Data Types). The subnormal variant therefore compares XLA:CPU's results with
eager run on the inputs with subnormals flushed to zeros of the same sign, both outputs flushed alike. A GPU
does not flush (XLA's default there): its results are compared with eager's own.

The default `python -m pytest` runs a bounded slice (`DEFAULT`: a case or two per family, each at one size and
dtype, about ten seconds); STRIDEX_LARGE_SWEEP=1 runs every case at every size, dtype and data variant
(1364 cases, several minutes).
"""

from __future__ import annotations

import os
import zlib
from collections.abc import Callable
from dataclasses import dataclass

import ml_dtypes
import numpy as np
import pytest

import stridex as sx

# NumPy warns of the invalid operations the data asks for (inf - inf, 0 * inf): they are the point here.
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

FULL = os.environ.get("STRIDEX_LARGE_SWEEP", "") not in ("", "0")
SIZES = (4096, 65536, 100_003) + ((131_072,) if FULL else ())
DEVICE = os.environ.get("STRIDEX_TEST_DEVICE", "cpu:1")  # a GPU's name on a GPU machine (benchmarks/gpu_check.sh)
BF16 = np.dtype(ml_dtypes.bfloat16)
FLOATS = (np.dtype(np.float64), np.dtype(np.float32), np.dtype(np.float16), BF16)


# --- data ------------------------------------------------------------------------------------------------


def is_float(dtype) -> bool:
    return np.dtype(dtype).kind == "f" or np.dtype(dtype) == BF16


def specials(dtype) -> np.ndarray:
    """NaN of both signs, +-inf, signed zeros and a tie, in `dtype`."""
    return np.array([np.nan, -np.nan, np.inf, -np.inf, -0.0, 0.0, 1.5, 1.5, -0.0, np.nan], dtype)


def smallest_subnormal(dtype) -> float:
    return float(ml_dtypes.finfo(dtype).smallest_subnormal)


def special_data(rng, shape, dtype) -> np.ndarray:
    """Normal numbers with ties (a quarter of them on a coarse grid) and, for floats, `specials` planted at
    random places and at both ends."""
    n = int(np.prod(shape))
    if not is_float(dtype):
        return rng.integers(-50, 50, shape).astype(dtype)
    x = rng.standard_normal(n)
    coarse = rng.random(n) < 0.25
    x[coarse] = np.round(x[coarse] * 4) / 4
    x = x.astype(dtype)
    s = specials(dtype)
    x[rng.choice(n, s.size, replace=False)] = s
    x[0], x[-1] = s[rng.integers(s.size)], s[rng.integers(s.size)]
    return x.reshape(shape)


def subnormal_data(rng, shape, dtype) -> np.ndarray:
    """Numbers around the subnormal range (subnormals, the smallest normals, signed zeros) and some ordinary
    ones, so that sums, products and comparisons cross it."""
    n = int(np.prod(shape))
    tiny = smallest_subnormal(dtype)
    normal = float(ml_dtypes.finfo(dtype).smallest_normal)
    pick = rng.integers(0, 5, n)
    x = np.where(pick == 0, rng.integers(-40, 40, n) * tiny,
                 np.where(pick == 1, rng.choice([-1.0, 1.0], n) * normal * rng.uniform(1, 2, n),
                          np.where(pick == 2, rng.choice([-0.0, 0.0], n), rng.standard_normal(n))))
    return x.astype(dtype).reshape(shape)


def flush(a: np.ndarray) -> np.ndarray:
    """`a` with subnormals replaced by zeros of the same sign (what denormals-are-zero reads)."""
    if not is_float(a.dtype):
        return a
    tiny = float(ml_dtypes.finfo(a.dtype).smallest_normal)
    wide = a.astype(np.float64)
    return np.where((wide != 0) & (np.abs(wide) < tiny), np.copysign(0.0, wide), wide).astype(a.dtype)


# --- comparison -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Check:
    exact: bool = True
    signed: bool = True  # compare the sign of zeros (where the standard specifies it)
    rtol: float | None = None  # None: by dtype
    scale: str = "value"  # "value": relative to each value, or absolute below 1; "max": to the largest finite value


EXACT = Check()
UNSIGNED = Check(signed=False)
CLOSE = Check(exact=False, signed=False)
CLOSE_SUMS = Check(exact=False, signed=False, scale="max")


def default_rtol(dtype) -> float:
    return {2: 2e-2, 4: 2e-5, 8: 1e-12}.get(np.dtype(dtype).itemsize, 1e-5)


def assert_matches(got, want, check: Check, what: str) -> None:
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, f"{what}: shape {got.shape}, expected {want.shape}"
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype}, expected {want.dtype}"
    if not is_float(got.dtype) and got.dtype.kind != "c":
        bad = np.flatnonzero(got.ravel() != want.ravel())
        assert bad.size == 0, f"{what}: {bad.size} values differ, first at {bad[:5]}: " \
                              f"{got.ravel()[bad[:3]]} != {want.ravel()[bad[:3]]}"
        return
    g, w = got.astype(np.complex128 if got.dtype.kind == "c" else np.float64), \
        want.astype(np.complex128 if want.dtype.kind == "c" else np.float64)
    gn, wn = np.isnan(g), np.isnan(w)
    bad = np.flatnonzero((gn != wn).ravel())
    assert bad.size == 0, f"{what}: NaN at different places ({gn.sum()} vs {wn.sum()} NaN), first at {bad[:5]}: " \
                          f"{g.ravel()[bad[:3]]} != {w.ravel()[bad[:3]]}"
    g, w = g[~wn], w[~wn]
    if check.exact:
        bad = np.flatnonzero(g != w)
    else:
        rtol = check.rtol or default_rtol(got.dtype)
        finite = np.isfinite(w)
        bound = np.maximum(np.abs(w), 1.0) if check.scale == "value" else np.max(np.abs(w[finite]), initial=0.0)
        with np.errstate(invalid="ignore", over="ignore"):
            bad = np.flatnonzero(np.where(finite, np.abs(g - w) > rtol * bound + rtol * 1e-30, g != w))
    assert bad.size == 0, f"{what}: {bad.size} values differ (NaN left out), first at {bad[:5]}: " \
                          f"{g[bad[:3]]} != {w[bad[:3]]}"
    if check.signed and check.exact and got.dtype.kind != "c":
        zeros = w == 0
        bad = np.flatnonzero(zeros & (np.signbit(g) != np.signbit(w)))
        assert bad.size == 0, f"{what}: {bad.size} zeros of the other sign (NaN left out), first at {bad[:5]}"


# --- the table of cases ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    family: str
    name: str
    make: Callable  # (n, rng, dtype, data) -> tuple of NumPy inputs; data is special_data or subnormal_data
    op: Callable  # (xp, *inputs) -> an array or a tuple of arrays
    check: Check = EXACT
    dtypes: tuple = (np.dtype(np.float64), np.dtype(np.float32))
    subnormals: bool = True  # also run on subnormal_data


CASES: dict[str, Case] = {}


def case(family, name, make, op, check=EXACT, dtypes=None, subnormals=True):
    c = Case(family, name, make, op, check, dtypes or Case.dtypes, subnormals)
    CASES[c.name] = c


def rows_of(n: int, cols: int) -> int:
    return max(1, n // cols)


def vec(n, rng, dtype, data):
    return (data(rng, (n,), dtype),)


def two(n, rng, dtype, data):
    return data(rng, (n,), dtype), data(rng, (n,), dtype)


def mat(cols):
    return lambda n, rng, dtype, data: (data(rng, (rows_of(n, cols), cols), dtype),)


def column(rows):
    return lambda n, rng, dtype, data: (data(rng, (rows, rows_of(n, rows)), dtype),)


ALL_FLOATS = FLOATS
HALF_TOO = FLOATS

# elementwise, unary
case("unary", "abs", vec, lambda xp, x: xp.abs(x))
case("unary", "negative", vec, lambda xp, x: -x)
case("unary", "sign", vec, lambda xp, x: xp.sign(x))
case("unary", "sqrt", vec, lambda xp, x: xp.sqrt(x))
case("unary", "square", vec, lambda xp, x: xp.square(x), CLOSE)
case("unary", "exp", vec, lambda xp, x: xp.exp(x), CLOSE)
case("unary", "log", vec, lambda xp, x: xp.log(x), CLOSE)
case("unary", "tanh", vec, lambda xp, x: xp.tanh(x), CLOSE)
case("unary", "floor", vec, lambda xp, x: xp.floor(x))
case("unary", "round", vec, lambda xp, x: xp.round(x))
case("unary", "trunc", vec, lambda xp, x: xp.trunc(x))
case("unary", "isnan_isinf_isfinite", vec, lambda xp, x: (xp.isnan(x), xp.isinf(x), xp.isfinite(x)))
case("unary", "signbit", vec, lambda xp, x: xp.signbit(x))
case("unary", "astype_float16", vec, lambda xp, x: xp.astype(x, xp.float16))
case("unary", "astype_int32", vec, lambda xp, x: xp.astype(xp.where(xp.isfinite(x), x * 100, 0.0), xp.int32))
case("unary", "astype_bool", vec, lambda xp, x: xp.astype(x, xp.bool))

# elementwise, binary
case("binary", "add", two, lambda xp, x, y: x + y)
case("binary", "subtract", two, lambda xp, x, y: x - y)
case("binary", "multiply", two, lambda xp, x, y: x * y)
case("binary", "divide", two, lambda xp, x, y: x / y)
# Subnormal operands of floor_divide, pow and atan2 are read inconsistently inside XLA's expansions (a sign-bit
# test sees -5e-324 as negative where a comparison reads it as -0.0, and a subnormal intermediate is flushed),
# so their results on subnormals are not those of the flushed inputs; implementation-defined (module docstring).
case("binary", "floor_divide", two, lambda xp, x, y: x // y, CLOSE, subnormals=False)
case("binary", "remainder", two, lambda xp, x, y: x % y, CLOSE)
case("binary", "pow", two, lambda xp, x, y: x ** y, CLOSE, subnormals=False)
case("binary", "atan2", two, lambda xp, x, y: xp.atan2(x, y), CLOSE, subnormals=False)
case("binary", "hypot", two, lambda xp, x, y: xp.hypot(x, y), CLOSE)
case("binary", "logaddexp", two, lambda xp, x, y: xp.logaddexp(x, y), CLOSE)
case("binary", "copysign", two, lambda xp, x, y: xp.copysign(x, y))
case("binary", "nextafter", two, lambda xp, x, y: xp.nextafter(x, y), subnormals=False)
case("binary", "compare", two, lambda xp, x, y: (x == y, x != y, x < y, x <= y, x > y, x >= y))
case("binary", "maximum", two, lambda xp, x, y: xp.maximum(x, y), UNSIGNED, HALF_TOO)
case("binary", "minimum", two, lambda xp, x, y: xp.minimum(x, y), UNSIGNED, HALF_TOO)
case("binary", "maximum_scalar", vec, lambda xp, x: xp.maximum(x, 0.25), UNSIGNED)
# Divisions XLA's algebraic simplifier would turn into multiplications by a reciprocal (jax_bridge.ieee_divide),
# and Python floats meeting half arrays in the operations computed in float32 (half.lower_in_float32). Not on
# subnormal data: XLA reads half subnormals (widened to float32) as they are and flushes float32 ones in some
# steps of a chain and not others (implementation-defined, module docstring).
case("binary", "divide_scalar", vec, lambda xp, x: (x / 3.7, 1.0 / x), dtypes=FLOATS, subnormals=False)
case("binary", "divide_column", mat(64), lambda xp, x: x / x[:, :1], dtypes=FLOATS, subnormals=False)
# (XLA's rewrites of divisions between arrays of one shape remain: close, not exact; docs/semantics.md)
case("binary", "divide_chain", two, lambda xp, x, y: ((x / y) / y, x / xp.sqrt(xp.abs(y)), x / (y / 3.0)), CLOSE,
     subnormals=False)
case("binary", "remainder_scalar", vec, lambda xp, x: (x % 0.3, x // 0.3), CLOSE, FLOATS, subnormals=False)
case("binary", "ints", two, lambda xp, x, y: (x + y, x * y, x // xp.where(y == 0, 1, y), x & y, x < y),
     dtypes=(np.dtype(np.int64), np.dtype(np.int32), np.dtype(np.uint8)), subnormals=False)

# where, clip
case("where_clip", "where", two, lambda xp, x, y: xp.where(x > y, x, y))
case("where_clip", "where_scalar", vec, lambda xp, x: xp.where(xp.isnan(x), -0.0, x))
case("where_clip", "clip", vec, lambda xp, x: xp.clip(x, -0.5, 0.5), UNSIGNED, HALF_TOO)
case("where_clip", "clip_arrays", lambda n, rng, dt, data: (data(rng, (n,), dt), data(rng, (n,), dt) - 1,
                                                            data(rng, (n,), dt) + 1),
     lambda xp, x, lo, hi: xp.clip(x, lo, hi), UNSIGNED)
case("where_clip", "clip_int", vec, lambda xp, x: xp.clip(x, -7, 9), dtypes=(np.dtype(np.int64),), subnormals=False)

# reductions
case("reductions", "max", vec, lambda xp, x: xp.max(x), UNSIGNED, ALL_FLOATS)
case("reductions", "min", vec, lambda xp, x: xp.min(x), UNSIGNED, ALL_FLOATS)
case("reductions", "max_axis0", column(8), lambda xp, x: xp.max(x, axis=0), UNSIGNED, ALL_FLOATS)
case("reductions", "min_axis1_keepdims", mat(64), lambda xp, x: xp.min(x, axis=1, keepdims=True), UNSIGNED,
     ALL_FLOATS)
case("reductions", "max_axis1", column(8), lambda xp, x: xp.max(x, axis=1), UNSIGNED, ALL_FLOATS)
case("reductions", "min_all_2d_keepdims", mat(64), lambda xp, x: xp.min(x, keepdims=True), UNSIGNED, ALL_FLOATS)
case("reductions", "max_min_int", vec, lambda xp, x: (xp.max(x), xp.min(x)),
     dtypes=(np.dtype(np.int64), np.dtype(np.int8)), subnormals=False)
case("reductions", "sum", vec, lambda xp, x: xp.sum(x), CLOSE_SUMS, HALF_TOO)
case("reductions", "sum_axis0", column(8), lambda xp, x: xp.sum(x, axis=0), CLOSE_SUMS)
case("reductions", "prod", vec, lambda xp, x: xp.prod(x), CLOSE)
case("reductions", "mean", vec, lambda xp, x: xp.mean(x), CLOSE_SUMS, HALF_TOO)
case("reductions", "var_std", mat(64), lambda xp, x: (xp.var(x, axis=1), xp.std(x, axis=1, correction=1)),
     CLOSE_SUMS)
case("reductions", "any_all", vec, lambda xp, x: (xp.any(x), xp.all(x), xp.any(x > 5.0), xp.all(x == x)))
case("reductions", "count_nonzero", mat(64), lambda xp, x: xp.count_nonzero(x, axis=0))

# cumulative
case("cumulative", "cumulative_sum", vec, lambda xp, x: xp.cumulative_sum(x), CLOSE_SUMS)
case("cumulative", "cumulative_sum_axis1_initial", column(8),
     lambda xp, x: xp.cumulative_sum(x, axis=1, include_initial=True), CLOSE_SUMS)
case("cumulative", "cumulative_prod", vec, lambda xp, x: xp.cumulative_prod(x * 0.5 + 1.0), CLOSE)
case("cumulative", "cumulative_sum_int", vec, lambda xp, x: xp.cumulative_sum(x),
     dtypes=(np.dtype(np.int64), np.dtype(np.int32)), subnormals=False)

# searching
case("searching", "argmax_argmin", vec, lambda xp, x: (xp.argmax(x), xp.argmin(x)))
case("searching", "argmax_axis0", column(8), lambda xp, x: xp.argmax(x, axis=0))
case("searching", "argmin_axis1_keepdims", mat(64), lambda xp, x: xp.argmin(x, axis=1, keepdims=True))
case("searching", "argmax_no_nan", vec, lambda xp, x: xp.argmax(xp.where(xp.isnan(x), 0.0, x)))
case("searching", "searchsorted", two, lambda xp, x, v: (xp.searchsorted(xp.sort(x), v),
                                                         xp.searchsorted(xp.sort(x), v, side="right")))
case("searching", "searchsorted_int", two, lambda xp, x, v: xp.searchsorted(xp.sort(x), v),
     dtypes=(np.dtype(np.int64),), subnormals=False)

# sorting
case("sorting", "sort", vec, lambda xp, x: xp.sort(x), UNSIGNED, HALF_TOO)
case("sorting", "sort_descending", vec, lambda xp, x: xp.sort(x, descending=True), UNSIGNED)
case("sorting", "argsort_stable", vec, lambda xp, x: xp.argsort(x, stable=True))
case("sorting", "argsort_descending_stable", vec, lambda xp, x: xp.argsort(x, descending=True, stable=True))
case("sorting", "sort_axis0", column(8), lambda xp, x: xp.sort(x, axis=0), UNSIGNED)

# linalg (small matrices, many of them or long vectors)
case("linalg", "matmul", lambda n, rng, dt, data: (data(rng, (rows_of(n, 8), 8), dt), data(rng, (8, 4), dt)),
     lambda xp, a, b: a @ b, CLOSE_SUMS)
case("linalg", "vecdot", two, lambda xp, x, y: xp.vecdot(x, y), CLOSE_SUMS)
case("linalg", "vector_norm_inf", vec, lambda xp, x: (xp.linalg.vector_norm(x, ord=xp.inf),
                                                      xp.linalg.vector_norm(x, ord=-xp.inf)))
case("linalg", "vector_norm_2", vec, lambda xp, x: xp.linalg.vector_norm(x), CLOSE)
case("linalg", "matrix_norm_inf", lambda n, rng, dt, data: (data(rng, (rows_of(n, 4), 2, 2), dt),),
     lambda xp, x: xp.linalg.matrix_norm(x, ord=xp.inf), CLOSE)

# manipulation
case("manipulation", "concat_stack", two, lambda xp, x, y: (xp.concat([x, y]), xp.stack([x, y], axis=1)))
case("manipulation", "flip_roll", mat(64), lambda xp, x: (xp.flip(x, axis=0), xp.roll(x, 5), xp.roll(x, -3, axis=1)))
case("manipulation", "reshape_permute", mat(64), lambda xp, x: (xp.reshape(xp.permute_dims(x, (1, 0)), (-1,)),
                                                                  xp.moveaxis(x, 0, 1) + 0.0))
case("manipulation", "tile_repeat", vec, lambda xp, x: (xp.tile(x[:1000], (3,)), xp.repeat(x[:1000], 2)))
case("manipulation", "take", lambda n, rng, dt, data: (data(rng, (n,), dt), rng.integers(0, n, n // 3)),
     lambda xp, x, i: (xp.take(x, i), x[i]))
case("manipulation", "add_zero_copy", mat(64), lambda xp, x: (x + 0.0, 0 + xp.matrix_transpose(x), x + -0.0, x - (-0.0), x - 0.0))

# The bounded slice of the default run: (case, size, dtype) -- a case or two per family, sizes in turn.
DEFAULT = [
    ("sign", 65536, "float32"), ("floor", 4096, "float64"),
    ("maximum", 100_003, "float16"), ("copysign", 4096, "float64"),
    ("divide_scalar", 4096, "float32"), ("divide_chain", 65536, "float64"), ("remainder_scalar", 4096, "float16"),
    ("clip", 65536, "float32"),
    ("max", 4096, "float32"), ("min_axis1_keepdims", 100_003, "float64"), ("max_axis0", 65536, "bfloat16"),
    ("min", 100_003, "float16"),
    ("sum", 65536, "float32"),
    ("cumulative_sum", 4096, "float64"),
    ("argmax_argmin", 100_003, "float32"), ("searchsorted", 65536, "float64"),
    ("argsort_stable", 4096, "float32"),
    ("matmul", 65536, "float64"),
    ("flip_roll", 4096, "float32"), ("add_zero_copy", 100_003, "float64"),
]


# --- running the table -------------------------------------------------------------------------------------


def as_tuple(result) -> tuple:
    return tuple(result) if isinstance(result, tuple) else (result,)


def inputs(c: Case, n: int, dtype, data) -> tuple:
    rng = np.random.default_rng([n, zlib.crc32(f"{c.name}-{np.dtype(dtype).name}-{data.__name__}".encode())])
    return c.make(n, rng, np.dtype(dtype), data)


def device_flushes_subnormals() -> bool:
    """Whether XLA on DEVICE flushes subnormals: its CPU backend does; a GPU (XLA's default, no FTZ) does not,
    and there results on subnormal data are eager's own (a GPU run: sign(-5e-324) is -1, as in NumPy)."""
    return sx.asarray(np.zeros(1), device=DEVICE).device.platform == "cpu"


def run_case(c: Case, n: int, dtype, data) -> None:
    """jit and device cpu:1 against eager on the host; on subnormal data, XLA:CPU's results modulo flushing."""
    args = inputs(c, n, dtype, data)
    sub = data is subnormal_data
    want_ieee = tuple(np.asarray(w) for w in as_tuple(c.op(sx, *(sx.asarray(a.copy()) for a in args))))
    want = want_ieee
    if sub:
        want = as_tuple(c.op(sx, *(sx.asarray(flush(a)) for a in args)))
        want = tuple(flush(np.asarray(w)) for w in want)
    what = f"{c.name} ({np.dtype(dtype).name}, {n} elements, {data.__name__})"

    jitted = as_tuple(sx.jit(lambda *a: c.op(sx, *a))(*(sx.asarray(a.copy()) for a in args)))
    on_device = as_tuple(c.op(sx, *(sx.asarray(a.copy(), device=DEVICE) for a in args)))
    assert all(r.device == sx.asarray(np.zeros(1), device=DEVICE).device for r in on_device), \
        f"{what}: results on {[str(r.device) for r in on_device]}"
    for mode, got in (("jit", jitted), (DEVICE, on_device)):
        flushing = sub and (mode == "jit" or device_flushes_subnormals())  # (jit runs host arrays on XLA:CPU)
        expected = want if flushing else want_ieee
        assert len(got) == len(expected), f"{what} {mode}: {len(got)} results, expected {len(expected)}"
        for i, (g, w) in enumerate(zip(got, expected)):
            g = np.asarray(g)
            assert_matches(flush(g) if flushing else g, w, c.check, f"{what} under {mode} [{i}]")


def full_params():
    for c in CASES.values():
        for n in SIZES:
            for dtype in c.dtypes:
                yield pytest.param(c.name, n, np.dtype(dtype).name, "special", id=f"{c.name}-{n}-{np.dtype(dtype).name}")
                if c.subnormals and is_float(dtype):
                    yield pytest.param(c.name, n, np.dtype(dtype).name, "subnormal",
                                       id=f"{c.name}-{n}-{np.dtype(dtype).name}-subnormal")


DATA = {"special": special_data, "subnormal": subnormal_data}


@pytest.mark.parametrize("name,n,dtype", DEFAULT)
def test_large_sizes_bounded_slice(name, n, dtype):
    run_case(CASES[name], n, np.dtype(dtype), special_data)


def test_bounded_slice_covers_every_family():
    assert {CASES[name].family for name, _, _ in DEFAULT} == {c.family for c in CASES.values()}
    assert {n for _, n, _ in DEFAULT} == {4096, 65536, 100_003}


@pytest.mark.skipif(not FULL, reason="the full sweep runs with STRIDEX_LARGE_SWEEP=1")
@pytest.mark.parametrize("name,n,dtype,data", list(full_params()) if FULL else [])  # one skip line by default
def test_large_sizes_full_sweep(name, n, dtype, data):
    run_case(CASES[name], n, np.dtype(dtype), DATA[data])


def test_issue_example():
    """The report's example: a sorted array with one NaN, at 4096 elements."""
    x = np.sort(np.r_[np.random.default_rng(0).random(4095), np.nan])
    assert np.isnan(float(sx.min(sx.asarray(x))))
    assert np.isnan(float(sx.jit(sx.min)(sx.asarray(x))))
    assert np.isnan(float(sx.min(sx.asarray(x, device=DEVICE))))
    assert np.isnan(float(sx.jit(sx.max)(sx.asarray(x[::-1].copy()))))
