"""stridex is typed as its users type-check: `mypy --strict` accepts ordinary stridex code and rejects wrong code.

- tests/typecheck/usage.py (operators, indexing, every chapter, linalg, fft, the transformations and
  `__array_namespace_info__`, with `assert_type`) gives 0 errors under `mypy --strict`, and under basedpyright or
  pyright in strict mode where one is installed;
- tests/typecheck/must_fail.py gives exactly the errors its lines are marked with, so the check can fail;
- the Array's operators as a type checker sees them (the `if TYPE_CHECKING:` block of the class in
  stridex/_core/array.py) are the ones stridex/_api/array_object.py installs, with the same parameters, taking
  the scalar types of the namespace function each calls;
- `__all__` of stridex, stridex.linalg and stridex.fft is a literal list, is what the module exports, and holds
  the standard's names; every public function is annotated, parameters and return;
- `mypy stridex` passes at the level pyproject.toml's [tool.mypy] sets.

The mypy runs use mypy's API in this process, with a cache under .mypy_cache (a cold run takes 15-60 s on a slow
machine: mypy reads NumPy's stubs and the whole package once; later runs reuse the cache).
"""

from __future__ import annotations

import ast
import inspect
import json
import os
import re
import shutil
import subprocess
import sys
import types
import typing
from pathlib import Path

import pytest

import stridex
import stridex.fft
import stridex.linalg
import stridex.nn
import stridex.nn.initializers
import stridex.random
import stridex.scipy.special
from stridex._api import array_object
from stridex._api import elementwise_functions as _ew
from stridex._api import transcendental_functions as _tr
from stridex._core import array as _core_array

ROOT = Path(__file__).resolve().parent.parent
USAGE = ROOT / "tests" / "typecheck" / "usage.py"
MUST_FAIL = ROOT / "tests" / "typecheck" / "must_fail.py"
API_NAMES = json.loads((ROOT / "tests" / "data" / "api_2025_12.json").read_text())
CACHE = ROOT / ".mypy_cache"
ERROR = re.compile(r"^(?P<path>[^:\n]+):(?P<line>\d+): error: (?P<message>.*?)(?:  \[(?P<code>[a-z-]+)\])?$", re.M)

# What a user's mypy sees: --strict for their code; stridex followed but not reported on, as an installed package.
USER_CONFIG = """\
[mypy]
strict = True
warn_unreachable = True

[mypy-stridex.*]
follow_imports = silent
"""


def _mypy(cache: str, *args: str) -> tuple[str, int]:
    """mypy's API in this process; each run its own cache folder (pytest-xdist may run two at once)."""
    api = pytest.importorskip("mypy.api", reason="mypy is not installed (pip install -e .[test])")
    stdout, stderr, status = api.run(["--cache-dir", str(CACHE / cache), "--no-error-summary", "--show-error-codes",
                                      "--no-pretty", "--no-color-output", *args])
    return stdout + stderr, status


def _errors(output: str, path: Path) -> set[tuple[int, str]]:
    return {(int(m["line"]), m["code"] or "") for m in ERROR.finditer(output)
            if Path(m["path"]).resolve() == path.resolve()}


def _marked(path: Path) -> set[tuple[int, str]]:
    """The `# E: code` marks of the must-fail file: (line, mypy error code)."""
    marks = set()
    for number, line in enumerate(path.read_text().splitlines(), 1):
        match = re.search(r"# E: ([a-z-]+)\s*$", line)
        if match:
            marks.add((number, match[1]))
    return marks


@pytest.fixture(scope="module")
def user_mypy(tmp_path_factory: pytest.TempPathFactory) -> str:
    """One `mypy --strict` run over both files (one run: the second file costs nothing more)."""
    config = tmp_path_factory.mktemp("mypy") / "mypy.ini"
    config.write_text(USER_CONFIG)
    output, _ = _mypy("user", "--config-file", str(config), str(USAGE), str(MUST_FAIL))
    return output


