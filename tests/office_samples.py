"""Small office documents written by hand (flat OpenDocument XML, csv, rtf, html, a .docx zip) and a
check of each output format by its magic bytes or contents. Used by the office engine's tests and
bench/engines.py; no download, no program needed to write them.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

__all__ = ["SAMPLE_TEXT", "check_output", "linked_picture_docx", "write_sample"]

SAMPLE_TEXT = "Quarterly notes"
_NS = (
    'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
    'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
    'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
    'xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" '
    'xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0" '
    'xmlns:presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0" '
    'xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0"'
)


def _flat(kind: str, body: str) -> str:
    return (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<office:document {_NS} office:version="1.3" '
        f'office:mimetype="application/vnd.oasis.opendocument.{kind}"><office:body>{body}'
        "</office:body></office:document>\n"
    )


def _frame(text: str) -> str:
    return (
        '<draw:frame svg:x="2cm" svg:y="2cm" svg:width="14cm" svg:height="3cm">'
        f"<draw:text-box><text:p>{text}</text:p></draw:text-box></draw:frame>"
    )


def _cells(*values: str) -> str:
    return "".join(f'<table:table-cell office:value-type="string"><text:p>{v}</text:p></table:table-cell>'
                   for v in values)  # fmt: skip


_HAND_WRITTEN: dict[str, str] = {
    "txt": f"{SAMPLE_TEXT}\nRevenue grew nicely.\n",
    "html": f"<!DOCTYPE html><html><body><h1>{SAMPLE_TEXT}</h1><p>Revenue grew nicely.</p></body></html>\n",
    "rtf": r"{\rtf1\ansi{\fonttbl\f0\fswiss Helvetica;}\f0 " + SAMPLE_TEXT + r"\par}",
    "fodt": _flat("text", f"<office:text><text:p>{SAMPLE_TEXT}</text:p></office:text>"),
    "csv": "city,visits\nLyon,12\nOslo,7\n",
    "tsv": "city\tvisits\nLyon\t12\nOslo\t7\n",
    "fods": _flat(
        "spreadsheet",
        '<office:spreadsheet><table:table table:name="Visits">'
        f"<table:table-row>{_cells('city', 'visits')}</table:table-row>"
        f"<table:table-row>{_cells('Lyon', '12')}</table:table-row></table:table>"
        '<table:table table:name="Stock">'
        f"<table:table-row>{_cells('item', 'count')}</table:table-row>"
        f"<table:table-row>{_cells('gadget', '14')}</table:table-row></table:table></office:spreadsheet>",
    ),
    "fodp": _flat(
        "presentation",
        "<office:presentation>"
        f'<draw:page draw:name="one">{_frame(SAMPLE_TEXT)}</draw:page>'
        f'<draw:page draw:name="two">{_frame("Second slide")}</draw:page>'
        f'<draw:page draw:name="three">{_frame("Third slide")}</draw:page></office:presentation>',
    ),
    "fodg": _flat(
        "graphics",
        f'<office:drawing><draw:page draw:name="one">{_frame(SAMPLE_TEXT)}'
        '<draw:rect svg:x="2cm" svg:y="6cm" svg:width="6cm" svg:height="4cm"/></draw:page></office:drawing>',
    ),
}
# Formats no hand writes: made by converting the hand-written one of the same module.
DERIVED: dict[str, str] = {
    "docx": "fodt", "doc": "fodt", "odt": "fodt", "pdf": "txt",
    "xlsx": "fods", "xls": "fods", "ods": "fods",
    "pptx": "fodp", "ppt": "fodp", "odp": "fodp",
    "odg": "fodg", "emf": "fodg", "wmf": "fodg",
}  # fmt: skip


def write_sample(directory: Path, fmt: str) -> Path | None:
    """Write the hand-written sample of ``fmt`` into ``directory``; None when it must be derived."""
    if fmt not in _HAND_WRITTEN:
        return None
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"sample.{fmt}"
    path.write_text(_HAND_WRITTEN[fmt], encoding="utf-8")
    return path


def linked_picture_docx(path: Path, url: str) -> Path:
    """A .docx whose only picture is an external link (``r:link``, TargetMode External) to ``url``."""
    rel = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
    pkg = "http://schemas.openxmlformats.org/package/2006/relationships"
    dml = "http://schemas.openxmlformats.org/drawingml/2006"
    parts = {
        "[Content_Types].xml": (
            '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
            '<Default Extension="rels" '
            'ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
            '<Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" '
            'ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>'
            "</Types>"
        ),
        "_rels/.rels": (
            f'<Relationships xmlns="{pkg}"><Relationship Id="rId1" Type="{rel}/officeDocument" '
            'Target="word/document.xml"/></Relationships>'
        ),
        "word/_rels/document.xml.rels": (
            f'<Relationships xmlns="{pkg}"><Relationship Id="rId5" Type="{rel}/image" Target="{url}" '
            'TargetMode="External"/></Relationships>'
        ),
        "word/document.xml": (
            '<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" '
            f'xmlns:r="{rel}" xmlns:wp="{dml}/wordprocessingDrawing" xmlns:a="{dml}/main" '
            f'xmlns:pic="{dml}/picture"><w:body><w:p><w:r><w:t>{SAMPLE_TEXT}</w:t></w:r></w:p>'
            '<w:p><w:r><w:drawing><wp:inline><wp:extent cx="952500" cy="952500"/><wp:docPr id="1" name="p"/>'
            f'<a:graphic><a:graphicData uri="{dml}/picture"><pic:pic><pic:nvPicPr><pic:cNvPr id="1" '
            'name="p.png"/><pic:cNvPicPr/></pic:nvPicPr><pic:blipFill><a:blip r:link="rId5"/><a:stretch>'
            '<a:fillRect/></a:stretch></pic:blipFill><pic:spPr><a:xfrm><a:off x="0" y="0"/><a:ext '
            'cx="952500" cy="952500"/></a:xfrm><a:prstGeom prst="rect"><a:avLst/></a:prstGeom></pic:spPr>'
            "</pic:pic></a:graphicData></a:graphic></wp:inline></w:drawing></w:r></w:p></w:body></w:document>"
        ),
    }
    with zipfile.ZipFile(path, "w") as archive:
        for name, xml in parts.items():
            archive.writestr(name, '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n' + xml)
    return path


_OLE = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_ZIP_MEMBER = {
    "docx": "word/document.xml", "xlsx": "xl/workbook.xml", "pptx": "ppt/presentation.xml",
    "epub": "META-INF/container.xml",
}  # fmt: skip
_MIMETYPE = {
    "odt": b"application/vnd.oasis.opendocument.text",
    "ods": b"application/vnd.oasis.opendocument.spreadsheet",
    "odp": b"application/vnd.oasis.opendocument.presentation",
    "odg": b"application/vnd.oasis.opendocument.graphics",
}
_MAGIC = {"pdf": b"%PDF-", "doc": _OLE, "xls": _OLE, "ppt": _OLE, "rtf": b"{\\rtf",
          "png": b"\x89PNG\r\n\x1a\n", "jpg": b"\xff\xd8\xff"}  # fmt: skip


def check_output(path: Path, fmt: str) -> str | None:
    """Why ``path`` is not a good ``fmt`` file, or None when it is one."""
    data = path.read_bytes()
    if not data:
        return "empty"
    if fmt in _MAGIC:
        return None if data.startswith(_MAGIC[fmt]) else f"starts {data[:8]!r}"
    if fmt in _ZIP_MEMBER or fmt in _MIMETYPE:
        if not zipfile.is_zipfile(path):
            return "not a zip"
        with zipfile.ZipFile(path) as archive:
            names = archive.namelist()
            if fmt in _MIMETYPE:
                return None if archive.read("mimetype") == _MIMETYPE[fmt] else "wrong mimetype"
        return None if _ZIP_MEMBER[fmt] in names else f"no {_ZIP_MEMBER[fmt]}"
    if fmt == "emf":
        return None if data[40:44] == b" EMF" else "no EMF signature"
    if fmt == "wmf":
        return None if data[:4] in (b"\xd7\xcd\xc6\x9a", b"\x01\x00\x09\x00") else f"starts {data[:4]!r}"
    text = data.decode("utf-8")  # txt, csv, tsv, html, svg: text that must decode
    wanted = {"svg": "<svg", "html": "<html", "csv": ",", "tsv": "\t", "txt": ""}[fmt]
    return None if wanted in text.lower() else f"no {wanted!r} in it"
