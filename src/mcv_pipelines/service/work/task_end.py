"""How a task ends and its job follows, for the scheduler (scheduler.py): the task, the user's
credits and the job's status in one write (the job's from ``Store.job_counts``), then the task's clock
stopped and its end, the job's new status and its webhook told, once that write committed."""

from __future__ import annotations

import threading

from mcv_pipelines.service.files.storage import Storage
from mcv_pipelines.service.state.changes import Change, ChangeFeed
from mcv_pipelines.service.state.config import ServiceConfig
from mcv_pipelines.service.state.store import Doc, Store
from mcv_pipelines.service.state.tasks import ENDED, TaskFailed
from mcv_pipelines.service.work.deadlines import Deadlines
from mcv_pipelines.service.work.leases import job_status
from mcv_pipelines.service.work.one_write import OneWrite
from mcv_pipelines.service.work.operations import Outcome, record_end
from mcv_pipelines.service.work.task_events import JobEvents, ended_change
from mcv_pipelines.service.work.taskfiles import discard

__all__ = ["TaskEnding"]


class TaskEnding:
    """The ending half of ``Scheduler``, which sets these up."""

    config: ServiceConfig
    store: Store
    storage: Storage
    changes: ChangeFeed
    _emit: JobEvents
    _lock: threading.RLock
    _running: dict[str, threading.Event]
    _deadlines: Deadlines
    _one_write: OneWrite

    def _stop_running(self, task_id: str) -> float | None:
        """Stop a task's clock and tell its run to stop: the seconds it ran (None: it was not timed
        here, an upload say, or its timeout had fired)."""
        seconds = self._deadlines.cancel(task_id)
        with self._lock:
            event = self._running.pop(task_id, None)
        if event is not None:
            event.set()
        return seconds

    def _end(self, task_id: str, outcome: Outcome | TaskFailed, allowed: tuple[str, ...]) -> Doc | None:
        """End a task (once): finished with an outcome, or error with a failure. The task as this call
        ended it (None: it had ended, or was deleted, meanwhile).

        The task, the user's credits and the job's status are written in one transaction, and only
        then published: whoever wakes on the task's end reads a job that already shows it."""
        ended: list[Doc] = []

        def change(t: Doc) -> bool:
            if t["status"] not in allowed:
                return False
            record_end(t, outcome)
            ended.append(t)
            return True

        moved: Doc | None = None
        with self._one_write():
            self.store.update_task(task_id, change)
            if ended and not isinstance(outcome, TaskFailed) and outcome.credits:
                self.store.add_credits(ended[0]["user_id"], -outcome.credits)
            if ended:
                moved = self._recompute_job(ended[0].get("job_id"))
            self._one_write.after(lambda: self._ended(task_id, ended[0] if ended else None, moved, outcome))
        return ended[0] if ended else None

    def _ended(self, task_id: str, ended: Doc | None, job: Doc | None, outcome: Outcome | TaskFailed) -> None:
        """A task's end committed: stop its clock and tell of it (and of its job's new status)."""
        seconds = self._stop_running(task_id)
        if ended is None:
            return
        self.changes.publish(ended_change(ended, seconds))
        self._publish_job(job)
        if isinstance(outcome, TaskFailed):
            discard(self.storage, self.config, task_id)

    def _job_touched(self, task: Doc) -> None:
        """A task of a job started or was retried: the job, still processing, changed (the console's
        live view re-reads it). A job change, so the task log and metrics, which count task ends,
        are unaffected."""
        if task.get("job_id"):
            self.changes.publish(Change("job", task["job_id"], "processing", user_id=task.get("user_id")))

    def _job_changed(self, job_id: str | None) -> None:
        self._publish_job(self._recompute_job(job_id))

    def _recompute_job(self, job_id: str | None) -> Doc | None:
        """Recompute the job's status from its tasks, reading them and writing the job in one
        transaction (the caller's, when in one): two tasks ending at once must not leave a stale
        status behind. The job when its status moved, for ``_publish_job`` once committed."""
        if not job_id:
            return None
        moved: list[Doc] = []

        def change(job: Doc) -> bool:
            before = job["status"], job.get("ended_at")
            if not job_status(job, self.store.job_counts(tx, job_id)):  # under the job's row lock
                return False
            if job["status"] != before[0]:
                moved.append(job)
            return (job["status"], job.get("ended_at")) != before  # unchanged: no write (most ends)

        with self.store.transaction() as tx:
            self.store.update_job(job_id, change)
        return moved[0] if moved else None

    def _publish_job(self, job: Doc | None) -> None:
        """Tell of a job's new status (the console's live view), and send its webhook event once it ended."""
        if job is None:
            return
        self.changes.publish(Change("job", job["id"], job["status"], user_id=job.get("user_id")))
        if job["status"] in ENDED:
            self._emit("job.failed" if job["status"] == "error" else "job.finished", job["id"], job)
