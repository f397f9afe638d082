"""The longest a sync request waits (issue 29): a job that waits on an upload that never comes used to
hold the request until the client gave up. At ``sync_max_wait`` (2 s here) the service answers
409 SYNC_WAIT_TIMEOUT naming the job or task, with it as it is now; mcv's own client asks again."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from mcv_pipelines.api.client import ApiClient
from mcv_pipelines.api.retry import RetryPolicy
from mcv_pipelines.api.settings import Settings
from mcv_pipelines.service.server import LocalService

UPLOAD_JOB = {"tasks": {"up": {"operation": "import/upload"}}}


@pytest.fixture
def client(contract_service: LocalService) -> Iterator[httpx.Client]:
    headers = {"Authorization": f"Bearer {contract_service.api_key}"}
    with httpx.Client(base_url=contract_service.base_url, headers=headers, timeout=60) as c:
        yield c


def _timed_out(answer: httpx.Response, kind: str, item_id: str) -> dict[str, Any]:
    assert answer.status_code == 409, answer.text
    body: dict[str, Any] = answer.json()
    assert body["code"] == "SYNC_WAIT_TIMEOUT"
    assert f"The {kind} {item_id} has not ended within 2 s" in body["message"]
    assert body["data"]["id"] == item_id
    return body


def test_waiting_on_a_job_whose_upload_never_comes_ends_with_409_naming_the_job(
    client: httpx.Client,
) -> None:
    job = client.post("/v2/jobs", json=UPLOAD_JOB).json()["data"]
    for path in (f"/sync/v2/jobs/{job['id']}", f"/v2/jobs/{job['id']}/wait"):
        body = _timed_out(client.get(path), "job", job["id"])
        assert "up (waiting for its upload)" in body["message"]
        assert body["data"]["status"] in ("waiting", "processing")
        # What the caller needs to go on: the upload form of the task that waits.
        assert body["data"]["tasks"][0]["result"]["form"]["url"]


def test_creating_a_job_synchronously_ends_with_409_naming_the_job_it_created(client: httpx.Client) -> None:
    body = client.post("/sync/v2/jobs", json=UPLOAD_JOB).json()
    assert body["code"] == "SYNC_WAIT_TIMEOUT"
    job_id = body["data"]["id"]
    assert f"The job {job_id} has not ended" in body["message"]
    assert client.get(f"/v2/jobs/{job_id}").json()["data"]["status"] in ("waiting", "processing")


def test_waiting_on_a_task_ends_with_409_naming_the_task(client: httpx.Client) -> None:
    task = client.post("/v2/import/upload", json={}).json()["data"]
    body = _timed_out(client.get(f"/sync/v2/tasks/{task['id']}"), "task", task["id"])
    assert body["data"]["status"] == "waiting"


def test_a_job_that_ends_in_time_is_still_answered_with_the_job(client: httpx.Client) -> None:
    raw = {"tasks": {"in": {"operation": "import/raw", "file": "x", "filename": "a.txt"}}}
    answer = client.post("/sync/v2/jobs", json=raw)
    assert answer.status_code == 201
    assert answer.json()["data"]["status"] == "finished"


class _Noticing(httpx.AsyncBaseTransport):
    """A real loopback transport that sets ``timed_out`` once the service has answered 409."""

    def __init__(self) -> None:
        self.inner = httpx.AsyncHTTPTransport()
        self.timed_out = asyncio.Event()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self.inner.handle_async_request(request)
        if response.status_code == 409:
            self.timed_out.set()
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()


def test_mcv_client_asks_again_after_a_409_until_the_job_ends(
    contract_service: LocalService, tmp_path: Path
) -> None:
    photo = tmp_path / "a.txt"
    photo.write_text("hello")
    settings = Settings(
        base_url=contract_service.base_url,
        sync_url=contract_service.sync_url,
        api_key=contract_service.api_key,
    )

    async def scenario() -> str:
        transport = _Noticing()
        async with ApiClient(settings, retry=RetryPolicy(base_delay=0.05), transport=transport) as api:
            job = await api.create_job({"up": {"operation": "import/upload"}})
            waiting = asyncio.create_task(api.wait_job(job.id, max_wait=120))
            await asyncio.wait_for(transport.timed_out.wait(), 60)  # one wait has run into the bound
            assert not waiting.done()
            await api.upload_file(job.tasks[0], photo)
            return (await waiting).status

    assert asyncio.run(scenario()) == "finished"


def test_mcv_serve_takes_its_bound_from_sync_max_wait(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "mcv_pipelines", "serve", "--port", "0"]
    command += ["--data-dir", str(tmp_path), "--sync-max-wait", "1.5"]
    refused = subprocess.run([*command[:-1], "0"], capture_output=True, text=True, check=False, timeout=120)
    assert refused.returncode == 2
    assert "--sync-max-wait: give a number of seconds above 0" in refused.stderr
    with subprocess.Popen(command, stdout=subprocess.PIPE, text=True) as child:
        assert child.stdout is not None
        lines = dict(child.stdout.readline().split(":", 1) for _ in range(4))
        base, key = lines["base URL"].strip(), lines["API key"].strip()
        try:
            with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {key}"}, timeout=60) as c:
                job = c.post("/v2/jobs", json=UPLOAD_JOB).json()["data"]
                answer = c.get(f"/sync/v2/jobs/{job['id']}")
            assert answer.status_code == 409
            assert f"The job {job['id']} has not ended within 1.5 s" in answer.json()["message"]
        finally:
            child.send_signal(signal.SIGINT)
            assert child.wait(timeout=30) == 0
