"""What the editor's settings mean to the server."""

from __future__ import annotations

from pathlib import Path

from mcv_pipelines.lsp.settings import Settings, load_tools, parse_settings


def test_settings_flat_or_under_an_mcv_section() -> None:
    assert parse_settings({"catalog": "c.json"}) == Settings(catalog="c.json")
    assert parse_settings({"mcv": {"operationSchemas": "ops"}}) == Settings(operation_schemas="ops")


def test_a_payload_without_our_keys_keeps_the_settings() -> None:
    current = Settings(catalog="c.json")
    assert parse_settings(None, current) is current
    assert parse_settings({"yaml": {"schemas": {}}}, current) is current
    assert parse_settings({"mcv": {"catalog": None}}, current) == Settings()


def test_catalog_false_turns_the_catalog_checks_off() -> None:
    tools = load_tools(parse_settings({"catalog": False}), None)
    assert tools.catalog is None
    assert tools.problems == ()


def test_paths_that_cannot_be_used_fall_back_with_a_reason(tmp_path: Path) -> None:
    (tmp_path / "bad.json").write_text("{not json")
    tools = load_tools(parse_settings({"catalog": "bad.json", "operationSchemas": "nowhere"}), str(tmp_path))
    assert tools.catalog is not None  # the bundled one
    assert tools.schemas is None  # the shipped ones
    assert len(tools.problems) == 2
    assert "nowhere" in tools.problems[0]
    assert "bad.json" in tools.problems[1]
    assert "not JSON" in tools.problems[1]
