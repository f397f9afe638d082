"""XPS and OpenXPS to pdf, png, jpg, svg, svgz and txt with MuPDF's ``mutool``.

Compared with libgxps (xpstopdf, xpstopng, xpstosvg): both read XPS and OpenXPS and render the same
pages, but only MuPDF also extracts the text (``mutool draw -F txt``), one program does every output,
and its page count and ranges come from the same tool. png and svg make one file per page (``name-1.png``
... in page order, as pdf -> png does); svgz is each page's svg compressed; jpg is its PNG rewritten
by Pillow (mutool 1.21 writes no JPEG).
MuPDF reads an XPS's fonts and images as parts of its own package only: a ``FontUri`` or
``ImageSource`` naming a file path or ``file:`` URI is a missing part, never a file on this machine;
the input is also copied alone into a directory of its own and the program runs sealed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from mcv_pipelines.service.engines.base import ConversionType, EngineError, EngineRequest, EngineResult
from mcv_pipelines.service.engines.failures import (
    CONVERSION_FAILED,
    INVALID_INPUT_FILE,
    UNSUPPORTED_CONVERSION,
)
from mcv_pipelines.service.engines.options import FILENAME, int_option
from mcv_pipelines.service.engines.pages.page_files import (
    PAGE_OPTIONS,
    PAGES,
    move_pages,
    page_number,
    to_jpeg,
)
from mcv_pipelines.service.engines.pdf.page_ranges import parse_pages
from mcv_pipelines.service.engines.process import run_checked
from mcv_pipelines.service.engines.program_engine import ProgramEngine
from mcv_pipelines.service.engines.vector.isolate import isolated_input
from mcv_pipelines.service.engines.vector.svgz import SVG_KINDS, compress_svg

__all__ = ["MUPDF_INPUTS", "MUPDF_OUTPUTS", "MupdfEngine"]

MUPDF_INPUTS = ("xps", "oxps")
MUPDF_OUTPUTS = ("pdf", "png", "jpg", "svg", "svgz", "txt")
_COUNT_SCRIPT = "print(new Document(scriptArgs[0]).countPages())\n"
_XPS_DPI = 96  # an XPS page is measured in 1/96 inch: its own size in pixels when no density is asked


class MupdfEngine(ProgramEngine):
    name = "mupdf"
    programs = ("mutool",)
    version_args = ("-v",)
    version_pattern = r"mutool version (\d[\w.]*)"

    def conversion_types(self) -> Iterable[ConversionType]:
        return [
            *self.convert_pairs(MUPDF_INPUTS, ("pdf", "txt"), (FILENAME, PAGES)),
            *self.convert_pairs(MUPDF_INPUTS, ("png", "jpg", "svg", "svgz"), PAGE_OPTIONS),
        ]

    def run(self, request: EngineRequest) -> EngineResult:
        target = request.output_format
        if (
            request.operation != "convert"
            or request.input_format not in MUPDF_INPUTS
            or target not in MUPDF_OUTPUTS
            or self.program is None
        ):
            raise EngineError(
                UNSUPPORTED_CONVERSION,
                f"mupdf does not {request.operation} {request.input_format} to {target}",
            )
        source = isolated_input(request, "mupdf")
        shown = request.inputs[0].path.name
        count = self._count(request, source, shown)
        pages = [index + 1 for index in parse_pages(request.options.get("pages"), count)]
        spec = ",".join(map(str, pages))
        if target in ("pdf", "txt"):
            written = source.parent / f"output.{target}"
            command = ["convert", "-F", "pdf"] if target == "pdf" else ["draw", "-F", "txt"]
            self._mutool(request, [*command, "-o", written.name, source.name, spec], shown)
            if not written.is_file():
                raise EngineError(CONVERSION_FAILED, f"mutool wrote no {target} for {shown}")
            return EngineResult(files=move_pages(request, [written], target, 1))
        density = int_option(request.options, "pixel_density", _XPS_DPI, minimum=10, maximum=1200)
        kind = "svg" if target in SVG_KINDS else "png"
        self._mutool(
            request,
            ["draw", "-F", kind, "-r", str(density), "-o", f"page-%d.{kind}", source.name, spec],
            shown,
        )
        rendered = sorted(source.parent.glob(f"page-*.{kind}"), key=page_number)
        files: list[Path] = [to_jpeg(page) for page in rendered] if target == "jpg" else rendered
        if target == "svgz":  # each page's SVG compressed (vector/svgz.py)
            files = [compress_svg(page, page.with_suffix(".svgz")) for page in rendered]
        return EngineResult(files=move_pages(request, files, target, len(pages)))

    def _count(self, request: EngineRequest, source: Path, shown: str) -> int:
        script = source.parent / "count.js"
        script.write_text(_COUNT_SCRIPT)
        try:
            outcome = self._mutool(request, ["run", script.name, source.name], shown, answer_only=True)
        except EngineError as exc:
            raise EngineError(INVALID_INPUT_FILE, f"{shown} is not an XPS document MuPDF can open") from exc
        match = re.search(r"(\d+)\s*$", outcome)
        if match is None or int(match.group(1)) < 1:
            raise EngineError(INVALID_INPUT_FILE, f"{shown} has no pages MuPDF can read")
        return int(match.group(1))

    def _mutool(
        self, request: EngineRequest, arguments: list[str], shown: str, answer_only: bool = False
    ) -> str:
        assert self.program is not None
        outcome = run_checked(
            [self.program, *arguments],
            what=f"converting {shown} with mutool",
            cwd=request.work_dir / "mupdf",
            timeout=request.timeout,
            cancelled=request.cancelled,
            answer_only=answer_only,
        )
        return outcome.output
