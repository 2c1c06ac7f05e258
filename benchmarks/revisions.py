"""Two revisions of stridex side by side on the per-call costs a restructuring can move: eager dispatch
(one-element `x + y`, operation chains, a view), the steady-state and first `jit` call, device writes, eager
fusion's passes on the host and on a JAX device, and `import stridex` in a fresh process.

    python -m benchmarks.revisions BEFORE [AFTER] [--rounds 7]

Each revision is checked out into a temporary git worktree (AFTER defaults to the working tree itself) and
timed in its own subprocess; rounds alternate between the two, so that changes in the machine's load hit
both alike, and the table gives each case's minimum per-call time over the rounds and the ratio AFTER/BEFORE.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

# Timed in the subprocess: each case is (name, setup, statement); the per-call minimum of 5 repeats.
CASES = [
    ("eager x + y (1 element)", "x = sx.asarray([1.0]); y = sx.asarray([2.0])", "x + y"),
    ("eager sx.add(x, y) (1 element)", "x = sx.asarray([1.0]); y = sx.asarray([2.0])", "sx.add(x, y)"),
    ("eager 10-op chain (1000 elements)", "x = sx.linspace(0.0, 1.0, 1000)",
     "sx.sum(sx.sqrt(sx.exp(-(x * 2.0 + 1.0) ** 2) + 1.0) / 3.0 - x)"),
    ("eager x + y (1000 elements)", "x = sx.linspace(0.0, 1.0, 1000); y = x + 1.0", "x + y"),
    ("eager 40-op chain (1 element)",  # (every operation on one element: all dispatch)
     "x = sx.asarray([0.5])\ndef chain(x):\n    for _ in range(10):\n        x = sx.sin(x * 1.5 + 0.25) - x\n"
     "    return x", "chain(x)"),
    ("eager view x[1:, ::2].T", "x = sx.reshape(sx.arange(64.0), (8, 8))", "x[1:, ::2].T"),
    ("eager sx.sum(x) (1 element)", "x = sx.asarray([1.0])", "sx.sum(x)"),
    ("jit steady call f(x) (1 element)", "f = sx.jit(lambda a: a * 2.0 + 1.0); x = sx.asarray([1.0]); f(x); f(x)",
     "f(x)"),
    ("jit steady call f(x, y) (1000 elements)",
     "f = sx.jit(lambda a, b: sx.sum(a * b)); x = sx.linspace(0.0, 1.0, 1000); y = x + 1.0; f(x, y); f(x, y)",
     "f(x, y)"),
    ("jit steady call f(x, y) (10^6 elements)",
     "f = sx.jit(lambda a, b: a * b + 1.0); x = sx.linspace(0.0, 1.0, 10**6); y = x + 1.0; f(x, y); f(x, y)",
     "f(x, y)"),
    ("jit steady call, two outputs (1000 elements)",
     "f = sx.jit(lambda a, b: (a * b, a + b)); x = sx.linspace(0.0, 1.0, 1000); y = x + 1.0; f(x, y); f(x, y)",
     "f(x, y)"),
    ("jit steady call writing a[1:3] = v (1000 elements)",
     "def w(a, v):\n    a[1:3] = v\nf = sx.jit(w); x = sx.zeros(1000); f(x, 2.0); f(x, 2.0)", "f(x, 2.0)"),
    ("jit steady call writing a[i] = v, i an array (1000 elements)",
     "def w(a, i, v):\n    a[i] = v\n"
     "f = sx.jit(w); x = sx.zeros(1000); i = sx.asarray([3, 5]); f(x, i, 2.0); f(x, i, 2.0)",
     "f(x, i, 2.0)"),
    # JAX's CPU device as a device (not the host): the device storage's write and read paths
    ("device write x[1] = 2.0 (cpu:0, 8 elements)", "x = sx.zeros(8, device='cpu:0'); x[1] = 2.0; x[1] = 2.0",
     "x[1] = 2.0"),
    ("device write x[1] = 2.0 (cpu:0, 10^3 elements)",
     "x = sx.zeros(10**3, device='cpu:0'); x[1] = 2.0; x[1] = 2.0", "x[1] = 2.0"),
    ("device write x[1] = 2.0 (cpu:0, 10^7 elements)",  # O(view): the buffer is donated and updated in place
     "x = sx.zeros(10**7, device='cpu:0'); x[1] = 2.0; x[1] = 2.0", "x[1] = 2.0"),
    ("device x[0] = x[1] (cpu:0, 10^7 elements)",  # a value read from the donated buffer itself
     "x = sx.zeros(10**7, device='cpu:0'); x[0] = x[1]; x[0] = x[1]", "x[0] = x[1]"),
    ("device x + y (cpu:0, 1 element)", "x = sx.ones(1, device='cpu:0'); y = x + 1.0; x + y; x + y", "x + y"),
    ("device jit steady call f(x) (cpu:0, 1 element)",
     "f = sx.jit(lambda a: a * 2.0 + 1.0); x = sx.ones(1, device='cpu:0'); f(x); f(x); f(x)", "f(x)"),
    ("jit(grad) steady call, two gradients (3x3)",
     ("f = sx.jit(sx.grad(lambda w, v: sx.sum(sx.tanh(w @ v) ** 2), argnums=(0, 1))); "
     "w = sx.reshape(sx.linspace(0.0, 1.0, 9), (3, 3)); v = w + 1.0; f(w, v); f(w, v)"),
     "f(w, v)"),
    # eager fusion's workloads (a pass forced by the sum), on the host and on a JAX device
    ("fusion 10-op chain forced by a sum (10^6 elements, host)", "x = sx.linspace(0.0, 1.0, 10**6)",
     "float(sx.sum(sx.sqrt(sx.exp(-(x * 2.0 + 1.0) ** 2) + 1.0) / 3.0 - x))"),
    ("fusion 10-op chain forced by a sum (10^6 elements, cpu:0)",
     "x = sx.linspace(0.0, 1.0, 10**6, device='cpu:0')",
     "float(sx.sum(sx.sqrt(sx.exp(-(x * 2.0 + 1.0) ** 2) + 1.0) / 3.0 - x))"),
    # jit's first call: a new function each time, so trace, lowering and XLA's compile every time
    ("jit first call (trace + lower + compile + run), 8 ops", "x = sx.linspace(0.0, 1.0, 100)",
     "sx.jit(lambda a: sx.sum(sx.tanh(a * 2.0 + 1.0) / 3.0 - a))(x)"),
]

_CHILD = r"""
import json, sys, timeit
import stridex as sx
out = {}
for name, setup, stmt in json.loads(sys.argv[1]):
    env = {"sx": sx}
    exec(setup, env)
    timer = timeit.Timer(stmt, globals=env)
    n = 1
    while timer.timeit(n) < 0.02:
        n *= 2
    out[name] = min(timer.repeat(5, n)) / n
