"""Font samples of issue 47 for the tests and bench/formats.py, none made by the engine that reads
them: Type 1 assembled by t1utils from a disassembly written here (pfa with ``t1asm -a``, pfb with
``t1binary``), FontForge's sfd, a BDF bitmap font and a TTX written by hand, pcf made of that BDF by
bdftopcf, a Type 42 font written here around a ttf's bytes, a bare CFF cut out of fontTools' OpenType,
and a two-font ttc (or otc) and a dfont made by FontForge (fontTools reads them). Every font has a
glyph ``Q`` with an outline (a box with a hole) or, for the bitmap fonts, a bitmap.
"""

from __future__ import annotations

import io
import subprocess
from collections.abc import Callable
from pathlib import Path

__all__ = [
    "BDF",
    "SFD",
    "TYPE1",
    "box_ttf",
    "dfont_font",
    "pcf_font",
    "t42_font",
    "ttc_font",
    "ttx_text",
    "type1_font",
]

FAMILY = "Quokka Sans"

TYPE1 = """%!PS-AdobeFont-1.0: QuokkaSans 001.000
%%Title: QuokkaSans
%%EndComments
11 dict begin
/FontInfo 5 dict dup begin
/version (001.000) readonly def
/FullName (Quokka Sans) readonly def
/FamilyName (Quokka Sans) readonly def
/Weight (Regular) readonly def
/ItalicAngle 0 def
end readonly def
/FontName /QuokkaSans def
/PaintType 0 def
/FontType 1 def
/FontMatrix [0.001 0 0 0.001 0 0] readonly def
/FontBBox {80 0 620 700} readonly def
/Encoding StandardEncoding def
currentdict end
currentfile eexec
dup /Private 8 dict dup begin
/RD{string currentfile exch readstring pop}executeonly def
/ND{noaccess def}executeonly def
/NP{noaccess put}executeonly def
/MinFeature{16 16}ND
/password 5839 def
/BlueValues [0 0 700 700] ND
/Subrs 1 array
dup 0 {
\treturn
\t} NP
ND
2 index /CharStrings 2 dict dup begin
/.notdef {
\t0 500 hsbw
\tendchar
\t} ND
/Q {
\t80 700 hsbw
\t0 0 rmoveto
\t540 hlineto
\t700 vlineto
\t-540 hlineto
\tclosepath
\t100 -100 rmoveto
\t0 -500 rlineto
\t340 0 rlineto
\t0 500 rlineto
\tclosepath
\tendchar
\t} ND
end end
readonly put
noaccess put
dup /FontName get exch definefont pop
mark currentfile closefile
cleartomark
"""

SFD = """SplineFontDB: 3.0
FontName: QuokkaSans
FullName: Quokka Sans
FamilyName: Quokka Sans
Weight: Regular
Version: 1.0
ItalicAngle: 0
UnderlinePosition: -100
UnderlineWidth: 50
Ascent: 800
Descent: 200
LayerCount: 2
Layer: 0 0 "Back" 1
Layer: 1 0 "Fore" 0
Encoding: UnicodeBmp
BeginChars: 65536 1

StartChar: Q
Encoding: 81 81 0
Width: 700
Fore
SplineSet
80 0 m 1
 80 700 l 1
 620 700 l 1
 620 0 l 1
 80 0 l 1
180 100 m 1
 520 100 l 1
 520 600 l 1
 180 600 l 1
 180 100 l 1
EndSplineSet
EndChar
EndChars
EndSplineFont
"""

BDF_ROWS = ("3C", "42", "81", "81", "89", "46", "3D", "00")
BDF = f"""STARTFONT 2.1
FONT -Misc-Quokka Pixel-Medium-R-Normal--8-80-75-75-C-80-ISO10646-1
SIZE 8 75 75
FONTBOUNDINGBOX 8 8 0 -1
STARTPROPERTIES 4
FAMILY_NAME "Quokka Pixel"
FONT_ASCENT 7
FONT_DESCENT 1
DEFAULT_CHAR 81
ENDPROPERTIES
CHARS 1
STARTCHAR Q
ENCODING 81
SWIDTH 1000 0
DWIDTH 8 0
BBX 8 8 0 -1
BITMAP
{chr(10).join(BDF_ROWS)}
ENDCHAR
ENDFONT
"""


