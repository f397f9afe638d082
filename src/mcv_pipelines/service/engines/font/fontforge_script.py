"""The script FontForge runs (``fontforge -lang=py -c SCRIPT source format target``).

It is ours, handed over on the command line: the task's file is only ever data to ``fontforge.open``.
It opens the one source, then writes the target: ``save`` for sfd (FontForge's own source format),
``generate`` for the others, with the bitmap strikes as TrueType EBDT/EBLC tables (ttf) or BDF for a
bitmap font (bdf, pcf), whose ``generate`` names the BDF after its pixel size (``target-16.bdf``).
"""

from __future__ import annotations

__all__ = ["FONTFORGE_SCRIPT"]

FONTFORGE_SCRIPT = """
import os, sys
import fontforge
source, fmt, target = sys.argv[1:4]
font = fontforge.open(source)
bitmaps = len(font.bitmapSizes) > 0
outlines = any(glyph.foreground for glyph in font.glyphs())
if not outlines and fmt not in ("ttf", "bdf"):
    sys.exit("the font has no outlines to write as " + fmt)
if not outlines and not bitmaps:
    sys.exit("the font has neither outlines nor bitmaps")
if fmt == "sfd":
    font.save(target)
elif fmt == "bdf":
    if not bitmaps:
        sys.exit("the font has no bitmap strike to write as bdf")
    stem = target[: -len(".bdf")]
    font.generate(target, bitmap_type="bdf")
    made = sorted(name for name in os.listdir(".") if name.startswith(os.path.basename(stem) + "-"))
    os.rename(made[0], target)
elif bitmaps and fmt == "ttf":
    font.generate(target, bitmap_type="ttf")
else:
    font.generate(target)
font.close()
"""
