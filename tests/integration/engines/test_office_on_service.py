"""LibreOffice's families through the service (documents, spreadsheets, presentations, drawings), each
output checked by its magic bytes or decoded; and linked content that LibreOffice must never fetch."""

from __future__ import annotations

import os
import threading
import zipfile
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
from engine_job_helpers import b64_import, download_all, run_job, task_named
from PIL import Image
from pypdf import PdfReader

from mcv_pipelines.service.engines.base import Engine
from mcv_pipelines.service.engines.office.libreoffice import LibreOfficeEngine
from mcv_pipelines.service.server import LocalService
from office_samples import SAMPLE_TEXT, check_output, linked_picture_docx, write_sample

RequireEngine = Callable[..., Engine]


def convert(source: str, output_format: str, **options: Any) -> dict[str, Any]:
    return {"operation": "convert", "input": source, "output_format": output_format, **options}


def export(*names: str) -> dict[str, Any]:
    return {"operation": "export/url", "input": list(names)}


def sample(tmp_path: Path, fmt: str) -> Path:
    path = write_sample(tmp_path / "src", fmt)
    assert path is not None
    return path


def checked(files: dict[str, Path], name: str) -> Path:
    path = files[name]
    assert check_output(path, path.suffix[1:]) is None, (name, check_output(path, path.suffix[1:]))
    return path


