"""An output compared with its golden file, by kind: pictures by how alike they look (encoders and
their versions never make the same bytes twice), PDFs and office documents by pages and words, audio
and video by duration and streams, archives by member names, text by text, anything else by bytes.

A photo that came out mirrored compares as ``Comparison(same=False, detail='similarity 0.81 < 0.95')``.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from operator import mul
from pathlib import Path

from PIL import Image

from mcv_pipelines.testing.differences import (
    bytes_difference,
    lines_difference,
    members_difference,
    text_difference,
)
from mcv_pipelines.testing.office_text import OFFICE_FORMATS
from mcv_pipelines.testing.probe import ARCHIVE_FORMATS, archive_members, media_info, page_count, text_of

__all__ = ["DURATION_TOLERANCE", "Comparison", "compare", "image_similarity"]

DURATION_TOLERANCE = 0.1  # seconds
_SIDE, _BLOCK = 64, 8
_C1, _C2 = (0.01 * 255) ** 2, (0.03 * 255) ** 2
# Pillow reads these without a plugin; avif, heic, jxl and psd are pictures only where Pillow opens them.
_IMAGES = frozenset({"jpg", "jpeg", "png", "apng", "webp", "gif", "tiff", "tif", "bmp", "ico"})
_PERHAPS_IMAGES = frozenset({"avif", "heic", "heif", "jxl", "psd"})
_MEDIA = frozenset(
    {"mp4", "m4a", "m4v", "mov", "qt", "3gp", "3g2", "webm", "mkv", "mka", "avi"}
    | {"mp3", "wav", "ogg", "oga", "ogv", "opus", "flac", "aac"}
)
_TEXTS = frozenset(
    {"txt", "text", "log", "md", "csv", "tsv", "json", "gltf", "xml", "html", "htm", "svg", "dae"}
    | {"srt", "vtt", "obj", "rtf"}
)


@dataclass(frozen=True, slots=True)
class Comparison:
    """Whether an output is the same as its golden file; ``detail`` says how it differs (or how alike
    it is) in words a user reads: ``similarity 0.81 < 0.95``, ``3 pages, golden has 2``."""

    same: bool
    detail: str


def image_similarity(a: Path, b: Path) -> float:
    """How alike two pictures look: 1.0 for the same picture, less the less alike they are (towards 0,
    or below it for a negative image).

    The mean structural similarity (SSIM) of their luminance at 64 x 64 pixels: each picture has any
    transparency composited over white, becomes grey levels, and is shrunk to 64 x 64 with a box filter
    (pixel averages); SSIM (C1 = (0.01*255)^2, C2 = (0.03*255)^2) is computed on each of the 64
    non-overlapping 8 x 8 blocks, from their means, population variances and covariance, and averaged.
    Re-encoding a photo as JPEG at a lower quality stays above 0.95; a picture flipped, cropped or
    recoloured falls well below. Sizes may differ (both are shrunk to 64 x 64).
    """
    return _ssim(_thumbnail(a)[1], _thumbnail(b)[1])


def compare(actual: Path, golden: Path, fmt: str | None, *, threshold: float = 0.95) -> Comparison:
    """Whether ``actual`` (a file of format ``fmt``, as sniffed) is the same as ``golden``, by its kind.

    Pictures: same width and height, and ``image_similarity`` at least ``threshold``. PDFs: the page
    count, and the text with whitespace collapsed. Audio and video: duration within 0.1 s, the same
    streams and codecs (ffprobe; ReaderMissing without it). Archives: member names. Office documents and
    e-books: the text. Text: line by line, line ends and trailing whitespace aside. Else: the bytes.
    """
    if fmt in _IMAGES or (fmt in _PERHAPS_IMAGES and _opens(actual) and _opens(golden)):
        return _pictures(actual, golden, threshold)
    if fmt == "pdf":
        return _pdfs(actual, golden)
    if fmt in _MEDIA:
        return _media(actual, golden)
    if fmt in ARCHIVE_FORMATS:
        mine, theirs = archive_members(actual, fmt), archive_members(golden, fmt)
        if mine is None or theirs is None:
            return Comparison(False, f"cannot list the {fmt} archive{_which(mine is None)}")
        return _same(members_difference(mine, theirs), f"same {len(mine)} members")
    if fmt in OFFICE_FORMATS:
        return _same(text_difference(*(_words(text_of(p, fmt)) for p in (actual, golden))), "same text")
    if fmt in _TEXTS:
        return _same(lines_difference(_lines(actual), _lines(golden)), "same text")
    return _same(bytes_difference(actual, golden), "same bytes")


def _same(difference: str | None, alike: str) -> Comparison:
    return Comparison(difference is None, difference or alike)


def _which(actual: bool) -> str:
    return "" if actual else " of the golden file"


def _pictures(actual: Path, golden: Path, threshold: float) -> Comparison:
    pictures = []
    for path in (actual, golden):
        try:
            pictures.append(_thumbnail(path))
        except (OSError, ValueError, Image.DecompressionBombError) as exc:
            return Comparison(False, f"cannot read the picture{_which(path == actual)}: {exc}")
    (size, mine), (golden_size, theirs) = pictures
    if size != golden_size:
        return Comparison(False, f"{size[0]}x{size[1]} pixels, golden {golden_size[0]}x{golden_size[1]}")
    score = _ssim(mine, theirs)
    decimals = max(2, len(f"{threshold:g}".partition(".")[2]))
    shown = f"{math.floor(score * 10**decimals + 1e-9) / 10**decimals:.{decimals}f}"  # 0.949 is not 0.95
    if score < threshold:
        return Comparison(False, f"similarity {shown} < {threshold:g}")
    return Comparison(True, f"similarity {shown}")


def _pdfs(actual: Path, golden: Path) -> Comparison:
    pages = page_count(actual), page_count(golden)
    if pages[0] is None or pages[1] is None:
        return Comparison(False, f"cannot read the PDF{_which(pages[0] is None)}")
    if pages[0] != pages[1]:
        return Comparison(False, f"{_pages(pages[0])}, golden has {pages[1]}")
    difference = text_difference(*(_words(text_of(path, "pdf")) for path in (actual, golden)))
    return _same(difference, f"{_pages(pages[0])}, same text")


def _pages(count: int) -> str:
    return f"{count} page{'' if count == 1 else 's'}"


def _media(actual: Path, golden: Path) -> Comparison:
    mine, theirs = media_info(actual), media_info(golden)
    if mine is None or theirs is None:
        return Comparison(False, f"ffprobe cannot read the file{_which(mine is None)}")
    found = []
    if mine.duration is None or theirs.duration is None:
        if mine.duration != theirs.duration:
            found.append(f"duration {_seconds(mine.duration)}, golden {_seconds(theirs.duration)}")
    elif abs(mine.duration - theirs.duration) > DURATION_TOLERANCE + 1e-9:
        found.append(f"duration {_seconds(mine.duration)}, golden {_seconds(theirs.duration)}")
    if mine.streams != theirs.streams:
        found.append(f"streams {','.join(mine.streams)} vs {','.join(theirs.streams)}")
    if mine.codecs != theirs.codecs:
        found.append(f"codecs {','.join(mine.codecs)} vs {','.join(theirs.codecs)}")
    return _same("; ".join(found) or None, "same duration, streams and codecs")


def _seconds(duration: float | None) -> str:
    return "unknown" if duration is None else f"{duration:.2f} s"


def _words(text: str) -> str:
    return " ".join(text.split())


def _lines(path: Path) -> Iterator[str]:
    """The file's lines without their ends (CRLF, LF or CR) and trailing whitespace, read one by one."""
    with path.open("rb") as handle:
        encoding = "utf-16" if handle.read(2) in (b"\xff\xfe", b"\xfe\xff") else "utf-8-sig"
    with path.open(encoding=encoding, errors="replace", newline=None) as handle:
        for line in handle:
            yield line.rstrip()


