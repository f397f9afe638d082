"""Output name collisions: two rows (or one row twice) writing the same file would overwrite each other,
so a batch checks every row's target paths before the first request.

Paths are compared normalised (``out/a/../b.png`` is ``out/b.png``), and case-folded where the file
system usually ignores case (macOS, Windows).

>>> finder = CollisionFinder()
>>> finder.add("k1", 1, ["out/a.webp"]); finder.add("k2", 2, ["out/./a.webp"])
>>> [str(c) for c in finder.collisions]
['out/a.webp is written by row 1 (key k1) and row 2 (key k2)']
"""

from __future__ import annotations

import os
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
    """Collects each row's target paths and every collision among them (not just the first)."""

    def __init__(self, *, case_insensitive: bool = _CASE_INSENSITIVE) -> None:
        self._case_insensitive = case_insensitive
        self._owners: dict[str, tuple[str, int]] = {}
        self.collisions: list[Collision] = []

    def add(self, key: str, index: int, paths: Iterable[str | os.PathLike[str]]) -> None:
        """Record the files of one row, ``index`` (``key``), will write."""
        in_row: set[str] = set()
        for path in paths:
            shown = os.path.normpath(os.fspath(path))
            name = shown.casefold() if self._case_insensitive else shown
            owner = self._owners.setdefault(name, (key, index))
            if name in in_row or owner != (key, index):
                self.collisions.append(Collision(shown, owner[0], owner[1], key, index))
            in_row.add(name)


def find_collisions(targets: Iterable[tuple[str, int, Iterable[str | os.PathLike[str]]]], *,
                    case_insensitive: bool = _CASE_INSENSITIVE) -> list[Collision]:
    """Every collision among ``(key, index, paths)`` rows."""
    finder = CollisionFinder(case_insensitive=case_insensitive)
    for key, index, paths in targets:
        finder.add(key, index, paths)
    return finder.collisions
