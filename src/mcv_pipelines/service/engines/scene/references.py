"""The references to other files a model may carry, made harmless before Assimp reads it.

Assimp follows them relative to the model's directory, ``../`` and absolute paths included; the
confinement (confine.py) leaves such a path nothing to find, but only where bubblewrap runs. This
is the layer that holds without it, for the importers of our inputs that open other files:

- OBJ ``mtllib``: the model arrives alone, so its .mtl is never beside it; the lines are commented
  out (the model converts, without materials, as it would with the .mtl merely missing).
- glTF (and glb) buffers by ``uri``: a ``data:`` URI is inside the file; any other that is not a
  bare file name (a path, ``..``, a URL, percent-escapes) refuses the input. Images by ``uri`` are
  never opened (Assimp keeps the path as the texture's name), so they may name anything.
"""

from __future__ import annotations

import json
import re
import struct
from pathlib import Path
from typing import Any

from mcv_pipelines.service.engines.base import EngineError
from mcv_pipelines.service.engines.failures import INVALID_INPUT_FILE

__all__ = ["defuse_references"]

# Assimp's OBJ parser ends a line at \n or \r and skips blanks before the keyword
_MTLLIB = re.compile(rb"(^|[\r\n])([ \t]*)(mtllib)", re.IGNORECASE)
_BARE_NAME = re.compile(r"[\w][\w .+-]*")


def defuse_references(model: Path, fmt: str) -> None:
    """Rewrite or refuse ``model`` (of format ``fmt``) so that reading it opens no other file."""
    if fmt == "obj":
        model.write_bytes(_MTLLIB.sub(rb"\1\2#\3", model.read_bytes()))
    elif fmt in ("gltf", "glb"):
        for uri in _buffer_uris(_gltf_json(model.read_bytes(), fmt)):
            if not uri.startswith("data:") and not _BARE_NAME.fullmatch(uri):
                raise EngineError(
                    INVALID_INPUT_FILE,
                    f"the {fmt} model's buffer names {uri[:80]!r}: a model converts with its data inside it",
                )


def _gltf_json(data: bytes, fmt: str) -> Any:
    if fmt == "glb":
        # header (magic, version, length), then the first chunk: length, type JSON, the JSON
        if len(data) < 20 or data[:4] != b"glTF":
            raise EngineError(INVALID_INPUT_FILE, "not a glb file: no glTF header")
        length, kind = struct.unpack_from("<I4s", data, 12)
        if kind != b"JSON":
            raise EngineError(INVALID_INPUT_FILE, "not a glb file: its first chunk is not JSON")
        data = data[20 : 20 + length]
    try:
        return json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise EngineError(INVALID_INPUT_FILE, f"the {fmt} model's JSON does not parse: {exc}") from exc


def _buffer_uris(document: Any) -> list[str]:
    """The ``uri`` of every buffer: a list in glTF 2, an object keyed by id in glTF 1."""
    buffers = document.get("buffers") if isinstance(document, dict) else None
    items = buffers.values() if isinstance(buffers, dict) else buffers if isinstance(buffers, list) else []
    return [item["uri"] for item in items if isinstance(item, dict) and isinstance(item.get("uri"), str)]
