"""The table of leading bytes (engines/signatures.py): real files of each checked format pass as what
they are, and a file named as something it is not is told apart, with what its bytes are."""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import tarfile
import wave
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
from PIL import Image

from mcv_pipelines.service.engines.signatures import (
    FORMAT_SIGNATURES,
    SIGNATURES,
    describe,
    mislabelled,
    mislabelled_input,
)


def _image(fmt: str, **params: object) -> Callable[[], bytes]:
    def make() -> bytes:
        out = io.BytesIO()
        Image.new("RGB", (8, 8), "teal").save(out, fmt, **params)
        return out.getvalue()

    return make


def _zip(*members: str) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for member in members:
            archive.writestr(member, "<x/>")
    return out.getvalue()


def _tar(mode: str) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode=mode) as archive:
        info = tarfile.TarInfo("a.txt")
        info.size = 3
        archive.addfile(info, io.BytesIO(b"abc"))
    return out.getvalue()


def _wav() -> bytes:
    out = io.BytesIO()
    with wave.open(out, "wb") as sound:
        sound.setnchannels(1)
        sound.setsampwidth(2)
        sound.setframerate(8000)
        sound.writeframes(b"\x00\x00" * 80)
    return out.getvalue()


# Files made here by real writers (Pillow, zipfile, tarfile, wave, the compressors), by format.
REAL: dict[str, Callable[[], bytes]] = {
    "png": _image("PNG"), "jpg": _image("JPEG"), "gif": _image("GIF"), "webp": _image("WEBP"),
    "tiff": _image("TIFF"), "bmp": _image("BMP"), "ico": _image("ICO"), "ppm": _image("PPM"),
    "pdf": _image("PDF"), "eps": _image("EPS"),
    "zip": lambda: _zip("a.txt"), "docx": lambda: _zip("[Content_Types].xml", "word/document.xml"),
    "epub": lambda: _zip("mimetype", "META-INF/container.xml"),
    "tar": lambda: _tar("w"), "tar.gz": lambda: _tar("w:gz"), "tar.bz2": lambda: _tar("w:bz2"),
    "tar.xz": lambda: _tar("w:xz"), "gz": lambda: gzip.compress(b"x"), "bz2": lambda: bz2.compress(b"x"),
    "xz": lambda: lzma.compress(b"x"), "wav": _wav,
}  # fmt: skip


def test_every_format_names_signatures_of_the_table() -> None:
    unknown = {fmt: names for fmt, names in FORMAT_SIGNATURES.items() if set(names) - set(SIGNATURES)}
    assert unknown == {}


@pytest.mark.parametrize("fmt", sorted(REAL))
def test_a_real_file_passes_as_its_own_format(fmt: str) -> None:
    assert mislabelled(fmt, REAL[fmt]()[:2048]) is None


@pytest.mark.parametrize(
    ("named", "real", "looks_like"),
    [
        ("pdf", "png", "a PNG image"),
        ("png", "zip", "a zip archive"),
        ("docx", "pdf", "a PDF document"),
        ("mp4", "wav", "WAV audio"),
        ("jpg", "gif", "a GIF image"),
        ("7z", "tar.gz", "gzip data"),
    ],
)
def test_a_file_named_as_another_format_is_told_apart(named: str, real: str, looks_like: str) -> None:
    found = mislabelled(named, REAL[real]())
    assert found is not None
    assert found.startswith(looks_like)


def test_text_and_empty_and_unknown_bytes_are_described() -> None:
    assert mislabelled("docx", b"# Notes\n\nA plain Markdown file, caf\xc3\xa9.\n") == "text"
    assert mislabelled("png", b"") == "empty (no bytes at all)"
    assert describe(b"\x00\x11\x22\x33\xde\xad\xbe\xef\x01") == (
        "unrecognised binary data (starting 00 11 22 33 de ad be ef)"
    )
    assert describe(b"\x00\x00\x00\x18ftypheic\x00\x00").endswith("brand 'heic'")


def test_formats_without_a_signature_are_not_checked() -> None:
    png = REAL["png"]()
    for fmt in ("md", "html", "svg", "csv", "txt", "mp3", "doc", "xls", "ts"):
        assert mislabelled(fmt, png) is None, fmt


def test_the_message_names_the_file_what_its_name_says_and_what_its_bytes_are(tmp_path: Path) -> None:
    photo = tmp_path / "photo.pdf"
    photo.write_bytes(REAL["png"]())
    assert mislabelled_input(photo, "pdf") == (
        "photo.pdf is not a pdf file: its extension says pdf (a PDF document), but its bytes are a PNG "
        "image. Rename it to .png or set input_format to png."
    )
    notes = tmp_path / "notes.docx"
    notes.write_text("just some words\n")
    message = mislabelled_input(notes, "docx", "input_format")
    assert message is not None
    assert message.startswith("notes.docx is not a docx file: input_format says docx (a zip archive")
    assert message.endswith("but its bytes are text. Check that the right file was uploaded.")
    real = tmp_path / "real.png"
    real.write_bytes(REAL["png"]())
    assert mislabelled_input(real, "png") is None
