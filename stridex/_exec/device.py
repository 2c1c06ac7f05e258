"""Arrays on JAX devices: their storages, moving data between devices, and running primitives there eagerly
(where they live and are placed: `stridex._exec.placement`).

A device array's Storage is a `DeviceStorage` (a `ShardedStorage` for an array sharded over several devices),
which holds one C-contiguous JAX buffer on its device (`owner`); its Views are the same metadata as on the
host. Eager work on such arrays runs each primitive's JAX lowering as a small
compiled executable, made once per (primitive, params, input buffers' shapes and dtypes, input Views,
device) and cached — JAX's op-by-op model with stridex's views and writes on top:

- a read of a View happens inside the executable (`read_view`: the whole buffer as it is, a slice and
  reshape, or a gather — never a copy of the whole storage for a small view);
- a write (`assign`) is one executable that reads the target View, applies the update, writes the View
  back into the flat buffer (`write_view`: dynamic_update_slice or scatter) and returns the new buffer;
  the old buffer is donated, so XLA updates it in place and the cost is O(view), not O(storage). Every
  Array sharing the Storage sees the new buffer. A buffer stridex does not own (a JAX array handed in) is
  never donated: its first write copies it (copy-on-write, as on the host).

Nothing here moves data to the host, except `to_host` (an explicit transfer) and primitives whose output
shape depends on the data (`unique_*`, `nonzero`, boolean masks), which bring their inputs to the host,
run there, and send the result back, as `jax.numpy` and PyTorch synchronise for them.
"""

from __future__ import annotations

import threading

import numpy as np

from stridex._core import processes
from stridex._core import caches
from stridex._core.array import Array, window
from stridex._core.array import adopt as adopt_host
from stridex._core.avals import ShapedArray, aval_of
from stridex._core.device import HOST, Device, OnDevice
from stridex._core.dtypes import FROM_NUMPY, PY_SCALARS
from stridex._core.storage import JAX_RESULT, Storage
from stridex._core.tree import freeze_or_id
from stridex._core.view import View
from stridex._exec import jax_bridge
from stridex._exec import lower
from stridex._exec.jax_bridge import jax, jnp, weakly_typed, x64
from stridex._exec.lower import Executable, LoweringContext, Step, settle
from stridex._exec.precision import matmul_key
from stridex._exec.placement import creation_sharding, current_default, host_sharding, of_jax
from stridex._exec.strided import is_whole, read_view, write_view

# --- storages on a device -----------------------------------------------------------------------


class DeviceStorage(Storage):
    """Memory on one JAX device: `owner` is a C-contiguous JAX array there whose elements, in order, are the
    storage (kept in the shape it was made in, `jax_view` its View, so that whole-array reads need no reshape);
    NumPy cannot reach it. A write replaces `owner` with the updated buffer, donating the old one (`_write`);
    `readonly` marks a JAX array the user handed in, which stridex must not donate, so the first write copies
    it. `buf` is never set."""

    __slots__ = ("device", "readonly")
    is_host = False
    device: Device
    readonly: bool

    def numpy_buffer(self):
        raise OnDevice(self.device)  # the caller (`Primitive.bind`) runs the work on the device instead

    def window(self, a):
        raise OnDevice(self.device)

    def shared_buffer(self):
        return None

    def writable(self):
        raise OnDevice(self.device)  # (a write runs on the device: `_write`)

    def jax_argument(self, a):
        """Array `a`'s View of this buffer: the buffer itself, or read on the device (the caller holds OWNERS)."""
        return materialized(a)

    def block_until_ready(self, a) -> None:
        # The buffer is taken holding OWNERS (no write is replacing it then); a write in another thread may
        # donate it while this waits: then the wait is for the buffer that replaced it.
        while True:
            with OWNERS:
                owner = self.owner
            try:
                owner.block_until_ready()
                return
            except RuntimeError:
                with OWNERS:
                    if owner is self.owner:
                        raise

    def host_values(self, a: Array) -> np.ndarray:
        """Array `a`'s values (a View of this storage), copied to the host: an explicit transfer."""
        return to_host(a)

    def copy(self) -> DeviceStorage:
        """A new, private storage over a copy of this one's buffer, on the same device (or sharding)."""
        out = type(self)()
        out.readonly = False
        with x64(), OWNERS:  # (taken while no write in another thread is donating it)
            out.owner = jnp().array(self.owner, copy=True)
        out.device = self.device
        out.jax_view = self.jax_view
        return out


