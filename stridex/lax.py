"""The `lax` extension: JAX's `jax.lax` names, signatures and derivative conventions, over stridex arrays.

One section per family of `jax.lax` below, each binding the primitives of its `stridex._lax` family module:
stop_gradient (`stridex._lax.differentiation`) and the collectives over a named `vmap` axis
(`stridex._lax.parallel`), which take a pytree of values, as JAX's do; contraction, convolution and windowed
reductions (`dot_general` of `stridex._lax.linalg`, `stridex._lax.convolution`, `stridex._lax.windows`).

>>> import stridex as sx
>>> sx.grad(lambda x: x * sx.lax.stop_gradient(x))(sx.asarray(3.0))
Array(3.)
>>> sx.vmap(lambda v: v - sx.lax.pmean(v, "batch"), axis_name="batch")(sx.asarray([1.0, 2.0, 6.0]))
Array([-2., -1.,  3.])
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Hashable, Sequence
from typing import Any, TypeVar

import numpy as np

from stridex._core import dtypes as _dtypes
from stridex._core import tree as _tree
from stridex._core.array import Array
from stridex._core.view import normalize_axis
from stridex._lax import differentiation as _differentiation
from stridex._lax import ops as _ops
from stridex._lax import parallel as _parallel
from stridex._transforms.batching import bound_axis_size

__all__ = [
    # stop_gradient, the collectives
    "all_gather", "axis_index", "pmax", "pmean", "pmin", "psum", "stop_gradient",
    # contraction, convolution and windows
    "add", "conv", "conv_general_dilated", "conv_transpose", "conv_with_general_padding", "dot_general", "max", "min",
    "reduce_window",
    # dynamic slicing, top_k, scans, cumulative reductions, elementwise names, control-flow aliases (the
    # section at the end of this module)
    "associative_scan", "clamp", "cond", "cummax", "cummin", "cumlogsumexp", "cumprod", "cumsum", "digamma",
    "dynamic_index_in_dim", "dynamic_slice", "dynamic_slice_in_dim", "dynamic_update_index_in_dim",
    "dynamic_update_slice", "dynamic_update_slice_in_dim", "erf", "fori_loop", "integer_pow", "lgamma", "logistic",
    "map", "rsqrt", "scan", "select", "switch", "top_k", "while_loop",
]

T = TypeVar("T")
AxisName = Hashable
"""An axis name (any hashable value, usually a string), or a tuple of them where a collective takes several."""

_SCALARS = (bool, int, float, complex)


# --- stop_gradient ---------------------------------------------------------------------------------------


def stop_gradient(x: T) -> T:
    """`x` with the same values and no derivative: the transformations (`grad`, `jvp`, `vjp`, the Jacobians)
    differentiate through it as through a constant. `x` is an array or a pytree of them (other leaves, such as
    Python numbers, carry no derivative and come back as they are); each array comes back as a new array.

    A value computed from `stop_gradient(x)` alone carries no derivative, so it may leave stridex under
    differentiation (`np.asarray`, `float`), which a value that carries one may not.

    >>> import stridex as sx
    >>> def straight_through_round(x):
    ...     return x + sx.stop_gradient(sx.round(x) - x)  # rounds; derivative 1
    >>> sx.grad(lambda x: sx.sum(straight_through_round(x)))(sx.asarray([0.2, 1.7]))
    Array([1., 1.])
    """
    return _tree.tree_map(lambda leaf: _differentiation.stop_gradient.bind(leaf) if isinstance(leaf, Array)
                          else leaf, x)


# --- collectives over a named vmap axis ------------------------------------------------------------------
# `vmap(f, axis_name="i")` names its axis; inside `f`, these work across the members of that axis (the vmap
# that binds the name resolves them: `stridex._lax.parallel`). A name no enclosing vmap binds is JAX's
# NameError, "unbound axis name: i".


def _names(axis_name: AxisName | tuple[AxisName, ...]) -> tuple:
    return tuple(axis_name) if isinstance(axis_name, (tuple, list)) else (axis_name,)


def _sizes(names: tuple, what: str, axis_index_groups: Any) -> list[int]:
    if axis_index_groups is not None:
        raise NotImplementedError(f"{what}: axis_index_groups is not supported over vmap axes (nor is it by JAX's "
                                  "vmap); reduce over a reshaped axis instead")
    return [bound_axis_size(name, what) for name in names]


def _leaf(leaf, what: str) -> Array | bool | int | float | complex:
    if isinstance(leaf, (Array, *_SCALARS)):
        return leaf
    raise TypeError(f"{what} takes arrays, Python numbers or pytrees of them, got a leaf of type {type(leaf).__name__}")


def psum(x: T, axis_name: AxisName | tuple[AxisName, ...], *, axis_index_groups: Any = None) -> T:
    """The sum of `x` over the members of the named axis (or axes), the same for every member.

    A boolean array sums as int32 (JAX's rule); a Python number gives the number times the axis's length
    (`psum(1, "i")` is the length of axis "i", as in JAX).

    >>> import stridex as sx
    >>> sx.vmap(lambda v: sx.lax.psum(v, "i"), axis_name="i")(sx.asarray([1.0, 2.0, 3.0]))
    Array([6., 6., 6.])
    """
    names = _names(axis_name)
    size = math.prod(_sizes(names, "psum", axis_index_groups))
    if not names:
        return x

    def leaf(v):
        v = _leaf(v, "psum")
        if not isinstance(v, Array):
            return v * size
        if v.dtype is _dtypes.bool:
            v = _ops.astype(v, _dtypes.int32)
        return _parallel.psum.bind(v, axes=names)

    return _tree.tree_map(leaf, x)


def pmean(x: T, axis_name: AxisName | tuple[AxisName, ...], *, axis_index_groups: Any = None) -> T:
    """The mean of `x` over the members of the named axis (or axes): `psum(x) / n` (integers give floats).

    >>> import stridex as sx
    >>> sx.vmap(lambda v: sx.lax.pmean(v, "i"), axis_name="i")(sx.asarray([1, 2, 6]))
    Array([3., 3., 3.])
    """
    names = _names(axis_name)
    size = math.prod(_sizes(names, "pmean", axis_index_groups))
    return _tree.tree_map(lambda v: v / size, psum(x, names))


def _extremum(prim, what: str, x, axis_name, axis_index_groups):
    names = _names(axis_name)
    _sizes(names, what, axis_index_groups)

    def leaf(v):
        v = _leaf(v, what)
        if not names or not isinstance(v, Array):  # (a number the same for every member is its own extremum)
            return v
        if v.dtype.kind == "complex floating":
            raise TypeError(f"{what} is not defined for complex arrays ({v.dtype.name}): they have no order")
        return prim.bind(v, axes=names)

    return _tree.tree_map(leaf, x)


def pmax(x: T, axis_name: AxisName | tuple[AxisName, ...], *, axis_index_groups: Any = None) -> T:
    """The maximum of `x` over the members of the named axis (or axes); its derivative is shared equally
    among the members that tie, as for `max`.

    >>> import stridex as sx
    >>> sx.vmap(lambda v: sx.lax.pmax(v, "i"), axis_name="i")(sx.asarray([1.0, 5.0, 3.0]))
    Array([5., 5., 5.])
    """
    return _extremum(_parallel.pmax, "pmax", x, axis_name, axis_index_groups)


def pmin(x: T, axis_name: AxisName | tuple[AxisName, ...], *, axis_index_groups: Any = None) -> T:
    """The minimum of `x` over the members of the named axis (or axes), as `pmax`.

    >>> import stridex as sx
    >>> sx.vmap(lambda v: sx.lax.pmin(v, "i"), axis_name="i")(sx.asarray([1.0, 5.0, 3.0]))
    Array([1., 1., 1.])
    """
    return _extremum(_parallel.pmin, "pmin", x, axis_name, axis_index_groups)


def all_gather(x: T, axis_name: AxisName | tuple[AxisName, ...], *, axis_index_groups: Any = None, axis: int = 0,
               tiled: bool = False) -> T:
    """Every member's `x`, stacked along a new axis at position `axis` (with `tiled=True`, concatenated along
    the existing axis `axis`), the same for every member. Over several names, the members are ordered with the
    first name's index the slowest, as in JAX.

    >>> import stridex as sx
    >>> sx.vmap(lambda v: sx.lax.all_gather(v, "i"), axis_name="i")(sx.asarray([1.0, 2.0]))
    Array([[1., 2.],
           [1., 2.]])
    """
    names = _names(axis_name)
    sizes = _sizes(names, "all_gather", axis_index_groups)

    def leaf(v):
        v = _leaf(v, "all_gather")
        if not isinstance(v, Array):
            v = _ops.constant(v)
        ndim = v.ndim
        if tiled:
            if ndim == 0:
                raise ValueError("all_gather(tiled=True) concatenates along an existing axis; a 0-D array has none")
            position = normalize_axis(axis, ndim, "all_gather axis")
        else:
            position = normalize_axis(axis, ndim + 1, "all_gather axis")
        if len(names) == 1:
            return _parallel.all_gather.bind(v, axes=names, axis=position, tiled=tiled, size=sizes[0])
        for name, size in zip(reversed(names), reversed(sizes)):  # (the last name innermost)
            v = _parallel.all_gather.bind(v, axes=(name,), axis=position, tiled=False, size=size)
        shape = _ops.shape_of(v)
        k = len(names) + (1 if tiled else 0)  # (the gathered axes, and the chunk axis of a tiled gather)
        return _ops.reshape(v, shape[:position] + (math.prod(shape[position:position + k]),) + shape[position + k:])

    return _tree.tree_map(leaf, x)


def axis_index(axis_name: AxisName | tuple[AxisName, ...]) -> Array:
    """This member's position along the named axis, an int32 0-D array (over several names, the position in
    their product, the first name's index the slowest).

    >>> import stridex as sx
    >>> sx.vmap(lambda v: v * sx.lax.axis_index("i"), axis_name="i")(sx.asarray([5.0, 5.0, 5.0]))
    Array([ 0.,  5., 10.])
    """
    names = _names(axis_name)
    sizes = _sizes(names, "axis_index", None)
    index = None
    for name, size in zip(names, sizes):
        here = _parallel.axis_index.bind(axes=(name,))
        index = here if index is None else index * size + here
    if index is None:
        raise ValueError("axis_index needs at least one axis name")
    return index


# === contraction, convolution and windows (issue 43: dot_general, conv_general_dilated, conv, conv_transpose,
# reduce_window, and the monoids add/max/min that name reduce_window's computation) ==============================
# Primitives: `stridex._lax.linalg.dot_general`, `stridex._lax.convolution`, `stridex._lax.windows`.

from stridex._api import creation_functions as _creation_functions  # noqa: E402
from stridex._api import einsum_functions as _einsum  # noqa: E402
from stridex._lax import convolution as _convolution  # noqa: E402
from stridex._lax import linalg as _linalg  # noqa: E402
from stridex._lax import windows as _windows  # noqa: E402

Padding = str | Sequence[tuple[int, int]]
"""JAX's padding: "SAME", "SAME_LOWER", "VALID", or a (low, high) pair per spatial (or window) dimension."""
Operand = Array | bool | int | float | complex

