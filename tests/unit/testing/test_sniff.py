"""`mcv test` knows a file's format from its bytes (testing/sniff.py): a picture named as another
format is what its bytes are, containers say what they hold (docx, tar.gz, m4a, webm), and a text file
that could be several formats satisfies each of them."""

from __future__ import annotations

import bz2
import gzip
import io
import json
import lzma
import struct
import subprocess
import tarfile
import zipfile
from collections.abc import Callable
from pathlib import Path

import py7zr
import pytest
from fontTools.ttLib import TTFont
from PIL import Image

from engine_needs import engine_program
from mcv_pipelines.testing.sniff import Sniffed, sniff_format
from rar_sample import rar4

ASSETS = Path(__file__).resolve().parents[3] / "pipelines" / "assets"


def _write(tmp_path: Path, name: str, data: bytes | str) -> Path:
    path = tmp_path / name
    if isinstance(data, str):
        path.write_text(data, encoding="utf-8", newline="")
    else:
        path.write_bytes(data)
    return path


def _sniff(tmp_path: Path, data: bytes | str, name: str = "output.bin") -> Sniffed:
    return sniff_format(_write(tmp_path, name, data))


def _box(kind: bytes, payload: bytes) -> bytes:
    return struct.pack(">I", 8 + len(payload)) + kind + payload


def _ftyp(major: bytes, *compatible: bytes) -> bytes:
    return _box(b"ftyp", major + b"\x00\x00\x02\x00" + b"".join(compatible)) + _box(b"mdat", bytes(64))


def _zip(members: dict[str, bytes], mimetype: str | None = None) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        if mimetype is not None:
            archive.writestr("mimetype", mimetype, compress_type=zipfile.ZIP_STORED)
        for name, data in members.items():
            archive.writestr(name, data, compress_type=zipfile.ZIP_DEFLATED)
    return out.getvalue()


@pytest.mark.parametrize(
    ("asset", "fmt"),
    [
        ("photo.jpg", "jpg"),
        ("logo.png", "png"),
        ("badge.svg", "svg"),
        ("clip.mp4", "mp4"),
        ("tone.wav", "wav"),
        ("pages.pdf", "pdf"),
        ("letter.docx", "docx"),
        ("cube.obj", "obj"),
        ("boxes.ttf", "ttf"),
        ("notes.md", "txt"),
    ],
)
def test_each_asset_of_the_examples_is_its_own_format(asset: str, fmt: str) -> None:
    found = sniff_format(ASSETS / asset)
    assert found.format == fmt
    assert fmt in found.accepts


def test_a_webp_named_png_is_a_webp(tmp_path: Path) -> None:
    path = tmp_path / "photo.png"
    Image.open(ASSETS / "photo.jpg").save(path, "WEBP")
    assert sniff_format(path) == Sniffed("webp", frozenset({"webp"}))


@pytest.mark.parametrize(
    ("pillow_format", "fmt", "also"),
    [
        ("GIF", "gif", set()),
        ("TIFF", "tiff", {"tif"}),
        ("BMP", "bmp", set()),
        ("ICO", "ico", set()),
        ("JPEG", "jpg", {"jpeg"}),
        ("AVIF", "avif", set()),
    ],
)
def test_pictures_pillow_writes_are_known(
    tmp_path: Path, pillow_format: str, fmt: str, also: set[str]
) -> None:
    path = tmp_path / "picture.bin"
    Image.new("RGB", (32, 24), "teal").save(path, pillow_format)
    assert sniff_format(path) == Sniffed(fmt, frozenset({fmt, *also}))


def test_an_animated_png_is_also_a_png(tmp_path: Path) -> None:
    path = tmp_path / "spinner.png"
    first, second = Image.new("RGB", (16, 16), "red"), Image.new("RGB", (16, 16), "blue")
    first.save(path, "PNG", save_all=True, append_images=[second], duration=100)
    assert sniff_format(path) == Sniffed("apng", frozenset({"apng", "png"}))


