"""What came of a test case: passed, failed (with each expectation that did not hold), skipped, invalid."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from mcv_pipelines.diagnostics import Diagnostic, Location

__all__ = ["CaseResult", "CaseStatus", "Failure"]


class CaseStatus(StrEnum):
    PASSED = "passed"
    FAILED = "failed"
    SKIPPED = "skipped"
    INVALID = "invalid"  # the recipe or the case cannot run as written (exit 2)
    ERROR = "error"  # the service could not be used (exit 3)


@dataclass(frozen=True, slots=True)
class Failure:
    """One expectation that did not hold, at the line that states it, expected beside actual."""

    location: Location
    task: str
    key: str
    expected: str
    actual: str
    file: str | None = None

    @property
    def message(self) -> str:
        where = f" ({self.file})" if self.file else ""
        return f"{self.task}: {self.key}: expected {self.expected}, found {self.actual}{where}"

    def __str__(self) -> str:
        return f"{self.location}: {self.message}"


@dataclass(frozen=True)
class CaseResult:
    """One case's end. ``reason`` says why it was skipped, invalid or in error."""

    file: str
    case: str
    location: Location
    status: CaseStatus
    elapsed: float = 0.0
    failures: tuple[Failure, ...] = ()
    diagnostics: tuple[Diagnostic, ...] = ()
    reason: str | None = None
    job_id: str | None = None
    updated: tuple[str, ...] = ()  # golden files written by --update-golden

    @property
    def title(self) -> str:
        return f"{self.file}::{self.case}"
