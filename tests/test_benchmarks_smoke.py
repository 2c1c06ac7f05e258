"""Smoke test of the benchmark report: `python -m benchmarks.report --quick` into a temporary directory.

Skipped without matplotlib (the `bench` extra: pip install -e ".[bench]"). It checks that the page and the
plots are written, not the numbers (the quick mode's numbers are not for quoting); docs/ is left alone.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("matplotlib")

REPO = Path(__file__).resolve().parent.parent
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def test_quick_report_writes_markdown_and_plots(tmp_path):
    output = tmp_path / "out" / "benchmarks.md"
    docs_before = _report_files_in_docs()
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    env["MPLBACKEND"] = "Agg"
    # section 5 (a GPU's) on JAX's host devices, so that its code runs here too
    env["XLA_FLAGS"] = (env.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=2").strip()
    proc = subprocess.run([sys.executable, "-m", "benchmarks.report", "--quick", "--device-platform", "cpu",
                           "--output", str(output)],
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]

    # progress: one counted line per case, with an ETA
    progress = [line for line in proc.stdout.splitlines() if line.startswith("[") and "ETA" in line]
    assert len(progress) >= 10
    assert progress[-1].split("]")[0].split("/")[0].strip("[ ") == progress[-1].split("]")[0].split("/")[1]

    text = output.read_text()
    for heading in ("# Benchmarks", "## Environment", "## Headline ratios", "## 1. Eager overhead",
                    "## 2. Time against array size", "## 3. jit", "## 4. Peak memory", "## 5. GPU", "## 6. Tracing",
                    "## Method"):
        assert heading in text, heading
    assert "quiet machine" in text and "--quick" in text
    assert "jax.numpy" in text and "array-api-strict" in text
    assert "sx.jit / jax.jit" in text and "stridex / NumPy" in text
    assert "10^5" in text and "10^6 elements |" not in text  # quick mode stops at 10^5
    assert "n/a (" not in text, text  # every library ran every case

    images = {"eager_overhead.png", "size_sweep.png", "jit_calls.png", "memory.png"}
    img_dir = output.parent / "img"
    written = {p.name for p in img_dir.glob("*.png")}
    assert images <= written, written
    for name in written:
        data = (img_dir / name).read_bytes()
        assert data.startswith(PNG_MAGIC) and len(data) > 5000, name
        assert f"](img/{name})" in text, name

    gpu = text.split("## 5. GPU")[1].split("## 6. Tracing")[0]
    costs = text.split("## 6. Tracing")[1].split("## Method")[0]
    assert all(name in costs for name in ("jax.make_jaxpr", "divisions", "import numpy", "import stridex")), costs
    assert "Devices: cpu:0, cpu:1" in gpu and "Not run" not in gpu and gpu.count("sx.jit / jax.jit") == 3, gpu
    assert {"gpu_size_sweep.png", "gpu_jit_calls.png"} <= written, written

    # views must not allocate data, in either library
    memory = text.split("## 4. Peak memory")[1].split("## 5.")[0]
    assert "| no |" in memory and "**yes**" not in memory

    assert _report_files_in_docs() == docs_before  # the default output was not touched


def _report_files_in_docs() -> dict[Path, int]:
    docs = REPO / "docs"
    paths = [docs / "benchmarks.md", *(docs / "img").glob("*.png")]
    return {p: p.stat().st_mtime_ns for p in paths if p.is_file()}
