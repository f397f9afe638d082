"""PostgreSQL through psycopg 3: the database a team's API and worker processes share.

One connection per process, guarded by a lock (every transaction is short: a row or a few); a
broken connection is replaced on the next use, so the service recovers when the server comes back.
Changes are announced with NOTIFY on the channel ``mcv`` (sent by PostgreSQL at commit) and heard by
``listen`` on a connection of its own.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

from mcv_pipelines.redact import redact, register_secret
from mcv_pipelines.service.state.database.base import Database, DatabaseUnavailable, Row, Tx

if TYPE_CHECKING:
    import psycopg

__all__ = ["CHANNEL", "PostgresDatabase", "masked_url"]

CHANNEL = "mcv"
_CONNECT_TIMEOUT = 5


def masked_url(url: str) -> str:
    """``url`` with its password registered as a secret and shown as ***."""
    parts = urlsplit(url)
    if parts.password:
        register_secret(parts.password)
        netloc = parts.netloc.rpartition("@")
        return urlunsplit(parts._replace(netloc=f"{netloc[0].partition(':')[0]}:***@{netloc[2]}"))
    return url


class _PgTx(Tx):
    def __init__(self, conn: psycopg.Connection[Any]) -> None:
        self._conn = conn
        self.notices: list[str] = []

    def execute(self, sql: str, args: Sequence[Any] = ()) -> list[Row]:
        query = sql.replace("%", "%%").replace("?", "%s") if args else sql
        cur = self._conn.execute(query, tuple(args) if args else None)
        return list(cur.fetchall()) if cur.description is not None else []

    def notify(self, payload: str) -> None:
        self.notices.append(payload)


class PostgresDatabase(Database):
    dialect = "postgresql"
    shared = True
    lock_rows = " FOR UPDATE"
    skip_locked = " FOR UPDATE SKIP LOCKED"
    now_sql = "EXTRACT(EPOCH FROM clock_timestamp())::double precision"

    def __init__(self, url: str) -> None:
        import psycopg  # only a PostgreSQL deployment needs it

        self._psycopg = psycopg
        self.url = url
        self.display = masked_url(url)
        self._lock = threading.RLock()
        self._conn: psycopg.Connection[Any] | None = None
        self._tx: _PgTx | None = None
        self._closed = False
        self._connection()  # fail at start, with a clear message, when it cannot be reached

    def _connect(self, autocommit: bool = True) -> psycopg.Connection[Any]:
        try:
            return self._psycopg.connect(self.url, autocommit=autocommit, connect_timeout=_CONNECT_TIMEOUT)
        except self._psycopg.Error as exc:
            raise self.unavailable(exc) from None

    def unavailable(self, exc: BaseException) -> DatabaseUnavailable:
        reason = redact(str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__)
        return DatabaseUnavailable(f"cannot reach the database {self.display}: {reason}")

    def _connection(self) -> psycopg.Connection[Any]:
        if self._conn is None or self._conn.closed or self._conn.broken:
            if self._conn is not None:
                self._conn.close()
            self._conn = None
            self._conn = self._connect()
        return self._conn

    @contextmanager
    def transaction(self) -> Iterator[Tx]:
        with self._lock:
            if self._tx is not None:
                yield self._tx
                return
            conn = self._connection()
            tx = _PgTx(conn)
            self._tx = tx
            try:
                with conn.transaction():
                    yield tx
                    for payload in tx.notices:
                        conn.execute("SELECT pg_notify(%s, %s)", (CHANNEL, payload))
            except self._psycopg.OperationalError as exc:
                raise self.unavailable(exc) from None
            finally:
                self._tx = None

    def next_seq(self, tx: Tx) -> int:
        row = tx.one("SELECT nextval('mcv_seq')")
        return int(row[0]) if row else 0

    def another(self) -> PostgresDatabase:
        return PostgresDatabase(self.url)

    @contextmanager
    def exclusive(self, key: int) -> Iterator[bool]:
        """A session advisory lock on this process's connection, tried once; released at the end of
        the block, or by the server when the connection (or the process) dies."""
        with self.transaction() as tx:
            row = tx.one("SELECT pg_try_advisory_lock(?)", (key,))
        held = bool(row and row[0])
        try:
            yield held
        finally:
            if held:
                try:
                    with self.transaction() as tx:
                        tx.execute("SELECT pg_advisory_unlock(?)", (key,))
                except DatabaseUnavailable:
                    pass  # the connection is gone, and the lock with it

    def ping(self) -> None:
        with self._lock:
            try:
                self._connection().execute("SELECT 1")
            except self._psycopg.Error as exc:
                raise self.unavailable(exc) from None

    def close(self) -> None:
        with self._lock:
            self._closed = True
            if self._conn is not None:
                self._conn.close()

    def listen(self) -> Iterator[str]:
        """Payloads of NOTIFY on ``mcv`` from any process; reconnects when the connection breaks,
        yields "" every second so the caller can check whether to stop, and after a reconnect (a
        notice may have been missed while it was down)."""
        conn: psycopg.Connection[Any] | None = None
        while not self._closed:
            try:
                if conn is None or conn.closed or conn.broken:
                    conn = self._connect()
                    conn.execute(f"LISTEN {CHANNEL}")
                    yield ""
                for notice in conn.notifies(timeout=1.0):
                    yield notice.payload
                yield ""
            except (self._psycopg.Error, DatabaseUnavailable):
                if conn is not None:
                    conn.close()
                conn = None
                threading.Event().wait(1.0)
                yield ""
        if conn is not None:
            conn.close()
