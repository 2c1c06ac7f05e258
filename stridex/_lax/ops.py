"""Internal operations: what the rules of primitives (JVP, VJP, batching, write-back, decompositions) and
the transformations are written in.

Each function binds primitives with parameters that are already normalised: no argument checking, no
spec-facing conversions, nothing the namespace layer above decides. Like `jax.lax` under `jax.numpy`,
this is the vocabulary below the public one; the namespace functions validate, then bind the same
primitives.

A function here finds its primitive in the registry when it is called (`_P.reshape_view`), so any
family's rules may use any family's operations without the family modules importing each other: every
family is registered once `stridex._lax` is imported, before any rule can run.
"""

from __future__ import annotations

import numpy as np

from stridex._core import dtypes as _dtypes
from stridex._core.array import Array
from stridex._core.avals import value_aval
from stridex._core.view import normalize_axes, normalize_axis
from stridex._lax.primitive import PRIMITIVES


class _Registry:
    """`_P.name` is the registered primitive `name` (looked up at call time)."""

    __slots__ = ()

    def __getattr__(self, name: str):
        try:
            return PRIMITIVES[name]
        except KeyError:
            raise AttributeError(f"no primitive named {name!r} is registered") from None


_P = _Registry()


def shape_of(x) -> tuple:
    return value_aval(x).shape


def dtype_of(x):
    return value_aval(x).dtype


_axis = normalize_axis


def _axes(axes, ndim: int) -> tuple:
    return tuple(sorted(normalize_axes(axes, ndim)))


# --- creation ------------------------------------------------------------------------------------------


def constant(value, dtype=None, like=None) -> Array:
    """A concrete array of `value` (a Python scalar or nested list; `dtype` a stridex dtype or None for
    NumPy's default), made here and never traced: under a trace it is a constant of the program. Eagerly it
    lives where `like` (the array a rule combines it with) lives, so that a rule run on a device stays there."""
    out = np.asarray(value, dtype=None if dtype is None else dtype.np)
    if out.dtype not in _dtypes.FROM_NUMPY:
        out = out.astype(np.int64 if out.dtype.kind in "iu" else np.float64)
    made = Array._from_numpy(np.array(out))
    # (a tracer says where its values live: under grad or vmap of device arrays, their device; under jit the
    # host, as a program's constants go where it runs)
    device = like.device if isinstance(like, Array) else None
    return made if device is None or device.is_host else made.to_device(device)


def full(shape: tuple, value, dtype) -> Array:
    return _P.full.bind(shape=tuple(shape), fill_value=value, dtype=dtype)


def zeros(shape: tuple, dtype) -> Array:
    return full(shape, False if dtype is _dtypes.bool else 0, dtype)


def ones(shape: tuple, dtype) -> Array:
    return full(shape, True if dtype is _dtypes.bool else 1, dtype)


def zeros_like(x) -> Array:
    """Zeros of the shape and dtype of `x` (an array, a tracer or an aval)."""
    aval = value_aval(x)
    return zeros(aval.shape, aval.dtype)


def arange(n: int, dtype=_dtypes.int64) -> Array:
    """0, 1, ..., n-1."""
    return _P.iota.bind(start=0, step=1, num=n, dtype=dtype)


def eye(n_rows: int, n_cols: int | None = None, k: int = 0, dtype=_dtypes.float64) -> Array:
    return _P.eye.bind(n_rows=n_rows, n_cols=n_rows if n_cols is None else n_cols, k=k, dtype=dtype)


def copy(x) -> Array:
    return _P.copy.bind(x)


def astype(x, dtype) -> Array:
    """`x` as `dtype` (`x` itself when it has that dtype already)."""
    return x if dtype_of(x) is dtype else _P.convert_element_type.bind(x, new_dtype=dtype)


# --- views ---------------------------------------------------------------------------------------------


def reshape(x, shape: tuple) -> Array:
    """`x` with a new shape (sizes known, no -1): a view when the strides allow one, else a copy."""
    shape = tuple(shape)
    if shape == shape_of(x):
        return x
    if not isinstance(x, Array):
        return _P.reshape_view.bind(x, shape=shape)
    if x._storage_view()[1].reshape(shape) is None:
        x = copy(x)
    return _P.reshape_view.bind(x, shape=shape)


