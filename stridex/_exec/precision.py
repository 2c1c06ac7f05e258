"""The precision of float32 matrix products in compiled code: a stridex setting, else JAX's, else exact.

Eager matmuls run in NumPy, which computes float32 products in float32 exactly as written. Compiled ones
(`jit`, and eager work on a device) run in XLA, where `lax.dot_general`'s `precision` decides whether a
float32 product may use faster, lower-precision hardware paths (TF32 or bfloat16 passes on GPUs and TPUs).
What a lowering passes, most specific first:

1. the stridex setting in force: a `matmul_precision(...)` block around the call, else the process setting
   (`set_matmul_precision`, initially the STRIDEX_MATMUL_PRECISION environment variable);
2. else, when the user has set `jax_default_matmul_precision` (`jax.default_matmul_precision(...)` or
   `jax.config.update`), nothing: JAX's own setting applies, as it does to `jax.numpy`;
3. else `"highest"`: exact float32, what the Array API conformance suite checks.

Only 32-bit floating products (float32, complex64) are affected: the lower-precision paths exist for them
alone, and an algorithm preset such as "BF16_BF16_F32" would silently round float64, half-precision or
integer operands through bfloat16, so those always get `"highest"` (as before).

A compiled program depends on the setting, so every cache of compiled lowerings keys on `matmul_key()`.
This module holds state only; it imports JAX (through the bridge) only when JAX's setting is read.
"""

from __future__ import annotations

import os
from contextvars import ContextVar

from stridex._exec import jax_bridge

ENV_VAR = "STRIDEX_MATMUL_PRECISION"

# JAX's names for `precision=` (lax.Precision's aliases) and its dot-algorithm presets
# (lax.DotAlgorithmPreset), accepted as JAX accepts them. Listed here so that reading or validating a
# setting never imports JAX.
PRECISION_NAMES = ("highest", "float32", "high", "tensorfloat32", "bfloat16_3x", "default", "bfloat16", "fastest")
ALGORITHM_PRESETS = (
    "DEFAULT", "ANY_F8_ANY_F8_F32", "ANY_F8_ANY_F8_F32_FAST_ACCUM", "ANY_F8_ANY_F8_ANY",
    "ANY_F8_ANY_F8_ANY_FAST_ACCUM", "F16_F16_F16", "F16_F16_F32", "BF16_BF16_BF16", "BF16_BF16_F32",
    "BF16_BF16_F32_X3", "BF16_BF16_F32_X6", "BF16_BF16_F32_X9", "TF32_TF32_F32", "TF32_TF32_F32_X3",
    "F32_F32_F32", "F64_F64_F64",
)
EXACT = PRECISION_NAMES[0]  # "highest"
_NAMES = {n: n for n in PRECISION_NAMES + ALGORITHM_PRESETS}
_AFFECTED = frozenset({"float32", "complex64"})  # the dtypes whose products a setting may make faster

_NOT_SCOPED = object()  # no `matmul_precision` block is active in this context: the process setting holds
_scope: ContextVar = ContextVar("stridex_matmul_precision", default=_NOT_SCOPED)
_scope_get = _scope.get


def canonical(name) -> str | None:
    """`name` as JAX spells it (precision names lower case, presets upper case), or None for None; ValueError
    naming the allowed values for anything else."""
    if name is None:
        return None
    if isinstance(name, str):
        # (the listed string itself, so that one setting is always the same object: cache checks use `is`)
        found = _NAMES.get(name.lower()) or _NAMES.get(name.upper())
        if found is not None:
            return found
    raise ValueError(f"matmul precision must be None or one of {', '.join(map(repr, PRECISION_NAMES))} or a "
                     f"lax.DotAlgorithmPreset name ({', '.join(ALGORITHM_PRESETS)}), got {name!r}")


def _from_environment() -> str | None:
    value = os.environ.get(ENV_VAR, "").strip()
    if not value:
        return None
    try:
        return canonical(value)
    except ValueError as e:
        raise ValueError(f"environment variable {ENV_VAR}: {e}") from None


_process: str | None = _from_environment()


def setting() -> str | None:
    """The stridex setting in force here: the innermost `matmul_precision` block's, else the process one."""
    s = _scope_get()
    return _process if s is _NOT_SCOPED else s


def set_process(name) -> str | None:
    """Make `name` the process setting (None: follow JAX's, else exact); returns the previous one."""
    global _process
    previous, _process = _process, canonical(name)
    return previous


