"""The precision of compiled matrix products: exact float32 by default, a stridex switch (`matmul_precision`,
`set_matmul_precision`, STRIDEX_MATMUL_PRECISION), JAX's `jax_default_matmul_precision` honoured, and the jit
cache keyed on the setting. On the CPU, XLA computes every supported setting in full float32, so the switch is
checked in the lowered program's `precision` attribute, and staleness through what each call compiles."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
from pathlib import Path

import jax
import numpy as np
import pytest

import stridex as sx
from stridex._exec import precision as precision_state

ROOT = Path(__file__).resolve().parent.parent.parent
RNG = np.random.default_rng(20260115)
EPS32 = float(np.finfo(np.float32).eps)
# What lax.Precision each name means (lax.Precision's aliases).
PRECISION_OF = {"highest": "HIGHEST", "float32": "HIGHEST", "high": "HIGH", "tensorfloat32": "HIGH",
                "bfloat16_3x": "HIGH", "default": "DEFAULT", "bfloat16": "DEFAULT", "fastest": "DEFAULT"}


def operands(shape1, shape2, dtype=np.float32):
    a, b = RNG.standard_normal(shape1), RNG.standard_normal(shape2)
    if np.dtype(dtype).kind == "c":
        a, b = a + 1j * RNG.standard_normal(shape1), b + 1j * RNG.standard_normal(shape2)
    return a.astype(dtype), b.astype(dtype)


def dot_precisions(text: str) -> list[str]:
    """The precision attribute of every dot_general of a lowered module (with its algorithm, if any)."""
    return re.findall(r"stablehlo\.dot_general [^\n]*?precision = \[(\w+), \1\](?:, algorithm = <([^>]*)>)?", text)


def lowered_matmul(a, b, f=lambda x, y: x @ y) -> list:
    return dot_precisions(sx.jit(f).lower(sx.asarray(a), sx.asarray(b)).as_text())


def matmul_error(result, a, b) -> float:
    """max |result - exact| / max |exact|, the exact product computed in float64 (complex128)."""
    wide = np.complex128 if a.dtype.kind == "c" else np.float64
    exact = a.astype(wide) @ b.astype(wide)
    return float(np.max(np.abs(np.asarray(result) - exact)) / np.max(np.abs(exact)))


@pytest.fixture(autouse=True)
def no_setting():
    """Each test runs with no stridex setting and no JAX setting (whatever the process had is restored)."""
    saved_jax = jax.config.jax_default_matmul_precision
    jax.config.update("jax_default_matmul_precision", None)
    saved = sx.set_matmul_precision(None)
    yield
    sx.set_matmul_precision(saved)
    jax.config.update("jax_default_matmul_precision", saved_jax)


# --- the default: exact ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.float32, np.complex64])
def test_default_is_exact_single_precision(dtype):
    k = 512
    a, b = operands((64, k), (k, 48), dtype)
    # float32 accumulation over k terms: within a few eps * sqrt(k) of the largest entry (measured ~1e-6 on
    # the CPU; TF32 inputs, 10-bit mantissas, would be ~1e-4; bfloat16 ~1e-3)
    tolerance = 4 * np.sqrt(k) * EPS32
    wide = np.complex128 if np.dtype(dtype).kind == "c" else np.float64
    exact_in_32 = (a.astype(wide) @ b.astype(wide)).astype(dtype)
    for result in (sx.asarray(a) @ sx.asarray(b), sx.jit(lambda x, y: x @ y)(sx.asarray(a), sx.asarray(b))):
        assert result.dtype == sx.asarray(a).dtype
        assert matmul_error(result, a, b) <= tolerance
        np.testing.assert_allclose(np.asarray(result), exact_in_32, rtol=0, atol=tolerance * np.abs(exact_in_32).max())
    assert lowered_matmul(a, b) == [("HIGHEST", "")]


# --- the stridex switch -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(PRECISION_OF))
def test_switch_sets_the_lowered_precision(name):
    a, b = operands((8, 16), (16, 4))
    with sx.matmul_precision(name):
        assert sx.get_matmul_precision() == name
        assert lowered_matmul(a, b) == [(PRECISION_OF[name], "")]
    assert lowered_matmul(a, b) == [("HIGHEST", "")]


def test_switch_accepts_algorithm_presets_in_any_case():
    a, b = operands((8, 16), (16, 4))
    with sx.matmul_precision("bf16_bf16_f32_x3"):
        assert sx.get_matmul_precision() == "BF16_BF16_F32_X3"
        ((_, algorithm),) = lowered_matmul(a, b)
    assert "lhs_precision_type = bf16" in algorithm and "num_primitive_operations = 3" in algorithm
    with sx.matmul_precision("TensorFloat32"):
        assert sx.get_matmul_precision() == "tensorfloat32"


def test_every_product_follows_the_switch():
    """tensordot, vecdot, linalg's products and the products of a gradient are dot_generals too."""
    a, b = operands((6, 5), (5, 6))

    def products(x, y):
        loss = lambda x: sx.sum(sx.linalg.matrix_power(x @ y, 2))
        return (sx.tensordot(x, y, axes=1), sx.vecdot(x, sx.matrix_transpose(y)), sx.linalg.outer(x[0], y[0]),
                sx.linalg.trace(x @ y), sx.grad(loss)(x))

    with sx.matmul_precision("tensorfloat32"):
        found = dot_precisions(sx.jit(products).lower(sx.asarray(a), sx.asarray(b)).as_text())
    assert len(found) >= 5 and set(found) == {("HIGH", "")}, found


