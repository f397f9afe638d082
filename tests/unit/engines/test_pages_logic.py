"""The pure logic of the pages family: natural page order, archive kinds from their bytes, the DjVu
chunk reader's refusals, and the comic PDF writer keeping JPEG pages as their own bytes."""

from __future__ import annotations

import io
import struct
from pathlib import Path

import pytest
from PIL import Image
from pypdf import PdfReader

from mcv_pipelines.service.engines.base import EngineError
from mcv_pipelines.service.engines.pages.comic_pages import Page, archive_kind, natural_key
from mcv_pipelines.service.engines.pages.comic_pdf import write_pdf
from mcv_pipelines.service.engines.pages.djvu_container import djvu_layout


def test_pages_sort_in_natural_order_folder_by_folder() -> None:
    names = ["ch10/p1.png", "ch2/p10.png", "ch2/p9.png", "Ch2/p2.png", "cover.jpg", "ch1/page.png"]
    assert sorted(names, key=natural_key) == [
        "ch1/page.png", "Ch2/p2.png", "ch2/p9.png", "ch2/p10.png",
        "ch10/p1.png", "cover.jpg",
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("head", "kind"),
    [
        (b"PK\x03\x04rest", "zip"),
        (b"Rar!\x1a\x07\x00", "rar"),
        (b"7z\xbc\xaf\x27\x1c\x00\x04", "7z"),
        (bytes(257) + b"ustar\x0000", "tar"),
        (b"%PDF-1.7", None),
    ],
)
def test_the_archive_kind_comes_from_the_bytes(head: bytes, kind: str | None, tmp_path: Path) -> None:
    path = tmp_path / "comic.cbz"
    path.write_bytes(head + bytes(600))
    assert archive_kind(path) == kind


def _chunk(ident: bytes, data: bytes) -> bytes:
    return ident + struct.pack(">I", len(data)) + data + (b"\x00" if len(data) % 2 else b"")


def _form(kind: bytes, *chunks: bytes) -> bytes:
    return _chunk(b"FORM", kind + b"".join(chunks))


def _djvu(tmp_path: Path, form: bytes) -> Path:
    path = tmp_path / "stored.djvu"
    path.write_bytes(b"AT&T" + form)
    return path


def test_a_bundled_document_counts_its_pages(tmp_path: Path) -> None:
    page = _form(b"DJVU", _chunk(b"INFO", bytes(10)))
    shared = _form(b"DJVI", _chunk(b"Djbz", b"x"))
    included = _form(b"DJVU", _chunk(b"INFO", bytes(10)), _chunk(b"INCL", b"dict0001.iff"))
    document = _form(b"DJVM", _chunk(b"DIRM", b"\x81\x00\x03"), shared, page, included)
    layout = djvu_layout(_djvu(tmp_path, document), "book.djvu")
    assert (layout.pages, layout.bundled) == (2, True)


@pytest.mark.parametrize(
    ("form", "message"),
    [
        (_form(b"DJVM", _chunk(b"DIRM", b"\x01\x00\x02")), "book.djvu is an indirect DjVu document"),
        (
            _form(b"DJVU", _chunk(b"INFO", bytes(10)), _chunk(b"INCL", b"/etc/dict.iff")),
            "book.djvu includes other files (dict.iff)",
        ),
        (_form(b"DJVM", _chunk(b"NAVM", b"")), "book.djvu is a damaged DjVu file: no document directory"),
        (b"FORM\x00\x00\x10\x00DJVU", "book.djvu is a damaged DjVu file: a chunk runs past its container"),
    ],
)
def test_a_djvu_that_names_files_or_is_damaged_is_refused(form: bytes, message: str, tmp_path: Path) -> None:
    with pytest.raises(EngineError) as raised:
        djvu_layout(_djvu(tmp_path, form), "book.djvu")
    assert raised.value.code == "INVALID_INPUT_FILE"
    assert raised.value.message.startswith(message)


def test_not_a_djvu_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "fake.djvu"
    path.write_bytes(b"%PDF-1.4 and more bytes")
    with pytest.raises(EngineError, match=r"fake\.djvu is not a DjVu file"):
        djvu_layout(path, "fake.djvu")


def _page(tmp_path: Path, name: str, size: tuple[int, int], fmt: str, mode: str = "RGB") -> Page:
    path = tmp_path / name
    Image.new(mode, size, "red" if mode == "RGB" else 128).save(path, fmt, dpi=(72, 72))
    return Page(path, name, fmt, size, mode)


def test_the_comic_pdf_keeps_jpeg_bytes_and_each_page_size(tmp_path: Path) -> None:
    pages = [
        _page(tmp_path, "a.jpg", (144, 72), "JPEG"),
        _page(tmp_path, "b.png", (72, 144), "PNG", "L"),
        _page(tmp_path, "c.gif", (30, 20), "GIF", "P"),  # no resolution recorded: 96 dpi
    ]
    target = tmp_path / "comic.pdf"
    write_pdf(pages, target, lambda: None)
    reader = PdfReader(target)
    assert [(float(p.mediabox.width), float(p.mediabox.height)) for p in reader.pages] == [
        (144.0, 72.0), (72.0, 144.0), (22.5, 15.0),
    ]  # fmt: skip
    assert pages[0].path.read_bytes() in target.read_bytes()  # the JPEG as it was, not re-encoded
    picture = reader.pages[1].images[0].image
    assert picture is not None
    assert (picture.mode, picture.getpixel((0, 0))) == ("L", 128)  # the PNG's grey, without loss
    assert io.BytesIO(target.read_bytes()).read(8) == b"%PDF-1.4"
