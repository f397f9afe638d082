"""The image formats the Pillow engine handles, checked against this Pillow build at run time.

Listing names are lowercase extensions (``jpg``, ``tiff``); Pillow names its formats differently
(``JPEG``, ``TIFF``). A format is listed as input only when Pillow can open it and as output only when
this build can write it (AVIF and WebP depend on optional libraries).

Beyond the everyday formats, the long tail Pillow really reads (psd, ras, cur, dcx, pcd, gbr, blp) and writes
(tga, pcx, sgi, dds, icns, jpeg 2000, netpbm, qoi ...; not IM, which Pillow deprecates): each lists the
modes its writer takes, so a conversion brings the picture into one of them (prepare_mode in image_io).
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
    modes: tuple[str, ...] = ()  # modes its writer takes, preferred first; () = handled by name
    writes: bool = True  # False: read only, though Pillow has a writer


IMAGE_FORMATS: tuple[ImageFormat, ...] = (
    ImageFormat("png", "PNG", alpha=True, frames=False, exif=True),
    ImageFormat("jpg", "JPEG", alpha=False, frames=False, exif=True),
    ImageFormat("webp", "WEBP", alpha=True, frames=True, exif=True, feature="webp"),
    ImageFormat("gif", "GIF", alpha=True, frames=True, exif=False),
    ImageFormat("bmp", "BMP", alpha=False, frames=False, exif=False),
    ImageFormat("tiff", "TIFF", alpha=True, frames=True, exif=True),
    ImageFormat("avif", "AVIF", alpha=True, frames=False, exif=True, feature="avif"),
    ImageFormat("ico", "ICO", alpha=True, frames=False, exif=False),
    # the long tail: read (and written, where Pillow has a writer) by Pillow itself
    ImageFormat("tga", "TGA", alpha=True, frames=False, exif=False, modes=("RGB", "RGBA", "L", "P")),
    ImageFormat("pcx", "PCX", alpha=False, frames=False, exif=False, modes=("RGB", "L", "P", "1")),
    ImageFormat("sgi", "SGI", alpha=True, frames=False, exif=False, modes=("RGB", "RGBA", "L")),
    ImageFormat("dds", "DDS", alpha=True, frames=False, exif=False, modes=("RGB", "RGBA", "L", "LA")),
    ImageFormat("icns", "ICNS", alpha=True, frames=False, exif=False, modes=("RGBA",)),
    ImageFormat(
        "jp2",
        "JPEG2000",
        alpha=True,
        frames=False,
        exif=False,
        feature="jpg_2000",
        modes=("RGB", "RGBA", "L", "LA"),
    ),
    ImageFormat(
        "j2k",
        "JPEG2000",
        alpha=True,
        frames=False,
        exif=False,
        feature="jpg_2000",
        modes=("RGB", "RGBA", "L", "LA"),
    ),
    ImageFormat("msp", "MSP", alpha=False, frames=False, exif=False, modes=("1",)),
    ImageFormat("xbm", "XBM", alpha=False, frames=False, exif=False, modes=("1",)),
    ImageFormat("qoi", "QOI", alpha=True, frames=False, exif=False, modes=("RGB", "RGBA")),
    # Pillow's BLP writer is pure Python: two seconds for 512x512, minutes for a photo
    ImageFormat("blp", "BLP", alpha=False, frames=False, exif=False, writes=False),
    ImageFormat("ppm", "PPM", alpha=False, frames=False, exif=False, modes=("RGB",)),
    ImageFormat("pgm", "PPM", alpha=False, frames=False, exif=False, modes=("L",)),
    ImageFormat("pbm", "PPM", alpha=False, frames=False, exif=False, modes=("1",)),
    ImageFormat("pnm", "PPM", alpha=False, frames=False, exif=False, modes=("RGB", "L", "1")),
    ImageFormat("palm", "PALM", alpha=False, frames=False, exif=False, modes=("P", "1")),  # written only
    ImageFormat("psd", "PSD", alpha=True, frames=False, exif=False),  # read only
    ImageFormat("ras", "SUN", alpha=False, frames=False, exif=False),  # read only
    ImageFormat("cur", "CUR", alpha=True, frames=False, exif=False),  # read only
    ImageFormat("dcx", "DCX", alpha=False, frames=False, exif=False),  # read only
    ImageFormat("pcd", "PCD", alpha=False, frames=False, exif=False),  # read only
    ImageFormat("gbr", "GBR", alpha=False, frames=False, exif=False),  # read only
    # issue 47: Autodesk Animator's FLI and Animator Pro's FLC animations (one Pillow reader), and a
    # SPIDER cryo-EM image (float32 densities, stretched to 0-255 in load_image); read only
    ImageFormat("fli", "FLI", alpha=False, frames=True, exif=False),
    ImageFormat("flc", "FLI", alpha=False, frames=True, exif=False),
    ImageFormat("spi", "SPIDER", alpha=False, frames=False, exif=False, writes=False),
    # a stereo camera's pair (and a phone's JPEG with a gain map): the picture is the first image.
    # Pillow opens MPO through its JPEG opener, which hands back an MPO image where the index says so
    ImageFormat("mpo", "JPEG", alpha=False, frames=False, exif=True, writes=False),
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
    names = dict.fromkeys(fmt.pil for fmt in IMAGE_FORMATS if fmt.pil in Image.OPEN)
    return tuple(dict.fromkeys((*names, *extra)))


@cache
def readable_formats() -> tuple[str, ...]:
    Image.init()
    return tuple(fmt.name for fmt in IMAGE_FORMATS if _supported(fmt, dict(Image.OPEN)))


@cache
def writable_formats() -> tuple[str, ...]:
    Image.init()
    return tuple(fmt.name for fmt in IMAGE_FORMATS if fmt.writes and _supported(fmt, dict(Image.SAVE)))
