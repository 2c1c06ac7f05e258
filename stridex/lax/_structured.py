"""Dynamic slicing, `top_k`, `associative_scan`, `map`, the cumulative reductions, the elementwise names (`select`,
`clamp`, `rsqrt`, `integer_pow`, `logistic`, `erf`, `lgamma`, `digamma`) and the control-flow aliases."""

from __future__ import annotations

import operator
from typing import Any


from stridex._core import dtypes as _dtypes
from stridex._core import tree as _tree
from stridex._core.array import Array
from stridex._core.view import normalize_axis
from stridex._lax import ops as _ops


_SCALARS = (bool, int, float, complex)


# === issue 43, part B: slicing, top_k, scans, elementwise names, control flow ===============================
# JAX's `lax` names built on stridex's primitives: the dynamic slices bind `stridex._lax.array_indexing`'s
# `dynamic_slice`/`dynamic_update_slice` (traced starts compile without a graph break), `top_k` binds
# `stridex._lax.selection`, erf/lgamma/digamma bind `stridex._lax.special`; the rest are compositions.

import builtins as _builtins

from stridex._api import creation_functions as _creation
from stridex._api import elementwise_functions as _ew
from stridex._api import manipulation_functions as _manipulation
from stridex._api import statistical_functions as _statistical
from stridex._api import transcendental_functions as _tr
from stridex._lax import array_indexing as _array_indexing
from stridex._lax import selection as _selection
from stridex._lax import special as _special
from stridex._transforms import batching as _batching
from stridex._transforms import control_flow as _control_flow
from stridex.lax._parallel import stop_gradient

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


