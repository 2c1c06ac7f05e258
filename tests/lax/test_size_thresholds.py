"""Every primitive family on both sides of the size thresholds where stridex changes code path.

Eager results of at least `ALIGNED_OUTPUT_ELEMENTS` elements are written into (or moved to) 64-byte-aligned
buffers: a second path through each primitive's eager rule. Each case below is written once against a
namespace `xp` and runs at element counts just below, at and just above that threshold: eagerly against
NumPy (`xp = numpy`: same values, dtypes and shapes; floating maths to a tolerance), and under `sx.jit`
against eager stridex (one jitted program per family and count, so compilation stays cheap). Cases whose
output shape depends on the data (sets, `nonzero`, boolean-mask gathers) run eagerly only.

The second half straddles jit's hand-over thresholds (`stridex/_handover.py`): small windows are handed
to JAX as cached snapshots (up to `SNAPSHOT_MAX_BYTES`), large aligned ones as aliases (from
`ALIAS_MIN_ELEMENTS`). Calls are repeated (first, cached and memo calls), inputs are written between
calls, and arguments share memory; every result is compared with eager execution on fresh copies.
"""

from __future__ import annotations

import math
import operator
import zlib
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pytest

import stridex as sx
from stridex._core.storage import ALIGNED_OUTPUT_ELEMENTS
from stridex._transforms.handover import ALIAS_MIN_ELEMENTS, SNAPSHOT_MAX_BYTES

N = ALIGNED_OUTPUT_ELEMENTS
COUNTS = (N - 1, N, N + 1)


# --- sizes ------------------------------------------------------------------------------------------


def matrix_shape(count: int) -> tuple:
    """(rows, cols) with rows * cols == count, as close to square as count's factors allow."""
    rows = max(d for d in range(1, math.isqrt(count) + 1) if count % d == 0)
    return rows, count // rows


def items(count: int, per: int) -> int:
    """How many items of `per` elements make a total on the same side of the threshold as `count`."""
    return count // per if count < N else -(-count // per)


# --- inputs -------------------------------------------------------------------------------------------


def real(rng, shape, dtype=np.float64):
    return rng.standard_normal(shape).astype(dtype)


def positive(rng, shape):
    return rng.uniform(0.5, 2.0, shape)


def cplx(rng, shape):
    return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)


def ints(rng, shape, dtype=np.int64, high=100):
    return rng.integers(-high, high, shape).astype(dtype)


def bools(rng, shape):
    return rng.random(shape) < 0.5


def spd(rng, count):
    """A stack of symmetric positive-definite 2x2 matrices, count elements or so."""
    a = rng.standard_normal((items(count, 4), 2, 2))
    return a @ np.swapaxes(a, -1, -2) + 2 * np.eye(2)


def mask_with(count, extra):
    """A mask of count + extra entries with exactly `count` True (the gathered size straddles)."""
    mask = np.ones(count + extra, bool)
    mask[np.linspace(0, count + extra - 1, extra).astype(np.int64)] = False
    return mask


# --- the table of cases -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    family: str
    name: str
    make: Callable  # (count, rng) -> tuple of NumPy inputs
    op: Callable  # (xp, *inputs) -> an array or a tuple of arrays; xp is numpy or stridex
    exact: bool = True  # bitwise-equal values; False for floating maths (compared with a tolerance)
    jit: bool = True  # False: data-dependent output shape, or a result fixed only up to a gauge (signs)


CASES: list[Case] = []


def case(family, name, make, op, exact=True, jit=True):
    CASES.append(Case(family, name, make, op, exact, jit))


def inplace(operator_function):
    """The op `x op= y` (then x) for an in-place operator function such as `operator.iadd`."""
    return lambda xp, x, y: operator_function(x, y)


def inplace_scalar_on_view(xp, x):
    view = x[::2]
    view *= 3.0
    return x


# elementwise: unary, binary (broadcast, scalars, mixed dtypes), in-place operators, clip
def _vec(make):
    return lambda c, r: (make(r, (c,)),)


def _mat(make):
    return lambda c, r: (make(r, matrix_shape(c)),)


case("elementwise", "sqrt", _vec(positive), lambda xp, x: xp.sqrt(x), exact=False)
case("elementwise", "exp", _mat(real), lambda xp, x: xp.exp(x), exact=False)
case("elementwise", "sin_float32", lambda c, r: (real(r, (c,), np.float32),), lambda xp, x: xp.sin(x), exact=False)
case("elementwise", "negative", _vec(real), lambda xp, x: xp.negative(x))
case("elementwise", "floor", _mat(real), lambda xp, x: xp.floor(x))
case("elementwise", "isnan", _vec(real), lambda xp, x: xp.isnan(x))
case("elementwise", "abs_int", _vec(ints), lambda xp, x: xp.abs(x))
case("elementwise", "logical_not", _vec(bools), lambda xp, x: xp.logical_not(x))
case("elementwise", "bitwise_invert", _mat(ints), lambda xp, x: xp.bitwise_invert(x))
case("elementwise", "add", lambda c, r: (real(r, (c,)), real(r, (c,))), lambda xp, x, y: xp.add(x, y))
case("elementwise", "multiply_broadcast", lambda c, r: (real(r, (matrix_shape(c)[0], 1)), real(r, matrix_shape(c)[1:])),
     lambda xp, x, y: x * y)
