"""Turn successive snapshots of a job into ``task`` events: one per visible change of a task."""

from __future__ import annotations

from mcv_pipelines.api.models import Job, Task
from mcv_pipelines.run.events import EventSink
from mcv_pipelines.run.model import TaskState

__all__ = ["TaskTracker"]


class TaskTracker:
    """Remembers each task's last (status, percent, message) and emits what changed."""

    def __init__(self, events: EventSink) -> None:
        self.events = events
        self.states: dict[str, TaskState] = {}
        self.last: Job | None = None

    def observe(self, job: Job) -> None:
        self.last = job
        for task in job.tasks:
            self._task(task)

    def _task(self, task: Task) -> None:
        name = task.name or task.id
        state = TaskState(name, task.operation, task.status, task.percent, task.message, task.credits)
        before = self.states.get(name)
        if before == state:
            return
        self.states[name] = state
        data: dict[str, object] = {"task": name, "operation": task.operation, "status": task.status}
        if task.percent is not None:
            data["percent"] = task.percent
        if task.message:
            data["message"] = task.message
        if task.code:
            data["code"] = task.code
        self.emit_task(task, data)

    def emit_task(self, task: Task, data: dict[str, object]) -> None:
        """Report one task's change (a batch's packed job labels it with the task's row)."""
        self.events.emit("task", **data)
