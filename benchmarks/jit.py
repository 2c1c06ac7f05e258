"""jit benchmarks: stridex's tracing and jit against JAX on the same programs, side by side in one run.

    python -m benchmarks.jit [--quick] [--output benchmarks/JIT_RESULTS.md]

Cases (the tracing issue's targets): tracing cost per recorded op against `jax.make_jaxpr` on a 400-op
program; steady-state call of a jitted 40-op function on one-element inputs against `jax.jit` of the
equivalent `jax.numpy` function (one argument set per loop, two in turn, inputs written before every call,
new NumPy data on every call); first call (trace + lower + compile), of that function and of one with
tanh, multiply, add and ten divisions by a Python scalar; compute time on 10^6 elements;
`jit(grad(MLP))`; a function with one graph break between two 50-op segments against hand-split JAX
and against eager stridex; and `max` of 10^7 float32 (NaN-propagating) against `jnp.max`.
"""

from __future__ import annotations

import argparse
import datetime
import platform
import statistics
import timeit
from pathlib import Path

import numpy as np

from benchmarks.common import block, chain, division_chain, measure, times_once

HERE = Path(__file__).resolve().parent


def best(fn, repeat=7, min_time=0.05):
    number = 1
    while True:
        t = timeit.timeit(fn, number=number)
        if t >= min_time:
            break
        number *= 2
    times = [timeit.timeit(fn, number=number) / number for _ in range(repeat)]
    return min(times), statistics.median(times)


def side_by_side(*fns, rounds=5):
    """The best time of each of fns, measured in `rounds` x 20 short samples (about 2 ms each), taken in
    turn, so that a slow spell of the machine falls on all of them alike and the minimum is its quiet
    moments' time."""
    stats = measure({i: fn for i, fn in enumerate(fns)}, repeats=20 * rounds, target_s=0.002)
    return [stats[i].min for i in range(len(fns))]


