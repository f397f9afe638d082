"""GitHub Actions workflow annotations (``::error file=...,line=...::message``)."""

from __future__ import annotations

from collections.abc import Sequence

from mcv_pipelines.diagnostics import Diagnostic, Severity

__all__ = ["escape_data", "escape_property", "report"]

_COMMAND = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def escape_data(text: str) -> str:
    """A workflow command's message, escaped as GitHub reads it."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A workflow command's property value (file=, title=), escaped as GitHub reads it."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def report(diagnostics: Sequence[Diagnostic], files: Sequence[str]) -> str:
    lines = []
    for d in diagnostics:
        props = []
        if d.location is not None:
            props += [
                f"file={escape_property(d.location.file)}",
                f"line={d.location.line}",
                f"col={d.location.column}",
            ]
        props.append(f"title={escape_property(d.rule)}")
        message = d.message + (f" (hint: {d.hint})" if d.hint else "")
        lines.append(f"::{_COMMAND[d.severity]} {','.join(props)}::{escape_data(message)}")
    return "".join(line + "\n" for line in lines)
