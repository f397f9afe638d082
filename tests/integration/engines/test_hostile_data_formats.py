"""A hostile SQLite database reads nothing outside its task (issue 47): the data engine opens it
read-only and immutable, never runs a view, trigger or virtual table, and attaches nothing."""

from __future__ import annotations

import base64
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
from engine_job_helpers import run_job, task_named
from planted_secrets import Planted, planted

from mcv_pipelines.service.engines.base import Engine
from mcv_pipelines.service.server import LocalService

RequireEngine = Callable[..., Engine]


@pytest.fixture
def secrets(
    service: LocalService, client: httpx.Client, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Planted]:
    with planted(service, client, monkeypatch) as found:
        yield found


def _hostile_database(path: Path, secret: str) -> bytes:
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE animals (name TEXT)")
        db.execute("INSERT INTO animals VALUES ('Quokka')")
        db.execute(f"CREATE VIEW leak AS SELECT load_extension('{secret}') AS x")
        db.execute(f"CREATE TRIGGER t AFTER INSERT ON animals BEGIN SELECT load_extension('{secret}'); END")
        db.execute("CREATE VIRTUAL TABLE words USING fts5(body)")
        db.execute("PRAGMA writable_schema = ON")
        db.execute(  # a virtual table whose module would read the secret, were it ever run
            "INSERT INTO sqlite_master (type, name, tbl_name, rootpage, sql) VALUES "
            "('table', 'outside', 'outside', 0, ?)",
            (f"CREATE VIRTUAL TABLE outside USING csv(filename='{secret}')",),
        )
    db.close()
    return path.read_bytes()


def test_a_database_runs_nothing_and_reads_only_its_tables(
    secrets: Planted, require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("data", "convert", "sqlite", "csv")
    secret = str(next(iter(secrets.text.values())))
    data = _hostile_database(tmp_path / "zoo.sqlite", secret)
    tasks: dict[str, object] = {
        "in": {"operation": "import/base64", "file": base64.b64encode(data).decode(), "filename": "z.sqlite"}
    }
    for name, table in (("plain", "animals"), ("view", "leak"), ("vtab", "outside"), ("fts", "words")):
        tasks[name] = {"operation": "convert", "input": "in", "output_format": "csv", "table": table}
    tasks["book"] = {"operation": "convert", "input": "in", "output_format": "xlsx"}
    tasks["out"] = {"operation": "export/url", "input": ["plain", "book"]}
    job = run_job(client, tasks)
    outputs = b""
    for item in (task_named(job, "out").get("result") or {}).get("files", []):
        outputs += httpx.get(item["url"], timeout=60).content
    messages = " ".join(str(task_named(job, n).get("message")) for n in ("view", "vtab", "fts", "book"))
    assert secrets.found_in(outputs + messages.encode()) == []
    assert task_named(job, "plain")["status"] == "finished"
    assert task_named(job, "book")["status"] == "finished", task_named(job, "book").get("message")
    assert task_named(job, "view")["code"] == "INVALID_OPTION"  # a view is no table here
    assert "virtual table" in task_named(job, "vtab")["message"]
    assert "virtual table" in task_named(job, "fts")["message"]
