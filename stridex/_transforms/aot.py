"""What a jitted function shows and compiles ahead of time: `jit(f).explain(...)` (`Explanation`),
`jit(f).lower(...)` (`Lowered`) and `.compile()` (`AotCompiled`), for one signature (`stridex._transforms.jit`
makes them)."""

from __future__ import annotations

from typing import Any

from stridex._core.array import Array
from stridex._transforms import breaks


class Explanation:
    """What `jit(f).explain(*args)` returns: the breaks of the path these arguments take."""

    def __init__(self, traced):
        self.breaks = [(g.what, g.where, breaks.summary(g.expected)) for g in traced.guards]
        self.program = traced.program

    def __str__(self):
        if not self.breaks:
            return "no graph breaks: one program"
        lines = [f"{len(self.breaks)} graph break(s); the compiled path is guarded on:"]
        lines += [f"  {i}. {what} at {where}: {value}" for i, (what, where, value) in enumerate(self.breaks, 1)]
        return "\n".join(lines)

    __repr__ = __str__


class Lowered:
    """What `jit(f).lower(*args)` returns: `.as_text()` shows JAX's lowered module; `.ir` stridex's program;
    `.compile()` compiles it now and returns the function of stridex arrays that runs it (`AotCompiled`)."""

    def __init__(self, jitted, sig, nargs: int, compiled):
        self.ir = compiled.traced.program
        self._jitted, self._sig, self._nargs, self._compiled = jitted, sig, nargs, compiled
        with compiled.x64(True):
            self._jax_lowered = compiled.function.lower(*compiled._arguments(compiled._inputs(sig.leaves))[0])

    def as_text(self, dialect: str | None = None) -> str:
        return self._jax_lowered.as_text(dialect) if dialect else self._jax_lowered.as_text()

    def compile(self) -> AotCompiled:
        """Compile the program with XLA now; the result is called with the arguments of the signature it was
        lowered for (static ones left out), takes and returns stridex arrays, and compiles nothing more."""
        with self._compiled.x64(True):
            executable = self._jax_lowered.compile()  # (JAX keeps it: the program's calls run this executable)
        return AotCompiled(self._jitted, self._sig, self._nargs, executable)


class AotCompiled:
    """A jitted function compiled ahead of time for one signature (`jit(f).lower(*args).compile()`): call it
    with arrays of that signature, leaving out the static arguments (as JAX's `Compiled`); other shapes or dtypes
    are a TypeError. `as_text()`, `cost_analysis()` and the other attributes of JAX's `Compiled`
    (`output_shardings`, `memory_analysis()`, ...) are the XLA executable's."""

    def __init__(self, jitted, sig, nargs: int, executable):
        self._jitted, self._key, self._nargs, self._executable = jitted, sig.key, nargs, executable
        self._compiled_for = _describe_leaves(sig)
        self._statics = dict(sig.statics)
        self._static_positions = sorted(i for i in self._statics if isinstance(i, int))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        full = list(args)
        for i in self._static_positions:  # (the static arguments the program was compiled with, in place)
            full.insert(i, self._statics[i])
        full_kwargs = {**kwargs, **{k: v for k, v in self._statics.items() if isinstance(k, str)}}
        if len(full) != self._nargs:
            raise TypeError(f"this function was compiled for {self._nargs - len(self._static_positions)} positional "
                            f"arguments (static ones left out), and was called with {len(args)}")
        sig = self._jitted._signature(tuple(full), full_kwargs)
        if sig.key != self._key:
            raise TypeError(f"the arguments' types differ from those this function was compiled for: compiled for "
                            f"({self._compiled_for}), called with ({_describe_leaves(sig)}) (or their layouts, "
                            "placement or static values differ); lower and compile it again for these, or call the "
                            "jitted function, which compiles per signature")
        return self._jitted._call_signature(sig, tuple(full), full_kwargs)

    def as_text(self) -> str:
        return self._executable.as_text()

    def cost_analysis(self) -> Any:
        return self._executable.cost_analysis()

    def __getattr__(self, name: str) -> Any:  # (the rest of JAX's `Compiled`: output_shardings, memory_analysis, ...)
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self._executable, name)


def _describe_leaves(sig) -> str:
    return ", ".join(f"{leaf.dtype.name}{list(leaf.shape)}" if isinstance(leaf, Array) else type(leaf).__name__
                     for leaf in sig.leaves)
