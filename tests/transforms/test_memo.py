"""jit's memo (`stridex/_transforms/memo.py`): a jitted function's call, generated for the last call's arguments.

Every call is compared with eager execution; the memo's own decisions (a direct call, running the entry,
a miss) are observed by counting the calls of the compiled entry's `run` and of the Jitted's `_dispatch`.
"""

from __future__ import annotations

import itertools
import weakref

import ml_dtypes
import numpy as np
import pytest

pytest.importorskip("jax")

import stridex as sx
from stridex._core.storage import JAX_RESULT, HostStorage, JaxResultStorage, aligned_copy
from stridex._exec.device import adopt_out
from stridex._transforms import memo as memo_module
from stridex._transforms.handover import ALIAS_MIN_ELEMENTS, SNAPSHOT_MAX_BYTES
from stridex._transforms.memo import ALIAS, BUFFER, DEVICE, RESULT, TINY, TUPLE_MAX, WAYS, WINDOW, source
from tests.helpers import run_in_threads


def assert_same(a, b):
    assert a.shape == b.shape and a.dtype == b.dtype, (a.shape, a.dtype, b.shape, b.dtype)
    np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def counting_dispatches(jitted):
    """A list that grows by one on every general call of `jitted` (what its memo calls on a miss)."""
    calls = []
    real = jitted._dispatch
    jitted._dispatch = lambda *args, **kwargs: calls.append(1) or real(*args, **kwargs)
    return calls


def memo_of(jitted):
    memo = jitted.__call__
    assert hasattr(memo, "entry"), "no memo: the call goes to the general path"
    return memo


def counting_runs(jitted):
    """A list that grows by one on every call of `run` of each entry `jitted` compiles from now on."""
    runs = []
    for entry in jitted._cache.values():
        real = entry.run
        entry.run = lambda leaves, real=real: runs.append(1) or real(leaves)
    return runs


@pytest.mark.parametrize("kinds", [(), (BUFFER,), (DEVICE,), (RESULT,), (WINDOW,), (TINY,), (ALIAS,), (None,),
                                   (BUFFER, RESULT, WINDOW, TINY, None), (DEVICE, DEVICE, RESULT),
                                   (ALIAS, WINDOW, RESULT)])
@pytest.mark.parametrize("outputs", [None, "host", "device", "several", ("tuple", 0), ("tuple", 1), ("tuple", 3)],
                         ids=["None", "host", "device", "several", "tuple0", "tuple1", "tuple3"])
@pytest.mark.parametrize("checks_precision", [False, True])
def test_every_shape_of_memo_compiles(kinds, outputs, checks_precision):
    outputs, count = outputs if isinstance(outputs, tuple) else (outputs, 0)
    text = source(kinds, outputs, checks_precision, count)
    compile(text, "<memo>", "exec")
    views = sum(k in (BUFFER, DEVICE, RESULT, ALIAS) for k in kinds)
    assert text.count("type(a") == len(kinds)  # every argument's type and dtype
    assert text.count("._view is not view") == views  # a JAX buffer's or result's View (and device)
    assert text.count("._np is not window") == len(kinds) - views  # a NumPy window
    # (a host storage's kind checked; a JAX result's array passed as it is; results on the host made over the
    # executable's, each keeping its JAX array)
    assert text.count("._storage).__class__ is not kind") == sum(k == BUFFER for k in kinds)
    # (a large host window: its storage known by a weak reference, its alias passed, the program waited for)
    assert text.count("._storage) is not storage") == sum(k == ALIAS for k in kinds)
    assert text.count(".jax_alias) is not None") == (0 if outputs is None else sum(k == ALIAS for k in kinds))
    waits = text.count("result.block_until_ready()") + text.count("computed(result)")
    assert waits == (outputs is not None and ALIAS in kinds)
    if outputs is not None and (WINDOW in kinds or TINY in kinds):  # (snapshots passed before the bytes compared)
        assert text.index("call(") < text.index(" == ")
    assert text.count("._jax") == (0 if outputs is None else sum(k == RESULT for k in kinds) + (outputs == "host")
                                   + count)
    assert text.count("matmul_key()") == checks_precision
    assert text.count("link[0](") == 1 + bool(kinds or checks_precision)  # keywords, count or trace; a miss
    assert ("remember_after" in text) == (outputs is None or any(k in (BUFFER, DEVICE, WINDOW, TINY, ALIAS, None)
                                                                 for k in kinds))
    # (device buffers are taken and handed over holding the lock that writes replace them under)
    assert ("with owners:" in text) == (outputs is not None and DEVICE in kinds)
    assert text.count(".tobytes()") == (0 if outputs is None else sum(k in (WINDOW, None) for k in kinds))
    assert text.count("== bytes") == (0 if outputs is None else sum(k == TINY for k in kinds))
    assert ("out = Array()" in text) == (outputs in ("host", "device"))
    assert ("out_class()" in text) == (outputs == "device")
    assert text.count("] = Array()") + text.count(" = Array()") - text.count("out = Array()") == count  # (a tuple's)
    assert ("return outputs(" in text) == (outputs == "several")