class Scope:
    """A block in which `name` is this thread's (this context's) setting; the previous one is restored on exit."""

    __slots__ = ("name", "tokens")

    def __init__(self, name):
        self.name = canonical(name)
        self.tokens = []  # (a stack, so that one object can be entered again while it is active)

    def __enter__(self) -> Scope:
        self.tokens.append(_scope.set(self.name))
        return self

    def __exit__(self, *exc: object) -> None:
        _scope.reset(self.tokens.pop())

    def __repr__(self):
        return f"matmul_precision({self.name!r})"


# --- the public switch (exported by the package as `stridex.matmul_precision`, ...) ---------------------------


def matmul_precision(name: str | None) -> Scope:
    """A block in which compiled float32/complex64 matrix products use precision `name`; this thread only.

    `name` is one of JAX's names: "highest" (exact float32, the default), "high" / "tensorfloat32" /
    "bfloat16_3x", "default" / "bfloat16" / "fastest" (XLA picks the fastest path: TF32 on recent NVIDIA
    GPUs, one bfloat16 pass on TPUs), or a `jax.lax.DotAlgorithmPreset` name such as "BF16_BF16_F32" or
    "TF32_TF32_F32" (an exact algorithm; a platform that lacks it fails to compile). None: no stridex setting
    (JAX's `jax_default_matmul_precision` applies if set, else "highest"). Eager matmuls on the host run in
    NumPy and are always exact.

    >>> import stridex as sx
    >>> with sx.matmul_precision("tensorfloat32"):
    ...     sx.get_matmul_precision()
    'tensorfloat32'
    >>> sx.get_matmul_precision() is None
    True
    """
    return Scope(name)


def set_matmul_precision(name: str | None) -> str | None:
    """Set the process-wide precision of compiled float32/complex64 matrix products (the names of
    `matmul_precision`; None: follow JAX's setting, else exact) and return the previous one. A
    `matmul_precision` block overrides it in its thread. Initially the STRIDEX_MATMUL_PRECISION environment
    variable, read at import."""
    return set_process(name)


def get_matmul_precision() -> str | None:
    """The stridex matmul precision in force here (innermost block, else the process setting), or None when
    there is none (then JAX's `jax_default_matmul_precision` decides, else "highest")."""
    return setting()


# --- JAX's setting ------------------------------------------------------------------------------------------


class _PublicConfig:
    """JAX's setting read through the public `jax.config` (where its config object lacks the faster path)."""

    __slots__ = ("config",)

    def __init__(self, config):
        self.config = config

    @property
    def value(self):
        return self.config.jax_default_matmul_precision


_jax_state = None  # what `jax_setting` reads, found on first use


def _find_jax_state():
    """JAX's config holder of `jax_default_matmul_precision` (its current value in this thread as `.value`,
    about 70 ns against 180 ns through `jax.config`); the public attribute where the holder is not found."""
    global _jax_state
    jax = jax_bridge.jax()
    state = getattr(getattr(getattr(jax, "_src", None), "config", None), "default_matmul_precision", None)
    _jax_state = state if hasattr(state, "value") else _PublicConfig(jax.config)
    return _jax_state


def jax_setting() -> str | None:
    """`jax_default_matmul_precision` as in force in this thread (None: the user has not set it)."""
    return (_find_jax_state() if _jax_state is None else _jax_state).value


_JAX_KEYS: dict = {}


def matmul_key():
    """What a compiled matmul depends on, for cache keys: the stridex setting in force, else JAX's (tagged,
    since deferring to JAX lowers differently from naming the same value), else "highest". Cheap: a context
    variable, a global and, when no stridex setting is in force, JAX's setting."""
    s = _scope_get()
    if s is _NOT_SCOPED:
        s = _process
    if s is not None:
        return s
    v = (_find_jax_state() if _jax_state is None else _jax_state).value  # (a State has no truth value)
    if v is None:
        return EXACT
    key = _JAX_KEYS.get(v)
    if key is None:
        key = _JAX_KEYS[v] = ("jax", v)
    return key


def lax_precision(dtype):
    """The `precision=` argument for a `lax.dot_general` computing in stridex dtype `dtype`, now: a name,
    None (JAX's setting applies), or "highest" (exact). Called by the lowering, so at trace time."""
    if dtype.name not in _AFFECTED:
        return EXACT
    s = setting()
    if s is not None:
        return s
    return None if jax_setting() is not None else EXACT

