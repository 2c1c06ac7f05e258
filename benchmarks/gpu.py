"""Device benchmarks: stridex arrays that live on a JAX device against JAX itself, side by side in one run.

    python -m benchmarks.gpu [--device cuda:0] [--quick] [--output benchmarks/GPU_RESULTS.md]

The device defaults to JAX's first GPU; `--device cpu:1` (with XLA_FLAGS=--xla_force_host_platform_device_count=2
or more) runs the same cases on a JAX CPU device, which checks the script and the device code paths, not GPU
speed. Results go to GPU_RESULTS.md only when the device is a GPU (else to --output, if given).

Cases (issue 9's table and targets, each against the same program in JAX):
1. 40 elementwise ops at 10^7 and 5*10^7 float32 under `jit`: inputs already on the device (the target,
   <= 1.1x `jax.jit`), and inputs in host memory (`sx.asarray(numpy)`), where a program on host arrays runs:
   on XLA:CPU, against JAX's same program on its CPU device;
2. matmul 4096x4096 float32 under `jit` at equal precision (HIGHEST on both sides; then JAX's default);
3. `jit(grad(MLP loss))`, inputs on the device (<= 1.2x);
4. first call (trace + lower + compile + run), 40 ops (<= 1.2x);
5. eager dispatch on the device: one-element `x + y` and a 10-op chain against `jax.numpy` eager (<= 1.5x);
6. a write through a small view into a large device array, against the same write into a small array
   (O(view), not O(storage): the ratio should be near 1), the same for a write that reads its own target
   (`x[0:10] = x[10:20]`), and a view read (`x[::2, 1:]` then a sum);
7. `max` of 10^7 float32 under `jit` (NaN-propagating) against `jax.jit(jnp.max)`, on the device and on the
   host (<= 1.2x), with what each gives on data holding a NaN. It runs first.
All times are medians of interleaved rounds (benchmarks.common.measure); every call blocks on its result.
"""

from __future__ import annotations

import argparse
import datetime
import platform
import statistics
import sys
import traceback
from pathlib import Path

import numpy as np

from benchmarks.common import block, chain, measure

HERE = Path(__file__).resolve().parent


def _median(stats) -> float:
    return statistics.median(stats.samples) if stats.ok else float("nan")


def _pair(name, sx_fn, jax_fn, rows, cfg, note=""):
    res = measure({"stridex": sx_fn, "jax": jax_fn}, repeats=cfg["repeats"], target_s=cfg["target_s"])
    _row(rows, (name, _median(res["stridex"]), _median(res["jax"]), note or res["stridex"].note or ""))


def _row(rows, row):
    """Record a result and print it at once: a device run that is cut short still reports what it measured."""
    rows.append(row)
    print(format_rows([row]).splitlines()[-1], flush=True)


def _case(rows, name, body):
    """Run one case; a case that fails is a row saying so (with its exception), and the later cases still run."""
    try:
        body()
    except Exception as exc:  # noqa: BLE001 - the table reports it, the traceback goes to stderr
        traceback.print_exc()
        _row(rows, (name, float("nan"), float("nan"), f"FAILED: {type(exc).__name__}: {str(exc)[:200]}"))


