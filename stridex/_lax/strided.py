"""Moved to `stridex._exec.strided` (issue 41: the lowering helpers live in the executor layer); this old path is the
same module object, kept for code written against it."""

import sys

from stridex._exec import strided as _moved  # noqa: F401

sys.modules[__name__] = _moved
