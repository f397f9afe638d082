"""The facts `mcv test` reads of an output file (testing/probe.py): picture sizes without decoding,
PDF pages, the text a reader sees, what ffprobe says of audio and video, and archive members."""

from __future__ import annotations

import io
import json
import os
import struct
import tarfile
import zipfile
from pathlib import Path

import py7zr
import pypdf
import pytest
from PIL import Image

from engine_needs import engine_program
from mcv_pipelines.testing import probe
from mcv_pipelines.testing.probe import (
    MediaInfo,
    ReaderMissing,
    archive_members,
    image_size,
    media_info,
    page_count,
    text_of,
)

ASSETS = Path(__file__).resolve().parents[3] / "pipelines" / "assets"


def _box(kind: bytes, payload: bytes) -> bytes:
    return struct.pack(">I", 8 + len(payload)) + kind + payload


def _ispe(width: int, height: int) -> bytes:
    return _box(b"ispe", bytes(4) + struct.pack(">II", width, height))


def _heic(*sizes: tuple[int, int]) -> bytes:
    """A HEIF header as cameras write it: ftyp, then meta with the picture's properties, then mdat."""
    ftyp = _box(b"ftyp", b"heic" + bytes(4) + b"mif1heic")
    properties = _box(b"ipco", b"".join(_ispe(*size) for size in sizes))
    meta = _box(b"meta", bytes(4) + _box(b"hdlr", bytes(24)) + _box(b"iprp", properties))
    return ftyp + meta + _box(b"mdat", bytes(1000))


def test_picture_sizes_are_read_from_headers(tmp_path: Path) -> None:
    assert image_size(ASSETS / "photo.jpg") == (800, 600)
    assert image_size(ASSETS / "logo.png") == (256, 256)
    avif = tmp_path / "small.avif"
    Image.new("RGB", (40, 30), "teal").save(avif, "AVIF")
    assert image_size(avif) == (40, 30)


def test_a_heic_without_a_plugin_is_measured_from_its_largest_ispe(tmp_path: Path) -> None:
    # a grid picture: tiles of 512 x 512 and the whole of 1024 x 768
    path = tmp_path / "camera.heic"
    path.write_bytes(_heic((512, 512), (1024, 768), (512, 512)))
    assert image_size(path) == (1024, 768)


def test_an_svg_is_measured_by_its_attributes_or_its_viewbox(tmp_path: Path) -> None:
    assert image_size(ASSETS / "badge.svg") == (160, 64)
    cases = {
        '<svg xmlns="http://www.w3.org/2000/svg" width="120px" height="80.4"/>': (120, 80),
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 300 150"/>': (300, 150),
        '<svg xmlns="http://www.w3.org/2000/svg" width="10cm" height="5cm" viewBox="-5,-5,100,50"/>': (
            100,
            50,
        ),
        '<svg xmlns="http://www.w3.org/2000/svg" width="100%" height="100%"/>': None,
    }
    for source, size in cases.items():
        path = tmp_path / "drawing.svg"
        path.write_text(f'<?xml version="1.0"?>\n{source}\n', encoding="utf-8")
        assert image_size(path) == size, source


def test_files_that_are_no_pictures_have_no_size(tmp_path: Path) -> None:
    jxl = tmp_path / "cut.jxl"
    jxl.write_bytes(b"\xff\x0a\xfa\x7f" + bytes(20))  # Pillow reads no JPEG XL here
    assert [image_size(path) for path in (ASSETS / "pages.pdf", ASSETS / "notes.md", jxl)] == [None] * 3


def test_pages_are_counted_in_pdfs_only(tmp_path: Path) -> None:
    assert page_count(ASSETS / "pages.pdf") == 2
    writer = pypdf.PdfWriter()
    for _ in range(3):
        writer.add_blank_page(width=200, height=200)
    three = tmp_path / "three.pdf"
    writer.write(three)
    assert page_count(three) == 3
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(b"%PDF-1.7\nthis is not a PDF body\n")
    assert (page_count(broken), page_count(ASSETS / "photo.jpg")) == (None, None)


def test_the_text_of_a_pdf_and_an_office_document(tmp_path: Path) -> None:
    pdf = text_of(ASSETS / "pages.pdf", "pdf")
    assert "Page 1 of 2" in pdf
    assert pdf.index("Page 1 of 2") < pdf.index("Page 2 of 2")
    assert text_of(ASSETS / "letter.docx", "docx").splitlines() == [
        "Sample letter",
        "This one-page document is the input of the office-to-pdf example.",
        "It is a minimal WordprocessingML package: three XML parts in a zip.",
    ]