_builtin_max = max  # (this module defines JAX's lax.max and lax.min below: builtins by these names)


def _contraction_operand(x, what: str, name: str) -> Array:
    """`x` as an Array: JAX's array-likes (Python numbers, NumPy and JAX arrays, nested lists) are converted."""
    if isinstance(x, Array):
        return x
    if isinstance(x, (*_SCALARS, list, tuple)) or hasattr(x, "__array__"):
        return _creation_functions.asarray(x)
    raise TypeError(f"{what}: {name} must be an array, got {type(x).__name__}")


def _dtype_argument(dtype, what: str) -> _dtypes.DType:
    """A stridex dtype from what JAX takes as one (a dtype, a Python type, a NumPy dtype or its name)."""
    found = _dtypes.as_dtype(dtype)
    if found is None:
        try:
            found = _dtypes.from_numpy(dtype)
        except TypeError:
            found = None
    if found is None:
        raise TypeError(f"{what}: preferred_element_type must be a dtype, got {dtype!r}")
    return found


def _accumulates_into(dtype: _dtypes.DType, preferred: _dtypes.DType) -> bool:
    """JAX's rule for `preferred_element_type`: integers may accumulate into floats or integers (a signed one into a
    signed one); floating and complex types keep their kind."""
    integral = ("signed", "unsigned")
    if dtype.kind in integral:
        return preferred.kind == "real floating" or (preferred.kind in integral and
                                                     (dtype.kind != "signed" or preferred.kind == "signed"))
    return preferred.kind == dtype.kind


def _operand_dtype(what: str, lhs: Array, rhs: Array, preferred_element_type) -> _dtypes.DType:
    for x in (lhs, rhs):
        if x.dtype.kind == "bool":
            raise TypeError(f"{what} requires numeric operands, got {x.dtype.name}")
    dtype = _dtypes.promote(lhs.dtype, rhs.dtype)
    if preferred_element_type is not None:
        preferred = _dtype_argument(preferred_element_type, what)
        if not _accumulates_into(dtype, preferred):
            raise TypeError(f"{what}: preferred_element_type {preferred.name} is incompatible with the operands' "
                            f"dtype {dtype.name} (the combinations are integer with integer of the same "
                            "signedness, integer with floating, floating with floating, complex with complex)")
        if preferred.itemsize < dtype.itemsize:
            raise TypeError(f"{what}: preferred_element_type {preferred.name} must not be narrower than the "
                            f"operands' dtype {dtype.name}")
        dtype = preferred
    return dtype


def _axes_argument(value, what: str, name: str) -> tuple:
    try:
        return tuple(operator.index(a) for a in value)
    except TypeError:
        raise TypeError(f"{what}: {name} must be a sequence of integers, got {value!r}") from None


def dot_general(lhs: Array, rhs: Array, dimension_numbers: Any, precision: Any = None,
                preferred_element_type: Any = None, out_sharding: Any = None) -> Array:
    """JAX's general contraction: `dimension_numbers = ((lhs_contracting, rhs_contracting), (lhs_batch,
    rhs_batch))`; the result's axes are the batch axes, then `lhs`'s free axes, then `rhs`'s, each in order.

    The operands are promoted by stridex's rules (JAX requires equal dtypes), or computed in
    `preferred_element_type`. `precision`: float32 products under `jit` and on devices follow stridex's matmul
    precision setting (`sx.matmul_precision`, exact by default), whatever is passed; eagerly on the host they
    are exact. `out_sharding` must be None.

    >>> import stridex as sx
    >>> a, b = sx.ones((2, 3, 4)), sx.ones((2, 4, 5))
    >>> sx.lax.dot_general(a, b, (((2,), (1,)), ((0,), (0,)))).shape
    (2, 3, 5)
    """
    what = "dot_general"
    lhs, rhs = _contraction_operand(lhs, what, "lhs"), _contraction_operand(rhs, what, "rhs")
    _einsum.check_precision(precision, what)
    if out_sharding is not None:
        raise NotImplementedError("dot_general: out_sharding is not supported; shard through sx.jit's out_shardings")
    try:
        (lc, rc), (lb, rb) = dimension_numbers
    except (TypeError, ValueError):
        raise TypeError(f"dot_general: dimension_numbers must be ((lhs_contracting, rhs_contracting), (lhs_batch, "
                        f"rhs_batch)), got {dimension_numbers!r}") from None
    lc, rc = _axes_argument(lc, what, "lhs_contracting"), _axes_argument(rc, what, "rhs_contracting")
    lb, rb = _axes_argument(lb, what, "lhs_batch"), _axes_argument(rb, what, "rhs_batch")
    for name, axes, x in (("lhs", lc + lb, lhs), ("rhs", rc + rb, rhs)):
        if any(a < 0 or a >= x.ndim for a in axes):
            raise TypeError(f"dot_general: {name} axes {axes} (contracting then batch) must be in range for an "
                            f"array of shape {x.shape}")
        if len(set(axes)) != len(axes):
            raise TypeError(f"dot_general: {name} axes {axes} (contracting then batch) repeat an axis")
    if len(lc) != len(rc) or len(lb) != len(rb):
        raise TypeError(f"dot_general: lhs and rhs must name as many contracting and batch axes, got "
                        f"dimension_numbers {dimension_numbers!r}")
    for kind, la, ra in (("contracting", lc, rc), ("batch", lb, rb)):
        ls, rs = tuple(lhs.shape[a] for a in la), tuple(rhs.shape[a] for a in ra)
        if ls != rs:
            raise TypeError(f"dot_general requires {kind} dimensions to have the same shape, got {ls} and {rs} "
                            f"(shapes {lhs.shape} and {rhs.shape})")
    dtype = _operand_dtype(what, lhs, rhs, preferred_element_type)
    return _linalg.dot_general.bind(lhs, rhs, dimension_numbers=((lc, rc), (lb, rb)), out_dtype=dtype)


