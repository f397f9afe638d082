"""`mcv catalog show` and `mcv catalog diff` through the real entry point."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcv_pipelines.catalog import snapshot
from mcv_pipelines.cli import main as cli


def test_show_one_conversion_with_its_options(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = cli.main(
        [
            "catalog",
            "show",
            "--catalog",
            str(data_dir / "listing.json"),
            "--operation",
            "convert",
            "--input-format",
            "JPEG",
            "--output-format",
            "png",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "convert jpg -> png (imagemagick)  credits 1  [default]\n" in out
    assert "    engine versions: 7.1.1 (default), 6.9, 7.2-beta\n" in out
    assert '      fit: enum ("max", "crop", "scale"), default "max" -- How the image fits the box\n' in out
    assert "      width: integer, default null\n" in out
    assert "convert jpg -> png (vips)  credits 1\n" in out
    assert out.endswith("2 conversion types\n")


def test_show_json(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = cli.main(
        [
            "catalog",
            "show",
            "--catalog",
            str(data_dir / "listing.json"),
            "--engine",
            "qpdf",
            "--format",
            "json",
        ]
    )
    payload = json.loads(capsys.readouterr().out)
    assert code == 0
    assert payload["query"] == {"engine": "qpdf"}
    assert [m["operation"] for m in payload["matches"]] == ["optimize"]
    assert payload["matches"][0]["options"][0]["possible_values"] == ["web", "print", "archive", "mrc", "max"]


def test_show_nothing_matches_suggests_and_exits_1(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = cli.main(
        [
            "catalog",
            "show",
            "--catalog",
            str(data_dir / "listing.json"),
            "--operation",
            "convert",
            "--input-format",
            "jpg",
            "--output-format",
            "wepb",
        ]
    )
    out = capsys.readouterr().out
    assert code == 1
    assert out == (
        "no conversion type matches operation=convert input_format=jpg output_format=wepb\n"
        "  convert jpg -> nearest supported outputs: webp, pdf, png\n"
    )


def test_show_an_unknown_operation(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = cli.main(
        ["catalog", "show", "--catalog", str(data_dir / "listing.json"), "--operation", "thumbnial"]
    )
    assert code == 1
    assert "no operation 'thumbnial'; did you mean 'thumbnail'?" in capsys.readouterr().out


def test_show_many_matches_lists_without_options(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["catalog", "show", "--catalog", str(data_dir / "listing.json")]) == 0
    out = capsys.readouterr().out
    assert "options:" not in out
    assert out.endswith(
        "20 conversion types; narrow with --operation/--input-format/--output-format/--engine"
        " to see options\n"
    )


def test_show_without_the_default_snapshot_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(snapshot, "default_catalog_path", lambda: tmp_path / "local.json")
    assert cli.main(["catalog", "show"]) == 2
    err = capsys.readouterr().err
    assert "mcv: error: the default catalog snapshot" in err
    assert "--catalog PATH" in err


def test_show_a_bad_snapshot_is_one_line_exit_2(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["catalog", "show", "--catalog", str(data_dir / "bad-option-type.json")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "unknown option type 'color'" in err


def test_diff_two_snapshots(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = cli.main(["catalog", "diff", str(data_dir / "listing.json"), str(data_dir / "listing-new.json")])
    out = capsys.readouterr().out
    assert code == 0
    assert out.startswith("+ convert jpg -> avif (imagemagick)\n- convert heic -> jpg (libheif)\n")
    assert out.endswith("1 added, 1 removed, 2 changed\n")


def test_diff_json(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    old, new = str(data_dir / "listing.json"), str(data_dir / "listing-new.json")
    assert cli.main(["catalog", "diff", old, new, "--format", "json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert (payload["old"], payload["new"]) == (old, new)
    assert len(payload["changed"]) == 2
