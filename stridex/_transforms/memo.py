"""The memo: a jitted function's call, made as code for one of its last calls' arguments.

A steady-state call of a small program costs JAX some 8 µs; every µs stridex adds on top shows. When a
call's arguments are a recent call's again (the same windows or Views, dtypes and devices), `Jitted`
needs no signature, no cache lookup and no conversion: it can hand JAX the arrays it handed it last time
and adopt the outputs. Checking that is a few identity tests per argument, and written as a loop over
per-argument records they cost more than the tests themselves. So the memo is a small function generated
for the shape of the call (how many arguments, and for each whether it is a NumPy window or a View of a
JAX buffer), as `dataclasses` and `namedtuple` generate theirs: the checks unrolled, the values they
compare against bound as closure cells. The code for one shape is compiled once (`_factory`); a memo for
new arguments of that shape is one call of its factory.

Measured against a plain closure that loops over per-argument records (same checks, same values:
`python -m benchmarks.ab_choices memo`, one process, alternating, minimums of 8 rounds, 2026-11-27, a
loaded 2-core machine), the closure took 1.14-1.23x as long: a 1-element window 5.23 against 5.94 µs, two
1000-element windows 8.66 against 10.69 µs, a JAX result 5.17 against 5.95 µs, three JAX results 6.26
against 7.13 µs. So the generated code stays.

A memo is what calling its `Jitted` calls (`__call__` is a slot of the Jitted: each holds its own),
so it is the only Python frame of a steady-state call; it builds the result itself, field by field as
`stridex._exec.device.adopt_out` does (on the host, an Array that keeps the JAX array, its storage
`JAX_RESULT` until a use makes its JaxResultStorage), and for a tuple of host results (a loop's carry, say) each of them so, then the tuple (up to
TUPLE_MAX outputs; a call of `Compiled.outputs` and of `adopt_out` per output cost some 1 µs more on every
call). `source(...)` shows the code; for a JAX result of an earlier call and a small NumPy window, a program
with one output on the host:

    def memo(a0=UNSET, a1=UNSET, /, *more, **kw):
        if kw or more or a1 is UNSET or current_trace() is not None:
            return link[0](*given(a0, a1), *more, **kw)
        if (type(a0) is not Array or a0._dtype is not dtype0
                or a0._view is not view0 or a0._storage is not JAX_RESULT
                or type(a1) is not Array
                or a1._np is not window1):
            return link[0](a0, a1)  # not this memo's arguments: the next memo, or the general call
        result = call(a0._jax, copy1)
        if bytes1 == window1.tobytes():
            out = Array()
            out._jax = result
            out._storage = JAX_RESULT
            ...
            return out
        return remember_after(ref(), (a0, a1), entry, memo)

The snapshots are handed to the executable before the windows' bytes are compared: XLA runs the program while
the memo compares them and builds the result (a small einsum under `jit`, 1.10x `jax.jit` with the comparison
first, 1.00-1.02x so; `python -m benchmarks.lax`), and a window written since the last call costs one discarded
run of the pure program, after which the memo that replaces it passes that window itself (`handover._snapshot`
copies a window only once the same bytes come twice).

The parameters are named, not `*args`: they bind the arguments directly, where `*args` would copy them
into a new tuple to be unpacked again. A call of any other form (fewer or more arguments, keywords)
reaches the link with exactly the arguments it was given.

A jitted function keeps the memos of its last `WAYS` argument sets, most recent first, so that a loop
alternating between a few argument sets (a training and an evaluation batch, say) stays on this path.
The general call makes a memo for arguments with NumPy windows only once their first window comes
again (`comes_again`): fresh data on every call gets none. A memo that finds the arguments are not its
own calls the next one (`link`); the last calls the Jitted's `_dispatch`, the general call. When its
arguments are its own, a memo calls the executable directly and adopts the results where it can;
otherwise it runs the entry it stands for (`remember_after`), which makes the memo that replaces it once
an input's snapshot is ready. So a steady loop over JAX results calls the executable directly from its
third call, and one over small NumPy-backed arrays from its fourth. A memo's `entry` is the compiled
program it stands for.

A memo reaches its Jitted through a weak reference: the Jitted holds its memos, and a strong reference
back would make a cycle that keeps the compiled programs alive, after the Jitted is dropped, until the
garbage collector runs. (The Jitted is alive while it is being called: its caller holds it.)
"""

