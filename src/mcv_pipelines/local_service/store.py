"""SQLite state of the service: users, API keys, jobs, tasks, webhooks.

Jobs, tasks and webhooks are kept as JSON documents beside the few columns that lists filter on; one
connection guarded by a lock serves every thread (the event loop, workers, the janitor). WAL keeps a
crash from losing committed rows.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

__all__ = ["Doc", "Store", "hash_key", "now_iso", "parse_iso"]

Doc = dict[str, Any]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS users (
    id INTEGER PRIMARY KEY AUTOINCREMENT, username TEXT, email TEXT, credits INTEGER, created_at TEXT);
CREATE TABLE IF NOT EXISTS api_keys (key_hash TEXT PRIMARY KEY, user_id INTEGER, scopes TEXT);
CREATE TABLE IF NOT EXISTS jobs (
    id TEXT PRIMARY KEY, user_id INTEGER, tag TEXT, status TEXT, seq INTEGER, doc TEXT);
CREATE TABLE IF NOT EXISTS tasks (
    id TEXT PRIMARY KEY, job_id TEXT, user_id INTEGER, operation TEXT, status TEXT, ended_at TEXT,
    seq INTEGER, doc TEXT);
CREATE TABLE IF NOT EXISTS webhooks (
    id INTEGER PRIMARY KEY AUTOINCREMENT, user_id INTEGER, url TEXT, doc TEXT);
CREATE INDEX IF NOT EXISTS tasks_job ON tasks (job_id);
CREATE INDEX IF NOT EXISTS tasks_status ON tasks (status);
"""


