"""A presentation (pptx and its kin) as Markdown, read from its slide XML: a heading per slide (its
title), the body's paragraphs as list items at their levels, other text boxes as paragraphs (lists
where they have bullets), tables as pipe tables, a picture's description, and the speaker's notes."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from xml.etree.ElementTree import Element

from mcv_pipelines.service.engines.base import EngineError
from mcv_pipelines.service.engines.failures import INVALID_INPUT_FILE
from mcv_pipelines.service.engines.markdown.blocks import heading, list_item, paragraph, table
from mcv_pipelines.service.engines.markdown.package import REL, Package

__all__ = ["presentation_markdown"]

_P = "{http://schemas.openxmlformats.org/presentationml/2006/main}"
_A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
_TITLES = {"title", "ctrTitle"}
_BODIES = {"body", "obj", None}  # a placeholder with no type is the layout's content box
MAX_SLIDES = 5000


def presentation_markdown(path: Path, name: str) -> str:
    """The Markdown of the presentation at ``path`` (``name``: the user's file name)."""
    package = Package(path, name)
    try:
        root = package.xml("ppt/presentation.xml")
        if root is None:
            raise EngineError(INVALID_INPUT_FILE, f"{name} is not a presentation (no ppt/presentation.xml)")
        related = package.related("ppt/presentation.xml")
        ids = [s.get(f"{{{REL}}}id", "") for s in root.iter(f"{_P}sldId")][:MAX_SLIDES]
        parts = [related[i][1] for i in ids if i in related and related[i][0] == "slide"]
        return "\n\n".join(_slide(package, part, number) for number, part in enumerate(parts, 1)) + "\n"
    finally:
        package.close()


def _slide(package: Package, part: str, number: int) -> str:
    root = package.xml(part)
    tree = None if root is None else root.find(f"{_P}cSld/{_P}spTree")
    title, blocks = "", []
    for kind, text in _shapes(tree):
        if kind == "title" and not title:
            title = text
        else:
            blocks.append(text)
    notes = [
        _notes(package, member) for kind, member in package.related(part).values() if kind == "notesSlide"
    ]
    blocks += [f"### Notes\n\n{text}" for text in notes if text]
    head = heading(2, f"Slide {number}: {title}" if title else f"Slide {number}")
    return "\n\n".join([head, *blocks])


def _shapes(tree: Element | None) -> Iterator[tuple[str, str]]:
    """("title" | "block", Markdown) for each shape in drawing order, groups opened."""
    for shape in [] if tree is None else list(tree):
        if shape.tag == f"{_P}grpSp":
            yield from _shapes(shape)
        elif shape.tag == f"{_P}sp":
            ph = shape.find(f"{_P}nvSpPr/{_P}nvPr/{_P}ph")
            kind = None if ph is None else ph.get("type")
            body = shape.find(f"{_P}txBody")
            if body is None:
                continue
            if ph is not None and kind in _TITLES:
                yield "title", " ".join(_text(p) for p in body.iter(f"{_A}p")).strip()
            else:
                text = _text_body(body, bulleted=ph is not None and kind in _BODIES)
                if text:
                    yield "block", text
        elif shape.tag == f"{_P}graphicFrame":
            for grid in shape.iter(f"{_A}tbl"):
                rows = [[_cell(tc) for tc in tr.findall(f"{_A}tc")] for tr in grid.findall(f"{_A}tr")]
                if rows:
                    yield "block", table(rows)
        elif shape.tag == f"{_P}pic":
            described = shape.find(f"{_P}nvPicPr/{_P}cNvPr")
            text = "" if described is None else (described.get("descr") or "").strip()
            if text:
                yield "block", paragraph(f"(picture: {text})")


def _text(par: Element) -> str:
    pieces = []
    for node in par:
        if node.tag in (f"{_A}r", f"{_A}fld"):
            pieces.append("".join(t.text or "" for t in node.iter(f"{_A}t")))
        elif node.tag == f"{_A}br":
            pieces.append(" ")
    return "".join(pieces)


def _text_body(body: Element, bulleted: bool) -> str:
    """The paragraphs of a text body: list items where bulleted, else paragraphs; a list is kept
    together (items on consecutive lines) and set off from paragraphs by a blank line."""
    out = ""
    last_item = None
    for par in body.findall(f"{_A}p"):
        text = _text(par).strip()
        if not text:
            continue
        props = par.find(f"{_A}pPr")
        lvl = "0" if props is None else props.get("lvl", "0")
        numbered = props is not None and props.find(f"{_A}buAutoNum") is not None
        marked = props is not None and (numbered or props.find(f"{_A}buChar") is not None)
        plain = props is not None and props.find(f"{_A}buNone") is not None
        item = (bulleted and not plain) or marked
        level = min(int(lvl), 8) if lvl.isdigit() else 0
        block = list_item(text, level, numbered) if item else paragraph(text)
        out += ("" if last_item is None else "\n" if item and last_item else "\n\n") + block
        last_item = item
    return out


def _cell(cell: Element) -> str:
    if cell.get("hMerge") == "1" or cell.get("vMerge") == "1":
        return ""
    return " ".join(text for par in cell.iter(f"{_A}p") if (text := _text(par).strip()))


def _notes(package: Package, part: str) -> str:
    root = package.xml(part)
    tree = None if root is None else root.find(f"{_P}cSld/{_P}spTree")
    texts = []
    for shape in [] if tree is None else tree.iter(f"{_P}sp"):
        ph = shape.find(f"{_P}nvSpPr/{_P}nvPr/{_P}ph")
        body = shape.find(f"{_P}txBody")
        if ph is not None and ph.get("type") == "body" and body is not None:
            texts += [paragraph(t) for p in body.findall(f"{_A}p") if (t := _text(p).strip())]
    return "\n\n".join(texts)
