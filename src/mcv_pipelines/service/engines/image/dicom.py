"""DICOM medical images (dcm) to png, jpg, tiff (a file per frame) and pdf (a page per frame), with
DCMTK's programs, sealed: ``dcmdump`` reads the header (rows, columns, frames, transfer syntax; a
picture past Pillow's pixel guard is refused before any pixel is decoded), ``dcmj2pnm`` (uncompressed,
RLE and JPEG pixel data) or ``dcml2pnm`` (JPEG-LS) renders every frame to an 8-bit PNG with the VOI
window asked for, and Pillow writes the output format. JPEG 2000 pixel data DCMTK's free toolkit does not
decode: such a file fails with DCMTK's reason.

Compared: pydicom (MIT; in-process, so a hostile file is parsed inside the service, and it needs numpy
and a codec plugin per compressed transfer syntax). DCMTK is the reference toolkit, decodes JPEG,
JPEG-LS and RLE itself, and runs in the seal like every converter.
"""

from __future__ import annotations

import functools
import re
import shutil
from collections.abc import Iterable
from dataclasses import dataclass
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
from mcv_pipelines.service.engines.image.formats import image_format
from mcv_pipelines.service.engines.image.image_io import load_image, save_image, save_pdf
from mcv_pipelines.service.engines.naming import output_path, single_input
from mcv_pipelines.service.engines.options import FILENAME, enum_option, int_option
from mcv_pipelines.service.engines.process import find_program, program_version, run_checked, run_program

__all__ = ["DICOM_OUTPUTS", "DcmtkEngine", "DicomHeader", "parse_dicom_header"]