class ShardedStorage(DeviceStorage):
    """Memory spread over several JAX devices: `owner` is one JAX array with a sharding over them (its
    `device` a Device standing for the sharding). Executables are compiled per layout: the owner's sharding
    is part of their cache keys (`sharded`)."""

    __slots__ = ()
    sharded = True


def storage_class(dev: Device) -> type[DeviceStorage]:
    """The storage kind of memory on `dev`."""
    return ShardedStorage if dev.platform == "sharded" else DeviceStorage


def adopt(buffer, dev: Device, readonly: bool = False, dtype=None) -> Array:
    """An Array over JAX array `buffer` (on `dev`), whose storage it becomes; `readonly` when stridex does
    not own it (the first write then copies instead of donating)."""
    dtype = dtype if dtype is not None else FROM_NUMPY[np.dtype(buffer.dtype)]
    out = adopt_out(buffer, View.contiguous(tuple(buffer.shape)), dtype, dev)
    out._storage.readonly = readonly  # type: ignore[misc]  # (a DeviceStorage's slot)
    return out


def put(a: np.ndarray, dev: Device) -> Array:
    """A copy of host ndarray `a` on `dev` (an explicit transfer)."""
    return adopt(host_to_device(a, dev, dev.jax), dev, dtype=FROM_NUMPY[a.dtype])


def host_to_device(a: np.ndarray, dev: Device, where):
    """A JAX array on `where` (`dev`'s JAX device or a sharding over it) holding a copy of host ndarray `a`'s
    values as they are now. `jax.device_put` alone does not promise that: on a CPU device JAX aliases aligned
    host memory instead of copying it (`may_alias=False` notwithstanding), and elsewhere it copies
    asynchronously; either way a write into `a` after the call would reach the array. So on a CPU device `a`
    is copied first (memory of its own, which JAX may alias: nothing else writes it), and elsewhere the
    transfer is waited for."""
    with x64():
        if dev.platform == "cpu":
            return jax().device_put(np.array(a, order="C", copy=True), where)
        return jax().device_put(a, where).block_until_ready()


def device_of_value(value) -> Device:
    """The device of a trace's payload value: an Array's (a tracer's, through its own trace), else the host
    (a Python scalar)."""
    return value.device if isinstance(value, Array) else HOST


def index_on(k: Array, dev: Device) -> Array:
    """Host index array `k` (integers or a mask) on `dev`, beside the array it indexes: an explicit transfer
    of the index's values (on a mesh, replicated over it, as every part of the indexed array may need it)."""
    return adopt(host_to_device(window(k), dev, creation_sharding(dev)), dev, dtype=k._dtype)


def is_jax_array(x) -> bool:
    """Whether `x` is a JAX array (told without importing JAX: JAX is loaded when one exists)."""
    return type(x).__module__.startswith("jax") and hasattr(x, "sharding") and hasattr(x, "devices")


def is_host_jax_array(x) -> bool:
    """Whether JAX array `x` is a host array in stridex's model: one buffer on JAX's first CPU device (cpu:0),
    the device JAX computes host arrays on, whose memory NumPy shares. A JAX array on another device (cpu:1,
    a GPU, a sharding over several) keeps its device when stridex takes it."""
    devices = x.devices()
    return len(devices) == 1 and devices == host_sharding().device_set


def from_dlpack_producer(x, dev: Device | None, copy: bool | None) -> Array:
    """A stridex array over the device memory of DLPack producer `x` (a JAX array, a CUDA tensor), taken over
    by JAX without a copy (read-only: copied on the first write), moved to `dev` when that is elsewhere."""
    if not is_jax_array(x):
        try:
            x = jax().dlpack.from_dlpack(x)
        except (RuntimeError, TypeError, ValueError) as exc:  # a device JAX does not have here, say
            raise BufferError(f"from_dlpack: cannot import a {type(x).__name__} on DLPack device "
                              f"{x.__dlpack_device__()}: {exc}") from exc
    return from_jax(x, dev, copy)


