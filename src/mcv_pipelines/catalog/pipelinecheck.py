"""The catalog stage of validation: formats inferred along a rendered pipeline, each task checked.

``catalog_checker(catalog)`` is an ``extra_checkers`` entry for ``check_pipeline``/``check_document``.
It walks the tasks inputs-first, infers what each receives and makes (``inference``), and checks every
processing task as ``check.check_task_inputs`` would, locating findings at the task's own YAML nodes.
The part that depends only on the pipeline's shape is done once per shape (``resolve_task``,
``check_option_names``); each row then has only its option values checked (``check_options``).

The rendered pipeline is read through the protocols of ``rendered`` (``tasks``, ``operation``,
``body``...): importing the pipeline package here would make the two import each other.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from mcv_pipelines.catalog.check import check_option_names, check_options, is_catalogued, resolve_task
from mcv_pipelines.catalog.derive import OptionsValidator, validator_for
from mcv_pipelines.catalog.formats import format_from_name, listing_formats
from mcv_pipelines.catalog.index import Catalog
from mcv_pipelines.catalog.inference import TaskFormats, import_format, infer_formats
from mcv_pipelines.catalog.keys import is_option_key
from mcv_pipelines.catalog.model import ConversionKey, Descriptor
from mcv_pipelines.catalog.rendered import RenderedPipelineLike as RenderedPipeline
from mcv_pipelines.catalog.rendered import RenderedTaskLike as RenderedTask
from mcv_pipelines.diagnostics import Diagnostic

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

__all__ = [
    "CatalogChecker",
    "catalog_checker",
    "check_pipeline_catalog",
    "conversion_key",
    "pipeline_formats",
    "task_order",
]


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _as_inferred(task: RenderedTask) -> Mapping[str, Any]:
    """What inference reads of a task: its body, plus the local file an upload brings."""
    if task.upload_from:
        return {**task.body, "upload_from": task.upload_from}
    return task.body


def task_order(pipeline: RenderedPipeline) -> tuple[list[str], set[str]]:
    """Task names, inputs before the tasks that read them (file order where the graph allows), and
    the tasks whose formats cannot be known because the graph is broken above them.

    A task in a cycle, one reading a task that does not exist, and everything downstream of those
    are "blocked": the graph check reports the cause, and their formats are not guessed or warned
    about a second time.
    """
    tasks = pipeline.tasks
    blocked: set[str] = set()
    seen: set[str] = set()
    for name, task in tasks.items():
        inputs = task.input_names
        if any(i in tasks and i not in seen for i in inputs):
            break
        if any(i not in tasks or i in blocked for i in inputs):
            blocked.add(name)
        seen.add(name)
    else:
        return list(tasks), blocked  # the common case: every input is written before its reader
    blocked.clear()
    order: list[str] = []
    state: dict[str, int] = {}  # 1 on the walk's path, 2 done

    def visit(name: str) -> None:
        # Iterative depth-first walk: a long chain of tasks must not hit the recursion limit.
        stack: list[tuple[str, int]] = [(name, 0)]
        state[name] = 1
        while stack:
            node, i = stack.pop()
            inputs = tasks[node].input_names
            if i < len(inputs):
                stack.append((node, i + 1))
                nxt = inputs[i]
                if nxt in tasks and nxt not in state:
                    state[nxt] = 1
                    stack.append((nxt, 0))
                continue
            # An input still on the path closes a cycle; a missing or blocked one blocks this task.
            if any(i not in tasks or state[i] == 1 or i in blocked for i in inputs):
                blocked.add(node)
            state[node] = 2
            order.append(node)

    for name in tasks:
        if name not in state:
            visit(name)
    return order, blocked


def pipeline_formats(pipeline: RenderedPipeline) -> tuple[dict[str, TaskFormats], set[str]]:
    """The formats every task of ``pipeline`` receives and makes, and the blocked tasks
    (``task_order``), whose formats are unknown because of a graph problem."""
    order, blocked = task_order(pipeline)
    tasks = {name: _as_inferred(task) for name, task in pipeline.tasks.items()}
    return infer_formats(tasks, order), blocked


_CACHE_LIMIT = 1024
# What one task contributes to a pipeline's shape (see ``_shape``).
_Shape = tuple[Any, ...]
# Per checked task: its name, the findings its shape gives, and per conversion type it runs as, the
# compiled options validator and the task's keys that are listed options (their values vary by row).
_Typed = tuple[tuple[Descriptor, OptionsValidator, tuple[str, ...]], ...]
_Plan = tuple[tuple[str, tuple[Diagnostic, ...], _Typed], ...]


def _shape(pipeline: RenderedPipeline) -> _Shape:
    """Everything the catalog findings depend on except option values: names, inputs, keys present,
    formats, engine, and the format each import brings. Rows of a batch mostly share it."""
    parts = []
    for name, task in pipeline.tasks.items():
        body = task.body
        get = body.get
        operation = task.operation
        brings = None
        if operation.startswith("import/"):
            # import_format(_as_inferred(task)) without building a dict per row: filename, then the
            # uploaded file, then the other name keys.
            filename = get("filename")
            if isinstance(filename, str) and filename:
                brings = format_from_name(filename)
            elif task.upload_from:
                brings = format_from_name(task.upload_from)
            else:
                brings = import_format(body)
        # Raw values: a value that cannot be hashed (a list) makes the caller skip the cache.
        parts.append((name, task.group, operation, task.input_names, tuple(body), brings,
                      get("input_format"), get("output_format"), get("engine"), get("engine_version")))
    return tuple(parts)


def _task_plan(
    catalog: Catalog, task: RenderedTask, formats: TaskFormats
) -> tuple[tuple[Diagnostic, ...], _Typed]:
    """One task's shape findings and the conversion types its option values go against."""
    body = task.body
    findings: dict[Diagnostic, None] = {}
    descs: list[Descriptor] = []
    typed: list[tuple[Descriptor, OptionsValidator, tuple[str, ...]]] = []
    for fin in formats.input_formats or (None,):
        found, desc = resolve_task(
            catalog,
            operation=task.operation,
            input_format=fin,
            output_format=_text(body.get("output_format")),
            engine=_text(body.get("engine")),
            engine_version=_text(body.get("engine_version")),
            options=body,
            locate=task.locate,
            locate_key=task.locate_key,
            task_location=task.location,
            # The name in the file: the tasks of one for_each share their findings, reported once.
            task_name=task.group,
        )
        findings.update(dict.fromkeys(found))
        if desc is not None and desc not in descs:
            descs.append(desc)
            # Unknown option names depend on the keys only: found once per shape too.
            findings.update(dict.fromkeys(check_option_names(
                catalog, desc, options=body, locate=task.locate, locate_key=task.locate_key,
                task_location=task.location, task_name=task.group,
            )))
            listed = tuple(k for k in body if is_option_key(task.operation, k) and desc.option(k))
            if listed:
                typed.append((desc, validator_for(catalog, desc), listed))
    return tuple(findings), tuple(typed)


