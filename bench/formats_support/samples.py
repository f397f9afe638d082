"""Seed samples for bench/formats.py: small files written by hand or made with installed programs.

Every text sample says "Quokka", so a converted text can be checked for the word. Formats without a
seed here are made by converting a seed through the service itself (formats.py).
"""

from __future__ import annotations

import gzip
import json
import shutil
import subprocess
import zipfile
from collections.abc import Callable
from pathlib import Path

from PIL import Image, ImageDraw

from formats_support.samples_3d import write_model_seeds
from formats_support.samples_archive import archive_seeds
from formats_support.samples_av import av_seeds
from formats_support.samples_breadth import breadth_seeds
from formats_support.samples_data import data_seeds
from formats_support.samples_docs import docs_seeds
from formats_support.samples_fonts import font_seeds
from formats_support.samples_gps import gps_seeds
from formats_support.samples_image import image_seeds
from formats_support.samples_imgx import imgx_seeds
from formats_support.samples_mail import mail_seeds
from formats_support.samples_pages import pages_seeds
from formats_support.samples_raw import raw_seeds
from formats_support.samples_subtitle import subtitle_seeds
from formats_support.samples_vector import vector_seeds

WORD = "Quokka"
ASSETS = Path(__file__).resolve().parents[2] / "pipelines" / "assets"

_TEXTS = {
    "md": f"# {WORD} notes\n\nSome *text* about the {WORD}.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n",
    "rst": f"{WORD} notes\n============\n\nSome *text* about the {WORD}.\n",
    "org": f"* {WORD} notes\nSome /text/ about the {WORD}.\n",
    "html": f"<!DOCTYPE html><html><head><title>{WORD}</title></head><body><h1>{WORD} notes</h1>"
    f"<p>About the {WORD}.</p></body></html>\n",
    "tex": f"\\documentclass{{article}}\n\\begin{{document}}\n\\section{{{WORD} notes}}\nAbout the {WORD}.\n"
    "\\end{document}\n",
    "textile": f"h1. {WORD} notes\n\nAbout the _{WORD}_.\n",
    "mediawiki": f"== {WORD} notes ==\nAbout the ''{WORD}''.\n",
    "dokuwiki": f"====== {WORD} notes ======\nAbout the //{WORD}//.\n",
    "t2t": f"{WORD} notes\nAuthor\n2026\n\n= Section =\nAbout the {WORD}.\n",
    "opml": f'<?xml version="1.0"?>\n<opml version="2.0"><head><title>{WORD}</title></head>'
    f'<body><outline text="{WORD} notes"><outline text="About the {WORD}."/></outline></body></opml>\n',
    "fb2": '<?xml version="1.0" encoding="utf-8"?>\n'
    '<FictionBook xmlns="http://www.gribuser.ru/xml/fictionbook/2.0">'
    f"<description><title-info><book-title>{WORD}</book-title><lang>en</lang></title-info></description>"
    f"<body><section><title><p>{WORD} notes</p></title><p>About the {WORD}.</p></section></body>"
    "</FictionBook>\n",
    "rtf": f"{{\\rtf1\\ansi{{\\fonttbl\\f0 Helvetica;}}\\f0 {WORD} notes\\par About the {WORD}.\\par}}\n",
    "txt": f"{WORD} notes\nAbout the {WORD}.\n",
    "csv": f"animal,count\n{WORD},3\nWombat,5\n",
    "creole": f"= {WORD} notes =\nAbout the **{WORD}**.\n",
    "vimwiki": f"= {WORD} notes =\nAbout the *{WORD}*.\n",
    "twiki": f"---+ {WORD} notes\nAbout the *{WORD}*.\n",
    "tikiwiki": f"! {WORD} notes\nAbout the __{WORD}__.\n",
    "svg": '<svg xmlns="http://www.w3.org/2000/svg" width="120" height="80"><rect width="120" height="80" '
    'fill="#1d4ed8"/><circle cx="60" cy="40" r="25" fill="#fff"/></svg>\n',
    "eps": "%!PS-Adobe-3.0 EPSF-3.0\n%%BoundingBox: 0 0 120 60\n0 0 1 setrgbcolor 0 0 120 60 rectfill\n"
    f"1 1 1 setrgbcolor /Helvetica findfont 18 scalefont setfont 8 22 moveto ({WORD}) show\nshowpage\n",
    "ps": "%!PS-Adobe-3.0\n/Helvetica findfont 24 scalefont setfont 72 720 moveto "
    f"({WORD} notes) show\nshowpage\n",
}
_NOTEBOOK = {
    "cells": [
        {"cell_type": "markdown", "metadata": {}, "source": [f"# {WORD} notes\n", f"About the {WORD}."]},
        {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [], "source": ["1 + 1"]},
    ],
    "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
    "nbformat": 4,
    "nbformat_minor": 5,
}


def _image(path: Path) -> None:
    image = Image.new("RGB", (96, 64), "white")
    draw = ImageDraw.Draw(image)
    draw.rectangle((16, 12, 80, 52), fill=(29, 78, 216))
    draw.ellipse((36, 20, 60, 44), fill="white")
    image.save(path)


