"""PDF optimize with qpdf: lossless (recompressed streams, object streams), linearized for the web."""

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
from mcv_pipelines.service.engines.options import bool_option
from mcv_pipelines.service.engines.pdf.pdf_input import single_pdf
from mcv_pipelines.service.engines.process import run_checked
from mcv_pipelines.service.engines.program_engine import ProgramEngine

__all__ = ["QpdfEngine"]

_WARNINGS_ONLY = 3  # qpdf's exit code when it wrote the file but warned


class QpdfEngine(ProgramEngine):
    name = "qpdf"
    programs = ("qpdf",)
    version_pattern = r"qpdf version (\d[\w.]*)"

    def conversion_types(self) -> Iterable[ConversionType]:
        version = self.version()
        if version is None:
            return []
        option = OptionSpec("linearize", "boolean", True, None, "Linearize (fast web view)")
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
            raise EngineError("UNSUPPORTED_OPERATION", f"qpdf does not run {request.operation} here")
        linearize = bool_option(request.options, "linearize", True)
        source = single_pdf(request)
        target = output_path(request, "pdf")
        argv = [
            self.program,
            "--object-streams=generate",
            "--compress-streams=y",
            "--recompress-flate",
            "--compression-level=9",
            *(["--linearize"] if linearize else []),
            str(source),
            str(target),
        ]
        run_checked(
            argv,
            what=f"optimizing {source.name}",
            cwd=request.work_dir,
            timeout=request.timeout,
            cancelled=request.cancelled,
            ok_codes=frozenset({0, _WARNINGS_ONLY}),
        )
        return EngineResult(files=[target])
