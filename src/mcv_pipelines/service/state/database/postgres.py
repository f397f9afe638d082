"""PostgreSQL through psycopg 3: the database a team's API and worker processes share.

One connection per process, guarded by a lock (every transaction is short: a row or a few). A
connection the server dropped (a restart, ``pg_ctl restart -m fast``) is found at the next BEGIN and
replaced, the transaction then begun again (nothing of it had run: safe), waiting up to 30 s for the
server to come back; a connection lost mid-transaction or at COMMIT is DatabaseUnavailable (the
outcome unknown: the caller decides).
Changes are announced with NOTIFY on the channel ``mcv`` (sent by PostgreSQL at commit) and heard by
``listen`` on a connection of its own.
"""

from __future__ import annotations

import logging
import threading
import time
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
_RECONNECT_FOR = 30.0  # a transaction waits this long for a database that went away (a restart)
log = logging.getLogger(__name__)


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
        self.reconnect_for = _RECONNECT_FOR
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
            conn = self._begin()  # may let go of the lock while it waits for the server
            tx = _PgTx(conn)
            self._tx = tx
            try:
                try:
                    yield tx
                    for payload in tx.notices:
                        conn.execute("SELECT pg_notify(%s, %s)", (CHANNEL, payload))
                except BaseException:
                    if not conn.broken:
                        conn.execute("ROLLBACK")
                    raise
                conn.execute("COMMIT")  # lost here, the outcome is unknown: not tried again
            except self._psycopg.OperationalError as exc:
                raise self.unavailable(exc) from None
            finally:
                self._tx = None

    def _begin(self) -> psycopg.Connection[Any]:
        """A connection with a transaction begun. A connection the server dropped (a restart) is
        noticed here, before any statement of the transaction ran, so opening a new one and beginning
        again is safe; while the server is away that is tried for up to ``reconnect_for`` seconds."""
        deadline = time.monotonic() + self.reconnect_for
        wait = 0.1
        while True:
            try:
                conn = self._connection()
                conn.execute("BEGIN")
                return conn
            except (self._psycopg.OperationalError, DatabaseUnavailable) as exc:
                if self._conn is not None and (self._conn.broken or self._conn.closed):
                    self._conn.close()
                    self._conn = None
                if self._closed or time.monotonic() + wait > deadline:
                    raise exc if isinstance(exc, DatabaseUnavailable) else self.unavailable(exc) from None
                log.warning("the database %s is away; trying again in %.1f s", self.display, wait)
                self._lock.release()  # meanwhile /readyz (ping) answers, and says the database is away
                try:
                    time.sleep(wait)
                finally:
                    self._lock.acquire()
                wait = min(wait * 2, 1.0)

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
