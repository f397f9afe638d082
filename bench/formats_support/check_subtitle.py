"""Proof of a subtitle output, by parsers of our own (not the engine's, not pysubs2): the cues'
times and text; the sample's word must come through, and the first cue must start when the seed's did
(within what the output format can hold: milliseconds, hundredths, or a MicroDVD frame)."""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from pathlib import Path
from xml.etree import ElementTree

from formats_support.samples_subtitle import FIRST_START_MS

__all__ = ["SUBTITLE_CHECKS"]

Cue = tuple[int, str]  # start in ms, text without markup
_TOLERANCE_MS = {
    "smi": 0, "srt": 0, "vtt": 0, "ttml": 0, "dfxp": 0, "sbv": 0, "ass": 5, "ssa": 5, "lrc": 5, "sub": 21,
    "jss": 5, "rt": 5, "pjs": 50, "aqt": 20, "scc": 34,
}  # fmt: skip


def _ms(h: str | None, m: str, s: str, frac: str) -> int:
    return ((int(h or 0) * 60 + int(m)) * 60 + int(s)) * 1000 + int(frac.ljust(3, "0")[:3])


def _untag(text: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>|\{[^}]*\}", "", text)).strip()


def _line_cues(text: str, stamp: str) -> list[Cue]:
    cues: list[Cue] = []
    for block in re.split(r"\n\s*\n", text.replace("\r\n", "\n")):
        lines = block.strip().split("\n")
        for at, line in enumerate(lines):
            match = re.match(stamp, line.strip())
            if match:
                cues.append((_ms(*match.groups()[:4]), _untag(" ".join(lines[at + 1 :]))))
                break
    return cues


def _srt(text: str) -> list[Cue]:
    return _line_cues(text, r"(\d+):(\d\d):(\d\d),(\d{3}) --> \d+:\d\d:\d\d,\d{3}$")


def _vtt(text: str) -> list[Cue]:
    if not text.startswith("WEBVTT"):
        raise ValueError("no WEBVTT header")
    return _line_cues(text, r"(?:(\d+):)?(\d\d):(\d\d)\.(\d{3}) --> (?:\d+:)?\d\d:\d\d\.\d{3}")


def _sbv(text: str) -> list[Cue]:
    return _line_cues(text, r"(\d+):(\d\d):(\d\d)\.(\d{3}),\d+:\d\d:\d\d\.\d{3}$")


def _ass(text: str) -> list[Cue]:
    if "[Script Info]" not in text or "[Events]" not in text:
        raise ValueError("no [Script Info] or [Events] section")
    cues = []
    for line in text.splitlines():
        if line.startswith("Dialogue:"):
            fields = line.split(":", 1)[1].split(",", 9)
            h, m, s = fields[1].strip().split(":")
            sec, cs = s.split(".")
            cues.append((_ms(h, m, sec, cs), _untag(fields[9].replace("\\N", " "))))
    return cues


def _ttml(text: str) -> list[Cue]:
    root = ElementTree.fromstring(text.encode())  # noqa: S314 - what our own service wrote from our sample
    if not root.tag.endswith("}tt"):
        raise ValueError(f"the root is {root.tag}, not tt")
    cues = []
    for p in root.iter():
        if p.tag.endswith("}p") and "begin" in p.attrib:
            match = re.fullmatch(r"(\d+):(\d\d):(\d\d)(?:\.(\d+))?", p.attrib["begin"])
            if match is None:
                raise ValueError(f"begin {p.attrib['begin']!r} is no clock time")
            cues.append(
                (_ms(match[1], match[2], match[3], match[4] or "0"), " ".join("".join(p.itertext()).split()))
            )
    return cues


def _microdvd(text: str) -> list[Cue]:
    lines = text.strip().splitlines()
    declared = re.fullmatch(r"\{1\}\{1\}(\d+(?:\.\d+)?)", lines[0].strip())
    if declared is None:
        raise ValueError("no {1}{1}fps first line")
    fps = float(declared[1])
    cues = []
    for line in lines[1:]:
        match = re.match(r"\{(\d+)\}\{(\d+)\}(.*)", line)
        if match:
            cues.append((round(int(match[1]) * 1000 / fps), _untag(match[3].replace("|", " "))))
    return cues


def _lrc(text: str) -> list[Cue]:
    cues = []
    for line in text.splitlines():
        match = re.match(r"\[(\d+):(\d\d)\.(\d\d)\](.*)", line)
        if match:
            cues.append((_ms(None, match[1], match[2], match[3]), match[4].strip()))
    return cues


def _sami(text: str) -> list[Cue]:
    if "<SAMI>" not in text.upper():
        raise ValueError("no <SAMI> element")
    found = re.findall(r"<SYNC Start=(\d+)>(.*?)(?=<SYNC|</BODY>)", text, re.IGNORECASE | re.DOTALL)
    return [(int(start), _untag(body).replace("\xa0", " ").strip()) for start, body in found]


def _jss(text: str) -> list[Cue]:
    """JACOsub: ``H:MM:SS.ff H:MM:SS.ff directive text``, fractions in 1/TIMERES s (30 by default)."""
    declared = re.search(r"^#TIMERES\s+(\d+)", text, re.MULTILINE)
    res = int(declared[1]) if declared else 30
    cues = []
    for line in text.splitlines():
        match = re.match(r"(\d+):(\d\d):(\d\d)\.(\d+)\s+\d+:\d\d:\d\d\.\d+\s+\S+\s+(.*)", line)
        if match:
            start = ((int(match[1]) * 60 + int(match[2])) * 60 + int(match[3])) * 1000
            cues.append((start + round(int(match[4]) * 1000 / res), match[5].replace("\\n", " ").strip()))
    return cues


