"""A/B runs behind the speed choices in the code, each against the plainer alternative, in one process,
alternating, the minimum per case over the rounds (the comments that quote them say when and where):

- `memo`: jit's memo as generated code (`stridex/_transforms/memo.py`) against a plain closure that loops
  over per-argument records, with the same checks and values;
- `single`: jit's one-output route (`Compiled._run_single`) against the general `Compiled.run` for the
  same program;
- `device`: the eager device executor (`stridex/_exec/device.py`: the compiled executable's call) against
  the same one-equation programs dispatched by a `jax.jit` function (JAX's op-by-op), on `cpu:1`;
- `fold`: the NaN-propagating max lowering (`stridex/_lax/statistical.py`): slabs whose starts are an odd
  number of cache lines apart against slabs exactly length // 16 apart, and folding the outermost reduced
  axis first against the longest first; `jnp.max` (which skips NaN) beside them for scale;
- `storage`: a storage's kind as its class, changed by assigning `__class__`, against one Storage class with a
  `kind` slot holding a kind object (`stridex/_core/storage.py`; docs/design.md, The states of a storage).

    python -m benchmarks.ab_choices [memo|single|device|fold|storage ...] [--rounds 10]
"""

from __future__ import annotations

import argparse
import os
import timeit

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=4")

import stridex as sx  # noqa: E402


def _best(timers: dict, rounds: int, number: int) -> dict:
    best: dict = {}
    for _ in range(rounds):
        for key, timer in timers.items():
            best[key] = min(best.get(key, 1e9), min(timer.repeat(3, number)) / number * 1e6)
    return best


def _report(best: dict, a: str, b: str) -> None:
    for name in dict.fromkeys(k[0] for k in best):
        x, y = best[(name, a)], best[(name, b)]
        print(f"  {name}: {a} {x:.2f} µs, {b} {y:.2f} µs ({y / x:.2f}x)")


# --- memo: generated code against a closure ---------------------------------------------------------

MEMO_CASES = [
    ("f(x), a 1-element window", "f = sx.jit(lambda a: a * 2.0 + 1.0); x = sx.asarray([1.0])", "f(x)"),
    ("f(x, y), 1000-element windows",
     "f = sx.jit(lambda a, b: sx.sum(a * b)); x = sx.linspace(0.0, 1.0, 1000); y = x + 1.0", "f(x, y)"),
    ("f(x), x a JAX result", "f = sx.jit(lambda a: a * 2.0 + 1.0); x = f(sx.asarray([1.0]))", "f(x)"),
    ("f(x, y, z), JAX results", "f = sx.jit(lambda a, b, c: a * b + c); g = sx.jit(lambda a: a + 1.0); "
     "x = g(sx.asarray([1.0])); y = g(x); z = g(y)", "f(x, y, z)"),
]


