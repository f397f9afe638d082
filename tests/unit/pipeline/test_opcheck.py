from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from mcv_pipelines.diagnostics import Location
from mcv_pipelines.pipeline import Document, OperationSchemas, Params, check_operations, render_pipeline
from mcv_pipelines.pipeline.opcheck import schema_file_name

Doc = Callable[[str], Document]

S3 = {
    "type": "object",
    "required": ["bucket", "region"],
    "additionalProperties": False,
    "properties": {
        "operation": {},
        "bucket": {"type": "string"},
        "region": {"type": "string"},
        "key": {"type": "string"},
        "key_prefix": {"type": "string"},
        "secret_access_key": {"type": "string", "writeOnly": True},
    },
    "oneOf": [{"required": ["key"]}, {"required": ["key_prefix"]}],
}
RAW = {
    "type": "object",
    "required": ["file", "filename"],
    "properties": {"file": {"type": "string"}, "filename": {"type": "string"}},
}


@pytest.fixture
def s3_schemas(tmp_path: Path) -> OperationSchemas:
    for op, schema in {"import/s3": S3, "import/base64": RAW, "import/raw": RAW}.items():
        (tmp_path / schema_file_name(op)).write_text(json.dumps(schema))
    return OperationSchemas(tmp_path)


def _check(
    doc: Doc, tasks: str, schemas: OperationSchemas, params: dict[str, Any] | None = None
) -> list[Any]:
    declared = "params: {c: {type: string}}\n" if params else ""
    pipeline, problems = render_pipeline(
        doc("version: 1\n" + declared + "tasks:\n" + tasks), Params(params or {})
    )
    assert problems == []
    assert pipeline is not None
    return check_operations(pipeline, schemas)


def test_schema_file_names() -> None:
    assert schema_file_name("import/url") == "import-url.schema.json"
    assert schema_file_name("metadata/write") == "metadata-write.schema.json"


def test_unknown_operation_with_did_you_mean(doc: Doc, s3_schemas: OperationSchemas) -> None:
    [problem] = _check(doc, "  a: {operation: import/s4, bucket: b}\n", s3_schemas)
    assert (problem.rule, problem.location) == ("op-unknown", Location("p.yaml", 3, 18))
    assert problem.hint == "did you mean 'import/s3'?"


def test_missing_unknown_and_mistyped_options_point_at_their_nodes(
    doc: Doc, s3_schemas: OperationSchemas
) -> None:
    problems = _check(
        doc,
        """\
  a:
    operation: import/s3
    buckt: x
    region: 5
    key: k
""",
        s3_schemas,
    )
    got = [(p.rule, p.location.line, p.location.column) for p in problems]
    assert got == [("op-missing-option", 3, 3), ("op-unknown-option", 5, 5), ("op-option-type", 6, 13)]
    assert problems[1].hint == "did you mean 'bucket'?"


def test_alternatives_need_exactly_one(doc: Doc, s3_schemas: OperationSchemas) -> None:
    none = _check(doc, "  a: {operation: import/s3, bucket: b, region: r}\n", s3_schemas)
    assert [(p.rule, p.message) for p in none] == [
        ("op-missing-option", "import/s3 task 'a': the task needs one of: key, key_prefix")
    ]
    both = _check(
        doc, "  a: {operation: import/s3, bucket: b, region: r, key: k, key_prefix: p}\n", s3_schemas
    )
    assert [p.rule for p in both] == ["op-option-conflict"]


def test_embedded_content_over_10_mb(doc: Doc, s3_schemas: OperationSchemas) -> None:
    big = "A" * (14 * 1024 * 1024)  # 14 MiB of base64 is 10.5 MiB of content
    [problem] = _check(
        doc,
        '  a: {operation: import/base64, file: "{{ params.c }}", filename: a.bin}\n',
        s3_schemas,
        {"c": big},
    )
    assert problem.rule == "op-content-too-large"
    assert problem.location == Location("p.yaml", 4, 39)
    assert (
        _check(
            doc,
            '  a: {operation: import/raw, file: "{{ params.c }}", filename: a.txt}\n',
            s3_schemas,
            {"c": "x" * 1000},
        )
        == []
    )


def test_a_broken_schema_file_is_a_diagnostic_not_a_crash(doc: Doc, tmp_path: Path) -> None:
    (tmp_path / "convert.schema.json").write_text("{not json")
    [problem] = _check(doc, "  a: {operation: convert}\n", OperationSchemas(tmp_path))
    assert problem.rule == "op-schema-broken"


def test_operation_names_cannot_reach_outside_the_directory(doc: Doc, s3_schemas: OperationSchemas) -> None:
    [problem] = _check(doc, "  a: {operation: ../../etc/passwd}\n", s3_schemas)
    assert problem.rule == "op-unknown"


def test_a_credential_written_in_the_file_is_an_error(doc: Doc, s3_schemas: OperationSchemas) -> None:
    plain = _check(
        doc,
        "  a: {operation: import/s3, bucket: b, region: r, key: k, secret_access_key: AKIA1234}\n",
        s3_schemas,
    )
    assert [(p.rule, p.location.column) for p in plain] == [("secret-in-plain-text", 78)]
    templated = (
        "  a: {operation: import/s3, bucket: b, region: r, key: k,"
        " secret_access_key: \"{{ secret('S') }}\"}\n"
    )
    pipeline, _ = render_pipeline(doc("version: 1\ntasks:\n" + templated), Params({}), placeholders=True)
    assert pipeline is not None
    assert check_operations(pipeline, s3_schemas) == []
