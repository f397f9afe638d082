"""Text subtitles to each other, in-process, on pysubs2's model with readers and writers of our own.

Chosen over ffmpeg for these pairs (both were run on the same cues): ffmpeg cuts ASS times to the
hundredth below (3.456 s -> 3.45) where pysubs2 rounds (3.46), reads no TTML, SBV or DFXP, writes no
MicroDVD, SBV, SSA or SAMI, drops every style in TTML and leaves SubRip's tags inside LRC lines.
pysubs2 itself drops bold and colour writing SubRip and WebVTT, reads no TTML style and guesses SAMI
ends from the text's length, so it keeps ASS/SSA (read and written) and MicroDVD (read); SubRip,
WebVTT, SBV, LRC (cues.py), TTML/DFXP (ttml.py) and SAMI (sami.py) are ours. Nothing here opens a
path: the input's bytes are decoded by decode.py and parsed as text; an ASS file's [Fonts] and
[Graphics] are carried as the opaque text they are; a TTML document type is refused.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as package_version

from mcv_pipelines.service.engines.base import (
    ConversionType,
    EngineError,
    EngineRequest,
    EngineResult,
    EngineVersion,
)
from mcv_pipelines.service.engines.failures import INVALID_INPUT_FILE, UNSUPPORTED_CONVERSION, hide_paths
from mcv_pipelines.service.engines.naming import output_path, single_input
from mcv_pipelines.service.engines.options import float_option, str_option
from mcv_pipelines.service.engines.subtitle.decode import decode_subtitle, refuse_xml_declarations
from mcv_pipelines.service.engines.subtitle.formats import PYSUBS2_INPUTS, PYSUBS2_OUTPUTS, options_for

__all__ = ["SubtitleEngine"]

_NAMES = {
    "srt": "SubRip", "vtt": "WebVTT", "ass": "ASS", "ssa": "SSA", "ttml": "TTML", "dfxp": "DFXP",
    "itt": "iTT", "usf": "USF", "sbv": "SBV",
    "sub": "MicroDVD", "smi": "SAMI", "lrc": "LRC",
}  # fmt: skip


class SubtitleEngine:
    """The ``pysubs2`` engine: text subtitle formats to each other."""

    name = "pysubs2"

    def version(self) -> str | None:
        return self._version

    @functools.cached_property
    def _version(self) -> str | None:
        try:
            return package_version("pysubs2")
        except PackageNotFoundError:
            return None

    def conversion_types(self) -> Iterable[ConversionType]:
        version = self.version()
        if version is None:
            return []
        versions = (EngineVersion(version),)
        return [
            ConversionType("convert", s, t, self.name, options=options_for(s, t), engine_versions=versions)
            for s in PYSUBS2_INPUTS
            for t in PYSUBS2_OUTPUTS
            if s != t
        ]

    def run(self, request: EngineRequest) -> EngineResult:
        source, target = request.input_format, request.output_format
        if request.operation != "convert" or source not in PYSUBS2_INPUTS or target not in PYSUBS2_OUTPUTS:
            raise EngineError(
                UNSUPPORTED_CONVERSION, f"pysubs2 does not {request.operation} {source} to {target}"
            )
        from mcv_pipelines.service.engines.subtitle.convert import read_subtitle, write_subtitle

        path = single_input(request)
        fps = float_option(request.options, "fps", None, minimum=1, maximum=1000)
        encoding = str_option(request.options, "encoding")
        text = decode_subtitle(path.read_bytes(), path.name, source, encoding)
        if source in ("ttml", "dfxp", "itt", "usf"):
            refuse_xml_declarations(text, path.name)
        what = f"{path.name} as {_NAMES[source]}"
        try:
            subs = read_subtitle(text, source, fps)
        except EngineError:
            raise
        except Exception as exc:  # pysubs2 raises its own errors, ValueError, ParseError, NotImplementedError
            detail = (
                hide_paths(str(exc).strip().splitlines()[0][:200]) if str(exc).strip() else type(exc).__name__
            )
            raise EngineError(INVALID_INPUT_FILE, f"could not read {what}: {detail}") from exc
        if not any(event.plaintext.strip() for event in subs.get_text_events()):
            raise EngineError(INVALID_INPUT_FILE, f"{what} holds no cue with text (is it {_NAMES[source]}?)")
        target_path = output_path(request, target)
        target_path.write_text(write_subtitle(subs, target, fps), encoding="utf-8")
        return EngineResult(files=[target_path])
