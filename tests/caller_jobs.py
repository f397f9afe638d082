"""What the caller-storage tests share: run a job on a local service and read its tasks back by name,
payloads included (the S3, SFTP, Azure, GCS and Swift tests each did this with a copy of its own; the
team test of caller storage too, on its API process). Imported by name (tests/ is on sys.path)."""

from __future__ import annotations

import time
from typing import Any, Protocol

import httpx

__all__ = ["Api", "error_of", "run_job"]


class Api(Protocol):
    """Where a job is sent: a LocalService, or a served API process."""

    @property
    def base_url(self) -> str: ...

    @property
    def api_key(self) -> str: ...


def run_job(svc: Api, tasks: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The job's tasks by name once it ended, payloads included."""
    with httpx.Client(
        base_url=svc.base_url,
        timeout=60.0,
        headers={"Authorization": f"Bearer {svc.api_key}"},
        trust_env=False,  # a test sets proxy variables for the service, not for itself
    ) as client:
        created = client.post("/v2/jobs", json={"tasks": tasks})
        assert created.status_code == 201, created.text
        job_id = created.json()["data"]["id"]
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            job = client.get(f"/v2/jobs/{job_id}").json()["data"]
            if job["status"] in ("finished", "error"):
                break
            time.sleep(0.1)
        shown = [client.get(f"/v2/tasks/{t['id']}", params={"include": "payload"}) for t in job["tasks"]]
        return {task["name"]: task for task in (answer.json()["data"] for answer in shown)}


def error_of(svc: Api, task: dict[str, Any]) -> dict[str, Any]:
    """The one task ``task`` as it ended, which must be in error."""
    ended = run_job(svc, {"t": task})["t"]
    assert ended["status"] == "error", ended
    return ended
