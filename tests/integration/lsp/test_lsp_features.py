"""Completion, hover, go to definition, quick fixes and settings, over the protocol."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from lsp_client import LspClient

from mcv_pipelines.catalog.snapshot import load_default_catalog

Start = Callable[..., LspClient]
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
PIPELINE = """\
version: 1
params:
  photo: {type: string, example: photos/photo.jpg, description: the photo to publish}
  quality: {type: integer, default: 82}
tasks:
  original:
    operation: import/upload
    upload_from: "{{ params.photo }}"
  web:
    operation: convert
    input: original
    output_format: webp
    quality: "{{ params.quality }}"
    fit: max
  publish:
    operation: export/url
    input: [web]
"""
LINES = PIPELINE.splitlines()


def _at(line: int, text: str, offset: int = 0) -> tuple[int, int]:
    """The position of ``text`` in line ``line`` of PIPELINE (plus ``offset`` characters)."""
    return line, LINES[line].index(text) + offset


@pytest.fixture(scope="module")
def served(shared: LspClient, tmp_path_factory: pytest.TempPathFactory) -> tuple[LspClient, str]:
    uri = shared.open(tmp_path_factory.mktemp("features") / "pipeline.yaml", PIPELINE)
    assert shared.diagnostics(uri, version=1) == []
    return shared, uri


def _labels(client: LspClient, uri: str, line: int, column: int) -> list[str]:
    result = client.at("textDocument/completion", uri, line, column)
    return [item["label"] for item in result["items"]]


def test_operation_names_complete_after_operation(served: tuple[LspClient, str]) -> None:
    client, uri = served
    line, column = _at(9, "convert")
    result = client.at("textDocument/completion", uri, line, column + 4)  # after "conv"
    labels = [item["label"] for item in result["items"]]
    assert {"convert", "import/upload", "thumbnail", "export/url", "merge"} <= set(labels)
    edit = next(i for i in result["items"] if i["label"] == "convert")["textEdit"]
    assert edit["range"] == {
        "start": {"line": 9, "character": column},
        "end": {"line": 9, "character": column + 4},
    }


def test_option_names_for_the_tasks_operation_leave_out_those_present(served: tuple[LspClient, str]) -> None:
    client, uri = served
    labels = _labels(client, uri, 12, 4)  # the start of the `quality:` line
    assert {"width", "height", "filename", "engine", "auto_orient", "for_each", "quality"} <= set(labels)
    assert "output_format" not in labels  # already written on another line
    assert "upload_from" not in labels  # a key of import/upload only
    original = _labels(client, uri, 7, 4)
    assert "upload_from" in original
    assert "output_format" not in original


def test_enum_values_of_an_option_come_from_the_catalog(served: tuple[LspClient, str]) -> None:
    client, uri = served
    line, column = _at(13, "max")
    assert _labels(client, uri, line, column) == ["max", "crop", "scale", "upscale"]


def test_output_formats_are_those_of_the_input_format_inferred_along_the_graph(
    served: tuple[LspClient, str],
) -> None:
    client, uri = served
    # original uploads "{{ params.photo }}", whose example is a .jpg: web reads jpg.
    line, column = _at(11, "webp")
    labels = _labels(client, uri, line, column)
    assert labels == load_default_catalog().output_formats("convert", "jpg")
    assert "webp" in labels
    assert "mp3" not in labels


def test_task_names_complete_in_input(served: tuple[LspClient, str]) -> None:
    client, uri = served
    assert _labels(client, uri, *_at(16, "web")) == ["original", "web"]
    assert _labels(client, uri, *_at(10, "original")) == ["original", "publish"]


def test_param_names_complete_after_params_dot_in_a_template(served: tuple[LspClient, str]) -> None:
    client, uri = served
    line, column = _at(12, "params.", 7)
    result = client.at("textDocument/completion", uri, line, column)
    assert [item["label"] for item in result["items"]] == ["photo", "quality"]
    assert _labels(client, uri, 12, 2) == []  # not inside a template, not at an option's indent


def _hover(client: LspClient, uri: str, line: int, column: int) -> dict[str, Any]:
    found: dict[str, Any] = client.at("textDocument/hover", uri, line, column)
    return found


def test_hover_on_an_option_shows_type_default_and_description(served: tuple[LspClient, str]) -> None:
    client, uri = served
    found = _hover(client, uri, 12, 6)
    text = found["contents"]["value"]
    assert "**quality**" in text
    assert "type: integer" in text
    assert "default: 80" in text  # the catalog's default for convert jpg -> webp
    assert found["range"] == {"start": {"line": 12, "character": 4}, "end": {"line": 12, "character": 11}}
    fit = _hover(client, uri, 13, 5)["contents"]["value"]
    assert "values: max, crop, scale, upscale" in fit


def test_hover_on_a_task_name_shows_its_operation_and_formats(served: tuple[LspClient, str]) -> None:
    client, uri = served
    used = _hover(client, uri, *_at(10, "original", 2))["contents"]["value"]
    assert "`import/upload`" in used
    assert "makes: jpg" in used
    header = _hover(client, uri, 8, 3)["contents"]["value"]
    assert "`convert`" in header
    assert "reads: jpg" in header
    assert "makes: webp" in header


def test_hover_on_a_param_in_a_template_shows_its_declaration(served: tuple[LspClient, str]) -> None:
    client, uri = served
    found = _hover(client, uri, *_at(7, "photo", 1))
    assert found["contents"]["value"] == (
        "**params.photo** (type: 'string'; example: 'photos/photo.jpg')\n\nthe photo to publish"
    )
    line, column = _at(7, "photo")
    assert found["range"] == {
        "start": {"line": line, "character": column},
        "end": {"line": line, "character": column + 5},
    }


def test_go_to_definition_from_input_and_from_params(served: tuple[LspClient, str]) -> None:
    client, uri = served
    target = client.at("textDocument/definition", uri, *_at(16, "web", 1))
    assert target == {
        "uri": uri,
        "range": {"start": {"line": 8, "character": 2}, "end": {"line": 8, "character": 5}},
    }
    target = client.at("textDocument/definition", uri, *_at(7, "photo", 2))
    assert target["range"] == {"start": {"line": 2, "character": 2}, "end": {"line": 2, "character": 7}}
    assert client.at("textDocument/definition", uri, *_at(9, "convert")) is None


def _apply(text: str, edits: list[dict[str, Any]]) -> str:
    lines = text.split("\n")
    for edit in edits:
        start, end = edit["range"]["start"], edit["range"]["end"]
        assert start["line"] == end["line"]
        line = lines[start["line"]]
        lines[start["line"]] = line[: start["character"]] + edit["newText"] + line[end["character"] :]
    return "\n".join(lines)


@pytest.mark.parametrize(
    ("good", "typo", "rule"),
    [
        ("    input: original", "    input: orignal", "graph-dangling-input"),
        ("    operation: convert", "    operation: convrt", "op-unknown"),
        ("    fit: max", "    fitt: max", "op-unknown-option"),
    ],
    ids=["unknown-task", "misspelled-operation", "unknown-option"],
)
def test_quick_fix_replaces_the_misspelt_word(
    shared: LspClient, tmp_path: Path, good: str, typo: str, rule: str
) -> None:
    client = shared
    text = PIPELINE.replace(good, typo, 1)
    uri = client.open(tmp_path / "p.yaml", text)
    found = [d for d in client.diagnostics(uri) if d["code"] == rule]
    assert len(found) == 1
    params = {"textDocument": {"uri": uri}, "range": found[0]["range"], "context": {"diagnostics": found}}
    [action] = client.request("textDocument/codeAction", params)
    assert action["kind"] == "quickfix"
    fixed = _apply(text, action["edit"]["changes"][uri])
    assert fixed == PIPELINE
    client.change(uri, fixed, 2)
    assert client.diagnostics(uri, version=2) == []


def test_catalog_setting_is_honoured_and_can_change(start: Start, tmp_path: Path) -> None:
    shutil.copy(EXAMPLES / "catalogs" / "deprecated.json", tmp_path / "old.json")
    case = EXAMPLES / "negative" / "catalog-deprecated" / "pipeline.yaml"
    client = start({"catalog": "old.json"})  # relative to the workspace root
    uri = client.open(case, case.read_text())
    rules = sorted(d["code"] for d in client.diagnostics(uri))
    assert rules.count("op-deprecated") >= 2
    # A notification naming none of our settings (clients send such) keeps them as they are.
    client.notify("workspace/didChangeConfiguration", {"settings": None})
    assert sorted(d["code"] for d in client.diagnostics(uri)) == rules
    client.notify("workspace/didChangeConfiguration", {"settings": {"mcv": {"catalog": None}}})
    rules = sorted(d["code"] for d in client.diagnostics(uri))
    assert "op-deprecated" not in rules
    assert "op-unknown-engine" in rules  # the bundled catalog has no engine "legacy"


def test_a_catalog_that_cannot_be_read_is_reported_and_the_bundled_one_used(start: Start) -> None:
    client = start({"mcv": {"catalog": "missing.json"}})
    shown = client.wait_for(lambda n: n.get("method") == "window/showMessage")
    assert "missing.json" in shown["params"]["message"]
    assert "bundled" in shown["params"]["message"]
    case = EXAMPLES / "negative" / "catalog-unknown-option" / "pipeline.yaml"
    uri = client.open(case, case.read_text())
    assert [d["code"] for d in client.diagnostics(uri)] == ["op-unknown-option"]


def test_operation_schemas_setting_is_honoured_even_when_a_schema_is_broken(
    start: Start, tmp_path: Path
) -> None:
    schemas = tmp_path / "ops"
    schemas.mkdir()
    for name in ("import-upload", "export-url"):
        shutil.copy(EXAMPLES / "operations" / f"{name}.schema.json", schemas)
    (schemas / "convert.schema.json").write_text("{not json")
    client = start({"operationSchemas": "ops", "catalog": False})
    uri = client.open(tmp_path / "p.yaml", PIPELINE)
    found = {d["code"]: d for d in client.diagnostics(uri)}
    assert list(found) == ["op-schema-broken"]
    assert found["op-schema-broken"]["range"]["start"] == {"line": 9, "character": 15}
    labels = _labels(client, uri, 12, 4)  # completion still answers: the runner keys at least
    assert "for_each" in labels
