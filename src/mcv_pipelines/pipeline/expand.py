"""Rendering a document into tasks: for_each, when, input groups, runner keys split off.

Templates are compiled once per document (cached on it); each call of ``render_pipeline`` only
evaluates them. Runner keys (``upload_from``, ``download_to``, ``for_each``, ``when``) never reach
the body sent to the service.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from mcv_pipelines.diagnostics import Diagnostic, Location, Severity
from mcv_pipelines.pipeline.document import Document
from mcv_pipelines.pipeline.model import Params, RenderedPipeline, RenderedTask
from mcv_pipelines.pipeline.params import declared_params
from mcv_pipelines.pipeline.template import Compiled, RenderContext, Sink, TemplateCompiler

__all__ = ["render_pipeline"]

_SLUG_SAFE = re.compile(r"^[A-Za-z0-9_-]{1,40}$")


@dataclass(frozen=True, slots=True)
class _TaskTemplate:
    group: str
    for_each: Compiled | None
    when: Compiled | None
    body: tuple[tuple[str, Compiled], ...]
    input_was_string: bool
    location: Location
    input_locations: tuple[Location, ...]  # of each entry of `input` as written (one for a string)


@dataclass(frozen=True, slots=True)
class _DocumentTemplate:
    job: Compiled | None
    tasks: tuple[_TaskTemplate, ...]
    diagnostics: tuple[Diagnostic, ...]


def _compile(document: Document) -> _DocumentTemplate:
    cached = document.cache.get("render")
    if isinstance(cached, _DocumentTemplate):
        return cached
    data = document.data if isinstance(document.data, dict) else {}
    compiler = TemplateCompiler(document, frozenset(declared_params(document)))
    job = data.get("job")
    job_compiled = compiler.compile(job, ("job",)) if isinstance(job, dict) else None
    tasks: list[_TaskTemplate] = []
    raw_tasks = data.get("tasks")
    for group, spec in raw_tasks.items() if isinstance(raw_tasks, dict) else ():
        if not isinstance(spec, dict):
            continue
        base = ("tasks", group)
        loop = "for_each" in spec
        for_each = compiler.compile(spec["for_each"], (*base, "for_each")) if loop else None
        when = compiler.compile(spec["when"], (*base, "when"), loop=loop) if "when" in spec else None
        body = tuple(
            (key, compiler.compile(value, (*base, key), loop=loop))
            for key, value in spec.items()
            if key not in ("for_each", "when")
        )
        raw_input = spec.get("input")
        if isinstance(raw_input, list):
            input_locations = tuple(document.locate((*base, "input", i)) for i in range(len(raw_input)))
        else:
            input_locations = (document.locate((*base, "input")),)
        tasks.append(
            _TaskTemplate(
                group,
                for_each,
                when,
                body,
                isinstance(raw_input, str),
                document.locate_key(base),
                input_locations,
            )
        )
    compiled = _DocumentTemplate(job_compiled, tuple(tasks), tuple(compiler.diagnostics))
    document.cache["render"] = compiled
    return compiled


@dataclass(slots=True)
class _Instance:
    template: _TaskTemplate
    name: str
    variables: dict[str, Any]
    index: int | None


def _instance_names(group: str, items: list[Any]) -> list[str]:
    if all(
        isinstance(item, (str, int)) and not isinstance(item, bool) and _SLUG_SAFE.match(str(item))
        for item in items
    ):
        return [f"{group}-{item}" for item in items]
    return [f"{group}-{index}" for index in range(len(items))]


def _type_problem(document: Document, path: tuple[str, ...], message: str) -> Diagnostic:
    return Diagnostic("template-type", Severity.ERROR, message, document.locate(path))


def render_pipeline(
    document: Document,
    params: Params,
    *,
    row: Mapping[str, Any] | None = None,
    environ: Mapping[str, str] | None = None,
    placeholders: bool = False,
) -> tuple[RenderedPipeline | None, list[Diagnostic]]:
    """Render ``document`` with ``params`` (and a batch ``row``) into the tasks of one job.

    ``placeholders`` stands in for missing env vars and secrets (offline validation). Returns
    ``(None, diagnostics)`` when any template fails; every diagnostic points at the source node.
    """
    compiled = _compile(document)
    diagnostics = list(compiled.diagnostics)
    if diagnostics:
        return None, diagnostics
    variables = RenderContext(params.values, row, environ, placeholders).variables()
    sink: Sink = []
    job = compiled.job.render(variables, sink) if compiled.job is not None else {}
    instances: list[_Instance] = []
    members: dict[str, list[str]] = {}
    for template in compiled.tasks:
        base = ("tasks", template.group)
        if template.for_each is None:
            candidates: list[tuple[str, dict[str, Any], int | None]] = [(template.group, variables, None)]
        else:
            items = template.for_each.render(variables, sink)
            if items is None:
                continue
            if not isinstance(items, list):
                diagnostics.append(
                    _type_problem(
                        document,
                        (*base, "for_each"),
                        f"for_each needs a list, got {type(items).__name__} {items!r}",
                    )
                )
                continue
            names = _instance_names(template.group, items)
            candidates = [
                (name, {**variables, "item": item, "index": index}, index)
                for index, (name, item) in enumerate(zip(names, items, strict=True))
            ]
        kept: list[str] = []
        for name, task_vars, index in candidates:
            if template.when is not None:
                keep = template.when.render(task_vars, sink)
                if not isinstance(keep, bool):
                    if keep is not None:
                        diagnostics.append(
                            _type_problem(
                                document, (*base, "when"), f"when needs true or false, got {keep!r}"
                            )
                        )
                    continue
                if not keep:
                    continue
            kept.append(name)
            instances.append(_Instance(template, name, task_vars, index))
        members[template.group] = kept
    groups = {t.group for t in compiled.tasks if t.for_each is not None or t.when is not None}
    tasks: dict[str, RenderedTask] = {}
    for instance in instances:
        task = _render_task(document, instance, members, groups, sink, diagnostics)
        if task is None:
            continue
        if task.name in tasks:
            diagnostics.append(
                Diagnostic(
                    "graph-name-collision",
                    Severity.ERROR,
                    f"two tasks are named {task.name!r} after for_each expansion",
                    task.locate(("for_each",)) if task.index is not None else task.location,
                    hint="rename a task, or make the for_each items distinct",
                    related=(tasks[task.name].location,),
                )
            )
            continue
        tasks[task.name] = task
    for path, problem in sink:
        diagnostics.append(
            Diagnostic(
                problem.rule, Severity.ERROR, problem.message, document.locate(path), hint=problem.hint
            )
        )
    if not isinstance(job, dict):
        job = {}
    if any(d.is_error for d in diagnostics):
        return None, diagnostics
    data = document.data if isinstance(document.data, dict) else {}
    title = data.get("name")
    pipeline = RenderedPipeline(
        path=document.path,
        name=title if isinstance(title, str) else None,
        tasks=MappingProxyType(tasks),
        job=MappingProxyType(job),
        params=params,
        document=document,
    )
    return pipeline, diagnostics


def _render_task(
    document: Document,
    instance: _Instance,
    members: dict[str, list[str]],
    groups: set[str],
    sink: Sink,
    diagnostics: list[Diagnostic],
) -> RenderedTask | None:
    template = instance.template
    base = ("tasks", template.group)
    body: dict[str, Any] = {}
    runner: dict[str, Any] = {}
    for key, value in template.body:
        rendered = value.render(instance.variables, sink)
        if key in ("upload_from", "download_to"):
            if rendered is not None and not isinstance(rendered, str):
                diagnostics.append(
                    _type_problem(document, (*base, key), f"{key} needs a path, got {rendered!r}")
                )
            runner[key] = rendered
        else:
            body[key] = rendered
    inputs: list[tuple[str, Location]] = []
    raw_input = body.get("input")
    if "input" in body and raw_input is not None:
        entries = (
            [raw_input] if isinstance(raw_input, str) else raw_input if isinstance(raw_input, list) else None
        )
        if entries is not None:
            removed_only = True
            written = template.input_locations
            for position, entry in enumerate(entries):
                where = written[min(position, len(written) - 1)] if written else template.location
                if isinstance(entry, str) and entry in groups:
                    inputs.extend((member, where) for member in members.get(entry, ()))
                    removed_only = removed_only and not members.get(entry)
                elif isinstance(entry, str):
                    inputs.append((entry, where))
                    removed_only = False
            if entries and removed_only and all(isinstance(e, str) for e in entries):
                diagnostics.append(
                    Diagnostic(
                        "graph-removed-input",
                        Severity.ERROR,
                        f"task {instance.name!r}: every input was removed by `when` or an empty for_each",
                        document.locate((*base, "input")),
                        hint="guard this task with the same `when`",
                    )
                )
            if all(isinstance(e, str) for e in entries):
                names = [name for name, _ in inputs]
                body["input"] = names[0] if template.input_was_string and len(names) == 1 else names
    operation = body.get("operation")
    return RenderedTask(
        name=instance.name,
        operation=operation if isinstance(operation, str) else "",
        body=body,
        upload_from=runner.get("upload_from"),
        download_to=runner.get("download_to"),
        group=template.group,
        location=template.location,
        inputs=tuple(inputs),
        document=document,
        index=instance.index,
    )