def test_a_steady_loop_calls_the_executable_directly_from_the_fourth_call():
    f = lambda a, b: sx.sin(a) * b
    g = sx.jit(f)
    x, y = sx.asarray([0.5, 1.5]), sx.asarray([2.0, 3.0])
    r = g(x, y)  # traced, compiled
    runs = counting_runs(g)
    for _ in range(5):
        assert_same(g(x, y), f(x, y))
    # The second call runs the entry (the windows' snapshots made), the third too (the windows came again:
    # the memo is made); from the fourth, the memo calls the executable directly.
    assert len(runs) == 2
    r2 = g(y, x)
    for _ in range(2):
        assert_same(g(r, r2), f(r, r2))  # JAX results: the memo misses, then the entry runs
    runs = counting_runs(g)
    for _ in range(3):
        assert_same(g(r, r2), f(r, r2))
    assert len(runs) == 0  # JAX results are ready at once: the memo calls directly


@pytest.mark.parametrize("read_first", [False, True], ids=["not-read", "read-through-numpy"])
def test_a_host_jax_array_taken_by_asarray_is_called_directly(read_first):
    # `sx.asarray(jax_array)` on the host keeps the JAX array as a jit result does (a DLPack-shared read-only
    # NumPy buffer missed the direct call and was converted on every call): a steady loop over it goes to the
    # executable from the memo, neither running the entry nor reaching the general call.
    jnp = pytest.importorskip("jax.numpy")
    f = lambda a, b: a * b + a  # (exact in float32, which JAX arrays are without 64-bit mode)
    g = sx.jit(f)
    data = [np.array([0.5, 1.5, -2.0], dtype=np.float32), np.array([2.0, 3.0, 0.25], dtype=np.float32)]
    jx, jy = (jnp.asarray(d) for d in data)
    x, y = sx.asarray(jx), sx.asarray(jy)
    want = f(*(sx.asarray(d) for d in data))
    if read_first:
        want = f(x, y)  # (an eager read first: the arrays get their JaxResultStorage then)
    for _ in range(3):
        assert_same(g(x, y), want)
    dispatches, runs = counting_dispatches(g), counting_runs(g)
    for _ in range(3):
        assert_same(g(x, y), want)
    assert (len(dispatches), len(runs)) == (0, 0)
    assert set(memo_of(g).key[0]) <= {BUFFER, RESULT}  # (passed as JAX arrays, not as NumPy windows)
    assert np.shares_memory(np.asarray(x), np.asarray(jx))  # (shared, not copied)
    x[0] = 1.0  # (copied on the first write: the JAX array keeps its values, the call sees the new ones)
    assert (np.asarray(x)[0], np.asarray(jx)[0]) == (1.0, 0.5)
    assert_same(g(x, y), f(x, y))


