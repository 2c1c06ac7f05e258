"""Host Python inside programs (issue 42): `sx.debug.print`, `sx.debug.callback` and `sx.pure_callback`, eagerly,
under `jit` (every call, in program order), `vmap`, `grad` and loops, against `jax.debug` and `jax.pure_callback`."""

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


def printed(capsys) -> list[str]:
    jax.effects_barrier()
    return capsys.readouterr().out.splitlines()


# --- debug.print --------------------------------------------------------------------------------------------


def test_print_shows_each_calls_values_under_jit_in_program_order(capsys):
    traced = []

    def f(x):
        traced.append(1)
        sx.debug.print("x={} s={s:.3f}", x, s=sx.sum(x))
        y = x * 2
        sx.debug.print("y={y}", y=y)
        return y

    def f_jax(x):
        jax.debug.print("x={} s={s:.3f}", x, s=jnp.sum(x), ordered=True)
        y = x * 2
        jax.debug.print("y={y}", y=y, ordered=True)
        return y

    jf = sx.jit(f)
    for values in ([1.0, 2.5], [0.1, -3.0], [1.0, 2.5]):
        jf(sx.asarray(values))
        print("after")
        ours = printed(capsys)
        jax.jit(f_jax)(jnp.asarray(values))
        print("after")
        assert ours == printed(capsys), ours
    assert len(traced) == 1  # (traced once: the prints come from the compiled program, not from tracing)
    f(sx.asarray([1.0, 2.5]))
    assert printed(capsys) == ["x=[1.  2.5] s=3.500", "y=[2. 5.]"]


def test_callbacks_see_exact_64_bit_values():
    """(JAX hands callback operands over in its global 32-bit mode: stridex passes 64-bit values as their bits)"""
    values = np.array([0.1 + 2 ** -50, 1e300, -0.0])
    seen = []
    sx.jit(lambda v: sx.debug.callback(lambda a: seen.append(np.array(a)), v) or v)(sx.asarray(values))
    jax.effects_barrier()
    assert seen[0].dtype == np.float64 and seen[0].tobytes() == values.tobytes()


@pytest.mark.parametrize("how", ["eager", "jit"])
def test_print_under_vmap_prints_each_member_as_jax(capsys, how):
    f = sx.vmap(lambda v, w: sx.debug.print("v={} w={}", v, w) or v * w, in_axes=(0, None))
    (sx.jit(f) if how == "jit" else f)(sx.reshape(sx.arange(6.0), (3, 2)), sx.asarray(2.0))
    ours = printed(capsys)
    jax.vmap(lambda v, w: jax.debug.print("v={} w={}", v, w) or v * w, in_axes=(0, None))(
        jnp.arange(6.0).reshape(3, 2), 2.0)
    assert ours == printed(capsys) and len(ours) == 3


@pytest.mark.parametrize("how", ["grad", "jit(grad)", "jvp", "jacfwd"])
def test_print_under_differentiation_shows_the_primal_values_once(capsys, how):
    def f(x):
        sx.debug.print("x={}", x)
        return sx.sum(x * x)

    x = sx.asarray([1.0, 2.0])
    if how == "grad":
        g = sx.grad(f)(x)
    elif how == "jit(grad)":
        g = sx.jit(sx.grad(f))(x)
    elif how == "jvp":
        g = sx.jvp(f, (x,), (sx.ones(2),))[1]
    else:
        g = sx.jacfwd(f)(x)
    assert printed(capsys) == ["x=[1. 2.]"]
    assert np.asarray(g).sum() in (6.0,)


def test_print_in_a_loop_under_jit_prints_every_iteration_and_is_not_removed(capsys):
    def f(x):
        def body(i, c):
            sx.debug.print("i={} c={}", i, c)
            return c + 1
        sx.fori_loop(0, 3, body, x)  # (the result is unused: the loop stays for its prints)
        return x * 2

    program = sx.make_ir(f)(sx.asarray(1.0))
    assert "debug_callback" in str(program)
    sx.jit(f)(sx.asarray(1.0))
    assert printed(capsys) == ["i=0 c=1.0", "i=1 c=2.0", "i=2 c=3.0"]


