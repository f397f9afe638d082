"""Golden comparisons (testing/similarity.py): a picture re-encoded is still the same picture and a
different one is not, PDFs differ by pages and words, media by duration and streams, archives by names,
text by lines, and each difference is said in words a user reads."""

from __future__ import annotations

import subprocess
import zipfile
from pathlib import Path

import pypdf
import pytest
from PIL import Image, ImageDraw

from engine_needs import engine_program
from mcv_pipelines.testing.probe import ReaderMissing
from mcv_pipelines.testing.similarity import Comparison, compare, image_similarity

ASSETS = Path(__file__).resolve().parents[3] / "pipelines" / "assets"


def _jpeg(path: Path, picture: Image.Image, quality: int) -> Path:
    picture.save(path, "JPEG", quality=quality)
    return path


@pytest.fixture
def photo() -> Image.Image:
    return Image.open(ASSETS / "photo.jpg").convert("RGB")


def test_a_photo_re_encoded_at_a_lower_quality_is_the_same_picture(
    tmp_path: Path, photo: Image.Image
) -> None:
    good, worse = _jpeg(tmp_path / "q85.jpg", photo, 85), _jpeg(tmp_path / "q70.jpg", photo, 70)
    assert image_similarity(good, good) == 1.0
    assert image_similarity(good, worse) >= 0.95
    webp = tmp_path / "photo.webp"
    photo.save(webp, "WEBP", quality=75)
    assert image_similarity(good, webp) >= 0.95  # another encoder, the same picture
    result = compare(worse, good, "jpg")
    assert result.same
    assert result.detail.startswith("similarity 0.9")


def test_a_different_picture_is_well_below_the_threshold(tmp_path: Path, photo: Image.Image) -> None:
    good = _jpeg(tmp_path / "photo.jpg", photo, 85)
    flipped = _jpeg(tmp_path / "flipped.jpg", photo.transpose(Image.Transpose.FLIP_TOP_BOTTOM), 85)
    assert image_similarity(good, flipped) < 0.7
    assert image_similarity(ASSETS / "logo.png", ASSETS / "photo.jpg") < 0.5
    result = compare(flipped, good, "jpg")
    assert not result.same
    assert result.detail.startswith("similarity 0.")
    assert result.detail.endswith(" < 0.95")
    assert compare(flipped, good, "jpg", threshold=0.3).same  # a recipe may ask for less


def test_a_small_change_is_seen(tmp_path: Path, photo: Image.Image) -> None:
    marked = photo.copy()
    ImageDraw.Draw(marked).rectangle((0, 0, 400, 300), fill="black")  # a quarter blacked out
    changed = _jpeg(tmp_path / "marked.jpg", marked, 85)
    assert not compare(changed, _jpeg(tmp_path / "photo.jpg", photo, 85), "jpg").same


def test_transparency_is_seen_over_white(tmp_path: Path) -> None:
    logo = Image.open(ASSETS / "logo.png").convert("RGBA")
    on_white, on_black = Image.new("RGB", logo.size, "white"), Image.new("RGB", logo.size, "black")
    on_white.paste(logo, mask=logo)
    on_black.paste(logo, mask=logo)
    on_white.save(tmp_path / "white.png")
    on_black.save(tmp_path / "black.png")
    assert image_similarity(ASSETS / "logo.png", tmp_path / "white.png") > 0.999
    assert image_similarity(ASSETS / "logo.png", tmp_path / "black.png") < 0.5


def test_pictures_of_other_sizes_differ_by_their_size(tmp_path: Path, photo: Image.Image) -> None:
    half = _jpeg(tmp_path / "half.jpg", photo.resize((400, 300)), 85)
    assert compare(half, ASSETS / "photo.jpg", "jpg") == Comparison(False, "400x300 pixels, golden 800x600")


def test_a_6_megapixel_photo_re_encoded_is_judged_alike(tmp_path: Path, photo: Image.Image) -> None:
    # (its speed, about 10 ms for a JPEG pair, is measured by bench/recipe_tests.py, not here)
    large = photo.resize((3000, 2000), Image.Resampling.BICUBIC)
    a, b = _jpeg(tmp_path / "a.jpg", large, 85), _jpeg(tmp_path / "b.jpg", large, 70)
    assert image_similarity(a, b) >= 0.95


def _pdf(path: Path, *pages: int, blank: int = 0) -> Path:
    """A PDF of the given pages (0-based) of pages.pdf, then ``blank`` blank pages."""
    source = pypdf.PdfReader(ASSETS / "pages.pdf")
    writer = pypdf.PdfWriter()
    for number in pages:
        writer.add_page(source.pages[number])
    for _ in range(blank):
        writer.add_blank_page(width=200, height=200)
    writer.write(path)
    return path


def test_pdfs_differ_by_page_count_then_by_text(tmp_path: Path) -> None:
    golden = ASSETS / "pages.pdf"
    assert compare(_pdf(tmp_path / "same.pdf", 0, 1), golden, "pdf") == Comparison(True, "2 pages, same text")
    longer = compare(_pdf(tmp_path / "longer.pdf", 0, 1, blank=1), golden, "pdf")
    assert longer == Comparison(False, "3 pages, golden has 2")
    swapped = compare(_pdf(tmp_path / "swapped.pdf", 1, 0), golden, "pdf")
    assert not swapped.same
    assert swapped.detail.startswith("text differs at character ")
    assert "Page 2 of 2" in swapped.detail


