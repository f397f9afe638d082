"""A PDF's text as Markdown from Poppler's ``pdftotext -bbox-layout`` (run sealed): the pages, their
text blocks in reading order, each block's lines and words with their boxes.

A ``## Page N`` heading starts each page. A block whose lines stand clearly taller than the document's
body text (and that is short) becomes a heading; lines led by a bullet or a number become list items,
nested by how far they are indented; any other block is a paragraph, its lines joined (a word broken by
a hyphen at a line's end joined again).
"""

from __future__ import annotations

import re
import statistics
from dataclasses import dataclass
from xml.etree.ElementTree import Element, ParseError

from mcv_pipelines.service.engines.base import EngineError
from mcv_pipelines.service.engines.failures import INVALID_INPUT_FILE
from mcv_pipelines.service.engines.markdown.blocks import heading, list_item, paragraph

__all__ = ["Line", "block_markdown", "pages_markdown"]

_NS = "{http://www.w3.org/1999/xhtml}"
_BULLETS = frozenset("\u2022\u25e6\u25aa\u25cf\u2023\u2043\u2219\u00b7\u25a0\u25a1\u2013\u2014*-\uf0b7\uf0a7")
_NUMBER = re.compile(r"^(\d{1,3}|[a-z])[.)]$")
_BROKEN = re.compile(r"\w-$")
_INDENT = 8.0  # points more to the right that make a list item one level deeper


@dataclass(frozen=True, slots=True)
class Line:
    words: tuple[str, ...]
    left: float
    height: float

    @property
    def marker(self) -> str | None:
        """``-`` or ``1.`` when the line starts a list item, else None."""
        first = self.words[0] if self.words else ""
        if first in _BULLETS and len(self.words) > 1:
            return "-"
        return "1." if _NUMBER.match(first) and len(self.words) > 1 else None


def pages_markdown(xhtml: str, first_page: int = 1) -> str:
    """pdftotext's ``-bbox-layout`` page as Markdown, numbering pages from ``first_page``."""
    body = re.sub(r"<!DOCTYPE[^>]*>", "", xhtml, count=1)  # pdftotext's own; the DTD is never read
    from defusedxml import DefusedXmlException  # imported by a task that reads XML, not at start
    from defusedxml.ElementTree import fromstring

    try:
        root: Element = fromstring(body, forbid_dtd=True)
    except (ParseError, DefusedXmlException) as exc:
        raise EngineError(INVALID_INPUT_FILE, "the PDF's text could not be read") from exc
    pages = [
        [[_line(line) for line in block.iter(f"{_NS}line")] for block in page.iter(f"{_NS}block")]
        for page in root.iter(f"{_NS}page")
    ]
    heights = [line.height for page in pages for block in page for line in block for _ in line.words]
    body_height = statistics.median(heights) if heights else 0.0
    out = []
    for number, page in enumerate(pages, start=first_page):
        blocks = [block_markdown(block, body_height) for block in page]
        out.append("\n\n".join([heading(2, f"Page {number}"), *(b for b in blocks if b)]))
    return "\n\n".join(out) + "\n"


def _line(node: Element) -> Line:
    words = tuple(word.text.strip() for word in node.iter(f"{_NS}word") if word.text and word.text.strip())
    top, bottom = float(node.get("yMin", 0)), float(node.get("yMax", 0))
    return Line(words, float(node.get("xMin", 0)), bottom - top)


def block_markdown(lines: list[Line], body_height: float) -> str:
    """One text block as a heading, a list or a paragraph (see the module's note).

    >>> body = [Line(("Big", "quok-"), 50, 12), Line(("kas", "hop."), 50, 12)]
    >>> block_markdown(body, 12)
    'Big quokkas hop.'
    >>> block_markdown([Line(("Quokka", "facts"), 50, 24)], 12)
    '### Quokka facts'
    >>> print(block_markdown([Line(("•", "one"), 50, 12), Line(("•", "two"), 70, 12)], 12))
    - one
      - two
    """
    lines = [line for line in lines if line.words]
    if not lines:
        return ""
    text = " ".join(" ".join(line.words) for line in lines)
    tallest = max(line.height for line in lines)
    if body_height and len(lines) <= 3 and tallest >= 1.25 * body_height and not text.endswith("."):
        return heading(3 if tallest >= 1.6 * body_height else 4, text)
    if lines[0].marker is None:
        return paragraph(_joined(lines))
    items: list[tuple[Line, list[Line]]] = []
    for line in lines:
        if line.marker is not None or not items:
            items.append((line, [Line(line.words[1:], line.left, line.height)]))
        else:
            items[-1][1].append(line)  # the item's text carried on to the next line
    lefts = sorted({round(first.left / _INDENT) for first, _ in items})
    return "\n".join(
        list_item(_joined(rest), lefts.index(round(first.left / _INDENT)), ordered=first.marker == "1.")
        for first, rest in items
    )


def _joined(lines: list[Line]) -> str:
    text = ""
    for line in lines:
        words = " ".join(line.words)
        if _BROKEN.search(text) and words[:1].islower():
            text = text[:-1] + words
        else:
            text = f"{text} {words}" if text else words
    return text
