"""The interpreter stack: which trace, if any, the next `bind` goes to — one answer per thread.

The current trace is a context variable, so each thread (and each asyncio task) has its own: while one
thread traces a jitted function, eager code in another thread keeps running eagerly. Reading it is one
call of the variable's bound `get` (about as cheap as reading a module attribute).
"""

from contextvars import ContextVar

_TRACE: ContextVar = ContextVar("stridex_trace", default=None)

current_trace = _TRACE.get
"""The innermost active trace of this thread; None when running eagerly."""

set_trace = _TRACE.set
"""Make a trace (or None) this thread's current one."""


class TraceScope:
    """A context in which a given trace (or None: eager execution) is this thread's current one."""

    __slots__ = ("saved", "trace")

    def __init__(self, trace):
        self.trace = trace

    def __enter__(self):
        self.saved = current_trace()
        set_trace(self.trace)

    def __exit__(self, *exc):
        set_trace(self.saved)


def push(trace) -> TraceScope:
    """A context in which `trace` is the current trace (None: run eagerly)."""
    return TraceScope(trace)
