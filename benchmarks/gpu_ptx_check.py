"""Compile stridex's float32 `/`, `reciprocal` and `sqrt` for an H100 (sm_90) without a GPU; check the PTX.

    python -m benchmarks.gpu_ptx_check [--target-config PATH] [--dump DIR]

Needs JAX's CUDA plugin (`jax_plugins.xla_cuda12` or `xla_cuda13`), but neither a GPU nor a CUDA driver. On a machine
without a GPU, in a virtual environment that sees the installed JAX:

    python -m venv --system-site-packages venv
    venv/bin/pip install --no-deps jax-cuda12-plugin==<jax's version> jax-cuda12-pjrt==<jax's version>
    venv/bin/python -m benchmarks.gpu_ptx_check

(`--no-deps` skips the CUDA libraries, which compiling to PTX does not need: XLA's own LLVM emits it.) A GPU
machine with JAX for CUDA has the plugin already.

On a GPU, stridex computes float32 `/`, `reciprocal` and `sqrt` in float64, rounds the result to odd at 26
bits on its bits and converts it to float32 once (`stridex/_exec/jax_bridge.py`, `correctly_rounded_float32`),
so that they are correctly rounded. A GPU run showed why the rounding to odd is there: without it, LLVM
narrowed fptrunc(fdiv(fpext a, fpext b)) back to a float32 division, which NVPTX emits as the approximate
`div.full.f32`. This tool shows it in the compiler's output instead: it traces small programs with
`sx.make_ir`, lowers them with the primitives' own JAX rules (`lower_program`, as `sx.jit` does), compiles
them with XLA:GPU for a compile-only CUDA device (`jax.experimental.topologies`, a target config below) and
reads the PTX XLA dumps. Each case says PASS or FAIL with the PTX lines it judged by; the exit status is 0
when every case passes, 1 otherwise. The controls (a float64 division converted without the rounding to
odd, plain float32 division and square root) must show the float32 instructions: they prove that the check
would see the narrowing. Nothing runs: this checks the code XLA generates, not the values a GPU computes.
"""

from __future__ import annotations

import argparse
import glob
import os
import re
import shutil
import sys
import tempfile
from dataclasses import dataclass
from typing import Callable

# A GPU target config (XLA's GpuTargetConfigProto, text format) for an NVIDIA H100 SXM, written from public
# facts: compute capability 9.0's limits (CUDA C++ Programming Guide, "Compute Capabilities": 32 threads a
# warp, 1024 a block, 2048 an SM, grids up to 2**31 - 1 x 65535 x 65535 blocks) and the H100 SXM's datasheet
# (132 SMs of 128 FP32 cores, 1.98 GHz boost clock, 3.35 TB/s, 80 GB). What XLA 0.10.2 needs of it, found by
# leaving fields out: without `threads_per_warp` or `block_dim_limit_x` it dies of a division by zero
# (SIGFPE); without `device_memory_size` it logs an error; without `core_count`, `threads_per_core_limit`,
# `fpus_per_core`, `clock_rate_ghz` or `memory_bandwidth` it compiles, but its cost model decides otherwise:
# the round-to-odd's constants, for one, became four kernels of their own whose outputs the division kernel
# loaded. With these fields the PTX of every case below is the same as with XLA's full spec file for an H200
# (xla/backends/gpu/target_config/specs/h200.txtpb; the same SM). XLA targets `sm_90a` for compute
# capability 9.0.
H100_TARGET_CONFIG = """
gpu_device_info {
  cuda_compute_capability { major: 9 minor: 0 }
  threads_per_warp: 32
  threads_per_block_limit: 1024
  threads_per_core_limit: 2048
  block_dim_limit_x: 2147483647
  block_dim_limit_y: 65535
  block_dim_limit_z: 65535
  core_count: 132
  fpus_per_core: 128
  clock_rate_ghz: 1.98
  memory_bandwidth: 3350000000000
  device_memory_size: 85899345920
}
platform_name: "CUDA"
"""

# JAX's CUDA plugins (for CUDA 12, 13): either compiles for the compile-only device.
CUDA_PLUGINS = ("jax_plugins.xla_cuda12", "jax_plugins.xla_cuda13")


