"""The PTX XLA:GPU emits for stridex's float32 `/`, `reciprocal` and `sqrt` (benchmarks/gpu_ptx_check.py): compiled
for a compile-only H100 where JAX's CUDA plugin is installed (no GPU needed), and the checker on fixed PTX."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks import gpu_ptx_check as check

REPO = Path(__file__).resolve().parent.parent

ROUTE = """
.visible .entry loop_convert_fusion(
	cvt.f64.f32 	%rd10, %r5;
	cvt.f64.f32 	%rd11, %r6;
	div.rn.f64 	%rd12, %rd10, %rd11;
	and.b64 	%rd13, %rd12, 134217727;
	setp.eq.b64 	%p1, %rd13, 0;
	and.b64 	%rd14, %rd12, -134217728;
	selp.b64 	%rd15, 0, 134217728, %p1;
	or.b64 	%rd16, %rd15, %rd14;
	cvt.rn.f32.f64 	%r7, %rd16;
"""
NARROWED = """
.visible .entry loop_convert_fusion(
	div.full.f32 	%r7, %r5, %r6;
"""


def case(name):
    return next(c for c in check.CASES if c.name == name)


def test_the_checker_tells_the_route_from_the_narrowed_division():
    divide, control = case("divide_1000"), case("control_float64_division_converted")
    assert check.verdict(divide, ROUTE)[0]
    assert not check.verdict(divide, NARROWED)[0]
    assert check.verdict(control, NARROWED)[0]
    assert not check.verdict(control, ROUTE)[0]
    # a conversion without the rounding to odd before it, in its own kernel, fails
    without_rounding = ROUTE.replace("134217727", "7").replace("-134217728", "-8")
    assert not check.verdict(divide, without_rounding)[0]
    split = ROUTE.replace("\tor.b64", ".visible .entry second(\n\tor.b64")
    assert not check.verdict(divide, split)[0]
    # a float32 instruction anywhere fails, and so does a division rewritten as a float32 multiplication
    assert not check.verdict(divide, ROUTE + NARROWED)[0]
    assert not check.verdict(case("divide_by_python_scalar_1000"), ROUTE + "\tmul.rn.f32 \t%r8, %r7, 0f3EAAAAAB;\n")[0]
    assert not check.verdict(case("sqrt_1000"), ROUTE)[0]  # (needs sqrt.rn.f64)
    sqrt_route = ROUTE.replace("div.rn.f64 \t%rd12, %rd10, %rd11", "sqrt.rn.f64 \t%rd12, %rd10")
    assert check.verdict(case("sqrt_1000"), sqrt_route)[0]


def test_the_ptx_of_the_float32_route_on_an_h100():
    if check.cuda_plugin() is None:
        pytest.skip(f"JAX's CUDA plugin ({' or '.join(check.CUDA_PLUGINS)}) is not installed in this interpreter: "
                    f"see benchmarks/gpu_ptx_check.py (pip install --no-deps jax-cuda12-plugin jax-cuda12-pjrt)")
    out = subprocess.run([sys.executable, "-m", "benchmarks.gpu_ptx_check"], capture_output=True, text=True,
                         cwd=REPO, timeout=600, check=False, env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    report = out.stdout + out.stderr[-3000:]
    assert out.returncode == 0 and "OVERALL: PASS" in out.stdout, report
    for c in check.CASES:
        assert f"\nPASS {c.name} " in out.stdout, report
    assert "target=sm_90a" in out.stdout, report