def _conv_dimension_numbers(ndim: int, dimension_numbers) -> tuple:
    """JAX's `ConvDimensionNumbers` (three tuples of axis positions) from None, a tuple of three layout strings
    ("NCHW", "OIHW", "NCHW") or a tuple of three tuples of positions."""
    if dimension_numbers is None:
        return (tuple(range(ndim)),) * 3
    if not isinstance(dimension_numbers, (tuple, list)) or len(dimension_numbers) != 3:
        raise TypeError(f"convolution dimension_numbers must be None or a tuple of three layout strings, got "
                        f"{dimension_numbers!r}")
    if all(isinstance(s, str) for s in dimension_numbers):
        lhs_spec, rhs_spec, out_spec = dimension_numbers
        for i, (spec, pair) in enumerate(zip(dimension_numbers, (("N", "C"), ("O", "I"), ("N", "C")))):
            if len(spec) != ndim:
                raise TypeError(f"convolution dimension_numbers[{i}] must have as many characters as the operands "
                                f"have dimensions ({ndim}), got {spec!r}")
            if spec.count(pair[0]) != 1 or spec.count(pair[1]) != 1:
                raise TypeError(f"convolution dimension_numbers[{i}] must contain the characters {pair[0]!r} and "
                                f"{pair[1]!r} exactly once, got {spec!r}")
            if len(set(spec)) != len(spec):
                raise TypeError(f"convolution dimension_numbers[{i}] cannot have duplicate characters, got {spec!r}")
        if not set(lhs_spec) - {"N", "C"} == set(rhs_spec) - {"O", "I"} == set(out_spec) - {"N", "C"}:
            raise TypeError(f"convolution dimension_numbers elements must each have the same set of spatial "
                            f"characters, got {tuple(dimension_numbers)!r}")
        spatial = [c for c in rhs_spec if c not in "OI"]  # (the kernel's order of spatial axes: strides follow it)
        return tuple((spec.index(a), spec.index(b)) + tuple(spec.index(c) for c in spatial)
                     for spec, (a, b) in zip(dimension_numbers, (("N", "C"), ("O", "I"), ("N", "C"))))
    specs = tuple(_axes_argument(s, "conv_general_dilated", "dimension_numbers") for s in dimension_numbers)
    for i, spec in enumerate(specs):
        if sorted(spec) != list(range(ndim)):
            raise TypeError(f"convolution dimension_numbers[{i}] must be a permutation of the {ndim} axes, "
                            f"got {spec}")
    return specs


def _spatial_argument(value, n: int, what: str, name: str) -> tuple:
    if value is None:
        return (1,) * n
    value = _axes_argument(value, what, name)
    if len(value) != n:
        raise ValueError(f"{what}: {name} must have one entry per spatial dimension ({n}), got {value}")
    return value


def conv_general_dilated(lhs: Array, rhs: Array, window_strides: Sequence[int], padding: Padding,
                         lhs_dilation: Sequence[int] | None = None, rhs_dilation: Sequence[int] | None = None,
                         dimension_numbers: Any = None, feature_group_count: int = 1, batch_group_count: int = 1,
                         precision: Any = None, preferred_element_type: Any = None, out_sharding: Any = None) -> Array:
    """JAX's general convolution (XLA's Conv): `padding` "SAME", "SAME_LOWER", "VALID" or `(low, high)` pairs per
    spatial dimension; `lhs_dilation` (transposed convolution) and `rhs_dilation` (atrous); `dimension_numbers`
    None (NCHW, OIHW, NCHW), three layout strings such as ("NHWC", "HWIO", "NHWC"), or JAX's
    ConvDimensionNumbers; feature and batch groups.

    Eagerly on the host it runs the lowering compiled once per signature, so eager and `jit` agree bit for bit
    (docs/from-jax.md). Operands are promoted by stridex's rules; `precision` as for `dot_general`.

    >>> import stridex as sx
    >>> x, k = sx.ones((1, 1, 4, 4)), sx.ones((1, 1, 3, 3))
    >>> sx.lax.conv_general_dilated(x, k, (1, 1), "SAME")[0, 0]
    Array([[4., 6., 6., 4.],
           [6., 9., 9., 6.],
           [6., 9., 9., 6.],
           [4., 6., 6., 4.]])
    """
    what = "conv_general_dilated"
    lhs, rhs = _contraction_operand(lhs, what, "lhs"), _contraction_operand(rhs, what, "rhs")
    _einsum.check_precision(precision, what)
    if out_sharding is not None:
        raise NotImplementedError(f"{what}: out_sharding is not supported; shard through sx.jit's out_shardings")
    if lhs.ndim != rhs.ndim or lhs.ndim < 2:
        raise TypeError(f"{what}: lhs and rhs must have the same number of dimensions, at least 2, got shapes "
                        f"{lhs.shape} and {rhs.shape}")
    n = lhs.ndim - 2
    numbers = _conv_dimension_numbers(lhs.ndim, dimension_numbers)
    strides = _spatial_argument(window_strides, n, what, "window_strides")
    lhs_dilation = _spatial_argument(lhs_dilation, n, what, "lhs_dilation")
    rhs_dilation = _spatial_argument(rhs_dilation, n, what, "rhs_dilation")
    if isinstance(padding, str) and any(d != 1 for d in lhs_dilation):
        raise ValueError(f"{what}: string padding ({padding!r}) is not implemented for a transposed convolution "
                         f"(lhs_dilation {lhs_dilation}); give the padding explicitly or use conv_transpose")
    window = [_convolution.dilate(rhs.shape[a], d) for a, d in zip(numbers[1][2:], rhs_dilation)]
    pads = _convolution.padding_of(padding, [lhs.shape[a] for a in numbers[0][2:]], window, strides)
    dtype = _operand_dtype(what, lhs, rhs, preferred_element_type)
    return _convolution.conv_general_dilated.bind(
        lhs, rhs, window_strides=strides, padding=pads, lhs_dilation=lhs_dilation, rhs_dilation=rhs_dilation,
        dimension_numbers=numbers, feature_group_count=operator.index(feature_group_count),
        batch_group_count=operator.index(batch_group_count), out_dtype=dtype)


