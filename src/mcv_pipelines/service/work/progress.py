"""A running task's ``percent``: saved and published as its engine reports it, a few times a second.

Engines call ``EngineRequest.progress`` as often as they learn something (ffmpeg reports twice a
second, pdftoppm once a page); ``TaskProgress`` keeps what reaches the store to whole percents that
went up, at most ``per_second`` writes a second per task, and never 100 (a task is 100 when it has
finished, which the scheduler writes). Each saved percent is published on the change feed, so
``GET /v2/tasks/{id}``, ``/wait`` and the console see it while the task runs.

Example::

    progress = TaskProgress(store, changes, task)
    progress(12.5)      # saved as 12 and published, unless 12 or more was saved < 0.25 s ago
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any, Protocol

from mcv_pipelines.service.state.changes import Change, ChangeFeed

__all__ = ["TaskProgress"]

Doc = dict[str, Any]  # a stored task document, as store.Doc


class _TaskStore(Protocol):
    def update_task(self, task_id: str, change: Callable[[Doc], bool]) -> Doc | None: ...


class TaskProgress:
    """Callable ``(percent) -> None`` for one running task; safe to call from any thread."""

    def __init__(
        self,
        store: _TaskStore,
        changes: ChangeFeed,
        task: Doc,
        *,
        per_second: float = 4.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._store = store
        self._changes = changes
        self._task_id = str(task["id"])
        self._user_id = task.get("user_id")
        self._job_id = task.get("job_id")
        self._operation = task.get("operation")
        self._interval = 1.0 / per_second
        self._clock = clock
        self._lock = threading.Lock()
        self._saved = int(task.get("percent") or 0)
        self._last_write = float("-inf")

    def __call__(self, percent: float) -> None:
        value = min(99, max(0, int(percent)))
        with self._lock:
            now = self._clock()
            if value <= self._saved or now - self._last_write < self._interval:
                return
            self._saved, self._last_write = value, now
        if self._save(value):
            self._changes.publish(
                Change(
                    "task",
                    self._task_id,
                    "processing",
                    user_id=self._user_id,
                    job_id=self._job_id,
                    operation=self._operation,
                    percent=value,
                )
            )

    def _save(self, value: int) -> bool:
        """Write ``value`` while the task still runs (a cancel or timeout may have ended it)."""
        saved: list[bool] = []

        def change(task: Doc) -> bool:
            saved.append(task["status"] == "processing" and int(task.get("percent") or 0) < value)
            if saved[-1]:
                task["percent"] = value
            return saved[-1]

        self._store.update_task(self._task_id, change)
        return bool(saved and saved[-1])
