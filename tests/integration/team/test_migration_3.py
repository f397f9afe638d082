"""Migration 3 on a database that already holds tasks (SQLite and a real PostgreSQL): a retry made
before it is still found as its source's retry, and a document that is no strict JSON does not stop
the migration."""

from __future__ import annotations

import json
from pathlib import Path

from mcv_pipelines.service.state.database.base import Database
from mcv_pipelines.service.state.database.migrations import MIGRATIONS, migrate, schema_version
from mcv_pipelines.service.state.database.postgres import PostgresDatabase
from mcv_pipelines.service.state.database.sqlite import SqliteDatabase
from mcv_pipelines.service.state.store import Store

_INSERT = "INSERT INTO tasks (id, job_id, user_id, operation, status, seq, doc) VALUES (?, ?, ?, ?, ?, ?, ?)"


def _at_version_2(db: Database) -> None:
    with db.transaction() as tx:
        schema_version(tx)
        for statements in MIGRATIONS[db.dialect][:2]:
            for statement in statements:
                tx.execute(statement)
        tx.execute("INSERT INTO schema_version (version) VALUES (2)")
        rows = [
            ("src", {"id": "src", "status": "error"}),
            ("again", {"id": "again", "status": "finished", "retry_of_task_id": "src"}),
            ("other", {"id": "other", "status": "finished", "retry_of_task_id": None}),
        ]
        for seq, (task_id, doc) in enumerate(rows, 1):
            tx.execute(
                _INSERT,
                (task_id, "j", 1, "convert", doc["status"], seq, json.dumps(doc)),
            )
        # the standard library's NaN: no strict JSON
        tx.execute(
            _INSERT,
            ("odd", "j", 1, "convert", "finished", 4, '{"id": "odd", "retry_of_task_id": "src", "x": NaN}'),
        )


def _check(db: Database) -> None:
    _at_version_2(db)
    assert migrate(db) == len(MIGRATIONS[db.dialect])
    store = Store(db)
    found = [task["id"] for task in store.retry_tasks("src")]
    assert "again" in found
    assert "other" not in found
    assert store.retry_tasks("again") == []
    store.close()


def test_sqlite_keeps_retries_made_before_migration_3(tmp_path: Path) -> None:
    _check(SqliteDatabase(tmp_path / "state.sqlite3"))


def test_postgres_keeps_retries_made_before_migration_3(pg_url: str) -> None:
    _check(PostgresDatabase(pg_url))
