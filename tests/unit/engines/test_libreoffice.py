"""Office conversions on warm LibreOffice processes: outputs checked, and the pool's lifecycle (kept warm,
replaced after a crash, a timeout or N conversions, stopped on close)."""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from pypdf import PdfReader

from mcv_pipelines.service.engines.base import (
    Engine,
    EngineError,
    EngineRequest,
    EngineResult,
    InputFile,
)
from mcv_pipelines.service.engines.office.libreoffice import LibreOfficeEngine
from office_samples import write_sample

RequireEngine = Callable[..., Engine]


def make_request(
    tmp_path: Path,
    source: Path,
    input_format: str,
    options: Mapping[str, Any] | None = None,
    output_format: str = "pdf",
) -> EngineRequest:
    return EngineRequest(
        operation="convert",
        input_format=input_format,
        output_format=output_format,
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


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A killed child not yet reaped by its (gone) parent is a zombie: dead for our purpose.
    with open(f"/proc/{pid}/stat", encoding="utf-8") as stat:
        return stat.read().rsplit(")", 1)[1].split()[0] != "Z"


@pytest.fixture(scope="module")
def engine() -> Iterator[LibreOfficeEngine]:
    # One engine for the module, as the service keeps one: its processes stay warm between tests.
    office = LibreOfficeEngine()
    yield office
    office.close()


@pytest.fixture
def office(require_engine: RequireEngine, engine: LibreOfficeEngine) -> LibreOfficeEngine:
    require_engine("libreoffice", "convert", "txt", "pdf")
    return engine


def test_listing_has_the_office_families(office: LibreOfficeEngine, require_engine: RequireEngine) -> None:
    require_engine("libreoffice", "convert", "xlsx", "pdf")  # Calc
    require_engine("libreoffice", "convert", "pptx", "pdf")  # Impress
    listed = {(t.input_format, t.output_format): t for t in office.conversion_types()}
    assert {"docx", "odt", "rtf", "txt", "xlsx", "ods", "csv", "pptx", "odp", "odg"} <= {s for s, _ in listed}
    assert {"pdf", "docx", "odt", "html", "txt", "epub", "xlsx", "csv", "pptx", "png"} <= {
        t for _, t in listed
    }
    assert {o.name for o in listed["docx", "pdf"].options} == {"page_range", "pdf_a", "quality", "filename"}
    assert {o.name for o in listed["xlsx", "csv"].options} == {"sheet", "filename"}
    assert {o.name for o in listed["pptx", "png"].options} == {"slide_range", "width", "quality", "filename"}


def test_text_document_to_pdf(office: LibreOfficeEngine, tmp_path: Path) -> None:
    source = write(tmp_path / "in" / "notes.txt", "Quarterly notes\nRevenue grew nicely.\n")
    result = office.run(make_request(tmp_path, source, "txt"))
    assert [f.name for f in result.files] == ["notes.pdf"]
    assert "Quarterly notes" in PdfReader(result.files[0]).pages[0].extract_text()


def test_spreadsheet_csv_to_pdf(
    office: LibreOfficeEngine, require_engine: RequireEngine, tmp_path: Path
) -> None:
    require_engine("libreoffice", "convert", "csv", "pdf")  # a writer-only install has no Calc
    source = write(tmp_path / "in" / "stock.csv", "item,quantity\nwidget,3\ngadget,14\n")
    text = PdfReader(office.run(make_request(tmp_path, source, "csv")).files[0]).pages[0].extract_text()
    assert "gadget" in text
    assert "14" in text


def test_page_range_limits_the_pages(office: LibreOfficeEngine, tmp_path: Path) -> None:
    source = write(tmp_path / "in" / "long.txt", "".join(f"line {n}\n" for n in range(1, 160)))
    whole = PdfReader(office.run(make_request(tmp_path / "a", source, "txt")).files[0])
    assert len(whole.pages) >= 3
    part = PdfReader(office.run(make_request(tmp_path / "b", source, "txt", {"page_range": "2"})).files[0])
    assert len(part.pages) == 1
    assert part.pages[0].extract_text() == whole.pages[1].extract_text()


def test_sheet_picks_the_sheet_written_to_csv(
    office: LibreOfficeEngine, require_engine: RequireEngine, tmp_path: Path
) -> None:
    require_engine("libreoffice", "convert", "fods", "csv")
    source = write_sample(tmp_path / "in", "fods")
    assert source is not None
    first = office.run(make_request(tmp_path / "a", source, "fods", output_format="csv")).files[0]
    second = office.run(make_request(tmp_path / "b", source, "fods", {"sheet": 2}, "csv")).files[0]
    assert first.read_text() == "city,visits\nLyon,12\n"
    assert second.read_text() == "item,count\ngadget,14\n"
    with pytest.raises(EngineError) as caught:
        office.run(make_request(tmp_path / "c", source, "fods", {"sheet": 3}, "csv"))
    assert caught.value.code == "INVALID_OPTION"
    assert "option 'sheet' is 3, the workbook has 2 sheets" in caught.value.message


def test_slides_become_one_picture_each(
    office: LibreOfficeEngine, require_engine: RequireEngine, tmp_path: Path
) -> None:
    require_engine("libreoffice", "convert", "fodp", "png")
    source = write_sample(tmp_path / "in", "fodp")
    assert source is not None
    every = office.run(make_request(tmp_path / "a", source, "fodp", output_format="png")).files
    assert [f.name for f in every] == ["sample-1.png", "sample-2.png", "sample-3.png"]
    some = office.run(
        make_request(tmp_path / "b", source, "fodp", {"slide_range": "2-3", "width": 320}, "png")
    ).files
    assert [f.name for f in some] == ["sample-2.png", "sample-3.png"]
    with pytest.raises(EngineError) as caught:
        office.run(make_request(tmp_path / "c", source, "fodp", {"slide_range": "5-"}, "png"))
    assert caught.value.code == "INVALID_OPTION"
    assert "option 'slide_range' starts at 5, the document has 3" in caught.value.message
    with Image.open(some[0]) as picture:
        assert picture.format == "PNG"
        assert picture.width == 320


def test_a_document_it_cannot_open_is_a_clear_error(office: LibreOfficeEngine, tmp_path: Path) -> None:
    source = tmp_path / "in" / "contract.docx"
    source.parent.mkdir(parents=True)
    source.write_bytes(b"PK\x03\x04" + b"\x00garbage" * 40)
    with pytest.raises(EngineError) as caught:
        office.run(make_request(tmp_path, source, "docx"))
    assert caught.value.code == "INVALID_INPUT"
    assert "could not open contract.docx" in caught.value.message
    assert not any((tmp_path / "out").glob("*"))


def test_conversions_reuse_one_warm_process(office: LibreOfficeEngine, tmp_path: Path) -> None:
    source = write(tmp_path / "in" / "memo.txt", "memo\n")
    office.run(make_request(tmp_path / "a", source, "txt"))
    started, pids = office.pool.started, office.pool.pids()
    office.run(make_request(tmp_path / "b", source, "txt"))
    assert office.pool.started == started
    assert office.pool.pids() == pids


def test_timeout_kills_its_process_and_the_next_conversion_works(
    office: LibreOfficeEngine, tmp_path: Path
) -> None:
    small = write(tmp_path / "in" / "memo.txt", "memo\n")
    office.run(make_request(tmp_path / "warm", small, "txt"))  # a warm process, so the timeout is the work's
    (pid,) = office.pool.pids()
    # Some two thousand pages of text: seconds of layout, far past half a second.
    big = write(
        tmp_path / "in" / "report.txt", "".join(f"line {n} of a long report\n" for n in range(100_000))
    )
    request = make_request(tmp_path / "slow", big, "txt")
    request.timeout = 0.5
    with pytest.raises(EngineError) as caught:
        office.run(request)
    assert caught.value.code == "TIMEOUT"
    assert "report.txt" in caught.value.message
    assert not alive(pid)
    result = office.run(make_request(tmp_path / "again", small, "txt"))
    assert "memo" in PdfReader(result.files[0]).pages[0].extract_text()


def test_a_crashed_process_is_replaced(office: LibreOfficeEngine, tmp_path: Path) -> None:
    source = write(tmp_path / "in" / "memo.txt", "memo\n")
    office.run(make_request(tmp_path / "a", source, "txt"))
    pids = office.pool.pids()
    assert pids
    for pid in pids:
        os.kill(pid, 9)
    deadline = time.monotonic() + 30  # a crash while idle: the process is gone before the next task
    while any(alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    started = office.pool.started
    result = office.run(make_request(tmp_path / "b", source, "txt"))
    assert "memo" in PdfReader(result.files[0]).pages[0].extract_text()
    assert office.pool.started == started + 1


def test_a_process_is_replaced_after_its_conversions(require_engine: RequireEngine, tmp_path: Path) -> None:
    require_engine("libreoffice", "convert", "txt", "pdf")
    office = LibreOfficeEngine(max_conversions=2)
    try:
        source = write(tmp_path / "in" / "memo.txt", "memo\n")
        office.run(make_request(tmp_path / "1", source, "txt"))
        (first,) = office.pool.pids()
        office.run(make_request(tmp_path / "2", source, "txt"))
        assert office.pool.pids() == []  # retired after its second conversion
        assert not alive(first)
        office.run(make_request(tmp_path / "3", source, "txt"))
        assert office.pool.started == 2
    finally:
        office.close()
    assert office.pool.pids() == []  # closed: a fresh pool, nothing running


def test_close_stops_the_processes(require_engine: RequireEngine, tmp_path: Path) -> None:
    require_engine("libreoffice", "convert", "txt", "pdf")
    office = LibreOfficeEngine()
    source = write(tmp_path / "in" / "memo.txt", "memo\n")
    office.run(make_request(tmp_path, source, "txt"))
    pids = office.pool.pids()
    assert pids
    office.close()
    assert not any(alive(pid) for pid in pids)


def test_concurrent_conversions_each_get_a_process(office: LibreOfficeEngine, tmp_path: Path) -> None:
    results: dict[str, EngineResult | Exception] = {}

    def convert(name: str) -> None:
        source = write(tmp_path / name / "in" / f"{name}.txt", f"document {name}\n")
        try:
            results[name] = office.run(make_request(tmp_path / name, source, "txt"))
        except Exception as exc:  # reported by the assert below
            results[name] = exc

    threads = [threading.Thread(target=convert, args=(name,)) for name in ("first", "second", "third")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(180)
    for name in ("first", "second", "third"):
        result = results[name]
        assert isinstance(result, EngineResult), result
        assert f"document {name}" in PdfReader(result.files[0]).pages[0].extract_text()
    assert 1 <= len(office.pool.pids()) <= 3


def test_spare_processes_stop_after_sitting_idle(require_engine: RequireEngine, tmp_path: Path) -> None:
    require_engine("libreoffice", "convert", "txt", "pdf")
    office = LibreOfficeEngine(keep_warm=0, idle_seconds=0.5)
    try:
        source = write(tmp_path / "in" / "memo.txt", "memo\n")
        office.run(make_request(tmp_path / "1", source, "txt"))
        (pid,) = office.pool.pids()
        deadline = time.monotonic() + 60  # generous: the pool looks every half second here
        while (office.pool.pids() or alive(pid)) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert office.pool.pids() == []
        assert not alive(pid)
        result = office.run(make_request(tmp_path / "2", source, "txt"))  # a fresh one starts
        assert "memo" in PdfReader(result.files[0]).pages[0].extract_text()
    finally:
        office.close()


def test_a_hung_process_is_replaced_before_the_next_conversion(
    require_engine: RequireEngine, tmp_path: Path
) -> None:
    require_engine("libreoffice", "convert", "txt", "pdf")
    office = LibreOfficeEngine()  # its own: exactly one warm process
    try:
        source = write(tmp_path / "in" / "memo.txt", "memo\n")
        office.run(make_request(tmp_path / "a", source, "txt"))
        (pid,) = office.pool.pids()
        os.kill(pid, signal.SIGSTOP)  # frozen: alive, but answers nothing
        try:
            result = office.run(make_request(tmp_path / "b", source, "txt"))
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)
        assert "memo" in PdfReader(result.files[0]).pages[0].extract_text()
        assert not alive(pid)
        assert office.pool.started == 2
    finally:
        office.close()


def test_a_process_past_its_memory_bound_is_replaced(require_engine: RequireEngine, tmp_path: Path) -> None:
    require_engine("libreoffice", "convert", "txt", "pdf")
    office = LibreOfficeEngine(memory_bound=1)  # any soffice holds more than a byte
    try:
        source = write(tmp_path / "in" / "memo.txt", "memo\n")
        office.run(make_request(tmp_path / "1", source, "txt"))
        assert office.pool.pids() == []  # not kept warm: it gave its memory back at once
        result = office.run(make_request(tmp_path / "2", source, "txt"))
        assert "memo" in PdfReader(result.files[0]).pages[0].extract_text()
        assert office.pool.started == 2
    finally:
        office.close()


def test_a_burst_is_served_by_the_warm_process_while_more_start(
    require_engine: RequireEngine, tmp_path: Path
) -> None:
    # A burst on a pool with one warm process: each conversion takes whichever process is free first,
    # the warm one or one started for it. Here no other can start, and the warm one serves them all.
    require_engine("libreoffice", "convert", "txt", "pdf")
    office = LibreOfficeEngine()
    try:
        source = write(tmp_path / "in" / "memo.txt", "memo\n")
        office.run(make_request(tmp_path / "0", source, "txt"))
        office.pool.soffice = str(tmp_path / "no-soffice")  # every further start fails
        with ThreadPoolExecutor(3) as threads:
            results = list(threads.map(lambda n: office.run(make_request(tmp_path / str(n), source, "txt")),
                                       range(1, 4)))  # fmt: skip
        for result in results:
            assert "memo" in PdfReader(result.files[0]).pages[0].extract_text()
        assert office.pool.started == 1
    finally:
        office.close()


def test_a_start_that_fails_with_nothing_running_fails_the_conversion(
    require_engine: RequireEngine, tmp_path: Path
) -> None:
    require_engine("libreoffice", "convert", "txt", "pdf")
    office = LibreOfficeEngine()
    try:
        office.pool.soffice = str(tmp_path / "no-soffice")
        source = write(tmp_path / "in" / "memo.txt", "memo\n")
        with pytest.raises(EngineError) as caught:
            office.run(make_request(tmp_path / "1", source, "txt"))
        assert caught.value.code == "ENGINE_NOT_STARTED"
    finally:
        office.close()
