"""What lowering rules share: lazy access to JAX, 64-bit mode, and the context a rule receives.

A primitive's `lower(ctx, *args, **params)` receives JAX values (or Python scalars for weak inputs) and
returns JAX values; `ctx.avals_in` / `ctx.avals_out` give the stridex abstract values so a rule can
convert to the exact result dtype itself (lax does not promote). JAX is imported on first use only.
"""

from __future__ import annotations


class LoweringContext:
    __slots__ = ("avals_in", "avals_out")

    def __init__(self, avals_in, avals_out):
        self.avals_in = tuple(avals_in)
        self.avals_out = tuple(avals_out)

    @property
    def aval_out(self):
        (aval,) = self.avals_out
        return aval


def jax():
    import jax as _jax

    return _jax


def lax():
    from jax import lax as _lax

    return _lax


def jnp():
    import jax.numpy as _jnp

    return _jnp


def x64():
    """A context in which JAX keeps 64-bit dtypes (scoped; the user's global setting is untouched)."""
    return jax().enable_x64(True)


def as_dtype(x, dtype):
    """`x` (JAX value or Python scalar) as a JAX array of stridex dtype `dtype`."""
    j = jnp()
    if not hasattr(x, "dtype"):
        return j.asarray(x, dtype=dtype.np)
    return x if x.dtype == dtype.np else lax().convert_element_type(x, dtype.np)


def broadcast_to_aval(x, aval):
    """`x` converted to `aval.dtype` and broadcast to `aval.shape`."""
    x = as_dtype(x, aval.dtype)
    if x.shape != aval.shape:
        x = jnp().broadcast_to(x, aval.shape)
    return x
