"""Audio files written by hand, for formats no program on this machine writes: tracker modules (MOD, XM,
S3M, IT, STM, MTM, 669: one looped sine sample playing a few notes, about a second long) and DSD (DSF,
DSDIFF: a tone through a first-order sigma-delta modulator). Each follows the format's published
layout; ffmpeg only reads them (through libopenmpt and its dsf/iff demuxers). Used by the av tests and
bench/formats.py.

``huge=True`` writes a module whose sample claims far more bytes than the file holds (the hostile case).
"""

from __future__ import annotations

import math
import struct

__all__ = [
    "composer_669_module",
    "dff",
    "dsf",
    "it_module",
    "mod_module",
    "mtm_module",
    "s3m_module",
    "stm_module",
    "xm_module",
]

TITLE = "Quokka tune"
# One period of a sine as signed 8-bit samples, looped by every module.
_WAVE = bytes(round(100 * math.sin(2 * math.pi * i / 32)) & 0xFF for i in range(32)) * 8
_HUGE = 0x7FFF_FFF0


def _text(value: str, size: int) -> bytes:
    return value.encode("ascii")[:size].ljust(size, b"\0")


def mod_module(huge: bool = False) -> bytes:
    """A 4-channel ProTracker module ("M.K."): 31 sample slots (one used), one pattern of 64 rows whose
    row 7 breaks to the end of the song, so it plays 8 rows (about a second at speed 6, 125 BPM)."""
    words = len(_WAVE) // 2
    first = _text("sine", 22) + struct.pack(">HBBHH", 0xFFFF if huge else words, 0, 64, 0, words)
    samples = first + (_text("", 22) + struct.pack(">HBBHH", 0, 0, 0, 0, 1)) * 30
    header = _text(TITLE, 20) + samples + bytes([1, 127]) + bytes(128) + b"M.K."
    pattern = bytearray(64 * 4 * 4)
    for row, period in ((0, 428), (2, 381), (4, 339)):  # C-2, D-2, E-2 of sample 1
        pattern[row * 16 : row * 16 + 4] = bytes([period >> 8, period & 0xFF, 0x10, 0])
    pattern[7 * 16 + 2 : 7 * 16 + 4] = bytes([0x0D, 0])  # pattern break: the song ends
    return header + bytes(pattern) + (b"" if huge else _WAVE)


def xm_module(huge: bool = False) -> bytes:
    """A FastTracker 2 module: 2 channels, one pattern of 8 rows, one instrument with one looped sample."""
    orders = bytes([0]) + bytes(255)
    body = struct.pack("<HHHHHHHH", 1, 0, 2, 1, 1, 1, 6, 125) + orders
    header = b"Extended Module: " + _text(TITLE, 20) + b"\x1a" + _text("by hand", 20)
    header += struct.pack("<HI", 0x0104, 4 + len(body)) + body
    rows = b""
    for row in range(8):
        note = {0: 49, 2: 51, 4: 53}.get(row)  # C-4, D-4, E-4
        rows += (bytes([0x83, note, 1]) if note else b"\x80") + b"\x80"  # channel 1 note+instrument, 2 empty
    pattern = struct.pack("<IBHH", 9, 0, 8, len(rows)) + rows
    sample_header_size = 40
    instrument = _text("sine", 22) + struct.pack("<BHI", 0, 1, sample_header_size)
    instrument += bytes(96) + bytes(48) + bytes(48) + bytes(14) + struct.pack("<H", 0) + bytes(22)
    instrument = struct.pack("<I", 4 + len(instrument)) + instrument
    length = _HUGE if huge else len(_WAVE)
    sample = struct.pack("<IIIBbBBbB", length, 0, len(_WAVE), 64, 0, 1, 128, 0, 0) + _text("sine", 22)
    deltas = bytes((_WAVE[i] - (_WAVE[i - 1] if i else 0)) & 0xFF for i in range(len(_WAVE)))
    return header + pattern + instrument + sample + deltas


