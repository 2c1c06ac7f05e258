"""The host pass: every live record of a `Group` run in one pass over its blocks (`run_group`), on the calling thread
and, for large passes, a thread pool; then each pending storage becomes host memory over its result.

The values are those of the op-by-op eager path, bit for bit: every record's impl is elementwise (a block's result
is the whole result's block) and sees the same values in the same layout.
"""

from __future__ import annotations

import itertools
import os
import threading
from math import prod
from typing import TYPE_CHECKING

import numpy as np

from stridex._core import processes
from stridex._core.storage import Recycler
from stridex._exec.fusion import limits, program
from stridex._exec.fusion.pending import PendingStorage, pending_to_host
from stridex._exec.fusion.program import _Program
from stridex._exec.fusion.records import Record

if TYPE_CHECKING:
    from collections.abc import Iterator
    from concurrent.futures import ThreadPoolExecutor

__all__ = ["Group", "Record", "execute", "run_group"]


class Group:
    """Records that feed each other, in the order they were made (a topological order), held weakly: a record
    lives as long as its array or a later record that reads it. Run as one pass, on the host (`DeviceGroup` is
    its counterpart on a JAX device)."""

    __slots__ = ("__weakref__", "done", "errors", "leaves", "members", "storages")

    def __init__(self, errors: dict):
        self.errors = errors  # NumPy's error state when its records were made (one per group)
        self.members: list = []  # weak references to the Records
        self.leaves: dict = {}  # id(window) -> the window broadcast to the record's shape (the inputs it reads)
        self.storages: list = []  # the storages whose memory the leaves view (their `readers` name this group)
        self.done = False

    def run(self) -> None:
        """Run every live record of this group in one pass (holding LOCK): `run_group`."""
        run_group(self)


def run_group(group: Group) -> None:
    """Run every live record of `group` in one pass (holding LOCK).

    A pass is atomic per array. Nothing is changed until every result is complete: the pass's buffers are taken
    and filled first, so that a failure there (MemoryError, KeyboardInterrupt, a kernel's exception, a thread of
    the pool dying) leaves every record and its group as they were, pending and runnable again, and the error
    goes to the caller as it came. Then each record gets its result (`rec.result`), and then each pending
    storage becomes a host storage over its record's result (`_commit`): a record with a result is computed, so
    whatever interrupts the commit, a later force of one of its storages finishes it instead of computing again.
    Inputs are only ever read."""
    if group.done:
        return
    count = len(group.members)
    live = [rec for ref in group.members if (rec := ref()) is not None]
    # The records to compute: those whose arrays are alive (outputs), and the records they read, walked back in
    # reverse record order (no recursion); a record with a result is read as memory.
    outputs = {}
    needed = set()
    for rec in reversed(live):
        if rec.result is not None:
            continue
        st = rec.storage()
        if st is not None and type(st) is PendingStorage:
            outputs[id(rec)] = st
            needed.add(id(rec))
        if id(rec) in needed:
            for x in rec.inputs:
                if type(x) is Record and x.result is None:
                    needed.add(id(x))
    steps = [rec for rec in live if id(rec) in needed]
    if steps:
        shape = steps[-1].shape
        results = {}
        for rec in steps:
            if id(rec) in outputs:
                results[id(rec)] = _RESULTS.take(shape, rec.dtype)
        execute(steps, results, shape, group.errors)
        for rec in steps:
            out = results.get(id(rec))
            if out is not None:
                rec.result = out
    _commit(group, live, count)


def _commit(group: Group, live: list, count: int) -> None:
    """Make the pending storage of each record of `live` that has a result a host storage over it, then close
    `group`: it reads its inputs no more. Any step may be interrupted: what is left is still a consistent state
    (a pending storage whose record has a result, which `run_group` commits again; a closed group)."""
    for rec in live:
        out = rec.result
        if out is not None:
            st = rec.storage()
            if st is not None and type(st) is PendingStorage:
                pending_to_host(st, out.reshape(-1))
    if len(group.members) != count:
        # Records joined the group during its pass (code run by a warning it raised): they are pending, the group
        # stays open for them (and keeps reading its inputs).
        del group.members[:count]
        return
    storages = group.storages
    group.done = True
    group.members = []
    group.leaves = {}
    group.storages = []
    for st in storages:  # (the group no longer reads them: drop it from their readers)
        readers = st.readers
        if readers is not None:
            readers[:] = [r for r in readers if (g := r()) is not None and not g.done]
    for rec in live:
        rec.inputs = ()  # (the windows it read may go)




