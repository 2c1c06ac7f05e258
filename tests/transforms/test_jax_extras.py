"""JAX's extras around the transformations (issue 42), against JAX: `stop_gradient`, `eval_shape` with
`ShapeDtypeStruct`, Jacobians over pytrees with `has_aux` and `holomorphic`, `grad(holomorphic=, allow_int=)`,
`sx.tree`, and `jit(f).lower(...).compile()`."""

from __future__ import annotations

import os

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import stridex as sx

DEV = os.environ.get("STRIDEX_TEST_DEVICE", "cpu:1")


@pytest.fixture(autouse=True)
def _jax_reference_in_64_bit():
    with jax.enable_x64(True):
        yield


def same_tree(got, want, rtol=1e-12):
    got_leaves, got_def = jax.tree_util.tree_flatten(got, is_leaf=lambda x: isinstance(x, sx.Array))
    want_leaves, want_def = jax.tree_util.tree_flatten(want)
    assert got_def.num_leaves == want_def.num_leaves and sx.tree.structure(got) == sx.tree.structure(
        jax.tree_util.tree_map(lambda _: 0, want)), (got_def, want_def)
    for g, w in zip(got_leaves, want_leaves):
        g = np.asarray(g.to_device("cpu") if isinstance(g, sx.Array) else g)
        assert g.shape == np.shape(w), (g.shape, np.shape(w))
        np.testing.assert_allclose(g, np.asarray(w), rtol=rtol, atol=1e-13)


# --- stop_gradient ------------------------------------------------------------------------------------------


def ste(x, lib):
    return x + sx.lax.stop_gradient(sx.round(x) - x) if lib is sx.lax else x + jax.lax.stop_gradient(jnp.round(x) - x)


@pytest.mark.parametrize("device", [None, DEV], ids=["host", "device"])
@pytest.mark.parametrize("how", ["grad", "jit(grad)", "vmap(grad)", "jvp", "jacrev", "hessian"])
def test_stop_gradient_matches_jax(how, device):
    def f(x, lib):
        s = sx.lax.stop_gradient if lib is sx else jax.lax.stop_gradient
        return lib.sum(lib.sin(x) * s(x * x) + (sx.round(x) if lib is sx else jnp.round(x)) * s(x))

    values = np.array([0.3, 1.7, -2.2])
    x = sx.asarray(values, device=device)
    ours, theirs = (lambda v: f(v, sx)), (lambda v: f(v, jnp))
    if how == "grad":
        got, want = sx.grad(ours)(x), jax.grad(theirs)(values)
    elif how == "jit(grad)":
        got, want = sx.jit(sx.grad(ours))(x), jax.grad(theirs)(values)
    elif how == "vmap(grad)":
        xs = sx.asarray(np.stack([values, values * 2]), device=device)
        got, want = sx.vmap(sx.grad(ours))(xs), jax.vmap(jax.grad(theirs))(np.stack([values, values * 2]))
    elif how == "jvp":
        got = sx.jvp(ours, (x,), (sx.ones_like(x),))[1]
        want = jax.jvp(theirs, (values,), (np.ones(3),))[1]
    elif how == "jacrev":
        got, want = sx.jacrev(lambda v: sx.sin(v) * sx.lax.stop_gradient(v))(x), \
            jax.jacrev(lambda v: jnp.sin(v) * jax.lax.stop_gradient(v))(values)
    else:
        got, want = sx.hessian(ours)(x), jax.hessian(theirs)(values)
    if device is not None:
        assert got.device == x.device
    same_tree(got, want)


def test_straight_through_estimator_has_derivative_one():
    x = sx.asarray([0.2, 1.7, -2.5])
    out = sx.vmap(lambda v: ste(v, sx.lax))(x)
    np.testing.assert_array_equal(np.asarray(out), np.round([0.2, 1.7, -2.5]))
    for g in (sx.grad(lambda v: sx.sum(ste(v, sx.lax)))(x), sx.jit(sx.grad(lambda v: sx.sum(ste(v, sx.lax))))(x),
              sx.jvp(lambda v: ste(v, sx.lax), (x,), (sx.ones(3),))[1]):
        np.testing.assert_array_equal(np.asarray(g), [1.0, 1.0, 1.0])


