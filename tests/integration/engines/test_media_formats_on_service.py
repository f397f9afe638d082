"""The containers and animations added to the ffmpeg engine (issue 23), through the service."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
from engine_job_helpers import b64_import, download_all, run_job, task_named
from PIL import Image
from test_media_engines_on_service import codecs, probe

from mcv_pipelines.service.engines.base import Engine

RequireEngine = Callable[..., Engine]


def _convert(source: str, target: str, **options: object) -> dict[str, object]:
    return {"operation": "convert", "input": source, "output_format": target, **options}


def test_video_to_gif_and_back(
    require_engine: RequireEngine, client: httpx.Client, clip: Path, tmp_path: Path
) -> None:
    require_engine("ffmpeg", "convert", "mp4", "gif")
    require_engine("ffmpeg", "convert", "gif", "mp4")
    job = run_job(
        client,
        {
            "clip": b64_import(clip),
            "gif": _convert("clip", "gif", fps=10, width=64),
            "mp4": _convert("gif", "mp4"),
            "export": {"operation": "export/url", "input": ["gif", "mp4"]},
        },
    )
    assert task_named(job, "gif")["engine"] == "ffmpeg"
    files = download_all(job, tmp_path)
    with Image.open(files["clip.gif"]) as gif:
        assert gif.format == "GIF"
        assert gif.size == (64, 48)
        assert gif.n_frames == 10  # one second at 10 fps
    back = probe(files["clip.mp4"])
    assert codecs(back) == {"video": "h264"}  # a gif has no sound to carry over
    assert abs(float(back["format"]["duration"]) - 1.0) < 0.2


def test_older_containers(
    require_engine: RequireEngine, client: httpx.Client, clip: Path, tmp_path: Path
) -> None:
    for target in ("avi", "ogv", "wma"):
        require_engine("ffmpeg", "convert", "mp4", target)
    job = run_job(
        client,
        {
            "clip": b64_import(clip),
            **{t: _convert("clip", t) for t in ("avi", "ogv", "wma")},
            "export": {"operation": "export/url", "input": ["avi", "ogv", "wma"]},
        },
    )
    files = download_all(job, tmp_path)
    assert codecs(probe(files["clip.avi"])) == {"video": "mpeg4", "audio": "mp3"}
    assert codecs(probe(files["clip.ogv"])) == {"video": "theora", "audio": "vorbis"}
    assert codecs(probe(files["clip.wma"])) == {"audio": "wmav2"}


def test_broadcast_and_telephone_formats(
    require_engine: RequireEngine, client: httpx.Client, clip: Path, tmp_path: Path
) -> None:
    """Issue 23, breadth: MXF as broadcasters exchange it (MPEG-2 video, 48 kHz PCM), GSM at the 8 kHz
    mono a telephone line carries, and an MXF read back into MP4."""
    for source, target in (("mp4", "mxf"), ("mp4", "gsm"), ("mxf", "mp4")):
        require_engine("ffmpeg", "convert", source, target)
    job = run_job(
        client,
        {
            "clip": b64_import(clip),
            "mxf": _convert("clip", "mxf"),
            "gsm": _convert("clip", "gsm"),
            "back": _convert("mxf", "mp4"),
            "export": {"operation": "export/url", "input": ["mxf", "gsm", "back"]},
        },
    )
    files = download_all(job, tmp_path)
    # MXF carries a timecode track (a data stream without a codec), and the MP4 made of it keeps it
    assert _media(probe(files["clip.mxf"])) == {"video": "mpeg2video", "audio": "pcm_s16le"}
    assert {s["sample_rate"] for s in probe(files["clip.mxf"])["streams"] if s["codec_type"] == "audio"} == {
        "48000"
    }
    gsm = probe(files["clip.gsm"])
    assert codecs(gsm) == {"audio": "gsm"}
    assert (gsm["streams"][0]["sample_rate"], gsm["streams"][0]["channels"]) == ("8000", 1)
    assert _media(probe(files["clip.mp4"])) == {"video": "h264", "audio": "aac"}


def _media(info: dict[str, Any]) -> dict[str, str]:
    return {s["codec_type"]: s["codec_name"] for s in info["streams"] if s["codec_type"] != "data"}
