"""`mcv batch` packing several rows into one job, against a LocalService over loopback: each row ends
alone (its own failure, its own files, report line and events), a refused job falls back to rows one
by one, and failed rows are sent again without their job's other rows."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import httpx
import pytest
from batch_helpers import (
    BLOBS_PIPELINE,
    assert_images,
    make_images,
    read_jsonl,
    service_jobs,
    submissions_by_output,
    write_pipeline,
)
from PIL import Image

from mcv_pipelines.api.client import ApiClient
from mcv_pipelines.cli import connection
from mcv_pipelines.cli.main import main
from mcv_pipelines.service.server import LocalService


def batch(*argv: str) -> int:
    return main(["batch", "webp.yaml", "--progress", "none", *argv])


def test_one_corrupt_file_among_20_rows_fails_that_row_alone(isolated: Path, remote: LocalService,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    write_pipeline(isolated)
    make_images(isolated, 20)
    (isolated / "img" / "p0013.png").write_bytes(b"this is no picture")
    args = ("--manifest", "rows.csv", "--rows-per-job", "10", "--report", "r.jsonl", "--events", "e.jsonl")
    assert batch(*args) == 1
    assert "1 row(s) failed" in capsys.readouterr().err
    rows = read_jsonl(isolated / "r.jsonl")
    failed = [r for r in rows if r["status"] == "failed"]
    assert [r["index"] for r in failed] == [14]
    assert failed[0]["params"]["image"] == "img/p0013.png"
    assert failed[0]["error"]["code"] == "INVALID_INPUT_FILE"
    assert "task convert failed" in failed[0]["error"]["message"]
    assert "p0013.png" in failed[0]["error"]["message"]
    # The 19 others: whole pictures, though 9 of them shared the failed row's job.
    outputs = sorted((isolated / "out").iterdir())
    assert len(outputs) == 19
    for path in outputs:
        with Image.open(path) as image:
            image.load()
            assert (image.format, image.size) == ("WEBP", (6, 6))
    jobs = {job_id: status for job_id, _, status in service_jobs(remote.data_dir)}
    assert sorted(jobs.values()) == ["error", "finished"]
    assert jobs[failed[0]["job_id"]] == "error"
    shared = [r for r in rows if r["job_id"] == failed[0]["job_id"] and r["status"] == "finished"]
    assert len(shared) == 9
    # Events stay per row: each row's submission and end, its tasks under their own names.
    events = read_jsonl(isolated / "e.jsonl")
    assert sorted(e["row"] for e in events if e["event"] == "submitted") == list(range(1, 21))
    assert sorted(e["row"] for e in events if e["event"] == "row-finished") == [
        i for i in range(1, 21) if i != 14]
    failed_tasks = [e for e in events if e["event"] == "task" and e.get("status") == "error"]
    assert [(e["row"], e["task"]) for e in failed_tasks] == [(14, "convert"), (14, "publish")]

    # --retry-failed sends that row again, in a job of its own, and none of the others.
    make_images(isolated, 20)
    assert batch(*args, "--retry-failed") == 0
    assert_images(isolated / "out", 20)
    assert len(service_jobs(remote.data_dir)) == 3
    submitted = submissions_by_output(remote.data_dir)
    assert submitted["p0013.webp"] == 2
    assert sum(submitted.values()) == 21


class RefuseQuality42(httpx.AsyncBaseTransport):
    """The real transport, but a job creation with a convert task of quality 42 is answered 422 as the
    service answers a task it finds invalid: a refusal of one row's task that offline validation
    cannot foresee (a hosted service's own limit, say)."""

    def __init__(self) -> None:
        self.inner = httpx.AsyncHTTPTransport()
        self.refused: list[int] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.method == "POST" and request.url.path.endswith("/v2/jobs"):
            tasks = json.loads(request.content).get("tasks", {})
            bad = [name for name, task in tasks.items() if task.get("quality") == 42]
            if bad:
                self.refused.append(len(tasks))
                body = {"code": "INVALID_DATA", "message": "The given data was invalid.",
                        "errors": {f"tasks.{bad[0]}.quality": ["The quality is not allowed."]}}
                return httpx.Response(422, json=body, request=request)
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


def test_a_refused_job_falls_back_to_its_rows_one_by_one(isolated: Path, remote: LocalService,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    write_pipeline(isolated)
    make_images(isolated, 8)  # row 3 has quality 42
    transport = RefuseQuality42()
    monkeypatch.setattr(connection, "CLIENT_FACTORY", lambda s: ApiClient(s, transport=transport))
    args = ("--manifest", "rows.csv", "--rows-per-job", "4", "--report", "r.jsonl", "--events", "e.jsonl")
    assert batch(*args) == 3  # the refusal is service trouble for row 3, as with --rows-per-job 1
    # The job of rows 1-4 was refused (12 tasks), then row 3 alone (3 tasks).
    assert transport.refused == [12, 3]
    rows = read_jsonl(isolated / "r.jsonl")
    assert [r["status"] for r in rows] == ["finished"] * 2 + ["submitting"] + ["finished"] * 5
    assert sorted(p.name for p in (isolated / "out").iterdir()) == [
        f"p{i:04d}.webp" for i in range(8) if i != 2]
    jobs = service_jobs(remote.data_dir)
    # Rows 1, 2 and 4 went one job each after the refusal; rows 5-8 as one job.
    assert len(jobs) == 4
    assert len({r["job_id"] for r in rows[4:]}) == 1
    assert set(submissions_by_output(remote.data_dir).values()) == {1}
    notices = [e for e in read_jsonl(isolated / "e.jsonl") if e["event"] == "notice"]
    assert any("refused the job of 4 rows" in e["message"] for e in notices)



def test_small_files_ride_in_the_jobs_creation_and_large_ones_are_uploaded(
    isolated: Path, remote: LocalService
) -> None:
    (isolated / "blobs.yaml").write_text(BLOBS_PIPELINE)
    (isolated / "in").mkdir()
    contents = {"a.bin": os.urandom(100), "big.bin": os.urandom(300 * 1024), "c.bin": os.urandom(2000)}
    for name, data in contents.items():
        (isolated / "in" / name).write_bytes(data)
    (isolated / "rows.csv").write_text("file\n" + "".join(f"in/{name}\n" for name in contents))
    assert main(["batch", "blobs.yaml", "--manifest", "rows.csv", "--rows-per-job", "3", "--progress", "none",
                 "--events", "e.jsonl"]) == 0
    for name, data in contents.items():
        assert (isolated / "out" / name).read_bytes() == data
    db = sqlite3.connect(f"file:{remote.data_dir / 'service.sqlite3'}?mode=ro", uri=True)
    try:
        operations = dict(db.execute("SELECT json_extract(doc, '$.name'), operation FROM tasks "
                                     "WHERE operation LIKE 'import/%'").fetchall())
    finally:
        db.close()
    # One job; the 300 KiB file went to an upload form, the two small ones inside the creation.
    assert operations == {"r1-source": "import/base64", "r2-source": "import/upload",
                          "r3-source": "import/base64"}
    uploaded = [e for e in read_jsonl(isolated / "e.jsonl") if e["event"] == "uploaded"]
    assert [(e["row"], e["task"], e["size"]) for e in uploaded] == [(2, "source", 300 * 1024)]
