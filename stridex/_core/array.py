"""The array object: `Array = (Storage, View, DType)`, with the spec's attributes and protocols.

An Array holds a Storage (one class per kind of memory, `stridex._core.storage`) and a View, and asks the
storage whatever depends on the kind of memory. `_np` caches the array's NumPy window: the eager paths read
it first, and a fresh NumPy result is only its window until a view of it is taken (its storage `NO_STORAGE`
until then: `_storage_view` makes the real one). Likewise a JAX result on the host (a jit call's output) is
its JAX array, `_jax`, with the storage `JAX_RESULT` until a use needs its JaxResultStorage.

Its operators, `x[key]`, `.T` and `.mT` delegate to the namespace, which installs them from one table
(`stridex/_api/array_object.py`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from types import EllipsisType, ModuleType
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, TypeAlias, TypeVar

import numpy as np

from stridex._core import dtypes as _dtypes
from stridex._core.device import HOST, Device
from stridex._core.dtypes import FROM_NUMPY, DType, from_numpy
from stridex._core.storage import (BORROWED_WINDOW, JAX_RESULT, NO_STORAGE, Storage, aligned_copy,
                                   storage_from_ndarray)
from stridex._core.view import View


class Array:
    """An n-dimensional array: a strided view (shape, strides, offset) of a shared storage buffer."""

    __slots__ = ("__weakref__", "_dtype", "_jax", "_np", "_storage", "_view")
    _dtype: DType
    _jax: Any  # a JAX result's JAX array while its storage is JAX_RESULT (set only then)
    _np: np.ndarray | None  # the NumPy window, a cache (None until made; never for memory NumPy cannot reach)
    _storage: Storage  # NO_STORAGE for a fresh NumPy result not adopted yet (its window is its memory), JAX_RESULT
                       # for a JAX result on the host whose storage is not made yet
    _view: View | None  # None until derived from the window (a fresh result, an eager fast-path view)
    __hash__: ClassVar[None] = None  # type: ignore[assignment]  # arrays compare elementwise: not hashable
    __array_priority__ = 100  # NumPy defers binary operators with a stridex array to us

    # --- construction (internal) ---------------------------------------------------------------
    # Array has no `__init__` (nor does `JitModeArray`): `Array()` is an empty array whose fields the maker
    # sets right after, as here. Calling the class costs less than `object.__new__(Array)` (no argument
    # tuple, no check of the class), and this is on every eager result's and every jit call's path.

    @classmethod
    def _from_numpy(cls, a: np.ndarray) -> Array:
        """Adopt ndarray `a` (fresh memory, not shared with any other array) without copying."""
        self = cls()
        self._np = a
        self._storage = NO_STORAGE
        self._view = None
        self._dtype = FROM_NUMPY[a.dtype]
        return self

    @classmethod
    def _borrow(cls, a: np.ndarray) -> Array:
        """Take writable ndarray `a` as it is, its memory shared with the caller both ways (no copy)."""
        self = cls()
        self._np = a
        self._storage = BORROWED_WINDOW
        self._view = None
        self._dtype = FROM_NUMPY[a.dtype]
        return self

    @classmethod
    def _make(cls, storage: Storage, view: View, dtype: DType) -> Array:
        self = cls()
        self._storage = storage
        self._view = view
        self._dtype = dtype
        self._np = None
        return self

    def _eager_window(self, prim):
        """The NumPy window an eager primitive reads; tracers override this to refuse."""
        return window(self)

    def _storage_view(self) -> tuple[Storage, View]:
        """This array's (Storage, View), adopting a fresh NumPy result or deriving the View of a fast-path
        view (`Storage.storage_view`)."""
        return self._storage.storage_view(self)

    def _fast_view(self, w: np.ndarray) -> Array:
        """An Array over NumPy view `w` of this array's window, sharing this array's Storage.

        Eager fast path for basic indexing, transposes and reshapes: NumPy applies the same view rules
        as `View` (tests check they agree), in C; the View itself is derived from `w` only when needed.
        Only valid while no trace is active and the storage is writable (see `_fast_storage`).
        """
        r = Array()
        r._np = w
        r._storage = self._storage
        r._view = None
        r._dtype = self._dtype
        return r

    def _fast_storage(self) -> bool:
        """True when the eager view fast path may be used: the storage (adopted now if it is not) is host
        memory stridex may write (`Storage.fast_views`)."""
        st = self._storage
        if not st.adopted:
            st = st.storage_view(self)[0]
        return st.fast_views

    # --- attributes ----------------------------------------------------------------------------

    @property
    def dtype(self) -> DType:
        """The data type of the elements (one of the 13 spec dtypes)."""
        return self._dtype

    @property
    def device(self) -> Device:
        """The device the array's storage lives on: the host (`Device('cpu')`) or a JAX device."""
        return self._storage.device

    @property
    def shape(self) -> tuple[int, ...]:
        """The length of each axis, a tuple of ints."""
        w = self._np
        return w.shape if w is not None else self._view.shape  # type: ignore[union-attr]  # (no window: a View)

    @property
    def ndim(self) -> int:
        """The number of axes."""
        return len(self.shape)

    @property
    def size(self) -> int:
        """The number of elements (the product of the shape)."""
        n = 1
        for d in self.shape:
            n *= d
        return n

    def __len__(self) -> int:
        shape = self.shape
        if not shape:
            raise TypeError("len() of a 0-D array")
        return shape[0]

    def __iter__(self) -> Iterator[Array]:
        if not self.shape:
            raise TypeError("iteration over a 0-D array")
        return (self[i] for i in range(self.shape[0]))

    # --- conversion ----------------------------------------------------------------------------

    def _scalar(self, kind: str):
        shape = self.shape
        if shape != ():
            hint = ("reduce it with any(x) or all(x) first" if kind == "bool" else
                    f"take its one element first: x[{', '.join(['0'] * len(shape))}]" if self.size == 1 else
                    "index one element first")
            raise TypeError(f"{kind}() of an array requires a 0-D array, got shape {shape}; {hint}")
        return host_window(self)[()].item()

    def __bool__(self) -> bool:
        if self.shape and self.size == 1:
            # The spec describes 0-D arrays only; NumPy and JAX also take the truth value of any one-element
            # array (`if x[:, :1].all(keepdims=True): ...`), and so does stridex. int()/float() stay 0-D only, as there.
            return bool(host_window(self).item())
        return bool(self._scalar("bool"))

    def __int__(self) -> int:
        if self._dtype.kind == "complex floating":
            raise TypeError(f"int() is not defined for {self._dtype.name} arrays")
        return int(self._scalar("int"))

    def __float__(self) -> float:
        if self._dtype.kind == "complex floating":
            raise TypeError(f"float() is not defined for {self._dtype.name} arrays")
        return float(self._scalar("float"))

    def __complex__(self) -> complex:
        return complex(self._scalar("complex"))

    def __index__(self) -> int:
        if self._dtype.kind not in ("signed", "unsigned"):
            raise TypeError(f"only integer arrays can be used as an index, got dtype {self._dtype.name}")
        return int(self._scalar("__index__"))

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        if not copy and self._storage.is_host:
            self._storage_view()[0].export(self)  # (NumPy may write the window it gets: see Storage.export)
        w = host_window(self)
        if dtype is not None and np.dtype(dtype) != w.dtype:
            if copy is False:
                raise ValueError(f"converting {self._dtype.name} to {np.dtype(dtype)} requires a copy")
            return w.astype(dtype)
        return w.copy() if copy else w

    def __reduce__(self) -> tuple[Callable[[np.ndarray], Array], tuple[np.ndarray]]:
        # Pickle (and copy.copy / copy.deepcopy) an array as its values: a contiguous copy of its window,
        # read through stridex, so a JAX result not read yet is read with its own dtype (the JAX owner
        # itself would unpickle narrowed to 32 bits when JAX's global x64 mode is off). As with NumPy,
        # a copy shares no memory with the original.
        return (_unpickle, (np.array(host_window(self), order="C"),))

    def block_until_ready(self) -> Array:
        """Wait until this array's value exists, and return the array (as JAX's method of that name).

        A `jit` result is held by a JAX array that XLA may still be computing (JAX dispatches
        asynchronously); every read waits for it anyway, so this is only needed for timing.
        """
        if self._storage is JAX_RESULT:  # (a jit result not adopted yet, the common case: its JAX array, at once)
            self._jax.block_until_ready()
        else:
            self._storage.block_until_ready(self)
        return self

    # --- printing ------------------------------------------------------------------------------

    def __repr__(self) -> str:
        w = host_window(self)
        prefix = "Array("
        body = np.array2string(w, separator=", ", prefix=prefix)
        where = "" if self.device is HOST else f", device={self.device.name!r}"
        if w.size == 0 or self._dtype not in (_dtypes.float64, _dtypes.int64, _dtypes.bool, _dtypes.complex128):
            return f"{prefix}{body}, dtype={self._dtype.name}{where})"
        return f"{prefix}{body}{where})"

    def __str__(self) -> str:
        return np.array2string(host_window(self))

    def __format__(self, format_spec: str) -> str:
        # As NumPy: a 0-D array formats as its Python scalar (f"{x:.3g}"); an empty spec is str(x).
        if not format_spec:
            return str(self)
        if self.shape != ():
            raise TypeError(f"unsupported format string {format_spec!r} for an array of shape {self.shape}: only "
                            "0-D arrays take a format spec; format its elements one by one, or use str(x)")
        return format(python_scalar(self), format_spec)

    # --- what the namespace installs (stridex/_api/array_object.py), as a type checker sees it ----------
    # The operators are set on the class from a table at import (no extra frame per call: a method here calling
    # the namespace function measured 1.3x the time of the installed one on a one-element `x + y`); these are
    # their signatures, as the 2025.12 standard's stubs state them. tests/test_typing.py checks that each one is
    # installed with these parameters and the scalar types of the namespace function it calls.

    if TYPE_CHECKING:
        def __abs__(self, /) -> Array: ...
        def __neg__(self, /) -> Array: ...
        def __pos__(self, /) -> Array: ...
        def __invert__(self, /) -> Array: ...

        def __add__(self, other: int | float | complex | Array, /) -> Array: ...
        def __radd__(self, other: int | float | complex | Array, /) -> Array: ...
        def __iadd__(self, other: int | float | complex | Array, /) -> Array: ...
        def __sub__(self, other: int | float | complex | Array, /) -> Array: ...
        def __rsub__(self, other: int | float | complex | Array, /) -> Array: ...
        def __isub__(self, other: int | float | complex | Array, /) -> Array: ...
        def __mul__(self, other: int | float | complex | Array, /) -> Array: ...
        def __rmul__(self, other: int | float | complex | Array, /) -> Array: ...
        def __imul__(self, other: int | float | complex | Array, /) -> Array: ...
        def __truediv__(self, other: int | float | complex | Array, /) -> Array: ...
        def __rtruediv__(self, other: int | float | complex | Array, /) -> Array: ...
        def __itruediv__(self, other: int | float | complex | Array, /) -> Array: ...
        def __floordiv__(self, other: int | float | Array, /) -> Array: ...
        def __rfloordiv__(self, other: int | float | Array, /) -> Array: ...
        def __ifloordiv__(self, other: int | float | Array, /) -> Array: ...
        def __mod__(self, other: int | float | Array, /) -> Array: ...
        def __rmod__(self, other: int | float | Array, /) -> Array: ...
        def __imod__(self, other: int | float | Array, /) -> Array: ...
        def __pow__(self, other: int | float | complex | Array, /) -> Array: ...
        def __rpow__(self, other: int | float | complex | Array, /) -> Array: ...
        def __ipow__(self, other: int | float | complex | Array, /) -> Array: ...
        def __and__(self, other: int | bool | Array, /) -> Array: ...
        def __rand__(self, other: int | bool | Array, /) -> Array: ...
        def __iand__(self, other: int | bool | Array, /) -> Array: ...
        def __or__(self, other: int | bool | Array, /) -> Array: ...
        def __ror__(self, other: int | bool | Array, /) -> Array: ...
        def __ior__(self, other: int | bool | Array, /) -> Array: ...
        def __xor__(self, other: int | bool | Array, /) -> Array: ...
        def __rxor__(self, other: int | bool | Array, /) -> Array: ...
        def __ixor__(self, other: int | bool | Array, /) -> Array: ...
        def __lshift__(self, other: int | Array, /) -> Array: ...
        def __rlshift__(self, other: int | Array, /) -> Array: ...
        def __ilshift__(self, other: int | Array, /) -> Array: ...
        def __rshift__(self, other: int | Array, /) -> Array: ...
        def __rrshift__(self, other: int | Array, /) -> Array: ...
        def __irshift__(self, other: int | Array, /) -> Array: ...

        def __lt__(self, other: int | float | Array, /) -> Array: ...
        def __le__(self, other: int | float | Array, /) -> Array: ...
        def __gt__(self, other: int | float | Array, /) -> Array: ...
        def __ge__(self, other: int | float | Array, /) -> Array: ...
        # (object's __eq__/__ne__ return bool; the standard's compare elementwise, returning an Array)
        def __eq__(self, other: int | float | complex | bool | Array, /) -> Array: ...  # type: ignore[override]
        def __ne__(self, other: int | float | complex | bool | Array, /) -> Array: ...  # type: ignore[override]

        def __matmul__(self, other: Array, /) -> Array: ...
        def __rmatmul__(self, other: Array, /) -> Array: ...
        def __imatmul__(self, other: Array, /) -> Array: ...

        def __getitem__(self, key: Key, /) -> Array: ...
        def __setitem__(self, key: Key, value: int | float | complex | bool | Array, /) -> None: ...

        @property
        def T(self) -> Array: ...
        @property
        def mT(self) -> Array: ...

        def __copy__(self) -> Array: ...
        def __deepcopy__(self, memo: Any, /) -> Array: ...
        def __array_namespace__(self, /, *, api_version: str | None = None) -> ModuleType: ...
        def to_device(self, device: Device | str, /, *, stream: int | Any | None = None) -> Array: ...
        def __dlpack__(self, /, *, stream: int | Any | None = None, max_version: tuple[int, int] | None = None,
                       dl_device: tuple[int, int] | None = None, copy: bool | None = None) -> Any: ...
        def __dlpack_device__(self, /) -> tuple[int, int]: ...
        def __jax_array__(self, /) -> Any: ...  # (beyond the standard: `jnp.asarray(x)`, see docs/mixing-jax.md)