def broadcast_to(x, shape: tuple) -> Array:
    """`x` broadcast to `shape`, leading axes added as needed (a view)."""
    shape = tuple(shape)
    own = shape_of(x)
    if own == shape:
        return x
    if len(own) < len(shape):
        x = reshape(x, (1,) * (len(shape) - len(own)) + own)
    return _P.broadcast_to.bind(x, shape=shape)


def expand_dims(x, axis: int | tuple) -> Array:
    """`x` with size-1 axes at the positions `axis` (of the result) hold."""
    ndim = len(shape_of(x)) + (1 if isinstance(axis, int) else len(axis))
    for a in _axes(axis, ndim):
        x = _P.expand_dims.bind(x, axis=a)
    return x


def squeeze(x, axes: int | tuple) -> Array:
    return _P.squeeze.bind(x, axes=_axes(axes, len(shape_of(x))))


def permute(x, axes: tuple) -> Array:
    axes = tuple(axes)
    return x if axes == tuple(range(len(axes))) else _P.permute.bind(x, axes=axes)


def moveaxis(x, source: int | tuple, destination: int | tuple) -> Array:
    ndim = len(shape_of(x))
    source = (source,) if isinstance(source, int) else tuple(source)
    destination = (destination,) if isinstance(destination, int) else tuple(destination)
    source = [_axis(a, ndim) for a in source]  # type: ignore[assignment]  # (normalized: a list of ints)
    destination = [_axis(a, ndim) for a in destination]  # type: ignore[assignment]  # (as source)
    order = [a for a in range(ndim) if a not in source]
    for dst, src in sorted(zip(destination, source)):
        order.insert(dst, src)
    return permute(x, tuple(order))


def matrix_transpose(x) -> Array:
    ndim = len(shape_of(x))
    return _P.permute.bind(x, axes=tuple(range(ndim - 2)) + (ndim - 1, ndim - 2))


def flip(x, axes: int | tuple) -> Array:
    return _P.flip.bind(x, axes=_axes(axes, len(shape_of(x))))


def index(x, entries: tuple) -> Array:
    """A basic-index view: `entries` as `basic_index` takes them (("int", i), ("slice", start, stop, step),
    ("newaxis",))."""
    return _P.basic_index.bind(x, entries=tuple(entries))


def take_index(x, i: int, axis: int) -> Array:
    """The view of `x` at position `i` of `axis` (that axis removed)."""
    shape = shape_of(x)
    return index(x, tuple(("int", i) if a == axis else ("slice", 0, n, 1) for a, n in enumerate(shape)))


def diagonal(x, offset: int = 0, axis1: int = -2, axis2: int = -1) -> Array:
    ndim = len(shape_of(x))
    return _P.diagonal.bind(x, offset=offset, axis1=_axis(axis1, ndim), axis2=_axis(axis2, ndim))


# --- joining -------------------------------------------------------------------------------------------


def concat(arrays, axis: int = 0) -> Array:
    arrays = tuple(arrays)
    return _P.concatenate.bind(*arrays, axis=_axis(axis, len(shape_of(arrays[0]))))


def stack(arrays, axis: int = 0) -> Array:
    arrays = tuple(arrays)
    return _P.stack.bind(*arrays, axis=_axis(axis, len(shape_of(arrays[0])) + 1))


# --- elementwise ---------------------------------------------------------------------------------------


def add(x, y):
    return _P.add.bind(x, y)


def subtract(x, y):
    return _P.subtract.bind(x, y)


def multiply(x, y):
    return _P.multiply.bind(x, y)


def divide(x, y):
    return _P.divide.bind(x, y)


def negative(x):
    return _P.negative.bind(x)


def square(x):
    return _P.square.bind(x)


def sqrt(x):
    return _P.sqrt.bind(x)


def exp(x):
    return _P.exp.bind(x)


def log(x):
    return _P.log.bind(x)


def abs(x):
    return _P.abs.bind(x)


def sign(x):
    return _P.sign.bind(x)


def conj(x):
    return _P.conj.bind(x)


def real(x):
    return _P.real.bind(x)


def imag(x):
    return _P.imag.bind(x)


def maximum(x, y):
    return _P.maximum.bind(x, y)


def minimum(x, y):
    return _P.minimum.bind(x, y)


def equal(x, y):
    return _P.equal.bind(x, y)


