"""Output name collisions: two rows (or one row twice) writing the same file would overwrite each other,
so a batch checks every row's target paths before the first request.

Paths are compared normalised (``out/a/../b.png`` is ``out/b.png``), and case-folded where the file
system usually ignores case (macOS, Windows).

>>> found = find_collisions([("k1", 1, ["out/a.webp"]), ("k2", 2, ["out/./a.webp"])])
>>> [str(c) for c in found]
['out/a.webp is written by row 1 (key k1) and row 2 (key k2)']
"""

from __future__ import annotations

import os
import sqlite3
import sys
from collections.abc import Iterable
from dataclasses import dataclass

from mcv_pipelines.diagnostics import Diagnostic, ManifestCell, Severity

__all__ = ["Collision", "CollisionFinder", "find_collisions"]

_CASE_INSENSITIVE = sys.platform in ("darwin", "win32")


@dataclass(frozen=True, slots=True)
class Collision:
    """``path`` is a target of both the first row and the second."""

    path: str
    first_key: str
    first_index: int
    second_key: str
    second_index: int

    def __str__(self) -> str:
        if self.first_index == self.second_index:
            return f"{self.path} is written twice by row {self.second_index} (key {self.second_key})"
        return (f"{self.path} is written by row {self.first_index} (key {self.first_key}) "
                f"and row {self.second_index} (key {self.second_key})")

    def diagnostic(self, manifest: str) -> Diagnostic:
        return Diagnostic(
            rule="batch-output-collision", severity=Severity.ERROR, message=str(self),
            hint="make download_to or the output file name depend on the row, e.g. {{ params.photo | stem }}",
            manifest=ManifestCell(manifest, self.second_index),
        )


class CollisionFinder:
    """Collects each row's target paths and the collisions among them (not just the first).

    Paths are kept in a private temporary SQLite table, so memory stays flat for any number of rows;
    the first ``limit`` collisions are kept for the report, ``count`` says how many there were.
    """

    def __init__(self, *, case_insensitive: bool = _CASE_INSENSITIVE, limit: int = 1000) -> None:
        self._case_insensitive = case_insensitive
        self._limit = limit
        self._db = sqlite3.connect("")  # "" is a private on-disk temporary database, deleted on close
        self._db.execute("CREATE TABLE owners (name TEXT PRIMARY KEY, key TEXT, idx INTEGER) WITHOUT ROWID")
        self.collisions: list[Collision] = []
        self.count = 0

    def add(self, key: str, index: int, paths: Iterable[str | os.PathLike[str]]) -> None:
        """Record the files that one row, ``index`` (``key``), will write."""
        in_row: set[str] = set()
        for path in paths:
            shown = os.path.normpath(os.fspath(path))
            name = shown.casefold() if self._case_insensitive else shown
            cursor = self._db.execute(
                "INSERT INTO owners VALUES (?, ?, ?) ON CONFLICT DO NOTHING", (name, key, index)
            )
            if cursor.rowcount == 1:
                in_row.add(name)
                continue
            owner_key, owner_index = self._db.execute(
                "SELECT key, idx FROM owners WHERE name=?", (name,)
            ).fetchone()
            if name in in_row or owner_index != index:
                self.count += 1
                if len(self.collisions) < self._limit:
                    self.collisions.append(Collision(shown, owner_key, owner_index, key, index))
            in_row.add(name)

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> CollisionFinder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def find_collisions(targets: Iterable[tuple[str, int, Iterable[str | os.PathLike[str]]]], *,
                    case_insensitive: bool = _CASE_INSENSITIVE) -> list[Collision]:
    """Every collision among ``(key, index, paths)`` rows (at most the finder's limit)."""
    with CollisionFinder(case_insensitive=case_insensitive) as finder:
        for key, index, paths in targets:
            finder.add(key, index, paths)
        return finder.collisions
