"""MATLAB level 5 MAT-files through the service (ImageMagick reads them; its own MAT writer is broken in
Debian's build, so mat is an input only). The samples are written by hand (tests/mat_samples.py): little-
and big-endian, and compressed as MATLAB 7 saves. A header claiming billions of pixels is refused from
the header, which is read here because ImageMagick cannot ping a MAT-file."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import httpx
from engine_job_helpers import b64_import, download_all, run_job, task_named
from PIL import Image

from mat_samples import mat_bytes
from mcv_pipelines.service.engines.base import Engine

RequireEngine = Callable[..., Engine]

_ROWS = [[(220, 30, 30) if x < 7 else ((20, 40, 200) if y < 3 else (10, 180, 60)) for x in range(11)]
         for y in range(6)]  # fmt: skip


def _pixels(path: Path) -> list[list[tuple[int, int, int]]]:
    with Image.open(path) as image:
        rgb = image.convert("RGB")
        return [[rgb.getpixel((x, y)) for x in range(rgb.width)] for y in range(rgb.height)]  # type: ignore[misc]  # RGB: tuples


def test_mat_files_become_pictures_with_their_pixels(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("imagemagick", "convert", "mat", "png")
    samples = {
        "plain": mat_bytes(_ROWS),
        "packed": mat_bytes(_ROWS, compressed=True),
        "motorola": mat_bytes(_ROWS, order=">"),
    }
    tasks: dict[str, object] = {}
    for name, data in samples.items():
        (tmp_path / f"{name}.mat").write_bytes(data)
        tasks[name] = b64_import(tmp_path / f"{name}.mat")
        tasks[f"{name}-png"] = {"operation": "convert", "input": name, "output_format": "png"}
    tasks["plain-webp"] = {"operation": "convert", "input": "plain", "output_format": "webp", "quality": 100}
    names = [f"{name}-png" for name in samples] + ["plain-webp"]
    job = run_job(client, {**tasks, "export": {"operation": "export/url", "input": names}})
    assert {task_named(job, name)["engine"] for name in names} == {"imagemagick"}
    files = download_all(job, tmp_path / "out")
    for name in samples:
        assert _pixels(files[f"{name}.png"]) == _ROWS, name
    with Image.open(files["plain.webp"]) as webp:
        assert (webp.format, webp.size) == ("WEBP", (11, 6))


def test_a_mat_claiming_billions_of_pixels_or_none_is_refused_by_name(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("imagemagick", "convert", "mat", "png")
    samples = {
        "huge.mat": mat_bytes(_ROWS, declared=(200_000, 150_000)),
        "huge-packed.mat": mat_bytes(_ROWS, compressed=True, declared=(200_000, 150_000)),
        "notes.mat": b"MATLAB? no: a text file someone named .mat\n" * 4,
    }
    tasks: dict[str, object] = {}
    for index, (name, data) in enumerate(samples.items()):
        (tmp_path / name).write_bytes(data)
        tasks[f"in{index}"] = b64_import(tmp_path / name)
        tasks[f"png{index}"] = {"operation": "convert", "input": f"in{index}", "output_format": "png"}
    job = run_job(client, tasks)
    failed = {name: task_named(job, f"png{index}") for index, name in enumerate(samples)}
    assert {task["status"] for task in failed.values()} == {"error"}
    assert {task["code"] for task in failed.values()} == {"INVALID_INPUT_FILE"}
    for name in ("huge.mat", "huge-packed.mat"):
        assert f"{name} is 200000x150000 pixels" in failed[name]["message"], failed[name]["message"]
    assert "notes.mat is no MATLAB image" in failed["notes.mat"]["message"], failed["notes.mat"]["message"]
