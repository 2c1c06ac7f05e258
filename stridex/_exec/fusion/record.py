"""Recording: an eager elementwise primitive application on large or pending operands, kept as a pending record
instead of run (`record`), or declined (None: the caller runs it now).

On the host a record joins its pending operands' `Group` (`host_pass`), reading its other operands' windows; on a
JAX device it joins a `DeviceGroup` (`device_pass._record_on_device`). Whether a primitive may be deferred at all
is decided here once per signature: its abstract evaluation must succeed, its impl must run on such operands, and
NumPy's error state must neither raise nor print.
"""

from __future__ import annotations

import weakref
from math import prod

import numpy as np

from stridex._core.array import Array
from stridex._core.avals import aval_of
from stridex._core.device import HOST
from stridex._core.storage import HostStorage, JaxResultStorage, Storage
from stridex._exec import device as _device
from stridex._exec.fusion import limits
from stridex._exec.fusion.device_pass import _record_on_device
from stridex._exec.fusion.host_pass import Group, Record
from stridex._exec.fusion.pending import _ENABLED, LOCK, PendingStorage, _joined_group, host_to_read

_PY_SCALARS = frozenset({bool, int, float, complex})
_DEFERRABLE_ERRORS = frozenset({"warn", "ignore"})


def record(prim, args, params):
    """A pending Array for `prim.bind(*args, **params)`, or None: then the caller runs it now."""
    if not _ENABLED.get():
        return None
    large = False
    dev = None
    host = False
    ints = False
    key = [prim]
    for a in args:  # (one walk: where the operands live, and the signature's key)
        t = type(a)
        if t is Array:
            st = a._storage
            w = a._np
            if w is not None:
                if dev is not None:
                    raise _device._mixed(prim, dev, HOST)
                host = True
                shape = w.shape
                if w.size >= limits.DEFER_MIN_ELEMENTS:
                    large = True
            else:
                shape = a._view.shape if a._view is not None else a.shape
                if not st.is_host:
                    d = st.device
                    if dev is None:
                        if host:
                            raise _device._mixed(prim, HOST, d)
                        if st.sharded:
                            return None  # (a mesh: op by op)
                        dev = d
                    elif d is not dev and d != dev:
                        raise _device._mixed(prim, dev, d)
                    large = True
                elif dev is not None:
                    raise _device._mixed(prim, dev, HOST)
                else:
                    host = True
                    if type(st) is PendingStorage or prod(shape) >= limits.DEFER_MIN_ELEMENTS:
                        large = True
            key.append(a._dtype)
            key.append(shape)
        elif t in _PY_SCALARS:
            key.append(t)
            ints = ints or t is int
        else:
            return None
    if not large:
        return None
    if params:
        key.append(tuple(params.items()))
    try:
        signature = _SIGNATURES.get(tuple(key))
    except TypeError:  # (unhashable params)
        return None
    if signature is None:
        signature = _signature(prim, args, params)
        if len(_SIGNATURES) > 4096:
            _SIGNATURES.clear()
        _SIGNATURES[tuple(key)] = signature
    if signature is False:
        return None
    shape, dtype, size = signature
    if ints and not _scalars_fit(args):
        return None  # (the signature knows a Python int's type, not its value: op by op raises at this line)
    if dev is not None:
        return _record_on_device(prim, args, params, dev, shape, dtype) if size else None
    if size < limits.DEFER_MIN_ELEMENTS:
        return None
    errors = _error_state()
    if errors is None:
        return None  # (errors that raise or print must do so at this line)
    with LOCK:
        return _record(prim, args, params, shape, dtype, errors)


# NumPy keeps its error state in a context variable (one object per `np.errstate`): `np.geterr()` (0.5 us) is
# asked only when that object changes.
_EXTOBJ = getattr(getattr(getattr(np, "_core", None), "_multiarray_umath", None), "_extobj_contextvar", None)
_LAST_ERRORS: list = [(None, None)]  # [(the context variable's value, np.geterr() then, or None if not deferrable)]


def _error_state() -> dict | None:
    """NumPy's error state (`np.geterr()`), or None when some error raises or prints (not deferrable)."""
    if _EXTOBJ is not None:
        current = _EXTOBJ.get()
        last = _LAST_ERRORS[0]  # (one pair, read at once: threads replace it whole)
        if current is last[0]:
            return last[1]
    errors = dict(np.geterr())
    state = errors if all(mode in _DEFERRABLE_ERRORS for mode in errors.values()) else None
    if _EXTOBJ is not None:
        _LAST_ERRORS[0] = (current, state)
    return state


# (primitive, operand dtypes and shapes or scalar types, params) -> (shape, dtype, size) of the result, or False
# where the operation is not deferred
_SIGNATURES: dict = {}


def _signature(prim, args, params):
    """The result's (shape, dtype, size) by the primitive's abstract evaluation, or False where the operation
    must run at once: an error to raise at this line, or a warning NumPy gives once per call."""
    try:
        aval = prim.abstract_eval(*[aval_of(a) for a in args], **params)
    except Exception:  # noqa: BLE001
        return False  # (the op-by-op path raises its own error, at this line)
    if prim.name == "convert_element_type" and args[0].dtype.kind == "complex floating" \
            and params["new_dtype"].kind != "complex floating":
        return False  # (NumPy warns ComplexWarning once per call: a pass would warn once per block)
    if not _runs(prim, args, params):
        return False
    return aval.shape, aval.dtype, prod(aval.shape)


# (primitive, params, operand kinds) -> whether the impl runs on such operands (see `_runs`)
_RUNS: dict = {}


