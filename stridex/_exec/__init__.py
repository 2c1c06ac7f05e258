"""The executor layer, between the core and the primitives: where an eager primitive application runs (route),
on the host or a JAX device, deferred into eager fusion's pending chains, and how records lower to `jax.lax`.

It knows primitives only as the records handed to it, and never imports `stridex._lax`.
"""
