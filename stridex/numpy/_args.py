"""Arguments as jax.numpy takes them: array-likes (arrays, NumPy arrays, scalars) converted, promoted by JAX's
lattice, axes normalised. Every stridex.numpy function reads its arguments through these."""

from __future__ import annotations

import builtins
import functools
import inspect
import operator

import numpy as np

from stridex._api import creation_functions as _cr
from stridex._api import data_type_functions as _dt
from stridex._core import dtypes as _d
from stridex._core.array import Array
from stridex._core.dtypes import DType
from stridex._exec import placement as _placement
from stridex._transforms.tracing import weak_scalar_example
from stridex.numpy import _dtypes

PY_SCALARS = (builtins.bool, int, float, complex)


def array(x, fname: str, position: int = 0) -> Array:
    """`x` as an Array: an Array as it is, a NumPy array or scalar shared or converted, a Python scalar as a 0-D
    array of its default dtype. Lists and other objects are a TypeError, as in jax.numpy (whose functions take
    arrays and scalars; `jnp.array`/`jnp.asarray` convert sequences)."""
    if isinstance(x, Array):
        return x
    if isinstance(x, (np.ndarray, np.generic, *PY_SCALARS)) or hasattr(x, "__dlpack__") or hasattr(x, "__array__"):
        return _cr.asarray(x)  # (NumPy's and other libraries' arrays: shared where they can be)
    raise _not_array_like(x, fname, position)


def _not_array_like(x, fname: str, position: int) -> TypeError:
    return TypeError(f"{fname} requires ndarray or scalar arguments, got {type(x).__name__} at position {position}; "
                     "convert a sequence with stridex.numpy.asarray first")


def operand(x, fname: str, position: int = 0):
    """`x` for an elementwise operation: a Python scalar stays a (weak) Python scalar, a NumPy scalar becomes the
    Python scalar of its value unless its dtype must be kept, anything else an Array."""
    if isinstance(x, Array) or type(x) in PY_SCALARS:
        return x
    if isinstance(x, PY_SCALARS) and not isinstance(x, np.generic):
        kind: type = next(t for t in PY_SCALARS if isinstance(x, t))
        return kind(x)  # (a subclass of a Python scalar type)
    return array(x, fname, position)


def _split(ops) -> tuple[list, list]:
    """(the dtypes of the strong operands, the Python types of the weak ones). A Python scalar argument of a
    jitted function is a traced value, weakly typed: it promotes as the Python scalar it stands for."""
    strong, weak = [], []
    for a in ops:
        if isinstance(a, Array):
            example = weak_scalar_example(a)
            if example is None:
                strong.append(a._dtype)
            else:
                weak.append(type(example))
        else:
            weak.append(type(a))
    return strong, weak


def dtype_of(x) -> DType:
    if isinstance(x, Array):
        return x._dtype
    return _dtypes.result_of([], [type(x)])


def cast(x, dtype: DType):
    """`x` (an Array or a Python scalar) as an array of `dtype`; an array already of it as it is."""
    if isinstance(x, Array):
        return x if x._dtype is dtype else _dt.astype(x, dtype)
    return _cr.asarray(x, dtype=dtype)


def promote(fname: str, *args, to_inexact: builtins.bool = False, to_numeric: builtins.bool = False,
            keep_scalars: builtins.bool = False) -> list:
    """The arguments converted and promoted to one dtype by JAX's rules (then to an inexact or numeric dtype if
    asked: the dtype jax.numpy computes such a function in). Python scalars are weak and, with `keep_scalars`,
    stay Python scalars when the result is of their kind (stridex's binary functions take them weakly too)."""
    ops = [operand(a, fname, i) for i, a in enumerate(args)]
    out = _dtypes.result_of(*_split(ops))
    if to_inexact:
        out = _dtypes.TO_INEXACT[out]
    elif to_numeric:
        out = _dtypes.TO_NUMERIC[out]
    if keep_scalars:
        return [a if _scalar_fits(a, out) else cast(a, out) for a in ops]
    return [cast(a, out) for a in ops]