def _closure_factory(kinds, outputs, checks_precision, count=0):
    """What `memo._factory` makes, as a closure over per-argument records (no precision check: the cases
    have no matmul)."""
    from stridex._core.array import Array
    from stridex._core.state import current_trace
    from stridex._core.storage import JAX_RESULT
    from stridex._exec.device import OWNERS, adopt_out
    from stridex._transforms import memo

    sizes = {memo.BUFFER: 3, memo.DEVICE: 3, memo.RESULT: 2, memo.TINY: 5, memo.WINDOW: 4, None: 4}
    n = len(kinds)
    locked = memo.DEVICE in kinds  # (device buffers handed over holding the lock, as the generated memo does)

    def factory(ref, link, entry, *values):
        records, i = [], 0
        for kind in kinds:
            records.append((kind, values[i:i + sizes[kind]]))
            i += sizes[kind]
        rest = values[i:]

        def call_memo(*args, **kw):
            if kw or len(args) != n or current_trace() is not None:
                return link[0](*args, **kw)
            jax_args, ready = [], True
            for a, (kind, v) in zip(args, records):
                if type(a) is not Array or a._dtype is not v[0]:
                    return link[0](*args)
                if kind is memo.RESULT:
                    if a._view is not v[1] or a._storage is not JAX_RESULT:
                        return link[0](*args)
                    jax_args.append(a._jax)
                elif kind is memo.BUFFER or kind is memo.DEVICE:
                    s = a._storage
                    if a._view is not v[1] or (s.device if kind is memo.DEVICE else s.__class__) is not v[2]:
                        return link[0](*args)
                    o = s.owner
                    ready = ready and o is not None and s.jax_view is v[1]
                    jax_args.append(o)
                else:
                    if a._np is not v[1]:
                        return link[0](*args)
                    ready = ready and (v[4] == v[2] if kind is memo.TINY else v[2] == v[1].tobytes())
                    jax_args.append(v[3])
            if outputs is not None and ready:
                if locked:
                    with OWNERS:
                        out = rest[0](*jax_args)
                else:
                    out = rest[0](*jax_args)
                if outputs == "tuple":
                    return tuple(adopt_out(o, v, d) for o, v, d in zip(out, rest[1::2], rest[2::2]))
                return rest[1](out) if outputs == "several" else adopt_out(out, *rest[1:4])
            return memo.remember_after(ref(), args, entry, call_memo)

        call_memo.entry, call_memo.link = entry, link  # type: ignore[attr-defined]
        return call_memo

    return factory


def ab_memo(rounds: int) -> None:
    from stridex._transforms import memo

    generated = memo._factory
    timers = {}
    for name, setup, stmt in MEMO_CASES:
        for variant, factory in (("generated", generated), ("closure", _closure_factory)):
            memo._factory = factory  # (a memo is made with the factory of the moment, and keeps its code)
            env: dict = {"sx": sx}
            exec(setup, env)  # noqa: S102 - the cases above
            for _ in range(6):
                exec(stmt, env)  # noqa: S102
            assert hasattr(env["f"].__call__, "entry"), (name, variant)  # a memo takes the call
            timers[(name, variant)] = timeit.Timer(stmt, globals=env)
    memo._factory = generated
    print("memo (jit steady call):")
    _report(_best(timers, rounds, 5000), "generated", "closure")


# --- single: the one-output route against the general run ---------------------------------------------

def ab_single(rounds: int) -> None:
    from stridex._exec.jax_bridge import jax
    from stridex._transforms.jit import Compiled
    from stridex._transforms.lowering import lower_program

    f = sx.jit(lambda a: a * 2.0 + 1.0)
    x = sx.asarray([1.0])
    f(x)
    single = next(iter(f._cache.values()))
    assert single.single_output
    general = Compiled.__new__(Compiled)
    general.__dict__ = dict(single.__dict__)
    del general.__dict__["run"]  # (the class's general `run`)
    run = lower_program(single.traced.program)
    general.function = jax().jit(lambda *a: tuple(run(*a)))
    general.aot = general.direct = None
    general.single_output = False
    r = f(x)
    timers = {}
    for what, arg, expected in (("a 1-element window", x, 3.0), ("a JAX result", r, 7.0)):
        for variant, entry in (("one-output route", single), ("general run", general)):
            assert float(entry.run([arg])[0]) == expected
            timers[(what, variant)] = timeit.Timer(lambda entry=entry, arg=arg: entry.run([arg]))
    print("single (Compiled.run for a one-output program, no memo):")
    _report(_best(timers, rounds, 5000), "one-output route", "general run")


# --- device: the executor against JAX's jit dispatch --------------------------------------------------