def conv(lhs: Array, rhs: Array, window_strides: Sequence[int], padding: Padding, precision: Any = None,
         preferred_element_type: Any = None) -> Array:
    """`conv_general_dilated` with the default layouts (lhs NCHW, rhs OIHW, out NCHW) and no dilation.

    >>> import stridex as sx
    >>> sx.lax.conv(sx.ones((2, 3, 8, 8)), sx.ones((4, 3, 3, 3)), (2, 2), "VALID").shape
    (2, 4, 3, 3)
    """
    return conv_general_dilated(lhs, rhs, window_strides, padding, precision=precision,
                                preferred_element_type=preferred_element_type)


def conv_with_general_padding(lhs: Array, rhs: Array, window_strides: Sequence[int], padding: Padding,
                              lhs_dilation: Sequence[int] | None, rhs_dilation: Sequence[int] | None,
                              precision: Any = None, preferred_element_type: Any = None) -> Array:
    """`conv_general_dilated` with the default layouts (NCHW, OIHW, NCHW).

    >>> import stridex as sx
    >>> sx.lax.conv_with_general_padding(sx.ones((1, 1, 5)), sx.ones((1, 1, 2)), (1,), [(1, 1)], None, (2,)).shape
    (1, 1, 5)
    """
    return conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation, rhs_dilation, precision=precision,
                                preferred_element_type=preferred_element_type)


