"""Runs tasks: a task starts when its inputs have ended, independent tasks run in parallel in a bounded
worker pool, a failed input fails its dependants (unless the job has ignore_error), a timeout or a cancel
stops a task, and the job's status follows its tasks.

State lives in the store only, so a restart picks up where the service stopped: tasks found
``processing`` at start (the process died under them) are run again.
"""

from __future__ import annotations

import contextlib
import logging
import shutil
import threading
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from typing import TypeVar

from mcv_pipelines.service.engines.base import Engine, InputFile
from mcv_pipelines.service.files.storage import DirectoryStorage, Storage
from mcv_pipelines.service.state.changes import Change, ChangeFeed
from mcv_pipelines.service.state.config import ServiceConfig
from mcv_pipelines.service.state.database import DatabaseUnavailable
from mcv_pipelines.service.state.store import Doc, Store, now_iso
from mcv_pipelines.service.state.tasks import ENDED, TaskFailed, input_names, retry_task
from mcv_pipelines.service.work.deadlines import Deadlines
from mcv_pipelines.service.work.disk_full import disk_full
from mcv_pipelines.service.work.instore import run_in_store
from mcv_pipelines.service.work.one_write import OneWrite
from mcv_pipelines.service.work.operations import Outcome, execute
from mcv_pipelines.service.work.progress import TaskProgress
from mcv_pipelines.service.work.retention import Retention
from mcv_pipelines.service.work.task_end import TaskEnding
from mcv_pipelines.service.work.task_events import JobEvents, ended_change
from mcv_pipelines.service.work.taskfiles import check_stored_sandbox, discard, fetch_input, publish

__all__ = ["DatabaseAway", "JobEvents", "Scheduler"]


class DatabaseAway(TaskFailed):
    """The service's database went away while a task ran (its inputs or progress could not be read or
    written): not the task's fault. A team's worker hands such a task back to the queue."""

    def __init__(self, exc: DatabaseUnavailable) -> None:
        super().__init__("DATABASE_UNAVAILABLE", f"The service's database was away while the task ran: {exc}")

log = logging.getLogger(__name__)

# A task handed to a pool thread: its id, its cancel flag, its input tasks as read when it started,
# and the task itself as its start wrote it (None: read it).
_Start = tuple[str, threading.Event, "dict[str, Doc] | None", "Doc | None"]
_T = TypeVar("_T")
_UPLOADS_LOCK = 7231028  # a team-wide advisory lock: one process fails expired upload forms


