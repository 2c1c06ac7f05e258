"""Transformation rules of the elementwise and transcendental primitives: jvp/vjp against finite differences
and JAX, vmap against a Python loop, second derivatives, and jit of derivatives against eager ones."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import stridex as sx
from stridex._lax import elementwise as _p
from stridex._lax.primitive import PRIMITIVES
from tests.autodiff_check import check_batch, check_grads, check_jvp, check_vjp
from tests.gpu_tolerances import JIT_OF_DERIVATIVES

RNG = np.random.default_rng(20261125)


def _away_from_zero(shape, low=0.4, high=2.0):
    return RNG.uniform(low, high, shape) * RNG.choice([-1.0, 1.0], shape)


def _away_from_steps(shape):
    """Values at least 0.1 from every integer and half-integer (where rounding functions jump)."""
    return RNG.integers(-4, 4, shape) + RNG.choice([0.1, 0.3, 0.6, 0.8], shape) + RNG.uniform(-0.05, 0.05, shape)


# --- first derivatives against finite differences --------------------------------------------------------

UNARY = {
    "negative": (sx.negative, RNG.standard_normal),
    "abs": (sx.abs, _away_from_zero),
    "square": (sx.square, RNG.standard_normal),
    "reciprocal": (sx.reciprocal, _away_from_zero),
    "sign": (sx.sign, _away_from_zero),
    "floor": (sx.floor, _away_from_steps),
    "ceil": (sx.ceil, _away_from_steps),
    "trunc": (sx.trunc, _away_from_steps),
    "round": (sx.round, _away_from_steps),
    "copy": (sx.positive, RNG.standard_normal),
    "imag": (sx.imag, RNG.standard_normal),  # of a real array: zeros, zero derivative
}


@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("shape", [(), (3, 4)])
def test_unary_grads(name, shape):
    f, sample = UNARY[name]
    check_grads(f, [sample(shape)])


BINARY = {
    "add": sx.add,
    "subtract": sx.subtract,
    "multiply": sx.multiply,
    "divide": sx.divide,
    "floor_divide": sx.floor_divide,
    "remainder": sx.remainder,
    "fmod": lambda x1, x2: _p.fmod.bind(*_fmod_operands(x1, x2)),  # (stridex.numpy.fmod's primitive)
    "maximum": sx.maximum,
    "minimum": sx.minimum,
    "copysign": sx.copysign,
}


def _fmod_operands(x1, x2):
    """fmod's primitive takes operands of one dtype (stridex.numpy promotes them first); Python scalars stay weak."""
    if isinstance(x1, sx.Array) and isinstance(x2, sx.Array) and x1.dtype != x2.dtype:
        dtype = sx.result_type(x1, x2)
        return sx.astype(x1, dtype), sx.astype(x2, dtype)
    return x1, x2


def _binary_inputs(name, shape1, shape2):
    x1 = RNG.uniform(-3, 3, shape1)
    x2 = _away_from_zero(shape2, 0.5, 2.0)
    if name in ("floor_divide", "remainder", "fmod"):
        # x1 / x2 stays at least 0.2 from an integer (where these functions jump): x1 is near a half-integer
        # and x2 is +-1 or +-2 (then x1 / x2 is near a multiple of 1/4 that is not an integer).
        x1 = RNG.integers(-4, 4, shape1) + 0.5 + RNG.uniform(-0.05, 0.05, shape1)
        x2 = RNG.choice([-2.0, -1.0, 1.0, 2.0], shape2)
    if name == "copysign":
        x1 = _away_from_zero(shape1)
    return x1, x2


@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("shapes", [((3, 4), (3, 4)), ((3, 4), (4,)), ((2, 1), (1, 3)), ((), (3,))])
def test_binary_grads(name, shapes):
    check_grads(BINARY[name], list(_binary_inputs(name, *shapes)))


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_grads_with_python_scalars(name):
    x1, x2 = _binary_inputs(name, (5,), (5,))
    check_grads(lambda x: BINARY[name](x, 1.3), [x1])
    if name != "copysign":  # copysign requires an array x1 with a float x2 only in this direction
        check_grads(lambda x: BINARY[name](2.6, x), [x2])


@settings(max_examples=15, deadline=None)
@given(shape1=st.lists(st.integers(1, 3), max_size=3), shape2=st.lists(st.integers(1, 3), max_size=2),
       name=st.sampled_from(["add", "subtract", "multiply", "divide", "maximum"]))
def test_binary_grads_broadcasting(shape1, shape2, name):
    shape1, shape2 = tuple(shape1), tuple(shape2)
    try:
        np.broadcast_shapes(shape1, shape2)
    except ValueError:
        return
    check_grads(BINARY[name], list(_binary_inputs(name, shape1, shape2)))


