"""A host pass compiled from its records (`_Program`): the steps, their sources and scratch memory, run block by
block with NumPy's ufuncs into scratch buffers (`stridex._exec.fusion.host_pass` runs it)."""

from __future__ import annotations

import math
import threading
from math import prod
from typing import Any

import numpy as np

from stridex._core.storage import aligned_empty
from stridex._exec.fusion import limits
from stridex._exec.fusion.records import Record

# A ufunc step gets its output as its last positional argument (some 0.1 us less per call than out=), except
# where NumPy deprecates that (2.4: "Passing more than 2 positional arguments to np.maximum and np.minimum").
_OUT_BY_KEYWORD = {np.maximum: lambda x1, x2, out: np.maximum(x1, x2, out=out),
                   np.minimum: lambda x1, x2, out: np.minimum(x1, x2, out=out)}

# How a step runs: its impl (which returns fresh memory), the ufunc it is the same as (into scratch memory), or
# `where` (into scratch memory: a bitwise blend, or two copies as its impl makes them).
_IMPL, _UFUNC, _WHERE = 0, 1, 2


class _Program:
    """A pass compiled from its records. Each step reads leaves (windows, sliced per block), constants (Python
    scalars, 0-D windows) or earlier steps' block values; a step that calls a ufunc (or is `where`) writes into
    a scratch buffer of its own dtype, reused once the values it held are read for the last time, or into its
    record's result when the record's array is alive."""

    __slots__ = ("errors", "flagged", "leaves", "lock", "scratch", "steps")

    def __init__(self, steps, results, block: int, errors: dict):
        index = {id(rec): i for i, rec in enumerate(steps)}
        leaves: list = []
        leaf_index: dict = {}
        last_use: dict = {}
        compiled = []
        for i, rec in enumerate(steps):
            sources: list[tuple[int, Any]] = []
            half = rec.dtype.kind == "V"
            for x in rec.inputs:
                if type(x) is Record:
                    j = index.get(id(x))
                    if j is None:  # (computed by an earlier pass: its result is a leaf)
                        x = x.result
                    else:
                        sources.append((1, j))
                        last_use[j] = i
                        half = half or steps[j].dtype.kind == "V"
                        continue
                if type(x) is np.ndarray:
                    half = half or x.dtype.kind == "V"
                    if x.ndim or not rec.shape:
                        k = leaf_index.get(id(x))
                        if k is None:
                            k = leaf_index[id(x)] = len(leaves)
                            leaves.append(x)
                        sources.append((0, k))
                    else:
                        sources.append((2, x))  # (a 0-D operand: as it is)
                else:
                    sources.append((2, x))
            mode, fn, quiet = _IMPL, rec.prim.impl, False
            same = getattr(fn, "same_as_ufunc", None)
            if not half and rec.params == {}:
                if same is not None and (same[2] or rec.dtype.kind != "c"):
                    mode, fn, quiet = _UFUNC, same[0], same[1]
                    if fn in _OUT_BY_KEYWORD:
                        fn = _OUT_BY_KEYWORD[fn]
                    if fn is np.divide and quiet and sources[1][0] == 2:  # (quiet: never re-run by `execute`)
                        reciprocal = _exact_reciprocal(sources[1][1], rec.dtype)
                        if reciprocal is not None and _source_dtype(steps, leaves, sources[0]) == rec.dtype:
                            fn, sources[1] = np.multiply, (2, reciprocal)  # (x / 2 is x * 0.5: see there)
                elif rec.prim.name == "where" and not any(type(s[1]) is float for s in sources if s[0] == 2):
                    mode = _WHERE
            compiled.append([mode, fn, rec.params, sources, results.get(id(rec)), quiet, None, []])
        # scratch buffers: a step that writes into one takes a free one of its dtype (freed at last use)
        free: dict = {}
        scratch: list = []
        for j, last in last_use.items():
            compiled[last][7].append(j)
        blend_slots: dict = {}  # itemsize -> the scratch of a blend's mask and of its x1 ^ x2 (shared by steps)
        for i, step in enumerate(compiled):
            if step[0] == _WHERE:
                step[1] = None
                dtype = steps[i].dtype
                condition, *operands = (_source_dtype(steps, leaves, s) for s in step[3])
                # (`d is not None`: NumPy reads None as float64, so a Python int operand of a float64 `where` compared
                # equal to its dtype and reached the blend, which needs arrays)
                if dtype.itemsize in (1, 2, 4, 8) and condition == np.bool_ and \
                        all(d is not None and d == dtype for d in operands):
                    slots = blend_slots.get(dtype.itemsize)
                    if slots is None:
                        lanes = np.dtype(f"u{dtype.itemsize}")
                        slots = blend_slots[dtype.itemsize] = (len(scratch), len(scratch) + 1, lanes)
                        scratch += [lanes, lanes]
                    step[1] = slots
            if step[0] != _IMPL and step[4] is None:
                dtype = steps[i].dtype
                pool = free.setdefault(dtype, [])
                if pool:
                    step[6] = pool.pop()
                else:
                    step[6] = len(scratch)
                    scratch.append(dtype)
            for j in step[7]:  # (read for the last time here: its buffer is free for the steps after this one)
                b = compiled[j][6]
                if b is not None:
                    free.setdefault(steps[j].dtype, []).append(b)
        self.steps = compiled
        self.leaves = leaves
        self.scratch = [(dtype, block) for dtype in scratch]
        self.flagged: dict = {}  # step -> {category: the inputs of a block that raised it}
        self.lock = threading.Lock()
        self.errors = errors  # NumPy's error state of the records

    def run(self, blocks) -> None:
        flags: list = []

        def note(kind, flag):
            flags.append(kind)

        buffers = _take_scratch(self.scratch)
        try:
            self._run(blocks, buffers, note, flags)
        finally:
            _give_scratch(self.scratch, buffers)

    def _run(self, blocks, buffers, note, flags) -> None:
        # Each step's argument list is kept and patched in place: a leaf's block and an output's block change
        # with every block, a scratch buffer's view only with the block's shape, an impl's result after each
        # call (a step's own work per block is then one call).
        steps = self.steps
        n = len(steps)
        # (a ufunc step's list ends with its output: see _OUT_BY_KEYWORD)
        args: list[list[Any]] = [[None if kind != 2 else s for kind, s in sources] + ([None] if mode == _UFUNC else [])
                                 for mode, _, _, sources, _, _, _, _ in steps]
        readers: list = [[] for _ in range(n)]  # step j -> (step, position) reading its value
        leaf_readers: list = [[] for _ in self.leaves]
        for i, step in enumerate(steps):
            for pos, (kind, s) in enumerate(step[3]):
                if kind == 0:
                    leaf_readers[s].append((i, pos))
                elif kind == 1:
                    readers[s].append((i, pos))
        outputs = [i for i, step in enumerate(steps) if step[4] is not None]
        scratch = [i for i, step in enumerate(steps) if step[6] is not None]
        dest: list = [None] * n
        plan = [(i, step[0], step[1], step[2], args[i], step[5]) for i, step in enumerate(steps)]
        leaves = self.leaves
        shape = None
        with np.errstate(**{k: ("call" if v == "warn" else v) for k, v in self.errors.items()}, call=note):
            for key, bshape in blocks:
                if bshape != shape:
                    shape = bshape
                    size = prod(bshape)
                    views = [b[:size].reshape(bshape) for b in buffers]
                    for i in scratch:
                        d = dest[i] = views[steps[i][6]]
                        for c, pos in readers[i]:
                            args[c][pos] = d
                        if steps[i][0] == _UFUNC:
                            args[i][-1] = d
                for k, w in enumerate(leaves):
                    v = w[key]
                    for c, pos in leaf_readers[k]:
                        args[c][pos] = v
                for i in outputs:
                    if steps[i][0] != _IMPL:
                        d = dest[i] = steps[i][4][key]
                        for c, pos in readers[i]:
                            args[c][pos] = d
                        if steps[i][0] == _UFUNC:
                            args[i][-1] = d
                for i, mode, fn, params, a, quiet in plan:
                    if mode == _UFUNC:
                        fn(*a)
                    elif mode == _IMPL:
                        r = fn(*a, **params) if params else fn(*a)
                        out = steps[i][4]
                        if out is not None:
                            out[key] = r
                        for c, pos in readers[i]:
                            args[c][pos] = r
                    elif fn is not None:
                        # where, a boolean condition, x1 and x2 of the result's dtype: the same bits as the impl's
                        # two copies, selected without a branch (mask = -condition; x2 ^ ((x1 ^ x2) & mask)). NumPy's
                        # masked copies branch per element: 4-5x slower than these four calls where the condition is
                        # random.
                        mask, bits, lanes = views[fn[0]], views[fn[1]], fn[2]
                        np.negative(a[0].view(np.int8), out=mask, casting="unsafe")
                        x2 = a[2].view(lanes)
                        np.bitwise_xor(a[1].view(lanes), x2, out=bits)
                        np.bitwise_and(bits, mask, out=bits)
                        np.bitwise_xor(x2, bits, out=dest[i].view(lanes))
                    else:  # where, as its impl computes it on large arrays: x2, then x1 where the condition holds
                        r = dest[i]
                        np.copyto(r, a[2])
                        c, x1 = a[0], a[1]
                        if c.dtype != np.bool_:
                            c = c.astype(bool)
                        if type(x1) is np.ndarray and x1.dtype == r.dtype and x1.shape == r.shape == c.shape:
                            np.putmask(r, c, x1)  # (the same copy, 5-8x faster than copyto's masked loop)
                        else:
                            np.copyto(r, x1, where=c)
                    if flags:
                        if quiet:
                            flags.clear()
                        else:
                            self._flagged(i, flags, a[:-1] if mode == _UFUNC else a)

    def _flagged(self, i, flags, args) -> None:
        with self.lock:
            seen = self.flagged.setdefault(i, {})
            for kind in flags:
                if kind not in seen:
                    seen[kind] = [a.copy() if type(a) is np.ndarray else a for a in args]
        flags.clear()


