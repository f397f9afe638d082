"""convert between ttf, otf, woff and woff2 with fontTools.

woff and woff2 are wrappers (zlib, brotli) around a TrueType or CFF font; ttf means TrueType
outlines and otf CFF outlines, so ttf -> otf and otf -> ttf convert the outlines (outlines.py), and a
woff(2) is unwrapped to whichever its outlines are not yet.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from importlib.util import find_spec

from fontTools import version as fonttools_version
from fontTools.ttLib import TTFont, TTLibError

from mcv_pipelines.service.engines.base import (
    ConversionType,
    EngineError,
    EngineRequest,
    EngineResult,
    EngineVersion,
)
from mcv_pipelines.service.engines.failures import INVALID_INPUT_FILE, UNSUPPORTED_CONVERSION, library_errors
from mcv_pipelines.service.engines.font.outlines import has_cff, to_cff, to_truetype
from mcv_pipelines.service.engines.naming import output_path, single_input
from mcv_pipelines.service.engines.options import FILENAME

__all__ = ["FontEngine"]

# fontTools warns through logging about what it reads in a caller's font ("'created' timestamp seems
# very low"); with no handler of the service's own, Python prints those lines on the stderr of whoever
# started the service: the terminal of `mcv run` or `mcv test`, between their own lines. They say
# nothing the caller can act on; an error still fails the task as it did.
logging.getLogger("fontTools").setLevel(logging.ERROR)

_FLAVORS: dict[str, str | None] = {"ttf": None, "otf": None, "woff": "woff", "woff2": "woff2"}


def _formats() -> tuple[str, ...]:
    return tuple(_FLAVORS) if find_spec("brotli") is not None else ("ttf", "otf", "woff")


class FontEngine:
    """Fonts with fontTools; needs no external program."""

    name = "fonttools"

    def version(self) -> str | None:
        return str(fonttools_version)

    def conversion_types(self) -> Iterable[ConversionType]:
        versions = (EngineVersion(str(fonttools_version)),)
        return [
            ConversionType("convert", s, t, self.name, options=(FILENAME,), engine_versions=versions)
            for s in _formats()
            for t in _formats()
            if s != t
        ]

    def run(self, request: EngineRequest) -> EngineResult:
        source, target_format = request.input_format, request.output_format
        if request.operation != "convert" or source not in _formats() or target_format not in _formats():
            raise EngineError(
                UNSUPPORTED_CONVERSION, f"fonttools does not convert {source} to {target_format}"
            )
        path = single_input(request)
        with library_errors(f"read {path.name} as a font", INVALID_INPUT_FILE):
            try:
                font = TTFont(path, lazy=False)
            except TTLibError as exc:
                problem = f"{path.name} is not a font fontTools can read: {exc}"
                raise EngineError(INVALID_INPUT_FILE, problem) from exc
        target = output_path(request, target_format)
        with library_errors(f"write {target.name}"), font:
            if target_format == "ttf" and has_cff(font):
                to_truetype(font)
            elif target_format == "otf" and not has_cff(font):
                to_cff(font)
            font.flavor = _FLAVORS[target_format]
            font.save(target)
        return EngineResult(files=[target])
