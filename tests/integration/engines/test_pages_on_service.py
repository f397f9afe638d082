"""Pages and books through the service: DjVu (djvulibre), XPS and OpenXPS (MuPDF), comic archives,
CHM (chmlib, then Calibre).

What a user notices: every page comes out, in order, at the size asked; the text layer comes through;
comic pages come out in natural order (page2 before page10) with what is not a picture left out; a
document that names files outside itself fails with a clear error.
"""

from __future__ import annotations

import re
import subprocess
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from engine_job_helpers import b64_import, download_all, run_job, task_named
from PIL import Image
from pypdf import PdfReader

from chm_sample import chm_document
from comic_samples import comic_archive, page_picture, sample_members
from djvu_sample import djvu_document
from mcv_pipelines.service.engines.base import Engine
from xps_sample import xps_document

RequireEngine = Callable[..., Engine]


def _convert(target: str, **options: object) -> dict[str, object]:
    return {"operation": "convert", "input": "in", "output_format": target, **options}


def _job(client: httpx.Client, source: Path, tasks: dict[str, Any]) -> dict[str, Any]:
    return run_job(
        client,
        {"in": b64_import(source), **tasks, "export": {"operation": "export/url", "input": list(tasks)}},
    )


@pytest.fixture
def djvu(require_program: Callable[..., str], tmp_path: Path) -> Path:
    for encoder in ("cjb2", "c44", "djvm", "djvused"):
        require_program(encoder)
    return djvu_document(tmp_path / "scan.djvu", ["Quokka", "Wombat", "Numbat"])


