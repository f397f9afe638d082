"""One text subtitle to another, in-process: read into pysubs2's model, write out.

Readers: SubRip, WebVTT, SBV, LRC (cues.py), TTML (ttml.py), SAMI (sami.py), USF (usf.py) our own; ASS/SSA and
MicroDVD pysubs2's. Writers: SubRip, WebVTT, SBV, LRC, SAMI, MicroDVD, TTML, JACOsub, RealText, PJS,
AQTitle (plain_writers.py) and SCC (scc.py) our own; ASS/SSA pysubs2's (which keeps every style).
Imported only when a task needs it.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable

from pysubs2 import SSAEvent, SSAFile

from mcv_pipelines.service.engines.subtitle.cues import READERS, WRITERS, look_of
from mcv_pipelines.service.engines.subtitle.plain_writers import write_aqt, write_jss, write_pjs, write_rt
from mcv_pipelines.service.engines.subtitle.sami import read_sami
from mcv_pipelines.service.engines.subtitle.scc import write_scc
from mcv_pipelines.service.engines.subtitle.styled import runs
from mcv_pipelines.service.engines.subtitle.ttml import read_ttml, write_ttml
from mcv_pipelines.service.engines.subtitle.usf import read_usf

__all__ = ["read_subtitle", "write_subtitle"]

_PYSUBS2_FORMAT = {"ass": "ass", "ssa": "ssa", "sub": "microdvd"}
# written only: ffmpeg reads these (ffmpeg_subtitles.py)
_PLAIN_WRITERS: dict[str, Callable[[SSAFile], str]] = {
    "jss": write_jss, "rt": write_rt, "pjs": write_pjs, "aqt": write_aqt, "scc": write_scc,
}  # fmt: skip
_FPS_LINE = re.compile(r"^\s*\{1\}\{1\}\s*(\d{1,3}(?:\.\d+)?)\s*$")


def read_subtitle(text: str, fmt: str, fps: float | None) -> SSAFile:
    """The cues of ``text`` in format ``fmt``; ``fps`` is MicroDVD's frame rate (None: the file's
    ``{1}{1}fps`` first line, else 23.976)."""
    reader = READERS.get(fmt)
    if reader is not None:
        return reader(text)
    if fmt == "sub":
        return _read_microdvd(text, fps)
    if fmt in ("ttml", "dfxp", "itt"):
        return read_ttml(text)
    if fmt == "smi":
        return read_sami(text)
    if fmt == "usf":
        return read_usf(text)
    return SSAFile.from_string(text, format_=_PYSUBS2_FORMAT[fmt])


def _read_microdvd(text: str, fps: float | None) -> SSAFile:
    lines = text.lstrip("\n").split("\n")
    declared = _FPS_LINE.match(lines[0]) if lines else None
    if declared:
        lines = lines[1:]
        fps = fps or float(declared.group(1))
    return SSAFile.from_string("\n".join(lines), format_="microdvd", fps=fps or 23.976)


def write_subtitle(subs: SSAFile, fmt: str, fps: float | None) -> str:
    writer: Callable[[SSAFile], str] | None = WRITERS.get(fmt) or _PLAIN_WRITERS.get(fmt)
    if writer is not None:
        return writer(subs)
    if fmt == "sub":
        return _write_microdvd(subs, fps or 23.976)
    if fmt in ("ttml", "dfxp"):
        return write_ttml(subs)
    out = io.StringIO()
    subs.to_file(out, format_=_PYSUBS2_FORMAT[fmt])
    return out.getvalue()


def _write_microdvd(subs: SSAFile, fps: float) -> str:
    """``{1}{1}fps`` first (as VLC, Subtitle Edit and ffmpeg read it), then ``{start}{end}text`` in
    frames, lines split by ``|``; a cue entirely bold or italic gets ``{y:b}``/``{y:i}``."""
    lines = [f"{{1}}{{1}}{fps:g}"]
    for event in sorted(subs.get_text_events(), key=lambda e: e.start):
        text = _microdvd_text(subs, event)
        if text:
            start, end = (round(ms * fps / 1000) for ms in (event.start, event.end))
            lines.append(f"{{{start}}}{{{max(start, end)}}}{text}")
    return "\n".join(lines) + "\n"


def _microdvd_text(subs: SSAFile, event: SSAEvent) -> str:
    found = runs(event.text, look_of(subs, event))
    pieces = [run for run in found if run.text.strip()]
    if not pieces:
        return ""
    text = "".join(run.text for run in found)
    text = "|".join(line.strip() for line in text.split("\n") if line.strip())
    bold, italic = all(r.look.bold for r in pieces), all(r.look.italic for r in pieces)
    flags = ("b" if bold else "") + ("i" if italic else "")
    return (f"{{y:{flags}}}" if flags else "") + text.replace("{", "(").replace("}", ")")