@pytest.mark.parametrize(
    ("brands", "fmt", "accepts"),
    [
        ((b"avif", b"mif1", b"miaf"), "avif", {"avif"}),
        ((b"mif1", b"avif", b"miaf"), "avif", {"avif"}),
        ((b"heic", b"mif1", b"heic"), "heic", {"heic", "heif"}),
        ((b"mif1", b"mif1", b"heic"), "heic", {"heic", "heif"}),
        ((b"M4A ", b"M4A ", b"mp42", b"isom"), "m4a", {"m4a", "mp4"}),
        ((b"qt  ", b"qt  "), "mov", {"mov", "qt"}),
        ((b"3gp4", b"3gp4", b"isom"), "3gp", {"3gp"}),
        ((b"isom", b"isom", b"iso2", b"avc1", b"mp41"), "mp4", {"mp4", "m4v"}),
    ],
)
def test_iso_media_files_are_told_apart_by_their_brands(
    tmp_path: Path, brands: tuple[bytes, ...], fmt: str, accepts: set[str]
) -> None:
    assert _sniff(tmp_path, _ftyp(*brands)) == Sniffed(fmt, frozenset(accepts))


def _ebml(doc_type: bytes) -> bytes:
    body = b"\x42\x86\x81\x01" + b"\x42\x82" + bytes([0x80 | len(doc_type)]) + doc_type + b"\x42\x87\x81\x04"
    return b"\x1a\x45\xdf\xa3" + bytes([0x80 | len(body)]) + body + b"\x18\x53\x80\x67\x01" + bytes(64)


def test_webm_and_matroska_are_told_apart_by_their_doctype(tmp_path: Path) -> None:
    assert _sniff(tmp_path, _ebml(b"webm"), "a.mkv") == Sniffed("webm", frozenset({"webm"}))
    assert _sniff(tmp_path, _ebml(b"matroska"), "b.webm") == Sniffed("mkv", frozenset({"mkv", "mka"}))


def _ogg(first_packet: bytes) -> bytes:
    header = b"OggS\x00\x02" + bytes(8) + b"\x01\x00\x00\x00" + bytes(8) + bytes([1, len(first_packet)])
    return header + first_packet + bytes(64)


def test_ogg_opus_is_opus_and_ogg_vorbis_is_ogg(tmp_path: Path) -> None:
    opus = _sniff(tmp_path, _ogg(b"OpusHead\x01\x02\x38\x01\x80\xbb\x00\x00\x00\x00\x00"))
    assert opus == Sniffed("opus", frozenset({"opus", "ogg", "oga"}))
    vorbis = _sniff(tmp_path, _ogg(b"\x01vorbis" + bytes(22)))
    assert vorbis == Sniffed("ogg", frozenset({"ogg", "oga"}))


_MP3_FRAME = b"\xff\xfb\x90\x64" + bytes(413)  # MPEG-1 layer III, 128 kbit/s, 44.1 kHz


def _id3(size: int) -> bytes:
    syncsafe = bytes((size >> shift) & 0x7F for shift in (21, 14, 7, 0))
    return b"ID3\x04\x00\x00" + syncsafe + b"TIT2" + bytes(size - 4)


@pytest.mark.parametrize(
    ("data", "fmt"),
    [
        (_MP3_FRAME * 3, "mp3"),
        (_id3(100) + _MP3_FRAME * 3, "mp3"),
        (_id3(70_000) + _MP3_FRAME, "mp3"),  # album art: the audio starts past the first 64 KiB
        (_id3(100) + b"fLaC" + bytes(60), "flac"),
        (b"fLaC\x00\x00\x00\x22" + bytes(60), "flac"),
        (b"\xff\xf1\x50\x80\x02\x1f\xfc" + bytes(100), "aac"),
    ],
)
def test_audio_without_a_container_is_known_by_its_frames(tmp_path: Path, data: bytes, fmt: str) -> None:
    assert _sniff(tmp_path, data).format == fmt