def not_equal(x, y):
    return _P.not_equal.bind(x, y)


def less(x, y):
    return _P.less.bind(x, y)


def greater(x, y):
    return _P.greater.bind(x, y)


def isnan(x):
    return _P.isnan.bind(x)


def logical_and(x, y):
    return _P.logical_and.bind(x, y)


def logical_or(x, y):
    return _P.logical_or.bind(x, y)


def logical_not(x):
    return _P.logical_not.bind(x)


def where(condition, x, y):
    return _P.where.bind(condition, x, y)


# --- reductions and contractions -----------------------------------------------------------------------

def sum(x, axes: int | tuple | None = None, keepdims: bool = False, dtype=None) -> Array:
    """The sum over `axes` (all when None), in `dtype` (by default the namespace's accumulation dtype)."""
    aval = value_aval(x)
    return _P.reduce_sum.bind(x, axes=_axes(axes, len(aval.shape)), keepdims=keepdims,
                              dtype=_dtypes.ACCUMULATION[aval.dtype] if dtype is None else dtype)


def argmax(x, axis: int | None = None, keepdims: bool = False) -> Array:
    return _P.argmax.bind(x, axis=None if axis is None else _axis(axis, len(shape_of(x))), keepdims=keepdims)


def matmul_dimension_numbers(n1: int, n2: int, n_batch: int) -> tuple:
    """`dot_general`'s dimension numbers for `x1 @ x2` of ranks n1 and n2 (NumPy's rules); when x1 is a
    stack of matrices and x2 too, both have been broadcast to the same `n_batch` leading axes."""
    if n2 <= 2:  # x2 is a vector or one matrix: x1's leading axes are free axes of a single contraction
        return ((n1 - 1,), (0,)), ((), ())
    if n1 == 1:  # (K,) @ (..., K, N) -> (..., N): contract x1 against x2's second-to-last axis
        return ((0,), (n2 - 2,)), ((), ())
    b = tuple(range(n_batch))
    return ((n_batch + 1,), (n_batch,)), (b, b)


def matmul(x, y) -> Array:
    """`x @ y` for arrays of at least one dimension whose leading (batch) axes already match or are absent."""
    s1, s2 = shape_of(x), shape_of(y)
    n1, n2 = len(s1), len(s2)
    dtype = _dtypes.result_type_of(dtype_of(x), dtype_of(y))
    n_batch = 0
    if n1 > 1 and n2 > 2:
        batch = np.broadcast_shapes(s1[:-2], s2[:-2])
        x, y = broadcast_to(x, batch + s1[-2:]), broadcast_to(y, batch + s2[-2:])
        n_batch = len(batch)
    return _P.dot_general.bind(x, y, dimension_numbers=matmul_dimension_numbers(n1, n2, n_batch), out_dtype=dtype)


# --- indexing ------------------------------------------------------------------------------------------


def gather(x, template: tuple, *indices) -> Array:
    """`x[key]` for a normalised index template with index arrays (see `stridex._lax.array_indexing`)."""
    return _P.gather.bind(x, *indices, template=tuple(template))


def scatter(x, value, template: tuple, *indices) -> Array:
    """A copy of `x` with `x[key]` replaced by `value` (broadcast)."""
    return _P.scatter.bind(x, value, *indices, template=tuple(template))


def scatter_add(x, value, template: tuple, *indices) -> Array:
    """A copy of `x` with `value` added at `x[key]`, repeated indices accumulating."""
    return _P.scatter_add.bind(x, value, *indices, template=tuple(template))


def scatter_flat(x, value, shape: tuple, strides: tuple, offset: int) -> Array:
    """A copy of the flat `x` with its strided window (shape, strides, offset) set to `value`."""
    return _P.scatter_flat.bind(x, value, shape=tuple(shape), strides=tuple(strides), offset=offset)


def as_strided(x, shape: tuple, strides: tuple, offset: int) -> Array:
    """The strided window (shape, strides in elements, offset) of the flat `x` (a view)."""
    return _P.as_strided.bind(x, shape=tuple(shape), strides=tuple(strides), offset=offset)


def triangle(x, k: int, upper: bool) -> Array:
    """tril(x, k) (upper=False) or triu(x, k) (upper=True) of the last two axes."""
    return _P.triangle.bind(x, k=k, upper=upper)


