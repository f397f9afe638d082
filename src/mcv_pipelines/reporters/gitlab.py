"""GitLab Code Quality report: the JSON array a merge request reads from ``artifacts:reports:codequality``.

Each problem is one object with ``description``, ``check_name`` (the rule), ``severity`` (GitLab's scale:
info, minor, major, critical, blocker), ``location`` (path and begin line) and a ``fingerprint`` that
stays the same while the problem does, which is how GitLab tells new problems from fixed ones.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

from mcv_pipelines.diagnostics import Diagnostic, Severity

__all__ = ["report"]

_SEVERITY = {Severity.ERROR: "major", Severity.WARNING: "minor", Severity.INFO: "info"}


def _issue(d: Diagnostic, files: Sequence[str]) -> dict[str, Any]:
    # A problem with no place of its own (a missing catalog) is reported on the first file checked.
    path = d.location.file if d.location is not None else (files[0] if files else ".")
    line = d.location.line if d.location is not None else 1
    description = d.message + (f" (hint: {d.hint})" if d.hint else "")
    # The line is left out of the fingerprint: a problem that moves down when lines are added above
    # it is the same problem, not a fixed one and a new one.
    fingerprint = hashlib.sha256(f"{d.rule}\0{path}\0{d.message}".encode()).hexdigest()
    return {
        "type": "issue",
        "check_name": d.rule,
        "description": description,
        "severity": _SEVERITY[d.severity],
        "categories": ["Bug Risk"] if d.is_error else ["Style"],
        "location": {"path": path, "lines": {"begin": line}},
        "fingerprint": fingerprint,
    }


def report(diagnostics: Sequence[Diagnostic], files: Sequence[str]) -> str:
    return json.dumps([_issue(d, files) for d in diagnostics], indent=2) + "\n"
