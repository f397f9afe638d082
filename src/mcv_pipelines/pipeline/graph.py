"""Checks of the task graph (networkx): cycles, dangling inputs, inputs that make no sense, exports.

The result depends only on the graph's shape, which most rows of a batch share, so it is cached by
that shape: checking the ten-thousandth row costs a dictionary lookup.

networkx is imported only when the graph has a cycle (to find and word each one) or a caller wants
the graph itself (``build_graph``): a sound pipeline is checked with a plain walk over its inputs,
and `mcv validate` does not pay networkx's import, the largest part of its start-up (issue 15).
"""

from __future__ import annotations

import re
from collections.abc import Hashable
from itertools import pairwise
from typing import TYPE_CHECKING, Any

from mcv_pipelines.diagnostics import Diagnostic, Severity
from mcv_pipelines.pipeline.model import RenderedPipeline, RenderedTask
from mcv_pipelines.pipeline.suggest import did_you_mean

if TYPE_CHECKING:
    import networkx as nx

__all__ = ["build_graph", "check_graph", "is_export", "is_import", "needs_input"]

_NAME = re.compile(r"^[A-Za-z0-9_-]+$")
_MAX_CYCLES = 20
_CACHE_LIMIT = 1024


def is_import(operation: str) -> bool:
    return operation.startswith("import/")


def is_export(operation: str) -> bool:
    return operation.startswith("export/")


def needs_input(operation: str) -> bool:
    """Every task but imports and capture-website (which fetches a URL) works on an input."""
    return bool(operation) and not is_import(operation) and operation != "capture-website"


def build_graph(pipeline: RenderedPipeline) -> nx.DiGraph[str]:
    """A directed graph with an edge from each input to the task that reads it."""
    import networkx as nx

    graph: nx.DiGraph[str] = nx.DiGraph()
    for name, task in pipeline.tasks.items():
        graph.add_node(name, operation=task.operation)
    for name, task in pipeline.tasks.items():
        for source, location in task.inputs:
            if source in pipeline.tasks and source != name:
                graph.add_edge(source, name, location=location)
    return graph


def _shape(pipeline: RenderedPipeline) -> Hashable:
    return (tuple((t.name, t.group, t.operation, t.input_names) for t in pipeline.tasks.values()),)


def check_graph(pipeline: RenderedPipeline) -> list[Diagnostic]:
    """Every graph problem of ``pipeline`` (errors and warnings)."""
    key = _shape(pipeline)
    # kept on the document: locations in the results belong to that one parse of the file
    cache: dict[Hashable, tuple[Diagnostic, ...]] = (
        pipeline.document.cache.setdefault("graph", {}) if pipeline.document is not None else {}
    )
    cached = cache.get(key)
    if cached is None:
        cached = tuple(_check(pipeline))
        if len(cache) >= _CACHE_LIMIT:
            cache.clear()
        cache[key] = cached
    return list(cached)


def _task_problems(task: RenderedTask, names: Any) -> list[Diagnostic]:
    found: list[Diagnostic] = []
    op = task.operation
    if not _NAME.match(task.name):
        found.append(
            Diagnostic(
                "task-name",
                Severity.ERROR,
                f"task name {task.name!r} may hold only letters, digits, '-' and '_'",
                task.location,
                hint="rename the task",
            )
        )
    for source, location in task.inputs:
        if source == task.name:
            found.append(
                Diagnostic(
                    "graph-self-input",
                    Severity.ERROR,
                    f"task {task.name!r} names itself as its input",
                    location,
                )
            )
        elif source not in names:
            found.append(
                Diagnostic(
                    "graph-dangling-input",
                    Severity.ERROR,
                    f"task {task.name!r} reads from {source!r}, which is not a task",
                    location,
                    hint=did_you_mean(source, names) or f"tasks: {', '.join(names)}",
                )
            )
    has_input = "input" in task.body
    if is_import(op) and has_input:
        found.append(
            Diagnostic(
                "graph-import-input",
                Severity.ERROR,
                f"import task {task.name!r} cannot have an input; it brings files in",
                task.locate_key(("input",)),
                hint="remove `input`, or use a processing operation",
            )
        )
    elif needs_input(op) and not has_input:
        found.append(
            Diagnostic(
                "graph-missing-input",
                Severity.ERROR,
                f"{op} task {task.name!r} needs an input",
                task.location,
                hint="add `input: <task name>`",
            )
        )
    if op == "merge" and has_input and len(task.inputs) < 2:
        found.append(
            Diagnostic(
                "graph-merge-inputs",
                Severity.ERROR,
                f"merge task {task.name!r} needs at least two inputs, it has {len(task.inputs)}",
                task.locate(("input",)),
                hint="list two or more tasks under `input`",
            )
        )
    return found


