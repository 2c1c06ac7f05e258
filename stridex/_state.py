"""The interpreter stack: which trace, if any, the next `bind` goes to."""


class _State:
    """`trace` is the innermost active trace, None when running eagerly; `stack` holds the outer ones."""

    __slots__ = ("stack", "trace")

    def __init__(self):
        self.trace = None
        self.stack = []


STATE = _State()
