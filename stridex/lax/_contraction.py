"""Contraction, convolution and windowed reductions: `dot_general`, `conv_general_dilated`, `conv`,
`conv_with_general_padding`, `conv_transpose`, `reduce_window` and the monoids `add`/`max`/`min` that name its
computation (the primitives of `stridex._lax.linalg`, `.convolution` and `.windows`)."""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from stridex._core import dtypes as _dtypes
from stridex._core.array import Array
from stridex._lax import ops as _ops


_SCALARS = (bool, int, float, complex)


# === contraction, convolution and windows (issue 43: dot_general, conv_general_dilated, conv, conv_transpose,
# reduce_window, and the monoids add/max/min that name reduce_window's computation) ==============================
# Primitives: `stridex._lax.linalg.dot_general`, `stridex._lax.convolution`, `stridex._lax.windows`.

from stridex._api import creation_functions as _creation_functions
from stridex._api import einsum_functions as _einsum
from stridex._lax import convolution as _convolution
from stridex._lax import linalg as _linalg
from stridex._lax import windows as _windows

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


