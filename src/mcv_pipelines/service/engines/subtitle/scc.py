"""Scenarist Closed Captions (SCC) written by us: CEA-608 pop-on captions on channel 1, what broadcast
and YouTube take as closed captions.

Each cue is loaded into the hidden buffer (resume caption loading, erase it, a preamble address for
each row, the characters) and shown by end-of-caption; its line's timecode is set that many frames
before the cue starts, so it shows when the cue starts. Where it ends, erase displayed memory (unless
the next cue shows by then). Control codes are sent twice as broadcast does; every byte has odd
parity. Timecodes are 29.97 fps drop-frame (``HH:MM:SS;FF``). A caption holds at most 4 rows of 32
characters: longer lines are wrapped at words, rows past 4 dropped. Characters outside CEA-608's sets
are written as their base letter (é is kept: 608 has it; ā becomes a), else ``?``.
"""

from __future__ import annotations

import textwrap
import unicodedata

from pysubs2 import SSAFile

from mcv_pipelines.service.engines.subtitle.plain_writers import cue_lines, shown

__all__ = ["ms_to_drop_frame", "write_scc"]

_COLUMNS, _ROWS = 32, 4
_RCL, _ENM, _EOC, _EDM = (0x14, 0x20), (0x14, 0x2E), (0x14, 0x2F), (0x14, 0x2C)
# row -> preamble address code (white, column 0) on channel 1
_PAC = {12: (0x13, 0x40), 13: (0x13, 0x60), 14: (0x14, 0x40), 15: (0x14, 0x60)}
# characters of the basic set that are not ASCII where they sit
_BASIC = {"á": 0x2A, "é": 0x5C, "í": 0x5E, "ó": 0x5F, "ú": 0x60, "ç": 0x7B, "÷": 0x7C, "Ñ": 0x7D, "ñ": 0x7E}
_NOT_BASIC = set("*\\^_`{|}~")  # ASCII whose codes mean the letters above in CEA-608
# the special set: 0x11 then this byte
_SPECIAL = {"®": 0x30, "°": 0x31, "½": 0x32, "¿": 0x33, "™": 0x34, "¢": 0x35, "£": 0x36, "♪": 0x37,
            "à": 0x38, "è": 0x3A, "â": 0x3B, "ê": 0x3C, "î": 0x3D, "ô": 0x3E, "û": 0x3F}  # fmt: skip


def _odd(byte: int) -> int:
    return byte | (0x80 if bin(byte).count("1") % 2 == 0 else 0)


def _codes(char: str) -> list[int]:
    """The bytes of one character: one for the basic set, two (0x11 xx) for the special set."""
    if char in _BASIC:
        return [_BASIC[char]]
    if char in _SPECIAL:
        return [0x11, _SPECIAL[char]]
    if " " <= char <= "~" and char not in _NOT_BASIC:
        return [ord(char)]
    base = unicodedata.normalize("NFKD", char).encode("ascii", "ignore").decode()
    if base and char != base[0] and len(base) == 1:
        return _codes(base)
    return [ord("?")]


def _row_pairs(line: str) -> list[tuple[int, int]]:
    """A row's characters as byte pairs; a two-byte character starts a pair of its own."""
    pairs: list[tuple[int, int]] = []
    pending: int | None = None
    for char in line:
        codes = _codes(char)
        if len(codes) == 2:
            if pending is not None:
                pairs.append((pending, 0x00))
                pending = None
            pairs.append((codes[0], codes[1]))
        elif pending is None:
            pending = codes[0]
        else:
            pairs.append((pending, codes[0]))
            pending = None
    if pending is not None:
        pairs.append((pending, 0x00))
    return pairs


def _caption_pairs(lines: list[str]) -> list[tuple[int, int]]:
    rows = [row for line in lines for row in textwrap.wrap(line, _COLUMNS)][-_ROWS:]
    pairs = [_RCL, _RCL, _ENM, _ENM]
    for number, row in enumerate(rows, 16 - len(rows)):
        pairs += [_PAC[number], _PAC[number], *_row_pairs(row)]
    return [*pairs, _EOC, _EOC]


def _frame(ms: int) -> int:
    return round(max(0, ms) * 30 / 1001)


def _timecode(frame: int) -> str:
    """A frame count at 29.97 fps as a drop-frame timecode: frames 0 and 1 of every minute but each
    tenth are skipped in the count."""
    tens, rest = divmod(frame, 17982)
    frame += 18 * tens + (2 * ((rest - 2) // 1798) if rest >= 2 else 0)
    return f"{frame // 108000:02d}:{frame // 1800 % 60:02d}:{frame // 30 % 60:02d};{frame % 30:02d}"


def ms_to_drop_frame(ms: int) -> str:
    return _timecode(_frame(ms))


def _line(frame: int, pairs: list[tuple[int, int]]) -> str:
    return _timecode(frame) + "\t" + " ".join(f"{_odd(a):02x}{_odd(b):02x}" for a, b in pairs)


def _loaded_from(start_ms: int, pairs: list[tuple[int, int]]) -> int:
    """The frame a caption's line starts on so that its first end-of-caption falls on ``start_ms``."""
    return max(0, _frame(start_ms) - len(pairs) + 2)


def write_scc(subs: SSAFile) -> str:
    out = ["Scenarist_SCC V1.0"]
    events = shown(subs)
    captions = [_caption_pairs(cue_lines(subs, event)) for event in events]
    loads = [_loaded_from(event.start, pairs) for event, pairs in zip(events, captions, strict=True)]
    free = 0  # the first frame no line has taken yet
    for index, (event, pairs) in enumerate(zip(events, captions, strict=True)):
        at = max(free, loads[index])
        out += ["", _line(at, pairs)]
        free = at + len(pairs)
        end = max(free, _frame(event.end))
        if index + 1 == len(events) or loads[index + 1] >= end + 2:  # else the next caption replaces it
            out += ["", _line(end, [_EDM, _EDM])]
            free = end + 2
    return "\n".join(out) + "\n\n"
