"""Real conversions through the service under the landlock seal (issue 37): the seal that works where
namespaces are refused still lets each engine do its job, in its task's directories only."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from engine_job_helpers import ASSETS, b64_import, download_all, run_job

from engine_needs import unavailable
from mcv_pipelines.service.engines import seal
from mcv_pipelines.service.engines.base import Engine
from mcv_pipelines.service.engines.landlock import rules as landlock_rules
from mcv_pipelines.service.engines.landlock import ruleset

RequireEngine = Callable[..., Engine]


@pytest.fixture(autouse=True)
def landlocked(monkeypatch: pytest.MonkeyPatch) -> None:
    if not landlock_rules.available():
        unavailable(f"Landlock (ABI {ruleset.abi()}) or seccomp cannot be set on this machine")
    monkeypatch.setenv(seal.FORCE_VARIABLE, "landlock")


@pytest.mark.parametrize(
    ("engine", "asset", "target", "magic"),
    [
        ("ffmpeg", "clip.mp4", "webm", b"\x1a\x45\xdf\xa3"),
        ("ffmpeg", "tone.wav", "mp3", b"ID3"),
    ],
)
def test_an_engine_converts_under_landlock(
    engine: str,
    asset: str,
    target: str,
    magic: bytes,
    require_engine: RequireEngine,
    client: httpx.Client,
    tmp_path: Path,
) -> None:
    require_engine(engine)
    job = run_job(
        client,
        {
            "in": b64_import(ASSETS / asset),
            "convert": {"operation": "convert", "input": "in", "output_format": target, "engine": engine},
            "export": {"operation": "export/url", "input": "convert"},
        },
    )
    files = download_all(job, tmp_path)
    (made,) = files.values()
    assert made.suffix == f".{target}"
    assert made.read_bytes()[:4].startswith(magic[:3])


def test_imagemagick_runs_a_command_under_landlock(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("imagemagick")
    job = run_job(
        client,
        {
            "logo": b64_import(ASSETS / "logo.png"),
            "convert": {
                "operation": "command", "input": "logo", "engine": "imagemagick", "command": "convert",
                "arguments": "/input/logo/logo.png -resize 50% /output/logo.webp",
            },
            "export": {"operation": "export/url", "input": "convert"},
        },
    )  # fmt: skip
    (made,) = download_all(job, tmp_path).values()
    assert made.read_bytes()[:4] == b"RIFF"


def test_calibre_converts_under_landlock(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("calibre")
    job = run_job(
        client,
        {
            "in": b64_import(ASSETS / "letter.docx"),
            "convert": {"operation": "convert", "input": "in", "output_format": "epub", "engine": "calibre"},
            "export": {"operation": "export/url", "input": "convert"},
        },
    )
    (made,) = download_all(job, tmp_path).values()
    assert made.read_bytes()[:2] == b"PK"
