"""Issue 25: a worker SIGSTOPped past its lease (a VM paused, a process swapped out) and then resumed.
Another worker runs the task meanwhile; the resumed worker's late result is dropped, so the task is done
once, with the other worker's result."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
from team_helpers import wait_until

from mcv_pipelines.service.server import LocalService

HERE = Path(__file__).parent
KEY = "sk-paused-worker-0123456789abcdef"
AUTH = {"Authorization": f"Bearer {KEY}"}


def _worker(url: str, data_dir: Path, storage: str, log: Path) -> subprocess.Popen[str]:
    command = [sys.executable, str(HERE / "paused_worker.py"), url, str(data_dir), "1.5", storage]
    with log.open("ab") as err:
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=err, text=True)
    assert process.stdout is not None
    for line in process.stdout:
        if line.startswith("serving"):
            return process
    raise AssertionError(f"the worker did not start: {log.read_text()}")


def _runs(data_dir: Path) -> list[str]:
    path = data_dir / "runs.log"
    return path.read_text().splitlines() if path.exists() else []


def test_a_worker_paused_past_its_lease_has_its_late_result_dropped(pg_url: str, tmp_path: Path) -> None:
    storage = f"file://{tmp_path / 'store'}"
    first_dir, second_dir = tmp_path / "w1", tmp_path / "w2"
    settings = {"storage": storage}
    with LocalService(
        data_dir=tmp_path / "api", api_key=KEY, database=pg_url, role="api", settings=settings
    ) as api:
        first = _worker(pg_url, first_dir, storage, tmp_path / "w1.log")
        second: subprocess.Popen[str] | None = None
        try:
            tasks = {
                "in": {"operation": "import/raw", "file": "some text", "filename": "a.txt"},
                "slow": {"operation": "convert", "input": "in", "output_format": "md", "sleep": 3.0},
            }
            created = httpx.post(f"{api.base_url}/v2/jobs", json={"tasks": tasks}, headers=AUTH, timeout=30)
            assert created.status_code == 201, created.text
            job_id = created.json()["data"]["id"]
            wait_until(lambda: _runs(first_dir) == [str(first.pid)], 30, "the slow task to start")
            first.send_signal(signal.SIGSTOP)  # past its lease: it renews nothing while stopped
            second = _worker(pg_url, second_dir, storage, tmp_path / "w2.log")
            done: dict[str, Any] = httpx.get(
                f"{api.base_url}/v2/jobs/{job_id}/wait", headers=AUTH, timeout=60
            ).json()["data"]
            assert done["status"] == "finished"
            slow = next(t for t in done["tasks"] if t["name"] == "slow")
            assert _runs(second_dir) == [str(second.pid), f"end {second.pid}"]

            first.send_signal(signal.SIGCONT)
            first.send_signal(signal.SIGTERM)  # a clean stop: whatever it does with the task is done
            assert first.wait(30) == 0
            # it had started the task and, resumed, came to the end of its run (result dropped)
            assert _runs(first_dir) == [str(first.pid), f"end {first.pid}"]
            after = httpx.get(f"{api.base_url}/v2/tasks/{slow['id']}", headers=AUTH, timeout=30).json()[
                "data"
            ]
            assert after["status"] == "finished"
            assert after["ended_at"] == slow["ended_at"]  # the late worker wrote nothing
            assert after["result"] == slow["result"]
            listed = httpx.get(f"{api.base_url}/v2/jobs/{job_id}", headers=AUTH, timeout=30).json()["data"]
            assert listed["status"] == "finished"
            assert len(listed["tasks"]) == 2
        finally:
            for process in (first, second):
                if process is not None:
                    if process.poll() is None:
                        process.send_signal(signal.SIGCONT)
                        process.kill()
                        process.wait(10)
                    if process.stdout is not None:
                        process.stdout.close()