def _rt(text: str) -> list[Cue]:
    """RealText: text after each ``<time begin=.../>`` up to the next one."""
    if not text.lstrip().lower().startswith("<window"):
        raise ValueError("no <window> element first")
    cues = []
    for begin, body in re.findall(r'<time\s+begin="([^"]+)"[^>]*/>(.*?)(?=<time|</window>)', text, re.DOTALL):
        match = re.fullmatch(r"(?:(?:(\d+):)?(\d+):)?(\d+)(?:\.(\d+))?", begin)
        if match is None:
            raise ValueError(f"begin {begin!r} is no RealText time")
        cues.append((_ms(match[1], match[2] or "0", match[3], match[4] or "0"), _untag(body)))
    return cues


def _pjs(text: str) -> list[Cue]:
    cues = []
    for line in text.splitlines():
        match = re.fullmatch(r"\s*(\d+),\s*(\d+),\s*\"(.*)\"\s*", line)
        if match:
            cues.append((int(match[1]) * 100, match[3].replace("|", " ")))
    return cues


def _aqt(text: str) -> list[Cue]:
    """AQTitle: ``-->> frame`` (25 fps) opens a cue, the next one closes it."""
    cues: list[Cue] = []
    for frame, body in re.findall(r"^-->> (\d+)\n(.*?)(?=^-->> |\Z)", text, re.MULTILINE | re.DOTALL):
        if body.strip():
            cues.append((int(frame) * 40, " ".join(body.split())))
    return cues


# CEA-608's basic set where it is not ASCII, and its special set (0x11, 0x30-0x3f)
_608_BASIC = {
    0x2A: "á", 0x5C: "é", 0x5E: "í", 0x5F: "ó", 0x60: "ú", 0x7B: "ç", 0x7C: "÷", 0x7D: "Ñ", 0x7E: "ñ",
}  # fmt: skip
_608_SPECIAL = "®°½¿™¢£♪à èâêîôû"


def _scc(text: str) -> list[Cue]:
    """Scenarist SCC decoded: pop-on captions on channel 1, each shown at its end-of-caption code's
    frame (the line's drop-frame timecode plus one frame a byte pair)."""
    lines = text.strip().splitlines()
    if lines[0].strip() != "Scenarist_SCC V1.0":
        raise ValueError("no Scenarist_SCC V1.0 header")
    cues, hidden = [], ""
    for line in lines[1:]:
        match = re.match(r"(\d\d):(\d\d):(\d\d)[:;.,](\d\d)\s+(.*)", line)
        if match is None:
            continue
        hours, minutes, seconds, frames = (int(match[i]) for i in range(1, 5))
        total_minutes = hours * 60 + minutes
        frame = (total_minutes * 60 + seconds) * 30 + frames - 2 * (total_minutes - total_minutes // 10)
        previous = None
        for index, word in enumerate(match[5].split()):
            pair = bytes.fromhex(word)
            if any(bin(byte).count("1") % 2 == 0 for byte in pair):
                raise ValueError(f"{word} has a byte of even parity")
            first, second = pair[0] & 0x7F, pair[1] & 0x7F
            if 0x10 <= first <= 0x1F and pair == previous:
                previous = None  # a control code's repeat
                continue
            previous = pair
            if first == 0x14 and second == 0x2E:
                hidden = ""
            elif first == 0x14 and second == 0x2F:
                cues.append((round((frame + index) * 1001 / 30), " ".join(hidden.split())))
            elif first == 0x11 and 0x30 <= second <= 0x3F:
                hidden += _608_SPECIAL[second - 0x30]
            elif 0x10 <= first <= 0x17 and second >= 0x40:
                hidden += " "  # a preamble address: a new row
            elif first >= 0x20:
                hidden += "".join(_608_BASIC.get(b, chr(b)) for b in (first, second) if b)
    return cues


_PARSERS: dict[str, Callable[[str], list[Cue]]] = {
    "srt": _srt, "vtt": _vtt, "sbv": _sbv, "ass": _ass, "ssa": _ass, "ttml": _ttml, "dfxp": _ttml,
    "sub": _microdvd, "lrc": _lrc, "smi": _sami,
    "jss": _jss, "rt": _rt, "pjs": _pjs, "aqt": _aqt, "scc": _scc,
}  # fmt: skip


def _check(fmt: str) -> Callable[[Path], None]:
    def check(path: Path) -> None:
        cues = [cue for cue in _PARSERS[fmt](path.read_text(encoding="utf-8")) if cue[1]]
        if not cues:
            raise ValueError("no cue with text")
        if not any("Quokka" in text for _, text in cues):
            raise ValueError(f"the word Quokka is lost: {cues[:2]}")
        source = path.name.split("-to-", 1)[0] if "-to-" in path.name else None
        expected = FIRST_START_MS.get(source or "")
        if expected is not None and abs(cues[0][0] - expected) > _TOLERANCE_MS[fmt]:
            raise ValueError(f"the first cue starts at {cues[0][0]} ms, not {expected} ms")

    return check


SUBTITLE_CHECKS: dict[str, Callable[[Path], None]] = {fmt: _check(fmt) for fmt in _PARSERS}
