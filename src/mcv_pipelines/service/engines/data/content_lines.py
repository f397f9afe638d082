"""The content lines vCard (2.1, 3.0, 4.0) and iCalendar share: ``group.NAME;PARAM=value:value``.

Lines are unfolded (a line starting with a space or a tab continues the one before; in vCard 2.1 a
quoted-printable value ending with ``=`` continues on the next line), parameters parsed (2.1's bare
``TEL;HOME;VOICE`` as ``TYPE`` values), quoted-printable values decoded in their ``CHARSET``, and text
values unescaped (``\\,`` ``\\;`` ``\\n`` ``\\\\``) and split on their unescaped separators.
"""

from __future__ import annotations

import quopri
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

__all__ = ["ContentLine", "content_lines", "decode_text", "split_value", "unescape"]

_NAME = re.compile(r"(?:[A-Za-z0-9-]+\.)?([A-Za-z0-9-]+)")


@dataclass(slots=True)
class ContentLine:
    name: str  # upper case, group dropped
    params: dict[str, list[str]] = field(default_factory=dict)
    value: str = ""


def decode_text(data: bytes) -> str:
    """A card file's text: UTF-8 (with or without its byte order mark), else Windows-1252."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("cp1252", errors="replace")


def _unfold(text: str) -> Iterator[str]:
    current: str | None = None
    quoted = False
    for line in text.splitlines():
        if current is not None and (line[:1] in (" ", "\t") or quoted):
            current += line[1:] if line[:1] in (" ", "\t") and not quoted else line
        else:
            if current is not None:
                yield current
            current = line
        quoted = "QUOTED-PRINTABLE" in current.split(":", 1)[0].upper() and current.endswith("=")
        if quoted:
            current = current[:-1]  # a soft line break of quoted-printable
    if current is not None:
        yield current


def _split_params(head: str) -> list[str]:
    parts, part, quoted = [], "", False
    for char in head:
        if char == '"':
            quoted = not quoted
        if char == ";" and not quoted:
            parts.append(part)
            part = ""
        else:
            part += char
    parts.append(part)
    return parts


def _colon(line: str) -> int:
    quoted = False
    for index, char in enumerate(line):
        if char == '"':
            quoted = not quoted
        elif char == ":" and not quoted:
            return index
    return -1


def content_lines(text: str) -> Iterator[ContentLine]:
    """Every content line of a vCard or iCalendar text; lines without a name and value are skipped."""
    for line in _unfold(text):
        split = _colon(line)
        if split <= 0:
            continue
        head, value = line[:split], line[split + 1 :]
        name, *raw_params = _split_params(head)
        matched = _NAME.fullmatch(name.strip())
        if not matched:
            continue
        params: dict[str, list[str]] = {}
        for raw in raw_params:
            key, equals, values = raw.partition("=")
            if not equals:  # vCard 2.1: TEL;HOME;VOICE
                key, values = "TYPE", key
            params.setdefault(key.strip().upper(), []).extend(v.strip('"') for v in values.split(","))
        found = ContentLine(matched.group(1).upper(), params, value)
        if "QUOTED-PRINTABLE" in (v.upper() for v in params.get("ENCODING", [])):
            charset = (params.get("CHARSET") or ["utf-8"])[0]
            raw_bytes = quopri.decodestring(value.encode("latin-1", errors="replace"))
            try:
                found.value = raw_bytes.decode(charset)
            except (LookupError, UnicodeDecodeError):
                found.value = raw_bytes.decode("latin-1")
        yield found


def unescape(text: str) -> str:
    """A text value with its backslash escapes undone."""
    return re.sub(r"\\(.)", lambda m: "\n" if m.group(1) in "nN" else m.group(1), text)


def split_value(text: str, separator: str) -> list[str]:
    """A value split on its unescaped ``separator`` (``;`` of N and ADR, ``,`` of lists), unescaped."""
    parts, part, index = [], "", 0
    while index < len(text):
        char = text[index]
        if char == "\\" and index + 1 < len(text):
            part += text[index : index + 2]
            index += 2
            continue
        if char == separator:
            parts.append(unescape(part))
            part = ""
        else:
            part += char
        index += 1
    parts.append(unescape(part))
    return parts
