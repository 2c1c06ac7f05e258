"""Graph breaks under `jit`: Python decisions on traced values and data-dependent shapes, against eager.

Each test runs the same function eagerly and jitted on copies of the same inputs and compares results
(values, dtypes, shapes) and what the function wrote into its inputs; `stats` counts traces, so that a
repeated call whose guards hold is seen to trace nothing.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import stridex as sx
from stridex._transforms import breaks
from stridex._transforms.tracing import ConcretizationError, ConcretizationTypeError, DataDependentShapeError
from tests.helpers import run_in_threads

pytest.importorskip("jax")


def _copy(x):
    return sx.asarray(np.array(x)) if isinstance(x, sx.Array) else x


def _same(a, b):
    a_leaves = a if isinstance(a, (tuple, list)) else (a,)
    b_leaves = b if isinstance(b, (tuple, list)) else (b,)
    assert len(a_leaves) == len(b_leaves)
    for x, y in zip(a_leaves, b_leaves):
        if isinstance(x, sx.Array):
            assert isinstance(y, sx.Array) and x.dtype == y.dtype and x.shape == y.shape, (x, y)
            np.testing.assert_array_equal(np.asarray(x), np.asarray(y))
        else:
            assert x == y and type(x) is type(y), (x, y)


def check(jitted, f, *args):
    """`jitted(*args)` against `f(*args)` eagerly, each on its own copies of the arguments (writes compared)."""
    eager_args = [_copy(a) for a in args]
    jit_args = [_copy(a) for a in args]
    _same(f(*eager_args), jitted(*jit_args))
    for e, j in zip(eager_args, jit_args):
        if isinstance(e, sx.Array):
            _same(e, j)


def test_a_branch_on_a_traced_value_compiles_one_program_per_outcome():
    def f(x):
        if sx.any(x < 0):
            return -x * 2.0
        return x + 1.0

    g = sx.jit(f)
    pos, neg = sx.asarray([1.0, 2.0]), sx.asarray([-1.0, 2.0])
    check(g, f, pos)
    check(g, f, neg)
    assert g.stats["traces"] == 2
    for _ in range(3):  # both paths are cached now: no call traces again
        check(g, f, pos)
        check(g, f, neg)
    assert g.stats["traces"] == 2 and g.stats["breaks"] == 2


def test_two_and_nested_breaks():
    def f(x, y):
        s = float(sx.sum(x))
        if s > 3.0:
            y = y * s
            if int(sx.argmax(y)) == 0:
                return y - 1.0
        return y + s

    g = sx.jit(f)
    for x, y in [([1.0, 1.0], [5.0, 1.0]), ([2.0, 2.0], [5.0, 1.0]), ([2.0, 2.0], [1.0, 5.0])]:
        check(g, f, sx.asarray(x), sx.asarray(y))
    assert g.explain(sx.asarray([2.0, 2.0]), sx.asarray([5.0, 1.0])).breaks[1][0] == "int()"


@pytest.mark.parametrize("convert", [bool, int, float, complex, lambda x: x.__index__(),
                                     lambda x: float(np.asarray(x).sum()), lambda x: np.asarray(x).tolist(),
                                     lambda x: float(np.from_dlpack(x))])
def test_every_conversion_breaks(convert):
    def f(x):
        k = convert(x[0] if x.ndim else x)
        return x * 2 if k else x

    for n in (1, 3000):  # both sides of the aligned-output threshold
        x = sx.reshape(sx.arange(n, dtype=sx.int64), (n,)) if convert not in (bool, int, float, complex) \
            else sx.arange(1, n + 1)
        check(sx.jit(f), f, x)


def test_a_data_dependent_loop():
    def f(x):
        while sx.max(x) > 1.0:
            x = x / 2.0
        return x

    g = sx.jit(f)
    for values in ([8.0, 3.0], [0.5, 0.25], [100.0, 1.0], [8.0, 3.0]):
        check(g, f, sx.asarray(values))
    traces = g.stats["traces"]
    check(g, f, sx.asarray([8.0, 3.0]))  # the same trip count: the cached path
    assert g.stats["traces"] == traces


@pytest.mark.parametrize("n", [5, 3000])
def test_data_dependent_shapes(n):
    def f(x):
        mask = x > 1.0
        vals = sx.unique_values(sx.round(x))
        counts = sx.unique_counts(sx.round(x)).counts
        (nz,) = sx.nonzero(mask)
        reps = sx.repeat(x[:3], sx.astype(x[:3] > 0, sx.int64) + 1)
        return x[mask], vals, counts, nz, reps, sx.sum(x[mask])

    g = sx.jit(f)
    rng = np.random.default_rng(0)
    for _ in range(2):
        check(g, f, sx.asarray(rng.uniform(-2, 4, n)))
    x = sx.asarray(rng.uniform(-2, 4, n))
    check(g, f, x)
    traces = g.stats["traces"]
    check(g, f, x)  # the same data: every guarded length holds
    assert g.stats["traces"] == traces


def test_unique_of_complex_nans_and_signed_zeros():
    def f(x):
        return sx.unique_values(x)

    x = sx.asarray([1 + 1j, complex("nan"), 1 + 1j, 0j, -0.0 + 0j, complex(1, float("nan")), 2j])
    check(sx.jit(f), f, x)
    check(sx.jit(f), f, sx.asarray([np.nan, 0.0, -0.0, np.nan, 1.0]))


def test_boolean_mask_writes_through_views_and_inputs_across_breaks():
    def f(x, y):
        v = x[1:]
        v[v > 2.0] = 0.0  # a data-dependent write through a view of the input
        if sx.sum(x) > 3.0:
            y[y < 1.0] = sx.asarray([7.0])
            x[0] = float(sx.max(y))
        w = sx.flip(x)
        w[w < 1.0] = sx.asarray(sx.arange(float(sx.sum(w < 1.0))))  # as many values as selected
        return x, y[::-1]

    g = sx.jit(f)
    for x, y in [([1.0, 2.0, 3.0, 4.0], [0.5, 2.0]), ([0.0, 0.0, 0.5, 1.5], [0.5, 2.0]),
                 ([5.0, 2.0, 1.0, 0.0], [3.0, 0.0])]:
        check(g, f, sx.asarray(x), sx.asarray(y))


def test_arrays_created_before_a_break_and_closures_carry_over():
    scale = sx.asarray([10.0, 20.0])

    def f(x):
        z = x * scale
        if float(z[0]) > 5.0:
            return {"big": z, "sum": sx.sum(z)}, [x]
        return {"big": -z, "sum": sx.sum(x)}, [z]

    g = sx.jit(f)
    for x in ([1.0, 2.0], [0.1, 2.0], [1.0, 2.0]):
        eager, traced = f(sx.asarray(x)), g(sx.asarray(x))
        _same(eager[0]["big"], traced[0]["big"])
        _same(eager[0]["sum"], traced[0]["sum"])
        _same(eager[1], traced[1])


def test_an_error_after_a_break_is_raised_as_eagerly_and_nothing_is_written():
    def f(x):
        x[0] = 100.0
        if sx.any(~sx.isfinite(x)):
            raise ValueError("input contains non-finite values")
        return x * 2

    g = sx.jit(f)
    check(g, f, sx.asarray([1.0, 2.0]))
    bad = sx.asarray([1.0, np.inf])
    with pytest.raises(ValueError, match="non-finite"):
        g(bad)
    np.testing.assert_array_equal(np.asarray(bad), [100.0, np.inf])  # eagerly, the write came first
    good = sx.asarray([3.0, 4.0])
    _same(g(good), sx.asarray([200.0, 8.0]))  # the cached path still serves good inputs
    np.testing.assert_array_equal(np.asarray(good), [100.0, 4.0])


def test_a_failed_guard_keeps_no_effect_of_the_run():
    def f(x):
        x += 1.0
        if sx.sum(x) > 5.0:
            x *= 10.0
        return x

    g = sx.jit(f)
    check(g, f, sx.asarray([1.0, 1.0]))  # path: sum 4 -> no multiply
    x = sx.asarray([3.0, 3.0])           # the cached path's guard fails on this one: retraced, written once
    g(x)
    np.testing.assert_array_equal(np.asarray(x), [40.0, 40.0])


def test_graph_breaks_false_restores_the_errors():
    with pytest.raises(ConcretizationError):
        sx.jit(lambda x: x if x > 0 else -x, graph_breaks=False)(sx.asarray(1.0))
    with pytest.raises(DataDependentShapeError):
        sx.jit(sx.unique_values, graph_breaks=False)(sx.asarray([1, 1, 2]))


def test_explain_lists_reasons_and_lines():
    def f(x):
        if sx.all(x > 0):  # line of the first break
            x = sx.sqrt(x)
        return sx.unique_values(x)

    report = sx.jit(f).explain(sx.asarray([1.0, 4.0, 4.0]))
    assert [what for what, _, _ in report.breaks] == ["bool()", "the length of unique's result"]
    assert all("test_graph_breaks.py" in where for _, where, _ in report.breaks)
    assert report.breaks[0][2] == "True" and report.breaks[1][2] == "2"
    assert "2 graph break(s)" in str(report)
    assert str(sx.jit(lambda x: x + 1).explain(sx.asarray(1.0))) == "no graph breaks: one program"


def test_grad_inside_jit_works_across_breaks_and_vmap_names_the_break():
    def loss(w):
        y = w * w
        return sx.sum(y) if sx.sum(w) > 0 else -sx.sum(y)  # (a Python branch: the branch taken is differentiated)

    for w in ([1.0, 2.0], [-3.0, 1.0]):
        _same(sx.jit(sx.grad(loss))(sx.asarray(w)), sx.grad(loss)(sx.asarray(w)))

    def leaks(w):  # float() of a value that carries a derivative: its derivative would be dropped at the break
        y = w * w
        return sx.sum(y) if float(sx.sum(w)) > 0 else -sx.sum(y)

    for how in (sx.grad, lambda f: sx.jit(sx.grad(f))):
        with pytest.raises(ConcretizationTypeError, match=r"float\(\) of an array that carries a derivative"):
            how(leaks)(sx.asarray([1.0, 2.0]))
    with pytest.raises(ConcretizationError, match="bool"):
        sx.jit(sx.vmap(lambda r: r if r[0] > 0 else -r))(sx.ones((2, 2)))


def test_too_many_breaks_run_the_call_eagerly_with_a_warning():
    def f(x):
        n = 0
        while float(sx.sum(x)) > 1.0:
            x = x - 1.0
            n += 1
        return x, n

    with pytest.warns(RuntimeWarning, match="graph breaks"):
        out = sx.jit(f)(sx.asarray([breaks.MAX_BREAKS + 10.0]))
    _same(out, f(sx.asarray([breaks.MAX_BREAKS + 10.0])))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _same(sx.jit(f)(sx.asarray([3.0])), f(sx.asarray([3.0])))


def test_guard_values_compare_nan_equal_and_signed_zeros_apart():
    same = breaks.same_value
    assert same(np.array([np.nan, 1.0]), np.array([-np.nan, 1.0]))
    assert not same(np.array(0.0), np.array(-0.0))
    assert not same(np.array(1, np.int64), np.array(1, np.int32))
    assert same(np.array(1 + np.nan * 1j), np.array(1 + np.nan * 1j))


def test_threads_taking_different_branches_agree_with_eager():
    def f(x):
        return x * 2.0 if float(sx.sum(x)) > 0 else -x

    g = sx.jit(f)
    inputs = [sx.asarray([float(i - 4), 1.0]) for i in range(8)]
    results = [None] * len(inputs)

    def work(i):
        for _ in range(20):
            results[i] = g(inputs[i])

    assert run_in_threads(work, list(range(len(inputs)))) == []
    for x, got in zip(inputs, results):
        _same(got, f(x))


def test_breaks_with_aliased_arguments_and_static_arguments():
    def f(a, b, k):
        a[0] = 10.0
        if float(sx.sum(b)) > k:  # b views a's memory (reversed): it sees the write
            b[1] = -1.0
        return a + b

    g = sx.jit(f, static_argnums=2)
    for k in (0.0, 100.0, 0.0):
        base_e, base_j = sx.arange(4.0), sx.arange(4.0)
        _same(f(base_e, base_e[::-1], k), g(base_j, base_j[::-1], k))
        _same(base_e, base_j)


def test_a_closure_sharing_memory_with_the_argument_across_a_break():
    def make():
        base = sx.arange(4.0)
        view = base[1:]  # closed over; shares base's memory

        def f(x):
            x[1] = 50.0  # seen through `view`
            if float(sx.sum(view)) > 10:
                view[2] = -1.0  # seen through `x`
                return view * 1.0
            return x * 1.0

        return base, f

    base_e, f_e = make()
    base_j, f_j = make()
    _same(f_e(base_e), sx.jit(f_j)(base_j))
    _same(base_e, base_j)


def test_a_path_with_breaks_is_a_well_formed_program_that_evaluates_like_eager():
    from stridex._transforms import ir

    def f(x):
        u = sx.unique_values(x)
        return sx.sum(u) if bool(sx.all(u > 0)) else -sx.sum(u)

    x = sx.asarray([3.0, 1.0, 3.0])
    traced = sx.jit(f).trace(x)
    ir.verify(traced.program)
    out = ir.evaluate(traced.program, x)
    assert float(out[0]) == 4.0  # the function's output, then the guarded values
    assert [float(np.asarray(v).sum()) for v in out[1:]] == [2.0, 1.0]


@pytest.mark.parametrize("key", [(True,), (False,), (Ellipsis, True), (0, False), (slice(None), True, 1),
                                 (False, Ellipsis), (1, True, slice(0, 2))])
def test_zero_d_boolean_masks_read_and_write_like_eager(key):
    def with_mask(m):
        return tuple(m if isinstance(k, bool) else k for k in key)

    mask = sx.asarray(next(k for k in key if isinstance(k, bool)))

    def read(a, m):
        return a[with_mask(m)]

    def write(a, m):
        a[with_mask(m)] = 7.0
        return a * 1.0

    x = sx.reshape(sx.arange(6.0), (2, 3))
    check(sx.jit(read), read, x, mask)
    check(sx.jit(write), write, x, mask)


def test_paths_that_keep_failing_each_other_end_in_a_fresh_trace():
    """Two programs may compute a guarded float differently (fusion): path A's observed value can match path
    B's guard and B's match A's. A call runs each path at most once, then traces afresh, so it cannot cycle."""
    from stridex._transforms import jit as jit_module

    def f(x):
        return x * 2.0 if float(sx.sum(x)) > 0 else x

    g = sx.jit(f)
    x = sx.asarray([1.0, 2.0])
    g(x)
    (entry,) = [e for e in g._cache.values() if isinstance(e, jit_module.Branches)]

    class Cycling:
        pure, constants = True, []

        def __init__(self, mine, theirs):
            guard = breaks.Guard(None, np.array(mine), "float()", "here")
            self.traced = type("T", (), {"guards": [guard], "scalar_checks": ()})()
            self.theirs = theirs
            self.runs = 0

        def run(self, leaves):
            self.runs += 1
            raise breaks.GuardFailure(0, [np.array(self.theirs)])

    a, b = Cycling(1.0, 2.0), Cycling(2.0, 1.0)
    entry.paths[:] = [a, b]
    _same(g(x), f(x))
    assert a.runs == 1 and b.runs == 1