def _opens(path: Path) -> bool:
    try:
        _thumbnail(path)
    except (OSError, ValueError, Image.DecompressionBombError):
        return False
    return True


def _thumbnail(path: Path) -> tuple[tuple[int, int], bytes]:
    """The picture's size, and its luminance at 64 x 64 (alpha over white), a byte a pixel."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", Image.DecompressionBombWarning)
        with Image.open(path) as image:
            size = image.size
            image.draft(None, (_SIDE, _SIDE))  # a JPEG decodes at 1/2 to 1/8 scale: far less work
            if "A" in image.getbands() or "transparency" in image.info:
                frame = image if image.mode in ("RGBA", "LA") else image.convert("RGBA")
            elif image.mode.startswith("I"):  # 16-bit grey: brought to 8 bits after shrinking
                frame = image.convert("I")
            else:
                frame = image if image.mode in ("RGB", "L") else image.convert("RGB")
            small = frame.resize((_SIDE, _SIDE), Image.Resampling.BOX)  # alpha-weighted averages
    if small.mode in ("RGBA", "LA"):
        white = Image.new("RGBA", small.size, (255, 255, 255, 255))
        small = Image.alpha_composite(white, small.convert("RGBA"))
    elif small.mode == "I":
        small = small.point(lambda value: value / 256)
    return size, small.convert("L").tobytes()


def _ssim(x: bytes, y: bytes) -> float:
    n = _BLOCK * _BLOCK
    total = 0.0
    for top in range(0, _SIDE, _BLOCK):
        for left in range(0, _SIDE, _BLOCK):
            rows = range((top * _SIDE) + left, (top + _BLOCK) * _SIDE, _SIDE)
            a = b"".join(x[start : start + _BLOCK] for start in rows)
            b = b"".join(y[start : start + _BLOCK] for start in rows)
            sa, sb = sum(a), sum(b)
            # integer sums: an identical block gives exactly 1.0
            var_a = (n * sum(map(mul, a, a)) - sa * sa) / (n * n)
            var_b = (n * sum(map(mul, b, b)) - sb * sb) / (n * n)
            cov = (n * sum(map(mul, a, b)) - sa * sb) / (n * n)
            mean_a, mean_b = sa / n, sb / n
            numerator = (2 * mean_a * mean_b + _C1) * (2 * cov + _C2)
            total += numerator / ((mean_a * mean_a + mean_b * mean_b + _C1) * (var_a + var_b + _C2))
    return total / (_SIDE // _BLOCK) ** 2
