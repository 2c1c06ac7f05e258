"""`stridex.nn.initializers`: `jax.nn.initializers`' parameter initialisers, drawing from `stridex.random`.

Each maker (`normal(stddev)`, `glorot_uniform()`, ...) returns an initializer `init(key, shape, dtype=None)`, as
JAX's do; the default dtype is stridex's float64. Given the same key (a `stridex.random` key), shape and real
dtype, an initializer gives the bits `jax.nn.initializers` gives under `jax.enable_x64(True)`: the samples are
`jax.random`'s (`stridex.random`), and what follows them (a product by a scale, a square root, a division) is
correctly rounded in NumPy as in XLA. For complex dtypes, the uniform disk and the truncated complex normal take
exp(1j θ), which NumPy and XLA round differently in the last bit: there the values agree to an ulp, not bit for bit.

>>> import stridex as sx
>>> from stridex.nn.initializers import glorot_normal, zeros
>>> w = glorot_normal()(sx.random.key(0), (3, 4), sx.float32)
>>> w.shape, w.dtype
((3, 4), stridex.float32)
>>> zeros(sx.random.key(0), (2,))
Array([0., 0.])
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Literal, Protocol

import numpy as np

import stridex.random as _random
from stridex._api import creation_functions as _creation
from stridex._api import data_type_functions as _data_type
from stridex._api import manipulation_functions as _manipulation
from stridex._api import transcendental_functions as _transcendental
from stridex._api.jax_arguments import dtype as _dtype_argument
from stridex._core import dtypes as _dtypes
from stridex._core.array import Array
from stridex._core.dtypes import DType

__all__ = ["Initializer", "constant", "delta_orthogonal", "glorot_normal", "glorot_uniform", "he_normal", "he_uniform",
           "kaiming_normal", "kaiming_uniform", "lecun_normal", "lecun_uniform", "normal", "ones", "orthogonal",
           "truncated_normal", "uniform", "variance_scaling", "xavier_normal", "xavier_uniform", "zeros"]

Axes = int | Sequence[int]


class Initializer(Protocol):
    """What the makers return: `init(key, shape, dtype=None) -> Array`."""

    def __call__(self, key: Array, shape: Sequence[int], dtype: Any = None, out_sharding: None = None) -> Array: ...


# --- arguments --------------------------------------------------------------------------------------------------


def _resolve_dtype(dtype) -> DType:
    out = _dtypes.float64 if dtype is None else _dtype_argument("initializer", dtype)
    if out.kind not in _dtypes.FLOATING_KINDS:
        raise TypeError(f"initializer: dtype must be a floating-point dtype, got {out.name}")
    return out


def _resolve_shape(shape) -> tuple:
    if isinstance(shape, int) and not isinstance(shape, bool):
        return (shape,)
    try:
        return tuple(int(d) for d in shape)
    except TypeError:
        raise TypeError(f"initializer: shape must be a sequence of integers, got {shape!r}") from None


def _no_sharding(out_sharding) -> None:
    if out_sharding is not None:
        raise NotImplementedError("stridex's initializers make unsharded arrays: leave out_sharding=None and shard the "
                                  "result where it is used (sx.jit's out_shardings)")


def _scalar(value, dtype: DType, key: Array) -> Array:
    """`jnp.array(value, dtype)`: a 0-D array of `value` (a Python number or an array) in `dtype`, where `key` is
    (an initializer that ignores its key may be given anything there)."""
    if isinstance(value, Array):
        return _data_type.astype(value, dtype)
    return _creation.asarray(value, dtype=dtype, device=key.device if isinstance(key, Array) else None)


# --- constants ---------------------------------------------------------------------------------------------------


def zeros(key: Array, shape: Sequence[int], dtype: Any = None, out_sharding: None = None) -> Array:
    """An initializer that returns zeros (`jax.nn.initializers.zeros`); the key is ignored.

    >>> import stridex as sx
    >>> sx.nn.initializers.zeros(sx.random.key(42), (2, 3), sx.float32)
    Array([[0., 0., 0.],
           [0., 0., 0.]], dtype=float32)
    """
    _no_sharding(out_sharding)
    return _creation.zeros(_resolve_shape(shape), dtype=_resolve_dtype(dtype))


def ones(key: Array, shape: Sequence[int], dtype: Any = None, out_sharding: None = None) -> Array:
    """An initializer that returns ones (`jax.nn.initializers.ones`); the key is ignored.

    >>> import stridex as sx
    >>> sx.nn.initializers.ones(sx.random.key(42), (2,))
    Array([1., 1.])
    """
    _no_sharding(out_sharding)
    return _creation.ones(_resolve_shape(shape), dtype=_resolve_dtype(dtype))


def constant(value: Any, dtype: Any = None) -> Initializer:
    """An initializer that returns arrays full of `value` (`jax.nn.initializers.constant`).

    >>> import stridex as sx
    >>> sx.nn.initializers.constant(-7)(sx.random.key(42), (2, 2), sx.float32)
    Array([[-7., -7.],
           [-7., -7.]], dtype=float32)
    """

    def init(key: Array, shape: Sequence[int], dtype: Any = dtype, out_sharding: None = None) -> Array:
        _no_sharding(out_sharding)
        resolved = _resolve_dtype(dtype)
        return _manipulation.broadcast_to(_scalar(value, resolved, key), _resolve_shape(shape))

    return init


# --- distributions -------------------------------------------------------------------------------------------------


def uniform(scale: Any = 0.01, dtype: Any = None) -> Initializer:
    """An initializer of uniform samples in [0, scale) (`jax.nn.initializers.uniform`).

    >>> import stridex as sx
    >>> x = sx.nn.initializers.uniform(10.0)(sx.random.key(42), (1000,))
    >>> bool(sx.all((x >= 0) & (x < 10)))
    True
    """

    def init(key: Array, shape: Sequence[int], dtype: Any = dtype, out_sharding: None = None) -> Array:
        _no_sharding(out_sharding)
        resolved = _resolve_dtype(dtype)
        return _random.uniform(key, _resolve_shape(shape), resolved) * _scalar(scale, resolved, key)

    return init


def normal(stddev: Any = 1e-2, dtype: Any = None) -> Initializer:
    """An initializer of normal samples of mean 0 and standard deviation `stddev` (`jax.nn.initializers.normal`).

    >>> import stridex as sx
    >>> sx.nn.initializers.normal(5.0)(sx.random.key(42), (2, 3)).shape
    (2, 3)
    """

    def init(key: Array, shape: Sequence[int], dtype: Any = dtype, out_sharding: None = None) -> Array:
        _no_sharding(out_sharding)
        resolved = _resolve_dtype(dtype)
        return _random.normal(key, _resolve_shape(shape), resolved) * _scalar(stddev, resolved, key)

    return init


def truncated_normal(stddev: Any = 1e-2, dtype: Any = None, lower: Any = -2.0, upper: Any = 2.0) -> Initializer:
    """An initializer of normal samples truncated to (lower, upper), then scaled by `stddev` (no correction of the
    standard deviation for the truncation) (`jax.nn.initializers.truncated_normal`).

    >>> import stridex as sx
    >>> x = sx.nn.initializers.truncated_normal(5.0)(sx.random.key(42), (1000,))
    >>> bool(sx.all(sx.abs(x) < 10))
    True
    """

    def init(key: Array, shape: Sequence[int], dtype: Any = dtype, out_sharding: None = None) -> Array:
        _no_sharding(out_sharding)
        resolved = _resolve_dtype(dtype)
        samples = _random.truncated_normal(key, lower, upper, _resolve_shape(shape), resolved)
        return samples * _scalar(stddev, resolved, key)

    return init


def _compute_fans(shape: tuple, in_axis: Axes = -2, out_axis: Axes = -1, batch_axis: Axes = ()) -> tuple:
    """(fan_in, fan_out) of a weights shape: the input and output sizes times the receptive field's (the axes in none
    of `in_axis`, `out_axis`, `batch_axis`), as JAX computes them (floats)."""
    if isinstance(in_axis, int) and in_axis == -2 and len(shape) <= 1:
        raise ValueError(f"Can't compute input and output sizes of a {len(shape)}-dimensional weights tensor with "
                         "default in_axis. Must be at least 2D or specify in_axis explicitly.")

    def size(axes) -> int:
        return shape[axes] if isinstance(axes, int) else math.prod(shape[i] for i in axes)

    in_size, out_size, batch_size = size(in_axis), size(out_axis), size(batch_axis)
    receptive_field_size = math.prod(shape) / in_size / out_size / batch_size
    return in_size * receptive_field_size, out_size * receptive_field_size


_TRUNCATED_STDDEV = 0.8796256610342398  # the standard deviation of a standard normal truncated to (-2, 2)
_COMPLEX_TRUNCATED_STDDEV = 0.9531116438049121  # of a complex one whose modulus is truncated at 2


def _complex_part(dtype: DType) -> DType:
    return _dtypes.float32 if dtype is _dtypes.complex64 else _dtypes.float64


def _complex_uniform(key: Array, shape: tuple, dtype: DType) -> Array:
    """Uniform samples in the complex disk of mean 0 and variance 1 (JAX's construction)."""
    key_r, key_theta = _random.split(key)
    real_dtype = _complex_part(dtype)
    r = _data_type.astype(_transcendental.sqrt(2 * _random.uniform(key_r, shape, real_dtype)), dtype)
    theta = 2 * np.pi * _data_type.astype(_random.uniform(key_theta, shape, real_dtype), dtype)
    return r * _transcendental.exp(1j * theta)


def _complex_truncated_normal(key: Array, upper: float, shape: tuple, dtype: DType) -> Array:
    """Centred complex normal samples of variance 1 whose modulus is truncated at `upper` (JAX's construction)."""
    key_r, key_theta = _random.split(key)
    real_dtype = _complex_part(dtype)
    t = (1 - _transcendental.exp(_scalar(-upper ** 2, dtype, key))) * _data_type.astype(
        _random.uniform(key_r, shape, real_dtype), dtype)
    r = _transcendental.sqrt(-_transcendental.log(1 - t))
    theta = 2 * np.pi * _data_type.astype(_random.uniform(key_theta, shape, real_dtype), dtype)
    return r * _transcendental.exp(1j * theta)


_MODES = ("fan_in", "fan_out", "fan_avg", "fan_geo_avg")
_DISTRIBUTIONS = ("truncated_normal", "normal", "uniform")


def variance_scaling(scale: Any, mode: Literal["fan_in", "fan_out", "fan_avg", "fan_geo_avg"],
                     distribution: Literal["truncated_normal", "normal", "uniform"], in_axis: Axes = -2,
                     out_axis: Axes = -1, batch_axis: Axes = (), dtype: Any = None) -> Initializer:
    """An initializer whose samples have mean 0 and variance scale / n (`jax.nn.initializers.variance_scaling`).

    n is the number of inputs (`mode="fan_in"`), of outputs (`"fan_out"`), their mean (`"fan_avg"`) or geometric
    mean (`"fan_geo_avg"`), each times the receptive field's size (the axes not in `in_axis`, `out_axis` or
    `batch_axis`). `distribution`: a normal truncated at two standard deviations (rescaled to the variance), a
    normal, or a uniform interval (a uniform disk for complex dtypes).

    >>> import stridex as sx
    >>> init = sx.nn.initializers.variance_scaling(2.0, "fan_in", "normal")
    >>> init(sx.random.key(0), (64, 32)).shape
    (64, 32)
    """
    if mode not in _MODES:
        raise ValueError(f"invalid mode for variance scaling initializer: {mode}")
    if distribution not in _DISTRIBUTIONS:
        raise ValueError(f"invalid distribution for variance scaling initializer: {distribution}")

    def init(key: Array, shape: Sequence[int], dtype: Any = dtype, out_sharding: None = None) -> Array:
        _no_sharding(out_sharding)
        shape = _resolve_shape(shape)
        resolved = _resolve_dtype(dtype)
        fan_in, fan_out = _compute_fans(shape, in_axis, out_axis, batch_axis)
        denominator = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2,
                       "fan_geo_avg": (fan_in * fan_out) ** 0.5}[mode]
        variance = _scalar(scale / denominator, resolved, key)
        real = resolved.kind == "real floating"
        if distribution == "truncated_normal":
            if real:
                stddev = _transcendental.sqrt(variance) / _scalar(_TRUNCATED_STDDEV, resolved, key)
                return _random.truncated_normal(key, -2, 2, shape, resolved) * stddev
            stddev = _transcendental.sqrt(variance) / _scalar(_COMPLEX_TRUNCATED_STDDEV, resolved, key)
            return _complex_truncated_normal(key, 2, shape, resolved) * stddev
        if distribution == "normal":
            return _random.normal(key, shape, resolved) * _transcendental.sqrt(variance)
        if real:
            return _random.uniform(key, shape, resolved, -1) * _transcendental.sqrt(3 * variance)
        return _complex_uniform(key, shape, resolved) * _transcendental.sqrt(variance)

    return init