def test_clip_grads():
    x = RNG.uniform(-3, 3, (4, 5))
    low = RNG.uniform(-2, -0.5, (5,))
    high = RNG.uniform(0.5, 2, (4, 1))
    check_grads(lambda x, lo, hi: sx.clip(x, lo, hi), [x, low, high])
    check_grads(lambda x, hi: sx.clip(x, max=hi), [x, high])
    check_grads(lambda x: sx.clip(x, -1.0, 1.0), [x])


# Complex rules, checked through real parameters: f(x, y) = g(x + iy), read back as a real value.
COMPLEX = {
    "abs": sx.abs,
    "sign": sx.sign,
    "square": sx.square,
    "reciprocal": sx.reciprocal,
    "conj": sx.conj,
    "real": sx.real,
    "imag": sx.imag,
    "negative": sx.negative,
    "copy": sx.positive,
    "multiply": lambda z: z * (0.5 - 2j) * z,
    "divide": lambda z: (1 + 2j) / z - z / (3 - 1j),
    "add_subtract": lambda z: (z + 1j) - sx.conj(z) * 2,
}


@pytest.mark.parametrize("name", sorted(COMPLEX))
def test_complex_grads(name):
    g = COMPLEX[name]

    check_grads(lambda x, y: _real_reading(g(x + 1j * y)), [_away_from_zero((3, 2)), _away_from_zero((3, 2))])


def _real_reading(w):
    """A real value that depends on both parts of a complex `w` (a real `w` is only scaled)."""
    if w.dtype.kind != "complex floating":
        return w * 1.5
    return sx.real(w) * 0.7 + sx.imag(w) * 1.3


# --- conventions at ties and at zero -----------------------------------------------------------------


def _pull(f, ct, *args):
    _, pullback = sx.vjp(f, *[sx.asarray(a) for a in args])
    return [np.asarray(c) for c in pullback(sx.asarray(ct))]


def test_ties_share_the_gradient():
    x = np.array([1.0, 2.0, 3.0])
    y = np.array([1.0, 1.0, 4.0])
    ct = np.array([1.0, 2.0, 4.0])
    np.testing.assert_array_equal(_pull(sx.maximum, ct, x, y), [[0.5, 2.0, 0.0], [0.5, 0.0, 4.0]])
    np.testing.assert_array_equal(_pull(sx.minimum, ct, x, y), [[0.5, 0.0, 4.0], [0.5, 2.0, 0.0]])
    _, t = sx.jvp(sx.maximum, (sx.asarray(x), sx.asarray(y)), (sx.asarray([2.0, 2.0, 2.0]), sx.asarray([4.0] * 3)))
    np.testing.assert_array_equal(np.asarray(t), [3.0, 2.0, 4.0])
    np.testing.assert_array_equal(np.asarray(sx.grad(lambda v: sx.maximum(v, v))(sx.asarray(1.5))), 1.0)
    # clip's bounds are ties of its maximum/minimum.
    clipped = _pull(lambda v: sx.clip(v, 1.0, 2.0), np.ones(5), np.array([0.0, 1.0, 1.5, 2.0, 3.0]))
    np.testing.assert_array_equal(clipped[0], [0.0, 0.5, 1.0, 0.5, 0.0])


def test_subgradients_at_zero():
    np.testing.assert_array_equal(_pull(sx.abs, np.ones(3), np.array([-0.0, 0.0, -2.0]))[0], [0.0, 0.0, -1.0])
    z = sx.asarray(np.array([0j, 3 + 4j]))
    _, pullback = sx.vjp(sx.abs, z)
    np.testing.assert_allclose(np.asarray(pullback(sx.asarray([1.0, 1.0]))[0]), [0, 0.6 - 0.8j])
    _, pullback = sx.vjp(sx.sign, z)
    assert np.asarray(pullback(sx.asarray([1 + 1j, 1 + 1j]))[0])[0] == 0
    _, t = sx.jvp(sx.sign, (z,), (sx.asarray([1 + 2j, 1 + 2j]),))
    assert np.asarray(t)[0] == 0
    np.testing.assert_array_equal(_pull(lambda v: sx.copysign(v, -1.0), np.ones(2), np.array([0.0, 2.0]))[0],
                                  [0.0, -1.0])


