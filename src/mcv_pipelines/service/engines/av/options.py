"""Options of the ffmpeg engine's conversions: how the listing shows them, and the ffmpeg arguments
they become.

Codec names are the friendly ones (``x264``, ``vp9``, ``aac``, ``opus``); ``copy`` keeps the input's
stream as it is and ``none`` (audio only) drops the audio. Times (``trim_start``, ``trim_end``,
``timestamp``) are seconds or ``[HH:]MM:SS[.ms]``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from mcv_pipelines.service.engines.av.animation import ANIMATION_ENCODERS, animation_arguments
from mcv_pipelines.service.engines.av.formats import (
    AUDIO_CODECS,
    VIDEO_CODECS,
    FfmpegCapabilities,
    MediaFormat,
)
from mcv_pipelines.service.engines.base import EngineError, OptionSpec
from mcv_pipelines.service.engines.options import enum_option, float_option, int_option

__all__ = [
    "PRESETS",
    "convert_arguments",
    "convert_options",
    "parse_time",
    "scale_filter",
    "trim_arguments",
    "written_seconds",
]

PRESETS = ("ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow")
_FAST_PRESETS = frozenset(PRESETS[:4])
_TIME = re.compile(r"^(?:(\d+):)?(\d{1,2}):(\d{1,2}(?:\.\d+)?)$")


def parse_time(options: Mapping[str, Any], name: str) -> float | None:
    """A time option as seconds: ``12.5``, ``"12.5"``, ``"01:02"`` or ``"00:01:02.5"``."""
    value = options.get(name)
    if value is None or value == "":
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        seconds = float(value)
    elif isinstance(value, str) and (match := _TIME.match(value.strip())):
        hours, minutes, secs = match.groups()
        seconds = int(hours or 0) * 3600 + int(minutes) * 60 + float(secs)
    else:
        try:
            seconds = float(value) if isinstance(value, str) else -1.0
        except ValueError:
            seconds = -1.0
    if seconds < 0:
        raise EngineError("INVALID_OPTION", f"{name} must be seconds or HH:MM:SS, got {value!r}")
    return seconds


_QSCALE_ENCODERS = frozenset(
    {"mpeg4", "wmv2", "flv", "mpeg1video", "mpeg2video", "libtheora", "rv20", "mjpeg"}
)
# An option a container's own arguments fix (MediaFormat.arguments) is not offered for it.
_FIXED_BY = {"sample_rate": "-ar", "channels": "-ac", "width": "-s", "height": "-s", "fps": "-r"}
_TRIM_OPTIONS = (
    OptionSpec("trim_start", "string", None, None, "Start at this time (seconds or HH:MM:SS)"),
    OptionSpec("trim_end", "string", None, None, "End at this time (seconds or HH:MM:SS)"),
)


def convert_options(media: MediaFormat, caps: FfmpegCapabilities) -> tuple[OptionSpec, ...]:
    """The options of a conversion to ``media``, limited to the encoders this ffmpeg has."""
    specs: list[OptionSpec] = []
    if media.video:
        specs += [
            OptionSpec(
                "video_codec",
                "enum",
                _default_name(media.video_encoder, VIDEO_CODECS),
                (*caps.video_codecs(media), "copy"),
            ),
            OptionSpec(
                "crf", "integer", None, None, "Constant rate factor: lower is better and larger (0-63)"
            ),
            OptionSpec("preset", "enum", "medium", PRESETS, "Encoder speed against size (x264, x265, vp9)"),
            OptionSpec("width", "integer", None, None, "Output width in pixels; height follows when unset"),
            OptionSpec("height", "integer", None, None, "Output height in pixels; width follows when unset"),
            OptionSpec("fps", "float", None, None, "Frames per second"),
        ]
    if media.audio_encoder is None:
        return _unfixed(media, (*specs, *_TRIM_OPTIONS))
    audio_choices = (*caps.audio_codecs(media), "copy") + (("none",) if media.video else ())
    specs += [
        OptionSpec("audio_codec", "enum", _default_name(media.audio_encoder, AUDIO_CODECS), audio_choices),
        OptionSpec("audio_bitrate", "integer", None, None, "Audio bitrate in kbit/s"),
        OptionSpec("channels", "integer", None, None, "Number of audio channels"),
        OptionSpec("sample_rate", "integer", None, None, "Audio sample rate in Hz"),
        *_TRIM_OPTIONS,
    ]
    return _unfixed(media, specs)


def _unfixed(media: MediaFormat, specs: Sequence[OptionSpec]) -> tuple[OptionSpec, ...]:
    return tuple(s for s in specs if _FIXED_BY.get(s.name) not in media.arguments)


def _default_name(encoder: str | None, table: Mapping[str, str]) -> str | None:
    return next((name for name, enc in table.items() if enc == encoder), None)


def trim_arguments(options: Mapping[str, Any]) -> tuple[list[str], list[str]]:
    """(input arguments, output arguments) for ``trim_start`` / ``trim_end``."""
    start = parse_time(options, "trim_start")
    end = parse_time(options, "trim_end")
    before = ["-ss", f"{start:.3f}"] if start else []
    after: list[str] = []
    if end is not None:
        if end <= (start or 0):
            raise EngineError("INVALID_OPTION", "trim_end must be later than trim_start")
        after = ["-t", f"{end - (start or 0):.3f}"]
    return before, after


def written_seconds(duration: float | None, options: Mapping[str, Any]) -> float | None:
    """Seconds of media a conversion writes: the input's ``duration`` cut by ``trim_start``/``trim_end``
    (what ffmpeg's ``-progress`` out_time counts up to); None when unknown."""
    start = parse_time(options, "trim_start") or 0.0
    end = parse_time(options, "trim_end")
    stop = end if end is not None and (duration is None or end < duration) else duration
    if stop is None:
        return None
    return max(0.0, stop - start) or None


def scale_filter(options: Mapping[str, Any]) -> str | None:
    """A scale filter for ``width``/``height``; the missing side keeps the aspect ratio (and stays even)."""
    width = int_option(options, "width", minimum=2, maximum=16384)
    height = int_option(options, "height", minimum=2, maximum=16384)
    if width is None and height is None:
        return None
    return f"scale={width if width else -2}:{height if height else -2}"


def _video_arguments(media: MediaFormat, caps: FfmpegCapabilities, options: Mapping[str, Any]) -> list[str]:
    codec = enum_option(options, "video_codec", None, (*caps.video_codecs(media), "copy"))
    crf = int_option(options, "crf", minimum=0, maximum=63)
    preset = enum_option(options, "preset", None, PRESETS)
    fps = float_option(options, "fps", minimum=0.1, maximum=240)
    scale = scale_filter(options)
    if codec == "copy":
        if scale or fps or crf is not None:
            raise EngineError(
                "INVALID_OPTION", "video_codec copy cannot be combined with width, height, fps or crf"
            )
        return ["-c:v", "copy"]
    encoder = VIDEO_CODECS[codec] if codec else media.video_encoder
    assert encoder is not None
    if encoder in ANIMATION_ENCODERS:
        return animation_arguments(encoder, scale, fps)
    args = ["-c:v", encoder, "-pix_fmt", "yuv420p"]
    if encoder in _QSCALE_ENCODERS:
        args += ["-q:v", "4"]  # their default bitrate (200 kbit/s) blurs even a small picture
    fast = (preset or "medium") in _FAST_PRESETS
    if encoder in ("libx264", "libx265"):
        args += ["-preset", preset or "medium"]
        if crf is not None:
            args += ["-crf", str(crf)]
    elif encoder in ("libvpx", "libvpx-vp9"):
        speed = (
            ["-deadline", "realtime", "-cpu-used", "8"] if fast else ["-deadline", "good", "-cpu-used", "4"]
        )
        args += ["-crf", str(31 if crf is None else crf), "-b:v", "0", *speed]
        if encoder == "libvpx-vp9":
            args += ["-row-mt", "1"]
    elif encoder == "libaom-av1":
        args += ["-crf", str(32 if crf is None else crf), "-b:v", "0", "-cpu-used", "8" if fast else "6"]
    if fps:
        args += ["-r", f"{fps:g}"]
    elif encoder in ("mpeg1video", "mpeg2video"):
        args += ["-r", "25"]  # MPEG-1/2 take only broadcast frame rates, not a clip's 12 or 15 fps
    if scale:
        args += ["-vf", scale]
    if media.muxer in ("mp4", "mov"):
        args += ["-movflags", "+faststart"]
    return args


def _audio_arguments(media: MediaFormat, caps: FfmpegCapabilities, options: Mapping[str, Any]) -> list[str]:
    if media.audio_encoder is None:
        return ["-an"]
    choices = (*caps.audio_codecs(media), "copy") + (("none",) if media.video else ())
    codec = enum_option(options, "audio_codec", None, choices)
    if codec == "none":
        return ["-an"]
    bitrate = int_option(options, "audio_bitrate", minimum=8, maximum=1024)
    channels = int_option(options, "channels", minimum=1, maximum=8)
    rate = int_option(options, "sample_rate", minimum=8000, maximum=192000)
    if codec == "copy":
        return ["-c:a", "copy"]
    args = ["-c:a", AUDIO_CODECS[codec] if codec else media.audio_encoder]
    if bitrate:
        args += ["-b:a", f"{bitrate}k"]
    if channels:
        args += ["-ac", str(channels)]
    if rate:
        args += ["-ar", str(rate)]
    return args


def convert_arguments(media: MediaFormat, caps: FfmpegCapabilities, options: Mapping[str, Any]) -> list[str]:
    """Output arguments (codecs, quality, size) for a conversion to ``media``."""
    video = _video_arguments(media, caps, options) if media.video else ["-vn"]
    return [*video, *_audio_arguments(media, caps, options), *media.arguments, "-f", media.muxer]
