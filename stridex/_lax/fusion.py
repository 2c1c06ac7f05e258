"""Eager fusion: elementwise work recorded instead of run, and run later as one pass, block by block.

An eager elementwise primitive (`Primitive(elementwise=True)`) on large enough arrays returns an Array whose
storage is a `PendingStorage`: the record of the primitive, its params and its inputs (NumPy windows of the
input arrays' memory, Python scalars, or other pending records). Shape and dtype come from the primitive's
abstract evaluation at the call. Records that feed each other form a `Group`; forcing any member (asking its
storage for memory: a window, a buffer, a write) runs every live member of the group in one pass: the
blocks of the result (`BLOCK_ELEMENTS` each) go through every record's own eager impl in turn, in scratch
memory, and the records whose arrays are still alive write their block into their result. The values are
those of the op-by-op eager path, bit for bit, because every impl is elementwise (a block's result is the
whole result's block; the records flagged elementwise are audited for that) and runs on the same values.

Writes are never reordered: a storage that pending records read becomes a `ReadStorage` (writes ask it
first, and it runs its readers before the write), and a write into a pending array runs it first. Memory
foreign code may write behind stridex's back (borrowed NumPy memory, a window handed out by `__array__` or
DLPack) is never read later: an operation reading it runs now.

The switch: `fusion(False)` (a context manager) or `STRIDEX_FUSION=0` in the environment.
"""

from __future__ import annotations

import contextlib
import contextvars
import itertools
import os
import threading
import weakref
from concurrent.futures import ThreadPoolExecutor
from math import prod

import numpy as np

from stridex._core.array import Array
from stridex._core.avals import aval_of
from stridex._core.dtypes import FROM_NUMPY
from stridex._core.storage import HostStorage, JaxResultStorage, Storage, output_buffer
from stridex._core.view import View

# --- the thresholds (measured: see docs/fusion.md and benchmarks/fusion.py) ---------------------------------

# An elementwise operation whose operands have fewer elements than this runs at once (deferral costs a few
# microseconds per operation; below this size running the operation costs no more than that).
# (STRIDEX_FUSION_MIN_ELEMENTS overrides it: a test suite run with 1 defers everything it can.)
DEFER_MIN_ELEMENTS = int(os.environ.get("STRIDEX_FUSION_MIN_ELEMENTS", "32768"))
# Elements per block of a pass: each block goes through the whole expression in scratch memory that stays in
# the cache.
BLOCK_ELEMENTS = 16384
# A pass with at least this many elements runs its blocks on a thread pool as well as the calling thread.
THREADED_MIN_ELEMENTS = 1 << 20
# A group holds at most this many records and reads at most this many distinct input windows; a record that
# would exceed either runs the group first (and starts a new one), so memory held by pending work is bounded.
MAX_RECORDS = 512
MAX_LEAVES = 32

_ENABLED_BY_DEFAULT = os.environ.get("STRIDEX_FUSION", "1").strip().lower() not in ("0", "false", "off", "no")
_ENABLED: contextvars.ContextVar[bool] = contextvars.ContextVar("stridex_fusion", default=_ENABLED_BY_DEFAULT)

# One lock orders recording and forcing across threads: a group is run once, by one thread, and its
# members' storages change kind under it. (The blocks of a pass run on the pool without it.)
LOCK = threading.RLock()


class PendingStorage(Storage):
    """The memory of a pending array: not computed yet. Its `owner` is the `Record` that computes it; every
    request for the memory (a window, a buffer, a write, a hand-over to JAX) runs the record's group first,
    after which the storage is a `HostStorage` (or a `ReadStorage`, while later records read it) holding the
    result. Views of a pending array share this storage, as views do, without running it."""

    __slots__ = ()
    readonly = True  # (a write asks `writable()`, which runs it first)

    def window(self, a) -> np.ndarray:
        force(self)
        return self.window(a)  # (its class is a host one now)

    def host_values(self, a) -> np.ndarray:
        force(self)
        return self.window(a)

    def numpy_buffer(self) -> np.ndarray:
        force(self)
        return self.buf

    def shared_buffer(self) -> np.ndarray | None:
        return None  # (no NumPy array has reached memory not computed yet)

    def jax_argument(self, a):
        force(self)
        return self.jax_argument(a)

    def writable(self) -> np.ndarray:
        force(self)
        return self.writable()

    def block_until_ready(self, a) -> None:
        force(self)

    def copy(self) -> Storage:
        force(self)
        return self.copy()

    def private(self) -> bool:
        return True

    def export(self, a) -> None:
        force(self)
        self.export(a)