def test_piecewise_constant_and_remainder():
    x1, x2 = np.array([7.5, -7.5]), np.array([2.0, 2.0])
    for f in (sx.floor_divide, lambda a, b: sx.round(a) + sx.floor(b) + sx.ceil(a) * sx.trunc(b)):
        np.testing.assert_array_equal(_pull(f, np.ones(2), x1, x2), np.zeros((2, 2)))
    g1, g2 = _pull(sx.remainder, np.ones(2), x1, x2)
    np.testing.assert_array_equal(g1, [1.0, 1.0])
    np.testing.assert_array_equal(g2, -np.floor(x1 / x2))


def test_non_differentiable_primitives():
    for name in ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal", "bitwise_and",
                 "bitwise_or", "bitwise_xor", "bitwise_invert", "bitwise_left_shift", "bitwise_right_shift",
                 "logical_and", "logical_or", "logical_xor", "logical_not", "isfinite", "isinf", "isnan", "signbit",
                 "nextafter"):
        assert not PRIMITIVES[name].differentiable, name
    _, t = sx.jvp(lambda v: sx.nextafter(v, 5.0), (sx.asarray([1.0, 2.0]),), (sx.asarray([1.0, 1.0]),))
    np.testing.assert_array_equal(np.asarray(t), [0.0, 0.0])


def test_every_differentiable_elementwise_primitive_is_tested():
    tested = set(UNARY) | set(BINARY) | set(COMPLEX) | {"clip"}
    mine = {name for name, prim in PRIMITIVES.items() if getattr(_p, name, None) is prim}
    assert {name for name in mine if PRIMITIVES[name].differentiable} <= tested


# --- against JAX -----------------------------------------------------------------------------------------


def _jax():
    pytest.importorskip("jax")
    import jax
    import jax.numpy as jnp

    from stridex._exec.jax_bridge import x64

    return jax, jnp, x64


AGAINST_JAX = [
    ("maximum_ties", lambda m, a, b: m.maximum(a, b), [np.array([1.0, 2.0, 3.0]), np.array([1.0, 1.0, 4.0])]),
    ("clip_bounds", lambda m, a, b: m.clip(a, -1.0, b), [np.array([-1.0, 0.5, 2.0, -3.0]), np.array([1.0, 1.0, 2.0, 1.0])]),
    ("rational", lambda m, a, b: (a * a - b) / (m.abs(b) + 1.0) + m.remainder(a, b),
     [RNG.uniform(-2, 2, 6), _away_from_zero(6)]),
    ("complex_abs", lambda m, a, b: m.abs(a * b), [RNG.standard_normal(4) + 1j * RNG.standard_normal(4),
                                                     RNG.standard_normal(4) - 2j]),
    ("complex_parts", lambda m, a, b: m.real(a) * m.imag(b) + m.conj(a) / b, [RNG.standard_normal(4) + 1j,
                                                                               RNG.standard_normal(4) - 2j]),
    ("complex_sign", lambda m, a, b: m.sign(a) * b if m is sx else a / m.abs(a) * b,
     [RNG.standard_normal(4) + 1j * RNG.standard_normal(4), RNG.standard_normal(4) + 0.5j]),
]


@pytest.mark.parametrize("case", AGAINST_JAX, ids=[c[0] for c in AGAINST_JAX])
def test_vjp_matches_jax(case):
    jax, jnp, x64 = _jax()
    _, f, args = case
    out, pullback = sx.vjp(lambda a, b: f(sx, a, b), *[sx.asarray(a) for a in args])
    ct = RNG.standard_normal(out.shape)
    if out.dtype.kind == "complex floating":
        ct = ct + 1j * RNG.standard_normal(out.shape)
    got = pullback(sx.asarray(ct))
    with x64():
        _, jax_pullback = jax.vjp(lambda a, b: f(jnp, a, b), *[jnp.asarray(a) for a in args])
        want = jax_pullback(jnp.asarray(ct))
        for g, w in zip(got, want):
            np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-12, atol=1e-12)


SCALAR_FUNCTIONS = [
    ("poly", lambda m, x: x * x * x / (1.0 + m.abs(x)) - m.square(x - 2.0)),
    ("extremum", lambda m, x: m.maximum(x * x, 2.0 * x) + m.minimum(m.reciprocal(x), x)),
    ("clip", lambda m, x: m.clip(x * x * x, -1.0, 4.0) * x),
    ("copysign", lambda m, x: m.copysign(x * x - 3.0, -x) / (x + 3.0)),
]


@pytest.mark.parametrize("case", SCALAR_FUNCTIONS, ids=[c[0] for c in SCALAR_FUNCTIONS])
def test_grad_and_grad_of_grad_match_jax(case):
    jax, jnp, x64 = _jax()
    _, f = case
    for x in (-1.3, 0.7, 1.4):
        first = sx.grad(lambda v: f(sx, v))(sx.asarray(x))
        second = sx.grad(sx.grad(lambda v: f(sx, v)))(sx.asarray(x))
        with x64():
            want_first = jax.grad(lambda v: f(jnp, v))(jnp.asarray(x))
            want_second = jax.grad(jax.grad(lambda v: f(jnp, v)))(jnp.asarray(x))
        np.testing.assert_allclose(float(first), float(want_first), rtol=1e-12)
        np.testing.assert_allclose(float(second), float(want_second), rtol=1e-12, atol=1e-12)


