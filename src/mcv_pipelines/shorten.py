"""Shortened quotes of long values in messages.

A diagnostic that quotes a 15 MB base64 value in full is unreadable and floods CI logs (issue 14), so
every message a diagnostic carries goes through ``shorten_message``: a quoted value longer than
``LIMIT`` characters becomes ``'head...tail' (N characters)``, and a message still too long after that
keeps its start and end.

>>> shorten("aGVsbG8" * 10, head=7, tail=4)
"'aGVsbG8...sbG8' (70 characters)"
"""

from __future__ import annotations

import re

__all__ = ["LIMIT", "MESSAGE_LIMIT", "shorten", "shorten_line", "shorten_message"]

LIMIT = 80  # a quoted value up to this many characters is shown whole
MESSAGE_LIMIT = 2000  # no message is longer than this, whatever it holds
_HEAD = 24
_TAIL = 12

# A Python repr of a string ('...' or "..."), as jsonschema and our own messages quote values; only
# quotes longer than LIMIT are touched, so an apostrophe in ordinary words is left alone.
_QUOTED = re.compile(
    "'(?:[^'\\\\\\n]|\\\\.){" + str(LIMIT) + ",}'|\"(?:[^\"\\\\\\n]|\\\\.){" + str(LIMIT) + ",}\""
)
# The same for a long run of non-space characters outside quotes (a dumped list, an unquoted value).
_LONG_WORD = re.compile(r"\S{" + str(LIMIT * 2) + ",}")


def shorten(value: str, head: int = _HEAD, tail: int = _TAIL) -> str:
    """``value`` quoted; when long, only its head and tail with the length in characters."""
    if len(value) <= head + tail + 3:
        return repr(value)
    inner = f"{value[:head]}...{value[-tail:]}".encode("unicode_escape").decode("ascii")
    return f"'{inner}' ({len(value):,} characters)"


def _quoted(match: re.Match[str]) -> str:
    text = match.group(0)
    quote, body = text[0], text[1:-1]
    return f"{quote}{body[:_HEAD]}...{body[-_TAIL:]}{quote} ({len(body):,} characters)"


def _word(match: re.Match[str]) -> str:
    text = match.group(0)
    return f"{text[:_HEAD]}...{text[-_TAIL:]} ({len(text):,} characters)"


def shorten_message(message: str) -> str:
    """``message`` with every long quoted value (and long unbroken run) shortened; at most
    MESSAGE_LIMIT characters."""
    if len(message) <= LIMIT:
        return message
    message = _LONG_WORD.sub(_word, _QUOTED.sub(_quoted, message))
    if len(message) > MESSAGE_LIMIT:
        half = MESSAGE_LIMIT // 2 - 20
        message = f"{message[:half]} ... {message[-half:]} ({len(message):,} characters)"
    return message


def shorten_line(line: str, column: int, width: int = 160) -> tuple[str, int]:
    """A window of ``line`` around ``column`` (from 1) at most ``width`` characters wide, and the
    caret's column in it: a source line holding a 15 MB value is not printed whole."""
    if len(line) <= width:
        return line, column
    start = max(0, min(column - 1 - width // 4, len(line) - width))
    window = line[start : start + width]
    prefix = "..." if start else ""
    suffix = f"... ({len(line):,} characters)" if start + width < len(line) else ""
    return f"{prefix}{window}{suffix}", column - start + len(prefix)
