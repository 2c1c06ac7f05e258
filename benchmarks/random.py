"""Random-number benchmarks: `sx.random` against `jax.random` on the same calls, side by side in one run.

    python -m benchmarks.random [--quick] [--output benchmarks/RANDOM_RESULTS.md]

Cases (issue 31's targets), every one float64 (64-bit types on in both libraries) and checked bit for bit first:
- under `jit`: `sum(normal(key, (10**6,)))`, steady call, against `jax.jit` of the same `jax.random` program
  (target ≤ 1.1x);
- eagerly on the host: `normal(key, (1000,))` against `jax.random.normal` called eagerly (target ≤ 1.0x);
- the same eager call with the key on the JAX device `cpu:1` (target ≤ 1.0x), and on the first GPU when JAX
  has one;
- eagerly on the host, `normal(key, (1,))`: the dispatch cost alone; and one step of a loop that splits its
  key, `key, sub = split(key); normal(sub, (1000,))`.
Steady calls: per-call samples taken in strict alternation (`benchmarks.common.interleaved`), judged on the
median over rounds of the ratio of a round's two calls (`paired_ratio`), with the ratios of the minimums and
of the medians beside it.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
from pathlib import Path

import numpy as np

from benchmarks.common import block, fmt_stats, git_commit, interleaved, load_average, paired_ratio

HERE = Path(__file__).resolve().parent
ROUNDS = 3000  # steady-call rounds (a call of each library per round)


def run(quick: bool = False) -> list[tuple]:
    import jax
    import jax.numpy as jnp
    import jax.random as jr

    import stridex as sx

    rows = []
    rounds = 300 if quick else ROUNDS
    with jax.enable_x64(True):
        ks, kj = sx.random.key(0), jr.key(0)

        # 1. jit: normal of 10^6 and its sum
        f_sx = sx.jit(lambda k: sx.sum(sx.random.normal(k, (10**6,))))
        f_jax = jax.jit(lambda k: jnp.sum(jr.normal(k, (10**6,))))
        assert np.asarray(f_sx(ks)).tobytes() == np.asarray(f_jax(kj)).tobytes()
        stats = interleaved({"sx": lambda: block(f_sx(ks)), "jax": lambda: f_jax(kj).block_until_ready()},
                            rounds=max(rounds // 10, 30))
        rows.append(("jit: sum(normal(key, (10**6,))), steady call", stats["sx"], stats["jax"], 1.1))

        # 2. eager on the host, then on JAX devices: normal(key, (1000,))
        places = [("host", None)]
        places.append(("cpu:1", jax.devices("cpu")[1]) if len(jax.devices("cpu")) > 1 else ("cpu:1", "missing"))
        try:
            gpus = jax.devices("gpu")
        except RuntimeError:
            gpus = []
        if gpus:
            places.append((sx.Device(gpus[0].platform if gpus[0].platform != "gpu" else "cuda", 0).name, gpus[0]))
        for name, device in places:
            if device == "missing":
                print(f"(skipped {name}: JAX has one CPU device; JAX was imported before XLA_FLAGS could ask for two)")
                continue
            k_sx = ks if device is None else ks.to_device(device)
            k_jax = kj if device is None else jax.device_put(kj, device)
            expected = np.asarray(jr.normal(k_jax, (1000,)))
            assert np.asarray(sx.random.normal(k_sx, (1000,)).to_device("cpu")).tobytes() == expected.tobytes()
            stats = interleaved({"sx": lambda: block(sx.random.normal(k_sx, (1000,))),
                                 "jax": lambda: jr.normal(k_jax, (1000,)).block_until_ready()}, rounds=rounds)
            rows.append((f"eager on {name}: normal(key, (1000,))", stats["sx"], stats["jax"], 1.0))
            if device is None:  # the dispatch cost alone: one sample; and a loop's step: split, then sample
                stats = interleaved({"sx": lambda: block(sx.random.normal(ks, (1,))),
                                     "jax": lambda: jr.normal(kj, (1,)).block_until_ready()}, rounds=rounds)
                rows.append(("eager on host: normal(key, (1,)) (dispatch)", stats["sx"], stats["jax"], 1.0))

                def step_sx():
                    _, sub = sx.random.split(ks)
                    return block(sx.random.normal(sub, (1000,)))

                def step_jax():
                    _, sub = jr.split(kj)
                    return jr.normal(sub, (1000,)).block_until_ready()

                assert np.asarray(step_sx()).tobytes() == np.asarray(step_jax()).tobytes()
                stats = interleaved({"sx": step_sx, "jax": step_jax}, rounds=rounds)
                rows.append(("eager on host: key, sub = split(key); normal(sub, (1000,))", stats["sx"], stats["jax"],
                             1.0))
    return rows


def format_rows(rows) -> str:
    """Each library's median (min–max), then the three ratios; the judged one (the paired median) in bold."""
    lines = ["| case | stridex | JAX | ratio (paired, median) | ratio (minimums) | ratio (medians) | target |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for name, a, b, target in rows:
        paired = paired_ratio(a, b)
        met = "met" if paired <= target else "missed"
        lines.append(f"| {name} | {fmt_stats(a)} | {fmt_stats(b)} | **{paired:.3f}x** | {a.min / b.min:.2f}x | "
                     f"{a.median / b.median:.2f}x | ≤ {target}x ({met}) |")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--output", default=str(HERE / "RANDOM_RESULTS.md"))
    args = parser.parse_args(argv)
    flag = "--xla_force_host_platform_device_count"
    if flag not in os.environ.get("XLA_FLAGS", ""):  # (JAX's second CPU device, cpu:1, for the device case)
        os.environ["XLA_FLAGS"] = f"{os.environ.get('XLA_FLAGS', '')} {flag}=2".strip()
    import jax

    rows = run(args.quick)
    table = format_rows(rows)
    header = (f"# Random-number benchmarks\n\nMeasured {datetime.date.today()} at commit {git_commit()} on "
              f"{platform.machine()} ({platform.processor() or 'cpu'}), Python {platform.python_version()}, JAX "
              f"{jax.__version__}, NumPy {np.__version__}, 64-bit types in both (float64 samples); both libraries in "
              f"one process, every result checked bit for bit against JAX's first. Steady calls: "
              f"{300 if args.quick else ROUNDS} rounds (the jit case a tenth of that), each one call of each library, "
              "timed alone, the two in turn (`benchmarks.common.interleaved`), shown as median (min–max) per call; "
              "the target is judged on the median over rounds of the ratio of a round's two calls (in bold). Load "
              f"average at the end of the run: {load_average() or 'n/a'}. Produced by `python -m benchmarks.random`"
              f"{' --quick' if args.quick else ''}.\n\n")
    print(table)
    Path(args.output).write_text(header + table + "\n")


if __name__ == "__main__":
    main()
