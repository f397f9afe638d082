"""Image formats Pillow cannot read or write, through a codec program: decode to PNG, then Pillow;
or Pillow, then encode from PNG (libheif's heif-convert/heif-enc, libjxl's djxl/cjxl).

A subclass names its programs and formats. Before decoding, the file's size in pixels is read from
its header (heif-info, jxlinfo) and a picture larger than Pillow's ``MAX_IMAGE_PIXELS`` guard allows
fails with INVALID_INPUT_FILE before any pixel is decoded; the PNG in between is opened under the
same guard.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterable, Mapping
from pathlib import Path

from PIL import Image

from mcv_pipelines.service.engines.base import (
    ConversionType,
    EngineError,
    EngineRequest,
    EngineResult,
    EngineVersion,
    OptionSpec,
)
from mcv_pipelines.service.engines.failures import INVALID_INPUT_FILE, UNSUPPORTED_CONVERSION
from mcv_pipelines.service.engines.image.formats import image_format, readable_formats, writable_formats
from mcv_pipelines.service.engines.image.image_io import load_image, save_image, save_pdf
from mcv_pipelines.service.engines.naming import output_path, single_input
from mcv_pipelines.service.engines.options import FILENAME, int_option
from mcv_pipelines.service.engines.process import find_program, run_checked
from mcv_pipelines.service.engines.program_engine import ProgramEngine

__all__ = ["CodecEngine", "too_many_pixels"]

_SIZE = re.compile(r"(\d+)\s*x\s*(\d+)")
_QUALITY = OptionSpec("quality", "integer", None, None, "1-100; the codec's own default when unset")


def too_many_pixels(width: int, height: int) -> bool:
    """What Pillow refuses as a decompression bomb (twice ``MAX_IMAGE_PIXELS``)."""
    limit = Image.MAX_IMAGE_PIXELS
    return limit is not None and width * height > 2 * limit


class CodecEngine(ProgramEngine):
    """Subclasses set ``decodes``/``encodes`` (listing formats) and the argv builders below."""

    decodes: tuple[str, ...]
    encodes: tuple[str, ...]
    decoder_program: str
    info_program: str

    def __init__(self) -> None:
        super().__init__()
        self.decoder = find_program(self.decoder_program)

    def version(self) -> str | None:
        return super().version() if self.decoder is not None else None

    def conversion_types(self) -> Iterable[ConversionType]:
        version = self.version()
        if version is None:
            return []
        versions = (EngineVersion(version),)
        pairs = {(s, t) for s in self.decodes for t in (*writable_formats(), "pdf")}
        pairs |= {(s, t) for s in (*readable_formats(), *self.decodes) for t in self.encodes if s != t}
        return [
            ConversionType("convert", s, t, self.name, options=(FILENAME, _QUALITY), engine_versions=versions)
            for s, t in sorted(pairs)
        ]

    def decode_argv(self, source: Path, png: Path) -> list[str]:
        raise NotImplementedError

    def encode_argv(self, png: Path, target: Path, quality: int | None) -> list[str]:
        raise NotImplementedError

    def run(self, request: EngineRequest) -> EngineResult:
        source, target_format = request.input_format, request.output_format
        listed = {(c.input_format, c.output_format) for c in self.conversion_types()}
        if request.operation != "convert" or (source, target_format) not in listed:
            raise EngineError(
                UNSUPPORTED_CONVERSION,
                f"{self.name} does not {request.operation} {source} to {target_format}",
            )
        path = single_input(request).resolve()
        request.work_dir.mkdir(parents=True, exist_ok=True)
        quality = int_option(request.options, "quality", None, minimum=1, maximum=100)
        if source in self.decodes:
            path = self.stage(request, path)
            self.check_size(request, path)
            decoded = request.work_dir / "decoded.png"
            self._run(request, self.decode_argv(path, decoded), f"decoding {request.inputs[0].path.name}")
            path = decoded
        target = output_path(request, target_format)
        if target_format in self.encodes:
            png = request.work_dir / "encode.png"
            image = load_image(path, all_frames=False, auto_orient=True)
            fmt = image_format("png")
            assert fmt is not None
            # 8-bit RGB(A): the encoders take no 1-bit or palette PNG (heif-enc asserts on one)
            frame = image.frames[0]
            alpha = frame.mode in ("RGBA", "LA", "PA") or "transparency" in frame.info
            save_image([frame.convert("RGBA" if alpha else "RGB")], png, fmt)
            # written under a name of ours, then moved: the output's name is the user's to choose
            encoded = request.work_dir / f"encoded.{target_format}"
            self._run(request, self.encode_argv(png, encoded, quality), f"encoding {target.name}")
            shutil.move(encoded, target)
            return EngineResult(files=[target])
        image = load_image(path, all_frames=False, auto_orient=False)
        fmt = image_format(target_format)
        if fmt is None:
            save_pdf(image.frames, target, (255, 255, 255))
        else:
            save_image(image.frames, target, fmt, quality=quality, icc_profile=image.icc_profile)
        return EngineResult(files=[target])

    def stage(self, request: EngineRequest, path: Path) -> Path:
        """The input as the decoder reads it; a subclass may copy it under a name of its own."""
        return path

    def environment(self, request: EngineRequest) -> Mapping[str, str] | None:
        """Environment of the codec's programs (None: the service's own)."""
        return None

    def header_size(self, request: EngineRequest, path: Path) -> list[tuple[int, int]]:
        """Width and height of each picture in ``path``, read from its header by ``info_program``."""
        info = find_program(self.info_program)
        if info is None:
            return []  # the decoded PNG is still opened under Pillow's guard
        outcome = run_checked([info, str(path)], what=f"reading the header of {request.inputs[0].path.name}",
                              timeout=request.timeout, cancelled=request.cancelled)  # fmt: skip
        return [(int(width), int(height)) for width, height in _SIZE.findall(outcome.output)]

    def check_size(self, request: EngineRequest, path: Path) -> None:
        """Refuse a picture larger than Pillow's guard allows before any pixel is decoded."""
        for width, height in self.header_size(request, path):
            if too_many_pixels(width, height):
                raise EngineError(
                    INVALID_INPUT_FILE,
                    f"{request.inputs[0].path.name} is {width}x{height} pixels, more than the "
                    f"{Image.MAX_IMAGE_PIXELS or 0:,} pixels an image may have here",
                )

    def _run(self, request: EngineRequest, argv: list[str], what: str) -> None:
        run_checked(argv, what=what, cwd=request.work_dir, env=self.environment(request),
                    timeout=request.timeout, cancelled=request.cancelled)  # fmt: skip