def _values(table: str, fields: str) -> str:
    pairs = (field.split("=") for field in fields.split())
    return f"<{table}>" + "".join(f'<{name} value="{value}"/>' for name, value in pairs) + f"</{table}>\n"


_OS2 = (
    "version=1 xAvgCharWidth=700 usWeightClass=400 usWidthClass=5 fsType=00000000_00000000 "
    "ySubscriptXSize=650 ySubscriptYSize=600 ySubscriptXOffset=0 ySubscriptYOffset=75 "
    "ySuperscriptXSize=650 ySuperscriptYSize=600 ySuperscriptXOffset=0 ySuperscriptYOffset=350 "
    "yStrikeoutSize=50 yStrikeoutPosition=300 sFamilyClass=0"
)
_OS2_TAIL = (
    "ulUnicodeRange1=0 ulUnicodeRange2=0 ulUnicodeRange3=0 ulUnicodeRange4=0 achVendID=NONE "
    "fsSelection=00000000_01000000 usFirstCharIndex=81 usLastCharIndex=81 sTypoAscender=800 "
    "sTypoDescender=-200 sTypoLineGap=0 usWinAscent=800 usWinDescent=200 ulCodePageRange1=1 "
    "ulCodePageRange2=0"
)
_MAXP = "tableVersion=0x10000 numGlyphs=2 maxZones=1 " + " ".join(
    f"{name}=0"
    for name in (
        "maxPoints", "maxContours", "maxCompositePoints", "maxCompositeContours", "maxTwilightPoints",
        "maxStorage", "maxFunctionDefs", "maxInstructionDefs", "maxStackElements", "maxSizeOfInstructions",
        "maxComponentElements", "maxComponentDepth",
    )
)  # fmt: skip
_PANOSE = (
    "bFamilyType bSerifStyle bWeight bProportion bContrast bStrokeVariation bArmStyle bLetterForm bMidline "
    "bXHeight"
)


def ttx_text() -> str:
    """A TrueType font written as TTX by hand: the glyph Q, a box with a hole, and its names."""
    os2 = _values("OS_2", _OS2).replace("</OS_2>\n", "").replace("_", " ").replace("<OS 2>", "<OS_2>")
    panose = "<panose>" + "".join(f'<{name} value="0"/>' for name in _PANOSE.split()) + "</panose>"
    tail = _values("x", _OS2_TAIL)[3:-5].replace("_", " ")
    box = ((80, 0), (80, 700), (620, 700), (620, 0)), ((180, 100), (520, 100), (520, 600), (180, 600))
    contours = "".join(
        "<contour>" + "".join(f'<pt x="{x}" y="{y}" on="1"/>' for x, y in points) + "</contour>"
        for points in box
    )
    names = "".join(
        f'<namerecord nameID="{number}" platformID="3" platEncID="1" langID="0x409">{text}</namerecord>'
        for number, text in ((1, FAMILY), (2, "Regular"), (4, FAMILY), (6, "QuokkaSans"))
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n<ttFont sfntVersion="\\x00\\x01\\x00\\x00">\n'
        '<GlyphOrder><GlyphID name=".notdef"/><GlyphID name="Q"/></GlyphOrder>\n'
        + _values(
            "head",
            "tableVersion=1.0 fontRevision=1.0 checkSumAdjustment=0 magicNumber=0x5f0f3cf5 flags=3 "
            "unitsPerEm=1000 created=Thu_Jan_1_00:00:00_2026 modified=Thu_Jan_1_00:00:00_2026 "
            "xMin=0 yMin=0 xMax=0 yMax=0 macStyle=0 lowestRecPPEM=8 fontDirectionHint=2 indexToLocFormat=0 "
            "glyphDataFormat=0",
        ).replace("_", " ")
        + _values(
            "hhea",
            "tableVersion=0x00010000 ascent=800 descent=-200 lineGap=0 advanceWidthMax=700 "
            "minLeftSideBearing=0 minRightSideBearing=0 xMaxExtent=0 caretSlopeRise=1 caretSlopeRun=0 "
            "caretOffset=0 reserved0=0 reserved1=0 reserved2=0 reserved3=0 metricDataFormat=0 "
            "numberOfHMetrics=2",
        )
        + _values("maxp", _MAXP)
        + os2
        + panose
        + tail
        + "</OS_2>\n"
        + '<hmtx><mtx name=".notdef" width="500" lsb="0"/><mtx name="Q" width="700" lsb="80"/></hmtx>\n'
        + '<cmap><tableVersion version="0"/><cmap_format_4 platformID="3" platEncID="1" language="0">'
        + '<map code="0x51" name="Q"/></cmap_format_4></cmap>\n<loca/>\n'
        + f'<glyf><TTGlyph name=".notdef"/><TTGlyph name="Q">{contours}<instructions/></TTGlyph></glyf>\n'
        + f"<name>{names}</name>\n"
        + _values(
            "post",
            "formatType=2.0 italicAngle=0.0 underlinePosition=-100 underlineThickness=50 isFixedPitch=0 "
            "minMemType42=0 maxMemType42=0 minMemType1=0 maxMemType1=0",
        ).replace("</post>", "<psNames/><extraNames/></post>")
        + "</ttFont>\n"
    )


