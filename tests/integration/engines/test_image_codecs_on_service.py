"""libheif and libjxl through the service: HEIC and JPEG XL in and out, and the pixel guard."""

from __future__ import annotations

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
