"""Test-session set-up: JAX exposes 4 CPU devices ("cpu:0".."cpu:3"), so that every device code path
(eager dispatch, views, writes, copy-on-write, transfers, jit, sharding) runs in CI as it would on a GPU.
Set before anything imports JAX; an XLA_FLAGS the caller set is kept.

Hypothesis runs without its per-example deadline: a first call traces and compiles (on a GPU, an XLA
compile per primitive and shape), and speed is the benchmarks' business, never a unit test's."""

import os

from hypothesis import settings

settings.register_profile("stridex", deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "stridex"))

_FLAG = "--xla_force_host_platform_device_count"
if _FLAG not in os.environ.get("XLA_FLAGS", ""):
    os.environ["XLA_FLAGS"] = f"{os.environ.get('XLA_FLAGS', '')} {_FLAG}=4".strip()


def pytest_configure(config):
    """STRIDEX_TEST_JAX_DEFAULT=cpu:3 moves JAX's default device off its first CPU device, as on a GPU machine
    (where it is the GPU): programs on host arrays must still run on the host and give host arrays."""
    name = os.environ.get("STRIDEX_TEST_JAX_DEFAULT")
    if name:
        import jax

        platform, _, index = name.partition(":")
        jax.config.update("jax_default_device", jax.devices(platform)[int(index or 0)])
