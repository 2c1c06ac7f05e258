"""`View`: the pure, NumPy-free value (shape, strides, offset) that maps an index to a storage slot.

Every movement operation is a small function returning a new View; `reshape` answers None when no
view exists and lets the caller decide whether to copy. Strides and offset count elements.
"""

from __future__ import annotations

import operator
from math import prod


class View:
    __slots__ = ("offset", "shape", "strides")

    def __init__(self, shape: tuple, strides: tuple, offset: int = 0):
        self.shape = shape
        self.strides = strides
        self.offset = offset

    @staticmethod
    def contiguous(shape: tuple, offset: int = 0) -> View:
        if offset:
            return View(shape, contiguous_strides(shape), offset)
        view = _CONTIGUOUS.get(shape)
        if view is None:
            if len(_CONTIGUOUS) > 4096:
                _CONTIGUOUS.clear()
            view = _CONTIGUOUS[shape] = View(shape, contiguous_strides(shape), 0)
        return view

    def __repr__(self):
        return f"View(shape={self.shape}, strides={self.strides}, offset={self.offset})"

    def __eq__(self, other):
        return (isinstance(other, View) and self.shape == other.shape
                and self.strides == other.strides and self.offset == other.offset)

    def __hash__(self):
        return hash((self.shape, self.strides, self.offset))

    @property
    def size(self) -> int:
        return prod(self.shape)

    def is_contiguous(self) -> bool:
        return self.size == 0 or all(
            n == 1 or s == c for n, s, c in zip(self.shape, self.strides, contiguous_strides(self.shape))
        )

    def extent(self) -> tuple[int, int]:
        """Lowest and one-past-highest element slot this view touches (empty views touch none)."""
        if self.size == 0:
            return self.offset, self.offset
        lo = hi = self.offset
        for n, s in zip(self.shape, self.strides):
            if s < 0:
                lo += (n - 1) * s
            else:
                hi += (n - 1) * s
        return lo, hi + 1

    # --- movement ops ---------------------------------------------------------------------

    def permute(self, axes: tuple) -> View:
        return View(tuple(self.shape[a] for a in axes), tuple(self.strides[a] for a in axes), self.offset)

    def flip(self, axes: tuple) -> View:
        shape, strides, offset = self.shape, list(self.strides), self.offset
        for a in axes:
            if shape[a] > 0:
                offset += (shape[a] - 1) * strides[a]
            strides[a] = -strides[a]
        return View(shape, tuple(strides), offset)

    def broadcast(self, shape: tuple) -> View:
        """Broadcast to `shape` (already checked compatible): new leading axes and size-1 axes get stride 0."""
        lead = len(shape) - len(self.shape)
        strides = [0] * lead
        for n, s, m in zip(self.shape, self.strides, shape[lead:]):
            strides.append(s if n == m else 0)
        return View(tuple(shape), tuple(strides), self.offset)

    def expand(self, axis: int) -> View:
        """Insert a size-1 axis at position `axis` (0 <= axis <= ndim)."""
        return View(self.shape[:axis] + (1,) + self.shape[axis:],
                    self.strides[:axis] + (0,) + self.strides[axis:], self.offset)

    def squeeze(self, axes: tuple) -> View:
        keep = [i for i in range(len(self.shape)) if i not in axes]
        return View(tuple(self.shape[i] for i in keep), tuple(self.strides[i] for i in keep), self.offset)

    def slice(self, starts: tuple, stops: tuple, steps: tuple) -> View:
        """Per-axis normalised slice (start, stop, step as `range` would take them)."""
        shape, strides, offset = [], [], self.offset
        for start, stop, step, s in zip(starts, stops, steps, self.strides):
            n = len(range(start, stop, step))
            if n:
                offset += start * s
            shape.append(n)
            strides.append(s * step)
        return View(tuple(shape), tuple(strides), offset)

    def index(self, entries: tuple) -> View:
        """Basic indexing with normalised entries covering every axis in order:
        ("int", i) drops an axis, ("slice", start, stop, step) keeps it, ("newaxis",) inserts one."""
        shape, strides, offset, axis = [], [], self.offset, 0
        for entry in entries:
            tag = entry[0]
            if tag == "newaxis":
                shape.append(1)
                strides.append(0)
                continue
            stride = self.strides[axis]
            axis += 1
            if tag == "int":
                offset += entry[1] * stride
            else:
                _, start, stop, step = entry
                n = len(range(start, stop, step))
                if n:
                    offset += start * stride
                shape.append(n)
                strides.append(stride * step)
        return View(tuple(shape), tuple(strides), offset)

    def select(self, axis: int, index: int) -> View:
        """Drop `axis` by taking the normalised integer `index` on it."""
        return View(self.shape[:axis] + self.shape[axis + 1:], self.strides[:axis] + self.strides[axis + 1:],
                    self.offset + index * self.strides[axis])

    def diagonal(self, offset: int, axis1: int, axis2: int) -> View:
        """The diagonal of axes (axis1, axis2), appended as the last axis (linalg.diagonal's rule)."""
        n1, n2 = self.shape[axis1], self.shape[axis2]
        s1, s2 = self.strides[axis1], self.strides[axis2]
        start = self.offset
        if offset >= 0:
            length = max(0, min(n1, n2 - offset))
            if length:
                start += offset * s2
        else:
            length = max(0, min(n1 + offset, n2))
            if length:
                start += -offset * s1
        keep = [i for i in range(len(self.shape)) if i not in (axis1, axis2)]
        return View(tuple(self.shape[i] for i in keep) + (length,),
                    tuple(self.strides[i] for i in keep) + (s1 + s2,), start)

    def reshape(self, shape: tuple) -> View | None:
        """A View with the new shape over the same slots, or None when the strides do not allow one.

        The NumPy/PyTorch rule: each run of old axes that merges into / splits from new axes must be
        contiguous relative to itself (size-1 axes are free).
        """
        if prod(shape) != self.size:
            raise ValueError(f"cannot reshape a view of shape {self.shape} into shape {shape}")
        if self.size == 0 or self.is_contiguous():
            return View(shape, contiguous_strides(shape), self.offset)
        old = [(n, s) for n, s in zip(self.shape, self.strides) if n != 1]
        out = [0] * len(shape)
        oi = ni = 0
        while ni < len(shape) and oi < len(old):
            oj, nj = oi + 1, ni + 1
            o_prod, n_prod = old[oi][0], shape[ni]
            while o_prod != n_prod:
                if n_prod < o_prod:
                    n_prod *= shape[nj]
                    nj += 1
                else:
                    o_prod *= old[oj][0]
                    oj += 1
            # The old axes merged into this group must be laid out contiguously relative to each other.
            for k in range(oi, oj - 1):
                if old[k][1] != old[k + 1][0] * old[k + 1][1]:
                    return None
            out[nj - 1] = old[oj - 1][1]
            for k in range(nj - 1, ni, -1):
                out[k - 1] = out[k] * shape[k]
            ni, oi = nj, oj
        return View(tuple(shape), tuple(out), self.offset)


