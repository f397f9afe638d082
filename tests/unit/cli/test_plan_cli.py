"""`mcv plan`: tasks, conversion types (default engine included), credits per run and per batch,
warnings; exit 2 when the pipeline or a manifest row is invalid."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest

from mcv_pipelines.cli.main import main

ROOT = Path(__file__).resolve().parents[3]
PRODUCT = str(ROOT / "pipelines" / "product-images.yaml")
EXAMPLES = ROOT / "tests" / "examples"
Capture = pytest.CaptureFixture[str]


def _json(capsys: Capture) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(capsys.readouterr().out)
    return data


def test_plan_of_one_run_names_each_conversion_type_and_engine(capsys: Capture) -> None:
    assert main(["plan", PRODUCT]) == 0
    out = capsys.readouterr().out
    assert "  web-320                  convert jpg -> webp (pillow) [default engine]  credits 1\n" in out
    assert "  sheet                    convert jpg -> pdf (pillow) [default engine]  credits 1\n" in out
    assert "  publish                  export/url\n" in out
    assert out.endswith("credits per run: 3\n")


def test_params_change_the_plan(capsys: Capture) -> None:
    assert main(["plan", PRODUCT, "-p", "widths=100,200,300", "-p", "sheet=false", "--format", "json"]) == 0
    plan = _json(capsys)
    assert [t["name"] for t in plan["tasks"]] == ["original", "web-100", "web-200", "web-300", "publish"]
    assert plan["credits_per_run"] == 3
    assert plan["tasks"][1]["conversion_type"] == ["convert", "jpg", "webp", "pillow"]
    assert plan["tasks"][1]["default_engine"] is True
    assert plan["valid"] is True


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("rows.csv", 'photo,widths,note\nphotos/a.jpg,"100,200,300",x\nphotos/b.png,640,y\n'),
        ("rows.jsonl", '{"photo": "photos/a.jpg", "widths": [100, 200, 300]}\n\n'
                       '{"photo": "photos/b.png", "widths": [640], "note": "y"}\n'),
        ("rows.yaml", "- {photo: photos/a.jpg, widths: [100, 200, 300]}\n"
                      "- {photo: photos/b.png, widths: [640]}\n"),
    ],
)
def test_a_manifest_plans_every_row(name: str, text: str, tmp_path: Path, capsys: Capture) -> None:
    manifest = tmp_path / name
    manifest.write_text(text)
    assert main(["plan", PRODUCT, "--manifest", str(manifest), "--format", "json"]) == 0
    plan = _json(capsys)
    assert plan["rows"] == 2
    assert plan["credits_per_row"] == [4, 2]  # three widths + sheet; one width + sheet
    assert plan["credits_total"] == 6
    assert main(["plan", PRODUCT, "--manifest", str(manifest)]) == 0
    assert "credits for 2 rows: 6 (rows differ: 2 to 4 per row)\n" in capsys.readouterr().out


def test_an_invalid_row_is_an_error_naming_the_row(tmp_path: Path, capsys: Capture) -> None:
    manifest = tmp_path / "rows.csv"
    manifest.write_text("photo,widths\nphotos/a.jpg,640\nphotos/b.jpg,wide\n")
    assert main(["plan", PRODUCT, "--manifest", str(manifest), "--format", "json"]) == 2
    plan = _json(capsys)
    assert plan["valid"] is False
    [error] = plan["errors"]
    assert error["rule"] == "param-type"
    assert error["manifest"] == f"{manifest}: row 2"
    assert plan["credits_per_row"] == [2]


def test_an_invalid_pipeline_exits_2_with_its_errors(capsys: Capture) -> None:
    case = EXAMPLES / "negative" / "catalog-format-unsupported" / "pipeline.yaml"
    assert main(["plan", str(case)]) == 2
    out = capsys.readouterr().out
    assert "error[op-format-unsupported]: task 'web': convert cannot turn png into mp5" in out
    assert "  web                      convert\n" in out  # no conversion type to run


def test_warnings_are_listed(capsys: Capture) -> None:
    case = EXAMPLES / "negative" / "catalog-format-unknown-url" / "pipeline.yaml"
    assert main(["plan", str(case), "--format", "json"]) == 0
    plan = _json(capsys)
    assert [w["rule"] for w in plan["warnings"]] == ["op-format-unknown"]
    assert plan["tasks"][1]["conversion_type"] is None


def test_a_given_engine_and_another_catalog(tmp_path: Path, capsys: Capture) -> None:
    pipeline = tmp_path / "p.yaml"
    pipeline.write_text(textwrap.dedent("""\
        version: 1
        tasks:
          original: {operation: import/upload, upload_from: a.jpg}
          old: {operation: convert, input: original, output_format: png, engine: legacy}
          new: {operation: convert, input: original, output_format: png}
          out: {operation: export/url, input: [old, new]}
    """))
    catalog = str(EXAMPLES / "catalogs" / "deprecated.json")
    assert main(["plan", str(pipeline), "--catalog", catalog, "--format", "json"]) == 0
    plan = _json(capsys)
    by_name = {t["name"]: t for t in plan["tasks"]}
    assert (by_name["old"]["credits"], by_name["old"]["default_engine"]) == (2, False)
    assert (by_name["new"]["conversion_type"][3], by_name["new"]["default_engine"]) == ("pillow", True)
    assert plan["credits_per_run"] == 3
    assert [w["rule"] for w in plan["warnings"]] == ["op-deprecated"]


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("rows.txt", "photo\n", "unknown manifest format .txt"),
        ("rows.jsonl", '{"photo": "a.jpg"}\n[1]\n', "rows.jsonl:2: a row must be an object"),
        ("rows.yaml", "photo: a.jpg\n", "a YAML manifest is a list of mappings"),
    ],
)
def test_a_bad_manifest_is_one_clear_error(
    name: str, text: str, message: str, tmp_path: Path, capsys: Capture
) -> None:
    manifest = tmp_path / name
    manifest.write_text(text)
    assert main(["plan", PRODUCT, "--manifest", str(manifest)]) == 2
    err = capsys.readouterr().err
    assert message in err
    assert "Traceback" not in err
