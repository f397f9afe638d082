"""Hostile files of the camera raw, medical and HDR family (issue 47), under bubblewrap and Landlock as
the other hostile cases (test_hostile_files_see_only_their_task.py, whose fixtures and helpers these
use): headers (DICOM, EXR, DNG, JPEG-LS) claiming a picture of 60000x60000 pixels over a few bytes of
data are refused from the header, before a pixel is decoded (in a second or two, so no decoder
allocated gigabytes first); a truncated raw fails with LibRaw's cause; an OpenRaster file whose layers
name files outside it (the planted secrets, ``../`` names, an XML entity) converts without them or
fails, saying none of them.
"""

from __future__ import annotations

import io
import struct
import time
import zipfile
from collections.abc import Callable
from pathlib import Path

import httpx
from PIL import Image
from planted_secrets import Planted
from test_hostile_files_see_only_their_task import (  # the fixtures too: the same seals, the same secrets
    Outcome,
    assert_nothing_out,
    convert,
    sealing,
    secrets,
)

from mcv_pipelines.service.engines.base import Engine
from raw_samples import BIG_SIDE, dicom_bytes, dng_bytes, exr_bytes

__all__ = ["sealing", "secrets"]  # pytest finds fixtures by their names in this module

RequireEngine = Callable[..., Engine]
_HUGE = f"{BIG_SIDE}x{BIG_SIDE}"


def _huge_jpegls() -> bytes:
    """A JPEG-LS frame header (SOF55) claiming BIG_SIDE x BIG_SIDE, three components, and no scan."""
    components = b"".join(bytes((index, 0x11, 0)) for index in (1, 2, 3))
    return (
        b"\xff\xd8\xff\xf7"
        + struct.pack(">HBHHB", 8 + len(components), 8, BIG_SIDE, BIG_SIDE, 3)
        + components
        + b"\xff\xd9"
    )


def _refused_quickly(client: httpx.Client, tmp_path: Path, name: str, data: bytes) -> Outcome:
    started = time.monotonic()
    outcome = convert(client, tmp_path, name, data, {"operation": "convert", "output_format": "png"})
    assert time.monotonic() - started < 20  # from the header: no decoder ran to a memory limit
    assert outcome.status == "error", outcome
    assert outcome.message.startswith("INVALID_INPUT_FILE: "), outcome.message
    return outcome


def test_headers_claiming_a_huge_picture_are_refused_before_decoding(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path, secrets: Planted
) -> None:
    require_engine("dcmtk", "convert", "dcm", "png")
    require_engine("openexr", "convert", "exr", "png")
    require_engine("libraw", "convert", "dng", "png")
    require_engine("jpegls", "convert", "jls", "png")
    outcomes = {
        "dcm": _refused_quickly(client, tmp_path, "huge.dcm", dicom_bytes(frames=1, claim=BIG_SIDE)),
        "exr": _refused_quickly(client, tmp_path, "huge.exr", exr_bytes(claim=BIG_SIDE)),
        "dng": _refused_quickly(client, tmp_path, "huge.dng", dng_bytes(claim=BIG_SIDE)),
        "jls": _refused_quickly(client, tmp_path, "huge.jls", _huge_jpegls()),
    }
    for fmt, outcome in outcomes.items():
        assert f"huge.{fmt}" in outcome.message
        assert _HUGE in outcome.message, outcome.message
        assert "more than" in outcome.message
    frames = _refused_quickly(client, tmp_path, "frames.dcm", dicom_bytes(frames=1, claim_frames=99999))
    assert "99999 frame(s) of 96x64 pixels" in frames.message
    assert_nothing_out(outcomes, secrets)


def test_truncated_raw_fails_with_its_cause(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path, secrets: Planted
) -> None:
    require_engine("libraw", "convert", "dng", "png")
    outcome = convert(client, tmp_path, "cut.dng", dng_bytes()[:2000], {"operation": "convert",
                      "output_format": "png"})  # fmt: skip
    assert outcome.status == "error"
    assert outcome.message.startswith("INVALID_INPUT_FILE: LibRaw could not develop cut.dng"), outcome.message
    assert "Unexpected end of file" in outcome.message
    assert_nothing_out({"cut.dng": outcome}, secrets)


def _ora(layers: list[str], doctype: str = "") -> bytes:
    stack = (
        f'<?xml version="1.0"?>{doctype}<image w="48" h="48"><stack>'
        + "".join(f'<layer src="{source}" x="0" y="0"/>' for source in layers)
        + '<layer src="data/ground.png" x="0" y="0"/></stack></image>'
    )
    ground = io.BytesIO()
    Image.new("RGB", (48, 48), (255, 255, 255)).save(ground, "PNG")
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("mimetype", "image/openraster")
        archive.writestr("stack.xml", stack)
        archive.writestr("data/ground.png", ground.getvalue())
    return out.getvalue()


def test_openraster_layers_naming_files_outside_it_are_not_read(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path, secrets: Planted
) -> None:
    require_engine("openraster", "convert", "ora", "png")
    outside = [str(path) for path in secrets.pictures.values()]
    outside += [f"../../../../..{path}" for path in secrets.pictures.values()]
    outside += [f"file://{path}" for path in secrets.pictures.values()]
    entity = f'<!DOCTYPE image [<!ENTITY secret SYSTEM "file://{secrets.text["tmp"]}">]>'
    outcomes = {
        "layers": convert(client, tmp_path / "layers", "outside.ora", _ora(outside), {"operation": "convert",
                          "output_format": "png"}),
        "entity": convert(client, tmp_path / "entity", "entity.ora", _ora(["&secret;"], entity),
                          {"operation": "convert", "output_format": "png"}),
    }  # fmt: skip
    layers = outcomes["layers"]
    assert layers.status == "finished", layers.message
    with Image.open(io.BytesIO(layers.output[layers.output.index(b"\x89PNG") :])) as png:
        colours = png.convert("RGB").getcolors()
    assert colours == [(48 * 48, (255, 255, 255))]  # only the ground: no secret's colour
    assert outcomes["entity"].status == "error"
    assert "DTD" in outcomes["entity"].message
    assert_nothing_out(outcomes, secrets)
