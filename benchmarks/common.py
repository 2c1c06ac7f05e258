"""Helpers shared by the benchmark scripts: timing, the programs they time, formatting and the machine's description.

Timing (`measure`): `time.perf_counter_ns` around an inner loop whose length is calibrated like
`timeit.Timer.autorange` (1, 2, 5, 10, 20, 50, ... calls until one sample takes at least a target time);
the garbage collector is off while a sample runs; several callables are sampled in rounds, in a rotating
order, so that a change in the machine's load falls on all of them alike. Before calibrating, each
callable is called three times and calibrated once without keeping the result (warm-up). Each result keeps every
sample, so a report can give the median with the min–max spread of one run.
"""

from __future__ import annotations

import datetime
import gc
import os
import platform
import statistics
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import repeat as _repeat
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


# --- the programs ----------------------------------------------------------------------------------


def chain(xp, x, y, n_ops: int):
    """n_ops elementwise operations, alternating add/multiply/subtract with a mixing term (the same program
    in any namespace: stridex, NumPy, jax.numpy, array-api-strict)."""
    ops = (lambda a, b: a + b, lambda a, b: a * b, lambda a, b: a - b, lambda a, b: a * 0.5 + b)
    z = x
    for i in range(n_ops):
        z = ops[i % len(ops)](z, y)
    return z


def division_chain(xp, x, y, n_ops: int):
    """n_ops elementwise operations: tanh, multiply, add and a division by a Python scalar in turn (under
    `sx.jit` each division stays a correctly rounded one, `jax_bridge.ieee_divide`; `jax.jit` lets XLA turn
    it into a multiplication by the reciprocal)."""
    ops = (lambda a, b: xp.tanh(a), lambda a, b: a * b, lambda a, b: a + b, lambda a, b: a / 3.0)
    z = x
    for i in range(n_ops):
        z = ops[i % len(ops)](z, y)
    return z


def block(tree):
    """Wait for results XLA may still be computing (stridex and JAX arrays both have block_until_ready)."""
    for leaf in tree if type(tree) in (tuple, list) else (tree,):
        leaf.block_until_ready()
    return tree


# --- timing ----------------------------------------------------------------------------------------


@dataclass
class Stats:
    """Per-call times in seconds, one per sample (each sample the mean of an inner loop of `number` calls)."""

    samples: list[float]
    number: int = 1
    note: str | None = None  # why a case could not run (then samples is empty)

    @property
    def ok(self) -> bool:
        return bool(self.samples)

    @property
    def median(self) -> float:
        return statistics.median(self.samples)

    @property
    def min(self) -> float:
        return min(self.samples)

    @property
    def max(self) -> float:
        return max(self.samples)

    @classmethod
    def failed(cls, reason: str) -> Stats:
        return cls([], 0, reason)


class _GCOff:
    """Collect, then keep the garbage collector off for the block (restoring its previous state)."""

    def __enter__(self):
        gc.collect()
        self.was_enabled = gc.isenabled()
        gc.disable()

    def __exit__(self, *exc):
        if self.was_enabled:
            gc.enable()


def gc_off() -> _GCOff:
    return _GCOff()


def sample_ns(fn: Callable[[], object], number: int) -> int:
    """Nanoseconds for `number` calls of fn."""
    t0 = time.perf_counter_ns()
    for _ in _repeat(None, number):
        fn()
    return time.perf_counter_ns() - t0


def autorange(fn: Callable[[], object], target_s: float) -> tuple[int, float]:
    """The loop length (1, 2, 5, 10, 20, 50, ...) for which one sample takes at least target_s, and the
    per-call time seen at that length (as timeit.Timer.autorange)."""
    i = 1
    while True:
        for j in (1, 2, 5):
            number = i * j
            t = sample_ns(fn, number) / 1e9
            if t >= target_s or number >= 10**7:
                return number, t / number
        i *= 10


def describe_error(e: BaseException) -> str:
    text = str(e).splitlines()[0][:120] if str(e) else ""
    return f"{type(e).__name__}: {text}" if text else type(e).__name__