def test_djvu_pages_text_and_pdf(
    djvu: Path, require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("djvulibre", "convert", "djvu", "png")
    job = _job(
        client,
        djvu,
        {
            "png": _convert("png", pages="2-", pixel_density=50),
            "txt": _convert("txt"),
            "pdf": _convert("pdf"),
        },
    )
    assert task_named(job, "png")["engine"] == "djvulibre"
    files = download_all(job, tmp_path / "out")
    assert sorted(files) == ["scan-1.png", "scan-2.png", "scan.pdf", "scan.txt"]
    with Image.open(files["scan-1.png"]) as second, Image.open(files["scan-2.png"]) as third:
        assert second.size == third.size == (200, 150)  # 400x300 at 100 dpi, asked at 50
        assert second.convert("RGB").getpixel((40, 30)) != (255, 255, 255)  # page 2's block
        assert third.convert("L").getpixel((40, 30)) == 0  # page 3 is bilevel: its block is black
    assert re.findall(r"\w+", files["scan.txt"].read_text()) == ["Quokka", "Wombat", "Numbat"]
    assert len(PdfReader(files["scan.pdf"]).pages) == 3


def _indirect(djvu: Path, tmp_path: Path) -> Path:
    """The bundled document split into an index and a file per page by djvulibre's djvmcvt."""
    pages = tmp_path / "indirect"
    pages.mkdir()
    subprocess.run(["djvmcvt", "-i", str(djvu), str(pages), "index.djvu"], check=True, capture_output=True)
    return pages / "index.djvu"


def test_djvu_naming_other_files_fails_clearly(
    djvu: Path, require_engine: RequireEngine, require_program: Callable[..., str], client: httpx.Client,
    tmp_path: Path,
) -> None:  # fmt: skip
    require_engine("djvulibre", "convert", "djvu", "pdf")
    require_program("djvmcvt")
    job = run_job(client, {"in": b64_import(_indirect(djvu, tmp_path)), "pdf": _convert("pdf")})
    task = task_named(job, "pdf")
    assert task["code"] == "INVALID_INPUT_FILE"
    assert "index.djvu is an indirect DjVu document" in task["message"]


@pytest.mark.parametrize("kind", ["xps", "oxps"])
def test_xps_to_pdf_png_jpg_svg_and_txt(
    kind: str, require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("mupdf", "convert", kind, "pdf")
    source = tmp_path / f"letter.{kind}"
    source.write_bytes(xps_document(["Quokka notes", "Second page"], kind))
    job = _job(
        client,
        source,
        {
            "pdf": _convert("pdf"),
            "png": _convert("png", pages="2"),
            "jpg": _convert("jpg", pixel_density=48, pages="1"),
            "svg": _convert("svg"),
            "txt": _convert("txt"),
        },
    )
    assert task_named(job, "pdf")["engine"] == "mupdf"
    files = download_all(job, tmp_path / "out")
    reader = PdfReader(files["letter.pdf"])
    assert [page.extract_text().strip() for page in reader.pages] == ["Quokka notes", "Second page"]
    with Image.open(files["letter.png"]) as png, Image.open(files["letter.jpg"]) as jpg:
        assert png.size == (816, 528)  # the page's own size at 96 dpi
        assert png.convert("RGB").getpixel((100, 100)) == (0x1D, 0x4E, 0xD8)
        assert (jpg.format, jpg.size) == ("JPEG", (408, 264))
    assert b"<svg" in files["letter-1.svg"].read_bytes()
    assert "letter-2.svg" in files
    assert files["letter.txt"].read_text().split() == ["Quokka", "notes", "Second", "page"]


def _widths_of_pdf(path: Path) -> list[float]:
    return [float(page.mediabox.width) for page in PdfReader(path).pages]


@pytest.mark.parametrize("kind", ["cbz", "cbr", "cbt", "cb7"])
def test_a_comic_comes_out_in_natural_order(
    kind: str, require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("comics", "convert", kind, "pdf")
    source = tmp_path / f"issue.{kind}"
    source.write_bytes(comic_archive(kind, sample_members()))
    targets = ["pdf", "epub"] if kind == "cbz" else ["pdf", "epub", "cbz"]
    job = _job(client, source, {target: _convert(target) for target in targets})
    assert task_named(job, "pdf")["engine"] == "comics"
    files = download_all(job, tmp_path / "out")
    # pages 1, 2 and 10 are 110, 120 and 130 pixels wide: at 96 dpi 82.5, 90 and 97.5 points
    assert _widths_of_pdf(files["issue.pdf"]) == [82.5, 90.0, 97.5]
    if kind != "cbz":  # (no cbz -> cbz is listed)
        with zipfile.ZipFile(files["issue.cbz"]) as archive:
            assert archive.namelist() == ["0001-page1.png", "0002-page2.jpg", "0003-page10.png"]
            assert archive.read("0002-page2.jpg") == page_picture(2, "JPEG")  # the picture as it was
    with zipfile.ZipFile(files["issue.epub"]) as book:
        assert book.namelist()[0] == "mimetype"
        package = book.read("OEBPS/content.opf").decode()
        assert '<meta property="rendition:layout">pre-paginated</meta>' in package
        assert re.findall(r'<itemref idref="(\w+)"/>', package) == ["p1", "p2", "p3"]
        viewports = [re.search(r'content="width=(\d+)', book.read(f"OEBPS/page000{n}.xhtml").decode())
                     for n in (1, 2, 3)]  # fmt: skip
        assert [m.group(1) for m in viewports if m] == ["110", "120", "130"]


def test_a_comic_without_pictures_fails_clearly(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("comics", "convert", "cbz", "pdf")
    source = tmp_path / "notes.cbz"
    source.write_bytes(comic_archive("cbz", [("ComicInfo.xml", b"<ComicInfo/>"), ("read.txt", b"hi")]))
    job = run_job(client, {"in": b64_import(source), "pdf": _convert("pdf")})
    task = task_named(job, "pdf")
    assert task["code"] == "INVALID_INPUT_FILE"
    assert task["message"] == "notes.cbz holds no pictures (jpg, png, gif, webp, bmp, tiff)"


def _chm_pages() -> list[tuple[str, str, str]]:
    """Two pages whose order in the contents (zeta, then alpha) is not their names' order."""
    return [
        (
            "zeta.html",
            "Start",
            '<html><body><h1>Quokka notes</h1><a href="alpha.html">next</a></body></html>',
        ),
        (
            "alpha.html",
            "Two",
            "<html><body><p>Wombat page.</p><script>document.write('x')</script></body></html>",
        ),
    ]


def test_chm_to_epub_and_txt_in_contents_order(
    require_engine: RequireEngine, require_conversion: Callable[..., Engine], client: httpx.Client,
    tmp_path: Path,
) -> None:  # fmt: skip
    require_engine("chmlib", "convert", "chm", "htmlz")
    require_conversion("convert", "chm", "txt")
    source = tmp_path / "guide.chm"
    source.write_bytes(chm_document(_chm_pages(), "Quokka guide"))
    job = _job(client, source, {"txt": _convert("txt"), "htmlz": _convert("htmlz")})
    assert task_named(job, "txt")["engine"] == "chmlib"
    files = download_all(job, tmp_path / "out")
    assert re.findall(r"\w+", files["guide.txt"].read_text()) == ["Quokka", "notes", "next", "Wombat", "page"]
    with zipfile.ZipFile(files["guide.htmlz"]) as book:
        index = book.read("index.html").decode()
    assert "<title>Quokka guide</title>" in index
    assert '<a href="#page-alpha-html">next</a>' in index  # a link between pages, now within the book
    assert "<script" not in index


def test_chm_naming_a_member_outside_fails_clearly(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("chmlib", "convert", "chm", "htmlz")
    source = tmp_path / "climb.chm"
    source.write_bytes(chm_document([*_chm_pages(), ("../../escaped.html", "Out", "<p>out</p>")]))
    job = run_job(client, {"in": b64_import(source), "htmlz": _convert("htmlz")})
    task = task_named(job, "htmlz")
    assert task["code"] == "INVALID_INPUT_FILE"
    assert task["message"] == "climb.chm holds a member that climbs out of it (/../../escaped.html)"