from __future__ import annotations

import functools
import operator
import weakref
from typing import Any

from stridex._core.array import Array
from stridex._core.state import current_trace
from stridex._core.storage import JAX_RESULT
from stridex._exec.device import OWNERS, storage_class
from stridex._exec.jax_bridge import computed
from stridex._exec.precision import matmul_key
from stridex._transforms import handover

WINDOW, TINY, BUFFER, DEVICE, RESULT, ALIAS = "window", "tiny", "buffer", "device", "result", "alias"
"""An argument's kind in a memo: a NumPy window (host memory; the same window object again, its JAX
snapshot reused while the bytes match), a tiny one (the same, its bytes compared in place through a byte
view, see `handover.byte_view`), a View of a host storage with no window cached (a JAX result's
JaxResultStorage: its JAX array passed as it is when the View is the whole buffer, while the storage is of
the kind it was, which a copy-on-write ends), a View of a device buffer (the same, taken and passed holding
`device.OWNERS`, as a write in another thread may replace it), or a JAX result on the host whose storage is
not made yet (`JAX_RESULT`: its JAX array passed as it is; nothing can have written it), or a large window of a host
storage that JAX aliases without a copy (`Storage.jax_alias`: that JAX array passed, which reads the memory as it is
now; the storage known through a weak reference, so that a memo keeps no large memory alive)."""


WAYS = 4
"""How many argument sets a jitted function keeps memos for (the least recently made is dropped)."""

TUPLE_MAX = 8
"""Up to this many outputs, a tuple of host results is adopted in the memo's own code (outputs "tuple");
more (the gradients of a large model, say) go through the entry's `outputs`, keeping each memo's code short."""

UNSET = object()
"""The default of a memo's parameters: the argument was not passed (the call has fewer arguments)."""


def given(*args) -> list:
    """The arguments of a call that a memo took in its parameters, without the ones not passed."""
    return [a for a in args if a is not UNSET]


def dispatcher(jitted):
    """What a call of `jitted` calls when no memo takes it: its general call, `_dispatch`."""
    ref = weakref.ref(jitted)

    def call(*args, **kwargs):
        return ref()._dispatch(*args, **kwargs)

    return call