def s3m_module(huge: bool = False) -> bytes:
    """A Scream Tracker 3 module: one order, one looped 8-bit sample, one pattern that breaks at row 7."""
    header = _text(TITLE, 28) + bytes([0x1A, 16, 0, 0])
    header += struct.pack("<HHHHHH", 2, 1, 1, 0, 0x1320, 2) + b"SCRM"
    header += bytes([64, 6, 125, 0xB0, 0, 0]) + bytes(8) + struct.pack("<H", 0)
    header += bytes([0, 8]) + bytes([255] * 30)  # channels: left 1, right 1, the rest off
    orders = bytes([0, 255])
    instrument_at = len(header) + len(orders) + 4
    instrument_at += -instrument_at % 16
    pattern_at = instrument_at + 80
    sample_at = pattern_at + 16 * 8
    pointers = struct.pack("<HH", instrument_at // 16, pattern_at // 16)
    length = _HUGE if huge else len(_WAVE)
    instrument = bytes([1]) + _text("sine.raw", 12) + bytes([0]) + struct.pack("<H", sample_at // 16)
    instrument += struct.pack("<IIIBBBBI", length, 0, len(_WAVE), 64, 0, 0, 1, 8363) + bytes(12)
    instrument += _text("sine", 28) + b"SCRS"
    rows = b""
    for row in range(64):
        note = {0: 0x40, 2: 0x42, 4: 0x44}.get(row)  # C-4, D-4, E-4
        if note is not None:
            rows += bytes([0x20, note, 1])
        if row == 7:
            rows += bytes([0x80, 3, 0])  # effect C (pattern break): the song ends
        rows += b"\0"
    pattern = struct.pack("<H", len(rows) + 2) + rows
    out = bytearray(header + orders + pointers)
    out += bytes(instrument_at - len(out)) + instrument
    out += pattern + bytes(sample_at - pattern_at - len(pattern))
    unsigned = bytes((b + 128) & 0xFF for b in _WAVE)  # ffi 2: unsigned samples
    return bytes(out) + (b"" if huge else unsigned)


def it_module(huge: bool = False) -> bytes:
    """An Impulse Tracker module in sample mode: one looped 8-bit signed sample, one pattern of 8 rows."""
    orders = bytes([0, 255])
    header = b"IMPM" + _text(TITLE, 26) + struct.pack("<H", 0x1004)
    header += struct.pack("<HHHHHHHH", len(orders), 0, 1, 1, 0x0214, 0x0214, 0x0001, 0)
    header += bytes([128, 48, 6, 125, 128, 0]) + struct.pack("<HII", 0, 0, 0)
    header += bytes([32, 32] + [0xA0] * 62) + bytes([64] * 64)  # pan: two channels centred, the rest off
    sample_at = len(header) + len(orders) + 8
    pattern_at = sample_at + 80
    rows = b""
    for row in range(8):
        note = {0: 60, 2: 62, 4: 64}.get(row)  # C-5, D-5, E-5
        if note is not None:
            rows += bytes([0x81, 0x03, note, 1])
        rows += b"\0"
    pattern = struct.pack("<HH", len(rows), 8) + bytes(4) + rows
    data_at = pattern_at + len(pattern)
    length = _HUGE if huge else len(_WAVE)
    sample = b"IMPS" + _text("sine.raw", 12) + bytes([0, 64, 0x11, 64]) + _text("sine", 26)
    sample += bytes([1, 32]) + struct.pack("<IIIIIII", length, 0, len(_WAVE), 8363, 0, 0, data_at)
    sample += bytes(4)
    out = header + orders + struct.pack("<II", sample_at, pattern_at) + sample + pattern
    return out + (b"" if huge else _WAVE)


def stm_module() -> bytes:
    """A Scream Tracker 2 module: 31 sample slots (one used), one 4-channel pattern breaking at row 7."""
    header = _text(TITLE, 20) + b"!Scream!" + bytes([0x1A, 2, 2, 21, 0x60, 1, 64]) + bytes(13)
    data_at = 48 + 31 * 32 + 128 + 1024
    data_at += -data_at % 16
    slot = "<HHHHBBHIH"  # paragraph, length, loop start and end, volume, -, C3 speed, -, -
    first = (
        _text("sine.raw", 12)
        + bytes(2)
        + struct.pack(slot, data_at // 16, len(_WAVE), 0, len(_WAVE), 64, 0, 8448, 0, 0)
    )
    empty = bytes(14) + struct.pack(slot, 0, 0, 0, 0xFFFF, 0, 0, 8448, 0, 0)
    orders = bytes([0]) + bytes([99]) * 127  # 99: the end of the song
    pattern = bytearray()
    for row in range(64):
        for channel in range(4):
            note = {0: 0x30, 2: 0x32, 4: 0x34}.get(row) if channel == 0 else None
            # note (octave, semitone), instrument << 3 | volume's low bits, volume's high bits << 4 | effect
            pattern += bytes([note, (1 << 3) | 0, 0x80, 0]) if note is not None else bytes([0xFF, 1, 0x80, 0])
    pattern[7 * 16 + 2] |= 3  # effect C (pattern break): the song ends
    out = header + first + empty * 30 + orders + bytes(pattern)
    return out + bytes(data_at - len(out)) + _WAVE


def mtm_module() -> bytes:
    """A MultiTracker module: four channels, one track played in the first, one looped sample."""
    unsigned = bytes((b + 128) & 0xFF for b in _WAVE)
    # saved tracks, last pattern, last order, comment length, samples, attribute, rows, channels
    header = b"MTM\x10" + _text(TITLE, 20) + struct.pack("<HBBHBBBB", 1, 0, 0, 0, 1, 0, 64, 4)
    header += bytes([3, 12, 3, 12] + [7] * 28)  # pan positions
    sample = _text("sine", 22) + struct.pack("<IIIBBB", len(_WAVE), 0, len(_WAVE), 0, 64, 0)
    track = bytearray()
    for row in range(64):
        note = {0: 25, 2: 27, 4: 29}.get(row)
        track += bytes([note << 2, 1 << 4, 0]) if note is not None else bytes(3)
    track[7 * 3 + 1] |= 0x0D  # pattern break at row 7: the song ends
    patterns = struct.pack("<32H", 1, *[0] * 31)  # pattern 0: track 1 in the first channel
    return header + sample + bytes(128) + bytes(track) + patterns + unsigned


def composer_669_module() -> bytes:
    """A Composer 669 module: eight channels, one pattern whose break list ends it at row 7."""
    orders, tempos, breaks = bytes([0]) + bytes([0xFF]) * 127, bytes([6]) * 128, bytes([7]) + bytes(127)
    header = b"if" + _text(TITLE, 108) + bytes([1, 1, 0]) + orders + tempos + breaks
    unsigned = bytes((b + 128) & 0xFF for b in _WAVE)
    sample = _text("sine.raw", 13) + struct.pack("<III", len(unsigned), 0, len(unsigned))
    pattern = bytearray()
    for row in range(64):
        for channel in range(8):
            note = {0: 36, 2: 38, 4: 40}.get(row) if channel == 0 else None
            # note << 2 | instrument's high bits, instrument's low bits << 4 | volume, effect (0xFF none)
            pattern += bytes([note << 2, 15, 0xFF]) if note is not None else bytes([0xFF, 0, 0xFF])
    return header + sample + bytes(pattern) + unsigned


def _dsd_bits(seconds: float, rate: int = 2_822_400, frequency: float = 440.0) -> list[int]:
    """A tone as one-bit samples (first-order sigma-delta), eight to a byte, oldest bit first."""
    bits: list[int] = []
    integral = 0.0
    step = 2 * math.pi * frequency / rate
    for n in range(int(seconds * rate) // 8 * 8):
        integral += 0.5 * math.sin(step * n) - (1.0 if bits and bits[-1] else -1.0)
        bits.append(1 if integral >= 0 else 0)
    return bits


def _pack(bits: list[int], lsb_first: bool) -> bytes:
    out = bytearray()
    for i in range(0, len(bits), 8):
        group = bits[i : i + 8]
        order = group[::-1] if lsb_first else group
        out.append(int("".join(map(str, order)), 2))
    return bytes(out)


def dsf(seconds: float = 0.5) -> bytes:
    """A stereo DSF file (Sony's DSD Stream File): 64-fold DSD, 4096-byte blocks per channel."""
    channel = _pack(_dsd_bits(seconds), lsb_first=True)
    samples = len(channel) * 8
    block = 4096
    padded = channel + bytes(-len(channel) % block)
    data = b"".join(padded[i : i + block] * 2 for i in range(0, len(padded), block))
    fmt = struct.pack("<IIIIIIQII", 1, 0, 2, 2, 2_822_400, 1, samples, block, 0)
    fmt_chunk = b"fmt " + struct.pack("<Q", 12 + len(fmt)) + fmt
    data_chunk = b"data" + struct.pack("<Q", 12 + len(data)) + data
    total = 28 + len(fmt_chunk) + len(data_chunk)
    return b"DSD " + struct.pack("<QQQ", 28, total, 0) + fmt_chunk + data_chunk


def _chunk(name: bytes, body: bytes) -> bytes:
    return name + struct.pack(">Q", len(body)) + body + bytes(len(body) % 2)


def dff(seconds: float = 0.5) -> bytes:
    """A stereo DSDIFF file (Philips' DSD Interchange File Format), uncompressed DSD, bytes of the two
    channels interleaved, oldest bit in the high bit."""
    channel = _pack(_dsd_bits(seconds), lsb_first=False)
    data = bytes(b for byte in channel for b in (byte, byte))
    compression = b"DSD " + bytes([14]) + b"not compressed" + b"\0"
    prop = b"SND " + _chunk(b"FS  ", struct.pack(">I", 2_822_400))
    prop += _chunk(b"CHNL", struct.pack(">H", 2) + b"SLFTSRGT") + _chunk(b"CMPR", compression)
    body = b"DSD " + _chunk(b"FVER", struct.pack(">I", 0x01050000)) + _chunk(b"PROP", prop)
    body += _chunk(b"DSD ", data)
    return b"FRM8" + struct.pack(">Q", len(body)) + body
