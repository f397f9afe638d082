"""Drawing a rendered pipeline's task graph as Mermaid or Graphviz dot text."""

from __future__ import annotations

import json
from collections.abc import Callable

from mcv_pipelines.pipeline.model import RenderedPipeline

__all__ = ["DIAGRAMS", "to_dot", "to_mermaid"]


def to_mermaid(pipeline: RenderedPipeline) -> str:
    """A Mermaid flowchart (GitHub renders it in Markdown)."""
    ids = {name: f"t{i}" for i, name in enumerate(pipeline.tasks)}
    lines = ["flowchart LR"]
    for name, task in pipeline.tasks.items():
        label = f"{name}<br/>{task.operation}".replace('"', "#quot;")
        lines.append(f'    {ids[name]}["{label}"]')
    for name, task in pipeline.tasks.items():
        for source in task.input_names:
            if source in ids:
                lines.append(f"    {ids[source]} --> {ids[name]}")
    return "\n".join(lines) + "\n"


def to_dot(pipeline: RenderedPipeline) -> str:
    """A Graphviz digraph (``dot -Tsvg``)."""
    title = json.dumps(pipeline.name or "pipeline")
    lines = [f"digraph {title} {{", "    rankdir=LR;", "    node [shape=box];"]
    for name, task in pipeline.tasks.items():
        lines.append(f"    {json.dumps(name)} [label={json.dumps(name + chr(10) + task.operation)}];")
    for name, task in pipeline.tasks.items():
        for source in task.input_names:
            if source in pipeline.tasks:
                lines.append(f"    {json.dumps(source)} -> {json.dumps(name)};")
    lines.append("}")
    return "\n".join(lines) + "\n"


DIAGRAMS: dict[str, Callable[[RenderedPipeline], str]] = {"mermaid": to_mermaid, "dot": to_dot}