def test_stop_gradient_values_pytrees_and_fresh_memory():
    x = sx.asarray([1.0, 2.0])
    tree = sx.stop_gradient({"a": x, "n": 3, "i": sx.asarray([1, 2])})
    assert tree["n"] == 3 and tree["i"].dtype == sx.int64
    y = tree["a"]
    x[0] = 5.0  # (a new array, eagerly as under jit: a later write into x is not seen through it)
    np.testing.assert_array_equal(np.asarray(y), [1.0, 2.0])
    assert sx.stop_gradient is sx.lax.stop_gradient
    assert "stop_gradient" in str(sx.make_ir(lambda v: sx.lax.stop_gradient(v) * 2)(x))


# --- eval_shape ---------------------------------------------------------------------------------------------


def test_eval_shape_matches_jax_and_runs_nothing():
    ran = []

    def f(x, w, *, scale):
        ran.append(sx.pure_callback(lambda v: (ran.append("host"), np.asarray(v))[1], x, x))
        y = x @ w
        return {"y": y * scale, "n": (sx.sum(x, axis=0), x.shape[0])}

    def f_jax(x, w, *, scale):
        y = x @ w
        return {"y": y * scale, "n": (jnp.sum(x, axis=0), x.shape[0])}

    x, w = sx.ShapeDtypeStruct((5, 3), sx.float32), sx.ones((3, 2), dtype=sx.float32)
    got = sx.eval_shape(f, x, w, scale=2.0)
    want = jax.eval_shape(f_jax, jax.ShapeDtypeStruct((5, 3), jnp.float32), jnp.ones((3, 2), jnp.float32), scale=2.0)
    for g, wt in zip(sx.tree.leaves(got), jax.tree_util.tree_leaves(want)):
        assert isinstance(g, sx.ShapeDtypeStruct)
        assert g.shape == wt.shape and g.dtype.name == wt.dtype.name and g.weak_type == wt.weak_type, (g, wt)
    assert "host" not in ran  # (the callback was traced, never called)
    # Python numbers are weak, as in JAX; NumPy and JAX arrays are taken by shape and dtype
    assert sx.eval_shape(lambda s: s * 2, 2.0) == sx.ShapeDtypeStruct((), sx.float64, weak_type=True)
    assert sx.eval_shape(lambda a: a[1:], np.zeros((4, 2), np.int8)) == sx.ShapeDtypeStruct((3, 2), sx.int8)
    assert sx.eval_shape(lambda a: a.T, jnp.zeros((4, 2), jnp.float32)) == sx.ShapeDtypeStruct((2, 4), sx.float32)


def test_eval_shape_writes_nothing_and_raises_what_tracing_raises():
    x = sx.asarray([1.0, 2.0])

    def writes(v):
        v[0] = 100.0
        return v

    assert sx.eval_shape(writes, x) == sx.ShapeDtypeStruct((2,), sx.float64)
    np.testing.assert_array_equal(np.asarray(x), [1.0, 2.0])
    with pytest.raises(sx.errors.DataDependentShapeError):
        sx.eval_shape(sx.nonzero, x)
    with pytest.raises(sx.errors.ConcretizationTypeError):
        sx.eval_shape(lambda v: v if v[0] > 0 else -v, x)
    with pytest.raises(TypeError, match="not a stridex dtype"):
        sx.ShapeDtypeStruct((2,), "nonsense")
    with pytest.raises(TypeError, match="tuple of ints"):
        sx.ShapeDtypeStruct(2.5, sx.float64)  # type: ignore[arg-type]


