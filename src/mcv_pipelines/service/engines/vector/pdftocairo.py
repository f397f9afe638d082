"""One PDF page to SVG (or SVGZ, the SVG compressed), or the document to EPS or PS, with Poppler's
pdftocairo.

SVG, SVGZ and EPS hold one page: ``page`` picks it (the first by default).
"""

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
from mcv_pipelines.service.engines.failures import UNSUPPORTED_CONVERSION
from mcv_pipelines.service.engines.naming import output_path
from mcv_pipelines.service.engines.options import FILENAME, int_option
from mcv_pipelines.service.engines.pdf.pdf_input import page_count, single_pdf
from mcv_pipelines.service.engines.process import run_checked
from mcv_pipelines.service.engines.program_engine import ProgramEngine
from mcv_pipelines.service.engines.vector.svgz import compress_svg

__all__ = ["PdftocairoEngine"]

_OUTPUTS = {"svg": "-svg", "svgz": "-svg", "eps": "-eps", "ps": "-ps"}
_ONE_PAGE = frozenset({"svg", "svgz", "eps"})
_OPTIONS = (FILENAME, OptionSpec("page", "integer", 1, None, "The page to convert (svg, svgz, eps)"))


class PdftocairoEngine(ProgramEngine):
    name = "pdftocairo"
    programs = ("pdftocairo",)
    version_args = ("-v",)
    version_pattern = r"pdftocairo version (\d[\w.]*)"

    def conversion_types(self) -> Iterable[ConversionType]:
        version = self.version()
        if version is None:
            return []
        versions = (EngineVersion(version),)
        return [
            ConversionType("convert", "pdf", target, self.name, options=_OPTIONS, engine_versions=versions)
            for target in _OUTPUTS
        ]

    def run(self, request: EngineRequest) -> EngineResult:
        flag = _OUTPUTS.get(request.output_format)
        if request.operation != "convert" or flag is None or self.program is None:
            raise EngineError(
                UNSUPPORTED_CONVERSION,
                f"pdftocairo does not {request.operation} pdf to {request.output_format}",
            )
        source = single_pdf(request)
        pages: list[str] = []
        if request.output_format in _ONE_PAGE:
            page = int_option(request.options, "page", 1, minimum=1, maximum=page_count(source))
            pages = ["-f", str(page), "-l", str(page)]
        target = output_path(request, request.output_format)
        drawn = request.work_dir / "page.svg" if request.output_format == "svgz" else target
        run_checked([self.program, flag, *pages, str(source), str(drawn)],
                    what=f"converting {source.name} with pdftocairo", cwd=request.work_dir,
                    timeout=request.timeout, cancelled=request.cancelled)  # fmt: skip
        if drawn != target:
            compress_svg(drawn, target)
        return EngineResult(files=[target])
