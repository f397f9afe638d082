"""convert with Pandoc: every pair of ``PANDOC_READERS`` x ``PANDOC_WRITERS`` (not a format to itself).

Hostile input stays harmless. The input is copied alone into scratch space and read with
``--sandbox`` into Pandoc's JSON AST (images inside a docx/odt/epub extracted beside it), so reading
opens nothing but that file. The AST is cleaned (ast_guard) of anything a writer would fetch, then
written, again in the sandbox except for the writers that cannot run in it here (docx, odt, epub,
pptx read their own data files). An image naming ``file://``, a loopback or private address is
neither fetched nor embedded: it stays a link.

A BibTeX file (``bib``) becomes the formatted list of its entries: read with citeproc, every entry
cited; the references themselves stay out of the written metadata like any other field.

PDF (no TeX here): once the registry hands it the web engine (``print_with``), Pandoc lists its text
inputs to pdf and prints a self-contained html page with that engine (pandoc_pdf.py).
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Iterable
from pathlib import Path

from mcv_pipelines.service.engines.base import (
    ConversionType,
    Engine,
    EngineError,
    EngineRequest,
    EngineResult,
    InputFile,
    OptionSpec,
)
from mcv_pipelines.service.engines.failures import INVALID_INPUT_FILE, UNSUPPORTED_CONVERSION
from mcv_pipelines.service.engines.lookup import forget_listing
from mcv_pipelines.service.engines.naming import output_path, single_input
from mcv_pipelines.service.engines.options import FILENAME, bool_option
from mcv_pipelines.service.engines.process import run_checked
from mcv_pipelines.service.engines.program_engine import ProgramEngine
from mcv_pipelines.service.engines.text.ast_guard import clean_document
from mcv_pipelines.service.engines.text.pandoc_formats import (
    BIBLIOGRAPHIES,
    PANDOC_READERS,
    PANDOC_WRITERS,
    STANDALONE,
    UNPROVEN,
    UNSANDBOXED_WRITERS,
)
from mcv_pipelines.service.engines.text.pandoc_pdf import PdfPrinter, printed_options, printed_sources

__all__ = ["PandocEngine"]

_OPTIONS = (
    FILENAME,
    OptionSpec("toc", "boolean", False, None, "Add a table of contents"),
)


class PandocEngine(ProgramEngine):
    name = "pandoc"
    programs = ("pandoc",)
    version_pattern = r"pandoc(?:\.exe)? (\d[\w.]*)"

    def __init__(self) -> None:
        super().__init__()
        self.printer: PdfPrinter | None = None

    def print_with(self, engine: Engine) -> None:
        """Write PDF through ``engine``'s html -> pdf (the web engine the registry already made)."""
        self.printer = PdfPrinter(engine)
        forget_listing(self)  # it lists text -> pdf from now on

    def conversion_types(self) -> Iterable[ConversionType]:
        pairs = self.convert_pairs(
            PANDOC_READERS,
            PANDOC_WRITERS,
            _OPTIONS,
            lambda source, target: source != target and (source, target) not in UNPROVEN,
        )
        printing = None if self.printer is None else self.printer.conversion()
        if printing is None or not pairs or self.printer is None:
            return pairs
        options, meta = printed_options(_OPTIONS, printing), self.printer.meta()
        versions = pairs[0].engine_versions
        sources = printed_sources(PANDOC_READERS)
        printed = [
            ConversionType(
                "convert", source, "pdf", self.name, options=options, engine_versions=versions, meta=meta
            )
            for source in PANDOC_READERS
            if source in sources
        ]
        return [*pairs, *printed]

    def run(self, request: EngineRequest) -> EngineResult:
        started = time.monotonic()
        printed = request.output_format == "pdf" and request.input_format in printed_sources(PANDOC_READERS)
        printer = self.printer if printed else None  # a PDF: an html page for the printer
        printing = printer is not None
        reader = PANDOC_READERS.get(request.input_format)
        writer = "html5" if printing else PANDOC_WRITERS.get(request.output_format)
        unproven = (request.input_format, request.output_format) in UNPROVEN
        if request.operation != "convert" or reader is None or writer is None or unproven or not self.program:
            raise EngineError(
                UNSUPPORTED_CONVERSION,
                f"pandoc does not {request.operation} {request.input_format} to {request.output_format}",
            )
        source = single_input(request)
        alone = request.work_dir / "pandoc"
        alone.mkdir(parents=True, exist_ok=True)
        copy = alone / f"input.{request.input_format}"
        shutil.copyfile(source, copy)
        ast = alone / "document.json"
        cited: list[str] = []
        if request.input_format in BIBLIOGRAPHIES:  # the entries formatted, all of them cited
            (alone / "nocite.yaml").write_text('nocite: "@*"\n', encoding="utf-8")
            cited = ["--citeproc", "--metadata-file=nocite.yaml"]
        self._pandoc(request, ["--from", reader, "--to", "json", *cited, "--extract-media=media", copy.name],
                     ast, f"reading {source.name} as {request.input_format}", sandbox=True)  # fmt: skip
        try:
            document = json.loads(ast.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise EngineError(INVALID_INPUT_FILE, f"pandoc could not read {source.name}") from exc
        ast.write_text(json.dumps(clean_document(document)), encoding="utf-8")
        if printing:  # the page to print, named as the input so that the PDF is too
            (request.work_dir / "page").mkdir()
            target = request.work_dir / "page" / f"{source.stem}.html"
        else:
            target = output_path(request, request.output_format)
        args = [
            "--from", "json", "--to", writer, "--resource-path=.",
            # a standalone html page needs a <title>: the document's own, else the file's name
            *([] if "title" in document.get("meta", {}) else ["--metadata", f"pagetitle={source.stem}"]),
            *(["--standalone"] if printing or request.output_format in STANDALONE else []),
            # its images inlined as data: URLs, read in the sandbox: the printed page fetches nothing
            *(["--self-contained"] if printing else []),
            # and no favicon request, which the printer would refuse and report
            *(["--variable", 'header-includes=<link rel="icon" href="data:,">'] if printing else []),
            *(["--toc"] if bool_option(request.options, "toc", False) else []),
            ast.name,
        ]  # fmt: skip
        writing = "html to print" if printing else request.output_format
        sandbox = printing or request.output_format not in UNSANDBOXED_WRITERS
        self._pandoc(request, args, target, f"writing {writing} with pandoc", sandbox=sandbox)
        if printer is not None:
            return printer.print_page(request, InputFile(request.inputs[0].task_name, target), started)
        return EngineResult(files=[target])

    def _pandoc(self, request: EngineRequest, args: list[str], out: Path, what: str, sandbox: bool) -> None:
        assert self.program is not None
        argv = [self.program, *(["--sandbox"] if sandbox else []), "--output", str(out), *args]
        run_checked(argv, what=what, cwd=request.work_dir / "pandoc", timeout=request.timeout,
                    cancelled=request.cancelled)  # fmt: skip
