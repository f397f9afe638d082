"""Camera raw developed with LibRaw's own programs (Debian's libraw-bin), sealed like every program:
``raw-identify -v`` reads the header (the picture's size, refused past Pillow's pixel guard before
anything is decoded), ``dcraw_emu`` develops it to an 8-bit PPM in the task's work directory (the
white balance asked for, demosaiced, turned as the camera's orientation says, sRGB), and Pillow
encodes that into the output format, resized where asked.

Compared: rawpy (LibRaw in-process: a hostile file's parser bugs would run in the service, and it
brings numpy) and Debian's dcraw (one older decoder, fewer cameras, the same options). LibRaw's
programs are installed with libraw-bin and run in the seal like every converter.

Listed inputs are only those a sample of can be had on this machine: DNG, written by hand in the bench
(a Bayer sensor with DNG's colour tags and an orientation). LibRaw reads the maker formats too (cr2, cr3,
nef, arw, raf, orf, rw2, pef, srw, ...), but no file of theirs with its picture data is at hand here,
so none of them is listed.
"""

from __future__ import annotations

import functools
import shutil
from collections.abc import Iterable
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
from mcv_pipelines.service.engines.failures import INVALID_INPUT_FILE, UNSUPPORTED_CONVERSION, hide_paths
from mcv_pipelines.service.engines.image.codec_engine import too_many_pixels
from mcv_pipelines.service.engines.image.formats import image_format, writable_formats
from mcv_pipelines.service.engines.image.image_io import load_image, save_image
from mcv_pipelines.service.engines.image.resize import Resize, resize
from mcv_pipelines.service.engines.naming import output_path, single_input
from mcv_pipelines.service.engines.options import FILENAME, bool_option, enum_option, int_option
from mcv_pipelines.service.engines.process import find_program, program_version, run_checked
from mcv_pipelines.service.engines.raw.identify import parse_identify

__all__ = ["RAW_INPUTS", "RAW_OUTPUTS", "LibrawEngine"]

RAW_INPUTS = ("dng",)
RAW_OUTPUTS = ("jpg", "png", "tiff", "webp", "avif")
WHITE_BALANCES = ("camera", "auto", "daylight")
_WHITE_BALANCE_FLAGS = {"camera": ["-w"], "auto": ["-a"], "daylight": []}
_OPTIONS = (
    FILENAME,
    OptionSpec("white_balance", "enum", "camera", WHITE_BALANCES,
               "camera: as shot; auto: averaged over the picture; daylight: the sensor's daylight balance"),
    OptionSpec("half_size", "boolean", False, None, "Develop at half the size, about four times faster"),
    OptionSpec("width", "integer", None, None, "Fit inside this width in pixels (never enlarged)"),
    OptionSpec("height", "integer", None, None, "Fit inside this height in pixels (never enlarged)"),
    OptionSpec("quality", "integer", None, None, "1-100, for jpg, webp and avif"),
)  # fmt: skip


class LibrawEngine:
    name = "libraw"

    def __init__(self) -> None:
        self.developer = find_program("dcraw_emu")
        self.identifier = find_program("raw-identify")
        self.sampler = find_program("simple_dcraw")  # only says LibRaw's version

    def version(self) -> str | None:
        return self._version

    @functools.cached_property
    def _version(self) -> str | None:
        if self.developer is None or self.identifier is None or self.sampler is None:
            return None
        return program_version([self.sampler], r"LibRaw (\d[\w.]*)")

    def conversion_types(self) -> Iterable[ConversionType]:
        version = self.version()
        if version is None:
            return []
        versions = (EngineVersion(version),)
        outputs = [fmt for fmt in RAW_OUTPUTS if fmt in writable_formats()]
        return [
            ConversionType("convert", source, target, self.name, options=_OPTIONS, engine_versions=versions)
            for source in RAW_INPUTS
            for target in outputs
        ]

    def run(self, request: EngineRequest) -> EngineResult:
        source, target_format = request.input_format, request.output_format
        if request.operation != "convert" or source not in RAW_INPUTS or target_format not in RAW_OUTPUTS:
            raise EngineError(UNSUPPORTED_CONVERSION, f"libraw does not {request.operation} {source} to "
                              f"{target_format}")  # fmt: skip
        assert self.developer is not None
        balance = enum_option(request.options, "white_balance", "camera", WHITE_BALANCES)
        half = bool_option(request.options, "half_size", False)
        quality = int_option(request.options, "quality", None, minimum=1, maximum=100)
        wanted = Resize(request.options)
        name = request.inputs[0].path.name
        request.work_dir.mkdir(parents=True, exist_ok=True)
        # a name of ours: the program never sees the user's (nor a name it could read as an option)
        staged = request.work_dir / f"source.{source}"
        shutil.copyfile(single_input(request), staged)
        self._check_header(request, staged, name)
        developed = request.work_dir / "developed.ppm"
        argv = [self.developer, *_WHITE_BALANCE_FLAGS[balance], *(["-h"] if half else []),
                "-o", "1", "-Z", developed.name, staged.name]  # fmt: skip
        outcome = run_checked(argv, what=f"developing {name} with LibRaw", cwd=request.work_dir,
                              timeout=request.timeout, cancelled=request.cancelled)  # fmt: skip
        if not developed.is_file() or developed.stat().st_size == 0:
            # dcraw_emu says why on its output and still exits 0
            detail = _reason(outcome.output, staged.name, name)
            raise EngineError(INVALID_INPUT_FILE, f"LibRaw could not develop {name}: {detail}")
        picture = load_image(developed, all_frames=False, auto_orient=False)
        frame = resize(picture.frames[0], wanted)
        target = output_path(request, target_format)
        fmt = image_format(target_format)
        assert fmt is not None
        save_image([frame], target, fmt, quality=quality)
        return EngineResult(files=[target])

    def _check_header(self, request: EngineRequest, staged: Path, name: str) -> None:
        assert self.identifier is not None
        outcome = run_checked([self.identifier, "-v", staged.name], what=f"reading the header of {name}",
                              cwd=request.work_dir, timeout=request.timeout,
                              cancelled=request.cancelled)  # fmt: skip
        header = parse_identify(outcome.output)
        if header is None:
            detail = _reason(outcome.output, staged.name, name)
            raise EngineError(INVALID_INPUT_FILE, f"{name} is no camera raw file LibRaw reads: {detail}")
        if too_many_pixels(header.width, header.height):
            raise EngineError(
                INVALID_INPUT_FILE,
                f"{name} is {header.width}x{header.height} pixels, more than the "
                f"{Image.MAX_IMAGE_PIXELS or 0:,} pixels an image may have here",
            )


def _reason(output: str, staged: str, name: str) -> str:
    """LibRaw's last words on a file, in the user's name for it."""
    lines = [line.strip() for line in output.splitlines() if line.strip() and not line.startswith("Using ")]
    said = "; ".join(lines[-2:]) if lines else "no picture found"  # the cause, then what it stopped
    return hide_paths(said.replace(staged, name))