def _conv_transpose_padding(kernel: int, stride: int, padding) -> tuple:
    if padding == "SAME":
        total = kernel + stride - 2
        before = kernel - 1 if stride > kernel - 1 else -(-total // 2)
    elif padding == "VALID":
        total = kernel + stride - 2 + _builtin_max(kernel - stride, 0)
        before = kernel - 1
    else:  # a forward convolution's (low, high): the transpose pads the rest of the kernel
        before, total = kernel - padding[0] - 1, 2 * kernel - padding[0] - padding[1] - 2
    return before, total - before


def conv_transpose(lhs: Array, rhs: Array, strides: Sequence[int], padding: Padding,
                   rhs_dilation: Sequence[int] | None = None, dimension_numbers: Any = None,
                   transpose_kernel: bool = False, precision: Any = None, preferred_element_type: Any = None,
                   use_consistent_padding: bool = False) -> Array:
    """JAX's transposed ("fractionally strided") convolution: `lhs` dilated by `strides`, with JAX's padding for
    "SAME"/"VALID" (or explicit pairs, or with `use_consistent_padding` the forward convolution's padding, as
    PyTorch's), layouts defaulting to TensorFlow's (NHWC, HWIO, NHWC). `transpose_kernel=True` flips the
    kernel's spatial axes and swaps its feature axes (the gradient of `conv` with the same kernel).

    >>> import stridex as sx
    >>> sx.lax.conv_transpose(sx.ones((1, 4, 4, 2)), sx.ones((3, 3, 2, 5)), (2, 2), "SAME").shape
    (1, 8, 8, 5)
    """
    what = "conv_transpose"
    lhs, rhs = _contraction_operand(lhs, what, "lhs"), _contraction_operand(rhs, what, "rhs")
    if lhs.ndim != rhs.ndim or lhs.ndim < 2:
        raise TypeError(f"{what}: lhs and rhs must have the same number of dimensions, at least 2, got shapes "
                        f"{lhs.shape} and {rhs.shape}")
    n = lhs.ndim - 2
    if dimension_numbers is None:
        if lhs.ndim > 5:
            raise ValueError(f"{what}: no default dimension_numbers for {lhs.ndim}-dimensional operands; give them")
        spatial = "HWD"[:n]
        dimension_numbers = (f"N{spatial}C", f"{spatial}IO", f"N{spatial}C")
    numbers = _conv_dimension_numbers(lhs.ndim, dimension_numbers)
    strides = _spatial_argument(strides, n, what, "strides")
    rhs_dilation = _spatial_argument(rhs_dilation, n, what, "rhs_dilation")
    if use_consistent_padding or (isinstance(padding, str) and padding in ("SAME", "VALID")):
        kernel = [_convolution.dilate(rhs.shape[a], d) for a, d in zip(numbers[1][2:], rhs_dilation)]
        modes = [padding] * n if isinstance(padding, str) else list(padding)
        if len(modes) != n:
            raise ValueError(f"{what}: padding must have one (low, high) pair per spatial dimension ({n}), "
                             f"got {padding!r}")
        padding = tuple(_conv_transpose_padding(k, s, p if isinstance(p, str) else tuple(p))
                        for k, s, p in zip(kernel, strides, modes))
    if transpose_kernel:
        rhs_spec = numbers[1]
        rhs = _ops.flip(rhs, tuple(rhs_spec[2:]))
        order = list(range(rhs.ndim))
        order[rhs_spec[0]], order[rhs_spec[1]] = rhs_spec[1], rhs_spec[0]
        rhs = _ops.permute(rhs, tuple(order))
    return conv_general_dilated(lhs, rhs, (1,) * n, padding, strides, rhs_dilation, numbers, precision=precision,
                                preferred_element_type=preferred_element_type)


# The monoids that name reduce_window's computation (JAX recognises `lax.add`, `lax.max`, `lax.min` with their
# identities as the initial value); they are also JAX's elementwise functions of the same names.


def _same_dtype_operands(what: str, x, y):
    if isinstance(x, Array) and isinstance(y, Array) and x.dtype is not y.dtype:
        raise TypeError(f"lax.{what} requires arguments to have the same dtypes, got {x.dtype.name}, {y.dtype.name}")
    if not isinstance(x, (Array, *_SCALARS)) or not isinstance(y, (Array, *_SCALARS)):
        raise TypeError(f"lax.{what} takes arrays or Python numbers, got {type(x).__name__} and {type(y).__name__}")


def add(x: Operand, y: Operand) -> Array:
    """`x + y` elementwise, of one dtype (JAX's `lax.add`); as reduce_window's computation, a windowed sum.

    >>> import stridex as sx
    >>> sx.lax.add(sx.asarray([1.0, 2.0]), sx.asarray([3.0, 4.0]))
    Array([4., 6.])
    """
    _same_dtype_operands("add", x, y)
    return _ops.add(x, y)


def max(x: Operand, y: Operand) -> Array:  # noqa: A001 (JAX's name)
    """The elementwise maximum, NaN if either is NaN (JAX's `lax.max`); as reduce_window's computation, max pooling.

    >>> import stridex as sx
    >>> sx.lax.max(sx.asarray([1.0, 5.0]), sx.asarray([3.0, 4.0]))
    Array([3., 5.])
    """
    _same_dtype_operands("max", x, y)
    return _ops.maximum(x, y)


def min(x: Operand, y: Operand) -> Array:  # noqa: A001 (JAX's name)
    """The elementwise minimum, NaN if either is NaN (JAX's `lax.min`); as reduce_window's computation, min pooling.

    >>> import stridex as sx
    >>> sx.lax.min(sx.asarray([1.0, 5.0]), sx.asarray([3.0, 4.0]))
    Array([1., 4.])
    """
    _same_dtype_operands("min", x, y)
    return _ops.minimum(x, y)


def _computation(computation) -> str | None:
    """"sum", "max" or "min" for a computation stridex recognises: `sx.lax.add`/`max`/`min`, `sx.add`/`maximum`/
    `minimum`, or (when JAX is imported) `jax.lax.add`/`max`/`min`."""
    import sys

    known: dict[Any, str] = {add: "sum", max: "max", min: "min"}
    stridex = sys.modules.get("stridex")
    if stridex is not None:
        known.update({getattr(stridex, "add", None): "sum", getattr(stridex, "maximum", None): "max",
                      getattr(stridex, "minimum", None): "min"})
    jax_lax = sys.modules.get("jax.lax")
    if jax_lax is not None:
        known.update({jax_lax.add: "sum", jax_lax.max: "max", jax_lax.min: "min"})
    try:
        return known.get(computation)
    except TypeError:  # (an unhashable callable)
        return None


def reduce_window(operand: Array, init_value: Any, computation: Callable[..., Any], window_dimensions: Sequence[int],
                  window_strides: Sequence[int] | None, padding: Padding, base_dilation: Sequence[int] | None = None,
                  window_dilation: Sequence[int] | None = None) -> Array:
    """JAX's windowed reduction, with `computation` one of `sx.lax.add`, `sx.lax.max`, `sx.lax.min` (sum, max and
    min pooling; `jax.lax`'s and `sx.add`/`maximum`/`minimum` are recognised too): each window of
    `window_dimensions` elements, `window_strides` apart, over the operand padded by `padding` ("SAME", "VALID"
    or `(low, high)` pairs) and dilated by `base_dilation`, reduced starting from `init_value`.

    With the monoid's identity as `init_value` (0 for add, -inf or the dtype's lowest value for max) it is one
    windowed-reduction record; another `init_value` is combined once with each window's reduction, as JAX's
    generic reduction does (a sum adds it after the window's sum, so it may round otherwise than XLA). The
    derivative of max pooling is JAX's (the first of tied maxima takes the gradient; like JAX, none with a window
    dilation).

    >>> import stridex as sx
    >>> x = sx.reshape(sx.arange(16.0), (1, 4, 4, 1))
    >>> sx.lax.reduce_window(x, -sx.inf, sx.lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")[0, :, :, 0]
    Array([[ 5.,  7.],
           [13., 15.]])
    """
    what = "reduce_window"
    if isinstance(operand, (tuple, list, dict)):
        raise NotImplementedError(f"{what} of several operands (a variadic reduction) takes a general computation, "
                                  "which stridex does not support; reduce each operand with add, max or min")
    operand = _contraction_operand(operand, what, "operand")
    name = _computation(computation)
    if name is None:
        raise NotImplementedError(f"{what}: the computation must be sx.lax.add, sx.lax.max or sx.lax.min (sum, max "
                                  f"or min pooling); stridex does not trace a general computation, got {computation!r}")
    n = operand.ndim
    dims = _axes_argument(window_dimensions, what, "window_dimensions")
    if len(dims) != n:
        raise ValueError(f"{what}: window_dimensions must have one entry per dimension of the operand (shape "
                         f"{operand.shape}), got {dims}")
    strides = (1,) * n if window_strides is None else _axes_argument(window_strides, what, "window_strides")
    base = (1,) * n if base_dilation is None else _axes_argument(base_dilation, what, "base_dilation")
    dilation = (1,) * n if window_dilation is None else _axes_argument(window_dilation, what, "window_dilation")
    for name_, entries in (("window_strides", strides), ("base_dilation", base), ("window_dilation", dilation)):
        if len(entries) != n:
            raise ValueError(f"{what}: {name_} must have one entry per dimension of the operand (shape "
                             f"{operand.shape}), got {entries}")
    if isinstance(padding, str):
        pads = _convolution.padding_of(padding, operand.shape,
                                       [_convolution.dilate(d, r) for d, r in zip(dims, dilation)], strides)
    else:
        pads = _convolution.padding_of(padding, operand.shape, dims, strides)
    window = {"window_dimensions": dims, "window_strides": strides, "padding": pads, "base_dilation": base,
              "window_dilation": dilation}
    out = _windows.REDUCERS[name].bind(operand, **window)
    if isinstance(init_value, Array) and init_value.ndim != 0:
        raise TypeError(f"{what}: init_value must be a scalar, got an array of shape {init_value.shape}")
    if not isinstance(init_value, Array):
        try:
            value = np.asarray(init_value)
        except Exception:
            raise TypeError(f"{what}: init_value must be a scalar, got {init_value!r}") from None
        if value.ndim != 0:
            raise TypeError(f"{what}: init_value must be a scalar, got an array of shape {value.shape}")
        if value.item() == _windows.identity(name, operand.dtype.np).item():
            return out
        # (a Python scalar of the operand's dtype's value: weak, so the result keeps the operand's dtype and device)
        init: Any = np.asarray(value, dtype=operand.dtype.np).item()
    else:
        init = _ops.astype(init_value, operand.dtype)
    if name == "max":
        return _ops.maximum(out, init)
    if name == "min":
        return _ops.minimum(out, init)
    return _ops.add(out, init)


# === issue 43, part B: slicing, top_k, scans, elementwise names, control flow ===============================
# JAX's `lax` names built on stridex's primitives: the dynamic slices bind `stridex._lax.array_indexing`'s
# `dynamic_slice`/`dynamic_update_slice` (traced starts compile without a graph break), `top_k` binds
# `stridex._lax.selection`, erf/lgamma/digamma bind `stridex._lax.special`; the rest are compositions.

import builtins as _builtins  # noqa: E402

from stridex._api import creation_functions as _creation  # noqa: E402
from stridex._api import elementwise_functions as _ew  # noqa: E402
from stridex._api import manipulation_functions as _manipulation  # noqa: E402
from stridex._api import statistical_functions as _statistical  # noqa: E402
from stridex._api import transcendental_functions as _tr  # noqa: E402
from stridex._lax import array_indexing as _array_indexing  # noqa: E402
from stridex._lax import selection as _selection  # noqa: E402
from stridex._lax import special as _special  # noqa: E402
from stridex._transforms import batching as _batching  # noqa: E402
from stridex._transforms import control_flow as _control_flow  # noqa: E402

# stridex's own control flow under JAX's names: the same functions (`stridex.scan` is `stridex.lax.scan`).
scan = _control_flow.scan
cond = _control_flow.cond
switch = _control_flow.switch
while_loop = _control_flow.while_loop
fori_loop = _control_flow.fori_loop


def _array(x, what: str) -> Array:
    if isinstance(x, Array):
        return x
    if isinstance(x, (*_SCALARS, list, tuple)) or hasattr(x, "__array__"):
        return _creation.asarray(x)
    raise TypeError(f"{what} takes an array, got {type(x).__name__}")


# --- dynamic slicing ---------------------------------------------------------------------------------------


def _starts(operand: Array, start_indices, what: str, allow_negative_indices) -> list:
    """The start indices as a list of Python ints or 0-D integer arrays, one per axis of `operand`."""
    if isinstance(start_indices, Array) or hasattr(start_indices, "__array__") and not isinstance(start_indices,
                                                                                                   (list, tuple)):
        start_indices = _array(start_indices, what)
        if start_indices.ndim != 1:
            raise TypeError(f"{what}: start_indices must be a sequence or a 1-D array, got shape {start_indices.shape}")
        start_indices = [start_indices[i] for i in range(start_indices.shape[0])]
    starts = list(start_indices)
    if len(starts) != operand.ndim:
        raise TypeError(f"{what}: an operand of shape {operand.shape} takes {operand.ndim} start indices, got "
                        f"{len(starts)}")
    allow = (allow_negative_indices,) * len(starts) if isinstance(allow_negative_indices, bool) \
        else tuple(allow_negative_indices)
    out = []
    for i, (s, negative_ok) in enumerate(zip(starts, allow)):
        if isinstance(s, Array):
            if s.ndim != 0 or s.dtype.kind not in ("signed", "unsigned"):
                raise TypeError(f"{what}: start index {i} must be a 0-D integer, got {s.dtype.name}{list(s.shape)}")
            if not negative_ok and s.dtype.kind == "signed":
                s = _ew.maximum(s, 0)  # (a traced negative start is clamped to 0, as XLA clamps it)
        else:
            try:
                s = int(_ops_index(s))
            except TypeError:
                raise TypeError(f"{what}: start index {i} must be an integer, got {type(s).__name__}") from None
            if not negative_ok and s < 0:
                raise ValueError(f"{what}: index {s} is out of bounds for axis {i} of size {operand.shape[i]} with "
                                 "allow_negative_indices=False")
        out.append(s)
    return out


def _ops_index(s):
    import operator

    return operator.index(s)


def dynamic_slice(operand: Array, start_indices: Any, slice_sizes: Any, *,
                  allow_negative_indices: bool | tuple = True) -> Array:
    """The block of `slice_sizes` of `operand` at `start_indices` (Python ints or 0-D integer arrays, traced ones
    too: one program serves every start). As in JAX, a negative start counts from the end of its axis (with
    `allow_negative_indices`), and each start is then clamped so that the block fits.

    >>> import stridex as sx
    >>> x = sx.arange(10)
    >>> sx.lax.dynamic_slice(x, (8,), (4,))  # clamped: the block starts at 6
    Array([6, 7, 8, 9])
    >>> sx.jit(lambda x, i: sx.lax.dynamic_slice(x, (i,), (2,)))(x, 3)
    Array([3, 4])
    """
    operand = _array(operand, "dynamic_slice")
    starts = _starts(operand, start_indices, "dynamic_slice", allow_negative_indices)
    sizes = tuple(int(_ops_index(k)) for k in slice_sizes)
    if len(sizes) != operand.ndim or _builtins.any(not 0 <= k <= n for k, n in zip(sizes, operand.shape)):
        raise TypeError(f"dynamic_slice: slice sizes {sizes} do not fit an operand of shape {operand.shape}")
    return _array_indexing.dynamic_slice.bind(operand, *starts, sizes=sizes)


def dynamic_update_slice(operand: Array, update: Any, start_indices: Any, *,
                         allow_negative_indices: bool | tuple = True) -> Array:
    """A copy of `operand` with the block at `start_indices` (clamped so that `update` fits, as in JAX) replaced
    by `update`, which has the operand's rank and dtype. `operand` is not written.

    >>> import stridex as sx
    >>> sx.lax.dynamic_update_slice(sx.zeros(5), sx.ones(2), (4,))
    Array([0., 0., 0., 1., 1.])
    """
    operand = _array(operand, "dynamic_update_slice")
    if isinstance(update, _SCALARS):
        update = _creation.asarray(update, dtype=operand.dtype)
    update = _array(update, "dynamic_update_slice")
    if update.dtype is not operand.dtype:
        raise TypeError(f"dynamic_update_slice: the update's dtype {update.dtype.name} is not the operand's "
                        f"{operand.dtype.name}")
    if update.ndim != operand.ndim or _builtins.any(k > n for k, n in zip(update.shape, operand.shape)):
        raise TypeError(f"dynamic_update_slice: an update of shape {update.shape} does not fit an operand of shape "
                        f"{operand.shape}")
    starts = _starts(operand, start_indices, "dynamic_update_slice", allow_negative_indices)
    return _array_indexing.dynamic_update_slice.bind(operand, update, *starts)


def _in_dim(operand: Array, start, axis: int, what: str) -> tuple[int, list]:
    axis = normalize_axis(axis, operand.ndim, f"{what} axis")
    starts: list = [0] * operand.ndim
    starts[axis] = start
    return axis, starts


def dynamic_slice_in_dim(operand: Array, start_index: Any, slice_size: int = 1, axis: int = 0, *,
                         allow_negative_indices: bool = True) -> Array:
    """`dynamic_slice` along one axis: `slice_size` elements from `start_index` (clamped to fit).

    >>> import stridex as sx
    >>> sx.lax.dynamic_slice_in_dim(sx.reshape(sx.arange(6), (2, 3)), 1, 2, axis=1)
    Array([[1, 2],
           [4, 5]])
    """
    operand = _array(operand, "dynamic_slice_in_dim")
    axis, starts = _in_dim(operand, start_index, axis, "dynamic_slice_in_dim")
    sizes = list(operand.shape)
    sizes[axis] = slice_size
    return dynamic_slice(operand, starts, sizes, allow_negative_indices=allow_negative_indices)


def dynamic_index_in_dim(operand: Array, index: Any, axis: int = 0, keepdims: bool = True, *,
                         allow_negative_indices: bool = True) -> Array:
    """The entry at `index` along `axis` (clamped into the axis), that axis kept with length 1 (`keepdims`) or
    dropped.

    >>> import stridex as sx
    >>> sx.lax.dynamic_index_in_dim(sx.arange(5), -1, keepdims=False)
    Array(4)
    """
    operand = _array(operand, "dynamic_index_in_dim")
    out = dynamic_slice_in_dim(operand, index, 1, axis, allow_negative_indices=allow_negative_indices)
    return out if keepdims else _manipulation.squeeze(out, axis=normalize_axis(axis, operand.ndim, "axis"))


def dynamic_update_slice_in_dim(operand: Array, update: Any, start_index: Any, axis: int, *,
                                allow_negative_indices: bool = True) -> Array:
    """`dynamic_update_slice` along one axis: `update` written from `start_index` (clamped to fit) in a copy.

    >>> import stridex as sx
    >>> sx.lax.dynamic_update_slice_in_dim(sx.zeros((2, 3)), sx.ones((2, 1)), 2, axis=1)
    Array([[0., 0., 1.],
           [0., 0., 1.]])
    """
    operand = _array(operand, "dynamic_update_slice_in_dim")
    _, starts = _in_dim(operand, start_index, axis, "dynamic_update_slice_in_dim")
    return dynamic_update_slice(operand, update, starts, allow_negative_indices=allow_negative_indices)


def dynamic_update_index_in_dim(operand: Array, update: Any, index: Any, axis: int, *,
                                allow_negative_indices: bool = True) -> Array:
    """A copy of `operand` with entry `index` along `axis` replaced by `update` (of the operand's rank with
    length 1 there, or of one rank less).

    >>> import stridex as sx
    >>> sx.lax.dynamic_update_index_in_dim(sx.zeros((2, 2)), sx.ones(2), 1, axis=0)
    Array([[0., 0.],
           [1., 1.]])
    """
    operand = _array(operand, "dynamic_update_index_in_dim")
    axis = normalize_axis(axis, operand.ndim, "dynamic_update_index_in_dim axis")
    if isinstance(update, _SCALARS):
        update = _creation.asarray(update, dtype=operand.dtype)
    update = _array(update, "dynamic_update_index_in_dim")
    if update.ndim == operand.ndim - 1:
        update = _manipulation.expand_dims(update, axis=axis)
    return dynamic_update_slice_in_dim(operand, update, index, axis, allow_negative_indices=allow_negative_indices)


# --- top_k -------------------------------------------------------------------------------------------------


def top_k(operand: Any, k: int, *, axis: int = -1) -> tuple[Array, Array]:
    """The `k` largest entries along `axis` (the last by default), in descending order, and their positions
    (int32, as JAX's). Ties keep the order of position; floats order as IEEE's total order, as in JAX (NaN first,
    then +inf, ..., +0.0 above -0.0). The derivative flows to the selected positions.

    >>> import stridex as sx
    >>> sx.lax.top_k(sx.asarray([1.0, 3.0, 2.0, 3.0]), 2)
    (Array([3., 3.]), Array([1, 3], dtype=int32))
    """
    operand = _array(operand, "top_k")
    if operand.ndim == 0:
        raise TypeError("top_k requires an operand of at least one dimension, got a 0-D array")
    try:
        k = _ops_index(k)
    except TypeError:
        raise TypeError(f"top_k: k must be a Python integer, got {type(k).__name__}") from None
    axis = normalize_axis(axis, operand.ndim, "top_k axis")
    if operand.dtype.kind == "complex floating":
        raise TypeError(f"top_k is not defined for complex arrays ({operand.dtype.name}): they have no order")
    if not 0 <= k <= operand.shape[axis]:
        raise ValueError(f"top_k: k={k} must be between 0 and the length {operand.shape[axis]} of axis {axis}")
    return tuple(_selection.top_k.bind(operand, k=k, axis=axis))


# --- associative_scan, map -------------------------------------------------------------------------------------


def _slice_along(x: Array, axis: int, start: int | None, stop: int | None, step: int | None = None) -> Array:
    return x[(slice(None),) * axis + (slice(start, stop, step),)]


def _interleave(a: Array, b: Array, axis: int) -> Array:
    """a[0], b[0], a[1], b[1], ... along `axis` (`a` as long as `b`, or one longer)."""
    n = b.shape[axis]
    pairs = _manipulation.stack([_slice_along(a, axis, 0, n), b], axis=axis + 1)
    shape = a.shape[:axis] + (2 * n,) + a.shape[axis + 1:]
    merged = _manipulation.reshape(pairs, shape)
    if a.shape[axis] == n:
        return merged
    return _manipulation.concat([merged, _slice_along(a, axis, n, None)], axis=axis)


def associative_scan(fn: Any, elems: Any, reverse: bool = False, axis: int = 0) -> Any:
    """The inclusive scan of `elems` (an array or a pytree of arrays of one length along `axis`) under the
    associative function `fn(a, b)` of pytrees of arrays, computed as JAX computes it (the same pairwise tree of
    `fn` applications, in O(log n) rounds of vectorised calls), so results round as JAX's. With `reverse`, the
    scan runs from the end. It is a composition of slices, `fn` and concatenations, so it runs under `jit`,
    `grad` and `vmap`.

    >>> import stridex as sx
    >>> sx.lax.associative_scan(sx.add, sx.arange(1, 6))
    Array([ 1,  3,  6, 10, 15])
    """
    leaves, treedef = _tree.flatten(elems)
    if not leaves:
        return elems
    leaves = [_array(leaf, "associative_scan") for leaf in leaves]
    if _builtins.any(leaf.ndim == 0 for leaf in leaves):
        raise ValueError("associative_scan: its inputs must have at least one dimension, got a 0-D array")
    axis = normalize_axis(axis, leaves[0].ndim, "associative_scan axis")
    n = leaves[0].shape[axis]
    if _builtins.any(leaf.ndim <= axis or leaf.shape[axis] != n for leaf in leaves):
        raise ValueError("Array inputs to associative_scan must have the same length along the scanned axis "
                         f"{axis}; saw shapes {[leaf.shape for leaf in leaves]}")
    if reverse:
        leaves = [_manipulation.flip(leaf, axis=axis) for leaf in leaves]

    def combine(a: list, b: list) -> list:
        out, out_def = _tree.flatten(fn(_tree.unflatten(treedef, a), _tree.unflatten(treedef, b)))
        if out_def != treedef or _builtins.any(not isinstance(o, Array) for o in out):
            raise TypeError("associative_scan: fn must return a pytree of arrays of the structure of its inputs")
        return out

    def scan_(xs: list) -> list:
        count = xs[0].shape[axis]
        if count < 2:
            return xs
        reduced = combine([_slice_along(x, axis, 0, count - 1, 2) for x in xs],
                          [_slice_along(x, axis, 1, None, 2) for x in xs])
        odd = scan_(reduced)
        if count % 2 == 0:
            even = combine([_slice_along(o, axis, 0, o.shape[axis] - 1) for o in odd],
                           [_slice_along(x, axis, 2, None, 2) for x in xs])
        else:
            even = combine(odd, [_slice_along(x, axis, 2, None, 2) for x in xs])
        even = [_manipulation.concat([_slice_along(x, axis, 0, 1), e], axis=axis) for x, e in zip(xs, even)]
        return [_interleave(e, o, axis) for e, o in zip(even, odd)]

    scanned = scan_(leaves)
    if reverse:
        scanned = [_manipulation.flip(s, axis=axis) for s in scanned]
    return _tree.unflatten(treedef, scanned)


def map(f: Any, xs: Any, *, batch_size: int | None = None) -> Any:
    """`f` applied to each slice of `xs` (a pytree of arrays) along its leading axis, results stacked: JAX's
    `lax.map`, a `scan`. With `batch_size`, `f` is `vmap`ped over batches of that many slices (the remainder in
    one more batch), which trades memory for speed as in JAX.

    >>> import stridex as sx
    >>> sx.lax.map(lambda v: sx.sum(v * v), sx.reshape(sx.arange(6.0), (3, 2)))
    Array([ 1., 13., 41.])
    """
    if batch_size is None:
        return scan(lambda carry, x: (carry, f(x)), (), xs)[1]
    if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size < 1:
        raise ValueError(f"map: batch_size must be a positive integer, got {batch_size!r}")
    leaves, treedef = _tree.flatten(xs)
    if not leaves:
        raise ValueError("map: xs must have at least one array to map over")
    n = _array(leaves[0], "map").shape[0]
    batches, remainder = divmod(n, batch_size)
    full = batches * batch_size
    parts = []
    if batches:
        batched = _tree.unflatten(treedef, [_manipulation.reshape(leaf[:full], (batches, batch_size) + leaf.shape[1:])
                                            for leaf in leaves])
        ys = scan(lambda carry, x: (carry, _batching.vmap(f)(x)), (), batched)[1]
        parts.append(_tree.tree_map(lambda y: _manipulation.reshape(y, (full,) + y.shape[2:]), ys))
    if remainder:
        parts.append(_batching.vmap(f)(_tree.unflatten(treedef, [leaf[full:] for leaf in leaves])))
    if len(parts) == 1:
        return parts[0]
    first, first_def = _tree.flatten(parts[0])
    second = _tree.flatten_up_to(first_def, parts[1])
    return _tree.unflatten(first_def, [_manipulation.concat([a, b], axis=0) for a, b in zip(first, second)])


# --- cumulative reductions ---------------------------------------------------------------------------------


def _cumulative(what: str, operand: Any, axis: int, reverse: bool, along) -> Array:
    operand = _array(operand, what)
    if operand.ndim == 0:
        raise ValueError(f"{what} requires an operand of at least one dimension, got a 0-D array")
    axis = normalize_axis(axis, operand.ndim, f"{what} axis")
    if operand.dtype is _dtypes.bool:
        raise TypeError(f"{what} does not take a boolean operand")
    x = _manipulation.flip(operand, axis=axis) if reverse else operand
    out = along(x, axis)
    return _manipulation.flip(out, axis=axis) if reverse else out


def cumsum(operand: Any, axis: int = 0, reverse: bool = False) -> Array:
    """The running sum along `axis` (from the end with `reverse`), in the operand's dtype (JAX's: an int8 sum
    wraps in int8, where `stridex.cumulative_sum` accumulates small integers in int64).

    >>> import stridex as sx
    >>> sx.lax.cumsum(sx.asarray([1, 2, 3]), reverse=True)
    Array([6, 5, 3])
    """
    return _cumulative("cumsum", operand, axis, reverse,
                       lambda x, a: _statistical.cumulative_sum(x, axis=a, dtype=x.dtype))


def cumprod(operand: Any, axis: int = 0, reverse: bool = False) -> Array:
    """The running product along `axis` (from the end with `reverse`), in the operand's dtype.

    >>> import stridex as sx
    >>> sx.lax.cumprod(sx.asarray([1.0, 2.0, 3.0]))
    Array([1., 2., 6.])
    """
    return _cumulative("cumprod", operand, axis, reverse,
                       lambda x, a: _statistical.cumulative_prod(x, axis=a, dtype=x.dtype))


def _refuse_complex(what: str, x: Array) -> Array:
    if x.dtype.kind == "complex floating":
        raise TypeError(f"{what} is not defined for complex arrays ({x.dtype.name}): they have no order")
    return x


def cummax(operand: Any, axis: int = 0, reverse: bool = False) -> Array:
    """The running maximum along `axis` (NaN propagates), an `associative_scan` of `maximum` as JAX's: where the
    maximum ties, the derivative is shared as `maximum`'s.

    >>> import stridex as sx
    >>> sx.lax.cummax(sx.asarray([1.0, 3.0, 2.0]))
    Array([1., 3., 3.])
    """
    return _cumulative("cummax", operand, axis, reverse,
                       lambda x, a: associative_scan(_ew.maximum, _refuse_complex("cummax", x), axis=a))


def cummin(operand: Any, axis: int = 0, reverse: bool = False) -> Array:
    """The running minimum along `axis` (NaN propagates), as `cummax`.

    >>> import stridex as sx
    >>> sx.lax.cummin(sx.asarray([3.0, 1.0, 2.0]))
    Array([3., 1., 1.])
    """
    return _cumulative("cummin", operand, axis, reverse,
                       lambda x, a: associative_scan(_ew.minimum, _refuse_complex("cummin", x), axis=a))


def cumlogsumexp(operand: Any, axis: int = 0, reverse: bool = False) -> Array:
    """log(cumsum(exp(operand))) along `axis`, computed stably as an `associative_scan` of `logaddexp` (JAX's
    definition).

    >>> import stridex as sx
    >>> sx.lax.cumlogsumexp(sx.asarray([0.0, 0.0]))
    Array([0.        , 0.69314718])
    """
    def along(x, a):
        if x.dtype.kind != "real floating":
            raise TypeError(f"cumlogsumexp requires a real floating-point operand, got {x.dtype.name}")
        return associative_scan(_tr.logaddexp, x, axis=a)

    return _cumulative("cumlogsumexp", operand, axis, reverse, along)


# --- elementwise: select, clamp, rsqrt, integer_pow, logistic, erf, lgamma, digamma ------------------------------


def select(pred: Any, on_true: Any, on_false: Any) -> Array:
    """`on_true` where `pred` is True, else `on_false`. As in JAX, there is no broadcasting: `pred` is boolean,
    0-D or of the branches' shape, and the branches share one shape and dtype.

    >>> import stridex as sx
    >>> sx.lax.select(sx.asarray([True, False]), sx.asarray([1, 2]), sx.asarray([3, 4]))
    Array([1, 4])
    """
    pred, on_true, on_false = (_array(v, "select") for v in (pred, on_true, on_false))
    if pred.dtype is not _dtypes.bool:
        raise TypeError(f"select: pred must be boolean, got {pred.dtype.name}")
    if on_true.shape != on_false.shape or on_true.dtype is not on_false.dtype:
        raise TypeError(f"select: the branches must have one shape and dtype, got {on_true.dtype.name}"
                        f"{list(on_true.shape)} and {on_false.dtype.name}{list(on_false.shape)}")
    if pred.ndim and pred.shape != on_true.shape:
        raise TypeError(f"select: pred must be 0-D or of the branches' shape {on_true.shape}, got {pred.shape}")
    return _ops.where(pred, on_true, on_false)


def _like(value: Any, x: Array, what: str) -> Array:
    """`value` as an array of x's dtype: a Python scalar converted, an array of another dtype refused."""
    if isinstance(value, _SCALARS):
        return _creation.asarray(value, dtype=x.dtype)
    value = _array(value, what)
    if value.dtype is not x.dtype:
        raise TypeError(f"{what}: the bounds must have the operand's dtype {x.dtype.name}, got {value.dtype.name}")
    return value


def clamp(min: Any, x: Any, max: Any) -> Array:
    """`x` clamped into [min, max] (bounds 0-D or of x's shape, x's dtype), with JAX's derivatives: `x` gets the
    derivative strictly inside the interval, a bound where it is the value strictly (and nothing flows at a
    boundary where they are equal). NaN propagates.

    >>> import stridex as sx
    >>> sx.lax.clamp(0.0, sx.asarray([-1.0, 0.5, 2.0]), 1.0)
    Array([0. , 0.5, 1. ])
    """
    x = _array(x, "clamp")
    lo, hi = _like(min, x, "clamp"), _like(max, x, "clamp")
    for bound in (lo, hi):
        if bound.ndim and bound.shape != x.shape:
            raise TypeError(f"clamp: a bound must be 0-D or of the operand's shape {x.shape}, got {bound.shape}")
    value = _ew.minimum(_ew.maximum(x, lo), hi)
    below = _ew.logical_and(_ew.greater(lo, x), _ew.less(lo, hi))
    inside = _ew.logical_and(_ew.greater(x, lo), _ew.less(x, hi))
    above = _ew.less(hi, x)
    shape = x.shape
    return _ops.where(below, _manipulation.broadcast_to(lo, shape),
                      _ops.where(inside, x, _ops.where(above, _manipulation.broadcast_to(hi, shape),
                                                       stop_gradient(value))))


def _inexact(x: Any, what: str) -> Array:
    x = _array(x, what)
    if x.dtype.kind not in ("real floating", "complex floating"):
        raise TypeError(f"{what} requires a floating-point operand, got {x.dtype.name}")
    return x


def rsqrt(x: Any) -> Array:
    """1 / sqrt(x).

    >>> import stridex as sx
    >>> sx.lax.rsqrt(sx.asarray([4.0, 0.25]))
    Array([0.5, 2. ])
    """
    return _ew.divide(1.0, _tr.sqrt(_inexact(x, "rsqrt")))


def integer_pow(x: Any, y: int) -> Array:
    """x ** y for a static integer `y`, by repeated squaring as JAX computes it (so it rounds as JAX's); a
    negative `y` is the reciprocal of the power.

    >>> import stridex as sx
    >>> sx.lax.integer_pow(sx.asarray([2.0, 3.0]), 3)
    Array([ 8., 27.])
    """
    x = _array(x, "integer_pow")
    if isinstance(y, bool) or not isinstance(y, int):
        try:
            y = _ops_index(y)
        except TypeError:
            raise TypeError(f"integer_pow: the exponent must be a Python integer, got {type(y).__name__}") from None
    if x.dtype is _dtypes.bool:
        raise TypeError("integer_pow does not take a boolean operand")
    if y == 0:
        return _creation.ones_like(x)
    reciprocal, y = y < 0, abs(y)
    if reciprocal and x.dtype.kind in ("signed", "unsigned"):
        raise TypeError(f"integer_pow: a negative exponent {-y} needs a floating-point operand, got {x.dtype.name}")
    acc = None
    while y > 0:
        if y & 1:
            acc = x if acc is None else _ew.multiply(acc, x)
        y >>= 1
        if y > 0:
            x = _ew.multiply(x, x)
    assert acc is not None
    return _ew.divide(_creation.ones_like(acc), acc) if reciprocal else acc


def logistic(x: Any) -> Array:
    """1 / (1 + exp(-x)), with JAX's derivative logistic(x) (1 - logistic(x)) (`stridex.nn.sigmoid`).

    >>> import stridex as sx
    >>> sx.lax.logistic(sx.asarray([0.0]))
    Array([0.5])
    """
    from stridex.nn import sigmoid  # (stridex.nn on first use: `import stridex.lax` does not pay for it)

    return sigmoid(_inexact(x, "logistic"))


def erf(x: Any) -> Array:
    """The error function (JAX's values: `stridex._lax.special`).

    >>> import stridex as sx
    >>> sx.lax.erf(sx.asarray([0.0]))
    Array([0.])
    """
    return _special.erf.bind(_array(x, "erf"))


def lgamma(x: Any) -> Array:
    """log |Γ(x)| (JAX's values).

    >>> import stridex as sx
    >>> sx.lax.lgamma(sx.asarray([1.0, 3.0]))
    Array([0.        , 0.69314718])
    """
    return _special.lgamma.bind(_array(x, "lgamma"))


def digamma(x: Any) -> Array:
    """ψ(x), the derivative of lgamma (JAX's values).

    >>> import stridex as sx
    >>> sx.lax.digamma(sx.asarray([1.0]))
    Array([-0.57721566])
    """
    return _special.digamma.bind(_array(x, "digamma"))


# === end of issue 43, part B ===================================================================================
