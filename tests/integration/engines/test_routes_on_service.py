"""Routes on the real service: the everyday pairs no single engine makes (svg, docx, pdf, html and epub
to pictures), every page of a document as its own picture, options reaching the hop they shape, a hop
that fails named in the task's error, and the listing that shows the routes. Samples are made by other
programs (Pandoc writes the docx and epub, the bundled assets) and outputs read by independent readers:
pdfinfo counts the pages a document has, Pillow or ImageMagick's identify reads the pictures."""

from __future__ import annotations

import base64
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from engine_job_helpers import ASSETS, b64_import, download_all, run_job, task_named
from PIL import Image

from engine_needs import require_engine
from mcv_pipelines.service.engines.base import Engine

RequireEngine = Callable[..., Engine]

# Three pages, made by Pandoc: raw page breaks between the headings
_BREAK = '<w:p><w:r><w:br w:type="page"/></w:r></w:p>'
_THREE_PAGES = "\n\n".join(
    f"# Part {n}\n\nQuokkas on page {n}.\n\n```{{=openxml}}\n{_BREAK}\n```"
    for n in (1, 2)
) + "\n\n# Part 3\n\nQuokkas on page 3.\n"


def _route(source: str, target: str, *engines: str) -> None:
    for engine in engines:
        require_engine(engine)
    require_engine("route", "convert", source, target)


def _convert(source: str, target: str, **options: Any) -> dict[str, Any]:
    return {"operation": "convert", "input": source, "output_format": target, **options}


def _pdf_pages(path: Path) -> int:
    info = subprocess.run(["pdfinfo", str(path)], capture_output=True, text=True, check=True).stdout
    return int(next(line.split()[1] for line in info.splitlines() if line.startswith("Pages:")))


def _picture(path: Path) -> tuple[str, tuple[int, int]]:
    with Image.open(path) as image:
        image.load()
        return str(image.format), image.size


def _names(files: dict[str, Path], suffix: str) -> list[str]:
    return sorted(name for name in files if name.endswith(suffix))


def test_a_drawing_and_a_web_page_become_jpg_and_webp(client: httpx.Client, tmp_path: Path) -> None:
    _route("svg", "jpg", "librsvg", "pillow")
    _route("html", "jpg", "chromium", "pillow")
    job = run_job(client, {
        "svg": b64_import(ASSETS / "badge.svg"),
        "html": b64_import(ASSETS / "capture.html"),
        "svg-png": _convert("svg", "png"),  # librsvg alone: the size the picture must keep
        "svg-jpg": _convert("svg", "jpg", quality=90),
        "svg-webp": _convert("svg", "webp"),
        "html-jpg": _convert("html", "jpg"),
        "export": {"operation": "export/url", "input": ["svg-png", "svg-jpg", "svg-webp", "html-jpg"]},
    })  # fmt: skip
    assert task_named(job, "svg-jpg")["engine"] == "librsvg+pillow"
    assert task_named(job, "html-jpg")["engine"] == "chromium+pillow"
    versions = task_named(job, "svg-jpg")["engine_version"].split("+")
    assert versions == [require_engine("librsvg").version(), require_engine("pillow").version()]
    files = download_all(job, tmp_path / "out")
    _, size = _picture(files["badge.png"])
    assert _picture(files["badge.jpg"]) == ("JPEG", size)
    assert _picture(files["badge.webp"]) == ("WEBP", size)
    assert _picture(files["capture.jpg"])[0] == "JPEG"


