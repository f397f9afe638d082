"""Run a job on the local service through plain httpx and fetch what its export/url task made."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import httpx

ASSETS = Path(__file__).resolve().parents[3] / "pipelines" / "assets"

__all__ = ["ASSETS", "b64_import", "download_all", "run_job", "task_named"]


def b64_import(path: Path, filename: str | None = None) -> dict[str, Any]:
    """An import/base64 task carrying ``path`` (the inputs here are a few KB)."""
    return {
        "operation": "import/base64",
        "file": base64.b64encode(path.read_bytes()).decode(),
        "filename": filename or path.name,
    }


def run_job(client: httpx.Client, tasks: dict[str, Any], **job: Any) -> dict[str, Any]:
    """Create the job, block on the sync endpoint until it ends, return the ended job."""
    created = client.post("/v2/jobs", json={"tasks": tasks, **job})
    assert created.status_code == 201, created.text
    ended = client.get(f"/sync/v2/jobs/{created.json()['data']['id']}")
    assert ended.status_code == 200, ended.text
    data: dict[str, Any] = ended.json()["data"]
    return data


def task_named(job: dict[str, Any], name: str) -> dict[str, Any]:
    found = [task for task in job["tasks"] if task["name"] == name]
    assert len(found) == 1, [task["name"] for task in job["tasks"]]
    return found[0]


def download_all(job: dict[str, Any], dest: Path, export: str = "export") -> dict[str, Path]:
    """Download every file of the job's export/url task through its link; filename -> local path."""
    task = task_named(job, export)
    assert job["status"] == "finished", _failures(job)
    dest.mkdir(parents=True, exist_ok=True)
    out: dict[str, Path] = {}
    for item in task["result"]["files"]:
        response = httpx.get(item["url"], timeout=60)
        assert response.status_code == 200, response.text
        path = dest / item["filename"]
        path.write_bytes(response.content)
        out[item["filename"]] = path
    return out


def _failures(job: dict[str, Any]) -> list[tuple[str, str, str]]:
    return [
        (t["name"], t.get("code") or "", t.get("message") or "")
        for t in job["tasks"]
        if t["status"] == "error"
    ]
