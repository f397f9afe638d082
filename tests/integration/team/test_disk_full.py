"""Issue 25: the staging disk full on one worker. A task that worker runs fails with DISK_FULL naming
the worker's data directory (no internal error, no traceback), the worker stays up and claims nothing
for a while, and the next job finishes on the other worker.

The full disk is real and needs no root: the worker runs under ``unshare -Urm`` (a user and a mount
namespace of its own) with a tiny tmpfs mounted on its staging directory (``DATA_DIR/tasks``: with an
S3 store a worker stages each task's outputs there) and filled to the last byte before it starts.
"""

from __future__ import annotations

import base64
import io
import secrets
import shutil
import subprocess
from pathlib import Path
from typing import Any

import httpx
from pg_server import PgServer
from PIL import Image
from team_helpers import Serve, wait_until

from engine_needs import unavailable
from seaweed import SeaweedS3

KEY = "sk-disk-full-0123456789abcdef"
AUTH = {"Authorization": f"Bearer {KEY}"}
# $0 is the directory; the filler stops at the tmpfs's size with ENOSPC, as meant.
_FILL = 'mount -t tmpfs -o size=64k mcv-full "$0" && { head -c 1M /dev/zero > "$0/filler"; exec "$@"; }'


def _full_disk_wrapper(staging: Path) -> list[str]:
    """A command that runs its arguments with a full tmpfs mounted on ``staging``."""
    staging.mkdir(parents=True)
    probe = ["unshare", "-Urm", "sh", "-c", _FILL.replace('exec "$@"', 'df -P "$0"'), str(staging)]
    if shutil.which("unshare") is None:
        unavailable("needs unshare (util-linux) to give a worker a full disk")
    done = subprocess.run(probe, capture_output=True, text=True, timeout=30, check=False)
    if done.returncode != 0 or "mcv-full" not in done.stdout:
        unavailable(f"needs user namespaces to mount a tmpfs without root: {done.stderr.strip()}")
    return ["unshare", "-Urm", "sh", "-c", _FILL, str(staging)]


def _thumbnail_job(base: str) -> dict[str, Any]:
    png = io.BytesIO()
    Image.new("RGB", (8, 8), (200, 40, 90)).save(png, "PNG")
    tasks = {
        "in": {
            "operation": "import/base64",
            "file": base64.b64encode(png.getvalue()).decode(),
            "filename": "a.png",
        },
        "thumb": {"operation": "thumbnail", "input": "in", "output_format": "png", "width": 4, "height": 4},
    }
    created = httpx.post(f"{base}/v2/jobs", json={"tasks": tasks}, headers=AUTH, timeout=30)
    assert created.status_code == 201, created.text
    return dict(created.json()["data"])


def _ended(base: str, job_id: str) -> dict[str, Any] | None:
    job: dict[str, Any] = httpx.get(f"{base}/v2/jobs/{job_id}", headers=AUTH, timeout=30).json()["data"]
    return job if job["status"] in ("finished", "error") else None


def test_a_full_staging_disk_fails_its_task_by_name_and_the_service_keeps_running(
    postgres: PgServer, seaweed: SeaweedS3, tmp_path: Path
) -> None:
    full_dir = tmp_path / "worker-full"
    wrap = _full_disk_wrapper(full_dir / "tasks")
    url = postgres.url(postgres.new_database())
    storage = f"s3://{seaweed.bucket}/disk-full-{secrets.token_hex(4)}"
    shared = ["--database", url, "--storage", storage, "--s3-endpoint", seaweed.endpoint]
    env = {"MCV_SERVE_API_KEY": KEY, **seaweed.env}
    logs = tmp_path / "logs"
    logs.mkdir()
    api = Serve(["--role", "api", *shared, "--data-dir", str(tmp_path / "api")], logs / "api.log", env)
    full = Serve(
        ["--role", "worker", "--workers", "1", *shared, "--data-dir", str(full_dir)],
        logs / "full.log",
        env,
        wrap,
    )
    others: list[Serve] = []
    try:
        first = _thumbnail_job(api.base)  # only the full worker runs tasks yet
        job = wait_until_ended(api.base, first["id"])
        assert job["status"] == "error"
        failed = [
            task for task in job["tasks"] if task["status"] == "error" and task["code"] != "INPUT_TASK_FAILED"
        ]
        assert [task["code"] for task in failed] == ["DISK_FULL"], job["tasks"]
        assert "disk is full" in failed[0]["message"]
        assert str(full_dir) in failed[0]["message"]  # which worker's disk: its data directory
        assert full.get("/healthz").status_code == 200  # the worker is still up

        others.append(
            Serve(["--role", "worker", *shared, "--data-dir", str(tmp_path / "ok")], logs / "ok.log", env)
        )
        second = wait_until_ended(api.base, _thumbnail_job(api.base)["id"])
        assert second["status"] == "finished", second["tasks"]  # the full worker left it to the other
    finally:
        for process in (api, full, *others):
            process.stop()
    worker_log = (logs / "full.log").read_text()
    assert "disk is full" in worker_log
    assert "Traceback" not in worker_log


def wait_until_ended(base: str, job_id: str) -> dict[str, Any]:
    ended: list[dict[str, Any]] = []

    def check() -> bool:
        job = _ended(base, job_id)
        if job is not None:
            ended.append(job)
        return job is not None

    wait_until(check, 120, f"job {job_id} to end")
    return ended[-1]
