"""Turning a font's outlines from CFF (cubic, .otf) into TrueType glyf (quadratic, .ttf) and back.

CFF -> TrueType approximates each cubic curve by quadratic ones within one font unit (cu2qu);
TrueType -> CFF is exact (a quadratic curve is a cubic one). Hinting does not survive either way.
Variable fonts (gvar, CFF2) are refused: their variations would be lost.
"""

from __future__ import annotations

from typing import Any

from fontTools.fontBuilder import FontBuilder
from fontTools.pens.cu2quPen import Cu2QuPen
from fontTools.pens.t2CharStringPen import T2CharStringPen
from fontTools.pens.ttGlyphPen import TTGlyphPen
from fontTools.ttLib import TTFont, newTable

from mcv_pipelines.service.engines.base import EngineError
from mcv_pipelines.service.engines.failures import UNSUPPORTED_CONVERSION

__all__ = ["has_cff", "to_cff", "to_truetype"]

_TRUETYPE_ONLY = ("glyf", "loca", "fpgm", "prep", "cvt ", "gasp", "hdmx", "LTSH", "VDMX")
_MAXP_TRUETYPE = {
    "maxZones": 1, "maxTwilightPoints": 0, "maxStorage": 0, "maxFunctionDefs": 0,
    "maxInstructionDefs": 0, "maxStackElements": 0, "maxSizeOfInstructions": 0, "maxComponentElements": 0,
    "maxPoints": 0, "maxContours": 0, "maxCompositePoints": 0, "maxCompositeContours": 0,
    "maxComponentDepth": 0,
}  # fmt: skip


def has_cff(font: TTFont) -> bool:
    return "CFF " in font


def _refuse_variable(font: TTFont) -> None:
    if "gvar" in font or "CFF2" in font or "fvar" in font:
        raise EngineError(
            UNSUPPORTED_CONVERSION,
            "a variable font cannot change between TrueType and CFF outlines without losing its variations",
        )


def to_truetype(font: TTFont) -> None:
    """Replace the CFF table of ``font`` by glyf/loca, in place."""
    _refuse_variable(font)
    order = font.getGlyphOrder()
    glyph_set = font.getGlyphSet()
    glyf: Any = newTable("glyf")
    glyf.glyphOrder = order
    glyf.glyphs = {}
    for name in order:
        pen = TTGlyphPen(glyph_set)
        # CFF contours run counter-clockwise, TrueType's clockwise
        glyph_set[name].draw(Cu2QuPen(pen, max_err=1.0, reverse_direction=True))
        glyf.glyphs[name] = pen.glyph()
    del font["CFF "]
    if "VORG" in font:
        del font["VORG"]
    font["loca"] = newTable("loca")
    font["glyf"] = glyf
    maxp = font["maxp"]
    maxp.tableVersion = 0x00010000
    for field, value in _MAXP_TRUETYPE.items():
        setattr(maxp, field, value)
    font["head"].glyphDataFormat = 0
    post = font["post"]
    post.formatType = 2.0
    post.extraNames = []
    post.mapping = {}
    font.sfntVersion = "\x00\x01\x00\x00"


def to_cff(font: TTFont) -> None:
    """Replace the glyf/loca tables of ``font`` by a CFF table, in place."""
    _refuse_variable(font)
    order = font.getGlyphOrder()
    glyph_set = font.getGlyphSet()
    metrics = font["hmtx"].metrics
    charstrings = {}
    for name in order:
        pen = T2CharStringPen(metrics[name][0], glyph_set)
        glyph_set[name].draw(pen)
        charstrings[name] = pen.getCharString()
    names = font["name"]
    ps_name = names.getDebugName(6) or "Font"
    info = {"FullName": names.getDebugName(4) or ps_name, "FamilyName": names.getDebugName(1) or ps_name}
    for tag in _TRUETYPE_ONLY:
        if tag in font:
            del font[tag]
    builder = FontBuilder(font=font, isTTF=False)
    builder.setupCFF(ps_name, info, charstrings, {})
    builder.setupMaxp()
    font["post"].formatType = 3.0
    font.sfntVersion = "OTTO"
