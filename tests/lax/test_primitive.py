"""The primitive registry is complete: every primitive has every rule its kind requires."""

from __future__ import annotations

import pytest

import stridex  # noqa: F401  (registers the primitives of every family in stridex/_lax)
import stridex._transforms.control_flow  # noqa: F401  (and the higher-order ones, which `import stridex` defers
import stridex._transforms.custom  # noqa: F401  to the first use of cond, scan, custom_jvp, ...)
from stridex._lax.primitive import KINDS, PRIMITIVES

ALL = sorted(PRIMITIVES)


def test_registry_is_populated():
    assert len(PRIMITIVES) > 40, sorted(PRIMITIVES)


@pytest.mark.parametrize("name", ALL)
def test_primitive_has_its_rules(name):
    prim = PRIMITIVES[name]
    assert prim.kind in KINDS
    assert callable(prim.impl), f"{name}: no eager implementation"
    if prim.kind == "write":
        return  # functionalised by every trace into `scatter` + view write-backs
    if prim.differentiable:
        assert callable(prim.jvp), f"{name}: differentiable but no JVP rule (mark it differentiable=False?)"
        assert callable(prim.vjp), f"{name}: differentiable but no VJP rule"
    if prim.data_dependent:
        assert prim.abstract_eval is None, f"{name}: a data-dependent primitive cannot have a shape rule"
        return  # no batching: each example would have its own output shape
    assert callable(prim.batch), f"{name}: no batching rule"
    assert callable(prim.abstract_eval), f"{name}: no abstract evaluation rule"
    assert callable(prim.lower), f"{name}: no JAX lowering"
    if prim.kind == "view":
        assert callable(prim.write_back), f"{name}: a view primitive needs a write-back rule for traced writes"
    else:
        assert prim.write_back is prim.compose is prim.is_identity is None, f"{name}: view rules on a non-view"


def test_rule_counts_are_reported():
    """The numbers the transformations issue asks for: how many primitives have each rule."""
    counts = {rule: sum(1 for p in PRIMITIVES.values() if getattr(p, rule) is not None)
              for rule in ("impl", "abstract_eval", "lower", "jvp", "vjp", "batch")}
    counts["total"] = len(PRIMITIVES)
    counts["non-differentiable"] = sum(1 for p in PRIMITIVES.values() if not p.differentiable)
    counts["data-dependent"] = sum(1 for p in PRIMITIVES.values() if p.data_dependent)
    print(counts)
    assert counts["impl"] == counts["total"]


def test_records_are_immutable_so_every_rule_is_given_at_construction():
    prim = PRIMITIVES["add"]
    with pytest.raises(AttributeError, match="immutable"):
        prim.jvp = None
    assert callable(prim.jvp)


@pytest.mark.parametrize("name", [n for n in ALL if PRIMITIVES[n].data_dependent])
def test_data_dependent_primitives_can_be_compiled_at_a_graph_break(name):
    prim = PRIMITIVES[name]
    # boolean_gather is compiled as a gather of the mask's nonzero indices; the others need their length rule.
    assert prim.name == "boolean_gather" or callable(prim.output_size), f"{name}: no output_size rule"


@pytest.mark.parametrize("device", [None, "cpu:1"], ids=["host", "JAX device"])
def test_a_view_primitive_whose_rule_refuses_the_layout_views_a_copy(device):
    """reshape_view of a flipped array (strides that cannot take the shape): the eager rule views a
    contiguous copy, with the values reshaped and no memory shared (a transformation replaying a recorded
    chain of views after a write changed the layout binds it so; the API functions copy first themselves)."""
    import numpy as np

    import stridex as sx

    shadow = np.arange(6.0).reshape(3, 2)
    x = sx.asarray(shadow, device=device)
    flipped = sx.flip(x, axis=0)
    assert flipped._storage_view()[1].reshape((6,)) is None
    out = PRIMITIVES["reshape_view"].bind(flipped, shape=(6,))
    want = shadow[::-1].reshape(6)  # (a copy: NumPy cannot view it either)
    np.testing.assert_array_equal(out.to_device("cpu"), want)
    assert out._storage is not x._storage
    x[0, 0] = -1.0
    np.testing.assert_array_equal(out.to_device("cpu"), want)  # a copy: the write into x is not seen


def test_as_strided_of_a_flat_view_that_is_not_contiguous_windows_a_copy():
    """as_strided's strides count elements of a flat, contiguous input; of a reversed one (a replayed chain
    may meet one), it windows a contiguous copy instead of reading outside the window."""
    import numpy as np

    import stridex as sx

    reversed_ = sx.flip(sx.arange(6.0))
    out = PRIMITIVES["as_strided"].bind(reversed_, shape=(2,), strides=(2,), offset=1)
    np.testing.assert_array_equal(out, np.arange(6.0)[::-1][1:4:2])
