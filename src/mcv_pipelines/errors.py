"""The project's one error root and its exit codes.

Every error a user can cause or meet is an ``McvError``; the CLI prints it as one line and exits with
its ``exit_code``. Anything else reaching the top is a bug and is reported with a log file.

    McvError                      exit 2 unless a subclass says otherwise
    ├── UsageError                 bad command line (2)
    ├── InvalidInput               a pipeline, params file or manifest is invalid (2); carries diagnostics
    ├── JobFailed                  the service ran the job and it failed (1)
    ├── ServiceTrouble             the service or the network could not be used (3)
    │   └── (api.errors.ApiError and its tree: status, code, message, field errors, request)
    └── InterruptedRun             Ctrl-C (130)
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import IntEnum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mcv_pipelines.diagnostics import Diagnostic

__all__ = [
    "ExitCode",
    "InterruptedRun",
    "InvalidInput",
    "JobFailed",
    "McvError",
    "ServiceTrouble",
    "UsageError",
]


class ExitCode(IntEnum):
    """Exit codes of every command (DESIGN.md section 3)."""

    OK = 0
    FAILED = 1
    INVALID = 2
    SERVICE = 3
    INTERRUPTED = 130


class McvError(Exception):
    """Root of every expected error. ``str(err)`` is the one line a user sees."""

    exit_code: ExitCode = ExitCode.INVALID

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class UsageError(McvError):
    """The command line does not make sense (a missing file, a bad flag value)."""

    exit_code = ExitCode.INVALID


class InvalidInput(McvError):
    """A pipeline, params file or manifest has problems; ``diagnostics`` lists every one."""

    exit_code = ExitCode.INVALID

    def __init__(self, message: str, diagnostics: Sequence[Diagnostic] = ()) -> None:
        super().__init__(message)
        self.diagnostics = tuple(diagnostics)


class JobFailed(McvError):
    """The service ran the job and at least one task ended in error."""

    exit_code = ExitCode.FAILED


class ServiceTrouble(McvError):
    """The service could not be reached or answered in a way that stops the work."""

    exit_code = ExitCode.SERVICE


class InterruptedRun(McvError):
    """The user interrupted the command (Ctrl-C)."""

    exit_code = ExitCode.INTERRUPTED