def test_every_page_of_a_document_becomes_its_own_picture(client: httpx.Client, tmp_path: Path) -> None:
    _route("docx", "jpg", "pandoc", "libreoffice", "poppler")
    _route("docx", "webp", "libreoffice", "poppler", "pillow")
    _route("pdf", "tiff", "poppler", "pillow")
    job = run_job(client, {
        "md": {"operation": "import/base64", "file": base64.b64encode(_THREE_PAGES.encode()).decode(),
               "filename": "parts.md"},
        "docx": _convert("md", "docx", engine="pandoc"),
        "pdf": _convert("docx", "pdf"),
        "jpg": _convert("docx", "jpg"),
        "png": _convert("docx", "png"),
        "webp": _convert("docx", "webp", width=200),
        "first": _convert("docx", "webp", pages="1", filename="cover.webp"),
        "pages": b64_import(ASSETS / "pages.pdf"),
        "tiff": _convert("pages", "tiff"),
        "export": {"operation": "export/url", "input": ["pdf", "jpg", "png", "webp", "first", "tiff"]},
    })  # fmt: skip
    assert task_named(job, "jpg")["engine"] == "libreoffice+poppler"
    assert task_named(job, "webp")["engine"] == "libreoffice+poppler+pillow"
    assert task_named(job, "tiff")["engine"] == "poppler+pillow"
    files = download_all(job, tmp_path / "out")
    pages = _pdf_pages(files["parts.pdf"])
    assert pages == 3
    for suffix, kind in ((".jpg", "JPEG"), (".png", "PNG"), (".webp", "WEBP")):
        made = [name for name in _names(files, suffix) if name != "cover.webp"]
        assert made == [f"parts-{n}{suffix}" for n in range(1, pages + 1)], suffix
        assert {_picture(files[name])[0] for name in made} == {kind}
    assert {_picture(files[name])[1][0] for name in _names(files, ".webp") if name != "cover.webp"} == {200}
    assert "cover.webp" in files  # pages=1 to the page renderer: one picture, under the name asked for
    assert len(_names(files, ".webp")) == pages + 1
    numbers = range(1, _pdf_pages(ASSETS / "pages.pdf") + 1)
    assert _names(files, ".tiff") == [f"pages-{n}.tiff" for n in numbers]


def test_a_book_becomes_pictures_of_its_pages(client: httpx.Client, tmp_path: Path) -> None:
    _route("epub", "jpg", "pandoc", "calibre", "poppler")
    job = run_job(client, {
        "md": {"operation": "import/base64", "file": base64.b64encode(b"# Quokkas\n\nA book.\n").decode(),
               "filename": "book.md"},
        "epub": _convert("md", "epub", engine="pandoc"),
        "jpg": _convert("epub", "jpg"),
        "export": {"operation": "export/url", "input": ["jpg"]},
    })  # fmt: skip
    assert task_named(job, "jpg")["engine"] == "calibre+poppler"
    files = download_all(job, tmp_path / "out")
    assert files
    assert {_picture(path)[0] for path in files.values()} == {"JPEG"}


def test_a_hop_that_fails_names_itself(client: httpx.Client, tmp_path: Path) -> None:
    _route("pdf", "tiff", "poppler", "pillow")
    broken = (ASSETS / "pages.pdf").read_bytes()[:400]  # a PDF cut short: its header and no pages
    job = run_job(client, {
        "pdf": {"operation": "import/base64", "file": base64.b64encode(broken).decode(),
                "filename": "cut.pdf"},
        "tiff": _convert("pdf", "tiff"),
    })  # fmt: skip
    failed = task_named(job, "tiff")
    assert failed["status"] == "error"
    assert failed["message"].startswith("hop 1 of 2 (poppler pdf -> png): "), failed["message"]


def test_the_listing_shows_routes_with_their_options_and_moves_no_pair(client: httpx.Client) -> None:
    _route("docx", "jpg", "libreoffice", "poppler")
    listed = client.get("/v2/operations", params={"filter[operation]": "convert", "include": "options",
                                                  "alternatives": "true"}).json()["data"]  # fmt: skip
    entries = {(e["input_format"], e["output_format"], e["engine"]): e for e in listed}
    routed = {(i, o) for i, o, engine in entries if "+" in engine}
    direct = {(i, o) for i, o, engine in entries if "+" not in engine}
    assert routed
    assert not routed & direct  # a pair any engine converts alone is never routed
    jpg = entries[("docx", "jpg", "libreoffice+poppler")]
    assert jpg["meta"]["route"] == "docx -> pdf -> jpg"
    options = {option["name"] for option in jpg["options"]}
    assert {"pages", "pixel_density", "width", "height"} <= options
    assert "quality" not in options  # poppler's JPEG takes none, and LibreOffice's is for the PDF's pictures
    webp = entries[("docx", "webp", "libreoffice+poppler+pillow")]
    assert "quality" in {option["name"] for option in webp["options"]}


@pytest.mark.parametrize("target", ["jpg"])
def test_an_engine_named_for_one_hop_does_not_pick_a_route(
    client: httpx.Client, tmp_path: Path, target: str
) -> None:
    _route("svg", target, "librsvg", "pillow")
    job = run_job(client, {"svg": b64_import(ASSETS / "badge.svg"),
                           "out": _convert("svg", target, engine="librsvg")})  # fmt: skip
    refused = task_named(job, "out")
    assert refused["code"] == "UNSUPPORTED_CONVERSION"
    assert "with engine librsvg" in refused["message"]
