"""SCC written by scc.py: drop-frame timecodes, odd parity, two-byte characters on a pair of their own,
captions wrapped to CEA-608's 4 rows of 32, and the old plain formats' precision."""

from __future__ import annotations

from pysubs2 import SSAEvent, SSAFile

from mcv_pipelines.service.engines.subtitle.plain_writers import write_aqt, write_jss, write_pjs
from mcv_pipelines.service.engines.subtitle.scc import ms_to_drop_frame, write_scc


def _subs(*cues: tuple[int, int, str]) -> SSAFile:
    subs = SSAFile()
    for start, end, text in cues:
        subs.append(SSAEvent(start=start, end=end, text=text))
    return subs


def test_drop_frame_timecodes_skip_two_frames_a_minute_but_each_tenth() -> None:
    assert ms_to_drop_frame(0) == "00:00:00;00"
    assert ms_to_drop_frame(round(1800 * 1001 / 30)) == "00:01:00;02"  # frame 1800: ;00 and ;01 skipped
    assert ms_to_drop_frame(round(17982 * 1001 / 30)) == "00:10:00;00"  # the tenth minute keeps them
    assert ms_to_drop_frame(3_600_000) == "01:00:00;00"  # an hour of clock is an hour of timecode


def test_every_byte_has_odd_parity_and_special_characters_start_a_pair() -> None:
    scc = write_scc(_subs((2000, 4000, "a♪b")))
    words = scc.split("\n")[2].split("\t")[1].split()
    assert all(bin(int(word, 16) >> 8).count("1") % 2 == 1 for word in words)
    assert all(bin(int(word, 16) & 0xFF).count("1") % 2 == 1 for word in words)
    # a, padding; the music note (0x11 0x37); b, padding
    assert words[6:9] == ["6180", "9137", "6280"]
    assert words[-2:] == ["942f", "942f"]


def test_long_captions_wrap_to_four_rows_of_thirty_two() -> None:
    scc = write_scc(_subs((2000, 4000, " ".join(["word"] * 40))))
    words = scc.split("\n")[2].split("\t")[1].split()
    preambles = [w for w in words if w in ("1340", "13e0", "9440", "94e0")]
    assert len(preambles) == 8  # rows 12 to 15, each sent twice
    assert "942c 942c" in scc.split("\n")[4]


def test_old_plain_formats_round_to_their_steps() -> None:
    subs = _subs((1234, 3456, "Hello\\NQuokka ~ok"))
    assert write_jss(subs) == "#TIMERES 100\n\n0:00:01.23 0:00:03.46 D Hello\\nQuokka -ok\n"  # ~: hard space
    assert write_pjs(subs) == '12,35,"Hello|Quokka ~ok"\n'
    assert write_aqt(subs) == "-->> 31\nHello\nQuokka ~ok\n-->> 86\n\n"
