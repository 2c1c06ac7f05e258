"""Calls that take a new Python scalar every time: stridex against JAX eager and `jax.jit`, side by side in one run.

    python -m benchmarks.scalars [--quick] [--device cpu:1] [--output benchmarks/SCALARS_RESULTS.md]

The cases of issue 39 (an index, a written value, a fill value, a scalar operand): in `stridex.jit_mode` each
once compiled a program per value and kept it. Every call of every case here takes a scalar it has not taken
before (a counter), after two warm-up calls, so a case that compiled per value shows its compile time. The target
is 0.3 ms per call. The memory part runs each case 10,000 times with distinct scalars and reports the growth of
the process's resident memory (target: 50 MiB) and the programs compiled (`sx.cache_stats()`).
"""

from __future__ import annotations

import argparse
import datetime
import itertools
import os
import platform
import resource
from pathlib import Path

if "--xla_force_host_platform_device_count" not in os.environ.get("XLA_FLAGS", ""):  # (before JAX is imported)
    os.environ["XLA_FLAGS"] = f"{os.environ.get('XLA_FLAGS', '')} --xla_force_host_platform_device_count=2".strip()

import numpy as np

from benchmarks.common import measure

HERE = Path(__file__).resolve().parent
TARGET_S = 0.3e-3


def rss_mib() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize() / 2**20


def cases(device: str):
    """name -> (stridex call, JAX eager call, jax.jit call or None), each taking a counter value `k`."""
    import jax
    import jax.numpy as jnp

    import stridex as sx
    import stridex.jit_mode as xp

    base = np.linspace(0.0, 1.0, 10)
    a = xp.asarray(base, copy=True)
    held = {"eager": jnp.asarray(base), "jit": jnp.asarray(base)}
    jd = jax.devices("cpu")[int(device.partition(":")[2] or 0)] if device.startswith("cpu") else jax.devices()[0]
    set_at = jax.jit(lambda x, i, v: x.at[i].set(v))
    take = jax.jit(lambda x, i: x[i])
    window = jax.jit(lambda x, i: jax.lax.dynamic_slice(x, (i,), (3,)))
    fill = jax.jit(lambda v: jnp.full(5, v))
    masked = jax.jit(lambda x, v: jnp.where(x > 0.5, v, x))
    add = jax.jit(lambda x, v: x + v)

    def sx_set(k):
        a[k % 10] = float(k)

    def sx_mask(k):
        a[a > 0.5] = float(k)

    def jax_set(k):
        held["eager"] = held["eager"].at[k % 10].set(float(k)).block_until_ready()

    def jit_set(k):
        held["jit"] = set_at(held["jit"], k % 10, float(k)).block_until_ready()

    def jax_mask(k):
        x = held["eager"]
        held["eager"] = x.at[x > 0.5].set(float(k)).block_until_ready()

    def jit_mask(k):
        held["jit"] = masked(held["jit"], float(k)).block_until_ready()

    aj = jnp.asarray(base)
    return {
        "`a[i] = v`": (sx_set, jax_set, jit_set),
        "`a[i]`": (lambda k: a[k % 10 - 5], lambda k: aj[k % 10 - 5].block_until_ready(),
                   lambda k: take(aj, k % 10 - 5).block_until_ready()),
        "`a[i:i+3]`": (lambda k: a[k % 7:k % 7 + 3], lambda k: aj[k % 7:k % 7 + 3].block_until_ready(),
                       lambda k: window(aj, k % 7).block_until_ready()),
        "`full(5, v)`": (lambda k: xp.full(5, float(k)), lambda k: jnp.full(5, float(k)).block_until_ready(),
                         lambda k: fill(float(k)).block_until_ready()),
        "`a[a > 0.5] = v`": (sx_mask, jax_mask, jit_mask),
        "`a + v`": (lambda k: a + float(k), lambda k: (aj + float(k)).block_until_ready(),
                    lambda k: add(aj, float(k)).block_until_ready()),
        f"eager on a device: `sx.full(5, v, device={device!r})`":
            (lambda k: sx.full(5, float(k), device=device).block_until_ready(),
             lambda k: jnp.full(5, float(k), device=jd).block_until_ready(), None),
    }


def counted(fn):
    """`fn` called with a new counter value on every call."""
    counter = itertools.count(2)
    return lambda: fn(next(counter))


def run(quick: bool, device: str) -> list[tuple]:
    import jax

    import stridex as sx

    rows = []
    with jax.enable_x64(True):
        for name, fns in cases(device).items():
            named = {"stridex": fns[0], "JAX eager": fns[1]}
            if fns[2] is not None:
                named["jax.jit"] = fns[2]
            for fn in named.values():  # the first two calls: tracing and compiling are theirs
                fn(0)
                fn(1)
            before = sum(s.compiles for s in sx.cache_stats().values())
            stats = measure({k: counted(fn) for k, fn in named.items()}, repeats=3 if quick else 15,
                            target_s=0.002 if quick else 0.01)
            compiled = sum(s.compiles for s in sx.cache_stats().values()) - before
            rows.append((name, stats["stridex"].min, stats["JAX eager"].min,
                         stats["jax.jit"].min if "jax.jit" in stats else None, compiled))
    return rows


def memory(calls: int, device: str) -> list[tuple]:
    """(case, RSS growth in MiB over `calls` distinct-scalar calls, programs compiled) for each stridex case."""
    import jax

    import stridex as sx

    rows = []
    with jax.enable_x64(True):
        for name, fns in cases(device).items():
            fn = fns[0]
            for k in range(100):
                fn(k)
            before, compiled = rss_mib(), sum(s.compiles for s in sx.cache_stats().values())
            for k in range(100, 100 + calls):
                fn(k)
            rows.append((name, rss_mib() - before, sum(s.compiles for s in sx.cache_stats().values()) - compiled))
    return rows


def fmt(seconds: float | None) -> str:
    return "" if seconds is None else f"{seconds * 1e3:.3f} ms"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--device", default="cpu:1", help="the JAX device of the last case (default cpu:1)")
    parser.add_argument("--output", default=str(HERE / "SCALARS_RESULTS.md"))
    args = parser.parse_args(argv)
    import jax

    rows = run(args.quick, args.device)
    lines = ["| call, a new Python scalar every time | stridex | JAX eager | `jax.jit` | stridex / target 0.3 ms "
             "| programs compiled while timed |", "|---|---:|---:|---:|---:|---:|"]
    for name, s, eager, jitted, compiled in rows:
        lines.append(f"| {name} | {fmt(s)} | {fmt(eager)} | {fmt(jitted)} | {s / TARGET_S:.2f} | {compiled} |")
    calls = 1000 if args.quick else 10_000
    mem = memory(calls, args.device)
    lines += ["", f"| {calls:,} calls with distinct scalars, stridex | RSS growth | programs compiled |",
              "|---|---:|---:|"]
    lines += [f"| {name} | {growth:.1f} MiB | {compiled} |" for name, growth, compiled in mem]
    load = os.getloadavg()
    header = (f"# Calls with a new Python scalar every time\n\nMeasured {datetime.date.today()} on "
              f"{platform.machine()}, Python {platform.python_version()}, JAX {jax.__version__}, NumPy "
              f"{np.__version__}, load average {load[0]:.1f} (a shared machine: the three columns are measured in "
              "turn, so that a slow spell falls on all alike); minimum per call, every call with a scalar not "
              f"seen before.{' Quick mode: not for quoting.' if args.quick else ''}\n\n")
    text = header + "\n".join(lines) + "\n"
    print(text)
    Path(args.output).write_text(text)


if __name__ == "__main__":
    main()
