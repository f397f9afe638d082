"""PDF to plain text (pdftotext) and to HTML (pdftohtml) with Poppler.

``first_page``/``last_page`` pick pages; text keeps the page's layout with ``layout``. The HTML is one
self-contained page: images are embedded as data: URLs, never written beside it or fetched.
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
from mcv_pipelines.service.engines.failures import CONVERSION_FAILED, UNSUPPORTED_CONVERSION
from mcv_pipelines.service.engines.naming import output_path
from mcv_pipelines.service.engines.options import FILENAME, bool_option, int_option
from mcv_pipelines.service.engines.pdf.pdf_input import page_count, single_pdf
from mcv_pipelines.service.engines.process import find_program, run_checked
from mcv_pipelines.service.engines.program_engine import ProgramEngine

__all__ = ["PopplerTextEngine"]

_PAGES = (
    OptionSpec("first_page", "integer", 1, None, "First page to convert"),
    OptionSpec("last_page", "integer", None, None, "Last page to convert; the document's last when unset"),
)
_OPTIONS = {
    "txt": (FILENAME, *_PAGES, OptionSpec("layout", "boolean", False, None, "Keep the page layout")),
    "html": (FILENAME, *_PAGES),
}


class PopplerTextEngine(ProgramEngine):
    name = "poppler-text"
    programs = ("pdftotext",)
    version_args = ("-v",)
    version_pattern = r"pdftotext version (\d[\w.]*)"

    def __init__(self) -> None:
        super().__init__()
        self.html_program = find_program("pdftohtml")

    def conversion_types(self) -> Iterable[ConversionType]:
        version = self.version()
        if version is None:
            return []
        versions = (EngineVersion(version),)
        targets = ("txt", "html") if self.html_program else ("txt",)
        return [
            ConversionType("convert", "pdf", t, self.name, options=_OPTIONS[t], engine_versions=versions)
            for t in targets
        ]

    def run(self, request: EngineRequest) -> EngineResult:
        target_format = request.output_format
        if request.operation != "convert" or target_format not in ("txt", "html") or self.program is None:
            raise EngineError(UNSUPPORTED_CONVERSION, f"poppler does not convert pdf to {target_format}")
        source = single_pdf(request)
        count = page_count(source)
        first = int_option(request.options, "first_page", 1, minimum=1, maximum=count)
        last = int_option(request.options, "last_page", count, minimum=first, maximum=count)
        pages = ["-f", str(first), "-l", str(last)]
        target = output_path(request, target_format)
        if target_format == "txt":
            layout = ["-layout"] if bool_option(request.options, "layout", False) else []
            argv = [self.program, "-enc", "UTF-8", *layout, *pages, str(source), str(target)]
            made = target
        else:
            assert self.html_program is not None
            base = request.work_dir / "html" / "page"
            base.parent.mkdir(parents=True, exist_ok=True)
            argv = [self.html_program, "-s", "-noframes", "-dataurls", "-q", "-enc", "UTF-8", *pages,
                    str(source), str(base)]  # fmt: skip
            made = base.with_suffix(".html")
        run_checked(argv, what=f"converting {source.name} to {target_format}", cwd=request.work_dir,
                    timeout=request.timeout, cancelled=request.cancelled)  # fmt: skip
        if not made.is_file():
            raise EngineError(CONVERSION_FAILED, f"poppler wrote no {target_format} for {source.name}")
        if made != target:
            made.replace(target)
        return EngineResult(files=[target])