class ReadStorage(HostStorage):
    """Host memory that pending records read (`readers`): a write asks `writable()`, which runs them first and
    makes the storage a `HostStorage` again. The eager fast paths (which write windows directly) are off."""

    __slots__ = ()
    readonly = True
    fast_views = False

    def writable(self) -> np.ndarray:
        run_readers(self)
        return self.buf

    def export(self, a) -> None:
        run_readers(self)
        HostStorage.export(self, a)


def run_readers(storage: Storage) -> None:
    """Run the pending groups that read `storage` (before a write into it), and make it a plain host storage."""
    with LOCK:
        readers = storage.readers
        storage.readers = None
        if readers:
            for ref in readers:
                group = ref()
                if group is not None and not group.done:
                    run_group(group)
        if type(storage) is ReadStorage:
            storage.__class__ = HostStorage  # type: ignore[assignment]  # (the host kinds share one layout)


class Record:
    """One pending primitive application: `prim.impl(*inputs, **params)` where each input is a NumPy window
    already broadcast to `shape` (a leaf), a Python scalar, or an earlier `Record` of the same group and shape."""

    __slots__ = ("__weakref__", "dtype", "group", "inputs", "params", "prim", "result", "shape", "storage", "view")

    def __init__(self, prim, params, inputs, shape, dtype, group):
        self.prim = prim
        self.params = params
        self.inputs = inputs
        self.shape = shape
        self.dtype = dtype
        self.group = group
        self.view = View.contiguous(shape)
        self.result = None
        self.storage = None  # a weak reference to the PendingStorage, set by `record`


class Group:
    """Records that feed each other, in the order they were made (a topological order), held weakly: a record
    lives as long as its array or a later record that reads it. Run as one pass."""

    __slots__ = ("__weakref__", "done", "errors", "leaves", "members", "storages")

    def __init__(self, errors: dict):
        self.errors = errors  # NumPy's error state when its records were made (one per group)
        self.members: list = []  # weak references to the Records
        self.leaves: dict = {}  # id(window) -> the window broadcast to the record's shape (the inputs it reads)
        self.storages: list = []  # the storages whose memory the leaves view (their `readers` name this group)
        self.done = False


# --- the switch --------------------------------------------------------------------------------------------


def enabled() -> bool:
    """Whether eager elementwise work may be deferred in this context."""
    return _ENABLED.get()


@contextlib.contextmanager
def enable(on: bool = True):
    """Within the block, eager fusion is on (`on` True) or off, in this thread (a context variable)."""
    token = _ENABLED.set(bool(on))
    try:
        yield
    finally:
        _ENABLED.set(token.old_value if token.old_value is not contextvars.Token.MISSING else _ENABLED_BY_DEFAULT)


# --- recording ---------------------------------------------------------------------------------------------

_PY_SCALARS = frozenset({bool, int, float, complex})
_DEFERRABLE_ERRORS = frozenset({"warn", "ignore"})


def record(prim, args, params):
    """A pending Array for `prim.bind(*args, **params)`, or None: then the caller runs it now."""
    if not _ENABLED.get():
        return None
    large = False
    for a in args:
        t = type(a)
        if t is Array:
            st = a._storage
            if not st.is_host:
                return None  # (on a JAX device: see `stridex._lax.device`)
            if type(st) is PendingStorage or a.size >= DEFER_MIN_ELEMENTS:
                large = True
        elif t not in _PY_SCALARS:
            return None
    if not large:
        return None
    try:
        aval = prim.abstract_eval(*[aval_of(a) for a in args], **params)
    except Exception:
        return None  # (the op-by-op path raises its own error, at this line)
    shape = aval.shape
    if prod(shape) < DEFER_MIN_ELEMENTS or not _scalars_fit(args):
        return None
    if prim.name == "convert_element_type" and args[0].dtype.kind == "complex floating" \
            and params["new_dtype"].kind != "complex floating":
        return None  # (NumPy warns ComplexWarning once per call: a pass would warn once per block)
    errors = np.geterr()
    for mode in errors.values():
        if mode not in _DEFERRABLE_ERRORS:
            return None  # (errors that raise or print must do so at this line)
    if not _runs(prim, args, params):
        return None
    with LOCK:
        return _record(prim, args, params, shape, aval.dtype, errors)


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
                    elif d.kind != "b" and not -65504 <= s <= 65504:
                        return False
    return True


