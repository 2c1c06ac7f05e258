"""`stridex.nn`: `jax.nn`'s activations and normalisers on stridex arrays, with JAX's signatures, values and
derivatives; `stridex.nn.initializers` holds `jax.nn.initializers`' initialisers.

Each function composes stridex's primitives as `jax.nn` composes `jax.lax`'s, so its derivative is JAX's: where
JAX gives a custom rule (`relu` and `relu6`, whose derivative is 0 at their kinks; `sigmoid`), so does stridex
(`custom_jvp`); `softmax`, `log_softmax` and `logsumexp` shift by the maximum as a constant of differentiation, as
JAX does. Elementwise activations on large arrays fuse eagerly like any chain of elementwise operations
(`stridex._exec.fusion`). Integers and booleans are promoted to the default floating dtype (float64) wherever JAX
computes in floating point (docs/nn.md).

>>> import stridex as sx
>>> from stridex.nn import relu, softmax
>>> relu(sx.asarray([-1.0, 0.0, 2.0]))
Array([0., 0., 2.])
>>> softmax(sx.asarray([0.0, 0.0]))
Array([0.5, 0.5])
"""

from __future__ import annotations

import math
import operator
import warnings
from typing import Any

import numpy as np

from stridex._api import creation_functions as _creation
from stridex._api import statistical_functions as _stat
from stridex._api.jax_arguments import (ArrayLike, array, as_mask, broadcast_pair, inexact, masked_max, masked_sum,
                                        real)
from stridex._api.jax_arguments import axes as _axes
from stridex._api.jax_arguments import axis as _axis
from stridex._api.jax_arguments import dtype as _dtype_argument
from stridex._core import dtypes as _dtypes
from stridex._core.array import Array
from stridex._lax import ops
from stridex._lax import special as _p
from stridex._transforms.custom import custom_jvp
from stridex.nn import initializers
from stridex.scipy.special import expit, logsumexp

__all__ = ["celu", "elu", "gelu", "glu", "hard_sigmoid", "hard_silu", "hard_swish", "hard_tanh", "identity",
           "initializers", "leaky_relu", "log_sigmoid", "log_softmax", "logsumexp", "mish", "one_hot", "relu", "relu6",
           "selu", "sigmoid", "silu", "soft_sign", "softmax", "softplus", "squareplus", "standardize", "swish"]


def _floating(name: str, x) -> Array:
    """`x` as a real floating array (integers and booleans promoted; complex values refused, JAX's TypeError)."""
    return real(name, x)[0]


# --- the rectifiers ---------------------------------------------------------------------------------------------


@custom_jvp
def _relu(x):
    return ops.maximum(x, 0)


_relu.defjvps(lambda g, ans, x: ops.where(ops.greater(x, 0), g, 0))


def relu(x: ArrayLike) -> Array:
    """max(x, 0) (`jax.nn.relu`). Its derivative is 1 where x > 0 and 0 elsewhere, at 0 too (JAX's custom rule).

    >>> import stridex as sx
    >>> sx.nn.relu(sx.asarray([-2.0, 0.0, 0.5]))
    Array([0. , 0. , 0.5])
    >>> sx.grad(sx.nn.relu)(sx.asarray(0.0))
    Array(0.)
    """
    return _relu(array("relu", x))


@custom_jvp
def _relu6(x):
    return ops.minimum(ops.maximum(x, 0), 6.0)


_relu6.defjvps(lambda g, ans, x: ops.where(ops.logical_and(ops.greater(x, 0), ops.less(x, 6)), g, 0))


def relu6(x: ArrayLike) -> Array:
    """min(max(x, 0), 6) (`jax.nn.relu6`). Its derivative is 1 where 0 < x < 6 and 0 elsewhere, at 0 and 6 too.

    >>> import stridex as sx
    >>> sx.nn.relu6(sx.asarray([-1.0, 3.0, 7.0]))
    Array([0., 3., 6.])
    """
    return _relu6(array("relu6", x))


