"""The text of zip-based documents (docx, xlsx, pptx, odt, ods, odp, epub), in reading order, from the
members that hold the document's own words: not its metadata, whose dates and program names change
from one conversion to the next and would make two renderings of one document differ.

- docx: the body, then footnotes, endnotes, headers and footers;
- pptx: the slides, in their numbers' order;
- odt, ods, odp: ``content.xml``;
- xlsx: each sheet's cells (shared strings looked up), a row a line, cells separated by tabs;
- epub: the spine's documents, in its order (every XHTML member, by name, when there is no spine).
"""

from __future__ import annotations

import posixpath
import re
import zipfile
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import unquote

from mcv_pipelines.testing.markup import TAG_ATTRIBUTES, attributes, strip_markup

__all__ = ["OFFICE_FORMATS", "office_text"]

OFFICE_FORMATS = frozenset({"docx", "xlsx", "pptx", "odt", "ods", "odp", "epub"})
_ROW = re.compile(r"<row\b[^>]*?(?:/>|>(.*?)</row>)", re.DOTALL)
_CELL = re.compile(rf"<c\b({TAG_ATTRIBUTES}?)(?:/>|(?<!/)>(.*?)</c>)", re.DOTALL)
_VALUE = re.compile(r"<v>(.*?)</v>", re.DOTALL)
_INLINE = re.compile(r"<is>(.*?)</is>", re.DOTALL)
_SHARED = re.compile(r"<si>(.*?)</si>", re.DOTALL)
_ELEMENT = rf"<{{name}}\b({TAG_ATTRIBUTES})>"


def office_text(path: Path, fmt: str, limit: int) -> str:
    """The text of the ``fmt`` document at ``path``, reading at most ``limit`` bytes of its members
    (decompressed): a zip bomb stops there."""
    with zipfile.ZipFile(path) as archive:
        members = _Members(archive, limit)
        if fmt == "xlsx":
            return _sheets(members)
        texts = (strip_markup(members.read(name)) for name in _reading_order(fmt, members))
        return "\n".join(text for text in texts if text)


class _Members:
    """The members of one document, read as text within a budget of bytes."""

    def __init__(self, archive: zipfile.ZipFile, limit: int) -> None:
        self.archive, self.budget = archive, limit
        self.names = frozenset(archive.namelist())

    def read(self, name: str) -> str:
        """The member's text; "" when there is no such member or the budget is spent."""
        if self.budget <= 0 or name not in self.names:
            return ""
        with self.archive.open(name) as member:
            data = member.read(self.budget)
        self.budget -= len(data)
        return data.decode("utf-8", errors="replace")


def _numbered(name: str) -> tuple[str, int]:
    match = re.search(r"(\d+)\.xml$", name)
    return (name[: match.start()], int(match.group(1))) if match else (name, 0)


def _in_number_order(members: _Members, pattern: str) -> list[str]:
    """The members named like ``pattern``, slide10.xml after slide9.xml."""
    return sorted((name for name in members.names if re.fullmatch(pattern, name)), key=_numbered)


def _reading_order(fmt: str, members: _Members) -> list[str]:
    names = members.names
    if fmt == "docx":
        parts = ("word/header", "word/footer")
        extra = sorted((n for n in names if n.startswith(parts) and n.endswith(".xml")), key=_numbered)
        return ["word/document.xml", "word/footnotes.xml", "word/endnotes.xml", *extra]
    if fmt == "pptx":
        return _in_number_order(members, r"ppt/slides/slide\d+\.xml")
    if fmt == "epub":
        return list(_spine(members)) or sorted(n for n in names if n.endswith((".xhtml", ".html", ".htm")))
    return ["content.xml"]


def _spine(members: _Members) -> Iterator[str]:
    """The documents an epub's package file lists in its spine, as member names."""
    container = re.search(_ELEMENT.format(name="rootfile"), members.read("META-INF/container.xml"))
    package = attributes(container.group(1)).get("full-path", "") if container else ""
    opf = members.read(package)
    items = {}
    for match in re.finditer(_ELEMENT.format(name="item"), opf):
        found = attributes(match.group(1))
        items[found.get("id", "")] = found.get("href", "")
    folder = posixpath.dirname(package)
    for match in re.finditer(_ELEMENT.format(name="itemref"), opf):
        href = items.get(attributes(match.group(1)).get("idref", ""), "")
        name = posixpath.normpath(posixpath.join(folder, unquote(href.partition("#")[0])))
        if href and name in members.names:
            yield name


def _sheets(members: _Members) -> str:
    shared = [strip_markup(text) for text in _SHARED.findall(members.read("xl/sharedStrings.xml"))]
    lines = []
    for name in _in_number_order(members, r"xl/worksheets/sheet\d+\.xml"):
        for row in _ROW.finditer(members.read(name)):
            cells = [_cell(cell, shared) for cell in _CELL.finditer(row.group(1) or "")]
            if any(cells):
                lines.append("\t".join(cells).rstrip("\t"))
    return "\n".join(lines)


def _cell(cell: re.Match[str], shared: list[str]) -> str:
    kind, body = attributes(cell.group(1)).get("t", "n"), cell.group(2) or ""
    if kind == "inlineStr":
        inline = _INLINE.search(body)
        return strip_markup(inline.group(1)) if inline else ""
    value = _VALUE.search(body)
    text = strip_markup(value.group(1)) if value else ""
    if kind == "s":
        return shared[int(text)] if text.isdigit() and int(text) < len(shared) else ""
    return text
