"""The memo: a jitted function's check that a call's arguments are the last call's again, made as code.

A steady-state call of a small program costs JAX some 8 µs; every µs stridex adds on top shows. When a
call's arguments are the last call's again (the same windows or Views, dtypes and devices), `Jitted`
needs no signature, no cache lookup and no conversion: it can hand JAX the arrays it handed it last time
and adopt the outputs. Checking that is a few identity tests per argument, and written as a loop over
per-argument records they cost more than the tests themselves. So the memo is a small function generated
for the shape of the call (how many arguments, and for each whether it is a NumPy window or a View of a
JAX buffer), as `dataclasses` and `namedtuple` generate theirs: the checks unrolled, the values they
compare against bound as closure cells. The code for one shape is compiled once (`_factory`); a memo for
new arguments of that shape is one call of its factory. `source(...)` shows the code; for one JAX result
and one small NumPy window, a program with one output:

    def memo(jitted, args):
        if len(args) != 2: return MISS
        a0, a1 = args
        if type(a0) is not Array or a0._dtype is not dtype0: return MISS
        if a0._np is not None or a0._view is not view0: return MISS
        s0 = a0._storage
        if s0.device is not device0: return MISS
        if type(a1) is not Array or a1._dtype is not dtype1: return MISS
        if a1._np is not window1: return MISS
        if s0.jax_view is view0 and bytes1 == window1.tobytes():
            return adopt_out(call(s0.owner, copy1), out_view, out_dtype, out_device)
        return remember_after(jitted, args, entry)

A memo returns MISS when the arguments are not the last call's (then `Jitted` builds the signature), the
result when it could call the executable directly, and otherwise runs the entry it stands for
(`remember_after`), which makes the next memo: an input's snapshot may be ready then, so that the third
call of a steady loop is a direct call. A memo's `entry` is the compiled program it stands for.
"""

from __future__ import annotations

import functools

from stridex._core.array import Array
from stridex._lax.device import adopt_out
from stridex._lax.precision import matmul_key
from stridex._transforms import handover

MISS = object()
"""What a memo returns when the call's arguments are not the last call's."""

WINDOW, BUFFER = "window", "buffer"
"""An argument's kind in a memo: a NumPy window (host memory; the same window object again, its JAX
snapshot reused while the bytes match), or a View of a storage with no window (a JAX result or a device
array; its buffer passed as it is when the View is the whole buffer)."""


def make(args: tuple, entry, adopt: bool = False):
    """The memo for calling `entry` (a pure program's `Compiled`) with `args` again, or None where there is
    none: an argument's window is large (the memo would keep that memory alive after the call, and such a
    call does not need the time the memo saves), or the program's device is the default device's (which
    may differ on the next call: the signature says which program then).

    With `adopt` (the arguments came again), fresh results get a storage, where snapshots are kept."""
    if entry.traced.placed:
        return None
    kinds, values = [], []
    for a in args:
        w = a._np
        if w is None:
            kinds.append(BUFFER)
            values += (a._dtype, a._view, a._storage.device)
            continue
        if w.nbytes > handover.SNAPSHOT_MAX_BYTES:
            return None
        if adopt and a._storage is None:
            a._storage_view()
        seen = a._storage.jax_copy if a._storage is not None else None
        ready = seen is not None and seen[0] is w and seen[2] is not None
        kinds.append(WINDOW if ready else None)  # (None: a window whose JAX copy is not made yet)
        values += (a._dtype, w, *(seen[1:] if ready else (None, None)))
    direct = entry.direct if None not in kinds else None
    if direct is None:
        outputs = None
    elif direct[1] is None:
        outputs = "several"
        values += (direct[0], entry.outputs)
    else:
        outputs = "one"
        values += (direct[0], *direct[1:])
    checks_precision = entry.matmul_key is not None
    factory = _factory(tuple(kinds), outputs, checks_precision)
    return factory(entry, *values, *((entry.matmul_key,) if checks_precision else ()))


def remember_after(jitted, args: tuple, entry):
    """Run `entry` on the last call's arguments, then make the next memo (snapshots or the direct call may
    be ready now)."""
    result = entry.run(args)
    if entry.may_call_directly:
        jitted._memo = make(args, entry, adopt=True)
    return result


@functools.lru_cache(maxsize=256)
def _factory(kinds: tuple, outputs: str | None, checks_precision: bool):
    """The compiled factory of memos for calls of this shape (see `source`)."""
    namespace = {"Array": Array, "MISS": MISS, "adopt_out": adopt_out, "matmul_key": matmul_key,
                 "remember_after": remember_after}
    code = compile(source(kinds, outputs, checks_precision), f"<stridex memo, {len(kinds)} arguments>", "exec")
    exec(code, namespace)  # noqa: S102 - the source is stridex's own template, filled with names only
    return namespace["factory"]


def source(kinds: tuple, outputs: str | None, checks_precision: bool) -> str:
    """The Python source of the memo factory for one shape of call.

    kinds: each argument's kind (WINDOW, BUFFER, or None for a window with no JAX copy yet); outputs: "one"
    or "several" when the executable may be called directly with these arguments, else None;
    checks_precision: whether the program was compiled under a matmul precision that the call must match.
    """
    n = len(kinds)
    params, checks, ready, jax_args = [], [], [], []
    for i, kind in enumerate(kinds):
        a = f"a{i}"
        checks.append(f"if type({a}) is not Array or {a}._dtype is not dtype{i}: return MISS")
        if kind == BUFFER:
            params += [f"dtype{i}", f"view{i}", f"device{i}"]
            checks += [f"if {a}._np is not None or {a}._view is not view{i}: return MISS",
                       f"s{i} = {a}._storage",
                       f"if s{i}.device is not device{i}: return MISS"]
            ready.append(f"s{i}.jax_view is view{i}")  # (the whole buffer: a View of it is read inside a program)
            jax_args.append(f"s{i}.owner")
        else:
            params += [f"dtype{i}", f"window{i}", f"bytes{i}", f"copy{i}"]
            checks.append(f"if {a}._np is not window{i}: return MISS")
            ready.append(f"bytes{i} == window{i}.tobytes()")  # (bitwise: -0.0, NaNs and every dtype exact)
            jax_args.append(f"copy{i}")
    if checks_precision:
        checks.append("if matmul_key() is not precision: return MISS")
    lines = ["def memo(jitted, args):", f"    if len(args) != {n}: return MISS"]
    if n:
        lines.append(f"    {', '.join(f'a{i}' for i in range(n))}{',' if n == 1 else ''} = args")
    lines += [f"    {c}" for c in checks]
    if outputs is not None:
        call = f"call({', '.join(jax_args)})"
        result = f"adopt_out({call}, out_view, out_dtype, out_device)" if outputs == "one" else f"outputs({call})"
        params += ["call", "out_view", "out_dtype", "out_device"] if outputs == "one" else ["call", "outputs"]
        if ready:
            lines.append(f"    if {' and '.join(ready)}:")
            lines.append(f"        return {result}")
        else:
            lines.append(f"    return {result}")
    if outputs is None or ready:
        lines.append("    return remember_after(jitted, args, entry)")
    if checks_precision:
        params.append("precision")
    header = f"def factory({', '.join(['entry', *params])}):"
    return "\n".join([header] + [f"    {line}" for line in lines] + ["    memo.entry = entry", "    return memo", ""])
