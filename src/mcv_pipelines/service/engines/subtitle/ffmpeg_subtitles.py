"""Subtitles ffmpeg reads and pysubs2 does not: the text subtitle streams of a video (mkv, mp4, webm,
mov ...), and the text formats only ffmpeg's demuxers know (JACOsub, RealText, PJS, AQTitle), out as
srt, vtt or ass through ffmpeg's own encoders (which keep bold, italic, underline and colour).

Sealed like every program (process.py); the input is copied alone into a directory of its own and
read with its demuxer named (``-f``), files only: a playlist or concat list in disguise is read as
the format it claims to be, and fails.
"""

from __future__ import annotations

import functools
import shutil
from collections.abc import Iterable
from pathlib import Path

from mcv_pipelines.service.engines.av.formats import probe_capabilities
from mcv_pipelines.service.engines.base import ConversionType, EngineError, EngineRequest, EngineResult
from mcv_pipelines.service.engines.failures import UNSUPPORTED_CONVERSION
from mcv_pipelines.service.engines.files import output_name
from mcv_pipelines.service.engines.naming import output_path, single_input
from mcv_pipelines.service.engines.options import FILENAME, int_option, str_option
from mcv_pipelines.service.engines.process import find_program, run_checked
from mcv_pipelines.service.engines.program_engine import ProgramEngine
from mcv_pipelines.service.engines.subtitle.decode import decode_subtitle
from mcv_pipelines.service.engines.subtitle.formats import ENCODING, STREAM
from mcv_pipelines.service.engines.subtitle.streams import SubtitleStream, chosen_streams, subtitle_streams

__all__ = ["FfmpegSubtitleEngine"]

# containers that carry text subtitles -> the demuxer that reads them
VIDEOS = {
    "mkv": "matroska",
    "webm": "matroska",
    "mp4": "mov",
    "m4v": "mov",
    "mov": "mov",
    "3gp": "mov",
}
# text formats only ffmpeg reads -> its demuxer
TEXTS = {"jss": "jacosub", "rt": "realtext", "pjs": "pjs", "aqt": "aqtitle"}
# output -> (encoder, muxer)
OUTPUTS = {"srt": ("srt", "srt"), "vtt": ("webvtt", "webvtt"), "ass": ("ass", "ass")}
_PROTOCOLS = ("-protocol_whitelist", "file")


class FfmpegSubtitleEngine(ProgramEngine):
    name = "ffmpeg-subtitles"
    programs = ("ffmpeg",)
    version_args = ("-version",)
    version_pattern = r"ffmpeg version n?(\d[\w.]*)"

    def __init__(self) -> None:
        super().__init__()
        self.ffprobe = find_program("ffprobe")

    def version(self) -> str | None:
        return self._version if self.ffprobe else None

    @functools.cached_property
    def _listing(self) -> list[ConversionType]:
        if self.version() is None or self.program is None:
            return []
        caps = probe_capabilities(self.program)
        outputs = [
            t for t, (encoder, muxer) in OUTPUTS.items() if encoder in caps.encoders and muxer in caps.muxers
        ]
        videos = [v for v, demuxer in VIDEOS.items() if demuxer in caps.demuxers]
        texts = [t for t, demuxer in TEXTS.items() if demuxer in caps.demuxers]
        return [
            *self.convert_pairs(videos, outputs, (FILENAME, STREAM)),
            *self.convert_pairs(texts, outputs, (FILENAME, ENCODING)),
        ]

    def conversion_types(self) -> Iterable[ConversionType]:
        return self._listing

    def run(self, request: EngineRequest) -> EngineResult:
        source, target = request.input_format, request.output_format
        known = source in VIDEOS or source in TEXTS
        if request.operation != "convert" or not known or target not in OUTPUTS or self.program is None:
            raise EngineError(
                UNSUPPORTED_CONVERSION, f"ffmpeg-subtitles does not convert {source} to {target}"
            )
        path = single_input(request)
        alone = request.work_dir / "subtitle-input"
        alone.mkdir(parents=True, exist_ok=True)
        copy = alone / f"input.{source}"
        if source in TEXTS:
            text = decode_subtitle(
                path.read_bytes(), path.name, source, str_option(request.options, "encoding")
            )
            copy.write_text(text, encoding="utf-8")
            target_path = output_path(request, target)
            self._write(
                request, copy, TEXTS[source], None, target_path, f"converting {path.name} to {target}"
            )
            return EngineResult(files=[target_path])
        shutil.copyfile(path, copy)
        choice = int_option(request.options, "subtitle_stream", None, minimum=0, maximum=999)
        streams = chosen_streams(self._streams(request, copy, path.name), choice, path.name)
        files = []
        for number, stream in enumerate(streams, 1):
            target_path = self._stream_path(request, stream, number, single=choice is not None)
            what = f"extracting subtitle stream {stream.position} of {path.name}"
            self._write(request, copy, VIDEOS[source], stream, target_path, what)
            files.append(target_path)
        return EngineResult(files=files)

    def _streams(self, request: EngineRequest, copy: Path, name: str) -> list[SubtitleStream]:
        assert self.ffprobe is not None
        argv = [self.ffprobe, "-v", "error", "-of", "json", *_PROTOCOLS, "-f", VIDEOS[request.input_format],
                "-select_streams", "s", "-show_streams", copy.name]  # fmt: skip
        outcome = run_checked(
            argv, what=f"reading {name}", cwd=copy.parent, timeout=request.timeout,
            cancelled=request.cancelled, answer_only=True,
        )  # fmt: skip
        return subtitle_streams(outcome.output, name)

    def _stream_path(self, request: EngineRequest, stream: SubtitleStream, number: int, single: bool) -> Path:
        """One chosen stream: the input's name; every stream: ``name.<index>.<language>.<ext>`` (players
        pick ``film.0.eng.srt`` up beside ``film.mkv``), or the ``filename`` option numbered."""
        ext = request.output_format
        if single or str_option(request.options, "filename"):
            return output_path(request, ext, None if single else number)
        stem = request.inputs[0].path.stem or "subtitles"
        name = output_name(None, 1, False, f"{stem}.{stream.position}.{stream.language or 'und'}", ext)
        request.output_dir.mkdir(parents=True, exist_ok=True)
        return request.output_dir / name

    def _write(
        self,
        request: EngineRequest,
        copy: Path,
        demuxer: str,
        stream: SubtitleStream | None,
        target: Path,
        what: str,
    ) -> None:
        assert self.program is not None
        encoder, muxer = OUTPUTS[request.output_format]
        chosen = ["-map", f"0:s:{stream.position}"] if stream is not None else ["-map", "0:s:0"]
        argv = [self.program, "-hide_banner", "-nostdin", "-y", "-loglevel", "error", *_PROTOCOLS,
                "-f", demuxer, "-i", copy.name, *chosen, "-c:s", encoder,
                "-f", muxer, str(target)]  # fmt: skip
        run_checked(argv, what=what, cwd=copy.parent, timeout=request.timeout, cancelled=request.cancelled)
        if not target.is_file() or target.stat().st_size == 0:
            raise EngineError("CONVERSION_FAILED", f"{what} wrote nothing (no cue with text?)")