def cuda_plugin() -> str | None:
    """The name of an installed CUDA plugin of JAX's (found without importing JAX), else None."""
    import importlib.util

    for name in CUDA_PLUGINS:
        try:
            if importlib.util.find_spec(name) is not None:
                return name
        except ModuleNotFoundError:  # (no jax_plugins package at all)
            return None
    return None


# Instructions, as NVPTX writes them. float32 division or reciprocal (div.full.f32 is the approximate one,
# within 2 ulp), square root, or multiplication (a division rewritten as one, not correctly rounded).
FLOAT32_DIVISION = re.compile(r"\b(?:div|rcp)(?:\.(?:full|approx|rn|rz|rm|rp))?(?:\.ftz)?\.f32\b")
FLOAT32_SQRT = re.compile(r"\br?sqrt(?:\.(?:approx|rn|rz|rm|rp))?(?:\.ftz)?\.f32\b")
FLOAT32_MULTIPLY = re.compile(r"\bmul(?:\.(?:rn|rz|rm|rp))?(?:\.ftz)?\.f32\b")
FLOAT64_MULTIPLY = re.compile(r"\bmul(?:\.(?:rn|rz|rm|rp))?\.f64\b")
FLOAT64_DIVISION = re.compile(r"\b(?:div|rcp)\.rn\.f64\b")
FLOAT64_SQRT = re.compile(r"\bsqrt\.rn\.f64\b")
# XLA's algebraic simplifier would rewrite a division by a broadcast or constant divisor (a Python scalar's)
# as a multiplication by its reciprocal; stridex keeps it a division (`jax_bridge.ieee_divide`), so these cases
# too must show a float64 division and no multiplication standing in for one.
# The rounding to odd at 26 bits: 53 - 26 = 27 mantissa bits cut (mask 2**27 - 1, or its complement), the
# sticky bit or-ed in; then the one conversion to float32.
ROUND_TO_ODD_MASK = re.compile(r"\band\.b64\s.*,\s*(?:134217727|-134217728)\s*;")
TO_FLOAT32 = re.compile(r"\bcvt\.rn\.f32\.f64\b")
SHOWN = re.compile(r"\b(?:div|r?sqrt|rcp)\.|\bcvt\.(?:rn\.)?f(?:32|64)\.f(?:32|64)\b|\bmul(?:\.rn)?\.f(?:32|64)\b|"
                   r"\band\.b64\s.*(?:134217727|-134217728)\s*;|\bor\.b64\b")
LABELS = {FLOAT32_DIVISION: "f32 div/rcp", FLOAT32_SQRT: "f32 sqrt/rsqrt", FLOAT32_MULTIPLY: "f32 mul",
          FLOAT64_MULTIPLY: "f64 mul",
          FLOAT64_DIVISION: "div.rn.f64 (or rcp.rn.f64)", FLOAT64_SQRT: "sqrt.rn.f64"}


@dataclass(frozen=True)
class Case:
    """One program to compile. `build()` gives (JAX function, its inputs' (shape, NumPy dtype) pairs). The
    PTX must contain `needs` and must not contain any of `forbids`; unless `control`, every conversion
    from float64 to float32 must come after a rounding to odd in its kernel."""

    name: str
    build: Callable[[], tuple[Callable, list]]
    needs: re.Pattern
    forbids: tuple[re.Pattern, ...]
    control: bool = False


def stridex_program(fun, *shapes, primitive: str):
    """`fun` of float32 stridex arrays of `shapes`, traced (`sx.make_ir`) and lowered by the primitives' own
    JAX rules (`lower_program`), as `sx.jit` lowers it; the program must contain `primitive`."""

    def build():
        import stridex as sx
        from stridex._transforms.lowering import lower_program

        program = sx.make_ir(fun)(*[sx.ones(shape, dtype=sx.float32) for shape in shapes])
        if primitive not in [eqn.prim.name for eqn in program.eqns] or program.constants or len(program.outputs) != 1:
            raise RuntimeError(f"expected a program with one output using {primitive} and no constants, got\n{program}")
        run = lower_program(program)
        return (lambda *args: run(*args)[0]), [(v.aval.shape, v.aval.dtype.np) for v in program.inputs]

    return build


