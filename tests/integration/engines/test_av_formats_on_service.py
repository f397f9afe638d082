"""The audio and video formats issue 47 added to the ffmpeg engine, through the real local service:
tracker music and DSD written by hand (tests/av_samples.py), Musepack and AMR made by their own
encoders, and the containers ffmpeg now writes (m4v, mts, mk3d, ogx, AIFF-C)."""

from __future__ import annotations

import base64
import subprocess
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
from engine_job_helpers import b64_import, download_all, run_job, task_named
from test_media_engines_on_service import codecs, probe

from av_samples import (
    composer_669_module,
    dff,
    dsf,
    it_module,
    mod_module,
    mtm_module,
    s3m_module,
    stm_module,
    xm_module,
)
from engine_needs import engine_program
from mcv_pipelines.service.engines.base import Engine

RequireEngine = Callable[..., Engine]


def _bytes_import(name: str, data: bytes) -> dict[str, Any]:
    return {"operation": "import/base64", "file": base64.b64encode(data).decode(), "filename": name}


def _convert(source: str, target: str, **options: object) -> dict[str, object]:
    return {"operation": "convert", "input": source, "output_format": target, **options}


def _pcm(path: Path) -> tuple[int, int, list[int]]:
    """(sample rate, channels, the first channel's 16-bit samples) of ``path`` decoded by ffmpeg."""
    stream = next(s for s in probe(path)["streams"] if s["codec_type"] == "audio")
    rate, channels = int(stream["sample_rate"]), int(stream["channels"])
    raw = subprocess.run(
        [engine_program("ffmpeg", "ffmpeg"), "-v", "error", "-nostdin", "-i", str(path), "-f", "s16le", "-"],
        check=True, capture_output=True,
    ).stdout  # fmt: skip
    step = 2 * channels
    return (
        rate,
        channels,
        [int.from_bytes(raw[i : i + 2], "little", signed=True) for i in range(0, len(raw), step)],
    )


