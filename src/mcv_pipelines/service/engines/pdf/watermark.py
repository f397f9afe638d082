"""Watermarks on PDF pages: real text in Helvetica, or an image, with opacity through an ExtGState.

The text is drawn as a PDF text object (so it stays text: selectable, extractable), in the standard
Type 1 font Helvetica with WinAnsi encoding; characters outside that encoding become ``?``. Sizes are
in points. The overlay is positioned in the page's visible box after any ``/Rotate`` has been moved
into the content, so "top" is the top the reader sees.
"""

from __future__ import annotations

import math

from pypdf import PageObject
from pypdf.generic import (
    DecodedStreamObject,
    DictionaryObject,
    FloatObject,
    NameObject,
)

from mcv_pipelines.service.engines.image.watermark import WatermarkStyle
from mcv_pipelines.service.engines.placement import place

__all__ = ["helvetica_width", "image_overlay_page", "text_overlay_page"]

_FONT = "/MCVWatermarkFont"
_STATE = "/MCVWatermarkState"
_ASCENT = 0.718  # Helvetica cap height, in em
_DESCENT = 0.207
_LEADING = 1.2

# Helvetica advance widths (1/1000 em) for ASCII 32..126, from the font's published metrics.
_WIDTHS = (
    278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278,
    556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556,
    1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778,
    667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556,
    333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556,
    556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584,
)  # fmt: skip
_DEFAULT_WIDTH = 556


def helvetica_width(text: str, size: float) -> float:
    """Width in points of ``text`` set in Helvetica at ``size``."""
    total = sum(_WIDTHS[ord(ch) - 32] if 32 <= ord(ch) <= 126 else _DEFAULT_WIDTH for ch in text)
    return total * size / 1000


def _pdf_string(text: str) -> bytes:
    raw = text.encode("cp1252", errors="replace")
    return b"(" + raw.replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)") + b")"


def _number(value: float) -> bytes:
    return f"{value:.4f}".rstrip("0").rstrip(".").encode() or b"0"


def _matrix(
    page: PageObject, box: tuple[float, float, float, float], rotation: float, style: WatermarkStyle
) -> list[float]:
    """The ``cm`` matrix that rotates a local ``box`` (x0, y0, x1, y1) and puts it where ``style`` says."""
    angle = math.radians(rotation)
    cos, sin = math.cos(angle), math.sin(angle)
    x0, y0, x1, y1 = box
    corners = [(x * cos - y * sin, x * sin + y * cos) for x in (x0, x1) for y in (y0, y1)]
    left = min(x for x, _ in corners)
    bottom = min(y for _, y in corners)
    width = max(x for x, _ in corners) - left
    height = max(y for _, y in corners) - bottom
    visible = page.cropbox
    page_size = (float(visible.width), float(visible.height))
    x, y_top = place(page_size, (width, height), style.placement)
    target_left = float(visible.left) + x
    target_bottom = float(visible.bottom) + page_size[1] - y_top - height
    return [cos, sin, -sin, cos, target_left - left, target_bottom - bottom]


def _overlay(page: PageObject, content: bytes, resources: DictionaryObject, opacity: int) -> PageObject:
    state = DictionaryObject(
        {
            NameObject("/Type"): NameObject("/ExtGState"),
            NameObject("/ca"): FloatObject(opacity / 100),
            NameObject("/CA"): FloatObject(opacity / 100),
        }
    )
    resources[NameObject("/ExtGState")] = DictionaryObject({NameObject(_STATE): state})
    overlay = PageObject.create_blank_page(None, page.mediabox.width, page.mediabox.height)
    overlay.mediabox = page.mediabox
    overlay[NameObject("/Resources")] = resources
    stream = DecodedStreamObject()
    stream.set_data(b"q " + _STATE.encode() + b" gs\n" + content + b"\nQ\n")
    overlay[NameObject("/Contents")] = stream
    return overlay


def text_overlay_page(page: PageObject, style: WatermarkStyle) -> PageObject:
    """A page holding only the watermark text, to merge onto ``page``."""
    size = float(style.font_size)
    lines = (style.text or "").splitlines() or [""]
    widths = [helvetica_width(line, size) for line in lines]
    block = max(widths)
    leading = size * _LEADING
    box = (0.0, -size * _DESCENT - leading * (len(lines) - 1), block, size * _ASCENT)
    matrix = _matrix(page, box, style.rotation, style)
    red, green, blue = (channel / 255 for channel in style.color)
    parts = [
        b" ".join(_number(v) for v in matrix) + b" cm",
        b"BT",
        _FONT.encode() + b" " + _number(size) + b" Tf",
        b" ".join(_number(v) for v in (red, green, blue)) + b" rg",
    ]
    for index, (line, width) in enumerate(zip(lines, widths, strict=True)):
        offset = (block - width) / 2
        parts.append(b"1 0 0 1 " + _number(offset) + b" " + _number(-leading * index) + b" Tm")
        parts.append(_pdf_string(line) + b" Tj")
    parts.append(b"ET")
    font = DictionaryObject(
        {
            NameObject("/Type"): NameObject("/Font"),
            NameObject("/Subtype"): NameObject("/Type1"),
            NameObject("/BaseFont"): NameObject("/Helvetica"),
            NameObject("/Encoding"): NameObject("/WinAnsiEncoding"),
        }
    )
    resources = DictionaryObject({NameObject("/Font"): DictionaryObject({NameObject(_FONT): font})})
    return _overlay(page, b"\n".join(parts), resources, style.opacity)


def image_overlay_page(page: PageObject, mark: PageObject, style: WatermarkStyle) -> PageObject:
    """A page holding only ``mark`` (a one-image PDF page), scaled and placed, to merge onto ``page``."""
    mark_width, mark_height = float(mark.mediabox.width), float(mark.mediabox.height)
    page_width, page_height = float(page.cropbox.width), float(page.cropbox.height)
    width: float | None = style.image_width
    if style.image_width_percent is not None:
        width = page_width * style.image_width_percent / 100
    if width is None:
        room_w = max(1.0, page_width - 2 * style.placement.margin_horizontal)
        room_h = max(1.0, page_height - 2 * style.placement.margin_vertical)
        width = mark_width * min(1.0, room_w / mark_width, room_h / mark_height)
    scale = width / mark_width
    matrix = _matrix(page, (0.0, 0.0, width, mark_height * scale), style.rotation, style)
    a, b, c, d, e, f = matrix
    scaled = [a * scale, b * scale, c * scale, d * scale, e, f]
    content = b" ".join(_number(v) for v in scaled) + b" cm\n" + mark.get_contents().get_data()  # type: ignore[union-attr]  # built with content above
    resources = DictionaryObject()
    mark_resources = mark["/Resources"].get_object()
    if isinstance(mark_resources, DictionaryObject):
        for key, value in mark_resources.items():
            resources[NameObject(key)] = value
    return _overlay(page, content, resources, style.opacity)
