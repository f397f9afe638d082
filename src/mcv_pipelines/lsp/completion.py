"""Completion items for the cursor's context (positions in code points; the server converts them)."""

from __future__ import annotations

from collections.abc import Iterable

from lsprotocol import types

from mcv_pipelines.lsp.context import Context, context_at
from mcv_pipelines.lsp.knowledge import Knowledge, OptionInfo
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


def complete(
    outline: Outline,
    knowledge: Knowledge,
    pipeline: RenderedPipeline | None,
    line: int,
    column: int,
) -> list[types.CompletionItem]:
    """What may be written at ``line``/``column``; empty where nothing is known."""
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
