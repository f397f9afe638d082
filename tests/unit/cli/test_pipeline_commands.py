"""`mcv validate`, `mcv render`, `mcv graph` called as a user would, through main()."""

from __future__ import annotations

import json
import shutil
import textwrap
from pathlib import Path

import pytest

from mcv_pipelines.cli.main import main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SCHEMAS = str(EXAMPLES / "operations")
GOOD = EXAMPLES / "positive" / "product-images" / "pipeline.yaml"
REPO_ASSETS = Path(__file__).resolve().parents[3] / "pipelines" / "assets"

Capture = pytest.CaptureFixture[str]


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def test_validate_a_good_file_exits_0(capsys: Capture) -> None:
    assert main(["validate", str(GOOD), "--operation-schemas", SCHEMAS]) == 0
    assert capsys.readouterr().out == "1 file valid\n"


def test_validate_a_directory_finds_pipelines_and_reports_json(tmp_path: Path, capsys: Capture) -> None:
    shutil.copy(GOOD, tmp_path / "good.yaml")
    # its test cases name their fixture, which the folder holding the recipe holds too
    (tmp_path / "pipelines" / "assets").mkdir(parents=True)
    shutil.copy(REPO_ASSETS / "photo.jpg", tmp_path / "pipelines" / "assets" / "photo.jpg")
    (tmp_path / "sub").mkdir()
    shutil.copy(EXAMPLES / "negative" / "cycle" / "pipeline.yaml", tmp_path / "sub" / "bad.yml")
    _write(tmp_path / "params.yaml", "photo: a.jpg\n")  # not a pipeline: left alone
    code = main(["validate", str(tmp_path), "--format", "json", "--operation-schemas", SCHEMAS])
    report = json.loads(capsys.readouterr().out)
    assert code == 2
    assert report["summary"]["files"] == 2
    assert [(d["rule"], Path(d["file"]).name, d["line"]) for d in report["diagnostics"]] == [
        ("graph-cycle", "bad.yml", 11)
    ]


def test_a_directory_without_pipelines_is_an_error(tmp_path: Path, capsys: Capture) -> None:
    _write(tmp_path / "notes.txt", "hello\n")
    assert main(["validate", str(tmp_path)]) == 2
    assert "no pipeline (*.yaml, *.yml) found" in capsys.readouterr().out


def test_a_missing_path_is_an_error(tmp_path: Path, capsys: Capture) -> None:
    assert main(["validate", str(tmp_path / "nope.yaml")]) == 2
    assert "no such file or directory" in capsys.readouterr().out


def test_params_from_the_command_line_and_a_file(tmp_path: Path, capsys: Capture) -> None:
    params = _write(tmp_path / "values.yaml", "quality: 90\n")
    assert (
        main(
            [
                "validate",
                str(GOOD),
                "--params-file",
                str(params),
                "-p",
                "widths=100,200",
                "--operation-schemas",
                SCHEMAS,
            ]
        )
        == 0
    )
    capsys.readouterr()
    assert main(["validate", str(GOOD), "-p", "quality=high", "--operation-schemas", SCHEMAS]) == 2
    out = capsys.readouterr().out
    assert "error[param-type]: param quality (from command line): 'high' is not an integer" in out


@pytest.mark.parametrize("argv", [["-p", "novalue"], ["--params-file", "/nonexistent/x.yaml"]])
def test_bad_param_options_exit_2_without_a_traceback(argv: list[str], capsys: Capture) -> None:
    assert main(["validate", str(GOOD), *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("mcv: error: ")
    assert "Traceback" not in err


def test_render_prints_the_job_body_with_secrets_masked(
    tmp_path: Path, capsys: Capture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MCV_TEST_RENDER_KEY", "very-secret-key-123")
    path = _write(
        tmp_path / "s3.yaml",
        """\
        version: 1
        params: {photo: {type: string}}
        job: {tag: "{{ params.photo | stem }}"}
        tasks:
          in: {operation: import/upload, upload_from: "{{ params.photo }}"}
          web:
            operation: convert
            input: in
            output_format: webp
            filename: "{{ secret('MCV_TEST_RENDER_KEY') }}"
          out: {operation: export/url, input: web, download_to: out/}
        """,
    )
    # the fixture schemas know no s3 export; a convert option stands in for a credential here
    assert main(["render", str(path), "-p", "photo=dir/cat.jpg", "--operation-schemas", SCHEMAS]) == 0
    captured = capsys.readouterr()
    body = json.loads(captured.out)
    assert body["tasks"]["web"]["filename"] == "***"
    assert body["tag"] == "cat"
    assert "very-secret-key-123" not in captured.out + captured.err


def test_render_output_is_the_post_body(capsys: Capture) -> None:
    code = main(
        ["render", str(GOOD), "-p", "photo=x/cat.png", "-p", "widths=[100]", "--operation-schemas", SCHEMAS]
    )
    captured = capsys.readouterr()
    assert code == 0, captured.err
    body = json.loads(captured.out)
    assert body["tag"] == "product-cat"
    assert list(body["tasks"]) == ["original", "web-100", "sheet", "publish"]
    assert "upload_from" not in json.dumps(body)


def test_render_of_an_invalid_pipeline_exits_2(capsys: Capture) -> None:
    assert main(["render", str(EXAMPLES / "negative" / "cycle" / "pipeline.yaml")]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "error[graph-cycle]" in captured.err


@pytest.mark.parametrize(
    ("fmt", "first", "edge"),
    [
        ("mermaid", "flowchart LR", "    t0 --> t1"),
        ("dot", 'digraph "product-images" {', '    "original" -> "web-320";'),
    ],
)
def test_graph_formats(fmt: str, first: str, edge: str, capsys: Capture) -> None:
    assert main(["graph", str(GOOD), "--format", fmt]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == first
    assert edge in out


def test_graph_of_a_broken_file_exits_2(capsys: Capture) -> None:
    assert main(["graph", str(EXAMPLES / "negative" / "malformed-yaml" / "pipeline.yaml")]) == 2
    assert "error[yaml-syntax]" in capsys.readouterr().err


def test_the_hook_mode_skips_yaml_that_is_not_a_pipeline(tmp_path: Path, capsys: Capture) -> None:
    other = _write(tmp_path / "ci.yml", "jobs:\n  build: {runs-on: ubuntu}\n")
    assert main(["validate", "--skip-non-pipelines", str(other)]) == 0
    assert capsys.readouterr().out == "0 files valid\n"
    assert main(["validate", str(other)]) == 2  # named on its own, it is checked as a pipeline


@pytest.mark.parametrize(
    "case", sorted(p for p in (EXAMPLES / "negative").iterdir() if p.is_dir()), ids=lambda p: p.name
)
def test_every_negative_example_exits_2_naming_its_rule_and_line(case: Path, capsys: Capture) -> None:
    expected = json.loads((case / "expected.json").read_text())
    argv = ["validate", str(case / "pipeline.yaml"), "--operation-schemas", SCHEMAS]
    for name, value in expected.get("params", {}).items():
        argv += ["-p", f"{name}={value}"]
    assert main(argv) == 2
    out = capsys.readouterr().out
    first = expected["diagnostics"][0]
    assert f"pipeline.yaml:{first['line']}:{first['column']}: " in out
    assert f"[{first['rule']}]: " in out
    assert "Traceback" not in out