case("elementwise", "subtract_scalar", _vec(real), lambda xp, x: x - 1.5)
case("elementwise", "add_0d", lambda c, r: (real(r, (1, c)), real(r, ())), lambda xp, x, y: x + y)
case("elementwise", "divide", lambda c, r: (real(r, (c,)), positive(r, (c,))), lambda xp, x, y: x / y, exact=False)
case("elementwise", "pow", lambda c, r: (positive(r, (c,)), real(r, (c,))), lambda xp, x, y: xp.pow(x, y), exact=False)
case("elementwise", "maximum", lambda c, r: (real(r, (c,)), real(r, (c,))), lambda xp, x, y: xp.maximum(x, y))
case("elementwise", "less", lambda c, r: (real(r, (c,)), real(r, (c,))), lambda xp, x, y: x < y)
case("elementwise", "equal_int", lambda c, r: (ints(r, (c,), high=3), ints(r, (c,), high=3)), lambda xp, x, y: x == y)
case("elementwise", "logical_and", lambda c, r: (bools(r, (c,)), bools(r, (c,))), lambda xp, x, y: xp.logical_and(x, y))
case("elementwise", "bitwise_and", lambda c, r: (ints(r, (c,)), ints(r, (c,))), lambda xp, x, y: x & y)
case("elementwise", "atan2", lambda c, r: (real(r, (c,)), real(r, (c,))), lambda xp, x, y: xp.atan2(x, y),
     exact=False)
