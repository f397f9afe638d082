"""How `mcv test` says what happened: a line per case as it ends, a summary, and report files.

Text for people (a failed expectation at its file:line:col, expected beside found), GitHub workflow
annotations on the expectation's line, and the report files `mcv batch` also writes: JSON lines or
JUnit XML, chosen by the file's suffix. Every string passes the secret mask.
"""

from __future__ import annotations

import json
import os
import tempfile
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mcv_pipelines.errors import UsageError
from mcv_pipelines.redact import redact
from mcv_pipelines.reporters import render_report
from mcv_pipelines.reporters.github import escape_data, escape_property
from mcv_pipelines.testing.outcome import CaseResult, CaseStatus

__all__ = ["REPORT_SUFFIXES", "case_lines", "summary_line", "write_report"]

REPORT_SUFFIXES = (".jsonl", ".xml")
_LABEL = {
    CaseStatus.PASSED: "PASS",
    CaseStatus.FAILED: "FAIL",
    CaseStatus.SKIPPED: "SKIP",
    CaseStatus.INVALID: "INVALID",
    CaseStatus.ERROR: "ERROR",
}


def case_lines(result: CaseResult, fmt: str = "text") -> str:
    """What is printed when a case ends: one line, and one more per failure (or the diagnostics)."""
    if fmt == "github":
        lines = [
            f"::error file={escape_property(f.location.file)},line={f.location.line},col={f.location.column},"
            f"title={escape_property('mcv test: ' + result.case)}::{escape_data(f.message)}"
            for f in result.failures
        ]
        if result.diagnostics:
            lines.append(render_report("github", result.diagnostics, [result.file]).rstrip("\n"))
        if result.status in (CaseStatus.ERROR, CaseStatus.FAILED) and not result.failures and result.reason:
            where = result.location
            place = f"file={escape_property(where.file)},line={where.line},col={where.column}"
            lines.append(f"::error {place}::{escape_data(result.reason)}")
        lines.append(_headline(result))
        return redact("\n".join(lines) + "\n")
    lines = [_headline(result)]
    lines.extend(f"    {failure}" for failure in result.failures)
    if result.diagnostics:
        text = render_report("text", result.diagnostics, [result.file])
        lines.extend("    " + line for line in text.rstrip("\n").splitlines()[:-1])  # its count line aside
    lines.extend(f"    {change}" for change in result.updated)
    return redact("\n".join(lines) + "\n")


def _headline(result: CaseResult) -> str:
    timing = f" ({result.elapsed:.1f} s)" if result.elapsed else ""
    reason = f": {result.reason}" if result.reason else ""
    return f"{_LABEL[result.status]:<7} {result.title}{timing}{reason}"


def summary_line(results: Sequence[CaseResult], elapsed: float) -> str:
    counts = Counter(result.status for result in results)
    parts = [f"{counts[status]} {status.value}" for status in CaseStatus if counts[status]]
    return f"{', '.join(parts) or 'no cases'} in {elapsed:.1f} s"


def _record(result: CaseResult) -> dict[str, Any]:
    return {
        "file": result.file,
        "case": result.case,
        "line": result.location.line,
        "status": result.status.value,
        "elapsed": round(result.elapsed, 3),
        "job_id": result.job_id,
        "reason": result.reason,
        "failures": [
            {
                "location": str(f.location),
                "task": f.task,
                "key": f.key,
                "expected": f.expected,
                "actual": f.actual,
                "file": f.file,
            }
            for f in result.failures
        ],
        "diagnostics": [
            {"location": str(d.location) if d.location else None, "rule": d.rule, "message": d.message}
            for d in result.diagnostics
        ],
        "updated": list(result.updated),
    }


def _junit(results: Sequence[CaseResult], elapsed: float) -> str:
    counts = Counter(result.status for result in results)
    suite = ET.Element(
        "testsuite",
        name="mcv test",
        tests=str(len(results)),
        failures=str(counts[CaseStatus.FAILED]),
        errors=str(counts[CaseStatus.INVALID] + counts[CaseStatus.ERROR]),
        skipped=str(counts[CaseStatus.SKIPPED]),
        time=f"{elapsed:.3f}",
    )
    for result in results:
        case = ET.SubElement(
            suite, "testcase", classname=result.file, name=result.case, time=f"{result.elapsed:.3f}"
        )
        if result.status is CaseStatus.SKIPPED:
            ET.SubElement(case, "skipped", message=result.reason or "")
        elif result.status is CaseStatus.FAILED:
            text = "\n".join(str(f) for f in result.failures) or (result.reason or "")
            first = result.failures[0].message if result.failures else (result.reason or "failed")
            ET.SubElement(case, "failure", type="expectation", message=first).text = text
        elif result.status in (CaseStatus.INVALID, CaseStatus.ERROR):
            text = "\n".join(f"{d.location}: {d.message}" for d in result.diagnostics) or (
                result.reason or ""
            )
            ET.SubElement(case, "error", type=result.status.value, message=text.split("\n")[0]).text = text
    ET.indent(suite)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suite, encoding="unicode") + "\n"


def write_report(path: Path, results: Sequence[CaseResult], elapsed: float) -> None:
    """Write the report at once (a reader never sees half of one); the suffix picks the format."""
    if path.suffix not in REPORT_SUFFIXES:
        raise UsageError(f"--report {path}: give a .jsonl or .xml (JUnit) file")
    if path.suffix == ".xml":
        text = _junit(results, elapsed)
    else:
        text = "".join(json.dumps(_record(r), ensure_ascii=False) + "\n" for r in results)
    target = path.resolve()
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(redact(text))
        os.replace(temporary, target)
    except OSError as exc:
        raise UsageError(f"--report {path}: {exc.strerror or exc}") from exc
