"""A short, printed tour of stridex: `python -m stridex.demo`.

Each section prints the code it runs and what came out: creating arrays, views that share memory,
broadcasting, dtype promotion, reshape (view or copy), the zero-copy DLPack hand-over to NumPy, `jit`
with its printed IR, `grad`/`vmap` next to the programs they produce, and a loop that compiles once and
writes into the array it closes over.
"""

from __future__ import annotations

import numpy as np

import stridex as sx


def shares_memory(a, b) -> bool:
    """Whether two arrays (stridex or NumPy) overlap in memory; np.asarray of a stridex array is a no-copy window."""
    return bool(np.shares_memory(np.asarray(a), np.asarray(b)))


def section(title: str) -> None:
    print(f"\n== {title} ==")


def show(code: str, value) -> None:
    print(f">>> {code}")
    print(value if isinstance(value, str) else repr(value))


def creating_arrays():
    section("creating arrays")
    x = sx.asarray([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    show("x = sx.asarray([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])", x)
    show("x.shape, x.dtype, x.device", (x.shape, x.dtype, x.device))
    data = np.arange(12, dtype=np.int32).reshape(3, 4)
    y = sx.asarray(data)
    show("y = sx.asarray(np.arange(12, dtype=np.int32).reshape(3, 4))   # adopts NumPy memory, no copy", y)
    show("shares_memory(y, data)", shares_memory(y, data))


def views():
    section("views share memory")
    x = sx.asarray(np.arange(12.0).reshape(3, 4))
    show("x", x)
    v = x[::2, 1:]
    show("v = x[::2, 1:]   # a strided view: no data is copied", v)
    show("shares_memory(v, x)", shares_memory(v, x))
    v[0, 0] = -1.0
    show("v[0, 0] = -1.0; x   # the write through the view appears in the base", x)
    t = sx.permute_dims(x, (1, 0))
    show("t = sx.permute_dims(x, (1, 0)); t.shape, shares_memory(t, x)", (t.shape, shares_memory(t, x)))


def broadcasting():
    section("broadcasting")
    col = sx.asarray([[0], [10], [20]])
    row = sx.asarray([1, 2, 3, 4])
    show("col.shape, row.shape", (col.shape, row.shape))
    show("sx.add(col, row)   # (3, 1) with (4,) -> (3, 4)", sx.add(col, row))
    show("col + 100   # Python scalars broadcast too", col + 100)


def promotion():
    section("dtype promotion")
    i8 = sx.asarray([1, -2], dtype=sx.int8)
    u8 = sx.asarray([200, 3], dtype=sx.uint8)
    show("sx.add(int8 array, uint8 array).dtype   # the spec's table", sx.add(i8, u8).dtype)
    i64 = sx.asarray([1, 2])
    f32 = sx.asarray([0.5, 0.25], dtype=sx.float32)
    show("sx.add(int64 array, float32 array).dtype   # unspecified by the spec: NumPy 2's answer",
         sx.add(i64, f32).dtype)
    show("(f32 + 1).dtype   # a Python scalar is weak: the array's dtype wins", (f32 + 1).dtype)


def reshaping():
    section("reshape: a view when the strides allow, else a copy")
    x = sx.asarray(np.arange(6.0).reshape(2, 3))
    flat = sx.reshape(x, (6,))
    show("flat = sx.reshape(x, (6,)); shares_memory(flat, x)   # contiguous: a view", shares_memory(flat, x))
    flat_t = sx.reshape(x.T, (6,))
    show("flat_t = sx.reshape(x.T, (6,)); shares_memory(flat_t, x)   # transposed: a copy",
         shares_memory(flat_t, x))
    show("flat_t", flat_t)
    try:
        sx.reshape(x.T, (6,), copy=False)
    except ValueError as e:
        show("sx.reshape(x.T, (6,), copy=False)", f"ValueError: {e}")


def dlpack():
    section("DLPack hand-over to NumPy (zero-copy)")
    x = sx.asarray([1.0, 2.0, 3.0, 4.0], device="cpu")  # host memory, which NumPy can share (whatever the default)
    n = np.from_dlpack(x)
    show("n = np.from_dlpack(x); shares_memory(n, x)", shares_memory(n, x))
    x[0] = 100.0
    show("x[0] = 100.0; n   # NumPy sees stridex's write", n)
    ones = np.ones(3)
    back = sx.from_dlpack(ones)
    show("back = sx.from_dlpack(ones := np.ones(3)); shares_memory(back, ones)   # and the other way",
         shares_memory(back, ones))


def compiling():
    section("jit: trace to stridex IR, lower to jax.jit (XLA)")

    def step(x, y):
        z = x * y + 1.0
        z[0] = 0.0            # a write ...
        return sx.sum(z[::-1] * 2.0)   # ... read back through a reversed view

    x, y = sx.asarray([1.0, 2.0, 3.0]), sx.asarray([4.0, 5.0, 6.0])
    show("step(x, y)   # eagerly", step(x, y))
    show("sx.jit(step)(x, y)   # compiled by XLA, same value", sx.jit(step)(x, y))
    show("print(sx.make_ir(step)(x, y))   # the recorded program: each variable's dtype[shape]",
         str(sx.make_ir(step)(x, y)))

    def clean(v):
        if sx.any(sx.isnan(v)):   # a Python decision on a value: a graph break, guarded
            v = v[~sx.isnan(v)]   # a data-dependent length: another one
        return sx.mean(v)

    fast_clean = sx.jit(clean)
    show("sx.jit(clean)(sx.asarray([1.0, nan, 3.0]))   # value-dependent code compiles, one program per path",
         fast_clean(sx.asarray([1.0, float("nan"), 3.0])))
    show("print(sx.jit(clean).explain(...))", str(fast_clean.explain(sx.asarray([1.0, float("nan"), 3.0]))))


def differentiating():
    section("grad and vmap: interpreters over the same primitives")

    def loss(w):
        return sx.sum(sx.tanh(w) ** 2)

    w = sx.asarray([0.5, -1.0, 2.0])
    show("sx.grad(loss)(w)", sx.grad(loss)(w))
    show("print(sx.make_ir(sx.grad(loss))(w))   # the gradient program jit compiles",
         str(sx.make_ir(sx.grad(loss))(w)))
    rows = sx.asarray(np.arange(6.0).reshape(2, 3))
    show("sx.vmap(lambda r: r[::-1] * r[0])(rows)   # per-row function, batched", sx.vmap(lambda r: r[::-1] * r[0])(rows))
    show("print(sx.make_ir(sx.vmap(lambda r: r[::-1] * r[0]))(rows))",
         str(sx.make_ir(sx.vmap(lambda r: r[::-1] * r[0]))(rows)))


def looping():
    section("loops compile once: fori_loop, scan, while_loop, cond")
    w = sx.asarray(np.eye(3) * 0.5)
    history = sx.zeros((4, 3))

    def rnn(h):
        def body(i, h):
            history[i] = h        # the body writes into an array it closes over, as a Python loop would
            return sx.tanh(w @ h)
        return sx.fori_loop(0, 4, body, h)

    h = sx.asarray([1.0, 2.0, 3.0])
    show("sx.jit(rnn)(h)   # one compiled loop", sx.jit(rnn)(h))
    show("history   # written by the loop body, under jit", history)
    show("print(sx.make_ir(rnn)(h))   # the body appears once, nested, whatever the trip count",
         str(sx.make_ir(rnn)(h)))
    def loss(h):
        return sx.sum(sx.fori_loop(0, 4, lambda i, h: sx.tanh(w @ h), h))

    show("sx.grad(loss)(h)   # reverse mode through a fori_loop (a scan that stacks its residuals)", sx.grad(loss)(h))


def main() -> None:
    print(f"stridex {sx.__version__}: Array API {sx.__array_api_version__} on a strided core")
    for part in (creating_arrays, views, broadcasting, promotion, reshaping, dlpack, compiling, differentiating,
                 looping):
        part()


if __name__ == "__main__":
    main()
