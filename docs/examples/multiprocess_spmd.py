"""One stridex program over one global array whose rows live on the devices of several processes.

Each process runs this same file (SPMD: single program, multiple data). `jax.distributed` connects them;
the global array is a `jax.Array` sharded over a mesh of every process's devices, and `sx.asarray` takes
it without a copy: its device is that mesh. Eager stridex operations, `sx.jit` and `sx.grad` on it then
run as one program over all processes, and XLA inserts the collectives (here JAX's CPU collectives, Gloo).

On one machine, two processes on the loopback address with two CPU devices each (what the test runs):

    python docs/examples/multiprocess_spmd.py

One process of a run over several hosts (each host runs one, with its own --process-id; on a GPU host
its devices are its GPUs, so leave out --cpu-devices):

    python docs/examples/multiprocess_spmd.py --coordinator HOST0:1234 --num-processes 4 --process-id K

Each process checks the result against NumPy on the whole data set and prints one line; the launcher
exits 0 when every process did, 77 when this JAX has no CPU collectives (nothing was checked).
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import time

ROWS_PER_DEVICE, FEATURES, STEPS, LEARNING_RATE = 4, 3, 5, 0.1
UNAVAILABLE = 77  # exit status: this JAX cannot run CPU collectives across processes


def data():
    """The whole data set (the same on every process: a seeded generator); each process keeps its rows."""
    import numpy as np

    rng = np.random.default_rng(0)
    return rng.standard_normal((64, FEATURES)), rng.standard_normal(64)


def reference(X, y, steps):
    """The same training loop in NumPy on the whole data set: the values every process must get."""
    import numpy as np

    X = (X - X.mean(axis=0)) / X.std(axis=0)
    w = np.zeros(X.shape[1])
    for _ in range(steps):
        w = w - LEARNING_RATE * 2 * X.T @ (X @ w - y) / len(y)
    return w, float(np.mean((X @ w - y) ** 2))


def worker(args) -> int:
    if args.cpu_devices:  # before JAX starts: this process's CPU devices
        os.environ["XLA_FLAGS"] = f"{os.environ.get('XLA_FLAGS', '')} " \
                                  f"--xla_force_host_platform_device_count={args.cpu_devices}".strip()
        os.environ.setdefault("JAX_PLATFORMS", "cpu")
    import jax

    jax.config.update("jax_enable_x64", True)  # the data are float64, as NumPy's (JAX would make them float32)
    if args.cpu_devices:
        try:
            jax.config.update("jax_cpu_collectives_implementation", "gloo")
        except (AttributeError, ValueError) as exc:
            print(f"process {args.process_id}: no CPU collectives in JAX {jax.__version__}: {exc}", flush=True)
            return UNAVAILABLE
    jax.distributed.initialize(args.coordinator, num_processes=args.num_processes, process_id=args.process_id,
                               initialization_timeout=args.timeout)
    try:
        return train(args)
    finally:
        jax.distributed.shutdown()


def train(args) -> int:
    import jax
    import numpy as np
    from jax.sharding import Mesh, NamedSharding, PartitionSpec

    import stridex as sx

    mesh = Mesh(np.array(jax.devices()), ("rows",))  # every device of every process
    by_rows = NamedSharding(mesh, PartitionSpec("rows"))
    n = ROWS_PER_DEVICE * len(jax.devices())
    X_all, y_all = data()
    X_all, y_all = X_all[:n], y_all[:n]

    # Each process holds only its own rows: the global jax.Array is assembled from process-local data.
    rows = sorted({idx[0].indices(n)[:2] for idx in by_rows.addressable_devices_indices_map((n,)).values()})
    local = slice(rows[0][0], rows[-1][1])
    X = sx.asarray(jax.make_array_from_process_local_data(by_rows, X_all[local], (n, FEATURES)))
    y = sx.asarray(jax.make_array_from_process_local_data(by_rows, y_all[local], (n,)))
    assert X.device == y.device and X.device.name.startswith("sharded(")

    # Eager stridex on the global array: reductions over all processes, and a write into its storage.
    X[...] = (X - sx.mean(X, axis=0)) / sx.std(X, axis=0)

    def loss(w, X, y):
        r = X @ w - y
        return sx.mean(r * r)

    @sx.jit
    def step(w, X, y):
        return w - LEARNING_RATE * sx.grad(loss)(w, X, y)

    w = sx.zeros(FEATURES, device=X.device)  # made from nothing on the mesh: replicated over it
    for _ in range(STEPS):
        w = step(w, X, y)
    final = float(loss(w, X, y))

    want_w, want_loss = reference(X_all, y_all, STEPS)
    got_w = np.asarray(w)  # w is replicated: every process holds all of it
    ok = np.allclose(got_w, want_w, rtol=1e-10, atol=1e-12) and np.isclose(final, want_loss, rtol=1e-10)
    print(f"process {jax.process_index()} of {jax.process_count()}: local devices "
          f"{[str(d) for d in jax.local_devices()]}, rows {local.start}:{local.stop} of {n}, "
          f"loss {final:.12f} (NumPy {want_loss:.12f}), w {np.round(got_w, 6).tolist()}: "
          f"{'OK' if ok else 'MISMATCH'}", flush=True)
    return 0 if ok else 1


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def launch(args) -> int:
    """Start `--num-processes` workers on this machine (loopback only) and wait for all of them."""
    coordinator = f"127.0.0.1:{free_port()}"
    command = [sys.executable, os.path.abspath(__file__), "--coordinator", coordinator,
               "--num-processes", str(args.num_processes), "--cpu-devices", str(args.cpu_devices or 2),
               "--timeout", str(args.timeout)]
    procs = [subprocess.Popen([*command, "--process-id", str(k)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True) for k in range(args.num_processes)]
    deadline = time.monotonic() + args.timeout
    codes, outputs = [], []
    for p in procs:
        try:
            out, _ = p.communicate(timeout=max(1.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            for q in procs:
                q.kill()
            out, _ = p.communicate()
            out += f"\n(timed out after {args.timeout} s)"
        codes.append(p.returncode)
        outputs.append(out)
    for k, (code, out) in enumerate(zip(codes, outputs)):
        lines = [line for line in out.splitlines() if line.startswith("process ") or code]
        print(f"--- process {k}, exit status {code}", *lines[-30:], sep="\n")
    if any(code == UNAVAILABLE for code in codes):
        return UNAVAILABLE
    return 0 if all(code == 0 for code in codes) else 1


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--coordinator", help="host:port of process 0 (leave out to launch processes here)")
    parser.add_argument("--num-processes", type=int, default=2)
    parser.add_argument("--process-id", type=int)
    parser.add_argument("--cpu-devices", type=int, help="CPU devices per process (leave out on GPU hosts)")
    parser.add_argument("--timeout", type=int, default=120, help="seconds to connect (and, launching, to finish)")
    args = parser.parse_args(argv)
    if args.coordinator is None:
        return launch(args)
    if args.process_id is None:
        parser.error("--process-id is needed with --coordinator")
    return worker(args)


if __name__ == "__main__":
    sys.exit(main())
