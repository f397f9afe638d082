"""Fonts of issue 47 through the service: FontForge's Type 1, sfd, Type 42 and bitmap fonts, fontTools'
ttx and ttc. Samples come from other programs (t1utils, bdftopcf, FontForge for the ttc, fontTools for
the ttf FontForge reads) or are written by hand (tests/font_samples.py); outputs are read by fontTools,
t1disasm or as text."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import httpx
from engine_job_helpers import b64_import, download_all, run_job, task_named
from fontTools.pens.boundsPen import BoundsPen
from fontTools.ttLib import TTFont

from engine_needs import engine_program
from font_samples import BDF, SFD, bare_cff, box_ttf, dfont_font, pcf_font, ttc_font, ttx_text, type1_font
from mcv_pipelines.service.engines.base import Engine

RequireEngine = Callable[..., Engine]


def _convert(source: str, target: str, **options: object) -> dict[str, object]:
    return {"operation": "convert", "input": source, "output_format": target, **options}


def _q_bounds(path: Path) -> tuple[float, float, float, float] | None:
    with TTFont(path) as font:
        glyph_set = font.getGlyphSet()
        pen = BoundsPen(glyph_set)
        glyph_set[font.getBestCmap()[ord("Q")]].draw(pen)
        return pen.bounds


def test_type1_to_truetype_and_back_through_sfd(
    require_engine: RequireEngine, require_program: Callable[..., str], client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("fontforge", "convert", "pfb", "ttf")
    require_program("t1asm", "t1disasm")
    type1_font(binary=True)(tmp_path / "quokka.pfb")
    job = run_job(
        client,
        {
            "pfb": b64_import(tmp_path / "quokka.pfb"),
            "ttf": _convert("pfb", "ttf"),
            "sfd": _convert("ttf", "sfd"),
            "pfa": _convert("sfd", "pfa"),
            "export": {"operation": "export/url", "input": ["ttf", "sfd", "pfa"]},
        },
    )
    assert task_named(job, "ttf")["engine"] == "fontforge", task_named(job, "ttf").get("message")
    files = download_all(job, tmp_path / "out")
    with TTFont(files["quokka.ttf"]) as font:
        assert font["name"].getDebugName(1) == "Quokka Sans"
    assert _q_bounds(files["quokka.ttf"]) == (80, 0, 620, 700)  # the box, its hole inside
    sfd = files["quokka.sfd"].read_text()
    assert sfd.startswith("SplineFontDB:")
    assert "StartChar: Q" in sfd
    assert "FamilyName: Quokka Sans" in sfd
    pfa = files["quokka.pfa"].read_bytes()
    assert pfa.startswith(b"%!PS-AdobeFont")
    disassembly = subprocess.run(
        ["t1disasm", str(files["quokka.pfa"])], capture_output=True, text=True, check=True
    )
    assert "/FamilyName (Quokka Sans)" in disassembly.stdout
    assert "/Q {" in disassembly.stdout


def test_sfd_type42_and_bare_cff_to_other_fonts(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("fontforge", "convert", "sfd", "woff2")
    (tmp_path / "drawn.sfd").write_text(SFD)
    box_ttf(tmp_path / "boxes.ttf")
    bare_cff(tmp_path / "embedded.cff")
    job = run_job(
        client,
        {
            "sfd": b64_import(tmp_path / "drawn.sfd"),
            "woff2": _convert("sfd", "woff2"),
            "ttf": b64_import(tmp_path / "boxes.ttf"),
            "t42": _convert("ttf", "t42"),
            "otf": _convert("t42", "otf"),
            "cff": b64_import(tmp_path / "embedded.cff"),
            "wrapped": _convert("cff", "ttf"),
            "export": {"operation": "export/url", "input": ["woff2", "t42", "otf", "wrapped"]},
        },
    )
    files = download_all(job, tmp_path / "out")
    assert files["drawn.woff2"].read_bytes()[:4] == b"wOF2"
    assert _q_bounds(files["drawn.woff2"]) == (80, 0, 620, 700)
    assert files["boxes.t42"].read_text().startswith("%!PS-TrueTypeFont")
    assert files["boxes.otf"].read_bytes()[:4] == b"OTTO"
    assert _q_bounds(files["boxes.otf"]) == (80, 0, 620, 700)
    with TTFont(files["embedded.ttf"]) as wrapped:  # a bare CFF given the tables of a whole font
        assert wrapped["name"].getDebugName(1) == "Quokka Sans"
    assert _q_bounds(files["embedded.ttf"]) == (80, 0, 620, 700)


def test_bitmap_fonts_keep_their_bitmaps(
    require_engine: RequireEngine, require_program: Callable[..., str], client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("fontforge", "convert", "pcf", "bdf")
    require_program("bdftopcf")
    (tmp_path / "pixel.bdf").write_text(BDF)
    pcf_font(tmp_path / "pixel.pcf")
    job = run_job(
        client,
        {
            "bdf": b64_import(tmp_path / "pixel.bdf"),
            "ttf": _convert("bdf", "ttf"),
            "pcf": b64_import(tmp_path / "pixel.pcf"),
            "back": _convert("pcf", "bdf", filename="back.bdf"),
            "export": {"operation": "export/url", "input": ["ttf", "back"]},
        },
    )
    files = download_all(job, tmp_path / "out")
    with TTFont(files["pixel.ttf"]) as font:
        assert "EBDT" in font
        assert "Q" in font.getGlyphOrder()
        assert font["name"].getDebugName(1) == "Quokka Pixel"
        strike = font["EBDT"].strikeData[0]
        assert strike["Q"].imageData  # the bitmap came through
    back = files["back.bdf"].read_text()
    assert back.startswith("STARTFONT")
    assert "STARTCHAR Q" in back
    rows = back.split("STARTCHAR Q", 1)[1].split("BITMAP", 1)[1].split("ENDCHAR", 1)[0].split()
    assert [int(row, 16) for row in rows] == [0x3C, 0x42, 0x81, 0x81, 0x89, 0x46, 0x3D, 0x00][: len(rows)]


def test_ttx_both_ways_and_collections_unpacked(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("fonttools", "convert", "ttc", "ttf")
    fontforge = engine_program("fontforge", "fontforge")  # writes the collections
    (tmp_path / "hand.ttx").write_text(ttx_text())
    box_ttf(tmp_path / "member.ttf")
    ttc_font(tmp_path / "member.ttf", fontforge=fontforge)(tmp_path / "pair.ttc")
    ttc_font(tmp_path / "member.ttf", cff=True, fontforge=fontforge)(tmp_path / "cubic.otc")
    dfont_font(tmp_path / "member.ttf", fontforge=fontforge)(tmp_path / "suitcase.dfont")
    job = run_job(
        client,
        {
            "ttx": b64_import(tmp_path / "hand.ttx"),
            "ttf": _convert("ttx", "ttf"),
            "dump": _convert("ttf", "ttx", filename="dump.ttx"),
            "ttc": b64_import(tmp_path / "pair.ttc"),
            "all": _convert("ttc", "woff"),
            "second": _convert("ttc", "otf", font_number=2),
            "otc": b64_import(tmp_path / "cubic.otc"),
            "first": _convert("otc", "ttf", font_number=1),
            "dfont": b64_import(tmp_path / "suitcase.dfont"),
            "mac": _convert("dfont", "woff2"),
            "export": {"operation": "export/url", "input": ["ttf", "dump", "all", "second", "first", "mac"]},
        },
    )
    assert task_named(job, "all")["engine"] == "fonttools"
    files = download_all(job, tmp_path / "out")
    assert _q_bounds(files["hand.ttf"]) == (80, 0, 620, 700)
    assert '<TTGlyph name="Q"' in files["dump.ttx"].read_text()
    assert sorted(name for name in files if name.endswith(".woff")) == ["pair-1.woff", "pair-2.woff"]
    with TTFont(files["pair.otf"]) as second:
        assert "CFF " in second
        assert _q_bounds(files["pair.otf"]) == (80, 0, 620, 700)
    with TTFont(files["cubic.ttf"]) as first:  # a CFF member of the otc, its outlines made TrueType
        assert "glyf" in first
        assert "CFF " not in first
    assert _q_bounds(files["cubic.ttf"]) == (80, 0, 620, 700)
    assert _q_bounds(files["suitcase.woff2"]) == (80, 0, 620, 700)  # the suitcase's one font


def test_wrong_font_and_missing_member_are_the_callers_mistakes(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("fontforge", "convert", "pfb", "ttf")
    (tmp_path / "drawn.pfb").write_text(SFD)  # an sfd sent as pfb: FontForge would read it as sfd
    box_ttf(tmp_path / "one.ttf")
    job = run_job(
        client,
        {
            "pfb": b64_import(tmp_path / "drawn.pfb"),
            "ttf": _convert("pfb", "ttf"),
            "ttx": b64_import(tmp_path / "one.ttf", "one.ttx"),
            "back": _convert("ttx", "ttf"),
        },
    )
    wrong = task_named(job, "ttf")
    assert (wrong["code"], wrong["message"]) == (
        "INVALID_INPUT_FILE",
        "drawn.pfb is not a pfb font (its first bytes are not)",
    )
    assert task_named(job, "back")["code"] == "INVALID_INPUT_FILE"
