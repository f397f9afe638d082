"""What the store, the schedulers and the routes need of a database, whichever engine holds it.

SQL is written once with ``?`` placeholders; each engine adapts it. A transaction is one
``with db.transaction() as tx:`` block (nested blocks join the outer one); ``tx.notify`` queues a
change notice that other processes hear once the transaction commits (PostgreSQL NOTIFY; nothing on
SQLite, where every writer is in this process).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from typing import Any

__all__ = ["Database", "DatabaseUnavailable", "Row", "SchemaTooNew", "Tx"]

Row = tuple[Any, ...]


class DatabaseUnavailable(RuntimeError):
    """The database cannot be reached (the message names it, without its password)."""


class SchemaTooNew(RuntimeError):
    """The database was migrated by a newer mcv than this one."""


class Tx(ABC):
    """One open transaction."""

    @abstractmethod
    def execute(self, sql: str, args: Sequence[Any] = ()) -> list[Row]:
        """Run one statement; the rows it returns (empty for statements without rows)."""

    def one(self, sql: str, args: Sequence[Any] = ()) -> Row | None:
        rows = self.execute(sql, args)
        return rows[0] if rows else None

    def notify(self, payload: str) -> None:  # noqa: B027 - SQLite has no one to tell
        """Tell other processes about a change once this transaction commits."""


class Database(ABC):
    """A connection to the service's database, safe to use from any thread."""

    dialect: str  # "sqlite" or "postgresql"
    display: str  # the URL with any password masked, for messages
    shared: bool  # several processes may use it at once (leases instead of one scheduler)
    lock_rows: str  # appended to a SELECT that must lock the rows it reads (" FOR UPDATE" or "")
    skip_locked: str  # the same, skipping rows another transaction holds
    now_sql: str  # the database's clock as seconds since the epoch (lease times use it, not ours)

    @abstractmethod
    def transaction(self) -> AbstractContextManager[Tx]: ...

    def read(self, sql: str, args: Sequence[Any] = ()) -> list[Row]:
        """One read outside any explicit transaction."""
        with self.transaction() as tx:
            return tx.execute(sql, args)

    @abstractmethod
    def next_seq(self, tx: Tx) -> int:
        """A number larger than every one handed out before (list order of jobs and tasks)."""

    @abstractmethod
    def ping(self) -> None:
        """Raise DatabaseUnavailable unless the database answers now."""

    @abstractmethod
    def close(self) -> None: ...

    def another(self) -> Database:
        """A connection of its own to the same database, for long work beside the requests (the
        retention sweep), so they never queue behind it; this one where a process has only one
        (SQLite). Close it when it is not this one."""
        return self

    @contextmanager
    def exclusive(self, key: int) -> Iterator[bool]:
        """True inside the block when this process, alone of those sharing the database, holds the
        lock ``key``; False when another one does (it is not waited for). A database of one process:
        always True."""
        yield True

    def listen(self) -> Iterator[str]:
        """Notices from other processes, forever (PostgreSQL only)."""
        raise NotImplementedError
