"""Control-flow benchmarks: stridex's structured loops against JAX's on the same programs, in one run.

    python -m benchmarks.control_flow [--quick] [--output benchmarks/CONTROL_FLOW_RESULTS.md]

Cases (issue 22's targets):
- 300 steps of `h = tanh(W @ h)` with W 16x16, `fori_loop` (stridex `sx.fori_loop`, JAX `lax.fori_loop`):
  first call (trace + lower + compile + run, a fresh function each time) and steady call;
- Newton's iteration for sqrt on 1,000 elements until every element converges, `while_loop`: steady call;
- `jit(grad(...))` of a 50-step `scan` recurrence `h = tanh(W @ h + x)`: steady call;
- the size (lines) of `make_ir`'s printout of the fori_loop program for 10 and 10,000 steps.
Steady calls: per-call samples taken in strict alternation, thousands of rounds (`benchmarks.common.interleaved`),
reported as median (min–max); the target is judged on the median over rounds of the ratio of the two
samples of a round (`paired_ratio`: both taken within a few hundred microseconds, under the same load),
with the ratios of the minimums and of the medians beside it. First calls: fresh functions, the two
libraries in turn, judged on the ratio of the minimums.
"""

from __future__ import annotations

import argparse
import datetime
import platform
from pathlib import Path

import numpy as np

from benchmarks.common import (Stats, block, fmt_stats, git_commit, interleaved, load_average, paired_ratio,
                               time_once)

HERE = Path(__file__).resolve().parent
ROUNDS = 3000  # steady-call rounds (a call of each library per round)
FIRST_CALLS = 7  # fresh functions of each library for the first call


def run(quick: bool = False) -> tuple[list, dict]:
    import jax
    import jax.numpy as jnp
    from jax import lax

    import stridex as sx

    rows = []
    rounds = 300 if quick else ROUNDS
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

        firsts: dict[str, list[float]] = {"sx": [], "jax": []}
        for _ in range(3 if quick else FIRST_CALLS):  # (in turn, as the steady samples)
            firsts["sx"].append(time_once(first_sx))
            firsts["jax"].append(time_once(first_jax))
        rows.append(("fori_loop, 300 steps of h = tanh(W @ h), 16x16: first call (trace + lower + compile)",
                     Stats(firsts["sx"]), Stats(firsts["jax"]), 1.2, "min"))

        # 2. steady call
        f_sx, f_jax = sx.jit(sx_rnn), jax.jit(jax_rnn)
        stats = interleaved({"sx": lambda: block(f_sx(ws, hs)), "jax": lambda: f_jax(wj, hj).block_until_ready()},
                            rounds=rounds)
        rows.append(("fori_loop, 300 steps of h = tanh(W @ h), 16x16: steady call", stats["sx"],
                     stats["jax"], 1.2, "paired"))

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
        stats = interleaved({"sx": lambda: block(n_sx(as_)), "jax": lambda: block(n_jax(aj))}, rounds=rounds)
        rows.append((f"while_loop, Newton's sqrt to convergence on 1,000 elements ({int(out_sx[1])} iterations): "
                     "steady call", stats["sx"], stats["jax"], 1.2, "paired"))

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
        stats = interleaved({"sx": lambda: block(g_sx(ws, hs, xss)),
                             "jax": lambda: g_jax(wj, hj, xsj).block_until_ready()}, rounds=rounds)
        rows.append(("jit(grad(...)) of a 50-step scan, h = tanh(W @ h + x), 16x16: steady call", stats["sx"],
                     stats["jax"], 1.2, "paired"))

        # 5. the IR's size does not depend on the trip count
        sizes = {}
        for n in (10, 10_000):
            text = str(sx.make_ir(lambda w, h, n=n: sx.fori_loop(0, n, lambda i, h: sx.tanh(w @ h), h))(ws, hs))
            sizes[n] = len(text.splitlines())
    return rows, sizes


def format_rows(rows) -> str:
    """Each library's median (min–max), then three ratios: the median of the rounds' paired ratios, the ratio
    of the minimums and that of the medians; the one judged against the target (steady calls: the paired
    ratio; first calls: the minimums) is in bold."""
    lines = ["| case | stridex | JAX | ratio (paired, median) | ratio (minimums) | ratio (medians) | target |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for name, a, b, target, judged in rows:
        ratios = {"paired": paired_ratio(a, b), "min": a.min / b.min, "median": a.median / b.median}
        cells = [f"**{r:.2f}x**" if key == judged else f"{r:.2f}x" for key, r in ratios.items()]
        met = "met" if ratios[judged] <= target else "missed"
        lines.append(f"| {name} | {fmt_stats(a)} | {fmt_stats(b)} | {' | '.join(cells)} | ≤ {target}x ({met}) |")
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
              f"Steady calls: {300 if args.quick else ROUNDS} rounds, each one call of each library, timed alone, the two in turn "
              "(`benchmarks.common.interleaved`), shown as median (min–max) per call; the target is judged on the "
              "median over rounds of the ratio of a round's two calls (in bold): the two were made within a few "
              "hundred microseconds, under the same load, where on this shared 2-core machine a minimum or a median "
              "of either library alone moves by 1.5x between runs as other processes come and go. First calls: "
              f"{3 if args.quick else FIRST_CALLS} fresh functions of each, in turn, judged on the minimums. Load average at the "
              f"end of the run: {load_average() or 'n/a'}. Produced by `python -m benchmarks.control_flow`.\n\n")
    print(table)
    print(size_line)
    Path(args.output).write_text(header + table + "\n\n" + size_line + "\n")


if __name__ == "__main__":
    main()
