"""PDF optimize with Ghostscript's pdfwrite; ``profile`` picks its -dPDFSETTINGS preset."""

from __future__ import annotations

from collections.abc import Iterable

from mcv_pipelines.service.engines.base import (
    ConversionType,
    EngineError,
    EngineRequest,
    EngineResult,
    EngineVersion,
    OptionSpec,
)
from mcv_pipelines.service.engines.naming import output_path
from mcv_pipelines.service.engines.options import enum_option
from mcv_pipelines.service.engines.pdf.pdf_input import single_pdf
from mcv_pipelines.service.engines.process import run_checked
from mcv_pipelines.service.engines.program_engine import ProgramEngine
from mcv_pipelines.service.engines.progress import GhostscriptPages

__all__ = ["PROFILES", "GhostscriptEngine"]

# web: screen-sized images at 150 dpi; print: 300 dpi; archive: keep quality and colour for prepress;
# max: smallest file (72 dpi images).
PROFILES = {"web": "/ebook", "print": "/printer", "archive": "/prepress", "max": "/screen"}


_UNREADABLE = ("Couldn't initialise file", "No pages will be processed")


class GhostscriptEngine(ProgramEngine):
    name = "ghostscript"
    programs = ("gs",)
    version_pattern = r"^(\d[\w.]*)"

    def conversion_types(self) -> Iterable[ConversionType]:
        version = self.version()
        if version is None:
            return []
        option = OptionSpec(
            "profile", "enum", "web", tuple(PROFILES), "web, print, archive or max (smallest)"
        )
        return [
            ConversionType(
                "optimize",
                "pdf",
                "pdf",
                self.name,
                options=(option,),
                engine_versions=(EngineVersion(version),),
            )
        ]

    def run(self, request: EngineRequest) -> EngineResult:
        if request.operation != "optimize" or self.program is None:
            raise EngineError("UNSUPPORTED_OPERATION", f"ghostscript does not run {request.operation} here")
        profile = enum_option(request.options, "profile", "web", tuple(PROFILES))
        source = single_pdf(request)
        target = output_path(request, "pdf")
        argv = [
            self.program,  # not -q: its "Page N" lines are the task's progress
            "-dSAFER",
            "-dBATCH",
            "-dNOPAUSE",
            "-sDEVICE=pdfwrite",
            "-dCompatibilityLevel=1.5",
            f"-dPDFSETTINGS={PROFILES[profile]}",
            "-dDetectDuplicateImages=true",
            f"-sOutputFile={target}",
            "-f",
            str(source),
        ]
        outcome = run_checked(
            argv,
            what=f"optimizing {source.name}",
            cwd=request.work_dir,
            timeout=request.timeout,
            cancelled=request.cancelled,
            on_line=GhostscriptPages(request.progress).feed,
        )
        # Ghostscript exits 0 on a PDF it cannot open at all, writing one blank page: not a success.
        if any(sign in outcome.output for sign in _UNREADABLE):
            raise EngineError(
                "INVALID_INPUT", f"{source.name} is a damaged PDF: Ghostscript found no page in it"
            )
        if not target.is_file() or target.stat().st_size == 0:
            raise EngineError("CONVERSION_FAILED", f"ghostscript wrote no PDF for {source.name}")
        return EngineResult(files=[target])
