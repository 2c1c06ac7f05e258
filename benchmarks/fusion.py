"""Eager fusion: expression-heavy elementwise programs, eager stridex (fused and op by op) beside NumPy, numexpr,
MLX (its CPU build), `sx.jit` and `jax.jit`, in one process; and the peak memory of Black-Scholes on 10^7
elements, each method in a fresh process.

    python -m benchmarks.fusion [--sizes 3,5,7] [--repeats 5] [--out benchmarks/FUSION_RESULTS.md]
    python -m benchmarks.fusion --memory {numpy,eager,unfused,jit} N   (one probe; prints JSON)

The workloads (float64, inputs stridex-owned arrays, each method computing the same values):
- Black-Scholes, call and put prices with the Abramowitz-Stegun normal CDF: 66 elementwise operations over 3
  inputs, two outputs;
- the 10-op chain: tanh, sqrt, multiply and divide, alternating;
- the 50-step loop `x = x * 0.999 + 0.001 * sin(x)` (200 operations), forced once at the end.

Each is timed at 10^3, 10^5 and 10^7 elements on the host, and on `cpu:1` (a JAX CPU device standing in for a
GPU) for stridex's eager and jit columns. A stridex eager call ends with `sx.eval` (the pending work runs); jit
and MLX calls wait for their results. Timing: `common.measure` (callables sampled in rotating rounds, minimum
reported), so that the machine's load falls on every column alike: the ratios are the result.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

if "--xla_force_host_platform_device_count" not in os.environ.get("XLA_FLAGS", ""):
    os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=4").strip()

import numpy as np

from benchmarks.common import REPO, gc_off, measure

# --- the workloads, written once for any namespace ----------------------------------------------------------

RATE, VOLATILITY = 0.02, 0.30


def black_scholes(xp, S, K, T):
    """European call and put prices: 66 elementwise operations."""
    sqrt_t = xp.sqrt(T)
    d1 = (xp.log(S / K) + (RATE + 0.5 * VOLATILITY * VOLATILITY) * T) / (VOLATILITY * sqrt_t)
    d2 = d1 - VOLATILITY * sqrt_t

    def cdf(d):  # Abramowitz & Stegun 26.2.17
        a1, a2, a3, a4, a5 = 0.31938153, -0.356563782, 1.781477937, -1.821255978, 1.330274429
        magnitude = xp.abs(d)
        k = 1.0 / (1.0 + 0.2316419 * magnitude)
        poly = k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5))))
        w = 1.0 - 0.3989422804014327 * xp.exp(-magnitude * magnitude / 2) * poly
        return xp.where(d < 0, 1.0 - w, w)

    c1, c2 = cdf(d1), cdf(d2)
    discount = K * xp.exp(-RATE * T)
    return S * c1 - discount * c2, discount * (1.0 - c2) - S * (1.0 - c1)


def chain10(xp, x):
    """Ten operations: tanh, sqrt, multiply and divide."""
    y = x
    for _ in range(2):
        y = xp.tanh(y)
        y = xp.sqrt(y * y + 1.0)
        y = y / 1.5
    return y


def loop50(xp, x):
    """50 steps of x = x * 0.999 + 0.001 * sin(x)."""
    for _ in range(50):
        x = x * 0.999 + 0.001 * xp.sin(x)
    return x


WORKLOADS = {"Black-Scholes": (black_scholes, 3), "10-op chain": (chain10, 1), "50-step loop": (loop50, 1)}


# --- numexpr's and MLX's spellings ---------------------------------------------------------------------------


def numexpr_functions():
    try:
        import numexpr as ne
    except ImportError:
        return None

    def cdf(d):
        m = ne.evaluate("abs(d)")
        k = ne.evaluate("1.0 / (1.0 + 0.2316419 * m)")
        w = ne.evaluate("1.0 - 0.3989422804014327 * exp(-m * m / 2) * (k * (0.31938153 + k * (-0.356563782 + k * "
                        "(1.781477937 + k * (-1.821255978 + k * 1.330274429)))))")
        return ne.evaluate("where(d < 0, 1.0 - w, w)")

    def bs(S, K, T):
        d1 = ne.evaluate("(log(S / K) + (0.02 + 0.5 * 0.3 * 0.3) * T) / (0.3 * sqrt(T))")
        d2 = ne.evaluate("d1 - 0.3 * sqrt(T)")
        c1, c2 = cdf(d1), cdf(d2)
        disc = ne.evaluate("K * exp(-0.02 * T)")
        return ne.evaluate("S * c1 - disc * c2"), ne.evaluate("disc * (1.0 - c2) - S * (1.0 - c1)")

    def chain(x):
        return ne.evaluate("sqrt(tanh(sqrt(tanh(x) ** 2 + 1.0) / 1.5) ** 2 + 1.0) / 1.5")

    def loop(x):
        for _ in range(50):
            x = ne.evaluate("x * 0.999 + 0.001 * sin(x)")
        return x

    return {"Black-Scholes": bs, "10-op chain": chain, "50-step loop": loop}


def mlx_namespace():
    try:
        import mlx.core as mx

        mx.set_default_device(mx.cpu)
        probe = mx.array(np.ones(2)) + 1.0  # float64 on the CPU
        mx.eval(probe)
    except Exception:  # noqa: BLE001  (not installed, or no float64 on this build)
        return None
    return mx


# --- the table -----------------------------------------------------------------------------------------------


def inputs(n: int, count: int) -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    if count == 3:  # spot, strike, time
        return [rng.uniform(50.0, 150.0, n), rng.uniform(50.0, 150.0, n), rng.uniform(0.1, 2.0, n)]
    return [rng.uniform(0.1, 2.0, n)]


def row(name: str, n: int, repeats: int, device: str | None) -> dict:
    import jax
    import jax.numpy as jnp

    import stridex as sx

    jax.config.update("jax_enable_x64", True)
    fn, count = WORKLOADS[name]
    host = inputs(n, count)
    place = sx.default_device(device) if device else sx.default_device("cpu")
    with place:
        arrays = [sx.asarray(a, copy=True) for a in host]
    jitted = sx.jit(lambda *a: fn(sx, *a))
    jax_jitted = jax.jit(lambda *a: fn(jnp, *a))
    jax_args = [jnp.asarray(a) for a in host]

    def eager():
        out = fn(sx, *arrays)
        sx.eval(out)  # (the pending work runs; on a device its executable is dispatched: wait for it too)
        for o in out if isinstance(out, tuple) else (out,):
            o.block_until_ready()
        return out

    def unfused():
        with sx.fusion(False):
            out = fn(sx, *arrays)
        for o in out if isinstance(out, tuple) else (out,):
            o.block_until_ready()
        return out

    def sx_jit():
        out = jitted(*arrays)
        for o in out if isinstance(out, tuple) else (out,):
            o.block_until_ready()
        return out

    fns = {"NumPy": lambda: fn(np, *host), "stridex eager": eager, "stridex op by op": unfused, "sx.jit": sx_jit}
    if device is None:
        fns["jax.jit"] = lambda: jax.block_until_ready(jax_jitted(*jax_args))
        ne = numexpr_functions()
        if ne is not None:
            fns["numexpr"] = lambda: ne[name](*host)
        mx = mlx_namespace()
        if mx is not None:
            mx_args = [mx.array(a) for a in host]
            compiled = mx.compile(lambda *a: fn(mx, *a))
            fns["MLX"] = lambda: mx.eval(fn(mx, *mx_args))
            fns["mx.compile"] = lambda: mx.eval(compiled(*mx_args))
    # the values agree bit for bit: fused and op by op on the host; on a device fused and sx.jit (one XLA
    # program each), which differ from the op-by-op device values in the last bits (see docs/fusion.md)
    a, b = eager(), (unfused() if device is None else sx_jit())
    for x, y in zip(a if isinstance(a, tuple) else (a,), b if isinstance(b, tuple) else (b,)):
        assert np.array_equal(np.asarray(x), np.asarray(y)), f"{name}: fused values differ from the reference"
    target = 0.05 if n < 10**6 else 0.2
    stats = measure(fns, repeats=repeats if n < 10**7 else max(3, repeats // 2), target_s=target, budget_s=60)
    times = {k: (v.min if v.ok else None) for k, v in stats.items()}
    from stridex._exec import fusion
    from stridex._exec.fusion import limits

    if device is None and n >= limits.DEFER_MIN_ELEMENTS:  # (below it nothing defers: no pass)
        times["pass alone"] = pass_alone(lambda: fn(sx, *arrays), repeats)
    return times


def pass_alone(record, repeats: int) -> float:
    """The host pass without the recording: the minimum time of `sx.eval` on work recorded beforehand (NumPy's
    kernels, one call per record and block, and the pass's own bookkeeping)."""
    import stridex as sx

    best = float("inf")
    with gc_off():
        for _ in range(max(10, 4 * repeats)):
            out = record()
            start = time.perf_counter()
            sx.eval(out)
            best = min(best, time.perf_counter() - start)
            del out
    return best


def crossover(repeats: int) -> list:
    """Where deferral starts to pay on the host: the 10-op chain and Black-Scholes timed fused (every operation
    deferred: the threshold set to 1) and op by op, side by side, at sizes around the threshold."""
    import stridex as sx
    from stridex._exec import fusion
    from stridex._exec.fusion import limits

    out = []
    saved = limits.DEFER_MIN_ELEMENTS
    try:
        for n in (4096, 8192, 16384, 32768, 65536, 131072, 262144, 524288, 1048576):
            for name in ("10-op chain", "Black-Scholes"):
                fn, count = WORKLOADS[name]
                arrays = [sx.asarray(a, copy=True) for a in inputs(n, count)]

                def fused():
                    limits.DEFER_MIN_ELEMENTS = 1
                    o = fn(sx, *arrays)
                    sx.eval(o)

                def op_by_op():
                    limits.DEFER_MIN_ELEMENTS = 1 << 62
                    fn(sx, *arrays)

                stats = measure({"fused": fused, "op by op": op_by_op}, repeats=repeats, target_s=0.02)
                out.append((name, n, stats["fused"].min / stats["op by op"].min))
                print(out[-1], flush=True)
    finally:
        limits.DEFER_MIN_ELEMENTS = saved
    return out


def memory_probe(method: str, n: int) -> dict:
    """Peak resident memory above the inputs while Black-Scholes runs once (after a warm-up call)."""
    import stridex as sx

    host = inputs(n, 3)
    arrays = [sx.asarray(a, copy=True) for a in host]
    jitted = sx.jit(lambda *a: black_scholes(sx, *a))

    def run():
        if method == "numpy":
            return black_scholes(np, *host)
        if method == "eager":
            out = black_scholes(sx, *arrays)
            sx.eval(out)
            return out
        if method == "unfused":
            with sx.fusion(False):
                return black_scholes(sx, *arrays)
        out = jitted(*arrays)
        for o in out:
            o.block_until_ready()
        return out

    if method == "jit":
        # JAX keeps the memory of freed buffers in its allocator, so a second call's peak is invisible to the
        # process's resident size: the first call is measured, compilation included (an upper bound).
        base = _rss_kib()
        _reset_peak()
        out = run()
        return {"method": method, "n": n, "peak_above_inputs_mib": (_peak_kib() - base) / 1024}
    out = run()
    del out
    base = _rss_kib()
    _reset_peak()
    out = run()
    peak = _peak_kib()
    return {"method": method, "n": n, "peak_above_inputs_mib": (peak - base) / 1024}


def _rss_kib() -> int:
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS"))


def _peak_kib() -> int:
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmHWM"))


def _reset_peak() -> None:
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")


def memory_table(n: int) -> dict:
    out = {}
    for method in ("numpy", "unfused", "eager", "jit"):
        result = subprocess.run([sys.executable, "-m", "benchmarks.fusion", "--memory", method, str(n)],
                                capture_output=True, text=True, cwd=REPO, check=False,
                                env={**os.environ, "PYTHONPATH": str(REPO)})
        try:
            out[method] = json.loads(result.stdout.strip().splitlines()[-1])["peak_above_inputs_mib"]
        except (IndexError, ValueError, KeyError):
            out[method] = None
    return out


COLUMNS = ["NumPy", "stridex eager", "stridex op by op", "pass alone", "sx.jit", "jax.jit", "numexpr", "MLX",
           "mx.compile"]

# The targets (#32): (workload, n, where, what, limit); `what` is "jit" (eager / sx.jit <= limit) or
# "numpy" (eager / NumPy <= limit).
TARGETS = [("Black-Scholes", 10**5, "host", "jit", 1.5), ("Black-Scholes", 10**7, "host", "jit", 1.5),
           ("Black-Scholes", 10**7, "host", "numpy", 0.5), ("10-op chain", 10**5, "host", "jit", 1.5),
           ("10-op chain", 10**7, "host", "jit", 1.5), ("50-step loop", 10**5, "host", "jit", 2.0),
           ("50-step loop", 10**7, "host", "jit", 2.0), ("Black-Scholes", 10**5, "device", "jit", 1.5),
           ("10-op chain", 10**5, "device", "jit", 1.5), ("50-step loop", 10**5, "device", "jit", 1.5),
           ("Black-Scholes", 10**3, "device", "numpy", 4.0)]


def targets_table(rows: list, memory: dict | None) -> list:
    """The issue's targets against this run's ratios, one line each (met or not)."""
    lines = ["", "Against the issue's targets (this run's ratios; the device is the one the rows name):", "",
             "| target | measured | |", "|---|---:|---|"]
    for name, n, where, what, limit in TARGETS:
        for row_name, row_n, row_where, t in rows:
            if row_name != name or row_n != n or (row_where == "host") != (where == "host"):
                continue
            eager, ref = t.get("stridex eager"), t.get("sx.jit" if what == "jit" else "NumPy")
            if not eager or not ref:
                continue
            ratio = eager / ref
            label = f"{row_where}, {name} 10^{round(np.log10(n))}: eager / {'sx.jit' if what == 'jit' else 'NumPy'}" \
                    f" <= {limit:g}"
            lines.append(f"| {label} | {ratio:.2f}x | {'met' if ratio <= limit else '**not met**'} |")
    if memory and memory.get("eager") is not None and memory.get("jit") is not None:
        ratio = memory["eager"] / memory["jit"]
        lines.append(f"| peak memory, Black-Scholes 10^7: eager / sx.jit (its first call) <= 1.5 | {ratio:.2f}x | "
                     f"{'met' if ratio <= 1.5 else '**not met**'} |")
    return lines


def render(rows: list, memory: dict | None, seconds: float) -> str:
    lines = ["# Eager fusion: results", "",
             f"Generated by `python -m benchmarks.fusion` ({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
             f"{seconds:.0f} s, {os.cpu_count()} cores). Float64; times are the minimum over rotating rounds, as "
             "multiples of NumPy's time in the same run (the NumPy column gives its time): read the ratios, measured "
             "side by side, not the absolute times. 'pass alone' is the fused pass without the recording (`sx.eval` "
             "of work recorded beforehand: NumPy's kernels, one call per record and block, and the pass's "
             "bookkeeping), on the host.",
             "", "| workload | n | where | " + " | ".join(COLUMNS) + " | eager / sx.jit |",
             "|---|---:|---|" + "---:|" * (len(COLUMNS) + 1)]
    for name, n, where, t in rows:
        base = t["NumPy"]
        cells = []
        for c in COLUMNS:
            v = t.get(c)
            if v is None:
                cells.append("")
            elif c == "NumPy":
                cells.append(f"{v * 1e3:.3g} ms")
            else:
                cells.append(f"{v / base:.2f}x")
        ej = (f"**{t['stridex eager'] / t['sx.jit']:.2f}x**" if t.get("stridex eager") and t.get("sx.jit") else "")
        lines.append(f"| {name} | 10^{round(np.log10(n))} | {where} | " + " | ".join(cells) + f" | {ej} |")
    if memory:
        lines += ["", f"Peak memory above the inputs, Black-Scholes on {memory['n']:.0e} elements (a fresh process "
                  "per method, after one warm-up call; VmHWM):", "",
                  "| NumPy | stridex op by op | stridex eager (fused) | sx.jit (first call, compilation included) |",
                  "|---:|---:|---:|---:|",
                  "| " + " | ".join(f"{memory[m]:.0f} MiB" if memory.get(m) is not None else "n/a"
                                    for m in ("numpy", "unfused", "eager", "jit")) + " |"]
    lines += targets_table(rows, memory)
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="3,5,7")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--device", default="cpu:1")
    parser.add_argument("--out", default=None)
    parser.add_argument("--memory", nargs=2, metavar=("METHOD", "N"))
    parser.add_argument("--no-memory", action="store_true")
    parser.add_argument("--crossover", action="store_true", help="only measure the deferral threshold")
    parser.add_argument("--device-only", action="store_true", help="only the device rows")
    parser.add_argument("--memory-only", action="store_true", help="only the peak-memory table")
    args = parser.parse_args(argv)
    if args.memory:
        print(json.dumps(memory_probe(args.memory[0], int(args.memory[1]))))
        return 0
    if args.crossover:
        rows = crossover(args.repeats)
        print("| workload | n | fused / op by op |\n|---|---:|---:|")
        for name, n, ratio in rows:
            print(f"| {name} | {n} | {ratio:.2f}x |")
        return 0
    t0 = time.time()
    if args.memory_only:
        memory = memory_table(10**7)
        memory["n"] = 10**7
        print(render([], memory, time.time() - t0))
        return 0
    rows = []
    for name in WORKLOADS:
        for exponent in (int(e) for e in args.sizes.split(",")):
            n = 10**exponent
            if not args.device_only:
                rows.append((name, n, "host", row(name, n, args.repeats, None)))
                print(rows[-1], flush=True)
            if n <= 10**5 and args.device:
                rows.append((name, n, args.device, row(name, n, args.repeats, args.device)))
                print(rows[-1], flush=True)
    memory = None
    if not args.no_memory:
        memory = memory_table(10**7)
        memory["n"] = 10**7
    text = render(rows, memory, time.time() - t0)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
