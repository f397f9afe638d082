"""The retention sweep: tasks that ended longer ago than the retention are deleted with their files,
and so are the jobs they leave empty.

Cheap at any history (issue 27): expired tasks are found by the ``tasks_ended`` index and deleted in
batches, one short statement each, oldest first (ids are time-ordered, so a batch's rows sit together
in the id indexes too). A batch is the statement, the jobs it left empty, what the scheduler does after it
and the files; the batch size follows the time all of that takes in this process, aiming at
``TARGET_SECONDS``, and after each batch the sweep rests half that long. The files count: deleting
them is Python work under the GIL, and an API thread that waits for the GIL behind a busy thread
waits up to the switch interval (5 ms) each time it takes it back after I/O, so a request is slowed
for about one batch, not for the whole sweep. On SQLite every statement holds the one connection the
API uses too (a request waits for one statement at most); on PostgreSQL the sweep has a connection
of its own, a delete locks only the expired rows, which no request reads, and skips any row another
transaction holds. A job is looked at only when the sweep deleted one of its tasks. Files go by their
task's prefix in the store.

On a team's shared database one process sweeps at a time (an advisory lock); the others skip the round.

Example::

    swept = Retention(store, storage, config).sweep(cutoff="2026-01-01T00:00:00+00:00")
    swept.tasks, swept.jobs   # how many were deleted
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from mcv_pipelines.service.files.storage import Storage
from mcv_pipelines.service.state.config import ServiceConfig
from mcv_pipelines.service.state.store import Store
from mcv_pipelines.service.work.taskfiles import discard

__all__ = ["LOCK_KEY", "Retention", "Swept"]

LOCK_KEY = 7231027  # the advisory lock of the sweep (7231001 is the migrations')
TARGET_SECONDS = 0.020  # one batch's work in this process: statements, follow-up, files
REST = 0.5  # after a batch, the sweep leaves the process alone for this share of the batch's time
MIN_BATCH, FIRST_BATCH, MAX_BATCH = 50, 200, 5000


@dataclass
class Swept:
    """What one sweep did."""

    tasks: int = 0
    jobs: int = 0
    batches: int = 0
    longest: float = 0.0  # seconds of the longest delete statement
    busiest: float = 0.0  # seconds of the longest batch (its statements, follow-up and files)
    skipped: bool = False  # another process of the team holds the sweep


class Retention:
    def __init__(
        self,
        store: Store,
        storage: Storage,
        config: ServiceConfig,
        after_batch: Callable[[list[str], list[str]], None] | None = None,
    ) -> None:
        """``after_batch(task_ids, job_ids_left)``: called after each batch with the tasks deleted
        and the jobs that lost tasks but still have some (the scheduler recomputes those)."""
        self.store = store
        self.storage = storage
        self.config = config
        self.after_batch = after_batch
        self.batch = FIRST_BATCH

    def sweep(self, cutoff: str, stop: threading.Event | None = None) -> Swept:
        """Delete every task that ended before ``cutoff`` (ISO time), batch by batch, until none is
        left or ``stop`` is set. Through ``db.another()``: on PostgreSQL its pool hands the sweep
        connections beside those of the requests, which never queue behind it."""
        db = self.store.db.another()
        store = self.store if db is self.store.db else Store(db)
        try:
            return self._sweep(store, cutoff, stop)
        finally:
            if store is not self.store:
                store.close()

    def _sweep(self, store: Store, cutoff: str, stop: threading.Event | None) -> Swept:
        swept = Swept()
        with store.db.exclusive(LOCK_KEY) as held:
            if not held:
                swept.skipped = True
                return swept
            while stop is None or not stop.is_set():
                began = time.perf_counter()
                deleted = store.delete_ended_before(cutoff, self.batch)
                took = time.perf_counter() - began
                if not deleted:
                    break
                swept.batches += 1
                swept.tasks += len(deleted)
                swept.longest = max(swept.longest, took)
                self._after(store, deleted, swept)
                busy = time.perf_counter() - began
                swept.busiest = max(swept.busiest, busy)
                full = len(deleted) >= self.batch  # a short batch was most likely the last one
                self._resize(busy, len(deleted))
                if full:
                    time.sleep(busy * REST)
        return swept

    def _resize(self, busy: float, rows: int) -> None:
        if rows < self.batch:
            return  # the last, short batch says nothing of the right size
        if busy > 2 * TARGET_SECONDS:
            self.batch = max(MIN_BATCH, self.batch // 2)
        elif busy < TARGET_SECONDS / 2:
            self.batch = min(MAX_BATCH, self.batch * 2)

    def _after(self, store: Store, deleted: list[tuple[str, str | None]], swept: Swept) -> None:
        """The jobs of the deleted tasks, what the scheduler does after them, then their files."""
        touched = sorted({job_id for _, job_id in deleted if job_id})
        gone = set(store.delete_jobs_if_empty(touched))
        swept.jobs += len(gone)
        if self.after_batch is not None:
            self.after_batch([task_id for task_id, _ in deleted], [j for j in touched if j not in gone])
        for task_id, _ in deleted:  # the rows are gone: no request reaches these files any more
            discard(self.storage, self.config, task_id)