def type1_font(binary: bool, text: str = TYPE1) -> Callable[[Path], None]:
    """A maker of the Type 1 font ``text`` disassembles, assembled by t1asm (pfa) and made binary by
    t1binary (pfb)."""

    def make(path: Path) -> None:
        disassembly = path.with_suffix(".t1d")
        disassembly.write_text(text)
        pfa = path.with_suffix(".ascii")
        subprocess.run(["t1asm", "-a", str(disassembly), str(pfa)], check=True)
        if binary:
            subprocess.run(["t1binary", str(pfa), str(path)], check=True)
        else:
            pfa.rename(path)

    return make


def pcf_font(path: Path) -> None:
    """The BDF font made a pcf by bdftopcf."""
    bdf = path.with_suffix(".bdf-source")
    bdf.write_text(BDF)
    subprocess.run(["bdftopcf", "-o", str(path), str(bdf)], check=True)


def t42_font(ttf: Path) -> Callable[[Path], None]:
    """A maker of a Type 42 font written here around ``ttf``'s bytes."""

    def make(path: Path) -> None:
        data = ttf.read_bytes() + b"\x00"
        hex_lines = "\n".join(data[i : i + 32].hex() for i in range(0, len(data), 32))
        path.write_text(
            "%!PS-TrueTypeFont-1.0-1.0\n11 dict begin\n/FontName /BenchBoxes def\n/FontType 42 def\n"
            "/FontMatrix [1 0 0 1 0 0] def\n/FontBBox {0 0 1 1} readonly def\n/PaintType 0 def\n"
            "/Encoding 256 array\n0 1 255 { 1 index exch /.notdef put } for\ndup 81 /Q put\nreadonly def\n"
            f"/sfnts [\n<\n{hex_lines}\n>\n] def\n"
            "/CharStrings 2 dict dup begin\n/.notdef 0 def\n/Q 1 def\nend readonly def\n"
            "FontName currentdict end definefont pop\n"
        )

    return make


