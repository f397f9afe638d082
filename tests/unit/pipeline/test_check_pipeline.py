from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

import mcv_pipelines.pipeline as api
from mcv_pipelines.diagnostics import Diagnostic, Severity
from mcv_pipelines.pipeline import OperationSchemas, RenderedPipeline, check_pipeline

Write = Callable[..., Path]


def test_problems_of_every_stage_are_collected(write: Write, schemas: OperationSchemas) -> None:
    path = write("""\
        version: 1
        colour: red
        tasks:
          in: {operation: import/upload}
          web: {operation: convert, input: in, output_format: webp, widht: 3}
          out: {operation: export/url, input: wbe}
        """)
    result = check_pipeline(path, {}, schemas=schemas)
    assert [d.rule for d in result.diagnostics] == [
        "file-schema",
        "graph-dangling-input",
        "graph-unused-output",
        "graph-unused-output",
        "op-unknown-option",
    ]
    assert not result.ok
    assert result.pipeline is not None


def test_extra_checkers_see_the_rendered_pipeline(write: Write, schemas: OperationSchemas) -> None:
    seen: list[list[str]] = []

    def catalog(pipeline: RenderedPipeline) -> Iterable[Diagnostic]:
        seen.append(list(pipeline.tasks))
        task = pipeline.tasks["web"]
        return [Diagnostic("op-format-unsupported", Severity.ERROR, "no", task.locate(("output_format",)))]

    path = write("""\
        version: 1
        tasks:
          in: {operation: import/upload}
          web: {operation: convert, input: in, output_format: xyz}
          out: {operation: export/url, input: web}
        """)
    result = check_pipeline(path, {}, schemas=schemas, extra_checkers=[catalog])
    assert seen == [["in", "web", "out"]]
    [problem] = result.diagnostics
    assert (problem.rule, problem.location and problem.location.line) == ("op-format-unsupported", 4)


def test_validation_uses_examples_a_sample_row_and_secret_stand_ins(
    write: Write, schemas: OperationSchemas
) -> None:
    path = write("""\
        version: 1
        params: {photo: {type: string, example: a.jpg}}
        job: {tag: "row-{{ row.index }}-{{ secret('MCV_TEST_UNSET_SECRET') }}"}
        tasks:
          in: {operation: import/upload, upload_from: "{{ params.photo }}"}
          out: {operation: export/url, input: in}
        """)
    result = check_pipeline(path, {}, schemas=schemas, environ={})
    assert result.ok, result.diagnostics
    assert result.pipeline is not None
    assert result.pipeline.tag == "row-1-***"
    strict = check_pipeline(path, {}, schemas=schemas, environ={}, use_examples=False)
    assert [d.rule for d in strict.diagnostics] == ["param-missing"]


def test_a_missing_file_is_a_diagnostic(tmp_path: Path) -> None:
    result = check_pipeline(tmp_path / "nope.yaml", {})
    assert [d.rule for d in result.diagnostics] == ["file-unreadable"]
    assert result.pipeline is None


def test_public_api_names() -> None:
    assert {
        "load_document",
        "resolve_params",
        "render_pipeline",
        "check_pipeline",
        "RenderedPipeline",
        "RenderedTask",
        "CheckResult",
        "Document",
        "Params",
    } <= set(api.__all__)
    assert all(hasattr(api, name) for name in api.__all__)
