"""DjVu to pdf, png, jpg, tiff and txt with djvulibre: ``ddjvu`` renders, ``djvutxt`` reads the hidden
text layer.

png and jpg make one file per page (``name-1.png`` ... in page order, as pdf -> png does); tiff is one
multi-page TIFF and pdf one PDF of page images (ddjvu's own writers; the text layer stays in txt).
Before any program opens it the file's chunks are read (djvu_container.py): an indirect document or
a page that includes other files is refused, and the input is copied alone into a directory of its own,
so nothing the file names can be found beside it.
"""

from __future__ import annotations

from collections.abc import Iterable

from PIL import Image

from mcv_pipelines.service.engines.base import ConversionType, EngineError, EngineRequest, EngineResult
from mcv_pipelines.service.engines.failures import CONVERSION_FAILED, UNSUPPORTED_CONVERSION, library_errors
from mcv_pipelines.service.engines.naming import output_path
from mcv_pipelines.service.engines.options import FILENAME, int_option
from mcv_pipelines.service.engines.pages.djvu_container import djvu_layout
from mcv_pipelines.service.engines.pages.page_files import (
    PAGE_OPTIONS,
    PAGES,
    move_pages,
    page_number,
    to_jpeg,
)
from mcv_pipelines.service.engines.pdf.page_ranges import parse_pages
from mcv_pipelines.service.engines.process import find_program, run_checked
from mcv_pipelines.service.engines.program_engine import ProgramEngine
from mcv_pipelines.service.engines.vector.isolate import isolated_input

__all__ = ["DJVU_OUTPUTS", "DjvuEngine"]

DJVU_OUTPUTS = ("pdf", "png", "jpg", "tiff", "txt")
_DDJVU_FORMATS = {"pdf": "pdf", "tiff": "tiff", "png": "pnm", "jpg": "pnm"}


class DjvuEngine(ProgramEngine):
    name = "djvulibre"
    programs = ("ddjvu",)
    version_args = ("--help",)
    version_pattern = r"DjVuLibre-(\d[\w.]*)"

    def __init__(self) -> None:
        super().__init__()
        self.djvutxt = find_program("djvutxt")

    def version(self) -> str | None:
        return self._version if self.djvutxt is not None else None

    def conversion_types(self) -> Iterable[ConversionType]:
        text_options = (FILENAME, PAGES)
        return [
            *self.convert_pairs(("djvu",), ("pdf", "png", "jpg", "tiff"), PAGE_OPTIONS),
            *self.convert_pairs(("djvu",), ("txt",), text_options),
        ]

    def run(self, request: EngineRequest) -> EngineResult:
        target = request.output_format
        if request.operation != "convert" or target not in DJVU_OUTPUTS or self.program is None:
            raise EngineError(
                UNSUPPORTED_CONVERSION, f"djvulibre does not {request.operation} djvu to {target}"
            )
        source = isolated_input(request, "djvu")
        shown = request.inputs[0].path.name
        layout = djvu_layout(source, shown)
        pages = [index + 1 for index in parse_pages(request.options.get("pages"), layout.pages)]
        spec = ",".join(map(str, pages))
        if target == "txt":
            return self._text(request, source.name, spec, shown)
        density = int_option(request.options, "pixel_density", minimum=10, maximum=1200)
        scale = [f"-scale={density}"] if density else []
        several = target in ("png", "jpg")
        written = source.parent / ("page-%d.pnm" if several else f"output.{target}")
        run_checked(
            [self.program, f"-format={_DDJVU_FORMATS[target]}", f"-page={spec}", *scale,
             *(["-eachpage"] if several else []), source.name, written.name],
            what=f"rendering {shown} with ddjvu",
            cwd=source.parent,
            timeout=request.timeout,
            cancelled=request.cancelled,
        )  # fmt: skip
        if not several:
            if not written.is_file():
                raise EngineError(CONVERSION_FAILED, f"ddjvu wrote no {target} for {shown}")
            return EngineResult(files=move_pages(request, [written], target, 1))
        rendered = sorted(source.parent.glob("page-*.pnm"), key=page_number)
        images = []
        for pnm in rendered:
            png = pnm.with_suffix(".png")
            action = f"write page {page_number(pnm)} of {shown} as an image"
            with library_errors(action), Image.open(pnm) as image:
                image.save(png, "PNG")
            pnm.unlink()
            images.append(to_jpeg(png) if target == "jpg" else png)
        return EngineResult(files=move_pages(request, images, target, len(pages)))

    def _text(self, request: EngineRequest, name: str, spec: str, shown: str) -> EngineResult:
        assert self.djvutxt is not None
        target = output_path(request, "txt")
        source_dir = request.work_dir / "djvu"
        run_checked(
            [self.djvutxt, f"--page={spec}", name, "text.txt"],
            what=f"reading the text of {shown} with djvutxt",
            cwd=source_dir,
            timeout=request.timeout,
            cancelled=request.cancelled,
        )
        written = source_dir / "text.txt"
        if not written.is_file():
            raise EngineError(CONVERSION_FAILED, f"djvutxt wrote no text for {shown}")
        target.write_bytes(written.read_bytes())
        return EngineResult(files=[target])
