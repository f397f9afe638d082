"""Each process's PostgreSQL connection pool (issue 25): a slow transaction does not hold up the
others of its process, the connections stay within ``--workers + 4``, and a restart of the server
between transactions is ridden through on fresh connections."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

from pg_server import PgServer

from mcv_pipelines.service.state.database.postgres import PostgresDatabase, pool_size
from waiting import wait_until


def test_a_transaction_left_open_does_not_hold_up_another_thread(pg_url: str) -> None:
    db = PostgresDatabase(pg_url, workers=1)
    try:
        with db.transaction() as tx:
            tx.execute("CREATE TABLE notes (n INTEGER)")
        inside, release = threading.Event(), threading.Event()

        def slow() -> None:
            with db.transaction() as tx:
                tx.execute("INSERT INTO notes (n) VALUES (1)")
                inside.set()
                release.wait(60)

        holder = threading.Thread(target=slow)
        holder.start()
        try:
            wait_until(inside.is_set, what="the slow transaction to begin")
            done: list[int] = []
            other = threading.Thread(target=lambda: done.append(len(db.read("SELECT n FROM notes"))))
            other.start()
            # One connection behind a lock would keep this read waiting until `release`.
            wait_until(lambda: done, what="a read while another thread's transaction is open")
            assert done == [0]  # it does not see the uncommitted row: another connection
        finally:
            release.set()
            holder.join()
        assert db.read("SELECT n FROM notes") == [(1,)]
    finally:
        db.close()


def test_connections_stay_within_the_pool_size(pg_url: str) -> None:
    db = PostgresDatabase(pg_url, workers=2)
    assert db.size == pool_size(2) == 6
    try:

        def one(_: int) -> int:
            with db.transaction() as tx:
                row = tx.one("SELECT pg_backend_pid(), pg_sleep(0.02)")
                assert row is not None
                return int(row[0])

        with ThreadPoolExecutor(max_workers=20) as threads:
            backends = set(threads.map(one, range(100)))
        assert 1 < len(backends) <= 6  # several at once, never more than the pool holds
    finally:
        db.close()


def test_a_server_restart_between_transactions_is_ridden_through(postgres: PgServer) -> None:
    db = PostgresDatabase(postgres.url(postgres.new_database()), workers=1)
    try:
        with ThreadPoolExecutor(max_workers=5) as threads:  # several idle connections, all to be cut
            list(threads.map(lambda _: db.read("SELECT pg_sleep(0.05)"), range(10)))
        postgres.stop()
        postgres.start()
        with db.transaction() as tx:  # each dropped connection is found at BEGIN and replaced
            tx.execute("CREATE TABLE after_restart (n INTEGER)")
            tx.execute("INSERT INTO after_restart (n) VALUES (?)", (7,))
        assert db.read("SELECT n FROM after_restart") == [(7,)]
    finally:
        db.close()