def ttc_font(ttf: Path, cff: bool = False, fontforge: str = "fontforge") -> Callable[[Path], None]:
    """A maker of a collection of ``ttf`` twice, as Quokka Sans and Quokka Mono, by FontForge (the
    program at ``fontforge``: a test passes the one the engine runs); with ``cff`` an OpenType collection
    (otc) of CFF fonts."""

    script = (
        "import fontforge, sys\n"
        "first = fontforge.open(sys.argv[1]); second = fontforge.open(sys.argv[1])\n"
        "first.familyname = first.fullname = 'Quokka Sans'; first.fontname = 'QuokkaSans'\n"
        "second.familyname = second.fullname = 'Quokka Mono'; second.fontname = 'QuokkaMono'\n"
        f"first.generateTtc(sys.argv[2], second, ttcflags={('cff',) if cff else ()!r}, layer=1)\n"
    )

    def make(path: Path) -> None:
        subprocess.run(
            [fontforge, "-quiet", "-lang=py", "-c", script, str(ttf), str(path)],
            check=True,
            capture_output=True,
        )

    return make


def box_ttf(path: Path, family: str = FAMILY) -> None:
    """A TrueType font made by fontTools (for FontForge to read): the glyph Q, a box with a hole."""
    from fontTools.fontBuilder import FontBuilder
    from fontTools.pens.ttGlyphPen import TTGlyphPen

    pen = TTGlyphPen(None)
    for contour in (
        ((80, 0), (80, 700), (620, 700), (620, 0)),
        ((180, 100), (520, 100), (520, 600), (180, 600)),
    ):
        pen.moveTo(contour[0])
        for point in contour[1:]:
            pen.lineTo(point)
        pen.closePath()
    glyphs = {".notdef": TTGlyphPen(None).glyph(), "Q": pen.glyph()}
    builder = FontBuilder(1000, isTTF=True)
    builder.setupGlyphOrder(list(glyphs))
    builder.setupCharacterMap({ord("Q"): "Q"})
    builder.setupGlyf(glyphs)
    builder.setupHorizontalMetrics({".notdef": (500, 0), "Q": (700, 80)})
    builder.setupHorizontalHeader(ascent=800, descent=-200)
    builder.setupNameTable({"familyName": family, "styleName": "Regular"})
    builder.setupOS2(sTypoAscender=800, usWinAscent=800, usWinDescent=200)
    builder.setupPost()
    builder.save(str(path))


def dfont_font(ttf: Path, fontforge: str = "fontforge") -> Callable[[Path], None]:
    """A maker of a Mac dfont suitcase holding ``ttf``, by FontForge (the program at ``fontforge``)."""
    script = "import fontforge, sys\nfontforge.open(sys.argv[1]).generate(sys.argv[2])\n"

    def make(path: Path) -> None:
        subprocess.run(
            [fontforge, "-quiet", "-lang=py", "-c", script, str(ttf), str(path)],
            check=True,
            capture_output=True,
        )

    return make


def bare_cff(path: Path) -> None:
    """A bare CFF font (as a PDF embeds one): the CFF table of an OpenType font fontTools builds."""
    from fontTools.fontBuilder import FontBuilder
    from fontTools.pens.t2CharStringPen import T2CharStringPen

    pen = T2CharStringPen(700, None)
    for contour in (
        ((80, 0), (620, 0), (620, 700), (80, 700)),
        ((180, 100), (180, 600), (520, 600), (520, 100)),
    ):
        pen.moveTo(contour[0])
        for point in contour[1:]:
            pen.lineTo(point)
        pen.closePath()
    builder = FontBuilder(1000, isTTF=False)
    builder.setupGlyphOrder([".notdef", "Q"])
    builder.setupCharacterMap({ord("Q"): "Q"})
    notdef = T2CharStringPen(500, None).getCharString()
    builder.setupCFF(
        "QuokkaSans",
        {"FamilyName": FAMILY, "FullName": FAMILY},
        {".notdef": notdef, "Q": pen.getCharString()},
        {},
    )
    builder.setupHorizontalMetrics({".notdef": (500, 0), "Q": (700, 80)})
    builder.setupHorizontalHeader(ascent=800, descent=-200)
    builder.setupNameTable({"familyName": FAMILY, "styleName": "Regular"})
    builder.setupOS2()
    builder.setupPost()
    builder.setupMaxp()
    compiled = io.BytesIO()
    builder.save(compiled)
    compiled.seek(0)
    from fontTools.ttLib import TTFont

    path.write_bytes(TTFont(compiled).reader["CFF "])
