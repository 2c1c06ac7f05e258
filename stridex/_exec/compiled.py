"""Host eager rules that run a compiled JAX program, for primitives NumPy has no kernel for (the special functions,
the random samplers): the program compiled once per signature, kept in one bounded cache (the "host" kind of
`sx.set_cache_limit`: least recently used out).

The value rule: such a primitive computes eagerly what its lowering computes under `jit`, because it is the same
program compiled by the same XLA, so eager and `jit` agree bit for bit (and with JAX's own function where the
lowering calls it). Its results are Arrays over JAX's outputs, adopted lazily as a `jit` call's results are
(`device.adopt_out`: no copy, no NumPy buffer until a use needs one; read-only, so a write copies first). On a JAX
device the generic device executor runs the same lowering there (`stridex._exec.device`).

One seam: `kernel(key, make, windows)` gives the compiled program of `make()` for these NumPy windows (compiled on
a miss), `call(entry, windows)` runs it; `stridex._lax.compiled.lowered` is the eager rule (a `RuleShape`) of a
primitive whose eager value is its own lowering.
"""

from __future__ import annotations

import numpy as np

from stridex._core import caches
from stridex._core.dtypes import FROM_NUMPY
from stridex._core.view import View
from stridex._exec import lower
from stridex._exec.device import adopt_out
from stridex._exec.jax_bridge import computed, x64
from stridex._exec.lower import Executable, settle

# A compiled program in the cache is a `lower.Executable`: `call` runs it (the compiled program's own C++ call once
# it has made one), `wide` says whether an input has 64-bit elements (the call then runs in JAX's 64-bit scope,
# without which JAX would narrow them; a uint32 key alone does not need it), `layouts` gives each output's
# (View, dtype).

# key -> Executable: the "host" kind of `sx.set_cache_limit` (least recently used out; an evicted program is compiled
# again on its next use, tens of milliseconds).
_KERNELS = caches.ProgramCache("host")


def kernel(key, make, windows) -> Executable:
    """The compiled program of the JAX function `make()` for `windows` (NumPy arrays; their shapes and dtypes are
    part of `key`, which names the function too), compiled and cached on a miss."""
    entry = _KERNELS.get(key)
    if entry is not None:
        return entry
    compiled = lower.compile(make(), windows)
    with x64():
        computed(compiled(*windows))  # (the first call makes its C++ call)
    outs = compiled.out_info
    outs = tuple(outs) if isinstance(outs, (tuple, list)) else (outs,)
    layouts = tuple((View.contiguous(tuple(o.shape)), FROM_NUMPY[np.dtype(o.dtype)]) for o in outs)
    wide = any(getattr(w, "dtype", None) is not None and w.dtype.itemsize >= 8 for w in windows)
    entry = Executable(compiled, layouts, wide)
    settle(entry, compiled)
    _KERNELS.put(key, entry)
    return entry


def call(entry: Executable, windows):
    """Run a compiled program on `windows`: JAX's output (a tuple or list of them for several), computed.

    JAX reads NumPy arguments asynchronously (it converts or aliases them as the program runs), so the call
    waits for the outputs: an eager operation has read its operands when it returns, and a write into them
    right after must not reach the program."""
    if entry.wide:
        with x64():
            return computed(entry.call(*windows))
    return computed(entry.call(*windows))


def adopted(entry: Executable, out):
    """The Array(s) over a program's output(s) (`device.adopt_out`)."""
    layouts = entry.layouts
    assert layouts is not None  # (a host program's outputs are always described: `kernel`)
    if type(out) is tuple or type(out) is list:
        return tuple(adopt_out(o, view, dtype) for o, (view, dtype) in zip(out, layouts))
    view, dtype = layouts[0]
    return adopt_out(out, view, dtype)


def compilations() -> int:
    """How many programs caches of the "host" kind have compiled (a program evicted and compiled again counts
    twice)."""
    return caches.cache_stats()["host"].compiles


def clear() -> None:
    """Empty the cache (each program is compiled again on its next use)."""
    _KERNELS.clear()