def _check(pipeline: RenderedPipeline) -> list[Diagnostic]:
    names = list(pipeline.tasks)
    found: list[Diagnostic] = []
    for task in pipeline.tasks.values():
        found.extend(_task_problems(task, names))
    sources = _sources(pipeline)
    if not _acyclic(sources):
        found.extend(_cycle_problems(build_graph(pipeline)))
    exports = [n for n, t in pipeline.tasks.items() if is_export(t.operation)]
    if not exports:
        found.append(
            Diagnostic(
                "graph-no-export",
                Severity.WARNING,
                "the pipeline has no export task: its results stay on the service",
                pipeline.document.locate(("tasks",)) if pipeline.document else None,
                hint="add an export/url task reading the results",
            )
        )
    else:
        reach: set[str] = set(exports)
        for export in exports:
            reach.update(_ancestors(sources, export))
        for name, task in pipeline.tasks.items():
            if name not in reach:
                found.append(
                    Diagnostic(
                        "graph-unused-output",
                        Severity.WARNING,
                        f"the output of {name!r} reaches no export task",
                        task.location,
                        hint="read it from an export task, or remove the task",
                    )
                )
    return found


def _sources(pipeline: RenderedPipeline) -> dict[str, list[str]]:
    """Each task's inputs that are other tasks: the graph's edges, seen from their heads."""
    tasks = pipeline.tasks
    return {
        name: [source for source, _ in task.inputs if source in tasks and source != name]
        for name, task in tasks.items()
    }


def _acyclic(sources: dict[str, list[str]]) -> bool:
    """Kahn's algorithm: every task can be ordered after its inputs."""
    waiting = {name: len(inputs) for name, inputs in sources.items()}
    readers: dict[str, list[str]] = {}
    for name, inputs in sources.items():
        for source in inputs:
            readers.setdefault(source, []).append(name)
    ready = [name for name, count in waiting.items() if count == 0]
    done = 0
    while ready:
        name = ready.pop()
        done += 1
        for reader in readers.get(name, ()):
            waiting[reader] -= 1
            if waiting[reader] == 0:
                ready.append(reader)
    return done == len(sources)


def _ancestors(sources: dict[str, list[str]], name: str) -> set[str]:
    """Every task whose output reaches ``name``."""
    seen: set[str] = set()
    stack = list(sources.get(name, ()))
    while stack:
        task = stack.pop()
        if task not in seen:
            seen.add(task)
            stack.extend(sources.get(task, ()))
    return seen


def _cycle_problems(graph: nx.DiGraph[str]) -> list[Diagnostic]:
    found: list[Diagnostic] = []
    for cycle in _cycles(graph):
        ring = [*cycle, cycle[0]]
        pairs = list(pairwise(ring))
        edges = [graph.edges[a, b]["location"] for a, b in pairs]
        found.append(
            Diagnostic(
                "graph-cycle",
                Severity.ERROR,
                "cycle: "
                + " -> ".join(ring)
                + " ("
                + ", ".join(
                    f"{b} reads {a} at line {loc.line}" for (a, b), loc in zip(pairs, edges, strict=True)
                )
                + ")",
                edges[0],
                hint="a task cannot depend on its own output; break the cycle",
                related=tuple(edges),
            )
        )
    return found


def _cycles(graph: nx.DiGraph[str]) -> list[list[str]]:
    import networkx as nx

    cycles: list[list[str]] = []
    for cycle in nx.simple_cycles(graph):
        # start each cycle at its first task in file order, so the message is stable
        order = list(graph.nodes)
        start = min(range(len(cycle)), key=lambda i: order.index(cycle[i]))
        cycles.append(cycle[start:] + cycle[:start])
        if len(cycles) >= _MAX_CYCLES:
            break
    return cycles
