"""The part the image codecs ffmpeg decodes and encodes share (OpenEXR, JPEG-LS): ffmpeg found and its
version read as the engine's, the input staged under a name of ours, and the picture's size read from
its header here, before a pixel is decoded, so a file claiming gigapixels is refused first."""

from __future__ import annotations

import shutil
import struct
from pathlib import Path

from mcv_pipelines.service.engines.base import EngineError, EngineRequest
from mcv_pipelines.service.engines.failures import INVALID_INPUT_FILE
from mcv_pipelines.service.engines.image.codec_engine import CodecEngine

__all__ = ["FfmpegCodecEngine"]

_HEADER_LIMIT = 1 << 20  # bytes of headers read at most


class FfmpegCodecEngine(CodecEngine):
    """Subclasses set ``name``, ``decodes``/``encodes`` (one format), ``kind`` (the format in words) and
    ``sizes`` (the header's pictures); their version is ffmpeg's, the decoder's."""

    programs = ("ffmpeg",)
    version_args = ("-version",)
    version_pattern = r"ffmpeg version (\S+)"
    decoder_program = "ffmpeg"
    info_program = "ffmpeg"  # not asked: the header is read here (header_size)
    kind: str

    def sizes(self, head: bytes) -> list[tuple[int, int]]:
        """Width and height of each picture the header declares; ValueError when it is not one."""
        raise NotImplementedError

    def stage(self, request: EngineRequest, path: Path) -> Path:
        # ffmpeg reads "%d" in a name as a numbered sequence: the file gets a name of ours
        staged = request.work_dir / f"source.{self.decodes[0]}"
        shutil.copyfile(path, staged)
        return staged

    def header_size(self, request: EngineRequest, path: Path) -> list[tuple[int, int]]:
        name = request.inputs[0].path.name
        with path.open("rb") as source:
            head = source.read(_HEADER_LIMIT)
        try:
            sizes = self.sizes(head)
        except (ValueError, struct.error) as exc:
            raise EngineError(INVALID_INPUT_FILE, f"{name} is no {self.kind}: {exc}") from exc
        for width, height in sizes:
            if width <= 0 or height <= 0:
                raise EngineError(INVALID_INPUT_FILE, f"{name} declares an empty picture ({width}x{height})")
        return sizes