_CONTIGUOUS: dict = {}  # shape -> its contiguous View at offset 0 (Views are immutable values)


def contiguous_strides(shape: tuple) -> tuple:
    strides, acc = [], 1
    for n in reversed(shape):
        strides.append(acc)
        acc *= max(n, 1)
    return tuple(reversed(strides))


def normalize_axis(axis, ndim: int, what: str = "axis") -> int:
    try:
        axis = operator.index(axis)
    except TypeError:
        raise TypeError(f"{what} must be an integer, got {type(axis).__name__}") from None
    if not -ndim <= axis < ndim:
        # NumPy's AxisError wording ("source: axis 10 is out of bounds ..."), which client libraries match.
        prefix = "" if what == "axis" else f"{what.removesuffix(' axis')}: "
        raise IndexError(f"{prefix}axis {axis} is out of bounds for array of dimension {ndim}")
    return axis + ndim if axis < 0 else axis


def normalize_axes(axes, ndim: int, what: str = "axis") -> tuple:
    """Normalise an int or tuple of ints; raises ValueError on repeats."""
    if axes is None:
        return tuple(range(ndim))
    if not isinstance(axes, (tuple, list)):
        axes = (axes,)
    out = tuple(normalize_axis(a, ndim, what) for a in axes)
    if len(set(out)) != len(out):
        raise ValueError(f"repeated {what} in {tuple(axes)}")
    return out


