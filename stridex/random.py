"""The `random` extension: JAX's splittable keys (threefry2x32) and samplers, with exactly `jax.random`'s bits.

A key is a `uint32` array of shape (2,), threefry2x32's key data: `key(seed)` and `PRNGKey(seed)` both return
one (JAX's `key` returns a typed key array; its `key_data` is this array). Keys are values: nothing is
global, the same key gives the same numbers, and a key is split (`split`, `fold_in`) to get new ones. Every
function binds one primitive of `stridex._lax.random`, which lowers to `jax.random`'s own function, so the
numbers are JAX's eagerly, on a device, under `jit`, `vmap`, `scan` and `grad`. Defaults follow stridex's:
float64 and int64 where no dtype is given, i.e. what `jax.random` gives under `jax.enable_x64(True)`; pass
`dtype=sx.float32` for the numbers JAX's default 32-bit mode gives.

>>> import stridex as sx
>>> k = sx.random.key(0)
>>> k1, k2 = sx.random.split(k)
>>> sx.random.uniform(k1, (2,), dtype=sx.float32).shape
(2,)
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence

import numpy as np

from stridex._api import creation_functions as _creation
from stridex._api import data_type_functions as _data_type
from stridex._api import indexing_functions as _indexing
from stridex._api import manipulation_functions as _manipulation
from stridex._core import dtypes as _dtypes
from stridex._core.array import Array
from stridex._core.dtypes import DType
from stridex._core.state import current_trace
from stridex._transforms.tracing import JitTrace
from stridex._core.view import normalize_axis
from stridex._lax import random as _p

__all__ = [
    "PRNGKey",
    "bernoulli",
    "beta",
    "categorical",
    "choice",
    "dirichlet",
    "exponential",
    "fold_in",
    "gamma",
    "gumbel",
    "key",
    "key_data",
    "laplace",
    "logistic",
    "multivariate_normal",
    "normal",
    "orthogonal",
    "permutation",
    "poisson",
    "randint",
    "split",
    "truncated_normal",
    "uniform",
    "wrap_key_data",
]

_FLOATING = (_dtypes.float16, _dtypes.bfloat16, _dtypes.float32, _dtypes.float64)
_INTEGER = _dtypes.INTEGER_DTYPES
_REAL_SCALARS = (int, float)


# --- arguments ---------------------------------------------------------------------------------------------


def _as_key(key, what: str) -> Array:
    """`key` checked to be one key: a uint32 array of shape (2,)."""
    if type(key) is Array and key._dtype is _dtypes.uint32 and key.shape == (2,):  # (the common case, first)
        return key
    key = _key_array(key, what)
    if key.shape != (2,):
        raise ValueError(f"random.{what}: expected one key, a uint32 array of shape (2,), got shape {key.shape}; "
                         "map over a batch of keys with sx.vmap")
    return key


def _key_array(key, what: str) -> Array:
    """`key` checked to be key data: a uint32 array of shape (..., 2)."""
    if not isinstance(key, Array):
        if type(key).__module__.startswith(("numpy", "jax", "jaxlib")) and getattr(key, "dtype", None) == np.uint32:
            key = _creation.asarray(key)
        else:
            raise TypeError(f"random.{what}: a key is a stridex uint32 array of shape (2,) (from sx.random.key or "
                            f"sx.random.PRNGKey; for a JAX key k, sx.asarray(jax.random.key_data(k))), got "
                            f"{type(key).__name__}")
    if key.dtype != _dtypes.uint32:
        raise TypeError(f"random.{what}: a key is a uint32 array of shape (2,), got dtype {key.dtype}; make keys "
                        "with sx.random.key or sx.random.PRNGKey")
    if key.ndim == 0 or key.shape[-1] != 2:
        raise ValueError(f"random.{what}: key data has shape (..., 2) (threefry2x32's two words), got shape "
                         f"{key.shape}")
    return key


def _shape(shape, what: str) -> tuple:
    if type(shape) is tuple and all(type(d) is int and d >= 0 for d in shape):  # (the common case, first)
        return shape
    if isinstance(shape, int) and not isinstance(shape, bool):
        return (shape,)
    try:
        dims = tuple(operator.index(d) for d in shape)
    except TypeError:
        raise TypeError(f"random.{what}: shape must be a tuple of ints, got {shape!r}") from None
    if any(d < 0 for d in dims):
        raise ValueError(f"random.{what}: shape must not have negative sizes, got {dims}")
    return dims


def _dtype(dtype, allowed: tuple, default: DType, kind: str, what: str) -> DType:
    if dtype is None:
        return default
    resolved = _dtypes.as_dtype(dtype)
    if resolved is None or resolved not in allowed:
        raise TypeError(f"random.{what}: dtype must be a {kind} dtype ({', '.join(d.name for d in allowed)}), got "
                        f"{getattr(dtype, 'name', dtype)!r}")
    return resolved


def _parameter(value, key: Array, what: str, name: str):
    """A distribution parameter: a Python int or float stays as it is (JAX receives it as a JAX user passes it);
    anything else (a NumPy scalar keeps its dtype, as in JAX) becomes an array on the key's device."""
    if type(value) in _REAL_SCALARS:
        return value
    if isinstance(value, bool):
        raise TypeError(f"random.{what}: {name} must be a real number or array, got a bool")
    if not isinstance(value, Array):
        value = _creation.asarray(value, device=key.device)
    if value.dtype.kind == "complex floating" or value.dtype is _dtypes.bool:
        raise TypeError(f"random.{what}: {name} must be real, got dtype {value.dtype}")
    return value


