"""Where an overlay (a watermark) goes inside a page or image, from the watermark options.

Coordinates are top-left based; the PDF watermark flips them to PDF's bottom-left origin.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mcv_pipelines.service.engines.base import OptionSpec
from mcv_pipelines.service.engines.options import enum_option, int_option

__all__ = ["PLACEMENT_OPTIONS", "Placement", "place"]

VERTICAL = ("top", "center", "bottom")
HORIZONTAL = ("left", "center", "right")

PLACEMENT_OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec("position_vertical", "enum", "center", VERTICAL, "Vertical position of the watermark."),
    OptionSpec("position_horizontal", "enum", "center", HORIZONTAL, "Horizontal position of the watermark."),
    OptionSpec("margin_vertical", "integer", 25, None, "Distance from the top or bottom edge."),
    OptionSpec("margin_horizontal", "integer", 25, None, "Distance from the left or right edge."),
)


class Placement:
    """The position options of one watermark task, read and checked once."""

    def __init__(self, options: Mapping[str, Any]) -> None:
        self.vertical = enum_option(options, "position_vertical", "center", VERTICAL)
        self.horizontal = enum_option(options, "position_horizontal", "center", HORIZONTAL)
        self.margin_vertical = int_option(options, "margin_vertical", 25, minimum=0)
        self.margin_horizontal = int_option(options, "margin_horizontal", 25, minimum=0)


def place(container: tuple[float, float], item: tuple[float, float], where: Placement) -> tuple[float, float]:
    """Top-left corner of ``item`` (width, height) inside ``container`` (width, height)."""
    cw, ch = container
    iw, ih = item
    x = {
        "left": where.margin_horizontal,
        "center": (cw - iw) / 2,
        "right": cw - iw - where.margin_horizontal,
    }[where.horizontal]
    y = {
        "top": where.margin_vertical,
        "center": (ch - ih) / 2,
        "bottom": ch - ih - where.margin_vertical,
    }[where.vertical]
    return x, y
