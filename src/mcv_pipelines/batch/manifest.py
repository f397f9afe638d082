"""Manifests: the rows of a batch, read as a stream from a CSV, JSONL or YAML file or a glob of files.

A ``Manifest`` can be iterated any number of times (a validation pass, then a run pass); each pass
reads the source afresh, one row at a time. Each row knows its place (file, 1-based data row index,
physical line) and splits its cells into the pipeline's params and the rest, which templates see as
``row.<column>``.

>>> rows = list(read_rows([b"photo,note\\n", b"a.jpg,hi\\n"], "csv", "m.csv", params={"photo"}))
>>> rows[0].params, rows[0].extra, rows[0].line
({'photo': 'a.jpg'}, {'note': 'hi'}, 2)
"""

from __future__ import annotations

import glob as globbing
import hashlib
import os
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from mcv_pipelines.batch.errors import ManifestError
from mcv_pipelines.batch.readers import RawRecord, read_csv, read_jsonl, read_yaml
from mcv_pipelines.diagnostics import ManifestCell
from mcv_pipelines.errors import UsageError

__all__ = [
    "MANIFEST_FORMATS",
    "Manifest",
    "ManifestRow",
    "glob_manifest",
    "open_manifest",
    "read_rows",
]

_Reader = Callable[[Iterable[bytes], str], Iterator[RawRecord]]

_READERS: dict[str, _Reader] = {
    "csv": read_csv,
    "tsv": partial(read_csv, delimiter="\t"),
    "jsonl": read_jsonl,
    "yaml": read_yaml,
}

MANIFEST_FORMATS: Mapping[str, str] = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".yaml": "yaml",
    ".yml": "yaml",
}
"""File extension -> manifest format."""


@dataclass(frozen=True, slots=True)
class ManifestRow:
    """One data row. ``index`` counts data rows from 1; ``line`` is where it starts (None for a glob).

    Values are as written: strings for CSV, JSON types for JSONL and YAML. Coercion to the params'
    declared types happens later, once, in the params layer.
    """

    index: int
    file: str
    line: int | None
    params: Mapping[str, Any]
    extra: Mapping[str, Any]

    @property
    def values(self) -> dict[str, Any]:
        """Every cell, params first."""
        return {**self.params, **self.extra}

    def cell(self, column: str | None = None) -> ManifestCell:
        """The place of this row (and a column of it) for a diagnostic."""
        return ManifestCell(self.file, self.index, column)

    def template_context(self, key: str) -> dict[str, Any]:
        """What templates see as ``row``: the extra columns, then ``index`` and ``key`` (which win over
        columns of those names)."""
        return {**self.extra, "index": self.index, "key": key}

    @property
    def where(self) -> str:
        """``file:line: row N`` (or ``file: row N``), for messages."""
        at = self.file if self.line is None else f"{self.file}:{self.line}"
        return f"{at}: row {self.index}"


def read_rows(
    lines: Iterable[bytes], format: str, file: str, *, params: Collection[str] | None = None
) -> Iterator[ManifestRow]:
    """Rows of a manifest given as byte lines; ``params`` names the pipeline's params (None: all).

    Lazy: a row is yielded as soon as its lines are read. An empty manifest is an error at the end.
    """
    index = 0
    for line, values in _READERS[format](lines, file):
        index += 1
        yield _make_row(index, file, line, values, params)
    if index == 0:
        raise ManifestError(file, "has no rows", rule="manifest-empty", hint="add at least one row")


def _make_row(
    index: int, file: str, line: int | None, values: dict[str, Any], params: Collection[str] | None
) -> ManifestRow:
    if params is None:
        return ManifestRow(index, file, line, values, {})
    chosen = {name: value for name, value in values.items() if name in params}
    extra = {name: value for name, value in values.items() if name not in params}
    return ManifestRow(index, file, line, chosen, extra)


class Manifest:
    """A re-readable source of rows. Build one with ``open_manifest`` or ``glob_manifest``."""

    def __init__(
        self,
        label: str,
        format: str,
        rows: Callable[[], Iterator[ManifestRow]],
        digest: Callable[[], str],
    ) -> None:
        self.label = label
        """What the user named: the file path, or ``glob:PATTERN as PARAM``."""
        self.format = format
        self._rows = rows
        self._digest = digest

    def __iter__(self) -> Iterator[ManifestRow]:
        return self._rows()

    def digest(self) -> str:
        """sha256 of the content (file bytes, or the sorted matched paths), read as a stream."""
        return self._digest()

    def __repr__(self) -> str:
        return f"Manifest({self.label!r}, format={self.format!r})"


def open_manifest(
    path: str | os.PathLike[str], *, params: Collection[str] | None = None, format: str | None = None
) -> Manifest:
    """A manifest file; the format comes from the extension unless ``format`` is given."""
    file = os.fspath(path)
    if format is None:
        format = MANIFEST_FORMATS.get(Path(file).suffix.lower())
        if format is None:
            known = ", ".join(MANIFEST_FORMATS)
            raise UsageError(f"{file}: cannot tell the manifest format from its extension (use {known})")
    elif format not in _READERS:
        raise UsageError(f"unknown manifest format {format!r} (use {', '.join(_READERS)})")
    if not os.path.isfile(file):
        raise UsageError(f"{file}: manifest not found")
    chosen = format

    def rows() -> Iterator[ManifestRow]:
        with open(file, "rb") as stream:
            yield from read_rows(stream, chosen, file, params=params)

    def digest() -> str:
        with open(file, "rb") as stream:
            return hashlib.file_digest(stream, "sha256").hexdigest()

    return Manifest(file, chosen, rows, digest)


def glob_manifest(pattern: str, param: str, *, params: Collection[str] | None = None) -> Manifest:
    """One row per file matching ``pattern`` (``**`` recurses), sorted by path, with ``param`` = path.

    Sorting makes row indexes, keys and shards the same on every machine that sees the same files.
    """
    if params is not None and param not in params:
        declared = ", ".join(sorted(params)) or "none"
        raise UsageError(f"--as {param}: the pipeline has no param {param!r} (its params: {declared})")
    label = f"glob:{pattern} as {param}"

    def matches() -> list[str]:
        return sorted(p for p in globbing.iglob(pattern, recursive=True) if os.path.isfile(p))

    def rows() -> Iterator[ManifestRow]:
        paths = matches()
        if not paths:
            raise UsageError(f"--glob {pattern}: no files match")
        for index, found in enumerate(paths, start=1):
            yield _make_row(index, pattern, None, {param: found}, params)

    def digest() -> str:
        hasher = hashlib.sha256(f"{param}\0".encode())
        for found in matches():
            hasher.update(found.encode("utf-8", "surrogateescape") + b"\0")
        return hasher.hexdigest()

    return Manifest(label, "glob", rows, digest)