def _shape_of(value) -> tuple:
    return value.shape if isinstance(value, Array) else ()


def _broadcast(what: str, shapes: dict) -> tuple:
    try:
        return tuple(np.broadcast_shapes(*shapes.values()))
    except ValueError:
        described = ", ".join(f"{name} {shape}" for name, shape in shapes.items())
        raise ValueError(f"random.{what}: the parameters' shapes do not broadcast together: {described}") from None


def _shapes(parameters: dict) -> dict:
    return {name: _shape_of(v) for name, v in parameters.items()}


def _sample_shape(what: str, shape, shapes: dict) -> tuple:
    """The output shape: `shape`, which the parameters' `shapes` must broadcast to (their broadcast when None)."""
    batch = _broadcast(what, shapes)
    if shape is None:
        return batch
    shape = _shape(shape, what)
    try:
        fits = tuple(np.broadcast_shapes(shape, batch)) == shape
    except ValueError:
        fits = False
    if not fits:
        described = ", ".join(f"{name} {s}" for name, s in shapes.items())
        raise ValueError(f"random.{what}: shape {shape} does not broadcast with the parameters' shapes "
                         f"({described}): they must broadcast to {shape}")
    return shape


def _bind(name: str, key: Array, static: tuple, parameters: dict | None = None) -> Array:
    """Primitive `random_<name>` on `key` and the array parameters; Python scalar ones join `static` (as
    `Scalar`s: exact cache keys)."""
    if not parameters:
        return _p.RANDOM[name].bind(key, static=_p.Arguments(static), names=_KEY_ONLY, vmapped=())
    if name in _RUNTIME_SCALARS and not _staged():
        held = _RUNTIME_SCALARS[name]
        dtype = _dtypes.FROM_NUMPY[dict(static)["dtype"]] if isinstance(held, str) else held
        parameters = {n: _creation.asarray(v, dtype=dtype, device=key.device) if _held(name, v) else v
                      for n, v in parameters.items()}
    arrays = [v for v in parameters.values() if isinstance(v, Array)]
    static += tuple((n, _p.Scalar(v)) for n, v in parameters.items() if not isinstance(v, Array))
    names = ("key", *(n for n, v in parameters.items() if isinstance(v, Array)))
    return _p.RANDOM[name].bind(key, *arrays, static=_p.Arguments(static), names=names, vmapped=())


