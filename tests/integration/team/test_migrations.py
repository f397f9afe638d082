"""Schema migrations on a real PostgreSQL and on SQLite: fresh, re-run, and a newer database refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcv_pipelines.service.state.database import SchemaTooNew, open_database
from mcv_pipelines.service.state.database.migrations import latest_version
from mcv_pipelines.service.state.store import Store


def _urls(pg_url: str, tmp_path: Path) -> list[str]:
    return [pg_url, f"sqlite:///{tmp_path / 'state.sqlite3'}"]


def test_a_fresh_database_gets_the_whole_schema_and_a_rerun_changes_nothing(
    pg_url: str, tmp_path: Path
) -> None:
    for url in _urls(pg_url, tmp_path):
        db = open_database(url, tmp_path / "unused")
        store = Store(db)
        user = store.create_user("ann", "ann@example.com", 10)
        store.add_key("k" * 20, user, ("task.read",))
        store.close()
        again = Store(open_database(url, tmp_path / "unused"))  # applied on start, again: no error, no loss
        assert again.find_key("k" * 20) == (user, frozenset({"task.read"}))
        version = again.db.read("SELECT version FROM schema_version")
        assert version == [(latest_version(again.db.dialect),)]
        again.close()


def test_a_database_newer_than_the_code_is_refused_naming_both_versions(pg_url: str, tmp_path: Path) -> None:
    for url in _urls(pg_url, tmp_path):
        db = open_database(url, tmp_path / "unused")
        latest = latest_version(db.dialect)
        with db.transaction() as tx:
            tx.execute("UPDATE schema_version SET version = ?", (latest + 3,))
        db.close()
        with pytest.raises(SchemaTooNew) as refused:
            open_database(url, tmp_path / "unused")
        assert f"schema version {latest + 3}" in str(refused.value)
        assert f"up to {latest}" in str(refused.value)


def test_a_data_dir_from_before_migrations_is_adopted(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "service.sqlite3"
    old = sqlite3.connect(path)
    old.execute("CREATE TABLE api_keys (key_hash TEXT PRIMARY KEY, user_id INTEGER, scopes TEXT)")
    old.execute("INSERT INTO api_keys VALUES ('abc', 1, 'task.read')")
    old.commit()
    old.close()
    store = Store(path)
    assert store.list_keys()[0]["scopes"] == "task.read"
    store.close()
