"""The pages of a comic archive: unpacked under the archive family's guards, pictures kept, in natural
order.

A comic archive is a zip (cbz), RAR (cbr), tar (cbt) or 7z (cb7) of pictures, one a page. The kind is
read from the file's first bytes, not its extension (a cbz that is really a RAR is common). Members are
unpacked by archive/unpack.py (zip, tar, 7z) or the unar engine (RAR): names made relative and safe,
links never followed, at most MAX_MEMBERS files and MAX_TOTAL_BYTES bytes. What is not a picture
(ComicInfo.xml, a text file, a macOS ``__MACOSX/`` or ``._`` shadow) is left out. Pages sort by
their path in natural order: ``page2`` before ``page10``, ``ch2/`` before ``ch10/``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from PIL import Image

from mcv_pipelines.service.engines.archive.rar import UnarEngine
from mcv_pipelines.service.engines.archive.unpack import unpack
from mcv_pipelines.service.engines.base import EngineError, EngineRequest
from mcv_pipelines.service.engines.failures import INVALID_INPUT_FILE, library_errors

__all__ = ["PICTURE_FORMATS", "Page", "archive_kind", "comic_pages", "natural_key"]

# Pillow's name of each picture format a page may be in -> the extension it is written with
PICTURE_FORMATS = {"JPEG": "jpg", "PNG": "png", "GIF": "gif", "WEBP": "webp", "BMP": "bmp", "TIFF": "tiff"}
_EXTENSIONS = frozenset({"jpg", "jpeg", "jpe", "png", "gif", "webp", "bmp", "tif", "tiff"})
_DIGITS = re.compile(r"(\d+)")


@dataclass(frozen=True, slots=True)
class Page:
    path: Path  # the unpacked file
    name: str  # its (safe) path inside the archive
    format: str  # Pillow's name of it: JPEG, PNG ...
    size: tuple[int, int]
    mode: str


def natural_key(name: str) -> list[list[str | int]]:
    """Sort key of a member path: each folder and the file name split into text and numbers.

    >>> sorted(["p10.png", "p2.png", "B/p1.png", "a/p1.png"], key=natural_key)
    ['a/p1.png', 'B/p1.png', 'p10.png', 'p2.png']
    """
    return [
        [int(piece) if piece.isdigit() else piece.lower() for piece in _DIGITS.split(part)]
        for part in name.split("/")
    ]


def archive_kind(path: Path) -> str | None:
    """zip, rar, 7z or tar from the file's first bytes; None for none of them."""
    with path.open("rb") as stream:
        head = stream.read(512)
    if head.startswith(b"PK\x03\x04") or head.startswith(b"PK\x05\x06"):
        return "zip"
    if head.startswith(b"Rar!\x1a\x07"):
        return "rar"
    if head.startswith(b"7z\xbc\xaf\x27\x1c"):
        return "7z"
    if head[257:262] == b"ustar":
        return "tar"
    return None


def _skipped(name: str) -> bool:
    parts = name.split("/")
    if any(part.startswith(".") or part == "__MACOSX" for part in parts):
        return True
    return name.rsplit(".", 1)[-1].lower() not in _EXTENSIONS if "." in parts[-1] else True


def _picture(path: Path, name: str) -> Page | None:
    with library_errors(f"read the page {name}", INVALID_INPUT_FILE), Image.open(path) as image:
        if image.format not in PICTURE_FORMATS:
            return None
        return Page(path, name, image.format, image.size, image.mode)


def comic_pages(request: EngineRequest, path: Path, unar: UnarEngine | None) -> list[Page]:
    """The picture pages of the comic archive ``path``, in natural order; EngineError when it has none."""
    kind = archive_kind(path)
    into = request.work_dir / "pages"
    into.mkdir(parents=True, exist_ok=True)
    if kind is None:
        raise EngineError(INVALID_INPUT_FILE, f"{path.name} is not a zip, RAR, 7z or tar archive")
    if kind == "rar":
        if unar is None or unar.version() is None:
            raise EngineError(INVALID_INPUT_FILE, f"{path.name} is a RAR archive, and unar is not installed")
        members = unar.unpack(request, path, into)
    else:
        with library_errors(f"read {path.name} as a {kind} archive", INVALID_INPUT_FILE):
            members = unpack(request, path, kind, into)
    pages = [
        page
        for file, name in sorted(members, key=lambda member: natural_key(member[1]))
        if not _skipped(name) and (page := _picture(file, name)) is not None
    ]
    if not pages:
        raise EngineError(
            INVALID_INPUT_FILE, f"{path.name} holds no pictures (jpg, png, gif, webp, bmp, tiff)"
        )
    return pages