_KEY_ONLY = ("key",)
# Eagerly, JAX hands a sampler's Python scalar parameters to its jitted sampler as run-time arguments; under
# `jax.jit` they are constants. Where nothing stages the call (eagerly, under eager vmap and grad) they are
# arrays here too, for two reasons: one compiled sampler serves every value (`uniform(k, minval=v)` in a loop,
# `fold_in(key, step)`), and where a parameter goes through transcendental functions (log, erf, pow) XLA
# folds a constant with its own evaluator, so JAX's own eager and jit bits differ (float32 `gamma(k, 2.5)`
# differs in the last bit of some samples): eager stridex gives eager JAX's bits and `sx.jit` `jax.jit`'s.
# Each is held as JAX takes it: a floating sampler's parameter in the sample dtype ("sample": JAX converts it
# so first thing), `poisson`'s rate as it comes (float64), `bernoulli`'s float `p` as float64 (its dtype for a
# Python float), `randint`'s bounds as int64 (JAX clips them into the sample dtype itself) and `fold_in`'s data
# as uint32 (JAX's conversion of it). A value JAX would refuse or treat otherwise stays a constant
# (`_held`): an int `p`, a bound outside int64.
_RUNTIME_SCALARS: dict[str, _dtypes.DType | str | None] = {"truncated_normal": "sample", "gamma": "sample", "beta": "sample", "uniform": "sample",
                    "poisson": None, "bernoulli": _dtypes.float64, "randint": _dtypes.int64,
                    "fold_in": _dtypes.uint32}


def _held(name: str, value) -> bool:
    """Whether Python scalar parameter `value` of sampler `name` is passed as an array (see _RUNTIME_SCALARS)."""
    if type(value) not in _REAL_SCALARS:
        return False
    if name == "bernoulli":
        return type(value) is float
    if name == "randint":
        return -(2**63) <= value < 2**63
    return True


def _staged() -> bool:
    """Whether this call is being staged into a program (`sx.jit`, a loop body): a jit trace in the stack of
    traces. Eager `vmap` and `grad` run the sampler now, as JAX's eager `vmap` and `grad` do."""
    trace = current_trace()
    while trace is not None:
        if isinstance(trace, JitTrace):
            return True
        trace = trace.parent
    return False


def _floating_parameters(parameters: dict, dtype: DType) -> dict:
    """Integer and boolean parameter arrays as `dtype` (JAX converts them so too): what carries a derivative."""
    return {n: _data_type.astype(v, dtype) if isinstance(v, Array) and not _dtypes.is_floating(v.dtype) else v
            for n, v in parameters.items()}


# --- keys --------------------------------------------------------------------------------------------------


def key(seed: int | Array, *, impl: str | None = None) -> Array:
    """A key made from an integer seed: threefry2x32's key data, a uint32 array of shape (2,).

    The seed is an int64 (an integer array keeps its dtype): the key is `jax.random.key_data(jax.random.key(seed))`
    with JAX's 64-bit types on (for seeds outside [0, 2**31) JAX's default 32-bit mode differs).

    >>> import stridex as sx
    >>> sx.random.key(42)
    Array([ 0, 42], dtype=uint32)
    """
    if impl not in (None, "threefry2x32"):
        raise ValueError(f"random.key: stridex implements only the threefry2x32 generator, got impl={impl!r}")
    if isinstance(seed, bool) or (isinstance(seed, Array) and seed.dtype is _dtypes.bool):
        raise TypeError("random.key: the seed must be an integer, got a bool")
    if isinstance(seed, (int, np.integer)):
        seed = int(seed)
        if not -(2**63) <= seed < 2**63:
            raise ValueError(f"random.key: the seed must fit in int64, got {seed}")
        seed = _creation.asarray(seed, dtype=_dtypes.int64)
    elif not isinstance(seed, Array):
        raise TypeError(f"random.key: the seed must be an integer or an integer array, got {type(seed).__name__}")
    if seed.dtype not in _INTEGER:
        raise TypeError(f"random.key: the seed must be an integer, got dtype {seed.dtype}")
    if seed.ndim:
        raise ValueError(f"random.key: the seed must be a scalar, got shape {seed.shape}")
    return _p.RANDOM["seed"].bind(seed, static=_p.Arguments(()), names=("seed",), vmapped=())


def PRNGKey(seed: int | Array, *, impl: str | None = None) -> Array:
    """The same as `key`: JAX's legacy name, whose keys are this key data.

    >>> import stridex as sx
    >>> bool(sx.all(sx.random.PRNGKey(3) == sx.random.key(3)))
    True
    """
    return key(seed, impl=impl)


