"""Names of the files an engine writes, and the one-input rule of conversions.

The ``filename`` option names the output; with several files a printf-style ``%d`` in it is replaced
by the file's number (1, 2, ...). Without ``filename`` the first input's name is kept with the new
extension (``clip.mov`` -> ``clip.mp4``); several files are numbered ``clip-1.png``, ``clip-2.png``.
"""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath

from mcv_pipelines.local_service.engines.base import EngineError, EngineRequest

__all__ = ["output_path", "single_input"]

_PLACEHOLDER = re.compile(r"%0?(\d*)d")


def _stem(request: EngineRequest, fallback: str) -> str:
    if request.inputs:
        return request.inputs[0].path.stem or fallback
    return fallback


def output_path(
    request: EngineRequest, extension: str, index: int | None = None, fallback_stem: str = "output"
) -> Path:
    """Where output file number ``index`` (1-based; None for a single file) goes in ``output_dir``."""
    wanted = request.options.get("filename")
    if isinstance(wanted, str) and wanted.strip():
        name = PurePosixPath(wanted.strip()).name
        if name in ("", ".", ".."):
            raise EngineError("INVALID_OPTION", f"filename {wanted!r} is not a file name")
        if _PLACEHOLDER.search(name):
            number = 1 if index is None else index
            name = _PLACEHOLDER.sub(lambda m: str(number).zfill(int(m.group(1) or 0)), name, count=1)
        elif index is not None:
            base = PurePosixPath(name)
            name = f"{base.stem}-{index}{base.suffix}"
    else:
        stem = _stem(request, fallback_stem)
        name = f"{stem}.{extension}" if index is None else f"{stem}-{index}.{extension}"
    request.output_dir.mkdir(parents=True, exist_ok=True)
    return request.output_dir / name


def single_input(request: EngineRequest) -> Path:
    """The one input file of a conversion; several or none is the user's mistake."""
    if len(request.inputs) != 1:
        raise EngineError(
            "INVALID_INPUT", f"{request.operation} takes exactly one input file, got {len(request.inputs)}"
        )
    return request.inputs[0].path
