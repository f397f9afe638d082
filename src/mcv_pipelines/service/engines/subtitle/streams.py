"""A video's subtitle streams as ffprobe lists them, and which of them can become text."""

from __future__ import annotations

import json
from dataclasses import dataclass

from mcv_pipelines.service.engines.base import EngineError
from mcv_pipelines.service.engines.failures import INVALID_INPUT_FILE, INVALID_OPTION

__all__ = ["BITMAP_SUBTITLE", "NO_SUBTITLE_STREAM", "SubtitleStream", "chosen_streams", "subtitle_streams"]

NO_SUBTITLE_STREAM = "NO_SUBTITLE_STREAM"
BITMAP_SUBTITLE = "BITMAP_SUBTITLE"
# Pictures of text (Blu-ray PGS, DVD VobSub, DVB, DivX XSUB): no text to write without OCR
_BITMAP_CODECS = frozenset({"hdmv_pgs_subtitle", "dvd_subtitle", "dvb_subtitle", "xsub", "dvb_teletext"})


@dataclass(frozen=True, slots=True)
class SubtitleStream:
    position: int  # among the subtitle streams, from 0 (ffmpeg's 0:s:N)
    codec: str
    language: str | None
    title: str | None

    @property
    def bitmap(self) -> bool:
        return self.codec in _BITMAP_CODECS


def subtitle_streams(probe_output: str, name: str) -> list[SubtitleStream]:
    """The subtitle streams in ffprobe's JSON (``-show_streams -select_streams s``)."""
    try:
        data = json.loads(probe_output)
    except json.JSONDecodeError:
        raise EngineError(INVALID_INPUT_FILE, f"{name} is not a video ffprobe can read") from None
    found = []
    for position, stream in enumerate(data.get("streams") or []):
        tags = stream.get("tags") or {}
        language = str(tags.get("language") or "").strip() or None
        found.append(
            SubtitleStream(position, str(stream.get("codec_name") or "unknown"), language, tags.get("title"))
        )
    return found


def _describe(stream: SubtitleStream) -> str:
    return f"stream {stream.position} ({stream.codec}{', ' + stream.language if stream.language else ''})"


def chosen_streams(streams: list[SubtitleStream], choice: int | None, name: str) -> list[SubtitleStream]:
    """The streams to write: the one chosen, else every text stream; clear errors for none and bitmaps."""
    if not streams:
        raise EngineError(NO_SUBTITLE_STREAM, f"{name} has no subtitle stream")
    if choice is not None:
        if choice >= len(streams):
            raise EngineError(
                INVALID_OPTION,
                f"option 'subtitle_stream' is {choice}, but {name} has {len(streams)} subtitle "
                f"stream{'s' if len(streams) > 1 else ''} (0 to {len(streams) - 1})",
            )
        streams = [streams[choice]]
    text = [stream for stream in streams if not stream.bitmap]
    if not text:
        listed = ", ".join(_describe(stream) for stream in streams)
        raise EngineError(
            BITMAP_SUBTITLE,
            f"{name}'s subtitles are pictures, not text ({listed}): they cannot become srt, vtt or ass",
        )
    return text
