"""SARIF 2.1.0, for code-scanning dashboards."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from mcv_pipelines import __version__
from mcv_pipelines.diagnostics import Diagnostic, Severity

__all__ = ["report"]

_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}
_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def _result(d: Diagnostic) -> dict[str, Any]:
    text = d.message + (f" (hint: {d.hint})" if d.hint else "")
    result: dict[str, Any] = {"ruleId": d.rule, "level": _LEVEL[d.severity], "message": {"text": text}}
    if d.location is not None:
        result["locations"] = [
            {
                "physicalLocation": {
                    "artifactLocation": {"uri": d.location.file},
                    "region": {"startLine": d.location.line, "startColumn": d.location.column},
                }
            }
        ]
    return result


def report(diagnostics: Sequence[Diagnostic], files: Sequence[str]) -> str:
    rules = sorted({d.rule for d in diagnostics})
    log = {
        "$schema": _SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "mcv",
                        "version": __version__,
                        "informationUri": "https://github.com/mcv-pipelines/mcv-pipelines",
                        "rules": [{"id": rule} for rule in rules],
                    }
                },
                "artifacts": [{"location": {"uri": f}} for f in files],
                "results": [_result(d) for d in diagnostics],
            }
        ],
    }
    return json.dumps(log, indent=2) + "\n"