def run(device: str, quick: bool, cases: set | None = None) -> tuple[list, str]:
    import jax
    import jax.numpy as jnp

    import stridex as sx

    dev = sx.__array_namespace_info__().devices()[
        [d.name for d in sx.__array_namespace_info__().devices()].index(device)]
    jd = dev.jax
    cfg = {"repeats": 3 if quick else 7, "target_s": 0.02 if quick else 0.1}
    sizes = [10**4, 10**5] if quick else [10**7, 5 * 10**7]
    rows: list = []
    rng = np.random.default_rng(0)

    def put(a):
        return jax.device_put(a, jd)

    cpu0 = jax.devices("cpu")[0]

    # 1. 40 elementwise ops under jit
    def elementwise():
        f_sx = sx.jit(lambda a, b: chain(sx, a, b, 40))
        f_jax = jax.jit(lambda a, b: chain(jnp, a, b, 40))
        for n in sizes:
            a, b = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
            xs, ys = sx.asarray(a, device=dev), sx.asarray(b, device=dev)
            xj, yj = put(a), put(b)
            _pair(f"40 elementwise ops, {n:.0e} float32, inputs on the device (target <= 1.1x)",
                  lambda xs=xs, ys=ys: block(f_sx(xs, ys)), lambda xj=xj, yj=yj: f_jax(xj, yj).block_until_ready(),
                  rows, cfg)
            hs, hy = sx.asarray(a), sx.asarray(b)

            def on_host_jax(a=a, b=b):
                with jax.default_device(cpu0):
                    return f_jax(a, b).block_until_ready()

            _pair("same, inputs in host memory: both run there, on XLA:CPU (JAX given the NumPy arrays)",
                  lambda hs=hs, hy=hy: block(f_sx(hs, hy)), on_host_jax, rows, cfg)

    # 2. matmul at equal precision, then JAX's default against stridex's switch
    def matmul():
        m = 512 if quick else 4096
        a = rng.standard_normal((m, m)).astype(np.float32)
        xs, xj = sx.asarray(a, device=dev), put(a)
        mm_sx = sx.jit(lambda p, q: p @ q)
        mm_hi = jax.jit(lambda p, q: jnp.matmul(p, q, precision=jax.lax.Precision.HIGHEST))
        mm_default = jax.jit(lambda p, q: p @ q)
        _pair(f"matmul {m}x{m} float32, both HIGHEST (target <= 1.1x)", lambda: block(mm_sx(xs, xs)),
              lambda: mm_hi(xj, xj).block_until_ready(), rows, cfg)
        with sx.matmul_precision("default"):
            mm_fast = sx.jit(lambda p, q: p @ q)
            _pair(f"matmul {m}x{m} float32, both at JAX's default precision (TF32 on a GPU)",
                  lambda: block(mm_fast(xs, xs)), lambda: mm_default(xj, xj).block_until_ready(), rows, cfg)

    # 3. jit(grad(MLP loss)), inputs on the device
    def mlp_grad():
        def mlp(xp):
            def loss(w1, w2, x):
                return xp.mean((xp.tanh(x @ w1) @ w2) ** 2)
            return loss

        w1, w2, xb = (rng.standard_normal(s).astype(np.float32) for s in ((64, 256), (256, 16), (128, 64)))
        g_sx = sx.jit(sx.grad(mlp(sx), argnums=(0, 1)))
        g_jax = jax.jit(jax.grad(mlp(jnp), argnums=(0, 1)))
        s_args = [sx.asarray(t, device=dev) for t in (w1, w2, xb)]
        j_args = [put(t) for t in (w1, w2, xb)]
        _pair("jit(grad(MLP loss)), inputs on the device (target <= 1.2x)", lambda: block(g_sx(*s_args)),
              lambda: jax.block_until_ready(g_jax(*j_args)), rows, cfg)

    # 4. first call, 40 ops (fresh functions each time)
    def first_call():
        xs1, xj1 = sx.asarray(np.ones(1000, np.float32), device=dev), put(np.ones(1000, np.float32))

        def first_sx():
            block(sx.jit(lambda p, q: chain(sx, p, q, 40))(xs1, xs1))

        def first_jax():
            jax.jit(lambda p, q: chain(jnp, p, q, 40))(xj1, xj1).block_until_ready()

        res = measure({"stridex": first_sx, "jax": first_jax}, repeats=3, target_s=0.0)
        _row(rows, ("first call (trace + lower + compile + run), 40 ops (target <= 1.2x)", _median(res["stridex"]),
                    _median(res["jax"]), ""))

    # 5. eager dispatch on the device
    def eager():
        x1, y1 = sx.asarray(np.ones(1, np.float32), device=dev), sx.asarray(np.full(1, 2, np.float32), device=dev)
        j1, k1 = put(np.ones(1, np.float32)), put(np.full(1, 2, np.float32))
        _pair("eager x + y, one element on the device (target <= 1.5x jax.numpy)",
              lambda: (x1 + y1).block_until_ready(), lambda: (j1 + k1).block_until_ready(), rows, cfg)
        _pair("eager 10-op chain, one element on the device", lambda: chain(sx, x1, y1, 10).block_until_ready(),
              lambda: chain(jnp, j1, k1, 10).block_until_ready(), rows, cfg)

    # 6. views and writes on device memory
    def views():
        big_n = 10**6 if quick else 10**8
        big = sx.zeros(big_n, dtype=sx.float32, device=dev)
        small = sx.zeros(1000, dtype=sx.float32, device=dev)

        def write_big():
            big[10:20] = 1.0
            big.block_until_ready()

        def write_small():
            small[10:20] = 1.0
            small.block_until_ready()

        res = measure({"big": write_big, "small": write_small}, repeats=cfg["repeats"], target_s=cfg["target_s"])
        name = (f"x[10:20] = 1 into a {big_n:.0e}-element device array (JAX column: the same write into 1000 "
                "elements; O(view) means ~1x)")
        _row(rows, (name, _median(res["big"]), _median(res["small"]), ""))

        def overlap_big():  # a write that reads its own target (issue 23): still a donation, O(view)
            big[0:10] = big[10:20]
            big.block_until_ready()

        def overlap_small():
            small[0:10] = small[10:20]
            small.block_until_ready()

        res = measure({"big": overlap_big, "small": overlap_small}, repeats=cfg["repeats"], target_s=cfg["target_s"])
        _row(rows, (f"x[0:10] = x[10:20] (reads its own target) into {big_n:.0e} elements (JAX column: into 1000)",
                    _median(res["big"]), _median(res["small"]), ""))
        mat = sx.reshape(sx.arange(4 * 10**6 if not quick else 4 * 10**4, dtype=sx.float32, device=dev), (2000, -1))
        matj = put(np.arange(mat.size, dtype=np.float32).reshape(2000, -1))
        view_sum = jax.jit(lambda t: jnp.sum(t[::2, 1:]))
        _pair("sum of a strided view x[::2, 1:] (eager stridex; JAX: jitted)",
              lambda: sx.sum(mat[::2, 1:]).block_until_ready(), lambda: view_sum(matj).block_until_ready(), rows, cfg)

    # 7. max of 10^7 float32 under jit (issue 25): stridex's NaN-propagating lowering against jnp.max, on the
    # device and on the host's XLA:CPU; the note says what each gives when the data holds a NaN.
    def reductions():
        n = 10**5 if quick else 10**7
        a = rng.random(n).astype(np.float32)
        a_nan = a.copy()
        a_nan[n // 3] = np.nan
        max_sx, max_jax = sx.jit(sx.max), jax.jit(jnp.max)
        for where, d, jd_ in (("on the device", dev, jd), ("in host memory (XLA:CPU on both sides)", "cpu", cpu0)):
            xs = sx.asarray(a, device=d, copy=True)
            xj = jax.device_put(a, jd_)
            with_nan = (float(max_sx(sx.asarray(a_nan, device=d, copy=True))),
                        float(max_jax(jax.device_put(a_nan, jd_))))
            _pair(f"max of {n:.0e} float32 under jit, inputs {where} (target <= 1.2x)",
                  lambda xs=xs: block(max_sx(xs)), lambda xj=xj: max_jax(xj).block_until_ready(), rows, cfg,
                  note=f"with a NaN: stridex {with_nan[0]}, jnp.max {with_nan[1]}")

    for name, body in [("max under jit", reductions), ("40 elementwise ops", elementwise), ("matmul", matmul), ("jit(grad(MLP loss))", mlp_grad),
                       ("first call", first_call), ("eager dispatch", eager), ("views and writes", views)]:
        if cases is None or body.__name__ in cases:
            _case(rows, name, body)
    return rows, f"{dev.name} ({getattr(jd, 'device_kind', jd)})"


def format_rows(rows) -> str:
    lines = ["| case | stridex | JAX | ratio |", "|---|---:|---:|---:|"]
    for name, a, b, note in rows:
        ratio = a / b if b > 0 else float("nan")  # (NaN for a case that could not run: NaN > 0 is False)
        lines.append(f"| {name}{' — ' + note if note else ''} | {a * 1e3:.3f} ms | {b * 1e3:.3f} ms | {ratio:.2f}x |")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default=None, help="a stridex device name (default: JAX's first GPU)")
    parser.add_argument("--quick", action="store_true", help="small sizes and few rounds (a smoke run)")
    parser.add_argument("--output", default=None, help="where to write the Markdown table")
    parser.add_argument("--cases", default=None,
                        help="comma-separated subset: reductions, elementwise, matmul, mlp_grad, first_call, eager, views")
    args = parser.parse_args(argv)
    import jax

    device = args.device
    if device is None:
        gpus = [d for d in jax.devices() if d.platform == "gpu"]
        if not gpus:
            sys.exit("benchmarks.gpu: JAX sees no GPU here; pass --device cpu:1 (with XLA_FLAGS="
                     "--xla_force_host_platform_device_count=2) to run the cases on a JAX CPU device")
        import stridex as sx

        device = sx._exec.device.of_jax(gpus[0]).name
    rows, where = run(device, args.quick, set(args.cases.split(",")) if args.cases else None)
    table = format_rows(rows)
    header = (f"# Device benchmarks\n\nMeasured {datetime.date.today()} on {where}, host {platform.machine()}, "
              f"Python {platform.python_version()}, JAX {jax.__version__}, NumPy {np.__version__}"
              f"{' (--quick: smoke sizes, not for quoting)' if args.quick else ''}. Medians of interleaved rounds, "
              "every call blocking on its result; stridex and JAX in one process.\n\n")
    print(table)
    output = args.output or (str(HERE / "GPU_RESULTS.md") if not device.startswith("cpu") else None)
    if output:
        Path(output).write_text(header + table + "\n")


if __name__ == "__main__":
    main()