def test_shape_dtype_struct():
    s = sx.ShapeDtypeStruct([2, 3], np.float32)
    assert s.shape == (2, 3) and s.dtype is sx.float32 and s.ndim == 2 and s.size == 6 and not s.weak_type
    assert s == sx.ShapeDtypeStruct((2, 3), sx.float32) and hash(s) == hash(sx.ShapeDtypeStruct((2, 3), "float32"))
    assert repr(s) == "ShapeDtypeStruct(shape=(2, 3), dtype=float32)"
    with pytest.raises(AttributeError):
        s.shape = (1,)  # type: ignore[misc]


# --- Jacobians over pytrees -------------------------------------------------------------------------------


def model_sx(params, x):
    h = params["w"] * x + params["b"][0]
    return {"out": (h * h, params["b"][1] * x), "sum": sx.sum(params["w"] * x)}


def model_jax(params, x):
    h = params["w"] * x + params["b"][0]
    return {"out": (h * h, params["b"][1] * x), "sum": jnp.sum(params["w"] * x)}


PARAMS = {"w": np.array([0.5, -1.0, 2.0]), "b": (np.array(0.25), np.array([1.0, 3.0, -1.0]))}
X = np.array([1.5, 0.5, -0.5])


def _sx_params(device=None):
    return jax.tree_util.tree_map(lambda a: sx.asarray(a, device=device), PARAMS)


@pytest.mark.parametrize("device", [None, DEV], ids=["host", "device"])
@pytest.mark.parametrize("how", ["jacfwd", "jacrev", "jit(jacfwd)", "jit(jacrev)", "hessian"])
@pytest.mark.parametrize("argnums", [0, (0, 1)], ids=["argnums=0", "argnums=(0,1)"])
def test_jacobians_of_pytrees_match_jax(how, argnums, device):
    params, x = _sx_params(device), sx.asarray(X, device=device)
    if how == "hessian":
        f = lambda p, v: model_sx(p, v)["sum"] * sx.sum(p["b"][1] ** 2)  # noqa: E731
        f_jax = lambda p, v: model_jax(p, v)["sum"] * jnp.sum(p["b"][1] ** 2)  # noqa: E731
        got, want = sx.hessian(f, argnums)(params, x), jax.hessian(f_jax, argnums)(PARAMS, X)
    else:
        name = how.removeprefix("jit(").removesuffix(")")
        transform = getattr(sx, name)(model_sx, argnums)
        got = (sx.jit(transform) if how.startswith("jit") else transform)(params, x)
        want = getattr(jax, name)(model_jax, argnums)(PARAMS, X)
    same_tree(got, want)


@pytest.mark.parametrize("name", ["jacfwd", "jacrev"])
def test_jacobians_with_aux_and_keywords(name):
    def f(p, x, *, scale):
        y = model_sx(p, x)
        return y["out"], {"aux": y["sum"] * scale}

    def f_jax(p, x, *, scale):
        y = model_jax(p, x)
        return y["out"], {"aux": y["sum"] * scale}

    got = getattr(sx, name)(f, has_aux=True)(_sx_params(), sx.asarray(X), scale=2.0)
    want = getattr(jax, name)(f_jax, has_aux=True)(PARAMS, X, scale=2.0)
    same_tree(got, want)


def _devices(tree) -> set:
    return {leaf.device for leaf in jax.tree_util.tree_leaves(tree, is_leaf=lambda x: isinstance(x, sx.Array))
            if isinstance(leaf, sx.Array)}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("how", ["eager", "jit", "vmap"])