class Scheduler(TaskEnding):
    def __init__(
        self,
        config: ServiceConfig,
        store: Store,
        engines: Sequence[Engine],
        on_job_event: JobEvents,
        changes: ChangeFeed | None = None,
        storage: Storage | None = None,
    ) -> None:
        self.storage = storage or DirectoryStorage(config.data_dir)
        self.changes = changes or ChangeFeed()
        self.config = config
        self.store = store
        self.engines = list(engines)
        self._emit = on_job_event
        self._pool = ThreadPoolExecutor(max(1, config.workers), thread_name_prefix="mcv-task")
        self._lock = threading.RLock()
        self._running: dict[str, threading.Event] = {}
        self._queued = 0  # submitted to the pool, waiting for a free worker thread
        self._local = threading.local()  # .started: tasks a pool thread's kick started, for it to run
        self._one_write = OneWrite(self._lock, store)  # an end and the starts it frees: one write
        self._deadlines = Deadlines(self._timed_out)  # task timeouts, all on one thread
        self._stopping = threading.Event()
        self.retention = Retention(store, self.storage, config, after_batch=self._swept)
        self._janitor = threading.Thread(target=self._janitor_loop, name="mcv-janitor", daemon=True)

    # life cycle
    def start(self) -> None:
        for task in self.store.tasks_with_status("processing"):  # the service died under these

            def reset(t: Doc) -> bool:
                t.update(status="waiting", started_at=None, percent=0, message=None)
                return True

            self.store.update_task(task["id"], reset)
        self._janitor.start()
        self.kick()

    def stop(self) -> None:
        self._stopping.set()
        with self._lock:
            for event in self._running.values():
                event.set()
        self._deadlines.stop()
        self._pool.shutdown(wait=True, cancel_futures=True)

    # entry points
    def add_job(self, job: Doc, tasks: list[Doc]) -> bool:
        """A job just created, with its tasks (ids new to the store). True when none of them started
        or failed at once: ``job`` and ``tasks`` are then still as stored."""
        self.store.save_tasks(tasks, job, new=True)
        self.changes.publish(Change("job", job["id"], job["status"], user_id=job.get("user_id")))
        self._emit("job.created", job["id"], job)
        born = [t for t in tasks if t["status"] in ENDED]  # embedded imports (work/embedded.py)
        for task in born:
            self.changes.publish(ended_change(task))
        new = {t["id"] for t in tasks}  # a task with an input in the same new job waits for it
        first = [t["id"] for t in tasks if not new & set(t.get("depends_on", {}).values())]
        moved = self.kick(first, tasks)
        if born and len(born) == len(tasks):  # nothing left to run: the job ends as it is created
            self._job_changed(job["id"])
            return False
        return not moved

    def add_task(self, task: Doc) -> None:
        self.store.save_task(task)
        self.kick([task["id"]])

    def cancel(self, task_id: str) -> Doc | None:
        self._end(task_id, TaskFailed("CANCELLED", "The task was cancelled."), ("waiting", "processing"))
        self.kick([task_id])
        return self.store.get_task(task_id)

    def retry(self, task_id: str) -> Doc | None:
        source = self.store.get_task(task_id)
        if source is None:
            return None
        task = retry_task(source)
        self.store.save_task(task)
        self._job_changed(task.get("job_id"))
        self._job_touched(task)
        self.kick([task["id"]])
        return self.store.get_task(task["id"])

    def delete_task(self, task_id: str) -> None:
        task = self.store.get_task(task_id)
        self._stop_running(task_id)
        self.store.delete_task(task_id)
        discard(self.storage, self.config, task_id)
        job_id = task.get("job_id") if task is not None else None
        if job_id and not self.store.delete_jobs_if_empty([job_id]):  # an ended job left empty goes too
            self._job_changed(job_id)
        self.kick([task_id])  # a task waiting on it has an input gone: it fails (or runs, ignore_error)

    def delete_job(self, job_id: str) -> None:
        job = self.store.get_job(job_id)
        tasks = self.store.job_tasks(job_id)
        for task in tasks:
            self._stop_running(task["id"])
        self.store.delete_job(job_id)
        if job is not None:
            self.changes.publish(Change("job", job_id, "deleted", user_id=job.get("user_id")))
        for task in tasks:
            discard(self.storage, self.config, task["id"])
        self.kick([t["id"] for t in tasks])  # a task of another job may have waited on one of them

    def complete_upload(self, task_id: str, entry: Doc) -> Doc | None:
        """An import/upload task got its file (already in the store): the task as it ended (None
        when it had ended, or was deleted, meanwhile)."""
        outcome: Outcome | TaskFailed = Outcome({"files": [entry]})
        try:
            if self.config.sandbox:
                check_stored_sandbox(self.config, self.storage, task_id, [entry["filename"]])
        except TaskFailed as failure:
            outcome = failure
        return self._end_and_kick(task_id, outcome, ("waiting",))

    def _end_and_kick(
        self, task_id: str, outcome: Outcome | TaskFailed, allowed: tuple[str, ...]
    ) -> Doc | None:
        """``_end``, then ``kick`` the task's dependants, in one transaction (``_one_write``): a task's
        end and its dependant's start are one write, not two. Should that write fail, the end is
        written alone, as it would have been without the kick."""
        committed: list[bool] = []
        try:
            with self._one_write(committed):
                ended = self._end(task_id, outcome, allowed)
                self.kick([task_id], [ended] if ended else [])
            return ended
        except Exception:
            if committed:  # what failed came after: told as ever
                raise
            log.warning("task %s: its end and its dependants' start failed as one write", task_id)
        ended = self._end(task_id, outcome, allowed)
        # the task has ended: a database gone now only delays its dependants (the janitor's round
        # starts them), and must not tell the uploader that its file was refused
        with contextlib.suppress(DatabaseUnavailable):
            self.kick([task_id], [ended] if ended else [])
        return ended

    def queue_depth(self) -> int:
        """Tasks that could run now but wait for a worker: handed to the pool and not yet started,
        plus waiting ones (not uploads) whose inputs have all ended."""
        with self._lock:
            count = self._queued
        for task in self.store.tasks_with_status("waiting"):
            if task["operation"] == "import/upload" or task["id"] in self._running:
                continue
            deps = [self.store.get_task(i) for i in task.get("depends_on", {}).values()]
            count += all(d is None or d["status"] in ENDED for d in deps)
        return count

    # scheduling
    def kick(self, ids: Iterable[str] | None = None, known: Iterable[Doc] = ()) -> int:
        """Start every waiting task whose inputs have ended; fail those whose inputs failed. How many
        it started or failed.

        With ``ids`` (tasks just saved, ended or retried) only those and their waiting dependants are
        looked at, so the cost of an event does not grow with the number of waiting tasks; without,
        every waiting task is (at start, and on each janitor round as a safety net). ``known``: tasks
        the caller has just stored (ended, say), as stored, which their dependants need not read again.
        """
        if self._stopping.is_set():
            return 0
        moved = 0
        docs = {t["id"]: t for t in known if t is not None}
        with self._lock:
            if ids is None:
                while True:  # a start or failure may free others: look again until nothing moves
                    round_moved = sum(
                        self._consider(task) is not None for task in self.store.tasks_with_status("waiting")
                    )
                    moved += round_moved
                    if not round_moved:
                        return moved
            todo = list(ids)
            while todo:  # a task failed for its input fails its own dependants in turn
                outcomes = [(t["id"], self._consider(t, docs)) for t in self.store.waiting_near(todo)]
                moved += sum(1 for _, outcome in outcomes if outcome is not None)
                todo = [task_id for task_id, outcome in outcomes if outcome == "failed"]
                docs = {}  # those failed since: read as they are now
        return moved

    def _consider(self, task: Doc, known: dict[str, Doc] | None = None) -> str | None:
        """Start ``task`` ("started") or fail it for a failed input ("failed"); None when it waits on.
        ``known``: tasks as just stored (``kick``'s), not read again."""
        if task["operation"] == "import/upload" or task["id"] in self._running:
            return None
        known = known or {}
        deps = [known.get(i) or self.store.get_task(i) for i in task.get("depends_on", {}).values()]
        if any(d is not None and d["status"] not in ENDED for d in deps):
            return None
        job_id = task.get("job_id")
        if any(d is None or d["status"] == "error" for d in deps):
            job = self.store.get_job(job_id) if job_id else None
            if not (job and job.get("ignore_error")):
                self._end(task["id"], TaskFailed("INPUT_TASK_FAILED", "Input task has failed"), ("waiting",))
                return "failed"
        began: list[Doc] = []

        def begin(t: Doc) -> bool:
            if t["status"] != "waiting":
                return False
            t.update(status="processing", started_at=now_iso(), message=None)
            began.append(t)
            return True

        def job_started(j: Doc) -> bool:
            if j.get("started_at"):
                return False  # the job's first task to start wrote it: most starts write no job
            j["started_at"] = now_iso()
            return True

        with self._one_write():  # the task and its job's start in one write (with the end that freed it)
            self.store.update_task(task["id"], begin)
            if began and job_id:
                self.store.update_job(job_id, job_started)  # read under the row lock, not before
        if not began:  # another path ended it meanwhile
            return None
        cancelled = threading.Event()
        ended_inputs = {d["id"]: d for d in deps if d is not None}  # ended: they no longer change
        collecting: list[_Start] | None = getattr(self._local, "started", None)
        self._one_write.after(lambda: self._launch(began[0], cancelled, ended_inputs, collecting))
        return "started"

    def _launch(
        self, task: Doc, cancelled: threading.Event, inputs: dict[str, Doc], collecting: list[_Start] | None
    ) -> None:
        """A task's start committed: tell of it, time it, and hand it to a pool thread (to the one
        whose task's end started it, when ``collecting``)."""
        with self._lock:
            self._running[task["id"]] = cancelled
            self._queued += 1
        self._job_touched(task)
        self._deadlines.add(task["id"], float(task["payload"].get("timeout") or self.config.default_timeout))
        if collecting is not None:  # a pool thread ending a task runs what it started (_run)
            collecting.append((task["id"], cancelled, inputs, task))
        else:
            self._pool.submit(self._run, task["id"], cancelled, inputs, task)

    def _run(
        self,
        task_id: str,
        cancelled: threading.Event,
        inputs: dict[str, Doc] | None = None,
        task: Doc | None = None,
    ) -> None:
        """Run a task on this pool thread, then the first task its end started (its dependant, say
        an export after a convert) on the same thread: handing it to another worker costs a thread
        wake-up per step of a job, more than a small task's work. ``inputs``: its input tasks as
        read when it started (ended, so still current), or None to read them; ``task``: the task as its
        start wrote it, or None to read it."""
        step: _Start | None = (task_id, cancelled, inputs, task)
        while step is not None:
            step = self._run_one(*step)

    def _run_one(
        self, task_id: str, cancelled: threading.Event, inputs: dict[str, Doc] | None, started: Doc | None
    ) -> _Start | None:
        with self._lock:
            self._queued -= 1
        finished = False  # this thread ended the task as finished: its files stay, no need to look
        kicked = False  # its end kicked its dependants (else: kick them here, whatever happened)
        following: tuple[object, list[_Start]] = (None, [])
        try:
            # as its start wrote it, unless stopped since (deleted, say): then as stored, if at all
            task = started if started is not None and not cancelled.is_set() else self.store.get_task(task_id)
            if task is None:
                return None
            try:
                progress = TaskProgress(self.store, self.changes, task)  # percent while it runs
                done = run_in_store(self.storage, self.config, self.store, task) or execute(
                    self.config, self.engines, task, self._inputs(task, inputs), cancelled, progress
                )
                outcome: Outcome | TaskFailed = publish(self.storage, self.config, task_id, done)
            except TaskFailed as failure:
                outcome = disk_full(failure, self.config.data_dir) or failure
            except DatabaseUnavailable as exc:  # reading its inputs or writing its percent
                log.warning("task %s met the database away: %s", task_id, exc)
                outcome = DatabaseAway(exc)
            except Exception as exc:  # an engine bug must not take the service down
                full = disk_full(exc, self.config.data_dir)
                if full is not None:
                    log.warning("task %s failed: %s", task_id, full.message)  # no bug: no traceback
                elif not cancelled.is_set():  # a stopped task's files vanish under it: no bug
                    log.exception("task %s failed unexpectedly", task_id)
                outcome = full or TaskFailed(
                    "INTERNAL_ERROR", f"Internal error while running the task ({type(exc).__name__})."
                )
            if not cancelled.is_set():
                following = self._collecting(lambda: self._end_and_kick(task_id, outcome, ("processing",)))
                finished = following[0] is not None and not isinstance(outcome, TaskFailed)
                kicked = True
        finally:
            shutil.rmtree(self.config.work_dir(task_id), ignore_errors=True)
            with contextlib.suppress(DatabaseUnavailable):  # away: the task's next run decides
                if not finished and (self.store.get_task(task_id) or {}).get("status", "error") == "error":
                    discard(self.storage, self.config, task_id)  # deleted or stopped while it ran
            if not kicked:
                following = self._collecting(lambda: self.kick([task_id]))
        steps = following[1]
        for extra in steps[1:]:
            self._pool.submit(self._run, *extra)
        return steps[0] if steps else None

    def _collecting(self, work: Callable[[], _T]) -> tuple[_T, list[_Start]]:
        """``work``'s result, and the tasks its kicks started, returned to the caller instead of
        handed to the pool."""
        started: list[_Start] = []
        self._local.started = started
        try:
            return work(), started
        finally:
            self._local.started = None

    def _inputs(self, task: Doc, known: dict[str, Doc] | None = None) -> list[InputFile]:
        files: list[InputFile] = []
        payload = task["payload"]
        deps = task.get("depends_on", {})
        for ref in [*input_names(payload.get("input")), *input_names(payload.get("image"))]:
            dep_id = deps.get(ref, ref)
            dep = (known or {}).get(dep_id) or self.store.get_task(dep_id)
            if dep is None or dep["status"] != "finished":
                continue
            for entry in (dep.get("result") or {}).get("files", []):
                path = fetch_input(self.storage, self.config, task["id"], dep["id"], entry["filename"])
                if path is not None:
                    files.append(InputFile(task_name=dep.get("name") or dep["id"], path=path))
        return files

    def _timed_out(self, task_id: str, timeout: float) -> None:
        failure = TaskFailed("TIMEOUT", f"The task was cancelled after its timeout of {timeout:g} seconds.")
        self._end(task_id, failure, ("processing",))
        self.kick([task_id])

    def _janitor_loop(self) -> None:
        while not self._stopping.wait(self.config.janitor_interval):
            self.sweep()

    def sweep(self) -> None:
        """Fail uploads whose form expired; delete tasks that ended longer ago than the retention, and
        the jobs they leave empty (work/retention.py). Each by one process of a team at a time."""
        with self.store.db.exclusive(_UPLOADS_LOCK) as held:
            if held:
                expired = _ago(self.config.upload_ttl)
                for task in self.store.tasks_with_status("waiting"):
                    if task["operation"] == "import/upload" and task["created_at"] < expired:
                        failure = TaskFailed(
                            "UPLOAD_EXPIRED", "No file was uploaded before the upload form expired."
                        )
                        self._end(task["id"], failure, ("waiting",))
                self.kick()
        self.retention.sweep(_ago(self.config.task_retention), self._stopping)

    def _swept(self, task_ids: list[str], jobs_left: list[str]) -> None:
        """After a batch of the retention sweep: jobs that still have tasks follow what is left, and
        a task that waited on a deleted one fails (or runs, with ignore_error)."""
        for job_id in jobs_left:
            self._job_changed(job_id)
        self.kick(task_ids)


def _ago(seconds: float) -> str:
    return (datetime.now(UTC) - timedelta(seconds=seconds)).isoformat(timespec="seconds")