def test_fresh_numpy_data_on_every_call_makes_no_memo():
    """A window a memo would know by its identity, never seen twice: no memo is made for it."""
    f = lambda w, batch: w * 0.5 + batch
    g = sx.jit(f)
    w = g(sx.asarray([1.0, 2.0]), sx.asarray([0.0, 0.0]))  # a JAX result
    for k in range(12):
        batch = sx.asarray(np.full(2, float(k)))
        assert_same(g(w, batch), f(w, batch))
    assert g._memos == ()


# Windows whose bytes the memo compares in place (a number or two: `handover.byte_view`) and through a copy
# of them (larger, strided, or of a dtype NumPy does not export).
WRITTEN = {  # (a fresh window, the index written, the value written there, the memo's kind for it)
    "one float64 (tiny)": (lambda: np.array([-0.0]), 0, 0.0, TINY),
    "two float64 (tiny)": (lambda: np.array([1.0, -0.0]), 1, 0.0, TINY),
    "one complex128 (tiny)": (lambda: np.array([complex(1.0, -0.0)]), 0, 1 + 0j, TINY),
    "a bool (tiny)": (lambda: np.array([True, False]), 1, True, TINY),
    "three float64": (lambda: np.array([1.0, -0.0, np.nan]), 1, 0.0, WINDOW),
    "a strided float64 pair": (lambda: np.array([1.0, 5.0, -0.0])[::2], 1, 0.0, WINDOW),
    "two bfloat16": (lambda: np.array([1.0, -0.0], dtype=ml_dtypes.bfloat16), 1, 0.0, WINDOW),
}


@pytest.mark.parametrize("through", ["NumPy", "stridex"])
@pytest.mark.parametrize("case", list(WRITTEN), ids=list(WRITTEN))
def test_a_written_input_runs_the_entry_with_its_new_bytes(case, through):
    make, index, value, kind = WRITTEN[case]
    f = lambda a: a * 2 if a.dtype != sx.bool else ~a
    g = sx.jit(f)
    x = sx.asarray(make())
    for _ in range(4):
        g(x)
    assert memo_of(g).key[0] == (kind,)
    runs = counting_runs(g)
    # equal as a number (-0.0 and 0.0, say), different bytes
    if through == "NumPy":
        x._np[index] = value
    else:
        x[index] = value
    assert_same(g(x), f(x))
    assert len(runs) == 1
    for _ in range(3):
        assert_same(g(x), f(x))
    assert len(runs) == 2  # once more to make the new snapshot, then direct calls


@pytest.mark.parametrize("count", [1, 3], ids=["tiny", "window"])
def test_an_input_written_before_every_call_keeps_its_memo(count):
    """Its bytes differ on every call, so it never gets a JAX copy: the memo made for it stays (remaking
    it on every call would cost more than it saves), and every call sees the new bytes."""
    f = lambda a, b: a * b
    g = sx.jit(f)
    written, steady = np.ones(count), np.arange(float(count))
    x, y = sx.asarray(written), sx.asarray(steady)
    for _ in range(4):
        written += 1.0
        g(x, y)
    memo, runs = memo_of(g), counting_runs(g)
    # (nor does it call the executable before comparing the bytes: a run discarded on every call would double
    # the work; the snapshots are passed ahead of the comparison only once every window has one)
    assert memo.key[1] is None
    for _ in range(5):
        written += 1.0
        assert_same(g(x, y), f(x, y))
    assert g.__call__ is memo and len(runs) == 5


