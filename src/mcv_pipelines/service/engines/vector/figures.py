"""XFig's text format, as far as keeping a drawing from naming files goes.

A picture object is a polyline of sub-type 5 (``2 5 ...``), and the line after it holds ``flipped
filename``: fig2dev opens that file (any path) to draw it. ``without_pictures`` keeps the object (its
frame) and blanks the name, so nothing outside the drawing is read.
"""

from __future__ import annotations

__all__ = ["FIG_HEADER", "MISSING_PICTURE", "without_pictures"]

FIG_HEADER = "#FIG"
MISSING_PICTURE = "picture-not-read"  # a name that is never a file in the drawing's directory


def without_pictures(text: str) -> str:
    """``text`` with the file name of every picture object replaced by ``MISSING_PICTURE``."""
    lines = text.splitlines(keepends=True)
    picture_next = False
    for number, line in enumerate(lines):
        words = line.split()
        if not words or words[0].startswith("#"):
            continue
        if picture_next:
            ending = line[len(line.rstrip("\r\n")) :]
            indent = line[: len(line) - len(line.lstrip())]
            lines[number] = f"{indent}{words[0]} {MISSING_PICTURE}{ending}"
            picture_next = False
            continue
        picture_next = words[:2] == ["2", "5"]
    return "".join(lines)
