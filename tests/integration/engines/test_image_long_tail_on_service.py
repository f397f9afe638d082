"""The image long tail through the service: Pillow's own formats beyond the everyday ones (Targa,
JPEG 2000, netpbm ...) and ImageMagick's (PICT, XWD, Radiance HDR ...), each listed by the engine that
really converts it, with Pillow the default wherever it does a pair."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import httpx
from engine_job_helpers import ASSETS, b64_import, download_all, run_job, task_named
from PIL import Image

from engine_needs import engine_program
from mcv_pipelines.service.engines.base import Engine

RequireEngine = Callable[..., Engine]


def _convert(source: str, target: str) -> dict[str, object]:
    return {"operation": "convert", "input": source, "output_format": target}


def _photo_size() -> tuple[int, int]:
    with Image.open(ASSETS / "photo.jpg") as photo:
        return photo.size


def test_pillow_writes_and_reads_targa_and_jpeg2000(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("pillow", "convert", "tga", "jp2")
    job = run_job(
        client,
        {
            "photo": b64_import(ASSETS / "photo.jpg"),
            "tga": _convert("photo", "tga"),
            "jp2": _convert("tga", "jp2"),
            "export": {"operation": "export/url", "input": ["tga", "jp2"]},
        },
    )
    assert {task_named(job, name)["engine"] for name in ("tga", "jp2")} == {"pillow"}
    files = download_all(job, tmp_path)
    for name, kind in (("photo.tga", "TGA"), ("photo.jp2", "JPEG2000")):
        with Image.open(files[name]) as image:
            assert (image.format, image.size) == (kind, _photo_size())


def test_imagemagick_writes_and_reads_pict(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("imagemagick", "convert", "pict", "png")
    job = run_job(
        client,
        {
            "photo": b64_import(ASSETS / "photo.jpg"),
            "pict": _convert("photo", "pict"),
            "png": _convert("pict", "png"),
            "export": {"operation": "export/url", "input": ["pict", "png"]},
        },
    )
    assert {task_named(job, name)["engine"] for name in ("pict", "png")} == {"imagemagick"}
    files = download_all(job, tmp_path)
    found = subprocess.run(
        [engine_program("imagemagick", "identify"), "-format", "%m %w %h", f"PICT:{files['photo.pict']}"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert found.split() == ["PICT", *map(str, _photo_size())]
    with Image.open(files["photo.png"]) as png:
        assert png.size == _photo_size()
        # the photo's top-left corner survives the trip (PICT keeps 8 bits a channel)
        with Image.open(ASSETS / "photo.jpg") as photo:
            before = photo.convert("RGB").getpixel((2, 2))
        after = png.convert("RGB").getpixel((2, 2))
        assert isinstance(before, tuple)
        assert isinstance(after, tuple)
        assert max(abs(a - b) for a, b in zip(before, after, strict=True)) < 24


def test_pillow_stays_the_default_where_both_convert(
    require_engine: RequireEngine, client: httpx.Client
) -> None:
    require_engine("pillow", "convert", "tga", "png")
    require_engine("imagemagick", "convert", "pict", "png")
    listing = client.get(
        "/v2/operations", params={"filter[operation]": "convert", "alternatives": "true"}
    ).json()["data"]
    engines: dict[tuple[str, str], list[str]] = {}
    for entry in listing:
        engines.setdefault((entry["input_format"], entry["output_format"]), []).append(entry["engine"])
    assert engines[("tga", "png")] == ["pillow"]  # ImageMagick lists nothing Pillow converts
    assert engines[("pict", "png")] == ["imagemagick"]
    assert engines[("tga", "pict")] == ["imagemagick"]
