"""Products with jax.numpy's names: `dot`, `vdot`, `inner`, `outer`, `matmul`, `matvec`, `vecmat`, `vecdot`,
`tensordot`, `kron`, `cross`, each composed of stridex's matmul, tensordot and elementwise operations.

`precision=` is accepted as in jax.numpy (stridex's float32 matmuls are exact float32 unless
`stridex.matmul_precision` says otherwise); `preferred_element_type=` computes in that dtype."""

from __future__ import annotations

from typing import Any

from stridex._api import creation_functions as _cr
from stridex._api import elementwise_functions as _ew
from stridex._api import linear_algebra_functions as _la
from stridex._api import manipulation_functions as _manip
from stridex._core import dtypes as _d
from stridex._core.array import Array
from stridex.numpy import _args
from stridex.numpy import _dtypes as _jd

__all__ = ["cross", "dot", "inner", "kron", "matmul", "matvec", "outer", "tensordot", "vdot", "vecdot", "vecmat"]


def _operands(fname: str, a, b, preferred_element_type) -> tuple[Array, Array]:
    a, b = _args.promote(fname, _args.array(a, fname, 0), _args.array(b, fname, 1))
    preferred = _jd.canonical_or_none(preferred_element_type, fname)
    if preferred is not None:
        a, b = _args.cast(a, preferred), _args.cast(b, preferred)
    return a, b


def _boolean_product(fn, a: Array, b: Array) -> Array:
    """`fn` of two arrays; for booleans (multiplying as and, adding as or) an integer product's truth."""
    if a._dtype is not _d.bool:
        return fn(a, b)
    return _ew.not_equal(fn(_args.cast(a, _d.int64), _args.cast(b, _d.int64)), 0)


def dot(a: Any, b: Any, *, precision: Any = None, preferred_element_type: Any = None) -> Array:
    """NumPy's dot: a product for scalars, the inner product of vectors, matrix products, and for n-D arrays
    the sum over a's last axis and b's second-to-last.

    >>> import stridex.numpy as jnp
    >>> jnp.dot(jnp.asarray([1, 2]), jnp.asarray([3, 4])), jnp.dot(jnp.ones((2, 3, 4)), jnp.ones((5, 4, 6))).shape
    (Array(11), (2, 3, 5, 6))
    """
    a, b = _operands("dot", a, b, preferred_element_type)
    if a.ndim == 0 or b.ndim == 0:
        return _boolean_product(_ew.multiply, a, b)
    if b.ndim == 1 or a.ndim == 1 and b.ndim <= 2:
        return _boolean_product(_la.matmul, a, b)
    return _boolean_product(lambda x, y: _la.tensordot(x, y, axes=((x.ndim - 1,), (y.ndim - 2,))), a, b)


def vdot(a: Any, b: Any, *, precision: Any = None, preferred_element_type: Any = None) -> Array:
    """The inner product of the flattened arrays, the first conjugated.

    >>> import stridex.numpy as jnp
    >>> jnp.vdot(jnp.asarray([1 + 1j, 2]), jnp.asarray([1, 1j]))
    Array(1.+1.j)
    """
    a, b = _operands("vdot", a, b, preferred_element_type)
    a, b = _manip.reshape(a, (-1,)), _manip.reshape(b, (-1,))
    if a.shape != b.shape:
        raise ValueError(f"vdot: the arrays must have the same size, got {a.shape[0]} and {b.shape[0]}")
    return _boolean_product(lambda x, y: _la.matmul(_ew.conj(x), y), a, b)


def inner(a: Any, b: Any, *, precision: Any = None, preferred_element_type: Any = None) -> Array:
    """The sum of products over the last axes of both (a product for scalars).

    >>> import stridex.numpy as jnp
    >>> jnp.inner(jnp.asarray([[1, 2], [3, 4]]), jnp.asarray([1, 1]))
    Array([3, 7])
    """
    a, b = _operands("inner", a, b, preferred_element_type)
    if a.ndim == 0 or b.ndim == 0:
        return _boolean_product(_ew.multiply, a, b)
    return _boolean_product(lambda x, y: _la.tensordot(x, y, axes=((x.ndim - 1,), (y.ndim - 1,))), a, b)