def glorot_uniform(in_axis: Axes = -2, out_axis: Axes = -1, batch_axis: Axes = (), dtype: Any = None) -> Initializer:
    """variance_scaling(1.0, "fan_avg", "uniform") (`jax.nn.initializers.glorot_uniform`, also `xavier_uniform`).

    >>> import stridex as sx
    >>> sx.nn.initializers.glorot_uniform()(sx.random.key(42), (2, 3), sx.float32).dtype
    stridex.float32
    """
    return variance_scaling(1.0, "fan_avg", "uniform", in_axis, out_axis, batch_axis, dtype)


def glorot_normal(in_axis: Axes = -2, out_axis: Axes = -1, batch_axis: Axes = (), dtype: Any = None) -> Initializer:
    """variance_scaling(1.0, "fan_avg", "truncated_normal") (`jax.nn.initializers.glorot_normal`, also
    `xavier_normal`).

    >>> import stridex as sx
    >>> sx.nn.initializers.glorot_normal()(sx.random.key(42), (2, 3)).shape
    (2, 3)
    """
    return variance_scaling(1.0, "fan_avg", "truncated_normal", in_axis, out_axis, batch_axis, dtype)


def lecun_uniform(in_axis: Axes = -2, out_axis: Axes = -1, batch_axis: Axes = (), dtype: Any = None) -> Initializer:
    """variance_scaling(1.0, "fan_in", "uniform") (`jax.nn.initializers.lecun_uniform`).

    >>> import stridex as sx
    >>> sx.nn.initializers.lecun_uniform()(sx.random.key(42), (2, 3)).shape
    (2, 3)
    """
    return variance_scaling(1.0, "fan_in", "uniform", in_axis, out_axis, batch_axis, dtype)


