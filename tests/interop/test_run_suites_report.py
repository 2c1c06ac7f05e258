"""`python -m interop.run_suites`' report on stored results: stridex.jit_mode (`--backends stridex_jit`) is
compared test by test with the eager stridex run. Synthetic records; no client library needed."""

from __future__ import annotations

import json

from interop import run_suites


def write_run(results, backend, records, suite="array-api-extra"):
    with open(results / f"{suite}--{backend}.jsonl", "w") as fh:
        for nodeid, outcome, message in records:
            fh.write(json.dumps({"nodeid": nodeid, "outcome": outcome, "message": message, "when": "call"}) + "\n")
    meta = {"suite": suite, "library": "array-api-extra", "backend": backend, "rc": 1, "timed_out": False,
            "seconds": 1.0, "command": "python -m pytest", "strict_marks": "inherit", "date": "2026-11-27 09:00 UTC",
            "versions": {"stridex": "test"}}
    (results / f"{suite}--{backend}.meta.json").write_text(json.dumps(meta))


def test_jit_mode_run_is_compared_with_eager(tmp_path):
    results = tmp_path / "results"
    results.mkdir()
    write_run(results, "stridex", [
        ("tests/test_a.py::test_one[stridex]", "passed", ""),
        ("tests/test_a.py::test_two[stridex]", "failed", "AssertionError: both modes"),
        ("tests/test_a.py::test_three[stridex]", "failed", "AssertionError: eager only"),
    ])
    write_run(results, "stridex_jit", [
        ("tests/test_a.py::test_one[stridex_jit]", "failed", "AssertionError: jit only"),
        ("tests/test_a.py::test_two[stridex_jit]", "failed", "AssertionError: both modes"),
        ("tests/test_a.py::test_three[stridex_jit]", "passed", ""),
    ])
    text = run_suites.render_report(tmp_path, tmp_path / "interop.md")
    assert "| array-api-extra | array-api-extra | stridex.jit_mode | 1 | 2 | 0 |" in text
    assert "1 failing in jit mode only" in text
    assert "## stridex.jit_mode against eager stridex" in text
    assert "Failing in jit mode only: array-api-extra: 1. Failing eagerly only: array-api-extra: 1." in text
    section = text.split("## stridex.jit_mode against eager stridex")[1].split("\n## ")[0]
    assert "`tests/test_a.py::test_one[stridex_jit]` (failed; eager stridex: passed)" in section
    assert "test_two" not in section and "test_three" not in section  # failing in both modes; eager only


def test_jit_backend_is_a_choice_and_names_its_module():
    from interop import _plugins

    assert run_suites.JIT in run_suites.CHOICES and run_suites.JIT not in run_suites.BACKENDS
    assert _plugins.MODULES[run_suites.JIT] == "stridex.jit_mode"
    assert run_suites.normalise("t.py::f[stridex_jit]") == run_suites.normalise("t.py::f[stridex]")
    # scikit-learn's ids name the namespace module, and its device
    assert run_suites.normalise("t.py::f[stridex.jit_mode-None-float64]") == \
        run_suites.normalise("t.py::f[stridex-None-float64]")


def test_a_known_test_is_explained_in_the_report(tmp_path):
    """A jit-only failure whose cause is a bare AssertionError is explained by its test id (KNOWN_TESTS)."""
    results = tmp_path / "results"
    results.mkdir()
    known = "scipy/stats/tests/test_resampling.py::TestBootstrap::test_bootstrap_batch[{}-1-BCa]"
    other = "scipy/stats/tests/test_other.py::test_values[{}]"
    write_run(results, "stridex", [(known.format("stridex"), "passed", ""), (other.format("stridex"), "passed", "")])
    write_run(results, "stridex_jit", [(known.format("stridex_jit"), "failed", "AssertionError: "),
                                       (other.format("stridex_jit"), "failed", "AssertionError: ")])
    section = run_suites.render_report(tmp_path, tmp_path / "interop.md").split(
        "## stridex.jit_mode against eager stridex")[1]
    assert "Known, for 1 of these (" + known.format("stridex_jit") + "): The test compares a batched" in section
    assert section.count("Known") == 1  # (the other test with the same cause has no note)
