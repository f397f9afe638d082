"""The batch journal: one SQLite file (WAL) recording every row's state, written before and after
every step, so a killed batch resumes without submitting a row twice.

Every state change is one committed transaction: a SIGKILL at any moment leaves each row in the state
of its last commit. One connection serves the whole process behind a lock, so asyncio tasks (or
threads) may call it freely. The journal locks its file: a second process on the same journal gets a
clear error instead of double submissions.

>>> # journal = Journal.open("batch.journal.sqlite", meta)          # resumes when it exists
>>> # journal.add_rows(NewRow(key, row.index, row.params, row.line) for ...)
>>> # journal.mark_submitting(key, tag); ...; journal.mark_submitted(key, job_id)
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
import uuid
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

from mcv_pipelines.batch.errors import DuplicateKey, InvalidTransition, JournalMismatch
from mcv_pipelines.batch.keys import attempt_tag, canonical_json
from mcv_pipelines.batch.masking import mask
from mcv_pipelines.batch.meta import BatchMeta
from mcv_pipelines.batch.states import ALLOWED_SOURCES, JournalRow, RowError, RowState, StateCounts
from mcv_pipelines.errors import UsageError
from mcv_pipelines.redact import redact

__all__ = ["Journal", "NewRow", "OpenMode"]

SCHEMA_VERSION = 1
OpenMode = Literal["auto", "resume", "restart"]
_PAGE = 500
_INSERT_BATCH = 5000

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS rows (
    key TEXT PRIMARY KEY,
    idx INTEGER NOT NULL UNIQUE,
    line INTEGER,
    params TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('pending','submitting','submitted','finished','failed')),
    attempts INTEGER NOT NULL DEFAULT 0,
    tag TEXT, job_id TEXT, outputs TEXT, credits INTEGER, error_code TEXT, error_message TEXT,
    updated REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS rows_by_state ON rows (state, idx);
"""


@dataclass(frozen=True, slots=True)
class NewRow:
    """A manifest row entering the journal as pending."""

    key: str
    index: int
    params: Mapping[str, Any]
    line: int | None = None


