"""The outline of a pipeline buffer read line by line, so it works on half-typed text too.

Completion runs while the file is mid-edit and often not YAML at all; a YAML parser gives up there.
This reads block-style YAML the way a person does: top-level keys at column 0, entries of ``tasks:``
and ``params:`` at their first indent, each task's options at the indent of its first option.
Columns and lines count from 0 (code points).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

__all__ = ["Entry", "Outline", "TaskBlock", "indent_of", "read_outline"]

_KEY = re.compile(r"^(\s*)([A-Za-z0-9_][\w./-]*)\s*:(?:\s+(.*))?$")


@dataclass(frozen=True, slots=True)
class Entry:
    """A mapping entry: its key's position and the value written after the colon on that line."""

    name: str
    line: int
    column: int
    value: str


@dataclass(frozen=True)
class TaskBlock:
    """One task: its header entry, the lines it spans (header excluded, ``end`` excluded), its options."""

    header: Entry
    end: int
    indent: int
    options: dict[str, Entry] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.header.name

    def option(self, name: str) -> str | None:
        """The value written on the line of option ``name`` (quotes removed), None when absent."""
        entry = self.options.get(name)
        return None if entry is None else entry.value.strip("'\" ") or None


@dataclass(frozen=True)
class Outline:
    lines: tuple[str, ...]
    tasks: dict[str, TaskBlock]
    params: dict[str, Entry]

    def task_at(self, line: int) -> TaskBlock | None:
        """The task whose block holds ``line`` (its header line included)."""
        for task in self.tasks.values():
            if task.header.line <= line < task.end:
                return task
        return None


def indent_of(text: str) -> int:
    return len(text) - len(text.lstrip(" "))


def _content(text: str) -> bool:
    stripped = text.strip()
    return bool(stripped) and not stripped.startswith("#")


def _entry(lines: Sequence[str], i: int) -> Entry | None:
    found = _KEY.match(lines[i])
    if found is None:
        return None
    value = found.group(3) or ""
    comment = value.find(" #")
    value = value[:comment] if comment >= 0 else value
    return Entry(found.group(2), i, len(found.group(1)), value.strip())


def _section_end(lines: Sequence[str], start: int) -> int:
    """The first line after ``start`` that opens another top-level key."""
    for i in range(start + 1, len(lines)):
        if _content(lines[i]) and indent_of(lines[i]) == 0:
            return i
    return len(lines)


def _children(lines: Sequence[str], start: int, end: int) -> tuple[int | None, list[Entry]]:
    """The entries at the first indent found in ``start..end`` (a block's direct children)."""
    indent: int | None = None
    entries: list[Entry] = []
    for i in range(start, end):
        if not _content(lines[i]):
            continue
        here = indent_of(lines[i])
        if indent is None:
            indent = here
        if here == indent:
            entry = _entry(lines, i)
            if entry is not None:
                entries.append(entry)
    return indent, entries


def read_outline(text: str) -> Outline:
    """The tasks and params of ``text`` as far as its lines say."""
    lines = tuple(line.rstrip("\r") for line in text.split("\n"))
    tops = [(i, e) for i in range(len(lines)) if indent_of(lines[i]) == 0 and (e := _entry(lines, i))]
    tasks: dict[str, TaskBlock] = {}
    params: dict[str, Entry] = {}
    for i, top in tops:
        if top.name not in ("tasks", "params") or top.value:
            continue
        end = _section_end(lines, i)
        indent, entries = _children(lines, i + 1, end)
        if top.name == "params":
            params.update((e.name, e) for e in entries if e.name not in params)
            continue
        starts = [e.line for e in entries] + [end]
        for entry, stop in zip(entries, starts[1:], strict=True):
            # A task's block runs to the next task; trailing blank lines belong to it (you type there).
            child_indent, options = _children(lines, entry.line + 1, stop)
            own = child_indent if child_indent is not None else (indent or 0) + 2
            if entry.name not in tasks:
                tasks[entry.name] = TaskBlock(entry, stop, own, {o.name: o for o in options})
    return Outline(lines, tasks, params)
