"""Completion items for the cursor's context (positions in code points; the server converts them)."""

from __future__ import annotations

from collections.abc import Iterable

from lsprotocol import types

from mcv_pipelines.lsp.casecontext import CASE, EXPECT, PARAMS, CaseSpot, case_spot
from mcv_pipelines.lsp.context import Context, context_at
from mcv_pipelines.lsp.knowledge import Knowledge, OptionInfo, case_keys, expectation_keys
from mcv_pipelines.lsp.outline import Outline
from mcv_pipelines.pipeline.model import RenderedPipeline

__all__ = ["complete", "describe_option"]


def describe_option(info: OptionInfo) -> str:
    """Markdown: an option's type, default, allowed values and description."""
    facts = [f"type: {info.type}"] if info.type else []
    if info.default is not None:
        facts.append(f"default: {info.default!r}")
    if info.values:
        facts.append("values: " + ", ".join(str(v) for v in info.values[:20]))
    head = f"**{info.name}**" + (f" ({'; '.join(facts)})" if facts else "")
    where = "" if info.source in ("schema", "mcv") else f"\n\nfrom the catalog: {info.source}"
    return head + (f"\n\n{info.description}" if info.description else "") + where


def _items(
    names: Iterable[str],
    edit: types.Range,
    kind: types.CompletionItemKind,
    *,
    detail: str | None = None,
    suffix: str = "",
) -> list[types.CompletionItem]:
    return [
        types.CompletionItem(
            label=name,
            kind=kind,
            detail=detail,
            sort_text=f"{i:04d}",
            text_edit=types.TextEdit(edit, name + suffix),
        )
        for i, name in enumerate(names)
    ]


def _option_items(
    options: dict[str, OptionInfo], present: Iterable[str], edit: types.Range
) -> list[types.CompletionItem]:
    taken = set(present)
    return [
        types.CompletionItem(
            label=info.name,
            kind=types.CompletionItemKind.Property,
            detail=info.type or info.source,
            documentation=types.MarkupContent(types.MarkupKind.Markdown, describe_option(info)),
            sort_text=f"{i:04d}",
            text_edit=types.TextEdit(edit, f"{info.name}: "),
        )
        for i, info in enumerate(options.values())
        if info.name not in taken
    ]


def _expect_keys(
    outline: Outline, pipeline: RenderedPipeline | None, present: Iterable[str], edit: types.Range
) -> list[types.CompletionItem]:
    """The file's tasks, each for_each group followed by the tasks it makes (known once rendered)."""
    made: dict[str, list[str]] = {}
    for name, task in pipeline.tasks.items() if pipeline is not None else ():
        if name != task.group:
            made.setdefault(task.group, []).append(name)
    found: dict[str, str] = {}
    for group in outline.tasks:
        instances = made.get(group, [])
        found[group] = f"for_each group ({len(instances)} tasks)" if instances else "task"
        found.update((name, f"task of {group}") for name in instances)
    taken = set(present)
    return [
        types.CompletionItem(
            label=name,
            kind=types.CompletionItemKind.Reference,
            detail=detail,
            sort_text=f"{i:04d}",
            text_edit=types.TextEdit(edit, f"{name}: "),
        )
        for i, (name, detail) in enumerate(found.items())
        if name not in taken
    ]


def _case_items(
    spot: CaseSpot, outline: Outline, pipeline: RenderedPipeline | None, line: int
) -> list[types.CompletionItem]:
    """Keys of a test case, of its ``expect:`` (tasks), of a task's expectation, of its ``params:``."""
    edit = types.Range(types.Position(line, spot.start), types.Position(line, spot.end))
    if spot.path == CASE:
        return _option_items(case_keys(), spot.present, edit)
    if spot.path == EXPECT:
        return _expect_keys(outline, pipeline, spot.present, edit)
    if spot.path[:-1] == EXPECT:
        return _option_items(expectation_keys(), spot.present, edit)
    if spot.path == PARAMS:
        names = [n for n in outline.params if n not in spot.present]
        return _items(names, edit, types.CompletionItemKind.Variable, detail="param", suffix=": ")
    return []


def complete(
    outline: Outline,
    knowledge: Knowledge,
    pipeline: RenderedPipeline | None,
    line: int,
    column: int,
) -> list[types.CompletionItem]:
    """What may be written at ``line``/``column``; empty where nothing is known."""
    spot = case_spot(outline.lines, line, column)
    if spot is not None:
        return _case_items(spot, outline, pipeline, line)
    ctx: Context = context_at(outline, line, column)
    edit = types.Range(types.Position(line, ctx.start), types.Position(line, column))
    task = ctx.task
    if ctx.kind == "param":
        return _items(outline.params, edit, types.CompletionItemKind.Variable, detail="param")
    if task is None:
        return []
    if ctx.kind == "input":
        names = [n for n in outline.tasks if n != task.name]
        return _items(names, edit, types.CompletionItemKind.Reference, detail="task")
    operation = task.option("operation")
    if ctx.kind == "option-value" and ctx.key == "operation":
        return _items(knowledge.operations(), edit, types.CompletionItemKind.EnumMember, detail="operation")
    if operation is None:
        return []
    formats = knowledge.formats(pipeline, task.name)
    engine = task.option("engine")
    if ctx.kind == "option-name":
        options = knowledge.options(operation, formats, engine)
        present = [n for n in task.options if task.options[n].line != line]
        return _option_items(options, present, edit)
    if ctx.kind == "option-value" and ctx.key is not None:
        values = knowledge.values(operation, ctx.key, formats, engine)
        return _items(values, edit, types.CompletionItemKind.Value, detail=ctx.key)
    return []