def test_the_memo_misses_on_another_argument_dtype_count_or_precision():
    g = sx.jit(lambda a, b=None: a @ a if b is None else a @ b)
    x = sx.asarray(np.arange(4.0).reshape(2, 2))
    for _ in range(3):
        g(x)
    memo = memo_of(g)
    misses = counting_dispatches(g)
    other = sx.asarray(np.arange(4.0).reshape(2, 2))
    calls = [((x,), {}, x @ x, 0),
             ((x, x), {}, x @ x, 1),  # another count
             ((other,), {}, other @ other, 1),  # another window
             ((sx.astype(x, sx.float32),), {}, sx.astype(x @ x, sx.float32), 1),  # another dtype
             ((x,), {"b": x}, x @ x, 1)]  # keywords
    for args, kwargs, expected, missed in calls:
        before = len(misses)
        assert_same(memo(*args, **kwargs), expected)
        assert len(misses) - before == missed, (args, kwargs)
    with pytest.raises(TypeError):
        memo(np.asarray(x))  # not a stridex array: the general call, which refuses it as jit does
    with sx.matmul_precision("default"):
        before = len(misses)
        memo(x)  # compiled under another matmul precision
        assert len(misses) == before + 1


def test_a_memo_passes_a_call_of_any_other_form_on_whole():
    """A memo takes its arguments in named parameters (UNSET when not passed), with `*more` and `**kw` for
    the rest: a call with fewer or more arguments, or with keywords (its parameters' own names included:
    they are positional-only), reaches the general call with exactly the arguments it was given."""
    f = lambda a, b=None, c=None: a * 2 if b is None else (a * b if c is None else a * b + c)
    g = sx.jit(f)
    x, y = sx.asarray([1.0, 2.0]), sx.asarray([3.0, 4.0])
    for _ in range(3):
        g(x, y)
    memo = memo_of(g)
    misses = counting_dispatches(g)
    for args, kwargs in [((x,), {}), ((x, y, y), {}), ((x,), {"b": y}), ((), {"a": x, "b": y}), ((x, y), {"c": x})]:
        before = len(misses)
        assert_same(g(*args, **kwargs), f(*args, **kwargs))
        assert g.__call__ is memo and len(misses) == before + 1, (args, kwargs)
    for args, kwargs in [((x,), {"a0": y}), ((x, y), {"a1": y}), ((x, y, y, y), {})]:
        with pytest.raises(TypeError):
            f(*args, **kwargs)
        with pytest.raises(TypeError):
            g(*args, **kwargs)  # what the function itself refuses, as it refuses it
    assert_same(g(x, y), f(x, y))
    nothing = sx.jit(lambda: sx.ones(2))
    for _ in range(3):
        nothing()
    assert hasattr(nothing.__call__, "entry")
    with pytest.raises(TypeError):
        nothing(x)
    with pytest.raises(TypeError):
        nothing(a=x)
    assert_same(nothing(), sx.ones(2))


def assert_made_as_adopt_out_makes(out, device):
    """`out` has the fields, and its storage the kind and fields, that `adopt_out` gives a result over the same
    JAX array, View and dtype (on the host: the JAX array kept on the Array, its storage not made)."""
    st = out._storage
    reference = adopt_out(out._jax if device is None else st.owner, out._view, out._dtype, device)
    for name in ("_view", "_dtype", "_np", *(("_jax",) if device is None else ())):
        assert getattr(out, name) is getattr(reference, name), name
    ref = reference._storage
    assert type(st) is type(ref) and (st is ref) == (device is None)  # (on the host: JAX_RESULT)
    for name in ("owner", "jax_view", "device", "readonly", "is_host", "sharded"):
        assert getattr(st, name) is getattr(ref, name), name


@pytest.mark.parametrize("device", [None, "cpu:1"], ids=["host", "JAX device"])
def test_a_memo_builds_its_result_as_adopt_out_does(device):
    """The memo makes its one result in line; it must be what `adopt_out` makes, on the host (an Array that
    keeps the JAX array, its storage JAX_RESULT) and on a JAX device (a DeviceStorage) (tests/conftest.py
    gives JAX four CPU devices)."""
    g = sx.jit(lambda a: a * 2.0)
    r = g(sx.asarray([1.0, 2.0], device=device))
    for _ in range(3):
        out = g(r)
    assert memo_of(g).entry.direct is not None  # (the direct call made `out`)
    assert_made_as_adopt_out_makes(out, None if device is None else out.device)
    assert type(out._storage).__name__ == ("JaxResultNotAdopted" if device is None else "DeviceStorage")
    assert out.device == (sx.asarray(0.0).device if device is None else device)
    assert_same(out, sx.asarray([4.0, 8.0]))