def from_jax(x, dev: Device | None, copy: bool | None) -> Array:
    """A stridex array over JAX array `x`: shared (read-only: copied on the first write) when it already
    lives on `dev` (None: where it is), else transferred."""
    here = of_jax(x.sharding) if len(x.sharding.device_set) > 1 else of_jax(next(iter(x.devices())))
    if dev is None or dev is here or dev == here:
        if copy:
            with x64():
                return adopt(jnp().array(x, copy=True), here)
        return adopt(x, here, readonly=True)
    if copy is False:
        raise ValueError(f"asarray(copy=False): the JAX array is on {here.name}, not {dev.name}; moving it is a copy")
    if dev.is_host:
        return _host_array(np.asarray(x))
    with x64():
        return adopt(jax().device_put(x, dev.jax), dev)


def _host_array(a: np.ndarray) -> Array:
    return adopt_host(a, copy=True)


def materialized(x: Array):
    """The JAX value of device array `x`: its buffer when `x` spans all of it, else its View read on the
    device (one compiled gather or slice). The caller holds `OWNERS` until JAX has taken it."""
    st, view = x._storage, x._view
    buffer = st.owner
    if st.jax_view is view or is_whole(tuple(buffer.shape), view):  # type: ignore[arg-type]  # (a device array has its View)
        return buffer
    return run(_READ, (x,), {})._storage.owner


def to_host(x: Array) -> np.ndarray:
    """The values of device array `x` as a new, writable host ndarray (an explicit device-to-host transfer;
    JAX hands a CPU device's buffer to NumPy as a read-only view of it, which is copied)."""
    with OWNERS:  # (JAX's host buffer of a CPU device's array is the device buffer: copied before any write donates it)
        out = np.asarray(jax().device_get(materialized(x)))
        return out if out.flags.writeable else out.copy()


def transfer(x: Array, dev: Device) -> Array:
    """`x` on `dev`: the same array when it is there already, else a copy there."""
    here = x.device
    if here is dev or here == dev:
        return x
    if here.is_host:
        return put(window(x), dev)
    if dev.is_host:
        return adopt_host(to_host(x), copy=False)
    with x64(), OWNERS:
        return adopt(jax().device_put(materialized(x), dev.jax), dev, dtype=x._dtype)


# --- values that live on a device for the executables' sake -----------------------------------------

_INDICES: dict = {}  # (device name, offset) -> that int64 on the device; also the scalars passed (`_scalar_on`)
_INDICES_MAX = 1 << 12  # (emptied when full: a loop over distinct values transfers each once, and keeps few)
caches.on_clear(_INDICES.clear)


def _index_on(dev: Device, value: int):
    """`value` as an int64 JAX scalar on `dev`, made once (an explicit transfer) and kept: the View offsets
    an executable takes as arguments, so that x[0], x[1], ... share one executable instead of compiling one
    each, and no call transfers anything implicitly."""
    key = (dev.name, value)
    index = _INDICES.get(key)
    if index is None:
        if len(_INDICES) >= _INDICES_MAX:
            _INDICES.clear()
        with x64():
            index = _INDICES[key] = jax().device_put(np.int64(value), creation_sharding(dev))
    return index


def _scalar_on(dev: Device, value, dtype):
    """Python scalar `value` stored as `dtype` (as NumPy stores it into an array), on `dev` (an explicit
    transfer, made once per value and kept like the indices): the value of `x[key] = value`, passed to the
    write's executable rather than compiled into it."""
    return value_on(dev, np.asarray(value, dtype=dtype.np))


def value_on(dev: Device, value: np.ndarray):
    """0-D ndarray `value` on `dev` (made once per value and kept, like the indices)."""
    key = (dev.name, value.dtype, value.tobytes())
    scalar = _INDICES.get(key)
    if scalar is None:
        if len(_INDICES) >= _INDICES_MAX:
            _INDICES.clear()
        with x64():
            scalar = _INDICES[key] = jax().device_put(value, creation_sharding(dev))
    return scalar


def passed_scalar(value) -> np.ndarray | None:
    """Python scalar operand `value` as the 0-D ndarray an executable takes in its place (the 64-bit dtype of
    its kind, weakly typed again inside: `weakly_typed`), or None for an int outside int64, which stays a
    constant of the program (no argument dtype holds it with its weak meaning; rules compare it exactly)."""
    t = type(value)
    if t is int and not -(1 << 63) <= value < (1 << 63):
        return None
    return np.asarray(value, dtype=_PASSED_DTYPES[t])