def test_archives_differ_by_member_names(tmp_path: Path) -> None:
    def bundle(name: str, members: dict[str, bytes]) -> Path:
        with zipfile.ZipFile(tmp_path / name, "w") as archive:
            for member, data in members.items():
                archive.writestr(member, data)
        return tmp_path / name

    golden = bundle("golden.zip", {"a.png": b"1", "c.pdf": b"2"})
    # names matter, not their order or contents (each file is checked on its own)
    same = bundle("same.zip", {"c.pdf": b"other", "a.png": b"bytes"})
    assert compare(same, golden, "zip") == Comparison(True, "same 2 members")
    other = bundle("other.zip", {"a.png": b"1", "b.pdf": b"2"})
    assert compare(other, golden, "zip") == Comparison(False, "members differ: + b.pdf - c.pdf")


def test_office_documents_differ_by_their_words_not_their_metadata(tmp_path: Path) -> None:
    def docx(name: str, body: str, creator: str) -> Path:
        with zipfile.ZipFile(ASSETS / "letter.docx") as source, zipfile.ZipFile(tmp_path / name, "w") as out:
            for member in source.namelist():
                data = source.read(member).decode()
                if member == "word/document.xml":
                    data = data.replace("Sample letter", body)
                out.writestr(member, data)
            out.writestr(
                "docProps/core.xml",
                f"<cp:coreProperties><dc:creator>{creator}</dc:creator></cp:coreProperties>",
            )
        return tmp_path / name

    golden = docx("golden.docx", "Sample letter", "Word 2019")
    assert compare(docx("same.docx", "Sample  letter", "LibreOffice 7.5"), golden, "docx").same
    changed = compare(docx("changed.docx", "Sample memo", "Word 2019"), golden, "docx")
    assert changed == Comparison(
        False,
        "text differs at character 8: 'Sample memo This one-page document is the input of the offic'... vs "
        "'Sample letter This one-page document is the input of the off'...",
    )


def test_text_differs_by_line_but_not_by_line_ends_or_trailing_space(tmp_path: Path) -> None:
    golden = tmp_path / "golden.csv"
    golden.write_bytes(b"name,count\nquokka,12\nwallaby,3\nfoo,1\n")
    same = tmp_path / "same.csv"
    same.write_bytes(b"name,count  \r\nquokka,12\r\nwallaby,3\r\nfoo,1\r\n\r\n")
    assert compare(same, golden, "csv") == Comparison(True, "same text")
    other = tmp_path / "other.csv"
    other.write_bytes(b"name,count\nquokka,12\nwallaby,3\nbar,1\n")
    assert compare(other, golden, "csv") == Comparison(False, "text differs at line 4: 'bar,1' vs 'foo,1'")
    short = tmp_path / "short.csv"
    short.write_bytes(b"name,count\nquokka,12\n")
    assert compare(short, golden, "csv") == Comparison(
        False, "text ends before line 3, golden goes on: 'wallaby,3'"
    )


def test_anything_else_is_compared_byte_for_byte(tmp_path: Path) -> None:
    golden = tmp_path / "golden.ttf"
    golden.write_bytes((ASSETS / "boxes.ttf").read_bytes())
    assert compare(ASSETS / "boxes.ttf", golden, "ttf") == Comparison(True, "same bytes")
    changed = tmp_path / "changed.ttf"
    data = bytearray(golden.read_bytes())
    data[100] ^= 0xFF
    changed.write_bytes(bytes(data))
    assert compare(changed, golden, "ttf") == Comparison(
        False, "bytes differ from byte 100 on (both 720 bytes)"
    )
    longer = tmp_path / "longer.bin"
    longer.write_bytes(bytes(12_345))
    shorter = tmp_path / "shorter.bin"
    shorter.write_bytes(bytes(12_001))
    assert compare(longer, shorter, None) == Comparison(False, "bytes differ (12,345 vs 12,001 bytes)")


@pytest.fixture
def ffmpeg() -> str:
    """The ffmpeg engine's ffmpeg (its ffprobe reads the files), or skip (fail under
    MCV_REQUIRE_ENGINES=1) where the engine cannot run."""
    engine_program("ffmpeg", "ffprobe")
    return engine_program("ffmpeg", "ffmpeg")


def _remux(ffmpeg: str, out: Path, *arguments: str) -> Path:
    command = [ffmpeg, "-v", "error", "-nostdin", "-i", str(ASSETS / "clip.mp4"), *arguments, str(out)]
    subprocess.run(command, check=True, timeout=120)
    return out


@pytest.mark.engines
def test_media_differ_by_duration_and_streams(ffmpeg: str, tmp_path: Path) -> None:
    golden = ASSETS / "clip.mp4"
    same = _remux(ffmpeg, tmp_path / "same.mp4", "-c", "copy")
    assert compare(same, golden, "mp4") == Comparison(True, "same duration, streams and codecs")
    shorter = _remux(ffmpeg, tmp_path / "short.mp4", "-t", "1.5", "-c:v", "libx264", "-c:a", "aac")
    assert compare(golden, shorter, "mp4") == Comparison(False, "duration 2.00 s, golden 1.50 s")
    silent = _remux(ffmpeg, tmp_path / "silent.mp4", "-an", "-c", "copy")
    assert compare(golden, silent, "mp4") == Comparison(
        False, "streams video,audio vs video; codecs h264,aac vs h264"
    )


def test_media_cannot_be_compared_without_ffprobe(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(ReaderMissing):
        compare(ASSETS / "clip.mp4", ASSETS / "clip.mp4", "mp4")