def run(quick: bool = False) -> list[tuple]:
    import jax
    import jax.numpy as jnp

    import stridex as sx

    rows = []
    with jax.enable_x64(True):
        x_np = np.ones(1)
        xs, ys = sx.asarray(x_np), sx.asarray(x_np * 2)
        xj, yj = jnp.asarray(x_np), jnp.asarray(x_np * 2)

        # 1. tracing cost per op, 400-op program
        n = 400
        sx_trace = best(lambda: sx.make_ir(lambda a, b: chain(sx, a, b, n), optimize=False)(xs, ys), repeat=3)
        jax_trace = best(lambda: jax.make_jaxpr(lambda a, b: chain(jnp, a, b, n))(xj, yj), repeat=3)
        rows.append(("tracing, per recorded op (400-op program)", sx_trace[0] / n, jax_trace[0] / n))

        # 2. steady-state call, 40 ops, one element; the libraries measured in alternation (side_by_side)
        # Each row's loop calls its own jitted function with one argument set, as a steady loop does;
        # a function called with several argument sets in turn has its own row.
        f_sx, f_np, f_alt = (sx.jit(lambda a, b: chain(sx, a, b, 40)) for _ in range(3))
        f_jax = jax.jit(lambda a, b: chain(jnp, a, b, 40))
        f_sx(xs, ys)
        f_jax(xj, yj).block_until_ready()
        xs2, ys2 = f_sx(xs, ys), f_sx(ys, xs)  # arrays that came out of jit: JAX buffers already
        xj2, yj2 = f_jax(xj, yj), f_jax(yj, xj)

        def alternating_sx():
            f_alt(xs, ys).block_until_ready()
            f_alt(xs2, ys2).block_until_ready()

        def alternating_jax():
            f_jax(xj, yj).block_until_ready()
            f_jax(xj2, yj2).block_until_ready()

        steady_sx, steady_sx2, steady_jax, alternating, alternating_j = side_by_side(
            lambda: f_np(xs, ys).block_until_ready(),
            lambda: f_sx(xs2, ys2).block_until_ready(),
            lambda: f_jax(xj, yj).block_until_ready(),
            alternating_sx, alternating_jax, rounds=3 if quick else 5)
        rows.append(("steady-state call, 40 ops on 1 element (inputs: results of a jitted call)", steady_sx2,
                     steady_jax))
        rows.append(("steady-state call, 40 ops on 1 element (inputs: sx.asarray of NumPy)", steady_sx,
                     steady_jax))
        name = ("the same function called with the two argument sets above in turn, per call (JAX: with two "
                "sets of JAX arrays)")
        rows.append((name, alternating / 2, alternating_j / 2))
        # Inputs written before every call (through NumPy): no snapshot is reused, and JAX gets the same
        # NumPy arrays, so both convert them on every call.
        x_w, y_w = np.ones(1), np.ones(1) * 2
        xs_w, ys_w = sx.asarray(x_w), sx.asarray(y_w)

        def written_sx():
            x_w[0] += 1.0
            f_sx(xs_w, ys_w).block_until_ready()

        def written_jax():
            x_w[0] += 1.0
            f_jax(x_w, y_w).block_until_ready()

        written = side_by_side(written_sx, written_jax, rounds=3 if quick else 5)
        name = ("steady-state call, 40 ops on 1 element (NumPy inputs written before every call; "
                "JAX given the same NumPy arrays)")
        rows.append((name, *written))
        # New NumPy data for one argument on every call (a batch), the other a jitted result: stridex wraps
        # it with sx.asarray, JAX is given the NumPy array; both convert it.
        batches = [np.full(1, float(k)) for k in range(64)]
        turn = iter(range(1 << 62))

        def fresh_sx():
            f_sx(xs2, sx.asarray(batches[next(turn) % 64])).block_until_ready()

        def fresh_jax():
            f_jax(xj2, batches[next(turn) % 64]).block_until_ready()

        fresh = side_by_side(fresh_sx, fresh_jax, rounds=3 if quick else 5)
        name = ("call with new NumPy data for one argument on every call, 40 ops on 1 element (stridex: "
                "sx.asarray of it; JAX given the NumPy array)")
        rows.append((name, *fresh))

        # 3. first call: trace + lower + compile + run (fresh function objects each time)
        def first_sx():
            g = sx.jit(lambda a, b: chain(sx, a, b, 40))
            block(g(xs, ys))

        def first_jax():
            g = jax.jit(lambda a, b: chain(jnp, a, b, 40))
            g(xj, yj).block_until_ready()

        def first_division_sx():
            g = sx.jit(lambda a, b: division_chain(sx, a, b, 40))
            block(g(xs, ys))

        def first_division_jax():
            g = jax.jit(lambda a, b: division_chain(jnp, a, b, 40))
            g(xj, yj).block_until_ready()

        # (rounds alternate between the libraries, and which goes first, so that load falls on both alike)
        reps = 3 if quick else 7
        firsts = {fn: [] for fn in (first_sx, first_jax, first_division_sx, first_division_jax)}
        for r in range(reps):
            for pair in ((first_sx, first_jax), (first_division_sx, first_division_jax)):
                for fn in (pair if r % 2 == 0 else pair[::-1]):
                    firsts[fn].append(times_once(fn))
        for name, sx_fn, jax_fn in (
                ("first call (trace + lower + compile), 40 ops", first_sx, first_jax),
                ("first call, 40 ops: tanh, multiply, add, divide by a Python scalar (10 divisions kept correctly "
                 "rounded)", first_division_sx, first_division_jax)):
            rows.append((name, min(t for t, _ in firsts[sx_fn]), min(t for t, _ in firsts[jax_fn])))
            rows.append(("the same, CPU time of the process (all threads)", min(c for _, c in firsts[sx_fn]),
                         min(c for _, c in firsts[jax_fn])))

        # 4. compute time on 10^6 elements
        big = np.random.default_rng(0).standard_normal(10**6)
        bs, bs2 = sx.asarray(big, copy=True), sx.asarray(big * 0.5, copy=True)  # stridex-allocated: aligned
        bj, bj2 = jnp.asarray(big), jnp.asarray(big * 0.5)
        f_sx(bs, bs2)
        f_jax(bj, bj2).block_until_ready()
        big_sx = best(lambda: block(f_sx(bs, bs2)))
        big_jax = best(lambda: f_jax(bj, bj2).block_until_ready())
        rows.append(("compute, 40 ops on 10^6 elements", big_sx[0], big_jax[0]))

        # 5. jit(grad(f)) steady state on a small MLP loss
        rng = np.random.default_rng(1)
        w1, w2, xb = rng.standard_normal((8, 16)), rng.standard_normal((16, 4)), rng.standard_normal((32, 8))
        sx_args = [sx.asarray(a) for a in (w1, w2, xb)]
        jax_args = [jnp.asarray(a) for a in (w1, w2, xb)]
        g_sx = sx.jit(sx.grad(mlp_loss(sx), argnums=(0, 1)))
        g_jax = jax.jit(jax.grad(mlp_loss(jnp), argnums=(0, 1)))
        g_sx(*sx_args)
        jax.block_until_ready(g_jax(*jax_args))
        mlp_sx, mlp_jax = side_by_side(lambda: block(g_sx(*sx_args)), lambda: jax.block_until_ready(g_jax(*jax_args)),
                                       rounds=3 if quick else 5)
        rows.append(("jit(grad(MLP loss)), steady state (inputs: sx.asarray of NumPy)", mlp_sx, mlp_jax))

        # 6. a graph break (a boolean mask: a data-dependent length) between two 50-op segments, 10^4
        # elements: stridex compiles one guarded program; by hand, JAX needs two jitted halves with the
        # mask applied eagerly between them.
        def broken(xp, a, b):
            z = chain(xp, a, b, 50)
            kept = z[z > 0.0]
            return chain(xp, kept, kept * 0.5, 50)

        first_half = jax.jit(lambda a, b: chain(jnp, a, b, 50))
        second_half = jax.jit(lambda k: chain(jnp, k, k * 0.5, 50))

        def hand_split(a, b):
            z = first_half(a, b)
            return second_half(z[z > 0.0])

        v_np = np.random.default_rng(2).standard_normal(10**4)
        vs, ws = sx.asarray(v_np, copy=True), sx.asarray(v_np[::-1], copy=True)
        vj, wj = jnp.asarray(v_np), jnp.asarray(v_np[::-1])
        g_break = sx.jit(lambda a, b: broken(sx, a, b))
        block(g_break(vs, ws))
        hand_split(vj, wj).block_until_ready()
        t_break, t_hand, t_eager = side_by_side(
            lambda: block(g_break(vs, ws)), lambda: hand_split(vj, wj).block_until_ready(),
            lambda: broken(sx, vs, ws), rounds=3 if quick else 5)
        assert g_break.stats["traces"] == 1, g_break.stats  # steady state: the guard held every time
        rows.append((("one graph break (boolean mask) between two 50-op segments, 10^4 elements "
                     "(JAX: two jitted halves, the mask applied between them)"), t_break, t_hand))
        rows.append(("the same, against eager stridex (in the JAX column)", t_break, t_eager))

        # 7. max of 10^7 float32: stridex lowers floating max/min NaN-propagating (a fold with elementwise max,
        # then a reduce with a NaN-picking combiner; docs/semantics.md), while XLA CPU's own reduce_max, which
        # jnp.max lowers to, skips NaN from 4096 elements. Against jnp.max, and against jnp.max made
        # NaN-propagating by hand (an isnan any-reduction and a select: a second pass over the data).
        m_np = np.random.default_rng(3).random(10**7).astype(np.float32)
        ms, mj = sx.asarray(m_np, copy=True), jnp.asarray(m_np)
        max_sx, max_jax = sx.jit(sx.max), jax.jit(jnp.max)
        max_nan = jax.jit(lambda a: jnp.where(jnp.any(jnp.isnan(a)), jnp.nan, jnp.max(a)))
        assert float(max_sx(ms)) == float(max_jax(mj)) == float(max_nan(mj))
        t_sx, t_jax, t_nan = side_by_side(lambda: block(max_sx(ms)), lambda: max_jax(mj).block_until_ready(),
                                          lambda: max_nan(mj).block_until_ready(), rounds=3 if quick else 5)
        rows.append(("max of 10^7 float32 (NaN-propagating; JAX: jnp.max, which skips NaN on CPU)", t_sx, t_jax))
        rows.append(("the same, against jnp.max made NaN-propagating (where(any(isnan(x)), nan, max(x)))", t_sx,
                     t_nan))
    return rows


def mlp_loss(xp):
    def loss(w1, w2, x):
        h = xp.tanh(x @ w1)
        return xp.mean((h @ w2) ** 2)

    return loss


def format_rows(rows) -> str:
    lines = ["| case | stridex | JAX | ratio |", "|---|---:|---:|---:|"]
    for name, a, b in rows:
        lines.append(f"| {name} | {a * 1e6:.2f} µs | {b * 1e6:.2f} µs | {a / b:.2f}x |")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--output", default=str(HERE / "JIT_RESULTS.md"))
    args = parser.parse_args(argv)
    import jax

    rows = run(args.quick)
    table = format_rows(rows)
    header = (f"# jit benchmarks\n\nMeasured {datetime.date.today()} on {platform.machine()} "
              f"({platform.processor() or 'cpu'}), Python {platform.python_version()}, JAX {jax.__version__}, "
              f"NumPy {np.__version__}; minimum of repeated runs, both libraries in the same process (the "
              f"steady-state rows measure them in alternation, so that a slow spell falls on both alike).\n\n")
    print(table)
    Path(args.output).write_text(header + table + "\n")


if __name__ == "__main__":
    main()
