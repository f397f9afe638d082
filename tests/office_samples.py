"""Small office documents written by hand (flat OpenDocument XML, csv, rtf, html, a .docx zip) and a
check of each output format by its magic bytes or contents. Used by the office engine's tests and
bench/engines.py; no download, no program needed to write them.
"""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

from import_samples import IMPORT_SAMPLES, write_import_sample

__all__ = [
    "DERIVED",
    "MACRO_VARIANTS",
    "SAMPLE_TEXT",
    "check_output",
    "include_picture_rtf",
    "linked_picture_docx",
    "macro_variant",
    "write_sample",
]

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
    # issue 23, breadth: templates, macro-enabled files, OpenOffice.org 1, UOF, DIF and SYLK
    **dict.fromkeys(("dot", "dotx", "docm", "ott", "uot"), "fodt"),
    **dict.fromkeys(("xlt", "xltx", "xlsm", "ots", "dif", "slk", "uos"), "fods"),
    **dict.fromkeys(("pps", "ppsx", "pot", "potx", "pptm", "otp", "uop"), "fodp"),
    "otg": "fodg",
}  # fmt: skip
# Macro-enabled formats LibreOffice reads but does not write: its plain kin, the content type changed.
MACRO_VARIANTS: dict[str, tuple[str, str]] = {
    "dotm": ("dotx", "application/vnd.ms-word.template.macroEnabledTemplate.main+xml"),
    "xltm": ("xltx", "application/vnd.ms-excel.template.macroEnabled.main+xml"),
    "potm": ("potx", "application/vnd.ms-powerpoint.template.macroEnabled.main+xml"),
    "ppsm": ("ppsx", "application/vnd.ms-powerpoint.slideshow.macroEnabled.main+xml"),
}


def macro_variant(source: Path, fmt: str) -> Path:
    """``source`` (dotx, xltx, potx or ppsx) as the macro-enabled ``fmt``: only the main part's content
    type differs (a file without macros is a valid one)."""
    content_type = MACRO_VARIANTS[fmt][1]
    target = source.with_name(f"macro.{fmt}")
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as new:
        for info in old.infolist():
            data = old.read(info)
            if info.filename == "[Content_Types].xml":
                data = re.sub(rb'ContentType="application/vnd\.openxmlformats-officedocument\.'
                              rb'(wordprocessingml|spreadsheetml|presentationml)\.(template|slideshow)\.main\+xml"',
                              f'ContentType="{content_type}"'.encode(), data)  # fmt: skip
            new.writestr(info, data)
    return target


def write_sample(directory: Path, fmt: str) -> Path | None:
    """Write the hand-written sample of ``fmt`` into ``directory``; None when it must be derived."""
    if fmt in _OOO1_APPS:
        directory.mkdir(parents=True, exist_ok=True)
        return openoffice1(directory / f"sample.{fmt}", SAMPLE_TEXT)
    if fmt in IMPORT_SAMPLES:  # formats LibreOffice only reads (abw, 602, wk1, gnumeric, ...)
        directory.mkdir(parents=True, exist_ok=True)
        return write_import_sample(directory / f"sample.{fmt}", SAMPLE_TEXT)
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


def include_picture_rtf(path: Path, picture: str) -> Path:
    """An .rtf whose field ``INCLUDEPICTURE`` names ``picture`` (a path or URL) to embed."""
    field = r"{\field{\*\fldinst INCLUDEPICTURE " + f'"{picture}"' + r"}{\fldrslt }}"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(r"{\rtf1\ansi " + SAMPLE_TEXT + " " + field + r"\par}", encoding="utf-8")
    return path


