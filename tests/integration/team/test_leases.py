"""Leases on a real PostgreSQL: a stale worker cannot record a result, a failed input fails its
dependants in the ending transaction, and a SIGKILLed worker's task runs again on another worker."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import httpx
from team_helpers import wait_until

from mcv_pipelines.service.server import LocalService
from mcv_pipelines.service.state.database import open_database
from mcv_pipelines.service.state.store import Store, now_iso
from mcv_pipelines.service.state.tasks import TaskFailed
from mcv_pipelines.service.work.leases import claim_task, end_task, renew_leases
from mcv_pipelines.service.work.operations import Outcome

HERE = Path(__file__).parent
BASES: dict[int, str] = {}  # worker pid -> the address it serves /metrics at
KEY = "sk-team-lease-test-0123456789"


def _job(store: Store, names: dict[str, list[str]]) -> tuple[str, dict[str, str]]:
    """A job whose tasks ``names`` depend on the listed names; (job id, name -> task id)."""
    user = store.create_user("u", "u@example.com", 100)
    ids = {name: f"t-{name}-{time.monotonic_ns()}" for name in names}
    job_id = f"j-{time.monotonic_ns()}"
    job = {"id": job_id, "user_id": user, "status": "waiting", "tag": None, "created_at": now_iso()}
    tasks: list[dict[str, Any]] = [
        {
            "id": ids[name],
            "name": name,
            "job_id": job_id,
            "user_id": user,
            "operation": "import/raw",
            "status": "waiting",
            "payload": {},
            "depends_on": {d: ids[d] for d in deps},
            "created_at": now_iso(),
        }
        for name, deps in names.items()
    ]
    store.save_tasks(tasks, job)
    return job_id, ids


def test_a_result_counts_only_from_the_lease_holder_and_only_once(pg_url: str, tmp_path: Path) -> None:
    store = Store(open_database(pg_url, tmp_path / "unused"))
    job_id, ids = _job(store, {"a": []})
    first = claim_task(store, "worker-a", lease_seconds=3600)
    assert first is not None
    assert first.task["id"] == ids["a"]
    assert not first.lease_lost
    assert claim_task(store, "worker-b", 30) is None  # held by worker-a
    # worker-a stopped renewing and its lease ran out: its expiry, set by the database's clock, is moved
    # a minute into the past rather than waited for, so no window of time decides the test.
    assert renew_leases(store, "worker-a", -60) == {ids["a"]}
    second = claim_task(store, "worker-b", 30)
    assert second is not None
    assert second.task["id"] == ids["a"]
    assert second.lease_lost
    stale = end_task(store, ids["a"], Outcome({"files": []}), ("processing",), "worker-a")
    assert stale.tasks == []
    assert stale.jobs == []
    done = end_task(store, ids["a"], Outcome({"files": [{"filename": "x"}]}), ("processing",), "worker-b")
    assert [t["id"] for t in done.tasks] == [ids["a"]]
    assert done.jobs == [(job_id, "finished")]
    again = end_task(store, ids["a"], Outcome({"files": []}), ("processing",), "worker-b")
    assert again.tasks == []
    assert again.jobs == []
    task = store.get_task(ids["a"])
    assert task is not None
    assert task["result"] == {"files": [{"filename": "x"}]}
    store.close()


def test_a_failed_input_fails_its_dependants_and_the_job_once(pg_url: str, tmp_path: Path) -> None:
    store = Store(open_database(pg_url, tmp_path / "unused"))
    job_id, ids = _job(store, {"a": [], "b": ["a"], "c": ["b"], "d": []})
    claimed = [claim_task(store, "w", 30), claim_task(store, "w", 30)]  # a and d are runnable, b is not
    assert {c.task["id"] for c in claimed if c} == {ids["a"], ids["d"]}
    assert claim_task(store, "w", 30) is None
    failed = end_task(store, ids["a"], TaskFailed("BOOM", "no"), ("processing",), "w")
    assert [(t["id"], t.get("code")) for t in failed.tasks] == [
        (ids["a"], "BOOM"),
        (ids["b"], "INPUT_TASK_FAILED"),
        (ids["c"], "INPUT_TASK_FAILED"),
    ]
    assert failed.jobs == []  # d still runs
    last = end_task(store, ids["d"], Outcome({"files": []}), ("processing",), "w")
    assert last.jobs == [(job_id, "error")]
    store.close()


class _Hooks(BaseHTTPRequestHandler):
    received: ClassVar[list[dict[str, Any]]] = []

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("content-length") or 0))
        type(self).received.append(json.loads(body))
        self.send_response(200)
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        pass


def _worker(url: str, data_dir: Path, log: Path) -> subprocess.Popen[str]:
    command = [sys.executable, str(HERE / "slow_worker.py"), url, str(data_dir), "1.5"]
    with log.open("ab") as err:  # the child has its own copy of the descriptor
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=err, text=True)
    assert process.stdout is not None
    for line in process.stdout:
        if line.startswith("base URL:"):
            BASES[process.pid] = line.split(":", 1)[1].strip()
        if line.startswith("serving"):
            return process
    raise AssertionError(f"the worker did not start: {log.read_text()}")


def test_a_killed_workers_task_runs_again_on_another_worker(pg_url: str, tmp_path: Path) -> None:
    data = tmp_path / "data"
    runs = data / "runs.log"
    hooks = ThreadingHTTPServer(("127.0.0.1", 0), _Hooks)
    threading.Thread(target=hooks.serve_forever, daemon=True).start()
    with LocalService(data_dir=data, api_key=KEY, database=pg_url, role="api") as api:
        first = _worker(pg_url, data, tmp_path / "a.log")
        second: subprocess.Popen[str] | None = None
        try:
            headers = {"Authorization": f"Bearer {KEY}"}
            hook = {"url": f"http://127.0.0.1:{hooks.server_port}/hook", "events": ["job.finished"]}
            assert httpx.post(f"{api.base_url}/v2/webhooks", json=hook, headers=headers).status_code == 201
            tasks = {
                "in": {"operation": "import/raw", "file": "some text", "filename": "a.txt"},
                "slow": {"operation": "convert", "input": "in", "output_format": "md", "sleep": 1.5},
            }
            created = httpx.post(f"{api.base_url}/v2/jobs", json={"tasks": tasks}, headers=headers)
            assert created.status_code == 201, created.text
            job_id = created.json()["data"]["id"]
            wait_until(
                lambda: runs.exists() and runs.read_text().count("\n") == 1, 20, "the slow task to start"
            )
            first.send_signal(signal.SIGKILL)
            first.wait(10)
            second = _worker(pg_url, data, tmp_path / "b.log")
            done = httpx.get(f"{api.base_url}/v2/jobs/{job_id}/wait", headers=headers, timeout=60).json()[
                "data"
            ]
            assert done["status"] == "finished"
            slow = next(t for t in done["tasks"] if t["name"] == "slow")
            assert slow["status"] == "finished"
            assert [f["filename"] for f in slow["result"]["files"]] == ["a.md"]
            assert runs.read_text().split() == [str(first.pid), str(second.pid)]  # ran again, once more
            listed = httpx.get(f"{api.base_url}/v2/tasks", headers=headers).json()["data"]
            assert len(listed) == 2  # no duplicate task appeared
            metrics = httpx.get(f"{BASES[second.pid]}/metrics").text
            assert "mcv_task_leases_lost_total 1.0" in metrics
            wait_until(lambda: _Hooks.received, 30, "the webhook")
            # No second delivery for the job: a marker job, created after the first delivery came and
            # delivered by the same dispatcher after anything queued before it, must be the next one.
            marker = httpx.post(
                f"{api.base_url}/v2/jobs",
                json={"tasks": {"in": tasks["in"], "mark": {**tasks["slow"], "sleep": 0}}},
                headers=headers,
            )
            assert marker.status_code == 201, marker.text
            marker_id = marker.json()["data"]["id"]
            wait_until(lambda: len(_Hooks.received) >= 2, 30, "the marker job's webhook")
            assert [(h["event"], h["job"]["id"]) for h in _Hooks.received] == [
                ("job.finished", job_id),
                ("job.finished", marker_id),
            ]
        finally:
            hooks.shutdown()
            hooks.server_close()
            for process in (first, second):
                if process is not None:
                    if process.poll() is None:
                        process.kill()
                        process.wait(10)
                    if process.stdout is not None:
                        process.stdout.close()
