"""jit against eager: values, dtypes, shapes, views and writes; caching; errors; the printed IR."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("jax")

import stridex as sx
from stridex._transforms.ir import IRError, Program, evaluate, verify
from stridex._transforms.tracing import ConcretizationError, DataDependentShapeError, EscapedTracerError


def arange(shape, dtype=np.float64):
    return sx.asarray(np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape))


def assert_same(a, b):
    a, b = (a,) if not isinstance(a, (tuple, list)) else a, (b,) if not isinstance(b, (tuple, list)) else b
    assert len(a) == len(b)
    for x, y in zip(a, b):
        assert x.shape == y.shape and x.dtype == y.dtype, (x.shape, x.dtype, y.shape, y.dtype)
        np.testing.assert_array_equal(np.asarray(x), np.asarray(y))


def run_both(f, *make_args):
    """Run f eagerly and under jit on separate copies of the same inputs; compare results and inputs."""
    eager_args = [m() for m in make_args]
    jit_args = [m() for m in make_args]
    eager_out = f(*eager_args)
    jit_out = sx.jit(f)(*jit_args)
    assert_same(eager_out, jit_out)
    assert_same(eager_args, jit_args)  # inputs written by f are written the same way
    return eager_out, jit_out, eager_args, jit_args


def test_write_through_views_then_read_through_other_views():
    def f(x, y):
        z = x + y
        v = z[1:, ::-1]          # a view with a negative stride
        v[0] = 100.0             # write through it
        t = sx.permute_dims(z, (1, 0))
        t[2, 1] += 7.0           # in-place operator through another view
        return z, v, t, sx.reshape(z, (-1,))

    run_both(f, lambda: arange((3, 4)), lambda: arange((3, 4)))


def test_writes_into_inputs_reach_the_caller_and_its_views():
    def f(x):
        x[0, :] = -1.0
        x[:, 1] += 10.0
        return x[1]

    base = arange((3, 3))
    view_of_base = base[1:]
    out = sx.jit(f)(base)
    expected = np.arange(9.0).reshape(3, 3)
    expected[0, :] = -1
    expected[:, 1] += 10
    np.testing.assert_array_equal(np.asarray(base), expected)
    np.testing.assert_array_equal(np.asarray(view_of_base), expected[1:])
    # the returned view is a view of the caller's array, as eagerly
    out[0] = 99.0
    assert float(base[1, 0]) == 99.0


def test_aliased_arguments_see_each_others_writes():
    def f(a, b):
        a[0] = 5.0
        return b + 0.0

    x = arange((6,))
    out = sx.jit(f)(x[:4], x[::2])
    np.testing.assert_array_equal(np.asarray(out), [5.0, 2.0, 4.0])
    np.testing.assert_array_equal(np.asarray(x), [5.0, 1, 2, 3, 4, 5])


@pytest.mark.parametrize("n", [6, 3000])  # a snapshot-sized input and one past the aligned-output size
def test_one_array_passed_twice_is_one_program_input(n):
    # f(x, x): both parameters are the same program input (no flat span of memory read through strided
    # gathers), a write through one is seen through the other, and distinct arrays are never taken for it.
    def f(a, b):
        a[1:3] = 5.0
        return b * 2.0, a[0]

    x, shadow = arange((n,)), np.arange(float(n))
    g = sx.jit(f)
    out, _first = g(x, x)
    shadow[1:3] = 5.0
    np.testing.assert_array_equal(np.asarray(out), shadow * 2.0)
    np.testing.assert_array_equal(np.asarray(x), shadow)
    text = g.lower(x, x).as_text()
    assert "%arg1" not in text and "gather" not in text, text
    y, z = arange((n,)), arange((n,))
    out, _ = g(y, z)  # two arrays again: two inputs, no write between them
    np.testing.assert_array_equal(np.asarray(out), np.arange(float(n)) * 2.0)
    mm = sx.jit(lambda p, q: p @ q)
    m = sx.reshape(arange((9,)), (3, 3))
    np.testing.assert_array_equal(np.asarray(mm(m, m)), np.asarray(m) @ np.asarray(m))
    assert "%arg1" not in mm.lower(m, m).as_text()


def test_reshape_copies_under_jit_exactly_when_it_copies_eagerly():
    def f(x):
        flat = sx.reshape(sx.permute_dims(x, (1, 0)), (-1,))  # not a view: a copy
        flat[0] = 1000.0
        same = sx.reshape(x, (-1,))  # a view
        same[1] = 2000.0
        return x, flat

    run_both(f, lambda: arange((2, 3)))


def test_written_closed_over_array_is_written_back():
    g = arange((3,))

    def f(x):
        g[1] = 50.0
        return x + g

    out = sx.jit(f)(arange((3,)))
    np.testing.assert_array_equal(np.asarray(out), [0.0, 51.0, 4.0])
    np.testing.assert_array_equal(np.asarray(g), [0.0, 50.0, 2.0])


def test_results_are_writable_and_dtypes_are_64_bit():
    import jax

    before = jax.config.jax_enable_x64
    f = sx.jit(lambda x, y: (x + y, x))
    out, _ = f(arange((3,), np.float64), arange((3,), np.float64))
    assert out.dtype == sx.float64
    out[0] = 7.0  # copy-on-write of JAX's buffer
    assert float(out[0]) == 7.0
    u = sx.asarray(np.array([2**63 + 5], dtype=np.uint64))
    r = sx.jit(lambda a: a + a)(u)
    assert r.dtype == sx.uint64
    assert int(r[0]) == (2 * (2**63 + 5)) % 2**64
    assert jax.config.jax_enable_x64 == before  # the user's global setting is untouched


def test_python_scalars_are_weak_and_dynamic():
    calls = []

    def f(x, s):
        calls.append(1)
        return x * s

    g = sx.jit(f)
    x32 = sx.asarray(np.ones(3, np.float32))
    assert g(x32, 2.0).dtype == sx.float32
    assert g(x32, 3.0).dtype == sx.float32
    assert len(calls) == 1  # the same signature: not traced again
    np.testing.assert_array_equal(np.asarray(g(x32, 3.0)), [3.0, 3.0, 3.0])


def test_cache_keys_static_args_and_pytrees():
    calls = []

    def f(tree, *, n):
        calls.append(n)
        return {"sum": tree["a"] + tree["b"][0], "n": n, "none": None}

    g = sx.jit(f, static_argnames="n")
    tree = {"a": arange((2,)), "b": [arange((2,)), None]}
    out = g(tree, n=3)
    assert out["n"] == 3 and out["none"] is None
    np.testing.assert_array_equal(np.asarray(out["sum"]), [0.0, 2.0])
    g(tree, n=3)
    assert calls == [3]
    g(tree, n=4)
    assert calls == [3, 4]
    g({"a": arange((3,)), "b": [arange((3,)), None]}, n=4)
    assert calls == [3, 4, 4]
    assert g.cache_size() == 3
    with pytest.raises(TypeError, match="not hashable"):
        sx.jit(lambda x, s: x, static_argnums=1)(arange((2,)), [1, 2])


def test_bool_of_tracer_names_the_line_and_the_ways_out():
    def f(x):
        if x[0] > 0:  # data-dependent Python control flow
            return x
        return -x

    # (With graph breaks, the default, this compiles one program per branch: tests/transforms/test_graph_breaks.py.)
    with pytest.raises(ConcretizationError) as info:
        sx.jit(f, graph_breaks=False)(arange((2,)))
    message = str(info.value)
    assert "test_jit.py" in message and "static" in message
    for convert in (int, float, bool):
        with pytest.raises(ConcretizationError):
            sx.jit(lambda x, c=convert: c(x), graph_breaks=False)(arange(()))


def test_escaped_tracer_is_reported_when_used():
    leaked = []
    sx.jit(lambda x: leaked.append(x) or x)(arange((2,)))
    with pytest.raises(EscapedTracerError, match="escaped"):
        leaked[0] + 1


def test_data_dependent_shapes_raise_naming_the_operation():
    def f(x):
        return x[x > 2.0]

    with pytest.raises(DataDependentShapeError, match="boolean_gather"):
        sx.jit(f, graph_breaks=False)(arange((5,)))


def test_printed_ir_golden():
    def f(x, y):
        z = x + y
        z[0] = 1.0
        return sx.permute_dims(z, (1, 0))

    text = str(sx.make_ir(f)(arange((2, 3)), arange((2, 3))))
    assert text == (
        "{ lambda a:f64[2,3] b:f64[2,3] .\n"
        "    c:f64[2,3] = add a b\n"
        "    d:f64[2,3] = scatter[template=[0, 0:3]] c 1.0\n"
        "    e:f64[3,2] = permute[axes=(1,0)] d\n"
        "  in (e) }"
    )


def test_passes_fold_views_and_eliminate_dead_and_common_code():
    def f(x):
        a = sx.permute_dims(sx.permute_dims(x, (1, 0)), (1, 0))
        unused = x + 5.0  # noqa: F841
        return a + x, a + x

    program = sx.make_ir(f)(arange((2, 3)))
    names = [e.prim.name for e in program.eqns]
    assert names == ["add"], str(program)
    verify(program)


def test_program_evaluates_eagerly_to_the_jit_result():
    def f(x):
        y = x[::-1] + 1.0
        y[1:] = 0.0
        return y * 2.0, sx.reshape(y, (2, 2))

    x = arange((4,))
    program = sx.make_ir(f)(x)
    verify(program)
    assert_same(evaluate(program, x), sx.jit(f)(x))


def test_outputs_viewing_one_buffer_share_memory_as_eagerly():
    def f(x):
        y = x + 1.0
        return y, y[::2]

    y, y2 = sx.jit(f)(arange((4,)))
    y[0] = 100.0
    assert float(y2[0]) == 100.0


def test_verifier_rejects_malformed_programs():
    program = sx.make_ir(lambda x: x + 1.0)(arange((2,)))
    bad = Program(program.inputs, [], program.eqns + program.eqns, program.outputs)
    with pytest.raises(IRError, match="defined twice"):
        verify(bad)
    reordered = Program([], [], program.eqns, program.outputs)
    with pytest.raises(IRError, match="before it is defined"):
        verify(reordered)


VIEWS = {  # (stridex view, its NumPy shadow: a writable view of the same elements)
    "diagonal": (lambda b: sx.linalg.diagonal(b), lambda b: np.lib.stride_tricks.as_strided(b, (3,), (40,))),
    "diagonal+1": (lambda b: sx.linalg.diagonal(b, offset=1),
                   lambda b: np.lib.stride_tricks.as_strided(b[:, 1:], (3,), (40,))),
    "slice": (lambda b: b[1], lambda b: b[1]),
    "flip": (lambda b: sx.flip(b, axis=0)[0], lambda b: b[::-1][0]),
    "transpose": (lambda b: b.T[0], lambda b: b.T[0]),
    "strided": (lambda b: b[::2, ::-2][0], lambda b: b[::2, ::-2][0]),
}
INDICES = {  # (stridex key, NumPy key) into a view of length 2 or 3
    "integer array": (lambda: sx.asarray([0, -1]), lambda: np.array([0, -1])),
    "mask": (lambda: sx.asarray([True, False]), lambda: np.array([True, False])),
    "slice": (lambda: slice(None, None, -2), lambda: slice(None, None, -2)),
    "integer": (lambda: -1, lambda: -1),
}


@pytest.mark.parametrize("device", ["cpu", "cpu:1"])
@pytest.mark.parametrize("index", sorted(INDICES))
@pytest.mark.parametrize("view", sorted(VIEWS))
def test_writes_through_every_view_kind_with_every_index_kind(view, index, device):
    """`view(b)[key] = v` writes into b: eagerly, under jit and under make_ir's evaluation alike, against a NumPy
    shadow of the same view (the diagonal with an index array or a mask crashed under jit: its write-back's
    mask program used index arrays that nothing in the program defined)."""
    make_view, numpy_view = VIEWS[view]
    make_key, numpy_key = INDICES[index]
    base = np.arange(12.0).reshape(3, 4)
    want = base.copy()
    shadow = numpy_view(want)
    key = numpy_key()
    if isinstance(key, np.ndarray) and key.dtype == bool:
        key = np.concatenate([key, np.zeros(shadow.shape[0] - 2, bool)])
    shadow[key] = -1.0

    def write(b):
        v = make_view(b)
        k = make_key()
        if isinstance(k, sx.Array) and k.dtype == sx.bool:
            k = sx.concat([k, sx.zeros(v.shape[0] - 2, dtype=sx.bool)])
        v[k] = -1.0
        return b, v

    with sx.default_device(device):
        eager = write(sx.asarray(base.copy()))
        jitted = sx.jit(write)
        for call in range(3):
            got = jitted(sx.asarray(base.copy()))
            assert got[0].device == device
            np.testing.assert_array_equal(np.asarray(got[0]), want, err_msg=f"jit call {call}")
            np.testing.assert_array_equal(np.asarray(got[1]), np.asarray(eager[1]), err_msg=f"jit call {call}")
        np.testing.assert_array_equal(np.asarray(eager[0]), want)
        program = sx.make_ir(write)(sx.asarray(base.copy()))
        verify(program)
        evaluated = evaluate(program, sx.asarray(base.copy()))
        np.testing.assert_array_equal(np.asarray(evaluated[0]), want)


def test_a_write_into_a_python_scalar_argument_is_a_type_error_as_eagerly():
    def f(x, a):
        a[...] = 1.0
        return x

    with pytest.raises(TypeError):
        f(arange((2,)), 2.0)
    with pytest.raises(TypeError, match=r"writes into its argument leaf 1, a Python float \(2.0\)"):
        sx.jit(f)(arange((2,)), 2.0)


def test_a_malformed_program_is_reported_as_a_stridex_bug():
    """jit verifies every program it builds: a malformed one is an InternalError that says it is stridex's bug,
    never a KeyError from deep inside the lowering."""
    from stridex._transforms import jit as jit_module
    from stridex._transforms.ir import InternalError

    real = jit_module.optimize

    def broken(program):  # (a pass that loses the equation defining the output)
        program = real(program)
        return Program(program.inputs, program.constants, program.eqns[:-1], program.outputs)

    jit_module.optimize = broken
    try:
        with pytest.raises(InternalError, match="bug in stridex"):
            sx.jit(lambda x: sx.sin(x) * 2.0)(arange((3,)))
    finally:
        jit_module.optimize = real


def test_lower_shows_jax_text():
    text = sx.jit(lambda x: x + 1.0).lower(arange((3,))).as_text()
    assert "stablehlo.add" in text or "add" in text
    assert "f64" in text


def test_nested_jit_inlines():
    inner = sx.jit(lambda x: x + 1.0)
    outer = sx.jit(lambda x: inner(x) + inner(x))
    np.testing.assert_array_equal(np.asarray(outer(arange((2,)))), [2.0, 4.0])


def test_import_does_not_import_jax_until_jit():
    code = ("import sys, stridex as sx; assert 'jax' not in sys.modules; "
            "x = sx.asarray([1.0]); x + x; assert 'jax' not in sys.modules; "
            "sx.jit(lambda a: a + 1.0)(x); assert 'jax' in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)


SHARDED_MATMUL = r"""
import numpy as np, jax
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
import stridex as sx
assert len(jax.devices()) == 4, jax.devices()
mesh = Mesh(np.array(jax.devices()), ("rows",))
rows = NamedSharding(mesh, P("rows", None))
replicated = NamedSharding(mesh, P())
a = np.arange(64.0).reshape(8, 8)
b = np.ones((8, 8)) * 0.5
f = sx.jit(lambda x, y: x @ y, in_shardings=(rows, replicated), out_shardings=rows)
xs, ys = sx.asarray(a), sx.asarray(b)
for _ in range(4):  # again with the same small inputs: their snapshots, then the memo
    out = f(xs, ys)
    np.testing.assert_allclose(np.asarray(out), a @ b)
