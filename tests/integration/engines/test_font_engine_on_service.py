"""fontTools through the service: ttf -> woff2 -> otf -> ttf, each result drawn with FreeType."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import httpx
from engine_job_helpers import b64_import, download_all, run_job, task_named
from fontTools.fontBuilder import FontBuilder
from fontTools.pens.ttGlyphPen import TTGlyphPen
from PIL import Image, ImageDraw, ImageFont

from mcv_pipelines.service.engines.base import Engine

RequireEngine = Callable[..., Engine]


def _box_font(path: Path) -> None:
    """A TrueType font whose "H" is a square with a square hole and "e" a diamond."""
    shapes = {
        "H": [[(100, 0), (100, 700), (600, 700), (600, 0)], [(250, 200), (450, 200), (450, 500), (250, 500)]],
        "e": [[(350, 0), (50, 350), (350, 700), (650, 350)]],
    }
    glyphs = {".notdef": TTGlyphPen(None).glyph()}
    for name, contours in shapes.items():
        pen = TTGlyphPen(None)
        for outer, contour in enumerate(contours):
            points = contour if outer == 0 else list(reversed(contour))  # a hole runs the other way
            pen.moveTo(points[0])
            for point in points[1:]:
                pen.lineTo(point)
            pen.closePath()
        glyphs[name] = pen.glyph()
    builder = FontBuilder(1000, isTTF=True)
    builder.setupGlyphOrder(list(glyphs))
    builder.setupCharacterMap({ord("H"): "H", ord("e"): "e"})
    builder.setupGlyf(glyphs)
    builder.setupHorizontalMetrics({name: (700, 0) for name in glyphs})
    builder.setupHorizontalHeader(ascent=800, descent=-200)
    builder.setupNameTable({"familyName": "Boxes", "styleName": "Regular"})
    builder.setupOS2(sTypoAscender=800, usWinAscent=800, usWinDescent=200)
    builder.setupPost()
    builder.save(str(path))


def _ink(font_file: Path) -> int:
    """How many pixels "HeHe" covers when FreeType draws it with ``font_file`` at 100 px."""
    image = Image.new("L", (400, 140), 0)
    ImageDraw.Draw(image).text((5, 5), "HeHe", fill=255, font=ImageFont.truetype(str(font_file), 100))
    return sum(count for count, value in image.getcolors(256) or [] if value > 128)


def test_ttf_to_woff2_to_otf_to_ttf(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("fonttools", "convert", "ttf", "woff2")
    small = tmp_path / "hello.ttf"
    _box_font(small)
    job = run_job(
        client,
        {
            "ttf": b64_import(small),
            "woff2": {"operation": "convert", "input": "ttf", "output_format": "woff2"},
            "otf": {"operation": "convert", "input": "woff2", "output_format": "otf"},
            "back": {"operation": "convert", "input": "otf", "output_format": "ttf", "filename": "back.ttf"},
            "export": {"operation": "export/url", "input": ["woff2", "otf", "back"]},
        },
    )
    assert task_named(job, "woff2")["engine"] == "fonttools"
    files = download_all(job, tmp_path / "out")
    assert files["hello.woff2"].read_bytes()[:4] == b"wOF2"
    assert files["hello.otf"].read_bytes()[:4] == b"OTTO"
    assert files["back.ttf"].read_bytes()[:4] == b"\x00\x01\x00\x00"
    original = _ink(small)
    assert original > 100
    for name in ("hello.otf", "back.ttf"):
        assert abs(_ink(files[name]) - original) < original * 0.05, name  # same letters, same size
