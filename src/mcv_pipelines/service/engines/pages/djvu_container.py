"""What a DjVu file holds, read from its IFF chunks before any program opens it: its page count, and
whether it names files outside itself.

A DjVu document is either one page (``FORM:DJVU``) or several components bundled in one file
(``FORM:DJVM``, its ``DIRM`` directory flagged *bundled*). Two kinds name other files, which a task's
input must not do: an *indirect* document (``DIRM`` not bundled: each page is a file of its own, named
in the directory) and a single page whose ``INCL`` chunk includes a shared component by file name.
Both are refused with a clear error; an ``INCL`` inside a bundled document names a component of the
same file and is kept. Only bytes are read here: no name in the file is ever opened.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path

from mcv_pipelines.service.engines.base import EngineError
from mcv_pipelines.service.engines.failures import INVALID_INPUT_FILE

__all__ = ["DjvuLayout", "djvu_layout"]

_MAGIC = b"AT&TFORM"
_MAX_DEPTH = 8


@dataclass(frozen=True, slots=True)
class DjvuLayout:
    pages: int
    bundled: bool  # several components in one file (False: a single page)


def _chunks(data: bytes, start: int, end: int) -> list[tuple[bytes, int, int]]:
    """(id, data start, data end) of each chunk between ``start`` and ``end``; FORM ids carry their type."""
    found = []
    position = start
    while position + 8 <= end:
        ident = data[position : position + 4]
        (size,) = struct.unpack(">I", data[position + 4 : position + 8])
        body = position + 8
        if body + size > end:
            raise ValueError("a chunk runs past its container")
        if ident == b"FORM":
            found.append((b"FORM:" + data[body : body + 4], body + 4, body + size))
        else:
            found.append((ident, body, body + size))
        position = body + size + (size & 1)
    return found


def _includes(data: bytes, start: int, end: int, depth: int = 0) -> list[str]:
    if depth > _MAX_DEPTH:
        raise ValueError("forms nested too deep")
    names = []
    for ident, body, stop in _chunks(data, start, end):
        if ident == b"INCL":
            names.append(data[body:stop].decode("utf-8", "replace").strip())
        elif ident.startswith(b"FORM:"):
            names += _includes(data, body, stop, depth + 1)
    return names


def _leaf(name: str) -> str:
    return name.replace("\\", "/").rsplit("/", 1)[-1] or name


def djvu_layout(path: Path, name: str) -> DjvuLayout:
    """The layout of the DjVu file ``path`` (``name`` to the user); EngineError for a file that is none
    or names others."""
    data = path.read_bytes()
    if not data.startswith(_MAGIC) or len(data) < 16:
        raise EngineError(INVALID_INPUT_FILE, f"{name} is not a DjVu file (no AT&T FORM header)")
    try:
        top = _chunks(data, 4, len(data))
        if not top:
            raise ValueError("no chunks")
        kind, body, stop = top[0]
        if kind == b"FORM:DJVU":
            included = _includes(data, body, stop)
            if included:
                shown = ", ".join(_leaf(n) for n in included[:3])
                raise EngineError(
                    INVALID_INPUT_FILE,
                    f"{name} includes other files ({shown}); a DjVu page that names "
                    "files outside itself is not converted: bundle it first (djvmcvt -b)",
                )
            return DjvuLayout(pages=1, bundled=False)
        if kind != b"FORM:DJVM":
            raise EngineError(
                INVALID_INPUT_FILE, f"{name} is a DjVu {kind[5:].decode(errors='replace')}, not a document"
            )
        components = _chunks(data, body, stop)
        directory = next((c for c in components if c[0] == b"DIRM"), None)
        if directory is None or directory[1] >= directory[2]:
            raise ValueError("no document directory (DIRM)")
        if not data[directory[1]] & 0x80:
            raise EngineError(
                INVALID_INPUT_FILE,
                f"{name} is an indirect DjVu document: its pages are other files it names. Only bundled "
                "documents are converted (djvmcvt -b makes one)",
            )
        pages = sum(1 for ident, _, _ in components if ident == b"FORM:DJVU")
    except (ValueError, struct.error, IndexError) as exc:
        raise EngineError(INVALID_INPUT_FILE, f"{name} is a damaged DjVu file: {exc}") from None
    if pages < 1:
        raise EngineError(INVALID_INPUT_FILE, f"{name} has no pages")
    return DjvuLayout(pages=pages, bundled=True)