out2 = f(out, ys)  # a sharded JAX result as an input
np.testing.assert_allclose(np.asarray(out2), (a @ b) @ b)
compiled = f.lower(sx.asarray(a), sx.asarray(b)).compile()
shardings = compiled.output_shardings
spec = (shardings[0] if isinstance(shardings, (tuple, list)) else shardings).spec
assert tuple(spec) == ("rows", None) or tuple(spec)[:1] == ("rows",), spec
print("sharded ok", spec)
"""


def test_sharded_matmul_over_four_host_devices():
    env = {**os.environ, "XLA_FLAGS": "--xla_force_host_platform_device_count=4", "JAX_PLATFORMS": "cpu"}
    result = subprocess.run([sys.executable, "-c", SHARDED_MATMUL], env=env, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "sharded ok" in result.stdout


def _has_gpu() -> bool:
    try:
        import jax

        return any(d.platform == "gpu" for d in jax.devices())
    except RuntimeError:
        return False


@pytest.mark.gpu
@pytest.mark.skipif(not _has_gpu(), reason="no GPU visible to JAX")
def test_jit_runs_on_the_gpu():
    import jax

    gpu = next(d for d in jax.devices() if d.platform == "gpu")
    f = sx.jit(lambda x: sx.sum(x * x), device=gpu)
    x = sx.asarray(np.arange(1000.0))
    np.testing.assert_allclose(float(f(x)), float(np.sum(np.arange(1000.0) ** 2)))
    assert f.lower(x).compile() is not None


def test_traced_python_scalars_are_checked_like_python_scalars():
    x = sx.asarray(np.ones(3, np.float32))
    for f in (sx.atan2, sx.copysign, sx.hypot, sx.nextafter, sx.add):
        got, want = sx.jit(lambda a, s, f=f: f(a, s))(x, 0), f(x, 0)
        assert got.dtype == want.dtype == sx.float32
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    with pytest.raises(TypeError, match="complex"):
        sx.jit(lambda a, s: sx.atan2(a, s))(x, 1j)


def test_mask_assignment_of_a_scalar_under_jit():
    def f(x, m):
        x[m] = 0.0
        return x * 2.0

    eager_x, jit_x = arange((2, 3)), arange((2, 3))
    assert_same(f(eager_x, eager_x > 2.0), sx.jit(f)(jit_x, jit_x > 2.0))
    assert_same(eager_x, jit_x)

    def g(x, m):
        x[m] = sx.asarray([1.0, 2.0])  # one value per selected element: a data-dependent count
        return x

    with pytest.raises(DataDependentShapeError):
        sx.jit(g, graph_breaks=False)(arange((4,)), arange((4,)) > 1.5)
    eager_x, jit_x = arange((4,)), arange((4,))
    assert_same(g(eager_x, eager_x > 1.5), sx.jit(g)(jit_x, jit_x > 1.5))  # a graph break
    assert_same(eager_x, jit_x)


def test_aliased_jax_inputs_see_later_eager_writes():
    f = sx.jit(lambda a, b: a * b + 1.0)
    x, y = sx.ones((4096,)), sx.ones((4096,))
    assert float(f(x, y)[0]) == 2.0
    x[0] = 5.0  # JAX was handed x's aligned memory without a copy: the next call must see the write
    assert float(f(x, y)[0]) == 6.0
    view = x[::2]
    view[...] = 3.0
    np.testing.assert_array_equal(np.asarray(f(x, y))[:4], [4.0, 2.0, 4.0, 2.0])
    ro = sx.jit(lambda a: a * 2.0)(x)  # a JAX result, copied on its first write
    ro[1] = 10.0
    assert float(f(ro, y)[1]) == 11.0


def test_view_folding_keeps_a_view_whose_identity_successor_is_still_used():
    def f(h):
        j = sx.reshape(h * 2.0, ())    # a reshape view of a computed value
        k = sx.flip(j, axis=None)      # an identity view of it (no axes): folded away
        return sx.abs(k), sx.reshape(k, (1,)) * 1.0, k   # k is still used, and reshaped again

    program = sx.make_ir(f)(sx.asarray([3.0]))
    verify(program)
    run_both(f, lambda: sx.asarray([3.0]))


def test_chained_calls_on_jax_results_keep_64_bit_types():
    import jax

    before = jax.config.jax_enable_x64
    f = sx.jit(lambda a, b: a * b + 1)
    x = sx.asarray(np.array([2**40 + 1], dtype=np.uint64))
    y = f(x, x)  # numpy-backed inputs
    z = f(y, f(y, x))  # JAX results as inputs: the ahead-of-time executable
    expected = np.array([2**40 + 1], dtype=np.uint64)
    expected = expected * expected + np.uint64(1)
    expected = expected * (expected * np.uint64(2**40 + 1) + np.uint64(1)) + np.uint64(1)
    assert z.dtype == sx.uint64
    np.testing.assert_array_equal(np.asarray(z), expected)
    g = sx.jit(lambda a: a / 3.0)
    w = g(g(sx.asarray([1.0])))
    assert w.dtype == sx.float64 and float(w[0]) == 1.0 / 9.0
    assert jax.config.jax_enable_x64 == before


def test_large_aligned_float64_inputs_stay_float64_without_global_x64():
    import jax

    if jax.config.jax_enable_x64:  # the user's setting (JAX_ENABLE_X64): then nothing is narrowed anyway
        pytest.skip("JAX's 64-bit mode is on globally")
    x = sx.asarray(1.0 + np.arange(4096) * 1e-12, copy=True)  # aligned and large: handed to JAX zero-copy
    for f in (lambda a: a * 3.0 - a, lambda a: sx.sin(a) + a):
        got = sx.jit(f)(x)
        assert got.dtype == sx.float64
        np.testing.assert_allclose(np.asarray(got), np.asarray(f(x)), rtol=1e-15)


# --- the steady-state call paths: the last-call memo, snapshots of small inputs, JAX-result inputs ------

def _calls(f, make_args, n=5):
    """n calls of f on fresh argument values each time, checked against eager at every call."""
    g = sx.jit(f)
    for k in range(n):
        args = make_args(k)
        assert_same(f(*args), g(*args))
    return g


def test_repeated_calls_see_writes_to_small_inputs_through_stridex_and_numpy():
    g = sx.jit(lambda a, b: a * b + 1.0)
    base = np.array([1.0, 2.0])
    x = sx.asarray(base)  # borrowed memory: NumPy may write it behind stridex's back
    y = sx.asarray([3.0, 4.0])
    for k in range(6):  # first sight, snapshot, JAX copy, then the memo's direct call
        if k % 2:
            base[0] = 10.0 * k            # written through NumPy
        else:
            y[1] = float(k)               # written through stridex
        want = base * np.asarray(y) + 1.0
        np.testing.assert_array_equal(np.asarray(g(x, y)), want)
        np.testing.assert_array_equal(np.asarray(g(x, y)), want)  # unchanged: the snapshot path
        np.testing.assert_array_equal(np.asarray(g(x, y)), want)


def test_snapshots_tell_negative_zero_and_nan_payloads_apart():
    g = sx.jit(lambda a: sx.copysign(sx.ones_like(a), a))
    base = np.array([0.0])
    x = sx.asarray(base)
    for _ in range(3):
        assert float(g(x)[0]) == 1.0
    base[0] = -0.0  # equal as a float, different bytes
    assert float(g(x)[0]) == -1.0
    assert float(g(x)[0]) == -1.0


def test_an_input_rewritten_before_every_call_is_never_copied_to_jax(monkeypatch):
    import stridex._transforms.handover as jit_module

    made = []
    real = jit_module._to_jax
    monkeypatch.setattr(jit_module, "_to_jax", lambda w: made.append(w) or real(w))
    g = sx.jit(lambda a: a + 1.0)
    x = sx.asarray([0.0])
    for k in range(5):
        x[0] = float(k)
        assert float(g(x)[0]) == k + 1.0
    assert made == []
    for _ in range(3):
        assert float(g(x)[0]) == 5.0
    assert len(made) == 1  # the same bytes seen twice: one JAX copy, then reused


def test_memo_follows_changing_arguments_dtypes_and_kinds():
    g = sx.jit(lambda a, b: a - b)
    f32 = sx.jit(lambda a: a * 1)(sx.asarray([1.0, 2.0], dtype=sx.float32))  # JAX results of each dtype
    f64 = sx.jit(lambda a: a * 1)(sx.asarray([1.0, 2.0]))
    i64 = sx.jit(lambda a: a * 1)(sx.asarray([1, 2]))
    cases = [(f32, f32), (f64, f64), (f32, f32), (i64, f64), (sx.asarray([5.0, 6.0]), f64),
             (f64, sx.asarray([7.0, 8.0])[::-1]), (f64, f64)]
    for _ in range(2):
        for a, b in cases:
            assert_same(a - b, g(a, b))


def test_memo_serves_aliased_arguments_only_for_programs_that_write_no_input():
    pure = sx.jit(lambda a, b: a + b)
    x, y = sx.asarray([1.0, 2.0]), sx.asarray([3.0, 4.0])
    for _ in range(3):
        pure(x, y)
    assert_same(pure(x, x), x + x)

    def writes(a, b):
        a[0] = 100.0
        return b * 1.0

    w = sx.jit(writes)
    for _ in range(3):
        w(sx.asarray([1.0, 2.0]), sx.asarray([3.0, 4.0]))
    z = sx.asarray([1.0, 2.0])
    assert_same(w(z, z), sx.asarray([100.0, 2.0]))  # b is a: it sees the write, as eagerly
    assert_same(z, sx.asarray([100.0, 2.0]))


def test_a_jax_result_written_after_the_call_is_passed_by_value_again():
    g = sx.jit(lambda a: a * 2.0)
    r = g(sx.asarray([1.0, 2.0]))
    for _ in range(3):
        assert_same(g(r), sx.asarray([4.0, 8.0]))
    r[0] = 10.0  # copy-on-write: r no longer is the JAX array
    assert_same(g(r), sx.asarray([20.0, 8.0]))
    assert_same(g(r), sx.asarray([20.0, 8.0]))
    view = g(r)[1:]  # a view of a JAX result is not the whole JAX array
    assert_same(g(view), sx.asarray([16.0]))


def test_calls_after_clear_cache_and_with_closed_over_arrays():
    c = sx.asarray([1.0, 2.0])
    g = sx.jit(lambda a: a + c)
    x = sx.asarray([0.5, 0.5])
    for _ in range(3):
        assert_same(g(x), x + c)
    c[1] = 20.0  # a closed-over array written between calls
    assert_same(g(x), x + c)
    g.clear_cache()
    assert_same(g(x), x + c)


def test_block_until_ready_returns_the_array():
    r = sx.jit(lambda a: a + 1.0)(sx.asarray([1.0]))
    assert r.block_until_ready() is r
    assert float(r[0]) == 2.0
    eager = sx.asarray([3.0])
    assert eager.block_until_ready() is eager
    inside = []
    sx.jit(lambda a: inside.append(a.block_until_ready() is a) or a * 2.0)(eager)  # a traced value: itself
    assert inside == [True]
    on_device = sx.asarray([1.0, 2.0], device="cpu:1") * 2.0
    assert on_device.block_until_ready() is on_device


def test_the_memo_does_not_keep_a_large_input_alive():
    import gc
    import weakref

    g = sx.jit(lambda a: a * 2.0)
    big = np.ones(100_000)
    ref = weakref.ref(big)
    x = sx.asarray(big)
    for _ in range(3):
        g(x)
    del x, big
    gc.collect()
    assert ref() is None


# --- arguments whose storages differ but whose NumPy memory overlaps -------------------------------------

def _borrowed_twice(lo_a, hi_a, lo_b, hi_b, n=8):
    """Two stridex arrays over overlapping windows of one NumPy array, each borrowed on its own."""
    base = np.arange(float(n))
    return base, sx.asarray(base[lo_a:hi_a]), sx.asarray(base[lo_b:hi_b])


@pytest.mark.parametrize("windows", [(0, 8, 0, 8), (0, 5, 3, 8), (2, 8, 0, 4), (1, 7, 2, 3)])
def test_writes_reach_an_argument_that_borrows_the_same_numpy_memory(windows):
    def f(x, y):
        x[-1] = -1.0
        x[0] += 100.0
        return y * 1.0, x + 0.0

    base_e, xe, ye = _borrowed_twice(*windows)
    base_j, xj, yj = _borrowed_twice(*windows)
    g = sx.jit(f)
    assert_same(f(xe, ye), g(xj, yj))
    np.testing.assert_array_equal(base_e, base_j)
    base_j[:] = np.arange(8.0)  # again, now from the cache
    base_e[:] = np.arange(8.0)
    assert_same(f(xe, ye), g(xj, yj))
    np.testing.assert_array_equal(base_e, base_j)


def test_an_exported_stridex_array_borrowed_back_is_the_same_memory():
    def f(x, y):
        x[1:3] = 7.0
        return sx.sum(y)

    def make():
        x = sx.asarray(np.arange(5.0), copy=True)
        return x, sx.asarray(np.asarray(x)[1:])

    g = sx.jit(f)
    for _ in range(2):  # distinct arguments first: the fast cache then holds a program for distinct memory
        distinct = sx.asarray(np.arange(5.0), copy=True), sx.asarray(np.arange(4.0))
        assert_same(g(*distinct), sx.asarray(6.0))
    xe, ye = make()
    xj, yj = make()
    for _ in range(2):
        assert_same(f(xe, ye), g(xj, yj))
        assert_same(xe, xj)


def test_overlapping_memory_of_different_dtypes_is_an_error_only_for_a_writing_function():
    base = np.arange(4, dtype=np.int64)
    a, b = sx.asarray(base), sx.asarray(base.view(np.float64))
    assert_same(sx.jit(lambda x, y: x + 1)(a, b), a + 1)  # reads only: fine

    def writes(x, y):
        x[0] = 5
        return y * 1.0

    with pytest.raises(ValueError, match="overlap in memory with different dtypes"):
        sx.jit(writes)(a, b)
    with pytest.raises(ValueError, match="overlap in memory with different dtypes"):
        sx.jit(writes)(a, b)  # and from the cache


def test_a_read_only_argument_sharing_memory_with_a_written_one_is_an_error():
    base = np.arange(4.0)
    view = base[1:]
    view.flags.writeable = False
    a, b = sx.asarray(base), sx.asarray(view)

    def writes(x, y):
        x[0] = 5.0
        return y * 1.0

    with pytest.raises(ValueError, match="read-only argument"):
        sx.jit(writes)(a, b)
    assert_same(sx.jit(lambda x, y: x[1:] + y)(a, b), a[1:] + b)


def test_aliased_arguments_at_other_offsets_of_the_same_storage_are_read_there():
    g = sx.jit(lambda a, b: a - b)
    x = sx.asarray(np.array([1.0, 0.0, 5.0, 2.0]))
    for k in range(3):  # the same relative placement each time, at a different place in x's storage
        assert_same(g(x[k + 1], x[k]), x[k + 1] - x[k])
    base = np.arange(10.0)
    for k in range(3):  # and over NumPy memory borrowed twice
        a, b = sx.asarray(base[k + 2:k + 5]), sx.asarray(base[k:k + 4])
        assert_same(g(a, b[:3]), a - b[:3])


def test_donated_arguments_give_the_same_results_and_the_caller_keeps_its_array():
    import warnings

    g = sx.jit(lambda a, b: a * 2.0 + b, donate_argnums=0)
    for n in (2, 4096):  # a small window and a large aligned buffer
        x, y = sx.asarray(np.arange(float(n)), copy=True), sx.ones((n,))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # JAX on the CPU may say it could not use a donated buffer
            for _ in range(3):
                assert_same(g(x, y), x * 2.0 + y)
        assert_same(x, sx.asarray(np.arange(float(n))))  # the stridex array is still whole


def test_arrays_first_seen_after_compilation_are_snapshotted_when_they_come_again(monkeypatch):
    from stridex._transforms import handover

    made = []
    real = handover._to_jax
    monkeypatch.setattr(handover, "_to_jax", lambda w: made.append(w) or real(w))
    g = sx.jit(lambda a, b: a * b + 1.0)
    g(sx.asarray(np.ones(1)), sx.asarray(np.ones(1)))  # compiled for other arrays
    x, y = sx.asarray(np.array([3.0])), sx.asarray(np.array([4.0]))
    for _ in range(6):
        assert float(g(x, y)[0]) == 13.0
    assert len(made) == 2  # one JAX copy each, reused since
    g(x + 1.0, y)  # fresh arrays on every call are not adopted or copied
    assert len(made) == 2


# --- regressions: the reliability issue --------------------------------------------------------------


def test_closed_over_array_sees_write_through_aliasing_argument():
    x = sx.asarray(np.array([0.0, 1.0, 2.0]))

    def h(v):
        v[0] = 9.0
        return x * 1.0

    assert_same(sx.jit(h)(x), sx.asarray([9.0, 1.0, 2.0]))
    assert_same(x, sx.asarray([9.0, 1.0, 2.0]))
    other = sx.asarray(np.array([0.0, 1.0, 2.0]))  # the same program, now on memory x does not share
    x[0] = 0.0
    assert_same(sx.jit(h)(other), sx.asarray([0.0, 1.0, 2.0]))
    assert_same(other, sx.asarray([9.0, 1.0, 2.0]))


def test_closed_over_views_of_one_storage_see_each_others_writes():
    a = sx.asarray(np.array([0.0, 1.0, 2.0]))
    r = a[::-1]

    def f(s):
        a[...] = s
        return r * 1.0

    jf = sx.jit(f)
    for s in (5.0, 6.0):  # traced, then cached
        assert_same(jf(s), sx.asarray([s, s, s]))
        assert_same(a, sx.asarray([s, s, s]))


@pytest.mark.parametrize("write", [
    lambda x: x[::-1].__setitem__(Ellipsis, 1.0),
    lambda x: x[::-2].__setitem__(Ellipsis, 1.0),
    lambda x: sx.flip(x).__setitem__(Ellipsis, sx.arange(5.0)),
    lambda x: x[1:4][::-1].__setitem__(slice(None), sx.asarray([7.0, 8.0, 9.0])),
])
def test_whole_window_writes_through_reversed_views_compile(write):
    # Used to abort the process (XLA's simplifier on a scatter with empty indices).
    def f(x):
        write(x)
        return x

    eager = f(arange((5,)))
    assert_same(sx.jit(f)(arange((5,))), eager)


def test_whole_window_write_2d_with_int_newaxis_and_ellipsis():
    def f(x):
        x[1, ::-1] = sx.asarray([1.0, 2.0, 3.0])
        x[None, :, ::-1][..., 0] = -1.0
        x[::-1, 1:][...] = 0.5
        return x

    assert_same(sx.jit(f)(arange((3, 3))), f(arange((3, 3))))


def test_pickled_unread_jit_result_keeps_its_values():
    import copy
    import pickle

    out = sx.jit(lambda a: a * 2.0)(sx.asarray(np.arange(4.0)))[:2]
    back = pickle.loads(pickle.dumps(out))
    assert_same(back, sx.asarray([0.0, 2.0]))
    for dtype in (sx.float32, sx.int64, sx.complex128, sx.bool):
        x = sx.asarray(np.arange(6).reshape(2, 3), dtype=dtype)
        y = sx.jit(lambda a: ~a if a.dtype == sx.bool else -a)(x)
        want = np.logical_not(np.asarray(x)) if dtype is sx.bool else -np.asarray(x)
        for copied in (pickle.loads(pickle.dumps(y)), copy.deepcopy(y)):
            assert copied.dtype == dtype and copied.shape == (2, 3)
            np.testing.assert_array_equal(np.asarray(copied), want)


def test_copy_copy_does_not_share_memory():
    import copy

    x = sx.asarray(np.arange(4.0))
    c = copy.copy(x[1:])
    c[0] = -1.0
    assert float(x[1]) == 1.0 and float(c[0]) == -1.0


def test_pickling_a_tracer_is_a_concretization_error():
    import pickle

    with pytest.raises(ConcretizationError, match="pickling"):
        sx.jit(lambda a: pickle.dumps(a))(sx.asarray([1.0]))


# --- Python scalar arguments: treated as the eager Python scalar ------------------------------------------


def run_with_scalar(f, make_x, s):
    """f(x, s) eagerly and under jit (s a Python scalar argument) on copies of x; results and x must agree."""
    x_eager, x_jit = make_x(), make_x()
    eager_out, jit_out = f(x_eager, s), sx.jit(f)(x_jit, s)
    assert_same(eager_out, jit_out)
    assert_same(x_eager, x_jit)
    return jit_out


def test_python_scalar_argument_setitem_under_jit():
    def f(x, s):
        x[0] = s
        x[x == 3] = s
        return x

    for dtype, scalars in ((sx.int8, (5, -1, True)), (sx.float32, (5, 2.5, True)), (sx.complex64, (5, 2.5, 1j))):
        for s in scalars:
            assert run_with_scalar(f, lambda dtype=dtype: sx.asarray([1, 2, 3], dtype=dtype), s).dtype is dtype
    with pytest.raises(TypeError, match="float"):
        sx.jit(f)(sx.asarray([1, 2], dtype=sx.int8), 2.5)  # as eagerly: a float does not go into an int array


def test_python_int_argument_out_of_range_raises_overflow_error_like_eager():
    """An int argument stored into an integer dtype (operators, in-place operators, setitem, full_like, asarray,
    where) is checked when the jitted function is called, with the error eager execution raises."""
    def iadd(x, s):
        x += s
        return x

    def setitem(x, s):
        x[1:] = s
        return x

    functions = [lambda x, s: x + s, lambda x, s: s - x, iadd, setitem, lambda x, s: sx.full_like(x, s),
                 lambda x, s: sx.asarray(s, dtype=x.dtype), lambda x, s: sx.where(x > 1, x, s),
                 lambda x, s: sx.full((2,), s, dtype=x.dtype)]
    for f in functions:
        jitted = sx.jit(f)
        for dtype, bad in ((sx.int8, 300), (sx.uint8, -1), (sx.int16, -40000)):
            with pytest.raises(OverflowError) as eager_error:
                f(sx.asarray([1, 2, 3], dtype=dtype), bad)
            with pytest.raises(OverflowError, match=str(eager_error.value)):
                jitted(sx.asarray([1, 2, 3], dtype=dtype), bad)
            run_with_scalar(f, lambda dtype=dtype: sx.asarray([1, 2, 3], dtype=dtype), 7)  # the same program
    with pytest.raises(ValueError, match="NaN"):  # a float stored into an integer dtype: NumPy's checks too
        sx.jit(lambda x, s: sx.full_like(x, s))(sx.asarray([1], dtype=sx.int8), float("nan"))


def test_python_scalar_argument_in_creation_functions():
    x = sx.asarray([1.0, 2.0], dtype=sx.float32)
    for f, s in ((lambda x, s: sx.full_like(x, s), 2), (lambda x, s: sx.full_like(x, s, dtype=sx.int8), 3),
                 (lambda x, s: sx.full((2, 2), s) + x, 2), (lambda x, s: sx.asarray(s) + x, 2),
                 (lambda x, s: sx.linspace(0, s, 5), 2.0), (lambda x, s: sx.linspace(s, 10, 4, dtype=sx.int32), 1),
                 (lambda x, s: sx.linspace(s, 1j, 3), 0.5), (lambda x, s: sx.linspace(0, s, 4, endpoint=False), 1),
                 (lambda x, s: sx.linspace(s, 0.0, 1), 3.0), (lambda x, s: sx.linspace(s, 1.0, 0), 3.0)):
        eager, traced = f(x, s), sx.jit(f)(x, s)
        assert traced.dtype is eager.dtype and traced.shape == eager.shape, (eager, traced)
        np.testing.assert_allclose(np.asarray(traced), np.asarray(eager), rtol=1e-15, atol=0)
    # linspace with two traced bounds, against NumPy over many sizes (agreement to the last bit or two).
    for num in (2, 7, 50, 528):
        for endpoint in (True, False):
            traced = sx.jit(lambda a, b, num=num, endpoint=endpoint: sx.linspace(a, b, num, endpoint=endpoint))(-3.5, 7.25)
            np.testing.assert_allclose(np.asarray(traced), np.linspace(-3.5, 7.25, num, endpoint=endpoint),
                                       rtol=0, atol=8e-15)
            assert float(traced[-1 if endpoint else 0]) == (7.25 if endpoint else -3.5)
    with pytest.raises(TypeError, match="bool"):
        sx.jit(lambda s: sx.linspace(0, s, 3))(True)  # as eagerly


def test_arange_of_python_scalar_argument_names_static_argnums():
    with pytest.raises(DataDependentShapeError, match="static_argnums"):
        sx.jit(lambda n: sx.arange(n), graph_breaks=False)(3)
    assert np.asarray(sx.jit(lambda n: sx.arange(n), static_argnums=0)(3)).tolist() == [0, 1, 2]
    with pytest.raises(TypeError, match="static_argnums"):
        sx.jit(lambda n: sx.zeros((n, 2)), graph_breaks=False)(3)
    # With graph breaks (the default) the value is taken and guarded: one program per value.
    assert np.asarray(sx.jit(lambda n: sx.arange(n))(3)).tolist() == [0, 1, 2]
    assert sx.jit(lambda n: sx.zeros((n, 2)))(3).shape == (3, 2)


def test_numpy_scalar_arguments_act_as_python_scalars():
    f = sx.jit(lambda x, s: x + s)
    x8 = sx.asarray([1, 2], dtype=sx.int8)
    assert_same(f(x8, np.int64(3)), x8 + 3)
    assert_same(f(x8, np.float32(2.5)), x8 + 2.5)
    assert_same(f(x8, np.bool_(True)), x8 + True)
    with pytest.raises(OverflowError, match="300"):
        f(x8, np.int64(300))


def test_jit_device_accepts_cpu_and_rejects_unknown_devices():
    import jax

    x = sx.asarray([1.0, 2.0])
    for device in ("cpu", "cpu:0", x.device, jax.devices("cpu")[0]):
        assert_same(sx.jit(lambda a: a + 1, device=device)(x), x + 1)
    for device in ("gpu" if not any(d.platform == "gpu" for d in jax.devices()) else "tpu", "cpu:99", "cpu:x"):
        with pytest.raises(ValueError, match="available devices are 'cpu', 'cpu:0'|available devices are 'cpu', .*'cpu:0'"):
            sx.jit(lambda a: a + 1, device=device)
    with pytest.raises(TypeError, match="device"):
        sx.jit(lambda a: a + 1, device=3)


def test_leaked_tracer_from_failed_trace_is_escaped_tracer_error():
    import copy

    leaked = []

    def f(x):
        leaked.append(x * 2)
        raise RuntimeError("the traced function failed")

    with pytest.raises(RuntimeError):
        sx.jit(f)(sx.asarray([1.0, 2.0, 3.0]))
    (t,) = leaked
    assert t.shape == (3,) and t.dtype is sx.float64 and "float64[3]" in repr(t) and len(t) == 3
    for use in (lambda: t + 1, lambda: sx.ones(3) - t, lambda: t[0], lambda: t.__setitem__(0, 1.0), lambda: -t,
                lambda: sx.sum(t), lambda: np.asarray(t), lambda: float(t[0]), lambda: bool(t == 1),
                lambda: copy.copy(t), lambda: sx.jit(lambda a: a + 1)(t), lambda: list(t)):
        with pytest.raises(EscapedTracerError, match="escaped the jit trace"):
            use()


def test_copy_copy_is_independent():
    import copy

    x = sx.asarray(np.arange(4.0))
    for c in (copy.copy(x), copy.deepcopy(x), copy.copy(x[::2])):
        c[0] = -1.0
    assert np.asarray(x).tolist() == [0.0, 1.0, 2.0, 3.0]

    def f(a):
        c = copy.copy(a)
        c[0] = -1.0
        return c, a

    run_both(f, lambda: sx.asarray(np.arange(3.0)))


def test_jit_of_a_jitted_function_keeps_its_own_arguments_and_cache():
    """`functools.update_wrapper` copies the wrapped object's attributes: wrapping a jitted function, the
    outer one took the inner one's cache and static arguments, and lost its own `static_argnums`."""
    inner = sx.jit(lambda a, n: a * n)
    outer = sx.jit(inner, static_argnums=1)
    x = sx.asarray([1.0, 2.0])
    assert outer._fun is inner and outer._cache is not inner._cache and outer._static_argnums == {1}
    assert_same(outer(x, 3), x * 3)
    assert_same(outer(x, 4), x * 4)
    assert outer.stats["traces"] == 2  # one trace per value of the static argument
    assert outer.__name__ == inner.__name__ == "<lambda>"