_PASSED_DTYPES = {bool: np.bool_, int: np.int64, float: np.float64, complex: np.complex128}


def _fits(value: int, args) -> bool:
    """Whether Python int `value` converts to every array operand's dtype as NumPy converts it without error.
    One that does not stays a constant of the program, whose lowering raises NumPy's OverflowError at the call
    as the host does (or, for a comparison, answers it exactly)."""
    for a in args:
        if isinstance(a, Array):
            d = a._dtype.np
            if d.kind in "iu":
                info = np.iinfo(d)
                if not info.min <= value <= info.max:
                    return False
            elif d == np.float16 and not -65504 <= value <= 65504:
                return False
    return True


# --- eager primitives on a device ---------------------------------------------------------------

_CACHE = caches.ProgramCache("device")  # key -> lower.Executable (layouts: each output's (View, dtype))


class _Read:
    """The primitive-like record `materialized` runs: a View of a device buffer as its own array."""

    name = "read_view"
    kind = "compute"
    multiple_results = False
    data_dependent = False
    values = None

    @staticmethod
    def abstract_eval(aval):
        return aval

    @staticmethod
    def lower(ctx, x):
        return x


_READ = _Read()


def _freeze(value):
    """A hashable stand-in for a parameter value that keeps apart what `==` confuses (-0.0 and 0.0, 1, 1.0
    and True: `tree.freeze`), lists, dicts and ndarrays included."""
    t = type(value)
    if t is tuple or t is list:
        return (t, *map(_freeze, value))
    if t is dict:
        return (dict, *((k, _freeze(v)) for k, v in value.items()))
    if t is np.ndarray:
        return (t, value.dtype.str, value.shape, value.tobytes())
    return freeze_or_id(value)


OWNERS = processes.lock("device.OWNERS", threading.RLock())
"""Held while a device storage's buffer is taken and handed to JAX, and while a write replaces it.

A write donates the buffer it replaces (`_write`), so a buffer taken by one thread is dead once another
thread's write has run: work on device arrays takes their buffers and dispatches its executable (JAX's
dispatch is asynchronous: that part is short) holding this lock, and a write reads, donates and replaces
its target's buffer holding it. Re-entrant: a write's operands are read inside it, a jit call's arguments
(`materialized`) too."""


class OnHost(Exception):  # noqa: N818  (a signal, as `OnDevice` is, not an error)
    """Raised by the device executor for work that must run on the host (a primitive whose result's shape depends on
    the data, or no array on a device after all): `stridex._exec.route` runs it there, with its results sent back
    to `device`."""

    def __init__(self, device: Device):
        super().__init__(device)
        self.device = device


def run(prim, args, params):
    """Run primitive `prim` eagerly on the device its array arguments live on (all on one device); `OnHost` for
    work that must run on the host."""
    if jax_bridge.RUNTIME_FORKED:  # (a cached executable would be called without asking JAX for anything first)
        jax_bridge.check_runtime()
    with OWNERS:
        return _run(prim, args, params)


