"""Task values shared by the scheduler and the operations: states, the failure type, new task docs."""

from __future__ import annotations

import uuid
from typing import Any

from mcv_pipelines.service.state.store import Doc, now_iso

__all__ = ["ENDED", "TaskFailed", "input_names", "new_id", "new_task"]

ENDED = frozenset({"finished", "error"})


class TaskFailed(Exception):
    """A task ends with status error, this code and this message."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def input_names(value: Any) -> list[str]:
    """The task references of an ``input`` value (a string or a list of strings)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [item for item in value if isinstance(item, str)]
    return []


def new_id() -> str:
    return str(uuid.uuid4())


def new_task(
    user_id: int,
    payload: dict[str, Any],
    depends_on: dict[str, str],
    *,
    job_id: str | None,
    name: str | None,
    region: str,
) -> Doc:
    """A task as stored: the API's fields plus its payload and dependencies."""
    operation = str(payload["operation"])
    waiting_for_upload = operation == "import/upload"
    return {
        "id": new_id(),
        "job_id": job_id,
        "user_id": user_id,
        "name": name,
        "operation": operation,
        "status": "waiting",
        "message": "Waiting for upload" if waiting_for_upload else None,
        "code": None,
        "credits": None,
        "percent": 0,
        "created_at": now_iso(),
        "started_at": None,
        "ended_at": None,
        "depends_on": depends_on,
        "retry_of_task_id": None,
        "copy_of_task_id": None,
        "engine": None,
        "engine_version": None,
        "region": region,
        "priority": 0,
        "host_name": "localhost",
        "storage": None,
        "result": None,
        "payload": payload,
    }
