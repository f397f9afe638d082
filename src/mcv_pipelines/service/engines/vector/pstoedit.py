"""PostScript, EPS, Illustrator and PDF pages to DXF, HPGL (plt), XFig, EMF and PIC with pstoedit.

pstoedit runs Ghostscript on the drawing and writes each path it paints as lines and curves of the
target format: DXF for CAD, laser cutters and CNC, HPGL for pen and cutting plotters, .fig for XFig,
EMF for Windows programs and PIC, troff's picture language, for groff documents. Text is drawn as
outlines (``-dt``) in DXF and HPGL (a cutter, a CNC mill or a plotter has no fonts) and kept as text,
to edit, in .fig, EMF and PIC.

Ghostscript starts with ``-dDELAYSAFER`` and pstoedit's own prologue turns SAFER on (``.setsafe``)
before the input runs, so ``(/etc/passwd) (r) file`` fails; no option here turns it off, and the program
runs sealed with the input alone in a directory of its own and its temporary files there.
A PDF or a PostScript file of several pages is first cut to the one page asked (``page``, the first by
default) as EPS by Ghostscript with ``-dSAFER``: pstoedit 3.78 reads PDF only through Ghostscript's
retired PDF interpreter, which Ghostscript 10 no longer runs by default.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from mcv_pipelines.service.engines.base import (
    ConversionType,
    EngineError,
    EngineRequest,
    EngineResult,
    OptionSpec,
)
from mcv_pipelines.service.engines.failures import CONVERSION_FAILED, UNSUPPORTED_CONVERSION
from mcv_pipelines.service.engines.naming import output_path
from mcv_pipelines.service.engines.options import FILENAME, int_option
from mcv_pipelines.service.engines.pdf.pdf_input import page_count
from mcv_pipelines.service.engines.process import find_program, run_checked
from mcv_pipelines.service.engines.program_engine import ProgramEngine
from mcv_pipelines.service.engines.vector.isolate import isolated_input

__all__ = ["PSTOEDIT_INPUTS", "PSTOEDIT_OUTPUTS", "PstoeditEngine"]

PSTOEDIT_INPUTS = ("eps", "ps", "ai", "pdf")
# output format -> pstoedit's driver: DXF R2000 (splines kept) in millimetres, HPGL/1 pen moves
PSTOEDIT_OUTPUTS = {"dxf": "dxf_14:-mm", "plt": "hpgl", "fig": "fig", "emf": "emf", "pic": "pic"}
_PAGED = frozenset({"ps", "pdf"})  # cut to one page first
_OUTLINED = frozenset({"dxf", "plt"})  # text drawn as outlines
_OPTIONS = (
    FILENAME,
    OptionSpec("page", "integer", 1, None, "The page to convert (ps, pdf); the others hold one"),
)


class PstoeditEngine(ProgramEngine):
    name = "pstoedit"
    programs = ("pstoedit",)
    version_args = ("-help",)
    version_pattern = r"pstoedit: version (\d[\w.]*)"

    def __init__(self) -> None:
        super().__init__()
        self.ghostscript = find_program("gs")

    def version(self) -> str | None:
        return self._version if self.ghostscript is not None else None

    def conversion_types(self) -> Iterable[ConversionType]:
        return self.convert_pairs(PSTOEDIT_INPUTS, PSTOEDIT_OUTPUTS, _OPTIONS)

    def run(self, request: EngineRequest) -> EngineResult:
        driver = PSTOEDIT_OUTPUTS.get(request.output_format)
        if (
            request.operation != "convert"
            or request.input_format not in PSTOEDIT_INPUTS
            or driver is None
            or self.program is None
        ):
            raise EngineError(
                UNSUPPORTED_CONVERSION,
                f"pstoedit does not {request.operation} {request.input_format} to {request.output_format}",
            )
        source = isolated_input(request, "pstoedit")
        shown = request.inputs[0].path.name
        if request.input_format in _PAGED:
            source = self._one_page(request, source, shown)
        drawn = source.parent / f"drawing.{request.output_format}"
        outlines = ["-dt"] if request.output_format in _OUTLINED else []
        argv = [self.program, "-q", *outlines, "-f", driver, source.name, drawn.name]
        self._run(request, argv, f"converting {shown} with pstoedit", source.parent)
        if not drawn.is_file() or drawn.stat().st_size == 0:
            raise EngineError(CONVERSION_FAILED, f"pstoedit made nothing of {shown}")
        target = output_path(request, request.output_format)
        drawn.replace(target)
        return EngineResult(files=[target])

    def _one_page(self, request: EngineRequest, source: Path, shown: str) -> Path:
        """The page asked, as EPS, written by Ghostscript under -dSAFER."""
        assert self.ghostscript is not None
        most = page_count(source) if request.input_format == "pdf" else 100000
        page = int_option(request.options, "page", 1, minimum=1, maximum=most)
        eps = source.parent / "page.eps"
        argv = [
            self.ghostscript, "-dSAFER", "-dBATCH", "-dNOPAUSE", "-dQUIET", "-sDEVICE=eps2write",
            f"-dFirstPage={page}", f"-dLastPage={page}", f"-sOutputFile={eps.name}", "-f", source.name,
        ]  # fmt: skip
        self._run(request, argv, f"taking page {page} of {shown} with ghostscript", source.parent)
        if not eps.is_file() or eps.stat().st_size == 0:
            raise EngineError(CONVERSION_FAILED, f"{shown} has no page {page}")
        return eps

    def _run(self, request: EngineRequest, argv: list[str], what: str, folder: Path) -> None:
        # temporary files (pstoedit's and Ghostscript's) in the task's directory, never the host's /tmp
        run_checked(argv, what=what, cwd=folder, env={"TMPDIR": str(folder)}, timeout=request.timeout,
                    cancelled=request.cancelled)  # fmt: skip
