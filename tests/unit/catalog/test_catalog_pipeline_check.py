"""The catalog stage over a whole rendered pipeline: formats along the graph, for_each groups, broken
graphs, and rows of a batch sharing the work of one shape."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

from mcv_pipelines.catalog.check import check_task_inputs
from mcv_pipelines.catalog.index import Catalog
from mcv_pipelines.catalog.pipelinecheck import catalog_checker, check_pipeline_catalog, pipeline_formats
from mcv_pipelines.catalog.snapshot import load_default_catalog
from mcv_pipelines.diagnostics import Diagnostic
from mcv_pipelines.pipeline import check_document, check_pipeline, load_document

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "tests" / "examples"
REPO_PIPELINES = ROOT / "pipelines"


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "p.yaml"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def _catalog_findings(
    catalog: Catalog, path: Path, values: dict[str, Any] | None = None
) -> list[Diagnostic]:
    result = check_pipeline(path, values or {}, catalog=catalog)
    assert result.pipeline is not None, result.diagnostics
    return check_pipeline_catalog(catalog, result.pipeline)


def test_formats_flow_in_graph_order_whatever_the_file_order(catalog: Catalog, tmp_path: Path) -> None:
    path = _write(tmp_path, """\
        version: 1
        tasks:
          thumb: {operation: convert, input: web, output_format: pdf}
          web: {operation: convert, input: original, output_format: png}
          original: {operation: import/upload, upload_from: photos/a.JPEG}
          out: {operation: export/url, input: thumb}
    """)
    result = check_pipeline(path, {}, catalog=catalog)
    assert result.pipeline is not None
    flow, blocked = pipeline_formats(result.pipeline)
    assert (flow["web"].input_formats, flow["web"].output) == (("jpg",), "png")
    assert flow["thumb"].input_formats == ("png",)
    assert blocked == set()


def test_the_tasks_of_a_for_each_share_one_finding(catalog: Catalog, tmp_path: Path) -> None:
    path = _write(tmp_path, """\
        version: 1
        tasks:
          original: {operation: import/upload, upload_from: a.jpg}
          web:
            for_each: [320, 640, 960]
            operation: convert
            input: original
            output_format: webp
            qualty: 80
          out: {operation: export/url, input: web}
    """)
    result = check_pipeline(path, {}, catalog=catalog)
    assert result.pipeline is not None
    assert list(result.pipeline.tasks) == ["original", "web-320", "web-640", "web-960", "out"]
    [finding] = result.diagnostics
    assert finding.rule == "op-unknown-option"
    assert finding.message.startswith("task 'web': unknown option 'qualty'")
    assert finding.location is not None
    assert (finding.location.line, finding.location.column) == (9, 5)


def test_a_cycle_or_a_dangling_input_adds_no_unknown_format_noise(catalog: Catalog, tmp_path: Path) -> None:
    path = _write(tmp_path, """\
        version: 1
        tasks:
          original: {operation: import/upload, upload_from: a.jpg}
          a: {operation: convert, input: b, output_format: png}
          b: {operation: convert, input: a, output_format: webp}
          c: {operation: convert, input: b, output_format: png}
          d: {operation: convert, input: nowhere, output_format: png}
          out: {operation: export/url, input: [c, d, original]}
    """)
    result = check_pipeline(path, {}, catalog=catalog)
    rules = [d.rule for d in result.diagnostics]
    assert "graph-cycle" in rules
    assert "graph-dangling-input" in rules
    assert not [r for r in rules if r.startswith("op-format")]


def test_a_merge_is_checked_once_per_input_format(catalog: Catalog, tmp_path: Path) -> None:
    path = _write(tmp_path, """\
        version: 1
        tasks:
          a: {operation: import/upload, upload_from: a.jpg}
          b: {operation: import/upload, upload_from: b.heic}
          both: {operation: merge, input: [a, b], output_format: pdf}
          out: {operation: export/url, input: both}
    """)
    findings = _catalog_findings(catalog, path)
    assert [d.message for d in findings if d.rule == "op-format-unsupported"] == [
        "task 'both': merge does not accept heic input"
    ]


def test_rows_of_one_shape_share_the_work_but_not_their_values(catalog: Catalog, tmp_path: Path) -> None:
    path = _write(tmp_path, """\
        version: 1
        params:
          lossless: {type: [boolean, string], default: false}
          photo: {type: string, default: a.jpg}
        tasks:
          original: {operation: import/upload, upload_from: "{{ params.photo }}"}
          web: {operation: convert, input: original, output_format: webp, lossless: "{{ params.lossless }}"}
          out: {operation: export/url, input: web}
    """)
    document = load_document(path)
    check = catalog_checker(catalog)

    def rules(**values: Any) -> list[str]:
        result = check_document(document, values, extra_checkers=[check])
        return [d.rule for d in result.diagnostics]

    assert rules(lossless=True) == []
    assert rules(lossless="yes please") == ["op-option-type"]  # same shape, a value that does not fit
    assert rules(lossless=False) == []
    assert rules(photo="b.docx") == ["op-format-unsupported"]  # another format: another shape
    assert rules(photo="c.gif", lossless="x") == ["op-unknown-option"]  # gif -> webp has no lossless
    assert len(document.cache["catalog"]) == 3


def test_an_engine_that_is_not_a_string_does_not_break_the_check(catalog: Catalog, tmp_path: Path) -> None:
    path = _write(tmp_path, """\
        version: 1
        tasks:
          original: {operation: import/upload, upload_from: a.jpg}
          web: {operation: convert, input: original, output_format: webp, engine: [a, b]}
          out: {operation: export/url, input: web}
    """)
    result = check_pipeline(path, {}, catalog=catalog)
    assert result.pipeline is not None
    assert not result.ok  # the operation schema says engine is a string


def _direct(catalog: Catalog, path: Path) -> set[Diagnostic]:
    """The same pipeline checked task by task with check_task_inputs, nothing cached."""
    result = check_pipeline(path, {})
    assert result.pipeline is not None
    flow, blocked = pipeline_formats(result.pipeline)
    found: set[Diagnostic] = set()
    for name, task in result.pipeline.tasks.items():
        if name in blocked:
            continue
        body = task.body
        found.update(check_task_inputs(
            catalog, operation=task.operation, input_formats=flow[name].input_formats,
            output_format=body.get("output_format"), engine=body.get("engine"),
            engine_version=body.get("engine_version"), options=body, locate=task.locate,
            locate_key=task.locate_key, task_location=task.location, task_name=task.group,
        ))
    return found


def test_the_shape_cache_finds_what_checking_each_task_directly_finds() -> None:
    catalog = load_default_catalog()
    cases = sorted((EXAMPLES / "negative").glob("catalog-*/pipeline.yaml"))
    cases += sorted(REPO_PIPELINES.glob("*.yaml"))
    assert len(cases) >= 10
    for path in cases:
        result = check_pipeline(path, {})
        assert result.pipeline is not None, path
        twice = [check_pipeline_catalog(catalog, result.pipeline) for _ in range(2)]  # the second is cached
        assert twice[0] == twice[1]
        assert set(twice[0]) == _direct(catalog, path), path
