"""Replacing the EXIF segment of a JPEG without decoding it, so writing metadata loses no quality."""

from __future__ import annotations

from mcv_pipelines.service.engines.base import EngineError
from mcv_pipelines.service.engines.failures import INVALID_INPUT_FILE

__all__ = ["replace_jpeg_exif"]

_SOI = b"\xff\xd8"
_APP0 = 0xE0
_APP1 = 0xE1
_SOS = 0xDA
_MAX_SEGMENT = 0xFFFF - 2


def replace_jpeg_exif(data: bytes, exif: bytes) -> bytes:
    """``data`` with its EXIF APP1 segment(s) replaced by ``exif`` (which starts with ``Exif\\0\\0``)."""
    if not data.startswith(_SOI):
        raise EngineError(INVALID_INPUT_FILE, "the file is not a JPEG (no start-of-image marker)")
    if len(exif) > _MAX_SEGMENT:
        raise EngineError(INVALID_INPUT_FILE, "the EXIF data is too large for one JPEG segment")
    head: list[bytes] = [_SOI]
    position = 2
    inserted = False
    new_segment = b"\xff\xe1" + (len(exif) + 2).to_bytes(2, "big") + exif
    while position + 4 <= len(data) and data[position] == 0xFF:
        marker = data[position + 1]
        if marker == 0xFF:  # fill byte
            position += 1
            continue
        if marker == _SOS or not 0xE0 <= marker <= 0xFE:
            break  # past the application segments: the rest is copied untouched
        length = int.from_bytes(data[position + 2 : position + 4], "big")
        segment = data[position : position + 2 + length]
        if length < 2 or len(segment) < 2 + length:
            raise EngineError(INVALID_INPUT_FILE, "the JPEG is truncated inside its header segments")
        is_exif = marker == _APP1 and segment[4:10] == b"Exif\x00\x00"
        if not inserted and marker != _APP0:
            head.append(new_segment)
            inserted = True
        if not is_exif:
            head.append(segment)
        position += 2 + length
    if not inserted:
        head.append(new_segment)
    return b"".join(head) + data[position:]
