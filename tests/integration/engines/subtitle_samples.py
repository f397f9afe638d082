"""Subtitle inputs for the subtitle tests, written by hand; videos carrying them muxed by ffmpeg."""

from __future__ import annotations

import struct
import subprocess
from pathlib import Path

__all__ = ["ASS", "SCC", "SRT", "pgs_video", "subtitled_video"]

SRT = (
    "1\n00:00:01,234 --> 00:00:03,456\nHello <b>Quokka</b>\nsecond line é ü\n\n"
    '2\n01:02:03,004 --> 01:02:05,678\n<i>second</i> <font color="#ff0000">red</font> cue\n'
)
ASS = """[Script Info]
ScriptType: v4.00+

[V4+ Styles]
Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, \
Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, \
MarginR, MarginV, Encoding
Style: Default,Arial,20,&H00FFFFFF,&H000000FF,&H00000000,&H00000000,0,0,0,0,100,100,0,0,1,2,2,2,10,10,10,1
Style: Shout,Arial,24,&H0000FFFF,&H000000FF,&H00000000,&H00000000,-1,0,0,0,100,100,0,0,1,2,2,2,10,10,10,1

[Events]
Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text
Dialogue: 0,0:00:01.23,0:00:03.46,Default,,0,0,0,,Plain {\\i1}Quokka{\\i0}\\Nand {\\c&H00FF00&}green{\\c}
Dialogue: 0,0:00:04.00,0:00:05.50,Shout,,0,0,0,,LOUD
"""

# Scenarist pop-on captions: "Hi Quokka" (CEA-608 bytes, odd parity) shown at 00:00:02:00, cleared at 4 s
SCC = (
    "Scenarist_SCC V1.0\n\n00:00:02:00\t9420 9420 94ae 94ae 9452 9452 c8e9 2051 75ef 6b6b 6180 942f 942f\n\n"
    "00:00:04:00\t942c 942c\n\n"
)


def subtitled_video(ffmpeg: str, path: Path, srt: Path, codec: str = "srt") -> Path:
    """Three seconds of picture with two subtitle streams from ``srt``: eng, then fra."""
    subprocess.run(
        [ffmpeg, "-hide_banner", "-loglevel", "error", "-nostdin", "-y",
         "-f", "lavfi", "-i", "testsrc=size=64x48:rate=10:duration=3", "-i", str(srt), "-i", str(srt),
         "-map", "0:v", "-map", "1:s", "-map", "2:s", "-c:v", "mpeg4", "-c:s", codec,
         "-metadata:s:s:0", "language=eng", "-metadata:s:s:1", "language=fra", str(path)],
        check=True,
    )  # fmt: skip
    return path


def _pgs_segment(pts: int, kind: int, payload: bytes) -> bytes:
    return b"PG" + struct.pack(">IIBH", pts, 0, kind, len(payload)) + payload


def pgs_video(ffmpeg: str, path: Path) -> Path:
    """A video whose one subtitle stream is Blu-ray PGS (pictures): two empty display sets, by hand."""
    composition = struct.pack(">HHBHBBBB", 64, 48, 0x10, 0, 0x80, 0, 0, 0)
    window = struct.pack(">BBHHHH", 1, 0, 0, 0, 64, 48)
    sup = path.with_suffix(".sup")
    sup.write_bytes(
        _pgs_segment(90000, 0x16, composition) + _pgs_segment(90000, 0x17, window)
        + _pgs_segment(90000, 0x80, b"") + _pgs_segment(180000, 0x16, composition)
        + _pgs_segment(180000, 0x80, b"")
    )  # fmt: skip
    subprocess.run(
        [ffmpeg, "-hide_banner", "-loglevel", "error", "-nostdin", "-y",
         "-f", "lavfi", "-i", "testsrc=size=64x48:rate=10:duration=3", "-i", str(sup),
         "-map", "0:v", "-map", "1:s", "-c:v", "mpeg4", "-c:s", "copy", str(path)],
        check=True,
    )  # fmt: skip
    return path
