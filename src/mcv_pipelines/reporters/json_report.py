"""Machine report: ``{"diagnostics": [...], "summary": {...}}``."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from mcv_pipelines.diagnostics import Diagnostic
from mcv_pipelines.reporters.summary import summary

__all__ = ["as_dict", "report"]


def as_dict(diagnostic: Diagnostic) -> dict[str, Any]:
    location = diagnostic.location
    return {
        "rule": diagnostic.rule,
        "severity": diagnostic.severity.value,
        "message": diagnostic.message,
        "file": location.file if location else None,
        "line": location.line if location else None,
        "column": location.column if location else None,
        "hint": diagnostic.hint,
    }


def report(diagnostics: Sequence[Diagnostic], files: Sequence[str]) -> str:
    body = {"diagnostics": [as_dict(d) for d in diagnostics], "summary": summary(diagnostics, files)}
    return json.dumps(body, indent=2) + "\n"
