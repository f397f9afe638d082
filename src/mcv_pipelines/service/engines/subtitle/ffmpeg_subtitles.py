"""Subtitles ffmpeg reads and pysubs2 does not: the text subtitle streams of a video (mkv, mp4, webm,
mov ...), and the text formats only ffmpeg's demuxers know (JACOsub, RealText, PJS, AQTitle, and
Scenarist SCC, whose CEA-608 caption codes ffmpeg decodes).

A video's stream comes out as srt, vtt or ass through ffmpeg's own encoders (which keep bold, italic,
underline and colour, and an ASS stream's styles); as any other subtitle format through SubRip (or
ASS, for an ASS stream) read and written in-process (convert.py). The ffmpeg-only text formats go
through ASS, whose hundredths hold their times (tenths, hundredths, 25 fps frames; SCC's 29.97 fps
frames to the hundredth), and are written in-process like every other subtitle, empty cues left out.

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
from mcv_pipelines.service.engines.options import FILENAME, float_option, int_option, str_option
from mcv_pipelines.service.engines.process import find_program, run_checked
from mcv_pipelines.service.engines.program_engine import ProgramEngine
from mcv_pipelines.service.engines.subtitle.decode import decode_subtitle
from mcv_pipelines.service.engines.subtitle.formats import ENCODING, FPS, PYSUBS2_OUTPUTS, STREAM
from mcv_pipelines.service.engines.subtitle.streams import SubtitleStream, chosen_streams, subtitle_streams

__all__ = ["FfmpegSubtitleEngine"]

# containers that carry text subtitles -> the demuxer that reads them
VIDEOS = {"mkv": "matroska", "webm": "matroska", "mp4": "mov", "m4v": "mov", "mov": "mov", "3gp": "mov"}
# text formats only ffmpeg reads -> its demuxer
TEXTS = {"jss": "jacosub", "rt": "realtext", "pjs": "pjs", "aqt": "aqtitle", "scc": "scc"}
# what ffmpeg writes itself -> (encoder, muxer)
DIRECT = {"srt": ("srt", "srt"), "vtt": ("webvtt", "webvtt"), "ass": ("ass", "ass")}
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
        if not all(encoder in caps.encoders and muxer in caps.muxers for encoder, muxer in DIRECT.values()):
            return []
        videos = [v for v, demuxer in VIDEOS.items() if demuxer in caps.demuxers]
        texts = [t for t, demuxer in TEXTS.items() if demuxer in caps.demuxers]
        listed = []
        for target in PYSUBS2_OUTPUTS:
            rate = (FPS,) if target == "sub" else ()
            listed += self.convert_pairs(videos, [target], (FILENAME, STREAM, *rate))
            listed += self.convert_pairs(texts, [target], (FILENAME, ENCODING, *rate), lambda s, t: s != t)
        return listed

    def conversion_types(self) -> Iterable[ConversionType]:
        return self._listing

    def run(self, request: EngineRequest) -> EngineResult:
        source, target = request.input_format, request.output_format
        known = source in VIDEOS or source in TEXTS
        if (
            request.operation != "convert"
            or not known
            or target not in PYSUBS2_OUTPUTS
            or self.program is None
        ):
            raise EngineError(
                UNSUPPORTED_CONVERSION, f"ffmpeg-subtitles does not convert {source} to {target}"
            )
        path = single_input(request)
        alone = request.work_dir / "subtitle-input"
        alone.mkdir(parents=True, exist_ok=True)
        copy = alone / f"input.{source}"
        if source in TEXTS:
            encoding = str_option(request.options, "encoding")
            copy.write_text(decode_subtitle(path.read_bytes(), path.name, source, encoding), encoding="utf-8")
            target_path = output_path(request, target)
            self._extract(request, copy, TEXTS[source], None, target_path, f"reading {path.name}")
            return EngineResult(files=[target_path])
        shutil.copyfile(path, copy)
        choice = int_option(request.options, "subtitle_stream", None, minimum=0, maximum=999)
        streams = chosen_streams(self._streams(request, copy, path.name), choice, path.name)
        files = []
        for number, stream in enumerate(streams, 1):
            target_path = self._stream_path(request, stream, number, single=choice is not None)
            what = f"extracting subtitle stream {stream.position} of {path.name}"
            self._extract(request, copy, VIDEOS[source], stream, target_path, what)
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

    def _extract(
        self,
        request: EngineRequest,
        copy: Path,
        demuxer: str,
        stream: SubtitleStream | None,
        target: Path,
        what: str,
    ) -> None:
        """ffmpeg straight to ``target`` where it writes the format and the input is a video; else to
        SubRip or ASS in the work directory, converted in-process."""
        fmt = request.output_format
        if stream is not None and fmt in DIRECT:
            self._ffmpeg(request, copy, demuxer, stream, fmt, target, what)
            return
        between = "ass" if stream is None or stream.codec in ("ass", "ssa") else "srt"
        step = request.work_dir / f"between-{target.stem}.{between}"
        self._ffmpeg(request, copy, demuxer, stream, between, step, what)
        from mcv_pipelines.service.engines.subtitle.convert import read_subtitle, write_subtitle

        subs = read_subtitle(step.read_text(encoding="utf-8"), between, None)
        subs.events = [event for event in subs.events if event.plaintext.strip()]
        if not subs.events:
            raise EngineError("CONVERSION_FAILED", f"{what} found no cue with text")
        fps = float_option(request.options, "fps", None, minimum=1, maximum=1000)
        target.write_text(write_subtitle(subs, fmt, fps), encoding="utf-8")

    def _ffmpeg(
        self, request: EngineRequest, copy: Path, demuxer: str, stream: SubtitleStream | None, fmt: str,
        target: Path, what: str,
    ) -> None:  # fmt: skip
        assert self.program is not None
        encoder, muxer = DIRECT[fmt]
        argv = [self.program, "-hide_banner", "-nostdin", "-y", "-loglevel", "error", *_PROTOCOLS,
                "-f", demuxer, "-i", copy.name, "-map", f"0:s:{stream.position if stream else 0}",
                "-c:s", encoder, "-f", muxer, str(target)]  # fmt: skip
        run_checked(argv, what=what, cwd=copy.parent, timeout=request.timeout, cancelled=request.cancelled)
        if not target.is_file() or target.stat().st_size == 0:
            raise EngineError("CONVERSION_FAILED", f"{what} wrote nothing (no cue with text?)")
