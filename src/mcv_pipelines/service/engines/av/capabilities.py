"""What the installed ffmpeg can do: its encoders, muxers, demuxers and filters, asked once per program."""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass

from mcv_pipelines.service.engines.av.media import AUDIO_CODECS, VIDEO_CODECS, MediaFormat
from mcv_pipelines.service.engines.process import run_program

__all__ = ["FfmpegCapabilities", "probe_capabilities"]

_ROW = re.compile(r"^\s*([A-Z.]{6})\s+(\S+)", re.MULTILINE)
_MUXER_ROW = re.compile(r"^\s*[D ]E\s+(\S+)", re.MULTILINE)
_DEMUXER_ROW = re.compile(r"^\s*D[E ]?\s+(\S+)", re.MULTILINE)
_FILTER_ROW = re.compile(r"^\s*[TSC.]{3}\s+(\S+)", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class FfmpegCapabilities:
    encoders: frozenset[str]
    muxers: frozenset[str]
    demuxers: frozenset[str]
    filters: frozenset[str]

    def writable(self, media: MediaFormat) -> bool:
        needed = {e for e in (media.audio_encoder, media.video_encoder) if e is not None}
        return media.muxer in self.muxers and needed <= self.encoders

    def video_codecs(self, media: MediaFormat) -> tuple[str, ...]:
        return tuple(c for c in media.video_codecs if VIDEO_CODECS[c] in self.encoders)

    def audio_codecs(self, media: MediaFormat) -> tuple[str, ...]:
        return tuple(c for c in media.audio_codecs if AUDIO_CODECS[c] in self.encoders)


_cache: dict[str, FfmpegCapabilities] = {}
_lock = threading.Lock()


def _listed(ffmpeg: str, what: str) -> str:
    """One of ffmpeg's lists: stdout alone, so a warning on stderr is never read as a row."""
    return run_program([ffmpeg, "-hide_banner", what], timeout=30, answer_only=True).output


def probe_capabilities(ffmpeg: str) -> FfmpegCapabilities:
    """Ask ``ffmpeg`` once for its encoders, muxers and filters (cached per program path)."""
    with _lock:
        if ffmpeg not in _cache:
            encoders = _listed(ffmpeg, "-encoders")
            muxers = _listed(ffmpeg, "-muxers")
            demuxers = _listed(ffmpeg, "-demuxers")
            filters = _listed(ffmpeg, "-filters")
            _cache[ffmpeg] = FfmpegCapabilities(
                encoders=frozenset(m.group(2) for m in _ROW.finditer(encoders)),
                muxers=frozenset(name for m in _MUXER_ROW.finditer(muxers) for name in m.group(1).split(",")),
                demuxers=frozenset(
                    name for m in _DEMUXER_ROW.finditer(demuxers) for name in m.group(1).split(",")
                ),
                filters=frozenset(m.group(1) for m in _FILTER_ROW.finditer(filters)),
            )
        return _cache[ffmpeg]
