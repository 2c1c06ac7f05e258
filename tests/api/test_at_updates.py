"""`x.at[idx]` (stridex/_api/at_updates.py, stridex/_lax/updates.py) against JAX's `.at` with 64-bit types on: every
method x every mode x index kind (repeated, negative, out-of-range indices, slices beside arrays, masks), values with
NaN, +-inf and -0.0, in float64, float32 and int32; under `jit` (one gather or scatter in the program) against eager,
`grad` against JAX's, `vmap` against a loop, on a JAX device (cpu:1); `x` and its views never written; the errors."""

from __future__ import annotations

import re

import numpy as np
import pytest

import stridex as sx
from tests.jax_reference import DEVICE, assert_close, jax, jnp

METHODS = ("set", "add", "subtract", "multiply", "divide", "power", "min", "max", "apply", "get")
MODES = (None, "promise_in_bounds", "clip", "drop", "fill")
SPECIAL = np.array([np.nan, -0.0, np.inf, -np.inf, 2.5, -1.25, 0.0, 3.0])

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning", "ignore::FutureWarning")


def data(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "i":
        return rng.integers(-5, 6, size=shape).astype(dtype)
    values = rng.standard_normal(shape) * 3
    flat = values.reshape(-1)
    flat[: min(flat.size, len(SPECIAL))] = SPECIAL[: flat.size]
    return values.astype(dtype)


# name: (x shape, key builder over an array module `m` (its `asarray`), whether some index is out of range)
KEYS = {
    "int": ((6,), lambda m: 2, False),
    "negative_int": ((6,), lambda m: -1, False),
    "int_out_of_range": ((6,), lambda m: 9, True),
    "negative_out_of_range": ((6,), lambda m: -9, True),
    "repeated": ((6,), lambda m: m.asarray([1, 1, 4, 1]), False),
    "repeated_negative": ((6,), lambda m: m.asarray([-1, 5, 0, -6]), False),
    "out_of_range_array": ((6,), lambda m: m.asarray([7, 1, -8, 1, 2]), True),
    "two_d_index": ((5,), lambda m: m.asarray([[0, 1], [1, 4]]), False),
    "slice": ((7,), lambda m: slice(1, None, 2), False),
    "row_and_slice": ((4, 3), lambda m: (m.asarray([3, 0, 3]), slice(None, 2)), False),
    "separated": ((3, 4, 5), lambda m: (m.asarray([0, 2, 2]), slice(1, 3), m.asarray([4, 0, 4])), False),
    "int_beside_array": ((3, 4, 5), lambda m: (slice(None), 1, m.asarray([[0], [3]])), False),
    "ellipsis_newaxis": ((3, 4), lambda m: (Ellipsis, None, m.asarray([1, 1])), False),
    "broadcast_pair_oob": ((4, 5), lambda m: (m.asarray([[0], [5]]), m.asarray([1, 1, -1])), True),
}


def _value_shape(shape, key):
    with jax.enable_x64(True):
        return jnp.zeros(shape)[key].shape


def run_jax(x, key, method, values, **kwargs):
    with jax.enable_x64(True):
        ref = jnp.asarray(x).at[key(jnp)]
        if method == "get":
            return np.asarray(ref.get(**kwargs))
        if method == "apply":
            return np.asarray(ref.apply(lambda v: v * 2 + 1, **kwargs))
        return np.asarray(getattr(ref, method)(jnp.asarray(values), **kwargs))


def run_sx(x, key, method, values, **kwargs):
    ref = x.at[key(sx)]
    if method == "get":
        return ref.get(**kwargs)
    if method == "apply":
        return ref.apply(lambda v: v * 2 + 1, **kwargs)
    return getattr(ref, method)(values, **kwargs)


def values_for(shape, key, dtype, seed=1):
    vshape = _value_shape(shape, key(jnp))
    return data(vshape, dtype, seed) if vshape else np.asarray(data((1,), dtype, seed)[0])


def _kwargs(method, mode):
    kwargs = {} if mode is None else {"mode": mode}
    if method == "get" and mode == "fill":
        kwargs["fill_value"] = -7
    return kwargs


def _skip(method, mode, out_of_range, dtype):
    if out_of_range and mode == "promise_in_bounds":
        pytest.skip("promise_in_bounds promises the indices are in range")
    if method in ("divide",) and np.dtype(dtype).kind == "i":
        return
    if method == "power" and np.dtype(dtype).kind == "i":
        pytest.skip("integer powers of negative exponents are undefined in both")


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("name", list(KEYS))
def test_eager_against_jax(name, method, mode, dtype):
    shape, key, out_of_range = KEYS[name]
    _skip(method, mode, out_of_range, dtype)
    x = data(shape, dtype)
    v = values_for(shape, key, dtype)
    if method == "power" and np.dtype(dtype).kind == "f":
        v = np.abs(v).astype(dtype)
    kwargs = _kwargs(method, mode)
    want = run_jax(x, key, method, v, **kwargs)
    xs = sx.asarray(x)
    got = run_sx(xs, key, method, sx.asarray(v), **kwargs)
    assert_close(got, want, ulps=2, what=f"{name} {method} {mode}", signed_zeros=method in ("set", "get"))
    np.testing.assert_array_equal(np.asarray(xs), x)  # x is never written


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("name", ["repeated", "out_of_range_array", "separated", "int_out_of_range",
                                  "broadcast_pair_oob"])
def test_jit_is_one_gather_or_scatter_and_equals_eager(name, method, mode):
    shape, key, out_of_range = KEYS[name]
    _skip(method, mode, out_of_range, np.float64)
    x = data(shape, np.float64)
    v = values_for(shape, key, np.float64)
    if method == "power":
        v = np.abs(v)
    kwargs = _kwargs(method, mode)

    def f(x, v):
        return run_sx(x, key, method, v, **kwargs)

    eager = f(sx.asarray(x), sx.asarray(v))
    jitted = sx.jit(f)
    got = jitted(sx.asarray(x), sx.asarray(v))
    assert_close(got, np.asarray(eager), ulps=2, what=f"{name} {method} {mode}", signed_zeros=True)
    if method != "apply":  # (apply is a loop over counts: one scatter, then the loop; JAX reads or writes one
        # element at a static integer by a (dynamic) slice)
        text = jitted.lower(sx.asarray(x), sx.asarray(v)).as_text()
        kinds = "gather|dynamic_slice|slice" if method == "get" else "scatter|dynamic_update_slice"
        assert len(re.findall(rf'["\s]stablehlo\.({kinds})\b', text)) == 1, text


_VALUE_RULES = {
    "set": lambda r, v: r.set(v), "add": lambda r, v: r.add(v), "subtract": lambda r, v: r.subtract(v),
    "min": lambda r, v: r.min(v), "max": lambda r, v: r.max(v),
    "divide": lambda r, v: r.divide(v, unique_indices=True), "power": lambda r, v: r.power(v, unique_indices=True),
    "multiply_unique": lambda r, v: r.multiply(v, unique_indices=True),
}


@pytest.mark.parametrize("mode", [None, "clip", "drop", "fill"])
@pytest.mark.parametrize("method", list(_VALUE_RULES))
@pytest.mark.parametrize("repeated", [False, True])
def test_grad_against_jax(method, mode, repeated):
    if repeated and method in ("divide", "power", "multiply_unique"):
        pytest.skip("JAX differentiates a scatter multiply with unique indices only (see the finite-difference test)")
    rng = np.random.default_rng(3)
    x = rng.standard_normal(6) + 2.0
    index = np.array([4, 1, 4, 0]) if repeated else np.array([4, 1, 7, 0])
    if method in ("multiply_unique", "divide", "power"):
        index = np.array([4, 1, 7, 0]) if mode in ("drop", "fill") else np.array([4, 1, 5, 0])
    v = np.abs(rng.standard_normal(4)) + 0.5
    if method in ("min", "max"):
        v[0] = x[4]  # a tie with the operand
        if repeated:
            v[2] = v[0]  # and between updates
    kwargs = {} if mode is None else {"mode": mode}
    rule = _VALUE_RULES[method]
    jax_index, jax_kwargs = index, kwargs
    if method in ("min", "max") and mode == "clip":
        # JAX's rule for a clipped scatter min/max reads its coefficients through gathers that drop the clipped
        # index, so its derivative is wrong there (jax.grad(lambda x: sum(x.at[[7]].min(0.5, mode="clip")))
        # gives 1 for x[5], which the value does not depend on): the reference clips the indices itself.
        jax_index, jax_kwargs = np.clip(index, 0, 5), {}

    def loss_jax(x, v):
        return jnp.sum(jnp.sin(rule(x.at[jnp.asarray(jax_index)], v) if not jax_kwargs else
                               _with(rule, x.at[jnp.asarray(jax_index)], v, jax_kwargs)))

    def loss_sx(x, v):
        return sx.sum(sx.sin(rule(x.at[sx.asarray(index)], v) if not kwargs else
                             _with(rule, x.at[sx.asarray(index)], v, kwargs)))

    with jax.enable_x64(True):
        want = [np.asarray(g) for g in jax.grad(loss_jax, argnums=(0, 1))(jnp.asarray(x), jnp.asarray(v))]
    got = sx.grad(loss_sx, argnums=(0, 1))(sx.asarray(x), sx.asarray(v))
    for g, w, what in zip(got, want, ("x", "v")):
        assert_close(g, w, ulps=8, atol=1e-14, what=f"{method} {mode} d/d{what}")
    jitted = sx.jit(sx.grad(loss_sx, argnums=(0, 1)))(sx.asarray(x), sx.asarray(v))
    for g, w in zip(jitted, want):
        assert_close(g, w, ulps=8, atol=1e-14, what=f"{method} {mode} under jit")
    # jvp against JAX's
    tx, tv = rng.standard_normal(6), rng.standard_normal(4)
    with jax.enable_x64(True):
        _, want_t = jax.jvp(loss_jax, (jnp.asarray(x), jnp.asarray(v)), (jnp.asarray(tx), jnp.asarray(tv)))
    _, got_t = sx.jvp(loss_sx, (sx.asarray(x), sx.asarray(v)), (sx.asarray(tx), sx.asarray(tv)))
    assert_close(got_t, np.asarray(want_t), ulps=16, atol=1e-13, what=f"{method} {mode} jvp")


def _with(rule, ref, v, kwargs):
    """`rule` with the mode passed: the rules above call the methods positionally."""
    name = {"set": "set", "add": "add", "subtract": "subtract", "min": "min", "max": "max", "divide": "divide",
            "power": "power"}
    for method, fn in _VALUE_RULES.items():
        if fn is rule:
            if method in ("multiply_unique", "divide", "power"):
                return getattr(ref, method.replace("_unique", ""))(v, unique_indices=True, **kwargs)
            return getattr(ref, name[method])(v, **kwargs)
    raise AssertionError(rule)


@pytest.mark.parametrize("mode", [None, "clip", "fill"])
def test_get_grad_against_jax(mode):
    x = np.arange(5.0) + 0.5
    index = np.array([[0, 7], [4, -9]]) if mode else np.array([[0, 3], [4, 4]])
    kwargs = {} if mode is None else {"mode": mode, "fill_value": 0.0} if mode == "fill" else {"mode": mode}
    with jax.enable_x64(True):
        want = jax.grad(lambda x: jnp.sum(x.at[jnp.asarray(index)].get(**kwargs) ** 2))(jnp.asarray(x))
    got = sx.grad(lambda x: sx.sum(x.at[sx.asarray(index)].get(**kwargs) ** 2))(sx.asarray(x))
    assert_close(got, np.asarray(want), what=f"get {mode}")


def test_multiply_with_repeated_indices_differentiates_exactly():
    """JAX refuses (NotImplementedError); stridex gives the product rule: checked against finite differences."""
    x = np.array([1.5, -2.0, 0.5])
    index = sx.asarray([1, 1, 2, 1])
    v = np.array([0.7, 0.0, 3.0, -1.25])

    def f(v):
        return sx.sum(sx.asarray(x).at[index].multiply(v) * sx.asarray([1.0, 2.0, 3.0]))

    g = np.asarray(sx.grad(f)(sx.asarray(v)))
    h = 1e-6
    fd = [(float(f(sx.asarray(v + h * e))) - float(f(sx.asarray(v - h * e)))) / (2 * h) for e in np.eye(4)]
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("method", ["set", "add", "subtract", "multiply", "divide", "power", "min", "max", "get"])
def test_vmap_against_a_loop(method):
    x = data((3, 6), np.float64, seed=4)
    v = data((3, 4), np.float64, seed=5)
    index = np.array([[1, 1, 5, 0], [2, 9, 2, -1], [0, 0, 0, 0]])

    def f(x, i, v):
        ref = x.at[i]
        return ref.get(mode="fill") if method == "get" else getattr(ref, method)(v)

    loop = [np.asarray(f(sx.asarray(x[k]), sx.asarray(index[k]), sx.asarray(v[k]))) for k in range(3)]
    got = sx.vmap(f)(sx.asarray(x), sx.asarray(index), sx.asarray(v))
    assert_close(got, np.stack(loop), what=f"{method} batched indices")
    got = sx.vmap(f, in_axes=(0, None, 0))(sx.asarray(x), sx.asarray(index[0]), sx.asarray(v))
    loop = [np.asarray(f(sx.asarray(x[k]), sx.asarray(index[0]), sx.asarray(v[k]))) for k in range(3)]
    assert_close(got, np.stack(loop), what=f"{method} shared indices")
    got = sx.vmap(f, in_axes=(1, None, None), out_axes=1)(sx.asarray(x.T.copy()), sx.asarray(index[0]),
                                                          sx.asarray(v[0]))
    loop = [np.asarray(f(sx.asarray(x[k]), sx.asarray(index[0]), sx.asarray(v[0]))) for k in range(3)]
    assert_close(got, np.stack(loop, axis=1), what=f"{method} batch axis 1")


def test_vmap_over_the_rows_of_a_matrix_with_a_separated_key():
    x = data((2, 3, 4, 5), np.float64, seed=6)
    v = data((3, 2), np.float64, seed=7)

    def f(x, v):
        return x.at[sx.asarray([0, 2, 2]), 1:3, sx.asarray([4, 0, 4])].add(v)  # (indexed shape (3, 2))

    loop = np.stack([np.asarray(f(sx.asarray(x[k]), sx.asarray(v))) for k in range(2)])
    assert_close(sx.vmap(f, in_axes=(0, None))(sx.asarray(x), sx.asarray(v)), loop)


@pytest.mark.parametrize("method", ["set", "add", "max", "divide", "power", "get", "scalar"])
def test_on_a_device(method):
    x = data((8,), np.float64)
    index = np.array([1, 1, 9, -2])
    v = data((4,), np.float64, seed=2)
    on_device = sx.asarray(x, device=DEVICE)

    def f(x, i, v):
        ref = x.at[i]
        if method == "scalar":
            return ref.set(2.5)
        return ref.get(mode="fill") if method == "get" else getattr(ref, method)(v)

    got = f(on_device, sx.asarray(index, device=DEVICE), sx.asarray(v, device=DEVICE))
    assert got.device == DEVICE
    assert_close(np.asarray(got.to_device("cpu")), np.asarray(f(sx.asarray(x), sx.asarray(index), sx.asarray(v))))
    np.testing.assert_array_equal(np.asarray(on_device.to_device("cpu")), x)
    g = sx.grad(lambda x: sx.sum(f(x, sx.asarray(index, device=DEVICE), sx.asarray(v, device=DEVICE)) ** 2))(
        on_device)
    assert g.device == DEVICE


def test_x_and_its_views_are_never_written():
    base = sx.asarray(np.arange(12.0).reshape(3, 4))
    view = base[1:, ::2]  # a strided view sharing base's memory
    before_base, before_view = np.asarray(base).copy(), np.asarray(view).copy()
    for method in ("set", "add", "subtract", "multiply", "divide", "power", "min", "max"):
        out = getattr(view.at[0, sx.asarray([1, 1])], method)(5.0)
        assert out.shape == view.shape
        out[...] = -1.0  # the result is a new array: writing it writes nothing else
    view.at[:, 0].apply(lambda v: v + 100.0)
    view.at[0].get()
    np.testing.assert_array_equal(np.asarray(base), before_base)
    np.testing.assert_array_equal(np.asarray(view), before_view)

    @sx.jit
    def f(x):
        return x.at[0, 1].set(99.0)

    f(view)
    np.testing.assert_array_equal(np.asarray(base), before_base)


def test_masks_and_lists_and_numpy_indices():
    x = np.arange(6.0)
    with jax.enable_x64(True):
        want = np.asarray(jnp.asarray(x).at[jnp.asarray(x) > 2].add(10.0))
        want_list = np.asarray(jnp.asarray(x).at[np.array([0, 0, 5])].multiply(2.0))
    assert_close(sx.asarray(x).at[sx.asarray(x) > 2].add(10.0), want)
    assert_close(sx.asarray(x).at[[0, 0, 5]].multiply(2.0), want_list)
    assert_close(sx.asarray(x).at[np.array([0, 0, 5])].multiply(2.0), want_list)


def test_values_broadcast_and_dtypes():
    x = sx.zeros((3, 4), dtype=sx.float32)
    out = x.at[:, sx.asarray([0, 0])].add(sx.asarray([1.0, 2.0], dtype=sx.float32))
    assert out.dtype == sx.float32
    np.testing.assert_array_equal(np.asarray(out)[:, 0], [3.0, 3.0, 3.0])
    assert sx.zeros(3, dtype=sx.int32).at[0].set(7).dtype == sx.int32
    assert sx.arange(3).at[1].divide(2).dtype == sx.float64  # (JAX's: an integer x gives a floating result)


def test_errors():
    x = sx.zeros(4)
    with pytest.raises(ValueError, match="mode must be one of"):
        x.at[0].set(1.0, mode="wrap")
    with pytest.raises(TypeError, match="float64"):
        x.at[sx.asarray([0.5])].set(1.0)
    with pytest.raises(TypeError, match="float"):
        x.at[0.5].get()
    with pytest.raises(IndexError, match=r"too many indices.*\(4,\)"):
        x.at[0, 1].set(1.0)
    with pytest.raises(ValueError, match=r"shape \(3,\) do not broadcast to the indexed shape \(2,\)"):
        x.at[sx.asarray([0, 1])].set(sx.ones(3))
    with pytest.raises(TypeError, match="int64"):
        sx.zeros(3, dtype=sx.int64).at[0].set(0.5)
    with pytest.raises(TypeError, match="boolean"):
        sx.zeros(3, dtype=sx.bool).at[0].add(True)
    with pytest.raises(TypeError, match="boolean"):
        sx.zeros(3, dtype=sx.bool).at[0].multiply(True)
    with pytest.raises(TypeError, match="same shape"):
        x.at[0].apply(lambda v: sx.sum(v))


BATCHED_KEYS = [  # (x shape, key of one example's index array, a batch of 3 index arrays)
    ((6,), lambda i: i, [[1, 1, 4], [5, 0, 9], [-1, 2, 2]]),
    ((5,), lambda i: i, [[[0, 1], [1, 1]], [[4, 4], [-9, 0]], [[2, 3], [3, 2]]]),
    ((4, 3), lambda i: (i, slice(None, 2)), [[3, 0, 3], [1, 1, 1], [0, 5, 2]]),
    ((4, 3), lambda i: (slice(None), i), [[0, 2], [1, 1], [2, -1]]),
    ((3, 4, 5), lambda i: (i, slice(1, 3), i), [[0, 2], [4, 4], [1, -1]]),
    ((3, 4, 5), lambda i: (slice(None), 1, i), [[0, 3], [4, 4], [2, 1]]),
    ((3, 4, 5), lambda i: (slice(None), i, 2), [[0, 3], [3, 3], [2, 1]]),
    ((3, 4), lambda i: (Ellipsis, None, i), [[1, 1], [0, 3], [2, 9]]),
]


@pytest.mark.parametrize("method", ["set", "add", "multiply", "min", "max", "get"])
@pytest.mark.parametrize("case", range(len(BATCHED_KEYS)))
def test_vmap_over_batched_indices_is_one_gather_or_scatter(case, method):
    shape, key, batch = BATCHED_KEYS[case]
    batch = np.asarray(batch)
    x = data((3, *shape), np.float64, seed=case)
    v = np.stack([values_for(shape, lambda m, i=i: key(m.asarray(i)), np.float64, seed=k)
                  for k, i in enumerate(batch)])

    def f(x, i, v):
        ref = x.at[key(i)]
        return ref.get(mode="fill") if method == "get" else getattr(ref, method)(v, mode="drop")

    loop = np.stack([np.asarray(f(sx.asarray(x[k]), sx.asarray(batch[k]), sx.asarray(v[k]))) for k in range(3)])
    assert_close(sx.vmap(f)(sx.asarray(x), sx.asarray(batch), sx.asarray(v)), loop, ulps=0)
    shared_x = sx.vmap(f, in_axes=(None, 0, 0))(sx.asarray(x[0]), sx.asarray(batch), sx.asarray(v))
    loop = np.stack([np.asarray(f(sx.asarray(x[0]), sx.asarray(batch[k]), sx.asarray(v[k]))) for k in range(3)])
    assert_close(shared_x, loop, ulps=0)
    jitted = sx.jit(sx.vmap(f))
    assert_close(jitted(sx.asarray(x), sx.asarray(batch), sx.asarray(v)),
                 np.asarray(sx.vmap(f)(sx.asarray(x), sx.asarray(batch), sx.asarray(v))), ulps=0)
    text = jitted.lower(sx.asarray(x), sx.asarray(batch), sx.asarray(v)).as_text()
    kinds = "gather" if method == "get" else "scatter"
    assert len(re.findall(rf'["\s]stablehlo\.({kinds})\b', text)) == 1


def test_large_pending_and_empty_operands():
    """Past the fusion threshold (a pending operand is run first, and not written), 0-D, and empty axes."""
    n = 40000
    x = np.sin(np.arange(n, dtype=np.float64))
    index = np.array([0, 0, n - 1, n, -n])
    pending = sx.sin(sx.arange(float(n)))
    with jax.enable_x64(True):
        want = np.asarray(jnp.asarray(x).at[jnp.asarray(index)].add(1.5))
    assert_close(pending.at[sx.asarray(index)].add(1.5), want, ulps=1)
    assert_close(pending, x, ulps=1)
    zero_d = sx.asarray(2.0)
    assert float(zero_d.at[()].set(1.0)) == 1.0 and float(zero_d.at[...].multiply(3.0)) == 6.0
    assert float(sx.jit(lambda v: v.at[()].add(1.0))(zero_d)) == 3.0
    assert sx.zeros((0, 3)).at[:, 1].set(1.0).shape == (0, 3)
    with pytest.raises(TypeError, match="axis 0 of size 0"):
        sx.zeros((0, 3)).at[sx.asarray([0])].get(mode="fill")


def _random_key(rng, shape):
    """A random key for `shape`: integers (some out of range), slices with steps, integer arrays of broadcastable
    shapes (some values out of range), None and at most one Ellipsis."""
    entries, arrays_shape = [], tuple(int(n) for n in rng.integers(1, 3, size=rng.integers(0, 3)))
    ellipsis = rng.random() < 0.3
    for axis, n in enumerate(shape):
        kind = rng.choice(["int", "slice", "array", "full"])
        if kind == "int":
            entries.append(int(rng.integers(-n - 2, n + 2)))
        elif kind == "slice":
            start, stop = (int(v) for v in rng.integers(-n - 1, n + 2, size=2))
            entries.append(slice(start, stop, int(rng.choice([1, 2, -1, -2, 3]))))
        elif kind == "array":
            sub = arrays_shape[int(rng.integers(0, len(arrays_shape) + 1)):]  # (right-aligned: broadcastable)
            entries.append(rng.integers(-n - 2, n + 2, size=sub))
        else:
            entries.append(slice(None))
        if rng.random() < 0.15:
            entries.append(None)
    if ellipsis:
        start = int(rng.integers(0, len(entries) + 1))
        stop = int(rng.integers(start, len(entries) + 1))
        dropped = [e for e in entries[start:stop] if e is not None]
        entries = entries[:start] + [Ellipsis] + entries[stop:] if all(
            isinstance(e, slice) and e == slice(None) for e in dropped) else entries
    return tuple(entries)


@pytest.mark.parametrize("seed", range(60))
def test_random_keys_against_jax(seed):
    """A fuzzer over keys: every method and mode on random keys, eagerly and under jit, against JAX's `.at`."""
    rng = np.random.default_rng(seed)
    shape = tuple(int(n) for n in rng.integers(1, 5, size=rng.integers(1, 4)))
    key = _random_key(rng, shape)

    def build(m):
        return tuple(m.asarray(k) if isinstance(k, np.ndarray) else k for k in key)

    x = data(shape, np.float64, seed=seed)
    mode = [None, "clip", "drop", "fill"][seed % 4]
    with jax.enable_x64(True):
        indexed = jnp.zeros(shape).at[build(jnp)].get(mode="clip").shape
    v = data(indexed, np.float64, seed=seed + 1) if indexed else np.asarray(1.5)
    for method in ("set", "add", "multiply", "min", "max", "get"):
        kwargs = {} if mode is None else {"mode": mode}
        if mode == "promise_in_bounds":
            continue
        want = run_jax(x, build, method, v, **kwargs)
        got = run_sx(sx.asarray(x), build, method, sx.asarray(v), **kwargs)
        assert_close(got, want, ulps=0, what=f"{key} {method} {mode}", signed_zeros=method in ("set", "get"))
        jitted = sx.jit(lambda x, v: run_sx(x, build, method, v, **kwargs))(sx.asarray(x), sx.asarray(v))
        assert_close(jitted, want, ulps=0, what=f"{key} {method} {mode} under jit")


@pytest.mark.parametrize("dtype", [np.bool_, np.uint8, np.complex128])
def test_other_dtypes_against_jax(dtype):
    x = np.array([True, False, False, True]) if dtype is np.bool_ else np.array([1, 2, 3, 250]).astype(dtype)
    v = np.array([True, True, False]) if dtype is np.bool_ else np.array([5, 5, 7]).astype(dtype)
    if dtype is np.complex128:
        x, v = x + np.array([1j, -2j, 0, 2j]), v * 1j + np.array([1, 1, 3])  # (NaN-free: see docs/from-jax.md)
    index = np.array([0, 0, 3])
    methods = ["set", "min", "max", "get"] + ([] if dtype is np.bool_ else ["add", "subtract", "multiply"])
    for method in methods:
        want = run_jax(x, lambda m: m.asarray(index), method, v)
        got = run_sx(sx.asarray(x), lambda m: m.asarray(index), method, sx.asarray(v))
        assert_close(got, want, ulps=0, what=f"{dtype.__name__} {method}")


def test_apply_under_vmap_grad_jit_and_on_a_device():
    x = np.arange(6.0) * 0.3
    index = np.array([[0, 0, 2], [1, 5, 5]])
    with jax.enable_x64(True):
        want = np.stack([np.asarray(jnp.asarray(x).at[jnp.asarray(r)].apply(jnp.sin)) for r in index])

    def f(i):
        return sx.asarray(x).at[i].apply(sx.sin)

    assert_close(sx.vmap(f)(sx.asarray(index)), want, ulps=0)
    assert_close(sx.jit(sx.vmap(f))(sx.asarray(index)), want, ulps=1)
    # (JAX does not differentiate apply; stridex does, through f: sin applied twice at 0)
    g = sx.grad(lambda v: sx.sum(v.at[sx.asarray(index[0])].apply(sx.sin)))(sx.asarray(x))
    expected = np.ones(6)
    expected[0] = np.cos(np.sin(x[0])) * np.cos(x[0])
    expected[2] = np.cos(x[2])
    assert_close(g, expected, ulps=2)
    on_device = sx.asarray(x, device=DEVICE).at[sx.asarray(index[1], device=DEVICE)].apply(sx.sin)
    assert on_device.device == DEVICE
    assert_close(np.asarray(on_device.to_device("cpu")), want[1], ulps=1)