@pytest.mark.parametrize("outputs", [1, 2, TUPLE_MAX, TUPLE_MAX + 1])
def test_a_memo_builds_a_tuple_of_results_as_adopt_out_does(outputs):
    """A tuple of host results, the program's outputs in order, is made in the memo's own code up to
    TUPLE_MAX outputs (beyond, by the entry's `outputs`): each must be what `adopt_out` makes, with the
    values, dtypes and shapes of eager execution (a 0-D integer among them, as a loop's counter)."""
    def f(a, i):
        parts = [a * float(k + 1) for k in range(outputs - 1)]
        return (*parts, sx.astype(sx.sum(a), sx.int64) + i) if outputs > 1 else (a * 2.0,)
    g = sx.jit(f)
    i = sx.asarray(np.int64(1))
    for make in (lambda: sx.asarray(np.arange(3.0)), lambda: sx.jit(lambda a: a + 0.5)(sx.asarray(np.arange(3.0)))):
        x = make()  # a window, then a JAX result
        for _ in range(5):
            g(x, i)
        memo, runs = memo_of(g), counting_runs(g)
        assert memo.key[1] == ("tuple" if outputs <= TUPLE_MAX else "several"), memo.key
        out = g(x, i)
        assert len(runs) == 0  # the direct call made `out`
        expected = f(x, i)
        assert type(out) is tuple and len(out) == len(expected) == outputs
        for o, e in zip(out, expected):
            assert type(o) is sx.Array
            assert_made_as_adopt_out_makes(o, None)  # (before any use makes the storage)
            assert_same(o, e)
        out[0][0] = -1.0  # (copy on write: the other results and the next call's are untouched)
        assert_same(g(x, i)[0], expected[0])
        if outputs > 1:
            assert_same(out[-1], expected[-1])


def test_a_dropped_jitted_function_is_freed_without_the_garbage_collector():
    """A memo reaches its Jitted through a weak reference: no cycle keeps compiled programs alive."""
    import gc
    import weakref

    g = sx.jit(lambda a: a + 1.0)
    x = sx.asarray([1.0])
    for _ in range(3):
        g(x)
    memo_of(g)
    ref = weakref.ref(g)
    gc.disable()
    try:
        del g
        assert ref() is None
    finally:
        gc.enable()


@pytest.mark.parametrize("sets", [2, WAYS])
def test_calls_alternating_between_a_few_argument_sets_stay_on_the_memos(sets):
    f = lambda a, b: a * 2.0 - b
    g = sx.jit(f)
    base = g(sx.asarray([1.0, 2.0]), sx.asarray([0.5, 0.5]))  # JAX results
    other = g(base, base)
    argument_sets = [(base, sx.asarray([float(k), 1.0])) for k in range(sets - 1)] + [(other, base)]
    for _ in range(6):  # (a memo is made when windows come again; their JAX copies, when their bytes do)
        for args in argument_sets:
            g(*args)
    dispatches, runs = counting_dispatches(g), counting_runs(g)
    for _ in range(3):
        for args in argument_sets:
            assert_same(g(*args), f(*args))
    assert (len(dispatches), len(runs)) == (0, 0)  # every call a memo's direct call
    assert len(g._memos) == sets


def test_the_least_recent_memo_is_dropped_beyond_the_ways():
    f = lambda a: a + 1.0
    g = sx.jit(f)
    inputs = [sx.asarray([float(k)]) for k in range(WAYS + 1)]
    for x in inputs:
        for _ in range(3):  # each set comes again: its memo is made, and displaces the least recent
            assert_same(g(x), f(x))
    assert len(g._memos) == WAYS
    dispatches = counting_dispatches(g)
    for x in inputs[1:]:
        for _ in range(2):
            assert_same(g(x), f(x))
    assert len(dispatches) == 0  # the last WAYS sets are remembered
    assert_same(g(inputs[0]), f(inputs[0]))
    assert len(dispatches) == 1


