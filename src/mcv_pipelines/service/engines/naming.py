"""Where the program-driven engines write their output, and the one-input rule of conversions.

Names come from ``files.output_name`` like those of the library engines: the ``filename`` option
(its ``%d`` numbering several files), else the first input's stem with the new extension
(``clip.mov`` -> ``clip.mp4``; several files ``clip-1.png``, ``clip-2.png``). Unlike ``OutputNames``
nothing is renamed to dodge an existing file: each call names one file the engine is about to write.
"""

from __future__ import annotations

from pathlib import Path

from mcv_pipelines.service.engines.base import EngineError, EngineRequest
from mcv_pipelines.service.engines.files import output_name
from mcv_pipelines.service.engines.options import str_option

__all__ = ["output_path", "single_input"]


def output_path(
    request: EngineRequest, extension: str, index: int | None = None, fallback_stem: str = "output"
) -> Path:
    """Where output file number ``index`` (1-based; None for a single file) goes in ``output_dir``."""
    stem = (request.inputs[0].path.stem if request.inputs else "") or fallback_stem
    if index is not None:
        stem = f"{stem}-{index}"
    filename = str_option(request.options, "filename")
    name = output_name(filename, index or 1, index is not None, stem, extension)
    request.output_dir.mkdir(parents=True, exist_ok=True)
    return request.output_dir / name


def single_input(request: EngineRequest) -> Path:
    """The one input file of a conversion; several or none is the user's mistake."""
    if len(request.inputs) != 1:
        raise EngineError(
            "INVALID_INPUT", f"{request.operation} takes exactly one input file, got {len(request.inputs)}"
        )
    return request.inputs[0].path