def jax_program(fun, *shapes):
    """`fun` of float32 JAX arrays of `shapes` (a control, written in lax)."""

    def build():
        import numpy as np

        return fun, [(shape, np.dtype("float32")) for shape in shapes]

    return build


def _float64_division_converted(a, b):
    from jax import lax

    wide = lax.div(lax.convert_element_type(a, "float64"), lax.convert_element_type(b, "float64"))
    return lax.convert_element_type(wide, "float32")


def _float32_division(a, b):
    from jax import lax

    return lax.div(a, b)


def _float32_sqrt(x):
    from jax import lax

    return lax.sqrt(x)


def _sx(name):
    return lambda *args: getattr(__import__("stridex"), name)(*args)


DIVISION = (FLOAT32_DIVISION, FLOAT32_MULTIPLY, FLOAT64_MULTIPLY)
N, LARGE = 1000, 1 << 20  # (a large size, where XLA unrolls and vectorizes the loop)
CASES = [
    Case("divide_1000", stridex_program(_sx("divide"), (N,), (N,), primitive="divide"), FLOAT64_DIVISION, DIVISION),
    Case("divide_1048576", stridex_program(_sx("divide"), (LARGE,), (LARGE,), primitive="divide"), FLOAT64_DIVISION,
         DIVISION),
    Case("divide_broadcast_64x64_by_64x1", stridex_program(_sx("divide"), (64, 64), (64, 1), primitive="divide"),
         FLOAT64_DIVISION, DIVISION),
    Case("divide_by_0d_array_1000", stridex_program(_sx("divide"), (N,), (), primitive="divide"), FLOAT64_DIVISION,
         DIVISION),
    Case("divide_by_python_scalar_1000", stridex_program(lambda a: a / 3.0, (N,), primitive="divide"),
         FLOAT64_DIVISION, DIVISION),
    Case("reciprocal_1000", stridex_program(_sx("reciprocal"), (N,), primitive="reciprocal"), FLOAT64_DIVISION,
         DIVISION),
    Case("reciprocal_1048576", stridex_program(_sx("reciprocal"), (LARGE,), primitive="reciprocal"),
         FLOAT64_DIVISION, DIVISION),
    Case("sqrt_1000", stridex_program(_sx("sqrt"), (N,), primitive="sqrt"), FLOAT64_SQRT, (FLOAT32_SQRT,)),
    Case("sqrt_1048576", stridex_program(_sx("sqrt"), (LARGE,), primitive="sqrt"), FLOAT64_SQRT, (FLOAT32_SQRT,)),
    # Controls, which must show what the route avoids. The first is the route without the rounding to odd:
    # LLVM narrows it back to a float32 division (what the second GPU run found).
    Case("control_float64_division_converted", jax_program(_float64_division_converted, (N,), (N,)),
         FLOAT32_DIVISION, (FLOAT64_DIVISION,), control=True),
    Case("control_float32_division", jax_program(_float32_division, (N,), (N,)), FLOAT32_DIVISION,
         (FLOAT64_DIVISION,), control=True),
    Case("control_float32_sqrt", jax_program(_float32_sqrt, (N,)), FLOAT32_SQRT, (FLOAT64_SQRT,), control=True),
]


def verdict(case: Case, ptx: str) -> tuple[bool, str]:
    """Whether `ptx` (all the case's kernels) is what the case needs, and what that is."""
    ok = case.needs.search(ptx) is not None and not any(pattern.search(ptx) for pattern in case.forbids)
    rule = f"needs {LABELS[case.needs]}, no {' or '.join(LABELS[p] for p in case.forbids)}"
    if case.control:
        return ok, "control: " + rule
    conversions = 0
    for kernel in re.split(r"(?=^\.(?:visible|weak)\s+\.entry)", ptx, flags=re.M):
        for convert in TO_FLOAT32.finditer(kernel):
            conversions += 1
            ok = ok and ROUND_TO_ODD_MASK.search(kernel, 0, convert.start()) is not None
    return ok and conversions > 0, rule + ", every cvt.rn.f32.f64 after a rounding to odd"