def _run(prim, args, params):
    # One pass over the arguments: their device, the cache key of this call and the buffers to pass. Python
    # scalar operands and the primitive's value params (`Primitive.values`) are arguments too (after the
    # buffers and the offsets), so that x + 1.0, x + 2.0, ... and full(n, v) for every v share one executable.
    dev = None
    values = prim.values
    if values and params:
        key_params, passed = _passed_params(prim, params)
    else:
        key_params, passed = params, ()
    key = [prim, _params_key(key_params) if key_params else (), matmul_key()]  # (a lowering may read the precision)
    buffers, offsets, scalars = [], [], []
    for a in args:
        if isinstance(a, Array):
            st = a._storage
            d = st.device
            if dev is None:
                dev = d
            elif d is not dev and d != dev:
                raise _mixed(prim, dev, d)
            if d is HOST:
                continue
            v = a._view
            buffers.append(st.owner)
            if v is st.jax_view or is_whole(st.jax_view.shape, v):
                key.append((st.jax_view.shape, a._dtype, v.shape, True))
            else:  # (the offset is an argument: every View of this shape and these strides shares the executable)
                key.append((st.jax_view.shape, a._dtype, v.shape, v.strides))
                offsets.append(v.offset)
        elif type(a) in PY_SCALARS:
            scalar = passed_scalar(a) if type(a) is not int or _fits(a, args) else None
            if scalar is None:
                key.append((type(a), repr(a)))  # (a constant of the program: see `passed_scalar`)
            else:
                key.append(type(a))
                scalars.append(scalar)
        else:
            raise TypeError(f"{prim.name}: an eager operation on a device array got a {type(a).__name__} operand; "
                            "pass stridex arrays on that device or Python scalars")
    if dev is None:
        dev = current_default()
    if dev.is_host:  # (no array on a device after all: creation with the host as the default)
        raise OnHost(dev)
    if prim.kind != "compute" or prim.data_dependent:
        if prim.data_dependent:
            raise OnHost(dev)  # (its output's shape depends on the data: it runs on the host)
        if prim.kind == "write":
            return _write(prim, args, params, dev)
        raise AssertionError("views of device arrays are metadata; they never reach the device executor")
    key.append(dev.name)
    if dev.platform == "sharded":  # one device label, many layouts: the executable is compiled for these
        key.append(tuple(b.sharding for b in buffers))
    key = tuple(key)
    if offsets:
        buffers += [_index_on(dev, o) for o in offsets]
    if scalars or passed:
        buffers += [value_on(dev, v) for v in (*scalars, *passed)]
    entry = _CACHE.get(key)
    if entry is None:
        entry = _compile(prim, args, params, buffers, dev, key)
    call = entry.call
    outs = call(*buffers)
    if not entry.settled:
        settle(entry, call)
    if prim.multiple_results:
        return tuple(adopt_out(o, v, d, dev) for o, (v, d) in zip(outs, entry.layouts))
    view, dtype = entry.layouts[0]
    return adopt_out(outs[0], view, dtype, dev)


def _passed_params(prim, params) -> tuple:
    """(params with each value param replaced by its argument's dtype, for the cache key; the arguments, as
    0-D ndarrays): a primitive's value params (`Primitive.values`), each stored by its rule as the lowering
    takes it."""
    key_params = dict(params)
    passed = []
    for name, store in prim.values.items():
        value = store(params[name], params)
        key_params[name] = ("argument", value.dtype)
        passed.append(value)
    return key_params, tuple(passed)


def _mixed(prim, dev: Device, other: Device) -> ValueError:
    return ValueError(f"{prim.name}: its array arguments live on different devices ({dev.name} and {other.name}); "
                      "move them to one with x.to_device(...) first")


def _params_key(params: dict):
    """The parameters as part of an executable's cache key: as they are when hashable and free of floats
    (the usual case: axes, dtypes, flags), else through `_freeze`, which keeps -0.0 apart from 0.0."""
    items = tuple(params.items())
    try:
        hash(items)
    except TypeError:
        return _freeze(items)
    for v in params.values():
        if type(v) in _INEXACT or (type(v) is tuple and _holds_inexact(v)):
            return _freeze(items)
    return items


_INEXACT = (float, complex)


def _holds_inexact(values: tuple) -> bool:
    for v in values:
        if type(v) in _INEXACT or (type(v) is tuple and _holds_inexact(v)):
            return True
    return False


def adopt_out(buffer, view: View, dtype, dev: Device | None = None) -> Array:
    """An Array over a JAX result `buffer` whose View and dtype are known (an executable's or a jit program's
    output). On a device (`dev`): a DeviceStorage (ShardedStorage) whose buffer only this storage holds (writes
    may donate it). On the host (`dev` None): the JAX array kept on the Array, its storage `JAX_RESULT` until
    a use makes its JaxResultStorage (read-only, its NumPy buffer made on first read). Built field by field: this is on every eager device operation's and every jit call's path (the memo's
    generated code writes the same fields out)."""
    out = Array()
    out._view = view
    out._dtype = dtype
    out._np = None
    if dev is None:
        out._jax = buffer
        out._storage = JAX_RESULT
        return out
    storage = out._storage = ShardedStorage() if dev.platform == "sharded" else DeviceStorage()
    storage.readonly = False
    storage.owner = buffer
    storage.device = dev
    storage.jax_view = view
    return out


