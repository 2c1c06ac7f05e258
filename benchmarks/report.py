"""The side-by-side benchmark suite with plots: writes docs/benchmarks.md and docs/img/*.png.

    python -m benchmarks.report [--quick] [--output docs/benchmarks.md] [--img-dir DIR]

Sections: eager per-op overhead on one-element inputs (stridex, NumPy, array-api-strict, jax.numpy);
time against array size, 10^0..10^7 elements, for an elementwise chain and a reduction (eager stridex
against NumPy, `sx.jit` against `jax.jit`); steady-state and first calls of a jitted 40-op program;
peak memory of a view-heavy program against NumPy (one subprocess per library and method); only
where JAX sees a GPU, the jit cases on it; and tracing per op against `jax.make_jaxpr`, the first call of a
40-op program with divisions, and `import stridex` against `import numpy`. `--quick` is a smoke run (few repetitions, sizes up to 10^5;
under a minute) whose numbers are not for quoting. Prints a line per finished case with an ETA.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from benchmarks import common
from benchmarks.common import (REPO, Stats, chain, describe_error, division_chain, fmt_ratio, fmt_stats, fmt_time,
                               measure, time_once, times_once)

DEFAULT_OUTPUT = REPO / "docs" / "benchmarks.md"


@dataclass(frozen=True)
class Config:
    quick: bool
    repeats: int  # samples per case (the sweep takes fewer for slow cases, see sweep_budget_s)
    min_repeats: int
    target_s: float  # the shortest sample: inner loops are calibrated to at least this
    sweep_sizes: tuple[int, ...]
    sweep_budget_s: float  # time for the samples of one (program, size), the four series together
    jit_sizes: tuple[int, ...]
    first_call_rounds: int
    memory_n: int


FULL = Config(quick=False, repeats=31, min_repeats=5, target_s=0.01, sweep_sizes=tuple(10**k for k in range(8)),
              sweep_budget_s=6.0, jit_sizes=(1, 10**6), first_call_rounds=15, memory_n=10**7)
QUICK = Config(quick=True, repeats=5, min_repeats=3, target_s=0.002, sweep_sizes=tuple(10**k for k in range(6)),
               sweep_budget_s=0.3, jit_sizes=(1, 10**5), first_call_rounds=2, memory_n=10**6)

JIT_OPS = 40  # the jitted program of section 3
CHAIN_OPS = 10  # the eager chain of section 1 and the sweep


def size_label(n: int) -> str:
    k = round(math.log10(n)) if n > 0 else 0
    return f"10^{k}" if 10**k == n else str(n)


# --- section 1: eager overhead on one element ---------------------------------------------------------


TINY_CASES = ["x + y", "sum(x)", f"{CHAIN_OPS}-op chain", "x[::2] (slice view)", "x[0] = 1.0 (setitem)",
              "x @ y (4x4)"]


def tiny_libraries() -> dict[str, object]:
    """Baseline first. jax.numpy is eager JAX (its results blocked on); array-api-strict when installed."""
    import jax.numpy as jnp

    import stridex as sx

    libs: dict[str, object] = {"NumPy": np, "stridex": sx}
    try:
        import array_api_strict
    except ImportError:
        pass
    else:
        libs["array-api-strict"] = array_api_strict
    libs["jax.numpy"] = jnp
    return libs


def tiny_case(case: str, xp, is_jax: bool) -> Callable[[], object]:
    x, y = xp.asarray(np.full(1, 1.5)), xp.asarray(np.full(1, 0.5))
    if case == "x + y":
        fn = lambda: x + y
    elif case == "sum(x)":
        fn = lambda: xp.sum(x)
    elif case == f"{CHAIN_OPS}-op chain":
        fn = lambda: chain(xp, x, y, CHAIN_OPS)
    elif case == "x[::2] (slice view)":
        fn = lambda: x[::2]
    elif case == "x[0] = 1.0 (setitem)":
        if is_jax:  # JAX arrays are immutable: the functional update is the equivalent
            fn = lambda: x.at[0].set(1.0)
        else:
            def fn():
                x[0] = 1.0
    elif case == "x @ y (4x4)":
        a = xp.asarray(np.arange(16.0).reshape(4, 4) / 16)
        b = xp.asarray(np.eye(4) + 0.5)
        fn = lambda: a @ b
    else:
        raise ValueError(case)
    if is_jax:
        return lambda: fn().block_until_ready()
    return fn


# --- section 2: time against array size -------------------------------------------------------------


def _chain_program(xp, x, y):
    return chain(xp, x, y, CHAIN_OPS)


def _sum_program(xp, x):
    return xp.sum(x)


SWEEP_PROGRAMS: dict[str, tuple[int, Callable]] = {
    f"{CHAIN_OPS}-op elementwise chain": (2, _chain_program),
    "reduction: sum(x)": (1, _sum_program),
}


@dataclass
class SweepState:
    """The jitted functions of the sweep, made once (one cache entry per size)."""

    fns: dict[str, tuple[Callable, Callable]] = field(default_factory=dict)

    def get(self, program: str):
        if program not in self.fns:
            import jax
            import jax.numpy as jnp

            import stridex as sx

            _, prog = SWEEP_PROGRAMS[program]
            self.fns[program] = (sx.jit(lambda *a: prog(sx, *a)), jax.jit(lambda *a: prog(jnp, *a)))
        return self.fns[program]


def sweep_inputs(n: int, arity: int, seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.random(n) + 0.5 for _ in range(arity)]


def sweep_point(cfg: Config, state: SweepState, program: str, n: int, *, eager: bool = True,
                device=None) -> dict[str, Stats]:
    """The series at one size: eager NumPy and stridex (when `eager`), jax.jit and sx.jit; on `device` (a
    JAX device) the inputs are put there first (`sx.asarray(..., device=device)`, `jax.device_put`)."""
    import jax
    import jax.numpy as jnp

    import stridex as sx

    arity, prog = SWEEP_PROGRAMS[program]
    f_sx, f_jax = state.get(program)
    arrays = sweep_inputs(n, arity)
    if device is not None:
        xs = [sx.asarray(a, device=device) for a in arrays]
        js = [jax.device_put(a, device) for a in arrays]
    else:
        xs = [sx.asarray(a, copy=True) for a in arrays]  # stridex-allocated (aligned: given to XLA without a copy)
        js = [jnp.asarray(a) for a in arrays]
    fns: dict[str, Callable[[], object]] = {}
    if eager:
        fns["NumPy"] = lambda: prog(np, *arrays)
        fns["stridex"] = lambda: prog(sx, *xs).block_until_ready()  # (pending work, `sx.eval`, runs)
    fns["jax.jit"] = lambda: f_jax(*js).block_until_ready()
    fns["sx.jit"] = lambda: f_sx(*xs).block_until_ready()
    return measure(fns, repeats=cfg.repeats, target_s=cfg.target_s, budget_s=cfg.sweep_budget_s,
                   min_repeats=cfg.min_repeats)


# --- section 3: a jitted 40-op program ----------------------------------------------------------------


def jit_inputs(n: int, device=None):
    import jax
    import jax.numpy as jnp

    import stridex as sx

    a, b = sweep_inputs(n, 2, seed=1)
    if device is not None:
        return [sx.asarray(v, device=device) for v in (a, b)], [jax.device_put(v, device) for v in (a, b)]
    return [sx.asarray(a, copy=True), sx.asarray(b, copy=True)], [jnp.asarray(a), jnp.asarray(b)]


def jit_steady(cfg: Config, n: int, device=None) -> dict[str, Stats]:
    import jax
    import jax.numpy as jnp

    import stridex as sx

    xs, js = jit_inputs(n, device)
    f_sx = sx.jit(lambda a, b: chain(sx, a, b, JIT_OPS))
    f_jax = jax.jit(lambda a, b: chain(jnp, a, b, JIT_OPS))
    return measure({"jax.jit": lambda: f_jax(*js).block_until_ready(),
                    "sx.jit": lambda: f_sx(*xs).block_until_ready()},
                   repeats=cfg.repeats, target_s=cfg.target_s, min_repeats=cfg.min_repeats)


def jit_first(cfg: Config, n: int, device=None, program=chain) -> dict[str, Stats]:
    """Trace + lower + compile + run of a fresh function object each time, the two libraries alternating
    (which goes first alternates too); the garbage collector runs between calls, not during them."""
    import jax
    import jax.numpy as jnp

    import stridex as sx

    xs, js = jit_inputs(n, device)

    def first_sx():
        sx.jit(lambda a, b: program(sx, a, b, JIT_OPS))(*xs).block_until_ready()

    def first_jax():
        jax.jit(lambda a, b: program(jnp, a, b, JIT_OPS))(*js).block_until_ready()

    fns = {"jax.jit": first_jax, "sx.jit": first_sx}
    times: dict[str, list[float]] = {name: [] for name in fns}
    for r in range(cfg.first_call_rounds):
        for name in (list(fns) if r % 2 == 0 else list(fns)[::-1]):
            times[name].append(time_once(fns[name]))
    return {name: Stats(t) for name, t in times.items()}


# --- section 6: tracing, a first call with divisions, import --------------------------------------------

TRACE_OPS = 400  # the traced program of section 6


def tracing_per_op(cfg: Config) -> dict[str, Stats]:
    """Tracing the 400-op chain: `sx.make_ir` (unoptimised: the trace alone) against `jax.make_jaxpr`, per
    recorded op, in CPU time, the two alternating."""
    import jax
    import jax.numpy as jnp

    import stridex as sx

    xs, js = jit_inputs(1)
    fns = {"jax.make_jaxpr": lambda: jax.make_jaxpr(lambda a, b: chain(jnp, a, b, TRACE_OPS))(*js),
           "sx.make_ir": lambda: sx.make_ir(lambda a, b: chain(sx, a, b, TRACE_OPS), optimize=False)(*xs)}
    for fn in fns.values():
        fn()  # (warm-up)
    return _alternating_cpu_times(fns, cfg.first_call_rounds, scale=1 / TRACE_OPS)


def jit_first_cpu(cfg: Config, program) -> dict[str, Stats]:
    """As `jit_first`, in CPU time of the process (every thread: XLA compiles on several)."""
    import jax
    import jax.numpy as jnp

    import stridex as sx

    xs, js = jit_inputs(1)
    fns = {"jax.jit": lambda: jax.jit(lambda a, b: program(jnp, a, b, JIT_OPS))(*js).block_until_ready(),
           "sx.jit": lambda: sx.jit(lambda a, b: program(sx, a, b, JIT_OPS))(*xs).block_until_ready()}
    for fn in fns.values():
        fn()  # (the first of each in the process also compiles JAX's own helpers)
    return _alternating_cpu_times(fns, cfg.first_call_rounds)


def _alternating_cpu_times(fns: dict[str, Callable[[], object]], rounds: int, scale: float = 1.0) -> dict[str, Stats]:
    times: dict[str, list[float]] = {name: [] for name in fns}
    for r in range(rounds):
        for name in (list(fns) if r % 2 == 0 else list(fns)[::-1]):
            times[name].append(times_once(fns[name])[1] * scale)
    return {name: Stats(t) for name, t in times.items()}


def import_times(cfg: Config) -> dict[str, Stats]:
    """`import numpy` and `import stridex` (NumPy's included) in fresh interpreters, start-up excluded, the two
    alternating, in CPU time (one OpenBLAS thread, whose start-up would count otherwise); stridex's bytecode
    compiled first, as an installed package's is."""
    import compileall

    compileall.compile_dir(str(REPO / "stridex"), quiet=1)
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    env["PYTHONPATH"] = os.pathsep.join([str(REPO)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    times: dict[str, list[float]] = {"import numpy": [], "import stridex": []}
    for r in range(cfg.first_call_rounds):
        for name in (list(times) if r % 2 == 0 else list(times)[::-1]):
            code = f"import time; t = time.process_time(); {name}; print(time.process_time() - t)"
            out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env,
                                 cwd=REPO.parent)  # (not the checkout: `-c` puts the working directory first)
            times[name].append(float(out.stdout))
    return {name: Stats(t) for name, t in times.items()}


# --- section 4: memory ----------------------------------------------------------------------------------


MEMORY_LIBS = ("NumPy", "stridex")


def memory_probe(lib: str, n: int, method: str) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    name = {"NumPy": "numpy", "stridex": "stridex"}[lib]
    out = subprocess.run([sys.executable, "-m", "benchmarks.memprobe", name, str(n), method], check=False,
                         capture_output=True, text=True, env=env, cwd=REPO, timeout=300)
    if out.returncode != 0:
        return {"error": (out.stderr.strip().splitlines() or ["exit status " + str(out.returncode)])[-1]}
    return json.loads(out.stdout.strip().splitlines()[-1])


# --- the GPU -----------------------------------------------------------------------------------------------


def gpu_devices(platform: str = "gpu") -> tuple[list, str | None]:
    """JAX's devices of that platform, or why there are none."""
    import jax

    try:
        devices = jax.devices(platform)
    except RuntimeError as e:
        return [], describe_error(e)
    if not devices:
        return [], f"jax.devices({platform!r}) is empty"
    return devices, None


# --- the run -------------------------------------------------------------------------------------------


@dataclass
class Results:
    cfg: Config
    tiny_libs: list[str] = field(default_factory=list)
    tiny: dict[str, dict[str, Stats]] = field(default_factory=dict)
    sweep: dict[str, dict[str, list[Stats]]] = field(default_factory=dict)
    jit: dict[str, dict[str, dict[str, Stats]]] = field(default_factory=dict)
    memory: dict[str, dict[str, dict]] = field(default_factory=dict)
    gpu_devices: list = field(default_factory=list)
    gpu_reason: str | None = None
    gpu_sweep: dict[str, dict[str, list[Stats]]] = field(default_factory=dict)
    gpu_jit: dict[str, dict[str, dict[str, Stats]]] = field(default_factory=dict)
    costs: dict[str, dict[str, Stats]] = field(default_factory=dict)  # section 6: {case: {library: Stats}}
    errors: list[tuple[str, str]] = field(default_factory=list)  # (case, error) of cases that raised
    load_start: str | None = None
    commit: str | None = None  # (read at the start: the page's own PNGs are written before the page)
    seconds: float = 0.0
    progress: common.Progress | None = None


def _summary(stats: dict[str, Stats], base: str) -> str:
    parts = []
    for name, s in stats.items():
        text = fmt_time(s.median) if s.ok else "n/a"
        if name != base and s.ok and stats[base].ok:
            text += f" ({fmt_ratio(s, stats[base])})"
        parts.append(f"{name} {text}")
    return ", ".join(parts)


def plan(cfg: Config, res: Results, device_platform: str) -> list[tuple[str, float, Callable[[], str]]]:
    """The cases in order: (label, estimated seconds, run -> a one-line summary)."""
    steps: list[tuple[str, float, Callable[[], str]]] = []
    libs = tiny_libraries()
    res.tiny_libs = list(libs)

    def tiny_step(case):
        def run():
            fns, failed = {}, {}
            for name, xp in libs.items():
                try:
                    fns[name] = tiny_case(case, xp, name == "jax.numpy")
                except Exception as e:  # noqa: BLE001  (inputs a library refuses: n/a, with the reason)
                    failed[name] = Stats.failed(describe_error(e))
            stats = measure(fns, repeats=cfg.repeats, target_s=cfg.target_s, min_repeats=cfg.min_repeats)
            res.tiny[case] = {name: failed[name] if name in failed else stats[name] for name in libs}
            return _summary(res.tiny[case], "NumPy")
        return run

    for case in TINY_CASES:
        steps.append((f"eager, one element: {case}", len(libs) * (cfg.repeats + 10) * cfg.target_s * 2.5 + 0.5,
                      tiny_step(case)))

    state = SweepState()

    def sweep_step(program, i, n, target, device=None, eager=True, state=state):
        def run():
            with _on(device):
                stats = sweep_point(cfg, state, program, n, eager=eager, device=device)
            series = target.setdefault(program, {})
            for name, s in stats.items():
                series.setdefault(name, [None] * len(cfg.sweep_sizes))[i] = s
            return _summary(stats, "NumPy" if eager else "jax.jit")
        return run

    def sweep_weight(program, n, n_series=4):  # estimated seconds, for the ETA
        ops = CHAIN_OPS if program == f"{CHAIN_OPS}-op elementwise chain" else 1
        per_call = ops * n * 4e-9 + 1e-5
        return 1.0 + min(cfg.sweep_budget_s, (cfg.repeats + 10) * n_series * max(cfg.target_s, per_call))

    for program in SWEEP_PROGRAMS:
        for i, n in enumerate(cfg.sweep_sizes):
            steps.append((f"size sweep: {program}, {size_label(n)} elements", sweep_weight(program, n),
                          sweep_step(program, i, n, res.sweep)))

    def jit_step(kind, n, target, device=None):
        def run():
            fn = jit_steady if kind == "steady" else jit_first
            with _on(device):
                stats = fn(cfg, n, device)
            target.setdefault(JIT_KINDS[kind], {})[f"{size_label(n)} elements"] = stats
            return _summary(stats, "jax.jit")
        return run

    for n in cfg.jit_sizes:
        steps.append((f"jit {JIT_OPS}-op program, steady state, {size_label(n)} elements",
                      0.5 + 2 * (cfg.repeats + 6) * max(cfg.target_s, n * 1e-9), jit_step("steady", n, res.jit)))
        steps.append((f"jit {JIT_OPS}-op program, first call, {size_label(n)} elements",
                      cfg.first_call_rounds * 2 * 0.12, jit_step("first", n, res.jit)))

    def cost_step(case, fn, base):
        def run():
            res.costs[case] = fn()
            return _summary(res.costs[case], base)
        return run

    steps.append((f"tracing, {TRACE_OPS}-op program", 3.0 + cfg.repeats * 0.2,
                  cost_step(COST_CASES[0], lambda: tracing_per_op(cfg), "jax.make_jaxpr")))
    steps.append((f"jit {JIT_OPS}-op program with divisions, first call, 10^0 elements",
                  cfg.first_call_rounds * 2 * 0.12,
                  cost_step(COST_CASES[1], lambda: jit_first_cpu(cfg, division_chain), "jax.jit")))
    steps.append(("import numpy and import stridex, fresh interpreters", cfg.first_call_rounds * 2 * 0.4,
                  cost_step(COST_CASES[2], lambda: import_times(cfg), "import numpy")))

    def memory_step(lib):
        def run():
            res.memory[lib] = {method: memory_probe(lib, cfg.memory_n, method) for method in ("tracemalloc", "rss")}
            t = res.memory[lib]["tracemalloc"]
            if "error" in t:
                return f"error: {t['error']}"
            return (f"{t['n_views']} views keep {t['views_retained']:,} bytes; peak above the input "
                    f"{t['program_peak']:,} bytes")
        return run

    for lib in MEMORY_LIBS:
        steps.append((f"peak memory, view-heavy program, {lib} (2 subprocesses)", 1.0 + cfg.memory_n * 1e-7,
                      memory_step(lib)))

    devices, reason = gpu_devices(device_platform)
    res.gpu_devices, res.gpu_reason = devices, reason
    if devices:
        dev = devices[0]
        device_state = SweepState()  # jitted functions of its own, not those compiled for the CPU
        for program in SWEEP_PROGRAMS:
            for i, n in enumerate(cfg.sweep_sizes):
                steps.append((f"{device_platform}: size sweep {program}, {size_label(n)} elements",
                              sweep_weight(program, n, n_series=2),
                              sweep_step(program, i, n, res.gpu_sweep, device=dev, eager=False,
                                         state=device_state)))
        for n in cfg.jit_sizes:
            steps.append((f"{device_platform}: jit {JIT_OPS}-op program, steady state, {size_label(n)} elements",
                          0.5 + 2 * (cfg.repeats + 6) * cfg.target_s, jit_step("steady", n, res.gpu_jit, dev)))
            steps.append((f"{device_platform}: jit {JIT_OPS}-op program, first call, {size_label(n)} elements",
                          cfg.first_call_rounds * 2 * 0.15, jit_step("first", n, res.gpu_jit, dev)))
    return steps


def _on(device):
    """JAX's default device set to `device` for the block (no change for None)."""
    import contextlib

    import jax

    return jax.default_device(device) if device is not None else contextlib.nullcontext()


JIT_KINDS = {"steady": "steady-state call", "first": "first call (trace + lower + compile + run)"}
COST_CASES = (f"tracing, per recorded op ({TRACE_OPS}-op program; `sx.make_ir` / `jax.make_jaxpr`)",
              f"first call of a {JIT_OPS}-op program with 10 divisions by a Python scalar (`sx.jit` / `jax.jit`)",
              "`import stridex` (NumPy's import included) / `import numpy`")


def run_suite(cfg: Config, device_platform: str = "gpu") -> Results:
    import jax

    res = Results(cfg, load_start=common.load_average(), commit=common.git_commit())
    t0 = time.perf_counter()
    # float64 in JAX as in NumPy and stridex (stridex's jit enters this scope itself); sections 1-4 on the
    # CPU even where JAX's default device is a GPU (section 5 sets its device per case).
    with jax.enable_x64(True), jax.default_device(jax.devices("cpu")[0]):
        steps = plan(cfg, res, device_platform)
        progress = common.Progress([w for _, w, _ in steps] + [4.0 + 2.0 * bool(res.gpu_devices)])
        print(f"{len(steps)} cases{' (quick mode)' if cfg.quick else ''}; one line per finished case", flush=True)
        for label, _, run in steps:
            t = time.perf_counter()
            try:
                detail = run()
            except Exception as e:  # noqa: BLE001  (one case failing does not lose the others: reported on the page)
                res.errors.append((label, describe_error(e)))
                detail = f"FAILED: {describe_error(e)}"
            progress.step(label, time.perf_counter() - t, detail)
    res.seconds = time.perf_counter() - t0
    res.progress = progress  # its last step: the plots and the page
    return res


# --- the page -------------------------------------------------------------------------------------------


def _table(head: list[str], rows: list[list[str]], align: str | None = None) -> list[str]:
    align = align or "|" + "---|" + "---:|" * (len(head) - 1)
    return ["| " + " | ".join(head) + " |", align, *("| " + " | ".join(r) + " |" for r in rows)]


def _tiny(res: Results, case: str, lib: str) -> Stats:
    return res.tiny.get(case, {}).get(lib) or Stats.failed("not run")


def _ratio_value(a: Stats | None, b: Stats | None) -> float | None:
    if a is None or b is None or not (a.ok and b.ok) or b.median == 0:
        return None
    return a.median / b.median


def _geomean(values: list[float]) -> float | None:
    values = [v for v in values if v is not None and v > 0]
    return math.exp(sum(map(math.log, values)) / len(values)) if values else None


def _mb(b: float) -> str:
    return f"{b / 1e6:.3f} MB" if abs(b) >= 1e5 else f"{b:,.0f} B"


def headlines(res: Results) -> list[tuple[str, str]]:
    rows: list[tuple[str, str]] = []
    for lib in res.tiny_libs:
        if lib == "NumPy":
            continue
        r = _ratio_value(_tiny(res, "x + y", lib), _tiny(res, "x + y", "NumPy"))
        g = _geomean([_ratio_value(_tiny(res, c, lib), _tiny(res, c, "NumPy")) for c in TINY_CASES])
        if r is not None:
            rows.append((f"eager `x + y` on one element, {lib} / NumPy", f"{r:.2f}x"))
        if g is not None:
            rows.append((f"eager one-element ops, {lib} / NumPy, geometric mean of the {len(TINY_CASES)} cases",
                         f"{g:.2f}x"))
    r = _geomean([_ratio_value(_tiny(res, c, "stridex"), _tiny(res, c, "array-api-strict")) for c in TINY_CASES])
    if r is not None:
        rows.append(("eager one-element ops, stridex / array-api-strict, geometric mean", f"{r:.2f}x"))
    r = _geomean([_ratio_value(_tiny(res, c, "stridex"), _tiny(res, c, "jax.numpy")) for c in TINY_CASES])
    if r is not None:
        rows.append(("eager one-element ops, stridex / jax.numpy (eager), geometric mean", f"{r:.2f}x"))
    n_big = size_label(res.cfg.sweep_sizes[-1])
    for program, series in res.sweep.items():
        for a, b in (("stridex", "NumPy"), ("sx.jit", "jax.jit")):
            r = _ratio_value(series.get(a, [None])[-1], series.get(b, [None])[-1])
            if r is not None:
                rows.append((f"{program}, {n_big} elements, {a} / {b}", f"{r:.2f}x"))
        r = _ratio_value(series.get("sx.jit", [None])[-1], series.get("NumPy", [None])[-1])
        if r is not None:
            rows.append((f"{program}, {n_big} elements, sx.jit / eager NumPy", f"{r:.2f}x"))
    for kind, by_size in res.jit.items():
        for size, stats in by_size.items():
            r = _ratio_value(stats.get("sx.jit"), stats.get("jax.jit"))
            if r is not None:
                rows.append((f"jit {JIT_OPS}-op program, {kind}, {size}, sx.jit / jax.jit", f"{r:.2f}x"))
    for case, stats in res.costs.items():
        a, b = list(stats.values())[::-1]
        r = _ratio_value(a, b)
        if r is not None:
            rows.append((case, f"{r:.2f}x"))
    for lib, m in res.memory.items():
        t = m.get("tracemalloc", {})
        if "error" not in t and t:
            rows.append(((f"view-heavy program, {lib}: bytes allocated by {t['n_views']} views "
                         f"(input {_mb(t['input_bytes'])})"), f"{t['views_retained']:,} B"))
    return rows


def _copied_section(title: str, results: str, command: str, about: str = "") -> list[str]:
    """A section copied from a benchmark's own report (benchmarks/`results`, written by `command` in a separate,
    longer run), as it wrote it, less its title."""
    path = REPO / "benchmarks" / results
    lines = [f"## {title}", ""]
    if not path.exists():
        return lines + [f"Not run yet: `{command}` writes benchmarks/{results}.", ""]
    body = path.read_text().splitlines()
    body = body[1:] if body and body[0].startswith("# ") else body  # (its own title)
    body = ["#" + line if line.startswith("## ") else line for line in body]  # (its sections: one level down)
    return lines + [(f"Copied from [benchmarks/{results}](../benchmarks/{results}), written by `{command}` "
                     f"(a separate run{about})."), *body, ""]


def _fusion_section() -> list[str]:
    """Section 7: the latest `python -m benchmarks.fusion` run (its own, longer run: 10^7-element rows, the
    device rows, peak memory in fresh processes)."""
    return _copied_section("7. Eager fusion", "FUSION_RESULTS.md",
                           "python -m benchmarks.fusion --out benchmarks/FUSION_RESULTS.md",
                           "; what defers and why: [fusion.md](fusion.md)")


def _lax_section() -> list[str]:
    """Section 8: the latest `python -m benchmarks.lax` run (the CNN and einsum beside JAX, issue 43)."""
    return _copied_section("8. sx.lax: a small CNN and einsum", "LAX_RESULTS.md", "python -m benchmarks.lax")


def _nn_section() -> list[str]:
    """Section 9: the latest `python -m benchmarks.nn` run (the nn functions eagerly, fused against op by op,
    issue 43)."""
    return _copied_section("9. sx.nn eagerly: fused against op by op", "NN_RESULTS.md", "python -m benchmarks.nn")


def render(res: Results, img: dict[str, str], command: str, plot_error: str | None) -> str:
    cfg = res.cfg
    cpus = os.cpu_count() or 1
    load_end = common.load_average()
    busy = False
    try:
        busy = max(float(res.load_start.split(",")[0]), float(load_end.split(",")[0])) > 0.5 * cpus
    except (AttributeError, ValueError):
        pass
    lines = ["# Benchmarks", ""]
    note = ("> **Regenerate on a quiet machine before quoting these numbers** (`python -m benchmarks.report`, "
            "3 to 5 minutes on 2 cores). Absolute times depend on the machine and on what else it runs; the "
            "libraries are measured in alternation, so ratios suffer less from load than absolute times do, "
            "but not nothing.")
    if busy:
        note += (f" This run was made on a busy machine: load average {res.load_start} at the start and "
                 f"{load_end} at the end, on {cpus} logical CPUs.")
    if cfg.quick:
        note += " This page comes from `--quick` (a smoke run: few repetitions, sizes up to 10^5): not for quoting."
    lines += [note, ""]
    lines += [(f"Written by `{command}` in {res.seconds:.0f} s. Each number is the median of one run, with the "
              "minimum–maximum of the same run in brackets; ratios are of medians (below 1: stridex is faster). "
              "Plots show the same medians, with min–max bars or bands."), ""]
    import jax

    lines += ["## Environment", "", *common.machine_info(commit=res.commit, extra_versions={
        "JAX": f"{jax.__version__} (jaxlib {common.version_of('jaxlib')}), devices: "
               + ", ".join(str(d) for d in jax.devices()),
        "array-api-strict": common.version_of("array_api_strict"),
        "matplotlib": common.version_of("matplotlib"),
    }), f"- Load average (1, 5, 15 min) at the start of the run: {res.load_start}", ""]
    if plot_error:
        lines += [f"Plots were not written: {plot_error}.", ""]

    lines += ["## Headline ratios", ""]
    lines += _table(["measure", "value"], [[a, b] for a, b in headlines(res)])
    lines += [""]

    # 1
    base = "NumPy"
    others = [lib for lib in res.tiny_libs if lib != base]
    lines += ["## 1. Eager overhead per operation on one-element inputs", ""]
    if "eager" in img:
        lines += [f"![eager overhead]({img['eager']})", ""]
    lines += [(f"float64 inputs of one element (`x @ y`: 4x4). Per-call time of the whole expression, including "
              f"the result's allocation. jax.numpy is JAX's eager mode, blocking on every result "
              f"(`.block_until_ready()`); its setitem is the functional `x.at[0].set(1.0)` (JAX arrays are "
              f"immutable), and its `x[::2]` is a copy (JAX has no views). Inner loops calibrated to at least "
              f"{cfg.target_s * 1e3:g} ms per sample, {cfg.repeats} samples per library, the libraries "
              f"interleaved. Baseline: NumPy."), ""]
    head = ["case", base] + [h for lib in others for h in (lib, f"{lib} / {base}")]
    rows = []
    notes = []
    for case in TINY_CASES:
        row = [f"`{case}`", fmt_stats(_tiny(res, case, base))]
        for lib in others:
            s = _tiny(res, case, lib)
            row += [fmt_stats(s), fmt_ratio(s, _tiny(res, case, base))]
            if s.note:
                notes.append(f"- {lib}, `{case}`: n/a ({s.note})")
        rows.append(row)
    lines += _table(head, rows) + [""] + notes + ([""] if notes else [])

    # 2
    lines += ["## 2. Time against array size", ""]
    if "sweep" in img:
        lines += [f"![time against size]({img['sweep']})", ""]
    lines += [(f"float64, {size_label(cfg.sweep_sizes[0])} to {size_label(cfg.sweep_sizes[-1])} elements. Eager: "
              f"stridex against NumPy (baseline). Compiled: `sx.jit` against `jax.jit` (baseline) of the same "
              f"function, both blocking on the result; stridex inputs are stridex-allocated arrays, JAX inputs "
              f"`jnp.asarray` of the same data. Samples per point: up to {cfg.repeats}, fewer where one "
              f"point's samples would take over {cfg.sweep_budget_s:g} s (never under {cfg.min_repeats})."), ""]
    lines += _sweep_tables(res.sweep, cfg.sweep_sizes, eager=True)

    # 3
    lines += [f"## 3. jit: a {JIT_OPS}-op elementwise program, steady state and first call", ""]
    if "jit" in img:
        lines += [f"![jit calls]({img['jit']})", ""]
    lines += [(f"`f(a, b)`: {JIT_OPS} elementwise operations (add, multiply, subtract, multiply-add in turn) on "
              f"float64 inputs; `sx.jit(f)` on stridex arrays against `jax.jit` of the same function on jax.numpy "
              f"arrays (baseline), both blocking on the result. Steady state: calls after the first, the two "
              f"interleaved in rounds ({cfg.repeats} samples each). First call: trace + lower + compile + run of "
              f"a fresh function object, {cfg.first_call_rounds} rounds, the two alternating."), ""]
    lines += _jit_table(res.jit)

    # 4
    lines += ["## 4. Peak memory of a view-heavy program", ""]
    if "memory" in img:
        lines += [f"![memory]({img['memory']})", ""]
    lines += _memory_section(res)

    # 5
    lines += ["## 5. GPU", ""]
    if res.gpu_devices:
        lines += [(f"Devices: {', '.join(str(d) for d in res.gpu_devices)} (the first one used). Compiled code only "
                  "(eager operations on the device: `python -m benchmarks.gpu`, benchmarks/GPU_RESULTS.md). Inputs "
                  "are put on the device first (stridex: `sx.asarray(a, device=d)`; JAX: `jax.device_put`)."), ""]
        if "gpu_sweep" in img:
            lines += [f"![gpu time against size]({img['gpu_sweep']})", ""]
        lines += _sweep_tables(res.gpu_sweep, cfg.sweep_sizes, eager=False)
        if "gpu_jit" in img:
            lines += [f"![gpu jit calls]({img['gpu_jit']})", ""]
        lines += _jit_table(res.gpu_jit)
    else:
        lines += [(f"Not run: JAX sees no GPU on this machine ({res.gpu_reason}). The section is written when "
                  "`jax.devices('gpu')` is non-empty (a CUDA build of jaxlib and a GPU); it then repeats the "
                  "size sweep and the jit cases of sections 2 and 3 on the GPU, compiled code only."), ""]

    # 6
    lines += ["## 6. Tracing, a first call with divisions, and import", ""]
    lines += [("CPU time of the process (every thread's work, not the time other programs ran: these cases "
              "take tens of milliseconds, which a busy machine's scheduling would otherwise dominate), "
              f"{cfg.first_call_rounds} rounds, the two alternating. Tracing: the {TRACE_OPS}-op chain of section "
              "3's operations recorded by `sx.make_ir(f, optimize=False)` against `jax.make_jaxpr(f)`, per recorded "
              f"operation. First call: trace + lower + compile + run of a fresh function of {JIT_OPS} operations "
              "(tanh, multiply, add, divide by the Python scalar 3.0, in turn) on one-element inputs; stridex keeps "
              "its divisions correctly rounded under jit (`jax_bridge.ieee_divide`), which `jax.jit` turns into "
              "multiplications. Import: fresh interpreters, start-up excluded, one OpenBLAS thread, stridex's "
              "bytecode compiled first."), ""]
    rows = []
    for case, stats in res.costs.items():
        (base_name, base), (name, own) = stats.items()
        rows.append([case, f"{base_name}: {fmt_stats(base)}", f"{name}: {fmt_stats(own)}", fmt_ratio(own, base)])
    lines += _table(["case", "baseline", "stridex", "ratio"], rows, "|---|---:|---:|---:|") + [""]

    lines += _fusion_section()
    lines += _lax_section()
    lines += _nn_section()

    if res.errors:
        lines += ["## Cases that failed", "", *(f"- {label}: {error}" for label, error in res.errors), ""]

    lines += ["## Method", "",
              ("- Timing: `time.perf_counter_ns` around an inner loop whose length is calibrated like timeit's "
              "autorange (1, 2, 5, 10, 20, ... calls until one sample takes at least the target time); the "
              "garbage collector is off during samples; the libraries of a case are sampled in rounds, in a "
              "rotating order, so that a slow spell of the machine falls on all of them."),
              ("- Warm-up: every callable is called three times and calibrated once before the calibration "
              "that counts. One-time costs are not all in the first call: in a fresh process, the second call "
              "of a `sx.jit` function on one-element inputs compiles one more small XLA program (a one-input "
              "`jit(<lambda>)` in `jax_log_compiles`; about 20 ms here, once per process), which a single "
              "warm-up call would leave in the calibration."),
              "- Float64 everywhere; JAX runs under `jax.enable_x64(True)`.",
              ("- Source: `benchmarks/report.py` (suite and page), `benchmarks/common.py` (timing), "
              "`benchmarks/memprobe.py` (the memory subprocess), `benchmarks/plots.py` (plots). "
              "`python -m benchmarks.report --quick` is a smoke run of the same code."),
              ""]
    return "\n".join(lines)


def _sweep_tables(sweep: dict[str, dict[str, list[Stats]]], sizes, eager: bool) -> list[str]:
    lines = []
    for program, series in sweep.items():
        head = ["elements"]
        if eager:
            head += ["NumPy", "stridex", "stridex / NumPy"]
        head += ["jax.jit", "sx.jit", "sx.jit / jax.jit"]
        rows = []
        for i, n in enumerate(sizes):
            row = [size_label(n)]
            pairs = (("stridex", "NumPy"), ("sx.jit", "jax.jit")) if eager else (("sx.jit", "jax.jit"),)
            for a, b in pairs:
                sa, sb = series.get(a, [None] * len(sizes))[i], series.get(b, [None] * len(sizes))[i]
                sa, sb = sa or Stats.failed("not run"), sb or Stats.failed("not run")
                row += [fmt_stats(sb), fmt_stats(sa), fmt_ratio(sa, sb)]
            rows.append(row)
        lines += [f"**{program}**", "", *_table(head, rows), ""]
    return lines


def _jit_table(jit: dict[str, dict[str, dict[str, Stats]]]) -> list[str]:
    rows = []
    for kind, by_size in jit.items():
        for size, stats in by_size.items():
            a, b = stats.get("sx.jit") or Stats.failed("not run"), stats.get("jax.jit") or Stats.failed("not run")
            rows.append([kind, size, fmt_stats(b), fmt_stats(a), fmt_ratio(a, b)])
    return _table(["call", "inputs", "jax.jit", "sx.jit", "sx.jit / jax.jit"], rows, "|---|---|---:|---:|---:|") + [""]


METADATA_PER_VIEW = 1024  # bytes a view may take without holding data of its own (see _memory_section)


def _memory_section(res: Results) -> list[str]:
    from benchmarks import memprobe

    n = res.cfg.memory_n
    shape = memprobe.shape_for(n)
    lines = [(f"Input: NumPy's `arange({size_label(n)}, dtype=float64)` ({_mb(n * 8)}), adopted by each library "
             f"(`xp.asarray`, no copy), seen as `{shape}` and `({shape[0] * shape[1]}, {shape[2]})`. The program "
             f"then makes {memprobe.ROUNDS} rounds of views of it or of earlier views, all kept alive: strided "
             "and reversed slices, `permute_dims`, `.T`, `reshape` of contiguous blocks, `flip` on one axis and "
             "on all; then sums two of the strided, reversed views. Each library runs in its own fresh "
             "interpreter, twice: under `tracemalloc` (NumPy reports its data buffers to it; stridex's storage "
             "is NumPy memory), and without it, reading the peak resident size (Linux: VmHWM of "
             "/proc/self/status, reset once the input exists; `getrusage`'s ru_maxrss cannot be reset, and in a "
             "child that Python starts with vfork it begins at the parent's peak). Views \"allocate data\" when the "
             "peak while making them exceeds 1 KiB per view: a view's Python objects take some hundreds of bytes, "
             "a copy of any of these views thousands. Baseline: NumPy."), ""]
    head = ["library", "views", "bytes kept by the views", "per view", "peak above the input (tracemalloc)",
            "peak resident increase (RSS)", "views allocate data?"]
    rows = []
    for lib, m in res.memory.items():
        t, r = m.get("tracemalloc", {}), m.get("rss", {})
        if "error" in t:
            rows.append([lib, "n/a", f"error: {t['error']}", "", "", "", ""])
            continue
        # Every view here spans thousands of elements, so a copy of any one of them would cost far more than
        # METADATA_PER_VIEW, an allowance for the Python objects a view is (NumPy ~190 B, stridex ~400 B).
        copies = "no" if t["views_peak"] < METADATA_PER_VIEW * t["n_views"] else "**yes**"
        rss = "n/a" if "error" in r else f"{_mb(r['rss_peak_increase'])} ({r['source']})"
        rows.append([lib, str(t["n_views"]), f"{t['views_retained']:,} B", f"{t['views_retained'] / t['n_views']:.0f} B",
                     _mb(t["program_peak"]), rss, copies])
    lines += _table(head, rows, "|---|---:|---:|---:|---:|---:|---|")
    base = res.memory.get("NumPy", {}).get("tracemalloc", {})
    sx_t = res.memory.get("stridex", {}).get("tracemalloc", {})
    if base and sx_t and "error" not in base and "error" not in sx_t and base["program_peak"]:
        lines += ["", (f"Peak above the input, stridex / NumPy: {sx_t['program_peak'] / base['program_peak']:.2f}x "
                  f"({_mb(sx_t['program_peak'])} against {_mb(base['program_peak'])}, on an input of "
                  f"{_mb(n * 8)}). The checksums of the two runs agree: "
                  f"{'yes' if sx_t['checksum'] == base['checksum'] else '**no**'}.")]
    return lines + [""]


def write_plots(res: Results, img_dir: Path, md_dir: Path) -> dict[str, str]:
    """The PNGs; returns {key: path relative to the page}. A plot that fails is left out and its error
    added to res.errors (matplotlib missing: ImportError, raised)."""
    from benchmarks import plots

    plots._pyplot()  # ImportError here when matplotlib is missing
    img_dir.mkdir(parents=True, exist_ok=True)
    note = "python -m benchmarks.report" + (" --quick (smoke run)" if res.cfg.quick else "")
    rel = os.path.relpath(img_dir, md_dir).replace(os.sep, "/")
    out = {}

    def draw(key, name, fn, *args):
        try:
            fn(img_dir / name, *args)
        except Exception as e:  # noqa: BLE001  (the page is still written, saying which plot failed)
            res.errors.append((f"plot {name}", describe_error(e)))
        else:
            out[key] = f"{rel}/{name}"

    draw("eager", "eager_overhead.png", plots.eager_overhead, TINY_CASES, res.tiny, res.tiny_libs, note)
    draw("sweep", "size_sweep.png", plots.size_sweep, list(res.cfg.sweep_sizes), res.sweep,
         [("stridex", "NumPy"), ("sx.jit", "jax.jit")], "Time against array size (CPU, float64)", note)
    draw("jit", "jit_calls.png", plots.jit_calls, res.jit, ["jax.jit", "sx.jit"], note,
         f"jit of a {JIT_OPS}-op elementwise program (CPU)")
    mem_rows = {}
    for lib, m in res.memory.items():
        t, r = m.get("tracemalloc", {}), m.get("rss", {})
        if "error" in t:
            continue
        mem_rows[lib] = {"input": t["input_bytes"], "kept by the views": t["views_retained"],
                         "peak above input\n(tracemalloc)": t["program_peak"],
                         "peak RSS increase": r.get("rss_peak_increase", 0)}
    if mem_rows:
        draw("memory", "memory.png", plots.memory, mem_rows, note, "View-heavy program: memory (symlog scale)")
    if res.gpu_devices:
        draw("gpu_sweep", "gpu_size_sweep.png", plots.size_sweep, list(res.cfg.sweep_sizes), res.gpu_sweep,
             [("sx.jit", "jax.jit")], f"Time against array size on {res.gpu_devices[0]}", note)
        draw("gpu_jit", "gpu_jit_calls.png", plots.jit_calls, res.gpu_jit, ["jax.jit", "sx.jit"], note,
             f"jit of a {JIT_OPS}-op elementwise program on {res.gpu_devices[0]}")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.report", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="a smoke run: few repetitions, sizes up to 10^5, under a minute (not for quoting)")
    parser.add_argument("--output", default=str(DEFAULT_OUTPUT), help="the Markdown page (default: docs/benchmarks.md)")
    parser.add_argument("--img-dir", default=None, help="where the PNGs go (default: img/ beside the page)")
    # Runs the GPU section on another JAX platform (e.g. cpu), to check its code without a GPU.
    parser.add_argument("--device-platform", default="gpu", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    cfg = QUICK if args.quick else FULL
    output = Path(args.output).resolve()
    img_dir = Path(args.img_dir).resolve() if args.img_dir else output.parent / "img"
    res = run_suite(cfg, args.device_platform)
    t = time.perf_counter()
    plot_error = None
    try:
        img = write_plots(res, img_dir, output.parent)
    except ImportError as e:
        img, plot_error = {}, f"{describe_error(e)} (pip install -e '.[bench]')"
    command = "python -m benchmarks.report" + (" --quick" if cfg.quick else "")
    output.parent.mkdir(parents=True, exist_ok=True)
    res.seconds += time.perf_counter() - t
    output.write_text(render(res, img, command, plot_error))
    res.progress.step("plots and page", time.perf_counter() - t,
                      f"wrote {output}" + (f" and {len(img)} PNGs in {img_dir}" if img else ""))
    print(f"total {res.seconds:.0f} s")
    for label, error in res.errors:
        print(f"FAILED: {label}: {error}", file=sys.stderr)
    return 1 if res.errors else 0


if __name__ == "__main__":
    raise SystemExit(main())
