"""PDF optimize with qpdf: lossless (recompressed streams, object streams), linearized for the web."""

from __future__ import annotations

import functools
from collections.abc import Iterable

from mcv_pipelines.local_service.engines.base import (
    ConversionType,
    EngineError,
    EngineRequest,
    EngineResult,
    EngineVersion,
    OptionSpec,
)
from mcv_pipelines.local_service.engines.naming import output_path
from mcv_pipelines.local_service.engines.options import bool_option
from mcv_pipelines.local_service.engines.pdf_input import single_pdf
from mcv_pipelines.local_service.engines.process import find_program, program_version, run_checked

__all__ = ["QpdfEngine"]

_WARNINGS_ONLY = 3  # qpdf's exit code when it wrote the file but warned


class QpdfEngine:
    name = "qpdf"

    def __init__(self) -> None:
        self.program = find_program("qpdf")

    def version(self) -> str | None:
        return self._version

    @functools.cached_property
    def _version(self) -> str | None:
        return (
            program_version([self.program, "--version"], r"qpdf version (\d[\w.]*)") if self.program else None
        )

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
