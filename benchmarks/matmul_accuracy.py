"""What each matmul precision setting costs in accuracy, measured where the product runs.

    python -m benchmarks.matmul_accuracy [--device cuda:0] [--n 512]

For a float32 product of two n x n standard normal matrices (seed 0), computed by `sx.jit(lambda p, q: p @ q)`
under each `sx.matmul_precision` setting on the given device (default: the host, which XLA computes on the
CPU): the largest error against the float64 product, relative to that product's largest entry. A setting the
backend cannot compile is reported as such. docs/jit.md's precision table quotes these numbers.
"""

from __future__ import annotations

import argparse

import numpy as np

SETTINGS = ["highest", "high", "default", "F32_F32_F32", "TF32_TF32_F32", "TF32_TF32_F32_X3", "BF16_BF16_F32",
            "BF16_BF16_F32_X3", "BF16_BF16_F32_X6", "F64_F64_F64"]


def measure(device: str | None, n: int) -> list[tuple[str, str]]:
    import stridex as sx

    rng = np.random.default_rng(0)
    a = rng.standard_normal((n, n)).astype(np.float32)
    b = rng.standard_normal((n, n)).astype(np.float32)
    exact = a.astype(np.float64) @ b.astype(np.float64)
    scale = np.abs(exact).max()
    p, q = sx.asarray(a, device=device), sx.asarray(b, device=device)
    rows = []
    for setting in SETTINGS:
        with sx.matmul_precision(setting):
            try:
                got = np.asarray(sx.jit(lambda x, y: x @ y)(p, q).to_device("cpu")).astype(np.float64)
            except Exception as exc:  # noqa: BLE001 - a preset the backend lacks: XLA says so at compile time
                rows.append((setting, f"does not compile ({type(exc).__name__})"))
                continue
        rows.append((setting, f"{np.abs(got - exact).max() / scale:.1e}"))
    return rows


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default=None, help="a stridex device name (default: the host)")
    parser.add_argument("--n", type=int, default=512)
    args = parser.parse_args(argv)
    import jax

    rows = measure(args.device, args.n)
    where = args.device or "cpu"
    print(f"matmul accuracy, {args.n}x{args.n} float32, on {where} (JAX {jax.__version__}, "
          f"{jax.devices()[0].device_kind if where != 'cpu' else 'XLA:CPU'})")
    print("| setting | max error / max entry |\n|---|---:|")
    for setting, value in rows:
        print(f"| `{setting}` | {value} |")


if __name__ == "__main__":
    main()
