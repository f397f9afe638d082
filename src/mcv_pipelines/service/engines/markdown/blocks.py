"""Writing Markdown blocks: headings, paragraphs, list items and tables, with the text escaped so a
document's own ``#``, ``|`` or ``*`` stays text and never becomes structure."""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["escape", "heading", "list_item", "paragraph", "table"]

_INLINE = re.compile(r"([\\`*_\[\]<>|])")
_LINE_START = re.compile(r"^(\s*)([#>+=-]|\d+[.)])(?=\s|$)")


def escape(text: str) -> str:
    """``text`` as literal Markdown inline text, on one line.

    >>> escape("a *b* | c")
    'a \\\\*b\\\\* \\\\| c'
    >>> escape("# not a heading")
    '\\\\# not a heading'
    """
    flat = " ".join(text.split())
    flat = _INLINE.sub(r"\\\1", flat)
    return _LINE_START.sub(lambda m: m.group(1) + m.group(2)[:-1] + "\\" + m.group(2)[-1], flat)


def heading(level: int, text: str) -> str:
    return f"{'#' * max(1, min(level, 6))} {escape(text) or '(untitled)'}"


def paragraph(text: str) -> str:
    return escape(text)


def list_item(text: str, level: int = 0, ordered: bool = False) -> str:
    """A bullet (or numbered item) indented for its ``level`` (0 = top)."""
    marker = "1." if ordered else "-"
    return f"{'  ' * max(0, level) * (2 if ordered else 1)}{marker} {escape(text)}"


def table(rows: Sequence[Sequence[str]]) -> str:
    """A pipe table, its first row the header; rows padded to the widest one. Empty: ``""``.

    >>> print(table([["a", "b"], ["1"]]))
    | a | b |
    | --- | --- |
    | 1 |  |
    """
    width = max((len(row) for row in rows), default=0)
    if width == 0:
        return ""
    cells = [[escape(str(cell)) for cell in row] + [""] * (width - len(row)) for row in rows]
    lines = ["| " + " | ".join(cells[0]) + " |", "| " + " | ".join(["---"] * width) + " |"]
    lines += ["| " + " | ".join(row) + " |" for row in cells[1:]]
    return "\n".join(lines)
