"""The retention sweep: tasks that ended longer ago than the retention are deleted with their files,
and so are the jobs they leave empty.

Cheap at any history (issue 27): expired tasks are found by the ``tasks_ended`` index and deleted in
batches, one short statement each. On SQLite every statement holds the one connection the API uses
too, so the batch size follows the time a statement takes, aiming at ``TARGET_SECONDS`` (an API
request waits for one statement at most), and after each batch the sweep leaves the database alone
for half the time it held it (deleting the batch's files meanwhile), so the API keeps at least a
third of it under a long sweep. On PostgreSQL the sweep has a connection of its own, a delete locks
only the expired rows, which no request reads, and skips any row another transaction holds: batches
aim at ``SHARED_TARGET_SECONDS``. A job
is looked at only when the sweep deleted one of its tasks. Files go by their task's prefix in the
store.

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
TARGET_SECONDS = 0.010
SHARED_TARGET_SECONDS = 0.050
MIN_BATCH, FIRST_BATCH, MAX_BATCH = 100, 1000, 5000


@dataclass
class Swept:
    """What one sweep did."""

    tasks: int = 0
    jobs: int = 0
    batches: int = 0
    longest: float = 0.0  # seconds of the longest delete statement
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
        self.target = SHARED_TARGET_SECONDS if store.db.shared else TARGET_SECONDS

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
                self._resize(took, len(deleted))
                in_db, on_files = self._after(store, deleted, swept)
                time.sleep(max(0.0, (took + in_db) / 2 - on_files))
        return swept

    def _resize(self, took: float, rows: int) -> None:
        if rows < self.batch:
            return  # the last, short batch says nothing of the right size
        if took > 2 * self.target:
            self.batch = max(MIN_BATCH, self.batch // 2)
        elif took < self.target / 2:
            self.batch = min(MAX_BATCH, self.batch * 2)

    def _after(
        self, store: Store, deleted: list[tuple[str, str | None]], swept: Swept
    ) -> tuple[float, float]:
        """The jobs of the deleted tasks, then their files; the seconds spent in the database and on
        the files."""
        began = time.perf_counter()
        touched = sorted({job_id for _, job_id in deleted if job_id})
        gone = set(store.delete_jobs_if_empty(touched))
        swept.jobs += len(gone)
        if self.after_batch is not None:
            self.after_batch([task_id for task_id, _ in deleted], [j for j in touched if j not in gone])
        held = time.perf_counter() - began
        for task_id, _ in deleted:  # the rows are gone: no request reaches these files any more
            discard(self.storage, self.config, task_id)
        return held, time.perf_counter() - began - held
