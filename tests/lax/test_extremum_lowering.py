"""The NaN-propagating lowering of floating max and min (`stridex/_lax/statistical.py`): every path of its
fold (several passes, overlapping slabs, slabs moved to odd cache lines, several reduced axes adjacent or
not, short axes combined whole, the final tree) under `jit` against NumPy, with a NaN in each part of the
data the slabs cover (the first slab, the overlap of two, the last), and ties of signed zeros and infinities."""

from __future__ import annotations

import numpy as np
import pytest

import stridex as sx
from stridex._lax import statistical as reductions

RNG = np.random.default_rng(20261127)

SHAPES = [
    ((100_003,), (0,)),  # two passes, the slabs overlap (100_003 is prime)
    ((2**16,), (0,)),  # slabs a whole number of pages apart: moved to odd cache lines
    ((64,), (0,)),  # one pass of 16 slabs of 4 (the fewest elements folded), then a tree of 4
    ((63,), (0,)),  # the tree alone, of 63
    ((1,), (0,)),
    ((300, 70), (1,)),  # rows: the inner axis folded
    ((70, 300), (0,)),  # columns: the outer axis folded, slabs of whole rows
    ((40, 50), (0, 1)),  # a full reduction: one flat axis
    ((20, 6, 90), (0, 2)),  # reduced axes apart: the outer one folded first
    ((5, 40, 7), (0, 1)),  # adjacent reduced axes merged
    ((9, 10, 11, 12), (0, 2)),  # short axes only: the longest combined whole while 64 or more are left
    ((6, 0, 4), (0, 2)),  # no results
]


def _reference(a, axes):
    return np.max(a, axis=axes), np.min(a, axis=axes)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
@pytest.mark.parametrize("shape,axes", SHAPES, ids=[f"{s}-{a}" for s, a in SHAPES])
def test_jit_max_and_min_equal_numpy_with_nan_anywhere(shape, axes, dtype):
    size = int(np.prod(shape))
    a = RNG.standard_normal(shape).astype(dtype)
    f = sx.jit(lambda v: (sx.max(v, axis=axes), sx.min(v, axis=axes)))
    for got, want in zip(f(sx.asarray(a)), _reference(a, axes)):
        np.testing.assert_array_equal(np.asarray(got), want, strict=True)
    if not size:
        return
    ends = (0, size // 16, size // 16 + 1, size // 2, size - size // 16 - 1, size - 1)
    flat_positions = {p for p in ends if p < size}
    for position in sorted(flat_positions):
        b = a.copy()
        b.reshape(-1)[position] = np.nan
        for got, want in zip(f(sx.asarray(b)), _reference(b, axes)):
            np.testing.assert_array_equal(np.asarray(got), want, strict=True)


@pytest.mark.parametrize("n", [4095, 70_001])
def test_jit_max_and_min_of_infinities_and_signed_zeros(n):
    a = np.full(n, -np.inf, np.float32)
    a[n // 3] = -0.0
    a[2 * n // 3] = 0.0
    mx, mn = sx.jit(lambda v: (sx.max(v), sx.min(v)))(sx.asarray(a))
    assert float(mx) == 0.0 and float(mn) == -np.inf  # (the sign of a zero maximum is left open)
    a[:] = np.inf
    assert float(sx.jit(sx.min)(sx.asarray(a))) == np.inf


def test_fold_spacing_moves_page_multiples_to_odd_cache_lines():
    ways = reductions.FOLD_WAYS
    assert reductions.fold_spacing(10**7, 4) == 10**7 // ways  # 2_500_000 bytes: no page multiple, as is
    for length, unit in [(2**22, 4), (2**23, 4), (2**22, 8), (2**22, 2), (4096, 64 * 3)]:
        spacing = reductions.fold_spacing(length, unit)
        lines, rest = divmod(spacing * unit, reductions.CACHE_LINE)
        assert rest == 0 and lines % 2 == 1, (length, unit, spacing)
        assert length // ways - 2 * max(1, reductions.CACHE_LINE // unit) < spacing <= length // ways
    # a unit of an even number of lines: every spacing is, so it stays as it is
    assert reductions.fold_spacing(4096, 16384) == 4096 // ways


def test_floating_extrema_lower_with_no_reduce():
    """XLA's loop for a reduce whose combiner is a select runs one element at a time: the lowering has none."""
    jax = pytest.importorskip("jax")
    for shape, axes in [((64, 5000), (1,)), ((100_003,), (0,)), ((20, 6, 90), (0, 2))]:
        lowered = jax.jit(lambda v, axes=axes: reductions.lower_nan_extremum(v, axes, True)).lower(
            jax.ShapeDtypeStruct(shape, np.float32))
        assert "reduce" not in lowered.as_text(), (shape, axes)