def lecun_normal(in_axis: Axes = -2, out_axis: Axes = -1, batch_axis: Axes = (), dtype: Any = None) -> Initializer:
    """variance_scaling(1.0, "fan_in", "truncated_normal") (`jax.nn.initializers.lecun_normal`).

    >>> import stridex as sx
    >>> sx.nn.initializers.lecun_normal()(sx.random.key(42), (2, 3)).shape
    (2, 3)
    """
    return variance_scaling(1.0, "fan_in", "truncated_normal", in_axis, out_axis, batch_axis, dtype)


def he_uniform(in_axis: Axes = -2, out_axis: Axes = -1, batch_axis: Axes = (), dtype: Any = None) -> Initializer:
    """variance_scaling(2.0, "fan_in", "uniform") (`jax.nn.initializers.he_uniform`, also `kaiming_uniform`).

    >>> import stridex as sx
    >>> sx.nn.initializers.he_uniform()(sx.random.key(42), (2, 3)).shape
    (2, 3)
    """
    return variance_scaling(2.0, "fan_in", "uniform", in_axis, out_axis, batch_axis, dtype)


def he_normal(in_axis: Axes = -2, out_axis: Axes = -1, batch_axis: Axes = (), dtype: Any = None) -> Initializer:
    """variance_scaling(2.0, "fan_in", "truncated_normal") (`jax.nn.initializers.he_normal`, also `kaiming_normal`).

    >>> import stridex as sx
    >>> sx.nn.initializers.he_normal()(sx.random.key(42), (2, 3)).shape
    (2, 3)
    """
    return variance_scaling(2.0, "fan_in", "truncated_normal", in_axis, out_axis, batch_axis, dtype)