def split(key: Array, num: int | tuple[int, ...] = 2) -> Array:
    """`num` new keys from `key` (shape (num, 2); (*num, 2) for a tuple), as `jax.random.split` makes them.

    >>> import stridex as sx
    >>> sx.random.split(sx.random.key(0), 3).shape
    (3, 2)
    """
    key = _as_key(key, "split")
    num = _shape(num, "split") if not isinstance(num, int) else operator.index(num)
    if isinstance(num, int) and num < 0:
        raise ValueError(f"random.split: num must not be negative, got {num}")
    return _bind("split", key, (("num", num),))


def fold_in(key: Array, data: int | Array) -> Array:
    """A new key from `key` and an integer `data` (taken as uint32), as `jax.random.fold_in` makes it.

    >>> import stridex as sx
    >>> sx.random.fold_in(sx.random.key(0), 7).shape
    (2,)
    """
    key = _as_key(key, "fold_in")
    if isinstance(data, (bool, float)) or (isinstance(data, Array) and data.dtype not in _INTEGER):
        raise TypeError(f"random.fold_in: data must be an integer, got {getattr(data, 'dtype', type(data).__name__)}")
    if isinstance(data, (int, np.integer)):
        data = int(data)
        if not 0 <= data < 2**32:
            raise ValueError(f"random.fold_in: data must be in [0, 2**32) (it is taken as uint32), got {data}")
    return _bind("fold_in", key, (), {"data": _parameter(data, key, "fold_in", "data")})


def key_data(keys: Array) -> Array:
    """The key data of `keys`: stridex keys are their data (uint32, shape (..., 2)), so `keys` itself.

    >>> import stridex as sx
    >>> sx.random.key_data(sx.random.key(1))
    Array([0, 1], dtype=uint32)
    """
    return _key_array(keys, "key_data")


def wrap_key_data(key_bits_array: Array, *, impl: str | None = None) -> Array:
    """Keys from key data (uint32, shape (..., 2)): stridex keys are their data, so the array itself, checked.

    >>> import stridex as sx
    >>> k = sx.random.wrap_key_data(sx.asarray([0, 5], dtype=sx.uint32))
    >>> sx.random.normal(k).shape
    ()
    """
    if impl not in (None, "threefry2x32"):
        raise ValueError(f"random.wrap_key_data: stridex implements only threefry2x32, got impl={impl!r}")
    return _key_array(key_bits_array, "wrap_key_data")


# --- continuous samplers -----------------------------------------------------------------------------------


def _plain(name: str, key, shape, dtype, extra: tuple = ()) -> Array:
    """A sampler of the key alone: its `Arguments` are kept per (name, shape, dtype, extra), which spares
    building and hashing them on every eager call."""
    key = _as_key(key, name)
    shape = _shape(shape, name)
    cacheable = dtype is None or type(dtype) is DType  # (keys that compare equal only to themselves)
    arguments = _PLAIN.get((name, shape, dtype, extra)) if cacheable else None
    if arguments is None:
        if name == "normal":  # (JAX's normal also draws complex samples: real and imaginary parts of variance 1/2)
            resolved = _dtype(dtype, _FLOATING + _dtypes.COMPLEX_DTYPES, _dtypes.float64, "floating-point", name)
        else:
            resolved = _dtype(dtype, _FLOATING, _dtypes.float64, "real floating", name)
        arguments = _p.Arguments((("shape", shape), ("dtype", resolved.np), *extra))
        if cacheable and len(_PLAIN) < 4096:
            _PLAIN[(name, shape, dtype, extra)] = arguments
    return _p.RANDOM[name].bind(key, static=arguments, names=_KEY_ONLY, vmapped=())


_PLAIN: dict = {}  # (name, shape, dtype, extra) -> Arguments


def uniform(key: Array, shape: Sequence[int] = (), dtype: DType | None = None, minval: float | Array = 0.0,
            maxval: float | Array = 1.0) -> Array:
    """Uniform samples in [minval, maxval) (float64 unless `dtype` says otherwise).

    >>> import stridex as sx
    >>> x = sx.random.uniform(sx.random.key(0), (3,), minval=-1.0, maxval=1.0)
    >>> bool(sx.all((x >= -1) & (x < 1)))
    True
    """
    key = _as_key(key, "uniform")
    dtype = _dtype(dtype, _FLOATING, _dtypes.float64, "real floating", "uniform")
    parameters = {"minval": _parameter(minval, key, "uniform", "minval"),
                  "maxval": _parameter(maxval, key, "uniform", "maxval")}
    shape = _sample_shape("uniform", _shape(shape, "uniform"), _shapes(parameters))
    return _bind("uniform", key, (("shape", shape), ("dtype", dtype.np)), _floating_parameters(parameters, dtype))


