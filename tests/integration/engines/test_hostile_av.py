"""Hostile audio files of the formats issue 47 added to the ffmpeg engine, sealed under bubblewrap and
under Landlock (the fixtures of test_hostile_files_see_only_their_task.py).

A playlist uploaded under an audio format's name (ffmpeg picks its demuxer by the content, not the
name) names media planted outside the task: an HLS playlist by absolute path, file: URL and ``../``
path, a concat list likewise. ffmpeg's protocol whitelist lets file: through, so the seal alone keeps
the outside out: unsealed, the HLS playlist does read a planted MPEG-TS segment. Tracker modules and
a DSF file claiming far more sample data than they hold convert what they hold, quickly, or fail with
a clear error; libopenmpt gets the module from memory and opens no file a module names.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
from planted_secrets import Planted
from test_hostile_files_see_only_their_task import Outcome, convert, sealing, secrets

from av_samples import dsf, it_module, mod_module, s3m_module, xm_module
from engine_needs import engine_program
from mcv_pipelines.service.engines.base import Engine

__all__ = ["sealing", "secrets"]  # the fixtures, imported for pytest

RequireEngine = Callable[..., Engine]
_OUTSIDE_SECONDS = 3.0


@pytest.fixture
def outside_media(secrets: Planted) -> Iterator[list[Path]]:
    """Three seconds of MPEG-TS audio beside each planted secret (the host's /tmp, /var/tmp, the data
    directory): what a playlist would pull in if the seal let it."""
    paths = []
    for text in secrets.text.values():
        path = text.with_name("outside.ts")
        subprocess.run(
            [engine_program("ffmpeg", "ffmpeg"), "-v", "error", "-nostdin", "-f", "lavfi",
             "-i", f"sine=frequency=880:duration={_OUTSIDE_SECONDS}", "-c:a", "mp2", "-f", "mpegts",
             str(path)],
            check=True,
        )  # fmt: skip
        paths.append(path)
    yield paths
    for path in paths:
        path.unlink(missing_ok=True)


def _seconds(outcome: Outcome) -> float:
    """The length of the WAV an outcome carries (its bytes after a 44-byte header at 8 kHz mono 16-bit)."""
    return max(0, len(outcome.output) - 44) / 16000


def _playlists(outside: list[Path]) -> dict[str, bytes]:
    ups = "../" * 12
    entries = [str(p) for p in outside] + [f"file:{p}" for p in outside] + [f"{ups}{p}" for p in outside]
    hls = "#EXTM3U\n#EXT-X-TARGETDURATION:3\n#EXT-X-MEDIA-SEQUENCE:0\n"
    hls += "".join(f"#EXTINF:3.0,\n{entry}\n" for entry in entries) + "#EXT-X-ENDLIST\n"
    concat = "ffconcat version 1.0\n" + "".join(f"file '{entry}'\n" for entry in entries)
    return {"hls": hls.encode(), "concat": concat.encode()}


def test_a_playlist_under_an_audio_name_reads_no_media_outside(
    outside_media: list[Path],
    secrets: Planted,
    require_engine: RequireEngine,
    client: httpx.Client,
    tmp_path: Path,
) -> None:
    disguise = "mod"  # a tracker module's name: ffmpeg reads the content as a playlist all the same
    require_engine("ffmpeg", "convert", disguise, "wav")
    task = {"operation": "convert", "input_format": disguise, "output_format": "wav", "sample_rate": 8000,
            "channels": 1}  # fmt: skip
    for kind, data in _playlists(outside_media).items():
        outcome = convert(client, tmp_path / kind, f"tune.{disguise}", data, task)
        # nothing comes of the playlist: an error, or (were a segment read) far less than one segment
        assert outcome.status == "error" or _seconds(outcome) < 0.5, (kind, _seconds(outcome))
        assert not secrets.found_in(outcome.output + outcome.message.encode()), kind


def _claims_huge() -> dict[str, bytes]:
    """Modules whose sample claims up to 2 GB it does not hold, and a DSF claiming 2**40 samples."""
    modules = {"mod": mod_module(huge=True), "xm": xm_module(huge=True), "s3m": s3m_module(huge=True),
               "it": it_module(huge=True)}  # fmt: skip
    data = bytearray(dsf(0.05))
    data[28 + 12 + 24 : 28 + 12 + 32] = (2**40).to_bytes(8, "little")  # fmt chunk: sample count
    return {**modules, "dsf": bytes(data)}


def test_files_claiming_huge_sizes_end_quickly_and_small(
    sealing: str, require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    for fmt in ("mod", "xm", "s3m", "it", "dsf"):
        require_engine("ffmpeg", "convert", fmt, "wav")
    for fmt, data in _claims_huge().items():
        started = time.monotonic()
        task = {"operation": "convert", "input_format": fmt, "output_format": "wav", "sample_rate": 8000,
                "channels": 1}  # fmt: skip
        outcome = convert(client, tmp_path / fmt, f"huge.{fmt}", data, task)
        assert time.monotonic() - started < 20, fmt
        if outcome.status == "error":
            assert f"huge.{fmt}" in outcome.message, outcome.message
        else:
            # what the file holds and no more: about a second of a module, a twentieth of DSD
            assert _seconds(outcome) < 1.5, (fmt, _seconds(outcome))
