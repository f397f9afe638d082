"""Hostile pictures of issue 47's second image wave, under bubblewrap and Landlock (the planted
secrets of the hostile suite): a WPG whose PostScript records (which ImageMagick hands to the reader
their first bytes name: Ghostscript, blocked, or the SVG reader) read a secret file or paint a secret
picture, and a header of every new format that claims billions of pixels. Each fails clearly or
converts without the outside content, quickly and without allocating the picture it claims."""

from __future__ import annotations

import struct
import time
from collections.abc import Callable
from pathlib import Path

import httpx
from planted_secrets import Planted
from test_hostile_files_see_only_their_task import (  # the planted secrets under both seals
    Outcome,
    assert_nothing_out,
    convert,
    sealing,
    secrets,
)

from imgx_samples import IMGX_FORMATS, huge, write_sample
from mcv_pipelines.service.engines.base import Engine

__all__ = ["sealing", "secrets"]  # fixtures of the hostile suite, used here by name

RequireEngine = Callable[..., Engine]
_ENGINE = {"fli": "pillow", "flc": "pillow", "spi": "pillow", "rle": "imagemagick", "wpg": "imagemagick"}


def _wpg_embedding(picture: bytes, payload: bytes) -> bytes:
    """The WPG sample ``picture`` with a PostScript record (0x11) holding ``payload`` (after the
    record's 8-byte prefix) before its end record."""
    body = bytes(8) + payload
    assert picture.endswith(bytes((0x10, 0)))
    return picture[:-2] + bytes((0x11, 0xFF)) + struct.pack("<H", len(body)) + body + bytes((0x10, 0))


def _reaching_out(secrets: Planted, tmp_path: Path) -> dict[str, bytes]:
    picture = write_sample("wpg", tmp_path / "sample.wpg").read_bytes()
    cases = {}
    for place, path in secrets.text.items():
        program = (
            "%!PS\n/Courier findfont 10 scalefont setfont 10 10 moveto "
            f"({path}) (r) file 80 string readstring pop show showpage\n"
        )
        cases[f"ps-{place}.wpg"] = _wpg_embedding(picture, program.encode())
    for place, path in secrets.pictures.items():
        svg = (
            '<svg xmlns="http://www.w3.org/2000/svg" width="48" height="48">'
            f'<image href="{path.as_uri()}" width="48" height="48"/></svg>'
        )
        cases[f"svg-{place}.wpg"] = _wpg_embedding(picture, svg.encode())
    return cases


def test_a_wpg_reads_nothing_outside_its_task(
    secrets: Planted, require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("imagemagick", "convert", "wpg", "png")
    outcomes: dict[str, Outcome] = {}
    for name, data in _reaching_out(secrets, tmp_path).items():
        task = {"operation": "convert", "output_format": "png"}
        outcomes[name] = convert(client, tmp_path / name, name, data, task)
    assert_nothing_out(outcomes, secrets)
    # this ImageMagick refuses a WPG with a PostScript record outright (improper image header)
    assert {outcome.status for outcome in outcomes.values()} == {"error"}
    assert all(outcome.message.startswith("INVALID_INPUT_FILE: ") for outcome in outcomes.values())


def test_a_header_claiming_billions_of_pixels_fails_at_once(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    outcomes: dict[str, Outcome] = {}
    started = time.monotonic()
    for fmt in IMGX_FORMATS:
        require_engine(_ENGINE[fmt], "convert", fmt, "png")
        task = {"operation": "convert", "output_format": "png"}
        outcomes[fmt] = convert(client, tmp_path / fmt, f"huge.{fmt}", huge(fmt), task)
    print({n: (o.status, o.message[:200]) for n, o in outcomes.items()})
    assert time.monotonic() - started < 20
    assert {fmt: outcome.status for fmt, outcome in outcomes.items()} == dict.fromkeys(IMGX_FORMATS, "error")
    for fmt, outcome in outcomes.items():
        assert outcome.message.startswith("INVALID_INPUT_FILE: "), (fmt, outcome.message)
        assert f"huge.{fmt}" in outcome.message, (fmt, outcome.message)