def test_second_derivatives_by_finite_differences():
    def f(x, y):
        return sx.maximum(x * y, y) / (sx.abs(x) + 1.0) + sx.remainder(x, y) * x

    def first(x, y):
        _, t = sx.jvp(f, (x, y), (sx.ones_like(x), sx.zeros_like(y)))
        return t

    check_grads(first, [RNG.uniform(0.5, 0.9, (3,)), RNG.uniform(1.2, 1.6, (3,))])
    check_vjp(lambda x: sx.grad(lambda v: v * v * sx.reciprocal(v + 3.0))(x), [np.asarray(0.8)])


# --- jit of derivatives ----------------------------------------------------------------------------------


def test_jit_of_grad_equals_grad():
    pytest.importorskip("jax")
    tolerance = JIT_OF_DERIVATIVES.kwargs(scale=8.0)  # the largest term: d/dx (x - 2)**2 = -6.6 at x = -1.3
    for _, f in SCALAR_FUNCTIONS:
        g = sx.grad(lambda v, f=f: f(sx, v))
        jitted = sx.jit(g)
        for x in (-1.3, 0.7):
            np.testing.assert_allclose(np.asarray(jitted(sx.asarray(x))), np.asarray(g(sx.asarray(x))), **tolerance)


def test_jit_of_vjp_and_jvp_equals_eager():
    pytest.importorskip("jax")

    def f(x):
        return sx.maximum(x * x, sx.abs(x - 1.0)) / x + sx.clip(x, 0.6, 1.5)

    x = sx.asarray(RNG.uniform(0.5, 2, (3, 4)))
    ct = sx.asarray(RNG.standard_normal((3, 4)))

    def pull(x, ct):
        return sx.vjp(f, x)[1](ct)[0]

    def push(x, t):
        return sx.jvp(f, (x,), (t,))[1]

    # Terms: g'(x) / x and g(x) / x**2 for g = x * x or |x - 1| are at most 4 on (0.5, 2), times the (co)tangent.
    tolerance = JIT_OF_DERIVATIVES.kwargs(scale=4.0 * float(np.max(np.abs(np.asarray(ct)))))
    np.testing.assert_allclose(np.asarray(sx.jit(pull)(x, ct)), np.asarray(pull(x, ct)), **tolerance)
    np.testing.assert_allclose(np.asarray(sx.jit(push)(x, ct)), np.asarray(push(x, ct)), **tolerance)


# --- batching ------------------------------------------------------------------------------------------

_FLOAT_BINARY = ["add", "subtract", "multiply", "divide", "floor_divide", "remainder", "maximum", "minimum",
                 "copysign", "nextafter", "equal", "not_equal", "less", "less_equal", "greater", "greater_equal"]
_INT_BINARY = ["bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift"]
_BOOL_BINARY = ["logical_and", "logical_or", "logical_xor"]
_FLOAT_UNARY = ["negative", "abs", "square", "reciprocal", "sign", "ceil", "floor", "trunc", "round", "isfinite",
                "isinf", "isnan", "signbit", "copy"]
_COMPLEX_UNARY = ["real", "imag", "conj", "abs", "sign", "square"]


def _function(name):
    return sx.positive if name == "copy" else getattr(sx, name)


def _sample(kind, shape):
    if kind == "float":
        return _away_from_zero(shape)
    if kind == "int":
        return RNG.integers(-20, 20, shape)
    if kind == "shift":
        return RNG.integers(0, 6, shape)
    if kind == "bool":
        return RNG.random(shape) < 0.5
    return RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)


# (shape of x1, in_axes of x1, shape of x2, in_axes of x2): equal ranks, an unbatched operand, and a batched
# per-example scalar against a higher-rank operand batched along its middle axis.
_BINARY_LAYOUTS = [((5, 3), 0, (5, 3), 0), ((3, 5), 1, (3,), None), ((5,), 0, (2, 5, 3), 1), ((4,), None, (5, 4), 0)]


def _binary_cases():
    for name in _FLOAT_BINARY:
        yield name, "float", "float"
    for name in _INT_BINARY:
        yield name, "int", "shift"
    for name in _BOOL_BINARY:
        yield name, "bool", "bool"
    yield "add", "int", "int"
    yield "floor_divide", "int", "float"


