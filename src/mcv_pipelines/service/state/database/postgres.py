"""PostgreSQL through psycopg 3: the database a team's API and worker processes share.

Each process keeps a pool of connections (psycopg_pool), ``pool_size(workers)`` at most: one per task
slot (a running task writes its progress and its end), plus four: the lease heartbeat, the janitor's
advisory lock (held on a connection of its own for the round), the janitor's statements, and the
HTTP side (the requests of the event loop and of its thread pool). So ``--workers 4`` keeps up to 8
connections; 1 API and 2 workers of 4 each, up to 24 and the three LISTEN connections.
A transaction takes a connection for its length; blocks nested in the same thread join it.

A connection the server dropped (a restart, ``pg_ctl restart -m fast``) is found at the next BEGIN,
handed back to the pool (which discards it and connects anew) and the transaction begun again on
another (nothing of it had run: safe), waiting up to 30 s for the server to come back; a connection
lost mid-transaction or at COMMIT is DatabaseUnavailable (the outcome unknown: the caller decides).
A read outside a transaction is one statement on an autocommit connection (no BEGIN and COMMIT), run
again on another connection when the first was dropped (a read changes nothing: always safe).
Changes are announced with NOTIFY on the channel ``mcv`` (sent by PostgreSQL at commit) and heard by
``listen`` on a connection of its own, outside the pool.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import urlsplit, urlunsplit

from mcv_pipelines.redact import redact, register_secret
from mcv_pipelines.service.state.database.base import Database, DatabaseUnavailable, Row, Tx

if TYPE_CHECKING:
    import psycopg
    from psycopg_pool import ConnectionPool

__all__ = ["CHANNEL", "PostgresDatabase", "masked_url", "pool_size"]

CHANNEL = "mcv"
_CONNECT_TIMEOUT = 5
_RECONNECT_FOR = 30.0  # a transaction waits this long for a database that went away (a restart)
_SPARE = 4  # connections beside the task slots: heartbeat, janitor's lock, janitor, HTTP side
_MIN_OPEN = 2  # connections the pool keeps open when idle
log = logging.getLogger(__name__)
_T = TypeVar("_T")


def pool_size(workers: int) -> int:
    """The most connections one process keeps: one per task slot (``--workers``) plus four (the
    lease heartbeat, the janitor's held advisory lock and its statements, the HTTP side)."""
    return max(1, workers) + _SPARE


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

    def __init__(self, url: str, workers: int = 4) -> None:
        import psycopg  # only a PostgreSQL deployment needs it
        from psycopg_pool import ConnectionPool

        self._psycopg = psycopg
        self.url = url
        self.display = masked_url(url)
        self.size = pool_size(workers)
        self._local = threading.local()  # the open transaction of each thread, which nested blocks join
        self._closed = False
        self.reconnect_for = _RECONNECT_FOR
        self._connect().close()  # fail at start, with a clear message, when it cannot be reached
        self._pool: ConnectionPool[psycopg.Connection[Any]] = ConnectionPool(
            url,
            min_size=min(_MIN_OPEN, self.size),
            max_size=self.size,
            kwargs={"autocommit": True, "connect_timeout": _CONNECT_TIMEOUT},
            name="mcv",
            timeout=self.reconnect_for,
            open=True,
        )

    def _connect(self) -> psycopg.Connection[Any]:
        try:
            return self._psycopg.connect(self.url, autocommit=True, connect_timeout=_CONNECT_TIMEOUT)
        except self._psycopg.Error as exc:
            raise self.unavailable(exc) from None

    def unavailable(self, exc: BaseException) -> DatabaseUnavailable:
        reason = redact(str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__)
        return DatabaseUnavailable(f"cannot reach the database {self.display}: {reason}")

    @contextmanager
    def transaction(self) -> Iterator[Tx]:
        outer: _PgTx | None = getattr(self._local, "tx", None)
        if outer is not None:
            yield outer
            return
        conn = self._begin()
        tx = _PgTx(conn)
        self._local.tx = tx
        try:
            try:
                yield tx
                if tx.notices:  # all in one round trip (PostgreSQL sends them at COMMIT, in order)
                    conn.execute(
                        "SELECT pg_notify(%s, payload)"
                        " FROM unnest(%s::text[]) WITH ORDINALITY AS n(payload, i) ORDER BY i",
                        (CHANNEL, tx.notices),
                    )
            except BaseException:
                if not conn.broken:
                    conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")  # lost here, the outcome is unknown: not tried again
        except self._psycopg.OperationalError as exc:
            raise self.unavailable(exc) from None
        finally:
            self._local.tx = None
            self._pool.putconn(conn)  # a broken one is discarded and replaced by the pool

    def read(self, sql: str, args: Sequence[Any] = ()) -> list[Row]:
        """One read: inside the thread's open transaction if there is one, else a single statement
        on an autocommit connection (its own snapshot, as a transaction of one would have), which
        spares the BEGIN and COMMIT round trips a transaction costs. A read runs again on another
        connection when the server dropped the first (a restart), for up to ``reconnect_for`` s."""
        outer: _PgTx | None = getattr(self._local, "tx", None)
        if outer is not None:
            return outer.execute(sql, args)
        conn, rows = self._first_statement(lambda conn: _PgTx(conn).execute(sql, args))
        self._pool.putconn(conn)
        return rows

    def _begin(self) -> psycopg.Connection[Any]:
        """A connection of the pool with a transaction begun. A connection the server dropped (a
        restart) is noticed here, before any statement of the transaction ran, so handing it back and
        beginning again on another is safe."""
        conn, _ = self._first_statement(lambda conn: conn.execute("BEGIN"))
        return conn

    def _first_statement(
        self, run: Callable[[psycopg.Connection[Any]], _T]
    ) -> tuple[psycopg.Connection[Any], _T]:
        """A connection of the pool and what ``run`` (its first statement) made of it. Where the server
        had dropped the connection (a restart), nothing of ``run`` took effect: the connection goes back
        to the pool (which replaces it) and ``run`` is tried on another, for up to ``reconnect_for`` s."""
        deadline = time.monotonic() + self.reconnect_for
        wait = 0.1
        while True:
            conn = None
            try:
                conn = self._pool.getconn(timeout=max(0.1, deadline - time.monotonic()))
                return conn, run(conn)
            except self._psycopg.OperationalError as exc:  # PoolTimeout is one too
                if conn is not None:
                    self._pool.putconn(conn)
                if self._closed or time.monotonic() + wait > deadline:
                    raise self.unavailable(exc) from None
                log.warning("the database %s is away; trying again in %.1f s", self.display, wait)
                time.sleep(wait)
                wait = min(wait * 2, 1.0)
            except BaseException:
                if conn is not None:
                    self._pool.putconn(conn)
                raise

    def next_seq(self, tx: Tx) -> int:
        row = tx.one("SELECT nextval('mcv_seq')")
        return int(row[0]) if row else 0

    def another(self) -> PostgresDatabase:
        """This one: the pool gives long work (the retention sweep) connections of its own, one
        statement at a time, so the requests never queue behind it."""
        return self

    @contextmanager
    def exclusive(self, key: int) -> Iterator[bool]:
        """A session advisory lock, tried once, on a connection taken from the pool and held for the
        whole block (the block's own transactions use others); released at the end of the block, or by
        the server when the connection (or the process) dies."""
        conn = self._begin()
        try:
            try:
                row = conn.execute("SELECT pg_try_advisory_lock(%s)", (key,)).fetchone()
                conn.execute("COMMIT")  # a session lock outlives the transaction that took it
            except self._psycopg.OperationalError as exc:
                raise self.unavailable(exc) from None
            held = bool(row and row[0])
            try:
                yield held
            finally:
                if held and not conn.broken:
                    with suppress(self._psycopg.OperationalError):  # gone: the lock went with it
                        conn.execute("SELECT pg_advisory_unlock(%s)", (key,))
        finally:
            self._pool.putconn(conn)

    def ping(self) -> None:
        conn = None
        try:
            conn = self._pool.getconn(timeout=_CONNECT_TIMEOUT)
            conn.execute("SELECT 1")
        except self._psycopg.Error as exc:
            raise self.unavailable(exc) from None
        finally:
            if conn is not None:
                self._pool.putconn(conn)

    def close(self) -> None:
        self._closed = True
        self._pool.close(timeout=5)

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
