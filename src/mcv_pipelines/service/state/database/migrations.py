"""Versioned schema migrations, applied on start.

``schema_version`` holds the number of the last migration applied. Each dialect has the same
numbered list (the same tables and columns, in each engine's own types); a start applies the ones
after the stored number, each in one transaction. A database newer than this code (migrated by a later
mcv) is refused: this code would misread it.

Migration 1 is the schema of the SQLite service before migrations existed (``IF NOT EXISTS``), so an
existing data directory is adopted as it is. Migration 4 adds ``service_secrets`` (what every process
of a deployment must share, such as the signing key: state/shared_secrets.py) and records which keys
an operator revoked by command (those stay revoked, whatever a command line later says).
"""

from __future__ import annotations

from mcv_pipelines.service.state.database.base import Database, SchemaTooNew, Tx

__all__ = ["MIGRATIONS", "MIGRATION_LOCK", "latest_version", "migrate", "schema_version"]

_SQLITE_1 = [
    "CREATE TABLE IF NOT EXISTS users (id INTEGER PRIMARY KEY AUTOINCREMENT, username TEXT, email TEXT,"
    " credits INTEGER, created_at TEXT)",
    "CREATE TABLE IF NOT EXISTS api_keys (key_hash TEXT PRIMARY KEY, user_id INTEGER, scopes TEXT)",
    "CREATE TABLE IF NOT EXISTS jobs (id TEXT PRIMARY KEY, user_id INTEGER, tag TEXT, status TEXT,"
    " seq INTEGER, doc TEXT)",
    "CREATE TABLE IF NOT EXISTS tasks (id TEXT PRIMARY KEY, job_id TEXT, user_id INTEGER, operation TEXT,"
    " status TEXT, ended_at TEXT, seq INTEGER, doc TEXT)",
    "CREATE TABLE IF NOT EXISTS webhooks (id INTEGER PRIMARY KEY AUTOINCREMENT, user_id INTEGER, url TEXT,"
    " doc TEXT)",
    "CREATE INDEX IF NOT EXISTS tasks_job ON tasks (job_id)",
    "CREATE INDEX IF NOT EXISTS tasks_status ON tasks (status)",
]
_POSTGRES_1 = [
    "CREATE SEQUENCE IF NOT EXISTS mcv_seq",
    "CREATE TABLE IF NOT EXISTS users (id BIGSERIAL PRIMARY KEY, username TEXT, email TEXT,"
    " credits BIGINT, created_at TEXT)",
    "CREATE TABLE IF NOT EXISTS api_keys (key_hash TEXT PRIMARY KEY, user_id BIGINT, scopes TEXT)",
    "CREATE TABLE IF NOT EXISTS jobs (id TEXT PRIMARY KEY, user_id BIGINT, tag TEXT, status TEXT,"
    " seq BIGINT, doc TEXT)",
    "CREATE TABLE IF NOT EXISTS tasks (id TEXT PRIMARY KEY, job_id TEXT, user_id BIGINT, operation TEXT,"
    " status TEXT, ended_at TEXT, seq BIGINT, doc TEXT)",
    "CREATE TABLE IF NOT EXISTS webhooks (id BIGSERIAL PRIMARY KEY, user_id BIGINT, url TEXT, doc TEXT)",
    "CREATE INDEX IF NOT EXISTS tasks_job ON tasks (job_id)",
    "CREATE INDEX IF NOT EXISTS tasks_status ON tasks (status)",
]


def _second(real: str) -> list[str]:
    """Leases (who runs a task, until when), readiness, and the key list's own columns."""
    return [
        "ALTER TABLE tasks ADD COLUMN ready INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE tasks ADD COLUMN deps TEXT NOT NULL DEFAULT ''",
        "ALTER TABLE tasks ADD COLUMN lease_owner TEXT",
        f"ALTER TABLE tasks ADD COLUMN lease_expires {real}",
        f"ALTER TABLE tasks ADD COLUMN ready_at {real}",  # when it became runnable (database clock)
        f"ALTER TABLE tasks ADD COLUMN claimed_at {real}",  # when a worker last claimed it
        "CREATE INDEX tasks_claim ON tasks (status, ready, seq)",
        "ALTER TABLE api_keys ADD COLUMN created_at TEXT",
        "ALTER TABLE api_keys ADD COLUMN revoked_at TEXT",
        "ALTER TABLE api_keys ADD COLUMN source TEXT NOT NULL DEFAULT 'db'",
        "ALTER TABLE api_keys ADD COLUMN rate_limit INTEGER",  # NULL: the server's --rate-limit
    ]


