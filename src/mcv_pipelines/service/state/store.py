"""The service's state: users and API keys (accounts.py), jobs, tasks, webhooks, in SQLite or
PostgreSQL.

Jobs, tasks and webhooks are kept as JSON documents beside the few columns that lists filter on (and,
for tasks, the columns leases use: ``ready``, ``deps``, ``lease_owner``, ``lease_expires``). On a
shared database (PostgreSQL) every saved job or task is announced to the other processes (NOTIFY).
"""

# The SQL built with f-strings joins only constant fragments of the Database class (row locks,
# its clock): every value goes through ? marks.
# ruff: noqa: S608

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any, NamedTuple

from mcv_pipelines.service.state import jsontext
from mcv_pipelines.service.state.accounts import AccountStore, Doc, hash_key, now_iso
from mcv_pipelines.service.state.database import Database, Tx

__all__ = ["Doc", "JobCounts", "Store", "hash_key", "notice", "now_iso", "parse_iso"]

_ENDED = ("finished", "error")
PROCESS = f"{os.uname().nodename}:{os.getpid()}"  # names this process in notices and leases


def parse_iso(value: str) -> datetime:
    return datetime.fromisoformat(value)


def notice(kind: str, doc: Doc) -> str:
    """The NOTIFY payload that tells other processes ``doc`` changed."""
    return json.dumps(
        {
            "kind": kind,
            "id": doc["id"],
            "status": doc.get("status"),
            "user_id": doc.get("user_id"),
            "job_id": doc.get("job_id"),
            "from": PROCESS,
        }
    )


class JobCounts(NamedTuple):
    """What a job's status follows: its tasks, a retried task left out (its retry stands in for it);
    those of them not ended yet, and those that failed."""

    total: int
    open: int
    failed: int

    @classmethod
    def of(cls, tasks: list[Doc]) -> JobCounts:
        """The counts of a job's tasks as read whole (``Store.job_counts`` asks the database)."""
        retried = {t["retry_of_task_id"] for t in tasks if t.get("retry_of_task_id")}
        live = [t["status"] for t in tasks if t["id"] not in retried]
        return cls(len(live), sum(s not in _ENDED for s in live), live.count("error"))


