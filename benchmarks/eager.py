"""Eager-mode benchmarks: stridex against NumPy (and array-api-strict when installed), side by side in one run.

    python -m benchmarks.eager [--quick] [--output benchmarks/RESULTS.md]

Each case is timed with `timeit` (the loop count chosen so one repeat takes at least 20 ms, then 7 repeats,
interleaved across the libraries so that changes in the machine's load hit them alike);
the table gives the per-call minimum and median, and the ratio of minimums against NumPy. A case a
library cannot run yet (a function not written, say) is reported as n/a with the reason.
"""

from __future__ import annotations

import argparse
import compileall
import os
import statistics
import subprocess
import sys
import timeit
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from benchmarks import common
from benchmarks.common import fmt_time

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
DEFAULT_OUTPUT = HERE / "RESULTS.md"


def libraries() -> dict[str, object]:
    import stridex

    libs = {"stridex": stridex, "numpy": np}
    try:
        import array_api_strict
    except ImportError:
        pass
    else:
        libs["array-api-strict"] = array_api_strict
    return libs


# --- the cases -----------------------------------------------------------------------------------
# Each case maps a namespace `xp` to a zero-argument callable; inputs are built once, outside the timing.


def _inputs(xp, *arrays):
    return [xp.asarray(a) for a in arrays]


def one_element_add(xp):
    x, y = _inputs(xp, np.ones(1), np.ones(1))
    return lambda: x + y


def one_element_sum(xp):
    (x,) = _inputs(xp, np.ones(1))
    return lambda: xp.sum(x)


def ten_op_chain(xp):
    x, y = _inputs(xp, np.full(1, 1.5), np.full(1, 0.5))

    def chain():
        z = x + y
        z = z * x
        z = z - y
        z = z / x
        z = z + 1.0
        z = z * z
        z = z - x
        z = z + y
        z = z * 0.5
        return z - 1.0

    return chain


def _matrix(xp):
    (x,) = _inputs(xp, np.arange(1_000_000, dtype=np.float64).reshape(1000, 1000))
    return x


def view_strided_slice(xp):
    x = _matrix(xp)
    return lambda: x[::2, 1:]


def view_transpose(xp):
    x = _matrix(xp)
    return lambda: x.T


def view_reshape_flat(xp):
    x = _matrix(xp)
    return lambda: xp.reshape(x, (-1,))


def view_row(xp):
    x = _matrix(xp)
    return lambda: x[3, :]


def _big(xp):
    rng = np.random.default_rng(0)
    return _inputs(xp, rng.random(1_000_000), rng.random(1_000_000))


def big_add(xp):
    x, y = _big(xp)
    return lambda: xp.add(x, y)


def big_multiply(xp):
    x, y = _big(xp)
    return lambda: xp.multiply(x, y)


def big_exp(xp):
    x, _ = _big(xp)
    return lambda: xp.exp(x)


def big_sum(xp):
    x, _ = _big(xp)
    return lambda: xp.sum(x)


def big_max(xp):
    x, _ = _big(xp)
    return lambda: xp.max(x)


CASES = [
    ("dispatch", "x + y, one element", one_element_add),
    ("dispatch", "sum(x), one element", one_element_sum),
    ("dispatch", "10-op chain, one element", ten_op_chain),
    ("views (1000x1000 float64)", "x[::2, 1:]", view_strided_slice),
    ("views (1000x1000 float64)", "x.T", view_transpose),
    ("views (1000x1000 float64)", "reshape(x, (-1,))", view_reshape_flat),
    ("views (1000x1000 float64)", "x[3, :]", view_row),
    ("bandwidth (10^6 float64)", "add(x, y)", big_add),
    ("bandwidth (10^6 float64)", "multiply(x, y)", big_multiply),
    ("bandwidth (10^6 float64)", "exp(x)", big_exp),
    ("bandwidth (10^6 float64)", "sum(x)", big_sum),
    ("bandwidth (10^6 float64)", "max(x)", big_max),
]


# --- timing --------------------------------------------------------------------------------------


@dataclass
class Timing:
    best: float | None  # seconds per call
    median: float | None
    reason: str | None = None  # why n/a


def loop_count(timer: timeit.Timer, target: float) -> int:
    """Calls per repeat so that one repeat takes at least `target` seconds (like Timer.autorange)."""
    number = 1
    while timer.timeit(number) < target and number < 10**7:
        number *= 4
    return number


