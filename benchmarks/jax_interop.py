"""JAX-bridge benchmarks: `sx.to_jax`, `sx.from_jax` and arrays crossing, beside plain JAX in one run.

    python -m benchmarks.jax_interop [--quick] [--output benchmarks/JAX_INTEROP_RESULTS.md]

Cases (issue 44's targets), float64 (64-bit types on in both), each result checked against JAX's first:
- `jax.jit(sx.to_jax(f))` against `jax.jit` of the same function written in `jax.numpy` (a 40-op elementwise
  chain): steady call on 1 and on 10^6 elements (target ≤ 1.05x), and first call (trace + lower + compile + run,
  fresh functions each time; target ≤ 1.2x);
- `sx.jit` of a function calling `sx.from_jax(g)` against `jax.jit(g)`, `g` the same chain: steady call on 1 and
  10^6 elements (target ≤ 1.05x); on 1 element also against `sx.jit` of the chain written in stridex, which
  separates `sx.jit`'s own call overhead (its dispatch, not `from_jax`'s) from the rest;
- crossing: `sx.asarray(jax_array)`, `sx.from_dlpack(jax_array)`, `jnp.asarray(x)` of a stridex `jit` result and
  of a device array, and `jax.dlpack.from_dlpack(x)`, each on 10^7 elements against the same on 10 elements
  (O(1) where memory is shared: target ≤ 1.5x, the ratio of a constant cost to itself, noise allowed).
Steady calls: per-call samples in strict alternation (`benchmarks.common.interleaved`), judged on the median over
rounds of the ratio of a round's two calls (`paired_ratio`); first calls: the two libraries in turn, judged on the
ratio of the minimums.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
from pathlib import Path

import numpy as np

from benchmarks.common import Stats, block, chain, git_commit, interleaved, load_average, times_once
from benchmarks.control_flow import format_rows

HERE = Path(__file__).resolve().parent
ROUNDS = 2000  # steady-call rounds (a call of each side per round)
FIRST_CALLS = 7


def run(quick: bool = False) -> list[tuple]:
    import jax
    import jax.numpy as jnp

    import stridex as sx

    rows: list[tuple] = []
    rounds = 200 if quick else ROUNDS
    with jax.enable_x64(True):
        def jnp_chain(a, b):
            return chain(jnp, a, b, 40)

        def sx_chain(a, b):
            return chain(sx, a, b, 40)

        # 1. jax.jit(sx.to_jax(f)) against jax.jit(f written in jnp): steady calls
        for n in (1, 10**6):
            rng = np.random.default_rng(n)
            a, b = jnp.asarray(rng.standard_normal(n)), jnp.asarray(rng.standard_normal(n))
            ours, theirs = jax.jit(sx.to_jax(sx_chain)), jax.jit(jnp_chain)
            np.testing.assert_allclose(np.asarray(ours(a, b)), np.asarray(theirs(a, b)), rtol=1e-12)
            stats = interleaved({"sx": lambda: ours(a, b).block_until_ready(),
                                 "jax": lambda: theirs(a, b).block_until_ready()},
                                rounds=rounds if n == 1 else max(rounds // 10, 30))
            rows.append((f"jax.jit(sx.to_jax(f)) / jax.jit(f in jnp), 40 ops on {_size(n)}, steady call",
                         stats["sx"], stats["jax"], 1.05, "paired"))

        # 2. first calls: fresh functions each time (stridex traces f to its IR, then JAX traces the lowering)
        a, b = jnp.ones(1), jnp.ones(1)

        def first_sx():
            jax.jit(sx.to_jax(lambda p, q: chain(sx, p, q, 40)))(a, b).block_until_ready()

        def first_jax():
            jax.jit(lambda p, q: chain(jnp, p, q, 40))(a, b).block_until_ready()

        walls: dict = {first_sx: [], first_jax: []}
        cpus: dict = {first_sx: [], first_jax: []}
        for r in range(3 if quick else FIRST_CALLS):
            for fn in ((first_sx, first_jax) if r % 2 == 0 else (first_jax, first_sx)):
                wall, cpu = times_once(fn)
                walls[fn].append(wall)
                cpus[fn].append(cpu)
        rows.append(("jax.jit(sx.to_jax(f)), first call (trace + lower + compile + run), 40 ops",
                     Stats(walls[first_sx]), Stats(walls[first_jax]), 1.2, "min"))
        rows.append(("the same, CPU time of the process (all threads)", Stats(cpus[first_sx]),
                     Stats(cpus[first_jax]), 1.2, "min"))

        # 3. sx.jit of a function calling sx.from_jax(g) against jax.jit(g)
        g = sx.from_jax(jnp_chain)
        for n in (1, 10**6):
            rng = np.random.default_rng(n + 1)
            a_np, b_np = rng.standard_normal(n), rng.standard_normal(n)
            aj, bj = jnp.asarray(a_np), jnp.asarray(b_np)
            a_sx, b_sx = sx.asarray(aj), sx.asarray(bj)  # (over the same JAX buffers)
            ours, theirs = sx.jit(lambda p, q: g(p, q)), jax.jit(jnp_chain)
            np.testing.assert_allclose(np.asarray(ours(a_sx, b_sx)), np.asarray(theirs(aj, bj)), rtol=1e-12)
            stats = interleaved({"sx": lambda: block(ours(a_sx, b_sx)),
                                 "jax": lambda: theirs(aj, bj).block_until_ready()},
                                rounds=rounds if n == 1 else max(rounds // 10, 30))
            rows.append((f"sx.jit(f calling sx.from_jax(g)) / jax.jit(g), 40 ops on {_size(n)}, steady call",
                         stats["sx"], stats["jax"], 1.05, "paired"))
            if n == 1:  # what of that is sx.jit's own call (its dispatch, not from_jax): the same chain in stridex
                native = sx.jit(sx_chain)
                stats = interleaved({"sx": lambda: block(ours(a_sx, b_sx)),
                                     "native": lambda: block(native(a_sx, b_sx))}, rounds=rounds)
                rows.append(("the same, against sx.jit of the chain written in stridex (in the JAX column)",
                             stats["sx"], stats["native"], 1.05, "paired"))

        # 4. crossing: 10^7 elements against 10 (O(1) where shared)
        device = jax.devices("cpu")[1] if len(jax.devices("cpu")) > 1 else None
        jit_double = sx.jit(lambda p: p * 2.0)
        for name, make, cross in [
            ("sx.asarray(jax_array)", lambda n: jnp.arange(float(n)), sx.asarray),
            ("sx.from_dlpack(jax_array)", lambda n: jnp.arange(float(n)), sx.from_dlpack),
            ("jnp.asarray(x), x a stridex jit result", lambda n: jit_double(sx.arange(float(n))), jnp.asarray),
            ("jax.dlpack.from_dlpack(x), x a stridex jit result", lambda n: jit_double(sx.arange(float(n))),
             jax.dlpack.from_dlpack),
            ("jnp.asarray(x), x on the JAX device cpu:1", lambda n: sx.arange(float(n), device="cpu:1"),
             jnp.asarray),
        ]:
            if device is None and "cpu:1" in name:
                print(f"(skipped {name}: JAX has one CPU device)")
                continue
            small, large = make(10), make(10**7)
            block(large)
            stats = interleaved({"large": lambda: cross(large), "small": lambda: cross(small)},
                                rounds=max(rounds // 2, 50))
            rows.append((f"crossing: {name}, 10^7 / 10 elements", stats["large"], stats["small"], 1.5, "paired"))
    return rows


def _size(n: int) -> str:
    return "1 element" if n == 1 else f"10^{len(str(n)) - 1} elements"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--output", default=str(HERE / "JAX_INTEROP_RESULTS.md"))
    args = parser.parse_args(argv)
    flag = "--xla_force_host_platform_device_count"
    if flag not in os.environ.get("XLA_FLAGS", ""):  # (JAX's second CPU device, cpu:1, for the device case)
        os.environ["XLA_FLAGS"] = f"{os.environ.get('XLA_FLAGS', '')} {flag}=2".strip()
    import jax

    rows = run(args.quick)
    table = format_rows(rows).replace("| stridex | JAX |", "| stridex side | JAX side |")
    header = (f"# JAX-bridge benchmarks\n\nMeasured {datetime.date.today()} at commit {git_commit()} on "
              f"{platform.machine()} ({platform.processor() or 'cpu'}), Python {platform.python_version()}, JAX "
              f"{jax.__version__}, NumPy {np.__version__}, 64-bit types on (float64); both sides in one process, "
              "each result checked against JAX's first. Steady calls: per-call samples, the two sides in strict "
              "alternation (`benchmarks.common.interleaved`), shown as median (min–max); judged on the median over "
              "rounds of the ratio of a round's two calls (in bold). First calls: fresh functions, the two in turn, "
              "judged on the ratio of the minimums. Crossing: the 10^7-element case's time over the 10-element "
              f"case's (1x means O(1)). Load average at the end of the run: {load_average() or 'n/a'}. Produced by "
              f"`python -m benchmarks.jax_interop`{' --quick' if args.quick else ''}.\n\n")
    print(table)
    Path(args.output).write_text(header + table + "\n")


if __name__ == "__main__":
    main()
