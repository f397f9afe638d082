"""Subtitle seeds for bench/formats.py: every text format written by hand (the same two cues, the
first from 1.234 s where the format holds milliseconds), and videos carrying subtitle streams, muxed
by ffmpeg from the hand-written SubRip. A video's subtitled seed is kept apart (``mkv:subtitled``) and
used only for the pairs that extract subtitles: the ffmpeg engine's pairs keep their plain video."""

from __future__ import annotations

import subprocess
from pathlib import Path

__all__ = ["FIRST_START_MS", "SUBTITLE_FORMATS", "pair_sample", "subtitle_seeds"]

SUBTITLE_FORMATS = frozenset(
    {"srt", "vtt", "ass", "ssa", "ttml", "dfxp", "itt", "usf", "sbv", "sub", "lrc", "smi"}
    | {"jss", "rt", "pjs", "aqt", "scc"}
)
_VIDEOS = {"mkv": ("matroska", "srt"), "webm": ("webm", "webvtt"), "mp4": ("mp4", "mov_text"),
           "m4v": ("mp4", "mov_text"), "mov": ("mov", "mov_text"), "3gp": ("3gp", "mov_text")}  # fmt: skip

_ASS_HEAD = """[Script Info]
ScriptType: {version}
PlayResX: 384
PlayResY: 288

[{styles}]
Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, \
Italic, {rest}
Style: Default,Arial,20,&H00FFFFFF,&H000000FF,&H00000000,&H00000000,0,0,{values}
Style: Shout,Arial,24,&H0000FFFF,&H000000FF,&H00000000,&H00000000,-1,0,{values}

[Events]
Format: {layer}, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text
"""
_ASS_REST = ("Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, "
             "MarginL, MarginR, MarginV, Encoding", "0,0,100,100,0,0,1,2,2,2,10,10,10,1")  # fmt: skip
_SSA_REST = ("BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, AlphaLevel, Encoding",
             "1,2,2,2,10,10,10,0,1")  # fmt: skip


def _ass(version: str) -> str:
    v4plus = version == "v4.00+"
    rest, values = _ASS_REST if v4plus else _SSA_REST
    head = _ASS_HEAD.format(
        version=version, styles="V4+ Styles" if v4plus else "V4 Styles", rest=rest, values=values,
        layer="Layer" if v4plus else "Marked",
    )  # fmt: skip
    first = "0" if v4plus else "Marked=0"
    return (head + f"Dialogue: {first},0:00:01.23,0:00:03.46,Default,,0,0,0,,Hello {{\\b1}}Quokka{{\\b0}}\\N"
            "second line é\n"
            f"Dialogue: {first},0:00:04.00,0:00:05.50,Shout,,0,0,0,,"
            "{\\i1}second{\\i0} cue\n")  # fmt: skip


def _cea608(text: str) -> str:
    """``text`` as CEA-608 byte pairs in hex, each byte with odd parity, as SCC writes them."""
    raw = [b | (0x80 if bin(b).count("1") % 2 == 0 else 0) for b in text.encode("ascii")]
    raw += [0x80] * (len(raw) % 2)
    return " ".join(f"{raw[i]:02x}{raw[i + 1]:02x}" for i in range(0, len(raw), 2))


# SCC pop-on captions: load (9420), erase the hidden buffer (94ae), row 15 (9452), text, show (942f),
# and clear (942c) two seconds on; the caption shows from its line's timecode, 1 s
_SCC = (
    "Scenarist_SCC V1.0\n\n"
    f"00:00:01:00\t9420 9420 94ae 94ae 9452 9452 {_cea608('Hello Quokka')} 942f 942f\n\n"
    "00:00:03:00\t942c 942c\n\n"
)

