"""One local service with every engine this machine has, shared by the module's tests, and inputs."""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from mcv_pipelines.service.server import LocalService


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalService]:
    with LocalService(data_dir=tmp_path_factory.mktemp("data"), settings={"rate_limit": 10_000}) as svc:
        yield svc


@pytest.fixture(scope="module")
def client(service: LocalService) -> Iterator[httpx.Client]:
    with httpx.Client(
        base_url=service.base_url, timeout=120.0, headers={"Authorization": f"Bearer {service.api_key}"}
    ) as c:
        yield c


_MADE: dict[str, Path] = {}


@pytest.fixture
def clip(require_engine: Callable[..., Any], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A one-second 128x96 h264/aac mp4, made once per session by the ffmpeg the engine runs."""
    ffmpeg = require_engine("ffmpeg").ffmpeg
    if "clip" in _MADE:
        return _MADE["clip"]
    path = tmp_path_factory.mktemp("media") / "clip.mp4"
    subprocess.run(
        [
            ffmpeg, "-hide_banner", "-loglevel", "error", "-nostdin",
            "-f", "lavfi", "-i", "testsrc=size=128x96:rate=15:duration=1",
            "-f", "lavfi", "-i", "sine=frequency=440:duration=1",
            "-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest", str(path),
        ],
        check=True,
    )  # fmt: skip
    _MADE["clip"] = path
    return path