class Journal:
    """A batch's journal. Open with ``Journal.open``; close (or use as a context manager) at the end."""

    def __init__(self, connection: sqlite3.Connection, path: Path, meta: BatchMeta, batch_id: str,
                 is_new: bool) -> None:
        self._db = connection
        self._lock = threading.RLock()
        self.path = path
        self.meta = meta
        self.batch_id = batch_id
        """Random id fixed at creation; part of every job tag so reconciliation finds only ours."""
        self.is_new = is_new
        """True when this open created the journal (no rows yet)."""

    # -- opening ---------------------------------------------------------------------------------------

    @classmethod
    def open(cls, path: str | os.PathLike[str], meta: BatchMeta, *, mode: OpenMode = "auto",
             durable: bool = False) -> Journal:
        """Open or create the journal at ``path``.

        ``auto`` resumes an existing journal of the same batch and creates a missing one; ``resume``
        requires one; ``restart`` replaces it. A journal of another batch is an error suggesting
        ``--restart``, unless nothing was ever submitted from it (then it is simply replaced).
        ``durable`` also syncs each commit to disk (survives power loss, not only a killed process).
        """
        file = Path(path)
        exists = file.exists() and file.stat().st_size > 0
        if mode == "resume" and not exists:
            raise UsageError(f"{file}: no journal to resume (run without --resume to start the batch)")
        if exists:
            db = cls._connect(file, durable)
            stored = _read_meta(db, file, check_version=mode != "restart")
            if mode == "restart" or (stored[0].differences(meta) and _never_submitted(db)):
                db.close()
                _remove(file)
            else:
                differences = stored[0].differences(meta)
                if differences:
                    db.close()
                    raise JournalMismatch(
                        f"{file} belongs to another batch: {'; '.join(differences)}. Run with --restart "
                        "to start over (rows already submitted will run again), or pass another --journal"
                    )
                return cls(db, file, stored[0], stored[1], is_new=False)
        db = cls._connect(file, durable)
        batch_id = uuid.uuid4().hex[:12]
        with _transaction(db):
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    db.execute(statement)
            meta_json = json.dumps({**asdict(meta), "options": mask(dict(meta.options))})
            db.executemany("INSERT INTO meta VALUES (?, ?)", [
                ("schema", str(SCHEMA_VERSION)), ("batch", meta_json), ("batch_id", batch_id),
                ("rows_complete", "0"),
            ])
        return cls(db, file, meta, batch_id, is_new=True)

    @staticmethod
    def _connect(file: Path, durable: bool) -> sqlite3.Connection:
        file.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(file, isolation_level=None, check_same_thread=False, timeout=0.2)
        try:
            db.execute("PRAGMA locking_mode=EXCLUSIVE")
            db.execute("PRAGMA journal_mode=WAL")
            db.execute(f"PRAGMA synchronous={'FULL' if durable else 'NORMAL'}")
            db.execute("BEGIN IMMEDIATE")  # takes the exclusive lock now, not at the first row
            db.execute("COMMIT")
        except sqlite3.OperationalError as exc:
            db.close()
            if "locked" in str(exc):
                raise UsageError(f"{file}: the journal is in use by another mcv batch") from None
            raise JournalMismatch(f"{file}: cannot be used as a journal ({exc})") from None
        except sqlite3.DatabaseError:
            db.close()
            raise JournalMismatch(f"{file} is not an mcv batch journal; pass another --journal") from None
        return db

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- rows ------------------------------------------------------------------------------------------

    @property
    def rows_complete(self) -> bool:
        """True once ``add_rows`` ran to the end: every row of the (sharded) manifest is recorded."""
        with self._lock:
            found = self._db.execute("SELECT value FROM meta WHERE name='rows_complete'").fetchone()
        return bool(found and found[0] == "1")

    def add_rows(self, rows: Iterable[NewRow]) -> int:
        """Record ``rows`` as pending (in batches of commits); returns how many were new.

        A row already recorded at the same index is skipped, so an interrupted ``add_rows`` can simply
        run again; a key already used by another row raises DuplicateKey naming both rows.
        """
        added = 0
        pending: list[NewRow] = []
        for row in rows:
            pending.append(row)
            if len(pending) >= _INSERT_BATCH:
                added += self._insert(pending)
                pending.clear()
        added += self._insert(pending)
        with self._lock, _transaction(self._db):
            self._db.execute("UPDATE meta SET value='1' WHERE name='rows_complete'")
        return added

    def _insert(self, rows: list[NewRow]) -> int:
        added = 0
        now = time.time()
        with self._lock, _transaction(self._db):
            for row in rows:
                params = canonical_json(mask(dict(row.params)))
                cursor = self._db.execute(
                    "INSERT INTO rows (key, idx, line, params, state, updated) VALUES (?, ?, ?, ?, ?, ?) "
                    "ON CONFLICT DO NOTHING",
                    (row.key, row.index, row.line, params, RowState.PENDING.value, now),
                )
                if cursor.rowcount == 1:
                    added += 1
                    continue
                same = self._db.execute("SELECT idx, line FROM rows WHERE key=?", (row.key,)).fetchone()
                if same is not None and same[0] == row.index:
                    continue
                if same is None:  # the index is taken by another key: a different manifest
                    raise JournalMismatch(f"{self.path}: row {row.index} has another key in the journal; "
                                          "run with --restart")
                raise DuplicateKey(self.meta.manifest, row.key, (same[0], same[1]), (row.index, row.line))
        return added

    # -- transitions -----------------------------------------------------------------------------------

    def mark_submitting(self, key: str, tag: str | None = None) -> str:
        """Before the job-creating request: from here until ``mark_submitted`` the outcome is unknown.

        Returns the job tag to send: ``tag``, or by default one unique to this batch, row and attempt
        (``attempt_tag``), which reconciliation lists jobs by after a crash.
        """
        with self._lock:
            if tag is None:
                found = self._db.execute("SELECT attempts FROM rows WHERE key=?", (key,)).fetchone()
                tag = attempt_tag(self.batch_id, key, (found[0] if found else 0) + 1)
            self._move(key, RowState.SUBMITTING, "tag=?, attempts=attempts+1, job_id=NULL", (tag,))
        return tag

    def mark_submitted(self, key: str, job_id: str) -> None:
        """The service created job ``job_id`` for the row (answered, or found by tag on reconcile)."""
        self._move(key, RowState.SUBMITTED, "job_id=?", (job_id,))

    def mark_pending(self, key: str) -> None:
        """Reconciliation found no job for a submitting row: it may be sent again."""
        self._move(key, RowState.PENDING, "", ())

    def mark_pack_submitting(self, keys: Iterable[str], tag: str) -> None:
        """Before the request creating one job for several rows: all of them, in one commit, take the
        job's ``tag`` (a crash leaves them together, reconciled together by it)."""
        self._move_many(keys, RowState.SUBMITTING, "tag=?, attempts=attempts+1, job_id=NULL", (tag,))

    def mark_pack_submitted(self, keys: Iterable[str], job_id: str) -> None:
        """The service created job ``job_id`` holding these rows: one commit for all of them."""
        self._move_many(keys, RowState.SUBMITTED, "job_id=?", (job_id,))

    def mark_pack_pending(self, keys: Iterable[str]) -> None:
        """No job exists for these submitting rows (none found by their tag, or the creation was
        refused): they may be sent again."""
        self._move_many(keys, RowState.PENDING, "", ())

    def mark_finished(self, key: str, outputs: Iterable[str] = (), credits: int | None = None) -> None:
        """The job finished and its files are on disk at ``outputs``."""
        encoded = canonical_json([redact(os.fspath(p)) for p in outputs])
        self._move(key, RowState.FINISHED, "outputs=?, credits=?, error_code=NULL, error_message=NULL",
                   (encoded, credits))

    def mark_failed(self, key: str, code: str, message: str) -> None:
        """The row failed (job error, upload error, invalid row...); the message is masked."""
        self._move(key, RowState.FAILED, "error_code=?, error_message=?", (code, redact(message)))

    def retry_failed(self) -> int:
        """--retry-failed: every failed row back to pending; returns how many."""
        with self._lock, _transaction(self._db):
            cursor = self._db.execute(
                "UPDATE rows SET state='pending', error_code=NULL, error_message=NULL, updated=? "
                "WHERE state='failed'", (time.time(),))
        return cursor.rowcount

    def _move(self, key: str, target: RowState, assignments: str, values: tuple[Any, ...]) -> None:
        sources = sorted(s.value for s in ALLOWED_SOURCES[target])
        marks = ", ".join("?" * len(sources))
        extra = f", {assignments}" if assignments else ""
        with self._lock, _transaction(self._db):
            cursor = self._db.execute(
                f"UPDATE rows SET state=?, updated=?{extra} WHERE key=? AND state IN ({marks})",  # noqa: S608 - only ? marks
                (target.value, time.time(), *values, key, *sources),
            )
            if cursor.rowcount == 1:
                return
            raise self._refusal(key, target)

    def _refusal(self, key: str, target: RowState) -> InvalidTransition:
        found = self._db.execute("SELECT idx, state FROM rows WHERE key=?", (key,)).fetchone()
        if found is None:
            return InvalidTransition(f"{self.path}: no row with key {redact(key)!r}")
        return InvalidTransition(
            f"{self.path}: row {found[0]} (key {redact(key)!r}) is {found[1]}; it cannot become {target}"
        )

    def _move_many(self, keys: Iterable[str], target: RowState, assignments: str,
                   values: tuple[Any, ...]) -> None:
        """``_move`` of every key in one transaction: all of them move, or none does."""
        sources = sorted(s.value for s in ALLOWED_SOURCES[target])
        marks = ", ".join("?" * len(sources))
        extra = f", {assignments}" if assignments else ""
        statement = f"UPDATE rows SET state=?, updated=?{extra} WHERE key=? AND state IN ({marks})"  # noqa: S608 - only ? marks
        with self._lock, _transaction(self._db):
            now = time.time()
            for key in keys:
                if self._db.execute(statement, (target.value, now, *values, key, *sources)).rowcount != 1:
                    raise self._refusal(key, target)  # rolls the others back

    # -- queries ---------------------------------------------------------------------------------------

    def get(self, key: str) -> JournalRow | None:
        with self._lock:
            found = self._db.execute(f"{_SELECT} WHERE key=?", (key,)).fetchone()
        return None if found is None else _row(found)

    def rows(self, *states: RowState) -> Iterator[JournalRow]:
        """Rows in manifest order (all, or those in ``states``), fetched a page at a time."""
        wanted = [s.value for s in states] or [s.value for s in RowState]
        marks = ", ".join("?" * len(wanted))
        last = -1
        while True:
            with self._lock:
                page = self._db.execute(
                    f"{_SELECT} WHERE idx > ? AND state IN ({marks}) ORDER BY idx LIMIT {_PAGE}",
                    (last, *wanted),
                ).fetchall()
            yield from (_row(found) for found in page)
            if len(page) < _PAGE:
                return
            last = page[-1][1]

    def rows_to_run(self) -> Iterator[JournalRow]:
        """Pending rows: never sent, or sent and known not to have created a job."""
        return self.rows(RowState.PENDING)

    def rows_to_reconcile(self) -> Iterator[JournalRow]:
        """Submitting rows: a job may or may not exist; list jobs by ``row.tag`` before sending again."""
        return self.rows(RowState.SUBMITTING)

    def rows_to_follow(self) -> Iterator[JournalRow]:
        """Submitted rows: follow ``row.job_id``; never submit them again."""
        return self.rows(RowState.SUBMITTED)

    def failed_rows(self) -> Iterator[JournalRow]:
        return self.rows(RowState.FAILED)

    def counts(self) -> StateCounts:
        with self._lock:
            found = dict(self._db.execute("SELECT state, count(*) FROM rows GROUP BY state").fetchall())
        return StateCounts(**{state.value: found.get(state.value, 0) for state in RowState})