def _ffmpeg(path: Path, *sources: str) -> None:
    inputs = [arg for source in sources for arg in ("-f", "lavfi", "-i", source)]
    subprocess.run(
        ["ffmpeg", "-hide_banner", "-loglevel", "error", "-nostdin", "-y", *inputs, "-shortest", str(path)],
        check=True,
    )


def _font(path: Path) -> None:
    from fontTools.fontBuilder import FontBuilder
    from fontTools.pens.ttGlyphPen import TTGlyphPen

    pen = TTGlyphPen(None)
    for x, y in ((100, 0), (100, 700), (600, 700), (600, 0)):
        (pen.lineTo if x != 100 or y != 0 else pen.moveTo)((x, y))
    pen.closePath()
    glyphs = {".notdef": TTGlyphPen(None).glyph(), "Q": pen.glyph()}
    builder = FontBuilder(1000, isTTF=True)
    builder.setupGlyphOrder(list(glyphs))
    builder.setupCharacterMap({ord("Q"): "Q"})
    builder.setupGlyf(glyphs)
    builder.setupHorizontalMetrics({name: (700, 0) for name in glyphs})
    builder.setupHorizontalHeader(ascent=800, descent=-200)
    builder.setupNameTable({"familyName": "Bench Boxes", "styleName": "Regular"})
    builder.setupOS2(sTypoAscender=800, usWinAscent=800, usWinDescent=200)
    builder.setupPost()
    builder.save(str(path))


def _zip(path: Path) -> None:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("notes/quokka.txt", f"About the {WORD}.\n")
        archive.writestr("readme.md", f"# {WORD}\n")


def _soffice(source: Path, target_format: str, out_dir: Path) -> Path:
    """An office file LibreOffice writes (nothing in the listing makes xlsx or pptx from a seed)."""
    subprocess.run(
        ["soffice", "--headless", f"-env:UserInstallation=file://{out_dir}/lo-profile",
         "--convert-to", target_format, "--outdir", str(out_dir), str(source)],
        check=True, capture_output=True, timeout=180,
    )  # fmt: skip
    made = out_dir / f"{source.stem}.{target_format}"
    if not made.is_file():
        raise RuntimeError(f"soffice made no {target_format} of {source.name}")
    return made


def write_seeds(directory: Path, wanted: set[str]) -> dict[str, Path]:
    """Write the seed of every format in ``wanted`` that has one; format -> path."""
    directory.mkdir(parents=True, exist_ok=True)
    seeds: dict[str, Path] = {}

    def seed(fmt: str, make: Callable[[Path], None]) -> None:
        if fmt in wanted:
            path = directory / f"sample.{fmt}"
            make(path)
            seeds[fmt] = path

    for fmt, text in _TEXTS.items():
        seed(fmt, lambda path, text=text: path.write_text(text, encoding="utf-8"))
    seed("ai", lambda path: path.write_text(_TEXTS["eps"]))  # Illustrator before version 9 wrote EPS
    seed("svgz", lambda path: path.write_bytes(gzip.compress(_TEXTS["svg"].encode())))
    seed("ipynb", lambda path: path.write_text(json.dumps(_NOTEBOOK)))
    seed("png", _image)
    for netpbm in ("pbm", "pgm", "ppm"):
        seed(netpbm, lambda path: Image.open(directory / "sample.png").save(path) if "png" in seeds else None)
    seed("pdf", lambda path: shutil.copyfile(ASSETS / "pages.pdf", path))
    seed("wav", lambda path: _ffmpeg(path, "sine=frequency=440:duration=1"))
    video, tone = "testsrc=size=128x96:rate=12:duration=1", "sine=frequency=440:duration=1"
    seed("mp4", lambda path: _ffmpeg(path, video, tone))
    seed("m4v", lambda path: shutil.copyfile(seeds["mp4"], path) if "mp4" in seeds else None)
    seed("ttf", _font)
    seed("zip", _zip)
    seeds.update(write_model_seeds(directory, wanted))
    office = directory / "office"
    if "csv" in seeds:
        for fmt in ("xlsx", "xls", "ods"):
            seed(fmt, lambda path, fmt=fmt: shutil.copyfile(_soffice(seeds["csv"], fmt, office), path))
    seeds.update(image_seeds(directory, wanted, seeds.get("png")))
    seeds.update(imgx_seeds(directory, wanted))  # fli, flc, spi, rle, wpg: written by hand
    seeds.update(breadth_seeds(directory, wanted))
    seeds.update(mail_seeds(directory, wanted))
    seeds.update(docs_seeds(directory, wanted))
    seeds.update(pages_seeds(directory, wanted))  # after breadth: its comics replace the 2-page ones
    seeds.update(data_seeds(directory, wanted))
    seeds.update(subtitle_seeds(directory, wanted))
    seeds.update(raw_seeds(directory, wanted))
    seeds.update(gps_seeds(directory, wanted))
    seeds.update(vector_seeds(directory, wanted))
    seeds.update(archive_seeds(directory, wanted))
    seeds.update(av_seeds(directory, wanted))
    seeds.update(font_seeds(directory, wanted, _font))
    return {fmt: path for fmt, path in seeds.items() if path.is_file()}


def office_from(source: Path, fmt: str, directory: Path) -> Path:
    """``source`` converted by soffice to ``fmt`` (doc, ppt, odp, the flat ODF formats, drawings)."""
    return _soffice(source, fmt, directory / "office")
