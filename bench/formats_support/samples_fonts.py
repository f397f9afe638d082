"""Seeds of the fonts family (issue 47), none made by the engine that reads them: the writers live with
the tests (tests/font_samples.py: Type 1 by t1utils, sfd, bdf and ttx by hand, pcf by bdftopcf, Type 42
around the ttf seed, a ttc, an otc and a dfont by FontForge), which bench/formats.py puts on the path.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from font_samples import BDF, SFD, bare_cff, dfont_font, pcf_font, t42_font, ttc_font, ttx_text, type1_font

__all__ = ["font_seeds"]


def font_seeds(directory: Path, wanted: set[str], make_ttf: Callable[[Path], None]) -> dict[str, Path]:
    """Write the seed of every format in ``wanted`` this module makes; format -> path. ``make_ttf``
    writes the bench's ttf seed (fontTools), which the t42 and the ttc are made of."""
    seeds: dict[str, Callable[[Path], None]] = {
        "pfa": type1_font(binary=False),
        "pfb": type1_font(binary=True),
        "sfd": lambda path: path.write_text(SFD),
        "bdf": lambda path: path.write_text(BDF),
        "pcf": pcf_font,
        "cff": bare_cff,
        "ttx": lambda path: path.write_text(ttx_text()),
    }
    if wanted & {"t42", "ttc", "otc", "dfont"}:
        ttf = directory / "font-source.ttf"
        make_ttf(ttf)
        seeds.update(
            {
                "t42": t42_font(ttf),
                "ttc": ttc_font(ttf),
                "otc": ttc_font(ttf, cff=True),
                "dfont": dfont_font(ttf),
            }
        )
    made: dict[str, Path] = {}
    for fmt, make in seeds.items():
        if fmt in wanted:
            made[fmt] = directory / f"sample.{fmt}"
            make(made[fmt])
    return made
