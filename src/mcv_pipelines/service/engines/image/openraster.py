"""OpenRaster (ora: Krita's, MyPaint's and GIMP's layered exchange format) in and out, with Pillow and
the standard library, in-process on the task's bytes only.

An ORA file is a zip: ``stack.xml`` names the picture's size and its layers (PNG files inside the zip,
each with an offset, opacity and visibility), top first. Reading composites the visible layers over a
transparent canvas (source-over; blend modes other than normal are drawn as normal). Nothing outside
the zip is read: a layer's ``src`` is looked up among the zip's own names only, the XML is parsed with
no entities, every layer PNG opens under Pillow's pixel guard, and members may not unpack past a bound.
Writing makes one layer of the picture, with ``mergedimage.png`` and a thumbnail as the format asks.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterable
from pathlib import Path
from typing import BinaryIO
from xml.etree import ElementTree

import PIL
from PIL import Image

from mcv_pipelines.service.engines.base import (
    ConversionType,
    EngineError,
    EngineRequest,
    EngineResult,
    EngineVersion,
    OptionSpec,
)
from mcv_pipelines.service.engines.failures import INVALID_INPUT_FILE, UNSUPPORTED_CONVERSION, library_errors
from mcv_pipelines.service.engines.image.codec_engine import too_many_pixels
from mcv_pipelines.service.engines.image.formats import image_format, readable_formats, writable_formats
from mcv_pipelines.service.engines.image.image_io import load_image, save_image, save_pdf
from mcv_pipelines.service.engines.naming import output_path, single_input
from mcv_pipelines.service.engines.options import FILENAME, int_option

__all__ = ["OpenRasterEngine", "read_openraster", "write_openraster"]

MAX_UNPACKED = 512 * 1024 * 1024  # bytes all members may unpack to
_LAYERS = 1000
_QUALITY = OptionSpec("quality", "integer", None, None, "1-100, for jpg, webp and avif")


def _number(node: ElementTree.Element, name: str, default: float) -> float:
    try:
        return float(node.get(name, default))
    except ValueError:
        return default


def read_openraster(data: bytes, name: str) -> Image.Image:
    """The composite of an ORA file's visible layers (RGBA)."""
    with library_errors(f"read {name!r} as OpenRaster", INVALID_INPUT_FILE):
        try:
            return _composite(data, name)
        except zipfile.BadZipFile as exc:
            raise EngineError(INVALID_INPUT_FILE, f"{name} is no OpenRaster file: {exc}") from exc


def _composite(data: bytes, name: str) -> Image.Image:
    with zipfile.ZipFile(io.BytesIO(data)) as ora:
        members = {info.filename: info for info in ora.infolist()}
        if sum(info.file_size for info in members.values()) > MAX_UNPACKED:
            raise EngineError(INVALID_INPUT_FILE, f"{name} unpacks to more than {MAX_UNPACKED >> 20} MB")
        if "stack.xml" not in members:
            raise EngineError(INVALID_INPUT_FILE, f"{name} is no OpenRaster file: it has no stack.xml")
        text = ora.read("stack.xml")
        if b"<!DOCTYPE" in text or b"<!ENTITY" in text:
            raise EngineError(INVALID_INPUT_FILE, f"{name}'s stack.xml declares a DTD: OpenRaster has none")
        root = ElementTree.fromstring(text)  # noqa: S314 - a DTD is refused above: no entity to expand
        width, height = int(_number(root, "w", 0)), int(_number(root, "h", 0))
        if width <= 0 or height <= 0 or too_many_pixels(width, height):
            raise EngineError(INVALID_INPUT_FILE, f"{name} declares a picture of {width}x{height} pixels, "
                              "which an image may not have here")  # fmt: skip
        canvas = Image.new("RGBA", (width, height), (0, 0, 0, 0))
        budget = 2 * (Image.MAX_IMAGE_PIXELS or 0) or None  # pixels all layers may decode to, together
        layers = [node for node in root.iter("layer")][:_LAYERS]
        for node in reversed(layers):  # stack.xml lists the top layer first
            source = node.get("src", "")
            if node.get("visibility", "visible") == "hidden" or source not in members:
                continue
            with Image.open(io.BytesIO(ora.read(source)), formats=("PNG",)) as opened:
                if budget is not None:
                    budget -= opened.width * opened.height
                    if budget < 0:
                        raise EngineError(INVALID_INPUT_FILE, f"{name}'s layers hold more pixels than an "
                                          "image may have here")  # fmt: skip
                layer = opened.convert("RGBA")
            opacity = min(max(_number(node, "opacity", 1.0), 0.0), 1.0)
            if opacity < 1.0:
                alpha = layer.getchannel("A")
                layer.putalpha(alpha.point(lambda value, opacity=opacity: round(value * opacity)))
            _over(canvas, layer, int(_number(node, "x", 0)), int(_number(node, "y", 0)))
        return canvas