TEXTS = {
    "srt": "1\n00:00:01,234 --> 00:00:03,456\nHello <b>Quokka</b>\nsecond line é\n\n"
    '2\n00:00:04,000 --> 00:00:05,500\n<i>second</i> <font color="#ff0000">cue</font>\n',
    "vtt": "WEBVTT\n\nNOTE made by hand\n\nfirst\n00:00:01.234 --> 00:00:03.456 align:center\n"
    "Hello <b>Quokka</b>\nsecond line é\n\n00:00:04.000 --> 00:00:05.500\n<i>second</i> &amp; cue\n",
    "ass": _ass("v4.00+"),
    "ssa": _ass("v4.00"),
    "ttml": '<?xml version="1.0" encoding="utf-8"?>\n<tt xmlns="http://www.w3.org/ns/ttml" '
    'xmlns:tts="http://www.w3.org/ns/ttml#styling" xml:lang="en"><body><div>\n'
    '<p begin="00:00:01.234" end="00:00:03.456">Hello <span tts:fontWeight="bold">Quokka</span><br/>'
    'second line é</p>\n<p begin="4s" end="5.5s">second cue</p>\n</div></body></tt>\n',
    # DFXP in the 2006 draft's namespaces, times as offsets in ticks of a declared rate (1.5 s)
    "dfxp": '<?xml version="1.0" encoding="utf-8"?>\n<tt xmlns="http://www.w3.org/2006/10/ttaf1" '
    'xmlns:tts="http://www.w3.org/2006/10/ttaf1#styling" '
    'xmlns:ttp="http://www.w3.org/2006/10/ttaf1#parameter" ttp:tickRate="10000000"><body><div>'
    '<p begin="15000000t" end="30000000t">Hello <span tts:fontStyle="italic">Quokka</span><br/>'
    'second line é</p>\n<p begin="40000000t" end="55000000t">second cue</p></div></body></tt>\n',
    # iTunes Timed Text as Final Cut Pro exports it: SMPTE time base, 25 fps frames (1:06 is 1.240 s),
    # styles and regions in the head, referred to from the body
    "itt": '<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n<tt xml:lang="en" '
    'xmlns="http://www.w3.org/ns/ttml" xmlns:tts="http://www.w3.org/ns/ttml#styling" '
    'xmlns:ttm="http://www.w3.org/ns/ttml#metadata" xmlns:ttp="http://www.w3.org/ns/ttml#parameter" '
    'ttp:timeBase="smpte" ttp:frameRate="25" ttp:dropMode="nonDrop">\n<head>\n<styling>\n'
    '<style xml:id="normal" tts:fontFamily="sansSerif" tts:fontWeight="normal" tts:fontStyle="normal" '
    'tts:color="white" tts:fontSize="100%"/>\n</styling>\n<layout>\n<region xml:id="bottom" '
    'tts:origin="0% 0%" tts:extent="100% 100%" tts:textAlign="center" tts:displayAlign="after"/>\n'
    '</layout>\n</head>\n<body style="normal" region="bottom">\n<div>\n'
    '<p begin="00:00:01:06" end="00:00:03:11">Hello Quokka<br/>second line é</p>\n'
    '<p begin="00:00:04:00" end="00:00:05:12">second cue</p>\n</div>\n</body>\n</tt>\n',
    # USF by hand, with the elements of its 1.0 specification: metadata, styles, a <subtitle> a cue
    "usf": '<?xml version="1.0" encoding="UTF-8"?>\n<USFSubtitles version="1.0">\n<metadata>'
    '<title>Quokka</title><language code="eng">English</language></metadata>\n<styles><style name="Default">'
    '<fontstyle face="Arial" size="24" color="#FFFFFF"/><position alignment="BottomCenter"/></style></styles>'
    '\n<subtitles>\n<subtitle start="00:00:01.234" stop="00:00:03.456"><text style="Default">Hello '
    '<font italic="yes">Quokka</font><br/>second line é</text></subtitle>\n'
    '<subtitle start="00:00:04.000" stop="00:00:05.500"><text style="Default">second cue</text></subtitle>\n'
    "</subtitles>\n</USFSubtitles>\n",
    "sbv": "0:00:01.234,0:00:03.456\nHello Quokka\nsecond line é\n\n0:00:04.000,0:00:05.500\nsecond cue\n",
    # MicroDVD at its declared 25 fps: frame 31 is 1.240 s
    "sub": "{1}{1}25\n{31}{86}{y:b}Hello Quokka|second line é\n{100}{137}second cue\n",
    "smi": "<SAMI>\n<HEAD><TITLE>Quokka</TITLE></HEAD>\n<BODY>\n"
    "<SYNC Start=1234><P Class=ENCC>Hello <b>Quokka</b>"
    "<br>second line é\n<SYNC Start=3456><P Class=ENCC>&nbsp;\n<SYNC Start=4000><P Class=ENCC>second cue\n"
    "<SYNC Start=5500><P Class=ENCC>&nbsp;\n</BODY>\n</SAMI>\n",
    "lrc": "[ti:Quokka song]\n[00:01.23]Hello Quokka\n[00:03.46]\n[00:04.00]second cue\n[00:05.50]\n",
    "jss": "#TIMERES 100\n\n0:00:01.23 0:00:03.45 D Hello Quokka\\nsecond line é\n"
    "0:00:04.00 0:00:05.50 D second cue\n",
    "rt": '<window type="generic" duration="00:00:10.00" wordwrap="true"><time begin="00:00:01.23" '
    'end="00:00:03.45"/><clear/>Hello Quokka<br/>second line é\n<time begin="00:00:04.00" end="00:00:05.50"/>'
    "<clear/>second cue\n</window>\n",
    "pjs": '12,35,"Hello Quokka|second line é"\n40,55,"second cue"\n',  # tenths of a second
    "scc": _SCC,
    # frames at 25 fps
    "aqt": "-->> 31\nHello Quokka\nsecond line é\n-->> 86\n\n-->> 100\nsecond cue\n-->> 137\n\n",
}
# The first cue's start in each seed, as its format holds it (ms); a video's, from the SubRip it was made of
FIRST_START_MS = {
    "srt": 1234, "vtt": 1234, "ass": 1230, "ssa": 1230, "ttml": 1234, "dfxp": 1500, "itt": 1240, "usf": 1234,
    "sbv": 1234, "sub": 1240,
    "smi": 1234, "lrc": 1230, "scc": 1000, "jss": 1230, "rt": 1230, "pjs": 1200, "aqt": 1240,
    **dict.fromkeys(_VIDEOS, 1234),
}  # fmt: skip


