"""The format of a file told from its bytes, never its name: an expectation ``format: webp`` must fail
on a PNG named ``.webp``. Formats are named as the service names them (``jpg``, ``tar.gz``, ``m4a``).

Most formats are known from their first bytes (at most 64 KiB are read). Containers are looked into as
far as they must be: a zip's directory says docx, epub or odt; the first member header inside gz, xz or
bz2 data says tar.gz, tar.xz or tar.bz2; an ISO media file's brands say mp4, mov, m4a, heic or avif; a
Matroska file's DocType says webm or mkv. Text is told apart by ``text_kind``.

A WebP picture named ``photo.png`` sniffs as ``Sniffed(format='webp', accepts=frozenset({'webp'}))``.

JSON is JSON only when it all parses: a file that starts like JSON is read whole, up to 20 MB (past that
it is plain text).
"""

from __future__ import annotations

import lzma
import os
import tarfile
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from mcv_pipelines.testing import isobmff
from mcv_pipelines.testing.text_kind import decode_text, text_format

__all__ = ["HEAD_BYTES", "Sniffed", "sniff_format"]

HEAD_BYTES = 64 * 1024
_WHOLE_JSON_LIMIT = 20 * 1000 * 1000  # JSON is JSON only if it all parses: read that much of it at most


@dataclass(frozen=True, slots=True)
class Sniffed:
    """``format`` is the best name for the bytes, ``accepts`` every name they may have (a TrueType font
    is also a valid ``otf``, a text file also ``md``); None and empty when they are not known."""

    format: str | None
    accepts: frozenset[str]


UNKNOWN = Sniffed(None, frozenset())


def _named(fmt: str, *also: str) -> Sniffed:
    return Sniffed(fmt, frozenset({fmt, *also}))


def sniff_format(path: Path) -> Sniffed:
    """What the file at ``path`` is, from its bytes (UNKNOWN for no bytes or unknown binary data)."""
    with path.open("rb") as handle:
        head = handle.read(HEAD_BYTES)
        size = os.fstat(handle.fileno()).st_size
    if not head:
        return UNKNOWN
    for prefixes, sniffed in _PREFIXES:
        if head.startswith(prefixes):
            return sniffed
    for test in _TESTS:
        found = test(path, head, size)
        if found is not None:
            return found
    return _text(path, head, size)


_PREFIXES: tuple[tuple[tuple[bytes, ...], Sniffed], ...] = (
    ((b"\xff\xd8\xff",), _named("jpg", "jpeg")),
    ((b"GIF87a", b"GIF89a"), _named("gif")),
    ((b"II*\x00", b"MM\x00*", b"II+\x00", b"MM\x00+"), _named("tiff", "tif")),
    ((b"8BPS",), _named("psd")),
    ((b"\xff\x0a", b"\x00\x00\x00\x0cJXL \r\n\x87\n"), _named("jxl")),
    ((b"7z\xbc\xaf\x27\x1c",), _named("7z")),
    ((b"Rar!\x1a\x07",), _named("rar")),
    ((b"wOFF",), _named("woff")),
    ((b"wOF2",), _named("woff2")),
    ((b"fLaC",), _named("flac")),
    ((b"ply\n", b"ply\r\n"), _named("ply")),
    ((b"\xc5\xd0\xd3\xc6",), _named("eps", "ps")),  # an EPS with a DOS binary header
)


def _png(path: Path, head: bytes, size: int) -> Sniffed | None:
    if not head.startswith(b"\x89PNG\r\n\x1a\n"):
        return None
    idat = head.find(b"IDAT")
    animated = b"acTL" in (head[:idat] if idat >= 0 else head)
    return _named("apng", "png") if animated else _named("png")


def _riff(path: Path, head: bytes, size: int) -> Sniffed | None:
    if head[:4] not in (b"RIFF", b"RF64", b"BW64"):
        return None
    return {b"WEBP": _named("webp"), b"WAVE": _named("wav"), b"AVI ": _named("avi")}.get(head[8:12])


def _bmp(path: Path, head: bytes, size: int) -> Sniffed | None:
    # "BM" alone starts words too: the size of the info header must be one that exists
    info = int.from_bytes(head[14:18], "little")
    return _named("bmp") if head[:2] == b"BM" and info in (12, 40, 52, 56, 64, 108, 124) else None


