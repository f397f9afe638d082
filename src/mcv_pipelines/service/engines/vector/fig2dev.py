"""XFig drawings (.fig) to PDF, SVG, SVGZ, PNG and EPS with fig2dev (transfig).

A .fig picture object names an image file by path (``/etc/passwd`` or ``../secret.png``); those names
are blanked before fig2dev reads the drawing (figures.py), so a picture is drawn as the empty frame
XFig shows for a missing file. The input also sits alone in a directory of its own and fig2dev (and
the Ghostscript it starts for PNG) runs sealed with its temporary files there.
"""

from __future__ import annotations

from collections.abc import Iterable

from mcv_pipelines.service.engines.base import (
    ConversionType,
    EngineError,
    EngineRequest,
    EngineResult,
)
from mcv_pipelines.service.engines.failures import (
    INVALID_INPUT_FILE,
    UNSUPPORTED_CONVERSION,
)
from mcv_pipelines.service.engines.naming import output_path
from mcv_pipelines.service.engines.options import FILENAME
from mcv_pipelines.service.engines.process import run_checked
from mcv_pipelines.service.engines.program_engine import ProgramEngine
from mcv_pipelines.service.engines.vector.figures import FIG_HEADER, without_pictures
from mcv_pipelines.service.engines.vector.isolate import isolated_input
from mcv_pipelines.service.engines.vector.svgz import deliver_drawing, svg_kind

__all__ = ["Fig2devEngine"]

# output format -> fig2dev's language
_OUTPUTS = {"pdf": "pdf", "svg": "svg", "svgz": "svg", "png": "png", "eps": "eps"}


class Fig2devEngine(ProgramEngine):
    name = "fig2dev"
    programs = ("fig2dev",)
    version_args = ("-V",)
    version_pattern = r"fig2dev Version (\d[\w.]*)"

    def conversion_types(self) -> Iterable[ConversionType]:
        return self.convert_pairs(("fig",), _OUTPUTS, (FILENAME,))

    def run(self, request: EngineRequest) -> EngineResult:
        language = _OUTPUTS.get(request.output_format)
        if request.operation != "convert" or request.input_format != "fig" or language is None:
            raise EngineError(
                UNSUPPORTED_CONVERSION,
                f"fig2dev does not {request.operation} {request.input_format} to {request.output_format}",
            )
        assert self.program is not None
        shown = request.inputs[0].path.name
        source = isolated_input(request, "fig2dev")
        text = source.read_bytes().decode("latin-1")
        if not text.startswith(FIG_HEADER):
            raise EngineError(INVALID_INPUT_FILE, f"{shown} is not an XFig drawing (no '#FIG' header)")
        source.write_bytes(without_pictures(text).encode("latin-1"))
        drawn = source.parent / f"drawing.{svg_kind(request.output_format)}"
        argv = [
            self.program,
            "-L",
            language,
            *(["-S", "4"] if language == "png" else []),
            source.name,
            drawn.name,
        ]
        run_checked(argv, what=f"converting {shown} with fig2dev", cwd=source.parent,
                    env={"TMPDIR": str(source.parent)}, timeout=request.timeout,
                    cancelled=request.cancelled)  # fmt: skip
        target = output_path(request, request.output_format)
        return EngineResult(files=[deliver_drawing(drawn, target, f"fig2dev made nothing of {shown}")])
