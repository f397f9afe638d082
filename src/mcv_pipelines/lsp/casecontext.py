"""Where the cursor stands inside a recipe's ``tests:`` list, read from the lines as typed.

Like ``outline``, this reads block-style YAML line by line, so it works on a half-typed case. The
``path`` is the keys from ``tests`` down to the mapping the cursor's key belongs to, ``-`` for a list
item; it tells completion and hover what a key there means:

    tests:
      - name: a             ("tests", "-")                    a case key
        params:
          photo: x.jpg      ("tests", "-", "params")          a param of the recipe
        expect:
          web:              ("tests", "-", "expect")          a task or for_each group
            files: 2        ("tests", "-", "expect", "web")   an expectation key

Columns and lines count from 0 (code points).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from mcv_pipelines.lsp.outline import indent_of

__all__ = ["CASE", "EXPECT", "PARAMS", "CaseSpot", "case_key_at", "case_spot"]

CASE = ("tests", "-")
EXPECT = (*CASE, "expect")
PARAMS = (*CASE, "params")

_KEY = re.compile(r"([A-Za-z0-9_][\w.-]*)\s*:(?:\s|$)")
_TYPING = re.compile(r"^( *)(?:(-) +)?([\w.-]*)$")


@dataclass(frozen=True, slots=True)
class CaseSpot:
    """A key's place in ``tests:``: the mapping's path, the key's span, the mapping's other keys."""

    path: tuple[str, ...]
    start: int
    end: int
    present: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class _Shape:
    """A content line: its indent, whether it opens a list item, where its key starts, the key."""

    indent: int
    dash: bool
    column: int
    key: str | None


def _shape(text: str) -> _Shape | None:
    stripped = text.strip()
    if not stripped or stripped.startswith("#"):
        return None
    indent = indent_of(text)
    rest = text[indent:]
    dash = rest == "-" or rest.startswith("- ")
    column = indent + 1 + indent_of(rest[1:]) if dash else indent
    found = _KEY.match(text, column)
    return _Shape(indent, dash, column, found.group(1) if found else None)


def _path(lines: Sequence[str], line: int, column: int, item: bool) -> tuple[tuple[str, ...], int] | None:
    """The path of the mapping whose keys stand at ``column`` (``item``: ``line`` opens it with a
    dash), and the line that opens that mapping; None outside ``tests:``."""
    path: list[str] = []
    opens: int | None = None
    if item:
        path.append("-")
        opens, column = line, indent_of(lines[line])
    in_item = item
    for i in range(line - 1, -1, -1):
        shape = _shape(lines[i])
        if shape is None or shape.indent > column or (shape.indent == column and (shape.dash or not in_item)):
            continue  # deeper, a sibling, or a sibling item
        if shape.dash:
            if shape.key is not None and shape.column < column:
                path.append(shape.key)  # "- expect:" holds the mapping below it
            path.append("-")
            column, in_item = shape.indent, True
        elif shape.key is None:
            return None  # a lesser-indented line that is no key: not a block this reads
        else:
            path.append(shape.key)
            column, in_item = shape.column, False
        opens = i if opens is None else opens
        if column == 0 and not in_item:
            break
    if not path or path[-1] != "tests" or column != 0 or opens is None:
        return None
    return tuple(reversed(path)), opens


def _present(lines: Sequence[str], opens: int, column: int, skip: int) -> tuple[str, ...]:
    """The keys at ``column`` of the mapping opened on line ``opens`` (line ``skip`` left out)."""
    found: list[str] = []
    for i in range(opens, len(lines)):
        shape = _shape(lines[i])
        if shape is None:
            continue
        if i > opens and shape.indent < column:
            break
        if i != skip and shape.column == column and shape.key is not None and (i == opens or not shape.dash):
            found.append(shape.key)
    return tuple(found)


def case_spot(lines: Sequence[str], line: int, column: int) -> CaseSpot | None:
    """Where a key being typed at ``line``/``column`` would go in ``tests:``; None elsewhere."""
    if line >= len(lines):
        return None
    typing = _TYPING.match(lines[line][:column])
    if typing is None:
        return None
    start = typing.start(3)
    found = _path(lines, line, start, typing.group(2) is not None)
    if found is None:
        return None
    path, opens = found
    return CaseSpot(path, start, column, _present(lines, opens, start, line))


def case_key_at(lines: Sequence[str], line: int, column: int) -> tuple[CaseSpot, str] | None:
    """The key written at ``line`` under the cursor inside ``tests:``, with its place; None elsewhere."""
    if line >= len(lines):
        return None
    shape = _shape(lines[line])
    if shape is None or shape.key is None or not shape.column <= column <= shape.column + len(shape.key):
        return None
    found = _path(lines, line, shape.column, shape.dash)
    if found is None:
        return None
    path, opens = found
    end = shape.column + len(shape.key)
    return CaseSpot(path, shape.column, end, _present(lines, opens, shape.column, line)), shape.key
