"""OpenEXR (exr, HDR in linear light) to the image formats: ``exrheader`` (OpenEXR's own tool) reads the
data window first, so a header claiming gigapixels is refused before a pixel is decoded, then ffmpeg's
EXR decoder renders the first part to a 16-bit PNG with the sRGB transfer curve (``-apply_trc``), which
Pillow encodes. Both sealed.

Compared: ImageMagick here is built without OpenEXR; the OpenEXR wheel reads in-process and brings
numpy. ffmpeg is installed for audio and video already and decodes every EXR compression.
"""

from __future__ import annotations

import re
from pathlib import Path

from mcv_pipelines.service.engines.base import EngineError, EngineRequest
from mcv_pipelines.service.engines.failures import INVALID_INPUT_FILE
from mcv_pipelines.service.engines.image.codec_engine import CodecEngine
from mcv_pipelines.service.engines.process import find_program, run_program

__all__ = ["OpenExrEngine", "exr_windows"]

# "dataWindow (type box2i): (0 0) - (95 63)"
_WINDOW = re.compile(r"dataWindow \(type box2i\): \((-?\d+) (-?\d+)\) - \((-?\d+) (-?\d+)\)")


def exr_windows(output: str) -> list[tuple[int, int]]:
    """Width and height of every part's data window in ``exrheader``'s output."""
    sizes = []
    for x0, y0, x1, y1 in _WINDOW.findall(output):
        sizes.append((int(x1) - int(x0) + 1, int(y1) - int(y0) + 1))
    return sizes


class OpenExrEngine(CodecEngine):
    """Its version is ffmpeg's, the decoder's: OpenEXR's tools print none."""

    name = "openexr"
    programs = ("ffmpeg",)
    version_args = ("-version",)
    version_pattern = r"ffmpeg version (\S+)"
    decodes = ("exr",)
    encodes = ()
    decoder_program = "ffmpeg"
    info_program = "exrheader"

    def version(self) -> str | None:
        return super().version() if find_program(self.info_program) is not None else None

    def header_size(self, request: EngineRequest, path: Path) -> list[tuple[int, int]]:
        info = find_program(self.info_program)
        assert info is not None
        name = request.inputs[0].path.name
        outcome = run_program([info, path.name], cwd=path.parent, timeout=request.timeout,
                              cancelled=request.cancelled, max_output=262144)  # fmt: skip
        sizes = exr_windows(outcome.output)
        if outcome.returncode != 0 or not sizes:
            lines = [line for line in outcome.output.splitlines() if line.strip()]
            detail = lines[-1].replace(str(path), name) if lines else "no header"
            raise EngineError(INVALID_INPUT_FILE, f"{name} is no OpenEXR image: {detail}")
        if any(width <= 0 or height <= 0 for width, height in sizes):
            raise EngineError(INVALID_INPUT_FILE, f"{name} has an empty data window")
        return sizes

    def decode_argv(self, source: Path, png: Path) -> list[str]:
        assert self.decoder is not None
        return [self.decoder, "-hide_banner", "-nostdin", "-loglevel", "error", "-apply_trc", "iec61966_2_1",
                "-i", str(source), "-frames:v", "1", "-pix_fmt", "rgba64be", "-y", str(png)]  # fmt: skip
