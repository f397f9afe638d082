"""Audio files written by hand, for formats no program on this machine writes: tracker modules (MOD, XM,
S3M, IT: one looped sine sample playing a few notes, about a second long) and DSD (DSF, DSDIFF: a tone
through a first-order sigma-delta modulator). Each follows the format's published layout; ffmpeg only
reads them (through libopenmpt and its dsf/iff demuxers). Used by the av tests and bench/formats.py.

``huge=True`` writes a module whose sample claims far more bytes than the file holds (the hostile case).
"""

from __future__ import annotations

import math
import struct

__all__ = ["dff", "dsf", "it_module", "mod_module", "s3m_module", "xm_module"]

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