def normal(key: Array, shape: Sequence[int] = (), dtype: DType | None = None) -> Array:
    """Standard normal samples (for a complex `dtype`, complex ones of variance 1, as JAX's).

    >>> import stridex as sx
    >>> sx.random.normal(sx.random.key(0), (2, 3)).shape
    (2, 3)
    """
    return _plain("normal", key, shape, dtype)


def exponential(key: Array, shape: Sequence[int] = (), dtype: DType | None = None) -> Array:
    """Exponential samples (rate 1).

    >>> import stridex as sx
    >>> bool(sx.all(sx.random.exponential(sx.random.key(0), (5,)) >= 0))
    True
    """
    return _plain("exponential", key, shape, dtype)


def gumbel(key: Array, shape: Sequence[int] = (), dtype: DType | None = None, mode: str | None = None) -> Array:
    """Standard Gumbel samples (`mode` "low" or "high" as in JAX).

    >>> import stridex as sx
    >>> sx.random.gumbel(sx.random.key(0), (4,)).shape
    (4,)
    """
    return _plain("gumbel", key, shape, dtype, (("mode", mode),))


def laplace(key: Array, shape: Sequence[int] = (), dtype: DType | None = None) -> Array:
    """Standard Laplace samples.

    >>> import stridex as sx
    >>> sx.random.laplace(sx.random.key(0), (4,)).dtype
    stridex.float64
    """
    return _plain("laplace", key, shape, dtype)


def logistic(key: Array, shape: Sequence[int] = (), dtype: DType | None = None) -> Array:
    """Standard logistic samples.

    >>> import stridex as sx
    >>> sx.random.logistic(sx.random.key(0), (4,), dtype=sx.float32).dtype
    stridex.float32
    """
    return _plain("logistic", key, shape, dtype)


def orthogonal(key: Array, n: int, shape: Sequence[int] = (), dtype: DType | None = None,
               m: int | None = None) -> Array:
    """Matrices drawn uniformly from the orthogonal group O(n) (the unitary group for a complex `dtype`), of shape
    `shape + (n, m)`; with m != n, semi-orthogonal (orthonormal rows or columns, whichever are fewer). JAX's own
    sampler (a QR decomposition of normal samples), so the bits are `jax.random.orthogonal`'s.

    >>> import stridex as sx
    >>> q = sx.random.orthogonal(sx.random.key(0), 3)
    >>> bool(sx.all(sx.abs(q @ q.T - sx.eye(3)) < 1e-12))
    True
    """
    key = _as_key(key, "orthogonal")
    rows, columns = (_count(v, "orthogonal", name) for v, name in ((n, "n"), (n if m is None else m, "m")))
    dtype = _dtype(dtype, _FLOATING + _dtypes.COMPLEX_DTYPES, _dtypes.float64, "floating-point", "orthogonal")
    return _bind("orthogonal", key, (("n", rows), ("shape", _shape(shape, "orthogonal")), ("dtype", dtype.np),
                                     ("m", columns)))


def _count(value, what: str, name: str) -> int:
    """A non-negative Python int argument (a concrete size)."""
    try:
        count = operator.index(value)
    except TypeError:
        raise TypeError(f"random.{what}: {name} must be a concrete integer, got {value!r}") from None
    if count < 0:
        raise ValueError(f"random.{what}: {name} must be non-negative, got {count}")
    return count


def _with_parameters(name: str, key, parameters: dict, shape, dtype) -> Array:
    key = _as_key(key, name)
    dtype = _dtype(dtype, _FLOATING, _dtypes.float64, "real floating", name)
    parameters = {n: _parameter(v, key, name, n) for n, v in parameters.items()}
    shape = _sample_shape(name, shape, _shapes(parameters))
    return _bind(name, key, (("shape", shape), ("dtype", dtype.np)), _floating_parameters(parameters, dtype))


