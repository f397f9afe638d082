"""The ffmpeg engine on real clips made by ffmpeg itself, checked with ffprobe and Pillow."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest
from PIL import Image, ImageChops

from engine_needs import engine_program
from mcv_pipelines.service.engines.av.ffmpeg import FfmpegEngine
from mcv_pipelines.service.engines.av.formats import FORMATS
from mcv_pipelines.service.engines.base import Engine, EngineError, EngineRequest, InputFile

RequireEngine = Callable[..., Engine]


def make_request(
    tmp_path: Path, operation: str, source: Path, output_format: str, options: Mapping[str, Any] | None = None
) -> EngineRequest:
    return EngineRequest(
        operation=operation,
        input_format=source.suffix.lstrip("."),
        output_format=output_format,
        options=dict(options or {}),
        inputs=[InputFile("upload", source)],
        output_dir=tmp_path / "out",
        work_dir=tmp_path / "work",
        timeout=60,
    )


def probe(path: Path) -> dict[str, Any]:
    result = subprocess.run(
        [
            engine_program("ffmpeg", "ffprobe"),
            "-v", "error", "-of", "json", "-show_format", "-show_streams", str(path),
        ],
        capture_output=True,
        check=True,
        text=True,
    )
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def codecs(info: Mapping[str, Any], kind: str) -> list[str]:
    return [s["codec_name"] for s in info["streams"] if s["codec_type"] == kind]


def make_clip(directory: Path, name: str = "clip.mp4", seconds: float = 1.0) -> Path:
    """A small video with a moving test pattern and a sine tone."""
    directory.mkdir(parents=True, exist_ok=True)
    target = directory / name
    subprocess.run(
        [engine_program("ffmpeg", "ffmpeg"), "-hide_banner", "-loglevel", "error", "-y",
         "-f", "lavfi", "-i", f"testsrc=size=160x120:rate=10:duration={seconds}",
         "-f", "lavfi", "-i", f"sine=frequency=440:duration={seconds}",
         "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest",
         str(target)],
        check=True,
    )  # fmt: skip
    return target


@pytest.fixture
def engine(require_engine: RequireEngine) -> FfmpegEngine:
    require_engine("ffmpeg")
    return FfmpegEngine()


@pytest.fixture
def clip(engine: FfmpegEngine, tmp_path: Path) -> Path:
    return make_clip(tmp_path / "in")


def test_version_is_the_installed_programs(engine: FfmpegEngine) -> None:
    ffmpeg = engine_program("ffmpeg", "ffmpeg")
    first_line = subprocess.run([ffmpeg, "-version"], capture_output=True, text=True, check=True).stdout
    version = engine.version()
    assert version is not None
    assert version in first_line.splitlines()[0]


def test_listing_offers_web_formats_with_codec_choices(engine: FfmpegEngine) -> None:
    types = {(t.operation, t.input_format, t.output_format): t for t in engine.conversion_types()}
    webm = types["convert", "mp4", "webm"]
    codec = next(o for o in webm.options if o.name == "video_codec")
    assert codec.type == "enum"
    assert codec.possible_values is not None
    assert "vp9" in codec.possible_values
    assert ("convert", "mp4", "mp3") in types  # video -> audio extracts the sound
    assert ("convert", "mp3", "mp4") not in types  # no picture to make a video from
    assert types["metadata", "mp4", "json"].engine == "ffmpeg"
    assert ("thumbnail", "mp4", "png") in types


def test_convert_mp4_to_webm_uses_vp9_and_opus(engine: FfmpegEngine, clip: Path, tmp_path: Path) -> None:
    result = engine.run(make_request(tmp_path, "convert", clip, "webm", {"preset": "ultrafast"}))
    assert [f.name for f in result.files] == ["clip.webm"]
    info = probe(result.files[0])
    assert codecs(info, "video") == ["vp9"]
    assert codecs(info, "audio") == ["opus"]
    assert float(info["format"]["duration"]) == pytest.approx(1.0, abs=0.15)


def test_video_to_mp3_keeps_only_the_sound(engine: FfmpegEngine, clip: Path, tmp_path: Path) -> None:
    result = engine.run(make_request(tmp_path, "convert", clip, "mp3", {"audio_bitrate": 64}))
    info = probe(result.files[0])
    assert codecs(info, "audio") == ["mp3"]
    assert codecs(info, "video") == []


def test_size_and_trim_options_shape_the_output(engine: FfmpegEngine, tmp_path: Path) -> None:
    source = make_clip(tmp_path / "in", seconds=2.0)
    options = {"width": 80, "trim_start": "0.5", "trim_end": "00:00:01.5", "preset": "ultrafast", "crf": 30}
    result = engine.run(make_request(tmp_path, "convert", source, "mkv", options))
    info = probe(result.files[0])
    video = next(s for s in info["streams"] if s["codec_type"] == "video")
    assert (video["width"], video["height"]) == (80, 60)
    assert float(info["format"]["duration"]) == pytest.approx(1.0, abs=0.15)


def test_audio_options_set_channels_and_rate(engine: FfmpegEngine, clip: Path, tmp_path: Path) -> None:
    result = engine.run(make_request(tmp_path, "convert", clip, "wav", {"channels": 2, "sample_rate": 8000}))
    audio = next(s for s in probe(result.files[0])["streams"] if s["codec_type"] == "audio")
    assert (audio["codec_name"], audio["channels"], audio["sample_rate"]) == ("pcm_s16le", 2, "8000")


def test_thumbnail_at_a_timestamp_has_the_asked_width(
    engine: FfmpegEngine, clip: Path, tmp_path: Path
) -> None:
    request = make_request(tmp_path, "thumbnail", clip, "png", {"timestamp": 0.5, "width": 64})
    result = engine.run(request)
    with Image.open(result.files[0]) as image:
        assert image.format == "PNG"
        assert image.size == (64, 48)


def test_thumbnail_past_the_end_is_refused(engine: FfmpegEngine, clip: Path, tmp_path: Path) -> None:
    with pytest.raises(EngineError) as caught:
        engine.run(make_request(tmp_path, "thumbnail", clip, "jpg", {"timestamp": 30}))
    assert caught.value.code == "INVALID_OPTION"
    assert "past the end" in caught.value.message


def test_metadata_reports_format_and_streams(engine: FfmpegEngine, clip: Path, tmp_path: Path) -> None:
    result = engine.run(make_request(tmp_path, "metadata", clip, "json"))
    assert result.files == []
    metadata = result.extra["metadata"]
    assert codecs(metadata, "video") == ["h264"]
    assert float(metadata["format"]["duration"]) == pytest.approx(1.0, abs=0.15)


def test_metadata_write_sets_tags_without_reencoding(
    engine: FfmpegEngine, clip: Path, tmp_path: Path
) -> None:
    request = make_request(
        tmp_path, "metadata/write", clip, "mp4", {"metadata": {"title": "Launch", "year": 2024}}
    )
    result = engine.run(request)
    info = probe(result.files[0])
    assert info["format"]["tags"]["title"] == "Launch"
    assert codecs(info, "video") == ["h264"]


def test_watermark_draws_text_on_the_frames(engine: FfmpegEngine, clip: Path, tmp_path: Path) -> None:
    options = {"text": "DRAFT", "font_size": 30, "font_color": "#ff0000", "position_vertical": "top"}
    marked = engine.run(make_request(tmp_path, "watermark", clip, "mp4", options)).files[0]
    assert float(probe(marked)["format"]["duration"]) == pytest.approx(1.0, abs=0.15)
    frames = []
    for name, video in (("plain", clip), ("marked", marked)):
        request = make_request(tmp_path / name, "thumbnail", video, "png", {"timestamp": 0.2})
        frames.append(Image.open(engine.run(request).files[0]).convert("RGB"))
    box = ImageChops.difference(frames[0], frames[1]).getbbox()
    assert box is not None  # the text changed pixels ...
    assert box[1] < 60  # ... in the top half


def test_corrupt_media_is_an_engine_error(engine: FfmpegEngine, tmp_path: Path) -> None:
    broken = tmp_path / "broken.mp4"
    broken.write_bytes(b"\x00\x00\x00\x18ftypmp42" + b"not really a movie" * 50)
    with pytest.raises(EngineError) as caught:
        engine.run(make_request(tmp_path, "convert", broken, "webm"))
    assert caught.value.code in ("INVALID_INPUT", "CONVERSION_FAILED")
    assert "broken.mp4" in caught.value.message
    assert not any((tmp_path / "out").glob("*"))


@pytest.mark.parametrize(
    ("options", "word"),
    [
        ({"crf": "high"}, "crf"),
        ({"video_codec": "divx"}, "video_codec"),
        ({"trim_start": "soon"}, "trim_start"),
    ],
)
def test_bad_options_are_named(
    engine: FfmpegEngine, clip: Path, tmp_path: Path, options: dict[str, Any], word: str
) -> None:
    with pytest.raises(EngineError) as caught:
        engine.run(make_request(tmp_path, "convert", clip, "mp4", options))
    assert caught.value.code == "INVALID_OPTION"
    assert word in caught.value.message


def test_every_listed_target_of_an_mp4_really_converts(
    engine: FfmpegEngine, clip: Path, tmp_path: Path
) -> None:
    targets = sorted(
        t.output_format
        for t in engine.conversion_types()
        if (t.operation, t.input_format) == ("convert", "mp4")
    )
    assert len(targets) >= 8
    for target in targets:
        result = engine.run(make_request(tmp_path / target, "convert", clip, target, {"preset": "ultrafast"}))
        info = probe(result.files[0])
        if FORMATS[target].audio_encoder is None:  # an animation (gif, apng, webp) holds no sound
            assert codecs(info, "video"), target
            assert not codecs(info, "audio"), target
            continue
        assert codecs(info, "audio"), target
        assert _seconds(result.files[0], info) == pytest.approx(1.0, abs=0.2), target


def _seconds(path: Path, info: Mapping[str, Any]) -> float:
    """The length of the sound in ``path``: from its header, or (an elementary stream such as aptx,
    sbc or TrueHD has none) by decoding it to WAV."""
    stated = float(info["format"].get("duration") or 0)
    if stated:
        return stated
    decoded = path.with_name(f"{path.name}.decoded.wav")
    subprocess.run(
        [
            engine_program("ffmpeg", "ffmpeg"),
            "-hide_banner", "-loglevel", "error", "-nostdin", "-i", str(path), "-vn", str(decoded),
        ],
        check=True,
    )
    return float(probe(decoded)["format"]["duration"])


@pytest.mark.parametrize(("fmt", "pillow_format"), [("png", "PNG"), ("jpg", "JPEG"), ("webp", "WEBP")])
def test_thumbnail_formats(
    engine: FfmpegEngine, clip: Path, tmp_path: Path, fmt: str, pillow_format: str
) -> None:
    result = engine.run(make_request(tmp_path, "thumbnail", clip, fmt, {"height": 60}))
    with Image.open(result.files[0]) as image:
        assert (image.format, image.size) == (pillow_format, (80, 60))


def test_every_listed_metadata_write_format_keeps_the_tags(
    engine: FfmpegEngine, clip: Path, tmp_path: Path
) -> None:
    formats = sorted(t.input_format for t in engine.conversion_types() if t.operation == "metadata/write")
    assert "aac" not in formats  # raw ADTS cannot hold tags
    for fmt in formats:
        source = clip
        if fmt != "mp4":
            converted = engine.run(
                make_request(tmp_path / fmt, "convert", clip, fmt, {"preset": "ultrafast"})
            )
            source = converted.files[0]
        request = make_request(
            tmp_path / fmt / "tagged", "metadata/write", source, fmt, {"metadata": {"title": "Launch"}}
        )
        assert "Launch" in json.dumps(probe(engine.run(request).files[0])), fmt