def outer(a: Any, b: Any, out: None = None) -> Array:
    """The outer product of the flattened arrays: out[i, j] = a[i] * b[j].

    >>> import stridex.numpy as jnp
    >>> jnp.outer(jnp.asarray([1, 2]), jnp.asarray([1, 10, 100]))
    Array([[  1,  10, 100],
           [  2,  20, 200]])
    """
    _args.no_out(out, "outer")
    a, b = _operands("outer", a, b, None)
    a, b = _manip.reshape(a, (-1, 1)), _manip.reshape(b, (1, -1))
    return _ew.logical_and(a, b) if a._dtype is _d.bool else _ew.multiply(a, b)


def matmul(a: Any, b: Any, *, precision: Any = None, preferred_element_type: Any = None) -> Array:
    """The matrix product (stacks of matrices broadcast; a 1-D operand is a vector).

    >>> import stridex.numpy as jnp
    >>> jnp.matmul(jnp.asarray([[1, 2], [3, 4]]), jnp.asarray([1, 0]))
    Array([1, 3])
    """
    a, b = _operands("matmul", a, b, preferred_element_type)
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError(f"matmul: scalar operands are not allowed, got shapes {a.shape} and {b.shape}")
    return _boolean_product(_la.matmul, a, b)


def matvec(x1: Any, x2: Any, /) -> Array:
    """The product of each matrix (..., m, n) with each vector (..., n), broadcast: (..., m).

    >>> import stridex.numpy as jnp
    >>> jnp.matvec(jnp.asarray([[1, 2], [3, 4]]), jnp.asarray([1, 1]))
    Array([3, 7])
    """
    a, b = _operands("matvec", x1, x2, None)
    if a.ndim < 2 or b.ndim < 1:
        raise ValueError(f"matvec: needs a matrix and a vector, got shapes {a.shape} and {b.shape}")
    return _manip.squeeze(_boolean_product(_la.matmul, a, _manip.expand_dims(b, axis=-1)), -1)


def vecmat(x1: Any, x2: Any, /) -> Array:
    """The product of each conjugated vector (..., n) with each matrix (..., n, m), broadcast: (..., m).

    >>> import stridex.numpy as jnp
    >>> jnp.vecmat(jnp.asarray([1, 1]), jnp.asarray([[1, 2], [3, 4]]))
    Array([4, 6])
    """
    a, b = _operands("vecmat", x1, x2, None)
    if a.ndim < 1 or b.ndim < 2:
        raise ValueError(f"vecmat: needs a vector and a matrix, got shapes {a.shape} and {b.shape}")
    return _manip.squeeze(_boolean_product(_la.matmul, _manip.expand_dims(_ew.conj(a), axis=-2), b), -2)


def vecdot(x1: Any, x2: Any, /, *, axis: int = -1, precision: Any = None, preferred_element_type: Any = None) -> Array:
    """The dot product of vectors along `axis` (the first conjugated), broadcast over the other axes.

    >>> import stridex.numpy as jnp
    >>> jnp.vecdot(jnp.asarray([[1, 2], [3, 4]]), jnp.asarray([1, 1]))
    Array([3, 7])
    """
    a, b = _operands("vecdot", x1, x2, preferred_element_type)
    return _boolean_product(lambda x, y: _la.vecdot(x, y, axis=axis), a, b)


def tensordot(a: Any, b: Any, axes: Any = 2, *, precision: Any = None, preferred_element_type: Any = None) -> Array:
    """The sum of products over the last `axes` axes of a and the first of b, or over the axes given as a pair
    of sequences.

    >>> import stridex.numpy as jnp
    >>> jnp.tensordot(jnp.ones((2, 3, 4)), jnp.ones((3, 4, 5))).shape, jnp.tensordot(jnp.ones((2, 3)), jnp.ones((3, 2)), axes=([0], [1])).shape
    ((2, 5), (3, 3))
    """
    a, b = _operands("tensordot", a, b, preferred_element_type)
    if isinstance(axes, (list, tuple)):
        if len(axes) != 2:
            raise ValueError(f"tensordot: axes must be an int or a pair of sequences, got {axes!r}")
        first, second = axes
        first = tuple(first) if isinstance(first, (list, tuple)) else (first,)
        second = tuple(second) if isinstance(second, (list, tuple)) else (second,)
        axes = (first, second)
    else:
        axes = _args.index(axes, "tensordot", "axes")
    return _boolean_product(lambda x, y: _la.tensordot(x, y, axes=axes), a, b)


