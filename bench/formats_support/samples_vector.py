"""Seeds of the vector family (issue 47) written by hand: an XFig drawing in FIG 3.2's text format (a
framed box, a filled circle and a line of text) and an HPGL plot (a square and a triangle in two pens)."""

from __future__ import annotations

from pathlib import Path

__all__ = ["FIG_DRAWING", "HPGL_PLOT", "vector_seeds"]

WORD = "Quokka"
# FIG 3.2: header (orientation, justification, units, paper, magnification, pages, transparent colour,
# resolution and origin), then objects: 2 = polyline (sub-type 2: a box), 1 = ellipse (3: a circle),
# 4 = text. Coordinates in 1/1200 inch.
FIG_DRAWING = f"""#FIG 3.2  Produced by hand for the bench
Landscape
Center
Inches
Letter
100.00
Single
-2
1200 2
2 2 0 2 0 7 50 -1 -1 0.000 0 0 -1 0 0 5
\t 600 600 4200 600 4200 2400 600 2400 600 600
1 3 0 1 0 4 40 -1 20 0.000 1 0.0000 3300 1500 500 500 3300 1500 3800 1500
4 0 0 30 -1 16 18 0.0000 4 240 900 900 1650 {WORD}\\001
"""

# HPGL/1: initialize, select pen 1, move with the pen up, draw with it down (plotter units of 1/40 mm)
HPGL_PLOT = (
    "IN;SP1;PU400,400;PD2400,400,2400,2400,400,2400,400,400;"
    "SP2;PU3000,400;PD4600,400,3800,2000,3000,400;PU;SP0;\n"
)


def vector_seeds(directory: Path, wanted: set[str]) -> dict[str, Path]:
    """Write the seed of every format in ``wanted`` this module makes; format -> path."""
    made: dict[str, Path] = {}
    if "fig" in wanted:
        path = directory / "sample.fig"
        path.write_text(FIG_DRAWING, encoding="ascii")
        made["fig"] = path
    if "plt" in wanted:
        path = directory / "sample.plt"
        path.write_text(HPGL_PLOT, encoding="ascii")
        made["plt"] = path
    return made
