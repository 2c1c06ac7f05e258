"""Primitives that exist for the derivative transformations: `stop_gradient` (serves `stridex.lax`, and
`stridex.nn`'s and `stridex.scipy.special`'s shift by a maximum, as JAX's)."""

from __future__ import annotations

from stridex._lax.elementwise import copy, unary_abstract
from stridex._exec.jax_bridge import lax
from stridex._lax.primitive import Primitive
from stridex._lax.rule_shapes import batch_elementwise

# --- stop_gradient: the same values, no derivative ------------------------------------------------------
# Not differentiable: `jvp` gives its result no tangent and the tape records no node for it, so whatever is
# computed from it carries no derivative through it (and may leave stridex: see `autodiff.concrete_primal`).
# Eagerly a copy, as under `jit`, where its result is a buffer of its own: a later write into the operand is
# not seen through the result, whichever way the program runs. It lowers to `lax.stop_gradient`, so a program
# handed to JAX's own transformations keeps the meaning.

stop_gradient = Primitive(
    "stop_gradient",
    impl=copy.impl,
    abstract_eval=unary_abstract(),
    lower=lambda ctx, x: lax().stop_gradient(x),
    batch=batch_elementwise,
    differentiable=False,
)
