"""Comic archives written here: pages Pillow draws (each its own size, so a reader of the output can
tell them apart), packed as cbz (zip), cbt (tar), cb7 (py7zr) or cbr (RAR 4 by hand, rar_sample.py).
Used by the pages tests and by bench/formats.py's samples."""

from __future__ import annotations

import io
import tarfile
import zipfile

from PIL import Image, ImageDraw

from rar_sample import rar4

__all__ = ["comic_archive", "page_picture", "sample_members"]


def page_picture(number: int, fmt: str = "PNG") -> bytes:
    """Page ``number``: 100 + 10*number pixels wide, 150 high, a coloured block."""
    image = Image.new("RGB", (100 + 10 * number, 150), "white")
    ImageDraw.Draw(image).rectangle((10, 10, 90, 140), fill=((37 * number) % 256, 78, 216))
    data = io.BytesIO()
    image.save(data, fmt)
    return data.getvalue()


def sample_members() -> list[tuple[str, bytes]]:
    """Three pages out of order, one of them JPEG, in nested folders, with a non-picture among them."""
    return [
        ("Issue 1/page10.png", page_picture(3)),
        ("Issue 1/page2.jpg", page_picture(2, "JPEG")),
        ("Issue 1/ComicInfo.xml", b"<ComicInfo><Title>Quokka</Title></ComicInfo>"),
        ("cover/page1.png", page_picture(1)),
    ]


def comic_archive(kind: str, members: list[tuple[str, bytes]]) -> bytes:
    """``members`` (name, data) as a ``kind`` archive: cbz, cbt, cb7 or cbr."""
    out = io.BytesIO()
    if kind == "cbz":
        with zipfile.ZipFile(out, "w") as archive:
            for name, data in members:
                archive.writestr(name, data)
    elif kind == "cbt":
        with tarfile.open(fileobj=out, mode="w") as archive:
            for name, data in members:
                info = tarfile.TarInfo(name)
                info.size = len(data)
                archive.addfile(info, io.BytesIO(data))
    elif kind == "cb7":
        import py7zr

        with py7zr.SevenZipFile(out, "w") as archive:
            for name, data in members:
                archive.writestr(data, name)
    elif kind == "cbr":
        return rar4(members)
    else:
        raise ValueError(kind)
    return out.getvalue()