def _ico(path: Path, head: bytes, size: int) -> Sniffed | None:
    if head[:4] != b"\x00\x00\x01\x00" or len(head) < 22:
        return None
    count = int.from_bytes(head[4:6], "little")
    reserved, first_offset = head[9], int.from_bytes(head[18:22], "little")
    return _named("ico") if count and reserved == 0 and first_offset >= 6 + 16 * count else None


def _font(path: Path, head: bytes, size: int) -> Sniffed | None:
    # "true" and "OTTO" start words too: the number of tables that follows must be a font's
    if not 1 <= int.from_bytes(head[4:6], "big") <= 100:
        return None
    if head[:4] == b"OTTO":
        return _named("otf")
    # TrueType outlines are just as much OpenType: fonts with them are named .otf as often as .ttf
    return _named("ttf", "otf") if head[:4] in (b"\x00\x01\x00\x00", b"true") else None


def _glb(path: Path, head: bytes, size: int) -> Sniffed | None:
    version = int.from_bytes(head[4:8], "little")
    return _named("glb") if head[:4] == b"glTF" and version in (1, 2) else None


def _pdf_or_postscript(path: Path, head: bytes, size: int) -> Sniffed | None:
    if b"%PDF-" in head[:1024]:  # readers accept a header after some leading junk
        return _named("pdf")
    if not head.startswith((b"%!", b"\x04%!")):
        return None
    return _named("eps", "ps") if b"EPSF" in head.split(b"\n", 1)[0] else _named("ps")


def _zip(path: Path, head: bytes, size: int) -> Sniffed | None:
    if not head.startswith((b"PK\x03\x04", b"PK\x05\x06")):
        return None
    try:
        with zipfile.ZipFile(path) as archive:
            names = archive.namelist()
            if "mimetype" in names:
                with archive.open("mimetype") as member:
                    mimetype = member.read(100).decode("ascii", errors="replace").strip()
                fmt = _OPEN_DOCUMENT.get(mimetype)
                if fmt:
                    return _named(fmt, "zip")
    except (zipfile.BadZipFile, OSError, zlib.error, NotImplementedError):
        return _named("zip")  # the signature says zip; a broken one fails where it is read
    if "[Content_Types].xml" in names:
        for folder, fmt in (("word/", "docx"), ("xl/", "xlsx"), ("ppt/", "pptx")):
            if any(name.startswith(folder) for name in names):
                return _named(fmt, "zip")
    return _named("zip")


_OPEN_DOCUMENT = {
    "application/epub+zip": "epub",
    "application/vnd.oasis.opendocument.text": "odt",
    "application/vnd.oasis.opendocument.spreadsheet": "ods",
    "application/vnd.oasis.opendocument.presentation": "odp",
    "application/vnd.oasis.opendocument.graphics": "odg",
}


def _compressed(path: Path, head: bytes, size: int) -> Sniffed | None:
    mode: Literal["r|gz", "r|bz2", "r|xz"]
    if head.startswith(b"\x1f\x8b"):
        outer, short, mode = "gz", "tgz", "r|gz"
    elif head.startswith(b"BZh") and head[4:10] in (b"1AY&SY", b"\x17rE8P\x90"):
        outer, short, mode = "bz2", "tbz2", "r|bz2"
    elif head.startswith(b"\xfd7zXZ\x00"):
        outer, short, mode = "xz", "txz", "r|xz"
    else:
        return None
    try:  # streaming: only the first member's header is decompressed and read
        with tarfile.open(path, mode=mode):
            return _named(f"tar.{outer}", outer, short)
    except (tarfile.TarError, EOFError, OSError, zlib.error, lzma.LZMAError):
        return _named(outer)


def _tar(path: Path, head: bytes, size: int) -> Sniffed | None:
    return _named("tar") if head[257:262] == b"ustar" else None


def _kindle(path: Path, head: bytes, size: int) -> Sniffed | None:
    """A PalmDB e-book: a MOBI header of version 8 is KF8 only (azw3); an older one is mobi, which a
    recipe that meant azw3 must not pass for (it is another reader's format: old Kindles only)."""
    if head[60:68] != b"BOOKMOBI" or len(head) < 82:
        return None
    record0 = int.from_bytes(head[78:82], "big")
    mobi = head[record0 + 16 : record0 + 40]
    version = int.from_bytes(mobi[20:24], "big") if mobi[:4] == b"MOBI" else 0
    if version == 8:
        return Sniffed("azw3", frozenset({"azw3", "azw"}))
    return Sniffed("mobi", frozenset({"mobi", "azw"}))


