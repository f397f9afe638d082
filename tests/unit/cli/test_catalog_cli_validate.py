"""The catalog stage of `mcv validate` and `mcv render`: on by default, --catalog, --no-catalog, and a
missing default snapshot (a warning, never a failure)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mcv_pipelines.catalog import snapshot
from mcv_pipelines.cli.main import main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
MP5 = str(EXAMPLES / "negative" / "catalog-format-unsupported" / "pipeline.yaml")
DEPRECATED = str(EXAMPLES / "negative" / "catalog-deprecated" / "pipeline.yaml")
GOOD = str(EXAMPLES / "positive" / "product-images" / "pipeline.yaml")
Capture = pytest.CaptureFixture[str]


def _rules(capsys: Capture) -> list[str]:
    report: dict[str, Any] = json.loads(capsys.readouterr().out)
    return [d["rule"] for d in report["diagnostics"]]


def test_validate_checks_against_the_committed_catalog_by_default(capsys: Capture) -> None:
    assert main(["validate", MP5]) == 2
    out = capsys.readouterr().out
    assert "error[op-format-unsupported]: task 'web': convert cannot turn png into mp5" in out
    assert "hint: supported outputs from png: msp, bmp, aai" in out


def test_no_catalog_skips_the_catalog_checks(capsys: Capture) -> None:
    assert main(["validate", MP5, "--no-catalog"]) == 0
    assert capsys.readouterr().out == "1 file valid\n"


def test_another_catalog(capsys: Capture) -> None:
    catalog = str(EXAMPLES / "catalogs" / "deprecated.json")
    assert main(["validate", DEPRECATED, "--catalog", catalog, "--format", "json"]) == 2
    assert _rules(capsys) == ["op-option-type", "op-deprecated", "op-deprecated", "op-experimental"]


def test_a_catalog_path_that_is_not_there_is_a_usage_error(tmp_path: Path, capsys: Capture) -> None:
    assert main(["validate", GOOD, "--catalog", str(tmp_path / "nope.json")]) == 2
    assert "nope.json: no such catalog snapshot" in capsys.readouterr().err


def test_a_catalog_that_is_not_a_listing_is_a_clear_error(tmp_path: Path, capsys: Capture) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"items": []}')
    assert main(["validate", GOOD, "--catalog", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "bad.json: not an operations listing" in err
    assert "Traceback" not in err


def test_a_missing_default_catalog_warns_once_and_validation_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Capture
) -> None:
    monkeypatch.setattr(snapshot, "default_catalog_path", lambda: tmp_path / "local.json")
    assert main(["validate", GOOD, MP5, "--format", "json"]) == 0
    assert _rules(capsys) == ["catalog-missing"]


def test_render_checks_the_catalog_too(capsys: Capture) -> None:
    assert main(["render", MP5]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "error[op-format-unsupported]" in captured.err
    assert main(["render", MP5, "--no-catalog"]) == 0
    assert json.loads(capsys.readouterr().out)["tasks"]["web"]["output_format"] == "mp5"


def test_catalog_and_no_catalog_together_is_a_usage_error(capsys: Capture) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["validate", GOOD, "--catalog", "x.json", "--no-catalog"])
    assert exit_info.value.code == 2
    assert "not allowed with argument" in capsys.readouterr().err
