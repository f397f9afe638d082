"""Facts of one output file that expectations ask for: its picture size, page count, text, streams
and archive members. Each is read only when asked (a case that counts files opens none), and each
reader answers None (or "") for a file it cannot read rather than raising: the expectation then says
what it expected and that the file is not that kind.

The one exception is a program that is missing: ``media_info`` raises ``ReaderMissing`` without
ffprobe, so that `mcv test` can say what to install instead of failing the case.
"""

from __future__ import annotations

import contextlib
import json
import lzma
import math
import re
import shutil
import subprocess
import tarfile
import warnings
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import py7zr
import py7zr.exceptions
from PIL import Image
from pypdf import PdfReader

from mcv_pipelines.testing import isobmff
from mcv_pipelines.testing.markup import TAG_ATTRIBUTES, attributes, strip_markup
from mcv_pipelines.testing.office_text import OFFICE_FORMATS, office_text
from mcv_pipelines.testing.sniff import HEAD_BYTES, sniff_format
from mcv_pipelines.testing.text_kind import decode_text

__all__ = [
    "ARCHIVE_FORMATS",
    "MARKUP_FORMATS",
    "TEXT_FORMATS",
    "TEXT_LIMIT",
    "MediaInfo",
    "ReaderMissing",
    "archive_members",
    "image_size",
    "media_info",
    "page_count",
    "text_of",
]

TEXT_LIMIT = 20 * 1000 * 1000  # bytes of a file (or of a document's members) read for its text
FFPROBE_TIMEOUT = 60.0
MARKUP_FORMATS = frozenset({"html", "htm", "xml", "svg", "dae"})
# Formats whose bytes are their text (ASCII STL and PLY are; their binary forms have NUL bytes).
TEXT_FORMATS = frozenset(
    {"txt", "text", "log", "md", "csv", "tsv", "json", "gltf", "srt", "vtt", "rtf", "obj", "stl", "ply"}
    | {"ps", "eps"}
)
_TARS = frozenset({"tar", "tar.gz", "tgz", "tar.xz", "txz", "tar.bz2", "tbz2"})
ARCHIVE_FORMATS = frozenset({"zip", "7z"}) | _TARS
_NUMBER = re.compile(r"\s*(\d+(?:\.\d*)?|\.\d+)\s*(?:px)?\s*")
_SVG_ROOT = re.compile(rf"<(?:[\w.-]+:)?svg\b({TAG_ATTRIBUTES})>")
# What readers of damaged archives raise besides their own errors.
_DAMAGED = (OSError, EOFError, ValueError, KeyError, zlib.error, lzma.LZMAError)
_SEVEN_Z_ERRORS = (py7zr.exceptions.ArchiveError, py7zr.exceptions.PasswordRequired)


class ReaderMissing(Exception):
    """A program that reads some facts of files is not installed, or what is installed under its name is
    another program: ``purpose`` says what it reads and what is wrong."""

    def __init__(self, program: str, purpose: str) -> None:
        super().__init__(f"{program}, which {purpose}")
        self.program = program
        self.purpose = purpose


@dataclass(frozen=True, slots=True)
class MediaInfo:
    """What ffprobe says of an audio or video file: seconds, and each stream's kind and codec in the
    file's order (``("video", "audio")``, ``("h264", "aac")``)."""

    duration: float | None
    streams: tuple[str, ...]
    codecs: tuple[str, ...]
    size: tuple[int, int] | None = None  # the first video stream's width and height


def image_size(path: Path) -> tuple[int, int] | None:
    """Width and height in pixels, as stored (an EXIF rotation is not applied), without decoding the
    picture; None when the file is no picture this can read.

    SVG: its ``width`` and ``height`` when they are plain numbers (or px), else its viewBox's. HEIC and
    AVIF without a Pillow plugin: the size their header records.
    """
    fmt = sniff_format(path).format
    if fmt == "svg":
        return _svg_size(path)
    try:
        with warnings.catch_warnings():
            # only the header is read: a huge picture costs nothing here
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(path) as image:
                return image.size
    except (OSError, ValueError, Image.DecompressionBombError):
        pass
    return isobmff.ispe_size(path) if fmt in ("avif", "heic") else None


def page_count(path: Path) -> int | None:
    """The number of pages of a PDF; None for any other file, or a PDF pypdf cannot read."""
    if sniff_format(path).format != "pdf":
        return None
    try:
        return len(_pdf(path).pages)
    except Exception:  # pypdf raises all kinds of errors on damaged files
        return None


def text_of(path: Path, fmt: str | None) -> str:
    """The text a reader of the ``fmt`` file sees: a PDF's pages, a line a page; the words of an office
    document or e-book; markup without its tags; a text file as it is; "" for binary files.

    At most 20 MB of the file (or of the document's members) is read.
    """
    try:
        if fmt == "pdf":
            return _pdf_text(path)
        if fmt in OFFICE_FORMATS:
            return office_text(path, fmt, TEXT_LIMIT)
    except (zipfile.BadZipFile, *_DAMAGED):
        return ""
    if fmt in MARKUP_FORMATS:
        return strip_markup(_plain_text(path))
    return _plain_text(path) if fmt in TEXT_FORMATS else ""