_SELECT = ("SELECT key, idx, line, params, state, attempts, tag, job_id, outputs, credits, error_code, "
           "error_message, updated FROM rows")


def _row(found: tuple[Any, ...]) -> JournalRow:
    (key, index, line, params, state, attempts, tag, job_id, outputs, credits, code, message, updated) = found
    return JournalRow(
        key=key, index=index, line=line, params=json.loads(params), state=RowState(state), attempts=attempts,
        tag=tag, job_id=job_id, outputs=tuple(json.loads(outputs)) if outputs else (), credits=credits,
        error=RowError(code, message or "") if code is not None else None, updated=updated,
    )


class _transaction:
    """BEGIN IMMEDIATE ... COMMIT, rolled back on an exception."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    def __enter__(self) -> None:
        self._db.execute("BEGIN IMMEDIATE")

    def __exit__(self, kind: object, *rest: object) -> None:
        self._db.execute("ROLLBACK" if kind is not None else "COMMIT")


def _read_meta(db: sqlite3.Connection, file: Path, *, check_version: bool) -> tuple[BatchMeta, str]:
    try:
        stored = dict(db.execute("SELECT name, value FROM meta").fetchall())
        version = int(stored["schema"])
        batch = json.loads(stored["batch"])
        batch_id = stored["batch_id"]
    except (sqlite3.DatabaseError, KeyError, ValueError):
        db.close()
        raise JournalMismatch(f"{file} is not an mcv batch journal; pass another --journal") from None
    if check_version and version != SCHEMA_VERSION:
        db.close()
        raise JournalMismatch(f"{file} was written by another version of mcv (journal format {version}); "
                              "run with --restart or pass another --journal")
    return BatchMeta(**batch), batch_id


def _never_submitted(db: sqlite3.Connection) -> bool:
    found = db.execute("SELECT 1 FROM rows WHERE attempts > 0 OR state != 'pending' LIMIT 1").fetchone()
    return found is None


def _remove(file: Path) -> None:
    for extra in ("", "-wal", "-shm"):
        Path(f"{file}{extra}").unlink(missing_ok=True)
