"""Reports: JSONL, CSV and JUnit parsed back; secrets masked; files replaced whole."""

from __future__ import annotations

import csv
import json
import uuid
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from mcv_pipelines.batch.journal import Journal, NewRow
from mcv_pipelines.batch.meta import BatchMeta
from mcv_pipelines.batch.report import ReportRow, check_report_path, open_report, write_report
from mcv_pipelines.batch.states import RowError
from mcv_pipelines.errors import UsageError
from mcv_pipelines.redact import register_secret

SECRET = f"tok-{uuid.uuid4().hex}"

ROWS = [
    ReportRow("k1", 1, "finished", {"photo": "a.jpg", "width": 320}, "job-1", ["out/a.webp", "out/a.pdf"], 3),
    ReportRow("k2", 2, "failed", {"photo": "b <&>.jpg", "width": 640}, "job-2", [], None,
              RowError("TASK_FAILED", f'convert: bad "input" \x01 with {SECRET}')),
    ReportRow("k3", 3, "submitted", {"photo": "c.jpg", "token": SECRET}, "job-3"),
]


@pytest.fixture(autouse=True)
def _secret() -> None:
    register_secret(SECRET)


def test_jsonl_report(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    write_report(path, ROWS)
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert lines[0] == {
        "key": "k1", "index": 1, "status": "finished", "params": {"photo": "a.jpg", "width": 320},
        "job_id": "job-1", "outputs": ["out/a.webp", "out/a.pdf"], "credits": 3, "error": None,
    }
    assert lines[1]["error"] == {"code": "TASK_FAILED", "message": 'convert: bad "input" \x01 with ***'}
    assert lines[2]["params"] == {"photo": "c.jpg", "token": "***"}
    assert SECRET not in path.read_text()


def test_csv_report_with_a_column_per_param(tmp_path: Path) -> None:
    path = tmp_path / "r.csv"
    write_report(path, ROWS, param_names=["photo", "width"])
    with path.open(newline="", encoding="utf-8") as stream:
        rows = list(csv.DictReader(stream))
    assert list(rows[0]) == ["key", "index", "status", "job_id", "credits", "outputs", "error_code",
                             "error_message", "param.photo", "param.width"]
    assert rows[0]["outputs"] == '["out/a.webp", "out/a.pdf"]'
    assert rows[0]["credits"] == "3"
    assert rows[1]["error_code"] == "TASK_FAILED"
    assert rows[1]["param.photo"] == "b <&>.jpg"
    assert rows[2]["status"] == "submitted"
    assert rows[2]["param.width"] == ""
    assert rows[2]["error_code"] == ""
    assert SECRET not in path.read_text()


def test_csv_report_without_param_names_has_a_json_params_column(tmp_path: Path) -> None:
    path = tmp_path / "r.csv"
    write_report(path, ROWS)
    with path.open(newline="", encoding="utf-8") as stream:
        rows = list(csv.DictReader(stream))
    assert json.loads(rows[2]["params"]) == {"photo": "c.jpg", "token": "***"}


def test_junit_report_counts_and_failures(tmp_path: Path) -> None:
    path = tmp_path / "r.xml"
    write_report(path, ROWS, name="thumbnails")
    suite = ET.parse(path).getroot().find("testsuite")  # noqa: S314 (a file this test wrote)
    assert suite is not None
    assert {k: suite.get(k) for k in ("name", "tests", "failures", "errors", "skipped")} == {
        "name": "thumbnails", "tests": "3", "failures": "1", "errors": "0", "skipped": "1"}
    cases = suite.findall("testcase")
    assert [c.get("name") for c in cases] == ["row 1 (k1)", "row 2 (k2)", "row 3 (k3)"]
    assert cases[0].find("failure") is None
    assert cases[0].find("skipped") is None
    assert "output: out/a.webp" in (cases[0].findtext("system-out") or "")
    failure = cases[1].find("failure")
    assert failure is not None
    assert failure.get("type") == "TASK_FAILED"
    assert failure.get("message") == 'convert: bad "input" \ufffd with ***'
    skipped = cases[2].find("skipped")
    assert skipped is not None
    assert skipped.get("message") == "not finished: submitted"
    assert SECRET not in path.read_text()


def test_report_from_the_journal(tmp_path: Path) -> None:
    with Journal.open(tmp_path / "j.sqlite", BatchMeta("p", "p", "m", "m")) as journal:
        journal.add_rows([NewRow("a", 1, {"x": SECRET}), NewRow("b", 2, {"x": "2"})])
        journal.mark_submitting("a", "t")
        journal.mark_submitted("a", "job-a")
        journal.mark_finished("a", ["out/a.png"], credits=1)
        journal.mark_failed("b", "INVALID", "row 2: width must be an integer")
        writer = write_report(tmp_path / "r.jsonl", journal.rows())
    assert (writer.rows, writer.failed) == (2, 1)
    lines = [json.loads(line) for line in (tmp_path / "r.jsonl").read_text().splitlines()]
    assert [(r["key"], r["status"], r["params"]["x"]) for r in lines] == [("a", "finished", "***"),
                                                                           ("b", "failed", "2")]


def test_a_failed_write_leaves_the_previous_report(tmp_path: Path) -> None:
    path = tmp_path / "r.xml"
    write_report(path, ROWS[:1])
    before = path.read_text()

    def broken() -> object:
        yield ROWS[1]
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        write_report(path, broken())  # type: ignore[arg-type]  # rows that raise, on purpose
    assert path.read_text() == before
    assert [p.name for p in tmp_path.iterdir()] == ["r.xml"]


def test_rows_are_written_as_they_come(tmp_path: Path) -> None:
    with open_report(tmp_path / "r.jsonl") as report:
        report.write(ROWS[0])
        report.write(ROWS[1])
        assert report.rows == 2
    assert len((tmp_path / "r.jsonl").read_text().splitlines()) == 2


@pytest.mark.parametrize("name", ["r.txt", "r", "r.json"])
def test_unknown_report_extension_is_a_usage_error(tmp_path: Path, name: str) -> None:
    with pytest.raises(UsageError, match=r"unknown report format .*ending in \.jsonl, \.csv, \.xml"):
        check_report_path(tmp_path / name)
    assert check_report_path("x/R.XML").extension == ".xml"
