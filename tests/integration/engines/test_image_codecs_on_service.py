"""libheif and libjxl through the service: HEIC and JPEG XL in and out, and the pixel guard: a
decompression bomb in any image format (a tiny file declaring a huge picture) fails its task with a
clear code, and the service goes on."""

from __future__ import annotations

import struct
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from engine_job_helpers import ASSETS, b64_import, download_all, run_job, task_named
from PIL import Image

from mcv_pipelines.service.engines.base import Engine

RequireEngine = Callable[..., Engine]


def _convert(source: str, target: str, **options: object) -> dict[str, object]:
    return {"operation": "convert", "input": source, "output_format": target, **options}


def _heic(client: httpx.Client, tmp_path: Path) -> Path:
    """photo.jpg encoded to HEIC by the service."""
    job = run_job(
        client,
        {
            "jpg": b64_import(ASSETS / "photo.jpg"),
            "heic": _convert("jpg", "heic", quality=60),
            "export": {"operation": "export/url", "input": ["heic"]},
        },
    )
    assert task_named(job, "heic")["engine"] == "libheif"
    path = download_all(job, tmp_path / "heic")["photo.heic"]
    assert path.read_bytes()[4:12] == b"ftypheic"
    return path


def test_heic_to_jpg_and_png(require_engine: RequireEngine, client: httpx.Client, tmp_path: Path) -> None:
    require_engine("libheif", "convert", "heic", "jpg")
    heic = _heic(client, tmp_path)
    job = run_job(
        client,
        {
            "heic": b64_import(heic),
            "jpg": _convert("heic", "jpg"),
            "png": _convert("heic", "png"),
            "export": {"operation": "export/url", "input": ["jpg", "png"]},
        },
    )
    files = download_all(job, tmp_path / "out")
    with Image.open(ASSETS / "photo.jpg") as original:
        size = original.size
    for name, kind in (("photo.jpg", "JPEG"), ("photo.png", "PNG")):
        with Image.open(files[name]) as image:
            assert image.format == kind
            assert image.size == size


def test_jpg_to_jxl_and_back(require_engine: RequireEngine, client: httpx.Client, tmp_path: Path) -> None:
    require_engine("libjxl", "convert", "jpg", "jxl")
    job = run_job(
        client,
        {
            "jpg": b64_import(ASSETS / "photo.jpg"),
            "jxl": _convert("jpg", "jxl"),
            "png": _convert("jxl", "png"),
            "export": {"operation": "export/url", "input": ["jxl", "png"]},
        },
    )
    assert task_named(job, "jxl")["engine"] == "libjxl"
    files = download_all(job, tmp_path)
    assert files["photo.jxl"].read_bytes()[:2] == b"\xff\x0a"  # a bare JPEG XL codestream
    with Image.open(files["photo.png"]) as png, Image.open(ASSETS / "photo.jpg") as original:
        assert png.size == original.size


def test_oversized_heic_fails_clearly_and_the_service_goes_on(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    require_engine("libheif", "convert", "heic", "jpg")
    heic = _heic(client, tmp_path)
    tasks = {
        "heic": b64_import(heic),
        "jpg": _convert("heic", "jpg"),
        "export": {"operation": "export/url", "input": ["jpg"]},
    }
    # the service runs in this process: a small limit makes photo.heic a bomb without a huge file
    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", 1000)
    failed = task_named(run_job(client, tasks), "jpg")
    assert failed["status"] == "error"
    assert failed["code"] == "INVALID_INPUT_FILE"
    assert "pixels" in failed["message"]
    monkeypatch.undo()
    assert task_named(run_job(client, tasks), "jpg")["status"] == "finished"


# Tiny files whose headers declare billions of pixels, one per format that can: (engine, file bytes)
_BOMBS = {
    "psd": ("pillow", b"8BPS" + struct.pack(">H6xHIIHH", 1, 3, 30000, 30000, 8, 3) + bytes(14)),
    "tga": ("pillow", struct.pack("<BBB5xHHHHBB", 0, 0, 2, 0, 0, 65535, 65535, 24, 0x20)),
    "pcx": ("pillow", struct.pack("<BBBBHHHHHH48sBBHH", 10, 5, 1, 8, 0, 0, 65534, 65534, 72, 72,
                                  bytes(48), 0, 3, 65535, 1) + bytes(58)),
    "sgi": ("pillow", struct.pack(">hbbHHHHii4s80si", 474, 0, 1, 3, 65535, 65535, 3, 0, 255, bytes(4),
                                  bytes(80), 0) + bytes(404)),
    "ppm": ("pillow", b"P6\n60000 60000\n255\n"),
    "qoi": ("pillow", b"qoif" + struct.pack(">IIBB", 60000, 60000, 3, 0)),
    "hdr": ("imagemagick", b"#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 60000 +X 60000\n"),
    # PAM is not compressed: ImageMagick finds the pixels missing before it would make room for them
    "pam": ("imagemagick", b"P7\nWIDTH 60000\nHEIGHT 60000\nDEPTH 3\nMAXVAL 255\nTUPLTYPE RGB\nENDHDR\n"),
    "miff": ("imagemagick", b"id=ImageMagick\nclass=DirectClass columns=60000 rows=60000\n\x0c\n:\x1a"),
}  # fmt: skip


@pytest.mark.parametrize("fmt", sorted(_BOMBS))
def test_a_bomb_in_a_long_tail_format_fails_clearly_and_the_service_goes_on(
    fmt: str,
    require_engine: RequireEngine,
    require_conversion: RequireEngine,
    client: httpx.Client,
    tmp_path: Path,
) -> None:
    engine, data = _BOMBS[fmt]
    require_engine(engine, "convert", fmt, "png")
    require_conversion("convert", "jpg", fmt)  # the format still converts afterwards: some engine writes it
    bomb = tmp_path / f"bomb.{fmt}"
    bomb.write_bytes(data)
    job = run_job(client, {"in": b64_import(bomb), "png": _convert("in", "png")})
    failed = task_named(job, "png")
    assert failed["status"] == "error"
    assert failed["code"] == "INVALID_INPUT_FILE", failed
    message = failed["message"]
    assert f"bomb.{fmt}" in message
    assert ("insufficient image data" if fmt == "pam" else "pixels") in message, message
    assert "/tmp" not in message
    assert client.get("/v2/users/me").status_code == 200
    # and the same format still converts: photo.jpg written as one by the service
    ok = run_job(client, {"in": b64_import(ASSETS / "photo.jpg"), "out": _convert("in", fmt)})
    assert task_named(ok, "out")["status"] == "finished", task_named(ok, "out")
