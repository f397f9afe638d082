"""The one diagnostic model every check produces and every reporter prints.

A diagnostic names a stable ``rule`` id (``graph-cycle``, ``param-type``, ...), a severity, a message,
the file:line:col of the YAML node that caused it, and a hint saying what to do. Reporters live in
``mcv_pipelines.reporters``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from mcv_pipelines.redact import redact
from mcv_pipelines.shorten import shorten_message

__all__ = ["Diagnostic", "Location", "ManifestCell", "Severity", "has_errors"]


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


@dataclass(frozen=True, slots=True)
class Location:
    """A place in a source file; ``line`` and ``column`` count from 1."""

    file: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


@dataclass(frozen=True, slots=True)
class ManifestCell:
    """A place in a batch manifest: the row (counting data rows from 1) and the column name."""

    file: str
    row: int
    column: str | None = None

    def __str__(self) -> str:
        where = f"{self.file}: row {self.row}"
        return f"{where}, column {self.column!r}" if self.column else where


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One problem found by a check.

    >>> Diagnostic("graph-cycle", Severity.ERROR, "a -> b -> a", Location("p.yaml", 3, 5)).rule
    'graph-cycle'
    """

    rule: str
    severity: Severity
    message: str
    location: Location | None = None
    hint: str | None = None
    related: tuple[Location, ...] = field(default=())
    manifest: ManifestCell | None = None

    def __post_init__(self) -> None:
        # The one place where every message is made short, whoever built it (issue 14: a 15 MB value
        # quoted whole by a jsonschema message). Secrets are masked first: the head and tail of a long
        # secret would no longer be recognised as it once shortened.
        object.__setattr__(self, "message", shorten_message(redact(self.message)))
        if self.hint is not None:
            object.__setattr__(self, "hint", shorten_message(redact(self.hint)))

    @property
    def is_error(self) -> bool:
        return self.severity is Severity.ERROR


def has_errors(diagnostics: list[Diagnostic] | tuple[Diagnostic, ...]) -> bool:
    """True when any diagnostic is an error (warnings do not fail a check)."""
    return any(d.is_error for d in diagnostics)
