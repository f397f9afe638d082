"""Errors of batch runs, each naming the manifest file and the row or line at fault.

    InvalidInput
    ├── ManifestError        a manifest cannot be read (encoding, header, ragged row, not a mapping...)
    ├── DuplicateKey         two rows of one manifest have the same key
    UsageError
    └── JournalMismatch      the journal belongs to another pipeline, manifest or shard
    McvError
    └── InvalidTransition    a row was moved to a state its current state does not allow (a bug)
"""

from __future__ import annotations

from mcv_pipelines.diagnostics import Diagnostic, Location, ManifestCell, Severity
from mcv_pipelines.errors import InvalidInput, McvError, UsageError

__all__ = ["DuplicateKey", "InvalidTransition", "JournalMismatch", "ManifestError"]


class ManifestError(InvalidInput):
    """A manifest that cannot be read; ``str()`` reads ``file:line: message``.

    >>> str(ManifestError("m.csv", "has 3 cells", line=4))
    'm.csv:4: has 3 cells'
    """

    def __init__(
        self,
        file: str,
        problem: str,
        *,
        line: int | None = None,
        column: int | None = None,
        row: int | None = None,
        rule: str = "manifest",
        hint: str | None = None,
    ) -> None:
        where = file if line is None else f"{file}:{line}" + (f":{column}" if column else "")
        if row is not None:
            where += f": row {row}"
        message = f"{where}: {problem}" + (f" ({hint})" if hint else "")
        diagnostic = Diagnostic(
            rule=rule,
            severity=Severity.ERROR,
            message=problem,
            location=Location(file, line, column or 1) if line is not None else None,
            hint=hint,
            manifest=ManifestCell(file, row) if row is not None else None,
        )
        super().__init__(message, [diagnostic])
        self.file = file
        self.line = line
        self.row = row


class DuplicateKey(InvalidInput):
    """Two rows share a key; both rows are named so the user can fix one."""

    def __init__(
        self, file: str, key: str, first: tuple[int, int | None], second: tuple[int, int | None]
    ) -> None:
        def place(index: int, line: int | None) -> str:
            return f"row {index}" + (f" (line {line})" if line is not None else "")

        message = (
            f"{file}: {place(*second)} has the key {key!r}, already used by {place(*first)}; "
            "every row needs its own key (fix the --key column, or remove the repeated row)"
        )
        diagnostic = Diagnostic(
            rule="manifest-duplicate-key",
            severity=Severity.ERROR,
            message=f"key {key!r} is used by {place(*first)} and {place(*second)}",
            manifest=ManifestCell(file, second[0]),
        )
        super().__init__(message, [diagnostic])
        self.key = key
        self.first_index = first[0]
        self.second_index = second[0]


class JournalMismatch(UsageError):
    """A journal written for another batch; resuming it would mix two runs."""


class InvalidTransition(McvError):
    """A row state change the journal does not allow (finished -> submitting, ...)."""