def test_print_beside_a_graph_break_prints_once_per_call(capsys):
    def f(x):
        sx.debug.print("before {}", x)
        if sx.sum(x) > 0:  # a graph break: the program so far is evaluated, but does not print
            x = x + 1
        sx.debug.print("after {}", x)
        return x

    jf = sx.jit(f)
    jf(sx.asarray([1.0]))
    jf(sx.asarray([2.0]))
    jf(sx.asarray([-5.0]))  # the other path: traced and compiled at this call
    assert printed(capsys) == ["before [1.]", "after [2.]", "before [2.]", "after [3.]", "before [-5.]",
                               "after [-5.]"]


def test_print_of_device_arrays(capsys):
    x = sx.asarray([1.0, 2.0], device=DEV)
    sx.debug.print("eager {}", x)
    sx.jit(lambda v: sx.debug.print("jit {}", v) or v)(x)
    assert printed(capsys) == ["eager [1. 2.]", "jit [1. 2.]"]


def test_print_takes_only_a_format_string():
    with pytest.raises(TypeError, match="format must be a str"):
        sx.debug.print(sx.asarray(1.0))


# --- debug.callback ----------------------------------------------------------------------------------------


def test_callback_receives_pytrees_of_read_only_stridex_arrays():
    seen = []

    def record(tree, *, scale):
        assert isinstance(tree["a"], sx.Array) and isinstance(tree["b"][0], sx.Array)
        with pytest.raises(ValueError):
            np.asarray(tree["a"])[0] = 0.0  # (read-only: the program's values are not the callback's to write)
        seen.append((np.asarray(tree["a"]).tolist(), int(tree["b"][0]), scale, tree["c"]))

    def f(x):
        sx.debug.callback(record, {"a": x, "b": (sx.argmax(x),), "c": "label"}, scale=2.0)
        return x

    x = sx.asarray([1.0, 3.0, 2.0])
    f(x)
    sx.jit(f)(x)
    sx.jit(f)(x + 1)
    jax.effects_barrier()
    assert seen == [([1.0, 3.0, 2.0], 1, 2.0, "label")] * 2 + [([2.0, 4.0, 3.0], 1, 2.0, "label")]


# --- pure_callback ------------------------------------------------------------------------------------------


def host_sinc(x):
    return np.sinc(np.asarray(x))


def sinc(x):
    return sx.pure_callback(host_sinc, sx.ShapeDtypeStruct(x.shape, x.dtype), x)


def jax_sinc(x):
    return jax.pure_callback(lambda v: np.sinc(np.asarray(v)), jax.ShapeDtypeStruct(x.shape, x.dtype), x,
                             vmap_method="sequential")


@pytest.mark.parametrize("device", [None, DEV], ids=["host", "device"])
@pytest.mark.parametrize("how", ["eager", "jit"])
def test_pure_callback_values_match_jax(how, device):
    x = sx.asarray([0.0, 0.25, 1.5], device=device)
    got = (sx.jit(sinc) if how == "jit" else sinc)(x) * 2
    assert got.device == x.device
    np.testing.assert_array_equal(np.asarray(got.to_device("cpu")), np.asarray(jax.jit(jax_sinc)(jnp.asarray(
        [0.0, 0.25, 1.5])) * 2))


@pytest.mark.parametrize("dtype", ["float64", "complex128", "int64", "uint64", "float32", "bool", "int8", "float16"])
def test_pure_callback_passes_every_dtype_exactly(dtype):
    values = np.array([1, 0, 3], dtype=dtype) * (np.array(1 + 2 ** -40, dtype) if dtype in ("float64",) else 1)
    if dtype == "complex128":
        values = values + 1e-300j
    x = sx.asarray(values)
    identity = sx.jit(lambda v: sx.pure_callback(lambda a: np.asarray(a), sx.ShapeDtypeStruct(v.shape, v.dtype), v))
    out = identity(x)
    assert out.dtype == x.dtype
    np.testing.assert_array_equal(np.asarray(out), values)


@pytest.mark.parametrize("method", ["sequential", "sequential_unrolled", "expand_dims", "broadcast_all",
                                    "legacy_vectorized"])