def test_usage_file_passes_mypy_strict(user_mypy: str) -> None:
    assert not _errors(user_mypy, USAGE), user_mypy
    elsewhere = [m[0] for m in ERROR.finditer(user_mypy) if Path(m["path"]).resolve() != MUST_FAIL.resolve()]
    assert not elsewhere, user_mypy


def test_must_fail_file_gives_the_marked_errors(user_mypy: str) -> None:
    expected = _marked(MUST_FAIL)
    assert len(expected) >= 20
    found = _errors(user_mypy, MUST_FAIL)
    assert found == expected, (f"missing: {sorted(expected - found)}; unexpected: {sorted(found - expected)}\n"
                               f"{user_mypy}")


def test_usage_file_runs() -> None:
    """The usage file is ordinary code that runs: what it asserts the types of are the values stridex gives."""
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    result = subprocess.run([sys.executable, str(USAGE)], capture_output=True, text=True, timeout=300, env=env,
                            check=False)
    assert result.returncode == 0, result.stdout + result.stderr


def _pyright() -> list[str] | None:
    for name in ("basedpyright", "pyright"):
        if shutil.which(name):
            return [name]
    return None


@pytest.mark.parametrize("path", [USAGE, MUST_FAIL], ids=["usage", "must_fail"])
def test_pyright_strict(path: Path, tmp_path: Path) -> None:
    """basedpyright (or pyright) in strict mode: no error in the usage file, an error on each marked line of the
    must-fail file (its error names differ from mypy's; the line is what must agree)."""
    command = _pyright()
    if command is None:
        pytest.skip("neither basedpyright nor pyright is installed (pip install basedpyright: it brings node)")
    config = tmp_path / "pyrightconfig.json"
    config.write_text(json.dumps({"typeCheckingMode": "strict", "pythonVersion": "3.11", "extraPaths": [str(ROOT)],
                                  "include": [str(path)], "reportMissingModuleSource": False}))
    result = subprocess.run([*command, "-p", str(config), "--outputjson"], capture_output=True, text=True,
                            timeout=600, cwd=tmp_path, check=False)
    try:
        report = json.loads(result.stdout)
    except json.JSONDecodeError:  # the tool did not run (pyright's PyPI package fetches node on first use)
        pytest.skip(f"{command[0]} did not run: {(result.stdout + result.stderr)[-300:]}")
    lines = {d["range"]["start"]["line"] + 1 for d in report["generalDiagnostics"] if d["severity"] == "error"}
    expected = {line for line, _ in _marked(path)}
    assert lines == expected, json.dumps(report["generalDiagnostics"], indent=1)


# --- the Array's declared surface against what the namespace installs ----------------------------------------


def _declarations() -> dict[str, ast.FunctionDef]:
    """The methods and properties declared in the `if TYPE_CHECKING:` block of the Array class."""
    tree = ast.parse(Path(_core_array.__file__).read_text())
    (cls,) = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Array"]
    blocks = [n for n in cls.body if isinstance(n, ast.If) and ast.unparse(n.test) == "TYPE_CHECKING"]
    assert len(blocks) == 1
    return {n.name: n for n in blocks[0].body if isinstance(n, ast.FunctionDef)}


def _installed() -> dict[str, object]:
    """What stridex/_api/array_object.py sets on the class (functions and properties defined there)."""
    found = {}
    for name, value in vars(stridex.Array).items():
        function = value.fget if isinstance(value, property) else value
        if getattr(function, "__module__", None) == array_object.__name__:
            found[name] = value
    return found