def _over(canvas: Image.Image, layer: Image.Image, x: int, y: int) -> None:
    """``layer`` drawn over ``canvas`` at (x, y), in place; only the part that falls on the canvas."""
    left, top = max(x, 0), max(y, 0)
    right, bottom = min(x + layer.width, canvas.width), min(y + layer.height, canvas.height)
    if right <= left or bottom <= top:
        return
    part = layer.crop((left - x, top - y, right - x, bottom - y))
    canvas.alpha_composite(part, (left, top))


def write_openraster(image: Image.Image, target: Path | BinaryIO) -> None:
    """``image`` as a one-layer ORA file."""
    picture = image.convert("RGBA")

    def png(frame: Image.Image) -> bytes:
        out = io.BytesIO()
        frame.save(out, "PNG")
        return out.getvalue()

    thumbnail = picture.copy()
    thumbnail.thumbnail((256, 256))
    stack = (f'<?xml version="1.0" encoding="UTF-8"?>\n<image version="0.0.5" w="{picture.width}" '
             f'h="{picture.height}"><stack><layer name="picture" src="data/picture.png" x="0" y="0" '
             'opacity="1.0" visibility="visible"/></stack></image>\n')  # fmt: skip
    with zipfile.ZipFile(target, "w") as ora:
        ora.writestr(zipfile.ZipInfo("mimetype"), "image/openraster")  # first, stored, as the format asks
        ora.writestr("stack.xml", stack, zipfile.ZIP_DEFLATED)
        layer = png(picture)
        ora.writestr("data/picture.png", layer)
        ora.writestr("mergedimage.png", layer)
        ora.writestr("Thumbnails/thumbnail.png", png(thumbnail))


class OpenRasterEngine:
    name = "openraster"

    def version(self) -> str | None:
        return PIL.__version__

    def conversion_types(self) -> Iterable[ConversionType]:
        versions = (EngineVersion(PIL.__version__),)
        options = (FILENAME, _QUALITY)
        pairs = [("ora", target) for target in (*writable_formats(), "pdf")]
        pairs += [(source, "ora") for source in readable_formats()]
        return [ConversionType("convert", s, t, self.name, options=options, engine_versions=versions)
                for s, t in pairs]  # fmt: skip

    def run(self, request: EngineRequest) -> EngineResult:
        source, target_format = request.input_format, request.output_format
        listed = {(c.input_format, c.output_format) for c in self.conversion_types()}
        if request.operation != "convert" or (source, target_format) not in listed:
            raise EngineError(UNSUPPORTED_CONVERSION, f"openraster does not {request.operation} {source} "
                              f"to {target_format}")  # fmt: skip
        path = single_input(request)
        target = output_path(request, target_format)
        if target_format == "ora":
            frame = load_image(path, all_frames=False, auto_orient=True).frames[0]
            with library_errors(f"write {target.name!r} as ora"):
                write_openraster(frame, target)
            return EngineResult(files=[target])
        picture = read_openraster(path.read_bytes(), request.inputs[0].path.name)
        quality = int_option(request.options, "quality", None, minimum=1, maximum=100)
        fmt = image_format(target_format)
        if fmt is None:
            save_pdf([picture], target, (255, 255, 255))
        else:
            save_image([picture], target, fmt, quality=quality)
        return EngineResult(files=[target])
