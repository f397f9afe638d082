"""`mcv batch` end to end against a LocalService over loopback: complete runs, faults, invalid rows,
--skip-invalid, --retry-failed, shards, reports."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from batch_helpers import (
    REMOTE_KEY,
    LoseCreateAnswers,
    assert_images,
    jobs_by_row,
    make_images,
    read_jsonl,
    service_jobs,
    submissions_by_output,
    write_pipeline,
)

from mcv_pipelines.api.client import ApiClient
from mcv_pipelines.api.settings import Settings
from mcv_pipelines.cli import connection
from mcv_pipelines.cli.main import main
from mcv_pipelines.service.server import LocalService


def batch(*argv: str) -> int:
    return main(["batch", "webp.yaml", "--progress", "none", *argv])


def test_200_rows_complete_with_one_job_each(isolated: Path, remote: LocalService) -> None:
    write_pipeline(isolated)
    make_images(isolated, 200)
    assert batch("--manifest", "rows.csv", "--concurrency", "6", "--report", "report.jsonl",
                 "--rows-per-job", "1") == 0
    assert_images(isolated / "out", 200)
    rows = read_jsonl(isolated / "report.jsonl")
    assert len(rows) == 200
    assert {r["status"] for r in rows} == {"finished"}
    assert all(r["job_id"] and r["outputs"] for r in rows)
    per_row = jobs_by_row(remote.data_dir)
    assert len(per_row) == 200
    assert set(per_row.values()) == {1}
    # A second run of the same command finds everything done and sends nothing.
    assert batch("--manifest", "rows.csv", "--report", "report.jsonl") == 0
    assert len(service_jobs(remote.data_dir)) == 200


def test_200_rows_packed_by_default_into_few_jobs_each_row_once(isolated: Path, remote: LocalService) -> None:
    write_pipeline(isolated)
    make_images(isolated, 200)
    assert batch("--manifest", "rows.csv", "--concurrency", "5", "--report", "report.jsonl") == 0
    assert_images(isolated / "out", 200)
    rows = read_jsonl(isolated / "report.jsonl")
    assert [r["status"] for r in rows] == ["finished"] * 200
    jobs = service_jobs(remote.data_dir)
    # 200 rows over 5 jobs at once: 20 rows a job, 10 jobs, each tagged as a pack.
    assert len(jobs) == 10, len(jobs)
    assert all(tag.endswith("-20rows") and status == "finished" for _, tag, status in jobs), jobs
    assert {r["job_id"] for r in rows} == {job_id for job_id, _, _ in jobs}
    submitted = submissions_by_output(remote.data_dir)
    assert len(submitted) == 200
    assert set(submitted.values()) == {1}
    # The same command again finds every row done and sends nothing.
    assert batch("--manifest", "rows.csv", "--report", "report.jsonl") == 0
    assert len(service_jobs(remote.data_dir)) == 10


@pytest.mark.parametrize("remote", ["429=0.1,503=0.1,drop=0.05,drop_after=0.05,seed=11"], indirect=True)
@pytest.mark.parametrize("per_job", ["1", "4"])
def test_faults_every_row_ends_with_exactly_one_job(isolated: Path, remote: LocalService,
                                                   per_job: str) -> None:
    write_pipeline(isolated)
    make_images(isolated, 60)
    command = ("--manifest", "rows.csv", "--concurrency", "6", "--report", "report.jsonl",
               "--rows-per-job", per_job)
    code = batch(*command)
    # Service trouble (3) leaves rows in flight in the journal; running the same command resumes them.
    for _ in range(3):
        if code != 3:
            break
        code = batch(*command)
    rows = read_jsonl(isolated / "report.jsonl")
    assert len(rows) == 60
    for row in rows:
        assert row["status"] in ("finished", "failed"), row
        if row["status"] == "failed":
            assert row["error"]["code"], row
            assert row["error"]["message"], row
    finished = [r for r in rows if r["status"] == "finished"]
    assert code == (0 if len(finished) == 60 else 1)
    assert_images(isolated / "out", 0)
    for row in finished:
        assert Path(row["outputs"][0]).stat().st_size > 0
    submitted = submissions_by_output(remote.data_dir)
    assert set(submitted.values()) == {1}, submitted
    assert len(submitted) >= len(finished)
    if per_job == "1":
        per_row = jobs_by_row(remote.data_dir)
        assert set(per_row.values()) == {1}, per_row


@pytest.mark.parametrize(("per_job", "lost"), [("1", 4), ("3", 1)])
def test_lost_creation_answers_are_reconciled_not_resent(
    isolated: Path, remote: LocalService, monkeypatch: pytest.MonkeyPatch, per_job: str, lost: int
) -> None:
    write_pipeline(isolated)
    make_images(isolated, 12)
    transport = LoseCreateAnswers(every=3)

    def client(settings: Settings) -> ApiClient:
        return ApiClient(settings, transport=transport)

    monkeypatch.setattr(connection, "CLIENT_FACTORY", client)
    assert batch("--manifest", "rows.csv", "--report", "r.jsonl", "--events", "events.jsonl",
                 "--rows-per-job", per_job) == 0
    assert transport.lost == lost
    # One reconciled event a row of each job whose answer was lost.
    rows_a_job = int(per_job)
    assert (isolated / "events.jsonl").read_text().count('"event": "reconciled"') == lost * rows_a_job
    assert_images(isolated / "out", 12)
    assert len(service_jobs(remote.data_dir)) == 12 // rows_a_job
    submitted = submissions_by_output(remote.data_dir)
    assert len(submitted) == 12
    assert set(submitted.values()) == {1}


def test_invalid_cell_exits_2_naming_row_and_column_and_submits_nothing(
    isolated: Path, remote: LocalService, capsys: pytest.CaptureFixture[str]
) -> None:
    write_pipeline(isolated)
    make_images(isolated, 5, extra={3: {"quality": "high"}})
    assert batch("--manifest", "rows.csv") == 2
    err = capsys.readouterr().err
    assert "rows.csv: row 3, column 'quality'" in err
    assert "webp.yaml:5:" in err  # the param's declaration in the pipeline
    assert "nothing was submitted" in err
    assert service_jobs(remote.data_dir) == []
    assert not (isolated / "out").exists()


def test_skip_invalid_runs_the_others_and_reports_the_invalid(isolated: Path, remote: LocalService) -> None:
    write_pipeline(isolated)
    make_images(isolated, 6, extra={2: {"image": "img/missing.png"}})
    assert batch("--manifest", "rows.csv", "--skip-invalid", "--report", "r.jsonl") == 1
    rows = {r["index"]: r for r in read_jsonl(isolated / "r.jsonl")}
    assert rows[2]["status"] == "failed"
    assert rows[2]["error"]["code"] == "invalid-row"
    assert "img/missing.png is not a file" in rows[2]["error"]["message"]
    assert rows[2]["job_id"] is None
    assert [rows[i]["status"] for i in (1, 3, 4, 5, 6)] == ["finished"] * 5
    assert len(service_jobs(remote.data_dir)) == 5


def test_retry_failed_sends_only_failed_rows_again(isolated: Path, remote: LocalService) -> None:
    write_pipeline(isolated)
    make_images(isolated, 4)
    good = (isolated / "img" / "p0002.png").read_bytes()
    (isolated / "img" / "p0002.png").write_bytes(b"not an image at all")
    args = ("--manifest", "rows.csv", "--report", "r.jsonl")
    assert batch(*args) == 1
    rows = {r["index"]: r for r in read_jsonl(isolated / "r.jsonl")}
    assert rows[3]["status"] == "failed"
    assert rows[3]["job_id"]
    assert rows[3]["error"]["message"]
    assert len(service_jobs(remote.data_dir)) == 4
    # Without --retry-failed a failed row stays failed and nothing is sent.
    assert batch(*args) == 1
    assert len(service_jobs(remote.data_dir)) == 4
    (isolated / "img" / "p0002.png").write_bytes(good)
    assert batch(*args, "--retry-failed") == 0
    assert_images(isolated / "out", 4)
    jobs = service_jobs(remote.data_dir)
    assert len(jobs) == 5  # the failed row once more, no other
    per_row = jobs_by_row(remote.data_dir)
    assert sorted(per_row.values()) == [1, 1, 1, 2]


def test_two_shards_cover_every_row_once(
    isolated: Path, remote: LocalService, capsys: pytest.CaptureFixture[str]
) -> None:
    write_pipeline(isolated)
    make_images(isolated, 30)
    assert batch("--manifest", "rows.csv", "--shard", "1/2", "--report", "s1.jsonl",
                 "--rows-per-job", "1") == 0
    capsys.readouterr()
    assert batch("--manifest", "rows.csv", "--shard", "2/2", "--report", "s2.jsonl", "--format", "json",
                 "--rows-per-job", "1") == 0
    summary = json.loads(capsys.readouterr().out)
    first = {r["index"] for r in read_jsonl(isolated / "s1.jsonl")}
    second = {r["index"] for r in read_jsonl(isolated / "s2.jsonl")}
    assert summary["finished"] == summary["total"] == len(second)
    assert summary["journal"] == "s2.2-of-2.journal.sqlite"
    assert first
    assert second
    assert not first & second
    assert first | second == set(range(1, 31))
    assert_images(isolated / "out", 30)
    assert len(service_jobs(remote.data_dir)) == 30


def test_reports_junit_and_jsonl_with_masked_secrets(isolated: Path, remote: LocalService) -> None:
    write_pipeline(isolated)
    secret = "tok-5f3e9a1b7c2d"
    make_images(isolated, 3, extra={1: {"token": secret}, 2: {"image": "img/missing.png"}})
    assert batch("--manifest", "rows.csv", "--skip-invalid", "--report", "r.xml") == 1
    assert batch("--manifest", "rows.csv", "--skip-invalid", "--report", "r.jsonl", "--journal",
                 "r.journal.sqlite") == 1
    suite = ET.parse(isolated / "r.xml").getroot()  # noqa: S314 - our own report
    cases = suite.findall(".//testcase")
    assert len(cases) == 3
    assert len(suite.findall(".//testcase/failure")) == 1
    text = (isolated / "r.xml").read_text() + (isolated / "r.jsonl").read_text()
    assert secret not in text
    assert REMOTE_KEY not in text
    rows = {r["index"]: r for r in read_jsonl(isolated / "r.jsonl")}
    assert rows[1]["params"]["token"] == "***"
    assert rows[1]["status"] == "finished"


def test_fail_fast_starts_no_row_after_a_failure(isolated: Path, remote: LocalService) -> None:
    write_pipeline(isolated)
    make_images(isolated, 6)
    (isolated / "img" / "p0000.png").write_bytes(b"broken")
    args = ("--manifest", "rows.csv", "--concurrency", "1", "--report", "r.jsonl", "--rows-per-job", "1")
    assert batch(*args, "--fail-fast") == 1
    statuses = [r["status"] for r in read_jsonl(isolated / "r.jsonl")]
    assert statuses == ["failed"] + ["pending"] * 5
    assert len(service_jobs(remote.data_dir)) == 1
    # Without --fail-fast the same command goes on with the rest; the failed row stays failed.
    assert batch(*args) == 1
    statuses = [r["status"] for r in read_jsonl(isolated / "r.jsonl")]
    assert statuses == ["failed"] + ["finished"] * 5
    assert len(service_jobs(remote.data_dir)) == 6
