"""The tables of a SQLite database file, read with Python's sqlite3 module and nothing run that the file
asks for.

The file is opened read-only and immutable (``mode=ro&immutable=1``: no journal, no WAL file, no lock
file beside it is opened or made), with ``trusted_schema`` off and an authorizer that allows reading
tables and nothing else: no ATTACH (so no other file is ever opened), no function calls, no writes, no
pragmas. Only base tables are read (``sqlite_master`` rows of type ``table``; SQLite's own
``sqlite_*`` tables left out); views and triggers are never run, and a virtual table (fts, a csv
module, rtree), whose module could read elsewhere, is refused when named and left out of the list
otherwise. A cell may hold ``MAX_CELL_BYTES``, a table ``MAX_VALUES`` cells, and the reading stops
after ``MAX_SECONDS``.

Text, integers, floats and null come out as they are, a blob as base64 text.
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path
from typing import Any

from mcv_pipelines.service.engines.base import EngineError
from mcv_pipelines.service.engines.data.limits import MAX_VALUES
from mcv_pipelines.service.engines.data.records import Table
from mcv_pipelines.service.engines.failures import INVALID_INPUT_FILE, INVALID_OPTION

__all__ = ["MAX_SQLITE_BYTES", "read_tables"]

MAX_SQLITE_BYTES = 256 * 1024 * 1024  # read a row at a time, not parsed whole
MAX_CELL_BYTES = 16 * 1024 * 1024
MAX_SECONDS = 60.0
_MAGIC = b"SQLite format 3\x00"
_ALLOWED = {sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ}


def _authorize(action: int, *_: Any) -> int:
    return sqlite3.SQLITE_OK if action in _ALLOWED else sqlite3.SQLITE_DENY


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _open(path: Path) -> sqlite3.Connection:
    size = path.stat().st_size
    if size > MAX_SQLITE_BYTES:
        raise EngineError(
            INVALID_INPUT_FILE,
            f"{path.name} is {size:,} bytes; SQLite conversions take files up to {MAX_SQLITE_BYTES:,} bytes",
        )
    with path.open("rb") as file:
        if file.read(16) != _MAGIC:
            raise EngineError(INVALID_INPUT_FILE, f"{path.name} is not a SQLite 3 database (no header)")
    connection = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro&immutable=1", uri=True)
    connection.execute("PRAGMA trusted_schema=OFF")
    connection.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, MAX_CELL_BYTES)
    connection.setlimit(sqlite3.SQLITE_LIMIT_ATTACHED, 0)
    connection.set_authorizer(_authorize)
    deadline = time.monotonic() + MAX_SECONDS
    connection.set_progress_handler(lambda: int(time.monotonic() > deadline), 10_000)
    return connection


def _base_tables(connection: sqlite3.Connection) -> tuple[list[str], set[str]]:
    """The base tables in the file's order, and the virtual ones."""
    tables: list[str] = []
    virtual: set[str] = set()
    for name, sql in connection.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table'"):
        if not isinstance(name, str) or name.lower().startswith("sqlite_"):
            continue
        if isinstance(sql, str) and sql.lstrip().upper().startswith("CREATE VIRTUAL"):
            virtual.add(name)
        else:
            tables.append(name)
    return tables, virtual


def read_tables(path: Path, chosen: str | None, every: bool) -> list[tuple[str, Table]]:
    """The table ``chosen`` (default: the only one), or every base table when ``every`` and none is
    chosen; each as (name, table)."""
    try:
        connection = _open(path)
    except sqlite3.Error as exc:
        raise EngineError(INVALID_INPUT_FILE, f"not a readable SQLite database: {exc}") from exc
    try:
        tables, virtual = _base_tables(connection)
        if chosen is not None:
            if chosen in virtual:
                raise EngineError(
                    INVALID_OPTION, f"the table {chosen!r} is a virtual table, whose module is not run here"
                )
            if chosen not in tables:
                raise EngineError(INVALID_OPTION, f"option 'table' names no table of the database: "
                                  f"{chosen!r}; its tables are {tables}")  # fmt: skip
            names = [chosen]
        elif not tables:
            raise EngineError(INVALID_INPUT_FILE, "the database holds no table")
        elif every or len(tables) == 1:
            names = tables
        else:
            raise EngineError(
                INVALID_OPTION,
                f"the database holds {len(tables)} tables {tables}; name one with option 'table'",
            )
        read, cells = [], 0
        for name in names:
            # the name is a base table of sqlite_master, quoted as an identifier: nothing else goes in
            cursor = connection.execute(f"SELECT * FROM {_quoted(name)}")  # noqa: S608 - a quoted table name
            columns = [str(item[0]) for item in cursor.description]
            rows: list[list[Any]] = []
            for row in cursor:
                cells += len(row)
                if cells > MAX_VALUES:
                    raise EngineError(
                        INVALID_INPUT_FILE, f"the database holds more than {MAX_VALUES:,} cells"
                    )
                rows.append(list(row))
            read.append((name, Table(columns, rows)))
        return read
    except sqlite3.Error as exc:
        detail = "it took too long" if "interrupt" in str(exc) else str(exc)
        raise EngineError(INVALID_INPUT_FILE, f"the SQLite database could not be read: {detail}") from exc
    finally:
        connection.close()
