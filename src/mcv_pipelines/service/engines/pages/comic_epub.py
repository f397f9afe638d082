"""A comic's pages as a fixed-layout EPUB 3: one XHTML page per picture, the spine in page order.

Each page is sized to its picture (the viewport of a pre-paginated book), so a reader shows it whole,
one page at a time. JPEG, PNG and GIF pictures go in as their own bytes (EPUB's core image types);
WebP, BMP and TIFF pages are written as PNG. The first page is the cover.
"""

from __future__ import annotations

import uuid
import zipfile
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from xml.sax.saxutils import escape as _escape

from PIL import Image

from mcv_pipelines.service.engines.pages.comic_pages import Page

__all__ = ["write_epub"]

_KEPT = {"JPEG": ("jpg", "image/jpeg"), "PNG": ("png", "image/png"), "GIF": ("gif", "image/gif")}


def escape(text: str) -> str:
    """``text`` safe in XML content and in a double-quoted attribute."""
    return _escape(text, {'"': "&quot;"})


_CONTAINER = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">'
    '<rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/>'
    "</rootfiles></container>\n"
)


def _picture(page: Page) -> tuple[bytes, str, str]:
    """The picture's bytes, extension and media type as the book holds it."""
    if page.format in _KEPT:
        return page.path.read_bytes(), *_KEPT[page.format]
    png = page.path.with_suffix(".epub.png")
    with Image.open(page.path) as image:
        image.save(png, "PNG")
    return png.read_bytes(), "png", "image/png"


def _xhtml(title: str, picture: str, size: tuple[int, int]) -> str:
    width, height = size
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE html>\n'
        '<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops">'
        f"<head><title>{escape(title)}</title>"
        f'<meta name="viewport" content="width={width}, height={height}"/>'
        "<style>html, body { margin: 0; padding: 0; } img { display: block; }</style></head>"
        f'<body><img src="{picture}" width="{width}" height="{height}" alt="{escape(title)}"/>'
        "</body></html>\n"
    )


def _package(title: str, items: list[str], spine: list[str]) -> str:
    modified = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id" '
        'prefix="rendition: http://www.idpf.org/vocab/rendition/#">'
        '<metadata xmlns:dc="http://purl.org/dc/elements/1.1/">'
        f'<dc:identifier id="id">urn:uuid:{uuid.uuid4()}</dc:identifier><dc:title>{escape(title)}</dc:title>'
        f'<dc:language>und</dc:language><meta property="dcterms:modified">{modified}</meta>'
        '<meta property="rendition:layout">pre-paginated</meta>'
        '<meta property="rendition:orientation">auto</meta><meta property="rendition:spread">none</meta>'
        f"</metadata><manifest>{''.join(items)}</manifest><spine>{''.join(spine)}</spine></package>\n"
    )


def write_epub(pages: Sequence[Page], target: Path, title: str, check: Callable[[], None]) -> None:
    """Write ``pages`` in order as the fixed-layout EPUB ``target``; ``check`` runs between pages."""
    items = ['<item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>']
    spine: list[str] = []
    links: list[str] = []
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as book:
        book.writestr(zipfile.ZipInfo("mimetype"), "application/epub+zip", zipfile.ZIP_STORED)
        book.writestr("META-INF/container.xml", _CONTAINER)
        for number, page in enumerate(pages, start=1):
            check()
            data, extension, media = _picture(page)
            picture, document = f"images/page{number:04d}.{extension}", f"page{number:04d}.xhtml"
            cover = ' properties="cover-image"' if number == 1 else ""
            items.append(f'<item id="img{number}" href="{picture}" media-type="{media}"{cover}/>')
            items.append(f'<item id="p{number}" href="{document}" media-type="application/xhtml+xml"/>')
            spine.append(f'<itemref idref="p{number}"/>')
            links.append(f'<li><a href="{document}">{number}</a></li>')
            stored = zipfile.ZIP_STORED if media == "image/jpeg" else zipfile.ZIP_DEFLATED
            book.writestr(f"OEBPS/{picture}", data, stored)
            book.writestr(f"OEBPS/{document}", _xhtml(f"{title} {number}", picture, page.size))
        book.writestr(
            "OEBPS/nav.xhtml",
            '<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE html>\n'
            '<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops">'
            f'<head><title>{escape(title)}</title></head><body><nav epub:type="toc"><ol>{"".join(links)}'
            "</ol></nav></body></html>\n",
        )
        book.writestr("OEBPS/content.opf", _package(title, items, spine))
