"""The text a reader sees in markup (HTML, XML, SVG, and the XML inside office documents and e-books),
for ``text:`` expectations and golden comparisons: tags removed, entities replaced, whitespace collapsed
as a browser collapses it, and a line for each paragraph, heading, list item or table row.

Regular expressions, not an XML parser: output files may be HTML that is not XML, and a parser of
hostile XML needs guarding against entity expansion that this never does. ``<pre>`` is collapsed too.

>>> strip_markup("<p>Sample&amp;co</p><p>second <b>line</b></p>")
'Sample&co\\nsecond line'
"""

from __future__ import annotations

import html
import re

__all__ = ["TAG_ATTRIBUTES", "attributes", "strip_markup"]

# The attributes of a tag, quoted values read whole: a ">" inside one does not end the tag.
TAG_ATTRIBUTES = r"""(?:[^>"']|"[^"]*"|'[^']*')*"""
_TAG = re.compile(rf"<(/?)([A-Za-z_][\w:.-]*)({TAG_ATTRIBUTES})>")
_ATTRIBUTE = re.compile(r"""([\w:.-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')""")
_HIDDEN = re.compile(
    r"<!--.*?-->|<\?.*?\?>|<!DOCTYPE[^>]*>|<(script|style)\b[^>]*>.*?</\1\s*>", re.DOTALL | re.IGNORECASE
)
_CDATA = re.compile(r"<!\[CDATA\[(.*?)\]\]>", re.DOTALL)
# By local name (w:p, a:p, text:p and p are all paragraphs): a line break wherever the tag is...
_BREAKS = frozenset({"br", "line-break", "cr"})
# ...or where the element ends (or is empty).
_BLOCKS = frozenset(
    {"p", "h", "h1", "h2", "h3", "h4", "h5", "h6", "div", "li", "list-item", "tr", "table-row", "title",
     "blockquote", "pre", "dt", "dd", "caption", "figcaption", "section", "article", "header", "footer",
     "table", "ul", "ol", "si", "row", "text", "desc"}
)  # fmt: skip
_CELLS = frozenset({"td", "th", "table-cell", "tab"})


def strip_markup(markup: str) -> str:
    """The text of ``markup``: one line for each block, words separated by single spaces."""
    text = _HIDDEN.sub(" ", markup)
    text = _CDATA.sub(lambda match: html.escape(match.group(1), quote=False), text)
    text = re.sub(r"\s+", " ", text)
    text = html.unescape(_TAG.sub(_separator, text))
    lines = (line.strip() for line in text.split("\n"))
    return "\n".join(line for line in lines if line)


def attributes(tag: str) -> dict[str, str]:
    """The attributes written in ``tag`` (``<svg width="10" ...>``), entities replaced."""
    return {
        match.group(1): html.unescape(match.group(2) if match.group(2) is not None else match.group(3))
        for match in _ATTRIBUTE.finditer(tag)
    }


def _separator(tag: re.Match[str]) -> str:
    name = tag.group(2).rpartition(":")[2].lower()
    closing, empty = tag.group(1) == "/", tag.group(3).endswith("/")
    if name in _BREAKS:
        return "\n"
    if name in _BLOCKS and (closing or empty):
        return "\n"
    if name in _CELLS and (closing or empty):
        return "\t"
    return ""