def _zip(path: Path, members: dict[str, str]) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        for name, text in members.items():
            archive.writestr(name, text)
    return path


def test_a_spreadsheet_reads_row_by_row_with_shared_strings_looked_up(tmp_path: Path) -> None:
    shared = (
        "<sst><si><t>place</t></si><si><r><t>quo</t></r><r><t>kkas</t></r></si><si><t>Rottnest</t></si></sst>"
    )
    sheet = (
        '<worksheet><sheetData><row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c></row>'
        '<row r="2"><c r="A2" t="s"><v>2</v></c><c r="B2"><v>12</v></c></row>'
        '<row r="3"><c r="A3" t="inlineStr"><is><t>Bald &amp; Isle</t></is></c><c r="B3"/></row>'
        "</sheetData></worksheet>"
    )
    path = _zip(
        tmp_path / "counts.xlsx",
        {
            "[Content_Types].xml": "<Types/>",
            "xl/sharedStrings.xml": shared,
            "xl/worksheets/sheet1.xml": sheet,
        },
    )
    assert text_of(path, "xlsx") == "place\tquokkas\nRottnest\t12\nBald & Isle"


def test_slides_read_in_their_numbers_order_and_metadata_is_left_out(tmp_path: Path) -> None:
    def slide(text: str) -> str:
        return f"<p:sld><a:p><a:r><a:t>{text}</a:t></a:r></a:p></p:sld>"

    members = {"ppt/slides/slide10.xml": slide("ten"), "ppt/slides/slide2.xml": slide("two")}
    members["docProps/core.xml"] = (
        "<cp:coreProperties><dc:creator>LibreOffice 7.5</dc:creator></cp:coreProperties>"
    )
    assert text_of(_zip(tmp_path / "deck.pptx", members), "pptx") == "two\nten"


def test_an_epub_reads_in_its_spine_order(tmp_path: Path) -> None:
    members = {
        "mimetype": "application/epub+zip",
        "META-INF/container.xml": '<container><rootfile full-path="OEBPS/book.opf"/></container>',
        "OEBPS/book.opf": (
            '<package><manifest><item id="a" href="text/z%20first.xhtml" media-type="application/xhtml+xml"/>'
            '<item id="b" href="text/a-second.xhtml" media-type="application/xhtml+xml"/></manifest>'
            '<spine><itemref idref="a"/><itemref idref="b"/></spine></package>'
        ),
        "OEBPS/text/z first.xhtml": "<html><head><style>p {}</style></head><body><h1>One</h1></body></html>",
        "OEBPS/text/a-second.xhtml": "<html><body><p>Two &mdash; end</p></body></html>",
    }
    assert text_of(_zip(tmp_path / "book.epub", members), "epub") == "One\nTwo \u2014 end"


def test_an_open_document_reads_its_content(tmp_path: Path) -> None:
    content = "<office:text><text:h>Title</text:h><text:p>First <text:span>para</text:span>graph</text:p>"
    path = _zip(
        tmp_path / "letter.odt",
        {"mimetype": "application/vnd.oasis.opendocument.text", "content.xml": content},
    )
    assert text_of(path, "odt") == "Title\nFirst paragraph"


def test_markup_loses_its_tags_and_text_stays_as_it_is(tmp_path: Path) -> None:
    page = tmp_path / "page.html"
    page.write_text(
        "<!DOCTYPE html><html><head><title>Notes</title><script>var x = '<p>no</p>';</script></head>"
        "<body><p>Fish &amp; chips</p><ul><li>one</li><li>two</li></ul></body></html>",
        encoding="utf-8",
    )
    assert text_of(page, "html") == "Notes\nFish & chips\none\ntwo"
    crlf = tmp_path / "notes.txt"
    crlf.write_bytes(b"first line\r\nsecond line\r\n")
    assert text_of(crlf, "txt") == "first line\nsecond line\n"
    assert text_of(ASSETS / "notes.md", "txt") == (ASSETS / "notes.md").read_text(encoding="utf-8")
    assert (text_of(ASSETS / "logo.png", "png"), text_of(ASSETS / "notes.md", None)) == ("", "")


def test_text_is_read_up_to_its_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(probe, "TEXT_LIMIT", 1000)
    big = tmp_path / "big.txt"
    big.write_text("x" * 5000, encoding="utf-8")
    assert len(text_of(big, "txt")) == 1000
    # a document's members count in bytes of XML, tags included
    bomb = _zip(tmp_path / "bomb.docx", {"word/document.xml": "<w:p><w:t>" + "y" * 5000 + "</w:t></w:p>"})
    assert text_of(bomb, "docx") == "y" * (1000 - len("<w:p><w:t>"))


