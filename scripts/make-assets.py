#!/usr/bin/env python3
"""Write the small sample files the example pipelines use into pipelines/assets/.

Run from anywhere: ``python scripts/make-assets.py``. The output is committed; the script is kept so
the assets can be remade (or changed) and reviewed. Each file stays well under 100 KB, and every one
can be handled by the engines that need no external program (Pillow, pypdf, the archive formats),
except tone.wav and clip.mp4 (ffmpeg), letter.docx (LibreOffice) and the issue 23 examples' notes.md
(Pandoc), badge.svg (librsvg) and boxes.ttf (fontTools, which writes it). clip.mp4 is made by ffmpeg
itself (skipped, with a note, where ffmpeg is missing).
"""

from __future__ import annotations

import io
import math
import shutil
import struct
import subprocess
import sys
import wave
import zipfile
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont
from pypdf import PdfWriter
from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject

ASSETS = Path(__file__).resolve().parent.parent / "pipelines" / "assets"
# A fixed timestamp keeps the zip-based files byte-identical from run to run.
ZIP_DATE = (2024, 1, 1, 0, 0, 0)


def font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    # Pillow's bundled font: the same glyphs on every machine.
    return ImageFont.load_default(size=size)


def photo(path: Path) -> None:
    """An 800x600 'product shot': a sky-to-floor gradient, a lit sphere, a box and a label."""
    width, height = 800, 600
    img = Image.new("RGB", (width, height))
    px = img.load()
    assert px is not None
    for y in range(height):
        t = y / (height - 1)
        for x in range(width):
            s = x / (width - 1)
            px[x, y] = (int(40 + 150 * t), int(90 + 80 * (1 - t) + 30 * s), int(200 - 120 * t))
    draw = ImageDraw.Draw(img)
    draw.rectangle((0, 430, width, height), fill=(120, 96, 72))
    draw.ellipse((250, 470, 560, 520), fill=(80, 62, 48))  # shadow
    cx, cy, r = 400, 330, 150
    for i in range(r, 0, -2):  # a sphere lit from the upper left
        k = i / r
        shade = (int(230 - 150 * k), int(90 - 50 * k), int(60 - 40 * k))
        off = int((1 - k) * 50)
        draw.ellipse((cx - i - off, cy - i - off, cx + i - off, cy + i - off), fill=shade)
    draw.polygon([(600, 470), (720, 440), (760, 500), (640, 540)], fill=(60, 120, 170))
    draw.polygon([(600, 470), (720, 440), (720, 360), (600, 390)], fill=(90, 160, 210))
    draw.text((30, 30), "mcv-pipelines sample photo", fill=(255, 255, 255), font=font(28))
    img.save(path, "JPEG", quality=80, optimize=True)


def logo(path: Path) -> None:
    """A 256x256 badge on a transparent background (tests alpha handling)."""
    img = Image.new("RGBA", (256, 256), (0, 0, 0, 0))
    draw = ImageDraw.Draw(img)
    draw.ellipse((8, 8, 248, 248), fill=(30, 110, 200, 255), outline=(255, 255, 255, 255), width=8)
    draw.ellipse((40, 40, 216, 216), outline=(255, 255, 255, 96), width=6)  # half-transparent ring
    draw.text((128, 128), "MCV", fill=(255, 255, 255, 255), font=font(64), anchor="mm")
    img.save(path, "PNG", optimize=True)


def pages_pdf(path: Path) -> None:
    """A two-page A5 PDF with real (extractable) text, drawn with the standard Helvetica font."""
    writer = PdfWriter()
    helvetica = DictionaryObject(
        {
            NameObject("/Type"): NameObject("/Font"),
            NameObject("/Subtype"): NameObject("/Type1"),
            NameObject("/BaseFont"): NameObject("/Helvetica"),
        }
    )
    font_ref = writer._add_object(helvetica)
    for number in (1, 2):
        page = writer.add_blank_page(width=420, height=595)
        text = (
            f"BT /F1 28 Tf 50 520 Td (Sample document) Tj ET\n"
            f"BT /F1 14 Tf 50 480 Td (Page {number} of 2, for the merge and watermark examples.) Tj ET\n"
            f"0.2 0.45 0.8 rg 50 {300 - 60 * number} 320 120 re f\n"
        )
        stream = DecodedStreamObject()
        stream.set_data(text.encode("ascii"))
        page[NameObject("/Contents")] = writer._add_object(stream)
        page[NameObject("/Resources")] = DictionaryObject(
            {NameObject("/Font"): DictionaryObject({NameObject("/F1"): font_ref})}
        )
    writer.add_metadata({"/Title": "Sample document", "/Producer": "mcv-pipelines make-assets"})
    buffer = io.BytesIO()
    writer.write(buffer)
    path.write_bytes(buffer.getvalue())


def tone(path: Path) -> None:
    """Two seconds of a 440 Hz sine, mono, 16 kHz, 16-bit, fading in and out."""
    rate, seconds = 16000, 2
    frames = bytearray()
    total = rate * seconds
    for n in range(total):
        fade = min(1.0, n / 800, (total - n) / 800)
        frames += struct.pack("<h", int(12000 * fade * math.sin(2 * math.pi * 440 * n / rate)))
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(bytes(frames))


