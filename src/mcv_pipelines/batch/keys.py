"""Row keys: what identifies a manifest row across runs, machines and resumes.

A row's key is the value of the ``--key`` column when one is named, else a short hash of the row's
params in canonical JSON, so it does not depend on column order, Python's hash seed or the machine.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Mapping
from typing import Any

from mcv_pipelines.batch.errors import DuplicateKey, ManifestError
from mcv_pipelines.batch.manifest import ManifestRow

__all__ = ["KEY_HASH_LENGTH", "KeyRegistry", "attempt_tag", "canonical_json", "params_hash", "row_key"]

KEY_HASH_LENGTH = 16
"""Hex digits of a hashed key: 64 bits, so a million rows collide with odds about 1 in 36 million."""


_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def canonical_json(value: Any) -> str:
    """JSON with sorted keys and no spaces: equal values give equal text."""
    return _CANONICAL.encode(value)


def params_hash(params: Mapping[str, Any]) -> str:
    """sha256 of the canonical JSON of ``params``, as ``KEY_HASH_LENGTH`` hex digits.

    >>> params_hash({"b": 1, "a": "x"}) == params_hash({"a": "x", "b": 1})
    True
    """
    digest = hashlib.sha256(canonical_json(dict(params)).encode("utf-8")).hexdigest()
    return digest[:KEY_HASH_LENGTH]


def row_key(row: ManifestRow, key_column: str | None = None) -> str:
    """The row's ``key_column`` cell as text, or the hash of its params when no column is named."""
    if key_column is None:
        return params_hash(row.params)
    values = row.values
    if key_column not in values:
        raise ManifestError(
            row.file, f"has no {key_column!r} column for --key", line=row.line, row=row.index,
            rule="manifest-key",
        )
    value = values[key_column]
    if isinstance(value, dict | list) or value is None or value == "":
        raise ManifestError(
            row.file, f"has an empty or non-scalar --key cell {key_column!r}: {value!r}",
            line=row.line, row=row.index, rule="manifest-key",
        )
    return value if isinstance(value, str) else canonical_json(value)


def attempt_tag(batch_id: str, key: str, attempt: int) -> str:
    """The job tag of one submission attempt; unique, so a lost response is found by listing the tag."""
    return f"mcv-{batch_id}-{hashlib.sha256(key.encode('utf-8')).hexdigest()[:12]}-{attempt}"


class KeyRegistry:
    """Finds repeated keys in one pass, naming both rows.

    Keys are kept in a private temporary SQLite database, not in a dict: memory stays flat for any
    number of rows (a dict of a million keys takes about 200 MB).
    """

    def __init__(self, file: str) -> None:
        self._file = file
        self._db = sqlite3.connect("")  # "" is a private on-disk temporary database, deleted on close
        self._db.execute("CREATE TABLE seen (key TEXT PRIMARY KEY, idx INTEGER, line INTEGER) WITHOUT ROWID")
        self._count = 0

    def add(self, key: str, row: ManifestRow) -> None:
        """Remember ``key`` for ``row``; raises DuplicateKey when an earlier row has it."""
        cursor = self._db.execute(
            "INSERT INTO seen VALUES (?, ?, ?) ON CONFLICT DO NOTHING", (key, row.index, row.line)
        )
        if cursor.rowcount == 1:
            self._count += 1
            return
        index, line = self._db.execute("SELECT idx, line FROM seen WHERE key=?", (key,)).fetchone()
        if index != row.index:
            raise DuplicateKey(self._file, key, (index, line), (row.index, row.line))

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> KeyRegistry:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __len__(self) -> int:
        return self._count
