"""Griffe extension for the API reference: fence the doctest examples of stridex's docstrings.

stridex's docstrings are Markdown prose followed by doctest examples (`>>> ...` lines and their
output, ended by a blank line). Markdown would read `>>>` as nested block quotes and the output
lines as text (`[(3, 2), (2,)]` as a link), so each doctest run is wrapped in a ```pycon fence.
The docstrings themselves are not changed; `mkdocs.yml` loads this file by path.
"""

from __future__ import annotations

from typing import Any

import griffe


def fence_doctests(text: str) -> str:
    """`text` with every doctest run (a `>>>` line up to the next blank line) inside a ```pycon fence."""
    lines, out, inside, indent = text.splitlines(), [], False, ""
    for line in lines:
        stripped = line.strip()
        if not inside and stripped.startswith(">>>"):
            indent = line[: len(line) - len(line.lstrip())]
            out.append(indent + "```pycon")
            inside = True
        elif inside and not stripped:
            out.append(indent + "```")
            inside = False
        out.append(line)
    if inside:
        out.append(indent + "```")
    return "\n".join(out)


class DoctestBlocks(griffe.Extension):
    """Fence the doctest examples of every docstring griffe loads."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None and ">>>" in obj.docstring.value:
            obj.docstring.value = fence_doctests(obj.docstring.value)