def now_iso() -> str:
    """Now, as the API writes times: ISO 8601 with a numeric UTC offset."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def parse_iso(value: str) -> datetime:
    return datetime.fromisoformat(value)


def hash_key(api_key: str) -> str:
    return hashlib.sha256(api_key.encode()).hexdigest()


class Store:
    """Thread-safe access to the service's SQLite database."""

    def __init__(self, path: Path) -> None:
        self._lock = threading.RLock()
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(_SCHEMA)
        self._seq = 0
        row = self._db.execute(
            "SELECT MAX(m) FROM (SELECT MAX(seq) AS m FROM tasks UNION ALL SELECT MAX(seq) FROM jobs)"
        ).fetchone()
        self._seq = int(row[0] or 0)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One transaction under the lock; nested calls join the outer one."""
        with self._lock:
            if self._db.in_transaction:
                yield self._db
                return
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def _next_seq(self) -> int:
        self._seq += 1
        return self._seq

    # users and keys
    def create_user(self, username: str, email: str, credits: int) -> int:
        with self.transaction() as db:
            cur = db.execute(
                "INSERT INTO users (username, email, credits, created_at) VALUES (?, ?, ?, ?)",
                (username, email, credits, now_iso()),
            )
            return int(cur.lastrowid or 0)

    def get_user(self, user_id: int) -> Doc | None:
        with self._lock:
            row = self._db.execute(
                "SELECT id, username, email, credits, created_at FROM users WHERE id = ?", (user_id,)
            ).fetchone()
        if row is None:
            return None
        return dict(zip(("id", "username", "email", "credits", "created_at"), row, strict=True))

    def add_credits(self, user_id: int, amount: int) -> None:
        with self.transaction() as db:
            db.execute("UPDATE users SET credits = credits + ? WHERE id = ?", (amount, user_id))

    def add_key(self, api_key: str, user_id: int, scopes: tuple[str, ...]) -> None:
        with self.transaction() as db:
            db.execute(
                "INSERT OR REPLACE INTO api_keys (key_hash, user_id, scopes) VALUES (?, ?, ?)",
                (hash_key(api_key), user_id, " ".join(scopes)),
            )

    def find_key(self, api_key: str) -> tuple[int, frozenset[str]] | None:
        with self._lock:
            row = self._db.execute(
                "SELECT user_id, scopes FROM api_keys WHERE key_hash = ?", (hash_key(api_key),)
            ).fetchone()
        return None if row is None else (int(row[0]), frozenset(str(row[1]).split()))

    # jobs
    def save_job(self, job: Doc) -> None:
        with self.transaction() as db:
            self._save_job(db, job)

    def _save_job(self, db: sqlite3.Connection, job: Doc) -> None:
        seq = db.execute("SELECT seq FROM jobs WHERE id = ?", (job["id"],)).fetchone()
        db.execute(
            "INSERT OR REPLACE INTO jobs (id, user_id, tag, status, seq, doc) VALUES (?, ?, ?, ?, ?, ?)",
            (
                job["id"],
                job["user_id"],
                job.get("tag"),
                job["status"],
                seq[0] if seq else self._next_seq(),
                json.dumps(job),
            ),
        )

    def get_job(self, job_id: str) -> Doc | None:
        with self._lock:
            row = self._db.execute("SELECT doc FROM jobs WHERE id = ?", (job_id,)).fetchone()
        return None if row is None else _load(row[0])

    def update_job(self, job_id: str, change: Callable[[Doc], bool]) -> Doc | None:
        """Apply ``change`` to the stored job under the lock; saved when it returns True."""
        with self.transaction() as db:
            row = db.execute("SELECT doc FROM jobs WHERE id = ?", (job_id,)).fetchone()
            if row is None:
                return None
            job = _load(row[0])
            if change(job):
                self._save_job(db, job)
            return job

    def list_jobs(
        self, user_id: int, status: str | None, tag: str | None, limit: int, offset: int
    ) -> list[Doc]:
        sql, args = "SELECT doc FROM jobs WHERE user_id = ?", [str(user_id)]
        if status:
            sql, args = sql + " AND status = ?", [*args, status]
        if tag:
            sql, args = sql + " AND tag = ?", [*args, tag]
        sql += " ORDER BY seq DESC LIMIT ? OFFSET ?"
        with self._lock:
            rows = self._db.execute(sql, (*args, limit, offset)).fetchall()
        return [_load(row[0]) for row in rows]

    def delete_job(self, job_id: str) -> None:
        with self.transaction() as db:
            db.execute("DELETE FROM tasks WHERE job_id = ?", (job_id,))
            db.execute("DELETE FROM jobs WHERE id = ?", (job_id,))

    # tasks
    def save_task(self, task: Doc) -> None:
        with self.transaction() as db:
            self._save_task(db, task)

    def save_tasks(self, tasks: list[Doc], job: Doc | None = None) -> None:
        with self.transaction() as db:
            if job is not None:
                self._save_job(db, job)
            for task in tasks:
                self._save_task(db, task)

    def _save_task(self, db: sqlite3.Connection, task: Doc) -> None:
        seq = db.execute("SELECT seq FROM tasks WHERE id = ?", (task["id"],)).fetchone()
        db.execute(
            "INSERT OR REPLACE INTO tasks (id, job_id, user_id, operation, status, ended_at, seq, doc)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                task["id"],
                task.get("job_id"),
                task["user_id"],
                task["operation"],
                task["status"],
                task.get("ended_at"),
                seq[0] if seq else self._next_seq(),
                json.dumps(task),
            ),
        )

    def get_task(self, task_id: str) -> Doc | None:
        with self._lock:
            row = self._db.execute("SELECT doc FROM tasks WHERE id = ?", (task_id,)).fetchone()
        return None if row is None else _load(row[0])

    def update_task(self, task_id: str, change: Callable[[Doc], bool]) -> Doc | None:
        """Apply ``change`` to the stored task under the lock; saved when it returns True."""
        with self.transaction() as db:
            row = db.execute("SELECT doc FROM tasks WHERE id = ?", (task_id,)).fetchone()
            if row is None:
                return None
            task = _load(row[0])
            if change(task):
                self._save_task(db, task)
            return task

    def job_tasks(self, job_id: str) -> list[Doc]:
        with self._lock:
            rows = self._db.execute(
                "SELECT doc FROM tasks WHERE job_id = ? ORDER BY seq", (job_id,)
            ).fetchall()
        return [_load(row[0]) for row in rows]

    def tasks_with_status(self, *statuses: str) -> list[Doc]:
        marks = ",".join("?" * len(statuses))
        with self._lock:
            rows = self._db.execute(
                f"SELECT doc FROM tasks WHERE status IN ({marks}) ORDER BY seq",  # noqa: S608 - only ? marks
                statuses,
            ).fetchall()
        return [_load(row[0]) for row in rows]

    def list_tasks(self, user_id: int, filters: dict[str, str], limit: int, offset: int) -> list[Doc]:
        sql, args = "SELECT doc FROM tasks WHERE user_id = ?", [str(user_id)]
        for column in ("job_id", "status", "operation"):
            if filters.get(column):
                sql, args = sql + f" AND {column} = ?", [*args, filters[column]]
        sql += " ORDER BY seq DESC LIMIT ? OFFSET ?"
        with self._lock:
            rows = self._db.execute(sql, (*args, limit, offset)).fetchall()
        return [_load(row[0]) for row in rows]

    def retry_tasks(self, task_id: str) -> list[Doc]:
        with self._lock:
            rows = self._db.execute("SELECT doc FROM tasks ORDER BY seq").fetchall()
        return [t for t in (_load(r[0]) for r in rows) if t.get("retry_of_task_id") == task_id]

    def ended_before(self, cutoff: str) -> list[Doc]:
        with self._lock:
            rows = self._db.execute(
                "SELECT doc FROM tasks WHERE ended_at IS NOT NULL AND ended_at < ?", (cutoff,)
            ).fetchall()
        return [_load(row[0]) for row in rows]

    def delete_task(self, task_id: str) -> None:
        with self.transaction() as db:
            db.execute("DELETE FROM tasks WHERE id = ?", (task_id,))

    def empty_jobs(self) -> list[str]:
        with self._lock:
            rows = self._db.execute(
                "SELECT id FROM jobs WHERE NOT EXISTS (SELECT 1 FROM tasks WHERE tasks.job_id = jobs.id)"
            ).fetchall()
        return [str(row[0]) for row in rows]

    # webhooks
    def save_webhook(self, hook: Doc) -> Doc:
        with self.transaction() as db:
            if "id" not in hook:
                cur = db.execute(
                    "INSERT INTO webhooks (user_id, url, doc) VALUES (?, ?, '{}')",
                    (hook["user_id"], hook["url"]),
                )
                hook["id"] = int(cur.lastrowid or 0)
            db.execute(
                "UPDATE webhooks SET url = ?, doc = ? WHERE id = ?",
                (hook["url"], json.dumps(hook), hook["id"]),
            )
        return hook

    def get_webhook(self, hook_id: int) -> Doc | None:
        with self._lock:
            row = self._db.execute("SELECT doc FROM webhooks WHERE id = ?", (hook_id,)).fetchone()
        return None if row is None else _load(row[0])

    def user_webhooks(self, user_id: int, url: str | None = None) -> list[Doc]:
        sql, args = "SELECT doc FROM webhooks WHERE user_id = ?", [str(user_id)]
        if url:
            sql, args = sql + " AND url = ?", [*args, url]
        with self._lock:
            rows = self._db.execute(sql + " ORDER BY id", args).fetchall()
        return [_load(row[0]) for row in rows]

    def delete_webhook(self, hook_id: int) -> None:
        with self.transaction() as db:
            db.execute("DELETE FROM webhooks WHERE id = ?", (hook_id,))


def _load(text: str) -> Doc:
    value: Doc = json.loads(text)
    return value
