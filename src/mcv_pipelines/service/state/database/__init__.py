"""The service's database: SQLite (the embedded default) or PostgreSQL (a team's shared state).

Example::

    db = open_database("postgresql://mcv:secret@db.internal/mcv", data_dir)   # migrated, ready
"""

from __future__ import annotations

from pathlib import Path

from mcv_pipelines.service.state.database.base import Database, DatabaseUnavailable, SchemaTooNew, Tx
from mcv_pipelines.service.state.database.migrations import migrate

__all__ = ["Database", "DatabaseUnavailable", "SchemaTooNew", "Tx", "check_url", "open_database"]


def check_url(url: str) -> str:
    """ "" when ``url`` names a database mcv can use, else why not."""
    if url.startswith("sqlite:///") and len(url) > len("sqlite:///"):
        return ""
    if url.startswith(("postgresql://", "postgres://")):
        return ""
    return "expected sqlite:///PATH or postgresql://USER[:PASSWORD]@HOST[:PORT]/DATABASE"


def open_database(url: str | None, default_path: Path, workers: int = 4) -> Database:
    """Open (and migrate) the database at ``url``; None means the SQLite file ``default_path``.
    ``workers``: the tasks this process runs at once, which size a PostgreSQL connection pool
    (postgres.pool_size: ``workers + 4``)."""
    db: Database
    if url is None or url.startswith("sqlite:///"):
        from mcv_pipelines.service.state.database.sqlite import SqliteDatabase

        db = SqliteDatabase(Path(url[len("sqlite:///") :]) if url else default_path)
    else:
        from mcv_pipelines.service.state.database.postgres import PostgresDatabase

        db = PostgresDatabase(url, workers)
    try:
        migrate(db)
    except BaseException:
        db.close()
        raise
    return db