def make(jitted, args: tuple, entry, adopt: bool = False, current=None):
    """The memo for calling `entry` (a pure program's `Compiled`) with `args` again, or None where there is
    none: an argument's window is too large to snapshot and JAX does not alias it (the general call converts
    it on every call; a memo holding it would keep that memory alive), or the program's device is the default device's (which
    may differ on the next call: the signature says which program then).

    With `adopt` (the arguments came again), fresh results get a storage, where snapshots are kept. With
    `current` (the memo these arguments passed), that memo where the new one would be the same code with
    the same values (an input written before every call never gets a snapshot, and its memo stays)."""
    if entry.traced.placed:
        return None
    kinds: list[str | None]
    values: list[Any]
    kinds, values = [], []
    for a in args:
        w = a._np
        if w is None:  # (no window cached: the array has its Storage and View)
            st = a._storage
            if st is JAX_RESULT:
                kinds.append(RESULT)
                values += (a._dtype, a._view)
            elif st.is_host:
                kinds.append(BUFFER)
                values += (a._dtype, a._view, type(st))
            else:
                kinds.append(DEVICE)
                values += (a._dtype, a._view, st.device)
            continue
        if w.nbytes > handover.SNAPSHOT_MAX_BYTES:
            # (too large to snapshot: JAX reads it in place, through the alias of its aligned buffer, or the
            # general call converts it)
            st, view = a._storage_view()
            alias = getattr(st, "jax_alias", None)
            if alias is None or alias.view is not view or a._view is not view:
                return None
            kinds.append(ALIAS)
            values += (a._dtype, view, weakref.ref(st))
            continue
        if adopt:
            a._storage_view()
        seen = getattr(a._storage, "jax_copy", None)  # (unset in a JaxResultStorage)
        if seen is None or seen.window is not w or seen.copy is None:
            kinds.append(None)  # (a window whose JAX copy is not made yet)
            values += (a._dtype, w, None, None)
        elif seen.in_place is None:
            kinds.append(WINDOW)
            values += (a._dtype, w, seen.data, seen.copy)
        else:
            kinds.append(TINY)
            values += (a._dtype, w, seen.data, seen.copy, seen.in_place)
    direct = entry.direct if None not in kinds else None
    count = 0  # (the number of outputs adopted in the memo's own code, for "tuple")
    if direct is None:
        outputs = None
    elif direct[1] is None:
        if entry.in_order_tuple and direct[3] is None and len(entry.out_layouts) <= TUPLE_MAX:
            # (a tuple of host results, each adopted field by field in the memo's code: no `outputs` call)
            outputs, count = "tuple", len(entry.out_layouts)
            values += (direct[0], *[field for layout in entry.out_layouts for field in layout])
        else:
            outputs = "several"
            values += (direct[0], entry.outputs)
    else:
        call, view, dtype, device = direct
        outputs = "host" if device is None else "device"  # (what `adopt_out` makes for a result there)
        values += (call, view, dtype) if device is None else (call, view, dtype, device, storage_class(device))
    key = (tuple(kinds), outputs, entry.matmul_key is not None, count)
    if current is not None and current.key == key and all(map(operator.is_, values, current.values)):
        return current
    try:
        factory = _factory(*key)
    except SyntaxError:  # (a template bug: the general call serves, and tests/transforms/test_memo.py fails)
        return None
    memo = factory(weakref.ref(jitted), [jitted._dispatcher], entry, *values,
                   *((entry.matmul_key,) if key[2] else ()))
    memo.key, memo.values = key, values
    return memo


def comes_again(jitted, args: tuple) -> bool:
    """Whether the general call should make a memo for `args`: when they have no NumPy window, or when
    their first window (a memo knows a window by its identity) came in one of the last `WAYS` general
    calls. A loop that wraps fresh NumPy data on every call would otherwise make a memo on every call
    (several µs), each pushing a useful one out. (Weak references: this check keeps no input alive.)"""
    for a in args:
        w = a._np
        if w is not None:
            break
    else:
        return True
    recent = jitted._recent_windows
    for r in recent:
        if r() is w:
            return True
    jitted._recent_windows = [weakref.ref(w), *recent[:WAYS - 1]]
    return False


def install(jitted, memo, replacing=None) -> None:
    """Make `memo` the first memo a call of `jitted` tries, in place of `replacing` (the memo it was made
    from) or ahead of the others; beyond `WAYS`, the least recently made is dropped. The links are set
    from the last memo to the first, so that a call going through them meanwhile never meets a cycle."""
    with jitted._lock:
        memos = (memo, *[m for m in jitted._memos if m is not replacing][:WAYS - 1])
        following = jitted._dispatcher
        for m in reversed(memos):
            m.link[0] = following
            following = m
        jitted._memos = memos
        jitted.__call__ = memo


def remember_after(jitted, args: tuple, entry, memo):
    """Run `entry` on `memo`'s arguments, then make the memo that replaces it (snapshots or the direct call
    may be ready now)."""
    result = entry.run(args)
    if entry.may_call_directly:
        remade = make(jitted, args, entry, adopt=True, current=memo)
        if remade is not None and remade is not memo:
            install(jitted, remade, replacing=memo)
    return result


@functools.lru_cache(maxsize=256)
def _factory(kinds: tuple, outputs: str | None, checks_precision: bool, count: int = 0):
    """The compiled factory of memos for calls of this shape (see `source`)."""
    namespace = {"Array": Array, "JAX_RESULT": JAX_RESULT, "UNSET": UNSET, "current_trace": current_trace,
                 "given": given, "matmul_key": matmul_key, "owners": OWNERS, "remember_after": remember_after,
                 "computed": computed}
    code = compile(source(kinds, outputs, checks_precision, count), f"<stridex memo, {len(kinds)} arguments>",
                   "exec")
    exec(code, namespace)  # noqa: S102 - the source is stridex's own template, filled with names only
    return namespace["factory"]