def measure(fns: dict[str, Callable[[], object]], *, repeats: int, target_s: float,
            budget_s: float | None = None, min_repeats: int = 3) -> dict[str, Stats]:
    """Time each callable: calibrate its inner loop, then take `repeats` samples of each, the callables
    interleaved in rounds (a rotating order). With `budget_s`, fewer rounds (never under `min_repeats`) are
    taken when the full count would take longer than that. A callable that raises is reported, not timed."""
    results: dict[str, Stats] = {}
    numbers: dict[str, int] = {}
    round_s = 0.0
    with gc_off():
        for name, fn in fns.items():
            try:
                for _ in range(3):  # warm-up: caches, compilation (some one-time costs come on a later call)
                    fn()
                autorange(fn, target_s)  # twice: the first also warms up
                numbers[name], per_call = autorange(fn, target_s)
            except Exception as e:  # noqa: BLE001  (a function not written, or refusing these inputs: n/a)
                results[name] = Stats.failed(describe_error(e))
                continue
            round_s += numbers[name] * per_call
    if budget_s is not None and round_s > 0:
        repeats = max(min_repeats, min(repeats, int(budget_s / round_s)))
    names = list(numbers)
    samples: dict[str, list[float]] = {name: [] for name in names}
    for r in range(repeats):
        order = names[r % len(names):] + names[:r % len(names)] if names else []
        with gc_off():
            for name in order:
                samples[name].append(sample_ns(fns[name], numbers[name]) / 1e9 / numbers[name])
    for name in names:
        results[name] = Stats(samples[name], numbers[name])
    return {name: results[name] for name in fns}


def interleaved(fns: dict[str, Callable[[], object]], *, rounds: int, collect_every: int = 250) -> dict[str, Stats]:
    """Per-call samples of each callable, taken in strict alternation: every round calls each callable once
    (timed alone), in an order that rotates from round to round, so that the two samples of one round were
    taken a few hundred microseconds apart, under the same load. For calls of tens of microseconds on a
    loaded machine, where a sample of many calls (`measure`) is rarely free of another process's time
    slice. Each callable is called three times first (warm-up); the garbage collector is off while the
    rounds run (collected every `collect_every` rounds, outside the timing). Compare two callables with
    `paired_ratio`."""
    names = list(fns)
    for fn in fns.values():
        for _ in range(3):
            fn()
    samples: dict[str, list[float]] = {name: [] for name in names}
    clock = time.perf_counter_ns
    with gc_off():
        for r in range(rounds):
            if r and r % collect_every == 0:
                gc.collect()
            k = r % len(names)
            for name in names[k:] + names[:k]:
                fn = fns[name]
                t0 = clock()
                fn()
                samples[name].append((clock() - t0) / 1e9)
    return {name: Stats(samples[name], 1) for name in names}


def paired_ratio(a: Stats, b: Stats) -> float:
    """The median over rounds of a's sample over b's sample of the same round (`interleaved` or `measure`
    samples): a slow spell of the machine falls on both samples of a round, and the median ignores the
    rounds where it fell on one only."""
    return statistics.median(x / y for x, y in zip(a.samples, b.samples))


def paired_interval(a: Stats, b: Stats, *, level: float = 0.95, resamples: int = 2000) -> tuple[float, float]:
    """A bootstrap interval (`level`, percentile method, a fixed seed) of `paired_ratio(a, b)`: the rounds'
    ratios resampled with replacement. It says how far the median could move with other rounds of the same
    machine state, not how far another run's machine state moves it."""
    import random

    ratios = [x / y for x, y in zip(a.samples, b.samples)]
    draw = random.Random(0).choices
    medians = sorted(statistics.median(draw(ratios, k=len(ratios))) for _ in range(resamples))
    tail = (1 - level) / 2
    return medians[int(tail * resamples)], medians[min(resamples - 1, int((1 - tail) * resamples))]


def time_once(fn: Callable[[], object]) -> float:
    """Seconds for one call of fn, the garbage collector off."""
    with gc_off():
        t0 = time.perf_counter_ns()
        fn()
        return (time.perf_counter_ns() - t0) / 1e9


