"""Engine programs reach nothing on the network through the service (issue 24): an input naming a
loopback address gets no request there, whether the seal (bubblewrap) holds it or, with the seal
off, the program's own restriction does (FFmpeg's protocol whitelist, ImageMagick's policy)."""

from __future__ import annotations

import base64
from collections.abc import Callable, Iterator

import httpx
import pytest
from engine_job_helpers import run_job, task_named

from engine_needs import unavailable
from loopback_listener import Tripwire
from mcv_pipelines.service.engines import seal
from mcv_pipelines.service.engines.base import Engine
from mcv_pipelines.service.engines.landlock import rules as landlock_rules

RequireEngine = Callable[..., Engine]


@pytest.fixture(params=["bwrap", "landlock", "none"])
def sealing(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, require_program: Callable[..., str]
) -> str:
    """Each case sealed by bubblewrap, by Landlock and seccomp (issue 37), and with the seal forced off
    (the program's own guard alone)."""
    name = str(request.param)
    if name == "landlock" and not landlock_rules.available():
        unavailable("Landlock or seccomp cannot be set on this machine")
    elif name not in ("none", "landlock"):
        require_program(name)
    monkeypatch.setenv(seal.FORCE_VARIABLE, name)
    return name


@pytest.fixture
def tripwire() -> Iterator[Tripwire]:
    with Tripwire() as wire:
        yield wire


def inline(name: str, content: str) -> dict[str, str]:
    return {
        "operation": "import/base64",
        "file": base64.b64encode(content.encode()).decode(),
        "filename": name,
    }


def test_an_hls_playlist_naming_loopback_fetches_nothing(
    sealing: str, require_engine: RequireEngine, client: httpx.Client, tripwire: Tripwire
) -> None:
    require_engine("ffmpeg")
    playlist = (
        "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:1\n#EXT-X-MEDIA-SEQUENCE:0\n"
        f"#EXTINF:1.0,\n{tripwire.url}/segment0.ts\n#EXTINF:1.0,\n{tripwire.url}/segment1.ts\n"
        "#EXT-X-ENDLIST\n"
    )
    job = run_job(
        client,
        {
            "list": inline("list.m3u8", playlist),
            "remux": {
                "operation": "command", "input": "list", "engine": "ffmpeg", "command": "ffmpeg",
                "arguments": "-i /input/list/list.m3u8 -c copy /output/out.mp4",
            },
        },
    )  # fmt: skip
    assert task_named(job, "remux")["status"] == "error"
    assert tripwire.hits == []


def test_a_concat_list_naming_loopback_fetches_nothing(
    sealing: str, require_engine: RequireEngine, client: httpx.Client, tripwire: Tripwire
) -> None:
    require_engine("ffmpeg")
    listing = f"ffconcat version 1.0\nfile '{tripwire.url}/part.mp4'\n"
    job = run_job(
        client,
        {
            "list": inline("list.txt", listing),
            "join": {
                "operation": "command", "input": "list", "engine": "ffmpeg", "command": "ffmpeg",
                "arguments": "-f concat -i /input/list/list.txt -c copy /output/out.mp4",
            },
        },
    )  # fmt: skip
    assert task_named(job, "join")["status"] == "error"
    assert tripwire.hits == []


def test_an_svg_image_naming_loopback_fetches_nothing(
    sealing: str, require_engine: RequireEngine, client: httpx.Client, tripwire: Tripwire
) -> None:
    require_engine("imagemagick")
    svg = (
        '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
        'width="40" height="40"><rect width="40" height="40" fill="red"/>'
        f'<image xlink:href="{tripwire.url}/pixel.png" width="40" height="40"/></svg>'
    )
    run_job(
        client,
        {
            "drawing": inline("drawing.svg", svg),
            "render": {
                "operation": "command", "input": "drawing", "engine": "imagemagick", "command": "convert",
                "arguments": "/input/drawing/drawing.svg /output/drawing.png",
            },
        },
    )  # fmt: skip
    assert tripwire.hits == []
