"""What a process owns across `os.fork`: stridex's locks, taken in one order before a fork and released in both
processes after it, and what each module resets in a forked child (a thread pool whose threads it lacks)."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

# The order in which stridex's module-level locks are taken, first to last: a thread holding one of them may
# wait for a later one, never for an earlier one (device work takes `device.OWNERS` before `fusion.LOCK`; the
# others guard a few stores each and take no other lock). A fork takes them all in this order before it, so it
# waits for a thread in the middle of a pass, a write into a device buffer or a cache update, and the child's
# copy of what they guard is whole; both processes release them after it.
ORDER = ("device.OWNERS", "fusion.LOCK", "fusion.POOL", "random.CACHE", "storage.COPYING",
         "storage.ADOPTING")

_LOCKS: dict[str, Any] = {}  # name in ORDER -> the lock
_CHILD_RESETS: list[Callable[[], None]] = []
_HELD: list = []  # the locks the fork's `before` took (released after it, in both processes)


def lock(name: str, made: Any) -> Any:
    """Register module-level lock `made` (a `threading.Lock` or `RLock`) under `name`, its place in `ORDER`,
    and return it."""
    if name not in ORDER:
        raise ValueError(f"lock {name!r} has no place in the lock order {ORDER}")
    _LOCKS[name] = made
    return made


def in_child(reset: Callable[[], None]) -> Callable[[], None]:
    """Register `reset()` to run in a forked child, after the locks are released: per-process state the child
    must not keep as it is (the threads of a pool are not in the child; thread-local buffers were the parent
    threads'). Returns `reset`, so that it can decorate the function."""
    _CHILD_RESETS.append(reset)
    return reset


def _before_fork() -> None:
    for name in ORDER:
        held = _LOCKS.get(name)
        if held is not None:
            held.acquire()
            _HELD.append(held)  # (only what was taken is released: an acquire interrupted here takes nothing)


def _release() -> None:
    while _HELD:
        _HELD.pop().release()  # (in the child too: the thread that forked is its one thread, and holds them)


def _after_fork_in_child() -> None:
    _release()
    for reset in _CHILD_RESETS:
        reset()


if hasattr(os, "register_at_fork"):  # (POSIX)
    os.register_at_fork(before=_before_fork, after_in_parent=_release, after_in_child=_after_fork_in_child)
