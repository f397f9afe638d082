"""ImageMagick and GraphicsMagick as ``command`` engines; ImageMagick also converts the image long
tail Pillow lacks (magick_formats.py), decoding to PNG for Pillow or encoding from Pillow's PNG.

GraphicsMagick lists no conversion of its own: every format it reads and writes here, Debian's
ImageMagick 6 does too.
"""

from __future__ import annotations

import functools
import mmap
import re
import shutil
import struct
import zlib
from collections.abc import Iterable, Mapping
from pathlib import Path

from mcv_pipelines.service.engines.base import ConversionType, EngineError, EngineRequest, EngineResult
from mcv_pipelines.service.engines.command import CommandFamily, command_conversion_type, run_command
from mcv_pipelines.service.engines.failures import INVALID_INPUT_FILE, hide_paths
from mcv_pipelines.service.engines.image.codec_engine import CodecEngine, too_many_pixels
from mcv_pipelines.service.engines.image.formats import readable_formats, writable_formats
from mcv_pipelines.service.engines.image.magick_formats import (
    ENCODE_OPTIONS,
    MAGICK_CODERS,
    magick_decodes,
    magick_encodes,
    supported_coders,
)
from mcv_pipelines.service.engines.image.magick_policy import write_policy
from mcv_pipelines.service.engines.image.mat_header import mat_picture_sizes
from mcv_pipelines.service.engines.process import find_program, program_version, run_program

__all__ = ["GraphicsMagickEngine", "ImageMagickEngine"]

_SIZE_LINE = re.compile(r"^(\d+) (\d+)$", re.MULTILINE)


