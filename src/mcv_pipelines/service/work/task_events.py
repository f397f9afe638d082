"""What the schedulers tell others: job events for webhooks, and the change feed's word that a task ended."""

from __future__ import annotations

from typing import Protocol

from mcv_pipelines.service.state.changes import Change
from mcv_pipelines.service.state.store import Doc, parse_iso

__all__ = ["JobEvents", "ended_change"]


class JobEvents(Protocol):
    """Told of job.created, job.finished and job.failed; ``job``, when given, is the job as just
    written (the listener need not read it again)."""

    def __call__(self, event: str, job_id: str, job: Doc | None = None) -> None: ...


def ended_change(task: Doc, seconds: float | None = None) -> Change:
    """The feed's word that ``task`` ended (what logs and metrics count). ``seconds``: how long it ran,
    as this process's clock measured it; else from its start and end times, which the API keeps to
    the second (a 30 ms task would show 0 s or 1 s)."""
    if seconds is None:
        seconds = (parse_iso(task["ended_at"]) - parse_iso(task["started_at"])).total_seconds()
    return Change(
        "task",
        task["id"],
        task["status"],
        user_id=task.get("user_id"),
        job_id=task.get("job_id"),
        operation=task.get("operation"),
        engine=task.get("engine"),
        code=task.get("code"),
        seconds=seconds,
    )
