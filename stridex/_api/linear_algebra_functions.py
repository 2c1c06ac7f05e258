"""The main namespace's linear-algebra functions: matmul, matrix_transpose, tensordot, vecdot.

All three products bind one primitive, `dot_general`; broadcasting of batch axes and axis moves are views.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence

from stridex._api import elementwise_functions as _ew
from stridex._core import dtypes as _dtypes
from stridex._core.array import Array
from stridex._core.view import broadcast_shapes
from stridex._lax import linalg as _p
from stridex._lax import ops
from stridex._lax import views as _views

__all__ = ["matmul", "matrix_transpose", "tensordot", "vecdot"]

_NUMERIC = frozenset(_dtypes.EXTENDED_CATEGORIES["numeric"])  # (the half types too)


_PROMOTION = _dtypes.PROMOTION


def _check_numeric(name: str, x1, x2) -> _dtypes.DType:
    """TypeError unless both arguments are numeric arrays; returns their promoted dtype."""
    if type(x1) is Array and type(x2) is Array and x1._dtype in _NUMERIC and x2._dtype in _NUMERIC:
        return _PROMOTION[x1._dtype, x2._dtype]
    for x in (x1, x2):
        if not isinstance(x, Array):
            raise TypeError(f"{name} expects arrays, got {type(x).__name__}")
        if x._dtype not in _NUMERIC:
            raise TypeError(f"{name} requires numeric dtypes, got {x._dtype.name}")
    return _dtypes.result_type_of(x1._dtype, x2._dtype)


def _broadcast_view(x: Array, shape: tuple) -> Array:
    return x if x.shape == shape else _views.broadcast_to.bind(x, shape=shape)


def _squeeze_view(x: Array, axes: tuple) -> Array:
    return _views.squeeze.bind(x, axes=axes) if axes else x


def _permute_view(x: Array, axes: tuple) -> Array:
    return x if axes == tuple(range(len(axes))) else _views.permute.bind(x, axes=axes)


def matmul(x1: Array, x2: Array, /) -> Array:
    """Matrix product with NumPy's `@` rules: vectors are promoted to matrices, stacks broadcast.

    >>> import stridex as sx
    >>> sx.matmul(sx.asarray([[1, 2], [3, 4]]), sx.asarray([1, 1]))
    Array([3, 7])
    """
    dtype = _check_numeric("matmul", x1, x2)
    s1, s2 = x1.shape, x2.shape
    n1, n2 = len(s1), len(s2)
    if n1 == 0 or n2 == 0:
        raise ValueError(f"matmul requires arrays of at least one dimension, got shapes {s1} and {s2}")
    k1 = s1[-1]
    k2 = s2[0] if n2 == 1 else s2[-2]
    if k1 != k2:
        raise ValueError(f"matmul: shapes {s1} and {s2} are not aligned: {k1} (last axis of x1) != {k2} "
                         f"({'first' if n2 == 1 else 'second-to-last'} axis of x2)")
    n_batch = 0
    if n1 > 1 and n2 > 2:  # stacks of matrices: their leading axes broadcast
        batch = broadcast_shapes(s1[:-2], s2[:-2])
        # One side a single matrix (its leading axes all 1) is not broadcast into a stack: a broadcast operand
        # is a copy in compiled code (XLA materialises it), and one contraction over the other's axes is
        # the same product. What remains broadcast below only gains leading axes of size 1 (no copy).
        if all(n == 1 for n in s2[:-2]):
            x2 = _squeeze_view(x2, tuple(range(n2 - 2)))
            return _p.dot_general.bind(_broadcast_view(x1, batch + s1[-2:]), x2, out_dtype=dtype,
                                       dimension_numbers=ops.matmul_dimension_numbers(len(batch) + 2, 2, 0))
        if all(n == 1 for n in s1[:-2]):
            # (M, K) with (..., K, N): the result's axes are (M, ..., N); M moves into place as a view.
            x1 = _squeeze_view(x1, tuple(range(n1 - 2)))
            nb = len(batch)
            out = _p.dot_general.bind(x1, _broadcast_view(x2, batch + s2[-2:]), out_dtype=dtype,
                                      dimension_numbers=(((1,), (nb,)), ((), ())))
            return _permute_view(out, (*range(1, nb + 1), 0, nb + 1))
        x1 = _broadcast_view(x1, batch + s1[-2:])
        x2 = _broadcast_view(x2, batch + s2[-2:])
        n_batch = len(batch)
    return _p.dot_general.bind(x1, x2, dimension_numbers=ops.matmul_dimension_numbers(n1, n2, n_batch),
                               out_dtype=dtype)


def matrix_transpose(x: Array, /) -> Array:
    """Swap the last two axes of `x` (a view).

    >>> import stridex as sx
    >>> sx.matrix_transpose(sx.zeros((2, 3, 4))).shape
    (2, 4, 3)
    """
    if not isinstance(x, Array):
        raise TypeError(f"matrix_transpose expects an array, got {type(x).__name__}")
    if x.ndim < 2:
        raise ValueError(f"matrix_transpose needs an array of at least 2 dimensions, got shape {x.shape}")
    axes = tuple(range(x.ndim - 2)) + (x.ndim - 1, x.ndim - 2)
    return _views.permute.bind(x, axes=axes)


def _axis_list(axes, ndim: int, which: str) -> tuple:
    out = []
    for a in axes:
        try:
            a = operator.index(a)
        except TypeError:
            raise TypeError(f"tensordot: {which} axes must be integers, got {type(a).__name__}") from None
        if not -ndim <= a < ndim:
            raise IndexError(f"tensordot: axis {a} is out of bounds for {which} of dimension {ndim}")
        out.append(a % ndim)
    if len(set(out)) != len(out):
        raise ValueError(f"tensordot: repeated axis in {tuple(axes)} for {which}")
    return tuple(out)


def tensordot(x1: Array, x2: Array, /, *, axes: int | tuple[Sequence[int], Sequence[int]] = 2) -> Array:
    """Contract `x1` and `x2` over `axes`: an int N (last N of x1 with first N of x2) or two axis sequences.

    The result's axes are x1's free axes followed by x2's free axes.

    >>> import stridex as sx
    >>> sx.tensordot(sx.ones((2, 3, 4)), sx.ones((3, 4, 5))).shape
    (2, 5)
    """
    dtype = _check_numeric("tensordot", x1, x2)
    n1, n2 = x1.ndim, x2.ndim
    if isinstance(axes, (tuple, list)):
        if len(axes) != 2:
            raise ValueError(f"tensordot: axes must be an int or a pair of axis sequences, got {axes!r}")
        first, second = axes
        first = (first,) if not isinstance(first, (tuple, list)) else first
        second = (second,) if not isinstance(second, (tuple, list)) else second
        if len(first) != len(second):
            raise ValueError(f"tensordot: axes {tuple(first)} and {tuple(second)} differ in length")
        c1, c2 = _axis_list(first, n1, "x1"), _axis_list(second, n2, "x2")
    else:
        try:
            count = operator.index(axes)
        except TypeError:
            raise TypeError(f"tensordot: axes must be an int or a pair of sequences, got {axes!r}") from None
        if count < 0:
            raise ValueError(f"tensordot: axes must be nonnegative, got {count}")
        if count > n1 or count > n2:
            raise ValueError(f"tensordot: cannot contract {count} axes of arrays of shapes {x1.shape} and {x2.shape}")
        c1, c2 = tuple(range(n1 - count, n1)), tuple(range(count))
    for i, j in zip(c1, c2):
        if x1.shape[i] != x2.shape[j]:
            # Note: the spec forbids broadcasting contracted axes, so a size-1 axis does not stretch.
            raise ValueError(f"tensordot: axis {i} of x1 (shape {x1.shape}) and axis {j} of x2 (shape {x2.shape}) "
                             f"differ in size")
    return _p.dot_general.bind(x1, x2, dimension_numbers=((c1, c2), ((), ())), out_dtype=dtype)


def vecdot(x1: Array, x2: Array, /, *, axis: int = -1) -> Array:
    """Dot product of vectors along `axis`, conjugating `x1` when complex; other axes broadcast.

    >>> import stridex as sx
    >>> sx.vecdot(sx.asarray([[1.0, 2.0], [3.0, 4.0]]), sx.asarray([1.0, 1.0]))
    Array([3., 7.])
    """
    dtype = _check_numeric("vecdot", x1, x2)
    s1, s2 = x1.shape, x2.shape
    n = min(len(s1), len(s2))
    if n == 0:
        raise ValueError(f"vecdot requires arrays of at least one dimension, got shapes {s1} and {s2}")
    try:
        axis = operator.index(axis)
    except TypeError:
        raise TypeError(f"vecdot: axis must be an integer, got {type(axis).__name__}") from None
    if axis >= 0:
        if len(s1) != len(s2):
            # Note: the spec counts `axis` from the end (2023.12); a nonnegative one is only unambiguous
            # when both arrays have the same number of dimensions.
            raise ValueError(f"vecdot: axis must be negative for arrays of shapes {s1} and {s2}, got {axis}")
        axis -= len(s1)
    if not -n <= axis <= -1:
        raise IndexError(f"vecdot: axis {axis} is out of bounds for arrays of shapes {s1} and {s2}")
    if s1[axis] != s2[axis]:
        raise ValueError(f"vecdot: axis {axis} has size {s1[axis]} in x1 (shape {s1}) but {s2[axis]} in x2 "
                         f"(shape {s2})")
    if x1._dtype.kind == "complex floating":
        x1 = _ew.conj(x1)
    if axis != -1:
        x1 = _move_to_end(x1, axis)
        x2 = _move_to_end(x2, axis)
    if x2.ndim == 1 or x1.ndim == 1:
        # One side is a single vector: no batch axes, the other side's leading axes are free.
        c1, c2 = (x1.ndim - 1,), (x2.ndim - 1,)
        return _p.dot_general.bind(x1, x2, dimension_numbers=((c1, c2), ((), ())), out_dtype=dtype)
    if s1 != s2:
        batch = broadcast_shapes(x1.shape[:-1], x2.shape[:-1])
        k = x1.shape[-1]
        x1 = _broadcast_view(x1, batch + (k,))
        x2 = _broadcast_view(x2, batch + (k,))
    nb = x1.ndim - 1
    b = tuple(range(nb))
    return _p.dot_general.bind(x1, x2, dimension_numbers=(((nb,), (nb,)), (b, b)), out_dtype=dtype)


def _move_to_end(x: Array, axis: int) -> Array:
    ndim = x.ndim
    axis += ndim
    return _permute_view(x, tuple(a for a in range(ndim) if a != axis) + (axis,))
