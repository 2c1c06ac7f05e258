"""The documentation runs: every ```python block of docs/*.md and README.md, the examples in the docstrings
of the public names (the API reference shows them), the one-file miniature, and (with the `docs` extra
installed) the strict site build.

Conventions of the pages (see docs/index.md):
- The ```python blocks of one page run in order, in one namespace.
- `<!-- no-run -->` on the line before a ```python block leaves it out (for illustrative fragments only).
- `<!-- output -->` on the line before a ```text block makes it the exact output that the ```python
  block before it prints.
- `<!-- requires: module -->` on the line before a ```python block skips the rest of the page when
  `module` cannot be imported (an optional dependency, e.g. array_api_compat).
"""

from __future__ import annotations

import contextlib
import doctest
import importlib.util
import io
import linecache
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PAGES = sorted(DOCS.glob("*.md")) + [ROOT / "README.md"]
FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>```+|~~~+)[ \t]*(?P<info>[^\n`]*)\n(?P<body>.*?)^(?P=indent)(?P=fence)[ \t]*$",
                   re.MULTILINE | re.DOTALL)
MARKER = re.compile(r"<!--\s*(no-run|output|requires:\s*(?P<module>[\w.]+))\s*-->")


def code_blocks(text: str) -> list[dict]:
    """The fenced blocks of a Markdown page: language, code (dedented), line number and marker."""
    blocks = []
    for match in FENCE.finditer(text):
        before = text[: match.start()].rstrip("\n").rsplit("\n", 1)[-1].strip()
        marker = MARKER.fullmatch(before)
        blocks.append({
            "language": (match.group("info").split() or [""])[0].lower(),
            "code": textwrap.dedent(match.group("body")),
            "line": text.count("\n", 0, match.start()) + 2,
            "marker": marker.group(1).split(":")[0] if marker else None,
            "module": marker.group("module") if marker else None,
        })
    return blocks


def test_code_blocks_are_found_with_their_markers():
    page = ("Text.\n\n```python\nx = 1\n```\n\n<!-- output -->\n```text\n1\n```\n\n<!-- no-run -->\n"
            "```python\nraise SystemExit\n```\n\n- item\n\n    ```py\n    y = x\n    ```\n")
    blocks = code_blocks(page)
    assert [(b["language"], b["marker"], b["line"]) for b in blocks] == [
        ("python", None, 4), ("text", "output", 9), ("python", "no-run", 14), ("py", None, 20)]
    assert blocks[3]["code"] == "y = x\n"


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_page_code_blocks_run(page: Path):
    namespace: dict = {"__name__": f"docs_{page.stem.replace('-', '_')}"}
    last_output = None
    for block in code_blocks(page.read_text(encoding="utf-8")):
        where = f"{page.relative_to(ROOT)}:{block['line']}"
        if block["marker"] == "output":
            assert last_output is not None, f"{where}: an output block must follow a python block"
            assert last_output.rstrip() == block["code"].rstrip(), (
                f"{where}: the page shows output that its code does not print; it prints:\n{last_output}")
            continue
        if block["language"] not in ("python", "py"):
            continue
        if block["marker"] == "no-run":
            last_output = None
            continue
        if block["marker"] == "requires" and importlib.util.find_spec(block["module"]) is None:
            pytest.skip(f"{where} needs {block['module']}, which is not installed")
        linecache.cache[where] = (len(block["code"]), None, block["code"].splitlines(True), where)  # for tracebacks
        stdout = io.StringIO()
        with contextlib.redirect_stdout(stdout):
            exec(compile(block["code"], where, "exec"), namespace)  # noqa: S102 (running the examples is the test)
        last_output = stdout.getvalue()
        sys.stdout.write(last_output)


def test_no_run_marker_is_rare():
    """Opting out is for fragments that cannot run (shell-ish or illustrative), not for failing examples."""
    skipped = [f"{p.name}:{b['line']}" for p in PAGES for b in code_blocks(p.read_text(encoding="utf-8"))
               if b["marker"] == "no-run"]
    assert len(skipped) <= 3, f"too many <!-- no-run --> blocks: {skipped}"