case("elementwise", "floor_divide_int", lambda c, r: (ints(r, (c,)), ints(r, (c,)) | 1), lambda xp, x, y: x // y)
case("elementwise", "remainder", lambda c, r: (real(r, (c,)), positive(r, (c,))), lambda xp, x, y: x % y,
     exact=False)
case("elementwise", "int8_plus_uint8", lambda c, r: (ints(r, (c,), np.int8), ints(r, (c,), np.uint8) % 100),
     lambda xp, x, y: x + y)
case("elementwise", "float32_plus_float64", lambda c, r: (real(r, (c,), np.float32), real(r, (c,))),
     lambda xp, x, y: x + y)
case("elementwise", "clip", _vec(real), lambda xp, x: xp.clip(x, min=-0.5, max=0.5))
case("elementwise", "iadd", lambda c, r: (real(r, (c,)), real(r, (c,))), inplace(operator.iadd))
case("elementwise", "isub_broadcast", lambda c, r: (real(r, matrix_shape(c)), real(r, matrix_shape(c)[1:])),
     inplace(operator.isub))
case("elementwise", "itruediv", lambda c, r: (real(r, (c,)), positive(r, (c,))), inplace(operator.itruediv),
     exact=False)
case("elementwise", "ifloordiv_int", lambda c, r: (ints(r, (c,)), ints(r, (c,)) | 1), inplace(operator.ifloordiv))
case("elementwise", "imul_scalar_view", lambda c, r: (real(r, (2 * c,)),), inplace_scalar_on_view)

# reductions: full, over an axis (output straddles), keepdims; cumulative sums and products
case("reductions", "sum_all", _vec(real), lambda xp, x: xp.sum(x), exact=False)
case("reductions", "sum_axis0", lambda c, r: (real(r, (2, c)),), lambda xp, x: xp.sum(x, axis=0), exact=False)
case("reductions", "sum_keepdims", lambda c, r: (real(r, (c, 3)),), lambda xp, x: xp.sum(x, axis=1, keepdims=True),
     exact=False)
case("reductions", "sum_int32_dtype", lambda c, r: (ints(r, (3, c), np.int32),),
     lambda xp, x: xp.sum(x, axis=0, dtype=xp.int32))
case("reductions", "prod_axis0", lambda c, r: (positive(r, (2, c)),), lambda xp, x: xp.prod(x, axis=0), exact=False)
case("reductions", "max_all", _vec(real), lambda xp, x: xp.max(x))
case("reductions", "max_axis0", lambda c, r: (real(r, (3, c)),), lambda xp, x: xp.max(x, axis=0))
case("reductions", "min_keepdims", lambda c, r: (ints(r, (c, 2)),), lambda xp, x: xp.min(x, axis=1, keepdims=True))
case("reductions", "mean_axis0", lambda c, r: (real(r, (2, c)),), lambda xp, x: xp.mean(x, axis=0), exact=False)
case("reductions", "std_axis1", lambda c, r: (real(r, (c, 3)),), lambda xp, x: xp.std(x, axis=1, correction=1),
     exact=False)
case("reductions", "var_all", _mat(real), lambda xp, x: xp.var(x), exact=False)
case("reductions", "all_axis0", lambda c, r: (bools(r, (2, c)),), lambda xp, x: xp.all(x, axis=0))
case("reductions", "any_keepdims", lambda c, r: (bools(r, (c, 2)),), lambda xp, x: xp.any(x, axis=1, keepdims=True))
case("reductions", "cumulative_sum", _vec(real), lambda xp, x: xp.cumulative_sum(x), exact=False)
case("reductions", "cumulative_sum_initial", lambda c, r: (ints(r, (c - 1,)),),
     lambda xp, x: xp.cumulative_sum(x, include_initial=True))
case("reductions", "cumulative_sum_axis1", _mat(ints), lambda xp, x: xp.cumulative_sum(x, axis=1))
case("reductions", "cumulative_prod", lambda c, r: (positive(r, matrix_shape(c)),),
     lambda xp, x: xp.cumulative_prod(x, axis=0), exact=False)

# searching
case("searching", "argmax_all", _vec(real), lambda xp, x: xp.argmax(x))
case("searching", "argmax_axis0", lambda c, r: (real(r, (3, c)),), lambda xp, x: xp.argmax(x, axis=0))
case("searching", "argmin_keepdims", lambda c, r: (real(r, (c, 3)),), lambda xp, x: xp.argmin(x, axis=1, keepdims=True))
case("searching", "where", lambda c, r: (bools(r, (c,)), real(r, (c,)), real(r, (c,))),
     lambda xp, cond, x, y: xp.where(cond, x, y))
case("searching", "where_scalar_broadcast", lambda c, r: (bools(r, matrix_shape(c)[1:]), real(r, matrix_shape(c))),
     lambda xp, cond, x: xp.where(cond, x, 0.0))
case("searching", "searchsorted", lambda c, r: (np.sort(ints(r, (c,))), ints(r, (c,))),
     lambda xp, x, v: xp.searchsorted(x, v, side="right"))
case("searching", "count_nonzero_axis0", lambda c, r: (ints(r, (2, c), high=2),),
     lambda xp, x: xp.count_nonzero(x, axis=0))
case("searching", "nonzero", lambda c, r: (mask_with(c, 5).astype(np.int64),), lambda xp, x: xp.nonzero(x), jit=False)
case("searching", "nonzero_2d", _mat(bools), lambda xp, x: xp.nonzero(x), jit=False)

# sorting
case("sorting", "sort", _vec(real), lambda xp, x: xp.sort(x))
case("sorting", "sort_axis0_int", _mat(ints), lambda xp, x: xp.sort(x, axis=0))
case("sorting", "argsort_stable", lambda c, r: (ints(r, (c,), high=5),), lambda xp, x: xp.argsort(x, stable=True))
case("sorting", "argsort_axis1", lambda c, r: (real(r, matrix_shape(c)),), lambda xp, x: xp.argsort(x, axis=1))


# sets (data-dependent: eager only). All-distinct inputs give outputs of the input's size. The order of
# unique_values is unspecified (NumPy 2.3+ leaves it unsorted), so it is compared sorted.
def _distinct(c, r):
    return (r.permutation(c).astype(np.int64),)


case("sets", "unique_values", _distinct, lambda xp, x: xp.sort(xp.unique_values(x)), jit=False)
case("sets", "unique_values_repeats", lambda c, r: (ints(r, (c,), high=10),),
     lambda xp, x: xp.sort(xp.unique_values(x)), jit=False)
case("sets", "unique_counts", _distinct, lambda xp, x: tuple(xp.unique_counts(x)), jit=False)
case("sets", "unique_inverse_2d", lambda c, r: (ints(r, matrix_shape(c), high=20),),
     lambda xp, x: tuple(xp.unique_inverse(x)), jit=False)
case("sets", "unique_all", lambda c, r: (r.permutation(c).astype(np.float64),), lambda xp, x: tuple(xp.unique_all(x)),
     jit=False)

# manipulation
case("manipulation", "concat", lambda c, r: (real(r, (c - 7,)), real(r, (7,))), lambda xp, x, y: xp.concat([x, y]))
case("manipulation", "concat_mixed_dtypes", lambda c, r: (ints(r, (c - 7,), np.int32), real(r, (7,), np.float32)),
     lambda xp, x, y: xp.concat([x, y]))
case("manipulation", "stack_mixed_dtypes",
     lambda c, r: (ints(r, (items(c, 2),), np.int8), ints(r, (items(c, 2),), np.uint8) % 100),
     lambda xp, x, y: xp.stack([x, y]))
case("manipulation", "concat_axis1", lambda c, r: (real(r, (matrix_shape(c)[0], 1)),
                                                  real(r, (matrix_shape(c)[0], matrix_shape(c)[1] - 1))),
     lambda xp, x, y: xp.concat([x, y], axis=1))
case("manipulation", "stack", lambda c, r: (ints(r, (items(c, 2),)), ints(r, (items(c, 2),))),
     lambda xp, x, y: xp.stack([x, y], axis=1))
case("manipulation", "roll", _vec(real), lambda xp, x: xp.roll(x, 5))
case("manipulation", "roll_axes", _mat(ints), lambda xp, x: xp.roll(x, (1, -2), axis=(0, 1)))
case("manipulation", "roll_flat", _mat(real), lambda xp, x: xp.roll(x, 3))
case("manipulation", "flip", _vec(real), lambda xp, x: xp.flip(x))
case("manipulation", "flip_axis1", _mat(real), lambda xp, x: xp.flip(x, axis=1))
case("manipulation", "reshape", _vec(real), lambda xp, x: xp.reshape(x, matrix_shape(x.shape[0])))
case("manipulation", "reshape_copy", _mat(real), lambda xp, x: xp.reshape(xp.matrix_transpose(x), (-1,)))
case("manipulation", "tile", lambda c, r: (real(r, (items(c, 4),)),), lambda xp, x: xp.tile(x, (4,)))
case("manipulation", "repeat", lambda c, r: (ints(r, (items(c, 2),)),), lambda xp, x: xp.repeat(x, 2))
case("manipulation", "repeat_counts", lambda c, r: (real(r, (c,)), np.r_[2, np.ones(c - 2, np.int64), 0]),
     lambda xp, x, k: xp.repeat(x, k), jit=False)
case("manipulation", "moveaxis", lambda c, r: (real(r, (1, *matrix_shape(c))),), lambda xp, x: xp.moveaxis(x, 0, 2))
case("manipulation", "broadcast_to", lambda c, r: (real(r, matrix_shape(c)[1:]), np.zeros(matrix_shape(c))),
     lambda xp, x, like: xp.broadcast_to(x, like.shape))


# creation: sizes come from a dummy input's shape, so the same op traces under jit
def _size(c, r):
    return (np.zeros((c,)),)


case("creation", "arange_int", _size, lambda xp, d: xp.arange(d.shape[0]))
case("creation", "arange_float", _size, lambda xp, d: xp.arange(0.0, d.shape[0] * 0.5, 0.5))
case("creation", "arange_float32", _size, lambda xp, d: xp.arange(d.shape[0], dtype=xp.float32))
case("creation", "full", _size, lambda xp, d: xp.full((d.shape[0],), 3.5))
case("creation", "full_int32_2d", _size, lambda xp, d: xp.full(matrix_shape(d.shape[0]), 7, dtype=xp.int32))
case("creation", "zeros", _size, lambda xp, d: xp.zeros(matrix_shape(d.shape[0])))
case("creation", "ones_row", _size, lambda xp, d: xp.ones((1, d.shape[0])))
case("creation", "linspace", _size, lambda xp, d: xp.linspace(0.0, 1.0, num=d.shape[0]), exact=False)
case("creation", "linspace_no_endpoint", _size, lambda xp, d: xp.linspace(-2.0, 3.0, num=d.shape[0], endpoint=False),
     exact=False)
case("creation", "eye", _size, lambda xp, d: xp.eye(*matrix_shape(d.shape[0]), k=1))
case("creation", "tril", _mat(real), lambda xp, x: xp.tril(x, k=-1))
case("creation", "triu", _mat(ints), lambda xp, x: xp.triu(x, k=2))
case("creation", "zeros_like", _mat(ints), lambda xp, x: xp.zeros_like(x))
case("creation", "ones_like", _vec(bools), lambda xp, x: xp.ones_like(x))
case("creation", "full_like", _vec(real), lambda xp, x: xp.full_like(x, 2.0))

# dtype conversion
case("convert", "float64_to_float32", _vec(real), lambda xp, x: xp.astype(x, xp.float32))
case("convert", "int64_to_float64", _mat(ints), lambda xp, x: xp.astype(x, xp.float64))
case("convert", "float64_to_int32", lambda c, r: (real(r, (c,)) * 50,), lambda xp, x: xp.astype(x, xp.int32))
case("convert", "bool_to_float32", _vec(bools), lambda xp, x: xp.astype(x, xp.float32))
case("convert", "complex_to_complex64", _vec(cplx), lambda xp, x: xp.astype(x, xp.complex64))
case("convert", "int_to_bool", lambda c, r: (ints(r, (c,), high=2),), lambda xp, x: xp.astype(x, xp.bool))
case("convert", "transposed_view", _mat(real), lambda xp, x: xp.astype(xp.matrix_transpose(x), xp.float32))


# linalg: products (1-D, 2-D, batched), then the decompositions on stacks of small matrices
def _pair(s1, s2):
    return lambda c, r: (real(r, s1(c)), real(r, s2(c)))


case("linalg", "matmul_1d_1d", _pair(lambda c: (c,), lambda c: (c,)), lambda xp, x, y: x @ y, exact=False)
case("linalg", "matmul_2d_1d", _pair(lambda c: (c, 3), lambda c: (3,)), lambda xp, x, y: x @ y, exact=False)
case("linalg", "matmul_1d_2d", _pair(lambda c: (3,), lambda c: (3, c)), lambda xp, x, y: xp.matmul(x, y), exact=False)
case("linalg", "matmul_1d_3d", _pair(lambda c: (3,), lambda c: (items(c, 2), 3, 2)), lambda xp, x, y: x @ y,
     exact=False)
case("linalg", "matmul_2d_2d", _pair(lambda c: (matrix_shape(c)[0], 4), lambda c: (4, matrix_shape(c)[1])),
     lambda xp, x, y: x @ y, exact=False)
case("linalg", "matmul_batched", _pair(lambda c: (items(c, 4), 2, 3), lambda c: (items(c, 4), 3, 2)),
     lambda xp, x, y: x @ y, exact=False)
case("linalg", "matmul_broadcast_batch", _pair(lambda c: (items(c, 4), 2, 3), lambda c: (3, 2)),
     lambda xp, x, y: x @ y, exact=False)
case("linalg", "vecdot_1d", _pair(lambda c: (c,), lambda c: (c,)), lambda xp, x, y: xp.vecdot(x, y), exact=False)
case("linalg", "vecdot_rows", _pair(lambda c: (c, 3), lambda c: (c, 3)), lambda xp, x, y: xp.vecdot(x, y),
     exact=False)
case("linalg", "linalg_vecdot_axis0", _pair(lambda c: (3, c), lambda c: (3, c)),
     lambda xp, x, y: xp.linalg.vecdot(x, y, axis=0), exact=False)
case("linalg", "tensordot_1", _pair(lambda c: (c,), lambda c: (c,)), lambda xp, x, y: xp.tensordot(x, y, axes=1),
     exact=False)
case("linalg", "tensordot_1_2d", _pair(lambda c: (matrix_shape(c)[0], 3), lambda c: (3, matrix_shape(c)[1])),
     lambda xp, x, y: xp.tensordot(x, y, axes=1), exact=False)
case("linalg", "tensordot_2", _pair(matrix_shape, matrix_shape), lambda xp, x, y: xp.tensordot(x, y, axes=2),
     exact=False)
case("linalg", "tensordot_0", _pair(lambda c: matrix_shape(c)[:1], lambda c: matrix_shape(c)[1:]),
     lambda xp, x, y: xp.tensordot(x, y, axes=0))
case("linalg", "matrix_transpose", _mat(real), lambda xp, x: xp.matrix_transpose(x) + 0.0)
case("linalg", "outer", _pair(lambda c: matrix_shape(c)[:1], lambda c: matrix_shape(c)[1:]),
     lambda xp, x, y: xp.linalg.outer(x, y))
case("linalg", "inv", lambda c, r: (spd(r, c),), lambda xp, x: xp.linalg.inv(x), exact=False)
case("linalg", "det", lambda c, r: (real(r, (c, 2, 2)),), lambda xp, x: xp.linalg.det(x), exact=False)
case("linalg", "slogdet", lambda c, r: (real(r, (c, 2, 2)),), lambda xp, x: tuple(xp.linalg.slogdet(x)), exact=False)
case("linalg", "solve", lambda c, r: (spd(r, c), real(r, (items(c, 4), 2, 2))), lambda xp, a, b: xp.linalg.solve(a, b),
     exact=False)
case("linalg", "cholesky", lambda c, r: (spd(r, c),), lambda xp, x: xp.linalg.cholesky(x), exact=False)
case("linalg", "qr", lambda c, r: (real(r, (items(c, 4), 2, 2)),), lambda xp, x: tuple(xp.linalg.qr(x)), jit=False)
case("linalg", "eigh", lambda c, r: (spd(r, c),), lambda xp, x: tuple(xp.linalg.eigh(x)), jit=False)
case("linalg", "eigvalsh", lambda c, r: (spd(r, 2 * c),), lambda xp, x: xp.linalg.eigvalsh(x), exact=False)
case("linalg", "svd", lambda c, r: (real(r, (items(c, 4), 2, 2)),), lambda xp, x: tuple(xp.linalg.svd(x)), jit=False)
case("linalg", "svdvals", lambda c, r: (real(r, (items(c, 2), 2, 2)),), lambda xp, x: xp.linalg.svdvals(x),
     exact=False)
case("linalg", "pinv", lambda c, r: (spd(r, c),), lambda xp, x: xp.linalg.pinv(x), exact=False)
case("linalg", "matrix_power", lambda c, r: (real(r, (items(c, 4), 2, 2)),),
     lambda xp, x: xp.linalg.matrix_power(x, 3), exact=False)
case("linalg", "matrix_norm", lambda c, r: (real(r, (c, 2, 2)),), lambda xp, x: xp.linalg.matrix_norm(x), exact=False)
case("linalg", "vector_norm_all", _vec(real), lambda xp, x: xp.linalg.vector_norm(x), exact=False)
case("linalg", "vector_norm_axis1", lambda c, r: (real(r, (c, 3)),),
     lambda xp, x: xp.linalg.vector_norm(x, axis=1, ord=1), exact=False)
case("linalg", "diagonal", lambda c, r: (real(r, (items(c, 2), 2, 2)),), lambda xp, x: xp.linalg.diagonal(x) + 0.0)
case("linalg", "trace", lambda c, r: (ints(r, (c, 2, 2)),), lambda xp, x: xp.linalg.trace(x))
case("linalg", "cross", lambda c, r: (real(r, (items(c, 3), 3)), real(r, (items(c, 3), 3))),
     lambda xp, x, y: xp.linalg.cross(x, y), exact=False)
case("linalg", "matrix_rank", lambda c, r: (real(r, (c, 2, 2)),), lambda xp, x: xp.linalg.matrix_rank(x))


# fft: every function, with n / s padding and trimming, and the multi-axis s that resizes early passes
def _fft3(k_per, dtype_make):
    """A (16, 8, k) input whose (32, 16, k) or (32, 9, k) result straddles the threshold."""
    return lambda c, r: (dtype_make(r, (16, 8, items(c, k_per))),)


case("fft", "fft", _vec(cplx), lambda xp, x: xp.fft.fft(x), exact=False)
case("fft", "fft_n_trim", lambda c, r: (cplx(r, (c + 10,)),), lambda xp, x: xp.fft.fft(x, n=x.shape[0] - 10),
     exact=False)
case("fft", "ifft_n_pad", lambda c, r: (cplx(r, (c - 10,)),), lambda xp, x: xp.fft.ifft(x, n=x.shape[0] + 10),
     exact=False)
case("fft", "rfft", lambda c, r: (real(r, (2 * (c - 1),)),), lambda xp, x: xp.fft.rfft(x), exact=False)
case("fft", "rfft_float32", lambda c, r: (real(r, (2 * (c - 1),), np.float32),), lambda xp, x: xp.fft.rfft(x),
     exact=False)
case("fft", "irfft", lambda c, r: (cplx(r, (c // 2 + 1,)),), lambda xp, x: xp.fft.irfft(x, n=2 * x.shape[0] - 2 + 1),
     exact=False)
case("fft", "hfft", lambda c, r: (cplx(r, (c // 2 + 1,)),), lambda xp, x: xp.fft.hfft(x, n=2 * x.shape[0] - 2 + 1),
     exact=False)
case("fft", "ihfft", lambda c, r: (real(r, (2 * (c - 1),)),), lambda xp, x: xp.fft.ihfft(x), exact=False)
case("fft", "fftn", _mat(cplx), lambda xp, x: xp.fft.fftn(x), exact=False)
case("fft", "fftn_s", _fft3(512, cplx), lambda xp, x: xp.fft.fftn(x, s=(32, 16), axes=(0, 1)), exact=False)
case("fft", "fftn_s_reversed_axes", _fft3(512, cplx), lambda xp, x: xp.fft.fftn(x, s=(16, 32), axes=(1, 0)),
     exact=False)
case("fft", "ifftn_s_ortho", _fft3(512, cplx), lambda xp, x: xp.fft.ifftn(x, s=(32, 16), axes=(0, 1), norm="ortho"),
     exact=False)
case("fft", "rfftn_s", _fft3(288, real), lambda xp, x: xp.fft.rfftn(x, s=(32, 16), axes=(0, 1)), exact=False)
case("fft", "irfftn_s", _fft3(512, cplx), lambda xp, x: xp.fft.irfftn(x, s=(32, 16), axes=(0, 1)), exact=False)
case("fft", "fftfreq", _size, lambda xp, d: xp.fft.fftfreq(d.shape[0], d=0.5), exact=False)
case("fft", "rfftfreq", _size, lambda xp, d: xp.fft.rfftfreq(2 * d.shape[0] - 2), exact=False)
case("fft", "fftshift", _vec(real), lambda xp, x: xp.fft.fftshift(x))
case("fft", "ifftshift_axis0", _mat(cplx), lambda xp, x: xp.fft.ifftshift(x, axes=(0,)))


# indexing: take, take_along_axis, integer arrays, boolean masks (eager), setitem
def set_slice(xp, x, y):
    x[1:] = y[1:]
    return x


def set_strided_scalar(xp, x):
    x[::2] = 5.0
    return x


def empty_negative_step_slices(xp, x):
    """Empty slices with negative steps select nothing, read or written; beside them, reversed slices."""
    n = x.shape[0]
    x[-n - 1::-3] = 7.0
    x[-n - 1::-1] = 7.0
    x[:1:-1] = -x[:1:-1]
    return x, x[-n - 1::-1] + 1.0, x[-n - 1::-2] + 1.0, x[n + 10::-2] * 2.0


def set_int_array(xp, x, idx, v):
    x[idx] = v
    return x


def set_mask_scalar(xp, x, mask):
    x[mask] = 0.0
    return x


def set_mask_values(xp, x, mask, v):
    x[mask] = v
    return x


def set_column(xp, x, y):
    x[:, 1] = y
    return x


def _perm_index(c, r):
    return r.permutation(c).astype(np.int64)


case("indexing", "take", lambda c, r: (real(r, (c + 5,)), r.integers(0, c + 5, c)), lambda xp, x, i: xp.take(x, i))
case("indexing", "take_axis1", lambda c, r: (real(r, (matrix_shape(c)[0], 7)), r.integers(0, 7, matrix_shape(c)[1])),
     lambda xp, x, i: xp.take(x, i, axis=1))
case("indexing", "take_along_axis", lambda c, r: (real(r, matrix_shape(c)),
                                                  np.argsort(r.random(matrix_shape(c)), axis=1)),
     lambda xp, x, i: xp.take_along_axis(x, i, axis=1))
case("indexing", "int_array", lambda c, r: (ints(r, (c + 3,)), r.integers(-c, c, c)), lambda xp, x, i: x[i])
case("indexing", "int_array_rows", lambda c, r: (real(r, (matrix_shape(c)[0] + 3, matrix_shape(c)[1])),
                                                 r.integers(0, matrix_shape(c)[0] + 3, matrix_shape(c)[0])),
     lambda xp, x, i: x[i, :])
case("indexing", "int_arrays_broadcast", lambda c, r: (real(r, (50, 60)), r.integers(0, 50, (matrix_shape(c)[0], 1)),
                                                       r.integers(0, 60, matrix_shape(c)[1])),
     lambda xp, x, i, j: x[i, j])
case("indexing", "mask", lambda c, r: (real(r, (c + 9,)), mask_with(c, 9)), lambda xp, x, m: x[m], jit=False)
case("indexing", "mask_rows", lambda c, r: (real(r, (c + 4, 2)), mask_with(c, 4)), lambda xp, x, m: x[m], jit=False)
case("indexing", "set_slice", lambda c, r: (real(r, (c,)), real(r, (c,))), set_slice)
case("indexing", "set_strided_scalar", _vec(real), set_strided_scalar)
case("indexing", "empty_negative_step_slices", _vec(real), empty_negative_step_slices)
case("indexing", "set_int_array", lambda c, r: (real(r, (c,)), _perm_index(c, r)[:c - 3], real(r, (c - 3,))),
     set_int_array)
case("indexing", "set_mask_scalar", lambda c, r: (real(r, matrix_shape(c)), bools(r, matrix_shape(c))),
     set_mask_scalar)
case("indexing", "set_mask_values", lambda c, r: (real(r, (c + 9,)), mask_with(c, 9), real(r, (c,))),
     set_mask_values, jit=False)
case("indexing", "set_column", lambda c, r: (ints(r, (c, 3)), ints(r, (c,))), set_column)


# --- running the table -------------------------------------------------------------------------------------


def inputs_of(c: Case, count: int) -> tuple:
    """The case's NumPy inputs at `count`, the same on every run."""
    return c.make(count, np.random.default_rng([count, zlib.crc32(c.name.encode())]))


def as_tuple(result) -> tuple:
    return tuple(result) if isinstance(result, tuple) else (result,)


def assert_same(got, want, exact: bool, what: str) -> None:
    """`got` has `want`'s shape and dtype, and its values bitwise (`exact`) or to a dtype's tolerance."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, f"{what}: shape {got.shape}, expected {want.shape}"
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype}, expected {want.dtype}"
    if exact:
        np.testing.assert_array_equal(got, want, err_msg=what)
    else:
        tol = 1e-4 if got.dtype in (np.float32, np.complex64) else 1e-9
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol, err_msg=what)


def assert_all_same(got: tuple, want: tuple, exact: bool, what: str) -> None:
    assert len(got) == len(want), f"{what}: {len(got)} arrays, expected {len(want)}"
    for i, (g, w) in enumerate(zip(got, want)):
        assert_same(g, w, exact, f"{what} [{i}]")


def case_id(c: Case) -> str:
    return f"{c.family}-{c.name}"


@pytest.mark.parametrize("count", COUNTS)
@pytest.mark.parametrize("c", CASES, ids=case_id)
def test_eager_matches_numpy(c, count):
    data = inputs_of(c, count)
    np_inputs = [a.copy() for a in data]
    sx_inputs = [sx.asarray(a.copy()) for a in data]
    got = as_tuple(c.op(sx, *sx_inputs))
    assert all(isinstance(g, sx.Array) for g in got), [type(g) for g in got]
    assert_all_same(got, as_tuple(c.op(np, *np_inputs)), c.exact, f"{c.name} at {count}")
    assert_all_same(tuple(sx_inputs), tuple(np_inputs), c.exact, f"{c.name} at {count}: inputs after the call")


JIT_FAMILIES = sorted({c.family for c in CASES if c.jit})
# Compiled code has one path at every size; what changes at the threshold is the eager reference and how
# the inputs are handed over, so below and at it suffice (each count compiles every family anew).
JIT_COUNTS = (N - 1, N)


@pytest.mark.parametrize("count", JIT_COUNTS)
@pytest.mark.parametrize("family", JIT_FAMILIES)
def test_jit_matches_eager(family, count):
    """One jitted program per family runs every traceable case; outputs and written inputs match eager."""
    cases = [c for c in CASES if c.family == family and c.jit]
    data = [inputs_of(c, count) for c in cases]

    def run(inputs):
        return [as_tuple(c.op(sx, *args)) for c, args in zip(cases, inputs)]

    eager_inputs = [tuple(sx.asarray(a.copy()) for a in args) for args in data]
    jit_inputs = [tuple(sx.asarray(a.copy()) for a in args) for args in data]
    want = run(eager_inputs)
    got = sx.jit(run)(jit_inputs)
    for c, g, w, gi, wi in zip(cases, got, want, jit_inputs, eager_inputs):
        assert_all_same(g, w, c.exact, f"{c.name} at {count} under jit")
        assert_all_same(gi, wi, c.exact, f"{c.name} at {count} under jit: inputs after the call")


# --- jit's hand-over thresholds ----------------------------------------------------------------------------

SNAPSHOT_ELEMENTS = SNAPSHOT_MAX_BYTES // np.dtype(np.float64).itemsize
HANDOVER_COUNTS = (SNAPSHOT_ELEMENTS - 1, SNAPSHOT_ELEMENTS, SNAPSHOT_ELEMENTS + 1,
                   ALIAS_MIN_ELEMENTS - 1, ALIAS_MIN_ELEMENTS, ALIAS_MIN_ELEMENTS + 1)


def scale_shift(x):
    """One output, no writes: the memo path once warm."""
    return x * 2.0 + x[0]


def bump_first(x):
    """Writes its input (jit writes the new value back into the caller's array)."""
    x[0] = x[-1] + 1.0
    return x[::2] * 3.0


def with_view_output(x):
    """A computed output and an output that is a view of the input (rebuilt as a view of the caller's)."""
    return x + 1.0, x[1:]


def two_outputs(x):
    """Two computed outputs, no writes: the memo's direct call for several outputs once warm."""
    return x * 2.0, sx.sum(x) + x


HANDOVER_FUNCTIONS = [scale_shift, bump_first, with_view_output, two_outputs]
JITTED = {f: sx.jit(f) for f in HANDOVER_FUNCTIONS}


def writes_between_calls(x, step):
    """Eager writes made to the caller's array before call `step`: none for the first three calls."""
    if step == 3:
        x[0] = 5.0
    elif step == 4:
        x[1:3] = -1.0


def eager_on_copy(f, *arrays):
    """f run eagerly on fresh copies of `arrays`: (its outputs as NumPy copies, the copies afterwards)."""
    copies = [sx.asarray(np.array(a)) for a in arrays]
    outputs = tuple(np.array(o) for o in as_tuple(f(*copies)))
    return outputs, [np.array(c) for c in copies]


def check_call(jitted, f, *args):
    """One jitted call against eager on fresh copies: outputs, and arguments written back."""
    want, want_args = eager_on_copy(f, *args)
    got = as_tuple(jitted(*args))
    assert_all_same(got, want, True, f"{f.__name__} output")
    assert_all_same(tuple(args), tuple(want_args), True, f"{f.__name__} arguments after the call")
    return got, want


@pytest.mark.parametrize("count", HANDOVER_COUNTS)
@pytest.mark.parametrize("f", HANDOVER_FUNCTIONS, ids=lambda f: f.__name__)
def test_jit_calls_straddling_handover_thresholds(f, count):
    """First, cached and memo calls, with writes between calls; earlier results must not change."""
    x = sx.asarray(np.arange(count, dtype=np.float64))
    jitted = JITTED[f]
    kept = []
    for step in range(6):
        writes_between_calls(x, step)
        kept.append(check_call(jitted, f, x))
    for got, want in kept:
        # Results alias nothing the later writes touched (unless eager semantics say they are views).
        if f is not with_view_output:
            assert_all_same(got, want, True, f"{f.__name__}: an earlier result after later calls")
    if f is with_view_output:
        np.testing.assert_array_equal(np.asarray(kept[-1][0][1]), np.asarray(x)[1:])


@pytest.mark.parametrize("count", HANDOVER_COUNTS)
def test_one_array_passed_twice_straddling_handover_thresholds(count):
    """f(x, x): one program input for both parameters, first, cached and memo calls, on host memory and on a
    jit result (JAX memory)."""
    f = sx.jit(lambda a, b: (a * b, a - b[0]))  # (no multiply feeding an add: XLA would fuse it into an FMA)
    x = sx.asarray(np.linspace(-1.0, 1.0, count))
    for arg in (x, JITTED[scale_shift](x)):
        v = np.asarray(arg)
        for _ in range(3):
            assert_all_same(f(arg, arg), (v * v, v - v[0]), True, "f(x, x)")


@pytest.mark.parametrize("count", HANDOVER_COUNTS)
def test_jit_results_passed_back_straddling_handover_thresholds(count):
    """A jit result (held as JAX memory) passed in again, then written eagerly (copy-on-write) and passed."""
    jitted = JITTED[scale_shift]  # warm from the test above: the first call here is already a cached one
    (y,), _ = check_call(jitted, scale_shift, sx.asarray(np.linspace(0.0, 1.0, count)))
    y_before = np.array(y)
    for step in range(3):
        check_call(jitted, scale_shift, y)
        writes_between_calls(y, step + 3)
    np.testing.assert_array_equal(np.asarray(y)[3:], y_before[3:])


def shares_memory(a, b):
    """Writes through `a` are seen by `b` when they alias, as eagerly."""
    a[0] = b[-1] + 1.0
    return sx.concat([a, b]) * 2.0


ALIASED_ARGUMENTS = [
    ("x, x[1:]", lambda x: (x, x[1:])),
    ("x[::2], x", lambda x: (x[::2], x)),
]


@pytest.mark.parametrize("count", HANDOVER_COUNTS)
@pytest.mark.parametrize("pick", [p for _, p in ALIASED_ARGUMENTS], ids=[n for n, _ in ALIASED_ARGUMENTS])
def test_jit_aliased_arguments_straddling_handover_thresholds(pick, count):
    base = sx.asarray(np.arange(count, dtype=np.float64))
    jitted = sx.jit(shares_memory)
    for step in range(4):
        writes_between_calls(base, step + 2)
        want_out, want_base = eager_on_copy(lambda b: shares_memory(*pick(b)), base)
        got = jitted(*pick(base))
        assert_same(got, want_out[0], True, "output with aliased arguments")
        assert_same(base, want_base[0], True, "the shared array after the call")
