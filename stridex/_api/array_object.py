"""The Array's operators, indexing and transposes, installed on the class from one table, `OPERATORS`.

Each entry names the namespace function an operator means; reflected and in-place forms are derived
from it. The strided core (`stridex/_core/array.py`) defines the data and protocols of an Array; this
module, in the namespace layer, gives it the spec's operators, so the core never imports upward.
`STRIDEX_MODE=jit`'s wrapper (`stridex/_api/jit_mode.py`) reads the same table.
"""

from __future__ import annotations

import sys

import numpy as np

from stridex._api import array_indexing as _getitem
from stridex._api import elementwise_functions as _ew
from stridex._api import linear_algebra_functions as _linalg_main
from stridex._api import manipulation_functions as _manip
from stridex._api import transcendental_functions as _tr
from stridex._api.versions import namespace
from stridex._core.array import Array, is_fast_key, refuse_broadcast_write, window
from stridex._core.device import HOST, KDL_CPU
from stridex._core.state import current_trace
from stridex._exec import device as _device
from stridex._exec import placement as _placement
from stridex._lax import ops
from stridex._exec.route import binary as _apply_binary

# --- the table ---------------------------------------------------------------------------------------

# Binary operators with reflected and in-place forms: name stem -> namespace function.
ARITHMETIC = {
    "add": "add", "sub": "subtract", "mul": "multiply", "truediv": "divide", "floordiv": "floor_divide",
    "mod": "remainder", "pow": "pow", "and": "bitwise_and", "or": "bitwise_or", "xor": "bitwise_xor",
    "lshift": "bitwise_left_shift", "rshift": "bitwise_right_shift",
}
COMPARISON = {"lt": "less", "le": "less_equal", "gt": "greater", "ge": "greater_equal",
              "eq": "equal", "ne": "not_equal"}
UNARY = {"abs": _ew.abs, "neg": _ew.negative, "pos": _ew.positive, "invert": _ew.bitwise_invert}

# Every method this module installs, by name: what `STRIDEX_MODE=jit` wraps.
OPERATORS = (
    [f"__{stem}__" for stem in UNARY]
    + [f"__{form}{stem}__" for stem in ARITHMETIC for form in ("", "r", "i")]
    + [f"__{stem}__" for stem in COMPARISON]
    + ["__matmul__", "__rmatmul__", "__imatmul__", "__getitem__", "__setitem__"]
)
PROPERTIES = ("T", "mT")

# --- the methods -------------------------------------------------------------------------------------


# What the operators take besides arrays: Python scalars, and NumPy scalars (below) and 0-D NumPy arrays, which
# the namespace functions take as the Python scalar of the same value. Returning NotImplemented for a NumPy
# scalar would hand `x + np.int64(1)` to NumPy's reflected operator, which converts x and returns an ndarray.
_OPERANDS = (Array, int, float, complex, np.number, np.bool_)


def _namespace_function(fname: str):
    return getattr(_ew, fname, None) or getattr(_tr, fname)


def _is_0d_ndarray(other) -> bool:
    return type(other) is np.ndarray and other.ndim == 0


def _foreign(other, name: str):
    """NotImplemented for an operand the operators do not take, so that Python tries the other side; but a
    TypeError for an N-D NumPy array, which NumPy's own operator would convert the stridex array for (returning
    an ndarray), as the namespace functions refuse it too."""
    if isinstance(other, np.ndarray):
        raise TypeError(f"{name}: unsupported operand, a NumPy array of shape {other.shape}; convert it with "
                        "stridex.asarray (zero-copy) first")
    return NotImplemented


def _binary(name: str, fname: str, reflected: bool = False, inplace: bool = False):
    fn = _namespace_function(fname)
    fast = getattr(fn, "fast_path", None)  # (dtype names, primitive): two same-category arrays skip a call
    if fast is not None and not fast[1].elementwise:
        raise TypeError(f"{name}: the operators' fast path is for elementwise primitives, not {fast[1].name}")

    def op(self, other, /):
        if type(other) is Array and fast is not None:
            names, prim = fast
            if self._dtype.name in names and other._dtype.name in names:
                if current_trace() is None:  # what prim.bind would do (`route.apply`), two calls shorter
                    return _apply_binary(prim, self, other)
                return prim.bind(self, other)
        elif type(other) is not Array and not isinstance(other, _OPERANDS) and not _is_0d_ndarray(other):
            return _foreign(other, name)
        return fn(self, other)

    def rop(self, other, /):
        if not isinstance(other, _OPERANDS) and not _is_0d_ndarray(other):
            return _foreign(other, name)
        return fn(other, self)

    def iop(self, other, /):
        if not isinstance(other, _OPERANDS) and not _is_0d_ndarray(other):
            return _foreign(other, name)
        _getitem.assign_inplace(self, fn(self, other), name)
        return self

    f = iop if inplace else rop if reflected else op
    f.__name__ = name
    f.__qualname__ = f"Array.{name}"
    return f


