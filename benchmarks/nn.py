"""stridex.nn eagerly on 10^6 elements: each function, fused as it runs by default, against the same expression op by
op (eager fusion off), side by side in one process; and the compiled special functions called once on the whole
array against once per block of a fusion pass (why they are not `elementwise`).

    python -m benchmarks.nn [--quick] [--output benchmarks/NN_RESULTS.md]

Issue 43's target: the nn functions eagerly on 10^6 elements are no slower than the same expression op by op (a
paired ratio ≤ 1.0; the report gives its 95 % bootstrap interval over the rounds, `common.paired_interval`). Every
call ends with its result computed (`sx.eval`, `block_until_ready`); inputs are arrays stridex owns (`asarray(...,
copy=True)`: borrowed NumPy memory is never read later, so eager fusion would not defer the first operation).
Timing: `common.interleaved` (each round calls every callable once, in a rotating order) and `common.paired_ratio`
(the median over rounds of the two calls' ratio), so a change in the machine's load falls on both sides of a ratio.
"""

from __future__ import annotations

import argparse
import datetime
from pathlib import Path

import numpy as np

from benchmarks.common import (fmt_stats, git_commit, interleaved, load_average, machine_info, paired_interval,
                               paired_ratio)

HERE = Path(__file__).resolve().parent
N = 10**6


def cases(sx):
    """(name, call) of each nn function on 10^6 float64 elements (softmax and the other normalisers over rows of a
    1000 x 1000 array, one_hot of 10^5 indices into 10 classes)."""
    rng = np.random.default_rng(0)
    x = sx.asarray(rng.standard_normal(N) * 3, copy=True)
    rows = sx.reshape(sx.asarray(rng.standard_normal(N) * 3, copy=True), (1000, 1000))
    pairs = sx.reshape(sx.asarray(rng.standard_normal(N) * 3, copy=True), (500, 2000))
    labels = sx.asarray(rng.integers(0, 10, N // 10), copy=True)
    nn = sx.nn
    return [
        ("relu", lambda: nn.relu(x)), ("relu6", lambda: nn.relu6(x)), ("leaky_relu", lambda: nn.leaky_relu(x)),
        ("hard_tanh", lambda: nn.hard_tanh(x)), ("sigmoid", lambda: nn.sigmoid(x)),
        ("log_sigmoid", lambda: nn.log_sigmoid(x)), ("softplus", lambda: nn.softplus(x)), ("silu", lambda: nn.silu(x)),
        ("gelu", lambda: nn.gelu(x)), ("gelu(approximate=False)", lambda: nn.gelu(x, approximate=False)),
        ("elu", lambda: nn.elu(x)), ("celu", lambda: nn.celu(x)), ("selu", lambda: nn.selu(x)),
        ("mish", lambda: nn.mish(x)), ("hard_silu", lambda: nn.hard_silu(x)), ("glu", lambda: nn.glu(pairs)),
        ("softmax", lambda: nn.softmax(rows)), ("log_softmax", lambda: nn.log_softmax(rows)),
        ("logsumexp", lambda: nn.logsumexp(rows, axis=-1)), ("standardize", lambda: nn.standardize(rows)),
        ("one_hot", lambda: nn.one_hot(labels, 10)),
    ]


def run_nn(quick: bool) -> list[tuple]:
    import stridex as sx

    rounds = 30 if quick else 200
    rows = []
    for name, call in cases(sx):
        def fused(call=call):
            sx.eval(call())

        def op_by_op(call=call):
            with sx.fusion(False):
                sx.eval(call())

        with sx.fusion(False):
            reference = np.asarray(call())
        assert np.asarray(call()).tobytes() == reference.tobytes()  # (fused values are op-by-op values)
        stats = interleaved({"fused": fused, "op by op": op_by_op}, rounds=rounds)
        rows.append((name, stats["fused"], stats["op by op"]))
    return rows


def run_blocks(quick: bool) -> list[tuple]:
    """A compiled special function (the eager rule of erf, lgamma, ...) on 10^6 elements: one call on the whole
    array, as its eager rule runs it, against one call per block of 16384 and of 65536 elements (what a fusion pass
    would make of an `elementwise` record: the same program per block, compiled once per block shape)."""
    import stridex as sx
    from stridex._exec import compiled
    from stridex._lax import special as P

    rounds = 10 if quick else 40
    rows = []
    for dtype in (np.float64, np.float32):
        values = np.random.default_rng(1).standard_normal(N).astype(dtype) * 3
        for prim in (P.erf, P.lgamma):
            def kernel(block, prim=prim):
                window = values[:block]
                return compiled.kernel((prim, (), (window.shape, window.dtype)),
                                       lambda: (lambda v: prim.lower(None, v)), (window,))

            def whole(prim=prim):
                prim.bind(sx.asarray(values)).block_until_ready()

            def blocked(block):
                entry = kernel(block)

                def run():
                    for start in range(0, N - block + 1, block):
                        np.asarray(compiled.call(entry, (values[start:start + block],)))
                return run

            stats = interleaved({"whole": whole, "16384": blocked(16384), "65536": blocked(65536)}, rounds=rounds)
            # (the blocks cover 999,424 and 983,040 of the 10^6 elements: per element, they are charged a little less)
            rows.append((f"{prim.name} {np.dtype(dtype).name}", stats["whole"], stats["16384"], stats["65536"]))
    return rows


def report(nn_rows, block_rows, quick: bool) -> str:
    import jax

    lines = ["# stridex.nn eagerly: fused against op by op", "",
             f"Generated by `python -m benchmarks.nn{' --quick' if quick else ''}` on "
             f"{datetime.date.today()}: see the module's docstring for the method.", "",
             *machine_info(extra_versions={"JAX": jax.__version__}, commit=git_commit()), "",
             "## The nn functions on 10^6 float64 elements (target: fused ≤ 1.0x op by op)", "",
             "| function | fused (default) | op by op (fusion off) | paired ratio | 95 % interval | target |",
             "|---|---:|---:|---:|---:|---:|"]
    for name, fused, op_by_op in nn_rows:
        ratio = paired_ratio(fused, op_by_op)
        low, high = paired_interval(fused, op_by_op)
        lines.append(f"| {name} | {fmt_stats(fused)} | {fmt_stats(op_by_op)} | **{ratio:.2f}x** | "
                     f"{low:.2f}-{high:.2f}x | {'met' if ratio <= 1.0 else 'missed'} |")
    lines += ["", "## A compiled special function: once on the whole array, or once per block of a fusion pass", "",
              "| function, dtype | whole array | blocks of 16384 | blocks of 65536 | 16384 / whole | 65536 / whole |",
              "|---|---:|---:|---:|---:|---:|"]
    for name, whole, small, large in block_rows:
        lines.append(f"| {name} | {fmt_stats(whole)} | {fmt_stats(small)} | {fmt_stats(large)} | "
                     f"{paired_ratio(small, whole):.2f}x | {paired_ratio(large, whole):.2f}x |")
    load = load_average()
    lines += ["", f"Load average after the run: {load}." if load else ""]
    return "\n".join(lines).rstrip() + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds (numbers not for quoting)")
    parser.add_argument("--output", default=str(HERE / "NN_RESULTS.md"), help="where the Markdown report goes")
    options = parser.parse_args(argv)
    text = report(run_nn(options.quick), run_blocks(options.quick), options.quick)
    Path(options.output).write_text(text)
    print(text)


if __name__ == "__main__":
    main()
