"""A restart with the same data directory loses nothing; tasks cut off by SIGKILL run again."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import httpx
from service_helpers import TextEngine, task_named, wait_job

from mcv_pipelines.service.server import LocalService

KEY = "restart-test-key-0123456789"
HERE = Path(__file__).parent


def test_jobs_and_files_survive_a_restart(tmp_path: Path) -> None:
    tasks = {
        "in": {"operation": "import/raw", "file": "kept", "filename": "k.txt"},
        "out": {"operation": "export/url", "input": "in"},
    }
    with (
        LocalService(data_dir=tmp_path, api_key=KEY, engines=[TextEngine()]) as svc,
        httpx.Client(base_url=svc.base_url, headers={"Authorization": f"Bearer {KEY}"}) as client,
    ):
        port = int(svc.base_url.rsplit(":", 1)[1])
        job_id = client.post("/v2/jobs", json={"tasks": tasks, "tag": "keep"}).json()["data"]["id"]
        url = task_named(wait_job(client, job_id), "out")["result"]["files"][0]["url"]
        credits = client.get("/v2/users/me").json()["data"]["credits"]
    with (
        LocalService(data_dir=tmp_path, api_key=KEY, engines=[TextEngine()], port=port) as svc,
        httpx.Client(base_url=svc.base_url, headers={"Authorization": f"Bearer {KEY}"}) as client,
    ):
        job = client.get(f"/v2/jobs/{job_id}").json()["data"]
        assert job["status"] == "finished"
        assert job["tag"] == "keep"
        assert httpx.get(url).content == b"kept"
        assert client.get("/v2/users/me").json()["data"]["credits"] == credits


def test_a_task_running_when_the_service_was_killed_runs_again(tmp_path: Path) -> None:
    script = textwrap.dedent(f"""
        import sys, time
        sys.path.insert(0, {str(HERE)!r})
        from service_helpers import TextEngine
        from mcv_pipelines.service.server import LocalService
        svc = LocalService(data_dir={str(tmp_path)!r}, api_key={KEY!r}, engines=[TextEngine()]).start()
        print(svc.base_url, flush=True)
        time.sleep(120)
    """)
    with subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True) as child:
        _create_and_kill(child)
    with (
        LocalService(data_dir=tmp_path, api_key=KEY, engines=[TextEngine()]) as svc,
        httpx.Client(base_url=svc.base_url, headers={"Authorization": f"Bearer {KEY}"}) as client,
    ):
        listed = client.get("/v2/jobs").json()["data"]
        assert len(listed) == 1
        done = wait_job(client, listed[0]["id"])
        assert done["status"] == "finished"
        assert task_named(done, "slow")["result"]["files"] == [{"filename": "a.md", "size": 5}]


def _create_and_kill(child: subprocess.Popen[str]) -> None:
    try:
        assert child.stdout is not None
        base = child.stdout.readline().strip()
        headers = {"Authorization": f"Bearer {KEY}"}
        created = httpx.post(
            f"{base}/v2/jobs",
            headers=headers,
            json={
                "tasks": {
                    "in": {"operation": "import/raw", "file": "again", "filename": "a.txt"},
                    "slow": {"operation": "convert", "input": "in", "output_format": "md", "sleep": 1.5},
                }
            },
        )
        slow_id = task_named(created.json()["data"], "slow")["id"]
        deadline = time.monotonic() + 10
        while (
            httpx.get(f"{base}/v2/tasks/{slow_id}", headers=headers).json()["data"]["status"] != "processing"
        ):
            assert time.monotonic() < deadline
            time.sleep(0.05)
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
