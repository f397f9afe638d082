"""Seeds of the formats issue 23's breadth work added that no listed conversion writes: comic archives,
the zipped FictionBook, Palm Markup, a RAR archive and the OpenOffice.org 1 files. The last two are
written by the tests' own hand-written samples (tests/rar_sample.py, tests/office_samples.py), which
bench/formats.py puts on the path; so are the macro-enabled Office variants it makes.
"""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

from PIL import Image, ImageDraw

from office_samples import openoffice1
from rar_sample import rar4

__all__ = ["BREADTH_WORDED", "breadth_seeds"]

WORD = "Quokka"
BREADTH_WORDED = {"pml", "fbz", "sxw", "stw", "sxc", "stc", "sxi", "sxd"}
_FB2 = (
    '<?xml version="1.0" encoding="utf-8"?>\n<FictionBook xmlns="http://www.gribuser.ru/xml/fictionbook/2.0">'
    f"<description><title-info><book-title>{WORD}</book-title><lang>en</lang></title-info></description>"
    f"<body><section><title><p>{WORD} notes</p></title><p>About the {WORD}.</p></section></body>"
    "</FictionBook>\n"
)


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
    path.write_bytes(rar4([("notes/quokka.txt", f"About the {WORD}.\n".encode()),
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