@pytest.mark.parametrize("name", ["jacfwd", "jacrev", "hessian"])
def test_jacobians_of_pytrees_with_aux_on_a_device(name, how, dtype):
    """The bases (`eye`, one-hot cotangents) are made on the arguments' device: the Jacobians (and aux) of arrays on
    cpu:1 stay there and equal the host's and JAX's."""

    def f(p, x, xp):
        y = model_sx(p, x) if xp is sx else model_jax(p, x)
        if name == "hessian":
            return y["sum"] * xp.sum(p["b"][1] ** 2), {"aux": y["out"][0], "n": 2.0}
        return y["out"], {"aux": y["sum"] * 2.0, "n": 2.0}

    params = jax.tree_util.tree_map(lambda a: np.asarray(a, dtype), PARAMS)
    xs = np.stack([X, -2 * X]).astype(dtype)
    transform = getattr(sx, name)(lambda p, x: f(p, x, sx), argnums=(0, 1), has_aux=True)
    transform = {"eager": transform, "jit": sx.jit(transform), "vmap": sx.vmap(transform, in_axes=(None, 0))}[how]
    reference = getattr(jax, name)(lambda p, x: f(p, x, jnp), argnums=(0, 1), has_aux=True)
    want = jax.vmap(reference, in_axes=(None, 0))(params, xs) if how == "vmap" else reference(params, xs[0])
    results = {}
    for device in (None, DEV):
        p = jax.tree_util.tree_map(lambda a: sx.asarray(a, device=device), params)
        got = transform(p, sx.asarray(xs if how == "vmap" else xs[0], device=device))
        assert _devices(got) == {sx.asarray(0.0, device=device).device}
        same_tree(got, want, rtol=2e-6 if dtype == np.float32 else 1e-12)
        results[device] = got
    same_tree(results[DEV], jax.tree_util.tree_map(lambda a: np.asarray(a) if isinstance(a, sx.Array) else a,
                                                   results[None], is_leaf=lambda a: isinstance(a, sx.Array)), rtol=0)


def test_vmap_of_a_pytree_jacobian():
    xs = np.stack([X, 2 * X])
    got = sx.vmap(sx.jacrev(model_sx), in_axes=(None, 0))(_sx_params(), sx.asarray(xs))
    want = jax.vmap(jax.jacrev(model_jax), in_axes=(None, 0))(PARAMS, xs)
    same_tree(got, want)


@pytest.mark.parametrize("name", ["jacfwd", "jacrev", "hessian"])
def test_holomorphic_jacobians_match_jax(name):
    z = np.array([1 + 1j, 0.5 - 2j])
    f = lambda v: v * v * v  # noqa: E731
    if name == "hessian":
        got = sx.hessian(lambda v: sx.sum(f(v)), holomorphic=True)(sx.asarray(z))
        want = jax.hessian(lambda v: jnp.sum(f(v)), holomorphic=True)(z)
    else:
        got, want = getattr(sx, name)(f, holomorphic=True)(sx.asarray(z)), getattr(jax, name)(f, holomorphic=True)(z)
    same_tree(got, want)
    with pytest.raises(TypeError, match="holomorphic"):
        getattr(sx, name)(f)(sx.asarray(z)) if name != "hessian" else sx.hessian(lambda v: sx.sum(f(v)))(
            sx.asarray(z))
    with pytest.raises(TypeError, match="complex"):
        getattr(sx, name if name != "hessian" else "jacfwd")(f, holomorphic=True)(sx.asarray([1.0, 2.0]))


# --- grad's holomorphic= and allow_int= ------------------------------------------------------------------------


def test_grad_holomorphic_matches_jax():
    z = 0.5 + 1.5j
    for f in (lambda v: v * v, lambda v: v * v * v + 2 * v):
        np.testing.assert_allclose(np.asarray(sx.grad(f, holomorphic=True)(sx.asarray(z))),
                                   jax.grad(f, holomorphic=True)(z), rtol=1e-14)
        np.testing.assert_allclose(np.asarray(sx.jit(sx.grad(f, holomorphic=True))(sx.asarray(z))),
                                   jax.grad(f, holomorphic=True)(z), rtol=1e-14)
    with pytest.raises(TypeError, match="holomorphic=True requires inputs with complex dtype"):
        sx.grad(lambda v: v * v, holomorphic=True)(sx.asarray(1.0))
    with pytest.raises(TypeError, match="holomorphic=True requires a function returning complex"):
        sx.grad(lambda v: sx.real(v * v), holomorphic=True)(sx.asarray(z))
    with pytest.raises(TypeError, match="pass holomorphic=True"):
        sx.grad(lambda v: v * v)(sx.asarray(z))
    # a real function of a complex input: JAX's convention, without holomorphic
    np.testing.assert_allclose(np.asarray(sx.grad(lambda v: sx.abs(v) ** 2)(sx.asarray(z))),
                               jax.grad(lambda v: jnp.abs(v) ** 2)(z), rtol=1e-14)