# --- the vocabulary of the annotations: the standard's key, scalar and function types ------------------------

Index: TypeAlias = int | slice | EllipsisType | None | Array
"""One entry of an index key."""
Key: TypeAlias = Index | tuple[Index, ...]
"""What `x[key]` takes: an int, slice, `...`, None or an integer or boolean array, or a tuple of them."""
Scalar: TypeAlias = bool | int | float | complex
"""A Python scalar, where the standard takes one beside an array."""
Axes: TypeAlias = int | tuple[int, ...] | None
"""The `axis=` of reductions: one axis, several, or all (None)."""
DeviceLike: TypeAlias = Device | str
"""What a `device=` takes: a stridex Device or its name ("cpu", "cuda:0"); a JAX device is taken too, untyped."""

_T_co = TypeVar("_T_co", covariant=True)


class NestedSequence(Protocol[_T_co]):
    """Nested lists or tuples of `_T_co` (what `asarray` takes besides arrays and buffers)."""

    def __getitem__(self, key: int, /) -> _T_co | NestedSequence[_T_co]: ...
    def __len__(self, /) -> int: ...


class SupportsBufferProtocol(Protocol):
    """An object exporting the buffer protocol (bytes, memoryview, a NumPy array)."""

    def __buffer__(self, flags: int, /) -> memoryview: ...