def _scalar_fits(value, dtype: DType) -> builtins.bool:
    """Whether stridex's binary functions, given `value` (a Python scalar, or a weak traced one) with an array of
    `dtype`, give `dtype`: then it is passed as it is, weak."""
    if isinstance(value, Array):
        value = weak_scalar_example(value)
        if value is None:
            return False
    if dtype is _d.bool:
        return isinstance(value, builtins.bool)
    if dtype.kind in ("signed", "unsigned"):
        return isinstance(value, (builtins.bool, int))
    if dtype.kind == "real floating":
        return not isinstance(value, complex)
    return True


def promoted_dtype(fname: str, *args, to_inexact: builtins.bool = False) -> DType:
    ops = [operand(a, fname, i) for i, a in enumerate(args) if a is not None]
    out = _dtypes.result_of(*_split(ops))
    return _dtypes.TO_INEXACT[out] if to_inexact else out


def inexact(x, fname: str, position: int = 0) -> Array:
    """`x` as an array of the inexact dtype jax.numpy computes it in (integers and bool to float32/float64)."""
    x = array(x, fname, position)
    return cast(x, _dtypes.TO_INEXACT[x._dtype])


def index(value, fname: str, what: str) -> int:
    """A static integer argument (a Python int, a NumPy integer, a 0-D integer array's value)."""
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{fname}: {what} must be an integer, got {type(value).__name__} {value!r}") from None


def axis(value, ndim: int, fname: str, what: str = "axis") -> int:
    """A normalised axis in [0, ndim), or an AxisError-style ValueError naming it."""
    ax = index(value, fname, what)
    if not -ndim <= ax < ndim:
        # NumPy's AxisError: a ValueError (jax.numpy's class) and an IndexError (the standard's functions') both.
        raise np.exceptions.AxisError(f"{fname}: {what} {ax} is out of bounds for an array of dimension {ndim}")
    return ax % ndim if ndim else 0


def axes(value, ndim: int, fname: str, what: str = "axis") -> tuple[int, ...]:
    """A tuple of normalised, distinct axes (None: all of them)."""
    if value is None:
        return tuple(range(ndim))
    items = tuple(value) if isinstance(value, (tuple, list)) else (value,)
    out = tuple(axis(a, ndim, fname, what) for a in items)
    if len(set(out)) != len(out):
        raise ValueError(f"{fname}: repeated {what} in {value!r}")
    return out


def no_out(out, fname: str) -> None:
    """jax.numpy's `out=` exists for NumPy's signatures and takes only None (JAX's arrays are immutable)."""
    if out is not None:
        raise NotImplementedError(f"The 'out' argument to {fname} is not supported: stridex.numpy's functions "
                                  "return new arrays; write the result with x[...] = result")


def shape_tuple(shape, fname: str) -> tuple[int, ...]:
    """A shape given as an int or a sequence of ints."""
    if isinstance(shape, (tuple, list)):
        return tuple(index(s, fname, "shape entry") for s in shape)
    return (index(shape, fname, "shape"),)


def placed(fn):
    """`fn`, run with the default device set to its array arguments' device when they live on a JAX device (the
    arrays it makes from nothing on the way, constants and index arrays, must live beside them); on the host, a
    direct call. Arrays inside sequence arguments (`concatenate([x, y])`) count too."""

    @functools.wraps(fn)
    def on_their_device(*args, **kwargs):
        for value in (args if not kwargs else (*args, *kwargs.values())):
            if isinstance(value, Array):
                if not value._storage.is_host:
                    break
            elif isinstance(value, (list, tuple)) and value and any(
                    isinstance(v, Array) and not v._storage.is_host for v in value):
                break
        else:
            return fn(*args, **kwargs)
        with _placement.placing([*args, *kwargs.values(), *(v for value in args if isinstance(value, (list, tuple))
                                                         for v in value)]):
            return fn(*args, **kwargs)

    return on_their_device


def place_all(namespace: dict, names) -> None:
    """Wrap each function among `names` in `namespace` with `placed` (the public functions of a module)."""
    for name in names:
        value = namespace[name]
        if inspect.isfunction(value):
            namespace[name] = placed(value)