def _transpose(self) -> Array:
    if self.ndim != 2:
        raise ValueError(f"x.T requires a 2-D array, got one of shape {self.shape}; use permute_dims or mT")
    if current_trace() is None and self._fast_storage():
        return self._fast_view(window(self).T)
    return _manip.permute_dims(self, (1, 0))


def _matrix_transpose(self) -> Array:
    return _linalg_main.matrix_transpose(self)


def __getitem__(self, key, /) -> Array:
    if current_trace() is None:
        t = type(key)
        if t is int or t is slice:
            if self._fast_storage():
                w = self._np
                return self._fast_view((w if w is not None else window(self))[key, ...])
        elif t is tuple and is_fast_key(key) and self._fast_storage():
            w = self._np
            w = w if w is not None else window(self)
            return self._fast_view(w[key] if Ellipsis in key else w[key + (Ellipsis,)])
    return _getitem.getitem(self, key)


def __setitem__(self, key, value, /) -> None:
    if current_trace() is None:
        t = type(key)
        if (t is int or t is slice or (t is tuple and is_fast_key(key))) and self._fast_storage():
            value = _getitem.check_value(self, value)
            if not isinstance(value, Array) or value.device is HOST:
                w = window(self)
                if 0 in w.strides:
                    refuse_broadcast_write(w)
                w[key] = window(value) if isinstance(value, Array) else value
                return
    _getitem.setitem(self, key, value)


def __matmul__(self, other, /):
    if not isinstance(other, Array):
        return NotImplemented
    return _linalg_main.matmul(self, other)


def __rmatmul__(self, other, /):
    if not isinstance(other, Array):
        return NotImplemented
    return _linalg_main.matmul(other, self)


def __imatmul__(self, other, /):
    result = self.__matmul__(other)
    if result is NotImplemented:
        return NotImplemented
    _getitem.assign_inplace(self, result, "@=")
    return self


def _unary(name: str, fn):
    def op(self, /):
        return fn(self)

    op.__name__ = name
    op.__qualname__ = f"Array.{name}"
    return op


def __copy__(self) -> Array:
    # As NumPy's ndarray.__copy__: an independent array with the same values (a view would let a write
    # through the "copy" change the original). Bound as the copy primitive, so it also works under tracing.
    return ops.copy(self)


def __deepcopy__(self, memo, /) -> Array:
    return ops.copy(self)  # an array holds numbers only: the shallow copy is already a deep one


def to_device(self, device, /, *, stream=None) -> Array:
    """This array on `device`: the same array when it lives there already, else a copy there (the one way
    data moves between the host and a JAX device, or between devices)."""
    if stream is not None:
        raise ValueError(f"to_device: stridex takes no stream (JAX orders work on a device itself); got {stream!r}")
    return _device.transfer(self, _placement.resolve(device))


def __dlpack__(self, /, *, stream=None, max_version=None, dl_device=None, copy=None):
    """A DLPack capsule over this array's memory (zero-copy, as the DLPack protocol asks).

    A device array exports its JAX buffer (a CUDA capsule on a GPU). Asking for the host (`dl_device=(1, 0)`)
    copies it there, unless `copy=False`, which raises BufferError. After an export a device storage is
    marked borrowed, so a later write copies the buffer instead of updating the exported memory in place.
    """
    if stream is not None and stream != -1 and self.device is HOST:
        raise BufferError("stridex's host arrays take no DLPack stream")
    if self._storage.is_host and _called_by_jax():
        # `jax.dlpack.from_dlpack(x)`: JAX takes what it is given as immutable, so it gets memory that no one
        # writes afterwards (shared where that is safe, else a copy: `handover.to_jax_array`).
        from stridex._transforms.handover import to_jax_array  # (on first use: the transformations load lazily)

        return to_jax_array(self).__dlpack__()
    st = self._storage
    if st.is_host:
        self._storage_view()[0].export(self)  # (the consumer may write the memory: see Storage.export)
        w = window(self)
        if not w.flags.writeable and (max_version is None or max_version[0] < 1):
            # A legacy consumer cannot be told the memory is read-only (NumPy refuses such an export): a JAX
            # result's own array exports itself; other read-only memory goes as a copy.
            held = self._storage_view()[0].jax_argument(self)
            if held is not None:
                return held.__dlpack__()
            if copy is False:
                raise BufferError("__dlpack__: this array's memory is read-only, which a consumer asking for a "
                                  "legacy (pre-1.0) capsule cannot be told; copy=False forbids the copy")
            w = w.copy()
        return w.__dlpack__(stream=None, max_version=max_version, dl_device=dl_device, copy=copy)
    if dl_device is not None and dl_device[0] == KDL_CPU and self.__dlpack_device__()[0] != KDL_CPU:
        if copy is False:
            raise BufferError(f"__dlpack__: this array lives on {st.device.name}; the host can have it only as a "
                              "copy (copy=False was given)")
        return _device.to_host(self).__dlpack__(max_version=max_version)  # (writable: NumPy exports no read-only
                                                                           # array to a legacy consumer)
    value = _device.materialized(self)
    if value is st.owner:
        st.readonly = True
    kwargs = {"stream": stream} if stream is not None else {}
    if max_version is not None and max_version[0] >= 1:  # (below 1.0 the consumer takes the legacy capsule,
        kwargs["max_version"] = max_version               # which JAX gives without max_version)
    if dl_device is not None and tuple(dl_device) != tuple(st.owner.__dlpack_device__()):
        kwargs["dl_device"] = dl_device  # (JAX names its CPU devices' memory (kDLCPU, 0), whichever device it is)
    if copy is not None:
        kwargs["copy"] = copy
    return value.__dlpack__(**kwargs)


