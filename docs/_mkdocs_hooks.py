"""MkDocs hooks: the generated pages of the site, and repository files that the docs link to.

- `api.md` is generated from the public namespace at build time: one mkdocstrings entry for every name
  in `stridex.__all__` and in each public submodule's `__all__` (linalg, fft, random, nn, scipy), then
  stridex.numpy's functions (and its linalg, fft), rendered from docstrings.
- `one-file.md` is generated from `docs/stridex_in_one_file.py`: its comment paragraphs become prose,
  its code becomes code blocks (the script itself is run by `tests/test_docs.py`).
- A page of `docs/` that `mkdocs.yml`'s nav does not list yet is added to the nav under "More", so a new
  page is part of the site without editing `mkdocs.yml`.
- Markdown files outside `docs/` that a page links to (`../README.md`, `../compliance/REPORT.md`, ...)
  are rendered under `repo/<path>`, and links between them and the docs pages are rewritten to match,
  so the same relative links work on GitHub and in the built site.
"""

from __future__ import annotations

import ast
import posixpath
import re
from pathlib import Path

from mkdocs.structure.files import File, Files

REPOSITORY = Path(__file__).resolve().parent.parent
REPOSITORY_PAGES = "repo/"  # where files from outside docs/ go in the site
LINK = re.compile(r"(?<=\]\()([^)\s#:]+)(?=[)#\s])")  # a relative Markdown link target: ](target) or ](target#a)
ONE_FILE_SCRIPT = "stridex_in_one_file.py"

# Sections of the API reference for names that are neither array functions nor data: the rest of
# `stridex.__all__` lands in "Functions", so a new public name is documented without editing this file.
TRANSFORMATIONS = ("jit", "make_ir", "grad", "value_and_grad", "vjp", "jvp", "jacfwd", "jacrev", "hessian", "vmap",
                   "custom_jvp", "custom_vjp", "checkpoint", "remat", "checkpoint_name", "checkpoint_policies",
                   "cond", "switch", "while_loop", "fori_loop", "scan", "from_jax", "to_jax")
REFERENCE_OPTIONS = "    options:\n      show_root_full_path: false\n"
# Classes show every public member and the spec's dunder methods, with their signatures even where
# they have no docstring; Python's own class attributes (`__slots__`, `__module__`, ...) are left out.
CLASS_OPTIONS = REFERENCE_OPTIONS + (
    "      show_if_no_docstring: true\n"
    '      filters: ["!^_[^_]", "!^__(module|doc|slots|weakref|dict|array_priority|hash|reduce|copy|deepcopy|annotations)__$"]\n'
)


def api_reference_page() -> str:
    """The API reference in Markdown: one `::: identifier` block per public name, grouped."""
    import stridex

    def block(identifier: str, full_path: bool = False) -> str:
        return f"::: {identifier}\n" + ("" if full_path else REFERENCE_OPTIONS)

    def class_block(identifier: str) -> str:
        return f"::: {identifier}\n" + CLASS_OPTIONS

    dtype_type = type(stridex.float64)
    names = list(stridex.__all__)
    classes = [n for n in names if isinstance(getattr(stridex, n), type) and n not in TRANSFORMATIONS]
    modules = [n for n in names if type(getattr(stridex, n)) is type(stridex)]
    dtypes = [n for n in names if isinstance(getattr(stridex, n), dtype_type)]
    transformations = [n for n in TRANSFORMATIONS if n in names]
    constants = [n for n in names if not callable(getattr(stridex, n)) and n not in modules + dtypes]
    taken = set(classes + modules + dtypes + transformations + constants)
    functions = sorted(n for n in names if n not in taken)

    parts = [
        "# API reference\n",
        (
            "Generated at build time from the docstrings of the public namespace: every name in "
            f"`stridex.__all__` ({len(names)} names), `stridex.linalg`, `stridex.fft`, `stridex.random`, `stridex.nn` and "
            "`stridex.scipy`. The functions follow "
            "the [Array API standard 2025.12](https://data-apis.org/array-api/2025.12/); what stridex does where "
            "the standard leaves room is in [semantics.md](semantics.md) and [library-authors.md](library-authors.md). "
            "As the standard requires, array arguments are positional-only; a signature whose parameters are all "
            "positional-only is shown without its trailing `/` (a limitation of the renderer, mkdocstrings-python).\n"
        ),
        "## Arrays and devices\n",
        *(class_block(f"stridex.{n}") for n in classes),
        "## Transformations\n",
        *(block(f"stridex.{n}") for n in transformations),
        "## Functions\n",
        *(block(f"stridex.{n}") for n in functions),
    ]
    parts.append("## Data types\n")
    parts.append("The dtypes of the standard, and the half-precision `float16` and `bfloat16` beyond it (see "
                 "[design.md](design.md)), as `stridex` attributes, with their kind "
                 "(`stridex.isdtype`):\n")
    kinds = ("bool", "signed integer", "unsigned integer", "real floating", "complex floating")

    def kind(name: str) -> str:
        return next(k for k in kinds if stridex.isdtype(getattr(stridex, name), k))

    parts.append("| name | kind |\n|---|---|\n" + "".join(f"| `stridex.{n}` | {kind(n)} |\n" for n in dtypes))
    parts.append("## Constants\n")
    parts.append("| name | value |\n|---|---|\n" + "".join(f"| `stridex.{n}` | `{getattr(stridex, n)!r}` |\n" for n in constants))
    for module_name in modules:
        module = getattr(stridex, module_name)
        parts.append(f"## stridex.{module_name}\n")
        parts.append(f"::: stridex.{module_name}\n    options:\n      members: false\n      show_root_heading: false\n")
        parts.extend(block(f"stridex.{module_name}.{n}", full_path=True) for n in module.__all__)
    parts.extend(_numpy_reference())
    return "\n".join(parts)


