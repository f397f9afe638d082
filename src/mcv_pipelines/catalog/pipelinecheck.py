"""The catalog stage of validation: formats inferred along a rendered pipeline, each task checked.

``catalog_checker(catalog)`` is an ``extra_checkers`` entry for ``check_pipeline``/``check_document``.
It walks the tasks inputs-first, infers what each receives and makes (``inference``), and checks every
processing task with ``check_task_inputs``, locating findings at the task's own YAML nodes.

The rendered pipeline is read by attribute only (``tasks``, ``name``, ``operation``, ``body``...):
importing the pipeline package here would make the two import each other.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from mcv_pipelines.catalog.check import check_task_inputs, is_catalogued
from mcv_pipelines.catalog.formats import listing_formats
from mcv_pipelines.catalog.index import Catalog
from mcv_pipelines.catalog.inference import TaskFormats, infer_formats
from mcv_pipelines.catalog.model import ConversionKey
from mcv_pipelines.diagnostics import Diagnostic

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from mcv_pipelines.pipeline.model import RenderedPipeline, RenderedTask

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


def _check_task(catalog: Catalog, task: RenderedTask, formats: TaskFormats) -> list[Diagnostic]:
    body = task.body
    return check_task_inputs(
        catalog,
        operation=task.operation,
        input_formats=formats.input_formats,
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


def check_pipeline_catalog(catalog: Catalog, pipeline: RenderedPipeline) -> list[Diagnostic]:
    """Every catalog finding of ``pipeline``: formats, engines, engine versions, options."""
    flow, blocked = pipeline_formats(pipeline)
    found: list[Diagnostic] = []
    for name, task in pipeline.tasks.items():
        if is_catalogued(task.operation) and name not in blocked:
            found.extend(_check_task(catalog, task, flow[name]))
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