def test_grad_allow_int():
    def f(x, n, flags):
        return sx.sum(x * n) * sx.sum(sx.astype(flags, x.dtype))

    x, n, flags = sx.asarray([1.0, 2.0]), sx.asarray([3, 4]), sx.asarray([True, False])
    with pytest.raises(TypeError, match="allow_int=True"):
        sx.grad(f, argnums=(0, 1))(x, n, flags)
    gx, gn, gf = sx.grad(f, argnums=(0, 1, 2), allow_int=True)(x, n, flags)
    jx, jn, jf = jax.grad(lambda a, b, c: jnp.sum(a * b) * jnp.sum(c.astype(a.dtype)), argnums=(0, 1, 2),
                          allow_int=True)(jnp.asarray([1.0, 2.0]), jnp.asarray([3, 4]), jnp.asarray([True, False]))
    np.testing.assert_allclose(np.asarray(gx), jx)
    # (JAX's integer gradients are float0 zeros; stridex has no float0: zeros of the input's dtype)
    assert gn.dtype == sx.int64 and gf.dtype == sx.bool and jn.shape == gn.shape and jf.shape == gf.shape
    np.testing.assert_array_equal(np.asarray(gn), [0, 0])
    np.testing.assert_array_equal(np.asarray(gf), [False, False])
    # Python numbers as arguments, as in JAX
    np.testing.assert_allclose(np.asarray(sx.grad(lambda a: a * a)(3.0)), 6.0)
    np.testing.assert_allclose(np.asarray(sx.jacfwd(lambda a: a * a)(3.0)), 6.0)


# --- sx.tree ---------------------------------------------------------------------------------------------------


def test_tree_module_matches_jax_tree():
    tree = {"b": (1, [2, None]), "a": {"x": 3, "y": (4,)}}
    assert sx.tree.leaves(tree) == jax.tree.leaves(tree)
    leaves, treedef = sx.tree.flatten(tree)
    assert sx.tree.unflatten(treedef, [v * 10 for v in leaves]) == jax.tree.unflatten(
        jax.tree.structure(tree), [v * 10 for v in leaves])
    assert sx.tree.map(lambda v, w: v + w, tree, tree) == jax.tree.map(lambda v, w: v + w, tree, tree)
    assert sx.tree.reduce(lambda a, b: a * b, tree) == jax.tree.reduce(lambda a, b: a * b, tree)
    assert sx.tree.reduce(lambda a, b: a + b, tree, 100) == jax.tree.reduce(lambda a, b: a + b, tree, 100)
    assert sx.tree.all(tree) == jax.tree.all(tree) and sx.tree.all([1, 0]) == jax.tree.all([1, 0])
    assert sx.tree.structure(tree).num_leaves == jax.tree.structure(tree).num_leaves
    assert sx.tree.map(lambda v: v, [1, (2,)], is_leaf=lambda n: isinstance(n, tuple)) == [1, (2,)]
    outer, inner = sx.tree.structure([0, 0, 0]), sx.tree.structure({"p": 0, "q": 0})
    nested = [{"p": i, "q": -i} for i in range(3)]
    assert sx.tree.transpose(outer, inner, nested) == jax.tree.transpose(
        jax.tree.structure([0, 0, 0]), jax.tree.structure({"p": 0, "q": 0}), nested)
    assert sx.tree.transpose(outer, None, nested) == {"p": [0, 1, 2], "q": [0, -1, -2]}
    with pytest.raises(TypeError, match="inner tree"):
        sx.tree.transpose(outer, inner, [{"p": 0}, {"p": 1, "q": 1}, {"p": 2, "q": 2}])


