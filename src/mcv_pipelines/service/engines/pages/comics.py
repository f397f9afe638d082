"""The ``comics`` engine: comic archives (cbz, cbr, cbt, cb7) to cbz, pdf and epub, pages in natural
order (comic_pages.py), each page's picture kept as it is.

cbz: the pictures alone, renamed ``0001-<name>`` ... so that any reader keeps the order; pdf: one
page a picture at its own size (comic_pdf.py); epub: a fixed-layout book, one page a picture
(comic_epub.py). Calibre also reads cbz and cb7, and stays the engine of their other outputs (mobi,
azw3 ...); it rescales and re-encodes the pictures, and cannot read cbr or cbt here. cbr needs unar
(the archive family's RAR reader); without it cbr is not listed. No cba: no program here writes ACE.
"""

from __future__ import annotations

import platform
import zipfile
from collections.abc import Iterable

from mcv_pipelines.service.engines.archive.rar import UnarEngine
from mcv_pipelines.service.engines.base import (
    ConversionType,
    EngineError,
    EngineRequest,
    EngineResult,
    EngineVersion,
)
from mcv_pipelines.service.engines.failures import CANCELLED, UNSUPPORTED_CONVERSION, library_errors
from mcv_pipelines.service.engines.files import safe_filename, split_extension
from mcv_pipelines.service.engines.naming import output_path, single_input
from mcv_pipelines.service.engines.options import FILENAME
from mcv_pipelines.service.engines.pages.comic_epub import write_epub
from mcv_pipelines.service.engines.pages.comic_pages import comic_pages
from mcv_pipelines.service.engines.pages.comic_pdf import write_pdf

__all__ = ["COMIC_INPUTS", "COMIC_OUTPUTS", "ComicEngine"]

COMIC_INPUTS = ("cbz", "cbr", "cbt", "cb7")
COMIC_OUTPUTS = ("cbz", "pdf", "epub")


class ComicEngine:
    """Comic archives with the standard library, py7zr and Pillow; cbr through unar when installed."""

    name = "comics"

    def __init__(self) -> None:
        self.unar = UnarEngine()

    def version(self) -> str | None:
        return platform.python_version()

    def _inputs(self) -> tuple[str, ...]:
        return (
            COMIC_INPUTS if self.unar.version() is not None else tuple(f for f in COMIC_INPUTS if f != "cbr")
        )

    def conversion_types(self) -> Iterable[ConversionType]:
        versions = (EngineVersion(platform.python_version()),)
        return [
            ConversionType("convert", source, target, self.name, 1, (FILENAME,), versions)
            for source in self._inputs()
            for target in COMIC_OUTPUTS
            if source != target
        ]

    def run(self, request: EngineRequest) -> EngineResult:
        source, target = request.input_format, request.output_format
        if request.operation != "convert" or source not in self._inputs() or target not in COMIC_OUTPUTS:
            raise EngineError(
                UNSUPPORTED_CONVERSION, f"comics does not {request.operation} {source} to {target}"
            )
        path = single_input(request)
        request.work_dir.mkdir(parents=True, exist_ok=True)
        pages = comic_pages(request, path, self.unar)

        def check() -> None:
            if request.cancelled.is_set():
                raise EngineError(CANCELLED, "the task was cancelled")

        out = output_path(request, target)
        with library_errors(f"write {path.name}'s {len(pages)} pages as {target}"):
            if target == "pdf":
                write_pdf(pages, out, check)
            elif target == "epub":
                write_epub(pages, out, split_extension(path.name)[0] or "Comic", check)
            else:
                with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as archive:
                    for number, page in enumerate(pages, start=1):
                        check()
                        leaf = safe_filename(
                            page.name.rsplit("/", 1)[-1], fallback=f"page.{page.format.lower()}"
                        )
                        archive.write(page.path, f"{number:04d}-{leaf}")
        request.progress(100)
        return EngineResult(files=[out])