class SupportsArray(Protocol):
    """An object NumPy converts with `__array__` (a NumPy or JAX array)."""

    def __array__(self, /) -> Any: ...

UnaryFunction: TypeAlias = Callable[[Array], Array]
BinaryFunction: TypeAlias = Callable[[Array | int | float | complex, Array | int | float | complex], Array]
"""An elementwise function of two arrays or Python scalars (the widest: each function's annotation narrows it to
the scalar types the standard gives it)."""
RealBinaryFunction: TypeAlias = Callable[[Array | int | float, Array | int | float], Array]
AnyBinaryFunction: TypeAlias = Callable[[Array | int | float | complex | bool, Array | int | float | complex | bool],
                                        Array]
IntegerBinaryFunction: TypeAlias = Callable[[Array | int, Array | int], Array]
BitwiseBinaryFunction: TypeAlias = Callable[[Array | int | bool, Array | int | bool], Array]
LogicalBinaryFunction: TypeAlias = Callable[[Array | bool, Array | bool], Array]


def refuse_broadcast_write(w: np.ndarray) -> None:
    """Writing through a broadcast view (stride 0 over more than one element) is refused, as in NumPy
    (whose broadcast views are read-only) and as under tracing, where the write would be ambiguous."""
    if w.size == 0:
        return
    for n, stride in zip(w.shape, w.strides):
        if stride == 0 and n > 1:
            raise ValueError(f"cannot write into a broadcast view of shape {w.shape}: its elements share memory "
                             "(stride 0); write into the array it was broadcast from instead")