def _binary_stl(path: Path, head: bytes, size: int) -> Sniffed | None:
    # The 80-byte header is free text (often "solid ..."): the triangle count must fit the size.
    if size < 84:
        return None
    return _named("stl") if 84 + 50 * int.from_bytes(head[80:84], "little") == size else None


def _iso_media(path: Path, head: bytes, size: int) -> Sniffed | None:
    found = isobmff.brands(head)
    if found is None:
        # old QuickTime files may open with another box than ftyp
        return _named("mov", "qt") if head[4:8] in (b"moov", b"mdat", b"wide", b"free", b"pnot") else None
    major, brands = found
    if major in ("avif", "avis") or ({"avif", "avis"} & brands and major in ("mif1", "msf1", "miaf")):
        return _named("avif")
    if {"heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1"} & brands:
        return _named("heic", "heif")
    if major in ("M4A", "M4B", "M4P"):
        return _named("m4a", "mp4", major.lower())
    if major == "qt":
        return _named("mov", "qt")
    if major.startswith("3g2"):
        return _named("3g2", "3gp")
    if major.startswith("3g"):
        return _named("3gp")
    return _named("mp4", "m4v")


def _matroska(path: Path, head: bytes, size: int) -> Sniffed | None:
    if not head.startswith(b"\x1a\x45\xdf\xa3"):
        return None
    at = head.find(b"\x42\x82", 4, 64)  # the EBML header's DocType: its size, then "webm" or "matroska"
    return _named("webm") if at >= 0 and b"webm" in head[at + 2 : at + 12] else _named("mkv", "mka")


def _ogg(path: Path, head: bytes, size: int) -> Sniffed | None:
    if not head.startswith(b"OggS"):
        return None
    if b"OpusHead" in head:
        return _named("opus", "ogg", "oga")
    return _named("ogg", "ogv") if b"\x80theora" in head else _named("ogg", "oga")


def _mpeg_audio(path: Path, head: bytes, size: int) -> Sniffed | None:
    if head.startswith(b"ID3") and len(head) >= 10:
        # an ID3v2 tag (its size is 7 bits a byte), perhaps a footer, then the audio: mp3 unless the
        # frames after it say otherwise (the tag may be larger than the head: album art)
        end = 10 + sum((byte & 0x7F) << (7 * (3 - i)) for i, byte in enumerate(head[6:10]))
        end += 10 if head[5] & 0x10 else 0
        with path.open("rb") as handle:
            handle.seek(end)
            after = handle.read(16).lstrip(b"\x00")
        return _named("flac") if after.startswith(b"fLaC") else _frames(after) or _named("mp3")
    return _frames(head)


def _frames(head: bytes) -> Sniffed | None:
    """aac or mp3 when ``head`` starts with an ADTS or an MPEG audio layer III frame header."""
    if len(head) < 3 or head[0] != 0xFF:
        return None
    if head[1] & 0xF6 == 0xF0 and (head[2] >> 2) & 0x0F < 13:  # ADTS: 12 sync bits, layer 0
        return _named("aac")
    # layers I and II are mp1 and mp2 (and a UTF-16 BOM looks like layer I)
    version, layer = (head[1] >> 3) & 3, (head[1] >> 1) & 3
    valid = head[1] & 0xE0 == 0xE0 and version != 1 and layer == 1
    return _named("mp3") if valid and head[2] >> 4 != 15 and (head[2] >> 2) & 3 != 3 else None


_TESTS: tuple[Callable[[Path, bytes, int], Sniffed | None], ...] = (
    _png, _riff, _bmp, _ico, _font, _glb, _pdf_or_postscript, _zip, _compressed, _tar, _kindle, _iso_media,
    _matroska, _ogg, _mpeg_audio, _binary_stl,
)  # fmt: skip


def _text(path: Path, head: bytes, size: int) -> Sniffed:
    truncated = size > len(head)
    text = decode_text(head, truncated=truncated)
    if text is None:
        return UNKNOWN
    whole = None
    if text.lstrip().startswith(("{", "[")):
        whole = text
        if truncated and size <= _WHOLE_JSON_LIMIT:
            whole = decode_text(path.read_bytes(), truncated=False)
    fmt, accepts = text_format(text, truncated=truncated, whole=whole)
    return Sniffed(fmt, accepts | {fmt})