def _called_by_jax() -> bool:
    """Whether `__dlpack__`'s caller is JAX's own code (`jax.dlpack.from_dlpack`, `jnp.from_dlpack`)."""
    name = sys._getframe(2).f_globals.get("__name__", "")
    return name == "jax" or name.startswith(("jax.", "jaxlib."))


def __jax_array__(self, /):
    """This array as a JAX array, for JAX code: `jnp.asarray(x)`, `jnp.array(x)` and JAX's operators call it (JAX
    0.10's jitted functions, most of `jax.numpy`, and `jax.jit` refuse the protocol: pass `jnp.asarray(x)`). The
    memory is shared where no one can write it afterwards (a `jit` result, a device array, a fresh result) and
    copied otherwise; with JAX's x64 mode off a 64-bit array comes as JAX's 32-bit type (a copy), as
    `jnp.asarray` gives a 64-bit NumPy array there.

    >>> import jax.numpy as jnp
    >>> import stridex as sx
    >>> jnp.asarray(sx.asarray([0.0, 1.0], dtype=sx.float32)) + 1
    Array([1., 2.], dtype=float32)
    """
    from stridex._transforms import handover  # (on first use: the transformations load lazily)

    return handover.as_jax_holds_it(handover.to_jax_array(self))


def __dlpack_device__(self, /) -> tuple:
    """(device type, device id) in DLPack's numbering: (1, 0) for the host; a JAX device's own otherwise
    ((2, n) for CUDA device n)."""
    st = self._storage
    if st.is_host:
        return (KDL_CPU, 0)
    return st.owner.__dlpack_device__()


def __array_namespace__(self, /, *, api_version: str | None = None):
    """The `stridex` namespace (for `api_version` None or one of the supported standard versions)."""
    return namespace(api_version)


def _install() -> None:
    for stem, fn in UNARY.items():
        setattr(Array, f"__{stem}__", _unary(f"__{stem}__", fn))
    for stem, fname in ARITHMETIC.items():
        setattr(Array, f"__{stem}__", _binary(f"__{stem}__", fname))
        setattr(Array, f"__r{stem}__", _binary(f"__r{stem}__", fname, reflected=True))
        setattr(Array, f"__i{stem}__", _binary(f"__i{stem}__", fname, inplace=True))
    for stem, fname in COMPARISON.items():
        setattr(Array, f"__{stem}__", _binary(f"__{stem}__", fname))
    for method in (__matmul__, __rmatmul__, __imatmul__, __getitem__, __setitem__, __copy__, __deepcopy__,
                   __array_namespace__, to_device, __dlpack__, __dlpack_device__, __jax_array__):
        method.__qualname__ = f"Array.{method.__name__}"
        setattr(Array, method.__name__, method)
    Array.T = property(_transpose, doc="The transpose of a 2-D array (a view).")  # type: ignore[method-assign,assignment]  # (declared as a property in the class, for checkers)
    Array.mT = property(_matrix_transpose, doc="The transpose of the last two axes (a view).")  # type: ignore[method-assign,assignment]  # (as T)
    missing = [name for name in OPERATORS if name not in vars(Array)]
    assert not missing, f"operators in the table but not installed: {missing}"


_install()