@pytest.mark.parametrize(
    ("members", "mimetype", "fmt"),
    [
        ({"[Content_Types].xml": b"<Types/>", "xl/workbook.xml": b"<workbook/>"}, None, "xlsx"),
        ({"[Content_Types].xml": b"<Types/>", "ppt/presentation.xml": b"<p/>"}, None, "pptx"),
        ({"content.xml": b"<office:document-content/>"}, "application/vnd.oasis.opendocument.text", "odt"),
        ({"content.xml": b"<c/>"}, "application/vnd.oasis.opendocument.spreadsheet", "ods"),
        ({"content.xml": b"<c/>"}, "application/vnd.oasis.opendocument.presentation", "odp"),
        ({"META-INF/container.xml": b"<container/>"}, "application/epub+zip", "epub"),
    ],
)
def test_zip_based_documents_are_known_by_their_members(
    tmp_path: Path, members: dict[str, bytes], mimetype: str | None, fmt: str
) -> None:
    assert _sniff(tmp_path, _zip(members, mimetype), "bundle.zip") == Sniffed(fmt, frozenset({fmt, "zip"}))


def test_a_zip_holding_a_word_folder_without_content_types_is_a_zip(tmp_path: Path) -> None:
    found = _sniff(tmp_path, _zip({"word/document.xml": b"<w/>", "a.png": b"x"}), "report.docx")
    assert found == Sniffed("zip", frozenset({"zip"}))


def _tar(mode: str) -> bytes:
    out = io.BytesIO()
    # typeshed types tarfile.open per literal mode; this helper takes the mode as a plain str
    with tarfile.open(fileobj=out, mode=mode) as tar:  # type: ignore[call-overload]
        info = tarfile.TarInfo("frames/a.png")
        info.size = 3
        tar.addfile(info, io.BytesIO(b"png"))
    return out.getvalue()


@pytest.mark.parametrize(
    ("mode", "fmt", "accepts"),
    [
        ("w", "tar", {"tar"}),
        ("w:gz", "tar.gz", {"tar.gz", "tgz", "gz"}),
        ("w:bz2", "tar.bz2", {"tar.bz2", "tbz2", "bz2"}),
        ("w:xz", "tar.xz", {"tar.xz", "txz", "xz"}),
    ],
)
def test_a_tar_is_known_through_its_compression(
    tmp_path: Path, mode: str, fmt: str, accepts: set[str]
) -> None:
    assert _sniff(tmp_path, _tar(mode), "frames.bin") == Sniffed(fmt, frozenset(accepts))


@pytest.mark.parametrize(
    ("compress", "fmt"), [(gzip.compress, "gz"), (bz2.compress, "bz2"), (lzma.compress, "xz")]
)
def test_a_compressed_file_that_is_no_tar_is_only_compressed(
    tmp_path: Path, compress: Callable[[bytes], bytes], fmt: str
) -> None:
    data = compress(b"a line of a log\n" * 100)
    assert _sniff(tmp_path, data, "log.tar.gz") == Sniffed(fmt, frozenset({fmt}))


def test_7z_and_rar_archives_are_known(tmp_path: Path) -> None:
    seven = tmp_path / "bundle.7z"
    with py7zr.SevenZipFile(seven, "w") as archive:
        archive.writestr(b"hello", "a.txt")
    assert sniff_format(seven).format == "7z"
    assert _sniff(tmp_path, rar4([("a.txt", b"hello")]), "bundle.zip").format == "rar"


def _kindle(version: int) -> bytes:
    record0 = 78 + 8 + 2
    header = b"Sample book".ljust(32, b"\x00") + bytes(28) + b"BOOKMOBI" + bytes(8) + struct.pack(">H", 1)
    header += struct.pack(">IBxxx", record0, 0) + bytes(2)
    mobi = b"MOBI" + struct.pack(">IIIII", 232, 2, 65001, 1, version)
    return header + bytes(16) + mobi + bytes(300)