def time_row(make, libs: dict, repeat: int, target: float) -> dict[str, Timing]:
    """Time one case for every library, the repeats interleaved (a, b, c, a, b, c, ...) so that a change
    in the machine's load during the run affects every library alike."""
    row, timers = {}, {}
    for name, xp in libs.items():
        try:
            fn = make(xp)
            fn()
        except Exception as e:  # noqa: BLE001  (a function not written yet, or refusing these inputs: n/a)
            row[name] = Timing(None, None, f"{type(e).__name__}: {str(e).splitlines()[0][:100] if str(e) else ''}")
            continue
        timer = timeit.Timer(fn)
        timers[name] = (timer, loop_count(timer, target))
    runs = {name: [] for name in timers}
    for _ in range(repeat):
        for name, (timer, number) in timers.items():
            runs[name].append(timer.timeit(number) / number)
    for name, r in runs.items():
        row[name] = Timing(min(r), statistics.median(r))
    return {name: row[name] for name in libs}


def import_times(modules: tuple, runs: int) -> dict[str, float]:
    """Median seconds of `import module` in fresh interpreters (start-up excluded), the runs interleaved.

    stridex's bytecode is compiled first, as `pip install` does for an installed package: without it (an
    editable install under PYTHONDONTWRITEBYTECODE=1, as on these machines) every import compiles the
    package's source again, some 250 ms, which is not what a user's `import stridex` costs."""
    compileall.compile_dir(str(REPO / "stridex"), quiet=1)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    times = {module: [] for module in modules}
    for _ in range(runs):
        for module in modules:
            code = f"import time; t = time.perf_counter(); import {module}; print(time.perf_counter() - t)"
            out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
            times[module].append(float(out.stdout))
    return {module: statistics.median(t) for module, t in times.items()}


# --- reporting -----------------------------------------------------------------------------------


def fmt_ratio(t: Timing, base: Timing) -> str:
    if t.best is None or base.best is None:
        return "n/a"
    return f"{t.best / base.best:.2f}x"


def machine_info() -> list[str]:
    return common.machine_info(extra_versions={"array-api-strict": common.version_of("array_api_strict")})


def render(results: dict, libs: list[str], imports: dict[str, float], repeat: int, target: float) -> str:
    others = [name for name in libs if name not in ("stridex", "numpy")]
    head = ["case", "stridex min (median)", "NumPy min (median)", "stridex / NumPy"]
    for name in others:
        head += [f"{name} min (median)", f"stridex / {name}"]
    lines = ["# Eager benchmarks", "",
             "Written by `python -m benchmarks.eager`; all numbers are from one run on the machine below.", "",
             *machine_info(), "",
             (f"Per-call times from `timeit`: {repeat} repeats of a loop sized to take at least "
              f"{target * 1e3:.0f} ms, interleaved across the libraries; the ratio is of the minimums (lower is better for stridex). Targets: "
              "one-element `x + y` at most 4x NumPy; views O(1); 10^6-element operations at NumPy's speed "
              "(the memory-bandwidth limit)."), ""]
    notes = []
    group = None
    for group_name, label, _ in CASES:
        if group_name != group:
            group = group_name
            lines += ["", f"## {group}", "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        row = results[label]
        cells = [f"`{label}`"]
        for name in ["stridex", "numpy"] + others:
            t = row[name]
            cells.append(f"{fmt_time(t.best)} ({fmt_time(t.median)})" if t.best is not None else "n/a")
            if t.reason:
                notes.append(f"- {name}, `{label}`: n/a ({t.reason})")
            if name == "numpy":
                cells.append(fmt_ratio(row["stridex"], row["numpy"]))
            elif name != "stridex":
                cells.append(fmt_ratio(row["stridex"], t))
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", "## import time", "",
              ("Median of fresh interpreters, interpreter start-up excluded; `import stridex` includes importing "
               "NumPy. Target: NumPy's own import + 50 ms."), "", "| module | time |", "|---|---:|"]
    for module, t in imports.items():
        lines.append(f"| `import {module}` | {t * 1e3:.0f} ms |")
    if {"numpy", "stridex"} <= imports.keys():
        lines.append(f"| `import stridex` beyond NumPy's | {(imports['stridex'] - imports['numpy']) * 1e3:+.0f} ms |")
    if notes:
        lines += ["", "## Not measured", "", *notes]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.eager", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats (a smoke run, not for quoting)")
    parser.add_argument("--output", default=str(DEFAULT_OUTPUT), help="Markdown file to write; 'none' for none")
    args = parser.parse_args(argv)
    repeat, target, import_runs = (3, 0.005, 3) if args.quick else (7, 0.02, 7)
    libs = libraries()
    results = {}
    for group, label, make in CASES:
        row = time_row(make, libs, repeat, target)
        results[label] = row
        print(f"{label:28s} " + "  ".join(f"{name}={fmt_time(t.best)}" for name, t in row.items()), flush=True)
    imports = import_times(("numpy", "stridex"), import_runs)
    for module, t in imports.items():
        print(f"import {module}: {t * 1e3:.0f} ms")
    text = render(results, list(libs), imports, repeat, target)
    if args.output != "none":
        Path(args.output).write_text(text)
        print(f"written to {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