_OLE = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_ZIP_MEMBER = {
    "docx": "word/document.xml", "xlsx": "xl/workbook.xml", "pptx": "ppt/presentation.xml",
    "epub": "META-INF/container.xml",
    "dotx": "word/document.xml", "docm": "word/document.xml", "xltx": "xl/workbook.xml",
    "xlsm": "xl/workbook.xml", "ppsx": "ppt/presentation.xml", "potx": "ppt/presentation.xml",
    "pptm": "ppt/presentation.xml",
    **dict.fromkeys(
        ("ott", "ots", "otp", "otg", "sxw", "stw", "sxc", "stc", "sxi", "sti", "sxd", "std"), "content.xml"
    ),
}  # fmt: skip
_MIMETYPE = {
    "odt": b"application/vnd.oasis.opendocument.text",
    "ods": b"application/vnd.oasis.opendocument.spreadsheet",
    "odp": b"application/vnd.oasis.opendocument.presentation",
    "odg": b"application/vnd.oasis.opendocument.graphics",
}
_MAGIC = {"pdf": b"%PDF-", "doc": _OLE, "xls": _OLE, "ppt": _OLE, "rtf": b"{\\rtf",
          "png": b"\x89PNG\r\n\x1a\n", "jpg": b"\xff\xd8\xff",
          "dot": _OLE, "xlt": _OLE, "pps": _OLE, "pot": _OLE, "gif": b"GIF8", "bmp": b"BM", "webp": b"RIFF",
          "uot": b"<?xml", "uos": b"<?xml", "uop": b"<?xml", "fodt": b"<?xml",
          "fods": b"<?xml", "fodp": b"<?xml", "fodg": b"<?xml", "dif": b"TABLE", "slk": b"ID;"}  # fmt: skip


def check_output(path: Path, fmt: str) -> str | None:
    """Why ``path`` is not a good ``fmt`` file, or None when it is one."""
    data = path.read_bytes()
    if not data:
        return "empty"
    if fmt == "tiff":  # either byte order
        return None if data[:4] in (b"II*\x00", b"MM\x00*") else f"starts {data[:4]!r}"
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
    wanted = {"svg": "<svg", "html": "<html", "xhtml": "<html", "csv": ",", "tsv": "\t", "txt": ""}[fmt]
    return None if wanted in text.lower() else f"no {wanted!r} in it"


# OpenOffice.org 1 (sxw, stw, sxc, stc, sxi, sxd): a zip of mimetype, content.xml in the 2000
# namespaces and a manifest; LibreOffice reads them but no longer writes them.
_OOO1_NS = (
    'xmlns:office="http://openoffice.org/2000/office" xmlns:text="http://openoffice.org/2000/text" '
    'xmlns:table="http://openoffice.org/2000/table" xmlns:draw="http://openoffice.org/2000/drawing" '
    'xmlns:svg="http://www.w3.org/2000/svg"'
)
_OOO1_BOX = (
    '<draw:text-box svg:x="2cm" svg:y="2cm" svg:width="14cm" svg:height="3cm">'
    "<text:p>{word} notes</text:p></draw:text-box>"
)
_OOO1_APPS = {  # format -> (application, template?, office:class)
    "sxw": ("writer", False, "text"), "stw": ("writer", True, "text"),
    "sxc": ("calc", False, "spreadsheet"), "stc": ("calc", True, "spreadsheet"),
    "sxi": ("impress", False, "presentation"), "sxd": ("draw", False, "drawing"),
}  # fmt: skip


def _ooo1_body(kind: str, word: str) -> str:
    if kind == "text":
        return f"<text:p>{word} notes</text:p><text:p>About the {word}.</text:p>"
    if kind == "spreadsheet":
        cells = "".join(f"<table:table-cell><text:p>{v}</text:p></table:table-cell>" for v in (word, "3"))
        return f'<table:table table:name="Sheet1"><table:table-row>{cells}</table:table-row></table:table>'
    return f'<draw:page draw:name="one">{_OOO1_BOX.format(word=word)}</draw:page>'


def openoffice1(path: Path, word: str) -> Path:
    """An OpenOffice.org 1 file of ``path``'s extension saying ``word``."""
    app, template, kind = _OOO1_APPS[path.suffix[1:]]
    mime = f"application/vnd.sun.xml.{app}" + (".template" if template else "")
    content = (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<office:document-content {_OOO1_NS} office:class="{kind}" '
        f'office:version="1.0"><office:body>{_ooo1_body(kind, word)}</office:body>'
        "</office:document-content>\n"
    )
    manifest = (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<manifest:manifest xmlns:manifest="http://openoffice.org/2001/manifest">'
        f'<manifest:file-entry manifest:media-type="{mime}" manifest:full-path="/"/>'
        '<manifest:file-entry manifest:media-type="text/xml" manifest:full-path="content.xml"/>'
        "</manifest:manifest>\n"
    )
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("mimetype", mime)  # first and stored, as the format wants
        archive.writestr("content.xml", content, zipfile.ZIP_DEFLATED)
        archive.writestr("META-INF/manifest.xml", manifest, zipfile.ZIP_DEFLATED)
    return path