def leaky_relu(x: ArrayLike, negative_slope: ArrayLike = 1e-2) -> Array:
    """x where x >= 0, negative_slope * x elsewhere (`jax.nn.leaky_relu`).

    >>> import stridex as sx
    >>> sx.nn.leaky_relu(sx.asarray([-2.0, 3.0]))
    Array([-0.02,  3.  ])
    """
    x = array("leaky_relu", x)
    return ops.where(ops.greater_equal(x, 0), x, ops.multiply(_operand("leaky_relu", negative_slope), x))


def hard_tanh(x: ArrayLike) -> Array:
    """x clipped to [-1, 1] (`jax.nn.hard_tanh`); its derivative is 1 on [-1, 1], ends included, as JAX's.

    >>> import stridex as sx
    >>> sx.nn.hard_tanh(sx.asarray([-3.0, 0.5, 2.0]))
    Array([-1. ,  0.5,  1. ])
    """
    x = array("hard_tanh", x)
    return ops.where(ops.greater(x, 1), 1, ops.where(ops.less(x, -1), -1, x))


def elu(x: ArrayLike, alpha: ArrayLike = 1.0) -> Array:
    """x where x > 0, alpha * (exp(x) - 1) elsewhere (`jax.nn.elu`).

    >>> import stridex as sx
    >>> sx.nn.elu(sx.asarray([-1.0, 2.0]))
    Array([-0.63212056,  2.        ])
    """
    x = _floating("elu", x)
    positive = ops.greater(x, 0)
    return ops.where(positive, x, ops.multiply(_operand("elu", alpha), ops.expm1(ops.where(positive, 0.0, x))))


def celu(x: ArrayLike, alpha: ArrayLike = 1.0) -> Array:
    """max(x, 0) + alpha * expm1(min(x, 0) / alpha) (`jax.nn.celu`).

    >>> import stridex as sx
    >>> sx.nn.celu(sx.asarray([-1.0, 2.0]), alpha=2.0)
    Array([-0.78693868,  2.        ])
    """
    x = _floating("celu", x)
    alpha = _operand("celu", alpha)
    return ops.add(ops.maximum(x, 0.0), ops.multiply(alpha, ops.expm1(ops.divide(ops.minimum(x, 0.0), alpha))))


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def selu(x: ArrayLike) -> Array:
    """scale * elu(x, alpha) with the self-normalising constants (`jax.nn.selu`).

    >>> import stridex as sx
    >>> sx.nn.selu(sx.asarray([-1.0, 1.0]))
    Array([-1.11133074,  1.05070099])
    """
    return ops.multiply(_SELU_SCALE, elu(_floating("selu", x), _SELU_ALPHA))


# --- sigmoids and smooth rectifiers -------------------------------------------------------------------------------


def sigmoid(x: ArrayLike) -> Array:
    """1 / (1 + exp(-x)) (`jax.nn.sigmoid`, `stridex.scipy.special.expit`); its derivative is JAX's,
    sigmoid(x) (1 - sigmoid(x)), finite for every x.

    >>> import stridex as sx
    >>> sx.nn.sigmoid(sx.asarray([0.0, 1.0]))
    Array([0.5       , 0.73105858])
    """
    return expit(_floating("sigmoid", x))


def softplus(x: ArrayLike) -> Array:
    """log(1 + exp(x)), as logaddexp(x, 0) (`jax.nn.softplus`).

    >>> import stridex as sx
    >>> sx.nn.softplus(sx.asarray([0.0, 100.0]))
    Array([  0.69314718, 100.        ])
    """
    return ops.logaddexp(_floating("softplus", x), 0.0)


def log_sigmoid(x: ArrayLike) -> Array:
    """log(sigmoid(x)) = -softplus(-x) (`jax.nn.log_sigmoid`).

    >>> import stridex as sx
    >>> sx.nn.log_sigmoid(sx.asarray([0.0, -100.0]))
    Array([  -0.69314718, -100.        ])
    """
    return ops.negative(softplus(ops.negative(_floating("log_sigmoid", x))))


