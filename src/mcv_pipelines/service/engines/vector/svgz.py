"""An engine's SVG written gzip-compressed as SVGZ, byte for byte the same for the same SVG.

The gzip header holds no file name and a modification time of 0, so a conversion run twice makes the
same bytes (a cache or a diff sees no change where the drawing did not change).
"""

from __future__ import annotations

import gzip
from pathlib import Path

__all__ = ["SVG_KINDS", "compress_svg", "svg_kind"]

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
