"""Pipelines as code: load a YAML pipeline, resolve its params, render it, check it.

    document = load_document("pipelines/thumbnails.yaml")
    params, problems = resolve_params(document, {"photo": "a.jpg"}, source="command line", use_examples=False)
    pipeline, problems = render_pipeline(document, params)
    pipeline.job_body()   # the POST /v2/jobs body

or all in one, collecting every problem: ``check_pipeline(path, values)``.

Names are imported on first use (``lazy_exports``), so importing one module of the package does not
load the others.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mcv_pipelines.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from mcv_pipelines.pipeline.check import SAMPLE_ROW, Checker, CheckResult, check_document, check_pipeline
    from mcv_pipelines.pipeline.document import (
        Document,
        PathKey,
        load_document,
        parse_document,
        read_document,
    )
    from mcv_pipelines.pipeline.expand import render_pipeline
    from mcv_pipelines.pipeline.fileschema import check_file_schema
    from mcv_pipelines.pipeline.graph import build_graph, check_graph
    from mcv_pipelines.pipeline.model import RUNNER_KEYS, Params, RenderedPipeline, RenderedTask
    from mcv_pipelines.pipeline.opcheck import OperationSchemas, check_operations
    from mcv_pipelines.pipeline.params import coerce, resolve_params

_HOMES = {
    "CheckResult": "check",
    "Checker": "check",
    "Document": "document",
    "OperationSchemas": "opcheck",
    "Params": "model",
    "PathKey": "document",
    "RUNNER_KEYS": "model",
    "RenderedPipeline": "model",
    "RenderedTask": "model",
    "SAMPLE_ROW": "check",
    "build_graph": "graph",
    "check_document": "check",
    "check_file_schema": "fileschema",
    "check_graph": "graph",
    "check_operations": "opcheck",
    "check_pipeline": "check",
    "coerce": "params",
    "load_document": "document",
    "parse_document": "document",
    "read_document": "document",
    "render_pipeline": "expand",
    "resolve_params": "params",
}

__all__ = [
    "RUNNER_KEYS",
    "SAMPLE_ROW",
    "CheckResult",
    "Checker",
    "Document",
    "OperationSchemas",
    "Params",
    "PathKey",
    "RenderedPipeline",
    "RenderedTask",
    "build_graph",
    "check_document",
    "check_file_schema",
    "check_graph",
    "check_operations",
    "check_pipeline",
    "coerce",
    "load_document",
    "parse_document",
    "read_document",
    "render_pipeline",
    "resolve_params",
]

__getattr__ = lazy_exports(__name__, _HOMES)