@pytest.mark.parametrize("name,kind1,kind2", list(_binary_cases()))
@pytest.mark.parametrize("layout", _BINARY_LAYOUTS)
def test_batch_binary(name, kind1, kind2, layout):
    shape1, axis1, shape2, axis2 = layout
    args = [sx.asarray(_sample(kind1, shape1)), sx.asarray(_sample(kind2, shape2))]
    check_batch(_function(name), args, in_axes=(axis1, axis2))


@pytest.mark.parametrize("name", ["add", "maximum", "remainder", "copysign", "less", "nextafter"])
def test_batch_binary_with_python_scalar(name):
    x = sx.asarray(_sample("float", (4, 3)))
    check_batch(lambda v: _function(name)(v, 1.5), [x], in_axes=1)
    if name not in ("copysign", "nextafter"):
        check_batch(lambda v: _function(name)(2.5, v), [x], in_axes=0)


def _unary_cases():
    for name in _FLOAT_UNARY:
        yield name, "float"
    for name in _COMPLEX_UNARY:
        yield name, "complex"
    yield "bitwise_invert", "int"
    yield "logical_not", "bool"
    yield "abs", "int"
    yield "imag", "float"


@pytest.mark.parametrize("name,kind", list(_unary_cases()))
def test_batch_unary(name, kind):
    x = sx.asarray(_sample(kind, (3, 4)))
    check_batch(_function(name), [x], in_axes=0)
    check_batch(_function(name), [x], in_axes=1)


def test_batch_clip():
    x = sx.asarray(RNG.uniform(-3, 3, (5, 4)))
    low = sx.asarray(RNG.uniform(-2, 0, (5,)))
    high = sx.asarray(RNG.uniform(0, 2, (4,)))
    check_batch(lambda v, lo, hi: sx.clip(v, lo, hi), [x, low, high], in_axes=(0, 0, None))
    check_batch(lambda v, lo, hi: sx.clip(v, lo, hi), [x, low, high], in_axes=(1, None, 0))
    check_batch(lambda v: sx.clip(v, -1.0, 1.0), [x], in_axes=1)
    ints = sx.asarray(RNG.integers(-9, 9, (5, 4)))
    check_batch(lambda v, hi: sx.clip(v, -3, hi), [ints, sx.asarray(RNG.integers(0, 5, (5,)))], in_axes=(0, 0))


def test_every_elementwise_primitive_batches():
    # (fmod, stridex.numpy's, batches in test_fmod_primitive_rules)
    names = {n for n, _, _ in _binary_cases()} | {n for n, _ in _unary_cases()} | {"clip", "fmod"}
    mine = {name for name, prim in PRIMITIVES.items() if getattr(_p, name, None) is prim}
    assert mine <= names, mine - names
    for name in mine:
        assert PRIMITIVES[name].batch is not None, name
        if PRIMITIVES[name].differentiable:
            assert PRIMITIVES[name].jvp is not None and PRIMITIVES[name].vjp is not None, name


def test_vmap_of_derivatives():
    xs = sx.asarray(RNG.uniform(0.5, 2.0, (6,)))
    f = SCALAR_FUNCTIONS[1][1]
    per_example = sx.vmap(sx.grad(lambda v: f(sx, v)))(xs)
    want = [float(sx.grad(lambda v: f(sx, v))(sx.asarray(float(x)))) for x in np.asarray(xs)]
    np.testing.assert_allclose(np.asarray(per_example), want, rtol=1e-13)
    tangents = sx.asarray(RNG.standard_normal((6, 3)))
    x = sx.asarray(RNG.uniform(-2, 2, (3,)))

    def push(t):
        return sx.jvp(lambda v: sx.clip(v * v, 0.5, 2.0) / (sx.abs(v) + 1.0), (x,), (t,))[1]

    check_batch(push, [tangents], in_axes=0, rtol=1e-13)
    check_jvp(lambda v: sx.vmap(lambda r: sx.maximum(r, r * r) * sx.sign(r))(v), [RNG.uniform(0.5, 2, (4, 3))])


# --- transcendental functions ------------------------------------------------------------------------------


def _uniform(low, high):
    return lambda shape: RNG.uniform(low, high, shape)


TRANSCENDENTAL = {
    "exp": _uniform(-2, 2), "expm1": _uniform(-2, 2), "log": _uniform(0.3, 3), "log1p": _uniform(-0.5, 3),
    "log2": _uniform(0.3, 3), "log10": _uniform(0.3, 3), "sqrt": _uniform(0.3, 3), "sin": _uniform(-3, 3),
    "cos": _uniform(-3, 3), "tan": _uniform(-1.2, 1.2), "sinh": _uniform(-2, 2), "cosh": _uniform(-2, 2),
    "tanh": _uniform(-2, 2), "asin": _uniform(-0.9, 0.9), "acos": _uniform(-0.9, 0.9), "atan": _uniform(-3, 3),
    "asinh": _uniform(-3, 3), "acosh": _uniform(1.2, 3), "atanh": _uniform(-0.9, 0.9),
}


