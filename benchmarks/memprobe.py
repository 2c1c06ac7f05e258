"""Peak memory of a view-heavy program, measured in a fresh interpreter (one per library and method).

    python -m benchmarks.memprobe {stridex,numpy} N {tracemalloc,rss}

Prints one JSON object. The program: an N-element float64 array (N = a*b*c), then many views of it
(slices with steps, reversed slices, transposes, reshapes of contiguous arrays, flips), all kept alive, then
reductions of two of them. `tracemalloc` sees NumPy's data buffers (NumPy reports them to it), and so
stridex's, whose storage is NumPy memory; `rss` reads the process's peak resident size before and after
the program, without tracemalloc's bookkeeping: on Linux VmHWM from /proc/self/status, reset by writing
5 to /proc/self/clear_refs once the input exists (`getrusage`'s ru_maxrss cannot be reset, and in a child
started by vfork it starts at the parent's peak), elsewhere ru_maxrss.
"""

from __future__ import annotations

import json
import sys

ROUNDS = 40  # each round makes 9 views


def shape_for(n: int) -> tuple[int, int, int]:
    """A 3-D shape of n elements (n a power of ten of at least 10^3): (100, 100, n / 10^4) or smaller."""
    a = 10
    while a * a * a * 100 <= n and a < 100:
        a *= 10
    return a, a, n // (a * a)


def namespace(name: str):
    if name == "stridex":
        import stridex

        return stridex
    if name == "numpy":
        import numpy

        return numpy
    raise SystemExit(f"unknown library {name!r}")


def make_input(xp, n: int):
    """The same input for both libraries: NumPy's arange (every page written), adopted without a copy."""
    import numpy as np

    return xp.asarray(np.arange(n, dtype=np.float64))


def views(xp, x, shape):
    """ROUNDS rounds of views, each of x or of an earlier view; returns them all (kept alive)."""
    a, b, c = shape
    cube = xp.reshape(x, shape)  # contiguous: a view
    flat2 = xp.reshape(x, (a * b, c))  # contiguous: a view
    out = [cube, flat2]
    for i in range(ROUNDS):
        v = cube[i % 3::2, ::-1, 1:]  # steps and a reversed axis
        v = xp.permute_dims(v, (2, 0, 1))  # transpose
        v = xp.flip(v, axis=1)  # flip
        v = v[:, 1:-1, ::3]  # slice of a view
        w = flat2.T  # 2-D transpose
        w = w[::2, i % 5:]  # slice of the transpose
        w = xp.flip(w)  # flip all axes
        r = xp.reshape(cube[i % a], (b * c,))  # a contiguous row block, reshaped: a view
        r = r[::-7]
        out += [v, w, r, xp.permute_dims(cube, (1, 2, 0)), xp.flip(cube, axis=2)]
    return out


def program(xp, x, shape):
    vs = views(xp, x, shape)
    return vs, float(xp.sum(vs[-5])) + float(xp.sum(vs[-3]))  # reductions over strided, reversed views


def reset_peak_rss() -> bool:
    """Reset the peak resident size (Linux: VmHWM), True when it could."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        return False
    return _vmhwm() is not None


def _vmhwm() -> int | None:
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def peak_rss() -> int:
    """Peak resident bytes: VmHWM where Linux gives it, else ru_maxrss (KiB on Linux, bytes on macOS)."""
    hwm = _vmhwm()
    if hwm is not None:
        return hwm
    import resource

    maxrss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return maxrss if sys.platform == "darwin" else maxrss * 1024


def main(argv: list[str]) -> None:
    lib, n, method = argv[0], int(argv[1]), argv[2]
    xp = namespace(lib)
    shape = shape_for(n)
    result = {"library": lib, "n": n, "shape": shape, "input_bytes": n * 8, "method": method}
    if method == "tracemalloc":
        import tracemalloc

        tracemalloc.start()
        x = make_input(xp, n)
        base = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        vs = views(xp, x, shape)
        after_views, views_peak = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        total = float(xp.sum(vs[-5])) + float(xp.sum(vs[-3]))
        reduce_peak = tracemalloc.get_traced_memory()[1]
        result.update(n_views=len(vs), views_retained=after_views - base, views_peak=views_peak - base,
                      program_peak=max(views_peak, reduce_peak) - base, input_traced=base, checksum=total)
    elif method == "rss":
        x = make_input(xp, n)
        reset = reset_peak_rss()
        before = peak_rss()
        vs, total = program(xp, x, shape)
        after = peak_rss()
        result.update(n_views=len(vs), peak_before=before, peak_after=after, rss_peak_increase=after - before,
                      source="VmHWM (reset)" if reset else "ru_maxrss", checksum=total)
    else:
        raise SystemExit(f"unknown method {method!r}")
    print(json.dumps(result))


if __name__ == "__main__":
    main(sys.argv[1:])
