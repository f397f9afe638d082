"""What the Pillow engine advertises: its conversion types and their options.

Credits: 1 for every conversion type. Formats come from image_formats, so a build without AVIF (or
WebP) support never lists them.
"""

from __future__ import annotations

from functools import cache

from mcv_pipelines.service.engines.base import ConversionType, EngineVersion, OptionSpec
from mcv_pipelines.service.engines.image.formats import image_format, readable_formats, writable_formats
from mcv_pipelines.service.engines.image.image_io import DEFAULT_QUALITY
from mcv_pipelines.service.engines.image.resize import RESIZE_OPTIONS
from mcv_pipelines.service.engines.image.watermark import WATERMARK_OPTIONS
from mcv_pipelines.service.engines.options import FILENAME

__all__ = ["OPTIMIZE_PROFILES", "THUMBNAIL_FORMATS", "pillow_conversion_types"]

THUMBNAIL_FORMATS = ("png", "jpg", "webp")
OPTIMIZE_PROFILES = ("web", "print", "archive", "mrc", "max")
LOSSY = ("jpg", "webp", "avif")
OPAQUE = ("jpg", "bmp", "pdf")

QUALITY = OptionSpec("quality", "integer", None, None, "1-100; default set by the profile.")
STRIP = OptionSpec("strip", "boolean", False, None, "Remove EXIF and other metadata, ICC profile included.")
AUTO_ORIENT = OptionSpec("auto_orient", "boolean", True, None, "Rotate as the EXIF orientation says.")
BACKGROUND = OptionSpec("background", "string", "#ffffff", None, "Colour under transparent areas.")
PROFILE = OptionSpec(
    "profile",
    "enum",
    "web",
    OPTIMIZE_PROFILES,
    "web/mrc: jpg quality 80, metadata stripped; print: 92; archive: 95, metadata kept; max: 70. "
    "png is always optimised losslessly. The result is never larger than the input.",
)
METADATA = OptionSpec("metadata", "dictionary", None, None, 'EXIF tags to write, e.g. {"Artist": "..."}.')


def _quality(output: str) -> OptionSpec:
    return OptionSpec("quality", "integer", DEFAULT_QUALITY[output], None, "Encoder quality, 1-100.")


def _image_options(output: str, *, strip_default: bool = False) -> tuple[OptionSpec, ...]:
    options: list[OptionSpec] = list(RESIZE_OPTIONS)
    if output in LOSSY:
        options.append(_quality(output))
    options.append(OptionSpec(STRIP.name, STRIP.type, strip_default, None, STRIP.description))
    options.append(AUTO_ORIENT)
    if output in OPAQUE:
        options.append(BACKGROUND)
    options.append(FILENAME)
    return tuple(options)


@cache
def pillow_conversion_types(version: str) -> tuple[ConversionType, ...]:
    """Every (operation, input, output) the Pillow engine runs on this build."""
    versions = (EngineVersion(version),)

    def entry(operation: str, source: str, target: str, options: tuple[OptionSpec, ...]) -> ConversionType:
        return ConversionType(operation, source, target, "pillow", 1, options, versions)

    readable = readable_formats()
    writable = writable_formats()
    types: list[ConversionType] = []
    for source in readable:
        for target in (*writable, "pdf"):
            types.append(entry("convert", source, target, _image_options(target)))
        for target in THUMBNAIL_FORMATS:
            if target in writable:
                thumb = _image_options(target, strip_default=True)
                types.append(entry("thumbnail", source, target, thumb))
        if source in writable:
            quality = (_quality(source),) if source in LOSSY else ()
            watermark = (*WATERMARK_OPTIONS, *quality, BACKGROUND, FILENAME)
            types.append(entry("watermark", source, source, watermark))
        types.append(entry("metadata", source, "json", ()))
        fmt = image_format(source)
        if source in writable and fmt is not None and fmt.exif:
            types.append(entry("metadata/write", source, source, (METADATA, FILENAME)))
    for source in ("png", "jpg"):
        if source in readable and source in writable:
            quality = (QUALITY,) if source == "jpg" else ()
            strip = OptionSpec("strip", "boolean", None, None, "Remove metadata; default depends on profile.")
            types.append(entry("optimize", source, source, (PROFILE, *quality, strip, FILENAME)))
    return tuple(types)