def test_a_kindle_book_is_mobi_or_azw3_by_its_header_and_not_the_other(tmp_path: Path) -> None:
    old, kf8 = _sniff(tmp_path, _kindle(6)), _sniff(tmp_path, _kindle(8))
    assert (old.format, kf8.format) == ("mobi", "azw3")
    # a recipe that meant azw3 (KF8, today's Kindles) must not pass with an old mobi, nor the reverse
    assert (old.accepts, kf8.accepts) == ({"mobi", "azw"}, {"azw3", "azw"})


def test_fonts_are_known_in_each_flavour(tmp_path: Path) -> None:
    for flavor in ("woff", "woff2"):
        font = TTFont(ASSETS / "boxes.ttf")
        font.flavor = flavor
        font.save(tmp_path / f"boxes.{flavor}")
        assert sniff_format(tmp_path / f"boxes.{flavor}").format == flavor
    # TrueType outlines are OpenType too; CFF outlines are only otf
    assert sniff_format(ASSETS / "boxes.ttf").accepts == {"ttf", "otf"}
    assert _sniff(tmp_path, b"OTTO\x00\x0a\x00\x80\x00\x03\x00\x20" + bytes(200)) == Sniffed(
        "otf", frozenset({"otf"})
    )


def test_documents_of_postscript_and_pdf(tmp_path: Path) -> None:
    assert _sniff(tmp_path, b"junk before\n%PDF-1.7\n%%EOF\n").format == "pdf"
    assert _sniff(tmp_path, "%!PS-Adobe-3.0\n%%Pages: 1\nshowpage\n") == Sniffed("ps", frozenset({"ps"}))
    eps = _sniff(tmp_path, "%!PS-Adobe-3.0 EPSF-3.0\n%%BoundingBox: 0 0 10 10\n")
    assert eps == Sniffed("eps", frozenset({"eps", "ps"}))


def test_3d_models_are_known_binary_or_text(tmp_path: Path) -> None:
    # a binary STL's free header often starts "solid", as an ASCII STL does: the size decides
    binary = b"solid exported by a CAD program".ljust(80, b" ") + struct.pack("<I", 2) + bytes(100)
    assert _sniff(tmp_path, binary).format == "stl"
    ascii_stl = "solid cube\n  facet normal 0 0 1\n    outer loop\n      vertex 0 0 0\n"
    assert _sniff(tmp_path, ascii_stl).format == "stl"
    assert _sniff(tmp_path, "solid ground is what we need\n").format == "txt"
    assert _sniff(tmp_path, b"ply\nformat binary_little_endian 1.0\nend_header\n\x00\x01").format == "ply"
    assert _sniff(tmp_path, b"glTF\x02\x00\x00\x00" + struct.pack("<I", 12)).format == "glb"
    gltf = json.dumps({"asset": {"version": "2.0"}, "scenes": []})
    assert _sniff(tmp_path, gltf) == Sniffed("gltf", frozenset({"gltf", "json"}))
    collada = '<?xml version="1.0"?>\n<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema"/>'
    assert _sniff(tmp_path, collada) == Sniffed("dae", frozenset({"dae", "xml"}))