def truncated_normal(key: Array, lower: float | Array, upper: float | Array, shape: Sequence[int] | None = None,
                     dtype: DType | None = None) -> Array:
    """Standard normal samples truncated to (lower, upper).

    >>> import stridex as sx
    >>> x = sx.random.truncated_normal(sx.random.key(0), -1.0, 1.0, (100,))
    >>> bool(sx.all((x > -1) & (x < 1)))
    True
    """
    return _with_parameters("truncated_normal", key, {"lower": lower, "upper": upper}, shape, dtype)


def gamma(key: Array, a: float | Array, shape: Sequence[int] | None = None, dtype: DType | None = None) -> Array:
    """Gamma samples of shape parameter `a` (differentiable in `a`, as in JAX).

    >>> import stridex as sx
    >>> sx.random.gamma(sx.random.key(0), sx.asarray([0.5, 2.0])).shape
    (2,)
    """
    return _with_parameters("gamma", key, {"a": a}, shape, dtype)


def beta(key: Array, a: float | Array, b: float | Array, shape: Sequence[int] | None = None,
         dtype: DType | None = None) -> Array:
    """Beta(a, b) samples.

    >>> import stridex as sx
    >>> x = sx.random.beta(sx.random.key(0), 2.0, 3.0, (10,))
    >>> bool(sx.all((x >= 0) & (x <= 1)))
    True
    """
    return _with_parameters("beta", key, {"a": a, "b": b}, shape, dtype)


def dirichlet(key: Array, alpha: Array, shape: Sequence[int] | None = None, dtype: DType | None = None) -> Array:
    """Dirichlet samples over `alpha`'s last axis: shape `shape + alpha.shape[-1:]`.

    >>> import stridex as sx
    >>> sx.random.dirichlet(sx.random.key(0), sx.asarray([1.0, 2.0, 3.0]), (4,)).shape
    (4, 3)
    """
    key = _as_key(key, "dirichlet")
    dtype = _dtype(dtype, _FLOATING, _dtypes.float64, "real floating", "dirichlet")
    alpha = _parameter(alpha, key, "dirichlet", "alpha")
    if not isinstance(alpha, Array) or alpha.ndim < 1:
        raise ValueError(f"random.dirichlet: alpha must have at least one axis, got shape {_shape_of(alpha)}")
    shape = _sample_shape("dirichlet", shape, {"alpha[..., 0]": alpha.shape[:-1]})
    return _bind("dirichlet", key, (("shape", shape), ("dtype", dtype.np)),
                 _floating_parameters({"alpha": alpha}, dtype))


def multivariate_normal(key: Array, mean: Array, cov: Array, shape: Sequence[int] | None = None,
                        dtype: DType | None = None, method: str = "cholesky") -> Array:
    """Multivariate normal samples: shape `shape + mean.shape[-1:]`; `method` "cholesky", "eigh" or "svd".

    >>> import stridex as sx
    >>> sx.random.multivariate_normal(sx.random.key(0), sx.zeros(2), sx.eye(2), (5,)).shape
    (5, 2)
    """
    key = _as_key(key, "multivariate_normal")
    dtype = _dtype(dtype, _FLOATING, _dtypes.float64, "real floating", "multivariate_normal")
    if method not in ("cholesky", "eigh", "svd"):
        raise ValueError(f"random.multivariate_normal: method must be 'cholesky', 'eigh' or 'svd', got {method!r}")
    mean = _parameter(mean, key, "multivariate_normal", "mean")
    cov = _parameter(cov, key, "multivariate_normal", "cov")
    if not isinstance(mean, Array) or mean.ndim < 1:
        raise ValueError(f"random.multivariate_normal: mean must have at least one axis, got shape {_shape_of(mean)}")
    n = mean.shape[-1]
    if not isinstance(cov, Array) or cov.ndim < 2 or cov.shape[-2:] != (n, n):
        raise ValueError(f"random.multivariate_normal: cov must have shape (..., {n}, {n}) for mean of shape "
                         f"{mean.shape}, got shape {_shape_of(cov)}")
    shape = _sample_shape("multivariate_normal", shape,
                          {"mean[..., 0]": mean.shape[:-1], "cov[..., 0, 0]": cov.shape[:-2]})
    return _bind("multivariate_normal", key, (("shape", shape), ("dtype", dtype.np), ("method", method)),
                 _floating_parameters({"mean": mean, "cov": cov}, dtype))


