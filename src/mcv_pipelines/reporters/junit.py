"""JUnit XML: one test case per file checked, a failure per error (CI test tabs show them)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence

from mcv_pipelines.diagnostics import Diagnostic

__all__ = ["report"]


def report(diagnostics: Sequence[Diagnostic], files: Sequence[str]) -> str:
    by_file: dict[str, list[Diagnostic]] = {f: [] for f in files}
    for d in diagnostics:
        by_file.setdefault(d.location.file if d.location else "", []).append(d)
    errors = [d for d in diagnostics if d.is_error]
    suite = ET.Element(
        "testsuite",
        name="mcv validate",
        tests=str(len(by_file)),
        failures=str(len({d.location.file if d.location else "" for d in errors})),
        errors="0",
    )
    for file, found in by_file.items():
        case = ET.SubElement(suite, "testcase", classname="mcv.validate", name=file or "(no file)")
        for d in found:
            text = f"{d.location}: {d.message}" if d.location else d.message
            if d.hint:
                text += f"\nhint: {d.hint}"
            if d.is_error:
                ET.SubElement(case, "failure", type=d.rule, message=d.message).text = text
            else:
                out = ET.SubElement(case, "system-out")
                out.text = f"{d.severity.value}[{d.rule}] {text}"
    ET.indent(suite)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suite, encoding="unicode") + "\n"