def test_tree_uses_stridex_registry():
    class Node:
        def __init__(self, v):
            self.v = v

    sx.tree_util.register_pytree_node(Node, lambda n: ((n.v,), None), lambda aux, ch: Node(*ch))
    assert sx.tree.leaves({"n": Node(sx.asarray(1.0)), "m": Node((2, 3))})[:2] == [2, 3]
    assert sx.tree.map(lambda v: v * 2, Node(4)).v == 8
    assert sx.tree.structure(Node(1)) == sx.tree_util.tree_structure(Node(2))


# --- ahead of time ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("device", [None, DEV], ids=["host", "device"])
def test_lower_compile_returns_a_function_of_stridex_arrays(device):
    f = sx.jit(lambda p, x, n: {"y": p["w"] * x ** n + p["b"]}, static_argnums=2)
    params = {"w": sx.asarray([1.0, 2.0], device=device), "b": sx.asarray(0.5, device=device)}
    x = sx.asarray([3.0, 4.0], device=device)
    compiled = f.lower(params, x, 2).compile()
    out = compiled(params, x)  # (the static argument is left out, as in JAX)
    assert isinstance(out["y"], sx.Array) and out["y"].device == x.device
    np.testing.assert_allclose(np.asarray(out["y"].to_device("cpu")), [9.5, 32.5])
    out2 = compiled({"w": sx.asarray([2.0, 2.0], device=device), "b": sx.asarray(0.0, device=device)},
                    sx.asarray([1.0, 1.0], device=device))
    np.testing.assert_allclose(np.asarray(out2["y"].to_device("cpu")), [2.0, 2.0])
    with pytest.raises(TypeError, match=r"compiled for .*float64\[2\].*called with .*float64\[3\]"):
        compiled(params, sx.asarray([1.0, 2.0, 3.0], device=device))
    with pytest.raises(TypeError, match="positional arguments"):
        compiled(params, x, 2)
    assert "HloModule" in compiled.as_text() or "module" in compiled.as_text()
    assert isinstance(compiled.cost_analysis(), (dict, list))
    # the jitted function shares the program: calling it compiles nothing new
    assert f.cache_size() == 1
    f(params, x, 2)
    assert f.cache_size() == 1


def test_compiled_function_with_graph_breaks_and_writes():
    def f(x):
        if sx.sum(x) > 0:
            x[0] = 0.0
        return x * 2

    compiled = sx.jit(f).lower(sx.asarray([1.0, 2.0])).compile()
    x = sx.asarray([1.0, 2.0])
    np.testing.assert_array_equal(np.asarray(compiled(x)), [0.0, 4.0])
    np.testing.assert_array_equal(np.asarray(x), [0.0, 2.0])  # written, as eagerly
    y = sx.asarray([-3.0, 1.0])
    np.testing.assert_array_equal(np.asarray(compiled(y)), [-6.0, 2.0])  # (the other path: jit's own rules)


@pytest.mark.parametrize("n", [5, 5000], ids=["5 elements", "5000 elements"])
@pytest.mark.parametrize("device", [None, DEV], ids=["host", "device"])
def test_stop_gradient_keeps_every_value_on_both_sides_of_the_aligned_output_size(n, device):
    values = np.random.default_rng(n).standard_normal(n)
    values[:4] = [np.nan, np.inf, -np.inf, -0.0]
    x = sx.asarray(values, device=device)
    for out in (sx.stop_gradient(x), sx.jit(sx.stop_gradient)(x), sx.vmap(sx.stop_gradient)(x)):
        got = np.asarray(out.to_device("cpu"))
        assert got.tobytes() == values.tobytes()
        assert out.device == x.device
