"""The scheduler of a process that shares a PostgreSQL database with other API and worker processes.

Same interface as the single-process Scheduler (the routes cannot tell them apart), but nothing is
decided in memory: workers claim runnable tasks with leases (leases.py), renew them while the tasks
run, and end them in the transaction that also readies dependants and recomputes the job. An ``api``
process (``run_tasks=False``) only writes jobs and tasks and ends uploads and cancels.

Workers wake on any change that may ready a task (this process's, or another's heard through NOTIFY),
one idle claim loop per change, and look again every ``_POLL_MAX`` seconds at most; a lease that ran
out is looked for at most once every ``_LOST_EVERY`` seconds per process, and noticed by those looks.
"""

from __future__ import annotations

import logging
import secrets
import shutil
import threading
import time
from collections.abc import Callable, Iterable, Sequence

from mcv_pipelines.service.engines.base import Engine
from mcv_pipelines.service.files.storage import Storage, StorageError
from mcv_pipelines.service.state.changes import Change, ChangeFeed
from mcv_pipelines.service.state.config import ServiceConfig
from mcv_pipelines.service.state.database import DatabaseUnavailable
from mcv_pipelines.service.state.store import PROCESS, Doc, Store
from mcv_pipelines.service.state.tasks import TaskFailed
from mcv_pipelines.service.work.disk_full import CODE as DISK_FULL
from mcv_pipelines.service.work.leases import claim_task, end_task, renew_leases
from mcv_pipelines.service.work.operations import Outcome
from mcv_pipelines.service.work.scheduler import DatabaseAway, Scheduler
from mcv_pipelines.service.work.staging import clear_stale_staging
from mcv_pipelines.service.work.task_events import JobEvents, ended_change
from mcv_pipelines.service.work.taskfiles import discard

__all__ = ["LeaseScheduler"]

log = logging.getLogger(__name__)
_POLL_MIN, _POLL_MAX = 0.05, 2.0
# How often this process's claim loops look for tasks whose lease ran out (a worker that died): the
# look is a statement of its own, and a lease lasts many seconds, so once a second is soon enough.
_LOST_EVERY = 1.0
_END_PATIENCE = 60.0  # how long a worker keeps trying to record a task's end before handing it back
_DISK_FULL_PAUSE = 30.0  # a worker whose disk filled claims nothing this long: the others take the work