def _plan(catalog: Catalog, pipeline: RenderedPipeline, cache: dict[Any, Any]) -> _Plan:
    """The shape's plan. Tasks are looked up by what their findings depend on (their name in the
    file, formats, keys, engine): a new shape that only renames tasks (web-320 -> web-400) or rewires
    them reuses the work done for each task."""
    flow, blocked = pipeline_formats(pipeline)
    plan = []
    for name, task in pipeline.tasks.items():
        if not is_catalogued(task.operation) or name in blocked:
            continue
        body = task.body
        formats = flow[name]
        key = (catalog, task.group, task.operation, formats.input_formats, tuple(body),
               *[_text(body.get(k)) for k in ("output_format", "engine", "engine_version")])
        done = cache.get(key)
        if done is None:
            done = cache[key] = _task_plan(catalog, task, formats)
        plan.append((name, *done))
    return tuple(plan)


def check_pipeline_catalog(catalog: Catalog, pipeline: RenderedPipeline) -> list[Diagnostic]:
    """Every catalog finding of ``pipeline``: formats, engines, engine versions, options.

    What depends on the pipeline's shape (formats along the graph, conversion types, engines) is
    worked out once per shape and kept on the document; each row then only has its option values
    checked against the conversion types found.
    """
    cache: dict[Any, _Plan] = (
        pipeline.document.cache.setdefault("catalog", {}) if pipeline.document is not None else {}
    )
    task_cache: dict[Any, Any] = (
        pipeline.document.cache.setdefault("catalog-tasks", {}) if pipeline.document is not None else {}
    )
    key: tuple[Catalog, _Shape] | None = (catalog, _shape(pipeline))
    try:
        plan = cache.get(key)
    except TypeError:  # an unhashable value where a format or engine belongs: the checks report it
        key, plan = None, None
    if plan is None:
        if len(task_cache) >= _CACHE_LIMIT:
            task_cache.clear()
        plan = _plan(catalog, pipeline, task_cache)
        if key is not None:
            if len(cache) >= _CACHE_LIMIT:
                cache.clear()
            cache[key] = plan
    found: list[Diagnostic] = []
    tasks = pipeline.tasks
    for name, findings, typed in plan:
        found.extend(findings)
        if not typed:
            continue
        body = tasks[name].body
        for desc, validator, listed in typed:
            if not validator.invalid({k: body[k] for k in listed}):
                continue  # the usual case: every value fits
            task = tasks[name]
            for diag in check_options(
                catalog, desc, options=body, locate=task.locate, locate_key=task.locate_key,
                task_location=task.location, task_name=task.group, names_checked=True,
            ):
                if diag not in found:
                    found.append(diag)
    return found


class CatalogChecker:
    """An ``extra_checkers`` entry bound to one catalog (``catalog_checker(catalog)``)."""

    __slots__ = ("catalog",)

    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog

    def __call__(self, pipeline: RenderedPipeline) -> list[Diagnostic]:
        return check_pipeline_catalog(self.catalog, pipeline)


def catalog_checker(catalog: Catalog) -> Callable[[RenderedPipeline], Iterable[Diagnostic]]:
    """The catalog stage as a checker for ``check_pipeline(..., extra_checkers=[...])``."""
    return CatalogChecker(catalog)


def conversion_key(catalog: Catalog, task: RenderedTask, formats: TaskFormats) -> ConversionKey | None:
    """The conversion type a processing task will run: its engine, or the one the catalog picks.

    None for imports, exports, and tasks whose formats are unknown or not in the catalog.
    """
    if not is_catalogued(task.operation):
        return None
    fin = next((f for f in formats.input_formats if f is not None), None)
    lin, lout = listing_formats(task.operation, fin, _text(task.body.get("output_format")))
    if lin is None or lout is None:
        return None
    engine = _text(task.body.get("engine")) or catalog.default_engine(task.operation, lin, lout)
    if engine is None:
        return None
    return ConversionKey(task.operation, lin, lout, engine)