def test_views_and_results_of_other_calls_as_arguments():
    f = lambda a, b: a - b
    g = sx.jit(f)
    base = sx.jit(lambda a: a * 1.0)(sx.asarray(np.arange(6.0)))  # a JAX result
    cases = [(base, base), (base[1:], base[:-1]), (base[::2], base[1::2]), (base, sx.asarray(np.ones(6)))]
    for (a, b), _ in itertools.product(cases, range(3)):
        assert_same(g(a, b), f(a, b))


@pytest.mark.parametrize("count", [SNAPSHOT_MAX_BYTES // 8, SNAPSHOT_MAX_BYTES // 8 + 1, ALIAS_MIN_ELEMENTS - 1,
                                   ALIAS_MIN_ELEMENTS])
def test_a_window_over_the_snapshot_size_has_a_memo_where_jax_aliases_it(count):
    """A small window is snapshotted; a larger one has a memo only from the size JAX aliases its aligned memory
    (below that, the general call converts it on every call, and a memo holding it would keep it alive)."""
    g = sx.jit(lambda a: a + 1.0)
    x = sx.asarray(np.arange(float(count)), copy=True)
    for _ in range(3):
        assert_same(g(x), x + 1.0)
    assert hasattr(g.__call__, "entry") == (count * 8 <= SNAPSHOT_MAX_BYTES or count >= ALIAS_MIN_ELEMENTS)
    if count >= ALIAS_MIN_ELEMENTS:
        assert memo_of(g).key[0] == (ALIAS,)


def test_a_steady_loop_over_large_host_arrays_calls_the_executable_directly():
    """Arrays JAX aliases (large, aligned): the memo passes the aliases, reading the memory as it is at each
    call, so writes between calls (through stridex and through NumPy) are seen, bit for bit."""
    f = lambda a, b: (a - b) * 3.0  # (exact under XLA too: no multiply feeding an add)
    g = sx.jit(f)
    n = 2 * ALIAS_MIN_ELEMENTS
    shared = aligned_copy(np.arange(float(n)))  # (borrowed: NumPy writes it too; aligned, so JAX aliases it)
    x, y = sx.asarray(np.linspace(-1.0, 1.0, n), copy=True), sx.asarray(shared)
    for _ in range(3):
        assert_same(g(x, y), f(x, y))
    dispatches, runs = counting_dispatches(g), counting_runs(g)
    assert memo_of(g).key[0] == (ALIAS, ALIAS) and np.shares_memory(shared, np.asarray(y))
    for step in range(6):
        if step == 2:
            x[3] = -0.0
            x[5] = float("nan")
        if step == 4:
            shared[7] = float("inf")
        assert_same(g(x, y), f(x, y))
    assert (len(dispatches), len(runs)) == (0, 0)


def test_a_memo_keeps_no_large_input_alive():
    g = sx.jit(lambda a: a * 2.0)
    x = sx.asarray(np.ones(2 * ALIAS_MIN_ELEMENTS), copy=True)
    for _ in range(3):
        g(x)
    assert memo_of(g).key[0] == (ALIAS,)
    storage = weakref.ref(x._storage)
    del x
    assert storage() is None  # (freed when the last array goes, no collection needed)
    y = sx.asarray(np.ones(2 * ALIAS_MIN_ELEMENTS), copy=True)
    assert_same(g(y), y * 2.0)  # (the memo misses on the new storage: the general call)


def test_factories_are_made_once_per_shape_of_call():
    memo_module._factory.cache_clear()
    g, h = sx.jit(lambda a: a + 1.0), sx.jit(lambda a: a * 3.0)
    x = sx.asarray([1.0, 2.0])
    for fn, _ in itertools.product((g, h), range(3)):
        assert_same(fn(x), fn._fun(x))
    info = memo_module._factory.cache_info()
    assert info.currsize == 1  # one array with a JAX copy, one output: the same code for g and h
    assert info.hits >= 1


