"""An engine's SVG written gzip-compressed as SVGZ, byte for byte the same for the same SVG.

The gzip header holds no file name and a modification time of 0, so a conversion run twice makes the
same bytes (a cache or a diff sees no change where the drawing did not change).
"""

from __future__ import annotations

import gzip
from pathlib import Path

from mcv_pipelines.service.engines.base import EngineError
from mcv_pipelines.service.engines.failures import CONVERSION_FAILED

__all__ = ["SVG_KINDS", "compress_svg", "deliver_drawing", "svg_kind"]

SVG_KINDS = ("svg", "svgz")


def svg_kind(output_format: str) -> str:
    """The format the program is asked for: SVG for an SVGZ (compressed after), else the output's own."""
    return "svg" if output_format == "svgz" else output_format


def compress_svg(svg: Path, target: Path) -> Path:
    """``svg`` written gzip-compressed to ``target`` (a deterministic header); ``svg`` is removed."""
    drawing = svg.read_bytes()
    svg.unlink()
    with target.open("wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as packed:
        packed.write(drawing)
    return target


def deliver_drawing(drawn: Path, target: Path, nothing: str) -> Path:
    """What a program drew at ``drawn`` as the output ``target``: compressed for an SVGZ, else moved there.
    A missing or empty drawing fails the task with ``nothing`` (which says which program and file)."""
    if not drawn.is_file() or drawn.stat().st_size == 0:
        raise EngineError(CONVERSION_FAILED, nothing)
    if target.suffix == ".svgz":
        return compress_svg(drawn, target)
    drawn.replace(target)
    return target
