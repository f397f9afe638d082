"""The image formats the Pillow engine handles, checked against this Pillow build at run time.

Listing names are lowercase extensions (``jpg``, ``tiff``); Pillow names its formats differently
(``JPEG``, ``TIFF``). A format is listed as input only when Pillow can open it and as output only when
this build can write it (AVIF and WebP depend on optional libraries).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from PIL import Image, features

__all__ = [
    "IMAGE_FORMATS",
    "ImageFormat",
    "decoders",
    "image_format",
    "normalize_format",
    "readable_formats",
    "writable_formats",
]


@dataclass(frozen=True, slots=True)
class ImageFormat:
    name: str  # listing name
    pil: str  # Pillow's format name
    alpha: bool  # can keep transparency
    frames: bool  # can hold several frames (animation, pages)
    exif: bool  # Pillow can write EXIF into it
    feature: str | None = None  # Pillow feature the codec needs


IMAGE_FORMATS: tuple[ImageFormat, ...] = (
    ImageFormat("png", "PNG", alpha=True, frames=False, exif=True),
    ImageFormat("jpg", "JPEG", alpha=False, frames=False, exif=True),
    ImageFormat("webp", "WEBP", alpha=True, frames=True, exif=True, feature="webp"),
    ImageFormat("gif", "GIF", alpha=True, frames=True, exif=False),
    ImageFormat("bmp", "BMP", alpha=False, frames=False, exif=False),
    ImageFormat("tiff", "TIFF", alpha=True, frames=True, exif=True),
    ImageFormat("avif", "AVIF", alpha=True, frames=False, exif=True, feature="avif"),
    ImageFormat("ico", "ICO", alpha=True, frames=False, exif=False),
)

_ALIASES = {"jpeg": "jpg", "jpe": "jpg", "jfif": "jpg", "tif": "tiff", "dib": "bmp"}


def normalize_format(name: str) -> str:
    """``JPEG`` -> ``jpg``, ``tif`` -> ``tiff``; other names lowercased."""
    lowered = name.lower().lstrip(".")
    return _ALIASES.get(lowered, lowered)


def image_format(name: str) -> ImageFormat | None:
    wanted = normalize_format(name)
    return next((fmt for fmt in IMAGE_FORMATS if fmt.name == wanted), None)


def _supported(fmt: ImageFormat, table: dict[str, object]) -> bool:
    if fmt.feature is not None and not features.check(fmt.feature):
        return False
    return fmt.pil in table


@cache
def decoders() -> tuple[str, ...]:
    """Pillow format names ``Image.open`` may try: ours only (plus MPO, how some cameras' JPEGs
    identify), so a file in another format (EPS, which would start Ghostscript) is never decoded."""
    Image.init()
    # MPO only when registered as an opener: naming an unknown format makes Image.open raise KeyError.
    extra = ("MPO",) if "MPO" in Image.OPEN else ()
    return (*(fmt.pil for fmt in IMAGE_FORMATS if fmt.pil in Image.OPEN), *extra)


@cache
def readable_formats() -> tuple[str, ...]:
    Image.init()
    return tuple(fmt.name for fmt in IMAGE_FORMATS if _supported(fmt, dict(Image.OPEN)))


@cache
def writable_formats() -> tuple[str, ...]:
    Image.init()
    return tuple(fmt.name for fmt in IMAGE_FORMATS if _supported(fmt, dict(Image.SAVE)))
