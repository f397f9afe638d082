"""Pure logic of issue 47's vector engines: XFig picture names blanked, SVGZ bytes deterministic, the
listing of pstoedit, fig2dev and Potrace's new backends (without running them)."""

from __future__ import annotations

import gzip
from pathlib import Path

from mcv_pipelines.service.engines.vector.figures import MISSING_PICTURE, without_pictures
from mcv_pipelines.service.engines.vector.svgz import compress_svg, svg_kind

HEAD = "#FIG 3.2\nLandscape\nCenter\nInches\nLetter\n100.00\nSingle\n-2\n1200 2\n"
PICTURE = "2 5 0 1 0 -1 40 -1 -1 0.000 0 0 -1 0 0 5\n"
POINTS = "\t 0 0 1200 0 1200 1200 0 1200 0 0\n"


def test_a_picture_name_is_blanked_and_the_rest_kept() -> None:
    drawing = HEAD + PICTURE + "\t1 /etc/passwd\n" + POINTS + "4 0 0 30 -1 16 18 0.0 4 240 900 0 0 Hi\\001\n"
    blanked = without_pictures(drawing)
    assert "/etc/passwd" not in blanked
    assert f"\t1 {MISSING_PICTURE}\n" in blanked  # the flipped flag kept, indentation too
    assert blanked.replace(f"1 {MISSING_PICTURE}", "1 /etc/passwd") == drawing


def test_comments_between_a_picture_and_its_name_and_crlf_lines() -> None:
    drawing = (HEAD + PICTURE + "# a comment\n" + "0 ../../../../etc/shadow\n" + POINTS).replace("\n", "\r\n")
    blanked = without_pictures(drawing)
    assert "shadow" not in blanked
    assert f"0 {MISSING_PICTURE}\r\n" in blanked
    assert "# a comment\r\n" in blanked


def test_a_drawing_without_pictures_is_unchanged() -> None:
    drawing = HEAD + "2 2 0 1 0 1 50 -1 20 0.000 0 0 -1 0 0 5\n" + POINTS
    assert without_pictures(drawing) == drawing


def test_svgz_is_the_same_bytes_for_the_same_svg(tmp_path: Path) -> None:
    svg = b'<svg xmlns="http://www.w3.org/2000/svg"><rect width="1" height="1"/></svg>'
    made = []
    for name in ("a", "b"):
        (tmp_path / f"{name}.svg").write_bytes(svg)
        made.append(compress_svg(tmp_path / f"{name}.svg", tmp_path / f"{name}.svgz").read_bytes())
        assert not (tmp_path / f"{name}.svg").exists()
    assert made[0] == made[1]
    assert made[0][4:8] == b"\0\0\0\0"  # mtime 0
    assert gzip.decompress(made[0]) == svg
    assert svg_kind("svgz") == "svg"
    assert svg_kind("dxf") == "dxf"
