"""Failures injected into eager fusion's passes, for tests/lax/test_fusion_failures.py and the fuzzer's failure
mode (tests/lax/test_fusion_fuzz.py): a MemoryError at the n-th allocation (through `storage.allocate`, where
every buffer of a pass comes from), a KeyboardInterrupt at the n-th line run in eager fusion's
modules, `stridex/_exec/fusion/` (a trace function) or after a random delay (a timer signal), and the check that
follows any of them."""

from __future__ import annotations

import contextlib
import linecache
import os
import signal
import sys
import threading

import numpy as np

import stridex as sx
from stridex._core import storage
from stridex._exec import fusion
from stridex._exec.fusion import host_pass
from stridex._exec.fusion import program

FUSION_DIR = os.path.dirname(fusion.__file__) + os.sep  # (the package's modules: every line of a pass)


class AllocationFault:
    """While armed, the allocation numbered `at` (from 0, counted over every thread) raises MemoryError; with
    `at` None, allocations are only counted (`count`)."""

    def __init__(self, at: int | None):
        self.at = at
        self.count = 0
        self.fired = False
        self.thread = None  # the name of the thread it fired in
        self._lock = threading.Lock()

    @contextlib.contextmanager
    def armed(self):
        original = storage.allocate

        def allocate(nbytes: int):
            with self._lock:
                n = self.count
                self.count += 1
                fire = n == self.at
                self.fired = self.fired or fire
            if fire:
                self.thread = threading.current_thread().name
                raise MemoryError(f"injected: allocation {n} of {nbytes} bytes")
            return original(nbytes)

        storage.allocate = allocate
        try:
            yield self
        finally:
            storage.allocate = original


def _opens_a_with(filename: str, lineno: int, cache: dict = {}) -> bool:  # noqa: B006  (the cache)
    known = cache.get((filename, lineno))
    if known is None:
        known = cache[(filename, lineno)] = linecache.getline(filename, lineno).lstrip().startswith("with ")
    return known


class LineFault:
    """While armed, the line numbered `at` (from 0) that this thread runs in stridex/_exec/fusion/ raises
    KeyboardInterrupt, as a Ctrl-C landing there would; with `at` None, lines are only counted (`count`).

    A `with` statement's own line is left out: the interpreter reports it again after the block, before calling
    `__exit__` and outside the block's exception handler, so that an exception a trace function raises there skips
    `__exit__` and leaves a lock held. A signal cannot land there (Python runs its handler after a call or a
    backward jump, and none comes between the block's last call and `__exit__`), so no Ctrl-C can either."""

    def __init__(self, at: int | None):
        self.at = at
        self.count = 0
        self.fired = False
        self.functions: list = []  # (counting) the function each line belongs to

    def _local(self, frame, event, arg):
        if event == "line" and not _opens_a_with(frame.f_code.co_filename, frame.f_lineno):
            n = self.count
            self.count += 1
            if self.at is None:
                self.functions.append(frame.f_code.co_name)
            elif n == self.at:
                self.fired = True
                where = os.path.basename(frame.f_code.co_filename)
                raise KeyboardInterrupt(f"injected: line {frame.f_lineno} of {where} ({frame.f_code.co_name})")
        return self._local

    def _global(self, frame, event, arg):
        return self._local if frame.f_code.co_filename.startswith(FUSION_DIR) else None

    @contextlib.contextmanager
    def armed(self):
        sys.settrace(self._global)
        try:
            yield self
        finally:
            sys.settrace(None)


class TimerFault:
    """While armed, KeyboardInterrupt after `delay` seconds, wherever the main thread is then (a signal's
    handler runs between two bytecodes)."""

    def __init__(self, delay: float):
        self.delay = delay
        self.fired = False
        self._armed = False

    def _handler(self, signum, frame):
        if self._armed:
            self._armed = False
            self.fired = True
            raise KeyboardInterrupt("injected: timer")

    @contextlib.contextmanager
    def armed(self):
        previous = signal.signal(signal.SIGALRM, self._handler)
        self._armed = True
        signal.setitimer(signal.ITIMER_REAL, self.delay)
        try:
            yield self
        finally:
            self._armed = False
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)


INJECTED = (MemoryError, KeyboardInterrupt)


def fresh_memory() -> None:
    """Let go of the recycler's idle results and every thread's scratch buffers, so that a pass allocates."""
    host_pass._RESULTS.held.clear()
    program._SCRATCH = threading.local()


def is_pending(x) -> bool:
    return sx.fusion.pending(x) is not None


def bits(x) -> bytes:
    """The bytes of x's values, with every NaN made one NaN (which NaN NumPy's loops give depends on the layout)."""
    w = np.array(x, copy=True)
    if w.dtype.kind == "c":
        w = np.stack([w.real, w.imag])
    if w.dtype.kind == "f":
        w[np.isnan(w)] = np.nan
    return np.ascontiguousarray(w).tobytes()


def check_right_or_pending(arrays: list, expected: list) -> int:
    """Each array is either computed, with `expected`'s values (ndarrays, or bytes from `bits`), or still pending;
    returns how many are pending. Computed arrays only are read: reading a pending one would run it."""
    pending = 0
    for k, (x, want) in enumerate(zip(arrays, expected)):
        if is_pending(x):
            pending += 1
            continue
        got = bits(x)
        assert got == (want if type(want) is bytes else bits(want)), f"array {k} was computed wrong"
    return pending