def _layout(a: Array) -> tuple:
    """(View, whole, None) of an array argument as its executable reads it: all of its buffer, or its View
    at an offset the call passes."""
    st, v = a._storage, a._view
    return (v, v is st.jax_view or is_whole(st.jax_view.shape, v), None)  # type: ignore[union-attr,arg-type]  # (a device array's)


def _avals(args) -> list:
    return [ShapedArray(a._view.shape, a._dtype) if isinstance(a, Array) else aval_of(a) for a in args]  # type: ignore[union-attr]  # (device arrays: Views)


def _out_avals(prim, avals, params) -> tuple:
    out = prim.abstract_eval(*avals, **params)
    return tuple(out) if prim.multiple_results else (out,)


def _compile(prim, args, params, buffers, dev, key) -> Executable:
    """Compile `prim`'s lowering for these arguments (their Views read inside) on `dev`; cache and return
    its entry. The buffers are the arrays', then the offsets of Views read at one, then the Python scalar
    operands and the value params passed as arguments (see `_run`)."""
    if prim.lower is None:
        raise NotImplementedError(f"{prim.name} has no JAX lowering, so it cannot run on {dev.name}")
    avals = _avals(args)
    avals_out = _out_avals(prim, avals, params)
    ctx = LoweringContext(avals, avals_out)
    layout = [_layout(a) if isinstance(a, Array) else
              (None, False, _PASSED if passed_scalar(a) is not None and (type(a) is not int or _fits(a, args)) else a)
              for a in args]
    n_arrays = sum(1 for a in args if isinstance(a, Array))
    n_offsets = sum(1 for view, whole, _ in layout if view is not None and not whole)
    value_names = tuple(prim.values) if prim.values and params else ()
    n_in = len(args)
    step = Step(prim, params, tuple(range(n_in)), ctx, tuple((name, n_in + k) for k, name in enumerate(value_names)))
    run = lower.program([step], tuple(range(n_in + len(value_names), n_in + len(value_names) + len(avals_out))))

    def program(*buffers_in):
        arrays = iter(buffers_in[:n_arrays])
        offsets = iter(buffers_in[n_arrays:n_arrays + n_offsets])
        passed = iter(buffers_in[n_arrays + n_offsets:])
        values = [(weakly_typed(next(passed)) if scalar is _PASSED else scalar) if view is None else
                  read_view(next(arrays), view, None if whole else next(offsets)) for view, whole, scalar in layout]
        return tuple(run(values + [next(passed) for _ in value_names]))

    # JAX would drop arguments a program does not read (an empty input's), and an executable left with none
    # runs on JAX's default device: the arguments are kept, so that the program runs where they are.
    options = {"keep_unused": True} if n_arrays else {"keep_unused": True, "out_shardings": creation_sharding(dev)}
    compiled = lower.compile(program, buffers, **options)
    entry = Executable(compiled, tuple((View.contiguous(a.shape), a.dtype) for a in avals_out))
    _CACHE.put(key, entry)
    return entry


_PASSED = object()  # (in a layout: a Python scalar operand the executable takes as an argument)