def source(kinds: tuple, outputs: str | None, checks_precision: bool, count: int = 0) -> str:
    """The Python source of the memo factory for one shape of call.

    kinds: each argument's kind (WINDOW, TINY, RESULT, DEVICE, BUFFER, ALIAS, or None for a window with no JAX copy
    yet);
    outputs: "host" or "device" (one output, there), "tuple" (a tuple of `count` outputs on the host, the
    program's outputs in order) or "several" (any other outputs, adopted by the entry's `outputs`) when the
    executable may be called directly with these arguments, else None;
    checks_precision: whether the program was compiled under a matmul precision that the call must match.
    """
    n = len(kinds)
    params, checks, ready, unchanged, jax_args = [], [], [], [], []
    for i, kind in enumerate(kinds):
        a = f"a{i}"
        # (a View says nothing of the dtype, a window does: an Array's dtype is its window's, so the same
        # window object has the same dtype)
        checks.append(f"type({a}) is not Array" if kind in (WINDOW, TINY, None) else
                      f"type({a}) is not Array or {a}._dtype is not dtype{i}")
        if kind == DEVICE:
            params += [f"dtype{i}", f"view{i}", f"device{i}"]
            checks.append(f"{a}._view is not view{i} or (s{i} := {a}._storage).device is not device{i}")
            # (the whole buffer: a View of it is read inside a program; taken holding OWNERS, in the call below)
            ready.append(f"s{i}.jax_view is view{i}")
            jax_args.append(f"s{i}.owner")
        elif kind == BUFFER:
            params += [f"dtype{i}", f"view{i}", f"kind{i}"]
            checks.append(f"{a}._view is not view{i} or (s{i} := {a}._storage).__class__ is not kind{i}")
            # (what JaxResultStorage.jax_argument asks, inline: the owner first, as there; a storage of another
            # kind has no JAX array spanning it, and the memo runs its entry)
            ready.append(f"(o{i} := s{i}.owner) is not None and s{i}.jax_view is view{i}")
            jax_args.append(f"o{i}")
        elif kind == ALIAS:
            params += [f"dtype{i}", f"view{i}", f"storage{i}"]
            checks.append(f"{a}._view is not view{i} or (s{i} := {a}._storage) is not storage{i}()")
            # (what `handover.jax_argument` finds for a large window, inline; the alias is the storage's, which
            # a change of its buffer clears)
            ready.append(f"(al{i} := s{i}.jax_alias) is not None and al{i}.view is view{i}")
            jax_args.append(f"al{i}.array")
        elif kind == RESULT:
            params += [f"dtype{i}", f"view{i}"]
            checks.append(f"{a}._view is not view{i} or {a}._storage is not JAX_RESULT")
            jax_args.append(f"{a}._jax")
        else:
            params += [f"dtype{i}", f"window{i}", f"bytes{i}", f"copy{i}", *([f"in_place{i}"] if kind == TINY else [])]
            checks.append(f"{a}._np is not window{i}")
            # (bitwise: -0.0, NaNs and every dtype exact)
            unchanged.append(f"in_place{i} == bytes{i}" if kind == TINY else f"bytes{i} == window{i}.tobytes()")
            jax_args.append(f"copy{i}")
    if checks_precision:
        checks.append("matmul_key() is not precision")
    names = [f"a{i}" for i in range(n)]
    # (named parameters, UNSET when not passed; `more` and `kw` take the rest: see the module docstring)
    signature = ", ".join([*(f"{a}=UNSET" for a in names), *(["/"] if n else []), "*more", "**kw"])
    other_form = ["kw", "more", *([f"{names[-1]} is UNSET"] if n else []), "current_trace() is not None"]
    lines = [f"def memo({signature}):",
             f"    if {' or '.join(other_form)}:",
             f"        return link[0](*given({', '.join(names)}), *more, **kw)" if n else
             "        return link[0](*more, **kw)"]
    if checks:
        lines.append(f"    if ({checks[0]}")
        lines += [f"            or {c}" for c in checks[1:]]
        lines[-1] += "):"
        lines.append(f"        return link[0]({', '.join(names)})  # not this memo's arguments: the next memo, or the general call")
    body = "    "
    if outputs is not None:
        call = f"call({', '.join(jax_args)})"
        if ready:  # (the arguments' JAX arrays are the ones the memo knows: else the entry runs)
            lines.append(f"    if {' and '.join(ready)}:")
            body = "        "
        if DEVICE in kinds:  # device buffers taken and handed to the executable holding OWNERS
            lines += [body + "with owners:", body + f"    result = {call}"]
            call = "result"
        if ALIAS in kinds:  # host memory read in place: the program done before returning (handover.jax_argument)
            if call != "result":
                lines.append(body + f"result = {call}")
                call = "result"
            lines.append(body + ("result.block_until_ready()" if outputs in ("host", "device") else "computed(result)"))
        if unchanged:
            # The snapshots are passed first and the windows compared after: XLA runs the program meanwhile
            # (on the host it returns before a program of any size is done), and a window found written
            # since costs one discarded run of a pure program (the entry runs with the new bytes, and the
            # memo that replaces it passes that window itself until its bytes come twice: `_snapshot`).
            if call != "result":
                lines.append(body + f"result = {call}")
                call = "result"
            lines.append(body + f"if {' and '.join(unchanged)}:")
            body += "    "
        # The fields `adopt_out` sets, written out (tests/transforms/test_memo.py checks the results agree):
        # calling `adopt_out` instead measured 1.03x on a 1-element steady call on the host (4.74 against 4.89 µs)
        # and 1.02x on cpu:0 (5.18 against 5.29 µs) with `benchmarks.revisions`, 11 rounds, 2026-11-27.
        if outputs == "host":
            params += ["call", "out_view", "out_dtype"]
            lines += [body + line for line in (
                "out = Array()", f"out._jax = {call}", "out._storage = JAX_RESULT", "out._view = out_view",
                "out._dtype = out_dtype", "out._np = None", "return out")]
        elif outputs == "device":
            params += ["call", "out_view", "out_dtype", "out_device", "out_class"]
            lines += [body + line for line in (
                "st = out_class()", "st.readonly = False", f"st.owner = {call}",
                "st.device = out_device", "st.jax_view = out_view",
                "out = Array()", "out._storage = st", "out._view = out_view", "out._dtype = out_dtype",
                "out._np = None", "return out")]
        elif outputs == "tuple":  # (the same fields for each output, then the tuple: no call of `outputs`)
            params.append("call")
            results = [f"r{k}" for k in range(count)]
            # (an empty tuple of outputs: the call is made for its effects, and `()` returned)
            if count:
                lines.append(body + f"{', '.join(results)}{',' if count == 1 else ''} = {call}")
            elif call != "result":
                lines.append(body + call)
            for k, r in enumerate(results):
                params += [f"out_view{k}", f"out_dtype{k}"]
                lines += [body + line for line in (
                    f"o{k} = Array()", f"o{k}._jax = {r}", f"o{k}._storage = JAX_RESULT", f"o{k}._view = out_view{k}",
                    f"o{k}._dtype = out_dtype{k}", f"o{k}._np = None")]
            lines.append(body + f"return ({', '.join(f'o{k}' for k in range(count))}{',' if count == 1 else ''})")
        else:
            params += ["call", "outputs"]
            lines.append(f"{body}return outputs({call})")
    if outputs is None or ready or unchanged:
        lines.append(f"    return remember_after(ref(), ({', '.join(names)}{',' if n == 1 else ''}), entry, memo)")
    if checks_precision:
        params.append("precision")  # (last: `make` passes it after the values of every argument and output)
    header = f"def factory({', '.join(['ref', 'link', 'entry', *params])}):"
    tail = ["    memo.entry = entry", "    memo.link = link", "    return memo", ""]
    return "\n".join([header] + [f"    {line}" for line in lines] + tail)