def _exact_reciprocal(divisor, dtype: np.dtype) -> float | None:
    """1 / `divisor` when `x / divisor` and `x * (1 / divisor)` are the same bits for every x of real floating
    `dtype`, else None. That holds for a power of two whose reciprocal is a normal number of `dtype` too: the
    reciprocal is exact, so both are the correctly rounded value of the same real number (subnormal results,
    NaN payloads, signed zeros and infinities included; and both raise the same flags). A multiplication is
    several times cheaper than a division (NumPy's float16 loops compute in float32, where both are exact)."""
    if type(divisor) not in (float, int) or dtype.kind != "f" or dtype.itemsize > 8 or divisor == 0:
        return None
    try:
        mantissa, exponent = math.frexp(divisor)  # divisor = mantissa * 2**exponent, 0.5 <= |mantissa| < 1
    except OverflowError:  # (an int beyond any float)
        return None
    info = np.finfo(dtype)
    e = exponent - 1  # |divisor| = 2**e when |mantissa| is 0.5
    if abs(mantissa) != 0.5 or not (info.minexp <= e < info.maxexp and info.minexp <= -e < info.maxexp):
        return None
    return math.ldexp(1.0 if mantissa > 0 else -1.0, -e)


def _source_dtype(steps, leaves, source):
    """The dtype of a step's source (None for a Python scalar)."""
    kind, s = source
    if kind == 0:
        s = leaves[s]
    elif kind == 1:
        return steps[s].dtype
    return s.dtype if type(s) is np.ndarray else None


_SCRATCH = threading.local()  # .free: {(dtype, elements): [buffers]}, kept between passes (no page faults)


def forget_scratch() -> None:
    """In a forked child: the scratch memory kept per thread was the parent's threads' (`host_pass`)."""
    global _SCRATCH
    _SCRATCH = threading.local()


def _take_scratch(specs) -> list:
    free = getattr(_SCRATCH, "free", None)
    if free is None:
        free = _SCRATCH.free = {}
    out = []
    for spec in specs:
        pool = free.get(spec)
        out.append(pool.pop() if pool else aligned_empty((spec[1],), spec[0]))
    return out


def _give_scratch(specs, buffers) -> None:
    free = _SCRATCH.free
    for spec, b in zip(specs, buffers):
        # (kept: the two usual capacities, up to 16 buffers of each dtype per thread)
        if spec[1] in (limits.BLOCK_ELEMENTS, 4 * limits.BLOCK_ELEMENTS):
            pool = free.setdefault(spec, [])
            if len(pool) < 16:
                pool.append(b)


