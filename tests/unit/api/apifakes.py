"""Shared fakes for the client tests (imported by name; pytest puts this directory on sys.path)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

API_KEY = "sk-test-0123456789abcdef"
BASE = "http://127.0.0.1:9999"
SYNC = "http://127.0.0.1:9999/sync"


@dataclass
class FakeTime:
    """A monotonic clock that only moves when something sleeps; ``sleeps`` lists every wait."""

    now: float = 1000.0
    sleeps: list[float] = field(default_factory=list)

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def task_json(task_id: str = "t1", status: str = "finished", **extra: Any) -> dict[str, Any]:
    return {
        "id": task_id,
        "operation": "convert",
        "status": status,
        "created_at": "2026-01-02T03:04:05+00:00",
        **extra,
    }


def job_json(job_id: str = "j1", status: str = "finished", **extra: Any) -> dict[str, Any]:
    return {
        "id": job_id,
        "status": status,
        "tag": "t",
        "tasks": [task_json(name="a", job_id=job_id)],
        **extra,
    }
