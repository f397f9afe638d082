"""ffmpeg, ffprobe and the command sandbox through the service, checked with ffprobe on the results."""

from __future__ import annotations

import json
import logging
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from engine_job_helpers import ASSETS, b64_import, download_all, run_job, task_named
from PIL import Image

from engine_needs import engine_program
from mcv_pipelines.service.engines.base import Engine
from mcv_pipelines.service.server import LocalService

RequireEngine = Callable[..., Engine]


def probe(path: Path) -> dict[str, Any]:
    out = subprocess.run(
        [
            engine_program("ffmpeg", "ffprobe"),
            "-v", "error", "-show_format", "-show_streams", "-of", "json", str(path),
        ],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    data: dict[str, Any] = json.loads(out)
    return data


def codecs(info: dict[str, Any]) -> dict[str, str]:
    return {s["codec_type"]: s["codec_name"] for s in info["streams"]}


def test_audio_and_video_conversions(
    require_engine: RequireEngine, client: httpx.Client, clip: Path, tmp_path: Path
) -> None:
    require_engine("ffmpeg")
    job = run_job(
        client,
        {
            "tone": b64_import(ASSETS / "tone.wav"),
            "clip": b64_import(clip),
            "mp3": {"operation": "convert", "input": "tone", "output_format": "mp3", "audio_bitrate": 64},
            "webm": {"operation": "convert", "input": "clip", "output_format": "webm", "crf": 40},
            "export": {"operation": "export/url", "input": ["mp3", "webm"]},
        },
    )
    files = download_all(job, tmp_path)
    mp3 = probe(files["tone.mp3"])
    assert codecs(mp3) == {"audio": "mp3"}
    wav_seconds = float(probe(ASSETS / "tone.wav")["format"]["duration"])
    assert abs(float(mp3["format"]["duration"]) - wav_seconds) < 0.15
    webm = probe(files["clip.webm"])
    assert codecs(webm) == {"video": "vp9", "audio": "opus"}
    assert abs(float(webm["format"]["duration"]) - 1.0) < 0.2
    video = next(s for s in webm["streams"] if s["codec_type"] == "video")
    assert (video["width"], video["height"]) == (128, 96)


def test_video_thumbnail_at_a_timestamp_and_ffprobe_metadata(
    require_engine: RequireEngine, client: httpx.Client, clip: Path, tmp_path: Path
) -> None:
    require_engine("ffmpeg")
    job = run_job(
        client,
        {
            "clip": b64_import(clip),
            "poster": {
                "operation": "thumbnail", "input": "clip", "output_format": "png",
                "timestamp": "00:00:00.5", "width": 64,
            },
            "info": {"operation": "metadata", "input": "clip"},
            "still": {
                "operation": "thumbnail", "input": "clip", "output_format": "JPEG", "filename": "still.jpg",
            },
            "export": {"operation": "export/url", "input": ["poster", "still"]},
        },
    )  # fmt: skip
    files = download_all(job, tmp_path)
    with Image.open(files.pop("still.jpg")) as still:
        assert still.format == "JPEG"  # "JPEG" as written by a user is the listing's jpg
    [poster] = files.values()
    with Image.open(poster) as image:
        assert image.format == "PNG"
        assert image.size == (64, 48)
        assert len(image.convert("RGB").getcolors(maxcolors=1 << 16) or ()) > 4  # a real frame
    metadata = task_named(job, "info")["result"]["metadata"]
    assert metadata, "ffprobe metadata is empty"
    assert metadata["format"]["filename"] == "clip.mp4"  # not its path inside the service
    flat = json.dumps(metadata).lower()
    assert "h264" in flat, metadata
    assert "aac" in flat, metadata


def test_ffmpeg_command_with_mapped_paths_and_captured_output(
    require_engine: RequireEngine, client: httpx.Client, clip: Path, tmp_path: Path
) -> None:
    require_engine("ffmpeg")
    job = run_job(
        client,
        {
            "clip": b64_import(clip),
            "cut": {
                "operation": "command", "input": "clip", "engine": "ffmpeg", "command": "ffmpeg",
                "arguments": "-hide_banner -nostdin -i /input/clip/clip.mp4 -t 0.5 -an -c:v libx264 "
                "/output/half.mp4 -vn -c:a libmp3lame /output/sound.mp3",
                "capture_output": True,
            },
            "export": {"operation": "export/url", "input": "cut"},
        },
    )  # fmt: skip
    result = task_named(job, "cut")["result"]
    assert "/input/clip/clip.mp4" in result["output"]  # ffmpeg's own log, paths as the user wrote them
    sizes = {f["filename"]: f.get("size") for f in result["files"]}
    files = download_all(job, tmp_path)
    assert sizes == {name: path.stat().st_size for name, path in files.items()}
    assert set(sizes) == {"half.mp4", "sound.mp3"}
    assert abs(float(probe(files["half.mp4"])["format"]["duration"]) - 0.5) < 0.15
    assert codecs(probe(files["sound.mp3"])) == {"audio": "mp3"}


def test_imagemagick_command_converts(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("imagemagick")
    job = run_job(
        client,
        {
            "logo": b64_import(ASSETS / "logo.png"),
            "resize": {
                "operation": "command", "input": "logo", "engine": "imagemagick", "command": "convert",
                "arguments": "/input/logo/logo.png -resize 50% /output/half.jpg",
            },
            "export": {"operation": "export/url", "input": "resize"},
        },
    )  # fmt: skip
    files = download_all(job, tmp_path)
    with Image.open(files["half.jpg"]) as image:
        assert (image.format, image.size) == ("JPEG", (128, 128))


def test_commands_reaching_outside_fail_the_task_and_the_service_goes_on(
    require_engine: RequireEngine, client: httpx.Client, clip: Path
) -> None:
    require_engine("ffmpeg")
    attempts = {
        "passwd": {
            "engine": "ffmpeg", "command": "ffmpeg",
            "arguments": "-nostdin -f data -i /etc/passwd -map 0 -c copy -f data /output/passwd.txt",
        },
    }  # fmt: skip
    # A program outside the allowed list is refused when the job is created (422 naming the field, as
    # the OpenAPI document says), before anything runs.
    refused = client.post(
        "/v2/jobs",
        json={"tasks": {"clip": b64_import(clip), "other": {
            "operation": "command", "input": "clip", "engine": "ffmpeg", "command": "sh",
            "arguments": "-c 'cat /etc/passwd'",
        }}},
    )  # fmt: skip
    assert refused.status_code == 422, refused.text
    assert "tasks.other.command" in refused.json()["errors"]
    assert "root:" not in refused.text
    for name, options in attempts.items():
        job = run_job(
            client, {"clip": b64_import(clip), name: {"operation": "command", "input": "clip", **options}}
        )
        task = task_named(job, name)
        assert job["status"] == "error"
        assert task["status"] == "error"
        assert task["code"], task
        assert task["message"], task
        assert "root:" not in json.dumps(task)
    assert client.get("/v2/users/me").status_code == 200


def test_a_failing_command_says_why_without_the_banner(
    require_engine: RequireEngine, client: httpx.Client, clip: Path
) -> None:
    require_engine("ffmpeg")
    tasks = {
        "clip": b64_import(clip),
        "cut": {
            "operation": "command", "input": "clip", "engine": "ffmpeg", "command": "ffmpeg",
            "arguments": "-i /input/clip/missing.mp4 /output/out.mp4",
        },
    }  # fmt: skip
    task = task_named(run_job(client, tasks), "cut")
    assert task["code"] == "COMMAND_FAILED"
    assert "/input/clip/missing.mp4: No such file or directory" in task["message"]
    assert "libav" not in task["message"]
    assert "configuration:" not in task["message"]


def test_a_timed_out_encode_is_a_timeout_and_no_crash(
    require_engine: RequireEngine, clip: Path, caplog: pytest.LogCaptureFixture, tmp_path: Path
) -> None:
    require_engine("ffmpeg")
    slow = {
        "operation": "convert", "input": "clip", "output_format": "webm", "video_codec": "av1",
        "preset": "veryslow", "width": 1920, "timeout": 1,
    }  # fmt: skip
    # A service of its own: stopping it waits for its worker threads, so the stopped encoder's thread,
    # which winds down after the task has ended, has logged whatever it logs once the block is left.
    with (
        caplog.at_level(logging.ERROR),
        LocalService(data_dir=tmp_path / "data") as svc,
        httpx.Client(
            base_url=svc.base_url, timeout=120.0, headers={"Authorization": f"Bearer {svc.api_key}"}
        ) as client,
    ):
        job = run_job(client, {"clip": b64_import(clip), "slow": slow})
        assert client.get("/v2/users/me").status_code == 200
    task = task_named(job, "slow")
    assert task["code"] == "TIMEOUT"
    assert "1 seconds" in task["message"]
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text