def test_documents_convert_to_each_other(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    for pair in ("fodt:docx", "docx:html", "docx:txt", "docx:odt", "odt:docx", "txt:pdf", "pdf:docx"):
        require_engine("libreoffice", "convert", *pair.split(":"))
    job = run_job(
        client,
        {
            "flat": b64_import(sample(tmp_path, "fodt")),
            "docx": convert("flat", "docx"),
            "html": convert("docx", "html"),
            "txt": convert("docx", "txt"),
            "odt": convert("docx", "odt", filename="round.odt"),
            "back": convert("odt", "docx", filename="round.docx"),
            "memo": b64_import(sample(tmp_path, "txt")),
            "pdf": convert("memo", "pdf"),
            "from-pdf": convert("pdf", "docx", filename="from-pdf.docx"),
            "export": export("html", "txt", "odt", "back", "from-pdf"),
        },
    )
    files = download_all(job, tmp_path / "out")
    assert task_named(job, "docx")["engine"] == "libreoffice"
    assert sorted(files) == ["from-pdf.docx", "round.docx", "round.odt", "sample.html", "sample.txt"]
    assert checked(files, "sample.txt").read_text(encoding="utf-8").strip() == SAMPLE_TEXT
    assert SAMPLE_TEXT in checked(files, "sample.html").read_text(encoding="utf-8")
    checked(files, "round.odt")
    for name in ("round.docx", "from-pdf.docx"):  # the text made it through both ways
        with zipfile.ZipFile(checked(files, name)) as docx:
            assert SAMPLE_TEXT in docx.read("word/document.xml").decode()


def test_spreadsheets_convert_to_each_other(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    for pair in ("csv:xlsx", "xlsx:csv", "xlsx:ods", "fods:csv"):
        require_engine("libreoffice", "convert", *pair.split(":"))
    job = run_job(
        client,
        {
            "csv": b64_import(sample(tmp_path, "csv")),
            "xlsx": convert("csv", "xlsx"),
            "again": convert("xlsx", "csv", filename="again.csv"),
            "ods": convert("xlsx", "ods"),
            "book": b64_import(sample(tmp_path, "fods"), "book.fods"),
            "stock": convert("book", "csv", sheet=2, filename="stock.csv"),
            "export": export("xlsx", "again", "ods", "stock"),
        },
    )
    files = download_all(job, tmp_path / "out")
    checked(files, "sample.xlsx")
    checked(files, "sample.ods")
    assert checked(files, "again.csv").read_text() == (tmp_path / "src" / "sample.csv").read_text()
    assert checked(files, "stock.csv").read_text() == "item,count\ngadget,14\n"


def test_presentations_to_pdf_and_a_picture_per_slide(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    for pair in ("fodp:pptx", "pptx:png", "pptx:pdf", "pptx:odp"):
        require_engine("libreoffice", "convert", *pair.split(":"))
    job = run_job(
        client,
        {
            "flat": b64_import(sample(tmp_path, "fodp"), "deck.fodp"),
            "pptx": convert("flat", "pptx"),
            "slides": convert("pptx", "png", width=400),
            "pdf": convert("pptx", "pdf"),
            "odp": convert("pptx", "odp"),
            "export": export("slides", "pdf", "odp"),
        },
    )
    files = download_all(job, tmp_path / "out")
    assert sorted(files) == ["deck-1.png", "deck-2.png", "deck-3.png", "deck.odp", "deck.pdf"]
    for number in (1, 2, 3):
        with Image.open(checked(files, f"deck-{number}.png")) as slide:
            assert slide.width == 400
    checked(files, "deck.odp")
    pages = PdfReader(checked(files, "deck.pdf")).pages
    assert len(pages) == 3
    assert SAMPLE_TEXT in pages[0].extract_text()


def test_drawings_to_pdf_png_and_metafiles(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    for pair in ("fodg:odg", "odg:pdf", "odg:emf", "emf:png", "odg:svg"):
        require_engine("libreoffice", "convert", *pair.split(":"))
    job = run_job(
        client,
        {
            "flat": b64_import(sample(tmp_path, "fodg"), "plan.fodg"),
            "odg": convert("flat", "odg"),
            "pdf": convert("odg", "pdf"),
            "svg": convert("odg", "svg"),
            "emf": convert("odg", "emf"),
            "png": convert("emf", "png"),
            "export": export("odg", "pdf", "svg", "emf", "png"),
        },
    )
    files = download_all(job, tmp_path / "out")
    assert sorted(files) == ["plan-1.png", "plan.emf", "plan.odg", "plan.pdf", "plan.svg"]
    for name in files:
        checked(files, name)
    assert SAMPLE_TEXT in PdfReader(files["plan.pdf"]).pages[0].extract_text()


class _Listener:
    """An HTTP server on loopback that records every request it gets (none is the pass)."""

    def __init__(self) -> None:
        self.hits: list[str] = []
        hits = self.hits

        class Handler(BaseHTTPRequestHandler):
            def _record(self) -> None:
                hits.append(f"{self.command} {self.path}")
                self.send_response(404)
                self.end_headers()

            do_GET = do_HEAD = do_OPTIONS = do_PROPFIND = do_POST = _record

            def log_message(self, format: str, *args: Any) -> None:
                del format, args

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def listener() -> Iterator[_Listener]:
    found = _Listener()
    yield found
    found.close()


def test_linked_content_is_never_fetched(
    require_engine: RequireEngine, client: httpx.Client, listener: _Listener, tmp_path: Path
) -> None:
    for source in ("docx", "html"):
        require_engine("libreoffice", "convert", source, "pdf")
    tmp_path.joinpath("src").mkdir()
    docx = linked_picture_docx(tmp_path / "src" / "linked.docx", f"{listener.url}/picture.png")
    # a picture on the service's own disk, named by a file: link, must not end up in the output either
    Image.new("RGB", (64, 64), "red").save(tmp_path / "src" / "private.png")
    local = linked_picture_docx(tmp_path / "src" / "local.docx", (tmp_path / "src" / "private.png").as_uri())
    page = tmp_path / "src" / "page.html"
    page.write_text(
        f'<!DOCTYPE html><html><head><link rel="stylesheet" href="{listener.url}/style.css"></head><body>'
        f'<p>{SAMPLE_TEXT}</p><img src="{listener.url}/image.png"><iframe src="{listener.url}/frame.html">'
        f'</iframe><object data="{listener.url}/object.svg"></object></body></html>'
    )
    job = run_job(
        client,
        {
            "docx": b64_import(docx),
            "docx-pdf": convert("docx", "pdf"),
            "docx-html": convert("docx", "html"),
            "html": b64_import(page),
            "html-pdf": convert("html", "pdf"),
            "html-odt": convert("html", "odt"),
            "local": b64_import(local),
            "local-pdf": convert("local", "pdf"),
            "export": export("docx-pdf", "docx-html", "html-pdf", "html-odt", "local-pdf"),
        },
    )
    files = download_all(job, tmp_path / "out")
    assert set(files) == {"linked.pdf", "linked.html", "page.pdf", "page.odt", "local.pdf"}
    assert SAMPLE_TEXT in PdfReader(files["page.pdf"]).pages[0].extract_text()
    assert listener.hits == []
    local_pdf = PdfReader(files["local.pdf"])
    assert SAMPLE_TEXT in local_pdf.pages[0].extract_text()
    assert [image.name for page in local_pdf.pages for image in page.images] == []


def test_a_conversion_past_its_timeout_fails_alone_and_the_next_one_works(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("libreoffice", "convert", "txt", "pdf")
    memo = sample(tmp_path, "txt")
    warm = run_job(client, {"memo": b64_import(memo), "pdf": convert("memo", "pdf")})
    assert warm["status"] == "finished"  # a warm process: the timeout below is all conversion
    report = tmp_path / "src" / "report.txt"
    report.write_text("".join(f"line {n} of a long report\n" for n in range(100_000)))  # ~20 s of layout
    slow = run_job(client, {"report": b64_import(report), "pdf": convert("report", "pdf", timeout=1)})
    assert slow["status"] == "error"
    assert task_named(slow, "pdf")["code"] == "TIMEOUT"
    after = run_job(
        client, {"memo": b64_import(memo), "pdf": convert("memo", "pdf"), "export": export("pdf")}
    )
    files = download_all(after, tmp_path / "out")
    assert SAMPLE_TEXT in PdfReader(files["sample.pdf"]).pages[0].extract_text()


def test_stopping_the_service_stops_its_libreoffice(require_engine: RequireEngine, tmp_path: Path) -> None:
    require_engine("libreoffice", "convert", "txt", "pdf")
    office = LibreOfficeEngine()
    with LocalService(data_dir=tmp_path / "data", engines=[office]) as service:
        headers = {"Authorization": f"Bearer {service.api_key}"}
        with httpx.Client(base_url=service.base_url, headers=headers, timeout=120) as own:
            job = run_job(own, {"memo": b64_import(sample(tmp_path, "txt")), "pdf": convert("memo", "pdf")})
        assert job["status"] == "finished"
        pids = office.pool.pids()
        assert pids
    assert not any(_running(pid) for pid in pids)


def _running(pid: int) -> bool:
    """Alive and not a zombie (a killed soffice.bin may wait for a reaper that never comes here)."""
    try:
        os.kill(pid, 0)
        with open(f"/proc/{pid}/stat", encoding="utf-8") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (ProcessLookupError, FileNotFoundError):
        return False


def test_openoffice_1_document_and_sylk_spreadsheet(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    """Issue 23, breadth: an OpenOffice.org 1 document (read only) becomes a docx; a spreadsheet
    becomes SYLK and is read back into xlsx."""
    for source, target in (("sxw", "docx"), ("fods", "slk"), ("slk", "xlsx")):
        require_engine("libreoffice", "convert", source, target)
    job = run_job(
        client,
        {
            "sxw": b64_import(sample(tmp_path, "sxw")),
            "fods": b64_import(sample(tmp_path, "fods")),
            "docx": convert("sxw", "docx"),
            "slk": convert("fods", "slk"),
            "xlsx": convert("slk", "xlsx"),
            "export": export("docx", "slk", "xlsx"),
        },
    )
    assert task_named(job, "docx")["engine"] == "libreoffice"
    files = download_all(job, tmp_path / "out")
    with zipfile.ZipFile(files["sample.docx"]) as document:
        assert SAMPLE_TEXT in document.read("word/document.xml").decode()
    sylk = files["sample.slk"].read_text(encoding="latin-1")
    assert sylk.startswith("ID;")
    assert "Lyon" in sylk
    with zipfile.ZipFile(files["sample.xlsx"]) as workbook:
        assert b"Lyon" in workbook.read("xl/sharedStrings.xml")
