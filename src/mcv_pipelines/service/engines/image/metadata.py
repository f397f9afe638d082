"""Image metadata: EXIF and file facts read into a JSON-able dict, and EXIF tags written.

Keys follow EXIF tag names (``Artist``, ``DateTimeOriginal``), as exiftool names them, plus a few file
facts (``FileType``, ``ImageWidth``, ``ImageHeight``, ``ColorMode``, ``FrameCount``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from PIL import ExifTags, Image, TiffImagePlugin

from mcv_pipelines.service.engines.base import EngineError
from mcv_pipelines.service.engines.failures import INVALID_INPUT_FILE, INVALID_OPTION, library_errors
from mcv_pipelines.service.engines.image.formats import decoders

__all__ = ["WRITABLE_TAGS", "read_image_metadata", "update_exif"]

# Tags of the main IFD (0th) that hold text a user sets; DateTimeOriginal lives in the Exif IFD.
WRITABLE_TAGS: dict[str, int] = {
    "Artist": ExifTags.Base.Artist,
    "Copyright": ExifTags.Base.Copyright,
    "ImageDescription": ExifTags.Base.ImageDescription,
    "Software": ExifTags.Base.Software,
    "Make": ExifTags.Base.Make,
    "Model": ExifTags.Base.Model,
    "DateTime": ExifTags.Base.DateTime,
    "HostComputer": ExifTags.Base.HostComputer,
    "DocumentName": ExifTags.Base.DocumentName,
    "DateTimeOriginal": ExifTags.Base.DateTimeOriginal,
}
_EXIF_IFD_TAGS = {ExifTags.Base.DateTimeOriginal}
_MAX_BINARY = 64  # bytes of a binary tag shown as hex; longer ones are summarised


def _jsonable(value: Any) -> Any:
    if isinstance(value, TiffImagePlugin.IFDRational):
        number = float(value) if value.denominator else math.nan
        return None if math.isnan(number) else number
    if isinstance(value, bytes):
        text = value.rstrip(b"\x00")
        try:
            decoded = text.decode("utf-8")
        except UnicodeDecodeError:
            decoded = None
        if decoded is not None and decoded.isprintable():
            return decoded
        return value.hex() if len(value) <= _MAX_BINARY else f"({len(value)} bytes of binary data)"
    if isinstance(value, tuple | list):
        return [_jsonable(item) for item in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    return str(value)


def _tag_name(tag: int, names: Mapping[int, str]) -> str:
    return names.get(tag, f"Tag0x{tag:04X}")


def read_image_metadata(path: Path) -> dict[str, Any]:
    """File facts and every EXIF tag (main, Exif and GPS IFDs) of the image at ``path``."""
    action = f"read {path.name!r} as an image (corrupt, or not an image)"
    with library_errors(action, INVALID_INPUT_FILE), Image.open(path, formats=decoders()) as image:
        result: dict[str, Any] = {
            "FileType": image.format,
            "MIMEType": image.get_format_mimetype(),
            "ImageWidth": image.width,
            "ImageHeight": image.height,
            "ColorMode": image.mode,
            "FrameCount": getattr(image, "n_frames", 1),
        }
        for key, value in image.info.items():
            if isinstance(key, str) and isinstance(value, str) and key not in result:
                result[key] = value
        if "dpi" in image.info:
            result["DPI"] = _jsonable(tuple(image.info["dpi"]))
        exif = image.getexif()
        for tag, value in exif.items():
            if tag not in (ExifTags.Base.ExifOffset, ExifTags.Base.GPSInfo):
                result[_tag_name(tag, ExifTags.TAGS)] = _jsonable(value)
        for tag, value in exif.get_ifd(ExifTags.IFD.Exif).items():
            result[_tag_name(tag, ExifTags.TAGS)] = _jsonable(value)
        gps = exif.get_ifd(ExifTags.IFD.GPSInfo)
        if gps:
            result["GPS"] = {_tag_name(tag, ExifTags.GPSTAGS): _jsonable(v) for tag, v in gps.items()}
    return result


def update_exif(exif: Image.Exif, metadata: Mapping[str, Any]) -> None:
    """Set (or with a null value, remove) the tags in ``metadata``; unknown keys are an INVALID_OPTION."""
    canonical = {name.lower(): name for name in WRITABLE_TAGS}
    unknown = [key for key in metadata if key.lower() not in canonical]
    if unknown:
        raise EngineError(
            INVALID_OPTION,
            f"metadata key(s) {', '.join(map(repr, unknown))} cannot be written to images; "
            f"writable keys: {', '.join(WRITABLE_TAGS)}",
        )
    if not metadata:
        raise EngineError(INVALID_OPTION, "option 'metadata' is empty; give at least one key to write")
    exif_ifd = exif.get_ifd(ExifTags.IFD.Exif)
    for key, value in metadata.items():
        tag = WRITABLE_TAGS[canonical[key.lower()]]
        target = exif_ifd if tag in _EXIF_IFD_TAGS else exif
        if value is None:
            target.pop(tag, None)
        elif isinstance(value, str | int | float) and not isinstance(value, bool):
            target[tag] = str(value)
        else:
            raise EngineError(INVALID_OPTION, f"metadata key {key!r} must be a string, got {value!r}")