# --- appended for the transcendental, sorting and set families -----------------------------------------


def reciprocal(x):
    return _P.reciprocal.bind(x)


def take_along_axis(x, indices, axis: int) -> Array:
    """The entries of `x` at `indices` along `axis` (the other axes broadcast)."""
    return _P.take_along_axis.bind(x, indices, axis=_axis(axis, len(shape_of(x))))


def reduce_any(x, axes: int | tuple | None = None, keepdims: bool = False) -> Array:
    """Whether any element over `axes` (all when None) is true."""
    return _P.reduce_any.bind(x, axes=_axes(axes, len(shape_of(x))), keepdims=keepdims)


def reduce_max(x, axes: int | tuple | None = None, keepdims: bool = False) -> Array:
    """The maximum over `axes` (all when None), NaN propagating."""
    return _P.reduce_max.bind(x, axes=_axes(axes, len(shape_of(x))), keepdims=keepdims)


def reduce_min(x, axes: int | tuple | None = None, keepdims: bool = False) -> Array:
    """The minimum over `axes` (all when None), NaN propagating."""
    return _P.reduce_min.bind(x, axes=_axes(axes, len(shape_of(x))), keepdims=keepdims)


def reduce_all(x, axes: int | tuple | None = None, keepdims: bool = False) -> Array:
    """Whether every element over `axes` (all when None) is true."""
    return _P.reduce_all.bind(x, axes=_axes(axes, len(shape_of(x))), keepdims=keepdims)


# --- data-dependent lengths (the `output_size` rules of data-dependent primitives) ---------------------


def count_nonzero(x, axes: int | tuple | None = None) -> Array:
    return _P.count_nonzero.bind(x, axes=_axes(axes, len(shape_of(x))), keepdims=False)


def nonzero(x) -> tuple:
    """The indices of the nonzero elements of `x` (a data-dependent length), one array per axis."""
    return _P.nonzero.bind(x)


def sort(x, axis: int = -1) -> Array:
    return _P.sort.bind(x, axis=_axis(axis, len(shape_of(x))), descending=False)


def argsort(x, axis: int = -1) -> Array:
    return _P.argsort.bind(x, axis=_axis(axis, len(shape_of(x))), descending=False)


def count_distinct(x) -> Array:
    """How many distinct values `x` holds, as `unique` counts them: each NaN distinct, -0.0 equal to 0.0;
    complex values compared whole (ordered by real part, then imaginary part, to bring equal ones together)."""
    n = 1
    for d in shape_of(x):
        n *= d
    if n == 0:
        return zeros((), _dtypes.int64)
    flat = reshape(x, (n,))
    if dtype_of(x).kind == "complex floating":
        by_imag = argsort(imag(flat))
        order = take_along_axis(by_imag, argsort(take_along_axis(real(flat), by_imag, 0)), 0)
        ordered = take_along_axis(flat, order, 0)
    else:
        ordered = sort(flat)
    changes = not_equal(index(ordered, (("slice", 1, n, 1),)), index(ordered, (("slice", 0, n - 1, 1),)))
    return add(count_nonzero(changes), 1)


def dynamic_slice(x, starts, sizes: tuple) -> Array:
    """The block of `sizes` of `x` at `starts` (ints or 0-D integer arrays, one per axis), clamped to fit
    (JAX's `lax.dynamic_slice`)."""
    return _P.dynamic_slice.bind(x, *starts, sizes=tuple(sizes))


def dynamic_update_slice(x, update, starts) -> Array:
    """A copy of `x` with the block at `starts` (clamped to fit) replaced by `update` (of `x`'s rank and dtype)."""
    return _P.dynamic_update_slice.bind(x, update, *starts)


# --- appended for stridex.nn and stridex.scipy.special --------------------------------------------------


def stop_gradient(x):
    """`x`, through which no derivative flows (differentiation treats it as a constant)."""
    return _P.stop_gradient.bind(x)



def log1p(x):
    return _P.log1p.bind(x)


def expm1(x):
    return _P.expm1.bind(x)


def tanh(x):
    return _P.tanh.bind(x)


def logaddexp(x, y):
    return _P.logaddexp.bind(x, y)


def greater_equal(x, y):
    return _P.greater_equal.bind(x, y)

