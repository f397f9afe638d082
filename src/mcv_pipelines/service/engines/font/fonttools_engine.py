"""convert between ttf, otf, woff, woff2 and ttx with fontTools, and unpack a ttc collection.

woff and woff2 are wrappers (zlib, brotli) around a TrueType or CFF font; ttf means TrueType
outlines and otf CFF outlines, so ttf -> otf and otf -> ttf convert the outlines (outlines.py), and a
woff(2) is unwrapped to whichever its outlines are not yet. ttx is fontTools' XML dump of every table,
read only after ttx_guard.py has refused entities and references to other files. A ttc or otc (a
collection of TrueType or CFF fonts) becomes one font per member (``name-1.ttf`` ...), or the one
``font_number`` picks, and so does a dfont (a Mac suitcase: its fonts are sfnt resources in a resource
fork kept in the data fork); nothing is made into a collection (which fonts belong together is the
caller's to say, not a conversion's).
"""

from __future__ import annotations

import io
import logging
from collections.abc import Iterable
from importlib.util import find_spec
from pathlib import Path

from fontTools import version as fonttools_version
from fontTools.misc.macRes import ResourceError
from fontTools.ttLib import TTCollection, TTFont, TTLibError
from fontTools.ttLib.macUtils import SFNTResourceReader, getSFNTResIndices

from mcv_pipelines.service.engines.base import (
    ConversionType,
    EngineError,
    EngineRequest,
    EngineResult,
    EngineVersion,
    OptionSpec,
)
from mcv_pipelines.service.engines.failures import (
    INVALID_INPUT_FILE,
    UNSUPPORTED_CONVERSION,
    hide_paths,
    library_errors,
)
from mcv_pipelines.service.engines.font.outlines import has_cff, to_cff, to_truetype
from mcv_pipelines.service.engines.font.ttx_guard import read_ttx
from mcv_pipelines.service.engines.naming import output_path, single_input
from mcv_pipelines.service.engines.options import FILENAME, int_option

__all__ = ["FONT_NUMBER", "FontEngine"]

# fontTools warns through logging about what it reads in a caller's font ("'created' timestamp seems
# very low"); with no handler of the service's own, Python prints those lines on the stderr of whoever
# started the service: the terminal of `mcv run` or `mcv test`, between their own lines. They say
# nothing the caller can act on; an error still fails the task as it did.
logging.getLogger("fontTools").setLevel(logging.ERROR)

_FLAVORS: dict[str, str | None] = {"ttf": None, "otf": None, "woff": "woff", "woff2": "woff2", "ttx": None}
FONT_NUMBER = OptionSpec(
    "font_number",
    "integer",
    None,
    None,
    "Only this font of the collection (1 is the first); unset: every font",
)
_MAX_MEMBERS = 256
_COLLECTIONS = ("ttc", "otc", "dfont")  # TrueType and OpenType (CFF) collections, Mac suitcases


def _formats() -> tuple[str, ...]:
    return tuple(fmt for fmt in _FLAVORS if fmt != "woff2" or find_spec("brotli") is not None)


class FontEngine:
    """Fonts with fontTools; needs no external program."""

    name = "fonttools"

    def version(self) -> str | None:
        return str(fonttools_version)

    def conversion_types(self) -> Iterable[ConversionType]:
        versions = (EngineVersion(str(fonttools_version)),)
        fonts = [
            ConversionType("convert", s, t, self.name, options=(FILENAME,), engine_versions=versions)
            for s in _formats()
            for t in _formats()
            if s != t
        ]
        collections = [
            ConversionType(
                "convert", s, t, self.name, options=(FILENAME, FONT_NUMBER), engine_versions=versions
            )
            for s in _COLLECTIONS
            for t in _formats()
        ]
        return fonts + collections

    def run(self, request: EngineRequest) -> EngineResult:
        source, target_format = request.input_format, request.output_format
        sources = (*_formats(), *_COLLECTIONS)
        if request.operation != "convert" or source not in sources or target_format not in _formats():
            raise EngineError(
                UNSUPPORTED_CONVERSION, f"fonttools does not convert {source} to {target_format}"
            )
        path = single_input(request)
        fonts = _read(path, source, request)
        if len(fonts) == 1:
            targets = [output_path(request, target_format)]
        else:
            targets = [output_path(request, target_format, index) for index in range(1, len(fonts) + 1)]
        for font, target in zip(fonts, targets, strict=True):
            _write(font, target, target_format, path.name)
        return EngineResult(files=targets)


def _read(path: Path, source: str, request: EngineRequest) -> list[TTFont]:
    with library_errors(f"read {path.name} as a font", INVALID_INPUT_FILE):
        try:
            if source == "ttx":
                return [read_ttx(path)]
            if source == "dfont":
                members = _suitcase(path)
            elif source in _COLLECTIONS:
                members = list(TTCollection(path, lazy=False).fonts)
            else:
                return [TTFont(path, lazy=False)]
        except (TTLibError, ResourceError) as exc:
            problem = f"{path.name} is not a font fontTools can read: {exc}"
            raise EngineError(INVALID_INPUT_FILE, problem) from exc
    if not members or len(members) > _MAX_MEMBERS:
        raise EngineError(
            INVALID_INPUT_FILE, f"{path.name} holds {len(members)} fonts, not 1 to {_MAX_MEMBERS}"
        )
    number = int_option(request.options, "font_number", minimum=1, maximum=len(members))
    return [members[number - 1]] if number else members


def _suitcase(path: Path) -> list[TTFont]:
    """The fonts of a Mac dfont suitcase (its sfnt resources), read from its bytes in memory."""
    data = path.read_bytes()
    indices = getSFNTResIndices(io.BytesIO(data))[: _MAX_MEMBERS + 1]
    return [TTFont(SFNTResourceReader(io.BytesIO(data), index), lazy=False) for index in indices]


def _write(font: TTFont, target: Path, target_format: str, shown: str) -> None:
    try:
        _save(font, target, target_format)
    except TTLibError as exc:  # a table read only now, whose directory entry lied (its length, its offset)
        raise EngineError(INVALID_INPUT_FILE, f"{shown} is a damaged font: {hide_paths(str(exc))}") from exc


def _save(font: TTFont, target: Path, target_format: str) -> None:
    with library_errors(f"write {target.name}"), font:
        if target_format == "ttf" and has_cff(font):
            to_truetype(font)
        elif target_format == "otf" and not has_cff(font):
            to_cff(font)
        if target_format == "ttx":
            font.flavor = None
            font.saveXML(target)
            return
        font.flavor = _FLAVORS[target_format]
        font.save(target)