DICOM_OUTPUTS = ("png", "jpg", "tiff", "pdf")
WINDOWS = ("auto", "minmax", "none")
MAX_FRAMES = 2000
_TAG = re.compile(
    r"^\((0028,00(?:08|10|11)|0028,1050|0002,0010)\)\s+\w\w\s+[\[=]?([^\]#]*?)\]?\s+#", re.MULTILINE
)
_JPEG_LS = ("1.2.840.10008.1.2.4.80", "1.2.840.10008.1.2.4.81", "JPEGLSLossless", "JPEGLSLossy")
_OPTIONS = (
    FILENAME,
    OptionSpec("window", "enum", "auto", WINDOWS,
               "auto: the file's own VOI window, else min-max; minmax: the frame's darkest to brightest "
               "value; none: the stored values as they are"),
    OptionSpec("quality", "integer", None, None, "1-100, for jpg"),
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class DicomHeader:
    rows: int
    columns: int
    frames: int
    has_window: bool
    jpeg_ls: bool = False


def parse_dicom_header(output: str) -> DicomHeader | None:
    """Rows, columns, frames and whether a VOI window is given, from ``dcmdump +P ...``; None when the
    file holds no picture (no rows or columns)."""
    found = {tag: value.strip() for tag, value in _TAG.findall(output)}
    try:
        rows, columns = int(found["0028,0010"]), int(found["0028,0011"])
        frames = int(found.get("0028,0008") or 1)
    except (KeyError, ValueError):
        return None
    syntax = found.get("0002,0010", "")
    return DicomHeader(
        rows, columns, max(frames, 1), bool(found.get("0028,1050")), syntax.startswith(_JPEG_LS)
    )


class DcmtkEngine:
    name = "dcmtk"

    def __init__(self) -> None:
        self.renderer = find_program("dcmj2pnm", "dcm2pnm")
        self.ls_renderer = find_program("dcml2pnm")
        self.dumper = find_program("dcmdump")

    def version(self) -> str | None:
        return self._version

    @functools.cached_property
    def _version(self) -> str | None:
        if self.renderer is None or self.dumper is None:
            return None
        return program_version([self.renderer, "--version"], r"dcm\w?2pnm v(\d[\w.]*)")

    def conversion_types(self) -> Iterable[ConversionType]:
        version = self.version()
        if version is None:
            return []
        versions = (EngineVersion(version),)
        return [
            ConversionType("convert", "dcm", target, self.name, options=_OPTIONS, engine_versions=versions)
            for target in DICOM_OUTPUTS
        ]

    def run(self, request: EngineRequest) -> EngineResult:
        if (
            request.operation != "convert"
            or request.input_format != "dcm"
            or (request.output_format not in DICOM_OUTPUTS)
        ):
            raise EngineError(UNSUPPORTED_CONVERSION, f"dcmtk does not {request.operation} "
                              f"{request.input_format} to {request.output_format}")  # fmt: skip
        assert self.renderer is not None
        window = enum_option(request.options, "window", "auto", WINDOWS)
        quality = int_option(request.options, "quality", None, minimum=1, maximum=100)
        name = request.inputs[0].path.name
        request.work_dir.mkdir(parents=True, exist_ok=True)
        staged = request.work_dir / "source.dcm"
        shutil.copyfile(single_input(request), staged)
        header = self._header(request, staged, name)
        if window == "auto":
            flags = ["+Wi", "1"] if header.has_window else ["+Wm"]
        else:
            flags = ["+Wm"] if window == "minmax" else ["-W"]
        frames_dir = request.work_dir / "frames"
        frames_dir.mkdir()
        renderer = self.ls_renderer if header.jpeg_ls and self.ls_renderer else self.renderer
        argv = [renderer, "+Fa", "+on", *flags, staged.name, str(frames_dir / "frame")]
        run_checked(argv, what=f"rendering {name} with DCMTK", cwd=request.work_dir,
                    timeout=request.timeout, cancelled=request.cancelled)  # fmt: skip
        rendered = sorted(frames_dir.iterdir(), key=_frame_number)
        if not rendered:
            raise EngineError(INVALID_INPUT_FILE, f"DCMTK found no picture to render in {name}")
        frames = [load_image(path, all_frames=False, auto_orient=False).frames[0] for path in rendered]
        if request.output_format == "pdf":
            target = output_path(request, "pdf")
            save_pdf(frames, target, (255, 255, 255))
            return EngineResult(files=[target])
        fmt = image_format(request.output_format)
        assert fmt is not None
        files: list[Path] = []
        for index, frame in enumerate(frames, start=1):
            target = output_path(request, request.output_format, index if len(frames) > 1 else None)
            save_image([frame], target, fmt, quality=quality)
            files.append(target)
        return EngineResult(files=files)

    def _header(self, request: EngineRequest, staged: Path, name: str) -> DicomHeader:
        assert self.dumper is not None
        tags = ("0002,0010", "0028,0010", "0028,0011", "0028,0008", "0028,1050")
        argv = [self.dumper, *(arg for tag in tags for arg in ("+P", tag)), staged.name]
        outcome = run_program(argv, cwd=request.work_dir, timeout=request.timeout,
                              cancelled=request.cancelled, max_output=65536)  # fmt: skip
        if outcome.timed_out or outcome.cancelled:
            raise EngineError("TIMEOUT" if outcome.timed_out else "CANCELLED", f"reading {name} was stopped")
        header = parse_dicom_header(outcome.output) if outcome.returncode == 0 else None
        if header is None:
            said = [line for line in outcome.output.splitlines() if line.strip()]
            detail = hide_paths(said[-1].replace(staged.name, name)) if said else "no picture in it"
            raise EngineError(INVALID_INPUT_FILE, f"{name} is no DICOM picture DCMTK reads: {detail}")
        in_all = header.rows * header.columns * header.frames
        if (
            too_many_pixels(header.columns, header.rows)
            or header.frames > MAX_FRAMES
            or (too_many_pixels(in_all // 4, 1))
        ):
            raise EngineError(
                INVALID_INPUT_FILE,
                f"{name} declares {header.frames} frame(s) of {header.columns}x{header.rows} pixels, more "
                f"than an image may have here (at most {Image.MAX_IMAGE_PIXELS or 0:,} pixels a frame, "
                f"{MAX_FRAMES} frames, four frames' worth of pixels in all)",
            )
        return header


def _frame_number(path: Path) -> int:
    """``frame.12.png`` -> 12 (dcm2pnm's numbering), so frame 10 follows frame 9."""
    parts = path.name.split(".")
    return int(parts[-2]) if len(parts) >= 3 and parts[-2].isdigit() else 0