def test_archive_members_are_files_sorted_without_folders(tmp_path: Path) -> None:
    with zipfile.ZipFile(tmp_path / "bundle.zip", "w") as archive:
        archive.writestr("frames/", "")
        archive.writestr("frames/b.png", "b")
        archive.writestr("a.pdf", "a")
    assert archive_members(tmp_path / "bundle.zip", "zip") == ("a.pdf", "frames/b.png")

    with tarfile.open(tmp_path / "bundle.tar.xz", "w:xz") as tar:
        for name in ("./", "./frames", "./frames/b.png", "./a.pdf"):
            info = tarfile.TarInfo(name)
            info.type = tarfile.DIRTYPE if not name.endswith((".png", ".pdf")) else tarfile.REGTYPE
            tar.addfile(info, io.BytesIO(b""))
    assert archive_members(tmp_path / "bundle.tar.xz", "tar.xz") == ("a.pdf", "frames/b.png")

    with py7zr.SevenZipFile(tmp_path / "bundle.7z", "w") as seven:
        seven.writestr(b"b", "frames/b.png")
        seven.writestr(b"a", "a.pdf")
    assert archive_members(tmp_path / "bundle.7z", "7z") == ("a.pdf", "frames/b.png")


def test_what_is_no_readable_archive_has_no_members(tmp_path: Path) -> None:
    broken = tmp_path / "broken.zip"
    broken.write_bytes(b"PK\x03\x04" + bytes(100))
    assert archive_members(broken, "zip") is None
    assert archive_members(ASSETS / "letter.docx", "docx") is None
    assert archive_members(ASSETS / "photo.jpg", "jpg") is None


@pytest.fixture
def ffmpeg_here() -> str:
    """The ffmpeg engine's ffprobe, or skip (fail under MCV_REQUIRE_ENGINES=1) where it cannot run."""
    return engine_program("ffmpeg", "ffprobe")


@pytest.mark.engines
def test_ffprobe_tells_duration_streams_and_codecs(ffmpeg_here: str, tmp_path: Path) -> None:
    assert media_info(ASSETS / "clip.mp4") == MediaInfo(2.0, ("video", "audio"), ("h264", "aac"), (160, 120))
    assert media_info(ASSETS / "tone.wav") == MediaInfo(2.0, ("audio",), ("pcm_s16le",))
    # a name that reads as an option or a protocol is still the file
    odd = tmp_path / "-i http:clip.mp4"
    odd.write_bytes((ASSETS / "clip.mp4").read_bytes())
    assert media_info(odd) == media_info(ASSETS / "clip.mp4")
    assert media_info(ASSETS / "notes.md") is None


def _standin_ffprobe(folder: Path, output: str) -> None:
    """A program named ffprobe, first on PATH, that prints ``output`` whatever it is asked."""
    standin = folder / "ffprobe"
    standin.write_text(f"#!/bin/sh\ncat <<'EOF'\n{output}\nEOF\nexit 0\n", encoding="utf-8")
    standin.chmod(0o755)


def test_a_duration_comes_from_the_longest_stream_when_the_container_has_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # what ffprobe prints for a raw stream whose container records no duration
    report = {
        "streams": [
            {"codec_type": "video", "codec_name": "h264", "duration": "1.500000"},
            {"codec_type": "audio", "codec_name": "aac", "duration": "2.500000"},
            {"codec_type": "data", "duration": "N/A"},
        ],
        "format": {"format_name": "h264"},
    }
    _standin_ffprobe(tmp_path, json.dumps(report))
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    assert media_info(ASSETS / "clip.mp4") == MediaInfo(
        2.5, ("video", "audio", "data"), ("h264", "aac", "unknown")
    )


def test_without_ffprobe_media_info_says_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(ReaderMissing) as raised:
        media_info(ASSETS / "clip.mp4")
    assert (raised.value.program, raised.value.purpose) == (
        "ffprobe",
        "reads durations, streams and codecs, is not installed: install FFmpeg",
    )


def test_a_program_named_ffprobe_that_is_not_ffmpegs_is_said_to_be_missing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a case that needs it is then skipped with this reason, not failed as if the file were wrong
    _standin_ffprobe(tmp_path, "ffprobe: a wrapper stand-in, not FFmpeg")
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    with pytest.raises(ReaderMissing, match=f"the one at {tmp_path / 'ffprobe'} is not FFmpeg's"):
        media_info(ASSETS / "clip.mp4")