def ab_device(rounds: int) -> None:
    import stridex._exec.device as device
    import stridex._exec.lower as lower  # (where the eager executables are compiled: `lower.compile`)
    from stridex._core.caches import ProgramCache
    from stridex._exec.jax_bridge import x64

    real = lower.jax

    class _OpByOp:
        """`jax.jit(program)`, its "compiled" call the jitted function called under the 64-bit scope."""

        def __init__(self, program, **options):
            self.function = real().jit(program, **options)

        def lower(self, *_):
            return self

        def compile(self, **_):
            function = self.function

            def call(*buffers):
                with x64():
                    return function(*buffers)

            return call

    class _JitJax:
        def __getattr__(self, name):
            return getattr(real(), name)

        jit = staticmethod(_OpByOp)

    env = {"sx": sx, "x": sx.asarray([1.0], device="cpu:1"), "s": sx.linspace(0.0, 1.0, 1000, device="cpu:1"),
           "w": sx.zeros(8, device="cpu:1"), "big": sx.zeros(10**7, device="cpu:1")}
    env["y"] = env["x"] + 1.0
    cases = [("x + y (1 element)", "x + y"), ("sum (1000 elements)", "sx.sum(s)"),
             ("x[1] = 2.0 (8 elements)", "w[1] = 2.0"), ("x[1] = 2.0 (10^7 elements)", "big[1] = 2.0")]
    caches = {}
    for variant in ("executor", "op-by-op"):
        device._CACHE = ProgramCache("device")
        lower.jax = real if variant == "executor" else _JitJax  # type: ignore[assignment]  # (a stand-in)
        for _, stmt in cases:
            for _ in range(3):
                exec(stmt, env)  # noqa: S102 - the cases above
        caches[variant] = device._CACHE
    lower.jax = real
    assert float(env["w"][1]) == 2.0 and float((env["x"] + env["y"])[0]) == 3.0
    best: dict = {}
    for _ in range(rounds):
        for variant, cache in caches.items():
            device._CACHE = cache
            for name, stmt in cases:
                timer = timeit.Timer(stmt, globals=env)
                best[(name, variant)] = min(best.get((name, variant), 1e9), min(timer.repeat(3, 2000)) / 2000 * 1e6)
    device._CACHE = ProgramCache("device")
    print("device (eager operations on cpu:1):")
    _report(best, "executor", "op-by-op")


# --- fold: the max lowering's slab spacing and axis order ----------------------------------------------

def ab_fold(rounds: int) -> None:
    import jax
    import jax.numpy as jnp
    import numpy as np

    import stridex._lax.statistical as st

    real_spacing, real_order = st.fold_spacing, st.fold_axis

    def plain_spacing(length, unit):
        return length // st.FOLD_WAYS

    def lowered(shape, axes, spacing=real_spacing, order=real_order):
        def fn(v):
            st.fold_spacing, st.fold_axis = spacing, order
            try:
                return st.lower_nan_extremum(v, axes, True)
            finally:
                st.fold_spacing, st.fold_axis = real_spacing, real_order
        return jax.jit(fn).lower(jax.ShapeDtypeStruct(shape, jnp.float32)).compile()

    def longest_first(shape, axes):
        return max((a for a in axes if shape[a] >= 2 * st.FOLD_WAYS), key=lambda a: shape[a],
                   default=max(axes, key=lambda a: shape[a]))

    cases = {(2**22,): (0,), (2**23,): (0,)}
    best: dict = {}
    data = {shape: jnp.asarray(np.random.default_rng(0).random(shape, dtype=np.float32)) for shape in cases}
    timers = {}
    for shape, axes in cases.items():
        x, name = data[shape], f"{shape[0]} float32"
        for variant, fn in (("odd lines apart", lowered(shape, axes)),
                            ("length // 16 apart", lowered(shape, axes, plain_spacing)),
                            ("jnp.max", jax.jit(jnp.max))):
            assert float(fn(x)) == float(jnp.max(x))
            timers[(name, variant)] = timeit.Timer(lambda fn=fn, x=x: fn(x).block_until_ready())
    best = _best(timers, rounds, 20)
    print("fold spacing (max of float32, NaN-propagating):")
    _report({k: v for k, v in best.items() if k[1] != "jnp.max"}, "odd lines apart", "length // 16 apart")
    for (name, variant), t in best.items():
        if variant == "jnp.max":
            print(f"  {name}: jnp.max {t:.2f} µs (odd lines apart: {best[(name, 'odd lines apart')] / t:.2f}x)")
    shape, axes = (100, 100, 1000), (0, 2)
    x = jnp.asarray(np.random.default_rng(0).random(shape, dtype=np.float32))
    timers = {}
    for variant, fn in (("outermost first", lowered(shape, axes)),
                        ("longest first", lowered(shape, axes, order=longest_first))):
        assert np.array_equal(np.asarray(fn(x)), np.max(np.asarray(x), axis=axes))
        timers[("(100, 100, 1000) over axes (0, 2)", variant)] = timeit.Timer(
            lambda fn=fn: fn(x).block_until_ready())
    print("fold order:")
    _report(_best(timers, rounds, 10), "outermost first", "longest first")