@pytest.mark.parametrize("name", sorted(TRANSCENDENTAL))
@pytest.mark.parametrize("shape", [(), (3, 4)])
def test_transcendental_grads(name, shape):
    check_grads(getattr(sx, name), [TRANSCENDENTAL[name](shape)])


@pytest.mark.parametrize("name", sorted(TRANSCENDENTAL))
def test_transcendental_complex_grads(name):
    # z = x + iy with both parts in (0.2, 0.6): away from every branch cut and singularity.
    f = getattr(sx, name)
    check_grads(lambda x, y: _real_reading(f(x + 1j * y)), [RNG.uniform(0.2, 0.6, (3, 2)), RNG.uniform(0.2, 0.6, (3, 2))])


TRANSCENDENTAL_BINARY = {
    "atan2": (sx.atan2, _away_from_zero, _away_from_zero),
    "hypot": (sx.hypot, _away_from_zero, _away_from_zero),
    "logaddexp": (sx.logaddexp, _uniform(-3, 3), _uniform(-3, 3)),
    "pow": (sx.pow, _uniform(0.3, 2.5), _uniform(-2, 2)),
}


@pytest.mark.parametrize("name", sorted(TRANSCENDENTAL_BINARY))
@pytest.mark.parametrize("shapes", [((3, 4), (3, 4)), ((3, 4), (4,)), ((2, 1), (1, 3)), ((), (3,))])
def test_transcendental_binary_grads(name, shapes):
    f, sample_1, sample_2 = TRANSCENDENTAL_BINARY[name]
    check_grads(f, [sample_1(shapes[0]), sample_2(shapes[1])])


@pytest.mark.parametrize("name", sorted(TRANSCENDENTAL_BINARY))
def test_transcendental_binary_grads_with_python_scalars(name):
    f, sample_1, sample_2 = TRANSCENDENTAL_BINARY[name]
    check_grads(lambda x: f(x, 1.7), [sample_1((4,))])
    check_grads(lambda x: f(0.8, x), [sample_2((4,))])


def test_pow_grads():
    x = RNG.uniform(-2, 2, (5,))
    check_grads(lambda v: v ** 3, [x])  # a Python int exponent, negative bases included
    check_grads(lambda v: sx.pow(v, sx.asarray([1, 2, 3, -1, 0])), [_away_from_zero((5,))])  # integer exponents
    check_grads(lambda x, y: _real_reading(sx.pow(x + 1j * y, y + 1j * x)), [RNG.uniform(0.2, 0.6, (4,)),
                                                                            RNG.uniform(0.2, 0.6, (4,))])


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")  # inf - inf in logaddexp's rule
def test_transcendental_conventions():
    # pow: d/dx1 is 0 where x2 == 0 and d/dx2 is 0 where x1 == 0 (0 * log 0 is not NaN); hypot and atan2
    # take 0 at the origin; logaddexp splits evenly between equal infinities.
    zero, two = sx.asarray(0.0), sx.asarray(2.0)
    assert float(sx.grad(lambda v: v ** 0.0)(zero)) == 0.0
    assert float(sx.grad(lambda v: v ** 1.0)(zero)) == 1.0
    assert float(sx.grad(lambda v: sx.pow(zero, v))(two)) == 0.0
    assert float(sx.grad(lambda v: sx.pow(0.0, v))(two)) == 0.0
    assert float(sx.grad(lambda v: sx.hypot(v, 0.0))(zero)) == 0.0
    assert [float(g) for g in sx.grad(sx.atan2, argnums=(0, 1))(zero, zero)] == [0.0, 0.0]
    for infinity in (np.inf, -np.inf):
        inf = sx.asarray(infinity)
        assert [float(g) for g in sx.grad(sx.logaddexp, argnums=(0, 1))(inf, inf)] == [0.5, 0.5]
    assert [float(g) for g in sx.grad(sx.logaddexp, argnums=(0, 1))(sx.asarray(np.inf), two)] == [1.0, 0.0]
    # ... computed without selects, so second derivatives there are finite too.
    assert float(sx.grad(sx.grad(lambda v: v ** 0.0))(zero)) == 0.0
    assert float(sx.grad(sx.grad(lambda v: sx.pow(zero, v)))(two)) == 0.0
    assert float(sx.grad(sx.grad(lambda v: sx.hypot(v, 0.0) * v))(zero)) == 0.0


