from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from mcv_pipelines.diagnostics import Diagnostic, Location, Severity
from mcv_pipelines.redact import register_secret
from mcv_pipelines.reporters import REPORTER_NAMES, REPORTERS, render_report


@pytest.fixture
def diagnostics(tmp_path: Path) -> tuple[list[Diagnostic], list[str]]:
    path = tmp_path / "p.yaml"
    path.write_text("version: 1\ntasks:\n  web: {operation: convert, input: orignal}\n")
    file = str(path)
    return [
        Diagnostic(
            "graph-dangling-input",
            Severity.ERROR,
            "task 'web' reads from 'orignal', which is not a task",
            Location(file, 3, 36),
            hint="did you mean 'original'?",
        ),
        Diagnostic("graph-no-export", Severity.WARNING, "no export, 100%: a,b", Location(file, 2, 1)),
    ], [file, str(tmp_path / "q.yaml")]


def test_table_holds_every_format() -> None:
    assert set(REPORTERS) == set(REPORTER_NAMES) == {"text", "json", "github", "junit", "sarif", "gitlab"}


def test_text_shows_location_source_line_caret_and_hint(
    diagnostics: tuple[list[Diagnostic], list[str]],
) -> None:
    found, files = diagnostics
    out = render_report("text", found, files).splitlines()
    assert (
        out[0] == f"{files[0]}:3:36: error[graph-dangling-input]: task 'web' reads from 'orignal', "
        "which is not a task"
    )
    assert out[2] == " 3 |   web: {operation: convert, input: orignal}"
    assert out[3] == "   |" + " " * 36 + "^"
    assert out[3].index("^") == out[2].index("orignal")
    assert out[4] == "  = hint: did you mean 'original'?"
    assert out[-1] == "1 error(s), 1 warning(s) in 2 files"
    assert render_report("text", [], files) == "2 files valid\n"


def test_json_has_exactly_the_documented_shape(diagnostics: tuple[list[Diagnostic], list[str]]) -> None:
    found, files = diagnostics
    data = json.loads(render_report("json", found, files))
    assert set(data) == {"diagnostics", "summary"}
    assert data["diagnostics"][0] == {
        "rule": "graph-dangling-input",
        "severity": "error",
        "message": "task 'web' reads from 'orignal', which is not a task",
        "file": files[0],
        "line": 3,
        "column": 36,
        "hint": "did you mean 'original'?",
    }
    assert data["summary"] == {"files": 2, "invalid_files": 1, "errors": 1, "warnings": 1, "valid": False}


def test_github_annotations_escape_their_fields(diagnostics: tuple[list[Diagnostic], list[str]]) -> None:
    found, files = diagnostics
    lines = render_report("github", found, files).splitlines()
    assert lines[0].startswith(
        f"::error file={files[0]},line=3,col=36,title=graph-dangling-input::task 'web'"
    )
    assert lines[1] == f"::warning file={files[0]},line=2,col=1,title=graph-no-export::no export, 100%25: a,b"


def test_junit_has_a_case_per_file_and_a_failure_per_error(
    diagnostics: tuple[list[Diagnostic], list[str]],
) -> None:
    found, files = diagnostics
    suite = ET.fromstring(render_report("junit", found, files))  # noqa: S314 - our own output
    assert suite.get("tests") == "2"
    assert suite.get("failures") == "1"
    cases = suite.findall("testcase")
    assert [c.get("name") for c in cases] == files
    [failure] = cases[0].findall("failure")
    assert failure.get("type") == "graph-dangling-input"
    assert cases[1].findall("failure") == []


def test_sarif_results_carry_rule_level_and_region(diagnostics: tuple[list[Diagnostic], list[str]]) -> None:
    found, files = diagnostics
    log = json.loads(render_report("sarif", found, files))
    assert log["version"] == "2.1.0"
    [run] = log["runs"]
    assert [r["id"] for r in run["tool"]["driver"]["rules"]] == ["graph-dangling-input", "graph-no-export"]
    first = run["results"][0]
    assert (first["ruleId"], first["level"]) == ("graph-dangling-input", "error")
    assert first["locations"][0]["physicalLocation"]["region"] == {"startLine": 3, "startColumn": 36}
    assert run["results"][1]["level"] == "warning"


@pytest.mark.parametrize("fmt", REPORTER_NAMES)
def test_every_format_masks_secrets(fmt: str) -> None:
    register_secret("hunter2-reporter-secret")
    found = [
        Diagnostic(
            "x", Severity.ERROR, "bad key hunter2-reporter-secret", None, hint="not hunter2-reporter-secret"
        )
    ]
    out = render_report(fmt, found, ["a.yaml"])
    assert "hunter2-reporter-secret" not in out
    assert "***" in out