def _runs(prim, args, params) -> bool:
    """Whether `prim`'s impl runs on operands of these dtypes (NumPy has a loop for them): tried once per
    signature on one element of each operand, so that an error that does not depend on the values (no loop
    for bfloat16 in some kernel) is raised at the call by the op-by-op path, not later by a pass."""
    kinds = tuple((a._dtype, a.ndim == 0) if type(a) is Array else type(a) for a in args)
    try:
        key = (prim, tuple(params.items()), kinds)
        known = _RUNS.get(key)
    except TypeError:  # (unhashable params)
        return False
    if known is not None:
        return known
    samples = []
    for a, kind in zip(args, kinds):
        if type(a) is Array:
            samples.append(np.zeros((1,) * a.ndim if a.ndim else (), a._dtype.np))
        else:
            samples.append(a)
    try:
        with np.errstate(all="ignore"):
            prim.impl(*samples, **params)
        known = True
    except Exception:  # noqa: BLE001  (whatever it raises, the op-by-op path raises it at the call)
        known = False
    if len(_RUNS) > 4096:
        _RUNS.clear()
    _RUNS[key] = known
    return known


def _scalars_fit(args) -> bool:
    """Whether every Python int operand converts to the arrays' dtypes without error (NumPy raises
    OverflowError at the call otherwise, which must happen at this line)."""
    for s in args:
        if type(s) is int:
            for a in args:
                if type(a) is Array:
                    d = a._dtype.np
                    if d.kind in "iu":
                        info = np.iinfo(d)
                        if not info.min <= s <= info.max:
                            return False
                    elif d == np.float16:
                        if not -65504 <= s <= 65504:
                            return False
                    elif d.kind != "b" and not -(1 << 63) <= s < (1 << 63):
                        return False
    return True




def _member_of_host_group(a: Array, shape: tuple):
    """The group of pending host array `a` when `a` is a whole member of shape `shape`, else None."""
    rec = a._storage.owner
    return rec.group if a._view is rec.view and rec.shape == shape and not rec.group.done else None


def _record(prim, args, params, shape, dtype, errors):
    # The pending inputs of `shape` join this record's group; others (a view of a pending array, another shape)
    # are run first and read as windows. The usual case inline (every pending operand a whole member of one
    # live group of this shape, as `_member_of_host_group` says); any other goes through `_joined_group`.
    group = None
    for a in args:
        if type(a) is Array and type(a._storage) is PendingStorage:
            rec = a._storage.owner
            g = rec.group
            if a._view is not rec.view or rec.shape != shape or g.done or (group is not None and g is not group):
                group = _joined_group(args, shape, PendingStorage, _member_of_host_group, _merge)
                break
            group = g
    leaves = []
    for a in args:
        if type(a) is Array and type(a._storage) is not PendingStorage:
            st, _ = a._storage_view()
            if not st.is_host or not st.private() or a.size == 0:
                return None
            w = a._np
            if w is None:
                w = st.window(a)
            if w.ndim and not w.flags.c_contiguous:
                # NumPy picks a ufunc's inner loop by the operands' layout, and its loops for strided operands
                # can round otherwise than its contiguous ones (exp, log, sin: scalar libm against SIMD): a
                # block would not always see the layout the whole window has, so strided windows are read now.
                return None
            leaves.append(a)
    if group is not None and (len(group.members) + 1 >= limits.MAX_RECORDS
                              or len(group.leaves) + len(leaves) > limits.MAX_LEAVES
                              or group.errors != errors):
        group.run()
        return _record(prim, args, params, shape, dtype, errors)  # (its pending inputs are windows now)
    if group is None:
        group = Group(errors)
    inputs = []
    for a in args:
        if type(a) is not Array:
            inputs.append(a)
        elif type(a._storage) is PendingStorage:
            inputs.append(a._storage.owner)
        else:
            inputs.append(_leaf(group, a, shape))
    rec = Record(prim, params, tuple(inputs), shape, dtype.np, group)
    storage = PendingStorage()
    storage.buf = None  # (not computed yet)
    storage.owner = rec
    storage.jax_view = storage.jax_alias = storage.jax_copy = None
    storage.readers = None
    rec.storage = weakref.ref(storage)
    group.members.append(weakref.ref(rec))  # (last: a member of a group is whole, whatever interrupts this)
    return Array._make(storage, rec.view, dtype)


def _leaf(group: Group, a: Array, shape: tuple) -> np.ndarray:
    """Array `a`'s window as `group` reads it (broadcast to `shape`), its storage told that the group reads it."""
    st = a._storage
    w = a._np
    if w is None:
        w = st.window(a)
    key = id(w)
    held = group.leaves.get(key)
    if held is not None and held[0] is w:
        return held[1]
    # (a 0-D operand stays 0-D, as the impl sees it op by op: pow's x ** 0.5 fix-up, for one, asks)
    b = w if w.shape == shape or w.ndim == 0 else np.broadcast_to(w, shape)
    group.leaves[key] = (w, b)
    _add_reader(st, group)
    return b


def _add_reader(st: Storage, group: Group) -> None:
    if type(st) is JaxResultStorage:
        return  # (immutable memory: a write copies it first)
    readers = st.readers
    if readers is None:
        readers = st.readers = []
    elif len(readers) > 64:
        readers[:] = [r for r in readers if (g := r()) is not None and not g.done]
    readers.append(weakref.ref(group))
    if type(st) is HostStorage:
        host_to_read(st)
    group.storages.append(st)


def _merge(group: Group, other: Group) -> None:
    """Move `other`'s records into `group` (after its own: no record of one reads the other's yet)."""
    for ref in other.members:
        rec = ref()
        if rec is not None:
            rec.group = group
            group.members.append(ref)
    for key, held in other.leaves.items():
        group.leaves.setdefault(key, held)
    for st in other.storages:
        _add_reader(st, group)
    other.members = []
    other.leaves = {}
    other.storages = []
    other.done = True