@pytest.mark.parametrize("dtype", [np.float64, np.complex128, np.int32, np.int64])
def test_only_32_bit_floating_products_are_affected(dtype):
    """A lower-precision path exists for float32/complex64 only; other dtypes stay exact, under JAX's setting too
    (an algorithm preset would otherwise round float64 or integer operands through bfloat16)."""
    a, b = operands((8, 16), (16, 4), dtype) if np.dtype(dtype).kind != "i" else (
        RNG.integers(-9, 9, (8, 16)).astype(dtype), RNG.integers(-9, 9, (16, 4)).astype(dtype))
    with sx.matmul_precision("BF16_BF16_F32"):
        assert lowered_matmul(a, b) == [("HIGHEST", "")]
    with jax.default_matmul_precision("bfloat16"):
        assert lowered_matmul(a, b) == [("HIGHEST", "")]


def test_scope_restores_nests_and_is_per_thread():
    assert sx.get_matmul_precision() is None
    seen = []
    with sx.matmul_precision("high"):
        with sx.matmul_precision("default"):
            assert sx.get_matmul_precision() == "default"
        assert sx.get_matmul_precision() == "high"
        other = threading.Thread(target=lambda: seen.append(sx.get_matmul_precision()))
        other.start()
        other.join()
        with pytest.raises(RuntimeError), sx.matmul_precision("bfloat16"):
            raise RuntimeError
        assert sx.get_matmul_precision() == "high"
    assert sx.get_matmul_precision() is None
    assert seen == [None]  # a block is this thread's only


def test_process_setting_holds_in_every_thread_and_a_scope_overrides_it():
    a, b = operands((8, 16), (16, 4))
    assert sx.set_matmul_precision("tensorfloat32") is None
    seen = []
    other = threading.Thread(target=lambda: seen.append((sx.get_matmul_precision(), lowered_matmul(a, b))))
    other.start()
    other.join()
    assert seen == [("tensorfloat32", [("HIGH", "")])]
    with sx.matmul_precision("highest"):
        assert lowered_matmul(a, b) == [("HIGHEST", "")]
    with sx.matmul_precision(None):  # no stridex setting in this block: JAX's, else exact
        assert sx.get_matmul_precision() is None
        assert lowered_matmul(a, b) == [("HIGHEST", "")]
    assert sx.set_matmul_precision(None) == "tensorfloat32"


@pytest.mark.parametrize("bad", ["tf32", "HIGHEST_PRECISION", "", 3, jax.lax.Precision.HIGH])
def test_unknown_setting_is_a_value_error_naming_the_allowed_ones(bad):
    for call in (sx.matmul_precision, sx.set_matmul_precision):
        with pytest.raises(ValueError, match=r"'highest', 'float32', 'high', 'tensorfloat32'.*BF16_BF16_F32"):
            call(bad)
    assert sx.get_matmul_precision() is None


# --- JAX's setting ----------------------------------------------------------------------------------------------


