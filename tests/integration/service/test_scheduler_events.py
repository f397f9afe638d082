"""What the scheduler's per-job cost work must not change, seen from a client: timeouts still end a task
with TIMEOUT (one deadline thread, not a timer thread per task), a waiter wakes to the finished job
(never a stale one), and a task waiting on another starts when that one ends (no janitor round needed).
"""

from __future__ import annotations

import copy
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from service_helpers import TextEngine, task_named, wait_job

from mcv_pipelines.service.server import LocalService
from mcv_pipelines.service.state.changes import Change
from mcv_pipelines.service.state.store import JobCounts
from mcv_pipelines.service.state.tasks import ENDED
from mcv_pipelines.service.work.leases import job_status

RAW = {"operation": "import/raw", "file": "some text", "filename": "a.txt"}


@pytest.fixture
def quiet_service(tmp_path: Path) -> Iterator[LocalService]:
    """No janitor round during a test: only the scheduler's own events start tasks."""
    with LocalService(
        data_dir=tmp_path / "data", engines=[TextEngine()], settings={"janitor_interval": 3600}
    ) as svc:
        yield svc


@pytest.fixture
def http(quiet_service: LocalService) -> Iterator[httpx.Client]:
    headers = {"Authorization": f"Bearer {quiet_service.api_key}"}
    with httpx.Client(base_url=quiet_service.base_url, timeout=30.0, headers=headers) as c:
        yield c


def _convert(**extra: Any) -> dict[str, Any]:
    return {"operation": "convert", "input": "in", "output_format": "md", **extra}


def test_a_timeout_ends_only_its_own_task(http: httpx.Client) -> None:
    tasks = {"in": RAW, "slow": _convert(sleep=5, timeout=0.5), "quick": _convert(sleep=0.2, timeout=60)}
    created = http.post("/v2/jobs", json={"tasks": tasks})
    assert created.status_code == 201, created.text
    done = wait_job(http, created.json()["data"]["id"])
    slow, quick = task_named(done, "slow"), task_named(done, "quick")
    assert (slow["status"], slow["code"]) == ("error", "TIMEOUT")
    assert "0.5 seconds" in slow["message"]
    assert quick["status"] == "finished"
    assert done["status"] == "error"


def test_many_tasks_with_timeouts_start_no_thread_each(
    http: httpx.Client, quiet_service: LocalService
) -> None:
    tasks: dict[str, Any] = {"in": RAW}
    tasks.update({f"c{n}": _convert(sleep=1, timeout=600) for n in range(24)})
    created = http.post("/v2/jobs", json={"tasks": tasks})
    assert created.status_code == 201, created.text
    job_id = created.json()["data"]["id"]
    for _ in range(500):  # every convert is handed to the pool (processing) once "in" has ended
        job = http.get(f"/v2/jobs/{job_id}").json()["data"]
        if sum(t["status"] == "processing" for t in job["tasks"]) == 24:
            break
        time.sleep(0.01)
    else:
        pytest.fail(f"not all converts started: {[t['status'] for t in job['tasks']]}")
    threads = threading.enumerate()
    assert [t for t in threads if isinstance(t, threading.Timer)] == []
    assert [t.name for t in threads].count("mcv-deadlines") == 1
    assert http.delete(f"/v2/jobs/{job_id}").status_code == 204  # stops them; no need to wait


def test_a_waiter_wakes_to_the_ended_job_never_a_stale_one(
    http: httpx.Client, quiet_service: LocalService
) -> None:
    store = quiet_service.ctx.store
    stale: list[str] = []

    def check(change: Change) -> None:  # runs in the publisher's thread, as a waiter would read
        if change.kind != "task" or change.status not in ENDED or not change.job_id:
            return
        job = store.get_job(change.job_id)
        assert job is not None
        expected = copy.deepcopy(job)
        job_status(expected, JobCounts.of(store.job_tasks(change.job_id)))
        if expected["status"] != job["status"]:
            stale.append(
                f"task {change.id} ended: the job says {job['status']}, its tasks {expected['status']}"
            )

    quiet_service.ctx.changes.listen(check)
    for n in range(12):
        failing = n % 4 == 3
        tasks = {"in": RAW, "md": _convert(**({"fail": "BROKEN"} if failing else {})), "back": _convert()}
        tasks["back"].update(input="md", output_format="txt")
        answer = http.post("/sync/v2/jobs", json={"tasks": tasks})
        assert answer.status_code == 201, answer.text
        job = answer.json()["data"]
        assert job["status"] == ("error" if failing else "finished")
        assert all(t["status"] in ENDED for t in job["tasks"]), job["tasks"]
        if failing:
            assert task_named(job, "back")["code"] == "INPUT_TASK_FAILED"
    assert stale == []


def test_a_standalone_task_starts_when_the_job_task_it_waits_on_ends(http: httpx.Client) -> None:
    created = http.post("/v2/jobs", json={"tasks": {"in": RAW, "md": _convert(sleep=0.5)}}).json()["data"]
    md_id = task_named(created, "md")["id"]
    follow = http.post("/v2/convert", json={"input": md_id, "output_format": "txt"})
    assert follow.status_code == 201, follow.text
    assert follow.json()["data"]["status"] == "waiting"
    done = http.get(f"/sync/v2/tasks/{follow.json()['data']['id']}")
    assert done.status_code == 200, done.text
    assert done.json()["data"]["status"] == "finished"


def test_a_small_export_downloads_whole_in_part_and_as_head(http: httpx.Client) -> None:
    tasks = {"in": RAW, "md": _convert(), "out": {"operation": "export/url", "input": "md"}}
    job = http.post("/sync/v2/jobs", json={"tasks": tasks}).json()["data"]
    url = task_named(job, "out")["result"]["files"][0]["url"]
    whole = httpx.get(url)
    assert whole.status_code == 200
    assert whole.content == b"some text"
    assert whole.headers["content-length"] == "9"
    assert whole.headers["accept-ranges"] == "bytes"
    assert whole.headers["content-disposition"] == 'attachment; filename="a.md"'
    assert whole.headers["etag"].startswith('"')
    assert whole.headers["last-modified"].endswith(" GMT")
    part = httpx.get(url, headers={"Range": "bytes=5-"})
    assert (part.status_code, part.content) == (206, b"text")
    head = httpx.head(url)
    assert (head.status_code, head.content, head.headers["etag"]) == (200, b"", whole.headers["etag"])


def test_a_task_waiting_on_a_deleted_task_fails_at_once(http: httpx.Client) -> None:
    created = http.post("/v2/jobs", json={"tasks": {"in": RAW, "md": _convert(sleep=5)}}).json()["data"]
    md_id = task_named(created, "md")["id"]
    follow = http.post("/v2/convert", json={"input": md_id, "output_format": "txt"}).json()["data"]
    assert http.delete(f"/v2/tasks/{md_id}").status_code == 204
    done = http.get(f"/sync/v2/tasks/{follow['id']}").json()["data"]  # no janitor round in this service
    assert (done["status"], done["code"]) == ("error", "INPUT_TASK_FAILED")
