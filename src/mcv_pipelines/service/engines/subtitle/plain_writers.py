"""Writers of our own for the old plain-text subtitle formats ffmpeg reads but nothing here wrote:
JACOsub (jss), RealText (rt), Phoenix Japanimation Society (pjs) and AQTitle (aqt).

Each holds text and times only (no style a cue could keep), at its own precision: JACOsub and
RealText hundredths (``#TIMERES 100`` declared), PJS tenths, AQTitle frames at 25 fps (as ffmpeg and
Subtitle Workshop read it). Times are rounded to the nearest step the format holds.
"""

from __future__ import annotations

import html

from pysubs2 import SSAEvent, SSAFile

from mcv_pipelines.service.engines.subtitle.cues import look_of
from mcv_pipelines.service.engines.subtitle.styled import runs

__all__ = ["AQT_FPS", "cue_lines", "shown", "write_aqt", "write_jss", "write_pjs", "write_rt"]

AQT_FPS = 25


def shown(subs: SSAFile) -> list[SSAEvent]:
    """The cues with text, in time order."""
    return sorted(
        (event for event in subs.get_text_events() if event.plaintext.strip()), key=lambda e: e.start
    )


def cue_lines(subs: SSAFile, event: SSAEvent) -> list[str]:
    """A cue's text as plain lines, markup dropped, blank lines left out."""
    text = "".join(run.text for run in runs(event.text, look_of(subs, event)))
    return [" ".join(line.split()) for line in text.split("\n") if line.strip()]


def _hundredths(ms: int) -> tuple[int, int, int, int]:
    total = (max(0, ms) + 5) // 10
    hours, rest = divmod(total, 360_000)
    minutes, rest = divmod(rest, 6000)
    return hours, minutes, rest // 100, rest % 100


def write_jss(subs: SSAFile) -> str:
    """``H:MM:SS.hh H:MM:SS.hh D text``, lines joined by JACOsub's ``\\n``; braces (JACOsub's
    comments), backslashes (its escapes) and ``~`` (its hard space) are replaced so text stays text."""
    out = ["#TIMERES 100", ""]
    for event in shown(subs):
        start, end = ("{}:{:02d}:{:02d}.{:02d}".format(*_hundredths(ms)) for ms in (event.start, event.end))
        lines = [line.translate(_JSS_SAFE) for line in cue_lines(subs, event)]
        out.append(f"{start} {end} D " + "\\n".join(lines))
    return "\n".join(out) + "\n"


_JSS_SAFE = str.maketrans({"{": "(", "}": ")", "\\": "/", "~": "-"})


_RT_TIME = "{:02d}:{:02d}:{:02d}.{:02d}"


def write_rt(subs: SSAFile) -> str:
    """A RealText window: ``<time begin end/><clear/>`` before each cue, text escaped as XML."""
    events = shown(subs)
    last = max((event.end for event in events), default=0)
    hours, minutes, seconds, cents = _hundredths(last + 1000)
    out = [f'<window type="generic" duration="{hours:02d}:{minutes:02d}:{seconds:02d}.{cents:02d}" '
           'wordwrap="true">']  # fmt: skip
    for event in events:
        begin, end = (_RT_TIME.format(*_hundredths(ms)) for ms in (event.start, event.end))
        text = "<br/>".join(html.escape(line, quote=False) for line in cue_lines(subs, event))
        out.append(f'<time begin="{begin}" end="{end}"/><clear/>{text}')
    return out[0] + "\n".join([*out[1:], "</window>"]) + "\n"  # no empty text before the first time


def write_pjs(subs: SSAFile) -> str:
    """``start,end,"text"`` in tenths of a second, lines joined by ``|``."""
    out = []
    for event in shown(subs):
        start, end = ((max(0, ms) + 50) // 100 for ms in (event.start, event.end))
        text = "|".join(cue_lines(subs, event)).replace('"', "'")
        out.append(f'{start},{max(start, end)},"{text}"')
    return "\n".join(out) + "\n"


def write_aqt(subs: SSAFile) -> str:
    """``-->> frame`` then the cue's lines; ``-->> frame`` and an empty line where it ends."""
    out = []
    for event in shown(subs):
        start, end = (round(max(0, ms) * AQT_FPS / 1000) for ms in (event.start, event.end))
        lines = [line.removeprefix("-->>") for line in cue_lines(subs, event)]
        out += [f"-->> {start}", *lines, f"-->> {max(start, end)}", ""]
    return "\n".join(out) + "\n"
