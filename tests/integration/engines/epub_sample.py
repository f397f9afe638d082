"""A minimal EPUB 3 written by hand, so ebook tests need no program to make their input."""

from __future__ import annotations

import zipfile
from pathlib import Path

__all__ = ["write_epub"]

_CONTAINER = """<?xml version="1.0"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
<rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles>
</container>"""
_OPF = """<?xml version="1.0" encoding="utf-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id">
<metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
<dc:identifier id="id">urn:uuid:5b1c7a52-0c5e-4c57-9a3e-3f1f0e1a2b3c</dc:identifier>
<dc:title>{title}</dc:title><dc:language>en</dc:language>
<meta property="dcterms:modified">2026-01-01T00:00:00Z</meta>
</metadata>
<manifest>
<item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>
<item id="ch1" href="ch1.xhtml" media-type="application/xhtml+xml"/>
</manifest>
<spine><itemref idref="ch1"/></spine>
</package>"""
_PAGE = """<?xml version="1.0" encoding="utf-8"?>
<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops">
<head><title>{title}</title></head><body>{body}</body></html>"""


def write_epub(path: Path, title: str, body: str) -> Path:
    """An EPUB at ``path`` with one chapter whose <body> is ``body`` (XHTML)."""
    nav = '<nav epub:type="toc"><ol><li><a href="ch1.xhtml">Chapter</a></li></ol></nav>'
    with zipfile.ZipFile(path, "w") as book:
        book.writestr("mimetype", "application/epub+zip", compress_type=zipfile.ZIP_STORED)
        book.writestr("META-INF/container.xml", _CONTAINER)
        book.writestr("OEBPS/content.opf", _OPF.format(title=title))
        book.writestr("OEBPS/nav.xhtml", _PAGE.format(title=title, body=nav))
        book.writestr("OEBPS/ch1.xhtml", _PAGE.format(title=title, body=body))
    return path
