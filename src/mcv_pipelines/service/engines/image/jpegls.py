"""JPEG-LS (jls: lossless and near-lossless JPEG, common in medical imaging) in and out with ffmpeg's
JPEG-LS codec, sealed. Before decoding, the frame header (SOF55) is read here, so a file claiming
gigapixels is refused before a pixel is decoded.

Compared: ImageMagick and GraphicsMagick here are built without CharLS, Pillow has no JPEG-LS codec, and
CharLS's own tools are not packaged; DCMTK decodes JPEG-LS only inside DICOM. ffmpeg is installed for
audio and video already.
"""

from __future__ import annotations

import struct
from pathlib import Path

from mcv_pipelines.service.engines.image.ffmpeg_codec import FfmpegCodecEngine

__all__ = ["JpeglsEngine", "jpegls_size"]



def jpegls_size(data: bytes) -> tuple[int, int]:
    """Width and height from a JPEG-LS stream's SOF55 segment; ValueError when there is none."""
    if not data.startswith(b"\xff\xd8"):
        raise ValueError("it does not start as a JPEG stream")
    at = 2
    while at + 4 <= len(data):
        if data[at] != 0xFF:
            raise ValueError("its markers are broken")
        marker = data[at + 1]
        if marker == 0xFF:  # fill byte
            at += 1
            continue
        (length,) = struct.unpack_from(">H", data, at + 2)
        if marker == 0xF7 and at + 9 <= len(data):
            height, width = struct.unpack_from(">HH", data, at + 5)
            return width, height
        if marker in (0xDA, 0xD9) or length < 2:
            break
        at += 2 + length
    raise ValueError("it has no JPEG-LS frame header (SOF55)")


class JpeglsEngine(FfmpegCodecEngine):
    """Its version is ffmpeg's."""

    name = "jpegls"
    decodes = ("jls",)
    encodes = ("jls",)
    kind = "JPEG-LS image"

    def sizes(self, head: bytes) -> list[tuple[int, int]]:
        return [jpegls_size(head)]

    def decode_argv(self, source: Path, png: Path) -> list[str]:
        assert self.decoder is not None
        return [self.decoder, "-hide_banner", "-nostdin", "-loglevel", "error", "-f", "image2",
                "-c:v", "jpegls", "-i", str(source), "-frames:v", "1", "-y", str(png)]  # fmt: skip

    def encode_argv(self, png: Path, target: Path, quality: int | None) -> list[str]:
        assert self.program is not None
        return [self.program, "-hide_banner", "-nostdin", "-loglevel", "error", "-i", str(png),
                "-c:v", "jpegls", "-frames:v", "1", "-update", "1", "-y", str(target)]  # fmt: skip