def _parameters(node: ast.FunctionDef) -> list[tuple[str, str, str | None]]:
    """(name, kind, default) of a declaration, in inspect's terms."""
    args = node.args
    positional = [(a.arg, "POSITIONAL_ONLY") for a in args.posonlyargs] + [(a.arg, "POSITIONAL_OR_KEYWORD")
                                                                           for a in args.args]
    defaults = [None] * (len(positional) - len(args.defaults)) + [ast.unparse(d) for d in args.defaults]
    out = [(name, kind, default) for (name, kind), default in zip(positional, defaults)]
    if args.vararg:
        out.append((args.vararg.arg, "VAR_POSITIONAL", None))
    out += [(a.arg, "KEYWORD_ONLY", None if d is None else ast.unparse(d)) for a, d in zip(args.kwonlyargs,
                                                                                         args.kw_defaults)]
    if args.kwarg:
        out.append((args.kwarg.arg, "VAR_KEYWORD", None))
    return out


def _runtime_parameters(function: object) -> list[tuple[str, str, str | None]]:
    return [(p.name, p.kind.name, None if p.default is inspect.Parameter.empty else repr(p.default))
            for p in inspect.signature(function).parameters.values()]  # type: ignore[arg-type]


def test_declared_operators_are_the_installed_ones() -> None:
    declared, installed = _declarations(), _installed()
    assert set(declared) == set(installed), (f"declared only: {sorted(set(declared) - set(installed))}; installed "
                                             f"only: {sorted(set(installed) - set(declared))}")
    assert set(array_object.OPERATORS) | set(array_object.PROPERTIES) <= set(declared)
    for name, node in declared.items():
        value = installed[name]
        is_property = any(ast.unparse(d) == "property" for d in node.decorator_list)
        assert is_property == isinstance(value, property), name
        function = value.fget if isinstance(value, property) else value
        assert _runtime_parameters(function) == _parameters(node), (
            f"Array.{name}: installed {inspect.signature(function)}, declared {ast.unparse(node.args)}")
        assert node.returns is not None and all(a.annotation is not None for a in node.args.args[1:]
                                                + node.args.posonlyargs[1:] + node.args.kwonlyargs), name


def _union(annotation: object) -> frozenset[object]:
    return frozenset(typing.get_args(annotation)) if isinstance(annotation, types.UnionType) else frozenset(
        [annotation])


def _declared_type(node: ast.FunctionDef, index: int) -> frozenset[object]:
    arguments = node.args.posonlyargs + node.args.args
    annotation = arguments[index].annotation
    assert annotation is not None
    return _union(eval(ast.unparse(annotation), vars(_core_array)))  # noqa: S307 (the package's own source)


def _namespace_operand_type(fname: str) -> frozenset[object]:
    """The type of the second operand of namespace function `fname`, as its annotation states it."""
    hints = typing.get_type_hints(_ew)
    if fname in hints:  # a function built by a factory: annotated as a Callable in its module
        parameters, _ = typing.get_args(hints[fname])
        return _union(parameters[1])
    return _union(typing.get_type_hints(getattr(_tr, fname))["x2"])


@pytest.mark.parametrize("stem", sorted(array_object.ARITHMETIC) + sorted(array_object.COMPARISON))
def test_operator_types_are_the_namespace_functions(stem: str) -> None:
    """`x + y` takes what `add(x, y)` takes; its reflected and in-place forms the same."""
    declared = _declarations()
    fname = {**array_object.ARITHMETIC, **array_object.COMPARISON}[stem]
    expected = _namespace_operand_type(fname)
    forms = ("", "r", "i") if stem in array_object.ARITHMETIC else ("",)
    for form in forms:
        node = declared[f"__{form}{stem}__"]
        assert _declared_type(node, 1) == expected, f"__{form}{stem}__ vs {fname}"
        assert ast.unparse(node.returns) == "Array"  # type: ignore[arg-type]


# --- exports and annotations ---------------------------------------------------------------------------------

PUBLIC_MODULES = [stridex, stridex.linalg, stridex.fft, stridex.random, stridex.lax, stridex.debug, stridex.tree,
                  stridex.errors, stridex.nn,
                  stridex.nn.initializers, stridex.scipy, stridex.scipy.special]


