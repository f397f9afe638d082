"""Text and image watermarks drawn onto images with Pillow.

``opacity`` is 1-100; ``rotation`` is in degrees counter-clockwise; the watermark is placed by
``position_*`` and ``margin_*`` (see placement). An image watermark keeps its own size unless
``image_width`` (pixels) or ``image_width_percent`` (of the image's width) is given, and shrinks to fit
inside the margins when it would not.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from PIL import Image, ImageDraw, ImageFont

from mcv_pipelines.service.engines.base import EngineError, InputFile, OptionSpec
from mcv_pipelines.service.engines.failures import INVALID_OPTION, MISSING_INPUT
from mcv_pipelines.service.engines.options import color_option, int_option, str_option
from mcv_pipelines.service.engines.placement import PLACEMENT_OPTIONS, Placement, place

__all__ = [
    "WATERMARK_OPTIONS",
    "WatermarkStyle",
    "apply_overlay",
    "image_overlay",
    "split_mark",
    "text_overlay",
]

WATERMARK_OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec("text", "string", None, None, "Text of a text watermark."),
    OptionSpec("image", "string", None, None, "Name of the input task whose file is the watermark image."),
    OptionSpec("font_size", "integer", 40, None, "Text size: pixels on images, points on PDF."),
    OptionSpec("font_color", "string", "#000000", None, "Text colour: #rrggbb, #rgb or a CSS colour name."),
    OptionSpec("opacity", "integer", 50, None, "Opacity of the watermark, 1-100."),
    OptionSpec("rotation", "integer", 0, None, "Rotation in degrees, counter-clockwise."),
    OptionSpec("image_width", "integer", None, None, "Width of an image watermark (pixels or points)."),
    OptionSpec("image_width_percent", "integer", None, None, "Width of an image watermark, % of the page."),
    *PLACEMENT_OPTIONS,
)


class WatermarkStyle:
    """The watermark options of one task, read and checked once."""

    def __init__(self, options: Mapping[str, Any]) -> None:
        self.text = str_option(options, "text", None)
        self.image_task = str_option(options, "image", None)
        self.font_size = int_option(options, "font_size", 40, minimum=1, maximum=2000)
        self.color = color_option(options, "font_color", "#000000")
        self.opacity = int_option(options, "opacity", 50, minimum=1, maximum=100)
        self.rotation = int_option(options, "rotation", 0, minimum=-360, maximum=360)
        self.image_width = int_option(options, "image_width", None, minimum=1, maximum=20000)
        self.image_width_percent = int_option(options, "image_width_percent", None, minimum=1, maximum=100)
        self.placement = Placement(options)


def split_mark(
    inputs: Sequence[InputFile], style: WatermarkStyle, marked: str
) -> tuple[list[InputFile], InputFile | None]:
    """The files to mark, and the file of the task the option ``image`` names (None for a text mark).

    ``marked`` says what gets marked ("file", "PDF") when nothing is left besides the watermark image.
    """
    if not style.text and not style.image_task:
        raise EngineError(INVALID_OPTION, "a watermark needs the option 'text' or 'image'")
    mark = None
    rest = list(inputs)
    if style.image_task:
        marks = [item for item in rest if item.task_name == style.image_task]
        if not marks:
            raise EngineError(
                INVALID_OPTION,
                f"option 'image' names the task {style.image_task!r}, whose file did not reach this task",
            )
        mark = marks[0]
        rest = [item for item in rest if item.task_name != style.image_task]
    if not rest:
        raise EngineError(MISSING_INPUT, f"watermark needs a {marked} to mark besides the watermark image")
    return rest, mark


def text_overlay(style: WatermarkStyle) -> Image.Image:
    """The text, in its colour and opacity, on a transparent tile just large enough (then rotated)."""
    font = ImageFont.load_default(size=style.font_size)
    probe = ImageDraw.Draw(Image.new("RGBA", (1, 1)))
    text = style.text or ""
    left, top, right, bottom = probe.textbbox((0, 0), text, font=font, align="center")
    size = (max(1, math.ceil(right - left)), max(1, math.ceil(bottom - top)))
    tile = Image.new("RGBA", size, (0, 0, 0, 0))
    alpha = round(255 * style.opacity / 100)
    ImageDraw.Draw(tile).text((-left, -top), text, font=font, fill=(*style.color, alpha), align="center")
    return _rotate(tile, style.rotation)


def image_overlay(mark: Image.Image, base_size: tuple[int, int], style: WatermarkStyle) -> Image.Image:
    """``mark`` scaled and faded as the options say, ready to composite onto an image of ``base_size``."""
    tile = mark.convert("RGBA")
    width = style.image_width
    if style.image_width_percent is not None:
        width = max(1, round(base_size[0] * style.image_width_percent / 100))
    room = (
        max(1, base_size[0] - 2 * style.placement.margin_horizontal),
        max(1, base_size[1] - 2 * style.placement.margin_vertical),
    )
    if width is None and (tile.width > room[0] or tile.height > room[1]):
        width = round(tile.width * min(room[0] / tile.width, room[1] / tile.height))
    if width is not None and width != tile.width:
        height = max(1, round(tile.height * width / tile.width))
        tile = tile.resize((max(1, width), height), Image.Resampling.LANCZOS)
    faded = tile.getchannel("A").point(lambda a: a * style.opacity // 100)
    tile.putalpha(faded)
    return _rotate(tile, style.rotation)


def _rotate(tile: Image.Image, degrees: int) -> Image.Image:
    if degrees % 360 == 0:
        return tile
    return tile.rotate(degrees, resample=Image.Resampling.BICUBIC, expand=True)


def apply_overlay(image: Image.Image, overlay: Image.Image, placement: Placement) -> Image.Image:
    """``image`` with ``overlay`` composited at its place; only the covered region is touched.

    An RGB or RGBA ``image`` is drawn on in place (callers own their frames; a 12 MP photo is not
    copied); other modes are converted to RGBA first.
    """
    x, y = (round(v) for v in place(image.size, overlay.size, placement))
    visible = (
        max(0, -x),
        max(0, -y),
        min(overlay.width, image.width - x),
        min(overlay.height, image.height - y),
    )
    if visible[2] <= visible[0] or visible[3] <= visible[1]:
        return image
    tile = overlay.crop(visible)
    dest = (max(0, x), max(0, y))
    if image.mode == "RGB":
        image.paste(tile.convert("RGB"), dest, tile.getchannel("A"))  # "over" onto an opaque image
        return image
    base = image if image.mode == "RGBA" else image.convert("RGBA")
    base.alpha_composite(tile, dest)
    return base
