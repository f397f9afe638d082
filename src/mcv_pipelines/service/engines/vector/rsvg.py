"""SVG to PNG, PDF, EPS and PS with librsvg's rsvg-convert.

The input is read from a directory of its own (isolate.py), and librsvg never loads resources from
the network or outside that directory, so a hostile SVG's ``<image href="file:///etc/passwd">`` or
loopback address is left out of the picture.
"""

from __future__ import annotations

from collections.abc import Iterable

from mcv_pipelines.service.engines.base import (
    ConversionType,
    EngineError,
    EngineRequest,
    EngineResult,
    OptionSpec,
)
from mcv_pipelines.service.engines.failures import UNSUPPORTED_CONVERSION
from mcv_pipelines.service.engines.naming import output_path
from mcv_pipelines.service.engines.options import FILENAME, int_option
from mcv_pipelines.service.engines.process import run_checked
from mcv_pipelines.service.engines.program_engine import ProgramEngine
from mcv_pipelines.service.engines.vector.isolate import isolated_input

__all__ = ["RsvgEngine"]

_INPUTS = ("svg", "svgz")
_OUTPUTS = ("png", "pdf", "eps", "ps")
_OPTIONS = (
    FILENAME,
    OptionSpec("width", "integer", None, None, "Width in pixels (png) or points; height follows when unset"),
    OptionSpec("height", "integer", None, None, "Height in pixels (png) or points; width follows when unset"),
    OptionSpec("pixel_density", "integer", 96, None, "Resolution in dots per inch"),
)


class RsvgEngine(ProgramEngine):
    name = "librsvg"
    programs = ("rsvg-convert",)
    version_pattern = r"rsvg-convert version (\d[\w.]*)"

    def conversion_types(self) -> Iterable[ConversionType]:
        return self.convert_pairs(_INPUTS, _OUTPUTS, _OPTIONS)

    def run(self, request: EngineRequest) -> EngineResult:
        if request.operation != "convert" or request.output_format not in _OUTPUTS or self.program is None:
            raise EngineError(
                UNSUPPORTED_CONVERSION, f"librsvg does not {request.operation} svg to {request.output_format}"
            )
        source = isolated_input(request, "rsvg")
        width = int_option(request.options, "width", minimum=1, maximum=20000)
        height = int_option(request.options, "height", minimum=1, maximum=20000)
        density = int_option(request.options, "pixel_density", 96, minimum=10, maximum=1200)
        target = output_path(request, request.output_format)
        argv = [
            self.program,
            "--format", request.output_format,
            "--dpi-x", str(density), "--dpi-y", str(density),
            *(["--width", str(width)] if width else []),
            *(["--height", str(height)] if height else []),
            *(["--keep-aspect-ratio"] if bool(width) != bool(height) else []),
            "--output", str(target),
            source.name,
        ]  # fmt: skip
        run_checked(
            argv,
            what=f"rendering {request.inputs[0].path.name} with librsvg",
            cwd=source.parent,
            timeout=request.timeout,
            cancelled=request.cancelled,
        )
        return EngineResult(files=[target])
