"""The editor schema (`mcv schema`, schemas/pipeline.schema.json): what an editor learns from it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from mcv_pipelines.catalog.snapshot import load_catalog, load_default_catalog
from mcv_pipelines.cli.main import main
from mcv_pipelines.pipeline import OperationSchemas
from mcv_pipelines.pipeline.case_outline import CASE_KEYS, EXPECTATION_KEYS
from mcv_pipelines.pipeline.editor_schema import build_editor_schema, operation_def_name
from mcv_pipelines.pipeline.fileschema import file_schema

ROOT = Path(__file__).resolve().parents[3]
COMMITTED = ROOT / "schemas" / "pipeline.schema.json"
FIXTURE_CATALOG = ROOT / "tests" / "examples" / "catalogs" / "deprecated.json"


@pytest.fixture(scope="module")
def schema() -> dict[str, Any]:
    return build_editor_schema(load_default_catalog())


def _errors(schema: dict[str, Any], task: dict[str, Any]) -> list[str]:
    """Where (key paths) the schema finds fault with a pipeline holding ``task`` after an upload."""
    pipeline = {
        "version": 1,
        "tasks": {"original": {"operation": "import/upload"}, "t": task},
    }
    errors = Draft202012Validator(schema).iter_errors(pipeline)
    return sorted(f"{'.'.join(map(str, e.absolute_path))} {e.message}" for e in errors)


def test_committed_schema_is_what_mcv_schema_makes(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema"]) == 0
    made = capsys.readouterr().out
    assert made == COMMITTED.read_text(encoding="utf-8"), (
        "schemas/pipeline.schema.json is out of date with the operation schemas or the catalog; "
        "run `mcv schema -o schemas/pipeline.schema.json` and commit the result"
    )


def test_schema_is_valid_draft_2020_12(schema: dict[str, Any]) -> None:
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def test_operation_is_an_enum_of_every_operation_schema(schema: dict[str, Any]) -> None:
    operation = schema["$defs"]["task"]["properties"]["operation"]
    assert operation["anyOf"][0]["enum"] == OperationSchemas().available()
    assert _errors(schema, {"operation": "covert", "input": "original"}) == [
        "tasks.t.operation 'covert' is not valid under any of the given schemas"
    ]


def test_unknown_and_mistyped_options_are_flagged(schema: dict[str, Any]) -> None:
    task: dict[str, Any] = {"operation": "convert", "input": "original", "output_format": "webp"}
    task |= {"qualty": 80, "width": "wide"}
    found = _errors(schema, task)
    assert any("'qualty' was unexpected" in e for e in found), found
    assert any(e.startswith("tasks.t.width ") for e in found), found
    assert len(found) == 2, found


def test_templates_are_accepted_where_a_typed_value_is(schema: dict[str, Any]) -> None:
    task = {
        "operation": "convert",
        "input": "{{ params.source }}",
        "output_format": "{{ params.fmt }}",
        "width": "{{ item }}",
        "fit": "{% if params.crop %}crop{% else %}max{% endif %}",
        "engine": "{{ env('ENGINE', 'pillow') }}",
    }
    assert _errors(schema, task) == []
    assert _errors(schema, {**task, "width": "640px"}) != []  # a plain string is still no integer


def test_runner_keys_are_allowed_on_every_operation(schema: dict[str, Any]) -> None:
    for operation in ("import/upload", "convert", "export/url"):
        task = {
            "operation": operation,
            "for_each": [1, 2],
            "when": True,
            "upload_from": "a.jpg",
            "download_to": "out/",
            "input": "original",
            **({"output_format": "png"} if operation == "convert" else {}),
        }
        assert _errors(schema, task) == [], operation


def test_values_defaults_and_docs_come_from_the_catalog(schema: dict[str, Any]) -> None:
    convert = schema["$defs"][operation_def_name("convert")]
    fit = convert["properties"]["fit"]
    assert fit["anyOf"][0]["enum"] == ["max", "crop", "scale", "upscale"]
    assert fit["default"] == "max"
    assert 'Default: `"max"`' in fit["markdownDescription"]
    assert fit["description"]
    outputs = convert["properties"]["output_format"]["anyOf"][0]["enum"]
    assert {"webp", "pdf", "mp3", "jpeg", "docx", "xlsx"} <= set(outputs)  # office formats (issue 23)
    assert "dwg" not in outputs  # no local engine writes CAD drawings
    # archive reads one fixed input ("any"): its outputs are the ones listed for it
    archive = schema["$defs"][operation_def_name("archive")]["properties"]
    assert set(archive["output_format"]["anyOf"][0]["enum"]) == {"7z", "tar", "tar.bz2", "tar.gz", "zip"}


def test_another_services_catalog_makes_its_own_schema(tmp_path: Path) -> None:
    out = tmp_path / "my.schema.json"
    assert main(["schema", "--catalog", str(FIXTURE_CATALOG), "-o", str(out)]) == 0
    made = json.loads(out.read_text(encoding="utf-8"))
    assert made == build_editor_schema(load_catalog(FIXTURE_CATALOG))
    convert = made["$defs"][operation_def_name("convert")]["properties"]
    assert convert["engine"]["anyOf"][0]["enum"] == ["legacy", "pillow"]
    assert convert["output_format"]["anyOf"][0]["enum"] == ["avif", "png"]
    # its jpg -> avif type lists no engine versions, so any version is taken: no list to hold one to
    assert "enum" not in convert["engine_version"]["anyOf"][0]
    # and it lists no options, so mcv validate only warns about any option there: the editor flags none
    assert made["$defs"][operation_def_name("convert")]["additionalProperties"] is True
    default_convert = build_editor_schema(load_default_catalog())["$defs"][operation_def_name("convert")]
    assert default_convert["additionalProperties"] is False


def test_a_missing_catalog_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema", "--catalog", str(tmp_path / "nope.json")]) == 2
    assert "no such catalog snapshot" in capsys.readouterr().err


def test_validate_checks_the_outline_of_the_same_schema() -> None:
    committed = json.loads(COMMITTED.read_text(encoding="utf-8"))
    outline = file_schema()
    assert outline["properties"] == committed["properties"]
    assert outline["$defs"]["param"] == committed["$defs"]["param"]
    task = committed["$defs"]["task"]["properties"]
    assert {k: v for k, v in task.items() if k != "operation"} == {
        k: v for k, v in outline["$defs"]["task"]["properties"].items() if k != "operation"
    }


def test_a_template_never_switches_an_operation_rule_on(schema: dict[str, Any]) -> None:
    # command.schema.json: *if* the engine is ffmpeg, *then* the program is ffmpeg or ffprobe
    task = {"operation": "command", "input": "original", "engine": "ffmpeg", "arguments": "-i x y"}
    assert _errors(schema, {**task, "command": "ffprobe"}) == []
    assert _errors(schema, {**task, "command": "magick"}) != []
    # an engine from a template may be any: the program is held only to the list of every engine's
    assert _errors(schema, {**task, "engine": "{{ params.engine }}", "command": "magick"}) == []
    assert _errors(schema, {**task, "engine": "{{ params.engine }}", "command": "bash"}) != []


def test_test_cases_and_their_expectations_are_described_for_the_editor(schema: dict[str, Any]) -> None:
    tests = schema["properties"]["tests"]
    assert "mcv test" in tests["description"]
    assert tests["items"] == {"$ref": "#/$defs/test"}
    case = schema["$defs"]["test"]["properties"]
    assert case["expect"]["description"] == CASE_KEYS["expect"][1]
    golden = schema["$defs"]["expectation"]["properties"]["golden"]
    assert golden["description"] == EXPECTATION_KEYS["golden"][1]
    pipeline = {
        "version": 1,
        "tasks": {"original": {"operation": "import/upload"}},
        "tests": [{"name": "one", "expect": {"original": {"files": 1, "fomat": "jpg"}}}],
    }
    found = [e.message for e in Draft202012Validator(schema).iter_errors(pipeline)]
    assert found == ["Additional properties are not allowed ('fomat' was unexpected)"]
