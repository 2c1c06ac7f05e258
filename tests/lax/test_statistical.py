"""Transformation rules of the reduction, searching, sorting and set primitives: jvp/vjp against finite
differences, the documented conventions (ties of max/min, zeros of prod/cumulative_prod), JAX, vmap against
a Python loop, second derivatives, and jit of derivatives against eager ones."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import stridex as sx
from stridex._lax import searching, sorting, utility
from stridex._lax import set as sets
from stridex._lax import statistical as reductions
from stridex._lax.primitive import PRIMITIVES
from tests.autodiff_check import check_batch, check_grads, check_jvp, check_vjp

RNG = np.random.default_rng(20261126)
MODULES = (reductions, utility, searching, sorting, sets)
MINE = sorted(name for name, prim in PRIMITIVES.items()
              if any(getattr(module, name, None) is prim for module in MODULES))


def _distinct(shape):
    """Values with no ties and no zeros (max, min and sort are smooth there)."""
    size = int(np.prod(shape))
    values = RNG.permutation(size) * 0.37 + 0.2 + RNG.uniform(0, 0.05, size)
    return (values * RNG.choice([-1.0, 1.0], size)).reshape(shape)


# --- first derivatives against finite differences --------------------------------------------------------

FIRST = {
    "sum_all": lambda x: sx.sum(x),
    "sum_axis": lambda x: sx.sum(x, axis=1),
    "sum_axes_keepdims": lambda x: sx.sum(x, axis=(0, 2), keepdims=True),
    "sum_float32_accumulated_as_float64": lambda x: sx.sum(x, axis=0, dtype=sx.float64),
    "mean": lambda x: sx.mean(x, axis=(1, 2)),
    "mean_keepdims": lambda x: sx.mean(x, axis=-1, keepdims=True),
    "prod_all": lambda x: sx.prod(x),
    "prod_axes": lambda x: sx.prod(x, axis=(0, 2)),
    "prod_keepdims": lambda x: sx.prod(x, axis=1, keepdims=True),
    "max_all": lambda x: sx.max(x),
    "max_axis": lambda x: sx.max(x, axis=1),
    "min_axes_keepdims": lambda x: sx.min(x, axis=(0, 2), keepdims=True),
    "var": lambda x: sx.var(x, axis=1),
    "var_correction_1": lambda x: sx.var(x, axis=(0, 2), correction=1),
    "var_correction_float": lambda x: sx.var(x, correction=2.5, keepdims=True),
    "std": lambda x: sx.std(x, axis=2),
    "std_correction_1": lambda x: sx.std(x, axis=(0, 1), correction=1, keepdims=True),
    "cumulative_sum": lambda x: sx.cumulative_sum(x, axis=1),
    "cumulative_sum_initial": lambda x: sx.cumulative_sum(x, axis=2, include_initial=True),
    "cumulative_prod": lambda x: sx.cumulative_prod(x, axis=2),
    "cumulative_prod_initial": lambda x: sx.cumulative_prod(x, axis=0, include_initial=True),
    "sort": lambda x: sx.sort(x, axis=1),
    "sort_descending": lambda x: sx.sort(x, axis=2, descending=True),
    "diff": lambda x: sx.diff(x, axis=2),
    "diff_2": lambda x: sx.diff(x, axis=1, n=2),
    "diff_0": lambda x: sx.diff(x, axis=0, n=0),
    "diff_too_long": lambda x: sx.diff(x, axis=0, n=3),
}


@pytest.mark.parametrize("name", sorted(FIRST))
def test_first_derivatives(name):
    check_grads(FIRST[name], [_distinct((2, 3, 4))])


def test_float32_input_gets_float32_gradient():
    x = sx.asarray(_distinct((3, 4)), dtype=sx.float32)
    for f in (lambda v: sx.sum(v, dtype=sx.float64), lambda v: sx.prod(v, dtype=sx.float64),
              lambda v: sx.sum(sx.cumulative_prod(v, axis=1, dtype=sx.float64)), lambda v: sx.std(v)):
        g = sx.grad(f)(x)
        assert g.dtype == sx.float32 and g.shape == (3, 4)


def test_diff_with_prepend_and_append():
    p, x, a = RNG.standard_normal((2, 1)), RNG.standard_normal((2, 4)), RNG.standard_normal((2, 2))
    for n in (0, 1, 2, 4):
        check_grads(lambda p, x, a, n=n: sx.diff(x, axis=1, n=n, prepend=p, append=a), [p, x, a])
    # An integer prepend carries no gradient; the float parts still get theirs.
    ints = sx.asarray(np.array([[1], [2]]))
    check_grads(lambda x: sx.diff(x, axis=1, n=2, prepend=ints), [x])


def test_where_gradient_is_masked_and_none_reaches_the_condition():
    condition = sx.asarray(np.array([[True, False, True], [False, False, True]]))
    x1, x2 = RNG.standard_normal((2, 3)), RNG.standard_normal((3,))
    check_grads(lambda a, b: sx.where(condition, a, b), [x1, x2])  # x2 broadcast: its cotangent is summed
    check_grads(lambda a: sx.where(condition, 1.5, a), [RNG.standard_normal((1, 3))])
    check_grads(lambda a: sx.where(condition, a, 2), [RNG.standard_normal((2, 3))])
    g1, g2 = sx.grad(lambda a, b: sx.sum(sx.where(condition, a, b)), argnums=(0, 1))(sx.asarray(x1), sx.asarray(x2))
    np.testing.assert_array_equal(np.asarray(g1), np.asarray(condition).astype(float))
    np.testing.assert_array_equal(np.asarray(g2), (~np.asarray(condition)).sum(axis=0))
    # A floating condition is read as "non-zero": still no gradient flows into it.
    c = sx.asarray(np.array([0.0, 2.0, -1.0]))
    gc = sx.grad(lambda c, a: sx.sum(sx.where(c, a, 0.0)), argnums=(0, 1))(c, sx.asarray(x2))
    np.testing.assert_array_equal(np.asarray(gc[0]), np.zeros(3))
    np.testing.assert_array_equal(np.asarray(gc[1]), [0.0, 1.0, 1.0])


@settings(max_examples=15, deadline=None)
@given(shape=st.lists(st.integers(1, 4), min_size=1, max_size=3), data=st.data())
def test_reductions_over_drawn_shapes_and_axes(shape, data):
    axes = tuple(sorted(data.draw(st.sets(st.integers(0, len(shape) - 1), min_size=1))))
    keepdims = data.draw(st.booleans())
    x = _distinct(tuple(shape))
    for reduce in (sx.sum, sx.prod, sx.max, sx.mean):
        check_grads(lambda v, reduce=reduce: reduce(v, axis=axes, keepdims=keepdims), [x])
    if np.prod([shape[a] for a in axes]) > 1:
        check_grads(lambda v: sx.var(v, axis=axes, correction=1, keepdims=keepdims), [x])
    axis = data.draw(st.integers(0, len(shape) - 1))
    check_grads(lambda v: sx.cumulative_prod(v, axis=axis, include_initial=keepdims), [x])


# --- the documented conventions --------------------------------------------------------------------------


def test_max_and_min_ties_share_the_gradient_equally():
    x = sx.asarray(np.array([[1.0, 3.0, 3.0, 2.0], [2.0, 2.0, 2.0, 2.0], [0.0, -1.0, 5.0, -1.0]]))
    g = sx.grad(lambda v: sx.sum(sx.max(v, axis=1) * sx.asarray([1.0, 2.0, 3.0])))(x)
    np.testing.assert_allclose(np.asarray(g), [[0, 0.5, 0.5, 0], [0.5, 0.5, 0.5, 0.5], [0, 0, 3, 0]])
    g = sx.grad(lambda v: sx.sum(sx.min(v, axis=1)))(x)
    np.testing.assert_allclose(np.asarray(g), [[1, 0, 0, 0], [0.25] * 4, [0, 0.5, 0, 0.5]])
    # jvp: the tangent of the result is the mean tangent of the tied elements.
    t = sx.asarray(np.arange(12.0).reshape(3, 4))
    _, tangent = sx.jvp(lambda v: sx.max(v, axis=1, keepdims=True), (x,), (t,))
    np.testing.assert_allclose(np.asarray(tangent), [[1.5], [5.5], [10.0]])
    # Over all axes: the two 5s of the whole array share it.
    g = sx.grad(sx.max)(sx.asarray(np.array([[5.0, 1.0], [2.0, 5.0]])))
    np.testing.assert_allclose(np.asarray(g), [[0.5, 0], [0, 0.5]])


def test_max_of_a_slice_with_nan_sends_the_gradient_to_its_nans():
    x = sx.asarray(np.array([[1.0, np.nan, 3.0], [1.0, 2.0, 0.5]]))
    g = sx.grad(lambda v: sx.sum(sx.max(v, axis=1)))(x)
    np.testing.assert_array_equal(np.asarray(g), [[0, 1, 0], [0, 1, 0]])


def test_prod_gradient_at_zeros():
    grad = sx.grad(sx.prod)
    np.testing.assert_array_equal(np.asarray(grad(sx.asarray([1.0, 0.0, 2.0, 3.0]))), [0, 6, 0, 0])
    np.testing.assert_array_equal(np.asarray(grad(sx.asarray([0.0, 4.0, 0.0]))), [0, 0, 0])
    np.testing.assert_array_equal(np.asarray(grad(sx.asarray([0.0]))), [1])
    x = np.array([[2.0, 0.0, 3.0], [0.0, 0.0, 1.5], [1.0, -2.0, 0.5]])
    check_grads(lambda v: sx.prod(v, axis=1), [x])
    check_grads(lambda v: sx.prod(v, axis=0, keepdims=True), [x])
    check_grads(lambda v: sx.prod(v), [np.array([1.5, 0.0, -2.0])])


def test_cumulative_prod_gradient_at_zeros():
    # y = [2, 0, 0]: dy/dx = [[1, 0, 0], [0, 2, 0], [0, 6, 0]], so a cotangent of ones gives [1, 8, 0].
    g = sx.grad(lambda v: sx.sum(sx.cumulative_prod(v)))(sx.asarray([2.0, 0.0, 3.0]))
    np.testing.assert_array_equal(np.asarray(g), [1.0, 8.0, 0.0])
    jac = sx.jacrev(lambda v: sx.cumulative_prod(v, include_initial=True))(sx.asarray([2.0, 0.0, 3.0, 0.0]))
    np.testing.assert_array_equal(np.asarray(jac), [[0, 0, 0, 0], [1, 0, 0, 0], [0, 2, 0, 0], [0, 6, 0, 0],
                                                    [0, 0, 0, 0]])
    x = np.array([[2.0, 0.0, 3.0, 0.5, 0.0], [0.0, 1.5, -1.0, 2.0, 1.0], [1.0, 2.0, -0.5, 1.5, 0.7]])
    check_grads(lambda v: sx.cumulative_prod(v, axis=1), [x])
    check_grads(lambda v: sx.cumulative_prod(v, axis=0, include_initial=True), [x])


def test_var_and_std_with_correction_past_the_sample_size_are_nan():
    x = sx.asarray([1.0, 2.0])
    assert np.isnan(np.asarray(sx.grad(lambda v: sx.var(v, correction=2))(x))).all()
    assert np.isnan(np.asarray(sx.grad(lambda v: sx.std(v, correction=3))(x))).all()


def test_sort_gradient_follows_the_permutation():
    x = sx.asarray(np.array([[3.0, 1.0, 2.0, 1.0], [0.5, -0.5, 0.5, 0.0]]))
    weights = sx.asarray(np.array([1.0, 10.0, 100.0, 1000.0]))
    for descending in (False, True):
        g = sx.grad(lambda v, d=descending: sx.sum(sx.sort(v, axis=1, descending=d) * weights))(x)
        order = np.asarray(sx.argsort(x, axis=1, descending=descending))
        want = np.empty((2, 4))
        np.put_along_axis(want, order, np.broadcast_to(np.asarray(weights), (2, 4)), axis=1)
        np.testing.assert_array_equal(np.asarray(g), want)  # ties keep their own (stable) slot's weight
    _, t = sx.jvp(lambda v: sx.sort(v, axis=1), (x,), (sx.asarray(np.arange(8.0).reshape(2, 4)),))
    np.testing.assert_array_equal(np.asarray(t), [[1, 3, 2, 0], [5, 7, 4, 6]])


def test_non_differentiable_primitives_carry_no_gradient():
    for name in ("reduce_all", "reduce_any", "argmax", "argmin", "count_nonzero", "searchsorted", "nonzero",
                 "argsort", "unique", "isin"):
        assert not PRIMITIVES[name].differentiable, name
    x = sx.asarray(_distinct((3, 4)))

    def f(v):
        picked = sx.take_along_axis(v, sx.argmax(v, axis=1, keepdims=True), axis=1)
        return sx.sum(picked) + sx.sum(sx.astype(sx.count_nonzero(v > 0.0), sx.float64))

    g = np.asarray(sx.grad(f)(x))
    want = np.zeros((3, 4))
    np.put_along_axis(want, np.argmax(np.asarray(x), axis=1)[:, None], 1.0, axis=1)
    np.testing.assert_array_equal(g, want)


# --- against JAX -----------------------------------------------------------------------------------------


def _jax():
    pytest.importorskip("jax")
    import jax
    import jax.numpy as jnp

    from stridex._exec.jax_bridge import x64

    return jax, jnp, x64


AGAINST_JAX = [
    ("sum", lambda m, x: m.sum(m.sum(x * x, axis=0) * m.sin(x[0, :]))),
    ("mean", lambda m, x: m.mean(m.exp(m.mean(x, axis=1, keepdims=True) * x))),
    ("max", lambda m, x: m.sum(m.max(x * x, axis=1) * m.min(x, axis=0)[:3])),
    ("max_ties", lambda m, x: m.sum(m.max(m.concat([x, x[:, :1]], axis=1), axis=1) * m.arange(1.0, 4.0))),
    ("prod", lambda m, x: m.sum(m.prod(x - x[0, 1], axis=1) ** 2)),
    ("var", lambda m, x: m.sum(m.var(x, axis=1, correction=1) * m.std(x, axis=1)) + m.var(x * x)),
    ("sort", lambda m, x: m.sum(m.sort(x * x, axis=1, descending=True)[:, :2] * x[:, 1:3])),
    ("cumsum", lambda m, x: m.sum(m.cumulative_sum(m.sin(x), axis=1, include_initial=True) ** 2)),
    ("cumprod", lambda m, x: m.sum(m.cumulative_prod(x - x[1, 2], axis=0) * x)),
    ("where", lambda m, x: m.sum(m.where(x > 0.5, x * x, m.cos(x)))),
    ("diff", lambda m, x: m.sum(m.diff(x * x, axis=1, n=2) ** 2)),
]


@pytest.mark.parametrize("case", AGAINST_JAX, ids=[c[0] for c in AGAINST_JAX])
def test_grad_and_grad_of_grad_match_jax(case):
    jax, jnp, x64 = _jax()
    _, f = case
    x = _distinct((3, 4))
    w = RNG.standard_normal((3, 4))
    first = sx.grad(lambda v: f(sx, v))(sx.asarray(x))
    second = sx.grad(lambda v: sx.sum(sx.grad(lambda u: f(sx, u))(v) * sx.asarray(w)))(sx.asarray(x))
    with x64():
        want_first = jax.grad(lambda v: f(jnp, v))(jnp.asarray(x))
        want_second = jax.grad(lambda v: jnp.sum(jax.grad(lambda u: f(jnp, u))(v) * w))(jnp.asarray(x))
    np.testing.assert_allclose(np.asarray(first), np.asarray(want_first), rtol=1e-11, atol=1e-12)
    np.testing.assert_allclose(np.asarray(second), np.asarray(want_second), rtol=1e-10, atol=1e-11)


def test_second_derivatives_by_finite_differences():
    x = np.array([[2.0, 0.0, 3.0, 0.5], [1.0, -1.5, 0.0, 2.0], [0.7, 1.2, -0.3, 0.9]])
    for f in (lambda v: sx.prod(v, axis=1), lambda v: sx.cumulative_prod(v, axis=1, include_initial=True),
              lambda v: sx.var(v, axis=0, correction=1), lambda v: sx.std(v, axis=1),
              lambda v: sx.max(v * v, axis=0)):
        def first(v, f=f):
            _, pullback = sx.vjp(f, v)
            out = f(v)
            return pullback(sx.ones(out.shape, dtype=out.dtype))[0]

        check_grads(first, [x], rtol=1e-5, atol=1e-5)
    check_jvp(lambda v: sx.jvp(sx.sort, (v,), (v * v,))[1], [_distinct((5,))])
    check_vjp(lambda v: sx.grad(lambda u: sx.sum(sx.sort(u) ** 3))(v), [_distinct((5,))])


# --- jit of derivatives ----------------------------------------------------------------------------------


def test_jit_of_derivatives_equals_eager():
    pytest.importorskip("jax")
    x = sx.asarray(np.array([[2.0, 0.0, 3.0, 0.5], [1.0, -1.5, 1.0, 2.0], [0.7, 1.2, -0.3, 0.9]]))
    for _, f in AGAINST_JAX:
        g = sx.grad(lambda v, f=f: f(sx, v))
        np.testing.assert_allclose(np.asarray(sx.jit(g)(x)), np.asarray(g(x)), rtol=1e-12, atol=1e-14)

    def push(v, t):
        return sx.jvp(lambda u: (sx.cumulative_prod(u, axis=1), sx.max(u, axis=0), sx.diff(u, n=2)), (v,), (t,))[1]

    t = sx.asarray(RNG.standard_normal((3, 4)))
    for got, want in zip(sx.jit(push)(x, t), push(x, t)):
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-12, atol=1e-14)


# --- batching ------------------------------------------------------------------------------------------

X = _distinct((3, 4, 5))
INTS = RNG.integers(0, 3, (3, 4, 5))

BATCH = [
    ("reduce_sum", lambda x: sx.sum(x, axis=1), [X], 1),
    ("reduce_sum", lambda x: sx.sum(x), [X], 2),
    ("reduce_prod", lambda x: sx.prod(x, axis=(0, 1), keepdims=True), [X], 2),
    ("reduce_max", lambda x: sx.max(x, axis=0, keepdims=True), [X], 1),
    ("reduce_min", lambda x: sx.min(x), [X], 0),
    ("reduce_mean", lambda x: sx.mean(x, axis=-1), [X], 2),
    ("reduce_var", lambda x: sx.var(x, axis=1, correction=1), [X], 0),
    ("reduce_std", lambda x: sx.std(x, axis=0), [X], 2),
    ("reduce_all", lambda x: sx.all(x, axis=1), [INTS], 1),
    ("reduce_any", lambda x: sx.any(x), [INTS], 0),
    ("argmax", lambda x: sx.argmax(x, axis=1), [X], 2),
    ("argmax", lambda x: sx.argmax(x, keepdims=True), [X], 1),
    ("argmin", lambda x: sx.argmin(x), [X], 2),
    ("argmin", lambda x: sx.argmin(x, axis=0, keepdims=True), [X], 1),
    ("count_nonzero", lambda x: sx.count_nonzero(x, axis=(0, 1)), [INTS], 2),
    ("cumulative_sum", lambda x: sx.cumulative_sum(x, axis=1, include_initial=True), [X], 0),
    ("cumulative_prod", lambda x: sx.cumulative_prod(x, axis=0), [X], 1),
    ("diff", lambda x: sx.diff(x, axis=0, n=2), [X], 1),
    ("diff", lambda x, p: sx.diff(x, axis=0, prepend=p, append=p), [X, RNG.standard_normal((1, 5))], (1, None)),
    ("diff", lambda x, p: sx.diff(x, axis=1, prepend=p), [X, RNG.standard_normal((4, 3, 2))], (1, 0)),
    ("where", lambda c, x: sx.where(c, x, 0.5), [INTS > 0, X], (0, 0)),
    ("where", lambda c, x: sx.where(c, x, -x), [np.array([True, False, True, True, False]), X], (None, 1)),
    ("where", lambda c, y: sx.where(c, 1.0, y), [INTS > 0, RNG.standard_normal((4,))], (2, None)),
    ("searchsorted", lambda v: sx.searchsorted(sx.asarray([-1.0, 0.0, 1.0]), v), [X], 1),
    ("searchsorted", lambda s, v: sx.searchsorted(s, v, side="right"), [np.sort(X[:, :, 0], axis=1), X[:, 0]],
     (0, 0)),
    ("searchsorted", lambda s, o: sx.searchsorted(s, 0.5, sorter=o),
     [X[0, :, :3], np.argsort(X[0, :, :3], axis=0)], (1, 1)),
    ("sort", lambda x: sx.sort(x, axis=0), [X], 1),
    ("sort", lambda x: sx.sort(x, descending=True), [INTS], 2),
    ("argsort", lambda x: sx.argsort(x, axis=-1, descending=True), [INTS], 0),
    ("isin", lambda a: sx.isin(a, sx.asarray([0, 2])), [INTS], 1),
    ("isin", lambda a, b: sx.isin(a, b, invert=True), [INTS, INTS[:, 0]], (0, 0)),
    ("isin", lambda a, b: sx.isin(a, b), [INTS[0], INTS[:, 0]], (None, 0)),
    ("isin", lambda b: sx.isin(2, b), [INTS], 2),
]


@pytest.mark.parametrize("case", BATCH, ids=[f"{c[0]}-{i}" for i, c in enumerate(BATCH)])
def test_batch_against_loop(case):
    _, f, args, in_axes = case
    check_batch(f, [sx.asarray(a) for a in args], in_axes=in_axes)


def test_every_primitive_here_has_its_rules_and_is_batch_tested():
    assert {c[0] for c in BATCH} == {name for name in MINE if not PRIMITIVES[name].data_dependent}
    for name in MINE:
        prim = PRIMITIVES[name]
        if prim.differentiable:
            assert prim.jvp is not None and prim.vjp is not None, name
        assert prim.data_dependent or prim.batch is not None, name


def test_vmap_of_derivatives_against_loop():
    xs = sx.asarray(np.stack([_distinct((3, 4)), _distinct((3, 4))]))
    for _, f in AGAINST_JAX:
        check_batch(sx.grad(lambda v, f=f: f(sx, v)), [xs], rtol=1e-12, atol=1e-14)
    x = sx.asarray(np.array([[2.0, 0.0, 3.0, 0.5], [1.0, -1.5, 1.0, 2.0], [0.7, 1.2, -0.3, 0.9]]))
    t = sx.asarray(RNG.standard_normal((3, 4)))
    check_batch(lambda v, s: sx.jvp(lambda u: (sx.cumulative_prod(u), sx.sort(u), sx.prod(u)), (v,), (s,))[1],
                [x, t], rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("is_max", [True, False])
@pytest.mark.parametrize("dtype", [np.float32, np.int16])
def test_argmax_combiner_gives_the_first_extremum_in_any_order(is_max, dtype):
    # XLA may combine partial results in any order (a GPU does from about 10^5 elements): argmax/argmin's
    # combiner must be commutative and associative, or the first NaN/extremum is lost. `lax.argmax`'s is not:
    # it keeps its left operand whenever that is NaN (on a GPU, argmax of 10^5 float64 with NaNs gave the last
    # one). Checked on every pair and triple of (value, index) with NaNs and ties, and against NumPy on every
    # order of combining one small array.
    import itertools

    import jax.numpy as jnp

    floating = np.dtype(dtype).kind == "f"
    combine = searching.first_extremum_combiner(is_max, floating)
    values = [1, 1, 3, -2] + ([np.nan, np.nan] if floating else [3])
    pairs = [(jnp.asarray(v, dtype), jnp.asarray(i, jnp.int32)) for i, v in enumerate(values)]

    def same(p, q):
        return bool(p[1] == q[1]) and (bool(p[0] == q[0]) or (np.isnan(float(p[0])) and np.isnan(float(q[0]))))

    for a, b in itertools.product(pairs, repeat=2):
        assert same(combine(a, b), combine(b, a))
    for a, b, c in itertools.product(pairs, repeat=3):
        assert same(combine(combine(a, b), c), combine(a, combine(b, c)))
    want = (np.argmax if is_max else np.argmin)(np.array(values, dtype))
    for order in itertools.permutations(pairs):
        acc = order[0]
        for p in order[1:]:
            acc = combine(acc, p)
        assert int(acc[1]) == want