def normalize_shape(shape, what: str, *, allow_int: bool = False) -> tuple:
    """A shape as a tuple of non-negative ints (an int alone too when `allow_int`); TypeError or
    ValueError naming `what` otherwise."""
    if type(shape) is tuple:
        for n in shape:
            if type(n) is not int or n < 0:
                break
        else:
            return shape
    elif allow_int and type(shape) is int and shape >= 0:
        return (shape,)
    dims: tuple[int, ...] | None = None
    if allow_int:
        try:
            dims = (operator.index(shape),)
        except TypeError:
            pass
    if dims is None:
        try:
            dims = tuple(operator.index(n) for n in shape)
        except TypeError:
            kind = "an int or a tuple of ints" if allow_int else "a tuple of ints"
            raise TypeError(f"{what}: shape must be {kind}, got {shape!r}{_traced_hint(shape)}") from None
    if any(n < 0 for n in dims):
        raise ValueError(f"{what}: shape {dims} has a negative dimension")
    return dims


def as_count(value, what: str, minimum: int = 0) -> int:
    """An integer count (not a bool) of at least `minimum`; TypeError or ValueError naming `what`."""
    if isinstance(value, bool):
        raise TypeError(f"{what} must be an integer, got bool")
    try:
        n = operator.index(value)
    except TypeError:
        raise TypeError(f"{what} must be an integer, got {type(value).__name__}{_traced_hint(value)}") from None
    if n < minimum:
        raise ValueError(f"{what} must be at least {minimum}, got {n}")
    return n


def _traced_hint(value) -> str:
    """For a traced value given where a Python int is needed (duck-typed: this module knows no tracers), how out."""
    values = value if isinstance(value, (tuple, list)) else (value,)
    if not any(hasattr(v, "_aval") for v in values):
        return ""
    return ("; a traced value (a Python scalar argument of a jitted function, say) is not known while tracing, "
            "and a shape must be: mark that argument static (static_argnums= or static_argnames=)")


def broadcast_shapes(*shapes: tuple) -> tuple:
    """The broadcast shape of `shapes`; ValueError naming them when they are incompatible."""
    ndim = max((len(s) for s in shapes), default=0)
    out = [1] * ndim
    for s in shapes:
        for i, n in enumerate(s, ndim - len(s)):
            m = out[i]
            if m == n or n == 1:
                continue
            if m == 1:
                out[i] = n
            else:
                raise ValueError(f"shapes {' and '.join(str(tuple(x)) for x in shapes)} cannot be broadcast together")
    return tuple(out)


# --- normalised index entries as NumPy/JAX keys ----------------------------------------------------


def slice_key(start: int, stop: int, step: int) -> slice:
    """The Python slice that selects exactly `range(start, stop, step)` in NumPy and JAX.

    `slice.indices` normalises like `range`, so a negative step may give a start or stop of -1
    ("before the first element"), which a slice would read as "the last element". An empty range
    becomes `slice(0, 0, 1)`; otherwise a stop of -1 (negative step, run past index 0) becomes None.
    """
    if not range(start, stop, step):
        return slice(0, 0, 1)
    return slice(start, None if stop < 0 else stop, step)


def numpy_key(template: tuple, arrays) -> tuple:
    """The NumPy/JAX index for a normalised template and its index arrays."""
    key = []
    for entry in template:
        tag = entry[0]
        if tag == "int":
            key.append(entry[1])
        elif tag == "slice":
            key.append(slice_key(*entry[1:]))
        elif tag == "newaxis":
            key.append(None)
        elif tag == "ellipsis":
            key.append(Ellipsis)
        else:
            key.append(arrays[entry[1]])
    return tuple(key)