def test_a_large_misaligned_numpy_argument_warns_once(monkeypatch):
    # JAX takes host memory without a copy only at a 64-byte boundary; NumPy's large arrays start 16 bytes
    # past one. Such an argument is copied on every call: jit says so once, and not for aligned memory.
    import warnings

    from stridex._core.storage import aligned_empty
    from stridex._transforms import handover

    monkeypatch.setattr(handover, "_misaligned_warned", False)
    n = handover.MISALIGNED_WARNING_BYTES // 8
    raw = aligned_empty((n + 8,), np.float64)
    raw[:] = np.arange(n + 8.0)
    misaligned = raw[2:2 + n]  # (16 bytes past the boundary, as NumPy allocates)
    f = sx.jit(lambda x: x * 2.0)
    with pytest.warns(handover.MisalignedArrayWarning, match=r"float64\[131072\].*16 bytes past.*copy=True"):
        out = f(sx.asarray(misaligned))
    np.testing.assert_array_equal(np.asarray(out), misaligned * 2.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        f(sx.asarray(misaligned))  # (once per process)
        monkeypatch.setattr(handover, "_misaligned_warned", False)
        aligned = sx.asarray(misaligned, copy=True)  # the way out: stridex memory, aligned
        for _ in range(3):
            np.testing.assert_array_equal(np.asarray(f(aligned)), misaligned * 2.0)