def _record(prim, args, params, shape, dtype, errors):
    # The pending inputs of `shape` join this record's group; others (a view of a pending array, another shape)
    # are run first and read as windows.
    pending = []
    for a in args:
        if type(a) is Array and type(a._storage) is PendingStorage:
            rec = a._storage.owner
            if a._view is rec.view and rec.shape == shape and rec.group.done is False:
                pending.append(rec)
            else:
                force(a._storage)
    pending = [rec for rec in pending if not rec.group.done]  # (a force above may have run their group)
    group = None
    if pending:
        groups = []
        for rec in pending:
            if rec.group not in groups:
                groups.append(rec.group)
        group = max(groups, key=lambda g: len(g.members))
        for other in groups:
            if other is not group:
                if len(group.members) + len(other.members) < MAX_RECORDS and \
                        len(group.leaves) + len(other.leaves) <= MAX_LEAVES and other.errors == group.errors:
                    _merge(group, other)
                else:
                    run_group(other)
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
    if group is not None and (len(group.members) + 1 >= MAX_RECORDS or len(group.leaves) + len(leaves) > MAX_LEAVES
                              or group.errors != errors):
        run_group(group)
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
    group.members.append(weakref.ref(rec))
    storage = PendingStorage()
    storage.buf = None  # type: ignore[assignment]  # (not computed yet)
    storage.owner = rec
    storage.jax_view = storage.jax_alias = storage.jax_copy = None
    storage.readers = None
    rec.storage = weakref.ref(storage)
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
        st.__class__ = ReadStorage  # type: ignore[assignment]  # (the host kinds share one layout)
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


# --- forcing -----------------------------------------------------------------------------------------------


def force(storage: PendingStorage) -> None:
    """Compute a pending storage (with every live record of its group, in one pass)."""
    with LOCK:
        if type(storage) is not PendingStorage:
            return  # (another thread ran it meanwhile)
        run_group(storage.owner.group)


def evaluate(*arrays) -> None:
    """Run the pending work of every array in `arrays` (nested lists, tuples and dicts too)."""
    stack = list(arrays)
    while stack:
        x = stack.pop()
        if isinstance(x, Array):
            st = x._storage
            if type(st) is PendingStorage:
                force(st)
        elif isinstance(x, (list, tuple)):
            stack.extend(x)
        elif isinstance(x, dict):
            stack.extend(x.values())


def run_group(group: Group) -> None:
    """Run every live record of `group` in one pass (holding LOCK)."""
    if group.done:
        return
    members = [rec for ref in group.members if (rec := ref()) is not None and rec.result is None]
    storages = group.storages
    group.done = True
    group.members = []
    group.leaves = {}
    group.storages = []
    for st in storages:  # (the group no longer reads them: drop it from their readers)
        readers = st.readers
        if readers is not None:
            readers[:] = [r for r in readers if (g := r()) is not None and not g.done]
    if not members:
        return
    # The records to compute: those whose arrays are alive (outputs), and the records they read, walked back
    # in reverse record order (no recursion).
    outputs = {}
    needed = set()
    for rec in reversed(members):
        st = rec.storage()
        if st is not None and type(st) is PendingStorage:
            outputs[id(rec)] = st
            needed.add(id(rec))
        if id(rec) in needed:
            for x in rec.inputs:
                if type(x) is Record:
                    needed.add(id(x))
    steps = [rec for rec in members if id(rec) in needed]
    shape = steps[-1].shape
    results = {}
    for rec in steps:
        if id(rec) in outputs:
            results[id(rec)] = output_buffer(shape, rec.dtype)
    try:
        execute(steps, results, shape, group.errors)
    except BaseException:
        # (an impl raised: the group stays pending, and every request for its values raises again)
        group.done = False
        group.members = [weakref.ref(rec) for rec in members]
        raise
    for rec in steps:
        out = results.get(id(rec))
        if out is not None:
            st = outputs[id(rec)]
            rec.result = out
            st.buf = out.reshape(-1)
            st.owner = None
            st.__class__ = ReadStorage if st.readers else HostStorage  # type: ignore[assignment]
        rec.inputs = ()