def media_info(path: Path) -> MediaInfo | None:
    """Duration, streams and codecs of an audio or video file as ffprobe reads them; None when ffprobe
    cannot read the file (or takes more than a minute). A still picture is a video stream to ffprobe.

    Raises ReaderMissing when ffprobe is not on PATH.
    """
    program = shutil.which("ffprobe")
    if program is None:
        raise ReaderMissing(
            "ffprobe", "reads durations, streams and codecs, is not installed: install FFmpeg"
        )
    command = [program, "-v", "error", "-show_format", "-show_streams", "-of", "json"]
    try:
        # file: so that a name with a colon or a leading dash is a file, not a protocol or an option
        done = subprocess.run(
            [*command, f"file:{path.resolve()}"], capture_output=True, timeout=FFPROBE_TIMEOUT, check=False
        )
    except (subprocess.TimeoutExpired, OSError):
        return None
    if done.returncode != 0:
        return None  # FFmpeg cannot read this file
    try:
        report = json.loads(done.stdout)
    except ValueError:
        report = None
    if not isinstance(report, dict) or not isinstance(report.get("streams"), list):
        # It answered, but not as FFmpeg's ffprobe does: a wrapper or another program of that name.
        raise ReaderMissing(
            "ffprobe", f"reads durations, streams and codecs; the one at {program} is not FFmpeg's"
        )
    streams = [s for s in report["streams"] if isinstance(s, dict)]
    found = report.get("format")
    duration = _seconds(found.get("duration")) if isinstance(found, dict) else None
    if duration is None:
        lengths = [s for s in (_seconds(stream.get("duration")) for stream in streams) if s is not None]
        duration = max(lengths, default=None)
    video = next((s for s in streams if s.get("codec_type") == "video"), None)
    width, height = (video.get("width"), video.get("height")) if video else (None, None)
    return MediaInfo(
        duration,
        tuple(str(stream.get("codec_type", "unknown")) for stream in streams),
        tuple(str(stream.get("codec_name", "unknown")) for stream in streams),
        (width, height) if isinstance(width, int) and isinstance(height, int) else None,
    )


def archive_members(path: Path, fmt: str | None) -> tuple[str, ...] | None:
    """The names of the files (not folders) in a zip, tar (compressed or not) or 7z archive, sorted;
    a tar's leading ``./`` is dropped. None for other formats, or an archive that cannot be read."""
    try:
        if fmt == "zip":
            with zipfile.ZipFile(path) as archive:
                names = [info.filename for info in archive.infolist() if not info.is_dir()]
        elif fmt in _TARS:
            with tarfile.open(path, "r:*") as tar:
                names = [_without_dot(member.name) for member in tar if not member.isdir()]
        elif fmt == "7z":
            with py7zr.SevenZipFile(path, "r") as seven:
                names = [entry.filename for entry in seven.list() if not entry.is_directory]
        else:
            return None
    except (zipfile.BadZipFile, tarfile.TarError, *_SEVEN_Z_ERRORS, *_DAMAGED):
        return None
    return tuple(sorted(names))


def _without_dot(name: str) -> str:
    while name.startswith("./"):
        name = name[2:]
    return name


def _pdf(path: Path) -> PdfReader:
    reader = PdfReader(path)
    if reader.is_encrypted:
        reader.decrypt("")  # a PDF that opens without a password is encrypted with an empty one
    return reader


def _pdf_text(path: Path) -> str:
    pages: list[str] = []
    read = 0
    # pypdf raises all kinds of errors on damaged files: the pages read until then are kept
    with contextlib.suppress(Exception):
        for page in _pdf(path).pages:
            pages.append(page.extract_text())
            read += len(pages[-1])
            if read >= TEXT_LIMIT:
                break
    return "\n".join(pages)[:TEXT_LIMIT]


def _plain_text(path: Path) -> str:
    with path.open("rb") as handle:
        data = handle.read(TEXT_LIMIT)
    if decode_text(data[:HEAD_BYTES], truncated=len(data) > HEAD_BYTES) is None:
        return ""  # binary STL or PLY
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        text = data.decode("utf-16", errors="replace")
    else:
        text = data.decode("utf-8-sig", errors="replace")
    return text.replace("\r\n", "\n")


def _svg_size(path: Path) -> tuple[int, int] | None:
    with path.open("rb") as handle:
        head = decode_text(handle.read(HEAD_BYTES), truncated=True) or ""
    root = _SVG_ROOT.search(head)
    if root is None:
        return None
    found = attributes(root.group(1))
    width, height = (_number(found.get(name, "")) for name in ("width", "height"))
    if width is not None and height is not None:
        return round(width), round(height)
    box = re.split(r"[\s,]+", found.get("viewBox", "").strip())
    numbers = [_number(value) for value in box]
    if len(numbers) == 4 and numbers[2] is not None and numbers[3] is not None:
        return round(numbers[2]), round(numbers[3])
    return None


def _number(text: str) -> float | None:
    match = _NUMBER.fullmatch(text)
    return float(match.group(1)) if match else None


def _seconds(value: Any) -> float | None:
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        return None
    return seconds if math.isfinite(seconds) and seconds >= 0 else None