@pytest.mark.parametrize(
    ("text", "fmt", "accepts"),
    [
        ('{"a": [1, 2]}', "json", {"json"}),
        ("true", "txt", {"txt", "text", "log", "md"}),  # JSON only when it starts an object or array
        ("true story, told twice\n", "txt", {"txt", "text", "log", "md", "csv"}),  # not a TrueType font
        ("<!Doctype HTML><title>x</title>", "html", {"html", "htm"}),
        ("\ufeff[1, 2, 3]\n", "json", {"json"}),
        ("<!DOCTYPE html>\n<html><body>Hi</body></html>", "html", {"html", "htm"}),
        ("<html lang='en'><p>Hi</p></html>", "html", {"html", "htm"}),
        ('<?xml version="1.0"?>\n<!DOCTYPE html>\n<html xmlns="http://www.w3.org/1999/xhtml"/>', "html",
         {"html", "htm"}),
        ('<?xml version="1.0"?>\n<!-- made by hand -->\n<svg xmlns="http://www.w3.org/2000/svg"/>', "svg",
         {"svg", "xml"}),
        ('<?xml version="1.0"?>\n<catalog><book/></catalog>', "xml", {"xml"}),
        ("WEBVTT\n\n00:00.000 --> 00:01.000\nHello\n", "vtt", {"vtt"}),
        ("1\r\n00:00:00,000 --> 00:00:01,500\r\nHello\r\n", "srt", {"srt"}),
        ("{\\rtf1\\ansi Hello}", "rtf", {"rtf"}),
        ("name,count\nquokka,12\n\"Bald, Isle\",3\n", "txt", {"txt", "text", "log", "md", "csv"}),
        ("name\tcount\nquokka\t12\n", "txt", {"txt", "text", "log", "md", "tsv"}),
        ("Dear reader, hello.\nNo commas here\n", "txt", {"txt", "text", "log", "md"}),
        ("{ not json\n", "txt", {"txt", "text", "log", "md"}),
    ],
)  # fmt: skip
def test_text_formats_are_told_apart(tmp_path: Path, text: str, fmt: str, accepts: set[str]) -> None:
    assert _sniff(tmp_path, text, "output.txt") == Sniffed(fmt, frozenset(accepts))


def test_text_is_known_past_the_first_64_kib_and_in_utf16(tmp_path: Path) -> None:
    # a JSON document is parsed whole; a character cut at the 64 KiB mark is still text
    assert _sniff(tmp_path, json.dumps(list(range(20_000)))).format == "json"
    assert _sniff(tmp_path, "a" + "é" * 40_000).format == "txt"
    assert _sniff(tmp_path, "hello\nworld\n".encode("utf-16")).format == "txt"


def test_empty_and_unknown_bytes_are_unknown(tmp_path: Path) -> None:
    assert _sniff(tmp_path, b"") == Sniffed(None, frozenset())
    assert _sniff(tmp_path, bytes(range(256)) * 8) == Sniffed(None, frozenset())
    assert _sniff(tmp_path, b"BM is a word at the start of this text").format == "txt"


@pytest.mark.engines
@pytest.mark.parametrize(
    ("source", "arguments", "name", "fmt"),
    [
        ("tone.wav", ["-c:a", "libmp3lame"], "out.mp3", "mp3"),
        ("tone.wav", ["-c:a", "libvorbis"], "out.ogg", "ogg"),
        ("tone.wav", ["-c:a", "libopus"], "out.opus", "opus"),
        ("tone.wav", ["-c:a", "flac"], "out.flac", "flac"),
        ("tone.wav", ["-c:a", "aac"], "out.m4a", "m4a"),
        ("tone.wav", ["-c:a", "aac", "-f", "adts"], "out.aac", "aac"),
        ("clip.mp4", ["-c", "copy"], "out.mov", "mov"),
        ("clip.mp4", ["-c", "copy"], "out.mkv", "mkv"),
        ("clip.mp4", ["-t", "0.2", "-c:v", "libvpx", "-c:a", "libopus"], "out.webm", "webm"),
        ("clip.mp4", ["-t", "0.2", "-c:v", "mpeg4", "-c:a", "pcm_s16le"], "out.avi", "avi"),
    ],
)
def test_what_ffmpeg_writes_is_known(
    tmp_path: Path, source: str, arguments: list[str], name: str, fmt: str
) -> None:
    ffmpeg = engine_program("ffmpeg", "ffmpeg")
    out = tmp_path / name
    command = [ffmpeg, "-v", "error", "-nostdin", "-i", str(ASSETS / source), *arguments, str(out)]
    subprocess.run(command, check=True, timeout=120)
    renamed = out.rename(tmp_path / "output.bin")  # the bytes, not the name, decide
    assert sniff_format(renamed).format == fmt
