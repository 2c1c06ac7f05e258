"""Test-session set-up: JAX exposes 4 CPU devices ("cpu:0".."cpu:3"), so that every device code path
(eager dispatch, views, writes, copy-on-write, transfers, jit, sharding) runs in CI as it would on a GPU.
Set before anything imports JAX; an XLA_FLAGS the caller set is kept."""

import os

_FLAG = "--xla_force_host_platform_device_count"
if _FLAG not in os.environ.get("XLA_FLAGS", ""):
    os.environ["XLA_FLAGS"] = f"{os.environ.get('XLA_FLAGS', '')} {_FLAG}=4".strip()
