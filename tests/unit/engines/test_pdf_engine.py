"""pypdf engine: merge, optimize, metadata and watermarks checked on the PDFs produced."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from pypdf import PdfReader, PdfWriter
from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject

from mcv_pipelines.service.engines.base import EngineError, EngineRequest, InputFile
from mcv_pipelines.service.engines.pdf.pypdf_engine import PypdfEngine

MakeRequest = Callable[..., EngineRequest]
ENGINE = PypdfEngine()


def make_pdf(path: Path, pages: int = 2, size: tuple[int, int] = (612, 792), **write: Any) -> Path:
    """A PDF whose page N shows the text "Page N" (uncompressed content, Helvetica)."""
    writer = PdfWriter()
    for number in range(1, pages + 1):
        page = writer.add_blank_page(*size)
        font = DictionaryObject(
            {
                NameObject("/Type"): NameObject("/Font"),
                NameObject("/Subtype"): NameObject("/Type1"),
                NameObject("/BaseFont"): NameObject("/Helvetica"),
            }
        )
        page[NameObject("/Resources")] = DictionaryObject(
            {NameObject("/Font"): DictionaryObject({NameObject("/F1"): font})}
        )
        stream = DecodedStreamObject()
        filler = b"0 0 m 1 1 l S\n" * 300  # bulk that optimize can compress
        stream.set_data(f"BT /F1 24 Tf 72 700 Td (Page {number}) Tj ET\n".encode() + filler)
        page[NameObject("/Contents")] = writer._add_object(stream)
    if write.get("metadata"):
        writer.add_metadata(write["metadata"])
    if write.get("password"):
        writer.encrypt(write["password"], algorithm="RC4-128")
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as handle:
        writer.write(handle)
    return path


def _image(path: Path, size: tuple[int, int], color: str = "red") -> Path:
    Image.new("RGB", size, color).save(path)
    return path


def test_merge_keeps_input_order_and_turns_images_into_pages(
    tmp_path: Path, make_request: MakeRequest
) -> None:
    pdf = make_pdf(tmp_path / "report.pdf", pages=2)
    png = _image(tmp_path / "chart.png", (300, 200))
    jpg = _image(tmp_path / "photo.jpg", (100, 150))
    inputs = [InputFile("a", png), InputFile("b", pdf), InputFile("c", jpg)]
    result = ENGINE.run(make_request("merge", "pdf", "pdf", inputs, {"filename": "all.pdf"}))
    assert [path.name for path in result.files] == ["all.pdf"]
    reader = PdfReader(result.files[0])
    sizes = [(float(page.mediabox.width), float(page.mediabox.height)) for page in reader.pages]
    assert sizes == [(300, 200), (612, 792), (612, 792), (100, 150)]
    assert "Page 1" in reader.pages[1].extract_text()
    assert "Page 2" in reader.pages[2].extract_text()


def test_merge_with_a_corrupt_pdf_names_the_file(tmp_path: Path, make_request: MakeRequest) -> None:
    good = make_pdf(tmp_path / "good.pdf")
    bad = tmp_path / "bad.pdf"
    bad.write_bytes(b"%PDF-1.7\n garbage garbage")
    with pytest.raises(EngineError) as caught:
        ENGINE.run(make_request("merge", "pdf", "pdf", [good, bad]))
    assert caught.value.code == "INVALID_INPUT_FILE"
    assert "bad.pdf" in caught.value.message


def test_metadata_reads_info_and_page_count(tmp_path: Path, make_request: MakeRequest) -> None:
    pdf = make_pdf(tmp_path / "doc.pdf", pages=3, metadata={"/Title": "Annual report", "/Author": "Ada"})
    result = ENGINE.run(make_request("metadata", "pdf", "json", [pdf]))
    metadata = result.extra["metadata"]
    assert metadata["PageCount"] == 3
    assert metadata["Title"] == "Annual report"
    assert metadata["Author"] == "Ada"
    assert (metadata["PageWidth"], metadata["PageHeight"]) == (612, 792)


def test_metadata_write_sets_and_removes_entries(tmp_path: Path, make_request: MakeRequest) -> None:
    pdf = make_pdf(tmp_path / "doc.pdf", metadata={"/Subject": "old"})
    options = {"metadata": {"Title": "New title", "keywords": "a, b", "Subject": None}}
    result = ENGINE.run(make_request("metadata/write", "pdf", "pdf", [pdf], options))
    info = PdfReader(result.files[0]).metadata
    assert info is not None
    assert info.title == "New title"
    assert str(info["/Keywords"]) == "a, b"
    assert "/Subject" not in info
    assert len(PdfReader(result.files[0]).pages) == 2


def test_metadata_write_unknown_key(tmp_path: Path, make_request: MakeRequest) -> None:
    pdf = make_pdf(tmp_path / "doc.pdf")
    with pytest.raises(EngineError) as caught:
        ENGINE.run(make_request("metadata/write", "pdf", "pdf", [pdf], {"metadata": {"Colour": "x"}}))
    assert caught.value.code == "INVALID_OPTION"
    assert "Title" in caught.value.message


def _text_positions(page: Any) -> list[tuple[str, float]]:
    found: list[tuple[str, float]] = []

    def visit(text: str, cm: list[float], tm: list[float], font: Any, size: Any) -> None:
        if text.strip():
            found.append((text.strip(), cm[1] * tm[4] + cm[3] * tm[5] + cm[5]))

    page.extract_text(visitor_text=visit)
    return found


def test_text_watermark_is_real_text_on_selected_pages(tmp_path: Path, make_request: MakeRequest) -> None:
    pdf = make_pdf(tmp_path / "doc.pdf", pages=3)
    options = {
        "text": "CONFIDENTIAL",
        "pages": "2-3",
        "opacity": 30,
        "position_vertical": "top",
        "font_size": 20,
    }
    result = ENGINE.run(make_request("watermark", "pdf", "pdf", [pdf], options))
    reader = PdfReader(result.files[0])
    assert "CONFIDENTIAL" not in reader.pages[0].extract_text()
    for page in reader.pages[1:]:
        text = page.extract_text()
        assert "CONFIDENTIAL" in text
        assert "Page" in text  # the page's own content is still there
        heights = [y for text, y in _text_positions(page) if "CONFIDENTIAL" in text]
        assert heights
        assert heights[0] > 792 - 25 - 20  # top margin 25, under the top edge
        states: Any = page["/Resources"].get_object()["/ExtGState"]  # type: ignore[index]  # pypdf objects are loosely typed
        assert any(abs(float(state["/ca"]) - 0.3) < 1e-6 for state in states.values())


def test_rotated_text_watermark_stays_inside_the_page(tmp_path: Path, make_request: MakeRequest) -> None:
    pdf = make_pdf(tmp_path / "doc.pdf", pages=1)
    options = {
        "text": "ROTATED",
        "rotation": 45,
        "position_vertical": "bottom",
        "position_horizontal": "left",
    }
    result = ENGINE.run(make_request("watermark", "pdf", "pdf", [pdf], options))
    positions = [y for text, y in _text_positions(PdfReader(result.files[0]).pages[0]) if "ROTATED" in text]
    assert positions
    assert 25 <= positions[0] < 100


def test_image_watermark_adds_the_image_to_each_page(tmp_path: Path, make_request: MakeRequest) -> None:
    pdf = make_pdf(tmp_path / "doc.pdf", pages=2)
    logo = _image(tmp_path / "logo.png", (50, 20), "blue")
    inputs = [InputFile("doc", pdf), InputFile("logo", logo)]
    result = ENGINE.run(make_request("watermark", "pdf", "pdf", inputs, {"image": "logo", "layer": "below"}))
    assert [path.name for path in result.files] == ["doc.pdf"]
    reader = PdfReader(result.files[0])
    for page in reader.pages:
        assert len(page.images) == 1
        assert page.images[0].image is not None
        assert page.images[0].image.size == (50, 20)
        assert "Page" in page.extract_text()


def test_encrypted_pdf_needs_its_password(tmp_path: Path, make_request: MakeRequest) -> None:
    pdf = make_pdf(tmp_path / "secret.pdf", password="s3cret")
    with pytest.raises(EngineError) as caught:
        ENGINE.run(make_request("metadata", "pdf", "json", [pdf]))
    assert caught.value.code == "INVALID_INPUT_FILE"
    assert "password" in caught.value.message
    result = ENGINE.run(make_request("metadata", "pdf", "json", [pdf], {"password": "s3cret"}))
    assert result.extra["metadata"]["PageCount"] == 2


def test_optimize_makes_the_pdf_smaller_and_keeps_the_text(tmp_path: Path, make_request: MakeRequest) -> None:
    pdf = make_pdf(tmp_path / "big.pdf", pages=3)
    result = ENGINE.run(make_request("optimize", "pdf", "pdf", [pdf], {"profile": "print"}))
    out = result.files[0]
    assert out.stat().st_size < pdf.stat().st_size / 2
    reader = PdfReader(out)
    assert [f"Page {n}" in page.extract_text() for n, page in enumerate(reader.pages, 1)] == [True] * 3


@pytest.mark.parametrize("pages", ["x", "3-1", "9"])
def test_bad_page_selection_is_an_option_error(tmp_path: Path, make_request: MakeRequest, pages: str) -> None:
    pdf = make_pdf(tmp_path / "doc.pdf", pages=2)
    with pytest.raises(EngineError) as caught:
        ENGINE.run(make_request("watermark", "pdf", "pdf", [pdf], {"text": "X", "pages": pages}))
    assert caught.value.code == "INVALID_OPTION"
    assert "pages" in caught.value.message


def test_not_a_pdf_is_an_input_error(tmp_path: Path, make_request: MakeRequest) -> None:
    fake = tmp_path / "fake.pdf"
    fake.write_text("hello, I am text")
    with pytest.raises(EngineError) as caught:
        ENGINE.run(make_request("optimize", "pdf", "pdf", [fake]))
    assert caught.value.code == "INVALID_INPUT_FILE"


def test_merge_of_a_file_that_is_neither_pdf_nor_image(tmp_path: Path, make_request: MakeRequest) -> None:
    good = make_pdf(tmp_path / "good.pdf")
    notes = tmp_path / "notes.docx"
    notes.write_bytes(b"PK\x03\x04 not an image")
    with pytest.raises(EngineError) as caught:
        ENGINE.run(make_request("merge", "pdf", "pdf", [good, notes]))
    assert caught.value.code == "INVALID_INPUT_FILE"
    assert "notes.docx" in caught.value.message
    assert "neither a PDF nor an image" in caught.value.message


def test_watermark_on_a_rotated_page_is_placed_as_the_reader_sees_it(
    tmp_path: Path, make_request: MakeRequest
) -> None:
    writer = PdfWriter()
    writer.add_blank_page(300, 200).rotate(90)  # shown as a 200 x 300 portrait page
    source = tmp_path / "turned.pdf"
    with source.open("wb") as handle:
        writer.write(handle)
    options = {"text": "TOP", "position_vertical": "top", "font_size": 20}
    result = ENGINE.run(make_request("watermark", "pdf", "pdf", [source], options))
    page = PdfReader(result.files[0]).pages[0]
    assert (float(page.mediabox.width), float(page.mediabox.height)) == (200, 300)
    heights = [y for text, y in _text_positions(page) if "TOP" in text]
    assert heights
    assert heights[0] > 300 - 25 - 20
