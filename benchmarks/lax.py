"""sx.lax beside JAX: a small CNN trained under `jit(value_and_grad)`, and a three-operand einsum, in one process.

    python -m benchmarks.lax [--quick] [--devices host,cpu:1] [--output benchmarks/LAX_RESULTS.md]

Issue 43's targets:
- the CNN (float32: two 3x3 convolutions with relu and 2x2 max pooling by `reduce_window`, a dense layer,
  log_softmax cross-entropy, SGD with momentum): its losses equal JAX's to float32 tolerance; the steady step is
  <= 1.1x `jax.jit`'s and the first call (trace, lower, compile, run) <= 1.2x, on the host and on `cpu:1` (a JAX
  CPU device standing in for an accelerator), and on a GPU when one is lent (`--devices host,gpu:0`);
- `einsum("ij,jk,kl->il")`: <= 1.1x `jnp.einsum` under jit, and eagerly on the host <= 1.2x
  `np.einsum(optimize=True)`.

Timing: `common.interleaved` (every round calls each callable once, in a rotating order) and `common.paired_ratio`
(the median over rounds of the two calls' ratio), so a change in the machine's load falls on both sides. Steady
calls wait for their results (`block_until_ready`; eager stridex: `sx.eval`). A first call is timed on a function
object never called before, after `sx.clear_caches()` and `jax.clear_caches()`, the two libraries alternating,
and the median of the rounds is reported. The same program, written once for either library, is
`tests/lax/test_cnn.py`'s.
"""

from __future__ import annotations

import argparse
import datetime
import os
import statistics
import time
from pathlib import Path

if "--xla_force_host_platform_device_count" not in os.environ.get("XLA_FLAGS", ""):
    os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=4").strip()

import numpy as np

from benchmarks.common import git_commit, interleaved, load_average, machine_info, paired_ratio

HERE = Path(__file__).resolve().parent
DEVICE = "cpu:1"

# --- the CNN, written once for either library ----------------------------------------------------------------------

BATCH, SIDE, CLASSES = 32, 28, 10
LEARNING_RATE, MOMENTUM = 0.05, 0.9


def init_params(seed: int = 0) -> dict:
    """NumPy float32 parameters: two 3x3 convolutions (HWIO, 8 then 16 features) and a dense layer."""
    rng = np.random.default_rng(seed)

    def normal(shape, fan_in):
        return (rng.standard_normal(shape) / np.sqrt(fan_in)).astype(np.float32)

    return {"conv1": (normal((3, 3, 1, 8), 9), np.zeros(8, np.float32)),
            "conv2": (normal((3, 3, 8, 16), 72), np.zeros(16, np.float32)),
            "dense": (normal((7 * 7 * 16, CLASSES), 784), np.zeros(CLASSES, np.float32))}


def batch(seed: int = 1, size: int = BATCH) -> tuple:
    """NumPy float32 images (NHWC) and one-hot labels."""
    rng = np.random.default_rng(seed)
    images = rng.standard_normal((size, SIDE, SIDE, 1)).astype(np.float32)
    labels = np.eye(CLASSES, dtype=np.float32)[rng.integers(0, CLASSES, size)]
    return images, labels


