"""Issue 47's second image wave through the service: Autodesk Animator FLI/FLC animations and SPIDER
cryo-EM images (Pillow), Utah RLE and WordPerfect WPG pictures (ImageMagick), each sample written by
hand (tests/imgx_samples.py) and each output holding the very pixels written."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import httpx
from engine_job_helpers import b64_import, download_all, run_job, task_named
from PIL import Image, ImageSequence

from engine_needs import engine_program
from imgx_samples import FLIC_FRAMES, picture, write_sample
from mcv_pipelines.service.engines.base import Engine

RequireEngine = Callable[..., Engine]


def _convert(source: str, target: str) -> dict[str, object]:
    return {"operation": "convert", "input": source, "output_format": target}


def _pixels(image: Image.Image) -> list[list[tuple[int, int, int]]]:
    rgb = image.convert("RGB")
    return [[rgb.getpixel((x, y)) for x in range(rgb.width)] for y in range(rgb.height)]  # type: ignore[misc]  # RGB: tuples


def test_an_animator_flic_becomes_a_gif_with_its_frames_and_timing(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("pillow", "convert", "fli", "gif")
    require_engine("pillow", "convert", "flc", "png")
    job = run_job(
        client,
        {
            "fli": b64_import(write_sample("fli", tmp_path / "intro.fli")),
            "flc": b64_import(write_sample("flc", tmp_path / "logo.flc")),
            "gif": _convert("fli", "gif"),
            "png": _convert("flc", "png"),
            "export": {"operation": "export/url", "input": ["gif", "png"]},
        },
    )
    assert {task_named(job, name)["engine"] for name in ("gif", "png")} == {"pillow"}
    files = download_all(job, tmp_path / "out")
    with Image.open(files["intro.gif"]) as gif:
        frames = [(_pixels(frame), frame.info.get("duration")) for frame in ImageSequence.Iterator(gif)]
    # every frame exactly as written; FLI speed 5 ticks of 1/70 s = 71 ms (GIF: 70, in 10 ms steps)
    assert [pixels for pixels, _ in frames] == [picture("fli", index) for index in range(FLIC_FRAMES)]
    assert {duration for _, duration in frames} == {70}
    with Image.open(files["logo.png"]) as png:
        assert _pixels(png) == picture("flc", 0)  # a still of an animation: its first frame


def test_spider_rle_and_wpg_become_png_with_their_pixels(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("pillow", "convert", "spi", "png")
    for fmt in ("rle", "wpg"):
        require_engine("imagemagick", "convert", fmt, "png")
    tasks: dict[str, object] = {}
    for fmt in ("spi", "rle", "wpg"):
        tasks[fmt] = b64_import(write_sample(fmt, tmp_path / f"scan.{fmt}"), f"scan-{fmt}.{fmt}")
        tasks[f"{fmt}-png"] = _convert(fmt, "png")
    job = run_job(
        client, {**tasks, "export": {"operation": "export/url", "input": ["spi-png", "rle-png", "wpg-png"]}}
    )
    assert task_named(job, "spi-png")["engine"] == "pillow"
    assert {task_named(job, f"{fmt}-png")["engine"] for fmt in ("rle", "wpg")} == {"imagemagick"}
    files = download_all(job, tmp_path / "out")
    for fmt in ("spi", "rle", "wpg"):
        with Image.open(files[f"scan-{fmt}.png"]) as png:
            # SPIDER's densities (0.25 in the box, 1.5 around it) stretched: darkest black, lightest white
            assert _pixels(png) == picture(fmt), fmt


def test_an_animator_flic_becomes_a_video_as_a_gif_does(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("ffmpeg", "convert", "flc", "mp4")
    job = run_job(
        client,
        {
            "flc": b64_import(write_sample("flc", tmp_path / "logo.flc")),
            "mp4": _convert("flc", "mp4"),
            "export": {"operation": "export/url", "input": ["mp4"]},
        },
    )
    assert task_named(job, "mp4")["engine"] == "ffmpeg"
    files = download_all(job, tmp_path / "out")
    ffprobe = engine_program("ffmpeg", "ffprobe")
    probe = subprocess.run(
        [ffprobe, "-v", "error", "-count_frames", "-of", "json", "-show_streams", str(files["logo.mp4"])],
        capture_output=True,
        check=True,
        timeout=60,
    )
    (stream,) = json.loads(probe.stdout)["streams"]  # pictures only: an animation has no sound
    assert (stream["codec_type"], stream["width"], stream["height"]) == ("video", 96, 64)
    assert int(stream["nb_read_frames"]) == FLIC_FRAMES
