"""convert to Markdown what Pandoc does not read: pdf, presentations and workbooks.

pdf goes through Poppler's pdftotext -bbox-layout (sealed, like every program) and pdf_text.py; pptx,
ppsx, pptm and potx are read from their slide XML (slides.py) and xlsx, xlsm with openpyxl (sheets.py),
in this process on the task's bytes only. Once the registry hands it LibreOffice
(``convert_first_with``), the engine also lists what LibreOffice turns into those: ppt and odp (to
pptx), xls and ods (to xlsx); that first step is LibreOffice's own sealed conversion. Given
Pandoc too, it lists doc, abw, zabw and 602: LibreOffice's docx of them, written as Markdown by Pandoc.
Pandoc keeps docx, odt, html and the rest.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Iterable
from importlib.util import find_spec
from pathlib import Path

from mcv_pipelines.service.engines.base import (
    ConversionType,
    Engine,
    EngineError,
    EngineRequest,
    EngineResult,
    EngineVersion,
    InputFile,
    OptionSpec,
)
from mcv_pipelines.service.engines.failures import UNSUPPORTED_CONVERSION
from mcv_pipelines.service.engines.lookup import find_conversion, forget_listing
from mcv_pipelines.service.engines.markdown.pdf_text import pages_markdown
from mcv_pipelines.service.engines.markdown.sheets import workbook_markdown
from mcv_pipelines.service.engines.markdown.slides import presentation_markdown
from mcv_pipelines.service.engines.naming import output_path, single_input
from mcv_pipelines.service.engines.options import FILENAME, int_option
from mcv_pipelines.service.engines.pdf.pdf_input import page_count, single_pdf
from mcv_pipelines.service.engines.process import find_program, program_version, run_checked

__all__ = ["MarkdownEngine"]

_VERSION = "1.0"  # of this engine's Markdown layout (headings per page, slide and sheet)
_SLIDES = ("pptx", "ppsx", "pptm", "potx")
_SHEETS = ("xlsx", "xlsm")
# what LibreOffice converts first, and to what
# tsv is not here: the data engine writes its Markdown table directly, without a LibreOffice start
_THROUGH_OFFICE = {"ppt": "pptx", "odp": "pptx", "xls": "xlsx", "ods": "xlsx"}
# text documents Pandoc does not read: LibreOffice makes them docx, Pandoc writes its Markdown
_DOCUMENTS = ("doc", "abw", "zabw", "602")
_PDF_OPTIONS = (
    FILENAME,
    OptionSpec("first_page", "integer", 1, None, "First page to convert"),
    OptionSpec("last_page", "integer", None, None, "Last page to convert; the document's last when unset"),
)
_OFFICE_SHARE = 60.0  # percent of the progress for LibreOffice's step


class MarkdownEngine:
    name = "markdown"

    def __init__(self) -> None:
        self.pdftotext = find_program("pdftotext")
        self.office: Engine | None = None
        self.pandoc: Engine | None = None

    def version(self) -> str | None:
        return _VERSION

    def convert_first_with(self, office: Engine, pandoc: Engine | None = None) -> None:
        """Read ppt, odp, xls and ods through ``office``'s conversion to pptx or xlsx; and doc,
        abw, zabw and 602 through its conversion to docx, then ``pandoc``'s docx -> md."""
        self.office, self.pandoc = office, pandoc
        forget_listing(self)

    @functools.cached_property
    def _poppler(self) -> str | None:
        if self.pdftotext is None:
            return None
        return program_version([self.pdftotext, "-v"], r"pdftotext version (\d[\w.]*)")

    def _readers(self) -> dict[str, Callable[[Path, str], str]]:
        """Input format -> how it becomes Markdown, for what this machine can read."""
        readers: dict[str, Callable[[Path, str], str]] = dict.fromkeys(_SLIDES, presentation_markdown)
        if find_spec("openpyxl") is not None:
            readers.update(dict.fromkeys(_SHEETS, workbook_markdown))
        for source, step in _THROUGH_OFFICE.items():
            if step in readers and self.office is not None and self._office_lists(source, step):
                readers[source] = readers[step]
        return readers

    def _office_lists(self, source: str, target: str) -> bool:
        office = self.office
        return office is not None and find_conversion([office], "convert", source, target) is not None

    def _documents(self) -> list[str]:
        """The text documents read through LibreOffice's docx and Pandoc, where both are here."""
        pandoc = self.pandoc
        if pandoc is None or find_conversion([pandoc], "convert", "docx", "md") is None:
            return []
        return [source for source in _DOCUMENTS if self._office_lists(source, "docx")]

    def conversion_types(self) -> Iterable[ConversionType]:
        own = (EngineVersion(_VERSION),)
        listed = [
            ConversionType("convert", source, "md", self.name, options=(FILENAME,), engine_versions=own)
            for source in [*self._readers(), *self._documents()]
        ]
        if self._poppler is not None:
            meta = {"text_by": f"poppler {self._poppler}"}
            listed.append(ConversionType("convert", "pdf", "md", self.name, options=_PDF_OPTIONS,
                                         engine_versions=own, meta=meta))  # fmt: skip
        return listed

    def run(self, request: EngineRequest) -> EngineResult:
        started = time.monotonic()
        source_format = request.input_format
        readers = self._readers()
        documents = self._documents()
        known = source_format in readers or source_format in documents
        known = known or (source_format == "pdf" and self._poppler is not None)
        if request.operation != "convert" or request.output_format != "md" or not known:
            raise EngineError(
                UNSUPPORTED_CONVERSION,
                f"markdown does not {request.operation} {source_format} to {request.output_format}",
            )
        source = single_input(request)
        if source_format in documents:
            return self._document(request, started)
        if source_format == "pdf":
            text = self._pdf(request)
        elif source_format in _THROUGH_OFFICE:
            text = readers[source_format](self._through_office(request, started), source.name)
        else:
            text = readers[source_format](source, source.name)
        target = output_path(request, "md")
        target.write_text(text, encoding="utf-8")
        return EngineResult(files=[target])

    def _pdf(self, request: EngineRequest) -> str:
        assert self.pdftotext is not None
        source = single_pdf(request)
        count = page_count(source)
        first = int_option(request.options, "first_page", 1, minimum=1, maximum=count)
        last = int_option(request.options, "last_page", count, minimum=first, maximum=count)
        request.work_dir.mkdir(parents=True, exist_ok=True)
        text = request.work_dir / "pages.html"
        argv = [self.pdftotext, "-bbox-layout", "-enc", "UTF-8", "-f", str(first), "-l", str(last),
                str(source), str(text)]  # fmt: skip
        run_checked(argv, what=f"reading the text of {source.name}", cwd=request.work_dir,
                    timeout=request.timeout, cancelled=request.cancelled)  # fmt: skip
        return pages_markdown(text.read_text(encoding="utf-8", errors="replace"), first)

    def _document(self, request: EngineRequest, started: float) -> EngineResult:
        """doc, abw, ...: LibreOffice's docx, then Pandoc's Markdown of it (named as the task's input)."""
        docx = self._through_office(request, started, "docx")
        assert self.pandoc is not None
        left = None if request.timeout is None else max(1.0, request.timeout - (time.monotonic() - started))
        return self.pandoc.run(
            EngineRequest(
                operation="convert",
                input_format="docx",
                output_format="md",
                options={key: value for key, value in request.options.items() if key == "filename"},
                inputs=[InputFile(request.inputs[0].task_name, docx)],
                output_dir=request.output_dir,
                work_dir=request.work_dir / "pandoc-step",
                timeout=left,
                cancelled=request.cancelled,
                progress=lambda percent: request.progress(
                    _OFFICE_SHARE + percent * (100 - _OFFICE_SHARE) / 100
                ),
            )
        )

    def _through_office(self, request: EngineRequest, started: float, step: str | None = None) -> Path:
        """The input converted by LibreOffice to pptx, xlsx or docx, in the task's scratch space."""
        step = step or _THROUGH_OFFICE[request.input_format]
        if self.office is None or not self._office_lists(request.input_format, step):
            source = request.input_format
            raise EngineError(UNSUPPORTED_CONVERSION, f"nothing converts {source} to {step} here")
        left = None if request.timeout is None else max(1.0, request.timeout - (time.monotonic() - started))
        made = self.office.run(
            EngineRequest(
                operation="convert",
                input_format=request.input_format,
                output_format=step,
                options={},
                inputs=[InputFile(request.inputs[0].task_name, single_input(request))],
                output_dir=request.work_dir / "office-out",
                work_dir=request.work_dir / "office",
                timeout=left,
                cancelled=request.cancelled,
                progress=lambda percent: request.progress(percent * _OFFICE_SHARE / 100),
            )
        )
        request.progress(_OFFICE_SHARE)
        if len(made.files) != 1:
            name = request.inputs[0].path.name
            raise EngineError("CONVERSION_FAILED", f"LibreOffice made no {step} of {name}")
        return made.files[0]