def _video(path: Path, muxer: str, codec: str, srt: Path) -> None:
    """One second of picture and a silent-free track each language: eng from the seed, fra a copy."""
    subprocess.run(
        ["ffmpeg", "-hide_banner", "-loglevel", "error", "-nostdin", "-y",
         "-f", "lavfi", "-i", "testsrc=size=64x48:rate=10:duration=6", "-i", str(srt), "-i", str(srt),
         "-map", "0:v", "-map", "1:s", "-map", "2:s", "-c:v", "libvpx" if muxer == "webm" else "mpeg4",
         "-c:s", codec, "-metadata:s:s:0", "language=eng", "-metadata:s:s:1", "language=fra",
         "-f", muxer, str(path)],
        check=True,
    )  # fmt: skip


def subtitle_seeds(directory: Path, wanted: set[str]) -> dict[str, Path]:
    """Seeds of the subtitle formats in ``wanted``, and ``<video>:subtitled`` for its video formats."""
    seeds: dict[str, Path] = {}
    for fmt, text in TEXTS.items():
        if fmt in wanted:
            seeds[fmt] = directory / f"sample.{fmt}"
            seeds[fmt].write_text(text, encoding="utf-8")
    srt = directory / "subtitled-source.srt"
    srt.write_text(TEXTS["srt"], encoding="utf-8")
    for fmt, (muxer, codec) in _VIDEOS.items():
        if fmt in wanted:
            path = directory / f"subtitled.{fmt}"
            _video(path, muxer, codec, srt)
            seeds[f"{fmt}:subtitled"] = path
    return seeds


def pair_sample(samples: dict[str, Path], source: str, target: str) -> Path | None:
    """The sample a pair converts: a video's subtitled seed where subtitles come out of it."""
    if target in SUBTITLE_FORMATS and f"{source}:subtitled" in samples:
        return samples[f"{source}:subtitled"]
    return samples.get(source)
