"""A text watermark on video with ffmpeg's drawtext filter.

The text goes through a file (``textfile``) so no user text is ever parsed as filter syntax; the
font is whatever fontconfig gives for ``sans`` (DejaVu as a fallback), since drawtext needs a file.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mcv_pipelines.service.engines.base import EngineError, OptionSpec
from mcv_pipelines.service.engines.options import enum_option, int_option, str_option
from mcv_pipelines.service.engines.process import find_program, run_program

__all__ = ["WATERMARK_OPTIONS", "find_font", "watermark_filter"]

_VERTICAL = ("top", "center", "bottom")
_HORIZONTAL = ("left", "center", "right")
_COLOR = re.compile(r"^(#[0-9a-fA-F]{6}|[a-zA-Z]{3,20})$")
_FALLBACK_FONTS = (
    Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"),
    Path("/usr/share/fonts/dejavu/DejaVuSans.ttf"),
)

WATERMARK_OPTIONS = (
    OptionSpec("text", "string", None, None, "Text to draw"),
    OptionSpec("font_size", "integer", 40),
    OptionSpec("font_color", "string", "#ffffff", None, "A colour name or #rrggbb"),
    OptionSpec("position_vertical", "enum", "center", _VERTICAL),
    OptionSpec("position_horizontal", "enum", "center", _HORIZONTAL),
    OptionSpec("margin_vertical", "integer", 25),
    OptionSpec("margin_horizontal", "integer", 25),
    OptionSpec("opacity", "integer", 100, None, "1-100"),
)


def find_font() -> Path | None:
    """A TrueType font file for drawtext, or None."""
    fc_match = find_program("fc-match")
    if fc_match:
        # Its answer is stdout alone: without a writable font cache (a read-only root) fontconfig
        # warns on stderr, and those lines once made a "path" too long to stat, failing the listing.
        outcome = run_program([fc_match, "-f", "%{file}", "sans"], timeout=10, answer_only=True)
        candidate = Path(outcome.output.strip())
        if outcome.returncode == 0 and _is_font_file(candidate):
            return candidate
    return next((path for path in _FALLBACK_FONTS if path.is_file()), None)


def _is_font_file(path: Path) -> bool:
    try:
        return path.is_absolute() and path.is_file()
    except OSError:  # a name too long, a directory we may not enter: not a font we can use
        return False


def _quoted(path: Path) -> str:
    text = str(path)
    if "'" in text:
        raise EngineError("ENGINE_MISCONFIGURED", f"path {text!r} cannot be used in an ffmpeg filter")
    return f"'{text}'"


def watermark_filter(options: Mapping[str, Any], font: Path, work_dir: Path) -> str:
    """The drawtext filter for the watermark options; writes the text file into ``work_dir``."""
    text = str_option(options, "text")
    if not text:
        raise EngineError(
            "INVALID_OPTION", "watermark needs a text (images as watermarks are not supported on video)"
        )
    size = int_option(options, "font_size", 40, minimum=4, maximum=1000)
    color = str_option(options, "font_color", "#ffffff")
    if not _COLOR.match(color):
        raise EngineError(
            "INVALID_OPTION", f"option 'font_color' must be a colour name or #rrggbb, got {color!r}"
        )
    vertical = enum_option(options, "position_vertical", "center", _VERTICAL)
    horizontal = enum_option(options, "position_horizontal", "center", _HORIZONTAL)
    my = int_option(options, "margin_vertical", 25, minimum=0, maximum=10000)
    mx = int_option(options, "margin_horizontal", 25, minimum=0, maximum=10000)
    opacity = int_option(options, "opacity", 100, minimum=1, maximum=100)
    x = {"left": str(mx), "center": "(w-text_w)/2", "right": f"w-text_w-{mx}"}[horizontal]
    y = {"top": str(my), "center": "(h-text_h)/2", "bottom": f"h-text_h-{my}"}[vertical]
    work_dir.mkdir(parents=True, exist_ok=True)
    text_file = work_dir / "watermark.txt"
    text_file.write_text(text, encoding="utf-8")
    color_value = color.replace("#", "0x") + f"@{opacity / 100:.2f}"
    return (
        f"drawtext=fontfile={_quoted(font)}:textfile={_quoted(text_file)}:fontsize={size}"
        f":fontcolor={color_value}:x={x}:y={y}:expansion=none"
    )
