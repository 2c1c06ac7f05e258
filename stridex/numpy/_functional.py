"""Functions of functions with jax.numpy's names: `vectorize` (NumPy's generalised-ufunc signatures, built on
stridex's `vmap`), `apply_along_axis` and `apply_over_axes`; printing options and `astype`."""

from __future__ import annotations

import builtins
import functools
import re
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from stridex._api import data_type_functions as _dt
from stridex._api import manipulation_functions as _manip
from stridex._core.array import Array
from stridex.numpy import _args
from stridex.numpy import _dtypes as _jd

__all__ = ["apply_along_axis", "apply_over_axes", "array_repr", "array_str", "astype", "get_printoptions", "load",
           "printoptions", "save", "savez", "set_printoptions", "vectorize"]

# Arrays print through NumPy, so NumPy's print options are stridex's, as they are jax.numpy's.
printoptions = np.printoptions
set_printoptions = np.set_printoptions
get_printoptions = np.get_printoptions


# Saving goes through NumPy (which reads a stridex array through `__array__`), as in jax.numpy.
save = np.save
savez = np.savez


def load(file: Any, *args: Any, **kwargs: Any) -> Any:
    """`numpy.load`, with an array read from a .npy file returned as a stridex array (an .npz archive comes back
    as NumPy's `NpzFile`).

    >>> import io, numpy as np, stridex.numpy as jnp
    >>> buffer = io.BytesIO()
    >>> jnp.save(buffer, jnp.arange(3)); _ = buffer.seek(0)
    >>> jnp.load(buffer)
    Array([0, 1, 2])
    """
    out = np.load(file, *args, **kwargs)
    return _args.array(out, "load") if isinstance(out, np.ndarray) and out.dtype != object else out


def array_repr(arr: Any, max_line_width: int | None = None, precision: int | None = None,
               suppress_small: builtins.bool | None = None) -> str:
    """NumPy's `array_repr` of the array's values.

    >>> import stridex.numpy as jnp
    >>> jnp.array_repr(jnp.asarray([1.5, 2.0]))
    'array([1.5, 2. ])'
    """
    return np.array_repr(np.asarray(_args.array(arr, "array_repr")), max_line_width, precision, suppress_small)


def array_str(a: Any, max_line_width: int | None = None, precision: int | None = None,
              suppress_small: builtins.bool | None = None) -> str:
    """NumPy's `array_str` of the array's values.

    >>> import stridex.numpy as jnp
    >>> jnp.array_str(jnp.asarray([1.5, 2.0]))
    '[1.5 2. ]'
    """
    return np.array_str(np.asarray(_args.array(a, "array_str")), max_line_width, precision, suppress_small)


def astype(x: Any, dtype: Any, /, *, copy: builtins.bool = False, device: Any = None) -> Array:
    """`x` converted to `dtype` (jax.numpy's default `copy=False`: the array itself when it has the dtype).

    >>> import stridex.numpy as jnp
    >>> jnp.astype(jnp.asarray([1.7, -2.2]), "int32")
    Array([ 1, -2], dtype=int32)
    """
    return _dt.astype(_args.array(x, "astype"), _jd.canonical(dtype, "astype"), copy=copy, device=device)


# --- vectorize ----------------------------------------------------------------------------------------

_DIMENSION = r"\w+"
_CORE_DIMS = rf"(?:{_DIMENSION}(?:,{_DIMENSION})*)?"
_ARGUMENT = rf"\({_CORE_DIMS}\)"
_ARGUMENTS = rf"(?:{_ARGUMENT}(?:,{_ARGUMENT})*)?"
_SIGNATURE = re.compile(rf"^{_ARGUMENTS}->{_ARGUMENTS}$")


def _parse_signature(signature: str) -> tuple[list[tuple[str, ...]], list[tuple[str, ...]]]:
    """NumPy's generalised-ufunc signature "(m,n),(n)->(m)" as core dimension names per input and output."""
    compact = re.sub(r"\s+", "", signature)
    if not _SIGNATURE.match(compact):
        raise ValueError(f"vectorize: not a valid gufunc signature: {signature!r}")
    inputs, outputs = compact.split("->")

    def parse(side: str) -> list[tuple[str, ...]]:
        return [tuple(d for d in group.split(",") if d) for group in re.findall(r"\(([^)]*)\)", side)]

    return parse(inputs), parse(outputs)


