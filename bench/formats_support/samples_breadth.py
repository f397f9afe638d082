"""Seeds of the formats issue 23's breadth work added that no listed conversion writes: comic archives,
the zipped FictionBook, Palm Markup, a RAR archive written by hand, and the macro-enabled Office
variants (made from their plain kin by changing the package's content type).

No free program writes RAR, so ``rar_bytes`` writes a RAR 4 archive itself: the marker block, an
archive header, one stored (method 0x30) file header per member and the end block; every header's
CRC is the low 16 bits of the CRC-32 of the header after its CRC field.
"""

from __future__ import annotations

import io
import struct
import zipfile
import zlib
from pathlib import Path

from PIL import Image, ImageDraw

__all__ = ["BREADTH_WORDED", "MACRO_VARIANTS", "breadth_seeds", "macro_variant", "rar_bytes"]

WORD = "Quokka"
BREADTH_WORDED = {"pml", "fbz", "sxw", "stw", "sxc", "stc", "sxi", "sxd"}
# macro-enabled format -> (the plain format it is made from, the content type its main part gets)
MACRO_VARIANTS = {
    "dotm": ("dotx", "application/vnd.ms-word.template.macroEnabledTemplate.main+xml"),
    "xltm": ("xltx", "application/vnd.ms-excel.template.macroEnabled.main+xml"),
    "potm": ("potx", "application/vnd.ms-powerpoint.template.macroEnabled.main+xml"),
    "ppsm": ("ppsx", "application/vnd.ms-powerpoint.slideshow.macroEnabled.main+xml"),
}
_PLAIN_TYPES = (
    "application/vnd.openxmlformats-officedocument.wordprocessingml.template.main+xml",
    "application/vnd.openxmlformats-officedocument.spreadsheetml.template.main+xml",
    "application/vnd.openxmlformats-officedocument.presentationml.template.main+xml",
    "application/vnd.openxmlformats-officedocument.presentationml.slideshow.main+xml",
)
_FB2 = (
    '<?xml version="1.0" encoding="utf-8"?>\n<FictionBook xmlns="http://www.gribuser.ru/xml/fictionbook/2.0">'
    f"<description><title-info><book-title>{WORD}</book-title><lang>en</lang></title-info></description>"
    f"<body><section><title><p>{WORD} notes</p></title><p>About the {WORD}.</p></section></body>"
    "</FictionBook>\n"
)


def _block(head_type: int, flags: int, body: bytes) -> bytes:
    rest = struct.pack("<BHH", head_type, flags, 7 + len(body)) + body
    return struct.pack("<H", zlib.crc32(rest) & 0xFFFF) + rest


def rar_bytes(members: list[tuple[str, bytes]]) -> bytes:
    """A RAR 4 archive holding ``members`` (name, data), stored uncompressed."""
    out = b"Rar!\x1a\x07\x00" + _block(0x73, 0, bytes(6))
    dos_time = (2026 - 1980) << 25 | 1 << 21 | 1 << 16  # 2026-01-01 00:00
    for name, data in members:
        encoded = name.encode()
        # packed and unpacked size, host OS 3 (Unix), CRC-32, time, version 2.0, method "store",
        # name length, Unix mode; flag 0x8000: the block carries data after its header
        fields = (len(data), len(data), 3, zlib.crc32(data), dos_time, 20, 0x30, len(encoded), 0o100644)
        out += _block(0x74, 0x8000, struct.pack("<IIBIIBBHI", *fields) + encoded) + data
    return out + _block(0x7B, 0x4000, b"")


def _pages() -> list[tuple[str, bytes]]:
    pages = []
    for number, colour in enumerate(((29, 78, 216), (216, 78, 29)), start=1):
        image = Image.new("RGB", (200, 300), "white")
        ImageDraw.Draw(image).rectangle((20, 20, 180, 280), fill=colour)
        data = io.BytesIO()
        image.save(data, "PNG")
        pages.append((f"page{number:02d}.png", data.getvalue()))
    return pages


def _cbz(path: Path) -> None:
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in _pages():
            archive.writestr(name, data)


def _cb7(path: Path) -> None:
    import py7zr

    with py7zr.SevenZipFile(path, "w") as archive:
        for name, data in _pages():
            archive.writestr(data, name)


def _fbz(path: Path) -> None:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("book.fb2", _FB2)


def _rar(path: Path) -> None:
    path.write_bytes(rar_bytes([("notes/quokka.txt", f"About the {WORD}.\n".encode()),
                                ("readme.md", f"# {WORD}\n".encode())]))  # fmt: skip


def _pml(path: Path) -> None:
    path.write_text(f"\\x{WORD} notes\\x\n\nAbout the \\i{WORD}\\i.\n", encoding="utf-8")


_SEEDS = {
    "cbz": _cbz, "cb7": _cb7, "fbz": _fbz, "rar": _rar, "pml": _pml,
    **dict.fromkeys(("sxw", "stw", "sxc", "stc", "sxi", "sxd"), lambda path: openoffice1(path, WORD)),
}  # fmt: skip


def breadth_seeds(directory: Path, wanted: set[str]) -> dict[str, Path]:
    """Write the seed of every format in ``wanted`` this module makes; format -> path."""
    made: dict[str, Path] = {}
    for fmt, make in _SEEDS.items():
        if fmt in wanted:
            path = directory / f"sample.{fmt}"
            make(path)
            made[fmt] = path
    return made


def macro_variant(source: Path, fmt: str, directory: Path) -> Path:
    """``source`` (a dotx, xltx, potx or ppsx) repackaged as the macro-enabled ``fmt``: the same parts,
    the main part's content type changed (a file without macros is still a valid one)."""
    _, content_type = MACRO_VARIANTS[fmt]
    target = directory / "macro" / f"sample.{fmt}"
    target.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as new:
        for info in old.infolist():
            data = old.read(info)
            if info.filename == "[Content_Types].xml":
                text = data.decode("utf-8")
                for plain in _PLAIN_TYPES:
                    text = text.replace(plain, content_type)
                data = text.encode("utf-8")
            new.writestr(info, data)
    return target


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
