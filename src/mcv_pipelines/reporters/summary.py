"""The summary every report format carries."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from mcv_pipelines.diagnostics import Diagnostic, Severity

__all__ = ["Reporter", "summary"]

# A reporter turns the diagnostics of a run over ``files`` into the text it prints.
Reporter = Callable[[Sequence[Diagnostic], Sequence[str]], str]


def summary(diagnostics: Sequence[Diagnostic], files: Sequence[str]) -> dict[str, Any]:
    """Counts shared by every format: files checked, errors, warnings, and whether all is valid."""
    errors = sum(1 for d in diagnostics if d.severity is Severity.ERROR)
    warnings = sum(1 for d in diagnostics if d.severity is Severity.WARNING)
    invalid = {d.location.file for d in diagnostics if d.is_error and d.location is not None}
    return {
        "files": len(files),
        "invalid_files": len(invalid),
        "errors": errors,
        "warnings": warnings,
        "valid": errors == 0,
    }