def silu(x: ArrayLike) -> Array:
    """x * sigmoid(x) (`jax.nn.silu`, also `swish`).

    >>> import stridex as sx
    >>> sx.nn.silu(sx.asarray([0.0, 1.0]))
    Array([0.        , 0.73105858])
    """
    x = _floating("silu", x)
    return ops.multiply(x, expit(x))


swish = silu


def gelu(x: ArrayLike, approximate: bool = True) -> Array:
    """The Gaussian error linear unit (`jax.nn.gelu`): x Φ(x) with the normal CDF Φ, by default approximated as
    (1 + tanh(√(2/π) (x + 0.044715 x³))) / 2, exactly as erfc(-x / √2) / 2 with `approximate=False`.

    >>> import stridex as sx
    >>> sx.nn.gelu(sx.asarray([-1.0, 1.0]))
    Array([-0.15880801,  0.84119199])
    >>> sx.nn.gelu(sx.asarray([-1.0, 1.0]), approximate=False)
    Array([-0.15865525,  0.84134475])
    """
    x = _floating("gelu", x)
    if approximate:
        cube = ops.multiply(ops.multiply(x, x), x)
        inner = ops.multiply(math.sqrt(2 / math.pi), ops.add(x, ops.multiply(0.044715, cube)))
        return ops.multiply(x, ops.multiply(0.5, ops.add(1.0, ops.tanh(inner))))
    return ops.multiply(ops.multiply(0.5, x), _p.erfc.bind(ops.multiply(ops.negative(x), math.sqrt(0.5))))


def glu(x: ArrayLike, axis: int = -1) -> Array:
    """The gated linear unit (`jax.nn.glu`): x split in two halves along `axis`, the first times sigmoid of the
    second. The axis must have an even length (ValueError otherwise; JAX asserts).

    >>> import stridex as sx
    >>> sx.nn.glu(sx.asarray([2.0, 4.0, 0.0, 100.0]))
    Array([1., 4.])
    """
    x = _floating("glu", x)
    axis = _axis("glu", axis, x.ndim)
    size = x.shape[axis]
    if size % 2:
        raise ValueError(f"glu: the length of axis {axis} must be divisible by 2, got {size} (shape {x.shape})")
    half = size // 2
    first, second = (ops.index(x, tuple(("slice", start, stop, 1) if a == axis else ("slice", 0, n, 1)
                                        for a, n in enumerate(x.shape))) for start, stop in ((0, half), (half, size)))
    return ops.multiply(first, expit(second))


# --- more of jax.nn's elementwise activations (cheap compositions) ---------------------------------------------


def identity(x: ArrayLike) -> Array:
    """x itself (`jax.nn.identity`).

    >>> import stridex as sx
    >>> sx.nn.identity(sx.asarray([1.0, -2.0]))
    Array([ 1., -2.])
    """
    return array("identity", x)


def soft_sign(x: ArrayLike) -> Array:
    """x / (|x| + 1) (`jax.nn.soft_sign`).

    >>> import stridex as sx
    >>> sx.nn.soft_sign(sx.asarray([-1.0, 3.0]))
    Array([-0.5 ,  0.75])
    """
    x = _floating("soft_sign", x)
    return ops.divide(x, ops.add(ops.abs(x), 1))


def hard_sigmoid(x: ArrayLike) -> Array:
    """relu6(x + 3) / 6 (`jax.nn.hard_sigmoid`).

    >>> import stridex as sx
    >>> sx.nn.hard_sigmoid(sx.asarray([-4.0, 0.0, 4.0]))
    Array([0. , 0.5, 1. ])
    """
    return ops.divide(_relu6(ops.add(array("hard_sigmoid", x), 3.0)), 6.0)


