"""Raster images traced to vector outlines with Potrace (black and white: the image is thresholded).

Potrace reads only PNM and BMP, so the input is decoded with Pillow first (under Pillow's
``MAX_IMAGE_PIXELS``: a decompression bomb fails with INVALID_INPUT_FILE) and handed over as PGM.
Its backends write SVG (and SVGZ, the SVG compressed), DXF for laser cutters, CNC and CAD, GeoJSON
polygons for maps, and XFig drawings.
"""

from __future__ import annotations

from collections.abc import Iterable

from PIL import Image

from mcv_pipelines.service.engines.base import (
    ConversionType,
    EngineError,
    EngineRequest,
    EngineResult,
    OptionSpec,
)
from mcv_pipelines.service.engines.failures import INVALID_INPUT_FILE, UNSUPPORTED_CONVERSION, library_errors
from mcv_pipelines.service.engines.naming import output_path, single_input
from mcv_pipelines.service.engines.options import FILENAME, float_option, int_option
from mcv_pipelines.service.engines.process import run_checked
from mcv_pipelines.service.engines.program_engine import ProgramEngine
from mcv_pipelines.service.engines.vector.svgz import compress_svg

__all__ = ["PotraceEngine"]

_INPUTS = ("png", "bmp", "jpg", "gif", "tiff", "webp", "pbm", "pgm", "ppm")
# output format -> potrace backend
_OUTPUTS = {"svg": "svg", "svgz": "svg", "dxf": "dxf", "geojson": "geojson", "fig": "xfig"}
_OPTIONS = (
    FILENAME,
    OptionSpec("threshold", "float", 0.5, None, "Grey level (0-1) below which a pixel is traced as black"),
    OptionSpec("turdsize", "integer", 2, None, "Ignore speckles of up to this many pixels"),
)


class PotraceEngine(ProgramEngine):
    name = "potrace"
    programs = ("potrace",)
    version_pattern = r"potrace (\d+(?:\.\d+)*)"

    def conversion_types(self) -> Iterable[ConversionType]:
        return self.convert_pairs(_INPUTS, _OUTPUTS, _OPTIONS)

    def run(self, request: EngineRequest) -> EngineResult:
        backend = _OUTPUTS.get(request.output_format)
        if request.operation != "convert" or request.input_format not in _INPUTS or backend is None:
            raise EngineError(
                UNSUPPORTED_CONVERSION,
                f"potrace does not {request.operation} {request.input_format} to {request.output_format}",
            )
        assert self.program is not None
        source = single_input(request)
        threshold = float_option(request.options, "threshold", 0.5, minimum=0.0, maximum=1.0)
        turdsize = int_option(request.options, "turdsize", 2, minimum=0, maximum=10000)
        request.work_dir.mkdir(parents=True, exist_ok=True)
        grey = request.work_dir / "trace.pgm"
        reading = library_errors(f"read {source.name} as an image", INVALID_INPUT_FILE)
        with reading, Image.open(source) as image:
            image.seek(0)
            flat = image.convert("RGBA")
            # transparent areas are background (white), not black
            white = Image.new("RGBA", flat.size, "white")
            Image.alpha_composite(white, flat).convert("L").save(grey)
        target = output_path(request, request.output_format)
        traced = request.work_dir / "traced.svg" if request.output_format == "svgz" else target
        argv = [
            self.program, f"--backend={backend}", "--blacklevel", f"{threshold:g}",
            "--turdsize", str(turdsize), "--output", str(traced), str(grey),
        ]  # fmt: skip
        run_checked(argv, what=f"tracing {source.name} with potrace", timeout=request.timeout,
                    cancelled=request.cancelled)  # fmt: skip
        if traced != target:
            compress_svg(traced, target)
        return EngineResult(files=[target])
