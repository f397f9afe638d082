"""Checks of the documents family's outputs, by readers independent of the engines: Markdown from pdf,
slides and workbooks parsed with markdown-it-py (the structure each must have: a heading per page or
slide, a table per sheet), and the word of a sample LibreOffice only imports found again in what it
wrote (pdftotext for PDF, the members of a zip, the bytes of the binary formats)."""

from __future__ import annotations

import subprocess
import zipfile
from collections.abc import Callable
from pathlib import Path

from markdown_it import MarkdownIt
from PIL import Image

from formats_support.samples_docs import DOCS_WORDED

__all__ = ["docs_checks"]

Check = Callable[[Path], None]
_PAGES = {"pdf"}
_SLIDES = {"pptx", "ppsx", "pptm", "potx", "ppt", "odp"}
_SHEETS = {"xlsx", "xlsm", "xls", "ods"}  # a sheet heading each; tsv -> md is one table (the data engine)


def _structure(path: Path) -> tuple[list[str], int, str]:
    """Headings, table rows and all inline text of a Markdown file, as a CommonMark+tables parser sees."""
    tokens = MarkdownIt("commonmark").enable("table").parse(path.read_text(encoding="utf-8"))
    headings = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open"]
    rows = sum(1 for t in tokens if t.type == "tr_open")
    text = " ".join(t.content for t in tokens if t.type == "inline")
    return headings, rows, text


def _markdown(source: str, word: str | None) -> Check:
    def check(path: Path) -> None:
        headings, rows, text = _structure(path)
        if source in _PAGES and not {"Page 1", "Page 2"} <= set(headings):
            raise ValueError(f"no heading per page: {headings}")
        if source in _SLIDES and not any(h.startswith("Slide 1") for h in headings):
            raise ValueError(f"no heading per slide: {headings}")
        if source in _SHEETS and (not headings or rows < 2):
            raise ValueError(f"no sheet heading and table: {headings}, {rows} rows")
        if word and word not in text:
            raise ValueError(f"the Markdown's text lost {word!r}")

    return check


def _has_word(fmt: str, word: str) -> Check:
    def check(path: Path) -> None:
        if fmt == "pdf":
            found = word in subprocess.run(["pdftotext", str(path), "-"], capture_output=True, text=True,
                                           check=True).stdout  # fmt: skip
        elif zipfile.is_zipfile(path):
            with zipfile.ZipFile(path) as archive:
                found = any(word.encode() in archive.read(name) for name in archive.namelist())
        else:
            data = path.read_bytes()
            found = word.encode() in data or word.encode("utf-16-le") in data
        if not found:
            raise ValueError(f"the {fmt} lost the word {word!r}")

    return check


def docs_checks(path: Path, fmt: str, word: str | None) -> list[Check]:
    """The checks of this family for ``path`` (bench names outputs ``<input>-to-<file>``)."""
    source = path.name.split("-to-", 1)[0] if "-to-" in path.name else ""
    checks: list[Check] = []
    if fmt == "md" and source in _PAGES | _SLIDES | _SHEETS:
        checks.append(_markdown(source, word))
    if word and source in DOCS_WORDED and source != "bib" and fmt not in _PICTURES:
        checks.append(_has_word(fmt, word))
    if source in DOCS_WORDED and fmt in _PICTURES and fmt != "svg":
        checks.append(_not_blank)
    return checks


# Outputs that show a document's pages rather than hold its text
_PICTURES = frozenset({"png", "jpg", "svg", "webp", "avif", "tiff", "gif", "bmp"})


def _not_blank(path: Path) -> None:
    """A page as a picture shows something: not one colour from edge to edge."""
    with Image.open(path) as image:
        extrema = image.convert("L").getextrema()
    if extrema[0] == extrema[1]:
        raise ValueError(f"the picture is blank (all {extrema[0]})")
