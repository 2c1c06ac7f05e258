"""The primitive registry is complete: every primitive has every rule its kind requires."""

from __future__ import annotations

import pytest

import stridex  # noqa: F401  (registers every primitive)
from stridex._core import KINDS, PRIMITIVES
from stridex._primitives.views import WRITE_BACK

ALL = sorted(PRIMITIVES)


def test_registry_is_populated():
    assert len(PRIMITIVES) > 40, sorted(PRIMITIVES)


@pytest.mark.parametrize("name", ALL)
def test_primitive_has_its_rules(name):
    prim = PRIMITIVES[name]
    assert prim.kind in KINDS
    assert callable(prim.impl), f"{name}: no eager implementation"
    if prim.kind == "write":
        return  # functionalised by the tracer into `scatter` + view write-backs
    if prim.data_dependent:
        assert prim.abstract_eval is None, f"{name}: a data-dependent primitive cannot have a shape rule"
        return
    assert callable(prim.abstract_eval), f"{name}: no abstract evaluation rule"
    assert callable(prim.lower), f"{name}: no JAX lowering"
    if prim.kind == "view":
        assert name in WRITE_BACK, f"{name}: a view primitive needs a write-back rule for traced writes"
