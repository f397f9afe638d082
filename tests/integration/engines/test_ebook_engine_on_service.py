"""Calibre through the service: EPUB to MOBI and PDF; a hostile EPUB gets nothing from outside."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Callable
from pathlib import Path

import httpx
from engine_job_helpers import b64_import, download_all, run_job, task_named
from epub_sample import write_epub
from hostile_origin import listening_origin
from PIL import Image
from pypdf import PdfReader

from mcv_pipelines.service.engines.base import Engine

RequireEngine = Callable[..., Engine]
RED = (255, 0, 0)


def test_epub_to_mobi_and_pdf(require_engine: RequireEngine, client: httpx.Client, tmp_path: Path) -> None:
    require_engine("calibre", "convert", "epub", "pdf")
    chapter = "<h1>Chapter one</h1><p>It was a dark night.</p>"
    book = write_epub(tmp_path / "novel.epub", "A Short Novel", chapter)
    job = run_job(
        client,
        {
            "epub": b64_import(book),
            "mobi": {"operation": "convert", "input": "epub", "output_format": "mobi"},
            "pdf": {"operation": "convert", "input": "epub", "output_format": "pdf"},
            "export": {"operation": "export/url", "input": ["mobi", "pdf"]},
        },
    )
    assert task_named(job, "pdf")["engine"] == "calibre"
    files = download_all(job, tmp_path / "out")
    assert files["novel.mobi"].read_bytes()[60:68] == b"BOOKMOBI"
    text = " ".join(page.extract_text() for page in PdfReader(files["novel.pdf"]).pages)
    assert "It was a dark night." in " ".join(text.split())


def test_hostile_epub_embeds_no_local_file_and_fetches_nothing(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("calibre", "convert", "epub", "pdf")
    secret = tmp_path / "secret.png"
    Image.new("RGB", (300, 300), RED).save(secret)
    with listening_origin() as origin:
        body = (
            f'<p><img src="file://{secret}" alt="a"/><img src="{secret}" alt="b"/>'
            f'<img src="{origin.url}/pixel.png" alt="c"/></p><p>Visible text.</p>'
        )
        book = write_epub(tmp_path / "hostile.epub", "Hostile", body)
        job = run_job(
            client,
            {
                "epub": b64_import(book),
                "pdf": {"operation": "convert", "input": "epub", "output_format": "pdf"},
                "export": {"operation": "export/url", "input": ["pdf"]},
            },
        )
        pdf = download_all(job, tmp_path / "out")["hostile.pdf"]
        assert origin.paths == []
    for page in PdfReader(pdf).pages:
        for image in page.images:
            colors = image.image.convert("RGB").getcolors(1 << 20) or []
            assert RED not in {color for _, color in colors}


def test_comic_archive_to_epub_keeps_its_pages(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    """Issue 23, breadth: a cbz (a zip of page pictures) becomes an EPUB with a picture per page, through
    Calibre when it is asked for (the comics engine is the default for cbz -> epub and has its own tests)."""
    require_engine("calibre", "convert", "cbz", "epub")
    comic = tmp_path / "strip.cbz"
    with zipfile.ZipFile(comic, "w") as archive:
        for number, colour in enumerate((RED, (0, 0, 255)), start=1):
            page = io.BytesIO()
            Image.new("RGB", (200, 300), colour).save(page, "PNG")
            archive.writestr(f"page{number:02d}.png", page.getvalue())
    job = run_job(
        client,
        {
            "cbz": b64_import(comic),
            "epub": {"operation": "convert", "input": "cbz", "output_format": "epub", "engine": "calibre"},
            "export": {"operation": "export/url", "input": ["epub"]},
        },
    )
    assert task_named(job, "epub")["engine"] == "calibre"
    files = download_all(job, tmp_path / "out")
    with zipfile.ZipFile(files["strip.epub"]) as book:
        pictures = [n for n in book.namelist() if n.lower().endswith((".png", ".jpg", ".jpeg"))]
        assert book.read("mimetype") == b"application/epub+zip"
    assert len(pictures) >= 2, pictures