def cnn_step(xp, lax, nn, tree_map, value_and_grad):
    """The training step for a library (`xp` its array namespace, `lax` and `nn` its lax and nn modules):
    `step(params, velocity, images, labels) -> (params, velocity, loss)`, not yet jitted."""
    minus_inf = np.array(-np.inf, np.float32)

    def conv(x, w, b):
        y = lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
        return nn.relu(y + b)

    def pool(x):
        return lax.reduce_window(x, minus_inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")

    def loss(params, images, labels):
        x = pool(conv(images, *params["conv1"]))
        x = pool(conv(x, *params["conv2"]))
        x = xp.reshape(x, (x.shape[0], -1))
        logits = x @ params["dense"][0] + params["dense"][1]
        return -xp.mean(xp.sum(nn.log_softmax(logits) * labels, axis=-1))

    def step(params, velocity, images, labels):
        value, grads = value_and_grad(loss)(params, images, labels)
        velocity = tree_map(lambda v, g: MOMENTUM * v + g, velocity, grads)
        params = tree_map(lambda p, v: p - LEARNING_RATE * v, params, velocity)
        return params, velocity, value

    return step


def sx_step():
    import stridex as sx

    return cnn_step(sx, sx.lax, sx.nn, sx.tree_util.tree_map, sx.value_and_grad)


def jax_step():
    import jax
    import jax.numpy as jnp

    return cnn_step(jnp, jax.lax, jax.nn, jax.tree_util.tree_map, jax.value_and_grad)


def sx_arrays(tree, device=None):
    import stridex as sx

    return sx.tree_util.tree_map(lambda a: sx.asarray(a, copy=True, device=device), tree)


def jax_arrays(tree, device=None):
    import jax

    if device is None:
        target = None
    else:
        platform, _, index = device.partition(":")
        target = jax.devices(platform)[int(index or 0)]
    return jax.tree_util.tree_map(lambda a: jax.device_put(a, target), tree)


def train(step, params, velocity, images, labels, steps: int) -> list:
    """The losses of `steps` steps (a float each)."""
    losses = []
    for _ in range(steps):
        params, velocity, value = step(params, velocity, images, labels)
        losses.append(float(np.asarray(value)))
    return losses


# --- timing ----------------------------------------------------------------------------------------------------


def _first_calls(rounds: int, device) -> dict:
    import jax

    import stridex as sx

    params, (images, labels) = init_params(), batch()
    velocity = {k: tuple(np.zeros_like(a) for a in v) for k, v in params.items()}
    times = {"sx": [], "jax": []}
    sx_in = sx_arrays((params, velocity, images, labels), device)
    jax_in = jax_arrays((params, velocity, images, labels), device)
    for r in range(rounds):
        for name in (("sx", "jax") if r % 2 == 0 else ("jax", "sx")):
            if name == "sx":
                sx.clear_caches()
                fn = sx.jit(sx_step())
                t0 = time.perf_counter()
                sx.tree_util.tree_map(lambda a: a.block_until_ready(), fn(*sx_in))
            else:
                jax.clear_caches()
                fn = jax.jit(jax_step())
                t0 = time.perf_counter()
                jax.block_until_ready(fn(*jax_in))
            times[name].append(time.perf_counter() - t0)
    return {k: statistics.median(v) for k, v in times.items()}


def run_cnn(quick: bool, devices=(None, DEVICE)) -> list[dict]:
    import jax

    import stridex as sx

    params, (images, labels) = init_params(), batch()
    velocity = {k: tuple(np.zeros_like(a) for a in v) for k, v in params.items()}
    rows = []
    for device in devices:
        sx_in = sx_arrays((params, velocity, images, labels), device)
        jax_in = jax_arrays((params, velocity, images, labels), device)
        sx_fn, jax_fn = sx.jit(sx_step()), jax.jit(jax_step())
        ours, theirs = train(sx_fn, *sx_in, steps=5), train(jax_fn, *jax_in, steps=5)
        stats = interleaved({"sx": lambda: sx.tree_util.tree_map(lambda a: a.block_until_ready(), sx_fn(*sx_in)),
                             "jax": lambda: jax.block_until_ready(jax_fn(*jax_in))}, rounds=30 if quick else 200)
        first = _first_calls(2 if quick else 7, device)
        rows.append({"where": device or "host", "losses_sx": ours, "losses_jax": theirs,
                     "max_loss_difference": max(abs(a - b) / max(abs(b), 1.0) for a, b in zip(ours, theirs)),
                     "steady_sx": statistics.median(stats["sx"].samples),
                     "steady_jax": statistics.median(stats["jax"].samples),
                     "steady_ratio": paired_ratio(stats["sx"], stats["jax"]),
                     "first_sx": first["sx"], "first_jax": first["jax"], "first_ratio": first["sx"] / first["jax"]})
    return rows


EINSUM = "ij,jk,kl->il"
EINSUM_SHAPES = {"small": [(8, 16), (16, 32), (32, 8)], "medium": [(64, 128), (128, 256), (256, 64)],
                 "large": [(256, 256), (256, 256), (256, 256)]}


def run_einsum(quick: bool) -> list[dict]:
    import jax
    import jax.numpy as jnp

    import stridex as sx

    rows = []
    rng = np.random.default_rng(2)
    for name, shapes in EINSUM_SHAPES.items():
        arrays = [rng.standard_normal(s).astype(np.float32) for s in shapes]
        ours = [sx.asarray(a, copy=True) for a in arrays]
        theirs = [jnp.asarray(a) for a in arrays]
        sx_fn = sx.jit(lambda *xs: sx.einsum(EINSUM, *xs))
        jax_fn = jax.jit(lambda *xs: jnp.einsum(EINSUM, *xs))
        # (the eager pair and the compiled pair apart: NumPy's BLAS threads spin for a while after a call, and would
        # slow whichever compiled call came next)
        rounds = 50 if quick else 400
        stats = interleaved({"np": lambda: np.einsum(EINSUM, *arrays, optimize=True),
                             "sx": lambda: sx.eval(sx.einsum(EINSUM, *ours))}, rounds=rounds)
        stats.update(interleaved({"sx.jit": lambda: sx_fn(*ours).block_until_ready(),
                                  "jax.jit": lambda: jax_fn(*theirs).block_until_ready()}, rounds=rounds))
        rows.append({"case": f"{name}: {' x '.join(str(s) for s in shapes)}",
                     **{k: statistics.median(v.samples) for k, v in stats.items()},
                     "eager_ratio": paired_ratio(stats["sx"], stats["np"]),
                     "jit_ratio": paired_ratio(stats["sx.jit"], stats["jax.jit"])})
    return rows


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.3g} ms" if seconds >= 1e-3 else f"{seconds * 1e6:.3g} µs"