def _numpy_reference() -> list[str]:
    """stridex.numpy's functions (jax.numpy's names; the list with its themes is docs/from-jax.md): those stridex
    defines, not the dtypes, constants, stridex's own names or NumPy's objects it re-exports."""
    import stridex.numpy

    parts = []
    for module in (stridex.numpy, stridex.numpy.linalg, stridex.numpy.fft):
        parts.append(f"## {module.__name__}\n")
        parts.append(f"::: {module.__name__}\n    options:\n      members: false\n      show_root_heading: false\n")
        for name in module.__all__:
            value = getattr(module, name)
            if callable(value) and not isinstance(value, type) and type(value).__name__ == "function" and str(
                    getattr(value, "__module__", "")).startswith("stridex.numpy"):
                parts.append(f"::: {module.__name__}.{name}\n")
    return parts


def one_file_page(script: str) -> str:
    """The literate script as a page: top-level comment paragraphs become prose, the rest code blocks."""
    module = ast.parse(script)
    summary, _, rest = (ast.get_docstring(module) or "stridex in one file").partition("\n")
    out: list[str] = [
        f"# {summary.rstrip('.')}\n",
        rest.strip() + "\n",
        (
            f"This page is [{ONE_FILE_SCRIPT}]({ONE_FILE_SCRIPT}), rendered at build time: its comment paragraphs "
            "are the prose, the rest is its code. `tests/test_docs.py` runs it.\n"
        ),
    ]
    code: list[str] = []

    def flush_code() -> None:
        while code and not code[-1].strip():
            code.pop()
        while code and not code[0].strip():
            code.pop(0)
        if code:
            out.append("```python\n" + "\n".join(code) + "\n```\n")
        code.clear()

    lines = script.splitlines()
    i = module.body[0].end_lineno if ast.get_docstring(module) else 0  # after the docstring
    while i < len(lines):
        line = lines[i]
        if line.startswith("#") and not line.startswith("#!"):
            flush_code()
            prose = []
            while i < len(lines) and lines[i].startswith("#"):
                prose.append(lines[i][2:] if lines[i].startswith("# ") else lines[i][1:])
                i += 1
            out.append("\n".join(prose) + "\n")
            continue
        code.append(line)
        i += 1
    flush_code()
    return "\n".join(out)


def _repository_path(src_uri: str) -> str:
    """The path in the repository of the file a site page was made from."""
    return src_uri[len(REPOSITORY_PAGES):] if src_uri.startswith(REPOSITORY_PAGES) else "docs/" + src_uri


def _site_uri(repository_path: str) -> str:
    return repository_path[len("docs/"):] if repository_path.startswith("docs/") else REPOSITORY_PAGES + repository_path


def _linked_repository_files(markdown: str, repository_path: str) -> list[str]:
    """Files outside docs/ that exist in the repository and that `markdown` (the file at
    `repository_path`) links to."""
    found = []
    for target in LINK.findall(markdown):
        path = posixpath.normpath(posixpath.join(posixpath.dirname(repository_path), target))
        if not path.startswith(("docs/", "../")) and (REPOSITORY / path).is_file():
            found.append(path)
    return found


def _nav_files(nav) -> set[str]:
    if isinstance(nav, str):
        return {nav}
    if isinstance(nav, dict):
        return set().union(*(_nav_files(v) for v in nav.values()))
    if isinstance(nav, list):
        return set().union(*(_nav_files(v) for v in nav)) if nav else set()
    return set()


def on_config(config):
    listed = _nav_files(config.nav)
    more = []
    for page in sorted((REPOSITORY / "docs").glob("*.md")):
        if page.name not in listed:
            title = next((line[2:].strip() for line in page.read_text(encoding="utf-8").splitlines()
                          if line.startswith("# ")), page.stem)
            more.append({title: page.name})
    if more and config.nav is not None:
        config.nav.append({"More": more})
    return config


def on_files(files: Files, config) -> Files:
    files.append(File.generated(config, "api.md", content=api_reference_page()))
    script = (REPOSITORY / "docs" / ONE_FILE_SCRIPT).read_text(encoding="utf-8")
    files.append(File.generated(config, "one-file.md", content=one_file_page(script)))
    pending = [
        (_repository_path(f.src_uri), (REPOSITORY / "docs" / f.src_uri).read_text(encoding="utf-8"))
        for f in list(files) if f.src_uri.endswith(".md") and f.abs_src_path
    ]
    seen = set()
    while pending:
        repository_path, markdown = pending.pop()
        for path in _linked_repository_files(markdown, repository_path):
            if path in seen:
                continue
            seen.add(path)
            content = (REPOSITORY / path).read_bytes()
            files.append(File.generated(config, _site_uri(path), content=content))
            if path.endswith(".md"):
                pending.append((path, content.decode("utf-8")))
    return files


def on_page_markdown(markdown: str, page, config, files: Files) -> str:
    """Rewrite links that cross the docs/ boundary to the site's copy of their target."""
    repository_path = _repository_path(page.file.src_uri)
    here = posixpath.dirname(page.file.src_uri)

    def rewrite(match: re.Match) -> str:
        target = match.group(1)
        path = posixpath.normpath(posixpath.join(posixpath.dirname(repository_path), target))
        uri = _site_uri(path)
        if files.get_file_from_path(uri) is None:
            return target  # not a file of the site: MkDocs reports it if it is broken
        return posixpath.relpath(uri, here or ".")

    return LINK.sub(rewrite, markdown)
