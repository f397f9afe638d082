"""What a user finds in the download folder of each example of issue 23's new families."""

from __future__ import annotations

import tarfile
import zipfile
from collections.abc import Callable
from pathlib import Path

import py7zr
from engine_job_helpers import ASSETS
from fontTools.ttLib import TTFont
from PIL import Image
from pypdf import PdfReader

__all__ = ["NEW_FAMILY_CHECKS"]

Outputs = dict[str, Path]


def _zip_text(path: Path, member: str) -> str:
    with zipfile.ZipFile(path) as archive:
        return archive.read(member).decode("utf-8")


def _docs_to_web(out: Outputs) -> None:
    assert set(out) == {"notes.html", "notes.docx", "notes.odt"}
    page = out["notes.html"].read_text()
    assert "<title>Field notes</title>" in page
    assert "<table>" in page
    assert "Rottnest" in _zip_text(out["notes.docx"], "word/document.xml")
    assert "Rottnest" in _zip_text(out["notes.odt"], "content.xml")


def _ebook(out: Outputs) -> None:
    assert set(out) == {"notes.epub", "notes.mobi", "notes.azw3", "notes.pdf"}
    assert _zip_text(out["notes.epub"], "mimetype") == "application/epub+zip"
    for kindle in ("notes.mobi", "notes.azw3"):
        assert out[kindle].read_bytes()[60:68] == b"BOOKMOBI"
    text = " ".join(page.extract_text() for page in PdfReader(out["notes.pdf"]).pages)
    assert "Rottnest" in text


def _vector(out: Outputs) -> None:
    with Image.open(out["badge.png"]) as png:
        assert png.size == (320, 128)  # the badge is 160 x 64
    assert len(PdfReader(out["badge.pdf"]).pages) == 1
    traced = out["logo.svg"].read_text()
    assert "<path" in traced
    assert "<image" not in traced


def _models(out: Outputs) -> None:
    glb = out["cube.glb"].read_bytes()
    assert glb[:4] == b"glTF"
    assert int.from_bytes(glb[8:12], "little") == len(glb)
    stl = out["cube.stl"].read_bytes()
    # a cube's 6 quads are 12 triangles: binary STL (80-byte header, count, 50 bytes each) or ASCII
    if stl[:5] == b"solid" and b"facet" in stl:
        assert stl.count(b"facet normal") == 12
    else:
        assert int.from_bytes(stl[80:84], "little") == 12
        assert len(stl) == 84 + 12 * 50
    dae = out["cube.dae"].read_text()
    assert "<COLLADA" in dae
    assert "<mesh>" in dae


def _fonts(out: Outputs) -> None:
    assert out["boxes.woff2"].read_bytes()[:4] == b"wOF2"
    assert out["boxes.woff"].read_bytes()[:4] == b"wOFF"
    with TTFont(out["boxes.woff2"]) as font:
        assert font.flavor == "woff2"
        assert set(font.getBestCmap().values()) == {"H", "I", "O"}


def _photo(out: Outputs) -> None:
    assert out["photo.jxl"].read_bytes()[:2] == b"\xff\x0a"
    assert out["photo.heic"].read_bytes()[4:12] == b"ftypheic"
    with Image.open(out["photo.avif"]) as avif, Image.open(ASSETS / "photo.jpg") as jpg:
        assert avif.size == jpg.size


def _gif(out: Outputs) -> None:
    for name, kind in (("clip.gif", "GIF"), ("clip.webp", "WEBP")):
        with Image.open(out[name]) as animation:
            assert animation.format == kind
            assert animation.size[0] == 120
            assert getattr(animation, "n_frames", 1) > 5


def _archives(out: Outputs) -> None:
    members = ["pages.pdf", "photo.jpg"]
    with py7zr.SevenZipFile(out["bundle.7z"]) as sevenzip:
        assert sorted(sevenzip.getnames()) == members
    with tarfile.open(out["bundle.tar.xz"]) as tarred:
        assert sorted(tarred.getnames()) == members


def _pdf_text(out: Outputs) -> None:
    assert "Page 2 of 2" in out["pages.txt"].read_text()
    assert "<html" in out["pages.html"].read_text()


NEW_FAMILY_CHECKS: dict[str, Callable[[Outputs], None]] = {
    "docs-to-web": _docs_to_web,
    "ebook-from-markdown": _ebook,
    "vector-assets": _vector,
    "web-fonts": _fonts,
    "photo-formats": _photo,
    "video-to-gif": _gif,
    "archive-repack": _archives,
    "pdf-to-text": _pdf_text,
    "model-formats": _models,
}
