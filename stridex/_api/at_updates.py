"""`x.at[idx]`: JAX's functional indexed updates on stridex arrays (`set`, `add`, `subtract`, `multiply`, `divide`,
`power`, `min`, `max`, `apply`, `get`), binding the `stridex._lax.updates` primitives.

Each method returns a new array and never writes `x` (nor any view of its memory). Repeated indices apply every
update, as JAX's do; out-of-range indices follow `mode=` (JAX's `GatherScatterMode`). Under `jit` each lowers to
one gather or one scatter.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from stridex._api import array_indexing as _indexing
from stridex._api import elementwise_functions as _ew
from stridex._api import transcendental_functions as _tr
from stridex._api import creation_functions as _creation
from stridex._api.creation_functions import _values_are_eager, asarray
from stridex._api.searching_functions import nonzero
from stridex._core import dtypes as _dtypes
from stridex._core.array import Array
from stridex._core.device import HOST
from stridex._lax import ops
from stridex._lax import updates as _updates
from stridex._transforms.tracing import ConcretizationError, Tracer


def _template(x: Array, key) -> tuple[tuple, list]:
    """The static template and the index arrays of `key` for `x` (integers kept as given: the mode decides)."""
    key = key if type(key) is tuple else (key,)
    device = _indexing._index_device(x)
    entries: list[Any] = []
    for k in key:
        if isinstance(k, (np.ndarray, list, tuple)) or (isinstance(k, Array) and k.ndim > 0) or type(k) is bool \
                or isinstance(k, np.bool_):
            k = asarray(k, device=HOST) if not isinstance(k, Array) else k
            if k.dtype is _dtypes.bool:
                if k.ndim == 0:
                    raise TypeError("x.at[...] does not take a boolean scalar as an index")
                entries.extend(("index", part) for part in nonzero(k))  # (a mask is its nonzero indices)
                continue
        entries.append(("index", k) if isinstance(k, Array) else ("key", k))
    consumed = sum(1 for tag, k in entries if not (tag == "key" and (k is None or k is Ellipsis)))
    if consumed > x.ndim:
        raise IndexError(f"too many indices for an array of shape {x.shape}: {consumed} axes are indexed")
    if sum(1 for tag, k in entries if tag == "key" and k is Ellipsis) > 1:
        raise IndexError("an index can have at most one ellipsis ('...')")
    template: list[tuple] = []
    arrays: list[Array] = []
    axis = 0
    for tag, k in entries:
        if tag == "index":
            if k.dtype.kind not in ("signed", "unsigned"):
                raise TypeError(f"x.at[...] indices must be integers or booleans, got an array of dtype {k.dtype.name}")
            template.append(("array", len(arrays)))
            arrays.append(_indexing._index_beside(k, device))
            axis += 1
        elif k is None:
            template.append(("newaxis",))
        elif k is Ellipsis:
            template.append(("ellipsis",))
            axis += x.ndim - consumed
        elif isinstance(k, slice):
            if k.step == 0:
                raise ValueError("slice step cannot be zero")
            template.append(("slice", *_indexing._slice_indices(k, x.shape[axis])))
            axis += 1
        else:
            try:
                template.append(("int", operator.index(k)))
            except TypeError:
                raise TypeError(f"x.at[...] indices must be integers, slices, ..., None or integer or boolean "
                                f"arrays, got {type(k).__name__}") from None
            axis += 1
    return tuple(template), arrays


def _mode(mode, what: str) -> str:
    if mode is None:
        return "promise_in_bounds"
    name = getattr(mode, "name", mode)  # (JAX's GatherScatterMode enum, or its name)
    name = {"FILL_OR_DROP": "fill", "PROMISE_IN_BOUNDS": "promise_in_bounds", "CLIP": "clip",
            "ONE_HOT": "one_hot"}.get(name, name)
    if name not in _updates.MODES:
        raise ValueError(f"{what}: mode must be one of {_updates.MODES}, got {mode!r}")
    return name


class _IndexUpdateHelper:
    """`x.at`: indexing it, `x.at[idx]`, gives the reference whose methods update or read `x` at `idx`."""

    __slots__ = ("array",)

    def __init__(self, array: Array):
        self.array = array

    def __getitem__(self, index) -> _IndexUpdateRef:
        return _IndexUpdateRef(self.array, index)

    def __repr__(self) -> str:
        return f"_IndexUpdateHelper({self.array!r})"


class _IndexUpdateRef:
    """`x.at[idx]`: its methods return a copy of `x` updated at `idx` (or, `get`, the values there).

    >>> import stridex as sx
    >>> x = sx.zeros(4)
    >>> x.at[sx.asarray([0, 0, 2])].add(1.0)
    Array([2., 0., 1., 0.])
    >>> x.at[10].set(5.0)  # out of range: dropped (JAX's default for updates)
    Array([0., 0., 0., 0.])
    >>> x.at[10].get(mode="fill", fill_value=-1.0)
    Array(-1.)
    """

    __slots__ = ("array", "index")

    def __init__(self, array: Array, index):
        self.array = array
        self.index = index

    def __repr__(self) -> str:
        return f"_IndexUpdateRef({self.array!r}, {self.index!r})"

    def _params(self, what, mode, indices_are_sorted, unique_indices, wrap_negative_indices):
        template, arrays = _template(self.array, self.index)
        return template, arrays, {"template": template, "mode": _mode(mode, what), "wrap": bool(wrap_negative_indices),
                                  "indices_are_sorted": bool(indices_are_sorted),
                                  "unique_indices": bool(unique_indices)}

    def get(self, *, indices_are_sorted: bool = False, unique_indices: bool = False, mode: Any = None,
            fill_value: Any = None, wrap_negative_indices: bool = True) -> Array:
        """`x[idx]`, with JAX's out-of-range modes: by default an index out of range is clamped into its axis
        (`mode="clip"` says so); `mode="fill"` reads `fill_value` there (NaN for floating types, the most negative
        signed integer, the largest unsigned one, True: JAX's defaults).

        >>> import stridex as sx
        >>> sx.asarray([1.0, 2.0, 3.0]).at[sx.asarray([0, 5])].get(mode="fill")
        Array([ 1., nan])
        """
        x = self.array
        template, arrays, params = self._params("get", mode, indices_are_sorted, unique_indices, wrap_negative_indices)
        if fill_value is not None:
            if isinstance(fill_value, Array):
                fill_value = fill_value.__array__().item()  # (a static value, as JAX's)
            fill_value = np.asarray(fill_value).astype(x.dtype.np).item()
        return _updates.at_get.bind(x, *arrays, fill_value=fill_value, **params)

    def _update(self, prim, values, what, mode, indices_are_sorted, unique_indices, wrap_negative_indices,
                target: Array | None = None):
        x = self.array if target is None else target
        template, arrays, params = self._params(what, mode, indices_are_sorted, unique_indices, wrap_negative_indices)
        values = _indexing.check_value(x, values)
        shape = _updates.indexed_shape(x.shape, template, [a.shape for a in arrays])
        if not isinstance(values, Array):
            values = _creation.full(shape, values, dtype=x.dtype, device=_indexing._index_device(x))
        else:
            if values.dtype is not x.dtype:
                values = ops.astype(values, x.dtype)
            if values.shape != shape:
                try:
                    np.broadcast_shapes(values.shape, shape)
                    if np.broadcast_shapes(values.shape, shape) != shape:
                        raise ValueError
                except ValueError:
                    raise ValueError(f"x.at[...].{what}: values of shape {values.shape} do not broadcast to the "
                                     f"indexed shape {shape}") from None
                values = ops.broadcast_to(values, shape)
        return prim.bind(x, values, *arrays, **params)

    def set(self, values, *, indices_are_sorted: bool = False, unique_indices: bool = False, mode: Any = None,
            wrap_negative_indices: bool = True) -> Array:
        """A copy of `x` with `x[idx] = values` (of repeated indices, the last update is kept; out-of-range ones
        are dropped unless `mode="clip"`).

        >>> import stridex as sx
        >>> sx.zeros(3).at[1].set(7.0)
        Array([0., 7., 0.])
        """
        return self._update(_updates.at_set, values, "set", mode, indices_are_sorted, unique_indices,
                            wrap_negative_indices)

    def add(self, values, *, indices_are_sorted: bool = False, unique_indices: bool = False, mode: Any = None,
            wrap_negative_indices: bool = True) -> Array:
        """A copy of `x` with `values` added at `idx`; repeated indices add every value.

        >>> import stridex as sx
        >>> sx.zeros(3).at[sx.asarray([1, 1])].add(2.0)
        Array([0., 4., 0.])
        """
        self._refuse_boolean("add")
        return self._update(_updates.at_add, values, "add", mode, indices_are_sorted, unique_indices,
                            wrap_negative_indices)

    def subtract(self, values, *, indices_are_sorted: bool = False, unique_indices: bool = False, mode: Any = None,
                 wrap_negative_indices: bool = True) -> Array:
        """A copy of `x` with `values` subtracted at `idx` (`x[idx] -= values`, every repeated index applied).

        >>> import stridex as sx
        >>> sx.ones(3).at[0].subtract(2.0)
        Array([-1.,  1.,  1.])
        """
        return self._update(_updates.at_add, _ew.negative(values) if isinstance(values, Array) else -values,
                            "subtract", mode, indices_are_sorted, unique_indices, wrap_negative_indices)

    def multiply(self, values, *, indices_are_sorted: bool = False, unique_indices: bool = False, mode: Any = None,
                 wrap_negative_indices: bool = True) -> Array:
        """A copy of `x` multiplied by `values` at `idx` (every repeated index applied).

        >>> import stridex as sx
        >>> sx.ones(3).at[sx.asarray([2, 2])].multiply(3.0)
        Array([1., 1., 9.])
        """
        self._refuse_boolean("multiply")
        return self._update(_updates.at_mul, values, "multiply", mode, indices_are_sorted, unique_indices,
                            wrap_negative_indices)

    mul = multiply

    def divide(self, values, *, indices_are_sorted: bool = False, unique_indices: bool = False, mode: Any = None,
               wrap_negative_indices: bool = True) -> Array:
        """`x / d`, where `d` is ones multiplied by `values` at `idx` (JAX's definition: an integer `x` gives a
        floating result).

        >>> import stridex as sx
        >>> sx.ones(3).at[1].divide(4.0)
        Array([1.  , 0.25, 1.  ])
        """
        self._refuse_boolean("divide")
        x = self.array
        ones = _creation.ones_like(x)
        divisor = self._update(_updates.at_mul, values, "divide", mode, indices_are_sorted, unique_indices,
                               wrap_negative_indices, target=ones)
        if x.dtype.kind not in ("real floating", "complex floating"):
            # (jax.numpy's true division of integers: in float32 up to 32 bits, else float64)
            inexact = _dtypes.float64 if x.dtype.itemsize == 8 else _dtypes.float32
            x, divisor = ops.astype(x, inexact), ops.astype(divisor, inexact)
        return _ew.divide(x, divisor)

    def power(self, values, *, indices_are_sorted: bool = False, unique_indices: bool = False, mode: Any = None,
              wrap_negative_indices: bool = True) -> Array:
        """`x ** p`, where `p` is ones multiplied by `values` at `idx` (JAX's definition).

        >>> import stridex as sx
        >>> sx.full(3, 2.0).at[0].power(3.0)
        Array([8., 2., 2.])
        """
        self._refuse_boolean("power")
        x = self.array
        ones = _creation.ones_like(x)
        return _tr.pow(x, self._update(_updates.at_mul, values, "power", mode, indices_are_sorted, unique_indices,
                                       wrap_negative_indices, target=ones))

    def min(self, values, *, indices_are_sorted: bool = False, unique_indices: bool = False, mode: Any = None,
            wrap_negative_indices: bool = True) -> Array:
        """A copy of `x` with `x[idx] = minimum(x[idx], values)` (every repeated index applied; NaN propagates;
        complex numbers order by real part, then imaginary part, as in JAX).

        >>> import stridex as sx
        >>> sx.asarray([1.0, 5.0]).at[:].min(3.0)
        Array([1., 3.])
        """
        return self._update(_updates.at_min, values, "min", mode, indices_are_sorted, unique_indices,
                            wrap_negative_indices)

    def max(self, values, *, indices_are_sorted: bool = False, unique_indices: bool = False, mode: Any = None,
            wrap_negative_indices: bool = True) -> Array:
        """A copy of `x` with `x[idx] = maximum(x[idx], values)` (every repeated index applied; NaN propagates).

        >>> import stridex as sx
        >>> sx.asarray([1.0, 5.0]).at[:].max(3.0)
        Array([3., 5.])
        """
        return self._update(_updates.at_max, values, "max", mode, indices_are_sorted, unique_indices,
                            wrap_negative_indices)

    def _refuse_boolean(self, what: str) -> None:
        if self.array.dtype is _dtypes.bool:  # (JAX's scatter add and multiply refuse booleans too)
            raise TypeError(f"x.at[...].{what} does not take a boolean array")

    def apply(self, func: Callable[[Array], Array], *, indices_are_sorted: bool = False, unique_indices: bool = False,
              mode: Any = None, wrap_negative_indices: bool = True) -> Array:
        """A copy of `x` with the elementwise function `func` applied at `idx`, once per time an index names a
        position (JAX's rule for repeated indices).

        >>> import stridex as sx
        >>> sx.ones(3).at[sx.asarray([0, 0, 2])].apply(lambda v: v * 10)
        Array([100.,   1.,  10.])
        """
        from stridex._transforms.control_flow import fori_loop  # (control flow is imported on first use, as stridex's)

        x = self.array
        counts = self._update(_updates.at_add, 1, "apply", mode, indices_are_sorted, unique_indices,
                              wrap_negative_indices, target=_creation.zeros_like(x, dtype=_dtypes.int64))
        rounds: Any = ops.reduce_max(counts) if x.size else 0
        if not isinstance(rounds, Tracer) or _values_are_eager(rounds._trace):
            # A known number of rounds (eagerly, and under grad: the counts carry no derivative) makes the loop a
            # Python one, which reverse mode can differentiate; under jit (and for a batched count) it stays traced.
            try:
                rounds = int(rounds)
            except ConcretizationError:
                pass

        def once(i, y):
            applied = func(y)
            if not isinstance(applied, Array) or applied.shape != y.shape:
                raise TypeError(f"x.at[...].apply: func must map an array to one of the same shape {y.shape}")
            return ops.where(ops.greater(counts, i), ops.astype(applied, y.dtype), y)

        return fori_loop(0, rounds, once, x)


def _at(self) -> _IndexUpdateHelper:
    """JAX's functional updates: `x.at[idx].set(v)`, `.add(v)`, `.get()`, ... each return a new array."""
    return _IndexUpdateHelper(self)


Array.at = property(_at)  # type: ignore[attr-defined]