# --- the host executor -------------------------------------------------------------------------------------

_POOL: ThreadPoolExecutor | None = None
_THREADS = max(1, min(os.cpu_count() or 1, 8))


def _pool() -> ThreadPoolExecutor:
    global _POOL
    if _POOL is None:
        _POOL = ThreadPoolExecutor(max_workers=_THREADS - 1, thread_name_prefix="stridex-fusion")
    return _POOL


def block_keys(shape: tuple, block: int) -> list:
    """Index keys that split an array of `shape` into blocks of about `block` elements (whole trailing axes,
    a slice of one axis, single indices before it), in C order."""
    if not shape:
        return [(Ellipsis,)]
    inner = 1
    k = len(shape) - 1
    while k > 0 and inner * shape[k] <= block:
        inner *= shape[k]
        k -= 1
    step = max(1, block // inner)
    n = shape[k]
    # (the Ellipsis keeps a block an ndarray: a key of ints alone would give NumPy scalars)
    return [outer + (slice(start, min(start + step, n)), Ellipsis)
            for outer in itertools.product(*[range(m) for m in shape[:k]])
            for start in range(0, n, step)]


class _Program:
    """A pass compiled from its records: for each step, the impl, its params and where each input comes from."""

    __slots__ = ("errors", "flagged", "lock", "steps")

    def __init__(self, steps, results):
        index = {id(rec): i for i, rec in enumerate(steps)}
        last_use = {}
        compiled = []
        for i, rec in enumerate(steps):
            sources = []
            for x in rec.inputs:
                if type(x) is Record:
                    j = index.get(id(x))
                    if j is None:  # (computed by an earlier pass: its result is a leaf)
                        sources.append((0, x.result))
                    else:
                        sources.append((1, j))
                        last_use[j] = i
                elif type(x) is np.ndarray:
                    sources.append((0, x) if x.ndim or not rec.shape else (2, x))  # (a 0-D operand: as it is)
                else:
                    sources.append((2, x))
            compiled.append([rec.prim, rec.params, sources, results.get(id(rec)), []])
        for j, i in last_use.items():
            compiled[i][4].append(j)
        self.steps = compiled
        self.flagged: dict = {}  # step -> {category: the inputs of a block that raised it}
        self.lock = threading.Lock()

    def run(self, keys) -> None:
        flags: list = []

        def note(kind, flag):
            flags.append(kind)

        with np.errstate(**{k: ("call" if v == "warn" else v) for k, v in self.errors.items()}, call=note):
            values: list = [None] * len(self.steps)
            for key in keys:
                for i, (prim, params, sources, out, free) in enumerate(self.steps):
                    args = [s[key] if kind == 0 else values[s] if kind == 1 else s for kind, s in sources]
                    r = prim.impl(*args, **params) if params else prim.impl(*args)
                    if flags:
                        self._flagged(i, flags, args)
                    if out is not None:
                        out[key] = r
                    values[i] = r
                    for j in free:
                        values[j] = None

    def _flagged(self, i, flags, args) -> None:
        with self.lock:
            seen = self.flagged.setdefault(i, {})
            for kind in flags:
                if kind not in seen:
                    seen[kind] = list(args)
        flags.clear()


def execute(steps, results, shape, errors: dict) -> None:
    """Run records `steps` (in order) over `shape`, block by block, writing the results of those in `results`,
    with NumPy's floating-point warnings as `errors` (NumPy's error state when they were recorded) says."""
    program = _Program(steps, results)
    program.errors = errors
    keys = block_keys(shape, BLOCK_ELEMENTS)
    size = prod(shape)
    if size >= THREADED_MIN_ELEMENTS and _THREADS > 1 and len(keys) > 1:
        parts = min(_THREADS, len(keys))
        chunk = -(-len(keys) // parts)
        chunks = [keys[i:i + chunk] for i in range(0, len(keys), chunk)]
        futures = [_pool().submit(program.run, c) for c in chunks[1:]]
        try:
            program.run(chunks[0])
        finally:
            for f in futures:
                f.result()
    else:
        program.run(keys)
    if program.flagged:
        # NumPy warns once per ufunc call: each flagged step is run again on a block that raised each flag,
        # under the caller's error state, so that NumPy itself warns as the op-by-op call would.
        with np.errstate(**errors):
            for i in sorted(program.flagged):
                prim, params = program.steps[i][0], program.steps[i][1]
                done: list = []
                for args in program.flagged[i].values():
                    if any(a is args for a in done):
                        continue
                    done.append(args)
                    prim.impl(*args, **params)


# --- what was fused ----------------------------------------------------------------------------------------


def pending(x: Array) -> str | None:
    """The pending work behind array `x`, printed one record a line, or None when `x` is computed."""
    st = x._storage
    if type(st) is not PendingStorage:
        return None
    with LOCK:
        if type(st) is not PendingStorage:
            return None
        target = st.owner
        members = [rec for ref in target.group.members if (rec := ref()) is not None and rec.result is None]
    names = {}
    lines = []
    leaves = {}
    for rec in members:
        parts = []
        for x_ in rec.inputs:
            if type(x_) is Record:
                parts.append(names.get(id(x_), "?"))
            elif type(x_) is np.ndarray:
                name = leaves.setdefault(id(x_), f"in{len(leaves)}")
                parts.append(name)
            else:
                parts.append(repr(x_))
        names[id(rec)] = f"r{len(names)}"
        dtype = FROM_NUMPY[rec.dtype].name
        params = "".join(f", {k}={getattr(v, 'name', v)}" for k, v in rec.params.items())
        mark = "  <- x" if rec is target else ""
        lines.append(f"{names[id(rec)]}:{dtype}{list(rec.shape)} = {rec.prim.name}({', '.join(parts)}{params}){mark}")
    return "\n".join(lines)


# --- the public surface: `stridex.fusion` and `stridex.eval` -----------------------------------------------


class Fusion:
    """Eager fusion's switch and inspector (`stridex.fusion`).

    `with stridex.fusion(False): ...` runs every eager operation in the block at once (op by op), as
    `STRIDEX_FUSION=0` does for the whole process; `stridex.fusion(True)` turns it back on inside such a block.
    `stridex.fusion.enabled()` says whether it is on here, and `stridex.fusion.pending(x)` prints the pending work
    behind `x` (None once it is computed).

    >>> import stridex as sx
    >>> x = sx.linspace(0.0, 1.0, 100_000)
    >>> with sx.fusion(False):
    ...     y = sx.sin(x) + 1.0
    >>> sx.fusion.pending(y) is None
    True
    """

    def __call__(self, enabled: bool = True) -> contextlib.AbstractContextManager[None]:
        return enable(enabled)

    def enabled(self) -> bool:
        """Whether eager elementwise work may be deferred in this context."""
        return _ENABLED.get()

    def pending(self, x: Array) -> str | None:
        """The pending work that computes `x`, one record a line (`<- x` marks x's), or None when x is computed."""
        return pending(x)

    def __repr__(self) -> str:
        return f"stridex.fusion(enabled={_ENABLED.get()})"


fusion = Fusion()


def eval(*arrays: object) -> None:  # noqa: A001  (named as MLX's `mx.eval`, which it is)
    """Compute every pending array among `arrays` (arrays, or lists, tuples and dicts of them) now.

    Eager elementwise work on large arrays may be deferred and fused (see `stridex.fusion`); it runs when a value
    is needed anyway (printing, `float(x)`, NumPy, a reduction, `jit`). This forces it at a chosen point, as
    `mx.eval` does in MLX; `x.block_until_ready()` forces `x` too, as in JAX.

    >>> import stridex as sx
    >>> y = sx.sin(sx.linspace(0.0, 1.0, 100_000)) * 2.0
    >>> sx.eval(y)
    >>> sx.fusion.pending(y) is None
    True
    """
    evaluate(*arrays)
