"""Every query behind a list route and the retention sweep is read off an index, on SQLite and on a
real PostgreSQL (issue 27): the plans are checked, so a later change cannot drop back to a scan of
all history or a sort of it.

The queries checked are those the store really runs: the database records each statement, and the
test asks the database to explain each one with its own arguments.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from mcv_pipelines.service.state.database import open_database
from mcv_pipelines.service.state.database.base import Database, Row, Tx
from mcv_pipelines.service.state.store import Store

Seen = list[tuple[str, tuple[Any, ...]]]


class _Recording(Tx):
    def __init__(self, tx: Tx, seen: Seen) -> None:
        self._tx, self._seen = tx, seen

    def execute(self, sql: str, args: Sequence[Any] = ()) -> list[Row]:
        self._seen.append((sql, tuple(args)))
        return self._tx.execute(sql, args)


def _record(db: Database, seen: Seen) -> None:
    """Make ``db`` note every statement it runs, in ``seen``."""
    plain_transaction, plain_read = db.transaction, db.read

    @contextmanager
    def transaction() -> Iterator[Tx]:
        with plain_transaction() as tx:
            yield _Recording(tx, seen)

    def read(sql: str, args: Sequence[Any] = ()) -> list[Row]:
        seen.append((sql, tuple(args)))
        return plain_read(sql, args)

    # The store keeps calling its database; these record each statement on the way (what is explained).
    db.transaction = transaction  # type: ignore[method-assign]  # recorded, then the real one
    db.read = read  # type: ignore[method-assign]  # recorded, then the real one


def _fill(store: Store, users: list[int]) -> None:
    """A few hundred jobs of a few users, some ended long ago, one task a retry of another."""
    for n in range(300):
        user = users[n % len(users)]
        job = {"id": f"job-{n}", "user_id": user, "tag": f"t{n % 7}", "status": "finished", "tasks": []}
        tasks = [
            {
                "id": f"task-{n}-{i}",
                "job_id": job["id"],
                "user_id": user,
                "operation": "convert" if i else "import/raw",
                "status": "finished" if n % 3 else "error",
                "ended_at": f"2026-01-{1 + n % 28:02d}T00:00:00+00:00",
                "depends_on": {},
                **({"retry_of_task_id": f"task-{n}-0"} if i == 2 else {}),
            }
            for i in range(3)
        ]
        store.save_tasks(tasks, job, new=True)


def _queries(store: Store, user: int) -> Seen:
    """Every statement the list routes and the sweep run, recorded as they run."""
    seen: Seen = []
    _record(store.db, seen)
    for below in (None, 10**6):
        for status, tag in ((None, None), ("finished", None), (None, "t3"), ("error", "t3")):
            store.list_jobs(user, status, tag, 101, 0, below=below)
        for filters in ({}, {"status": "error"}, {"operation": "convert"}, {"job_id": "job-4"}):
            store.list_tasks(user, filters, 101, 0, below=below)
    store.list_jobs(user, None, None, 101, 200)  # a page number without a bound: offset, still by index
    store.job_tasks("job-4")
    with store.transaction() as tx:
        store.job_counts(tx, "job-4")  # at every task's end
    store.retry_tasks("task-4-0")
    with pytest.raises(_Rollback):
        _sweep_and_roll_back(store)
    return [(sql, args) for sql, args in seen if sql.lstrip().upper().startswith(("SELECT", "DELETE"))]


class _Rollback(Exception):
    pass


def _sweep_and_roll_back(store: Store) -> None:
    """The sweep's statements, recorded to be explained, then undone."""
    with store.transaction():
        store.delete_ended_before("2026-01-05T00:00:00+00:00", 2000)
        store.delete_jobs_if_empty(["job-4", "job-5"])
        raise _Rollback


def _sqlite_plan(db: Database, sql: str, args: tuple[Any, ...]) -> list[str]:
    return [str(row[3]) for row in db.read("EXPLAIN QUERY PLAN " + sql, args)]


def _postgres_plan(db: Database, sql: str, args: tuple[Any, ...]) -> list[str]:
    """The plan of ``sql`` with scans and sorts priced out (tables this small are cheaper to scan, so
    a plan that still holds one has no index to use instead). Set in the EXPLAIN's own transaction:
    each process has a pool, so a session setting would reach one of its connections only."""
    with db.transaction() as tx:
        for setting in ("enable_seqscan", "enable_sort", "enable_bitmapscan"):
            tx.execute(f"SET LOCAL {setting} = off")
        return [str(row[0]) for row in tx.execute("EXPLAIN " + sql, args)]


def _store(url: str, tmp_path: Path) -> Store:
    store = Store(open_database(url, tmp_path / "unused"))
    users = [store.create_user(name, f"{name}@example.com", 10) for name in ("ann", "bob", "cy")]
    _fill(store, users)
    return store


def test_sqlite_lists_and_sweep_read_indexes_and_never_sort(tmp_path: Path) -> None:
    store = _store(f"sqlite:///{tmp_path / 'state.sqlite3'}", tmp_path)
    queries = _queries(store, 1)
    assert len(queries) >= 20
    for sql, args in queries:
        plan = _sqlite_plan(store.db, sql, args)
        scans = [line for line in plan if line.startswith("SCAN") or "TEMP B-TREE" in line]
        assert not scans, f"{sql}\n  scans or sorts: {plan}"
        assert any("USING" in line and "INDEX" in line for line in plan), f"{sql}\n  {plan}"
    store.close()


def test_postgres_lists_and_sweep_read_indexes_and_never_sort(pg_url: str, tmp_path: Path) -> None:
    store = _store(pg_url, tmp_path)
    store.db.read("ANALYZE")
    queries = _queries(store, 1)
    assert len(queries) >= 20
    for sql, args in queries:
        plan = _postgres_plan(store.db, sql, args)
        text = "\n".join(plan)
        assert "Seq Scan" not in text, f"{sql}\n{text}"
        assert "Sort" not in text, f"{sql}\n{text}"
        assert "Index" in text, f"{sql}\n{text}"
    store.close()
