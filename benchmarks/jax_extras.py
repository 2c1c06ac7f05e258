"""JAX's extras around the transformations (issue 42) against JAX, side by side in one run.

    python -m benchmarks.jax_extras [--quick] [--output benchmarks/JAX_EXTRAS_RESULTS.md]

Cases: `sx.jit(sx.vmap(f, axis_name="i"))` of a function using `psum` over the named axis, against
`jax.jit(jax.vmap(f_jax, axis_name="i"))` (steady-state calls at three sizes; target: at most 1.1x): one whose
XLA program is JAX's op for op, and one normalising by `pmean` and `psum` (stridex keeps its divisions correctly
rounded, where XLA may multiply by a reciprocal: `jax_bridge.ieee_divide`); a jitted
function that calls `sx.debug.print` against `jax.jit` of one that calls `jax.debug.print` (both ordered, output
to a null sink, each call waiting for its effects: stridex's calls do, JAX's are followed by
`jax.effects_barrier()`), and the same functions without the print (what a program without prints pays). The
conversion check under differentiation touches neither eager dispatch nor `jit`'s steady call; that is measured
before/after with `python -m benchmarks.revisions <revision before>` (its table is kept beside this one's, in
benchmarks/JAX_EXTRAS_RESULTS.md).
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import io
import platform
from pathlib import Path

import numpy as np

from benchmarks.common import measure
from benchmarks.jit import format_rows

HERE = Path(__file__).resolve().parent


def side_by_side(fns: dict, rounds: int) -> dict:
    """The minimum per-call time of each callable, sampled in turn (a slow spell falls on all alike)."""
    stats = measure(fns, repeats=20 * rounds, target_s=0.002)
    return {name: stats[name].min for name in fns}


def run(quick: bool = False) -> list[tuple]:
    import jax
    import jax.numpy as jnp

    import stridex as sx

    rounds = 2 if quick else 6
    rows = []
    with jax.enable_x64(True):
        # 1. psum over a named vmap axis, steady-state call
        def normalise(v):
            centred = v - sx.lax.pmean(v, "i")
            return centred / sx.sqrt(sx.lax.psum(centred * centred, "i"))

        def normalise_jax(v):
            centred = v - jax.lax.pmean(v, "i")
            return centred / jnp.sqrt(jax.lax.psum(centred * centred, "i"))

        def scaled(v):  # (no division: the same XLA program as JAX's, op for op)
            return v * sx.lax.psum(v * v, "i") - sx.lax.psum(v, "i")

        def scaled_jax(v):
            return v * jax.lax.psum(v * v, "i") - jax.lax.psum(v, "i")

        for shape in ((8, 4), (64, 1000), (256, 4000)):
            x_np = np.random.default_rng(0).standard_normal(shape)
            xs, xj = sx.asarray(x_np, copy=True), jnp.asarray(x_np)  # (stridex memory: aligned, as JAX's)
            fns = {}
            for name, ours, theirs in (("psum", scaled, scaled_jax), ("pmean/psum normalise", normalise,
                                                                       normalise_jax)):
                f_sx = sx.jit(sx.vmap(ours, axis_name="i"))
                f_jax = jax.jit(jax.vmap(theirs, axis_name="i"))
                np.testing.assert_allclose(np.asarray(f_sx(xs)), np.asarray(f_jax(xj)), rtol=1e-10)
                fns[name, "sx"] = lambda f_sx=f_sx: f_sx(xs).block_until_ready()
                fns[name, "jax"] = lambda f_jax=f_jax: f_jax(xj).block_until_ready()
            t = side_by_side(fns, rounds)
            for name in ("psum", "pmean/psum normalise"):
                rows.append((f"jit(vmap({name})), {shape[0]}x{shape[1]} float64", t[name, "sx"], t[name, "jax"]))

        # 2. debug.print in a jitted function, and the same function without it
        def step(v):
            sx.debug.print("step {s:.3f}", s=sx.sum(v))
            return v * 0.5 + 1.0

        def step_jax(v):
            jax.debug.print("step {s:.3f}", s=jnp.sum(v), ordered=True)
            return v * 0.5 + 1.0

        def plain(v):
            return v * 0.5 + 1.0

        x_np = np.linspace(0.0, 1.0, 1000)
        xs, xj = sx.asarray(x_np, copy=True), jnp.asarray(x_np)
        f_print, f_print_jax = sx.jit(step), jax.jit(step_jax)
        f_plain, f_plain_jax = sx.jit(plain), jax.jit(plain)

        def jax_with_effects():
            f_print_jax(xj).block_until_ready()
            jax.effects_barrier()

        with contextlib.redirect_stdout(io.StringIO()) as sink:
            f_print(xs)
            jax_with_effects()
            t = side_by_side({"sx print": lambda: f_print(xs).block_until_ready(), "jax print": jax_with_effects,
                              "sx plain": lambda: f_plain(xs).block_until_ready(),
                              "jax plain": lambda: f_plain_jax(xj).block_until_ready()}, rounds)
        lines = sink.getvalue().splitlines()
        assert lines[0] == "step 500.000" and len(set(lines)) == 1, lines[:3]
        rows.append(("jit of a function with debug.print (1000 elements)", t["sx print"], t["jax print"]))
        rows.append(("the same function without the print", t["sx plain"], t["jax plain"]))
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--output", default=str(HERE / "JAX_EXTRAS_RESULTS.md"))
    args = parser.parse_args(argv)
    import jax

    rows = run(args.quick)
    table = format_rows(rows)
    header = (f"# JAX's extras: named axes and debug.print against JAX\n\nMeasured {datetime.date.today()} on "
              f"{platform.machine()}, Python {platform.python_version()}, JAX {jax.__version__}, NumPy "
              f"{np.__version__}; `python -m benchmarks.jax_extras`: minimum per-call time of samples taken in "
              f"alternation, both libraries in one process.\n\n")
    print(table)
    Path(args.output).write_text(header + table + "\n")


if __name__ == "__main__":
    main()