def vectorize(pyfunc: Callable[..., Any], *, excluded: Any = frozenset(), signature: str | None = None) -> Callable:
    """`pyfunc` mapped over the leading (loop) dimensions of its arguments, which broadcast together, with
    stridex's `vmap`. Without `signature` every argument is a scalar per call; with one ("(n),(n)->()"), the
    named core dimensions are passed whole. Arguments at the positions or names in `excluded` (and keyword
    arguments) are passed as they are.

    >>> import stridex.numpy as jnp
    >>> def clipped_sum(x, limit):
    ...     return jnp.minimum(jnp.sum(x), limit)
    >>> f = jnp.vectorize(clipped_sum, signature="(n),()->()")
    >>> f(jnp.asarray([[1.0, 2.0], [3.0, 4.0]]), jnp.asarray([10.0, 5.0]))
    Array([3., 5.])
    """
    from stridex._transforms.batching import vmap  # (the transformations are imported on first use)

    if any(not isinstance(e, (str, int)) for e in excluded):
        raise TypeError(f"vectorize can only exclude integer or string arguments, got excluded={excluded!r}")
    if any(isinstance(e, int) and e < 0 for e in excluded):
        raise ValueError(f"vectorize: excluded={excluded!r} contains negative numbers")
    parsed = None if signature is None else _parse_signature(signature)

    @functools.wraps(pyfunc)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        static = {i: a for i, a in enumerate(args) if i in excluded or a is None}
        dynamic = [_args.array(a, "vectorize", i) if not isinstance(a, Array) else a
                   for i, a in enumerate(args) if i not in static]

        def call(*values):
            full = list(values)
            for i in sorted(static):
                full.insert(i, static[i])
            return pyfunc(*full, **kwargs)

        if parsed is None:
            core: list[tuple[str, ...]] = [()] * len(dynamic)
            outputs = None
        else:
            core, outputs = parsed
            if len(core) != len(dynamic):
                raise TypeError(f"vectorize: wrong number of positional arguments: expected {len(core)}, got "
                                f"{len(dynamic)} (signature {signature!r})")
        sizes: dict[str, int] = {}
        loop_shapes = []
        for i, (a, dims) in enumerate(zip(dynamic, core)):
            if a.ndim < len(dims):
                raise ValueError(f"vectorize: input {i} of shape {a.shape} has fewer dimensions than its core "
                                 f"dimensions {dims} in signature {signature!r}")
            for name, size in zip(dims, a.shape[a.ndim - len(dims):]):
                if sizes.setdefault(name, size) != size:
                    raise ValueError(f"vectorize: inconsistent size for core dimension {name!r}: {sizes[name]} and "
                                     f"{size} (signature {signature!r})")
            loop_shapes.append(a.shape[:a.ndim - len(dims)])
        loop_shape = _manip.broadcast_shapes(*loop_shapes) if loop_shapes else ()
        checked = call if outputs is None else _checking(call, outputs, sizes, signature)
        # One vmap per loop dimension, innermost the last; an argument of size 1 there is not mapped.
        squeezed, padded = [], []
        for a, shape in zip(dynamic, loop_shapes):
            filled = (1,) * (len(loop_shape) - len(shape)) + shape
            padded.append(filled)
            ones = tuple(i for i, n in enumerate(shape) if n == 1)
            squeezed.append(_manip.squeeze(a, ones) if ones else a)
        mapped = checked
        expand = []
        for position in range(len(loop_shape) - 1, -1, -1):
            in_axes = tuple(None if filled[position] == 1 else 0 for filled in padded)
            if all(ax is None for ax in in_axes):
                expand.append(position)
            else:
                mapped = vmap(mapped, in_axes=in_axes)
        result = mapped(*squeezed)
        if not expand:
            return result
        axes = tuple(sorted(expand))
        if isinstance(result, tuple):
            return tuple(_manip.expand_dims(r, axis=axes) for r in result)
        return _manip.expand_dims(result, axis=axes)

    return wrapped


def _checking(call: Callable, outputs: list, sizes: dict, signature: str | None) -> Callable:
    def checked(*values):
        out = call(*values)
        results = out if isinstance(out, tuple) else (out,)
        if len(outputs) > 1 and not isinstance(out, tuple):
            raise TypeError(f"vectorize: the function must return a tuple of {len(outputs)} outputs (signature "
                            f"{signature!r})")
        if len(results) != len(outputs):
            raise TypeError(f"vectorize: wrong number of outputs: expected {len(outputs)}, got {len(results)}")
        for r, dims in zip(results, outputs):
            shape = np.shape(r) if not isinstance(r, Array) else r.shape
            if len(shape) != len(dims):
                raise ValueError(f"vectorize: an output of shape {shape} does not have the core dimensions {dims} "
                                 f"of signature {signature!r}")
            for name, size in zip(dims, shape):
                if sizes.setdefault(name, size) != size:
                    raise ValueError(f"vectorize: output core dimension {name!r} has size {size}, expected "
                                     f"{sizes[name]}")
        return out

    return checked


# --- along axes -----------------------------------------------------------------------------------------


def apply_along_axis(func1d: Callable[..., Any], axis: int, arr: Any, *args: Any, **kwargs: Any) -> Any:
    """`func1d` applied to every 1-D slice of `arr` along `axis` (mapped with `vmap` over the other axes); the
    slices' results take the axis' place.

    >>> import stridex.numpy as jnp
    >>> jnp.apply_along_axis(lambda v: v[0] + v[-1], 1, jnp.asarray([[1, 2, 3], [4, 5, 6]]))
    Array([ 4, 10])
    """
    from stridex._transforms.batching import vmap  # (the transformations are imported on first use)

    arr = _args.array(arr, "apply_along_axis")
    axis = _args.axis(axis, arr.ndim, "apply_along_axis")

    def one(v):
        return func1d(v, *args, **kwargs)

    mapped = one
    for _ in range(axis):
        mapped = vmap(mapped, in_axes=0, out_axes=0)
    for _ in range(arr.ndim - axis - 1):
        mapped = vmap(mapped, in_axes=-1, out_axes=-1)
    return mapped(arr)


def apply_over_axes(func: Callable[[Any, int], Any], a: Any, axes: Sequence[int]) -> Array:
    """`func(a, axis)` applied for each axis in turn, each result kept with a's number of dimensions (a
    length-1 axis inserted where `func` reduced one).

    >>> import stridex.numpy as jnp
    >>> jnp.apply_over_axes(jnp.sum, jnp.ones((2, 3, 4)), [0, 2])
    Array([[[8.],
            [8.],
            [8.]]])
    """
    a = _args.array(a, "apply_over_axes")
    for axis in axes:
        out = func(a, axis)
        if out.ndim == a.ndim - 1:
            out = _manip.expand_dims(out, axis=_args.axis(axis, a.ndim, "apply_over_axes"))
        elif out.ndim != a.ndim:
            raise ValueError("apply_over_axes: func must return an array of the same number of dimensions, or one "
                             "fewer")
        a = out
    return a