def _write(prim, args, params, dev):
    """`prim` (`assign`) into its target's device buffer, in place (the old buffer donated); returns the target.

    A basic key (ints, slices) is folded into the target's View, and the View's offset and a Python scalar
    value are arguments of the executable: x[0] = 1.5, x[7] = -2.0, ... run one executable."""
    target, value, *indices = args
    st = target._storage
    template = params["template"]
    view = target._view if indices else _basic_view(target._view, template)
    if view is None:
        view = target._view
    elif not indices:
        template = ()  # (the key is in the View now: the write covers all of it)
    for n, stride in zip(view.shape, view.strides):
        if stride == 0 and n > 1:
            raise ValueError(f"cannot write into a broadcast view of shape {view.shape}: its elements share memory "
                             "(stride 0); write into the array it was broadcast from instead")
    if any(isinstance(i, Array) and i._dtype.kind == "bool" for i in indices) and getattr(value, "size", 1) != 1:
        raise OnHost(dev)  # x[mask] = values: how many are selected depends on the data
    if type(value) in PY_SCALARS:
        value = _scalar_on(dev, value, target._dtype)
    whole = view is st.jax_view or is_whole(st.jax_view.shape, view)
    # Each operand is read from its own buffer, or, when it shares the target's buffer (`x[0] = x[1]`,
    # `x[2] += 1.0`, an index array viewing the target), from the target's buffer argument itself: a donated
    # buffer must not be passed twice, and inside the program every read comes before the write.
    buffers, offsets = [], [] if whole else [view.offset]
    key = ["write", prim, _params_key({"template": template}), st.jax_view.shape, target._dtype, view.shape,
           True if whole else view.strides, not st.readonly, dev.name]
    layouts, avals, from_target = [], [], []
    for operand in (value, *indices):
        if isinstance(operand, Array):
            if operand.device is not dev and operand.device != dev:
                raise _mixed(prim, dev, operand.device)
            layout = _layout(operand)
            aval = ShapedArray(operand.shape, operand._dtype)
            shared = operand._storage.owner is st.owner
            if not shared:
                buffers.append(operand._storage.owner)
            if not layout[1]:
                offsets.append(operand._view.offset)
            key.append((operand._storage.jax_view.shape, aval.shape, aval.dtype, layout[1] or layout[0].strides,
                        shared))
        else:  # (a Python scalar value, on the device already)
            layout, aval, shared = (View.contiguous(()), True, None), ShapedArray((), target._dtype), False
            buffers.append(operand)
            key.append(((), aval.dtype, True, False))
        layouts.append(layout)
        avals.append(aval)
        from_target.append(shared)
    donate = not st.readonly
    if st.sharded:  # (one device label, many layouts: as in `run`)
        key.append((st.owner.sharding, *(b.sharding for b in buffers)))
    key = tuple(key)
    entry = _CACHE.get(key)
    if entry is None:
        target_aval = ShapedArray(view.shape, target._dtype)
        ctx = LoweringContext([target_aval, *avals], [target_aval])
        n_in = from_target.count(False)
        sources = tuple(from_target)
        n_values = 1 + len(layouts)
        run = lower.program([Step(prim, {"template": template}, tuple(range(n_values)), ctx)], (n_values,))

        def program(buffer, *rest):
            arrays, dynamic = iter(rest[:n_in]), iter(rest[n_in:])
            start = None if whole else next(dynamic)
            values = [read_view(buffer if shared else next(arrays), v, None if w else next(dynamic))
                      for (v, w, _), shared in zip(layouts, sources)]
            (updated,) = run([read_view(buffer, view, start), *values])
            return write_view(buffer, view, updated, start)

        example = [st.owner, *buffers, *[_index_on(dev, o) for o in offsets]]
        entry = Executable(lower.compile(program, example, donate=(0,) if donate else ()))
        _CACHE.put(key, entry)
    call = entry.call
    st.owner = call(st.owner, *buffers, *[_index_on(dev, o) for o in offsets])
    if not entry.settled:
        settle(entry, call)
    st.readonly = False
    return target


def _basic_view(view: View, template: tuple) -> View | None:
    """The View a basic key (a template of ints, slices, newaxis and at most one ellipsis) selects from
    `view`, or None for a key that is not basic."""
    tags = [entry[0] for entry in template]
    if not set(tags) <= {"int", "slice", "newaxis", "ellipsis"} or tags.count("ellipsis") > 1:
        return None
    indexing = sum(1 for t in tags if t in ("int", "slice"))
    entries = []
    axis = 0
    for entry in template:
        if entry[0] == "ellipsis":
            for _ in range(len(view.shape) - indexing):
                entries.append(("slice", 0, view.shape[axis], 1))
                axis += 1
        else:
            entries.append(entry)
            axis += entry[0] != "newaxis"
    while axis < len(view.shape):
        entries.append(("slice", 0, view.shape[axis], 1))
        axis += 1
    return view.index(tuple(entries))


def write_whole(prim, target: Array, value: Array) -> Array:
    """Write all of `value` (on target's device, of target's shape) into target's View, by write primitive `prim`
    (`assign`, whose lowering gives the View's new value)."""
    return _write(prim, (target, value), {"template": ()}, target.device)
