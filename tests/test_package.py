"""The package as a user meets it: import cost, no eager JAX import, the full 2025.12 surface, the demo,
the shipped type marker, and the conformance runner's report logic."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib import resources
from pathlib import Path

import numpy as np
import pytest

import stridex as sx

REPO = Path(__file__).resolve().parent.parent
API_NAMES = json.loads((Path(__file__).parent / "data" / "api_2025_12.json").read_text())
# The spec checklist that tests/data/api_2025_12.json copies; present where shared/ sits beside the checkout.
SHARED_API_NAMES = REPO.parent / "shared" / "spec" / "api_2025_12.json"


def run_python(code: str) -> str:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=120,
                         check=False)
    assert out.returncode == 0, out.stderr
    return out.stdout


# --- import ------------------------------------------------------------------------------------


def test_import_does_not_import_jax():
    out = run_python("import sys, stridex; print(sorted(m for m in sys.modules if m == 'jax' or m.startswith('jax.')"
                     " or m == 'jaxlib' or m.startswith('jaxlib.')))")
    assert out.strip() == "[]", f"`import stridex` imported JAX modules: {out.strip()}"


def test_import_does_not_import_ml_dtypes_until_bfloat16_is_used():
    # ml_dtypes (bfloat16's NumPy dtype) costs some 10 ms of import: it is loaded when bfloat16 is first needed,
    # and a bfloat16 NumPy array made after `import stridex` (its maker imported ml_dtypes) is still recognised.
    out = run_python(
        "import sys, numpy as np, stridex as sx\n"
        "print('ml_dtypes' in sys.modules)\n"
        "import ml_dtypes\n"
        "a = np.array([1.5, 2.25], dtype=ml_dtypes.bfloat16)\n"
        "x = sx.asarray(a)\n"
        "print(x.dtype, (x + 1.0).dtype, np.asarray(x + 1.0).tolist(), np.shares_memory(np.asarray(x), a))\n"
        "print(sx.finfo(x.dtype).eps, sx.can_cast(sx.bfloat16, sx.float32), sx.astype(x, sx.float64).dtype)")
    assert out.split("\n")[:3] == ["False", "bfloat16 bfloat16 [2.5, 3.25] True", "0.0078125 True float64"], out


def test_import_time_is_bounded():
    # The target (150 ms) is measured by benchmarks/eager.py; this only catches gross regressions.
    code = "import time; t = time.perf_counter(); import stridex; print(time.perf_counter() - t)"
    times = sorted(float(run_python(code)) for _ in range(3))
    assert times[1] < 2.0, f"`import stridex` took {times[1]:.2f} s (median of 3)"


def test_py_typed_is_shipped():
    assert resources.files("stridex").joinpath("py.typed").is_file()


# --- the 2025.12 surface -----------------------------------------------------------------------

NAMESPACE_CHAPTERS = ("creation", "data_type", "elementwise", "indexing", "inspection", "linalg_main",
                      "manipulation", "searching", "set", "sorting", "statistical", "utility")
ARRAY_MEMBERS = ("array_attributes", "array_methods", "array_inplace_operators", "array_reflected_operators")


def test_name_list_copy_matches_shared_spec():
    if not SHARED_API_NAMES.exists():
        pytest.skip(f"{SHARED_API_NAMES} is not beside this checkout")
    assert json.loads(SHARED_API_NAMES.read_text()) == API_NAMES


def test_name_list_covers_every_chapter():
    handled = set(NAMESPACE_CHAPTERS) | set(ARRAY_MEMBERS) | {
        "constants", "dtypes", "ext_linalg", "ext_fft", "inspection_info_methods", "namespace_attributes"}
    assert set(API_NAMES) == handled


@pytest.mark.parametrize("name", [n for c in NAMESPACE_CHAPTERS for n in API_NAMES[c]])
def test_namespace_function_exists(name):
    assert callable(getattr(sx, name, None)), f"stridex.{name} is missing"


@pytest.mark.parametrize("name", API_NAMES["constants"])
def test_constant_exists(name):
    assert hasattr(sx, name), f"stridex.{name} is missing"


@pytest.mark.parametrize("name", API_NAMES["dtypes"])
def test_dtype_exists(name):
    dtype = getattr(sx, name, None)
    assert dtype is not None, f"stridex.{name} is missing"
    assert sx.asarray(np.zeros(2, dtype=name)).dtype == dtype


@pytest.mark.parametrize("name", API_NAMES["ext_linalg"])
def test_linalg_function_exists(name):
    assert callable(getattr(sx.linalg, name, None)), f"stridex.linalg.{name} is missing"


@pytest.mark.parametrize("name", API_NAMES["ext_fft"])
def test_fft_function_exists(name):
    assert callable(getattr(sx.fft, name, None)), f"stridex.fft.{name} is missing"


@pytest.mark.parametrize("name", API_NAMES["array_attributes"])
def test_array_attribute_exists(name):
    x = sx.asarray([[1.0, 2.0], [3.0, 4.0]])
    getattr(x, name)  # raises AttributeError when missing


@pytest.mark.parametrize("name", [n for c in ARRAY_MEMBERS[1:] for n in API_NAMES[c]])
def test_array_method_exists(name):
    assert callable(getattr(sx.Array, name, None)), f"stridex.Array.{name} is missing"


@pytest.mark.parametrize("name", API_NAMES["inspection_info_methods"])
def test_info_method_exists(name):
    info = sx.__array_namespace_info__()
    assert callable(getattr(info, name, None)), f"__array_namespace_info__().{name} is missing"


def test_namespace_version():
    assert API_NAMES["namespace_attributes"] == ["__array_api_version__"]
    assert sx.__array_api_version__ == "2025.12"


# --- the demo ----------------------------------------------------------------------------------


def test_demo_runs():
    out = subprocess.run([sys.executable, "-m", "stridex.demo"], capture_output=True, text=True, cwd=REPO,
                         timeout=120, check=False)
    assert out.returncode == 0, out.stderr
    for heading in ("views share memory", "broadcasting", "dtype promotion", "reshape", "DLPack", "loops compile once"):
        assert heading in out.stdout


# --- the conformance runner's report logic -----------------------------------------------------


def _test(nodeid, outcome, message=None):
    call = {"outcome": "failed" if outcome == "failed" else "passed"}
    if message:
        call["crash"] = {"message": message}
    return {"nodeid": nodeid, "outcome": outcome, "setup": {"outcome": "passed"}, "call": call}


def test_compliance_summary_and_report():
    from compliance import runner

    data = {
        "collectors": [{"nodeid": "array_api_tests/test_b.py", "outcome": "failed",
                        "longrepr": "Traceback...\nImportError: cannot import name 'x'"}],
        "tests": [
            _test("array_api_tests/test_a.py::test_one", "passed"),
            _test("array_api_tests/test_a.py::test_two[int8]", "failed", "AssertionError: out.dtype=int16\nmore"),
            _test("array_api_tests/test_a.py::test_three", "skipped"),
            _test("array_api_tests/test_c.py::test_four", "xfailed"),
        ],
    }
    result = runner.summarize(data, "2025.12", 1, 2.0)
    assert result.files["array_api_tests/test_a.py"].counts == {
        "passed": 1, "failed": 1, "error": 0, "skipped": 1, "xfailed": 0, "xpassed": 0}
    assert result.files["array_api_tests/test_b.py"].counts["error"] == 1
    assert result.totals()["xfailed"] == 1
    assert [nodeid for nodeid, _ in result.failures] == ["array_api_tests/test_b.py",
                                                         "array_api_tests/test_a.py::test_two[int8]"]
    assert result.failures[1][1] == "AssertionError: out.dtype=int16 / more"
    assert not result.ok

    jit_result = runner.summarize(data, "2025.12", 1, 2.0)
    result.max_examples = 7
    jit_result.mode, jit_result.fallbacks, jit_result.max_examples = "jit", {"nonzero": 3}, 5
    text = runner.render_report([result, jit_result], suite=REPO,
                                paths=["array_api_tests/test_a.py"], keyword=None, command="python -m compliance")
    assert "| array_api_tests/test_a.py | 1 | 1 | 0 | 1 | 0 | 0 |" in text
    assert "`array_api_tests/test_a.py::test_two[int8]`: AssertionError" in text
    assert "max-examples: eager 7, jit 5" in text and "Modes: eager, jit" in text
    assert "## Mode jit, version 2025.12" in text and "- `nonzero`: 3" in text


def test_compliance_lists_hold_no_entries_without_a_citation():
    from compliance import runner

    for path in (runner.SKIPS_FILE, runner.XFAILS_FILE, runner.ACCELERATOR_XFAILS_FILE):
        lines = path.read_text().splitlines()
        for i, line in enumerate(lines):
            if line.strip() and not line.startswith("#"):
                assert i > 0 and lines[i - 1].startswith("#"), f"{path.name}: {line!r} has no comment citing why"


def test_accelerator_xfails_apply_to_accelerator_runs_alone(tmp_path):
    from compliance import runner

    for device in (None, "cpu", "cpu:1"):
        assert runner.xfails_file(device, tmp_path) == runner.XFAILS_FILE
    both = runner.xfails_file("cuda:0", tmp_path).read_text().splitlines()
    ids = [line for line in both if line.strip() and not line.startswith("#")]
    assert "array_api_tests/test_dlpack.py::test_dunder_dlpack" in ids
    assert len(ids) == runner.count_entries(runner.XFAILS_FILE) + runner.count_entries(runner.ACCELERATOR_XFAILS_FILE)


def test_compliance_accepts_only_known_modes_and_versions():
    from compliance import runner

    args, extra = runner.parse_args(["--suite", "x", "--version", "2024.12", "--version", "2025.12", "f.py",
                                     "--", "-x"])
    assert args.versions == ["2024.12", "2025.12"] and args.files == ["f.py"] and extra == ["-x"]
    assert runner.parse_args([])[0].versions == ["2025.12"]
    assert runner.parse_args([])[0].modes == ["eager"]
    assert runner.parse_args(["--mode", "eager", "--mode", "jit"])[0].modes == ["eager", "jit"]
    with pytest.raises(SystemExit):
        runner.parse_args(["--mode", "nonsense"])
    env = runner.suite_env("2023.12", "eager")
    assert "api_version" in env["ARRAY_API_TESTS_MODULE"] and "import stridex as m" in env["ARRAY_API_TESTS_MODULE"]
    assert runner.suite_env("2025.12", "eager")["ARRAY_API_TESTS_MODULE"] == "stridex"
    assert runner.suite_env("2025.12", "jit")["ARRAY_API_TESTS_MODULE"] == "stridex.jit_mode"
    assert "import stridex.jit_mode as m" in runner.suite_env("2024.12", "jit")["ARRAY_API_TESTS_MODULE"]
    assert env["ARRAY_API_TESTS_VERSION"] == "2023.12"
    assert env["PYTHONPATH"].split(":")[0] == str(REPO)


def test_readme_tour_runs():
    readme = (REPO / "README.md").read_text()
    blocks = [part.split("```", 1)[0] for part in readme.split("```python\n")[1:]]
    namespace: dict = {}
    exec(compile(blocks[0], "README.md", "exec"), namespace)  # noqa: S102  (the README's own code)
    x, n = namespace["x"], namespace["n"]
    assert float(x[0, 1]) == -1.0 and n[0, 1] == -1.0
    assert np.shares_memory(n, np.asarray(x))
    exec(compile(blocks[1], "README.md", "exec"), namespace)  # noqa: S102  (the transformations part)
    loss, w, x = namespace["loss"], namespace["w"], namespace["x"]
    np.testing.assert_allclose(float(namespace["fast"](w, x)), float(loss(w, x)))
    assert namespace["g"].shape == (3, 2) and namespace["per_row"].shape == (4,)


def test_compliance_adds_up_the_jit_mode_counts_of_every_worker(tmp_path):
    import json

    from compliance import runner

    log = tmp_path / "fallbacks.json"
    (tmp_path / "fallbacks.json.11").write_text(json.dumps({"breaks": {"nonzero": 2}, "eager": {}}))
    (tmp_path / "fallbacks.json.12").write_text(json.dumps({"breaks": {"nonzero": 1, "unique_values": 3},
                                                            "eager": {"Array.__getitem__": 1}}))
    assert runner.read_jit_mode_counts(log) == {"breaks": {"nonzero": 3, "unique_values": 3},
                                                "eager": {"Array.__getitem__": 1}}


@pytest.mark.parametrize("version", ["2023.12", "2024.12"])
def test_earlier_version_namespaces_have_every_name_of_the_current_one(version):
    """A namespace for an earlier version has every public name of stridex's, those imported on first use
    (`linalg`, `fft`, the transformations) too: the conformance suite's test_has_names found linalg missing in a
    fresh process once they became lazy."""
    import subprocess
    import sys

    code = (f"import stridex as sx\nns = sx.asarray([1.0]).__array_namespace__(api_version={version!r})\n"
            "missing = [n for n in sx.__all__ if not hasattr(ns, n)]\n"
            "assert not missing, missing\nassert ns.linalg.det is sx.linalg.det and 'fft' in dir(ns)\n"
            f"assert ns.__array_api_version__ == {version!r}\n")
    subprocess.run([sys.executable, "-c", code], check=True)
