"""Checks of the pages and books family's outputs (issue 47), independent of its engines: poppler's
pdfinfo and pdftotext, Pillow, and the EPUB's own package document read with the standard library.

bench/formats.py names an output ``<input format>-to-<file>``, which says what it must hold: the pages
of the comic seed come out in natural order (page1, page2, page10: widths 110, 120, 130 pixels), the
DjVu seed's two pages, the XPS seed's word as text in its PDF.
"""

from __future__ import annotations

import re
import subprocess
import zipfile
from collections.abc import Callable
from pathlib import Path
from xml.etree import ElementTree

from PIL import Image

__all__ = ["pages_checks"]

Check = Callable[[Path], None]
_COMICS = ("cbz", "cbr", "cbt", "cb7")
_OPF = "{http://www.idpf.org/2007/opf}"


def _pdf_pages(path: Path) -> list[tuple[float, float]]:
    out = subprocess.run(["pdfinfo", "-f", "1", "-l", "999", str(path)], capture_output=True, text=True,
                         check=True).stdout  # fmt: skip
    return [(float(w), float(h)) for w, h in re.findall(r"Page\s+\d+ size:\s+([\d.]+) x ([\d.]+)", out)]


def _in_order(widths: list[float], what: str) -> None:
    if len(widths) != 3 or widths != sorted(widths) or len(set(widths)) != 3:
        raise ValueError(f"{what}: the comic's pages are not page1, page2, page10 (widths {widths})")


def _comic_pdf(path: Path) -> None:
    _in_order([w for w, _ in _pdf_pages(path)], "pdf")


def _comic_cbz(path: Path) -> None:
    with zipfile.ZipFile(path) as archive:
        names = archive.namelist()
        widths = []
        for name in names:
            with archive.open(name) as member, Image.open(member) as image:
                widths.append(float(image.size[0]))
    if names != sorted(names):
        raise ValueError(f"members not named in page order: {names}")
    _in_order(widths, "cbz")


def _comic_epub(path: Path) -> None:
    with zipfile.ZipFile(path) as book:
        # the bench's own output of its own seed: no hostile XML here
        container = ElementTree.fromstring(book.read("META-INF/container.xml"))  # noqa: S314 - our own epub
        rootfile = next(e for e in container.iter() if e.tag.endswith("rootfile")).attrib["full-path"]
        package = ElementTree.fromstring(book.read(rootfile))  # noqa: S314 - our own epub
        base = rootfile.rsplit("/", 1)[0] + "/" if "/" in rootfile else ""
        items = {item.attrib["id"]: item.attrib["href"] for item in package.iter(f"{_OPF}item")}
        metas = package.iter(f"{_OPF}meta")
        layout = [m.text for m in metas if m.attrib.get("property") == "rendition:layout"]
        if layout != ["pre-paginated"]:
            raise ValueError("not a fixed-layout book")
        widths = []
        for ref in package.iter(f"{_OPF}itemref"):
            page = book.read(base + items[ref.attrib["idref"]]).decode()
            picture = re.search(r'<img src="([^"]+)"', page)
            if picture is None:
                raise ValueError(f"spine page {ref.attrib['idref']} shows no picture")
            with book.open(base + picture.group(1)) as member, Image.open(member) as image:
                widths.append(float(image.size[0]))
    _in_order(widths, "epub")


def _djvu_pdf(path: Path) -> None:
    if len(_pdf_pages(path)) != 2:
        raise ValueError("the DjVu's two pages did not both come out")


def _xps_pdf(path: Path) -> None:
    text = subprocess.run(["pdftotext", str(path), "-"], capture_output=True, text=True, check=True).stdout
    if "Quokka" not in text or len(_pdf_pages(path)) != 2:
        raise ValueError("the XPS's text or its two pages did not come through")


def _tiff_pages(path: Path) -> None:
    with Image.open(path) as image:
        if getattr(image, "n_frames", 1) != 2:
            raise ValueError("the DjVu's two pages are not both in the TIFF")


_BY_SOURCE: dict[tuple[str, str], Check] = {
    **{(comic, "pdf"): _comic_pdf for comic in _COMICS},
    **{(comic, "cbz"): _comic_cbz for comic in _COMICS},
    **{(comic, "epub"): _comic_epub for comic in _COMICS},
    ("djvu", "pdf"): _djvu_pdf,
    ("djvu", "tiff"): _tiff_pages,
    ("xps", "pdf"): _xps_pdf,
    ("oxps", "pdf"): _xps_pdf,
}


def _zip_of_pictures(path: Path) -> None:
    with zipfile.ZipFile(path) as archive:
        for name in archive.namelist():
            with archive.open(name) as member, Image.open(member) as image:
                image.load()


def pages_checks(path: Path, fmt: str) -> list[Check]:
    """The checks of this family for an output ``path`` of format ``fmt`` (none for other outputs)."""
    source = path.name.split("-to-", 1)[0] if "-to-" in path.name else ""
    checks = [_zip_of_pictures] if fmt == "cbz" else []
    found = _BY_SOURCE.get((source, fmt))
    return [*checks, found] if found else checks