def times_once(fn: Callable[[], object]) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the whole process, every thread) of one call of fn, the garbage collector
    off. On a machine that other work loads, the CPU time of a long call (a compilation) varies far less than
    its wall time, which counts the time others ran."""
    with gc_off():
        c0, t0 = time.process_time_ns(), time.perf_counter_ns()
        fn()
        t1, c1 = time.perf_counter_ns(), time.process_time_ns()
        return (t1 - t0) / 1e9, (c1 - c0) / 1e9


# --- formatting and the machine ----------------------------------------------------------------------


def fmt_time(seconds: float | None) -> str:
    if seconds is None:
        return "n/a"
    if seconds < 1e-6:
        return f"{seconds * 1e9:.0f} ns"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.2f} µs"
    if seconds < 1:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds:.2f} s"


def fmt_stats(s: Stats) -> str:
    """'median (min–max)' with one unit chosen for the median."""
    if not s.ok:
        return "n/a"
    return f"{fmt_time(s.median)} ({fmt_time(s.min)}–{fmt_time(s.max)})"


def fmt_ratio(a: Stats, b: Stats) -> str:
    """Ratio of medians, a / b."""
    if not (a.ok and b.ok) or b.median == 0:
        return "n/a"
    return f"{a.median / b.median:.2f}x"


def git_commit() -> str:
    """The short commit, with '+ uncommitted changes' when the working tree differs from it."""
    try:
        commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(REPO), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return commit + (" (+ uncommitted changes in the working tree)" if dirty else "")


def cpu_model() -> str:
    cpu = platform.processor() or "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return cpu


def load_average() -> str | None:
    if not hasattr(os, "getloadavg"):
        return None
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


def machine_info(*, extra_versions: dict[str, str | None] | None = None, commit: str | None = None) -> list[str]:
    """Markdown bullet lines: date, commit (`commit`, else the checkout's now), CPU, Python/NumPy (and any extra
    library versions), load."""
    import numpy as np

    info = [
        f"- Date: {datetime.datetime.now(datetime.UTC).strftime('%Y-%m-%d %H:%M UTC')}",
        f"- stridex commit: {commit or git_commit()}",
        f"- Machine: {cpu_model()}, {os.cpu_count()} logical CPUs, {platform.system()} {platform.machine()}",
        f"- Python {platform.python_version()}, NumPy {np.__version__}",
    ]
    load = load_average()
    if load is not None:
        info.append(f"- Load average (1, 5, 15 min) when the report was written: {load}")
    for name, version in (extra_versions or {}).items():
        info.append(f"- {name} {version}" if version else f"- {name}: not installed")
    blas = {k: os.environ[k] for k in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "OMP_NUM_THREADS") if k in os.environ}
    if blas:
        info.append(f"- Environment: {', '.join(f'{k}={v}' for k, v in blas.items())}")
    return info


def version_of(module: str) -> str | None:
    try:
        mod = __import__(module)
    except ImportError:
        return None
    return getattr(mod, "__version__", "unknown")


@dataclass
class Progress:
    """One line per finished case: a counter, the time so far and an ETA. The ETA scales the remaining
    cases' estimated weights by how long the finished ones took against their estimates."""

    weights: list[float]
    out: Callable[[str], None] = field(default=lambda line: print(line, flush=True))
    done: int = 0
    done_weight: float = 0.0
    start: float = field(default_factory=time.perf_counter)

    def step(self, label: str, seconds: float, detail: str = "") -> None:
        self.done_weight += self.weights[self.done]
        self.done += 1
        elapsed = time.perf_counter() - self.start
        remaining = sum(self.weights[self.done:])
        eta = elapsed / self.done_weight * remaining if self.done_weight > 0 else 0.0
        n = len(self.weights)
        width = len(str(n))
        self.out(f"[{self.done:{width}d}/{n}] {_clock(elapsed)} elapsed, ETA {_clock(eta)}  "
                 f"{label} ({seconds:.1f} s){'  ' + detail if detail else ''}")


def _clock(seconds: float) -> str:
    seconds = round(seconds)
    return f"{seconds // 60}:{seconds % 60:02d}"
