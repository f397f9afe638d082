"""Hostile vector drawings of issue 47 read nothing outside their task, under bubblewrap, under Landlock
and unsealed (where only the engine's own care stands): PostScript's file operators through pstoedit
(Ghostscript's SAFER, which pstoedit turns on before the input runs), and XFig picture objects naming
files by absolute and ``../`` paths through fig2dev (the names are blanked before fig2dev reads them)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
import test_hostile_files_see_only_their_task as hostile
from PIL import Image
from planted_secrets import CANARY, Planted

from mcv_pipelines.service.engines.base import Engine

RequireEngine = Callable[..., Engine]
# the planted secrets and the sealing methods of the family-wide hostile cases, and how they convert
sealing, secrets = hostile.sealing, hostile.secrets
assert_nothing_out, convert = hostile.assert_nothing_out, hostile.convert

_FIG_HEAD = "#FIG 3.2\nLandscape\nCenter\nInches\nLetter\n100.00\nSingle\n-2\n1200 2\n"
_BOX = "2 2 0 1 0 1 50 -1 20 0.000 0 0 -1 0 0 5\n\t 0 0 2400 0 2400 1200 0 1200 0 0\n"


def _picture(path: str, left: int) -> str:
    """A picture object (polyline sub-type 5) showing ``path`` in a 1200-unit square at ``left``."""
    right = left + 1200
    return (
        "2 5 0 1 0 -1 40 -1 -1 0.000 0 0 -1 0 0 5\n"
        f"\t0 {path}\n"
        f"\t {left} 1500 {right} 1500 {right} 2700 {left} 2700 {left} 1500\n"
    )


def _hostile_fig(planted: Planted, eps: Path) -> str:
    names = [*map(str, planted.pictures.values()), *map(str, planted.text.values()), str(eps), "/etc/passwd"]
    names += ["../" * 12 + str(planted.pictures["tmp"]).lstrip("/")]
    body = "".join(_picture(name, 1300 * index) for index, name in enumerate(names))
    return _FIG_HEAD + _BOX + body + "4 0 0 30 -1 16 18 0.0000 4 240 900 300 700 Drawn\\001\n"


@pytest.mark.parametrize("sealing", ["bwrap", "landlock", "none"], indirect=True)
def test_pstoedit_postscript_reads_no_file_or_variable_outside(
    secrets: Planted, require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("pstoedit", "convert", "ps", "fig")
    outcomes = {
        target: convert(client, tmp_path / target, "reader.ps", hostile._postscript(secrets).encode(),
                        {"operation": "convert", "output_format": target, "engine": "pstoedit"})
        for target in ("fig", "dxf")
    }  # fmt: skip
    assert_nothing_out(outcomes, secrets)
    assert b"Page" in outcomes["fig"].output  # the program's own text came through: so would a secret


@pytest.mark.parametrize("sealing", ["bwrap", "landlock", "none"], indirect=True)
def test_fig_pictures_read_no_file_outside(
    secrets: Planted, require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("fig2dev", "convert", "fig", "eps")
    eps = tmp_path / "secret.eps"  # an EPS picture is copied into an EPS output verbatim
    eps.write_text(f"%!PS-Adobe-3.0 EPSF-3.0\n%%BoundingBox: 0 0 10 10\n% {CANARY}\nshowpage\n")
    hostile = _hostile_fig(secrets, eps).encode()
    outcomes = {
        target: convert(client, tmp_path / target, "plan.fig", hostile,
                        {"operation": "convert", "output_format": target, "engine": "fig2dev"})
        for target in ("eps", "svg", "png")
    }  # fmt: skip
    assert_nothing_out(outcomes, secrets)
    assert {outcome.status for outcome in outcomes.values()} == {"finished"}
    assert b"Drawn" in outcomes["svg"].output
    with Image.open(tmp_path / "png" / "out" / "plan.png") as png:
        colours = png.convert("RGB").getcolors(maxcolors=1 << 16) or []
    # the planted pictures are magenta-ish (200, g, 190): none of it is drawn
    assert not [rgb for _, rgb in colours if rgb[0] > 150 and rgb[2] > 150 and rgb[1] < 100]