DOCX_PARTS = {
    "[Content_Types].xml": (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
        '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
        '<Default Extension="xml" ContentType="application/xml"/>'
        '<Override PartName="/word/document.xml" '
        'ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>'
        "</Types>"
    ),
    "_rels/.rels": (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
        '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
        '<Relationship Id="rId1" '
        'Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" '
        'Target="word/document.xml"/>'
        "</Relationships>"
    ),
    "word/document.xml": (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
        '<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>'
        '<w:p><w:pPr><w:jc w:val="center"/></w:pPr><w:r><w:rPr><w:b/><w:sz w:val="40"/></w:rPr>'
        "<w:t>Sample letter</w:t></w:r></w:p>"
        "<w:p><w:r><w:t>This one-page document is the input of the office-to-pdf example.</w:t></w:r></w:p>"
        '<w:p><w:r><w:t xml:space="preserve">It is a minimal WordprocessingML package: '
        "three XML parts in a zip.</w:t></w:r></w:p>"
        "</w:body></w:document>"
    ),
}


def clip(path: Path) -> None:
    """A 2-second 160x120 test-pattern video with a tone, h264/aac in mp4 (~50 KB), built
    bit-exactly so that a rerun gives the same bytes with the same ffmpeg."""
    ffmpeg = shutil.which("ffmpeg")
    if ffmpeg is None:
        print(f"skipped {path.name}: needs ffmpeg", file=sys.stderr)
        return
    subprocess.run(
        [
            ffmpeg, "-y", "-hide_banner", "-loglevel", "error", "-nostdin",
            "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=12:duration=2",
            "-f", "lavfi", "-i", "sine=frequency=660:sample_rate=22050:duration=2",
            "-c:v", "libx264", "-preset", "veryslow", "-crf", "32", "-pix_fmt", "yuv420p", "-threads", "1",
            "-c:a", "aac", "-b:a", "32k", "-ac", "1", "-shortest",
            "-map_metadata", "-1", "-fflags", "+bitexact", "-flags:v", "+bitexact", "-flags:a", "+bitexact",
            "-movflags", "+faststart", str(path),
        ],
        check=True,
    )  # fmt: skip


def letter(path: Path) -> None:
    """A minimal one-page .docx, written as the zip of XML parts it is."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as docx:
        for name, text in DOCX_PARTS.items():
            docx.writestr(zipfile.ZipInfo(name, date_time=ZIP_DATE), text)


NOTES = """---
title: Field notes
---

# Field notes

The *quokka* lives on Rottnest Island. A short table of sightings:

| place     | quokkas |
|-----------|--------:|
| Rottnest  |      12 |
| Bald Isle |       3 |

- [x] count the colony
- [ ] write the report
"""

BADGE = """<svg xmlns="http://www.w3.org/2000/svg" width="160" height="64" viewBox="0 0 160 64">
  <rect width="160" height="64" rx="12" fill="#1d4ed8"/>
  <circle cx="32" cy="32" r="18" fill="#fde68a"/>
  <path d="M64 20h72v8H64zM64 36h52v8H64z" fill="#ffffff"/>
</svg>
"""


def notes(path: Path) -> None:
    """A Markdown note (front matter, table, task list) for the text and ebook examples."""
    path.write_text(NOTES, encoding="utf-8")


def badge(path: Path) -> None:
    """A small SVG for the vector example."""
    path.write_text(BADGE, encoding="utf-8")


def boxes_font(path: Path) -> None:
    """A TrueType font of three geometric letters (H, I, O) for the web-fonts example, by fontTools."""
    from fontTools.fontBuilder import FontBuilder
    from fontTools.pens.ttGlyphPen import TTGlyphPen

    shapes = {
        "H": [[(80, 0), (80, 700), (200, 700), (200, 410), (400, 410), (400, 700), (520, 700), (520, 0),
               (400, 0), (400, 290), (200, 290), (200, 0)]],
        "I": [[(230, 0), (230, 700), (370, 700), (370, 0)]],
        "O": [[(60, 0), (60, 700), (540, 700), (540, 0)], [(180, 120), (420, 120), (420, 580), (180, 580)]],
    }  # fmt: skip
    glyphs = {".notdef": TTGlyphPen(None).glyph()}
    for name, contours in shapes.items():
        pen = TTGlyphPen(None)
        for index, contour in enumerate(contours):
            points = contour if index == 0 else contour[::-1]  # a counter runs the other way
            pen.moveTo(points[0])
            for point in points[1:]:
                pen.lineTo(point)
            pen.closePath()
        glyphs[name] = pen.glyph()
    builder = FontBuilder(1000, isTTF=True)
    builder.setupGlyphOrder(list(glyphs))
    builder.setupCharacterMap({ord(name): name for name in shapes})
    builder.setupGlyf(glyphs)
    builder.setupHorizontalMetrics({name: (600, 0) for name in glyphs})
    builder.setupHorizontalHeader(ascent=800, descent=-200)
    builder.setupNameTable({"familyName": "Boxes", "styleName": "Regular"})
    builder.setupOS2(sTypoAscender=800, usWinAscent=800, usWinDescent=200)
    builder.setupPost()
    builder.font["head"].created = builder.font["head"].modified = 0  # byte-identical from run to run
    builder.save(str(path))


MAKERS = {
    "photo.jpg": photo,
    "logo.png": logo,
    "pages.pdf": pages_pdf,
    "tone.wav": tone,
    "letter.docx": letter,
    "clip.mp4": clip,
    "notes.md": notes,
    "badge.svg": badge,
    "boxes.ttf": boxes_font,
}


def main() -> int:
    """Write every asset, or only those named on the command line (``make-assets.py boxes.ttf``)."""
    ASSETS.mkdir(parents=True, exist_ok=True)
    for name, make in MAKERS.items():
        if sys.argv[1:] and name not in sys.argv[1:]:
            continue
        target = ASSETS / name
        make(target)
        if not target.exists():
            continue
        print(f"{target.relative_to(ASSETS.parent.parent)}  {target.stat().st_size:>7} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