class ImageMagickEngine(CodecEngine):
    """``command`` with convert, identify (and magick where ImageMagick 7 is installed); ``convert``
    of the image long tail Pillow lacks (magick_formats), under the policy ``command`` runs with."""

    name = "imagemagick"
    programs = ("convert", "magick")
    version_args = ("-version",)
    version_pattern = r"ImageMagick (\d[\w.-]*)"
    decoder_program = "convert"
    info_program = "identify"

    @functools.cached_property
    def _family(self) -> CommandFamily:
        programs = {name: path for name in ("convert", "identify", "magick") if (path := find_program(name))}
        return CommandFamily(self.name, programs, "imagemagick")

    @functools.cached_property
    def _coders(self) -> dict[str, str]:
        if self.program is None:
            return {}
        try:
            outcome = run_program(
                [self.program, "-list", "format"], timeout=60, max_output=1_000_000, answer_only=True
            )
        except EngineError:
            return {}
        return supported_coders(outcome.output) if outcome.returncode == 0 else {}

    @property
    def decodes(self) -> tuple[str, ...]:  # type: ignore[override]  # known only once the program ran
        return magick_decodes(self._coders, readable_formats())

    @property
    def encodes(self) -> tuple[str, ...]:  # type: ignore[override]  # known only once the program ran
        return magick_encodes(self._coders, writable_formats())

    def conversion_types(self) -> Iterable[ConversionType]:
        version = self.version()
        if not version:
            return []
        return [command_conversion_type(self._family, version), *super().conversion_types()]

    def run(self, request: EngineRequest) -> EngineResult:
        if request.operation == "command":
            return run_command(self._family, request)
        return super().run(request)

    def stage(self, request: EngineRequest, path: Path) -> Path:
        # ImageMagick reads a name's "[0]", "%d" and "coder:" parts as instructions: it gets its own
        staged = request.work_dir / f"source.{request.input_format}"
        shutil.copyfile(path, staged)
        return staged

    def environment(self, request: EngineRequest) -> Mapping[str, str]:
        (request.work_dir / "tmp").mkdir(parents=True, exist_ok=True)
        return {
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "HOME": str(request.work_dir),
            "LANG": "C.UTF-8",
            "MAGICK_CONFIGURE_PATH": str(write_policy(request.work_dir / "magick", request.work_dir)),
            "MAGICK_TEMPORARY_PATH": str(request.work_dir / "tmp"),
        }

    def header_size(self, request: EngineRequest, path: Path) -> list[tuple[int, int]]:
        coder = MAGICK_CODERS[request.input_format]
        if coder == "MAT":  # ImageMagick's MAT coder cannot be pinged: the header is read here
            return _mat_sizes(path, request.inputs[0].path.name)
        info = self._family.programs.get("identify")
        if info is None:
            return []  # the decoded PNG is still opened under Pillow's guard
        argv = [info, "-ping", "-format", "%w %h\n", f"{coder}:{path}"]
        name = request.inputs[0].path.name
        what = f"reading the header of {name}"
        outcome = run_program(argv, cwd=request.work_dir, env=self.environment(request),
                              timeout=request.timeout, cancelled=request.cancelled)  # fmt: skip
        sizes = [(int(w), int(h)) for w, h in _SIZE_LINE.findall(outcome.output)]
        if outcome.timed_out or outcome.cancelled:
            raise EngineError("TIMEOUT" if outcome.timed_out else "CANCELLED", f"{what} was stopped")
        if sizes and (outcome.returncode == 0 or any(too_many_pixels(*size) for size in sizes)):
            return sizes  # a bomb is named as one (check_size), even where ImageMagick's limits hit first
        lines = outcome.output.strip().splitlines()
        # "identify: width or height exceeds limit `source.miff' @ error/cache.c/OpenPixelCache/3928."
        detail = hide_paths(lines[-1].split(" @ ")[0]).replace(path.name, name) if lines else "no image"
        if "exceeds limit" in detail:
            raise EngineError(INVALID_INPUT_FILE, f"{name} declares more pixels than an image may have here "
                              f"({detail})")  # fmt: skip
        raise EngineError(INVALID_INPUT_FILE, f"{what} failed: {detail}")

    def decode_argv(self, source: Path, png: Path) -> list[str]:
        assert self.program is not None
        coder = MAGICK_CODERS[source.suffix[1:]]
        return [self.program, f"{coder}:{source}[0]", f"PNG:{png}"]

    def encode_argv(self, png: Path, target: Path, quality: int | None) -> list[str]:
        assert self.program is not None
        coder = MAGICK_CODERS[target.suffix[1:]]
        argv = [self.program, f"PNG:{png}", *ENCODE_OPTIONS.get(target.suffix[1:], ())]
        argv += ["-quality", str(quality)] if quality is not None else []
        return [*argv, f"{coder}:{target}"]


def _mat_sizes(path: Path, name: str) -> list[tuple[int, int]]:
    try:
        with path.open("rb") as source, mmap.mmap(source.fileno(), 0, access=mmap.ACCESS_READ) as data:
            return mat_picture_sizes(data)
    except (ValueError, struct.error, zlib.error) as exc:  # mmap of an empty file: ValueError too
        raise EngineError(INVALID_INPUT_FILE, f"{name} is no MATLAB image: {exc}") from exc


class GraphicsMagickEngine:
    """``command`` with gm."""

    name = "graphicsmagick"

    @functools.cached_property
    def _family(self) -> CommandFamily:
        path = find_program("gm")
        return CommandFamily(self.name, {"gm": path} if path else {}, "graphicsmagick")

    def version(self) -> str | None:
        return self._version

    @functools.cached_property
    def _version(self) -> str | None:
        program = self._family.programs.get("gm")
        return program_version([program, "-version"], r"GraphicsMagick (\d[\w.-]*)") if program else None

    def conversion_types(self) -> Iterable[ConversionType]:
        version = self.version()
        return [command_conversion_type(self._family, version)] if version else []

    def run(self, request: EngineRequest) -> EngineResult:
        if request.operation != "command":
            raise EngineError("UNSUPPORTED_OPERATION", f"graphicsmagick does not run {request.operation}")
        return run_command(self._family, request)
