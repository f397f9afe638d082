"""ImageMagick and GraphicsMagick as ``command`` engines (their only operation here)."""

from __future__ import annotations

import functools
from collections.abc import Iterable

from mcv_pipelines.service.engines.base import ConversionType, EngineError, EngineRequest, EngineResult
from mcv_pipelines.service.engines.command import CommandFamily, command_conversion_type, run_command
from mcv_pipelines.service.engines.process import find_program, program_version

__all__ = ["GraphicsMagickEngine", "ImageMagickEngine"]


class ImageMagickEngine:
    """``command`` with convert, identify (and magick where ImageMagick 7 is installed)."""

    name = "imagemagick"

    @functools.cached_property
    def _family(self) -> CommandFamily:
        programs = {name: path for name in ("convert", "identify", "magick") if (path := find_program(name))}
        return CommandFamily(self.name, programs, "imagemagick")

    def version(self) -> str | None:
        return self._version

    @functools.cached_property
    def _version(self) -> str | None:
        programs = self._family.programs
        program = programs.get("magick") or programs.get("convert")
        if program is None:
            return None
        return program_version([program, "-version"], r"ImageMagick (\d[\w.-]*)")

    def conversion_types(self) -> Iterable[ConversionType]:
        version = self.version()
        return [command_conversion_type(self._family, version)] if version else []

    def run(self, request: EngineRequest) -> EngineResult:
        if request.operation != "command":
            raise EngineError("UNSUPPORTED_OPERATION", f"imagemagick does not run {request.operation}")
        return run_command(self._family, request)


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
