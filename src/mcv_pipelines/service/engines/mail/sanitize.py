"""A mail's HTML body made safe to show and to print: an allow-list, re-serialised.

The body is parsed (``html.parser``) and written again with only the elements and attributes a mail's
layout needs, every text and attribute value escaped anew. Dropped with their content: scripts, styles
that could fetch (``url(``, ``@import``, escapes), frames, objects, forms' controls, SVG and MathML,
``<head>``; dropped alone: comments (Outlook's conditional ones too), event handlers, ``<base>``,
``<meta>``, ``<link>``. A picture keeps its ``src`` only as a ``data:`` URI: a ``cid:`` reference becomes
the attached picture inlined, a raster ``data:image`` stays, anything else (http, https, file, a path)
is dropped, so the page fetches nothing; links keep an http(s) or mailto ``href`` to be read, never
followed by the printer (its request guard refuses every request of the mail page anyway).
"""

from __future__ import annotations

import base64
import html
import re
from collections.abc import Mapping
from html.parser import HTMLParser

from mcv_pipelines.service.engines.mail.message import Attachment

__all__ = ["sanitise_html"]

_KEPT = frozenset(
    [
        "a",
        "abbr",
        "address",
        "article",
        "aside",
        "b",
        "bdi",
        "bdo",
        "big",
        "blockquote",
        "br",
        "caption",
        "center",
        "cite",
        "code",
        "col",
        "colgroup",
        "dd",
        "del",
        "details",
        "dfn",
        "div",
        "dl",
        "dt",
        "em",
        "figcaption",
        "figure",
        "font",
        "footer",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "header",
        "hr",
        "i",
        "img",
        "ins",
        "kbd",
        "li",
        "main",
        "mark",
        "nav",
        "ol",
        "p",
        "pre",
        "q",
        "s",
        "samp",
        "section",
        "small",
        "span",
        "strike",
        "strong",
        "sub",
        "summary",
        "sup",
        "table",
        "tbody",
        "td",
        "tfoot",
        "th",
        "thead",
        "time",
        "tr",
        "tt",
        "u",
        "ul",
        "var",
        "wbr",
    ]
)
_DROPPED_WITH_CONTENT = frozenset(
    [
        "script",
        "style",
        "title",
        "iframe",
        "frame",
        "frameset",
        "object",
        "embed",
        "applet",
        "noscript",
        "template",
        "svg",
        "math",
        "audio",
        "video",
        "canvas",
        "select",
        "textarea",
        "button",
        "noembed",
        "noframes",
        "xmp",
        "plaintext",
    ]
)
_VOID = frozenset(
    ["br", "col", "hr", "img", "wbr", "area", "base", "input", "link", "meta", "param", "source", "track"]
)
_ATTRIBUTES = frozenset(
    [
        "align",
        "alt",
        "border",
        "cellpadding",
        "cellspacing",
        "class",
        "color",
        "colspan",
        "dir",
        "face",
        "height",
        "lang",
        "rowspan",
        "size",
        "span",
        "start",
        "style",
        "title",
        "type",
        "valign",
        "width",
        "bgcolor",
        "nowrap",
        "datetime",
    ]
)
_FETCHING_STYLE = re.compile(r"url\s*\(|@import|image-set|expression|\\|behavior|-moz-binding|src\s*:", re.I)
_LINK = re.compile(r"^(https?:|mailto:)", re.I)
_DATA_IMAGE = re.compile(r"^data:image/(png|jpeg|gif|webp|bmp);base64,[A-Za-z0-9+/=\s]*$", re.I)
_SHOWABLE = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp", "image/bmp"})


class _Cleaner(HTMLParser):
    def __init__(self, pictures: Mapping[str, Attachment]) -> None:
        super().__init__(convert_charrefs=True)
        self.pictures = pictures
        self.used: set[str] = set()
        self.out: list[str] = []
        self.styles: list[str] = []
        self.skipping: list[str] = []  # the elements being dropped with their content, innermost last

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.skipping:
            if tag == self.skipping[-1] and tag not in _VOID:
                self.skipping.append(tag)
            return
        if tag in _DROPPED_WITH_CONTENT:
            self.skipping.append(tag)
            return
        if tag not in _KEPT:
            return
        kept = [f' {name}="{html.escape(value, quote=True)}"' for name, value in self._attributes(tag, attrs)]
        self.out.append(f"<{tag}{''.join(kept)}>")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in _VOID:
            self.handle_endtag(tag)

    def handle_endtag(self, tag: str) -> None:
        if self.skipping:
            if tag == self.skipping[-1]:
                self.skipping.pop()
            return
        if tag in _KEPT and tag not in _VOID:
            self.out.append(f"</{tag}>")

    def handle_data(self, data: str) -> None:
        if self.skipping == ["style"]:
            self.styles.append(data)
        elif not self.skipping:
            self.out.append(html.escape(data, quote=False))

    def _attributes(self, tag: str, attrs: list[tuple[str, str | None]]) -> list[tuple[str, str]]:
        kept: list[tuple[str, str]] = []
        for name, raw in attrs:
            value = (raw or "").strip()
            if name == "style" and _FETCHING_STYLE.search(value):
                continue
            if name in _ATTRIBUTES or (name == "href" and tag == "a" and _LINK.match(value)):
                kept.append((name, value))
            elif name == "src" and tag == "img" and (source := self._picture(value)):
                kept.append((name, source))
        return kept

    def _picture(self, value: str) -> str | None:
        if value.lower().startswith("cid:"):
            key = value[4:].strip().strip("<>")
            picture = self.pictures.get(key)
            if picture is None or picture.content_type.lower() not in _SHOWABLE:
                return None
            self.used.add(key)
            return f"data:{picture.content_type.lower()};base64,{base64.b64encode(picture.data).decode()}"
        return value if _DATA_IMAGE.match(value) else None


def sanitise_html(body: str, attachments: list[Attachment]) -> tuple[str, str, set[str]]:
    """The body's safe HTML, the CSS of its ``<style>`` elements that fetches nothing, and the content
    ids of the pictures it inlined."""
    pictures = {item.content_id: item for item in attachments if item.content_id}
    cleaner = _Cleaner(pictures)
    cleaner.feed(body)
    cleaner.close()
    css = "\n".join(
        style for style in cleaner.styles if not _FETCHING_STYLE.search(style) and "</" not in style
    )
    return "".join(cleaner.out), css, cleaner.used
