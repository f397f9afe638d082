"""Hover, go to definition and quick fixes (positions in code points; the server converts them)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from lsprotocol import types

from mcv_pipelines.lsp.casecontext import CASE, EXPECT, PARAMS, case_key_at
from mcv_pipelines.lsp.completion import describe_option
from mcv_pipelines.lsp.context import param_at
from mcv_pipelines.lsp.convert import fix_of
from mcv_pipelines.lsp.knowledge import Knowledge, case_keys, expectation_keys
from mcv_pipelines.lsp.outline import Outline, TaskBlock
from mcv_pipelines.lsp.ranges import word_at
from mcv_pipelines.pipeline.model import RenderedPipeline

__all__ = ["definition", "hover", "quick_fixes"]

_INPUT_LINE = re.compile(r"^\s*(input\s*:|-\s)")


def _span(line: int, start: int, end: int) -> types.Range:
    return types.Range(types.Position(line, start), types.Position(line, end))


def _task_reference(outline: Outline, line: int, column: int) -> tuple[TaskBlock, int, int] | None:
    """The task named at the cursor: a task's own header, a name in some task's ``input``, or a key
    of a test case's ``expect:``."""
    text = outline.lines[line] if line < len(outline.lines) else ""
    start, end = word_at(text, column)
    word = text[start:end]
    target = outline.tasks.get(word)
    if target is None:
        return None
    if line == target.header.line and start == target.header.column:
        return target, start, end
    expected = case_key_at(outline.lines, line, column)
    if expected is not None:
        return (target, start, end) if expected[0].path == EXPECT and expected[1] == word else None
    owner = outline.task_at(line)
    if owner is None or line == owner.header.line:
        return None
    above = [e for e in owner.options.values() if e.line <= line]
    key = max(above, key=lambda e: e.line).name if above else None
    if key == "input" and _INPUT_LINE.match(text):
        return target, start, end
    return None


def _task_text(task: TaskBlock, knowledge: Knowledge, pipeline: RenderedPipeline | None) -> str:
    operation = task.option("operation") or "(no operation)"
    lines = [f"**{task.name}**: `{operation}`"]
    formats = knowledge.formats(pipeline, task.name)
    if formats is not None:
        received = ", ".join(f or "?" for f in formats.input_formats)
        if received:
            lines.append(f"reads: {received}")
        if formats.output:
            lines.append(f"makes: {formats.output}")
    inputs = task.option("input")
    if inputs:
        lines.append(f"input: {inputs}")
    return "\n\n".join(lines)


def _param_text(name: str, spec: Any) -> str:
    """A param's declaration: type, default, example and description."""
    if not isinstance(spec, Mapping):
        return f"**params.{name}**"
    facts = [f"{key}: {spec[key]!r}" for key in ("type", "default", "example", "enum") if key in spec]
    head = f"**params.{name}**" + (f" ({'; '.join(facts)})" if facts else "")
    about = spec.get("description")
    return head + (f"\n\n{about}" if isinstance(about, str) else "")


def _case_hover(
    outline: Outline, line: int, column: int, declared: Mapping[str, Any] | None
) -> types.Hover | None:
    """A test case's key, an expectation's key, or a param a case gives: what it means."""
    found = case_key_at(outline.lines, line, column)
    if found is None:
        return None
    spot, key = found
    if spot.path == PARAMS and key in outline.params:
        body = _param_text(key, (declared or {}).get(key))
    else:
        keys = case_keys() if spot.path == CASE else expectation_keys() if spot.path[:-1] == EXPECT else {}
        info = keys.get(key)
        if info is None:
            return None
        body = describe_option(info)
    return types.Hover(
        types.MarkupContent(types.MarkupKind.Markdown, body), _span(line, spot.start, spot.end)
    )


def hover(
    outline: Outline,
    knowledge: Knowledge,
    pipeline: RenderedPipeline | None,
    line: int,
    column: int,
    declared: Mapping[str, Any] | None = None,
) -> types.Hover | None:
    """A param's declaration, a task's operation and formats, or an option's type, default and doc.

    ``declared`` is the ``params`` mapping of the last parsed document (for a param's declaration).
    """
    if line >= len(outline.lines):
        return None
    text = outline.lines[line]
    param = param_at(text, column)
    if param is not None and param[0] in outline.params:
        body = _param_text(param[0], (declared or {}).get(param[0]))
        return types.Hover(
            types.MarkupContent(types.MarkupKind.Markdown, body), _span(line, param[1], param[2])
        )
    reference = _task_reference(outline, line, column)
    if reference is not None:
        target, start, end = reference
        body = _task_text(target, knowledge, pipeline)
        return types.Hover(types.MarkupContent(types.MarkupKind.Markdown, body), _span(line, start, end))
    case = _case_hover(outline, line, column, declared)
    if case is not None:
        return case
    task = outline.task_at(line)
    if task is None:
        return None
    option = next((e for e in task.options.values() if e.line == line), None)
    operation = task.option("operation")
    if option is None or operation is None or not option.column <= column <= option.column + len(option.name):
        return None
    if option.name == "operation":
        schema = knowledge.schema(operation) or {}
        about = schema.get("description")
        body = f"**{operation}**" + (f"\n\n{about}" if isinstance(about, str) else "")
    else:
        info = knowledge.options(operation, knowledge.formats(pipeline, task.name), task.option("engine"))
        found = info.get(option.name)
        if found is None:
            return None
        body = describe_option(found)
    span = _span(line, option.column, option.column + len(option.name))
    return types.Hover(types.MarkupContent(types.MarkupKind.Markdown, body), span)


def definition(outline: Outline, uri: str, line: int, column: int) -> types.Location | None:
    """From an ``input`` name (or a case's ``expect:`` key) to its task, from ``params.X`` (or a
    case's ``params:`` key) to the param."""
    if line >= len(outline.lines):
        return None
    param = param_at(outline.lines[line], column)
    given = case_key_at(outline.lines, line, column)
    if param is None and given is not None and given[0].path == PARAMS:
        param = given[1], given[0].start, given[0].end
    if param is not None:
        entry = outline.params.get(param[0])
        if entry is None:
            return None
        return types.Location(uri, _span(entry.line, entry.column, entry.column + len(entry.name)))
    reference = _task_reference(outline, line, column)
    if reference is None:
        return None
    header = reference[0].header
    return types.Location(uri, _span(header.line, header.column, header.column + len(header.name)))


def quick_fixes(uri: str, diagnostics: Sequence[types.Diagnostic]) -> list[types.CodeAction]:
    """One "replace with" action per suggestion of each did-you-mean diagnostic."""
    actions: list[types.CodeAction] = []
    for diagnostic in diagnostics:
        fix = fix_of(diagnostic)
        if fix is None:
            continue
        where, replacements = fix
        for i, name in enumerate(replacements):
            actions.append(
                types.CodeAction(
                    title=f"Replace with '{name}'",
                    kind=types.CodeActionKind.QuickFix,
                    diagnostics=[diagnostic],
                    is_preferred=i == 0,
                    edit=types.WorkspaceEdit(changes={uri: [types.TextEdit(where, name)]}),
                )
            )
    return actions
