"""Helpers of the service integration tests (imported by name: pytest puts this folder on sys.path)."""

from __future__ import annotations

from typing import Any

import httpx

__all__ = ["task_named", "upload", "wait_job"]


def wait_job(client: httpx.Client, job_id: str) -> dict[str, Any]:
    response = client.get(f"/sync/v2/jobs/{job_id}")
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()["data"]
    return data


def task_named(job: dict[str, Any], name: str) -> dict[str, Any]:
    found: list[dict[str, Any]] = [t for t in job["tasks"] if t["name"] == name]
    assert len(found) == 1, [t["name"] for t in job["tasks"]]
    return found[0]


def upload(form: dict[str, Any], content: bytes, filename: str = "in.txt") -> httpx.Response:
    """Post a file to an import/upload form the way clients do: every parameter, then ``file``."""
    return httpx.post(
        form["url"],
        data={k: str(v) for k, v in form["parameters"].items()},
        files={"file": (filename, content)},
    )
