"""Control-flow benchmarks: stridex's structured loops against JAX's on the same programs, in one run.

    python -m benchmarks.control_flow [--quick] [--output benchmarks/CONTROL_FLOW_RESULTS.md]

Cases (issue 22's targets):
- 300 steps of `h = tanh(W @ h)` with W 16x16, `fori_loop` (stridex `sx.fori_loop`, JAX `lax.fori_loop`):
  first call (trace + lower + compile + run, a fresh function each time) and steady call;
- Newton's iteration for sqrt on 1,000 elements until every element converges, `while_loop`: steady call;
- `jit(grad(...))` of a 50-step `scan` recurrence `h = tanh(W @ h + x)`: steady call;
- the size (lines) of `make_ir`'s printout of the fori_loop program for 10 and 10,000 steps.
Steady calls: samples taken in alternation (`benchmarks.common.measure`), so a slow spell falls on both alike,
reported as median (min–max) with the ratios of the minimums (judged) and of the medians; first calls:
the minimum of a few fresh functions each.
"""

from __future__ import annotations

import argparse
import datetime
import platform
from pathlib import Path

import numpy as np

from benchmarks.common import Stats, block, fmt_stats, fmt_time, git_commit, load_average, measure, time_once

HERE = Path(__file__).resolve().parent


def run(quick: bool = False) -> tuple[list, dict]:
    import jax
    import jax.numpy as jnp
    from jax import lax

    import stridex as sx

    rows = []
    repeats = 10 if quick else 40
    with jax.enable_x64(True):
        rng = np.random.default_rng(0)
        w_np = rng.standard_normal((16, 16)) * 0.3
        h_np = rng.standard_normal(16)
        ws, hs = sx.asarray(w_np), sx.asarray(h_np)
        wj, hj = jnp.asarray(w_np), jnp.asarray(h_np)

        def sx_rnn(w, h):
            return sx.fori_loop(0, 300, lambda i, h: sx.tanh(w @ h), h)

        def jax_rnn(w, h):
            return lax.fori_loop(0, 300, lambda i, h: jnp.tanh(w @ h), h)

        np.testing.assert_allclose(np.asarray(sx.jit(sx_rnn)(ws, hs)), np.asarray(jax.jit(jax_rnn)(wj, hj)),
                                   rtol=1e-12)

        # 1. first call: trace + lower + compile + run, fresh function objects each time
        def first_sx():
            block(sx.jit(lambda w, h: sx_rnn(w, h))(ws, hs))

        def first_jax():
            jax.jit(lambda w, h: jax_rnn(w, h))(wj, hj).block_until_ready()

        reps = 3 if quick else 5
        t_sx = min(time_once(first_sx) for _ in range(reps))
        t_jax = min(time_once(first_jax) for _ in range(reps))
        rows.append(("fori_loop, 300 steps of h = tanh(W @ h), 16x16: first call (trace + lower + compile)", t_sx,
                     t_jax, 1.2))

        # 2. steady call
        f_sx, f_jax = sx.jit(sx_rnn), jax.jit(jax_rnn)
        stats = measure({"sx": lambda: block(f_sx(ws, hs)), "jax": lambda: f_jax(wj, hj).block_until_ready()},
                        repeats=repeats, target_s=0.002)
        rows.append(("fori_loop, 300 steps of h = tanh(W @ h), 16x16: steady call", stats["sx"],
                     stats["jax"], 1.2))

        # 3. Newton's iteration to convergence on 1,000 elements
        a_np = rng.uniform(0.5, 100.0, 1000)
        as_, aj = sx.asarray(a_np), jnp.asarray(a_np)

        def sx_newton(a):
            def body(c):
                x, i = c
                return x - (x * x - a) / (2 * x), i + 1
            return sx.while_loop(lambda c: sx.max(sx.abs(c[0] * c[0] - a)) > 1e-9, body, (a, 0))

        def jax_newton(a):
            def body(c):
                x, i = c
                return x - (x * x - a) / (2 * x), i + 1
            return lax.while_loop(lambda c: jnp.max(jnp.abs(c[0] * c[0] - a)) > 1e-9, body, (a, 0))

        n_sx, n_jax = sx.jit(sx_newton), jax.jit(jax_newton)
        out_sx, out_jax = n_sx(as_), n_jax(aj)
        np.testing.assert_allclose(np.asarray(out_sx[0]), np.asarray(out_jax[0]), rtol=1e-12)
        assert int(out_sx[1]) == int(out_jax[1])
        stats = measure({"sx": lambda: block(n_sx(as_)), "jax": lambda: block(n_jax(aj))},
                        repeats=repeats, target_s=0.002)
        rows.append((f"while_loop, Newton's sqrt to convergence on 1,000 elements ({int(out_sx[1])} iterations): "
                     "steady call", stats["sx"], stats["jax"], 1.2))

        # 4. jit(grad) of a 50-step scan recurrence
        xs_np = rng.standard_normal((50, 16)) * 0.1
        xss, xsj = sx.asarray(xs_np), jnp.asarray(xs_np)

        def sx_loss(w, h, xs):
            h, _ = sx.scan(lambda h, x: (sx.tanh(w @ h + x), None), h, xs)
            return sx.sum(h * h)

        def jax_loss(w, h, xs):
            h, _ = lax.scan(lambda h, x: (jnp.tanh(w @ h + x), None), h, xs)
            return jnp.sum(h * h)

        g_sx, g_jax = sx.jit(sx.grad(sx_loss)), jax.jit(jax.grad(jax_loss))
        np.testing.assert_allclose(np.asarray(g_sx(ws, hs, xss)), np.asarray(g_jax(wj, hj, xsj)), rtol=1e-10)
        stats = measure({"sx": lambda: block(g_sx(ws, hs, xss)), "jax": lambda: g_jax(wj, hj, xsj).block_until_ready()},
                        repeats=repeats, target_s=0.002)
        rows.append(("jit(grad(...)) of a 50-step scan, h = tanh(W @ h + x), 16x16: steady call", stats["sx"],
                     stats["jax"], 1.2))

        # 5. the IR's size does not depend on the trip count
        sizes = {}
        for n in (10, 10_000):
            text = str(sx.make_ir(lambda w, h, n=n: sx.fori_loop(0, n, lambda i, h: sx.tanh(w @ h), h))(ws, hs))
            sizes[n] = len(text.splitlines())
    return rows, sizes


