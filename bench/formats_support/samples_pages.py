"""Seeds of the pages and books family (issue 47) that no listed conversion writes: a DjVu made by
djvulibre's encoders (not ddjvu, which the engine runs), XPS, OpenXPS and CHM written by hand, and comic
archives of three pages out of order in nested folders with a ComicInfo.xml among them (cbz, cbt and
cb7 by the standard library and py7zr, cbr as RAR 4 by hand). The writers live with the tests
(tests/djvu_sample.py, xps_sample.py, chm_sample.py, comic_samples.py), which bench/formats.py puts
on the path.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from chm_sample import chm_document
from comic_samples import comic_archive, sample_members
from djvu_sample import djvu_document
from xps_sample import xps_document

__all__ = ["PAGES_WORDED", "pages_seeds"]

WORD = "Quokka"
PAGES_WORDED = {"djvu", "xps", "oxps", "chm"}


def _djvu(path: Path) -> None:
    djvu_document(path, [WORD, "Wombat"])


def _xps(kind: str) -> Callable[[Path], None]:
    return lambda path: path.write_bytes(xps_document([f"{WORD} notes", "Second page"], kind))


def _chm(path: Path) -> None:
    pages = [
        (
            "index.html",
            "Start",
            f'<html><body><h1>{WORD} notes</h1><p><a href="two.html">next</a></p></body></html>',
        ),
        ("two.html", "Two", f"<html><body><p>About the {WORD}.</p></body></html>"),
    ]
    path.write_bytes(chm_document(pages, f"{WORD} help"))


def _comic(kind: str) -> Callable[[Path], None]:
    return lambda path: path.write_bytes(comic_archive(kind, sample_members()))


_SEEDS: dict[str, Callable[[Path], None]] = {
    "djvu": _djvu,
    "chm": _chm,
    "xps": _xps("xps"),
    "oxps": _xps("oxps"),
    **{kind: _comic(kind) for kind in ("cbz", "cbr", "cbt", "cb7")},
}


def pages_seeds(directory: Path, wanted: set[str]) -> dict[str, Path]:
    """Write the seed of every format in ``wanted`` this module makes; format -> path."""
    made: dict[str, Path] = {}
    for fmt, make in _SEEDS.items():
        if fmt in wanted:
            path = directory / f"sample.{fmt}"
            make(path)
            made[fmt] = path
    return made
