"""Checkers of the fonts family's outputs (issue 47), none by the engine that wrote them: fontTools reads
ttf, otf, woff, woff2, dfont (a resource-fork suitcase) and the TrueType font inside a Type 42's
``sfnts`` strings (its glyph found through the Type 42's CharStrings); t1disasm (t1utils) decrypts pfa
and pfb; sfd, bdf and ttx are read here as the text (or XML) they are. Each must hold the glyph ``Q``
with an outline (a bitmap for a bitmap font)."""

from __future__ import annotations

import io
import re
import subprocess
from collections.abc import Callable
from pathlib import Path

from defusedxml import ElementTree

__all__ = ["font_checks"]

Check = Callable[[Path], None]


def _sfnt_glyph(font: object) -> None:
    from fontTools.pens.boundsPen import BoundsPen
    from fontTools.ttLib import TTFont

    assert isinstance(font, TTFont)
    if "Q" not in font.getGlyphOrder() or font["cmap"].getBestCmap().get(ord("Q")) != "Q":
        raise ValueError("no glyph Q mapped from 'Q'")
    glyph_set = font.getGlyphSet()
    pen = BoundsPen(glyph_set)
    glyph_set["Q"].draw(pen)
    if pen.bounds is None and "EBDT" not in font:
        raise ValueError("the glyph Q has neither an outline nor a bitmap")


def _sfnt(path: Path) -> None:
    from fontTools.ttLib import TTFont

    with TTFont(path) as font:
        _sfnt_glyph(font)


def _dfont(path: Path) -> None:
    from fontTools.ttLib import TTFont

    with TTFont(path, res_name_or_index=1) as font:
        _sfnt_glyph(font)


def _t42(path: Path) -> None:
    from fontTools.pens.boundsPen import BoundsPen
    from fontTools.ttLib import TTFont

    text = path.read_text(encoding="latin-1")
    if "/FontType 42 def" not in text:
        raise ValueError("not a Type 42 font")
    sfnts = text[text.index("/sfnts") :]
    sfnts = sfnts[: sfnts.index("]")]
    strings = [bytes.fromhex(re.sub(r"\s", "", hexed)) for hexed in re.findall(r"<([0-9A-Fa-f\s]*)>", sfnts)]
    data = b"".join(string[:-1] if len(string) % 2 else string for string in strings)
    index = re.search(r"/CharStrings .*?/Q (\d+) def", text, re.S)
    if index is None:
        raise ValueError("no glyph Q in CharStrings")
    # a Type 42's TrueType font may leave out cmap, name and post: CharStrings maps names to glyphs
    with TTFont(io.BytesIO(data)) as font:
        glyph_set = font.getGlyphSet()
        pen = BoundsPen(glyph_set)
        glyph_set[font.getGlyphOrder()[int(index.group(1))]].draw(pen)
        if pen.bounds is None:
            raise ValueError("the glyph Q has no outline")


def _type1(path: Path) -> None:
    text = subprocess.run(["t1disasm", str(path)], check=True, capture_output=True, text=True).stdout
    glyph = re.search(r"/Q \{(.*?)\}", text, re.S)
    if "/FontType 1 def" not in text or glyph is None:
        raise ValueError("not a Type 1 font with a glyph Q")
    if not re.search(r"(rlineto|hlineto|vlineto|rrcurveto)", glyph.group(1)):
        raise ValueError("the glyph Q has no outline")


def _sfd(path: Path) -> None:
    text = path.read_text(encoding="utf-8", errors="replace")
    if not text.startswith("SplineFontDB:"):
        raise ValueError("not an sfd")
    glyph = re.search(r"StartChar: Q\n(.*?)EndChar", text, re.S)
    if glyph is None or not re.search(r"SplineSet\n.*\d+ \d+ m .*EndSplineSet", glyph.group(1), re.S):
        raise ValueError("no glyph Q with an outline")


def _bdf(path: Path) -> None:
    text = path.read_text(encoding="latin-1")
    glyph = re.search(r"STARTCHAR Q\n(.*?)ENDCHAR", text, re.S)
    if not text.startswith("STARTFONT") or glyph is None or "BITMAP" not in glyph.group(1):
        raise ValueError("not a BDF with a glyph Q")
    rows = glyph.group(1).split("BITMAP", 1)[1].split()
    if not any(int(row, 16) for row in rows):
        raise ValueError("the glyph Q's bitmap is blank")


def _ttx(path: Path) -> None:
    root = ElementTree.parse(path).getroot()
    if root.tag != "ttFont":
        raise ValueError("not a TTX")
    drawn = root.findall(".//TTGlyph[@name='Q']/contour") or root.findall(".//CharString[@name='Q']")
    if not drawn or not any(mapped.get("name") == "Q" for mapped in root.iter("map")):
        raise ValueError("no glyph Q with an outline mapped from 'Q'")


_CHECKS: dict[str, Check] = {
    **dict.fromkeys(("ttf", "otf", "woff", "woff2"), _sfnt),
    "dfont": _dfont,
    "t42": _t42,
    "pfa": _type1,
    "pfb": _type1,
    "sfd": _sfd,
    "bdf": _bdf,
    "ttx": _ttx,
}


def font_checks(path: Path, fmt: str) -> list[Check]:
    """The checks of a font output ``fmt`` (none for other formats)."""
    del path
    return [_CHECKS[fmt]] if fmt in _CHECKS else []
