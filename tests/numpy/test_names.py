"""stridex.numpy's list of names: what it promises (the issue's list, the families it names, the standard's names,
every function of the stridex namespace), that the list is one literal list of what the package exports, that
every name is jax.numpy's (or one of stridex's own, listed here), and that the From JAX page lists the same."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
import types
from pathlib import Path

import pytest

import stridex as sx
import stridex.numpy as snp

ROOT = Path(__file__).resolve().parents[2]
API_NAMES = json.loads((ROOT / "tests" / "data" / "api_2025_12.json").read_text())

# Issue 43, item 5: the names counted in flax, optax, equinox and JAX's examples, by uses...
ISSUE_USAGE = """array shape allclose ndarray dot dtype concatenate array_equal floating issubdtype bool_ pad split vdot
identity inexact iscomplexobj integer transpose power size promote_types outer copy vstack invert complexfloating diag
array_split vectorize ndim isclose cumsum swapaxes nan_to_num mod ravel logspace isscalar isrealobj hstack cumprod cbrt
average atleast_1d arctanh ravel_multi_index printoptions""".split()
# ... and the families the issue names beside them.
ISSUE_FAMILIES = """atleast_1d atleast_2d atleast_3d stack hstack vstack dstack column_stack split array_split hsplit vsplit
dsplit take tile repeat roll tril triu trace kron nansum nanprod nanmax nanmin nanmean nanvar nanstd nanargmax nanargmin
nancumsum nancumprod nanmedian nanpercentile nanquantile percentile quantile median histogram interp convolve
polyval""".split()
ISSUE_LINALG = ["norm", "det", "slogdet"]
# NumPy's common aliases that jax.numpy has (the brief: "as far as they are cheap and correct").
ALIASES = """absolute arccos arccosh arcsin arcsinh arctan arctan2 amax amin float_ int_ uint complex_ double single cdouble
csingle conjugate true_divide bitwise_not left_shift right_shift around degrees radians fabs""".split()

# Names beyond jax.numpy's: stridex's own, re-exported so that stridex.numpy is a superset of the stridex namespace.
STRIDEX_OWN = {"Array", "DType", "Device", "__array_namespace_info__", "default_device", "eval", "fusion",
               "get_matmul_precision", "matmul_precision", "set_matmul_precision"}
# What stridex exports that is not an array function: the transformations, control flow, custom rules and the
# extensions that stridex.numpy does not mirror (random keys are stridex.random's; tree_util is not numpy's).
NOT_ARRAY_FUNCTIONS = {"jit", "make_ir", "grad", "value_and_grad", "vjp", "jvp", "jacfwd", "jacrev", "hessian", "vmap",
                       "custom_jvp", "custom_vjp", "checkpoint", "remat", "checkpoint_name", "checkpoint_policies",
                       "cond", "switch", "while_loop", "fori_loop", "scan", "random", "tree_util",
                       # JAX's names outside jax.numpy (jax.lax.stop_gradient, jax.eval_shape, ...), the extension
                       # modules and the caches' controls
                       "stop_gradient", "eval_shape", "ShapeDtypeStruct", "pure_callback", "from_jax", "to_jax",
                       "debug", "errors", "lax", "nn", "scipy", "tree", "cache_stats", "clear_caches",
                       "set_cache_limit"}


def test_the_issue_names_exist():
    promised = set(ISSUE_USAGE) | set(ISSUE_FAMILIES) | set(ALIASES)
    missing = sorted(promised - set(snp.__all__))
    assert not missing, f"stridex.numpy lacks names the issue promises: {missing}"
    for name in promised:
        assert getattr(snp, name) is not None
    assert set(ISSUE_LINALG) <= set(snp.linalg.__all__)


def test_all_is_one_literal_list_of_the_exports():
    tree = ast.parse((ROOT / "stridex" / "numpy" / "__init__.py").read_text())
    values = [n.value for n in tree.body if isinstance(n, ast.Assign)
              and any(isinstance(t, ast.Name) and t.id == "__all__" for t in n.targets)]
    assert len(values) == 1 and isinstance(values[0], ast.List)
    names = [e.value for e in values[0].elts]  # type: ignore[attr-defined]
    assert names == snp.__all__ and len(set(names)) == len(names)
    public = {n for n, v in vars(snp).items() if not n.startswith("_")}
    assert public == set(names) - {"__array_namespace_info__"}, sorted(public ^ set(names))
    # Each theme module's list is the namespace's section for it: nothing defined and left out.
    for module in ("_dtypes", "_creation", "_shape", "_indexing", "_ufuncs", "_reductions", "_statistics",
                   "_sorting", "_products", "_signal", "_polynomials", "_functional"):
        members = getattr(snp, module).__all__
        assert set(members) <= set(names), (module, sorted(set(members) - set(names)))


def test_every_standard_name_is_there():
    chapters = ("creation", "data_type", "elementwise", "indexing", "inspection", "linalg_main", "manipulation",
                "searching", "set", "sorting", "statistical", "utility", "constants", "dtypes")
    required = {n for c in chapters for n in API_NAMES[c]}
    assert required - set(snp.__all__) == set()
    assert set(API_NAMES["ext_linalg"]) - set(snp.linalg.__all__) == set()
    assert set(API_NAMES["ext_fft"]) - set(snp.fft.__all__) == set()


def test_every_stridex_function_is_there():
    """A superset of the stridex namespace: each array function stridex exports (a new one, say `einsum` when it
    lands, included) is a name of stridex.numpy too, and so are stridex.linalg's and stridex.fft's functions."""
    expected = set(sx.__all__) - NOT_ARRAY_FUNCTIONS
    missing = sorted(expected - set(snp.__all__))
    assert not missing, f"stridex exports functions that stridex.numpy does not: {missing}"
    assert set(sx.linalg.__all__) <= set(snp.linalg.__all__)
    assert set(sx.fft.__all__) <= set(snp.fft.__all__)


def test_every_name_is_jax_numpys_or_stridexs_own():
    jnp = pytest.importorskip("jax.numpy")
    ours = set(snp.__all__) - STRIDEX_OWN
    assert ours - set(dir(jnp)) == set(), sorted(ours - set(dir(jnp)))
    assert set(snp.linalg.__all__) - set(dir(jnp.linalg)) <= {"EigResult", "EighResult", "QRResult", "SVDResult",
                                                              "SlogdetResult"}
    assert set(snp.fft.__all__) - set(dir(jnp.fft)) == set()
    # jax.numpy's linalg and fft names are all there.
    assert {n for n in dir(jnp.linalg) if not n.startswith("_")} <= set(snp.linalg.__all__)
    assert {n for n in dir(jnp.fft) if not n.startswith("_")} <= set(snp.fft.__all__)


def test_same_objects_where_the_names_are_stridexs():
    assert snp.float32 is sx.float32 and snp.bool_ is sx.bool and snp.ndarray is sx.Array
    assert snp.linalg.EighResult is sx.linalg.EighResult
    assert isinstance(snp.linalg, types.ModuleType) and isinstance(snp.fft, types.ModuleType)


def test_import_is_lazy_and_imports_no_jax():
    code = ("import sys, stridex as sx\n"
            "print('stridex.numpy' in sys.modules)\n"
            "import stridex.numpy as jnp\n"
            "print(sx.numpy is jnp, any(m == 'jax' or m.startswith('jax.') for m in sys.modules))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT, check=True)
    assert out.stdout.split() == ["False", "True", "False"], out.stdout + out.stderr


def test_the_from_jax_page_lists_exactly_the_names():
    page = (ROOT / "docs" / "from-jax.md").read_text()
    section = page.split("<!-- names: stridex.numpy -->", 1)[1].split("<!-- /names -->", 1)[0]
    listed = set(re.findall(r"`([A-Za-z_][A-Za-z0-9_]*)`", section))
    assert listed == set(snp.__all__), (sorted(listed - set(snp.__all__)), sorted(set(snp.__all__) - listed))
    for module in ("linalg", "fft"):
        section = page.split(f"<!-- names: stridex.numpy.{module} -->", 1)[1].split("<!-- /names -->", 1)[0]
        listed = set(re.findall(r"`([A-Za-z_][A-Za-z0-9_]*)`", section))
        assert listed == set(getattr(snp, module).__all__), module
