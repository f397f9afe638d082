"""Making Assimp's glTF output one file: its side files (``.bin`` buffers, images it wrote) embedded.

Assimp's glTF 2.0 exporter writes ``model.gltf`` and ``model.bin`` beside it. A convert task makes
one file, so each buffer or image whose ``uri`` names a file the export wrote is replaced by a
base64 data URI and the side file removed. A ``uri`` naming anything else (an input's texture path,
kept by Assimp as it was written) is left as text: it is never read.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Set
from pathlib import Path
from typing import Any

from mcv_pipelines.service.engines.base import EngineError
from mcv_pipelines.service.engines.failures import CONVERSION_FAILED

__all__ = ["embed_side_files"]

_IMAGE_TYPES = ((b"\x89PNG", "image/png"), (b"\xff\xd8\xff", "image/jpeg"))


def _mime(kind: str, item: dict[str, Any], data: bytes) -> str:
    if kind == "buffers":
        return "application/octet-stream"
    declared = item.get("mimeType")
    if isinstance(declared, str):
        return declared
    return next((mime for magic, mime in _IMAGE_TYPES if data.startswith(magic)), "application/octet-stream")


def embed_side_files(gltf: Path, written: Set[Path]) -> None:
    """Embed into ``gltf`` every buffer and image file among ``written`` (files the export made)."""
    try:
        document = json.loads(gltf.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise EngineError(CONVERSION_FAILED, f"assimp wrote a glTF file that is not JSON: {exc}") from exc
    embedded: set[Path] = set()
    for kind in ("buffers", "images"):
        for item in document.get(kind) or []:
            uri = item.get("uri") if isinstance(item, dict) else None
            if not isinstance(uri, str) or uri.startswith("data:"):
                continue
            side = gltf.parent / uri
            if side not in written or not side.is_file():
                continue
            data = side.read_bytes()
            item["uri"] = f"data:{_mime(kind, item, data)};base64,{base64.b64encode(data).decode('ascii')}"
            embedded.add(side)
    gltf.write_text(json.dumps(document, separators=(",", ":")), encoding="utf-8")
    for side in embedded:
        side.unlink()