# --- the host executor -------------------------------------------------------------------------------------

# The memory of the passes' results: a loop that drops last iteration's result gets its (warm) pages back
# instead of faulting in fresh ones, which costs as much as a cheap kernel (used under LOCK).
_RESULTS = Recycler(min_bytes=1 << 16, max_bytes=64 << 20, max_buffers=32)

_POOL: ThreadPoolExecutor | None = None
_THREADS = max(1, min(os.cpu_count() or 1, 8))


_POOL_LOCK = processes.lock("fusion.POOL", threading.Lock())


def _pool() -> ThreadPoolExecutor:
    """The pool that runs a large pass's blocks beside the calling thread (made on first use: `import stridex`
    does not pay for concurrent.futures, some 10 ms; and in a forked child, whose copy of the parent's pool has
    no threads, on its first threaded pass: `_forget_the_parents_threads`)."""
    global _POOL
    with _POOL_LOCK:
        if _POOL is None:
            from concurrent.futures import ThreadPoolExecutor

            _POOL = ThreadPoolExecutor(max_workers=_THREADS - 1, thread_name_prefix="stridex-fusion")
        return _POOL


@processes.in_child
def _forget_the_parents_threads() -> None:
    """In a forked child: the pool's threads, and the scratch memory kept per thread, were the parent's (the
    child has one thread, which starts a pool of its own on its first threaded pass); the recycler's idle
    results were the parent's too. Pending work is kept: the child computes it from the parent's values."""
    global _POOL
    _POOL = None
    program.forget_scratch()
    _RESULTS.held = []