print(json.dumps(out))
"""


IMPORT = "import stridex (a fresh process)"
_IMPORT_CHILD = "import time; t = time.perf_counter(); import stridex; print(time.perf_counter() - t)"


def _measure(checkout: Path) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    done = subprocess.run([sys.executable, "-c", _CHILD, json.dumps(CASES)], env=env, capture_output=True,
                          text=True, check=True, cwd=checkout)
    out = json.loads(done.stdout.strip().splitlines()[-1])
    imports = []
    for _ in range(5):  # (the import alone, timed in the fresh process)
        done = subprocess.run([sys.executable, "-c", _IMPORT_CHILD], env=env, capture_output=True, text=True,
                              check=True, cwd=checkout)
        imports.append(float(done.stdout.strip().splitlines()[-1]))
    out[IMPORT] = min(imports)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.revisions", description=__doc__.splitlines()[0])
    parser.add_argument("before", help="git revision to compare against")
    parser.add_argument("after", nargs="?", default=None, help="git revision (default: the working tree)")
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        checkouts = {}
        for label, rev in (("before", args.before), ("after", args.after)):
            if rev is None:
                checkouts[label] = REPO
                continue
            path = Path(tmp) / label
            subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", "-q", str(path), rev], check=True)
            checkouts[label] = path
        for path in checkouts.values():  # (bytecode for both alike: PYTHONDONTWRITEBYTECODE may be set)
            compileall.compile_dir(str(path / "stridex"), quiet=1)
        try:
            best: dict[str, dict[str, float]] = {"before": {}, "after": {}}
            for _ in range(args.rounds):
                for label in ("before", "after"):
                    for name, t in _measure(checkouts[label]).items():
                        best[label][name] = min(t, best[label].get(name, float("inf")))
        finally:
            for label, path in checkouts.items():
                if path != REPO:
                    subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(path)], check=False)
    print(f"| case | {args.before} | {args.after or 'working tree'} | ratio |")
    print("|---|---:|---:|---:|")
    for name in [name for name, *_ in CASES] + [IMPORT]:
        b, a = best["before"][name], best["after"][name]
        print(f"| {name} | {b * 1e6:.2f} µs | {a * 1e6:.2f} µs | {a / b:.2f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
