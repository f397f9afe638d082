"""Office documents to PDF with LibreOffice headless, checked with pypdf."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest
from pypdf import PdfReader

from mcv_pipelines.service.engines.base import (
    Engine,
    EngineError,
    EngineRequest,
    EngineResult,
    InputFile,
)
from mcv_pipelines.service.engines.office.libreoffice import LibreOfficeEngine

RequireEngine = Callable[..., Engine]


def make_request(
    tmp_path: Path, source: Path, input_format: str, options: Mapping[str, Any] | None = None
) -> EngineRequest:
    return EngineRequest(
        operation="convert",
        input_format=input_format,
        output_format="pdf",
        options=dict(options or {}),
        inputs=[InputFile("upload", source)],
        output_dir=tmp_path / "out",
        work_dir=tmp_path / "work",
        timeout=120,
    )


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def engine() -> LibreOfficeEngine:
    # One engine for the module, as the service keeps one: its profiles are made once.
    return LibreOfficeEngine(workers=1)


@pytest.fixture
def office(require_engine: RequireEngine, engine: LibreOfficeEngine) -> LibreOfficeEngine:
    require_engine("libreoffice", "convert", "txt", "pdf")
    return engine


def test_listing_has_the_office_formats(office: LibreOfficeEngine, require_engine: RequireEngine) -> None:
    require_engine("libreoffice", "convert", "xlsx", "pdf")  # Calc
    require_engine("libreoffice", "convert", "pptx", "pdf")  # Impress
    inputs = {t.input_format for t in office.conversion_types()}
    assert {"docx", "odt", "rtf", "txt", "xlsx", "ods", "csv", "pptx", "odp"} <= inputs
    assert {t.output_format for t in office.conversion_types()} == {"pdf"}


def test_text_document_to_pdf(office: LibreOfficeEngine, tmp_path: Path) -> None:
    source = write(tmp_path / "in" / "notes.txt", "Quarterly notes\nRevenue grew nicely.\n")
    result = office.run(make_request(tmp_path, source, "txt"))
    assert [f.name for f in result.files] == ["notes.pdf"]
    text = PdfReader(result.files[0]).pages[0].extract_text()
    assert "Quarterly notes" in text


def test_spreadsheet_csv_to_pdf(
    office: LibreOfficeEngine, require_engine: RequireEngine, tmp_path: Path
) -> None:
    require_engine("libreoffice", "convert", "csv", "pdf")  # a writer-only install has no Calc
    source = write(tmp_path / "in" / "stock.csv", "item,quantity\nwidget,3\ngadget,14\n")
    result = office.run(make_request(tmp_path, source, "csv"))
    text = PdfReader(result.files[0]).pages[0].extract_text()
    assert "gadget" in text
    assert "14" in text


def test_rtf_to_pdf(office: LibreOfficeEngine, tmp_path: Path) -> None:
    source = write(
        tmp_path / "in" / "letter.rtf", r"{\rtf1\ansi{\fonttbl\f0\fswiss Helvetica;}\f0 Dear reader,\par}"
    )
    result = office.run(make_request(tmp_path, source, "rtf"))
    assert "Dear reader" in PdfReader(result.files[0]).pages[0].extract_text()


def test_page_range_limits_the_pages(office: LibreOfficeEngine, tmp_path: Path) -> None:
    source = write(tmp_path / "in" / "long.txt", "".join(f"line {n}\n" for n in range(1, 160)))
    whole = PdfReader(office.run(make_request(tmp_path / "a", source, "txt")).files[0])
    assert len(whole.pages) >= 3
    part = PdfReader(office.run(make_request(tmp_path / "b", source, "txt", {"page_range": "2"})).files[0])
    assert len(part.pages) == 1
    assert part.pages[0].extract_text() == whole.pages[1].extract_text()


def test_a_document_it_cannot_open_is_a_clear_error(office: LibreOfficeEngine, tmp_path: Path) -> None:
    source = tmp_path / "in" / "contract.docx"
    source.parent.mkdir(parents=True)
    source.write_bytes(b"PK\x03\x04" + b"\x00garbage" * 40)
    with pytest.raises(EngineError) as caught:
        office.run(make_request(tmp_path, source, "docx"))
    assert caught.value.code == "INVALID_INPUT"
    assert "could not open contract.docx" in caught.value.message
    assert not any((tmp_path / "out").glob("*"))


def test_timeout_stops_libreoffice_and_the_next_conversion_works(
    office: LibreOfficeEngine, tmp_path: Path
) -> None:
    source = write(tmp_path / "in" / "memo.txt", "memo\n")
    request = make_request(tmp_path / "slow", source, "txt")
    request.timeout = 0.3
    with pytest.raises(EngineError) as caught:
        office.run(request)
    assert caught.value.code == "TIMEOUT"
    assert "memo.txt" in caught.value.message
    result = office.run(make_request(tmp_path / "again", source, "txt"))
    assert "memo" in PdfReader(result.files[0]).pages[0].extract_text()


def test_concurrent_conversions_share_one_profile_in_turn(office: LibreOfficeEngine, tmp_path: Path) -> None:
    results: dict[str, EngineResult | Exception] = {}

    def convert(name: str) -> None:
        source = write(tmp_path / name / "in" / f"{name}.txt", f"document {name}\n")
        try:
            results[name] = office.run(make_request(tmp_path / name, source, "txt"))
        except Exception as exc:  # reported by the assert below
            results[name] = exc

    threads = [threading.Thread(target=convert, args=(name,)) for name in ("first", "second")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    for name in ("first", "second"):
        result = results[name]
        assert isinstance(result, EngineResult), result
        assert f"document {name}" in PdfReader(result.files[0]).pages[0].extract_text()
