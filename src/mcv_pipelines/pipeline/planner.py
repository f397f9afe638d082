"""`mcv plan`'s work: check a pipeline (once, or once per manifest row), resolve every task to the
conversion type it will run, and sum the credits.

It loads and renders pipelines, so it lives here rather than in ``catalog`` (which sits below this
package); it is not re-exported from ``mcv_pipelines.pipeline``, whose checks do not need it.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import yaml

from mcv_pipelines.catalog.credits import estimate_credits
from mcv_pipelines.catalog.index import Catalog
from mcv_pipelines.catalog.pipelinecheck import conversion_key, pipeline_formats
from mcv_pipelines.catalog.plan import Plan, PlannedTask, build_plan
from mcv_pipelines.diagnostics import Diagnostic, ManifestCell
from mcv_pipelines.errors import InvalidInput, UsageError
from mcv_pipelines.pipeline.check import check_document
from mcv_pipelines.pipeline.document import read_document
from mcv_pipelines.pipeline.model import RenderedPipeline
from mcv_pipelines.pipeline.opcheck import OperationSchemas
from mcv_pipelines.pipeline.params import declared_params

__all__ = ["plan_pipeline", "planned_tasks", "read_manifest"]


def planned_tasks(catalog: Catalog, pipeline: RenderedPipeline) -> list[PlannedTask]:
    """Every task of a rendered pipeline with the conversion type it runs (None: imports, exports,
    unknown formats), the engine being the task's own or the catalog's default."""
    flow, blocked = pipeline_formats(pipeline)
    planned = []
    for name, task in pipeline.tasks.items():
        key = None if name in blocked else conversion_key(catalog, task, flow[name])
        chosen = key is not None and not isinstance(task.body.get("engine"), str)
        planned.append(PlannedTask(name, task.operation, key, default_engine=chosen))
    return planned


def read_manifest(path: str | Path) -> list[dict[str, Any]]:
    """The rows of a CSV (with a header), JSONL or YAML (a list of mappings) manifest.

    A plain reader for planning; the batch runner has its own streaming one.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise UsageError(f"{path}: no such manifest") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path}: cannot read the manifest: {exc}") from None
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".ndjson"):
        return _jsonl(text, path)
    if suffix in (".yaml", ".yml"):
        return _yaml(text, path)
    if suffix in (".csv", ".tsv"):
        reader = csv.DictReader(io.StringIO(text), delimiter="\t" if suffix == ".tsv" else ",")
        if not reader.fieldnames:
            raise InvalidInput(f"{path}:1: the manifest has no header row")
        return [dict(row) for row in reader]
    raise UsageError(
        f"{path}: unknown manifest format {suffix or '(no extension)'}; use .csv, .jsonl or .yaml"
    )


def _jsonl(text: str, path: Path) -> list[dict[str, Any]]:
    rows = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InvalidInput(f"{path}:{number}: not JSON ({exc.msg})") from None
        if not isinstance(row, dict):
            raise InvalidInput(f"{path}:{number}: a row must be an object, not {type(row).__name__}")
        rows.append(row)
    return rows


def _yaml(text: str, path: Path) -> list[dict[str, Any]]:
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f":{mark.line + 1}" if mark is not None else ""
        raise InvalidInput(f"{path}{where}: not YAML ({getattr(exc, 'problem', None) or exc})") from None
    if data is None:
        return []
    if not isinstance(data, list) or not all(isinstance(row, dict) for row in data):
        raise InvalidInput(f"{path}: a YAML manifest is a list of mappings (one per row)")
    return [{str(k): v for k, v in row.items()} for row in data]


def _split(found: list[Diagnostic], diagnostics: tuple[Diagnostic, ...] | list[Diagnostic],
           warnings: dict[tuple[Any, ...], Diagnostic], cell: ManifestCell | None = None) -> None:
    for d in diagnostics:
        key = (d.rule, d.location, d.message)
        if d.is_error:
            if all((e.rule, e.location, e.message) != key for e in found):  # once, at its first row
                found.append(replace(d, manifest=cell) if cell is not None else d)
        else:
            warnings.setdefault(key, d)


def plan_pipeline(
    path: str | Path,
    values: Mapping[str, Any],
    catalog: Catalog,
    *,
    source: str = "command line",
    manifest: str | Path | None = None,
    schemas: OperationSchemas | None = None,
) -> Plan:
    """The plan of one run (params from ``values``, examples filling the rest) or of every row of
    ``manifest`` (its columns named like params are params; the others are ``row.<column>``)."""
    errors: list[Diagnostic] = []
    warnings: dict[tuple[Any, ...], Diagnostic] = {}
    document, problems = read_document(path)
    if document is None:
        _split(errors, problems, warnings)
        return build_plan(catalog, [], errors=errors, warnings=warnings.values())
    if manifest is None:
        result = check_document(document, values, source=source, schemas=schemas, catalog=catalog)
        _split(errors, result.diagnostics, warnings)
        tasks = planned_tasks(catalog, result.pipeline) if result.pipeline is not None else []
        return build_plan(catalog, tasks, errors=errors, warnings=warnings.values())
    rows = read_manifest(manifest)
    declared = declared_params(document)
    first: list[PlannedTask] | None = None
    row_credits: list[int] = []
    for index, cells in enumerate(rows, start=1):
        params = {**values, **{k: v for k, v in cells.items() if k in declared}}
        row = {"index": index, "key": str(index), **{k: v for k, v in cells.items() if k not in declared}}
        result = check_document(
            document, params, source=f"{manifest} row {index}", row=row, use_examples=False,
            placeholders=True, schemas=schemas, catalog=catalog,
        )
        _split(errors, result.diagnostics, warnings, ManifestCell(str(manifest), index))
        if result.pipeline is None:
            continue
        tasks = planned_tasks(catalog, result.pipeline)
        first = tasks if first is None else first
        row_credits.append(estimate_credits(catalog, (t.key for t in tasks if t.key is not None)).per_run)
    return build_plan(catalog, first or [], rows=len(rows), warnings=warnings.values(),
                      row_credits=row_credits, errors=errors)