def kron(a: Any, b: Any) -> Array:
    """The Kronecker product: blocks a[i, j] * b.

    >>> import stridex.numpy as jnp
    >>> jnp.kron(jnp.asarray([[1, 2], [3, 4]]), jnp.eye(2, dtype=int))
    Array([[1, 0, 2, 0],
           [0, 1, 0, 2],
           [3, 0, 4, 0],
           [0, 3, 0, 4]])
    """
    a, b = _operands("kron", a, b, None)
    ndim = max(a.ndim, b.ndim)
    a = _manip.reshape(a, (1,) * (ndim - a.ndim) + a.shape)
    b = _manip.reshape(b, (1,) * (ndim - b.ndim) + b.shape)
    # a[..., i, 1, ...] * b[1, ..., j, ...]: the two index sets interleaved, then merged pairwise.
    a_spread = _manip.reshape(a, tuple(n for size in a.shape for n in (size, 1)))
    b_spread = _manip.reshape(b, tuple(n for size in b.shape for n in (1, size)))
    product = _ew.logical_and(a_spread, b_spread) if a._dtype is _d.bool else _ew.multiply(a_spread, b_spread)
    return _manip.reshape(product, tuple(x * y for x, y in zip(a.shape, b.shape)))


def cross(a: Any, b: Any, axisa: int = -1, axisb: int = -1, axisc: int = -1, axis: int | None = None) -> Array:
    """The cross product of 3-vectors (or of 2-vectors: the z component, a scalar per pair), taken along `axisa`
    of a and `axisb` of b (`axis` sets all three), the result's vectors along `axisc`.

    >>> import stridex.numpy as jnp
    >>> jnp.cross(jnp.asarray([1, 0, 0]), jnp.asarray([0, 1, 0])), jnp.cross(jnp.asarray([1, 2]), jnp.asarray([3, 4]))
    (Array([0, 0, 1]), Array(-2))
    """
    a, b = _operands("cross", a, b, None)
    if axis is not None:
        axisa = axisb = axisc = axis
    a = _manip.moveaxis(a, _args.axis(axisa, a.ndim, "cross", "axisa"), -1)
    b = _manip.moveaxis(b, _args.axis(axisb, b.ndim, "cross", "axisb"), -1)
    if a.shape[-1] not in (2, 3) or b.shape[-1] not in (2, 3):
        raise ValueError(f"cross: incompatible dimensions for the cross product (dimension must be 2 or 3), got "
                         f"{a.shape[-1]} and {b.shape[-1]}")
    a0, a1 = a[..., 0], a[..., 1]
    b0, b1 = b[..., 0], b[..., 1]
    if a.shape[-1] == 2 and b.shape[-1] == 2:
        return _ew.subtract(_ew.multiply(a0, b1), _ew.multiply(a1, b0))
    a2 = a[..., 2] if a.shape[-1] == 3 else _cr.zeros_like(a0)
    b2 = b[..., 2] if b.shape[-1] == 3 else _cr.zeros_like(b0)
    parts = [_ew.subtract(_ew.multiply(a1, b2), _ew.multiply(a2, b1)),
             _ew.subtract(_ew.multiply(a2, b0), _ew.multiply(a0, b2)),
             _ew.subtract(_ew.multiply(a0, b1), _ew.multiply(a1, b0))]
    out = _manip.stack(_manip.broadcast_arrays(*parts), axis=-1)
    return _manip.moveaxis(out, -1, _args.axis(axisc, out.ndim, "cross", "axisc"))
