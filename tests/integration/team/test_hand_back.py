"""Issue 25: a task whose worker could not write its result because the store was away (longer than
--storage-retry-seconds) goes back to the queue instead of failing, and finishes once the store is
back; the outage delays it, it does not lose it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from team_helpers import wait_until

from mcv_pipelines.service.server import LocalService
from mcv_pipelines.service.state.database import DatabaseUnavailable
from mcv_pipelines.service.work import scheduler
from seaweed import SeaweedS3, need_weed

KEY = "sk-hand-back-0123456789abcdef"
AUTH = {"Authorization": f"Bearer {KEY}"}


def test_a_task_meeting_a_store_outage_is_handed_back_not_failed(
    pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    server = SeaweedS3(need_weed(), tmp_path / "s3", bucket="hand-back").start()
    try:
        for name, value in server.env.items():
            monkeypatch.setenv(name, value)
        settings = {"storage": "s3://hand-back/files", "s3_endpoint": server.endpoint, "storage_retry": 0.5}
        service = LocalService(
            data_dir=tmp_path / "data", api_key=KEY, database=pg_url, lease_seconds=2, settings=settings
        )
        with service:
            base = service.base_url

            def job_status(job_id: str) -> str:
                job: dict[str, Any] = httpx.get(f"{base}/v2/jobs/{job_id}", headers=AUTH, timeout=30).json()
                assert job["data"]["status"] != "error", job  # never failed, whatever happened meanwhile
                return str(job["data"]["status"])

            server.stop()
            tasks = {"in": {"operation": "import/raw", "file": "kept", "filename": "a.txt"}}
            created = httpx.post(f"{base}/v2/jobs", json={"tasks": tasks}, headers=AUTH, timeout=30)
            job = created.json()["data"]
            wait_until(lambda: "handed back to the queue" in caplog.text, 60, "the worker to hand it back")
            assert job_status(job["id"]) != "finished"
            server.start()
            wait_until(lambda: job_status(job["id"]) == "finished", 120, "the job to finish")
            assert b"".join(service.storage.read(job["tasks"][0]["id"], "a.txt")) == b"kept"
    finally:
        server.stop()


def test_a_task_meeting_the_database_away_is_handed_back_not_failed(
    pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Seen in the chaos test: PostgreSQL restarted while a worker read a task's inputs, and the row
    failed INTERNAL_ERROR (DatabaseUnavailable). The database cannot be cut on demand at that point,
    so the first run of the task meets the error such a cut raises; the second runs for real."""
    runs: list[str] = []
    real_execute = scheduler.execute

    def execute_after_a_cut(*args: Any, **kwargs: Any) -> Any:
        runs.append("run")
        if len(runs) == 1:
            raise DatabaseUnavailable("cannot reach the database postgresql://127.0.0.1: connection lost")
        return real_execute(*args, **kwargs)

    monkeypatch.setattr(scheduler, "execute", execute_after_a_cut)
    service = LocalService(data_dir=tmp_path / "data", api_key=KEY, database=pg_url, lease_seconds=2)
    with service:
        tasks = {"in": {"operation": "import/raw", "file": "kept", "filename": "a.txt"}}
        created = httpx.post(f"{service.base_url}/v2/jobs", json={"tasks": tasks}, headers=AUTH, timeout=30)
        job_id = created.json()["data"]["id"]
        waited = httpx.get(f"{service.base_url}/sync/v2/jobs/{job_id}", headers=AUTH, timeout=120)
        done = waited.json()["data"]
    assert done["status"] == "finished", done
    assert len(runs) == 2
    assert "handed back to the queue" in caplog.text