def format_rows(rows) -> str:
    """Steady rows: median (min–max) of each library's samples, the ratio of the minimums (judged against the
    target, as benchmarks/jit.py judges) and of the medians; first-call rows: one time each (the minimum of
    fresh calls)."""
    lines = ["| case | stridex | JAX | ratio (minimums) | ratio (medians) | target |",
             "|---|---:|---:|---:|---:|---:|"]
    for name, a, b, target in rows:
        if isinstance(a, Stats):
            ratio, middle = a.min / b.min, a.median / b.median
            cells = (fmt_stats(a), fmt_stats(b), f"{ratio:.2f}x", f"{middle:.2f}x")
        else:
            ratio = a / b
            cells = (fmt_time(a), fmt_time(b), f"{ratio:.2f}x", "")
        met = "met" if ratio <= target else "missed"
        lines.append(f"| {name} | {' | '.join(cells)} | ≤ {target}x ({met}) |")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--output", default=str(HERE / "CONTROL_FLOW_RESULTS.md"))
    args = parser.parse_args(argv)
    import jax

    rows, sizes = run(args.quick)
    table = format_rows(rows)
    same = "the same" if sizes[10] == sizes[10_000] else "different"
    size_line = (f"Size of `make_ir`'s printout of the `fori_loop` program: {sizes[10]} lines for 10 steps, "
                 f"{sizes[10_000]} lines for 10,000 steps ({same}).")
    header = (f"# Control-flow benchmarks\n\nMeasured {datetime.date.today()} at commit {git_commit()} on "
              f"{platform.machine()} ({platform.processor() or 'cpu'}), Python {platform.python_version()}, JAX "
              f"{jax.__version__}, NumPy {np.__version__}, 64-bit types in both; both libraries in one process. "
              "Steady calls: 40 samples per library, taken in alternation (the two in turn, so that the machine's "
              "load falls on both alike), shown as median (min–max); the target is judged on the ratio of the "
              "minimums (each library's quietest moments, as in JIT_RESULTS.md): on this shared 2-core machine the "
              "medians move by 2x between runs. First calls: the minimum over fresh functions. Load average at the "
              f"end of the run: {load_average() or 'n/a'}. Produced by `python -m benchmarks.control_flow`.\n\n")
    print(table)
    print(size_line)
    Path(args.output).write_text(header + table + "\n\n" + size_line + "\n")


if __name__ == "__main__":
    main()
