"""PostScript, EPS and Adobe Illustrator files to PDF, PNG, JPG, EPS and PS with Ghostscript.

Ghostscript runs with ``-dSAFER`` (and ``-dNOSAFER`` is never passed): a PostScript program cannot
open, write or delete files, so ``(/etc/passwd) (r) file`` fails the task instead of reading it. SAFER
leaves it its temporary directory, so that is the task's (``TMPDIR``), never the host's /tmp.
An EPS is cropped to its bounding box; several pages rendered to an image make a file per page.
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
    OptionSpec,
)
from mcv_pipelines.service.engines.failures import CONVERSION_FAILED, UNSUPPORTED_CONVERSION
from mcv_pipelines.service.engines.naming import output_path
from mcv_pipelines.service.engines.options import FILENAME, int_option
from mcv_pipelines.service.engines.process import run_checked
from mcv_pipelines.service.engines.program_engine import ProgramEngine
from mcv_pipelines.service.engines.vector.isolate import isolated_input

__all__ = ["PostScriptEngine"]

_INPUTS = ("eps", "ps", "ai")
_DEVICES = {"pdf": "pdfwrite", "png": "png16m", "jpg": "jpeg", "eps": "eps2write", "ps": "ps2write"}
_IMAGES = ("png", "jpg")
_OPTIONS = (
    FILENAME,
    OptionSpec("pixel_density", "integer", 150, None, "Resolution in dots per inch (png, jpg)"),
)
_PAGE = re.compile(r"page-(\d+)$")


class PostScriptEngine(ProgramEngine):
    name = "ghostscript-ps"
    programs = ("gs",)
    version_pattern = r"^(\d[\w.]*)"

    def conversion_types(self) -> Iterable[ConversionType]:
        return self.convert_pairs(_INPUTS, _DEVICES, _OPTIONS, lambda source, target: source != target)

    def run(self, request: EngineRequest) -> EngineResult:
        device = _DEVICES.get(request.output_format)
        if request.operation != "convert" or request.input_format not in _INPUTS or device is None:
            raise EngineError(
                UNSUPPORTED_CONVERSION,
                f"ghostscript does not {request.operation} {request.input_format} to {request.output_format}",
            )
        assert self.program is not None
        source = isolated_input(request, "gs")
        density = int_option(request.options, "pixel_density", 150, minimum=10, maximum=1200)
        image = request.output_format in _IMAGES
        pages = source.parent / "pages"
        pages.mkdir()
        out = pages / ("page-%d" if image else "page-1")
        argv = [
            self.program, "-dSAFER", "-dBATCH", "-dNOPAUSE", "-dQUIET", "-dNOINTERPOLATE",
            f"-sDEVICE={device}",
            *([f"-r{density}", "-dTextAlphaBits=4", "-dGraphicsAlphaBits=4"] if image else []),
            *(["-dEPSCrop"] if request.input_format == "eps" else []),
            f"-sOutputFile={out}",
            "-f", source.name,
        ]  # fmt: skip
        # -dSAFER still lets a program read and write its temporary directory: the task's, not the
        # host's /tmp, which an unnarrowed seal (unshare, none) leaves in reach (issue 37)
        run_checked(argv, what=f"converting {request.inputs[0].path.name} with ghostscript",
                    cwd=source.parent, env={"TMPDIR": str(source.parent)}, timeout=request.timeout,
                    cancelled=request.cancelled)  # fmt: skip
        made = sorted((p for p in pages.iterdir() if p.stat().st_size > 0), key=_number)
        if not made:
            raise EngineError(CONVERSION_FAILED, f"ghostscript made nothing of {request.inputs[0].path.name}")
        if len(made) == 1:
            targets = [output_path(request, request.output_format)]
        else:
            targets = [output_path(request, request.output_format, n) for n in range(1, len(made) + 1)]
        for page, target in zip(made, targets, strict=True):
            shutil.move(page, target)
        return EngineResult(files=targets)


def _number(path: Path) -> int:
    match = _PAGE.search(path.stem if path.suffix else path.name)
    return int(match.group(1)) if match else 0