class Store(AccountStore):
    """Thread-safe access to the service's database (a Database, or the path of a SQLite file)."""

    def __init__(self, db: Database | Path) -> None:
        super().__init__(db)
        self._hooks_lock = threading.Lock()
        self._hook_owners: frozenset[int] | None = None  # users with a webhook (database of ours alone)
        self._hooks_generation = 0  # grows with every webhook saved or deleted here

    # jobs
    def save_job(self, job: Doc) -> None:
        with self.transaction() as tx:
            self._save_job(tx, job)

    def _save_job(self, tx: Tx, job: Doc, *, new: bool = False) -> None:
        """Update the job, or insert it when no row has its id; ``new`` (an id just made) inserts
        without the update that would find nothing."""
        values = (job["user_id"], job.get("tag"), job["status"], jsontext.dumps(job), job["id"])
        sql = "UPDATE jobs SET user_id = ?, tag = ?, status = ?, doc = ? WHERE id = ? RETURNING seq"
        if new or not tx.execute(sql, values):  # one statement for the usual update, not two
            tx.execute(
                "INSERT INTO jobs (user_id, tag, status, doc, id, seq) VALUES (?, ?, ?, ?, ?, ?)",
                (*values, self.db.next_seq(tx)),
            )
        if self.db.shared:
            tx.notify(notice("job", job))

    def get_job(self, job_id: str) -> Doc | None:
        rows = self._read("SELECT doc FROM jobs WHERE id = ?", (job_id,))
        return None if not rows else _load(rows[0][0])

    def update_job(self, job_id: str, change: Callable[[Doc], bool]) -> Doc | None:
        """Apply ``change`` to the stored job (its row locked); saved when it returns True."""
        with self.transaction() as tx:
            row = tx.one("SELECT doc FROM jobs WHERE id = ?" + self.db.lock_rows, (job_id,))
            if row is None:
                return None
            job = _load(row[0])
            if change(job):
                self._save_job(tx, job)
            return job

    def list_jobs(
        self,
        user_id: int,
        status: str | None,
        tag: str | None,
        limit: int,
        offset: int,
        below: int | None = None,
    ) -> list[tuple[int, Doc]]:
        """A page of the user's jobs, newest first, as (seq, job): those with a seq under ``below``
        when it is given (read straight off an index), else after skipping ``offset``."""
        sql, args = "SELECT seq, doc FROM jobs WHERE user_id = ?", list[Any]([user_id])
        if status:
            sql, args = sql + " AND status = ?", [*args, status]
        if tag:
            sql, args = sql + " AND tag = ?", [*args, tag]
        return self._page(sql, args, limit, offset, below)

    def _page(
        self, sql: str, args: list[Any], limit: int, offset: int, below: int | None
    ) -> list[tuple[int, Doc]]:
        if below is not None:
            sql, args, offset = sql + " AND seq < ?", [*args, below], 0
        rows = self._read(sql + " ORDER BY seq DESC LIMIT ? OFFSET ?", [*args, limit, offset])
        return [(int(row[0]), _load(row[1])) for row in rows]

    def delete_job(self, job_id: str) -> None:
        with self.transaction() as tx:  # the job's row first, as ending a task takes them: no deadlock
            tx.execute("SELECT id FROM jobs WHERE id = ?" + self.db.lock_rows, (job_id,))
            tx.execute("DELETE FROM tasks WHERE job_id = ?", (job_id,))
            tx.execute("DELETE FROM jobs WHERE id = ?", (job_id,))

    # tasks
    def save_task(self, task: Doc) -> None:
        with self.transaction() as tx:
            self._save_task(tx, task)
            self._mark_ready(tx, task)

    def save_tasks(self, tasks: list[Doc], job: Doc | None = None, *, new: bool = False) -> None:
        """Save ``tasks`` (and ``job``) in one transaction; ``new``: all of them have ids just made,
        so each is one insert."""
        with self.transaction() as tx:
            if job is not None:
                self._save_job(tx, job, new=new)
            for task in tasks:
                self._save_task(tx, task, new=new)
            for task in tasks:  # once all are in: an input saved after its dependant counts
                self._mark_ready(tx, task)

    def _save_task(self, tx: Tx, task: Doc, *, new: bool = False) -> None:
        deps = " ".join(task.get("depends_on", {}).values())
        values = (
            task.get("job_id"),
            task["user_id"],
            task["operation"],
            task["status"],
            task.get("ended_at"),
            jsontext.dumps(task),
            deps,
            task.get("retry_of_task_id"),
            task["id"],
        )
        updated = not new and tx.execute(
            "UPDATE tasks SET job_id = ?, user_id = ?, operation = ?, status = ?, ended_at = ?, doc = ?,"
            " deps = ?, retry_of = ? WHERE id = ? RETURNING seq",
            values,
        )
        if not updated:  # a new task
            tx.execute(
                "INSERT INTO tasks (job_id, user_id, operation, status, ended_at, doc, deps, retry_of, id,"
                " seq) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (*values, self.db.next_seq(tx)),
            )
        if self.db.shared:
            tx.notify(notice("task", task))

    def _mark_ready(self, tx: Tx, task: Doc) -> None:
        """On a shared database: a waiting task whose inputs have all ended can be claimed."""
        if not self.db.shared or task["status"] != "waiting" or task["operation"] == "import/upload":
            return
        if self.inputs_ended(tx, task):
            tx.execute(
                f"UPDATE tasks SET ready = 1, ready_at = {self.db.now_sql} WHERE id = ?", (task["id"],)
            )

    @staticmethod
    def inputs_ended(tx: Tx, task: Doc) -> bool:
        for dep_id in task.get("depends_on", {}).values():
            row = tx.one("SELECT status FROM tasks WHERE id = ?", (dep_id,))
            if row is not None and row[0] not in _ENDED:
                return False
        return True

    def get_task(self, task_id: str) -> Doc | None:
        rows = self._read("SELECT doc FROM tasks WHERE id = ?", (task_id,))
        return None if not rows else _load(rows[0][0])

    def update_task(self, task_id: str, change: Callable[[Doc], bool]) -> Doc | None:
        """Apply ``change`` to the stored task (its row locked); saved when it returns True."""
        with self.transaction() as tx:
            row = tx.one("SELECT doc FROM tasks WHERE id = ?" + self.db.lock_rows, (task_id,))
            if row is None:
                return None
            task = _load(row[0])
            if change(task):
                self._save_task(tx, task)
            return task

    def job_tasks(self, job_id: str) -> list[Doc]:
        rows = self._read("SELECT doc FROM tasks WHERE job_id = ? ORDER BY seq", (job_id,))
        return [_load(row[0]) for row in rows]

    def job_counts(self, tx: Tx, job_id: str) -> JobCounts:
        """The job's ``JobCounts``, in one aggregate read off the job's and the retries' indexes: a
        task's end asks for them, and reading every task of a large job at each end would cost what
        the job holds."""
        row = tx.one(
            "SELECT COUNT(*), COALESCE(SUM(CASE WHEN t.status IN (?, ?) THEN 0 ELSE 1 END), 0),"
            " COALESCE(SUM(CASE WHEN t.status = ? THEN 1 ELSE 0 END), 0) FROM tasks t WHERE t.job_id = ?"
            " AND NOT EXISTS (SELECT 1 FROM tasks r WHERE r.retry_of = t.id AND r.job_id = t.job_id)",
            (*_ENDED, "error", job_id),
        )
        return JobCounts(*(int(value) for value in row)) if row else JobCounts(0, 0, 0)

    def tasks_with_status(self, *statuses: str) -> list[Doc]:
        marks = ",".join("?" * len(statuses))
        rows = self._read(
            f"SELECT doc FROM tasks WHERE status IN ({marks}) ORDER BY seq",
            statuses,
        )
        return [_load(row[0]) for row in rows]

    def waiting_near(self, ids: list[str]) -> list[Doc]:
        """Waiting tasks among ``ids`` or depending on one of them, in creation order (what the
        scheduler looks at after those tasks were saved or ended). Reads only waiting rows, and parses
        only those that match."""
        found: dict[str, tuple[int, Doc]] = {}
        for start in range(0, len(ids), 200):  # keep within SQLite's limit of ? marks
            part = ids[start : start + 200]
            marks, likes = ",".join("?" * len(part)), " OR ".join("deps LIKE ?" for _ in part)
            rows = self._read(
                f"SELECT seq, doc FROM tasks WHERE status = 'waiting' AND (id IN ({marks}) OR {likes})",
                [*part, *(f"%{i}%" for i in part)],
            )
            wanted = set(part)
            for seq, doc in rows:
                task = _load(doc)
                if task["id"] in wanted or wanted & set(task.get("depends_on", {}).values()):
                    found[task["id"]] = (int(seq), task)
        return [task for _, task in sorted(found.values(), key=lambda pair: pair[0])]

    def list_tasks(
        self, user_id: int, filters: dict[str, str], limit: int, offset: int, below: int | None = None
    ) -> list[tuple[int, Doc]]:
        """A page of the user's tasks, newest first, as (seq, task); ``below`` as in ``list_jobs``."""
        sql, args = "SELECT seq, doc FROM tasks WHERE user_id = ?", list[Any]([user_id])
        for column in ("job_id", "status", "operation"):
            if filters.get(column):
                sql, args = sql + f" AND {column} = ?", [*args, filters[column]]
        return self._page(sql, args, limit, offset, below)

    def retry_tasks(self, task_id: str) -> list[Doc]:
        rows = self._read("SELECT doc FROM tasks WHERE retry_of = ? ORDER BY seq", (task_id,))
        return [_load(row[0]) for row in rows]

    def delete_ended_before(self, cutoff: str, limit: int) -> list[tuple[str, str | None]]:
        """Delete up to ``limit`` tasks that ended before ``cutoff``, oldest first, in one short
        statement (found by the ``tasks_ended`` index); their (id, job_id). On PostgreSQL rows another
        transaction holds are skipped, not waited for: the next round takes them."""
        with self.transaction() as tx:
            rows = tx.execute(
                "DELETE FROM tasks WHERE id IN (SELECT id FROM tasks WHERE ended_at IS NOT NULL AND"
                f" ended_at < ? ORDER BY ended_at LIMIT ?{self.db.skip_locked}) RETURNING id, job_id",
                (cutoff, limit),
            )
        return [(str(row[0]), row[1]) for row in rows]

    def delete_jobs_if_empty(self, job_ids: list[str]) -> list[str]:
        """Delete those of ``job_ids`` that have ended and have no task left; their ids."""
        deleted: list[str] = []
        for start in range(0, len(job_ids), 500):  # keep within SQLite's limit of ? marks
            part = job_ids[start : start + 500]
            with self.transaction() as tx:
                rows = tx.execute(
                    f"DELETE FROM jobs WHERE id IN ({','.join('?' * len(part))}) AND status IN (?, ?)"
                    " AND NOT EXISTS (SELECT 1 FROM tasks WHERE tasks.job_id = jobs.id) RETURNING id",
                    [*part, *_ENDED],
                )
            deleted += [str(row[0]) for row in rows]
        return deleted

    def delete_task(self, task_id: str) -> None:
        with self.transaction() as tx:
            tx.execute("DELETE FROM tasks WHERE id = ?", (task_id,))

    # webhooks
    def save_webhook(self, hook: Doc) -> Doc:
        with self.transaction() as tx:
            if "id" not in hook:
                row = tx.one(
                    "INSERT INTO webhooks (user_id, url, doc) VALUES (?, ?, '{}') RETURNING id",
                    (hook["user_id"], hook["url"]),
                )
                hook["id"] = int(row[0]) if row else 0
            tx.execute(
                "UPDATE webhooks SET url = ?, doc = ? WHERE id = ?",
                (hook["url"], json.dumps(hook), hook["id"]),
            )
        self._hooks_changed()
        return hook

    def may_have_webhooks(self, user_id: int) -> bool:
        """False when the user surely has no webhook (asked at every job's start and end, before
        ``user_webhooks``). On a database this process alone writes, which users have webhooks is read
        once and kept until this store saves or deletes one; on a shared database another process may
        add one at any time, so the answer is True and ``user_webhooks`` is the one read."""
        if self.db.shared:
            return True
        with self._hooks_lock:
            owners, generation = self._hook_owners, self._hooks_generation
        if owners is None:
            owners = frozenset(int(row[0]) for row in self._read("SELECT DISTINCT user_id FROM webhooks"))
            with self._hooks_lock:  # not kept when a webhook was saved or deleted meanwhile
                if generation == self._hooks_generation:
                    self._hook_owners = owners
        return user_id in owners

    def _hooks_changed(self) -> None:
        with self._hooks_lock:
            self._hooks_generation += 1
            self._hook_owners = None

    def get_webhook(self, hook_id: int) -> Doc | None:
        rows = self._read("SELECT doc FROM webhooks WHERE id = ?", (hook_id,))
        return None if not rows else _load(rows[0][0])

    def user_webhooks(self, user_id: int, url: str | None = None) -> list[Doc]:
        sql, args = "SELECT doc FROM webhooks WHERE user_id = ?", list[Any]([user_id])
        if url:
            sql, args = sql + " AND url = ?", [*args, url]
        return [_load(row[0]) for row in self._read(sql + " ORDER BY id", args)]

    def delete_webhook(self, hook_id: int) -> None:
        with self.transaction() as tx:
            tx.execute("DELETE FROM webhooks WHERE id = ?", (hook_id,))
        self._hooks_changed()


def _load(text: str) -> Doc:
    value: Doc = jsontext.loads(text)
    return value
