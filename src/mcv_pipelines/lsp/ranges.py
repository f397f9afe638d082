"""Where a diagnostic's underline ends: the checker gives a start (file:line:col), an editor wants a range.

The range covers the YAML token that starts there: a quoted scalar up to its closing quote, a mapping
key up to its colon, a plain value up to a comment, a flow separator or the end of the line. Positions
here count code points from 0 (the server's units); the server converts them to the client's.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["token_end", "word_at"]

_FLOW_STOPS = frozenset(",]}")
WORD_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./")


def _quoted_end(line: str, start: int) -> int:
    quote = line[start]
    i = start + 1
    while i < len(line):
        if line[i] == quote:
            if quote == "'" and i + 1 < len(line) and line[i + 1] == "'":
                i += 2  # '' is an escaped quote inside single quotes
                continue
            return i + 1
        if quote == '"' and line[i] == "\\":
            i += 2
            continue
        i += 1
    return len(line)


def token_end(lines: Sequence[str], line: int, column: int) -> tuple[int, int]:
    """The end (line, column) of the token starting at ``line``/``column``; at least one character."""
    if line >= len(lines):
        return line, column
    text = lines[line].rstrip("\r\n")
    if column >= len(text):
        return line, max(column, len(text))
    if text[column] in "'\"":
        return line, _quoted_end(text, column)
    if text[column] in "[{":
        return line, column + 1
    end = column
    while end < len(text):
        ch = text[end]
        if ch == ":" and (end + 1 == len(text) or text[end + 1] in " \t"):
            break
        if ch == "#" and end > column and text[end - 1] in " \t":
            break
        if ch in _FLOW_STOPS:
            break
        end += 1
    while end > column and text[end - 1] in " \t":
        end -= 1
    return line, max(end, column + 1)


def word_at(text: str, column: int) -> tuple[int, int]:
    """The (start, end) of the name around ``column`` in one line (letters, digits, ``_-./``)."""
    start = column
    while start > 0 and text[start - 1] in WORD_CHARS:
        start -= 1
    end = column
    while end < len(text) and text[end] in WORD_CHARS:
        end += 1
    return start, end
