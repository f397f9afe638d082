"""Which text format a text file is, from its first characters: JSON (and glTF), markup (HTML, SVG,
COLLADA, other XML), subtitles (WebVTT, SubRip), 3D models written as text (OBJ, ASCII STL), or plain
text, which may also be Markdown and, when its rows split evenly on commas or tabs, CSV or TSV.

Text is UTF-8 (with or without a BOM) or UTF-16 with a BOM, holds no NUL byte, and fewer than 1% of its
characters are other control characters (tab, line ends, form feed and escape are text).
"""

from __future__ import annotations

import csv
import io
import json
import re

__all__ = ["PLAIN_TEXT", "decode_text", "text_format"]

# What a text file with no structure of its own may be named: any of these satisfies an expectation.
PLAIN_TEXT = frozenset({"txt", "text", "log", "md"})
_ALLOWED_CONTROLS = frozenset("\t\n\r\f\v\x1b")
_SRT_CUE = re.compile(r"\d+[ \t]*\r?\n\d{1,2}:\d{2}:\d{2}[,.]\d{3} --> \d{1,2}:\d{2}:\d{2}[,.]\d{3}")
# What comes before a root element: a declaration, comments, processing instructions, a doctype.
_PROLOGUE = re.compile(r"\s*(?:<\?.*?\?>|<!--.*?-->|<!DOCTYPE[^>]*>)", re.DOTALL | re.IGNORECASE)
_ROOT = re.compile(r"<([A-Za-z_][\w:.-]*)")
_OBJ_KEYWORDS = frozenset(
    {"v", "vt", "vn", "vp", "f", "l", "p", "o", "g", "s", "mtllib", "usemtl", "cstype", "deg", "curv"}
)
_SAMPLE_ROWS = 50


def decode_text(head: bytes, *, truncated: bool) -> str | None:
    """``head`` as text, or None when it is binary; a character cut by the end of a ``truncated`` head
    is dropped."""
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return _checked(head.decode("utf-16", errors="replace"))
    if b"\x00" in head:
        return None
    try:
        text = head.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        if not (truncated and exc.start >= len(head) - 3 and exc.reason.startswith("unexpected end")):
            return None
        text = head[: exc.start].decode("utf-8-sig")
    return _checked(text)


def text_format(text: str, *, truncated: bool, whole: str | None) -> tuple[str, frozenset[str]]:
    """The best name for ``text`` (the file's first characters) and every name it may have.

    ``whole`` is the whole file's text when the file starts like JSON (JSON is JSON only if it all
    parses), else None.
    """
    start = text.lstrip()
    if start.startswith(("{", "[")) and whole is not None:
        found = _json(whole)
        if found is not None:
            return found
    if start.startswith("<"):
        return _markup(start)
    if start.startswith("{\\rtf"):
        return "rtf", frozenset({"rtf"})
    if re.match(r"WEBVTT(?:[ \t\r\n]|$)", start):
        return "vtt", frozenset({"vtt"})
    if _SRT_CUE.match(start):
        return "srt", frozenset({"srt"})
    lines = text.splitlines()
    if truncated and lines:
        lines.pop()  # may be cut in the middle
    if start.startswith("solid") and re.search(r"^\s*facet\b", text, re.MULTILINE):
        return "stl", frozenset({"stl"})
    if _is_obj(lines):
        return "obj", frozenset({"obj"})
    return "txt", PLAIN_TEXT | _tables(lines)


def _checked(text: str) -> str | None:
    if "\x00" in text:
        return None
    controls = sum(1 for char in text if char < " " and char not in _ALLOWED_CONTROLS)
    return text if controls * 100 <= len(text) else None


def _json(whole: str) -> tuple[str, frozenset[str]] | None:
    try:
        value = json.loads(whole)
    except ValueError:
        return None
    if isinstance(value, dict) and isinstance(value.get("asset"), dict):
        return "gltf", frozenset({"gltf", "json"})
    return "json", frozenset({"json"})


def _markup(start: str) -> tuple[str, frozenset[str]]:
    rest, is_html = start, False
    while match := _PROLOGUE.match(rest):
        is_html = is_html or match.group().strip().lower().startswith("<!doctype html")
        rest = rest[match.end() :]
    root = _ROOT.match(rest.lstrip())
    name = root.group(1).rpartition(":")[2].lower() if root else ""
    if is_html or name == "html":
        return "html", frozenset({"html", "htm"})
    if name == "svg":
        return "svg", frozenset({"svg", "xml"})
    if name == "collada":
        return "dae", frozenset({"dae", "xml"})
    return "xml", frozenset({"xml"})


def _is_obj(lines: list[str]) -> bool:
    """Every line a comment or an OBJ statement, with vertices and faces among them."""
    keywords = set()
    for line in lines:
        words = line.split(maxsplit=1)
        if not words or words[0].startswith("#"):
            continue
        if words[0] not in _OBJ_KEYWORDS:
            return False
        keywords.add(words[0])
    return {"v", "f"} <= keywords


def _tables(lines: list[str]) -> frozenset[str]:
    """csv and/or tsv when the first rows (quotes read as CSV reads them) all have the same number of
    fields, at least two, split on commas or on tabs."""
    sample = "\n".join(line for line in lines[:_SAMPLE_ROWS] if line.strip())
    found = set()
    for name, delimiter in (("csv", ","), ("tsv", "\t")):
        try:
            counts = {len(row) for row in csv.reader(io.StringIO(sample), delimiter=delimiter) if row}
        except csv.Error:  # a field longer than csv's limit, a bare carriage return in a field
            continue
        if len(counts) == 1 and counts.pop() >= 2:
            found.add(name)
    return frozenset(found)
