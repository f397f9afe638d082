"""API keys from a file: one ``KEY [scope,scope...]`` a line (all scopes when none are given),
``#`` comments and blank lines allowed. Each key gets a user record of its own the first time it is
seen; a key removed from the file is revoked when the file is read again (SIGHUP).

Example file::

    # alice: everything
    0d6f...c1   user.read,user.write,task.read,task.write,webhook.read,webhook.write
    # the dashboard only reads
    9a41...7e   task.read
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from pathlib import Path

from mcv_pipelines.redact import register_secret
from mcv_pipelines.service.state.config import ALL_SCOPES
from mcv_pipelines.service.state.store import Store, hash_key

__all__ = ["MIN_KEY_LENGTH", "KeyFileError", "KeyLine", "apply_keys", "new_key", "read_key_file"]

MIN_KEY_LENGTH = 16


class KeyFileError(ValueError):
    """A line of the key file is wrong; the message starts with file:line."""


@dataclass(frozen=True)
class KeyLine:
    key: str
    scopes: tuple[str, ...]


def read_key_file(path: Path) -> list[KeyLine]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise KeyFileError(f"{path}: cannot read the API key file: {exc.strerror}") from None
    keys: list[KeyLine] = []
    seen: set[str] = set()
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        key, _, rest = line.partition(" ")
        where = f"{path}:{number}"
        if len(key) < MIN_KEY_LENGTH:  # refused, and never shown
            raise KeyFileError(f"{where}: the key is shorter than {MIN_KEY_LENGTH} characters")
        register_secret(key)  # before any message could show it
        scopes = tuple(s.strip() for s in rest.replace(" ", ",").split(",") if s.strip()) or ALL_SCOPES
        unknown = sorted(set(scopes) - set(ALL_SCOPES))
        if unknown:
            raise KeyFileError(
                f"{where}: unknown scope(s) {', '.join(unknown)}; known: {', '.join(ALL_SCOPES)}"
            )
        if key in seen:
            raise KeyFileError(f"{where}: the same key is listed twice")
        seen.add(key)
        keys.append(KeyLine(key, scopes))
    return keys


def apply_keys(store: Store, keys: list[KeyLine], source: str, default_credits: int) -> None:
    """Make the database's keys from ``source`` match ``keys``: new ones added (each with a new
    user), scopes updated, removed ones revoked."""
    for line in keys:
        digest = hash_key(line.key)
        with store.transaction() as tx:
            row = tx.one("SELECT user_id FROM api_keys WHERE key_hash = ?", (digest,))
            if row is not None:
                tx.execute(
                    "UPDATE api_keys SET scopes = ?, source = ?, revoked_at = CASE WHEN"
                    " api_keys.revoked_by = 'command' THEN api_keys.revoked_at ELSE NULL END"  # stays revoked
                    " WHERE key_hash = ?",
                    (" ".join(line.scopes), source, digest),
                )
                continue
        name = f"key-{digest[:12]}"
        user_id = store.create_user(name, f"{name}@localhost", default_credits)
        store.add_key(line.key, user_id, line.scopes, source=source)
    store.revoke_keys_except(source, {hash_key(line.key) for line in keys})


def new_key() -> str:
    key = secrets.token_urlsafe(32)
    register_secret(key)
    return key