def test_tracker_modules_play_their_notes_into_flac(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    modules = {"mod": mod_module(), "xm": xm_module(), "s3m": s3m_module(), "it": it_module(),
               "stm": stm_module(), "mtm": mtm_module(), "669": composer_669_module()}  # fmt: skip
    for fmt in modules:
        require_engine("ffmpeg", "convert", fmt, "flac")
    job = run_job(
        client,
        {
            **{f"in-{fmt}": _bytes_import(f"tune.{fmt}", data) for fmt, data in modules.items()},
            **{fmt: _convert(f"in-{fmt}", "flac", input_format=fmt) for fmt in modules},
            "export": {"operation": "export/url", "input": list(modules)},
        },
    )
    files = download_all(job, tmp_path)
    assert len(files) == len(modules)
    for path in files.values():
        rate, channels, samples = _pcm(path)
        # eight rows at speed 6 and 125 BPM: 0.96 s (669 plays slower), and the three notes sound
        assert (rate, channels) == (48000, 2), path.name
        assert 0.9 < len(samples) / rate < 1.7, path.name
        assert max(abs(s) for s in samples) > 2000, path.name


def _crossings(samples: list[int]) -> int:
    """Rising crossings of the wave through a band around zero (the modulator's noise stays inside)."""
    band = max(abs(s) for s in samples) // 3
    count, low = 0, False
    for sample in samples:
        if sample < -band:
            low = True
        elif sample > band and low:
            count, low = count + 1, False
    return count


def test_dsd_becomes_hi_res_pcm_keeping_its_tone(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    for fmt in ("dsf", "dff"):
        require_engine("ffmpeg", "convert", fmt, "flac")
    job = run_job(
        client,
        {
            "in-dsf": _bytes_import("tone.dsf", dsf(0.5)),
            "in-dff": _bytes_import("tone.dff", dff(0.5)),
            "dsf": _convert("in-dsf", "flac"),
            "dff": _convert("in-dff", "flac"),
            "cd": _convert("in-dsf", "wav", sample_rate=44100),
            "export": {"operation": "export/url", "input": ["dsf", "dff", "cd"]},
        },
    )
    files = download_all(job, tmp_path)
    for name, rate_wanted in (("tone.flac", 88200), ("tone.wav", 44100)):
        rate, channels, samples = _pcm(files[name])
        assert (rate, channels) == (rate_wanted, 2), name
        assert abs(len(samples) / rate - 0.5) < 0.05, name
        # the 440 Hz tone the modulator was given: 220 rising zero crossings in half a second
        assert abs(_crossings(samples) - 220) < 10, name
    assert task_named(job, "dff")["status"] == "finished"


def test_musepack_and_amr_from_their_own_encoders(
    require_engine: RequireEngine,
    require_program: Callable[..., str],
    client: httpx.Client,
    tmp_path: Path,
) -> None:
    sox, mpcenc = require_program("sox"), require_program("mpcenc")
    for fmt in ("mpc", "amr"):
        require_engine("ffmpeg", "convert", fmt, "mp3")
    tone = ["synth", "1", "sine", "440"]
    pcm, amr, mpc = tmp_path / "tone.wav", tmp_path / "speech.amr", tmp_path / "tone.mpc"
    subprocess.run(
        [sox, "-n", "-r", "44100", "-c", "2", "-b", "16", "-t", "wavpcm", str(pcm), *tone], check=True
    )
    subprocess.run([sox, "-n", "-r", "8000", "-c", "1", "-t", "amr-nb", str(amr), *tone], check=True)
    subprocess.run([mpcenc, "--silent", str(pcm), str(mpc)], check=True, capture_output=True)
    job = run_job(
        client,
        {
            "mpc": b64_import(mpc),
            "amr": b64_import(amr),
            "mpc-mp3": _convert("mpc", "mp3"),
            "amr-wav": _convert("amr", "wav"),
            "export": {"operation": "export/url", "input": ["mpc-mp3", "amr-wav"]},
        },
    )
    files = download_all(job, tmp_path / "out")
    assert abs(float(probe(files["tone.mp3"])["format"]["duration"]) - 1.0) < 0.1
    rate, channels, samples = _pcm(files["speech.wav"])
    assert (rate, channels) == (8000, 1)  # a telephone's rate kept
    assert abs(len(samples) / rate - 1.0) < 0.05


def test_new_containers_out_of_a_video(
    require_engine: RequireEngine, client: httpx.Client, clip: Path, tmp_path: Path
) -> None:
    targets = ("m4v", "mts", "mk3d", "ogx", "aifc")
    for target in targets:
        require_engine("ffmpeg", "convert", "mp4", target)
    job = run_job(
        client,
        {
            "clip": b64_import(clip),
            **{t: _convert("clip", t, preset="ultrafast") for t in targets},
            "export": {"operation": "export/url", "input": list(targets)},
        },
    )
    files = download_all(job, tmp_path)
    assert codecs(probe(files["clip.m4v"])) == {"video": "h264", "audio": "aac"}
    assert probe(files["clip.mts"])["format"]["format_name"] == "mpegts"
    assert probe(files["clip.mk3d"])["format"]["format_name"] == "matroska,webm"
    assert codecs(probe(files["clip.ogx"])) == {"video": "theora", "audio": "vorbis"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        import aifc

        with aifc.open(str(files["clip.aifc"])) as sound:  # a reader that is not ffmpeg
            assert sound.getcomptype() == b"sowt"
            assert abs(sound.getnframes() / sound.getframerate() - 1.0) < 0.1


def test_a_module_that_is_not_one_is_named(require_engine: RequireEngine, client: httpx.Client) -> None:
    require_engine("ffmpeg", "convert", "xm", "wav")
    job = run_job(
        client,
        {
            "in": _bytes_import("broken.xm", b"Extended Module: " + bytes(40)),
            "wav": _convert("in", "wav", input_format="xm"),
        },
    )
    failed = task_named(job, "wav")
    assert failed["status"] == "error"
    assert failed["code"] == "INVALID_INPUT"
    assert "broken.xm" in failed["message"]