def block_keys(shape: tuple, block: int) -> list:
    """(key, shape) of the blocks that split an array of `shape` into about `block` elements each (whole
    trailing axes, a slice of one axis, single indices before it), in C order."""
    if not shape:
        return [((Ellipsis,), ())]
    inner = 1
    k = len(shape) - 1
    while k > 0 and inner * shape[k] <= block:
        inner *= shape[k]
        k -= 1
    step = max(1, block // inner)
    n = shape[k]
    rest = shape[k + 1:]
    # (the Ellipsis keeps a block an ndarray: a key of ints alone would give NumPy scalars)
    return [(outer + (slice(start, min(start + step, n)), Ellipsis), (min(step, n - start),) + rest)
            for outer in itertools.product(*[range(m) for m in shape[:k]])
            for start in range(0, n, step)]




def _pass_block(size: int, threads: int, n_steps: int) -> int:
    """Elements per block of a pass of `n_steps` steps over `size` elements on `threads` threads.

    A pass of one step has no value to keep in cache between steps: each thread's share is one block, one call of
    the kernel, as op by op makes it. (Measured on a 2-core machine, `sx.eval(sx.maximum(x, 0))` on 10^6 float64:
    one block per thread 529 µs, blocks of 32768 on two threads 676 µs, op by op 572 µs; `exp`: 570, 693, 643 µs.
    Paired medians of 150 rounds against op by op, `relu`: one block per thread 0.91x, two 0.94x, four 0.95x,
    blocks of 65536 1.14x.)
    Otherwise limits.BLOCK_ELEMENTS on one thread; on several, each thread's share in one block while that is at
    most 4 * limits.BLOCK_ELEMENTS, else blocks of 4 * limits.BLOCK_ELEMENTS: an intermediate of that block stays
    in the cache, and the scratch memory is of a capacity the threads keep from pass to pass (`program`). (Paired
    medians against op by op, 10^6 float64 unless said, blocks of 65536 against one block per thread and against
    blocks of 32768, 2026-11-29 on an idle 2-core machine: `relu6` 0.29x, 0.59x, 0.53x; `exp(x) * 2` 0.29x, 0.65x,
    0.64x; `x * x + 1` 0.35x, 0.60x, 0.55x; `one_hot` into 10 classes 0.85x, 0.85x, 1.01x; against blocks of
    32768 alone: `sigmoid` 0.32x and 0.38x, Black-Scholes 0.31x and 0.36x, `gelu` 0.27x and 0.29x, the 10-op
    chain of `sin` 0.45x and 0.44x; on 4 * 10^6: `sigmoid` 0.33x and 0.52x, Black-Scholes 0.29x and 0.37x.
    Blocks of 65536 against 32768, benchmarks/fusion.py's workloads: Black-Scholes 0.94x on 10^7 and 0.95x on 10^6,
    the 10-op chain 0.96x and 0.96x, the 50-step loop, a pass of 200 steps, 1.01x and 1.03x.)
    (Earlier, on an idle 2-core machine, the pass alone: at 10^5 elements, two blocks of 50000 against blocks of
    16384 on two threads, Black-Scholes 1.44x faster, the 10-op chain 1.19x, the 50-step loop 1.12x.)"""
    if n_steps == 1:
        return max(1, -(-size // threads))
    if threads == 1:
        return limits.BLOCK_ELEMENTS
    share = -(-size // threads)
    return max(limits.BLOCK_ELEMENTS, share) if share <= 4 * limits.BLOCK_ELEMENTS else 4 * limits.BLOCK_ELEMENTS


def _claimed(blocks: list, counter, stop: list) -> Iterator:
    """The blocks this thread claims from `counter` (shared by the pass's threads), one at a time, until none is
    left or `stop` is not empty (a thread of the pass failed)."""
    n = len(blocks)
    for i in counter:  # (next() of an itertools.count is atomic: each index goes to one thread)
        if i >= n or stop:
            return
        yield blocks[i]


def _run_when_ready(ready: threading.Event, made: list, blocks: list, counter, stop: list) -> None:
    """A pool thread's part of a pass: the blocks it claims, once the program is made (none if making it
    failed: the calling thread raises)."""
    ready.wait()
    if made:
        try:
            made[0].run(_claimed(blocks, counter, stop))
        except BaseException:
            stop.append(True)  # (the pass has failed: the other threads claim no more blocks)
            raise


def _start_helpers(futures: list, count: int, *work) -> None:
    """Add to `futures` those of `count` pool threads each running `_run_when_ready(*work)`; fewer where no
    thread can be started (the interpreter shutting down, the system refusing one): the calling thread claims
    their share."""
    try:
        pool = _pool()
        for _ in range(count):
            futures.append(pool.submit(_run_when_ready, *work))
    except RuntimeError:  # ("cannot schedule new futures after interpreter shutdown", "can't start new thread")
        pass


def execute(steps, results, shape, errors: dict) -> None:
    """Run records `steps` (in order) over `shape`, block by block, writing the results of those in `results`,
    with NumPy's floating-point warnings as `errors` (NumPy's error state when they were recorded) says."""
    size = prod(shape)
    threads = _THREADS if size >= limits.THREADED_MIN_ELEMENTS else 1
    blocks = block_keys(shape, _pass_block(size, threads, len(steps)))
    threads = min(threads, len(blocks))
    largest = max(prod(b[1]) for b in blocks)
    capacity = next((c for c in (limits.BLOCK_ELEMENTS, 4 * limits.BLOCK_ELEMENTS) if largest <= c), largest)
    if threads == 1:
        program = _Program(steps, results, capacity, errors)
        program.run(blocks)
    else:
        # The pool's threads are woken first: a sleeping thread takes some 50-100 us to start on a virtual
        # machine, about the time the program takes to compile (each then claims blocks until none is left).
        # Whatever interrupts the calling thread, the pool's threads are released (`ready`), stop at their next
        # block, and are waited for: no thread of a failed pass is left waiting, or writing, behind it.
        counter = itertools.count()
        ready = threading.Event()
        made: list = []
        stop: list = []
        futures: list = []
        failed = True
        try:
            try:
                _start_helpers(futures, threads - 1, ready, made, blocks, counter, stop)
                program = _Program(steps, results, capacity, errors)
                made.append(program)
            finally:
                ready.set()
            program.run(_claimed(blocks, counter, stop))
            failed = False
        finally:
            if failed:
                stop.append(True)  # (the caller's error is the one raised)
                ready.set()
            for f in futures:
                if failed:
                    f.exception()  # (waits for it)
                else:
                    f.result()  # (a pool thread's error)
    if program.flagged:
        # NumPy warns once per ufunc call: each flagged step is run again on a block that raised each flag,
        # under the caller's error state, so that NumPy itself warns as the op-by-op call would.
        with np.errstate(**errors):
            for i in sorted(program.flagged):
                step = program.steps[i]
                prim = steps[i].prim
                done: list = []
                for args in program.flagged[i].values():
                    if any(a is args for a in done):
                        continue
                    done.append(args)
                    prim.impl(*args, **step[2])