# --- discrete samplers -------------------------------------------------------------------------------------


def bernoulli(key: Array, p: float | Array = 0.5, shape: Sequence[int] | None = None, mode: str = "low") -> Array:
    """Booleans, True with probability `p` (drawn in p's floating dtype: float64 for a Python float).

    >>> import stridex as sx
    >>> sx.random.bernoulli(sx.random.key(0), 0.3, (4,)).dtype
    stridex.bool
    """
    key = _as_key(key, "bernoulli")
    p = _parameter(p, key, "bernoulli", "p")
    if isinstance(p, Array) and not _dtypes.is_floating(p.dtype):
        p = _data_type.astype(p, _dtypes.float64)
    shape = _sample_shape("bernoulli", shape, _shapes({"p": p}))
    return _bind("bernoulli", key, (("shape", shape), ("mode", mode)), {"p": p})


def randint(key: Array, shape: Sequence[int], minval: int | Array, maxval: int | Array,
            dtype: DType | None = None) -> Array:
    """Integers in [minval, maxval) (int64 unless `dtype` says otherwise).

    >>> import stridex as sx
    >>> x = sx.random.randint(sx.random.key(0), (5,), 0, 10)
    >>> bool(sx.all((x >= 0) & (x < 10)))
    True
    """
    key = _as_key(key, "randint")
    dtype = _dtype(dtype, _INTEGER, _dtypes.int64, "integer", "randint")
    parameters = {"minval": _parameter(minval, key, "randint", "minval"),
                  "maxval": _parameter(maxval, key, "randint", "maxval")}
    for name, value in parameters.items():
        if isinstance(value, float) or (isinstance(value, Array) and value.dtype not in _INTEGER):
            raise TypeError(f"random.randint: {name} must be an integer, got "
                            f"{getattr(value, 'dtype', type(value).__name__)}")
    shape = _sample_shape("randint", _shape(shape, "randint"), _shapes(parameters))
    return _bind("randint", key, (("shape", shape), ("dtype", dtype.np)), parameters)


def poisson(key: Array, lam: float | Array, shape: Sequence[int] | None = None, dtype: DType | None = None) -> Array:
    """Poisson samples of rate `lam` (int64 unless `dtype` says otherwise).

    >>> import stridex as sx
    >>> sx.random.poisson(sx.random.key(0), 3.0, (4,)).dtype
    stridex.int64
    """
    key = _as_key(key, "poisson")
    dtype = _dtype(dtype, _INTEGER, _dtypes.int64, "integer", "poisson")
    parameters = {"lam": _parameter(lam, key, "poisson", "lam")}
    shape = _sample_shape("poisson", shape, _shapes(parameters))
    return _bind("poisson", key, (("shape", shape), ("dtype", dtype.np)), parameters)


def categorical(key: Array, logits: Array, axis: int = -1, shape: Sequence[int] | None = None,
                replace: bool = True, mode: str | None = None) -> Array:
    """Indices drawn along `axis` with probabilities softmax(logits) (without replacement: `replace=False`).

    >>> import stridex as sx
    >>> sx.random.categorical(sx.random.key(0), sx.asarray([0.0, 1.0, 2.0]), shape=(4,)).shape
    (4,)
    """
    key = _as_key(key, "categorical")
    logits = _parameter(logits, key, "categorical", "logits")
    if not isinstance(logits, Array) or logits.ndim < 1:
        raise ValueError(f"random.categorical: logits must have at least one axis, got shape {_shape_of(logits)}")
    axis = normalize_axis(axis, logits.ndim)
    batch = logits.shape[:axis] + logits.shape[axis + 1:]
    if shape is not None:
        shape = _shape(shape, "categorical")
        try:
            fits = tuple(np.broadcast_shapes(shape, batch)) == shape
        except ValueError:
            fits = False
        if not fits:
            raise ValueError(f"random.categorical: shape {shape} does not broadcast with the logits' batch shape "
                             f"{batch} (logits of shape {logits.shape} without axis {axis})")
        if not replace and math.prod(shape[: len(shape) - len(batch)]) > logits.shape[axis]:
            raise ValueError(f"random.categorical: cannot draw {math.prod(shape[: len(shape) - len(batch)])} "
                             f"categories without replacement from {logits.shape[axis]}")
    return _bind("categorical", key, (("axis", axis), ("shape", shape), ("replace", replace), ("mode", mode)),
                 {"logits": logits})