def hard_silu(x: ArrayLike) -> Array:
    """x * hard_sigmoid(x) (`jax.nn.hard_silu`, also `hard_swish`).

    >>> import stridex as sx
    >>> sx.nn.hard_silu(sx.asarray([-4.0, 1.0]))
    Array([-0.        ,  0.66666667])
    """
    x = array("hard_silu", x)
    return ops.multiply(x, hard_sigmoid(x))


hard_swish = hard_silu


def mish(x: ArrayLike) -> Array:
    """x * tanh(softplus(x)) (`jax.nn.mish`).

    >>> import stridex as sx
    >>> sx.nn.mish(sx.asarray([0.0, 1.0]))
    Array([0.        , 0.86509839])
    """
    x = _floating("mish", x)
    return ops.multiply(x, ops.tanh(softplus(x)))


def squareplus(x: ArrayLike, b: ArrayLike = 4) -> Array:
    """(x + √(x² + b)) / 2 (`jax.nn.squareplus`).

    >>> import stridex as sx
    >>> sx.nn.squareplus(sx.asarray([0.0, 3.0]))
    Array([1.        , 3.30277564])
    """
    x, b = inexact("squareplus", x, b)
    return ops.divide(ops.add(x, ops.sqrt(ops.add(ops.square(x), b))), 2)


# --- normalisers ------------------------------------------------------------------------------------------------


def softmax(x: ArrayLike, axis: int | tuple[int, ...] | None = -1, where: ArrayLike | None = None) -> Array:
    """exp(x) / Σ exp(x) over `axis` (`jax.nn.softmax`), computed as exp(x - max) / Σ exp(x - max) with the maximum a
    constant of differentiation. `where` selects the elements: the others give 0. A row holding +inf, or only
    -inf, gives NaN, as JAX's.

    >>> import stridex as sx
    >>> sx.nn.softmax(sx.asarray([[1.0, 1.0, -sx.inf], [0.0, 1000.0, 0.0]]))
    Array([[0.5, 0.5, 0. ],
           [0. , 1. , 0. ]])
    """
    with np.errstate(all="ignore"):  # (a row of -inf computes -inf - -inf, as JAX's does)
        shifted, axes, mask = _shifted_by_max("softmax", x, axis, where)
        unnormalized = ops.exp(shifted)
        result = ops.divide(unnormalized, masked_sum(unnormalized, axes, mask, keepdims=True))
        return result if mask is None else ops.where(mask, result, 0.0)


def log_softmax(x: ArrayLike, axis: int | tuple[int, ...] | None = -1, where: ArrayLike | None = None) -> Array:
    """log(softmax(x)) over `axis`, as (x - max) - log Σ exp(x - max) (`jax.nn.log_softmax`); masked-out elements
    (`where`) give -inf.

    >>> import stridex as sx
    >>> sx.nn.log_softmax(sx.asarray([0.0, 0.0, 1000.0]))
    Array([-1000., -1000.,     0.])
    """
    with np.errstate(all="ignore"):
        shifted, axes, mask = _shifted_by_max("log_softmax", x, axis, where)
        result = ops.subtract(shifted, ops.log(masked_sum(ops.exp(shifted), axes, mask, keepdims=True)))
        return result if mask is None else ops.where(mask, result, -math.inf)


