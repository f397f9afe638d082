"""Ghostscript, pdftoppm, LibreOffice and Chromium through the service; the produced files checked."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
from engine_job_helpers import ASSETS, b64_import, download_all, run_job
from PIL import Image
from pypdf import PdfReader

from mcv_pipelines.service.engines.base import Engine

RequireEngine = Callable[..., Engine]

PAGE = """<!doctype html><html><head><title>Capture me</title>
<style>body{background:#1d4ed8;color:#fff;font:32px sans-serif;margin:40px}</style></head>
<body><h1>Loopback capture page</h1><p>Served by a test on 127.0.0.1.</p></body></html>"""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    root = tmp_path_factory.mktemp("site")
    (root / "index.html").write_text(PAGE)

    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            del format, args

    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(Quiet, directory=str(root)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/index.html"
    server.shutdown()
    server.server_close()


def test_ghostscript_optimize_web(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("ghostscript")
    job = run_job(
        client,
        {
            "pdf": b64_import(ASSETS / "pages.pdf"),
            "small": {"operation": "optimize", "input": "pdf", "engine": "ghostscript", "profile": "web"},
            "export": {"operation": "export/url", "input": "small"},
        },
    )
    small = next(task for task in job["tasks"] if task["name"] == "small")
    assert small["engine"] == "ghostscript"
    [path] = download_all(job, tmp_path).values()
    reader = PdfReader(path)
    assert len(reader.pages) == 2
    assert "Producer" in str(reader.metadata) or reader.metadata is not None
    original = PdfReader(ASSETS / "pages.pdf").pages[0].extract_text().split()
    assert original[0] in reader.pages[0].extract_text()


def test_pdftoppm_makes_one_png_per_page(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("poppler")
    job = run_job(
        client,
        {
            "pdf": b64_import(ASSETS / "pages.pdf"),
            "pngs": {
                "operation": "convert", "input": "pdf", "output_format": "png",
                "pixel_density": 36, "filename": "page-%d.png",
            },
            "export": {"operation": "export/url", "input": "pngs"},
        },
    )  # fmt: skip
    files = download_all(job, tmp_path)
    assert sorted(files) == ["page-1.png", "page-2.png"]
    for path in files.values():
        with Image.open(path) as image:
            assert image.format == "PNG"
            assert image.size == (210, 298)  # A5 (5.83 x 8.27 in) at 36 dpi, not the default 150


def test_office_documents_to_pdf(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    for source in ("docx", "txt", "csv"):
        require_engine("libreoffice", "convert", source, "pdf")
    sources = tmp_path / "src"
    sources.mkdir()
    (sources / "notes.txt").write_text("Plain text notes\nsecond line\n")
    (sources / "table.csv").write_text("city,visits\nLyon,12\nOslo,7\n")
    job = run_job(
        client,
        {
            "docx": b64_import(ASSETS / "letter.docx"),
            "txt": b64_import(sources / "notes.txt"),
            "csv": b64_import(sources / "table.csv"),
            **{
                f"{n}-pdf": {"operation": "convert", "input": n, "output_format": "pdf"}
                for n in ("docx", "txt", "csv")
            },
            "export": {"operation": "export/url", "input": ["docx-pdf", "txt-pdf", "csv-pdf"]},
        },
    )
    files = download_all(job, tmp_path / "out")
    assert set(files) == {"letter.pdf", "notes.pdf", "table.pdf"}
    texts = {name: " ".join(p.extract_text() for p in PdfReader(path).pages) for name, path in files.items()}
    assert "Plain text notes" in texts["notes.pdf"]
    assert "Lyon" in texts["table.pdf"]
    assert "Oslo" in texts["table.pdf"]
    assert texts["letter.pdf"].strip()


def test_capture_website_png_and_pdf(
    require_engine: RequireEngine, client: httpx.Client, site: str, tmp_path: Path
) -> None:
    require_engine("chromium")
    job = run_job(
        client,
        {
            "shot": {
                "operation": "capture-website", "url": site, "output_format": "png",
                "screen_width": 640, "screen_height": 400, "filename": "shot.png",
            },
            "print": {
                "operation": "capture-website", "url": site, "output_format": "pdf", "filename": "page.pdf",
            },
            "export": {"operation": "export/url", "input": ["shot", "print"]},
        },
    )  # fmt: skip
    files = download_all(job, tmp_path)
    with Image.open(files["shot.png"]) as shot:
        assert shot.size == (640, 400)
        colors = shot.convert("RGB").getcolors(maxcolors=1 << 20) or []
        assert len(colors) > 2  # text on a background, not a blank page
        _, dominant = max(colors)
        assert dominant == (0x1D, 0x4E, 0xD8)  # the page's own background colour
    text = " ".join(PdfReader(files["page.pdf"]).pages[0].extract_text().split())
    assert "Loopback capture page" in text


def test_format_names_as_users_write_them(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("poppler")
    job = run_job(
        client,
        {
            "pdf": b64_import(ASSETS / "pages.pdf", "Pages.PDF"),
            "jpegs": {"operation": "convert", "input": "pdf", "output_format": "JPEG", "pixel_density": 36},
            "export": {"operation": "export/url", "input": ["jpegs"]},
        },
    )
    files = download_all(job, tmp_path)
    assert sorted(files) == ["Pages-1.jpg", "Pages-2.jpg"]
    for path in files.values():
        with Image.open(path) as image:
            assert image.format == "JPEG"