@pytest.mark.parametrize("jit", [False, True], ids=["eager", "jit"])
def test_pure_callback_under_vmap_as_jax(method, jit):
    calls_ours, calls_jax = [], []

    def host(record):
        def fn(v, w):
            record.append((np.shape(v), np.shape(w)))
            return np.asarray(v) * np.asarray(w)
        return fn

    def ours(v, w):
        return sx.pure_callback(host(calls_ours), sx.ShapeDtypeStruct(v.shape, v.dtype), v, w, vmap_method=method)

    def theirs(v, w):
        return jax.pure_callback(host(calls_jax), jax.ShapeDtypeStruct(v.shape, v.dtype), v, w, vmap_method=method)

    xs, w = np.arange(6.0).reshape(3, 2), np.array([10.0, 20.0])
    f = sx.vmap(ours, in_axes=(0, None))
    got = (sx.jit(f) if jit else f)(sx.asarray(xs), sx.asarray(w))
    want = jax.vmap(theirs, in_axes=(0, None))(jnp.asarray(xs), jnp.asarray(w))
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    assert calls_ours == calls_jax  # (the same calls, with the same shapes)


def test_pure_callback_errors_are_jaxs():
    x = sx.asarray([0.5, 1.0])
    with pytest.raises(NotImplementedError, match="vmap_method"):
        sx.vmap(sinc)(sx.ones((2, 2)))
    with pytest.raises(ValueError, match="Pure callbacks do not support JVP"):
        sx.grad(lambda v: sx.sum(sinc(v)))(x)
    with pytest.raises(ValueError, match="Pure callbacks do not support JVP"):
        sx.jvp(sinc, (x,), (x,))
    with pytest.raises(TypeError, match=r"returned a float32\[2\] array for result 0, declared float64\[2\]"):
        sx.pure_callback(lambda v: np.asarray(v, np.float32), sx.ShapeDtypeStruct((2,), sx.float64), x)
    with pytest.raises(TypeError, match="structure"):
        sx.pure_callback(lambda v: (v, v), sx.ShapeDtypeStruct((2,), sx.float64), x)
    with pytest.raises(ValueError, match="vmap_method"):
        sx.pure_callback(host_sinc, sx.ShapeDtypeStruct((2,), sx.float64), x, vmap_method="magic")


def test_pure_callback_of_values_without_derivative_and_with_custom_jvp():
    x = sx.asarray([0.5, 1.0])
    # a non-differentiated argument and a stop_gradient result pass through a callback under grad
    g = sx.grad(lambda v, w: sx.sum(v * sinc(w) + sinc(sx.stop_gradient(v))))(x, x)
    np.testing.assert_allclose(np.asarray(g), np.sinc([0.5, 1.0]), rtol=1e-14)

    @sx.custom_jvp
    def f(v):
        return sinc(v)

    @f.defjvp
    def f_jvp(primals, tangents):
        (v,), (t,) = primals, tangents
        return f(v), t * 2.0

    np.testing.assert_allclose(np.asarray(sx.grad(lambda v: sx.sum(f(v)))(x)), [2.0, 2.0])
    np.testing.assert_allclose(np.asarray(sx.jit(sx.grad(lambda v: sx.sum(f(v))))(x)), [2.0, 2.0])


def test_pure_callback_results_are_pytrees_of_fresh_arrays():
    x = sx.asarray([1.0, 2.0])
    out = sx.pure_callback(lambda v: {"same": v, "twice": np.asarray(v) * 2},
                           {"same": sx.ShapeDtypeStruct((2,), sx.float64), "twice": x}, x)
    out["same"][0] = 5.0  # (a result is its own memory: the operand is not written)
    np.testing.assert_array_equal(np.asarray(x), [1.0, 2.0])
    np.testing.assert_array_equal(np.asarray(out["twice"]), [2.0, 4.0])


def test_print_in_a_program_over_several_devices(capsys):
    """JAX orders effects on one device only: a jitted function with shardings prints unordered."""
    from jax.sharding import Mesh, NamedSharding, PartitionSpec

    devices = jax.devices("cpu")
    if len(devices) < 2:
        pytest.skip("needs several JAX devices (tests/conftest.py asks for 4 host devices)")
    mesh = Mesh(np.array(devices[:2]), ("rows",))
    rows = NamedSharding(mesh, PartitionSpec("rows", None))
    f = sx.jit(lambda v: sx.debug.print("total {}", sx.sum(v)) or v * 2, in_shardings=(rows,), out_shardings=rows)
    out = f(sx.asarray(np.ones((4, 2))))
    np.testing.assert_array_equal(np.asarray(out), np.full((4, 2), 2.0))
    assert printed(capsys) == ["total 8.0"]
