"""Task values shared by the scheduler and the operations: states, the failure type, new task docs."""

from __future__ import annotations

import os
import time
import uuid
from typing import Any

from mcv_pipelines.service.state.store import Doc, now_iso

__all__ = ["ENDED", "TaskFailed", "input_names", "new_id", "new_task", "retry_task"]

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
    """A new job or task id: a UUID of version 7 (RFC 9562), the time in milliseconds in its first 48
    bits and 74 random bits after. Ids made later sort later, so the rows the retention sweep deletes
    together (the oldest) sit together in every index keyed by an id (``id``, ``job_id``); random
    UUIDs put each one on a page of its own, and a delete of 100 rows rewrote 200 pages (issue 27).
    The spec's ids are opaque strings; ids grant nothing (file links and upload forms are signed)."""
    millis = time.time_ns() // 1_000_000
    rand = int.from_bytes(os.urandom(10), "big")  # 80 bits, 74 of them used
    value = millis << 80 | 7 << 76 | (rand >> 62 & 0xFFF) << 64 | 2 << 62 | rand & (1 << 62) - 1
    return str(uuid.UUID(int=value))


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


def retry_task(source: Doc) -> Doc:
    """A new waiting task doing what ``source`` did, its retry (``retry_of_task_id``)."""
    task = {
        **source,
        "id": new_id(),
        "status": "waiting",
        "message": None,
        "code": None,
        "credits": None,
        "percent": 0,
        "created_at": now_iso(),
        "started_at": None,
        "ended_at": None,
        "result": None,
        "engine": None,
        "engine_version": None,
        "retry_of_task_id": source["id"],
    }
    if task["operation"] == "import/upload":
        task["message"] = "Waiting for upload"
    return task
