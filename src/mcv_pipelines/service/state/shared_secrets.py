"""What every process of one deployment must share, kept in the database they already share.

The signing key (upload forms, download links) is made once, by whichever process starts first, under
the migration lock (PostgreSQL advisory lock; SQLite has one writer): an API process and its workers,
each with a data directory of its own, sign and check links alike with no extra secret to configure
(issue 25). ``MCV_SIGNING_KEY`` still overrides it (the caller passes it as ServiceConfig.signing_key).

A data directory from before (its ``secret`` file) seeds the database once, so the links it signed keep
working. To rotate the key: ``mcv serve signing-key rotate`` and restart every process; links signed
with the old key are refused (403 INVALID_SIGNATURE, saying the key may have been rotated).

Example::

    key = signing_key(db, legacy=data_dir / "secret")     # 32 random bytes, the same in every process
"""

from __future__ import annotations

import secrets
from pathlib import Path

from mcv_pipelines.redact import register_secret
from mcv_pipelines.service.state.accounts import now_iso
from mcv_pipelines.service.state.database import Database, Tx
from mcv_pipelines.service.state.database.migrations import MIGRATION_LOCK

__all__ = ["SIGNING_KEY", "rotate_signing_key", "signing_key"]

SIGNING_KEY = "signing_key"


def _lock(db: Database, tx: Tx) -> None:
    if db.dialect == "postgresql":  # processes starting together: one makes it, the others read it
        tx.execute(f"SELECT pg_advisory_xact_lock({MIGRATION_LOCK})")


def signing_key(db: Database, legacy: Path | None = None) -> bytes:
    """The deployment's signing key, made (or adopted from the ``legacy`` secret file) on first use."""
    with db.transaction() as tx:
        _lock(db, tx)
        row = tx.one("SELECT value FROM service_secrets WHERE name = ?", (SIGNING_KEY,))
        if row is not None:
            value = bytes.fromhex(str(row[0]))
        else:
            value = _legacy(legacy) or secrets.token_bytes(32)
            tx.execute(
                "INSERT INTO service_secrets (name, value, created_at) VALUES (?, ?, ?)",
                (SIGNING_KEY, value.hex(), now_iso()),
            )
    register_secret(value.hex())
    return value


def rotate_signing_key(db: Database) -> None:
    """Replace the signing key with a new random one (processes read it at start: restart them)."""
    value = secrets.token_bytes(32)
    with db.transaction() as tx:
        _lock(db, tx)
        tx.execute("DELETE FROM service_secrets WHERE name = ?", (SIGNING_KEY,))
        tx.execute(
            "INSERT INTO service_secrets (name, value, created_at) VALUES (?, ?, ?)",
            (SIGNING_KEY, value.hex(), now_iso()),
        )


def _legacy(path: Path | None) -> bytes:
    try:
        return path.read_bytes() if path is not None else b""
    except FileNotFoundError:
        return b""
