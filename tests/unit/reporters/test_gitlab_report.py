"""The GitLab Code Quality report: what a merge request widget reads (issue 26)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcv_pipelines.cli.main import main
from mcv_pipelines.diagnostics import Diagnostic, Location, Severity
from mcv_pipelines.reporters import render_report

BROKEN = """\
version: 1
name: broken
tasks:
  original: {operation: import/url, url: "https://example.com/a.jpg"}
  web: {operation: convert, input: orignal, output_format: webp}
  publish: {operation: export/url, input: web}
"""


def test_every_problem_is_an_issue_with_path_line_severity_and_fingerprint(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pipeline = tmp_path / "broken.yaml"
    pipeline.write_text(BROKEN)
    assert main(["validate", "--format", "gitlab", str(pipeline)]) == 2
    issues = json.loads(capsys.readouterr().out)
    dangling = [issue for issue in issues if issue["check_name"] == "graph-dangling-input"]
    assert len(dangling) == 1
    assert dangling[0]["location"] == {"path": str(pipeline), "lines": {"begin": 5}}
    assert dangling[0]["severity"] == "major"
    assert "orignal" in dangling[0]["description"]
    assert len({issue["fingerprint"] for issue in issues}) == len(issues)


def test_the_fingerprint_survives_lines_added_above(tmp_path: Path) -> None:
    def issue(line: int) -> dict[str, object]:
        found = Diagnostic("graph-cycle", Severity.WARNING, "a cycle", Location("p.yaml", line, 3))
        listed: list[dict[str, object]] = json.loads(render_report("gitlab", [found], ["p.yaml"]))
        return listed[0]

    assert issue(4)["fingerprint"] == issue(9)["fingerprint"]
    assert issue(4)["severity"] == "minor"


def test_a_valid_pipeline_gives_an_empty_report(capsys: pytest.CaptureFixture[str]) -> None:
    root = Path(__file__).resolve().parents[3]
    assert main(["validate", "--format", "gitlab", str(root / "pipelines" / "product-images.yaml")]) == 0
    assert json.loads(capsys.readouterr().out) == []
