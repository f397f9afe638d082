"""Reading a TTX (fontTools' XML dump of a font) without letting it name another file.

fontTools' TTX reader opens the file an element's ``src`` attribute names (a font dumped with
``ttx -s`` keeps each table in a file of its own), relative to the TTX's folder or absolute, so a
caller's ``<head src="/etc/passwd"/>`` would be read. Before fontTools sees the bytes, they are
parsed once with expat here: a document type declaration (the only way to declare an entity, external
or not) and any ``src`` attribute are refused, and so is a file larger than ``MAX_TTX_BYTES``. The
font is then read from the bytes in memory, never from a path.
"""

from __future__ import annotations

import io
from pathlib import Path
from xml.parsers import expat

from fontTools.ttLib import TTFont

from mcv_pipelines.service.engines.base import EngineError
from mcv_pipelines.service.engines.failures import INVALID_INPUT_FILE

__all__ = ["MAX_TTX_BYTES", "read_ttx"]

MAX_TTX_BYTES = 128 * 1024 * 1024  # the dump of a large CJK font is some tens of MB


class _Refused(Exception):
    pass


def _check(data: bytes) -> None:
    parser = expat.ParserCreate()

    def doctype(*_: object) -> None:
        raise _Refused("a TTX with a document type declaration (entities) is not read")

    def element(name: str, attributes: dict[str, str]) -> None:
        if "src" in attributes:
            raise _Refused(f"a TTX whose <{name}> names another file (src) is not read")

    parser.StartDoctypeDeclHandler = doctype
    parser.EntityDeclHandler = doctype
    parser.StartElementHandler = element
    parser.Parse(data, True)


def read_ttx(path: Path) -> TTFont:
    """The font a TTX file describes, compiled and read back (so it is a font like any other)."""
    if path.stat().st_size > MAX_TTX_BYTES:
        raise EngineError(
            INVALID_INPUT_FILE, f"{path.name} is larger than {MAX_TTX_BYTES // 2**20} MB, too large a TTX"
        )
    data = path.read_bytes()
    try:
        _check(data)
    except _Refused as exc:
        raise EngineError(INVALID_INPUT_FILE, f"{path.name}: {exc}") from None
    except expat.ExpatError as exc:
        raise EngineError(INVALID_INPUT_FILE, f"{path.name} is not well-formed XML: {exc}") from None
    font = TTFont()
    font.importXML(io.BytesIO(data))
    compiled = io.BytesIO()
    font.save(compiled)
    compiled.seek(0)
    return TTFont(compiled, lazy=False)
