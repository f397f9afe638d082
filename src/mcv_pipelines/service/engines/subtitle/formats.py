"""The text subtitle formats, what each holds, and the options their conversions take."""

from __future__ import annotations

from mcv_pipelines.service.engines.base import OptionSpec
from mcv_pipelines.service.engines.options import FILENAME

__all__ = [
    "ENCODING",
    "FPS",
    "PYSUBS2_INPUTS",
    "PYSUBS2_OUTPUTS",
    "STREAM",
    "options_for",
]

# read in-process: srt, vtt, sbv, lrc by cues.py; ass, ssa, ttml, sub (MicroDVD), smi (SAMI) by pysubs2
# dfxp: TTML's first name (Flash, Netflix), read in its old namespaces too and written as TTML; itt:
# Apple's iTunes Timed Text (Final Cut Pro, iTunes/Apple TV delivery), a TTML 1.0 subset with SMPTE
# frame times, read as TTML (written: no, Apple's profile constraints cannot be proven here)
# usf: Universal Subtitle Format, Matroska's early XML subtitles (usf.py; words and times, no styles)
PYSUBS2_INPUTS = ("srt", "vtt", "ass", "ssa", "ttml", "dfxp", "itt", "usf", "sbv", "sub", "smi", "lrc")
# written in-process: ASS and SSA by pysubs2, the others by cues.py, ttml.py and convert.py; JACOsub,
# RealText, PJS and AQTitle by plain_writers.py and Scenarist SCC by scc.py (ffmpeg reads, not writes, them)
PYSUBS2_OUTPUTS = (
    "srt", "vtt", "ass", "ssa", "ttml", "dfxp", "sbv", "sub", "smi", "lrc", "jss", "rt", "pjs", "aqt", "scc",
)  # fmt: skip

ENCODING = OptionSpec(
    "encoding",
    "string",
    None,
    None,
    "Text encoding of the input (utf-8, cp1252, latin-1, utf-16 ...); unset: UTF-8 or UTF-16 with "
    "a byte-order mark, else Windows-1252. Output is always UTF-8.",
)
FPS = OptionSpec(
    "fps",
    "float",
    23.976,
    None,
    "Frame rate of a MicroDVD (sub) file, whose times are frames; unset when reading: the rate the "
    "file declares on its first line ({1}{1}25), else 23.976",
)
STREAM = OptionSpec(
    "subtitle_stream",
    "integer",
    None,
    None,
    "Which subtitle stream of the video to extract (0 is its first subtitle stream); unset: every "
    "text subtitle stream, each as a file of its own named with its index and language",
)


def options_for(source: str, target: str) -> tuple[OptionSpec, ...]:
    """The options of one pair: the frame rate only where MicroDVD is on either side."""
    return (FILENAME, ENCODING, *((FPS,) if "sub" in (source, target) else ()))
