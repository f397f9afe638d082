"""What the cursor stands on: an option name, a value of some option, an input, a ``params.`` name.

Read from the line's text before the cursor and the buffer's outline, so it works while typing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from mcv_pipelines.lsp.outline import Outline, TaskBlock, indent_of

__all__ = ["Context", "Kind", "context_at", "param_at"]

Kind = Literal["option-name", "option-value", "input", "param", "none"]

_PARAM = re.compile(r"params\.([\w-]*)$")
_KEY_VALUE = re.compile(r"^(\s*)([\w./-]+)\s*:\s*(.*)$")
_ITEM = re.compile(r"^(\s*)-\s*([\w.-]*)$")
_TYPING = re.compile(r"[\w./-]*$")


@dataclass(frozen=True, slots=True)
class Context:
    """``start`` is where the word being typed begins (the completion replaces ``start``..cursor)."""

    kind: Kind
    start: int
    task: TaskBlock | None = None
    key: str | None = None


def _in_template(before: str) -> bool:
    return before.rfind("{{") > before.rfind("}}")


def _list_key(outline: Outline, task: TaskBlock, line: int) -> str | None:
    """The option whose block list holds ``line`` (the nearest option above it)."""
    for name, entry in sorted(task.options.items(), key=lambda kv: -kv[1].line):
        if entry.line < line:
            return name
    return None


def context_at(outline: Outline, line: int, column: int) -> Context:
    if line >= len(outline.lines):
        return Context("none", column)
    text = outline.lines[line]
    before = text[:column]
    typed = _TYPING.search(before)
    start = typed.start() if typed else column
    if _in_template(before):
        found = _PARAM.search(before)
        return Context("param", found.start(1)) if found else Context("none", column)
    task = outline.task_at(line)
    if task is None or line == task.header.line:
        return Context("none", start)
    word = typed.group() if typed else ""
    if before.strip() == word:
        # Only at the indent of the task's options: elsewhere a name would land in the wrong mapping.
        return Context("option-name" if indent_of(before) == task.indent else "none", start, task)
    pair = _KEY_VALUE.match(before)
    if pair is not None and len(pair.group(1)) == task.indent:
        key = pair.group(2)
        return Context("input" if key == "input" else "option-value", start, task, key)
    item = _ITEM.match(before)
    if item is not None and _list_key(outline, task, line) == "input":
        return Context("input", start, task, "input")
    return Context("none", start)


def param_at(text: str, column: int) -> tuple[str, int, int] | None:
    """The ``params.NAME`` around ``column`` inside a template: (name, start, end) of NAME."""
    for found in re.finditer(r"params\.([\w-]+)", text):
        if found.start() <= column <= found.end() and _in_template(text[: found.start()]):
            return found.group(1), found.start(1), found.end(1)
    return None
