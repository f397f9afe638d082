"""The embedded default: one SQLite file, one connection guarded by a lock, WAL journal."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from mcv_pipelines.service.state.database.base import Database, Row, Tx

__all__ = ["SqliteDatabase"]


class _SqliteTx(Tx):
    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    def execute(self, sql: str, args: Sequence[Any] = ()) -> list[Row]:
        return self._db.execute(sql, tuple(args)).fetchall()


class SqliteDatabase(Database):
    dialect = "sqlite"
    shared = False
    lock_rows = ""
    skip_locked = ""
    now_sql = "((julianday('now') - 2440587.5) * 86400.0)"

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.display = f"sqlite:///{self.path}"
        self._lock = threading.RLock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._tx = _SqliteTx(self._db)
        self._seq: int | None = None

    @contextmanager
    def transaction(self) -> Iterator[Tx]:
        with self._lock:
            if self._db.in_transaction:
                yield self._tx
                return
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._tx
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def read(self, sql: str, args: Sequence[Any] = ()) -> list[Row]:
        with self._lock:
            return self._db.execute(sql, tuple(args)).fetchall()

    def next_seq(self, tx: Tx) -> int:
        with self._lock:  # one process owns the file: a counter in memory is enough
            if self._seq is None:
                row = tx.one(
                    "SELECT MAX(m) FROM (SELECT MAX(seq) AS m FROM tasks UNION ALL SELECT MAX(seq) FROM jobs)"
                )
                self._seq = int(row[0] or 0) if row else 0
            self._seq += 1
            return self._seq

    def ping(self) -> None:
        self.read("SELECT 1")

    def close(self) -> None:
        with self._lock:
            self._db.close()
