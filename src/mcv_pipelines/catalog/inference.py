"""Formats along the graph: what each task receives and makes, from names and operations alone.

An import's format comes from the file name it brings (``filename``, ``upload_from``, the URL's path,
a storage ``key``...); a processing task's input format is its explicit ``input_format``, else its
inputs' output format; its own output follows ``formats.output_format_of``. The caller walks the tasks
in graph order (inputs first); nothing here knows about networkx or YAML.

>>> tasks = {"in": {"operation": "import/upload", "upload_from": "photo.JPG"},
...          "web": {"operation": "convert", "input": "in", "output_format": "webp"},
...          "thumb": {"operation": "thumbnail", "input": "web", "output_format": "png"}}
>>> flow = infer_formats(tasks, ["in", "web", "thumb"])
>>> flow["thumb"].input_formats, flow["thumb"].output
(('webp',), 'png')
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mcv_pipelines.catalog.formats import format_from_name, normalise_format, output_format_of

__all__ = ["IMPORT_NAME_KEYS", "TaskFormats", "import_format", "infer_formats", "task_formats"]

# Where an import names its file, most specific first (filename renames what it brings).
IMPORT_NAME_KEYS = ("filename", "upload_from", "url", "key", "blob", "file", "path")


@dataclass(frozen=True, slots=True)
class TaskFormats:
    """The formats a task receives (one per distinct input format; None where unknown) and makes."""

    input_formats: tuple[str | None, ...]
    output: str | None

    @property
    def input_format(self) -> str | None:
        """The one input format to check the task with; None when unknown or mixed."""
        return self.input_formats[0] if len(self.input_formats) == 1 else None


def import_format(task: Mapping[str, Any]) -> str | None:
    """The format of the file an import task brings; None when no name says it."""
    for key in IMPORT_NAME_KEYS:
        value = task.get(key)
        if isinstance(value, str) and value:
            return format_from_name(value)
    return None


def _inputs(task: Mapping[str, Any]) -> list[str]:
    value = task.get("input")
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [v for v in value if isinstance(v, str)]
    return []


def task_formats(task: Mapping[str, Any], made_by_inputs: Iterable[str | None]) -> TaskFormats:
    """One task's formats, given what its input tasks make (in input order)."""
    operation = str(task.get("operation", ""))
    if operation.startswith("import/"):
        return TaskFormats((), import_format(task))
    explicit = task.get("input_format")
    if isinstance(explicit, str) and explicit:
        received: tuple[str | None, ...] = (normalise_format(explicit),)
    else:
        received = tuple(dict.fromkeys(made_by_inputs)) or (None,)
    if operation.startswith("export/"):
        return TaskFormats(received, None)
    single = received[0] if len(received) == 1 else None
    fout = task.get("output_format")
    return TaskFormats(received, output_format_of(operation, single, fout if isinstance(fout, str) else None))


def infer_formats(tasks: Mapping[str, Mapping[str, Any]], order: Sequence[str]) -> dict[str, TaskFormats]:
    """Formats of every task in ``order`` (a topological order: inputs before the tasks using them).

    An input that names no known task contributes an unknown format (the graph check reports it).
    """
    made: dict[str, TaskFormats] = {}
    for name in order:
        task = tasks[name]
        from_inputs = [made[i].output if i in made else None for i in _inputs(task)]
        made[name] = task_formats(task, from_inputs)
    return made
