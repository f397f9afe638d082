"""PDF from Pandoc without TeX: Pandoc's self-contained html, printed by the web engine's html -> pdf.

Pandoc cannot write PDF here (that needs TeX, which the service does not install), and the service
already keeps one warm Chromium per process for html -> pdf. So the registry hands Pandoc that engine
(``PandocEngine.print_with``) and a Markdown -> pdf task runs in two steps: Pandoc writes a standalone
html page with its images inlined as ``data:`` URLs (read and written in ``--sandbox``, from the cleaned
AST), then the printer converts that page through its public ``run``, as it would an uploaded html file.
Pandoc never imports the web engine, and no second browser is started.

The printed page has nothing to fetch, so its requests pass ``NoNetworkGuard``: whatever a hostile
document might still smuggle in (an iframe, a stylesheet) is refused, public addresses too, and
loopback or private ones are never asked for, whether or not the service guards import/url.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence

from mcv_pipelines.service.engines.base import (
    ConversionType,
    Engine,
    EngineError,
    EngineRequest,
    EngineResult,
    InputFile,
    OptionSpec,
)
from mcv_pipelines.service.engines.failures import UNSUPPORTED_CONVERSION
from mcv_pipelines.service.engines.lookup import find_conversion
from mcv_pipelines.service.engines.url_guard import NoNetworkGuard

__all__ = ["PRINTER", "PdfPrinter", "printed_options", "printed_sources"]

PRINTER = "chromium"  # the engine whose html -> pdf Pandoc's pages go through
# What Pandoc prints: every input it reads but html (the browser prints it directly), and epub and fb2,
# which Calibre converts to PDF keeping their own styles.
_NOT_PRINTED = frozenset({"html", "epub", "fb2"})
_NO_NETWORK = NoNetworkGuard()
_PANDOC_SHARE = 40.0  # percent of the task's progress for Pandoc's part; the printing has the rest


def printed_options(own: Sequence[OptionSpec], printer: ConversionType) -> tuple[OptionSpec, ...]:
    """Pandoc's options, then the printer's html -> pdf ones (page_format, margin, ...) it lacks."""
    names = {option.name for option in own}
    return (*own, *(option for option in printer.options if option.name not in names))


class PdfPrinter:
    """The html -> pdf conversion of ``engine`` (the web engine), as Pandoc uses it."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def conversion(self) -> ConversionType | None:
        """The printer's listed html -> pdf, or None when it does not list it (its program is gone)."""
        found = find_conversion([self.engine], "convert", "html", "pdf", PRINTER)
        return None if found is None else found[1]

    def meta(self) -> dict[str, str]:
        """What the listing says of the pdf pairs: which engine prints them, at which version."""
        return {"pdf_printed_by": self.engine.name, "pdf_printer_version": self.engine.version() or ""}

    def print_page(self, request: EngineRequest, page: InputFile, started: float) -> EngineResult:
        """``page`` (a self-contained html file) printed to a PDF in ``request.output_dir``, named as the
        task's own output would be (``filename``, else the page's stem: the input's)."""
        left = None if request.timeout is None else max(1.0, request.timeout - (time.monotonic() - started))
        request.progress(_PANDOC_SHARE)
        printing = EngineRequest(
            operation="convert",
            input_format="html",
            output_format="pdf",
            options=request.options,
            inputs=[page],
            output_dir=request.output_dir,
            work_dir=request.work_dir / "print",
            timeout=left,
            cancelled=request.cancelled,
            progress=lambda percent: request.progress(_PANDOC_SHARE + percent * (100 - _PANDOC_SHARE) / 100),
            url_guard=_NO_NETWORK,
        )
        if self.conversion() is None:
            raise EngineError(UNSUPPORTED_CONVERSION, f"{self.engine.name} cannot print html to pdf here")
        return self.engine.run(printing)


def printed_sources(readers: Iterable[str]) -> frozenset[str]:
    """The input formats Pandoc lists to pdf, of those it reads."""
    return frozenset(readers) - _NOT_PRINTED
