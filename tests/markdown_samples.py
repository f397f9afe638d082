"""A presentation (pptx) and a workbook (xlsx) written by hand, zip and XML, for the Markdown engine's
tests: no program made them, so none of them is the engine's own library read back. Each part holds
only what a reader of the format needs; ``extra_rels`` adds relationships (a hostile file's links)."""

from __future__ import annotations

import zipfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from xml.sax.saxutils import escape

__all__ = ["Slide", "write_pptx", "write_xlsx"]

_P = "http://schemas.openxmlformats.org/presentationml/2006/main"
_A = "http://schemas.openxmlformats.org/drawingml/2006/main"
_R = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
_PKG = "http://schemas.openxmlformats.org/package/2006/relationships"
_S = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
_NOTES_BODY = '<p:ph type="body" idx="1"/>'
_HEAD = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'


@dataclass
class Slide:
    title: str
    bullets: Sequence[tuple[int, str]] = ()  # (level, text) in the body placeholder
    table: Sequence[Sequence[str]] = ()
    notes: str = ""
    extra_rels: str = ""  # raw <Relationship .../> elements of the slide
    extra_shapes: str = ""  # raw shapes appended to the slide's tree
    pictures: Sequence[str] = field(default_factory=list)  # descriptions of pictures (no image data)


def _rels(*items: tuple[str, str, str]) -> str:
    body = "".join(f'<Relationship Id="{i}" Type="{_R}/{t}" Target="{target}"/>' for i, t, target in items)
    return f'{_HEAD}<Relationships xmlns="{_PKG}">{body}</Relationships>'


def _sp(placeholder: str, paragraphs: str) -> str:
    return (
        f'<p:sp><p:nvSpPr><p:cNvPr id="2" name="s"/><p:cNvSpPr/><p:nvPr>{placeholder}</p:nvPr></p:nvSpPr>'
        f"<p:spPr/><p:txBody><a:bodyPr/>{paragraphs}</p:txBody></p:sp>"
    )


def _para(text: str, level: int = 0) -> str:
    return f'<a:p><a:pPr lvl="{level}"/><a:r><a:t>{escape(text)}</a:t></a:r></a:p>'


def _slide_xml(slide: Slide) -> str:
    shapes = _sp('<p:ph type="title"/>', _para(slide.title))
    if slide.bullets:
        shapes += _sp('<p:ph idx="1"/>', "".join(_para(text, level) for level, text in slide.bullets))
    if slide.table:
        rows = "".join(
            "<a:tr>"
            + "".join(f"<a:tc><a:txBody><a:bodyPr/>{_para(c)}</a:txBody></a:tc>" for c in row)
            + "</a:tr>"
            for row in slide.table
        )
        shapes += (
            '<p:graphicFrame><p:nvGraphicFramePr><p:cNvPr id="4" name="t"/><p:cNvGraphicFramePr/><p:nvPr/>'
            f'</p:nvGraphicFramePr><p:xfrm/><a:graphic><a:graphicData uri="{_A}/table"><a:tbl>{rows}</a:tbl>'
            "</a:graphicData></a:graphic></p:graphicFrame>"
        )
    for text in slide.pictures:
        shapes += f'<p:pic><p:nvPicPr><p:cNvPr id="5" name="p" descr="{escape(text)}"/></p:nvPicPr></p:pic>'
    return (
        f'{_HEAD}<p:sld xmlns:p="{_P}" xmlns:a="{_A}" xmlns:r="{_R}"><p:cSld><p:spTree>'
        f"{shapes}{slide.extra_shapes}</p:spTree></p:cSld></p:sld>"
    )


def write_pptx(path: Path, slides: Sequence[Slide]) -> Path:
    """A pptx of ``slides``, in order, each with its notes page when it has notes."""
    parts = {
        "[Content_Types].xml": f'{_HEAD}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
        '<Default Extension="xml" ContentType="application/xml"/><Override PartName="/ppt/presentation.xml" '
        'ContentType="application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml"/></Types>',
        "_rels/.rels": _rels(("rId1", "officeDocument", "ppt/presentation.xml")),
        "ppt/_rels/presentation.xml.rels": _rels(
            *((f"rId{n}", "slide", f"slides/slide{n}.xml") for n in range(1, len(slides) + 1))
        ),
        "ppt/presentation.xml": f'{_HEAD}<p:presentation xmlns:p="{_P}" xmlns:r="{_R}"><p:sldIdLst>'
        + "".join(f'<p:sldId id="{255 + n}" r:id="rId{n}"/>' for n in range(1, len(slides) + 1))
        + "</p:sldIdLst></p:presentation>",
    }
    for n, slide in enumerate(slides, start=1):
        parts[f"ppt/slides/slide{n}.xml"] = _slide_xml(slide)
        rels = f'<Relationship Id="rId9" Type="{_R}/notesSlide" Target="../notesSlides/notesSlide{n}.xml"/>'
        rels = (rels if slide.notes else "") + slide.extra_rels
        parts[f"ppt/slides/_rels/slide{n}.xml.rels"] = (
            f'{_HEAD}<Relationships xmlns="{_PKG}">{rels}</Relationships>'
        )
        if slide.notes:
            body = _sp(_NOTES_BODY, _para(slide.notes))
            parts[f"ppt/notesSlides/notesSlide{n}.xml"] = (
                f'{_HEAD}<p:notes xmlns:p="{_P}" xmlns:a="{_A}"><p:cSld><p:spTree>{body}'
                "</p:spTree></p:cSld></p:notes>"
            )
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, xml in parts.items():
            archive.writestr(name, xml)
    return path


def _cell(ref: str, value: str | float) -> str:
    if isinstance(value, str):
        return f'<c r="{ref}" t="inlineStr"><is><t>{escape(value)}</t></is></c>'
    return f'<c r="{ref}"><v>{value}</v></c>'


def write_xlsx(path: Path, sheets: dict[str, Sequence[Sequence[str | float]]]) -> Path:
    """An xlsx of ``sheets`` (name -> rows of strings and numbers), cells from A1, inline strings."""
    names = list(sheets)
    parts = {
        "[Content_Types].xml": f'{_HEAD}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
        '<Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" '
        'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
        + "".join(
            f'<Override PartName="/xl/worksheets/sheet{n}.xml" '
            'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>'
            for n in range(1, len(names) + 1)
        )
        + "</Types>",
        "_rels/.rels": _rels(("rId1", "officeDocument", "xl/workbook.xml")),
        "xl/_rels/workbook.xml.rels": _rels(
            *((f"rId{n}", "worksheet", f"worksheets/sheet{n}.xml") for n in range(1, len(names) + 1))
        ),
        "xl/workbook.xml": f'{_HEAD}<workbook xmlns="{_S}" xmlns:r="{_R}"><sheets>'
        + "".join(
            f'<sheet name="{escape(name)}" sheetId="{n}" r:id="rId{n}"/>' for n, name in enumerate(names, 1)
        )
        + "</sheets></workbook>",
    }
    for n, name in enumerate(names, start=1):
        rows = "".join(
            f'<row r="{r}">' + "".join(_cell(f"{chr(65 + c)}{r}", v) for c, v in enumerate(row)) + "</row>"
            for r, row in enumerate(sheets[name], start=1)
        )
        parts[f"xl/worksheets/sheet{n}.xml"] = (
            f'{_HEAD}<worksheet xmlns="{_S}"><sheetData>{rows}</sheetData></worksheet>'
        )
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, xml in parts.items():
            archive.writestr(name, xml)
    return path