def public_objects() -> list[tuple[str, object]]:
    """What the API reference documents: the namespaces, and every public function and class in them."""
    import stridex
    import stridex.nn.initializers
    import stridex.numpy
    import stridex.scipy.special

    objects: list[tuple[str, object]] = []
    for module in (stridex, stridex.linalg, stridex.fft, stridex.random, stridex.lax, stridex.debug, stridex.tree,
                   stridex.errors, stridex.nn,
                   stridex.nn.initializers, stridex.scipy, stridex.scipy.special, stridex.numpy,
                   stridex.numpy.linalg, stridex.numpy.fft):
        objects.append((module.__name__, module))
        objects += [(f"{module.__name__}.{name}", getattr(module, name)) for name in module.__all__
                    if callable(getattr(module, name)) and type(getattr(module, name)) is not type(stridex)
                    and _is_stridexs(getattr(module, name))]
    return objects


def _is_stridexs(obj: object) -> bool:
    """Defined by stridex (stridex.numpy also re-exports NumPy's own objects, `printoptions`, `floating`, whose
    docstrings are NumPy's)."""
    return str(getattr(obj, "__module__", "stridex") or "").startswith("stridex")


def test_docstring_examples_run():
    """Every `>>>` example of a public docstring gives the output it shows (the API reference prints them)."""
    finder = doctest.DocTestFinder(recurse=False)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    report = io.StringIO()
    attempted = 0
    for name, obj in public_objects():
        members = [(name, obj)]
        if isinstance(obj, type):  # a class: its own docstring and its methods' and properties'
            members += [(f"{name}.{member}", value) for member, value in vars(obj).items()
                        if not member.startswith("_") or member.startswith("__")]
        for member_name, member in members:
            for test in finder.find(member, member_name, globs={}):
                runner.run(test, out=report.write)
                attempted += len(test.examples)
    assert runner.failures == 0, report.getvalue()
    assert attempted > 100, f"only {attempted} docstring examples found"


def test_files_named_in_the_docs_exist():
    """The docs name modules (`stridex/_tracing.py`) and tests so that a claim can be checked against one file:
    when modules move, the docs must move with them."""
    pattern = re.compile(r"(?<![\w/.-])(?:stridex|tests|benchmarks|compliance)/[\w/]+\.(?:py|md)\b")
    sources = [*PAGES, DOCS / "stridex_in_one_file.py"]
    missing = sorted({f"{source.name}: {path}" for source in sources
                      for path in pattern.findall(source.read_text(encoding="utf-8")) if not (ROOT / path).exists()})
    assert not missing, f"the docs name files that do not exist: {missing}"


def test_one_file_miniature_runs():
    script = DOCS / "stridex_in_one_file.py"
    result = subprocess.run([sys.executable, str(script)], check=False, capture_output=True, text=True, timeout=300,
                            cwd=ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "the IR of f:" in result.stdout and "{ lambda" in result.stdout
    imports = {line.split()[1].split(".")[0] for line in script.read_text(encoding="utf-8").splitlines()
               if line.startswith(("import ", "from ")) and not line.startswith("from __future__")}
    assert imports <= {"contextlib", "math", "collections", "jax", "numpy"}, imports


def test_site_builds_strictly(tmp_path: Path):
    """`python -m mkdocs build --strict` succeeds without a warning, and the API reference documents every
    public name."""
    pytest.importorskip("mkdocs")
    pytest.importorskip("mkdocstrings_handlers.python")
    site = tmp_path / "site"
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
                            check=False, capture_output=True, text=True, timeout=600, cwd=ROOT)
    log = result.stdout + result.stderr
    assert result.returncode == 0, log
    assert "WARNING" not in log, log

    import stridex

    reference = (site / "api" / "index.html").read_text(encoding="utf-8")
    missing = [f"stridex.{name}" for name in stridex.__all__
               if f'id="stridex.{name}"' not in reference and f"<code>stridex.{name}</code>" not in reference]
    for module in (stridex.linalg, stridex.fft):
        missing += [f"{module.__name__}.{name}" for name in module.__all__
                    if f'id="{module.__name__}.{name}"' not in reference]
    assert not missing, f"the API reference lacks {missing}"
    assert (site / "repo" / "compliance" / "REPORT" / "index.html").is_file()
    assert (site / "one-file" / "index.html").is_file()