def ab_storage(rounds: int) -> None:
    """A storage's kind as its class, changed in place by `__class__ = ...` (stridex/_core/storage.py,
    stridex/_exec/fusion/pending.py), against the plainer alternative that changes no class: one Storage class
    whose `kind` slot holds a kind object (fast_views, adopted, window, ...), changed by assigning the slot.
    Both as minimal replicas of the same shape (slots, a class attribute or the kind's attribute, a method or
    the kind's function), timed on what the eager paths do with a storage: the fast-view check of
    `Array._fast_storage`, the window of an array, a kind test (`type(st) is ...` against `st.kind is ...`),
    and a transition there and back (a pending record reading host memory, then releasing it)."""

    class HostA:
        __slots__ = ("buf", "readers", "__weakref__")
        adopted = True
        fast_views = True

        def __init__(self, buf):
            self.buf, self.readers = buf, None

        def window(self, a):
            return self.buf

    class ReadA(HostA):
        __slots__ = ()
        fast_views = False

    class Kind:
        __slots__ = ("adopted", "fast_views", "window")

        def __init__(self, adopted, fast_views, window):
            self.adopted, self.fast_views, self.window = adopted, fast_views, window

    def _buffer(st, a):
        return st.buf

    HOST, READ = Kind(True, True, _buffer), Kind(True, False, _buffer)

    class StorageB:
        __slots__ = ("buf", "readers", "kind", "__weakref__")

        def __init__(self, buf, kind):
            self.buf, self.readers, self.kind = buf, None, kind

    a_st, b_st = HostA([1.0]), StorageB([1.0], HOST)

    def fast_a(st=a_st):
        return st.adopted and st.fast_views

    def fast_b(st=b_st):
        k = st.kind
        return k.adopted and k.fast_views

    def window_a(st=a_st):
        return st.window(None)

    def window_b(st=b_st):
        return st.kind.window(st, None)

    def test_a(st=a_st, cls=ReadA):
        return type(st) is cls

    def test_b(st=b_st, kind=READ):
        return st.kind is kind

    def transition_a(st=a_st, read=ReadA, host=HostA):
        st.__class__ = read
        st.__class__ = host

    def transition_b(st=b_st, read=READ, host=HOST):
        st.kind = read
        st.kind = host

    timers = {}
    for name, a, b in (("fast-view check", fast_a, fast_b), ("window of an array", window_a, window_b),
                       ("kind test", test_a, test_b), ("transition there and back", transition_a, transition_b)):
        timers[(name, "class")] = timeit.Timer(a)
        timers[(name, "kind slot")] = timeit.Timer(b)
    best = _best(timers, rounds, 200_000)
    print("storage kinds (ns per operation, the timing loop's own call of a Python function included):")
    for name in dict.fromkeys(k[0] for k in best):
        x, y = best[(name, "class")] * 1e3, best[(name, "kind slot")] * 1e3
        print(f"  {name}: class {x:.1f} ns, kind slot {y:.1f} ns ({y / x:.2f}x)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("which", nargs="*", default=["memo", "single", "device", "fold", "storage"])
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args()
    for which in args.which:
        {"memo": ab_memo, "single": ab_single, "device": ab_device, "fold": ab_fold,
         "storage": ab_storage}[which](args.rounds)


if __name__ == "__main__":
    main()
