"""Structure fuzzer for `jit`'s call path: every pytree eager code can take or return goes through the general
call and the memo (`stridex/_transforms/memo.py`, generated code) and equals the eager call, on calls 1 to 5.

Inputs are random nested tuples, lists and dicts of arrays (zero-size ones too), Python scalars and None,
passed positionally and by keyword, with a static argument (a string or an int) beside them, or no argument
at all. The function returns a random structure built from them: empty containers at any depth, None,
constants (scalars, strings), input leaves returned as they are (repeated too), views of inputs, arrays computed
from inputs and zero-size arrays made inside. Results compare leaf by leaf: the same containers, the same
Python types, and arrays of the same shape, dtype and values.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import stridex as sx
from stridex import tree_util

pytest.importorskip("jax")

CALLS = 5
KEYS = st.sampled_from(["a", "b", "c", "w"])


@st.composite
def array_leaves(draw):
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=2, min_side=0, max_side=3))
    dtype = draw(st.sampled_from([np.float64, np.int64, np.bool_, np.float32]))
    values = draw(hnp.arrays(dtype, shape, elements=st.integers(-4, 4).map(dtype) if dtype is not np.bool_ else None))
    return sx.asarray(values)


SCALARS = st.one_of(st.integers(-3, 3), st.floats(-2, 2, allow_nan=False), st.booleans())
INPUT_LEAVES = st.one_of(array_leaves(), SCALARS, st.none())


def containers(children):
    return st.one_of(st.lists(children, max_size=3), st.lists(children, max_size=3).map(tuple),
                     st.dictionaries(KEYS, children, max_size=3))


INPUT_TREES = st.recursive(INPUT_LEAVES, containers, max_leaves=6)


@st.composite
def output_templates(draw, n_leaves: int):
    """A recipe for the result: containers whose leaves say what to put there (see `build`)."""
    kinds = ["const", "empty", "zero_size"] + (["input", "view", "compute"] if n_leaves else [])
    leaf = st.sampled_from(kinds).flatmap(
        lambda kind: st.tuples(st.just(kind), st.integers(0, max(n_leaves - 1, 0)),
                               st.sampled_from([None, 0, -1.5, True, "text", ""])))
    return draw(st.recursive(leaf, containers, max_leaves=6))


def build(template, leaves, arrays, static):
    """The function's result for `template`, from the input `leaves` (arrays, tracers or scalars; `arrays`
    says which were arrays in the call, since under jit a scalar argument is traced as a 0-D array)."""
    if isinstance(template, list):
        return [build(t, leaves, arrays, static) for t in template]
    if isinstance(template, dict):
        return {k: build(t, leaves, arrays, static) for k, t in template.items()}
    if isinstance(template, tuple) and (not template or not isinstance(template[0], str)):
        return tuple(build(t, leaves, arrays, static) for t in template)
    kind, k, constant = template
    if kind == "const":
        return constant
    if kind == "empty":
        return (static, (), [], {}, {"x": ((),)})[k % 5] if static is not None else ((), [], {})[k % 3]
    if kind == "zero_size":
        return sx.zeros((0, 3), dtype=sx.float32)
    x = leaves[k]
    if kind == "input":
        return x
    if not arrays[k]:
        return x  # (a Python scalar leaf: returned as it came)
    if kind == "view":
        return x[..., ::-1] if x.ndim else x[...]
    return sx.logical_not(x) if x.dtype == sx.bool else x * 2 - 1


def assert_same_tree(got, want, where="result"):
    assert type(got) is type(want), f"{where}: {type(got).__name__} where eager gave {type(want).__name__}"
    if isinstance(want, (list, tuple)):
        assert len(got) == len(want), f"{where}: {len(got)} entries, eager {len(want)}"
        for i, (g, w) in enumerate(zip(got, want)):
            assert_same_tree(g, w, f"{where}[{i}]")
    elif isinstance(want, dict):
        # (the same keys; in sorted order, as JAX's pytrees flatten a dict, where eager keeps insertion order)
        assert sorted(got) == sorted(want), f"{where}: keys {list(got)}, eager {list(want)}"
        for k in want:
            assert_same_tree(got[k], want[k], f"{where}[{k!r}]")
    elif isinstance(want, sx.Array):
        assert got.shape == want.shape and got.dtype == want.dtype, (where, got.shape, got.dtype, want.shape,
                                                                      want.dtype)
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want), err_msg=where)
    else:
        assert got == want or (got != got and want != want), f"{where}: {got!r}, eager {want!r}"


@settings(max_examples=150, deadline=None)
@given(data=st.data(), positional=st.lists(INPUT_TREES, max_size=3),
       keywords=st.dictionaries(st.sampled_from(["p", "q"]), INPUT_TREES, max_size=2),
       static=st.one_of(st.none(), st.sampled_from(["mode", 3])))
def test_every_structure_through_jit_equals_eager_on_calls_one_to_five(data, positional, keywords, static):
    arrays = [isinstance(leaf, sx.Array) for leaf in tree_util.tree_leaves((list(positional), keywords))]
    template = data.draw(output_templates(len(arrays)), label="result")

    def f(*args, static=None, **kwargs):
        return build(template, tree_util.tree_leaves((list(args), kwargs)), arrays, static)

    extra = {} if static is None else {"static": static}
    want = f(*positional, **keywords, **extra)
    jitted = sx.jit(f, static_argnames="static")
    for call in range(1, CALLS + 1):
        assert_same_tree(jitted(*positional, **keywords, **extra), want, f"call {call}")


@pytest.mark.parametrize("result", [(), [], {}, None, ((), [()]), {"a": ()}, 1.5, "done", ((), None, 0)])
def test_results_without_arrays_with_and_without_arguments(result):
    """The empty tuple crashed the memo's generated code on the third call (`= call(...)`): with an argument
    and with none, every call of 1 to 5 gives the eager result."""
    x = sx.asarray([1.0, 2.0])
    with_argument, without = sx.jit(lambda a: result), sx.jit(lambda: result)
    for call in range(1, CALLS + 1):
        assert_same_tree(with_argument(x), result, f"call {call}")
        assert_same_tree(without(), result, f"call {call}, no arguments")


def test_unstack_of_an_empty_array_through_the_memo():
    """The conformance suite's `test_unstack` in jit mode: unstack along an axis of length 0 is `()`."""
    f = sx.jit(lambda a: sx.unstack(a, axis=0))
    x = sx.zeros((0, 3))
    for _ in range(CALLS):
        assert f(x) == ()


def test_a_template_that_fails_to_build_falls_back_to_the_general_call(monkeypatch):
    """A memo whose generated code does not compile is never made: calls take the general path and stay right."""
    from stridex._transforms import memo

    memo._factory.cache_clear()
    monkeypatch.setattr(memo, "source", lambda *a, **k: "def factory(:\n")
    f = sx.jit(lambda a: a + 1)
    x = sx.asarray([1.0, 2.0])
    try:
        for _ in range(CALLS):
            np.testing.assert_array_equal(np.asarray(f(x)), [2.0, 3.0])
        assert not hasattr(f.__call__, "entry"), "a memo was made from code that does not compile"
    finally:
        memo._factory.cache_clear()
