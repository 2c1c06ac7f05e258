"""array-api-extra's functions on stridex arrays against the same call on NumPy arrays.

array-api-extra computes with the input's namespace (``array_namespace(x)``), so every result must be
a stridex array.
"""

import numpy as np
import pytest

from .helpers import assert_matches_numpy, is_stridex, np_copies, to_sx

xpx = pytest.importorskip("array_api_extra")
pytest.importorskip("array_api_compat")

import stridex as sx

rng = np.random.default_rng(3)
V = rng.normal(size=11)
M = rng.normal(size=(4, 3))
INTS = np.asarray([3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5])
SMALL = np.asarray([1, 5, 7])


def _idx(a, values):
    """An index array in the namespace of ``a``."""
    return sx.asarray(values) if is_stridex(a) else np.asarray(values)


DEPRECATED = pytest.mark.filterwarnings("ignore:`xpx.:DeprecationWarning")


def _case(name, func, *args, marks=()):
    return pytest.param(func, args, id=name, marks=marks)


CASES = [
    _case("atleast_nd", lambda a: xpx.atleast_nd(a, ndim=3), V),
    _case("atleast_nd-0d", lambda a: xpx.atleast_nd(a, ndim=2), np.asarray(2.5)),
    _case("cov", xpx.cov, M),
    _case("cov-1d", xpx.cov, V),
    # expand_dims and broadcast_shapes are deprecated in 0.11 (the 2025.12 standard has them) but public
    _case("expand_dims", lambda a: xpx.expand_dims(a, axis=(0, -1)), M, marks=DEPRECATED),
    _case("kron", xpx.kron, M[:2], M[:3, :2]),
    _case("nunique", xpx.nunique, INTS),
    _case("pad", lambda a: xpx.pad(a, 2), M),
    _case("pad-tuple", lambda a: xpx.pad(a, ((1, 0), (0, 2)), constant_values=-1.0), M),
    _case("setdiff1d", xpx.setdiff1d, INTS, SMALL),
    _case("setdiff1d-unique", lambda a, b: xpx.setdiff1d(a, b, assume_unique=True), np.unique(INTS), SMALL),
    _case("union1d", xpx.union1d, INTS, SMALL),
    _case("isin", xpx.isin, INTS, SMALL),
    _case("sinc", xpx.sinc, V),
    _case("isclose", lambda a, b: xpx.isclose(a, b, rtol=1e-3), V, V * (1 + 1e-4)),
    _case("isclose-ints", xpx.isclose, INTS, INTS[::-1].copy()),
    _case("one_hot", lambda a: xpx.one_hot(a, 10), INTS),
    _case("create_diagonal", xpx.create_diagonal, V[:4]),
    _case("create_diagonal-offset", lambda a: xpx.create_diagonal(a, offset=-1), V[:4]),
    _case("nan_to_num", xpx.nan_to_num, np.asarray([np.nan, np.inf, -np.inf, 1.0])),
    _case("partition", lambda a: xpx.partition(a, 4)[4], V),
    _case("argpartition", lambda a: a[xpx.argpartition(a, 4)][4], V),
    _case("searchsorted", xpx.searchsorted, np.sort(V), V[:3]),
    _case("apply_where", lambda a: xpx.apply_where(a > 0, a, lambda t: t**0.5, fill_value=0.0), V),
    _case("apply_where-2", lambda a, b: xpx.apply_where(a > 0, (a, b), lambda s, t: s * t, lambda s, t: s - t), V, V[::-1]),
    _case("at-set", lambda a: xpx.at(a)[1:3].set(0.0), V),
    _case("at-add-mask", lambda a: xpx.at(a)[a > 0].add(1.0), V),
    _case("at-multiply-index", lambda a: xpx.at(a)[_idx(a, [0, 2])].multiply(2.0), V),
    _case("at-min", lambda a: xpx.at(a)[::2].min(0.0), V),
    _case("lazy_apply", lambda a: xpx.lazy_apply(lambda t: t * 2, a), V),
]


@pytest.mark.parametrize(("func", "args"), CASES)
def test_extra_function_on_stridex_matches_numpy(func, args):
    expected = func(*np_copies(args))
    result = func(*(to_sx(a) for a in args))
    assert_matches_numpy(result, expected)


def test_at_copy_true_leaves_its_input_and_copy_false_writes_into_it():
    a = to_sx(V.copy())
    out = xpx.at(a)[0].set(100.0, copy=True)
    assert float(a[0]) == V[0] and float(out[0]) == 100.0
    view = a[::2]  # copy=False writes through a strided view into the storage it shares with `a`
    out = xpx.at(view)[1].add(1.0, copy=False)
    assert float(a[2]) == V[2] + 1.0 and float(out[1]) == V[2] + 1.0


@DEPRECATED
def test_default_dtype_and_broadcast_shapes():
    assert xpx.default_dtype(sx) == sx.float64
    assert xpx.default_dtype(sx, "integral") == sx.int64
    assert xpx.default_dtype(sx, "complex floating") == sx.complex128
    assert xpx.broadcast_shapes((2, 1), (3,), ()) == (2, 3)


def test_float32_inputs_keep_float32():
    m32 = M.astype(np.float32)
    for func in (xpx.cov, xpx.sinc, lambda a: xpx.pad(a, 1), lambda a: xpx.atleast_nd(a, ndim=3)):
        assert_matches_numpy(func(to_sx(m32)), func(m32), rtol=1e-6, atol=1e-7)
