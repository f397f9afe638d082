"""A task stopped (timeout) just as its engine finishes: the task ends once, as TIMEOUT, nothing crashes."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterable
from pathlib import Path

import httpx
import pytest
from service_helpers import task_named, wait_job

from mcv_pipelines.service.engines.base import ConversionType, EngineRequest, EngineResult
from mcv_pipelines.service.server import LocalService


class LateEngine:
    """Writes its output, then finishes only after the service has stopped it and removed the task's
    files (ignoring the stop): the race this test is about, made to happen every time."""

    name = "late"

    def __init__(self) -> None:
        self.returned_into_a_removed_task = threading.Event()

    def version(self) -> str | None:
        return "1"

    def conversion_types(self) -> Iterable[ConversionType]:
        yield ConversionType("convert", "txt", "md", "late", 1)

    def run(self, request: EngineRequest) -> EngineResult:
        target = request.output_dir / "out.md"
        target.write_text("late")
        deadline = time.monotonic() + 30  # generous: the timeout removes them within milliseconds
        while target.exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        if not target.exists() and request.cancelled.is_set():
            self.returned_into_a_removed_task.set()
        return EngineResult([target])


def test_engine_finishing_after_its_timeout(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    engine = LateEngine()
    with (
        caplog.at_level(logging.ERROR),
        LocalService(data_dir=tmp_path, engines=[engine]) as svc,
        httpx.Client(base_url=svc.base_url, headers={"Authorization": f"Bearer {svc.api_key}"}) as client,
    ):
        tasks = {
            "in": {"operation": "import/raw", "file": "hello", "filename": "a.txt"},
            "md": {"operation": "convert", "input": "in", "output_format": "md", "timeout": 0.5},
        }
        created = client.post("/v2/jobs", json={"tasks": tasks})
        assert created.status_code == 201, created.text
        job = wait_job(client, created.json()["data"]["id"])
        md = task_named(job, "md")
        assert md["status"] == "error"
        assert md["code"] == "TIMEOUT"
    # Stopping the service waited for its worker threads: the engine has returned into the stopped task
    # and the service has done all it does with that late result. A service on the same data shows it.
    assert engine.returned_into_a_removed_task.is_set(), "the engine never finished after the timeout"
    with (
        LocalService(data_dir=tmp_path, engines=[LateEngine()]) as svc,
        httpx.Client(base_url=svc.base_url, headers={"Authorization": f"Bearer {svc.api_key}"}) as client,
    ):
        again = client.get(f"/v2/tasks/{md['id']}").json()["data"]
        assert (again["status"], again["code"]) == ("error", "TIMEOUT")
        assert client.get(f"/v2/jobs/{job['id']}").json()["data"]["status"] == "error"
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text
