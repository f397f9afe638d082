"""All checks of a pipeline in order, collecting every problem.

YAML syntax -> file schema -> params -> render -> graph -> operation options -> catalog (when one is
given) -> extra checkers. A stage that cannot run because an earlier one failed is skipped; everything
found up to there is reported.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcv_pipelines.catalog.index import Catalog
from mcv_pipelines.catalog.pipelinecheck import check_pipeline_catalog
from mcv_pipelines.diagnostics import Diagnostic, has_errors
from mcv_pipelines.pipeline.document import Document, read_document
from mcv_pipelines.pipeline.expand import render_pipeline
from mcv_pipelines.pipeline.fileschema import check_file_schema, renderable
from mcv_pipelines.pipeline.graph import check_graph
from mcv_pipelines.pipeline.model import RenderedPipeline
from mcv_pipelines.pipeline.opcheck import OperationSchemas, check_operations
from mcv_pipelines.pipeline.params import resolve_params

__all__ = ["SAMPLE_ROW", "CheckResult", "Checker", "check_document", "check_pipeline"]

Checker = Callable[[RenderedPipeline], Iterable[Diagnostic]]

# What `row` is when a batch recipe is validated on its own (no manifest at hand).
SAMPLE_ROW: Mapping[str, Any] = {"index": 1, "key": "example"}


@dataclass(frozen=True, slots=True)
class CheckResult:
    """Every diagnostic found, and the rendered pipeline when rendering succeeded."""

    diagnostics: tuple[Diagnostic, ...]
    pipeline: RenderedPipeline | None

    @property
    def ok(self) -> bool:
        return not has_errors(self.diagnostics)


def check_document(
    document: Document,
    values: Mapping[str, Any],
    *,
    source: str = "command line",
    extra_checkers: Iterable[Checker] = (),
    use_examples: bool = True,
    row: Mapping[str, Any] | None = None,
    environ: Mapping[str, str] | None = None,
    schemas: OperationSchemas | None = None,
    placeholders: bool | None = None,
    catalog: Catalog | None = None,
    cases: bool = False,
) -> CheckResult:
    """Check an already loaded document with ``values`` (parse once, check many rows).

    With ``use_examples`` (offline validation) params without a value take their ``example``, a
    missing row is ``SAMPLE_ROW``, and missing env vars and secrets get stand-ins (``placeholders``
    decides that on its own when given). With a ``catalog``, every processing task is checked against
    it (formats inferred along the graph, engines, options). With ``cases``, the file's test cases are
    checked too (what `mcv validate` and the editor do; a run ignores them).
    """
    found = list(document.diagnostics)
    found.extend(check_file_schema(document))
    if not renderable(document):
        return CheckResult(tuple(found), None)
    params, problems = resolve_params(document, values, source=source, use_examples=use_examples)
    found.extend(problems)
    if params is None:
        return CheckResult(tuple(found), None)
    if row is None and use_examples:
        row = SAMPLE_ROW
    pipeline, problems = render_pipeline(
        document,
        params,
        row=row,
        environ=environ,
        placeholders=use_examples if placeholders is None else placeholders,
    )
    found.extend(problems)
    if pipeline is None:
        return CheckResult(tuple(found), None)
    found.extend(check_graph(pipeline))
    found.extend(check_operations(pipeline, schemas))
    if catalog is not None:
        # One problem, one report: where the operation schema already flagged a key (a width that is
        # not an integer), the catalog's finding of the same rule at the same place is left out.
        findings = check_pipeline_catalog(catalog, pipeline)
        if findings:
            flagged = {(d.rule, d.location) for d in found if d.rule.startswith("op-")}
            found.extend(d for d in findings if (d.rule, d.location) not in flagged)
    for checker in extra_checkers:
        found.extend(checker(pipeline))
    if cases and "tests" in document.data and not has_errors(check_file_schema(document)):
        # Cases are read once the file's shape holds (a case that is not a mapping was said above).
        from mcv_pipelines.pipeline.casecheck import check_cases  # only files with tests pay for it

        found.extend(check_cases(document, environ=environ))
    return CheckResult(_unique(found), pipeline)


def _unique(found: list[Diagnostic]) -> tuple[Diagnostic, ...]:
    """Drop repeats: the tasks of one for_each share their source, and so their problems."""
    seen: set[tuple[object, ...]] = set()
    unique: list[Diagnostic] = []
    for d in found:
        key = (d.rule, d.location, d.message)
        if key not in seen:
            seen.add(key)
            unique.append(d)
    return tuple(unique)


def check_pipeline(
    path: str | Path,
    values: Mapping[str, Any],
    *,
    source: str = "command line",
    extra_checkers: Iterable[Checker] = (),
    use_examples: bool = True,
    row: Mapping[str, Any] | None = None,
    environ: Mapping[str, str] | None = None,
    schemas: OperationSchemas | None = None,
    catalog: Catalog | None = None,
    content: bytes | None = None,
    cases: bool = False,
) -> CheckResult:
    """Load ``path`` and run every check; never raises for a bad file.

    ``content``, when given, is checked instead of what is on disk under ``path`` (an editor's unsaved
    buffer, for `mcv lsp`): the same checks, the same diagnostics, named after ``path``.

    >>> check_pipeline("pipelines/thumbnails.yaml", {}).ok  # doctest: +SKIP
    True
    """
    document, problems = read_document(path, content=content)
    if document is None:
        return CheckResult(tuple(problems), None)
    return check_document(
        document,
        values,
        source=source,
        extra_checkers=extra_checkers,
        use_examples=use_examples,
        row=row,
        environ=environ,
        schemas=schemas,
        catalog=catalog,
        cases=cases,
    )
