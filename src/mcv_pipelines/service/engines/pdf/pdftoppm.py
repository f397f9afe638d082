"""PDF pages to PNG or JPG with poppler's pdftoppm: convert (chosen pages) and thumbnail (first page).

Several pages make several files, named by ``filename`` with ``%d`` (or ``<name>-1.png`` ...), in page
order; contiguous pages are rendered by one pdftoppm call.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterable
from pathlib import Path

from mcv_pipelines.service.engines.base import (
    ConversionType,
    EngineError,
    EngineRequest,
    EngineResult,
    EngineVersion,
    OptionSpec,
)
from mcv_pipelines.service.engines.naming import output_path
from mcv_pipelines.service.engines.options import int_option
from mcv_pipelines.service.engines.pdf.pdf_input import page_count, selected_pages, single_pdf
from mcv_pipelines.service.engines.process import run_checked
from mcv_pipelines.service.engines.program_engine import ProgramEngine
from mcv_pipelines.service.engines.progress import PdftoppmPages

__all__ = ["PdftoppmEngine"]

_FORMATS = {"png": "-png", "jpg": "-jpeg"}
_SIZE_OPTIONS = (
    OptionSpec("pixel_density", "integer", 150, None, "Resolution in dots per inch"),
    OptionSpec("width", "integer", None, None, "Width in pixels; height follows when unset"),
    OptionSpec("height", "integer", None, None, "Height in pixels; width follows when unset"),
)
_CONVERT_OPTIONS = (
    OptionSpec("pages", "string", None, None, "Pages to render, such as '1-3,5'; all when unset"),
    OptionSpec("page_range", "string", None, None, "Same as pages, such as '1-3'"),
    *_SIZE_OPTIONS,
)
_PAGE_SUFFIX = re.compile(r"-(\d+)$")


def _runs(pages: list[int]) -> list[tuple[int, int]]:
    """Contiguous runs of sorted page numbers: [1, 2, 3, 5] -> [(1, 3), (5, 5)]."""
    runs: list[tuple[int, int]] = []
    for page in pages:
        if runs and page == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], page)
        else:
            runs.append((page, page))
    return runs


class PdftoppmEngine(ProgramEngine):
    name = "poppler"
    programs = ("pdftoppm",)
    version_args = ("-v",)
    version_pattern = r"pdftoppm version (\d[\w.]*)"

    def conversion_types(self) -> Iterable[ConversionType]:
        version = self.version()
        if version is None:
            return []
        versions = (EngineVersion(version),)
        types = []
        for target in _FORMATS:
            types.append(
                ConversionType(
                    "convert", "pdf", target, self.name, options=_CONVERT_OPTIONS, engine_versions=versions
                )
            )
            types.append(
                ConversionType(
                    "thumbnail", "pdf", target, self.name, options=_SIZE_OPTIONS, engine_versions=versions
                )
            )
        return types

    def run(self, request: EngineRequest) -> EngineResult:
        if request.operation not in ("convert", "thumbnail") or self.program is None:
            raise EngineError("UNSUPPORTED_OPERATION", f"poppler does not run {request.operation} here")
        flag = _FORMATS.get(request.output_format)
        if flag is None:
            raise EngineError(
                "UNSUPPORTED_CONVERSION", f"pdftoppm writes png or jpg, not {request.output_format}"
            )
        source = single_pdf(request)
        count = page_count(source)
        pages = [1] if request.operation == "thumbnail" else selected_pages(request.options, count)
        density = int_option(request.options, "pixel_density", 150, minimum=10, maximum=1200)
        width = int_option(request.options, "width", minimum=1, maximum=20000)
        height = int_option(request.options, "height", minimum=1, maximum=20000)
        size = ["-scale-to-x", str(width or -1), "-scale-to-y", str(height or -1)] if width or height else []
        render_dir = request.work_dir / "pdftoppm"
        render_dir.mkdir(parents=True, exist_ok=True)
        pages_done = PdftoppmPages(len(pages), request.progress)
        for first, last in _runs(pages):
            argv = [
                self.program,
                "-progress",
                flag,
                "-r",
                str(density),
                *size,
                "-f",
                str(first),
                "-l",
                str(last),
                str(source),
                str(render_dir / "page"),
            ]
            run_checked(
                argv,
                what=f"rendering {source.name}",
                timeout=request.timeout,
                cancelled=request.cancelled,
                on_line=pages_done.feed,
            )
        rendered = sorted(render_dir.glob("page-*"), key=_page_number)
        if len(rendered) != len(pages):
            raise EngineError("CONVERSION_FAILED", f"pdftoppm rendered {len(rendered)} of {len(pages)} pages")
        extension = request.output_format
        if len(rendered) == 1:
            targets = [output_path(request, extension)]
        else:
            targets = [output_path(request, extension, index) for index in range(1, len(rendered) + 1)]
        for page_file, target in zip(rendered, targets, strict=True):
            shutil.move(page_file, target)
        return EngineResult(files=targets)


def _page_number(path: Path) -> int:
    match = _PAGE_SUFFIX.search(path.stem)
    return int(match.group(1)) if match else 0
