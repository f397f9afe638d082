"""PDF optimize (Ghostscript, qpdf) and PDF pages to images (pdftoppm), on a PDF written here."""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from pypdf import PdfReader

from mcv_pipelines.service.engines.base import Engine, EngineError, EngineRequest, InputFile
from mcv_pipelines.service.engines.pdf.ghostscript import PROFILES, GhostscriptEngine
from mcv_pipelines.service.engines.pdf.pdftoppm import PdftoppmEngine
from mcv_pipelines.service.engines.pdf.qpdf import QpdfEngine

RequireEngine = Callable[..., Engine]


def write_pdf(path: Path, pages: int) -> Path:
    """A small PDF (A6-ish pages, 300x420 pt) with "Page N" written on each page."""
    objects: list[bytes] = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"",  # the page tree, filled in below
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    kids = []
    for number in range(1, pages + 1):
        stream = f"BT /F1 36 Tf 40 300 Td (Page {number}) Tj ET".encode()
        objects.append(b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream))
        content = len(objects)
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 420] /Contents %d 0 R "
            b"/Resources << /Font << /F1 3 0 R >> >> >>" % content
        )
        kids.append(b"%d 0 R" % len(objects))
    objects[1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (b" ".join(kids), pages)
    body = bytearray(b"%PDF-1.4\n")
    offsets = []
    for index, obj in enumerate(objects, start=1):
        offsets.append(len(body))
        body += b"%d 0 obj\n%s\nendobj\n" % (index, obj)
    xref = len(body)
    body += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    body += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    body += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(bytes(body))
    return path


def make_request(
    tmp_path: Path, operation: str, source: Path, output_format: str, options: Mapping[str, Any] | None = None
) -> EngineRequest:
    return EngineRequest(
        operation=operation,
        input_format="pdf",
        output_format=output_format,
        options=dict(options or {}),
        inputs=[InputFile("upload", source)],
        output_dir=tmp_path / "out",
        work_dir=tmp_path / "work",
        timeout=60,
    )


def page_texts(path: Path) -> list[str]:
    return [page.extract_text() for page in PdfReader(path).pages]


@pytest.fixture
def document(tmp_path: Path) -> Path:
    return write_pdf(tmp_path / "in" / "report.pdf", pages=3)


@pytest.fixture
def broken(tmp_path: Path) -> Path:
    path = tmp_path / "in" / "broken.pdf"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"%!PS-Adobe-3.0\n(not a pdf) print\n")
    return path


@pytest.mark.parametrize("profile", list(PROFILES))
def test_ghostscript_optimize_keeps_pages_and_text(
    require_engine: RequireEngine, document: Path, tmp_path: Path, profile: str
) -> None:
    require_engine("ghostscript")
    result = GhostscriptEngine().run(
        make_request(tmp_path, "optimize", document, "pdf", {"profile": profile})
    )
    assert [f.name for f in result.files] == ["report.pdf"]
    texts = page_texts(result.files[0])
    assert len(texts) == 3
    assert "Page 2" in texts[1]


def test_ghostscript_unknown_profile_is_refused(
    require_engine: RequireEngine, document: Path, tmp_path: Path
) -> None:
    require_engine("ghostscript")
    with pytest.raises(EngineError) as caught:
        GhostscriptEngine().run(make_request(tmp_path, "optimize", document, "pdf", {"profile": "mrc"}))
    assert caught.value.code == "INVALID_OPTION"
    assert "profile" in caught.value.message


def test_qpdf_optimize_linearizes(require_engine: RequireEngine, document: Path, tmp_path: Path) -> None:
    qpdf = str(require_engine("qpdf").program)  # type: ignore[attr-defined]  # a program engine: it has .program
    result = QpdfEngine().run(make_request(tmp_path, "optimize", document, "pdf"))
    assert len(page_texts(result.files[0])) == 3
    check = subprocess.run(
        [qpdf, "--check-linearization", str(result.files[0])], capture_output=True, text=True
    )
    assert "no linearization errors" in check.stdout


@pytest.mark.parametrize("engine_class", [GhostscriptEngine, QpdfEngine, PdftoppmEngine])
def test_a_file_that_is_not_a_pdf_is_refused(
    require_engine: RequireEngine, broken: Path, tmp_path: Path, engine_class: type
) -> None:
    names = {"GhostscriptEngine": "ghostscript", "QpdfEngine": "qpdf", "PdftoppmEngine": "poppler"}
    require_engine(names[engine_class.__name__])
    operation, output = ("convert", "png") if engine_class is PdftoppmEngine else ("optimize", "pdf")
    with pytest.raises(EngineError) as caught:
        engine_class().run(make_request(tmp_path, operation, broken, output))
    assert caught.value.code == "INVALID_INPUT"
    assert "broken.pdf is not a PDF" in caught.value.message
    assert not any((tmp_path / "out").glob("*"))


def test_every_page_becomes_a_numbered_png(
    require_engine: RequireEngine, document: Path, tmp_path: Path
) -> None:
    require_engine("poppler")
    result = PdftoppmEngine().run(make_request(tmp_path, "convert", document, "png", {"pixel_density": 72}))
    assert [f.name for f in result.files] == ["report-1.png", "report-2.png", "report-3.png"]
    with Image.open(result.files[0]) as image:
        assert image.size == (300, 420)  # 72 dpi: one pixel per point


def test_page_selection_and_filename_pattern(
    require_engine: RequireEngine, document: Path, tmp_path: Path
) -> None:
    require_engine("poppler")
    options = {"pages": "2-3", "width": 150, "filename": "slide-%d.jpg"}
    result = PdftoppmEngine().run(make_request(tmp_path, "convert", document, "jpg", options))
    assert [f.name for f in result.files] == ["slide-1.jpg", "slide-2.jpg"]
    with Image.open(result.files[1]) as image:
        assert (image.format, image.size) == ("JPEG", (150, 210))


def test_single_page_keeps_the_plain_name(
    require_engine: RequireEngine, document: Path, tmp_path: Path
) -> None:
    require_engine("poppler")
    result = PdftoppmEngine().run(make_request(tmp_path, "convert", document, "png", {"page_range": "3"}))
    assert [f.name for f in result.files] == ["report.png"]


def test_pages_outside_the_document_are_refused(
    require_engine: RequireEngine, document: Path, tmp_path: Path
) -> None:
    require_engine("poppler")
    with pytest.raises(EngineError) as caught:
        PdftoppmEngine().run(make_request(tmp_path, "convert", document, "png", {"pages": "4-5"}))
    assert caught.value.code == "INVALID_OPTION"
    assert "3 pages" in caught.value.message


def test_pdf_thumbnail_is_the_first_page(
    require_engine: RequireEngine, document: Path, tmp_path: Path
) -> None:
    require_engine("poppler")
    result = PdftoppmEngine().run(make_request(tmp_path, "thumbnail", document, "png", {"height": 100}))
    assert len(result.files) == 1
    with Image.open(result.files[0]) as image:
        assert image.height == 100