xavier_uniform = glorot_uniform
xavier_normal = glorot_normal
kaiming_uniform = he_uniform
kaiming_normal = he_normal


def orthogonal(scale: Any = 1.0, column_axis: int = -1, dtype: Any = None) -> Initializer:
    """An initializer of (semi-)orthogonal matrices times `scale`: `column_axis` holds the columns, the other axes
    are flattened into rows; orthonormal rows or columns, whichever are fewer (`jax.nn.initializers.orthogonal`).

    >>> import stridex as sx
    >>> w = sx.nn.initializers.orthogonal()(sx.random.key(42), (3, 3))
    >>> bool(sx.all(sx.abs(w @ w.T - sx.eye(3)) < 1e-12))
    True
    """

    def init(key: Array, shape: Sequence[int], dtype: Any = dtype, out_sharding: None = None) -> Array:
        _no_sharding(out_sharding)
        shape = _resolve_shape(shape)
        resolved = _resolve_dtype(dtype)
        if len(shape) < 2:
            raise ValueError("orthogonal initializer requires at least a 2D shape")
        if any(d == 0 for d in shape):
            return _creation.zeros(shape, dtype=resolved)
        n_cols = shape[column_axis]
        n_rows = math.prod(shape) // n_cols
        q = _random.orthogonal(key, n_rows, (), resolved, n_cols)
        q = _manipulation.reshape(q, tuple(np.delete(np.array(shape), column_axis).tolist()) + (n_cols,))
        return _scalar(scale, resolved, key) * _manipulation.moveaxis(q, -1, column_axis)

    return init