def test_threads_calling_with_their_own_arguments_see_their_own_values():
    """The memo is replaced by whichever thread called last; each thread's results must still be its own."""
    f = lambda a, b: (a - b) * 3.0  # (exact under XLA too: no multiply feeding an add, no transcendental)
    g = sx.jit(f)

    def work(seed):
        rng = np.random.default_rng(seed)
        x = sx.asarray(rng.standard_normal(4))
        y = g(sx.asarray(rng.standard_normal(4)), x)  # a JAX result of this thread's own
        for step in range(60):
            if step % 7 == 3:
                x[step % 4] = float(step)  # a write between calls: new bytes
            for a, b in ((x, y), (y, x), (x, x)):
                np.testing.assert_array_equal(np.asarray(g(a, b)), np.asarray(f(a, b)))

    failures = run_in_threads(work, list(range(6)))
    assert not failures, failures


@pytest.mark.parametrize("count", [2, 4096], ids=["small", "above the aligned-output size"])
def test_a_jit_result_on_the_host_gets_its_storage_when_a_use_needs_it(count):
    """A jit result on the host keeps its JAX array, its storage JAX_RESULT until something needs one (a
    JaxResultStorage); passed to a jitted function again it goes to the executable as it is. Every use gives
    the values an eager run gives, and a write copies (the JAX array is not changed under a result that
    shares it), turning the storage into host memory for every array sharing it."""
    g = sx.jit(lambda a: a * 2.0)
    shadow = np.arange(float(count))
    x = sx.asarray(shadow)
    uses = {
        "view": lambda r: r[1:],
        "eager op": lambda r: r + 1.0,
        "print": lambda r: repr(r),
        "NumPy": lambda r: np.asarray(r),
        "DLPack": lambda r: np.from_dlpack(r),
        "to_device": lambda r: r.to_device("cpu:1"),
        "jit again": lambda r: g(r),
    }
    for name, use in uses.items():
        r = g(x)
        assert r._storage is JAX_RESULT, name  # (no storage yet)
        use(r)
        assert_same(r, sx.asarray(shadow * 2.0))
    r = g(x)
    again = g(r)
    assert r._storage is JAX_RESULT  # handed to the executable as its JAX array
    jax_array = r._jax
    view = r[1:]  # (the storage made now, shared)
    storage = r._storage
    assert type(storage) is JaxResultStorage and storage.owner is jax_array and storage.shared_buffer() is None
    r[0] = -1.0  # a write: the buffer is copied now
    assert r._storage is storage and type(storage) is HostStorage and storage.owner is None
    assert view._storage is storage and float(view[0]) == float(shadow[1] * 2.0)
    np.testing.assert_array_equal(np.asarray(jax_array), shadow * 2.0)
    assert float(r[0]) == -1.0 and float(g(r)[0]) == -2.0
    assert_same(again, sx.asarray(shadow * 4.0))


def test_threads_making_a_jit_result_s_storage_make_one():
    g = sx.jit(lambda a: a * 2.0)
    for _ in range(20):
        r = g(sx.asarray([1.0, 2.0]))
        made = []
        assert run_in_threads(lambda _, r=r, made=made: made.append(r._storage_view()[0]), range(4)) == []
        assert len(made) == 4 and all(m is r._storage for m in made)


def test_threads_reading_a_jit_result_make_one_buffer():
    g = sx.jit(lambda a: a * 2.0)
    for _ in range(20):
        storage = g(sx.asarray([1.0, 2.0]))._storage_view()[0]
        made = []
        assert run_in_threads(lambda _, s=storage, made=made: made.append(s.numpy_buffer()), range(4)) == []
        assert len(made) == 4 and all(m is made[0] for m in made)