def report(cnn_rows, einsum_rows, quick: bool, seconds: float) -> str:
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    lines = ["# sx.lax: a small CNN and einsum beside JAX", "",
             f"Generated by `python -m benchmarks.lax{' --quick' if quick else ''}` ({now}, {seconds:.0f} s, "
             f"commit {git_commit()}, load average {load_average()}). Float32. Ratios are medians of per-round "
             "ratios of calls taken side by side (read them, not the absolute times).", "",
             f"The CNN: batch {BATCH} of {SIDE}x{SIDE} images, conv 3x3 (8) + relu + max pool 2x2, conv 3x3 (16) + "
             "relu + max pool 2x2, dense (10), log_softmax cross-entropy, SGD with momentum, one step under "
             "`jit(value_and_grad)`.", "",
             "| where | losses equal JAX's (largest relative difference, 5 steps) | steady step: sx.jit | jax.jit | "
             "ratio | first call: sx.jit | jax.jit | ratio |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in cnn_rows:
        lines.append(f"| {r['where']} | {r['max_loss_difference']:.1e} | {_ms(r['steady_sx'])} | "
                     f"{_ms(r['steady_jax'])} | **{r['steady_ratio']:.2f}x** | {_ms(r['first_sx'])} | "
                     f"{_ms(r['first_jax'])} | **{r['first_ratio']:.2f}x** |")
    lines += ["", f"`einsum(\"{EINSUM}\")`, float32:", "",
              "| operands | np.einsum(optimize=True) | sx.einsum eager | ratio | jax.jit(jnp.einsum) | "
              "sx.jit(sx.einsum) | ratio |", "|---|---:|---:|---:|---:|---:|---:|"]
    for r in einsum_rows:
        lines.append(f"| {r['case']} | {_ms(r['np'])} | {_ms(r['sx'])} | **{r['eager_ratio']:.2f}x** | "
                     f"{_ms(r['jax.jit'])} | {_ms(r['sx.jit'])} | **{r['jit_ratio']:.2f}x** |")
    targets = []
    for r in cnn_rows:
        targets.append((f"CNN losses on {r['where']}: equal to JAX's (float32 tolerance, 1e-4)",
                        f"{r['max_loss_difference']:.1e}", r["max_loss_difference"] <= 1e-4))
        targets.append((f"CNN steady step on {r['where']}: sx.jit / jax.jit <= 1.1", f"{r['steady_ratio']:.2f}x",
                        r["steady_ratio"] <= 1.1))
        targets.append((f"CNN first call on {r['where']}: sx.jit / jax.jit <= 1.2", f"{r['first_ratio']:.2f}x",
                        r["first_ratio"] <= 1.2))
    for r in einsum_rows:
        targets.append((f"einsum {r['case'].split(':')[0]}, eager: sx / np.einsum(optimize=True) <= 1.2",
                        f"{r['eager_ratio']:.2f}x", r["eager_ratio"] <= 1.2))
        targets.append((f"einsum {r['case'].split(':')[0]}, jit: sx.jit / jax.jit <= 1.1", f"{r['jit_ratio']:.2f}x",
                        r["jit_ratio"] <= 1.1))
    lines += ["", "Against the issue's targets:", "", "| target | measured | |", "|---|---:|---|"]
    lines += [f"| {t} | {m} | {'met' if ok else '**not met**'} |" for t, m, ok in targets]
    lines += ["", *machine_info(), ""]
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds (numbers not for quoting)")
    parser.add_argument("--output", default=str(HERE / "LAX_RESULTS.md"), help="where the Markdown report goes")
    parser.add_argument("--devices", default=f"host,{DEVICE}",
                        help="where the CNN runs, comma-separated: host and JAX devices such as cpu:1 or gpu:0")
    options = parser.parse_args(argv)
    devices = [None if d == "host" else d for d in options.devices.split(",")]
    start = time.perf_counter()
    cnn_rows = run_cnn(options.quick, devices)
    einsum_rows = run_einsum(options.quick)
    text = report(cnn_rows, einsum_rows, options.quick, time.perf_counter() - start)
    Path(options.output).write_text(text)
    print(text)


if __name__ == "__main__":
    main()
