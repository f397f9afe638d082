"""HPGL plot files (.plt, for pen and cutting plotters) to SVG, SVGZ, EPS and PNG with hp2xx.

The plot is drawn as the plotter would, pen by pen, scaled to fit 200 x 200 mm (hp2xx's default): a
plot whose coordinates claim kilometres still makes a picture of bounded size. HPGL names no other
file; the input sits alone in a directory of its own and hp2xx runs sealed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from mcv_pipelines.service.engines.base import (
    ConversionType,
    EngineError,
    EngineRequest,
    EngineResult,
    OptionSpec,
)
from mcv_pipelines.service.engines.failures import (
    INVALID_INPUT_FILE,
    UNSUPPORTED_CONVERSION,
)
from mcv_pipelines.service.engines.naming import output_path
from mcv_pipelines.service.engines.options import FILENAME, int_option
from mcv_pipelines.service.engines.process import run_checked
from mcv_pipelines.service.engines.program_engine import ProgramEngine
from mcv_pipelines.service.engines.vector.isolate import isolated_input
from mcv_pipelines.service.engines.vector.svgz import deliver_drawing, svg_kind

__all__ = ["HpglEngine"]

_OUTPUTS = ("svg", "svgz", "eps", "png")
# a command that moves or lowers the pen (or initializes the plotter), as HPGL programs start
_PLOTS = re.compile(rb"(?:^|[;\s])(?:IN|PU|PD|PA|PR)[\s\d;,.+-]")
_OPTIONS = (FILENAME, OptionSpec("pixel_density", "integer", 150, None, "Resolution in dots per inch (png)"))


class HpglEngine(ProgramEngine):
    name = "hp2xx"
    programs = ("hp2xx",)
    version_args = ("--version",)
    version_pattern = r"\bV (\d+\.\d[\w.]*)"

    def conversion_types(self) -> Iterable[ConversionType]:
        return self.convert_pairs(("plt",), _OUTPUTS, _OPTIONS)

    def run(self, request: EngineRequest) -> EngineResult:
        if (
            request.operation != "convert"
            or request.input_format != "plt"
            or request.output_format not in _OUTPUTS
            or self.program is None
        ):
            raise EngineError(
                UNSUPPORTED_CONVERSION,
                f"hp2xx does not {request.operation} {request.input_format} to {request.output_format}",
            )
        shown = request.inputs[0].path.name
        source = isolated_input(request, "hp2xx")
        if not _PLOTS.search(source.read_bytes()[:65536]):
            raise EngineError(INVALID_INPUT_FILE, f"{shown} is not an HPGL plot (no pen commands)")
        mode = svg_kind(request.output_format)
        density = int_option(request.options, "pixel_density", 150, minimum=10, maximum=600)
        drawn = source.parent / f"plot.{mode}"
        argv = [self.program, "-q", "-m", mode, "-d", str(density), "-f", drawn.name, source.name]
        run_checked(argv, what=f"plotting {shown} with hp2xx", cwd=source.parent, timeout=request.timeout,
                    cancelled=request.cancelled)  # fmt: skip
        target = output_path(request, request.output_format)
        return EngineResult(files=[deliver_drawing(drawn, target, f"hp2xx drew nothing of {shown}")])