TRANSCENDENTAL_AGAINST_JAX = [
    ("real", lambda m, a, b: m.sin(a) * m.exp(-a * b) + m.log1p(a * a) / m.cosh(b) + m.atan2(a, b)
     + m.logaddexp(a, b) * m.hypot(a, b) - m.pow(m.abs(b), a) + m.tanh(m.expm1(b)) + m.sqrt(a * a + 1.0),
     [RNG.uniform(-2, 2, 6), _away_from_zero(6)]),
    ("inverse", lambda m, a, b: m.asin(a) * m.acos(b) + m.atan(a / b) + m.asinh(b) * m.atanh(a) + m.acosh(2.0 + a)
     + m.log2(1.5 + a) - m.log10(1.5 + b) + m.tan(a) * m.log(1.5 + b), [RNG.uniform(-0.9, 0.9, 6),
                                                                       RNG.uniform(-0.9, 0.9, 6)]),
    ("complex", lambda m, a, b: m.exp(a) * m.log(b) + m.sqrt(a) * m.sin(b) - m.pow(a, b) + m.tanh(a) / m.cosh(b)
     + m.acosh(a) + m.asin(b) * m.atan(a) + m.log1p(a * b),
     [RNG.uniform(0.2, 0.6, 4) + 0.4j, RNG.uniform(0.2, 0.6, 4) - 0.3j]),
]


@pytest.mark.parametrize("case", TRANSCENDENTAL_AGAINST_JAX, ids=[c[0] for c in TRANSCENDENTAL_AGAINST_JAX])
def test_transcendental_vjp_matches_jax(case):
    test_vjp_matches_jax(case)


def test_transcendental_grad_of_grad_jit_and_vmap():
    jax, jnp, x64 = _jax()

    def f(m, x):
        return m.exp(m.sin(x)) * m.log1p(x * x) + m.pow(x * x + 1.0, m.cos(x)) + m.atan2(x, 1.5) + m.logaddexp(x, -x)

    g = sx.grad(lambda v: f(sx, v))
    gg = sx.grad(g)
    jitted = sx.jit(g)
    xs = [-1.1, 0.4, 1.7]
    with x64():
        jg = jax.grad(lambda v: f(jnp, v))
        jgg = jax.grad(jg)
        for x in xs:
            np.testing.assert_allclose(float(g(sx.asarray(x))), float(jg(jnp.asarray(x))), rtol=1e-12)
            np.testing.assert_allclose(float(gg(sx.asarray(x))), float(jgg(jnp.asarray(x))), rtol=1e-11)
            # Terms: exp(sin x) <= e, pow(x * x + 1, cos x) <= 1.5, each term of the derivative below 3 at these x.
            np.testing.assert_allclose(float(jitted(sx.asarray(x))), float(g(sx.asarray(x))),
                                       **JIT_OF_DERIVATIVES.kwargs(scale=4.0))
    per_example = sx.vmap(g)(sx.asarray(xs))
    np.testing.assert_allclose(np.asarray(per_example), [float(g(sx.asarray(x))) for x in xs], rtol=1e-13)


_TRANSCENDENTAL_BINARY_KINDS = {"atan2": "float", "hypot": "float", "logaddexp": "float", "pow": "positive"}


@pytest.mark.parametrize("name", sorted(TRANSCENDENTAL))
def test_batch_transcendental_unary(name):
    x = sx.asarray(TRANSCENDENTAL[name]((3, 4)))
    check_batch(getattr(sx, name), [x], in_axes=1)
    z = sx.asarray(RNG.uniform(0.2, 0.6, (3, 4)) + 1j * RNG.uniform(0.2, 0.6, (3, 4)))
    check_batch(getattr(sx, name), [z], in_axes=0)


@pytest.mark.parametrize("name", sorted(TRANSCENDENTAL_BINARY))
@pytest.mark.parametrize("layout", _BINARY_LAYOUTS)
def test_batch_transcendental_binary(name, layout):
    f, sample_1, sample_2 = TRANSCENDENTAL_BINARY[name]
    shape1, axis1, shape2, axis2 = layout
    check_batch(f, [sx.asarray(sample_1(shape1)), sx.asarray(sample_2(shape2))], in_axes=(axis1, axis2))


def test_batch_integer_pow():
    base = sx.asarray(RNG.integers(-4, 5, (4, 3)))
    check_batch(lambda b, e: sx.pow(b, e), [base, sx.asarray(RNG.integers(0, 4, (3,)))], in_axes=(1, 0))


