"""Readers and writers of our own for the line-based formats: SubRip, WebVTT, YouTube's SBV and LRC.

pysubs2 reads SubRip and WebVTT with one parser, so a WebVTT cue identifier, NOTE or STYLE block ends
up in the text of the cue before it, and it has no SBV or LRC at all. These keep pysubs2's model
(``SSAFile`` of ``SSAEvent``, text as ASS markup) so every format meets every other in it.

Timing: SubRip, WebVTT and SBV hold milliseconds, kept exactly; LRC holds hundredths (rounded) and
no end: a cue ends where the next begins, or at an empty ``[mm:ss.xx]`` line, which the writer puts
where a cue ends before the next begins.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from pysubs2 import SSAEvent, SSAFile, SSAStyle

from mcv_pipelines.service.engines.subtitle.styled import (
    Look,
    html_to_ass,
    runs,
    to_sami_text,
    to_srt_text,
    to_vtt_text,
)

__all__ = ["LAST_LRC_CUE_MS", "READERS", "WRITERS", "look_of"]

LAST_LRC_CUE_MS = 5000  # how long the last line of an LRC file shows: the format gives it no end

_SRT_TIME = r"(\d{1,3}):(\d{1,2}):(\d{1,2})[,.](\d{1,3})"
_SRT_LINE = re.compile(rf"^\s*{_SRT_TIME}\s*-->\s*{_SRT_TIME}")
_VTT_TIME = r"(?:(\d{1,3}):)?(\d{1,2}):(\d{2})\.(\d{3})"
_VTT_LINE = re.compile(rf"^\s*{_VTT_TIME}\s*-->\s*{_VTT_TIME}")
_SBV_LINE = re.compile(
    r"^\s*(\d+):(\d{1,2}):(\d{1,2})\.(\d{1,3})\s*,\s*(\d+):(\d{1,2}):(\d{1,2})\.(\d{1,3})\s*$"
)
_LRC_STAMP = re.compile(r"\[(\d{1,4}):(\d{1,2})(?:[.:](\d{1,3}))?\]")
_LRC_OFFSET = re.compile(r"^\s*\[offset:\s*([+-]?\d+)\s*\]", re.IGNORECASE | re.MULTILINE)


def _ms(hours: str | None, minutes: str, seconds: str, fraction: str | None) -> int:
    frac = int((fraction or "0").ljust(3, "0")[:3])
    return ((int(hours or 0) * 60 + int(minutes)) * 60 + int(seconds)) * 1000 + frac


def _timed(text: str, stamp: re.Pattern[str], continued: bool) -> list[tuple[int, int, list[str]]]:
    """Cues of a blank-line-separated format: each block with a timing line is a cue (lines before
    that line are its identifier); a block without one is the text of the cue before when
    ``continued`` (a SubRip cue with a blank line inside), else skipped (WebVTT NOTE, STYLE)."""
    cues: list[tuple[int, int, list[str]]] = []
    for block in re.split(r"\n[ \t]*\n", text):
        lines = block.strip("\n").split("\n")
        timing = next(((i, found) for i, line in enumerate(lines) if (found := stamp.match(line))), None)
        if timing is None:
            if continued and cues and block.strip() and not block.strip().isdigit():
                cues[-1][2].extend(["", *lines])
            continue
        at, found = timing
        groups = found.groups()
        half = len(groups) // 2
        start, end = _ms(*groups[:half]), _ms(*groups[half:])
        cues.append((start, end, lines[at + 1 :]))
    return cues


def _events(cues: list[tuple[int, int, list[str]]], unescape: bool) -> SSAFile:
    subs = SSAFile()
    for start, end, lines in cues:
        subs.append(SSAEvent(start=start, end=max(start, end), text=html_to_ass("\n".join(lines), unescape)))
    return subs


def read_srt(text: str) -> SSAFile:
    return _events(_timed(text, _SRT_LINE, continued=True), unescape=False)


def read_vtt(text: str) -> SSAFile:
    if not text.lstrip("\ufeff \n").startswith("WEBVTT"):
        raise ValueError("a WebVTT file starts with the line WEBVTT")
    return _events(_timed(text, _VTT_LINE, continued=False), unescape=True)


def read_sbv(text: str) -> SSAFile:
    subs = SSAFile()
    for start, end, lines in _timed(text, _SBV_LINE, continued=False):
        plain = "\\N".join(line.strip() for line in lines if line.strip())
        subs.append(
            SSAEvent(start=start, end=max(start, end), text=plain.replace("{", "(").replace("}", ")"))
        )
    return subs


def read_lrc(text: str) -> SSAFile:
    """Every ``[mm:ss.xx]`` starts a line (several stamps: the line is sung several times); an
    ``[offset:ms]`` tag moves them all (positive: earlier, as players read it)."""
    offset = _LRC_OFFSET.search(text)
    shift = -int(offset.group(1)) if offset else 0
    starts: list[tuple[int, str]] = []
    for line in text.split("\n"):
        stamps = []
        rest = line.strip()
        while (match := _LRC_STAMP.match(rest)) is not None:
            stamps.append(_ms(None, match.group(1), match.group(2), match.group(3)))
            rest = rest[match.end() :]
        rest = re.sub(r"<\d{1,4}:\d{1,2}(?:[.:]\d{1,3})?>", "", rest).strip()  # enhanced LRC word times
        starts += [(max(0, stamp + shift), rest) for stamp in stamps]
    starts.sort(key=lambda item: item[0])
    subs = SSAFile()
    for index, (start, line) in enumerate(starts):
        if not line:
            continue
        end = starts[index + 1][0] if index + 1 < len(starts) else start + LAST_LRC_CUE_MS
        subs.append(SSAEvent(start=start, end=max(start, end), text=line.replace("{", "(").replace("}", ")")))
    return subs


def look_of(subs: SSAFile, event: SSAEvent) -> Look:
    style = subs.styles.get(event.style, SSAStyle.DEFAULT_STYLE)
    colour = style.primarycolor
    rgb = f"#{colour.r:02x}{colour.g:02x}{colour.b:02x}"
    return Look(style.bold, style.italic, style.underline, style.strikeout, None if rgb == "#ffffff" else rgb)


def _clock(ms: int, separator: str, hour_digits: int = 2) -> str:
    ms = max(0, ms)
    hours, rest = divmod(ms, 3_600_000)
    minutes, rest = divmod(rest, 60_000)
    seconds, millis = divmod(rest, 1000)
    return f"{hours:0{hour_digits}d}:{minutes:02d}:{seconds:02d}{separator}{millis:03d}"


def _shown(subs: SSAFile) -> list[SSAEvent]:
    return sorted(
        (event for event in subs.get_text_events() if event.plaintext.strip()), key=lambda e: e.start
    )


def write_srt(subs: SSAFile) -> str:
    blocks = [
        f"{n}\n{_clock(e.start, ',')} --> {_clock(e.end, ',')}\n{to_srt_text(e.text, look_of(subs, e))}\n"
        for n, e in enumerate(_shown(subs), 1)
    ]
    return "\n".join(blocks)


def write_vtt(subs: SSAFile) -> str:
    blocks = [
        f"{_clock(e.start, '.')} --> {_clock(e.end, '.')}\n{to_vtt_text(e.text, look_of(subs, e))}\n"
        for e in _shown(subs)
    ]
    return "WEBVTT\n\n" + "\n".join(blocks)


def _plain_lines(subs: SSAFile, event: SSAEvent) -> list[str]:
    text = "".join(run.text for run in runs(event.text, look_of(subs, event)))
    return [line.strip() for line in text.split("\n") if line.strip()]


def write_sbv(subs: SSAFile) -> str:
    blocks = [
        f"{_clock(e.start, '.', 1)},{_clock(e.end, '.', 1)}\n" + "\n".join(_plain_lines(subs, e)) + "\n"
        for e in _shown(subs)
    ]
    return "\n".join(blocks)


def write_sami(subs: SSAFile) -> str:
    """SAMI as Windows Media Player and its kin read it: a SYNC a cue, an empty one where it ends."""
    head = (
        '<SAMI>\n<HEAD>\n<STYLE TYPE="text/css"><!--\n'
        "P { text-align: center; font-family: Arial, sans-serif; color: white; }\n"
        ".SUBS { Name: Subtitles; SAMIType: CC; }\n--></STYLE>\n</HEAD>\n<BODY>\n"
    )
    lines = []
    shown = _shown(subs)
    for index, event in enumerate(shown):
        text = to_sami_text(event.text, look_of(subs, event))
        lines.append(f"<SYNC Start={max(0, event.start)}><P Class=SUBS>{text}")
        following = shown[index + 1].start if index + 1 < len(shown) else None
        if following is None or following > event.end:
            lines.append(f"<SYNC Start={max(0, event.end)}><P Class=SUBS>&nbsp;")
    return head + "\n".join(lines) + "\n</BODY>\n</SAMI>\n"


def _lrc_stamp(ms: int) -> str:
    hundredths = (max(0, ms) + 5) // 10
    minutes, rest = divmod(hundredths, 6000)
    return f"[{minutes:02d}:{rest // 100:02d}.{rest % 100:02d}]"


def write_lrc(subs: SSAFile) -> str:
    """One line a cue (its lines joined with " / "); an empty stamp where a cue ends before the next."""
    shown = _shown(subs)
    lines = []
    for index, event in enumerate(shown):
        lines.append(_lrc_stamp(event.start) + " / ".join(_plain_lines(subs, event)))
        following = shown[index + 1].start if index + 1 < len(shown) else None
        if following is None or (following - event.end) >= 10:
            lines.append(_lrc_stamp(event.end))
    return "\n".join(lines) + "\n"


READERS: dict[str, Callable[[str], SSAFile]] = {
    "srt": read_srt,
    "vtt": read_vtt,
    "sbv": read_sbv,
    "lrc": read_lrc,
}
WRITERS: dict[str, Callable[[SSAFile], str]] = {
    "srt": write_srt,
    "vtt": write_vtt,
    "sbv": write_sbv,
    "lrc": write_lrc,
    "smi": write_sami,
}