def shown_lines(ptx: str, limit: int = 14) -> list[str]:
    lines = [line.strip() for line in ptx.splitlines() if SHOWN.search(line)]
    return lines[:limit] + ([f"... ({len(lines) - limit} more)"] if len(lines) > limit else [])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target-config", metavar="PATH",
                        help="a GpuTargetConfigProto in text format, e.g. XLA's "
                             "xla/backends/gpu/target_config/specs/h100_sxm.txtpb (default: the H100 config above)")
    parser.add_argument("--dump", metavar="DIR",
                        help="where XLA dumps its files (HLO, LLVM IR, PTX) and leaves them (default: a temporary "
                             "directory, removed at the end)")
    parser.add_argument("--cases", help="comma-separated case names (default: all)")
    args = parser.parse_args(argv)
    if "jaxlib" in sys.modules:  # XLA reads XLA_FLAGS (the dump directory) once, when its first backend starts
        raise RuntimeError("gpu_ptx_check must run in a fresh interpreter (python -m benchmarks.gpu_ptx_check)")
    if cuda_plugin() is None:
        print(f"no CUDA plugin of JAX's ({' or '.join(CUDA_PLUGINS)}) is installed: see the module's docstring")
        return 2
    chosen = args.cases.split(",") if args.cases else [case.name for case in CASES]
    unknown = sorted(set(chosen) - {case.name for case in CASES})
    if unknown:
        raise SystemExit(f"unknown cases {unknown}; the cases are {[case.name for case in CASES]}")
    dump = args.dump or tempfile.mkdtemp(prefix="stridex-ptx-")
    try:
        return check([case for case in CASES if case.name in chosen], dump, args.target_config)
    finally:
        if args.dump is None:
            shutil.rmtree(dump, ignore_errors=True)


def check(cases: list[Case], dump: str, target_config: str | None) -> int:
    """Compile `cases` for the compile-only device, XLA dumping into `dump`; print each verdict."""
    os.environ["XLA_FLAGS"] = f"--xla_dump_to={dump} " + os.environ.get("XLA_FLAGS", "")
    os.environ["JAX_PLATFORMS"] = "cpu"  # no GPU client: the CUDA plugin serves only the compile-only topology
    config = open(target_config).read() if target_config else H100_TARGET_CONFIG

    import jax
    from jax.experimental import topologies
    from jax.sharding import SingleDeviceSharding

    device = topologies.get_topology_desc("", "cuda", topology="1x1x1", target_config=config).devices[0]
    sharding = SingleDeviceSharding(device)
    print(f"jax {jax.__version__}; compile-only device: {device.platform} {device.device_kind or '(unnamed)'}; "
          f"target config: {target_config or 'H100 (built in)'}")
    results = []
    for case in cases:
        with jax.enable_x64(True):  # as stridex lowers (jax_bridge.x64)
            fun, inputs = case.build()
            named = lambda *args, fun=fun: fun(*args)  # noqa: E731
            named.__name__ = case.name  # (XLA names the module, and so its dump files, jit_<name>)
            specs = [jax.ShapeDtypeStruct(shape, dtype, sharding=sharding) for shape, dtype in inputs]
            jax.jit(named).lower(*specs).compile()
        ptx = "\n".join(open(p).read() for p in sorted(glob.glob(os.path.join(dump, f"module_*.jit_{case.name}.*ptx"))))
        if not ptx.strip():
            ok, why, target = False, "XLA dumped no PTX", []
        else:
            ok, why = verdict(case, ptx)
            target = sorted(set(re.findall(r"^\.target\s+(\S+)", ptx, re.M)))
        results.append(ok)
        print(f"\n{'PASS' if ok else 'FAIL'} {case.name}  [{why}]  target={','.join(target)}")
        for line in shown_lines(ptx):
            print("    " + line)
    overall = bool(results) and all(results)
    print(f"\nOVERALL: {'PASS' if overall else 'FAIL'} ({sum(results)} of {len(results)} cases)")
    return 0 if overall else 1


if __name__ == "__main__":
    sys.exit(main())