def standardize(x: ArrayLike, axis: int | tuple[int, ...] | None = -1, mean: ArrayLike | None = None,
                variance: ArrayLike | None = None, epsilon: ArrayLike = 1e-5, where: ArrayLike | None = None, *,
                algorithm: str = "fast") -> Array:
    """(x - mean) / √(variance + epsilon) over `axis` (`jax.nn.standardize`). The mean and variance are computed
    unless given (over the `where` elements); `algorithm="fast"` takes the variance as mean(x²) - mean(x)²
    clipped at 0, `"stable"` as mean((x - mean(x))²).

    >>> import stridex as sx
    >>> sx.nn.standardize(sx.asarray([1.0, 2.0, 3.0]), epsilon=0.0)
    Array([-1.22474487,  0.        ,  1.22474487])
    """
    if algorithm not in ("fast", "stable"):
        raise ValueError(f"Unknown algorithm '{algorithm}'. Expected 'fast' or 'stable'.")
    x = _floating("standardize", x)
    mask = None if where is None else as_mask("standardize", where)
    with np.errstate(all="ignore"):
        if mask is not None:
            x, mask = broadcast_pair(x, mask)
        axes = _axes("standardize", x, axis)
        if mean is None:
            mean = _mean(x, axes, mask)
        else:
            mean = _operand("standardize", mean)
        if variance is None:
            if algorithm == "stable":
                variance = _mean(ops.square(ops.subtract(x, mean)), axes, mask)
            else:
                variance = ops.maximum(ops.subtract(_mean(ops.square(x), axes, mask), ops.square(mean)), 0)
        else:
            variance = _operand("standardize", variance)
        scale = ops.reciprocal(ops.sqrt(ops.add(variance, _operand("standardize", epsilon))))
        return ops.multiply(ops.subtract(x, mean), scale)


def one_hot(x: Any, num_classes: int, *, dtype: Any = None, axis: int = -1) -> Array:
    """One-hot encoding of the indices `x` (`jax.nn.one_hot`): a new axis `axis` of length `num_classes` holding 1
    at each index and 0 elsewhere; indices outside [0, num_classes) give a row of zeros. `dtype` defaults to the
    default floating dtype (float64). Non-integer `x` is compared as it is, with JAX's DeprecationWarning.

    >>> import stridex as sx
    >>> sx.nn.one_hot(sx.asarray([0, 2, -1]), 3)
    Array([[1., 0., 0.],
           [0., 0., 1.],
           [0., 0., 0.]])
    """
    try:
        num_classes = operator.index(num_classes)
    except TypeError:
        raise TypeError(f"one_hot: num_classes must be a concrete integer, got {num_classes!r}") from None
    x = array("one_hot", x)
    if x.dtype.kind not in ("signed", "unsigned"):
        warnings.warn(f"jax.nn.one_hot input should be integer-typed; got dtype={x.dtype.name}", DeprecationWarning,
                      stacklevel=2)
        if x.dtype is _dtypes.bool:
            x = ops.astype(x, _dtypes.int64)
    out_dtype = _dtypes.float64 if dtype is None else _dtype_argument("one_hot", dtype)
    position = _axis("one_hot", axis, x.ndim + 1)
    classes = ops.reshape(_creation.arange(num_classes, dtype=x.dtype, device=x.device),
                          tuple(num_classes if a == position else 1 for a in range(x.ndim + 1)))
    return ops.astype(ops.equal(ops.expand_dims(x, position), classes), out_dtype)


# --- helpers ----------------------------------------------------------------------------------------------------


def _shifted_by_max(name: str, x, axis, where) -> tuple:
    """(x - max over `axis` where `where` holds (-inf elsewhere), the maximum a constant of differentiation; the axes;
    the mask broadcast to x's shape, or None): what softmax and log_softmax share with JAX's."""
    x = _floating(name, x)
    mask = None if where is None else as_mask(name, where)
    if mask is not None:
        x, mask = broadcast_pair(x, mask)
    axes = _axes(name, x, axis)
    x_max = masked_max(x, axes, mask, keepdims=True)
    x_safe = x if mask is None else ops.where(mask, x, -math.inf)
    return ops.subtract(x_safe, ops.stop_gradient(x_max)), axes, mask


def _operand(name: str, value):
    """A parameter that may be a Python scalar (kept weak) or an array-like."""
    if type(value) in (bool, int, float):
        return value
    return array(name, value)


def _mean(x, axes: tuple, mask):
    """The mean of `x` over `axes` (kept), over the `mask` elements when there is a mask."""
    if mask is None:
        return _stat.mean(x, axis=axes, keepdims=True)
    count = ops.sum(ops.astype(mask, x.dtype), axes, keepdims=True, dtype=x.dtype)
    return ops.divide(masked_sum(x, axes, mask, keepdims=True), count)