def test_every_transcendental_primitive_has_its_rules():
    from stridex._lax import transcendental as _t

    names = set(TRANSCENDENTAL) | set(TRANSCENDENTAL_BINARY) | {"cbrt"}  # (cbrt: stridex.numpy's, tested below)
    mine = {name for name, prim in PRIMITIVES.items() if getattr(_t, name, None) is prim}
    assert mine == names, mine ^ names
    for name in mine:
        prim = PRIMITIVES[name]
        assert prim.jvp is not None and prim.vjp is not None and prim.batch is not None, name


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
def test_logaddexp_derivative_of_a_nan_operand_is_nan():
    # (it was 0.5 each: the rule took every NaN x2 - x1 for two equal infinities; JAX gives NaN)
    nan, two = sx.asarray(np.nan), sx.asarray(2.0)
    assert all(np.isnan(float(g)) for g in sx.grad(sx.logaddexp, argnums=(0, 1))(nan, two))
    assert np.isnan(float(sx.grad(lambda v: sx.logaddexp(v, 0.0))(nan)))


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
def test_multiply_by_a_boolean_mask_under_jit_keeps_nan_times_false():
    # XLA rewrote x * convert(mask) into select(mask, x, 0): under jit NaN * False gave 0 where eager gives NaN (so the
    # derivative of expm1(minimum(x, 0)) at a NaN x was NaN eagerly and 0 under jit)
    from stridex._lax import elementwise as E

    x = sx.asarray([np.nan, np.inf, -np.inf, -3.0, 2.0, -0.0, np.nan])
    mask = sx.asarray([False, False, False, False, True, True, True])
    for a, b in ((x, mask), (mask, x)):
        eager = np.asarray(E.multiply.bind(a, b))
        assert np.asarray(sx.jit(lambda p, q: E.multiply.bind(p, q))(a, b)).tobytes() == eager.tobytes()
    z = sx.asarray([complex(np.nan, 1.0), complex(np.inf, 0.0), 2 - 1j])
    m = sx.asarray([False, False, True])
    eager = np.asarray(E.multiply.bind(z, m))
    jitted = np.asarray(sx.jit(lambda p, q: E.multiply.bind(p, q))(z, m))
    np.testing.assert_array_equal(np.isnan(jitted), np.isnan(eager))
    g = lambda v: sx.sum(sx.expm1(sx.minimum(v, 0.0)))  # noqa: E731
    v = sx.asarray([np.nan, 1.0, -1.0])
    assert np.asarray(sx.jit(sx.grad(g))(v)).tobytes() == np.asarray(sx.grad(g)(v)).tobytes()


def test_cbrt_primitive_rules():
    # stridex.numpy.cbrt's record (real floating inputs only, as NumPy's kernel): values against NumPy eagerly,
    # the lowering against the eager rule, the derivative against finite differences, batching against a loop.
    from stridex._lax import transcendental as _t
    from tests.lowering_check import check_primitive_lowering

    x = RNG.uniform(-3, 3, (3, 4))
    x[0, :3] = [27.0, -8.0, 0.0]
    np.testing.assert_array_equal(np.asarray(_t.cbrt.bind(sx.asarray(x))), np.cbrt(x))
    check_primitive_lowering(_t.cbrt, sx.asarray(x), rtol=1e-15)
    check_grads(lambda v: _t.cbrt.bind(v), [_away_from_zero((3, 4))])
    check_batch(lambda v: _t.cbrt.bind(v), [sx.asarray(x)], in_axes=1)


def test_fmod_primitive_rules():
    from tests.lowering_check import check_primitive_lowering

    x1 = RNG.uniform(-9, 9, (4, 5))
    x2 = _away_from_zero((4, 5), 0.5, 3.0)
    np.testing.assert_array_equal(np.asarray(_p.fmod.bind(sx.asarray(x1), sx.asarray(x2))), np.fmod(x1, x2))
    check_primitive_lowering(_p.fmod, sx.asarray(x1), sx.asarray(x2), rtol=0.0)
    ints = (RNG.integers(-20, 20, 12), np.array([3, -3, 0, 7] * 3))
    np.testing.assert_array_equal(np.asarray(_p.fmod.bind(sx.asarray(ints[0]), sx.asarray(ints[1]))),
                                  np.where(ints[1] == 0, 0, np.fmod(ints[0], np.where(ints[1] == 0, 1, ints[1]))))
    check_primitive_lowering(_p.fmod, sx.asarray(ints[0]), sx.asarray(ints[1]), rtol=0.0)
    check_batch(lambda a, b: _p.fmod.bind(a, b), [sx.asarray(x1), sx.asarray(x2.T.copy())], in_axes=(0, 1))