def _take(a: Array, indices: Array, axis: int) -> Array:
    """`a` gathered along `axis` at `indices` of any shape (jnp.take's result shape)."""
    flat = _manipulation.reshape(indices, (-1,))
    taken = _indexing.take(a, flat, axis=axis)
    return _manipulation.reshape(taken, a.shape[:axis] + indices.shape + a.shape[axis + 1:])


def choice(key: Array, a: int | Array, shape: Sequence[int] = (), replace: bool = True, p: Array | None = None,
           axis: int = 0, mode: str | None = None) -> Array:
    """Samples from `a` (an array, along `axis`; an int n for range(n)), with or without replacement, uniformly
    or with probabilities `p`.

    >>> import stridex as sx
    >>> sx.random.choice(sx.random.key(0), 5, (3,), replace=False).shape
    (3,)
    """
    key = _as_key(key, "choice")
    shape = _shape(shape, "choice")
    if isinstance(a, Array) and a.ndim == 0:
        a = int(a)
    if isinstance(a, bool) or not isinstance(a, (int, np.integer, Array)):
        a = _creation.asarray(a, device=key.device)
    if isinstance(a, Array):
        axis = normalize_axis(axis, a.ndim)
        n = a.shape[axis]
    else:
        n = int(a)
    draws = math.prod(shape)
    if draws and n <= 0:
        raise ValueError(f"random.choice: there is nothing to choose from (a population of {n})")
    if not replace and draws > n:
        raise ValueError(f"random.choice: cannot take {draws} samples (shape {shape}) without replacement from a "
                         f"population of {n}")
    parameters = {}
    if p is not None:
        p = _parameter(p, key, "choice", "p")
        if _shape_of(p) != (n,):
            raise ValueError(f"random.choice: p must have shape ({n},), one probability per element of a "
                             f"(along axis {axis}), got shape {_shape_of(p)}")
        parameters["p"] = p if _dtypes.is_floating(p.dtype) else _data_type.astype(p, _dtypes.float64)
    if isinstance(a, Array) and not draws:
        # Note: jax.random.choice returns `shape` itself (not a.shape[:axis] + shape + a.shape[axis + 1:]) when it
        # draws nothing; followed, so that results keep JAX's shapes.
        return _creation.empty(shape, dtype=a.dtype, device=a.device)
    indices = _bind("choice", key, (("a", n), ("shape", shape), ("replace", replace), ("mode", mode)), parameters)
    return indices if not isinstance(a, Array) else _take(a, indices, axis)


def permutation(key: Array, x: int | Array, axis: int = 0, independent: bool = False) -> Array:
    """A random permutation of range(x) for an int `x`, else of `x` along `axis` (each slice on its own with
    `independent=True`).

    >>> import stridex as sx
    >>> sorted(int(i) for i in sx.random.permutation(sx.random.key(0), 4))
    [0, 1, 2, 3]
    """
    key = _as_key(key, "permutation")
    if isinstance(x, Array) and x.ndim == 0:
        x = int(x)
    if isinstance(x, bool) or not isinstance(x, (int, np.integer, Array)):
        x = _creation.asarray(x, device=key.device)
    if not isinstance(x, Array):
        if int(x) < 0:
            raise ValueError(f"random.permutation: x must be a non-negative int or an array, got {x}")
        return _bind("permutation", key, (("x", int(x)),))
    axis = normalize_axis(axis, x.ndim)
    if independent and x.ndim > 1:
        # The sort keys depend on x's shape alone: shuffling positions gives the indices the values follow.
        positions = _creation.arange(x.shape[axis], dtype=_dtypes.int64, device=key.device)
        positions = _manipulation.broadcast_to(
            _manipulation.reshape(positions, (x.shape[axis],) + (1,) * (x.ndim - 1 - axis)), x.shape)
        indices = _bind("permutation", key, (("axis", axis), ("independent", True)), {"x": positions})
        return _indexing.take_along_axis(x, indices, axis=axis)
    return _take(x, _bind("permutation", key, (("x", x.shape[axis]),)), axis)