def test_jax_default_matmul_precision_is_honoured():
    a, b = operands((8, 16), (16, 4))
    with jax.default_matmul_precision("bfloat16"):
        assert lowered_matmul(a, b) == [("DEFAULT", "")]
        with sx.matmul_precision("highest"):  # a stridex setting is the more specific one
            assert lowered_matmul(a, b) == [("HIGHEST", "")]
    with jax.default_matmul_precision("BF16_BF16_F32_X3"):
        ((_, algorithm),) = lowered_matmul(a, b)
        assert "num_primitive_operations = 3" in algorithm
    jax.config.update("jax_default_matmul_precision", "tensorfloat32")  # the global form
    assert lowered_matmul(a, b) == [("HIGH", "")]
    jax.config.update("jax_default_matmul_precision", None)
    assert lowered_matmul(a, b) == [("HIGHEST", "")]


def test_jax_setting_is_read_as_jax_reads_it():
    """The fast read of JAX's setting agrees with the public `jax.config` in and out of JAX's scopes."""
    assert precision_state.jax_setting() is None
    with jax.default_matmul_precision("tensorfloat32"):
        assert precision_state.jax_setting() == jax.config.jax_default_matmul_precision == "tensorfloat32"
        assert precision_state.matmul_key() == ("jax", "tensorfloat32")
    assert precision_state.matmul_key() == "highest"


# --- the jit cache ----------------------------------------------------------------------------------------------


def _jitted_matmul():
    traced = []

    def f(x, y):
        traced.append(sx.get_matmul_precision() or jax.config.jax_default_matmul_precision)
        return x @ y

    return sx.jit(f), traced


def _run_under_unsupported_preset(f, x, y, reference_error):
    """Call f under "TF32_TF32_F32": XLA on the CPU cannot compile that algorithm, so a call that runs quietly
    there was served a program compiled under another setting. Where it compiles (an NVIDIA GPU), its TF32
    operands (10-bit mantissas) must show in the error."""
    with sx.matmul_precision("TF32_TF32_F32"):
        try:
            result = f(x, y)
        except Exception as e:  # noqa: BLE001 (JAX's compile error type differs between releases)
            assert "not supported" in str(e), e
        else:
            assert matmul_error(result, np.asarray(x), np.asarray(y)) > 10 * reference_error


@pytest.mark.parametrize("resident", [False, True], ids=["host inputs", "jit-output inputs"])
def test_jit_recompiles_when_the_setting_changes(resident):
    a, b = operands((8, 8), (8, 4))  # small: the memo path keeps windows up to 8 KiB
    f, traced = _jitted_matmul()
    x, y = sx.asarray(a), sx.asarray(b)
    if resident:  # arrays over JAX buffers: the steady call goes straight to the compiled executable
        x, y = sx.jit(lambda u, v: (u + 0, v + 0))(x, y)
    for _ in range(3):  # the first call traces, the next ones take the memo path
        exact = f(x, y)
    assert hasattr(f.__call__, "entry")  # the memo
    with sx.matmul_precision("bfloat16"):
        for _ in range(3):
            f(x, y)
    with jax.default_matmul_precision("tensorfloat32"):
        for _ in range(3):
            f(x, y)
    for _ in range(2):
        f(x, y)  # back under the default: the first program, from the cache
    assert traced == [None, "bfloat16", "tensorfloat32"]
    assert f.cache_size() == 3
    assert [m.entry.matmul_key for m in f._memos][-1] == "highest"  # served by the first program's memo
    _run_under_unsupported_preset(f, x, y, matmul_error(exact, a, b))


def test_two_settings_give_two_programs():
    a, b = operands((8, 16), (16, 4))
    f = sx.jit(lambda x, y: x @ y)
    x, y = sx.asarray(a), sx.asarray(b)
    with sx.matmul_precision("highest"):
        f(x, y)
        first = dot_precisions(f.lower(x, y).as_text())
    with sx.matmul_precision("bfloat16"):
        f(x, y)
        second = dot_precisions(f.lower(x, y).as_text())
    assert (first, second) == ([("HIGHEST", "")], [("DEFAULT", "")])
    assert f.cache_size() == 2


def test_process_setting_change_reaches_the_memo_path():
    a, b = operands((8, 8), (8, 4))
    f, traced = _jitted_matmul()
    x, y = sx.asarray(a), sx.asarray(b)
    for _ in range(3):
        exact = f(x, y)
    assert hasattr(f.__call__, "entry")  # the memo
    sx.set_matmul_precision("high")
    f(x, y)
    sx.set_matmul_precision(None)
    f(x, y)
    assert traced == [None, "high"]
    _run_under_unsupported_preset(f, x, y, matmul_error(exact, a, b))


