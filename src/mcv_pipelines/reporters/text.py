"""Human report: ``file:line:col: error[rule]: message``, the source line, a caret, the hint."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

from mcv_pipelines.diagnostics import Diagnostic, Location
from mcv_pipelines.reporters.summary import summary
from mcv_pipelines.shorten import shorten_line

__all__ = ["report", "source_line"]


@lru_cache(maxsize=64)
def _lines(file: str) -> tuple[str, ...]:
    try:
        return tuple(Path(file).read_bytes().decode("utf-8", errors="replace").splitlines())
    except OSError:
        return ()


def source_line(location: Location) -> str | None:
    lines = _lines(location.file)
    return lines[location.line - 1] if 0 < location.line <= len(lines) else None


def _one(diagnostic: Diagnostic) -> list[str]:
    where = f"{diagnostic.location}: " if diagnostic.location else ""
    out = [f"{where}{diagnostic.severity.value}[{diagnostic.rule}]: {diagnostic.message}"]
    if diagnostic.manifest is not None:
        out.append(f"  in {diagnostic.manifest}")
    if diagnostic.location is not None:
        line = source_line(diagnostic.location)
        if line is not None:
            number = str(diagnostic.location.line)
            gutter = " " * len(number)
            line, column = shorten_line(line, diagnostic.location.column)
            # keep tabs so the caret lands under the right character
            pad = "".join(c if c == "\t" else " " for c in line[: column - 1])
            out += [f" {gutter} |", f" {number} | {line}", f" {gutter} | {pad}^"]
    if diagnostic.hint:
        out.append(f"  = hint: {diagnostic.hint}")
    return out


def report(diagnostics: Sequence[Diagnostic], files: Sequence[str]) -> str:
    lines: list[str] = []
    for diagnostic in diagnostics:
        lines += _one(diagnostic)
    counts = summary(diagnostics, files)
    noun = "file" if counts["files"] == 1 else "files"
    if counts["errors"] or counts["warnings"]:
        lines.append(
            f"{counts['errors']} error(s), {counts['warnings']} warning(s) in {counts['files']} {noun}"
        )
    else:
        lines.append(f"{counts['files']} {noun} valid")
    return "\n".join(lines) + "\n"