def _literal_all(module: types.ModuleType) -> list[str]:
    tree = ast.parse(Path(module.__file__).read_text())  # type: ignore[arg-type]
    values = [n.value for n in tree.body if isinstance(n, ast.Assign)
              and any(isinstance(t, ast.Name) and t.id == "__all__" for t in n.targets)]
    assert len(values) == 1, f"{module.__name__}: __all__ must be assigned once"
    value = values[0]
    assert isinstance(value, ast.List) and all(isinstance(e, ast.Constant) and isinstance(e.value, str)
                                               for e in value.elts), f"{module.__name__}.__all__ is not a literal list"
    return [e.value for e in value.elts]  # type: ignore[attr-defined]


@pytest.mark.parametrize("module", PUBLIC_MODULES, ids=lambda m: m.__name__)
def test_all_is_a_literal_list_of_what_the_module_exports(module: types.ModuleType) -> None:
    names = _literal_all(module)
    assert names == module.__all__ and len(set(names)) == len(names)
    missing = [n for n in names if not hasattr(module, n)]
    assert not missing, f"{module.__name__}.__all__ names what it lacks: {missing}"
    if module is stridex:  # every public name of the namespace is exported (submodules: those __all__ lists)
        public = {n for n, v in vars(module).items() if not n.startswith("_")
                  and (not isinstance(v, types.ModuleType) or n in names)}
    else:  # every public function defined in the extension is exported
        public = {n for n, v in vars(module).items() if not n.startswith("_") and inspect.isfunction(v)
                  and v.__module__ == module.__name__}
    assert public <= set(names), f"{module.__name__} exports, outside __all__: {sorted(public - set(names))}"
    if module is stridex:
        assert set(names) - {"__array_namespace_info__"} == public


def test_all_covers_the_standard() -> None:
    chapters = ("creation", "data_type", "elementwise", "indexing", "inspection", "linalg_main", "manipulation",
                "searching", "set", "sorting", "statistical", "utility", "constants", "dtypes")
    required = {n for c in chapters for n in API_NAMES[c]} | {"linalg", "fft"}
    assert required - set(stridex.__all__) == set()
    assert set(API_NAMES["ext_linalg"]) - set(stridex.linalg.__all__) == set()
    assert set(API_NAMES["ext_fft"]) - set(stridex.fft.__all__) == set()


def _public_callables() -> list[tuple[str, object]]:
    found: list[tuple[str, object]] = []
    for module in PUBLIC_MODULES:
        for name in module.__all__:
            value = getattr(module, name)
            if callable(value) and not isinstance(value, type):
                found.append((f"{module.__name__}.{name}", value))
    info = type(stridex.__array_namespace_info__())
    found += [(f"Info.{n}", getattr(info, n)) for n in API_NAMES["inspection_info_methods"]]
    for name, value in vars(stridex.Array).items():  # the core's own members (the installed ones: above)
        if callable(value) and getattr(value, "__module__", None) == _core_array.__name__ and (
                not name.startswith("_") or name.startswith("__")):
            found.append((f"Array.{name}", value))
    return found


@pytest.mark.parametrize("name,function", _public_callables(), ids=[n for n, _ in _public_callables()])
def test_public_function_is_annotated(name: str, function: object) -> None:
    signature = inspect.signature(function)  # type: ignore[arg-type]
    unannotated = [p.name for p in signature.parameters.values()
                   if p.annotation is inspect.Parameter.empty and p.name != "self"]
    assert not unannotated, f"{name}{signature}: parameters {unannotated} have no annotation"
    assert signature.return_annotation is not inspect.Signature.empty, f"{name}{signature}: no return annotation"


# --- the package itself ------------------------------------------------------------------------------------------


def test_package_passes_mypy() -> None:
    """`mypy stridex` at the level of pyproject.toml's [tool.mypy] (what CI and a contributor run)."""
    output, status = _mypy("package", "--config-file", str(ROOT / "pyproject.toml"), str(ROOT / "stridex"))
    assert status == 0 and not ERROR.search(output), output
