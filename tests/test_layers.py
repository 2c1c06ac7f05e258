"""The package's layers import downward only: a walk over every module's imports (AST, no execution).

core (View, Storage, DType, avals, Array, pytrees, the current trace) → exec (the executors: where an eager
application runs, the host and device executors, eager fusion, placement, the JAX bridge and the one lowering
driver) → lax (the primitive record, internal operations, rule shapes, the primitive families) →
transforms (tracing, IR, passes, lowering, jit, autodiff, batching) → the namespace (`_api`, one
module per spec chapter; `linalg`, `fft`; the package itself). A module-level import may go to its own
layer or below, never up, and the module-level imports form no cycle. A function-local import of a
stridex module is allowed only where a comment on its line says why.
"""

from __future__ import annotations

import ast
import pathlib

import pytest

PACKAGE = pathlib.Path(__file__).resolve().parent.parent / "stridex"
LAYERS = {"stridex._core": 0, "stridex._exec": 1, "stridex._lax": 2, "stridex._transforms": 3, "stridex._api": 4}


def module_name(path: pathlib.Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def layer(module: str) -> int:
    for prefix, rank in LAYERS.items():
        if module == prefix or module.startswith(prefix + "."):
            return rank
    return 5  # stridex itself, stridex.linalg, stridex.fft, stridex.demo: the public surface


def imports(path: pathlib.Path):
    """(imported stridex module, line, module-level?, justified?) for every import in the file."""
    source = path.read_text()
    lines = source.splitlines()
    tree = ast.parse(source)
    module = module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    top_level = {id(node) for node in tree.body}
    # imports under `if TYPE_CHECKING:` or `try:` at module level still run at import time; treat as module level
    for node in tree.body:
        if isinstance(node, (ast.If, ast.Try)):
            top_level |= {id(n) for n in ast.walk(node)}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
            targets = [base] + [f"{base}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        else:
            continue
        known = [t for t in targets if t == "stridex" or t.startswith("stridex.")]
        if not known:
            continue
        target = max((t for t in known if _exists(t)), key=len, default=known[0])
        justified = "#" in lines[node.lineno - 1]
        yield target, node.lineno, id(node) in top_level, justified


def _exists(module: str) -> bool:
    path = PACKAGE.parent.joinpath(*module.split("."))
    return path.with_suffix(".py").exists() or (path / "__init__.py").exists()


MODULES = sorted(PACKAGE.rglob("*.py"))


def test_module_level_imports_go_down_only():
    upward = []
    for path in MODULES:
        source = module_name(path)
        for target, line, module_level, _ in imports(path):
            if module_level and layer(target) > layer(source) and not source.startswith(target + "."):
                upward.append(f"{path.relative_to(PACKAGE.parent)}:{line}: {source} (layer {layer(source)}) "
                              f"imports {target} (layer {layer(target)})")
    assert not upward, "upward imports:\n" + "\n".join(upward)


def test_module_level_imports_form_no_cycle():
    graph = {}
    for path in MODULES:
        source = module_name(path)
        graph[source] = {t for t, _, module_level, _ in imports(path)
                         if module_level and t != source and not source.startswith(t + ".")}
    state, stack, cycles = {}, [], []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == "open":
                cycles.append(" -> ".join(stack[stack.index(nxt):] + [nxt]))
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node)
    assert not cycles, "import cycles:\n" + "\n".join(cycles)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE.parent)))
def test_function_local_imports_are_justified(path):
    name = str(path.relative_to(PACKAGE.parent))
    unjustified = [f"line {line}: {target}" for target, line, module_level, justified in imports(path)
                   if not module_level and not justified]
    assert not unjustified, f"{name}: function-local stridex imports without a comment saying why: {unjustified}"


def _jax_imports(path: pathlib.Path) -> list[int]:
    lines = []
    for node in ast.walk(ast.parse(path.read_text())):
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else (
            [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else [])
        if any(n == "jax" or n.startswith("jax.") for n in names):
            lines.append(node.lineno)
    return lines


def test_only_the_bridge_imports_jax():
    """One module, `stridex/_exec/jax_bridge.py`, imports JAX (lazily, inside functions); every other module
    reaches JAX through it, so `import stridex` never imports JAX and the one place to adapt to a JAX
    release is known."""
    found = {str(p.relative_to(PACKAGE.parent)): _jax_imports(p) for p in MODULES}
    others = {name: lines for name, lines in found.items() if lines and name != "stridex/_exec/jax_bridge.py"}
    assert not others, f"modules importing JAX directly: {others}"
    assert found["stridex/_exec/jax_bridge.py"], "the bridge no longer imports JAX?"


def test_the_executor_layer_imports_nothing_from_lax():
    """The executors know primitives only as the records handed to them: no import of `stridex._lax` in
    `stridex/_exec/`, at module level or inside a function."""
    found = [f"{path.relative_to(PACKAGE.parent)}:{line}: {target}"
             for path in MODULES if module_name(path).startswith("stridex._exec")
             for target, line, _, _ in imports(path) if layer(target) > layer("stridex._exec")]
    assert not found, "the executor layer imports from above it:\n" + "\n".join(found)


def test_the_lowering_helpers_import_without_the_primitives():
    """The lowering helpers (the JAX bridge, strided reads and writes, precision, the driver) need no primitive
    module: what their module-level imports reach, transitively, holds nothing of `stridex._lax` (the package's
    `__init__` aside, which imports the whole namespace for `import stridex`)."""
    graph = {module_name(path): {t for t, _, module_level, _ in imports(path) if module_level} for path in MODULES}
    seen, stack = set(), ["stridex._exec.lower", "stridex._exec.strided", "stridex._exec.precision",
                          "stridex._exec.jax_bridge"]
    while stack:
        m = stack.pop()
        if m not in seen:
            seen.add(m)
            stack.extend(t for t in graph.get(m, ()) if t != "stridex")
    assert not [m for m in seen if m.startswith("stridex._lax")], sorted(seen)
