"""A batch killed with SIGKILL at several points and run again: exactly one job per row, every output
present and whole. The batch runs as a subprocess (`python -m mcv_pipelines batch`) against a
LocalService the test started, reached as a remote service through MCV_BASE_URL and MCV_API_KEY.
API answers are slowed down (delay faults) so that rows are caught in every state."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from batch_helpers import (
    assert_images,
    jobs_by_row,
    make_images,
    read_jsonl,
    service_jobs,
    submissions_by_output,
    write_pipeline,
)

from mcv_pipelines.batch.keys import attempt_tag
from mcv_pipelines.service.server import LocalService

ROWS = 40
# Packed rows run faster: more of them, so that rows are left for the third kill.
PACKED_ROWS = 60
COMMAND = [sys.executable, "-m", "mcv_pipelines", "batch", "webp.yaml", "--manifest", "rows.csv",
           "--concurrency", "5", "--report", "report.jsonl", "--events", "events.jsonl", "--progress", "none"]
ONE_A_JOB = [*COMMAND, "--rows-per-job", "1"]


def _events(work: Path, kind: str) -> int:
    path = work / "events.jsonl"
    if not path.exists():
        return 0
    return path.read_text().count(f'"event": "{kind}"')


def _kill_when(work: Path, kind: str, count: int, command: list[str], *, after: float = 0.0) -> Counter[str]:
    """Start the batch, SIGKILL it once ``count`` more events of ``kind`` were written (then ``after``
    seconds more); returns the journal's row states at that moment."""
    count += _events(work, kind)
    process = subprocess.Popen(command, cwd=work, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        limit = time.monotonic() + 60
        while _events(work, kind) < count and process.poll() is None:
            assert time.monotonic() < limit, "the batch made no progress"
            time.sleep(0.02)
        time.sleep(after)
        assert process.poll() is None, process.stderr.read() if process.stderr else ""
        process.send_signal(signal.SIGKILL)
        process.wait(10)
    finally:
        if process.poll() is None:
            process.kill()
        if process.stderr:
            process.stderr.close()
    db = sqlite3.connect(work / "report.journal.sqlite")
    try:
        return Counter(dict(db.execute("SELECT state, count(*) FROM rows GROUP BY state").fetchall()))
    finally:
        db.close()


def _journal_jobs(work: Path) -> dict[str, str]:
    """Row key -> the job id the batch's journal recorded for it."""
    db = sqlite3.connect(f"file:{work / 'report.journal.sqlite'}?mode=ro", uri=True)
    try:
        return dict(db.execute("SELECT key, job_id FROM rows").fetchall())
    finally:
        db.close()


def _killed_three_times_then_done(work: Path, command: list[str]) -> None:
    seen: Counter[str] = Counter()
    # Right after the first job is created (others submitting), mid-way, then late.
    for kind, count, after in (("submitted", 1, 0.0), ("row-finished", 8, 0.05), ("row-finished", 12, 0.0)):
        states = _kill_when(work, kind, count, command, after=after)
        seen.update(states)
    assert seen["submitting"] > 0, seen  # kills caught rows in flight
    assert seen["submitted"] > 0, seen
    done = subprocess.run(command, cwd=work, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("remote", ["delay=0.5:0.15,seed=5"], indirect=True)
def test_packed_rows_killed_at_several_points_each_run_once(isolated: Path, remote: LocalService) -> None:
    write_pipeline(isolated)
    make_images(isolated, PACKED_ROWS)
    _killed_three_times_then_done(isolated, COMMAND)
    assert_images(isolated / "out", PACKED_ROWS)
    rows = read_jsonl(isolated / "report.jsonl")
    assert [r["status"] for r in rows] == ["finished"] * PACKED_ROWS
    submitted = submissions_by_output(remote.data_dir)
    assert len(submitted) == PACKED_ROWS
    assert set(submitted.values()) == {1}, submitted  # no row's conversion was sent twice
    service = {job_id: (tag, status) for job_id, tag, status in service_jobs(remote.data_dir)}
    assert len(service) < PACKED_ROWS / 3  # 60 rows over 5 jobs at once: 6 rows a job
    journal = _journal_jobs(isolated)
    for key, job_id in journal.items():
        tag, status = service[job_id]
        assert tag.endswith("rows"), tag
        assert status == "finished", (key, job_id, status)
    assert {row["key"]: row["job_id"] for row in rows} == journal


@pytest.mark.parametrize("remote", ["delay=0.5:0.15,seed=5"], indirect=True)
def test_killed_at_several_points_resumes_with_one_job_per_row(isolated: Path, remote: LocalService) -> None:
    write_pipeline(isolated)
    make_images(isolated, ROWS)
    _killed_three_times_then_done(isolated, ONE_A_JOB)
    done = subprocess.run(ONE_A_JOB, cwd=isolated, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert_images(isolated / "out", ROWS)
    rows = read_jsonl(isolated / "report.jsonl")
    assert [r["status"] for r in rows] == ["finished"] * ROWS
    per_row = jobs_by_row(remote.data_dir)
    assert len(per_row) == ROWS
    assert set(per_row.values()) == {1}, per_row
    # The job the journal and the report record for each row is the one job the service has for it.
    service = {job_id: (tag, status) for job_id, tag, status in service_jobs(remote.data_dir)}
    journal = _journal_jobs(isolated)
    assert len(journal) == ROWS
    for key, job_id in journal.items():
        assert job_id in service, f"row {key!r}: the journal's job {job_id} is not one of the service's"
        tag, status = service[job_id]
        row_part = attempt_tag("B", key, 0).removeprefix("mcv-B-").removesuffix("-0")  # the key's hash
        assert f"-{row_part}-" in tag, f"row {key!r}: the journal's job {job_id} is {tag}, another row's"
        assert status == "finished", (key, job_id, status)
    assert len(set(journal.values())) == ROWS  # one job per row, none shared
    assert {row["key"]: row["job_id"] for row in rows} == journal


@pytest.mark.parametrize("remote", ["delay=0.5:0.15,seed=6"], indirect=True)
def test_ctrl_c_exits_130_with_a_resume_hint_and_the_rerun_completes(
    isolated: Path, remote: LocalService
) -> None:
    write_pipeline(isolated)
    make_images(isolated, 20)
    process = subprocess.Popen(ONE_A_JOB, cwd=isolated, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               text=True)
    limit = time.monotonic() + 60
    while _events(isolated, "row-finished") < 4:
        assert process.poll() is None
        assert time.monotonic() < limit
        time.sleep(0.02)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    assert "run the same command again" in err.lower()
    assert "Traceback" not in err
    interrupted = read_jsonl(isolated / "report.jsonl")  # written on the way out
    assert len(interrupted) == 20
    assert any(r["status"] != "finished" for r in interrupted)
    done = subprocess.run(ONE_A_JOB, cwd=isolated, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert_images(isolated / "out", 20)
    assert set(jobs_by_row(remote.data_dir).values()) == {1}
    assert len(jobs_by_row(remote.data_dir)) == 20