def delta_orthogonal(scale: Any = 1.0, column_axis: int = -1, dtype: Any = None) -> Initializer:
    """An initializer of delta-orthogonal convolution kernels (`jax.nn.initializers.delta_orthogonal`): zeros but
    at the spatial centre, an orthogonal matrix of the last two axes. Shapes of 3, 4 or 5 axes, with at most as many
    inputs (axis -2) as outputs (axis -1).

    >>> import stridex as sx
    >>> w = sx.nn.initializers.delta_orthogonal()(sx.random.key(42), (3, 2, 2))
    >>> float(sx.sum(w[0] ** 2)), float(sx.sum(w[1] ** 2))
    (0.0, 2.0)
    """

    def init(key: Array, shape: Sequence[int], dtype: Any = dtype, out_sharding: None = None) -> Array:
        _no_sharding(out_sharding)
        shape = _resolve_shape(shape)
        resolved = _resolve_dtype(dtype)
        if len(shape) not in (3, 4, 5):
            raise ValueError("Delta orthogonal initializer requires a 3D, 4D or 5D shape.")
        if shape[-1] < shape[-2]:
            raise ValueError("`fan_in` must be less or equal than `fan_out`. ")
        matrix = orthogonal(scale=scale, column_axis=column_axis, dtype=resolved)(key, shape[-2:])
        weights = _creation.zeros(shape, dtype=resolved)
        weights[tuple((k - 1) // 2 for k in shape[:-2]) + (...,)] = matrix
        return weights

    return init