class LeaseScheduler(Scheduler):
    def __init__(
        self,
        config: ServiceConfig,
        store: Store,
        engines: Sequence[Engine],
        on_job_event: JobEvents,
        changes: ChangeFeed | None = None,
        storage: Storage | None = None,
        *,
        run_tasks: bool,
        lease_seconds: float,
        on_lease_lost: Callable[[], None] = lambda: None,
    ) -> None:
        super().__init__(config, store, engines, on_job_event, changes, storage)
        self.run_tasks = run_tasks
        self.lease_seconds = lease_seconds
        self.owner = f"{PROCESS}:{secrets.token_hex(4)}"  # a restarted worker is a new owner
        self._lease_lost = on_lease_lost
        self._wake = threading.Condition()
        self._generation = 0
        self._threads: list[threading.Thread] = []
        self._disk_full_until = 0.0  # monotonic time until which this worker claims nothing
        self._lost_due = 0.0  # monotonic time of the next look for tasks whose lease ran out
        self.changes.listen(self._wake_claimers)

    def start(self) -> None:
        self._janitor.start()
        if not self.run_tasks:
            return
        try:
            clear_stale_staging(self.config, self.storage, self.store)
        except DatabaseUnavailable as exc:  # tried again at the next start
            log.warning("stale task directories left: %s", exc)
        for n in range(max(1, self.config.workers)):
            self._threads.append(
                threading.Thread(target=self._claim_loop, name=f"mcv-claim-{n}", daemon=True)
            )
        self._threads.append(threading.Thread(target=self._heartbeat_loop, name="mcv-lease", daemon=True))
        for thread in self._threads:
            thread.start()

    def stop(self) -> None:
        super().stop()
        with self._wake:
            self._wake.notify_all()
        for thread in self._threads:
            thread.join(timeout=5)
        if self.run_tasks:  # hand what this worker held to the others at once
            try:
                with self.store.transaction() as tx:
                    tx.execute(
                        "UPDATE tasks SET lease_expires = 0 WHERE lease_owner = ? AND status = 'processing'",
                        (self.owner,),
                    )
            except DatabaseUnavailable:
                pass

    def kick(self, ids: Iterable[str] | None = None, known: Iterable[Doc] = ()) -> int:
        """Wake one idle claim loop (which task can run is the database's to say). A loop that claims
        a task wakes the next before it runs it, so a burst of ready tasks is taken loop by loop, and
        a change that readied one task costs one look, not one per idle loop. None is started here,
        so 0: what the claim loops do comes after."""
        with self._wake:
            self._generation += 1
            self._wake.notify()
        return 0

    def _wake_claimers(self, change: Change) -> None:
        """A change that may have made a task claimable: a task saved waiting (readied, when its
        inputs had ended), one that ended (its dependants readied in the same transaction), anything
        deleted. A task or job now ``processing`` (a claim, a task's percent) readies nothing: waking
        every claim loop of every worker for it cost a claim's transaction each, several per task."""
        if change.status != "processing":
            self.kick()

    def queue_depth(self) -> int:
        rows = self.store.db.read("SELECT COUNT(*) FROM tasks WHERE status = 'waiting' AND ready = 1")
        return int(rows[0][0]) if rows else 0

    # the worker side
    def _claim_loop(self) -> None:
        delay = _POLL_MIN
        while not self._stopping.is_set():
            with self._wake:
                generation = self._generation
            full_for = self._disk_full_until - time.monotonic()
            if full_for > 0:
                self._stopping.wait(min(full_for, _POLL_MAX))
                continue
            look_for_lost = time.monotonic() >= self._lost_due
            if look_for_lost:
                self._lost_due = time.monotonic() + _LOST_EVERY
            try:
                claim = claim_task(self.store, self.owner, self.lease_seconds, look_for_lost)
            except Exception as exc:  # the database is down: keep trying, slowly
                log.warning("cannot claim tasks: %s", exc)
                claim = None
                delay = _POLL_MAX
            if claim is not None:
                delay = _POLL_MIN
                self.kick()  # another idle loop looks for the next ready task while this one runs
                if claim.lease_lost:
                    self._lease_lost()
                try:
                    self._start_claimed(claim.task)
                except Exception as exc:  # the database went away mid-task: its lease runs out, it runs again
                    log.warning("task %s left to another worker: %s", claim.task["id"], exc)
                    self._stop_running(claim.task["id"])
                continue
            self._sleep(generation, delay)
            delay = min(delay * 2, _POLL_MAX)

    def _sleep(self, generation: int, delay: float) -> None:
        """Until a change newer than ``generation``, a stop, or ``delay`` seconds."""
        with self._wake:
            self._wake.wait_for(lambda: self._generation != generation or self._stopping.is_set(), delay)

    def _start_claimed(self, task: Doc) -> None:
        cancelled = threading.Event()
        with self._lock:
            self._running[task["id"]] = cancelled
        job_id = task.get("job_id")
        job = self.store.get_job(job_id) if job_id else None
        if job and not job.get("started_at"):
            self.store.update_job(job["id"], _mark_started)
        deps = [self.store.get_task(i) for i in task.get("depends_on", {}).values()]
        if any(d is None or d["status"] == "error" for d in deps) and not (job and job.get("ignore_error")):
            self._end(task["id"], TaskFailed("INPUT_TASK_FAILED", "Input task has failed"), ("processing",))
            return
        with self._lock:
            self._queued += 1  # _run counts it off
        self._deadlines.add(task["id"], float(task["payload"].get("timeout") or self.config.default_timeout))
        self._run(task["id"], cancelled, None, task)  # as its claim wrote it: not read again

    def _heartbeat_loop(self) -> None:
        while not self._stopping.wait(max(0.2, self.lease_seconds / 3)):
            with self._lock:
                running = list(self._running)
            if not running:
                continue
            try:
                held = renew_leases(self.store, self.owner, self.lease_seconds)
            except Exception:
                log.warning("cannot renew task leases: database unavailable")
                continue
            for task_id in running:
                if task_id not in held:  # cancelled, deleted, or the lease went to another worker
                    self._stop_running(task_id)

    # ending
    def _end(self, task_id: str, outcome: Outcome | TaskFailed, allowed: tuple[str, ...]) -> Doc | None:
        owner = self.owner if allowed == ("processing",) else None
        away = isinstance(outcome, DatabaseAway) or (isinstance(outcome, StorageError) and outcome.transient)
        if owner is not None and isinstance(outcome, TaskFailed) and away:
            self._hand_back(task_id, outcome.message)  # the store or the database was away: not its fault
            return None
        if isinstance(outcome, TaskFailed) and outcome.code == DISK_FULL:
            log.warning("this worker claims no task for %.0f s: its disk is full", _DISK_FULL_PAUSE)
            self._disk_full_until = time.monotonic() + _DISK_FULL_PAUSE
        deadline = time.monotonic() + _END_PATIENCE
        while True:
            try:
                ended = end_task(self.store, task_id, outcome, allowed, owner)
                break
            except DatabaseUnavailable as exc:  # lost mid-transaction: nothing was written
                if owner is None or self._stopping.is_set() or time.monotonic() > deadline:
                    if owner is None:
                        raise
                    log.warning("task %s handed back: cannot record its end: %s", task_id, exc)
                    self._stop_running(task_id)  # its lease runs out; another run records it
                    return None
                self._stopping.wait(0.5)
        seconds = self._stop_running(task_id)
        for task in ended.tasks:  # the others (dependants failed with it) never ran here
            self.changes.publish(ended_change(task, seconds if task["id"] == task_id else None))
            if task["status"] == "error":
                discard(self.storage, self.config, task["id"])
        for job_id, status in ended.jobs:
            job = self.store.get_job(job_id)
            self.changes.publish(Change("job", job_id, status, user_id=job.get("user_id") if job else None))
            self._emit("job.failed" if status == "error" else "job.finished", job_id)
        return next((task for task in ended.tasks if task["id"] == task_id), None)

    def _end_and_kick(
        self, task_id: str, outcome: Outcome | TaskFailed, allowed: tuple[str, ...]
    ) -> Doc | None:
        """``end_task`` readies the dependants in its own transaction, retried alone when the database
        drops it, and tells only after its commit: no outer write to join, just the claim loops to wake."""
        ended = self._end(task_id, outcome, allowed)
        self.kick()
        return ended

    def _hand_back(self, task_id: str, reason: str) -> None:
        """Give a task this worker could not finish for a transient fault back to the queue."""
        log.warning("task %s handed back to the queue: %s", task_id, reason)
        self._stop_running(task_id)
        shutil.rmtree(self.config.task_dir(task_id), ignore_errors=True)  # staged outputs of this run
        try:
            with self.store.transaction() as tx:
                tx.execute(
                    "UPDATE tasks SET lease_expires = 0"
                    " WHERE id = ? AND lease_owner = ? AND status = 'processing'",
                    (task_id, self.owner),
                )
        except DatabaseUnavailable:
            pass  # its lease runs out by itself

    def sweep(self) -> None:
        try:
            super().sweep()
        except DatabaseUnavailable as exc:
            log.warning("janitor skipped a round: %s", exc)


def _mark_started(job: Doc) -> bool:
    from mcv_pipelines.service.state.store import now_iso

    if job.get("started_at"):
        return False
    job["started_at"] = now_iso()
    return True