def _third(retry_of: str, readable: str) -> list[str]:
    """Indexes that make each list route cost one page, whatever the history (issue 27): every list
    is one user's rows newest first (``ORDER BY seq DESC``), so each index ends in ``seq`` and a page
    is read straight off it, with no sort and no skipped rows. ``tasks_job`` becomes (job_id, seq) for
    a job's tasks in order; ``tasks_ended`` serves the retention sweep; ``tasks_status`` goes, as
    ``tasks_claim`` (status, ready, seq) serves the same lookups and every index costs every write;
    ``retry_of`` (a task's source task, read from its document) lets ``include=retries`` find a
    task's retries by index. ``retry_of`` is the dialect's expression reading that field of ``doc``,
    for the documents where ``readable`` holds."""
    return [
        "CREATE INDEX jobs_user_seq ON jobs (user_id, seq)",
        "CREATE INDEX jobs_user_status_seq ON jobs (user_id, status, seq)",
        "CREATE INDEX jobs_user_tag_seq ON jobs (user_id, tag, seq)",
        "CREATE INDEX tasks_user_seq ON tasks (user_id, seq)",
        "CREATE INDEX tasks_user_status_seq ON tasks (user_id, status, seq)",
        "CREATE INDEX tasks_user_operation_seq ON tasks (user_id, operation, seq)",
        "DROP INDEX tasks_status",
        "DROP INDEX tasks_job",
        "CREATE INDEX tasks_job ON tasks (job_id, seq)",
        "CREATE INDEX tasks_ended ON tasks (ended_at) WHERE ended_at IS NOT NULL",
        "ALTER TABLE tasks ADD COLUMN retry_of TEXT",
        f"UPDATE tasks SET retry_of = {retry_of} WHERE doc LIKE '%retry_of_task_id%' AND {readable}",  # noqa: S608  # constants of this module, no value
        "CREATE INDEX tasks_retry_of ON tasks (retry_of, seq) WHERE retry_of IS NOT NULL",
    ]


def _fourth(real: str) -> list[str]:
    """Secrets every process shares (made once, under the migration lock), revocations by command, and
    the rate limit's buckets (per key hash, so every API process counts against the same one)."""
    return [
        "CREATE TABLE service_secrets (name TEXT PRIMARY KEY, value TEXT NOT NULL, created_at TEXT)",
        "ALTER TABLE api_keys ADD COLUMN revoked_by TEXT",  # 'command': `mcv serve keys revoke`
        f"CREATE TABLE rate_buckets (key_hash TEXT PRIMARY KEY, tokens {real} NOT NULL,"
        f" updated_at {real} NOT NULL)",
    ]


MIGRATIONS: dict[str, list[list[str]]] = {
    # Read without parsing every document as JSON on PostgreSQL (a document the standard library
    # wrote with NaN in it is no jsonb, and the migration would stop there); SQLite skips such ones.
    "sqlite": [
        _SQLITE_1,
        _second("REAL"),
        _third("json_extract(doc, '$.retry_of_task_id')", "json_valid(doc)"),
        _fourth("REAL"),
    ],
    "postgresql": [
        _POSTGRES_1,
        _second("DOUBLE PRECISION"),
        _third('substring(doc from \'"retry_of_task_id": ?"([^"]+)"\')', "TRUE"),
        _fourth("DOUBLE PRECISION"),
    ],
}
MIGRATION_LOCK = 7231001  # the PostgreSQL advisory lock that start-up steps of every process take


def latest_version(dialect: str) -> int:
    return len(MIGRATIONS[dialect])


def schema_version(tx: Tx) -> int:
    tx.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
    row = tx.one("SELECT MAX(version) FROM schema_version")
    return int(row[0]) if row and row[0] is not None else 0


def migrate(db: Database) -> int:
    """Bring the schema up to date; the version it is at. SchemaTooNew when the database is ahead."""
    latest = latest_version(db.dialect)
    with db.transaction() as tx:
        if db.dialect == "postgresql":  # processes starting together migrate one after the other
            tx.execute(f"SELECT pg_advisory_xact_lock({MIGRATION_LOCK})")
        version = schema_version(tx)
        if version > latest:
            raise SchemaTooNew(
                f"the database {db.display} has schema version {version}, but this mcv knows versions "
                f"up to {latest}: upgrade mcv (pip install -U mcv-pipelines) or use another --database"
            )
        for number in range(version + 1, latest + 1):
            for statement in MIGRATIONS[db.dialect][number - 1]:
                tx.execute(statement)
            tx.execute("DELETE FROM schema_version")
            tx.execute("INSERT INTO schema_version (version) VALUES (?)", (number,))
    return latest
