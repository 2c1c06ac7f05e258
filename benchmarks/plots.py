"""The PNG plots of `python -m benchmarks.report` (matplotlib, Agg backend; imported only when plotting)."""

from __future__ import annotations

from pathlib import Path

from benchmarks.common import Stats

COLORS = {
    "NumPy": "tab:blue",
    "stridex": "tab:orange",
    "array-api-strict": "tab:green",
    "jax.numpy": "tab:red",
    "jax.jit": "tab:red",
    "sx.jit": "tab:purple",
}
MARKERS = {"NumPy": "o", "stridex": "s", "jax.jit": "^", "sx.jit": "D"}


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _unit(seconds: float) -> tuple[float, str]:
    for scale, name in ((1e9, "ns"), (1e6, "µs"), (1e3, "ms")):
        if seconds * scale < 1000:
            return scale, name
    return 1.0, "s"


def grouped_bars(ax, groups: list[str], series: dict[str, list[Stats]], *, log: bool = True, scale: float = 1.0):
    """Bars of medians with min–max error bars; one group per label, one bar per series."""
    n = len(series)
    width = 0.8 / max(n, 1)
    for k, (name, stats) in enumerate(series.items()):
        xs, ys, lo, hi = [], [], [], []
        for i, s in enumerate(stats):
            if s is None or not s.ok:
                continue
            xs.append(i + (k - (n - 1) / 2) * width)
            ys.append(s.median * scale)
            lo.append((s.median - s.min) * scale)
            hi.append((s.max - s.median) * scale)
        ax.bar(xs, ys, width, yerr=[lo, hi], capsize=2, label=name, color=COLORS.get(name), error_kw={"lw": 0.8})
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels(groups, rotation=20, ha="right")
    if log:
        ax.set_yscale("log")
    ax.grid(axis="y", which="both", alpha=0.3)


def eager_overhead(path: Path, cases: list[str], results: dict[str, dict[str, Stats]], libs: list[str], note: str):
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(9, 4.8))
    series = {lib: [results.get(case, {}).get(lib) for case in cases] for lib in libs}
    grouped_bars(ax, cases, series, scale=1e6)
    ax.set_ylabel("time per call (µs, log scale)")
    ax.set_title("Eager overhead on one-element inputs (median, min–max bars)")
    ax.legend(fontsize=8)
    fig.text(0.01, 0.01, note, fontsize=7, alpha=0.7)
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    fig.savefig(path, dpi=110)
    plt.close(fig)


def size_sweep(path: Path, sizes: list[int], results: dict[str, dict[str, list[Stats]]],
               ratios: list[tuple[str, str]], title: str, note: str):
    """Top row: time against size (log–log) per program, min–max bands; bottom row: ratios of medians."""
    plt = _pyplot()
    programs = list(results)
    fig, axes = plt.subplots(2, len(programs), figsize=(5.2 * len(programs), 7.5), squeeze=False,
                             gridspec_kw={"height_ratios": [2, 1]})
    for col, program in enumerate(programs):
        ax, rax = axes[0][col], axes[1][col]
        for name, stats in results[program].items():
            pts = [(n, s) for n, s in zip(sizes, stats) if s is not None and s.ok]
            if not pts:
                continue
            ns = [n for n, _ in pts]
            style = "--" if "jit" in name else "-"
            ax.plot(ns, [s.median for _, s in pts], style, marker=MARKERS.get(name, "o"), ms=4,
                    color=COLORS.get(name), label=name)
            ax.fill_between(ns, [s.min for _, s in pts], [s.max for _, s in pts], color=COLORS.get(name),
                            alpha=0.15, lw=0)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(program)
        ax.set_ylabel("time per call (s)")
        ax.grid(which="both", alpha=0.3)
        ax.legend(fontsize=8)
        for a, b in ratios:
            sa, sb = results[program].get(a), results[program].get(b)
            if sa is None or sb is None:
                continue
            pts = [(n, x.median / y.median) for n, x, y in zip(sizes, sa, sb) if x and y and x.ok and y.ok]
            if pts:
                rax.plot([n for n, _ in pts], [r for _, r in pts], marker=MARKERS.get(a, "o"), ms=4,
                         color=COLORS.get(a), label=f"{a} / {b}")
        rax.axhline(1.0, color="gray", lw=0.8)
        rax.set_xscale("log")
        rax.set_yscale("log")
        rax.set_xlabel("elements (float64)")
        rax.set_ylabel("ratio of medians")
        rax.grid(which="both", alpha=0.3)
        rax.legend(fontsize=8)
    fig.suptitle(title)
    fig.text(0.01, 0.005, note, fontsize=7, alpha=0.7)
    fig.tight_layout(rect=(0, 0.02, 1, 1))
    fig.savefig(path, dpi=110)
    plt.close(fig)


def jit_calls(path: Path, results: dict[str, dict[str, dict[str, Stats]]], libs: list[str], note: str, title: str):
    """One panel per kind of call (steady state, first call), groups by input size."""
    plt = _pyplot()
    kinds = list(results)
    fig, axes = plt.subplots(1, len(kinds), figsize=(5 * len(kinds), 4.5), squeeze=False)
    for ax, kind in zip(axes[0], kinds):
        sizes = list(results[kind])
        series = {lib: [results[kind][size].get(lib) for size in sizes] for lib in libs}
        meds = [s.median for ss in series.values() for s in ss if s is not None and s.ok]
        scale, unit = _unit(max(meds) if meds else 1.0)
        log = bool(meds) and max(meds) > 20 * min(meds)  # log scale only where the bars span decades
        grouped_bars(ax, sizes, series, log=log, scale=scale)
        ax.set_ylabel(f"time ({unit}{', log scale' if log else ''})")
        ax.set_title(kind)
        ax.legend(fontsize=8)
    fig.suptitle(title)
    fig.text(0.01, 0.01, note, fontsize=7, alpha=0.7)
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    fig.savefig(path, dpi=110)
    plt.close(fig)


def memory(path: Path, rows: dict[str, dict[str, float]], note: str, title: str):
    """Grouped bars (MB) per measure, one bar per library, each labelled with its value."""
    plt = _pyplot()
    libs = list(rows)
    measures = list(next(iter(rows.values()))) if rows else []
    fig, ax = plt.subplots(figsize=(9, 4.5))
    width = 0.8 / max(len(libs), 1)
    for k, lib in enumerate(libs):
        xs = [i + (k - (len(libs) - 1) / 2) * width for i in range(len(measures))]
        ys = [rows[lib][m] / 1e6 for m in measures]
        bars = ax.bar(xs, ys, width, label=lib, color=COLORS.get(lib))
        for bar, y in zip(bars, ys):
            ax.annotate(f"{y:.3g}", (bar.get_x() + bar.get_width() / 2, bar.get_height()), ha="center",
                        va="bottom", fontsize=7)
    ax.set_xticks(range(len(measures)))
    ax.set_xticklabels(measures, fontsize=8)
    ax.set_ylabel("MB (10^6 bytes)")
    ax.set_yscale("symlog", linthresh=0.01)
    ax.set_ylim(0, max((v / 1e6 for r in rows.values() for v in r.values()), default=1) * 4)
    ax.set_title(title)
    ax.legend(fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    fig.text(0.01, 0.01, note, fontsize=7, alpha=0.7)
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    fig.savefig(path, dpi=110)
    plt.close(fig)