# --- the environment variable -------------------------------------------------------------------------------------


def _python(code: str, value: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "JAX_DEFAULT_MATMUL_PRECISION"}
    env["STRIDEX_MATMUL_PRECISION"] = value
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120,
                          check=False, env=env)


def test_environment_variable_sets_the_process_setting():
    code = ("import sys, stridex as sx; print(sx.get_matmul_precision(), 'jax' in sys.modules); "
            "x = sx.ones((2, 2), dtype=sx.float32); print('precision = [HIGH, HIGH]' in "
            "sx.jit(lambda a: a @ a).lower(x).as_text())")
    out = _python(code, " TensorFloat32 ")
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["tensorfloat32", "False", "True"]


def test_environment_variable_with_an_unknown_value_fails_the_import():
    out = _python("import stridex", "tf32")
    assert out.returncode != 0
    assert "ValueError: environment variable STRIDEX_MATMUL_PRECISION" in out.stderr
    assert "'tensorfloat32'" in out.stderr


# --- the lowering of a product: one dot_general, nothing copied ----------------------------------------------------

# (x1, x2) shapes whose compiled product needs no broadcast, conversion or copy of an operand (XLA would
# materialise a broadcast one: 1.4-1.7x jax.jit's time on the CPU for (64, 256, 256) with (1, 256, 256)).
SINGLE_PRODUCTS = [((4096, 4096), (4096, 4096)), ((8, 64, 32), (32, 16)), ((8, 64, 32), (1, 32, 16)),
                   ((64, 32), (8, 32, 16)), ((1, 64, 32), (2, 8, 32, 16)), ((2, 1, 64, 32), (1, 32, 16)),
                   ((8, 64, 32), (8, 32, 16)), ((32,), (8, 32, 16)), ((64, 32), (32,))]


@pytest.mark.parametrize("s1,s2", SINGLE_PRODUCTS)
def test_matmul_lowers_to_one_dot_general_without_copies(s1, s2):
    a, b = (np.zeros(s1, np.float32), np.zeros(s2, np.float32))
    text = sx.jit(lambda x, y: x @ y).lower(sx.asarray(a), sx.asarray(b)).as_text()
    ops = re.findall(r"stablehlo\.(\w+)", text)
    assert ops.count("dot_general") == 1 and not {"broadcast_in_dim", "convert", "copy"} & set(ops), ops
    assert dot_precisions(text) == [("HIGHEST", "")]


@pytest.mark.parametrize("s1,s2", [((5, 3), (4, 3, 2)), ((1, 5, 3), (2, 4, 3, 2)), ((2, 4, 5, 3), (1, 3, 2)),
                                   ((1, 1, 5, 3), (4, 3, 2)), ((64, 48), (3, 48, 40)), ((0, 3), (2, 3, 4))])
def test_single_matrix_with_a_stack_matches_numpy(s1, s2):
    """One side a single matrix (leading axes of size 1, or none): eager, jit and the gradient against NumPy, at
    sizes on both sides of the aligned-output threshold; the eager result is contiguous as NumPy's is."""
    a, b = RNG.standard_normal(s1), RNG.standard_normal(s2)
    want = a @ b
    eager = sx.asarray(a) @ sx.asarray(b)
    for got in (eager, sx.jit(lambda x, y: x @ y)(sx.asarray(a), sx.asarray(b))):
        assert got.shape == want.shape
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-13, atol=1e-13)
    assert np.asarray(eager).flags.c_contiguous
    grad_a, grad_b = sx.grad(lambda x, y: sx.sum((x @ y) ** 2), argnums=(0, 1))(sx.asarray(a), sx.asarray(b))
    g = 2 * want  # d(sum(c^2))/dc, then summed over the axes each operand was broadcast along
    want_a, want_b = g @ np.swapaxes(b, -1, -2), np.swapaxes(a, -1, -2) @ g
    for got, w, shape in ((grad_a, want_a, s1), (grad_b, want_b, s2)):
        w = w.sum(axis=tuple(range(w.ndim - len(shape))))
        w = w.sum(axis=tuple(i for i, n in enumerate(shape) if n == 1 and w.shape[i] != 1), keepdims=True)
        np.testing.assert_allclose(np.asarray(got), w, rtol=1e-12, atol=1e-12)
