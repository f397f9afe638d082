"""Before the first request: every row of the manifest coerced, rendered and validated, keys and output
names checked, the shard taken, and the rows recorded in the journal.

The manifest is read as one stream; the pipeline is parsed once (``RowRenderer``) and checked per row.
A row's diagnostics keep the pipeline's file:line:col and gain the manifest cell (row, column) they
come from. Memory stays flat: keys and output paths go to temporary SQLite tables, and only the first
``keep`` invalid rows' diagnostics are kept for the message.

>>> # renderer = RowRenderer(load_document("p.yaml"), fixed={"size": 64})
>>> # result = prepare_rows(manifest, renderer, journal, shard=parse_shard("1/2"))
>>> # result.invalid_rows, result.diagnostics, result.rows
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from mcv_pipelines.api.transfer import safe_filename
from mcv_pipelines.batch.journal import Journal, NewRow
from mcv_pipelines.batch.keys import KeyRegistry, row_key
from mcv_pipelines.batch.manifest import Manifest, ManifestRow
from mcv_pipelines.batch.naming import Collision, CollisionFinder
from mcv_pipelines.batch.shard import Shard
from mcv_pipelines.catalog.index import Catalog
from mcv_pipelines.diagnostics import Diagnostic, Severity, has_errors
from mcv_pipelines.errors import UsageError
from mcv_pipelines.pipeline.check import check_document
from mcv_pipelines.pipeline.document import Document
from mcv_pipelines.pipeline.model import RenderedPipeline
from mcv_pipelines.pipeline.opcheck import OperationSchemas
from mcv_pipelines.run.downloads import export_dirs
from mcv_pipelines.run.model import RunOptions
from mcv_pipelines.run.uploads import plan_uploads

__all__ = ["Preparation", "RowRenderer", "known_targets", "prepare_rows"]

_PARAM_NAME = re.compile(r"^(?:unknown )?param '?([A-Za-z_][\w-]*)'?")


class RowRenderer:
    """Renders and checks the pipeline for one row: ``-p`` values under the row's params, ``row.*``
    from the other columns. The parsed document (and its caches) is shared by every row."""

    def __init__(self, document: Document, *, fixed: Mapping[str, Any] | None = None,
                 schemas: OperationSchemas | None = None, catalog: Catalog | None = None,
                 base_dir: Path | None = None) -> None:
        self.document = document
        self.fixed = dict(fixed or {})
        self.schemas = schemas
        self.catalog = catalog
        self.base_dir = base_dir or Path.cwd()

    @property
    def param_names(self) -> frozenset[str]:
        params = self.document.data.get("params") if isinstance(self.document.data, dict) else None
        return frozenset(params) if isinstance(params, dict) else frozenset()

    def render(self, row: ManifestRow, key: str, *, checked: bool = False
               ) -> tuple[RenderedPipeline | None, list[Diagnostic]]:
        """The row's pipeline (None when any error was found) and every diagnostic, placed in the row.
        ``checked``: the row passed ``prepare_rows`` in this process already, so the checks against
        the operations' schemas and the catalog, which gave it nothing to say then, are not run again."""
        result = check_document(
            self.document, {**self.fixed, **row.params}, source=f"{row.file} row {row.index}",
            use_examples=False, row=row.template_context(key),
            schemas=None if checked else self.schemas, catalog=None if checked else self.catalog,
        )
        found = [_in_row(d, row) for d in result.diagnostics]
        pipeline = result.pipeline
        if pipeline is not None and not has_errors(found):
            try:
                plan_uploads(pipeline, self.base_dir)
            except UsageError as exc:
                column = _upload_column(pipeline, row)
                found.append(Diagnostic("batch-upload-missing", Severity.ERROR, str(exc),
                                        manifest=row.cell(column)))
        if has_errors(found):
            return None, found
        return pipeline, found


def _in_row(diagnostic: Diagnostic, row: ManifestRow) -> Diagnostic:
    match = _PARAM_NAME.match(diagnostic.message)
    column = match.group(1) if match and match.group(1) in row.params else None
    return replace(diagnostic, manifest=row.cell(column))


def _upload_column(pipeline: RenderedPipeline, row: ManifestRow) -> str | None:
    """The column whose value is an ``upload_from`` path of the row, when one is."""
    paths = {task.upload_from for task in pipeline.tasks.values() if task.upload_from}
    for column, value in row.params.items():
        if isinstance(value, str) and value in paths:
            return column
    return None


def known_targets(pipeline: RenderedPipeline, options: RunOptions) -> list[Path]:
    """Download paths known before submitting: export dirs joined with their inputs' ``filename``.

    Names the service chooses (no ``filename``) cannot be known here; the runner refuses to overwrite
    an existing file when they arrive.
    """
    found: list[Path] = []
    for name, directory in export_dirs(pipeline, options).items():
        for source in pipeline.tasks[name].input_names:
            task = pipeline.tasks.get(source)
            filename = task.body.get("filename") if task is not None else None
            if isinstance(filename, str) and filename:
                found.append(directory / safe_filename(filename))
    return found


@dataclass
class Preparation:
    """What the pass found. ``rows`` counts the rows of this shard; ``diagnostics`` holds those of the
    first invalid rows only (``invalid_rows`` counts them all)."""

    rows: int = 0
    valid_rows: int = 0
    invalid_rows: int = 0
    other_shards: int = 0
    added: int = 0
    diagnostics: list[Diagnostic] = field(default_factory=list)
    warnings: int = 0
    collisions: list[Collision] = field(default_factory=list)
    collision_count: int = 0

    @property
    def ok(self) -> bool:
        return self.invalid_rows == 0 and self.collision_count == 0


def prepare_rows(manifest: Manifest, renderer: RowRenderer, journal: Journal | None, *,
                 key_column: str | None = None, shard: Shard | None = None,
                 options: RunOptions | None = None, keep: int = 20) -> Preparation:
    """Check every row of ``manifest`` (of ``shard``) and add each to ``journal`` as pending (rows
    already there keep their state), in one streamed pass.

    Invalid rows are counted, never raised: the caller decides (exit 2 with nothing submitted, or
    --skip-invalid, where the executor records them as failed). Duplicate keys raise ``DuplicateKey``
    (the manifest itself is wrong); output collisions are listed.
    """
    options = options or RunOptions()
    result = Preparation()
    with KeyRegistry(manifest.label) as keys, CollisionFinder() as collisions:

        def checked() -> Iterator[NewRow]:
            for row in manifest:
                key = row_key(row, key_column)
                keys.add(key, row)
                if shard is not None and key not in shard:
                    result.other_shards += 1
                    continue
                result.rows += 1
                pipeline, found = renderer.render(row, key)
                if pipeline is None:
                    result.invalid_rows += 1
                    if result.invalid_rows <= keep:
                        result.diagnostics.extend(d for d in found if d.severity is Severity.ERROR)
                else:
                    result.valid_rows += 1
                    result.warnings += sum(1 for d in found if d.severity is not Severity.ERROR)
                    collisions.add(key, row.index, known_targets(pipeline, options))
                yield NewRow(key, row.index, row.params, row.line)

        if journal is None:
            for _ in checked():
                pass
        else:
            result.added = journal.add_rows(checked())
        result.collisions = list(collisions.collisions)
        result.collision_count = collisions.count
    return result
