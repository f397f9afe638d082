"""Audio and video with ffmpeg: convert, thumbnail, metadata (ffprobe), metadata/write, watermark, command.

Formats and codecs are limited to what the installed ffmpeg has (ffmpeg_formats.py); the options and
the arguments they become are in ffmpeg_options.py; the text watermark is in ffmpeg_watermark.py.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from mcv_pipelines.service.engines.av.formats import (
    FORMATS,
    INPUT_FORMATS,
    NO_AAC_INPUTS,
    SILENT_INPUTS,
    THUMBNAIL_FORMATS,
    UNPROVEN,
    FfmpegCapabilities,
    probe_capabilities,
)
from mcv_pipelines.service.engines.av.niche_formats import NEEDS_SOUND, source_arguments
from mcv_pipelines.service.engines.av.options import (
    convert_arguments,
    convert_options,
    parse_time,
    scale_filter,
    trim_arguments,
    written_seconds,
)
from mcv_pipelines.service.engines.av.watermark import (
    WATERMARK_OPTIONS,
    find_font,
    watermark_filter,
)
from mcv_pipelines.service.engines.base import (
    ConversionType,
    EngineError,
    EngineRequest,
    EngineResult,
    EngineVersion,
    OptionSpec,
)
from mcv_pipelines.service.engines.command import (
    FFMPEG_INPUT_PROTOCOLS,
    FFMPEG_REFUSED_OPTIONS,
    CommandFamily,
    command_conversion_type,
    local_inputs_only,
    run_command,
)
from mcv_pipelines.service.engines.naming import output_path, single_input
from mcv_pipelines.service.engines.process import find_program, program_version, run_checked
from mcv_pipelines.service.engines.progress import FfmpegProgress, line_pipe

__all__ = ["FfmpegEngine"]

_BASE = ("-hide_banner", "-nostdin", "-y", "-loglevel", "error")
# raw ADTS, MPEG program and transport streams, 3GP (ffmpeg writes no title there) and animations
# have nowhere to keep tags: ffmpeg would drop them silently
_NO_TAGS = frozenset(
    {"aac", "mpeg", "ts", "3gp", "3g2", "vob", "m2ts", "ac3", "w64", "mp2", "gif", "apng", "webp"}
    # issue 23, breadth: every added container but qt, ismv, wtv, rm, ra, m4r, weba and aif (tried)
    | {"mpg", "mxf", "dv", "gxf", "swf", "smjpeg", "mjpeg", "y4m", "ivf", "m1v", "m2v", "h264", "hevc"}
    | {"eac3", "dts", "thd", "mlp", "voc", "ircam", "sox", "rso", "ast", "mmf", "adx", "aud", "aptx"}
    | {"sbc", "g722", "gsm", "c2"}
    # issue 47: the raw streams and game formats (m4v, mk3d, ogx, isma and aifc keep tags)
    | {"mts", "h263", "obu", "amv", "cpk", "dfpwm", "apm", "tco", "latm", "msbc"}
)


class FfmpegEngine:
    """The ``ffmpeg`` engine; see the module docstring for its operations."""

    name = "ffmpeg"
    # Pairs that fail whatever way their input arrives (routes/ reads it: no route makes them either)
    refused_pairs = UNPROVEN

    def __init__(self) -> None:
        self.ffmpeg = find_program("ffmpeg")
        self.ffprobe = find_program("ffprobe")

    def version(self) -> str | None:
        return self._version

    @functools.cached_property
    def _version(self) -> str | None:
        if not self.ffmpeg or not self.ffprobe:
            return None
        return program_version([self.ffmpeg, "-version"], r"ffmpeg version n?(\d[\w.]*)")

    @functools.cached_property
    def _caps(self) -> FfmpegCapabilities:
        assert self.ffmpeg is not None
        return probe_capabilities(self.ffmpeg)

    @functools.cached_property
    def _font(self) -> Path | None:
        return find_font()

    @property
    def _family(self) -> CommandFamily:
        assert self.ffmpeg
        assert self.ffprobe
        programs = {"ffmpeg": self.ffmpeg, "ffprobe": self.ffprobe}
        return CommandFamily(self.name, programs, "ffmpeg", FFMPEG_REFUSED_OPTIONS)

    def conversion_types(self) -> Iterable[ConversionType]:
        return self._listing

    @functools.cached_property
    def _listing(self) -> tuple[ConversionType, ...]:
        """Built once per engine, from what is itself kept (version, capabilities, font): rebuilding
        its ~250 entries took 1.6 ms, and every lookup of a conversion Pillow does not list (audio,
        video, office, html) went through it."""
        version = self.version()
        if version is None:
            return ()
        caps = self._caps
        versions = (EngineVersion(version),)
        readable = [ext for ext, (demuxer, _) in INPUT_FORMATS.items() if demuxer in caps.demuxers]
        writable = [ext for ext, media in FORMATS.items() if caps.writable(media)]
        types: list[ConversionType] = []
        for source in readable:
            source_is_video = INPUT_FORMATS[source][1]
            for target in writable:
                media = FORMATS[target]
                # Same format included: re-encoding mp4 to a smaller mp4 (crf, width, trim) is common.
                if (media.video and not source_is_video) or (not media.video and source in SILENT_INPUTS):
                    continue
                if target in NEEDS_SOUND and source in SILENT_INPUTS:
                    continue
                if (source in NO_AAC_INPUTS and media.audio_encoder == "aac") or (source, target) in UNPROVEN:
                    continue
                types.append(
                    ConversionType(
                        "convert",
                        source,
                        target,
                        self.name,
                        options=convert_options(media, caps),
                        engine_versions=versions,
                    )
                )
            types.append(ConversionType("metadata", source, "json", self.name, engine_versions=versions))
            if source in writable and source not in _NO_TAGS:
                types.append(
                    ConversionType(
                        "metadata/write",
                        source,
                        source,
                        self.name,
                        engine_versions=versions,
                        options=(OptionSpec("metadata", "dictionary"),),
                    )
                )
            if not source_is_video:
                continue
            for target, encoder in THUMBNAIL_FORMATS.items():
                if encoder in caps.encoders:
                    types.append(
                        ConversionType(
                            "thumbnail",
                            source,
                            target,
                            self.name,
                            engine_versions=versions,
                            options=_THUMBNAIL_OPTIONS,
                        )
                    )
            drawable = "drawtext" in caps.filters and self._font is not None
            if source in writable and source not in SILENT_INPUTS and drawable:
                types.append(
                    ConversionType(
                        "watermark",
                        source,
                        source,
                        self.name,
                        engine_versions=versions,
                        options=WATERMARK_OPTIONS,
                    )
                )
        types.append(command_conversion_type(self._family, version))
        return tuple(types)

    def run(self, request: EngineRequest) -> EngineResult:
        if self.version() is None:
            raise EngineError("ENGINE_UNAVAILABLE", "ffmpeg is not installed on this machine")
        handlers = {
            "convert": self._convert,
            "thumbnail": self._thumbnail,
            "metadata": self._metadata,
            "metadata/write": self._write_metadata,
            "watermark": self._watermark,
        }
        if request.operation == "command":
            return run_command(self._family, request)
        handler = handlers.get(request.operation)
        if handler is None:
            raise EngineError("UNSUPPORTED_OPERATION", f"ffmpeg does not run {request.operation}")
        return handler(request)

    def _ffmpeg(
        self, request: EngineRequest, argv: list[str], what: str, seconds: float | None = None
    ) -> None:
        """Run ffmpeg; given the ``seconds`` it writes, its ``-progress`` (on a pipe of its own, so the
        error output stays clean) moves the task's percent."""
        assert self.ffmpeg is not None
        parser = FfmpegProgress(seconds, request.progress)
        with line_pipe(parser.feed) as fd:
            run_checked(
                [self.ffmpeg, *_BASE, "-progress", f"pipe:{fd}", *local_inputs_only(argv)],
                what=what,
                cwd=request.work_dir,
                timeout=request.timeout,
                cancelled=request.cancelled,
                pass_fds=(fd,),
            )

    def _probe(self, request: EngineRequest, source: Path) -> dict[str, Any]:
        assert self.ffprobe is not None
        try:
            probe = ["-protocol_whitelist", FFMPEG_INPUT_PROTOCOLS, "-show_format", "-show_streams"]
            outcome = run_checked(
                [self.ffprobe, "-v", "error", "-of", "json", *probe, str(source)],
                what=f"reading {source.name}",
                timeout=request.timeout,
                cancelled=request.cancelled,
                answer_only=True,  # the JSON alone: a warning on stderr is no part of it
            )
        except EngineError as exc:
            if exc.code != "CONVERSION_FAILED":
                raise
            # ffprobe refusing the file means the input is broken, not that the conversion went wrong.
            reason = exc.message.split(" failed: ", 1)[-1]
            problem = f"{source.name} is not a media file ffmpeg can read (corrupt or truncated?)"
            raise EngineError("INVALID_INPUT", f"{problem}: {reason}") from None
        try:
            data = json.loads(outcome.output)
        except json.JSONDecodeError:
            raise EngineError(
                "INVALID_INPUT", f"{source.name} is not a media file ffprobe can read"
            ) from None
        if not isinstance(data, dict) or not data.get("streams"):
            raise EngineError("INVALID_INPUT", f"{source.name} has no audio or video stream")
        return data

    def _convert(self, request: EngineRequest) -> EngineResult:
        media = FORMATS.get(request.output_format)
        if media is None or not self._caps.writable(media):
            raise EngineError("UNSUPPORTED_CONVERSION", f"ffmpeg here cannot write {request.output_format}")
        source = single_input(request)
        info = self._probe(request, source)
        before, after = trim_arguments(request.options)
        target = output_path(request, request.output_format)
        argv = [
            *before,
            "-i",
            str(source),
            *after,
            *source_arguments(request.input_format, request.output_format),
            *convert_arguments(media, self._caps, request.options),
            str(target),
        ]
        seconds = written_seconds(_duration(info), request.options)
        self._ffmpeg(request, argv, f"converting {source.name} to {request.output_format}", seconds)
        return EngineResult(files=[target])

    def _thumbnail(self, request: EngineRequest) -> EngineResult:
        encoder = THUMBNAIL_FORMATS.get(request.output_format)
        if encoder is None:
            raise EngineError(
                "UNSUPPORTED_CONVERSION", f"thumbnails are png, jpg or webp, not {request.output_format}"
            )
        source = single_input(request)
        info = self._probe(request, source)
        duration = _duration(info) or 0
        at = parse_time(request.options, "timestamp") or 0.0
        if duration and at >= duration:
            raise EngineError(
                "INVALID_OPTION", f"timestamp {at:g}s is past the end of the video ({duration:.2f}s)"
            )
        target = output_path(request, request.output_format)
        scale = scale_filter(request.options)
        argv = [
            "-ss",
            f"{at:.3f}",
            "-i",
            str(source),
            "-frames:v",
            "1",
            "-an",
            "-c:v",
            encoder,
            *(["-vf", scale] if scale else []),
            "-update",
            "1",
            "-f",
            "image2",
            str(target),
        ]
        self._ffmpeg(request, argv, f"taking a thumbnail of {source.name}")
        if not target.is_file() or target.stat().st_size == 0:
            raise EngineError("CONVERSION_FAILED", f"no video frame at {at:g}s in {source.name}")
        return EngineResult(files=[target])

    def _metadata(self, request: EngineRequest) -> EngineResult:
        source = single_input(request)
        info = self._probe(request, source)
        # ffprobe names the file by its path in the service's data directory: show the name only.
        file_format = {**info.get("format", {}), "filename": source.name}
        return EngineResult(extra={"metadata": {"format": file_format, "streams": info["streams"]}})

    def _write_metadata(self, request: EngineRequest) -> EngineResult:
        values = request.options.get("metadata")
        if not isinstance(values, dict) or not values:
            raise EngineError("INVALID_OPTION", "metadata must be an object of key to value")
        pairs: list[str] = []
        for key, value in values.items():
            if not isinstance(key, str) or not key or "=" in key or not isinstance(value, (str, int, float)):
                raise EngineError(
                    "INVALID_OPTION", f"metadata entry {key!r} must map a name to a text or number"
                )
            pairs += ["-metadata", f"{key}={value}"]
        media = FORMATS.get(request.input_format)
        if media is None or request.input_format in _NO_TAGS:
            raise EngineError(
                "UNSUPPORTED_CONVERSION", f"ffmpeg here cannot write metadata into {request.input_format}"
            )
        source = single_input(request)
        self._probe(request, source)
        target = output_path(request, request.input_format)
        argv = [
            "-i",
            str(source),
            "-map",
            "0",
            "-c",
            "copy",
            "-map_metadata",
            "0",
            *pairs,
            "-f",
            media.muxer,
            str(target),
        ]
        self._ffmpeg(request, argv, f"writing metadata of {source.name}")
        return EngineResult(files=[target])

    def _watermark(self, request: EngineRequest) -> EngineResult:
        if self._font is None or "drawtext" not in self._caps.filters:
            raise EngineError(
                "UNSUPPORTED_OPERATION", "ffmpeg here cannot draw text (no drawtext filter or font)"
            )
        media = FORMATS.get(request.input_format)
        if media is None or not media.video:
            raise EngineError(
                "UNSUPPORTED_CONVERSION", f"watermark needs a video, not {request.input_format}"
            )
        source = single_input(request)
        info = self._probe(request, source)
        drawtext = watermark_filter(request.options, self._font, request.work_dir)
        target = output_path(request, request.input_format)
        codec_args = convert_arguments(media, self._caps, {"preset": "veryfast", "audio_codec": "copy"})
        argv = ["-i", str(source), "-vf", drawtext, *codec_args, str(target)]
        self._ffmpeg(request, argv, f"watermarking {source.name}", _duration(info))
        return EngineResult(files=[target])


_THUMBNAIL_OPTIONS = (
    OptionSpec("timestamp", "string", "0", None, "Time of the frame (seconds or HH:MM:SS)"),
    OptionSpec("width", "integer", None, None, "Width in pixels; height follows when unset"),
    OptionSpec("height", "integer", None, None, "Height in pixels; width follows when unset"),
)


def _duration(info: dict[str, Any]) -> float | None:
    """The input's length in seconds as ffprobe read it (None for a still image or an unknown one)."""
    try:
        return float(info.get("format", {}).get("duration") or 0) or None
    except (TypeError, ValueError):
        return None
