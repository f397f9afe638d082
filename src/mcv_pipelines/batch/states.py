"""Row states of a batch and the moves between them, as the journal records them.

    pending ──▶ submitting ──▶ submitted ──▶ finished
       ▲  │          │  │           │
       │  │          │  └──────┐    │
       │  └──────────┼─────────▶ failed ──(--retry-failed)──▶ pending
       └─────────────┘ (reconciled: no job was created)

``submitting`` is written *before* the job-creating request: a row found in it after a crash has an
unknown outcome and is reconciled by its tag before anything is sent again. ``finished`` is final.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

__all__ = ["ALLOWED_SOURCES", "JournalRow", "RowError", "RowState", "StateCounts"]


class RowState(StrEnum):
    PENDING = "pending"
    SUBMITTING = "submitting"
    SUBMITTED = "submitted"
    FINISHED = "finished"
    FAILED = "failed"


ALLOWED_SOURCES: Mapping[RowState, frozenset[RowState]] = {
    RowState.SUBMITTING: frozenset({RowState.PENDING}),
    RowState.SUBMITTED: frozenset({RowState.SUBMITTING}),
    RowState.FINISHED: frozenset({RowState.SUBMITTED}),
    RowState.FAILED: frozenset({RowState.PENDING, RowState.SUBMITTING, RowState.SUBMITTED}),
    # Back to pending: reconciliation found no job (from submitting); --retry-failed (from failed).
    RowState.PENDING: frozenset({RowState.SUBMITTING, RowState.FAILED}),
}
"""Target state -> the states a row may be in to move there."""


@dataclass(frozen=True, slots=True)
class RowError:
    """Why a row failed: a stable code (the service's, or the runner's) and a message."""

    code: str
    message: str


@dataclass(frozen=True, slots=True)
class JournalRow:
    """A row as the journal knows it. ``params`` have secrets masked: for reports, not for submitting
    (a resumed batch takes the real values from the manifest again)."""

    key: str
    index: int
    line: int | None
    params: dict[str, Any]
    state: RowState
    attempts: int
    tag: str | None
    job_id: str | None
    outputs: tuple[str, ...]
    credits: int | None
    error: RowError | None
    updated: float


@dataclass(frozen=True, slots=True)
class StateCounts:
    """How many rows are in each state."""

    pending: int = 0
    submitting: int = 0
    submitted: int = 0
    finished: int = 0
    failed: int = 0

    @property
    def total(self) -> int:
        return self.pending + self.submitting + self.submitted + self.finished + self.failed

    @property
    def in_flight(self) -> int:
        return self.submitting + self.submitted

    @property
    def done(self) -> int:
        """Rows that reached an end state, finished or failed."""
        return self.finished + self.failed