_FAST_KEY_TYPES = frozenset({int, slice, type(None), type(Ellipsis)})


def is_fast_key(key: tuple) -> bool:
    """Whether a tuple index holds only ints, slices, None and Ellipsis (the eager fast path's keys)."""
    for k in key:
        if type(k) not in _FAST_KEY_TYPES:
            return False
    return True


def host_window(a: Array) -> np.ndarray:
    """`window(a)` for a host array; for a device array, its values copied to the host (what an explicit
    conversion — `np.asarray(x)`, `float(x)`, `repr(x)` — asks for)."""
    w = a._np
    if w is not None:
        return w
    return a._storage.host_values(a)


def window(a: Array) -> np.ndarray:
    """A NumPy ndarray over exactly the memory `a` views (no copy): the cached one, else its storage's
    (`Storage.window`; a device storage raises OnDevice)."""
    w = a._np
    if w is not None:
        return w
    return a._storage.window(a)


def adopt(a: np.ndarray, copy: bool = False) -> Array:
    """An Array sharing ndarray `a`'s memory (or a copy when `copy`), read-only memory marked copy-on-write."""
    if copy or from_numpy(a.dtype) is None:
        raise_if_unsupported(a.dtype)
        return Array._from_numpy(_aligned_copy(a))
    made = storage_from_ndarray(a, owner=a)
    if made is None:
        return Array._from_numpy(_aligned_copy(a))
    storage, view = made
    return Array._make(storage, view, FROM_NUMPY[a.dtype])


def _unpickle(values: np.ndarray) -> Array:
    """The array `Array.__reduce__` pickled: it owns `values` (an aligned copy, so JAX can alias it)."""
    return Array._from_numpy(_aligned_copy(values))


def raise_if_unsupported(np_dtype) -> None:
    if from_numpy(np_dtype) is None:
        raise TypeError(f"dtype {np_dtype} is not one of stridex's dtypes (the 13 Array API dtypes, float16 and "
                        "bfloat16)")


def _aligned_copy(a):

    return aligned_copy(a)


def python_scalar(value):
    """A 0-D array's value as the Python scalar of its kind (bool, int, float or complex); anything else as it is.

    Where the namespace takes a Python scalar (a fill value, arange/linspace bounds, a correction, a norm's
    order), NumPy and JAX also take a 0-D array, and so does stridex, through this. Under tracing, a traced
    0-D array raises ConcretizationError here (its value is not known), naming the ways out.
    """
    if isinstance(value, Array) and value.shape == ():
        kind = value._dtype.kind
        if kind == "bool":
            return bool(value)
        if kind in ("signed", "unsigned"):
            return int(value)
        return float(value) if kind == "real floating" else complex(value)
    return value
