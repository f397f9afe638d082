"""mcv diagnostics as LSP diagnostics, and the quick fixes their did-you-mean hints offer.

The message an editor shows is the checker's message with its hint on the next line; ``code`` is the
rule id, ``source`` is ``mcv``. ``data`` keeps the hint apart and, for a did-you-mean, the range of
the misspelt word and the names to put there (the code action reads them back).
Positions are code points from 0; the server converts them to the client's units.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from lsprotocol import types

from mcv_pipelines.diagnostics import Diagnostic, Severity
from mcv_pipelines.lsp.ranges import WORD_CHARS, token_end

__all__ = ["fix_of", "to_lsp"]

_SEVERITY = {
    Severity.ERROR: types.DiagnosticSeverity.Error,
    Severity.WARNING: types.DiagnosticSeverity.Warning,
    Severity.INFO: types.DiagnosticSeverity.Information,
}
_DID_YOU_MEAN = re.compile(r"did you mean (.+?)\?")
_QUOTED = re.compile(r"'([^']+)'")


def _range(line: int, column: int, end: tuple[int, int]) -> types.Range:
    return types.Range(types.Position(line, column), types.Position(end[0], end[1]))


def _word_in(text: str, word: str) -> int | None:
    """Where ``word`` stands as a whole name in ``text`` (first such place), else None."""
    start = text.find(word)
    while start >= 0:
        before = text[start - 1] if start else " "
        after = text[start + len(word)] if start + len(word) < len(text) else " "
        if before not in WORD_CHARS and after not in WORD_CHARS:
            return start
        start = text.find(word, start + 1)
    return None


def _fix(d: Diagnostic, line: int, column: int, end: int, lines: Sequence[str]) -> dict[str, Any] | None:
    """The misspelt word's range and its suggestions, when the hint is a did-you-mean."""
    found = _DID_YOU_MEAN.search(d.hint or "")
    if found is None or line >= len(lines):
        return None
    suggestions = _QUOTED.findall(found.group(1))
    if not suggestions:
        return None
    covered = lines[line][column:end]
    for word in _QUOTED.findall(d.message):
        at = _word_in(covered, word)
        if at is not None and word not in suggestions:
            start = column + at
            return {
                "range": {"line": line, "start": start, "end": start + len(word)},
                "replacements": suggestions,
            }
    return None


def to_lsp(d: Diagnostic, lines: Sequence[str], path: str, uri: str) -> types.Diagnostic:
    """One LSP diagnostic; a problem placed in another file (or nowhere) is shown at the top."""
    here = d.location is not None and d.location.file == path
    line = d.location.line - 1 if here and d.location else 0
    column = d.location.column - 1 if here and d.location else 0
    end = token_end(lines, line, column)
    message = d.message if here or d.location is None else f"{d.location}: {d.message}"
    data: dict[str, Any] = {"rule": d.rule, "hint": d.hint}
    fix = _fix(d, line, column, end[1], lines) if end[0] == line else None
    if fix is not None:
        data["fix"] = fix
    related = [
        types.DiagnosticRelatedInformation(
            types.Location(uri, _range(r.line - 1, r.column - 1, (r.line - 1, r.column))), "related place"
        )
        for r in d.related
        if r.file == path
    ]
    return types.Diagnostic(
        range=_range(line, column, end),
        message=f"{message}\n{d.hint}" if d.hint else message,
        severity=_SEVERITY.get(d.severity, types.DiagnosticSeverity.Error),
        code=d.rule,
        source="mcv",
        data=data,
        related_information=related or None,
    )


def fix_of(diagnostic: types.Diagnostic) -> tuple[types.Range, list[str]] | None:
    """The range and replacements a diagnostic's ``data`` carries (as the client sent it back)."""
    data = diagnostic.data
    if not isinstance(data, dict):
        return None
    fix = data.get("fix")
    if not isinstance(fix, dict):
        return None
    try:
        line, start, end = int(fix["range"]["line"]), int(fix["range"]["start"]), int(fix["range"]["end"])
        replacements = [str(r) for r in fix["replacements"]]
    except (KeyError, TypeError, ValueError):
        return None
    return types.Range(types.Position(line, start), types.Position(line, end)), replacements
