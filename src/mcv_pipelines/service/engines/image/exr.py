"""OpenEXR (exr, HDR in linear light) to and from the image formats. Read: the header is read here first
(every part's data window: a header claiming gigapixels is refused before a pixel is decoded), then
ffmpeg's EXR decoder, sealed, renders the first part to a 16-bit PNG with the sRGB transfer curve
(``-apply_trc``), which Pillow encodes. Written: Pillow's PNG of the picture, turned into linear light by
zscale (the sRGB curve undone) and stored as half floats, ZIP-compressed, as renderers write them;
the two ways round give back the same 8-bit picture.

Compared: ImageMagick here is built without OpenEXR; the OpenEXR wheel reads in-process and brings
numpy; OpenEXR's tools (Debian's openexr) convert nothing to a common format, and ``exrheader`` reads
the line offset table too, so a hostile header over a few bytes fails there with "early end of file"
instead of its claimed size. ffmpeg is installed for audio and video already and decodes every EXR
compression.
"""

from __future__ import annotations

import struct
from pathlib import Path

from mcv_pipelines.service.engines.image.ffmpeg_codec import FfmpegCodecEngine

__all__ = ["OpenExrEngine", "exr_windows"]

_MAGIC = b"\x76\x2f\x31\x01"
_MULTIPART = 0x1000


def _cstring(data: bytes, at: int) -> tuple[str, int]:
    end = data.index(b"\x00", at, min(len(data), at + 256))
    return data[at:end].decode("latin-1"), end + 1


def exr_windows(data: bytes) -> list[tuple[int, int]]:
    """Width and height of every part's data window; ValueError when ``data`` is no EXR header."""
    if not data.startswith(_MAGIC) or len(data) < 8:
        raise ValueError("it does not start as an OpenEXR file")
    flags = struct.unpack_from("<I", data, 4)[0]
    sizes: list[tuple[int, int]] = []
    at = 8
    while True:
        window = None
        while data[at : at + 1] not in (b"\x00", b""):  # one header: attributes up to an empty name
            name, at = _cstring(data, at)
            _kind, at = _cstring(data, at)
            (size,) = struct.unpack_from("<i", data, at)
            at += 4
            if size < 0 or at + size > len(data):
                raise ValueError(f"its attribute {name!r} runs past the end")
            if name == "dataWindow" and size == 16:
                window = struct.unpack_from("<iiii", data, at)
            at += size
        if window is None:
            raise ValueError("a header has no data window")
        x0, y0, x1, y1 = window
        sizes.append((x1 - x0 + 1, y1 - y0 + 1))
        at += 1
        if not flags & _MULTIPART or data[at : at + 1] in (b"\x00", b""):
            return sizes


class OpenExrEngine(FfmpegCodecEngine):
    """Its version is ffmpeg's, the decoder's."""

    name = "openexr"
    decodes = ("exr",)
    encodes = ("exr",)
    kind = "OpenEXR image"

    def sizes(self, head: bytes) -> list[tuple[int, int]]:
        return exr_windows(head)

    def decode_argv(self, source: Path, png: Path) -> list[str]:
        assert self.decoder is not None
        return [self.decoder, "-hide_banner", "-nostdin", "-loglevel", "error", "-apply_trc", "iec61966_2_1",
                "-i", str(source), "-frames:v", "1", "-pix_fmt", "rgba64be", "-y", str(png)]  # fmt: skip

    def encode_argv(self, png: Path, target: Path, quality: int | None) -> list[str]:
        assert self.program is not None
        linear = "zscale=transferin=iec61966-2-1:transfer=linear:npl=100,format=gbrapf32le|gbrpf32le"
        return [self.program, "-hide_banner", "-nostdin", "-loglevel", "error", "-i", str(png), "-vf", linear,
                "-c:v", "exr", "-format", "half", "-compression", "zip16", "-frames:v", "1", "-update", "1",
                "-y", str(target)]  # fmt: skip
