"""What was fused: `pending(x)` prints the pending work behind an array; `Fusion` is `stridex.fusion` (the switch
and the inspector) and `eval` is `stridex.eval` (forcing at a chosen point)."""

from __future__ import annotations

import contextlib

import numpy as np

from stridex._core.array import Array
from stridex._core.dtypes import FROM_NUMPY
from stridex._exec.fusion.device_pass import DeviceGroup
from stridex._exec.fusion.pending import (
    _ENABLED,
    _PENDING,
    LOCK,
    PendingDeviceStorage,
    PendingStorage,
    enable,
    evaluate,
)
from stridex._exec.fusion.records import Record

def pending(x: Array) -> str | None:
    """The pending work behind array `x`, printed one record a line, or None when `x` is computed."""
    st = x._storage
    if type(st) not in _PENDING:
        return None
    with LOCK:
        if type(st) is PendingStorage:
            target = st.owner
            members = [rec for ref in target.group.members if (rec := ref()) is not None and rec.result is None]
            return _print_host(members, target)
        if type(st) is PendingDeviceStorage:
            group, index = st.buf
            return _print_device(group, index)
    return None


def _line(name, dtype, shape, prim, parts, params, mark) -> str:
    params_text = "".join(f", {k}={getattr(v, 'name', v)}" for k, v in params.items())
    return f"{name}:{dtype.name}{list(shape)} = {prim.name}({', '.join(parts)}{params_text}){'  <- x' if mark else ''}"


def _print_host(members, target) -> str:
    names: dict = {}
    leaves: dict = {}
    lines = []
    for rec in members:
        parts = []
        for x_ in rec.inputs:
            if type(x_) is Record:
                parts.append(names.get(id(x_), "?"))
            elif type(x_) is np.ndarray:
                parts.append(leaves.setdefault(id(x_), f"in{len(leaves)}"))
            else:
                parts.append(repr(x_))
        names[id(rec)] = f"r{len(names)}"
        lines.append(_line(names[id(rec)], FROM_NUMPY[rec.dtype], rec.shape, rec.prim, parts, rec.params,
                           rec is target))
    return "\n".join(lines)


def _print_device(group: DeviceGroup, target: int) -> str:
    lines = []
    for i, (prim, params, sources, dtype) in enumerate(group.plan):
        parts = [f"in{group.reads[v][0]}" if kind == 0 else f"r{v}" if kind == 1 else repr(v) for kind, v in sources]
        lines.append(_line(f"r{i}", dtype, group.shape, prim, parts, params, i == target))
    return "\n".join(lines)


# --- the public surface: `stridex.fusion` and `stridex.eval` -----------------------------------------------


class Fusion:
    """Eager fusion's switch and inspector (`stridex.fusion`).

    `with stridex.fusion(False): ...` runs every eager operation in the block at once (op by op), as
    `STRIDEX_FUSION=0` does for the whole process; `stridex.fusion(True)` turns it back on inside such a block.
    `stridex.fusion.enabled()` says whether it is on here, and `stridex.fusion.pending(x)` prints the pending work
    behind `x` (None once it is computed).

    >>> import stridex as sx
    >>> x = sx.linspace(0.0, 1.0, 100_000)
    >>> with sx.fusion(False):
    ...     y = sx.sin(x) + 1.0
    >>> sx.fusion.pending(y) is None
    True
    """

    def __call__(self, enabled: bool = True) -> contextlib.AbstractContextManager[None]:
        return enable(enabled)

    def enabled(self) -> bool:
        """Whether eager elementwise work may be deferred in this context."""
        return _ENABLED.get()

    def pending(self, x: Array) -> str | None:
        """The pending work that computes `x`, one record a line (`<- x` marks x's), or None when x is computed."""
        return pending(x)

    def __repr__(self) -> str:
        return f"stridex.fusion(enabled={_ENABLED.get()})"


fusion = Fusion()


def eval(*arrays: object) -> None:  # noqa: A001  (named as MLX's `mx.eval`, which it is)
    """Compute every pending array among `arrays` (arrays, or lists, tuples and dicts of them) now.

    Eager elementwise work on large arrays may be deferred and fused (see `stridex.fusion`); it runs when a value
    is needed anyway (printing, `float(x)`, NumPy, a reduction, `jit`). This forces it at a chosen point, as
    `mx.eval` does in MLX; `x.block_until_ready()` forces `x` too, as in JAX.

    >>> import stridex as sx
    >>> y = sx.sin(sx.linspace(0.0, 1.0, 100_000)) * 2.0
    >>> sx.eval(y)
    >>> sx.fusion.pending(y) is None
    True
    """
    evaluate(*arrays)
