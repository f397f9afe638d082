"""Samples of the image inputs of issue 47's second image wave, shared by the bench
(bench/formats_support/samples_imgx.py) and the tests, each WRITTEN BY HAND from the format's
published layout (never made by the engine that reads it), and the pixels each must decode to.

- fli, flc: Autodesk Animator animations (FLI: 320x200 era, 1/70 s ticks; FLC: Animator Pro, any
  size, milliseconds). Twelve frames (under a second: a shorter clip is too short for ffprobe to
  read back from MPEG-TS): a BRUN-compressed first frame with a 256-colour palette, then FLI_COPY
  frames; every odd frame swaps the colours.
- rle: a Utah Raster Toolkit image: three 8-bit channels, run-length coded, bottom line first.
- wpg: a WordPerfect Graphics (version 1) file: a palette record and an 8-bit RLE bitmap record.
- spi: a SPIDER 2D image (cryo-EM), float32 big-endian with its 256-byte-record header.

``picture(fmt, frame)`` says what frame ``frame`` of a seed holds, as RGB rows, for the pixel check.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from pathlib import Path

__all__ = ["FLIC_FRAMES", "IMGX_FORMATS", "huge", "imgx_seeds", "picture", "sample_bytes", "write_sample"]

_WIDTH, _HEIGHT = 96, 64
_WHITE, _BLUE = (255, 255, 255), (29, 78, 216)
FLIC_FRAMES = 12
IMGX_FORMATS = ("fli", "flc", "spi", "rle", "wpg")


def _inside(x: int, y: int) -> bool:
    """The seed picture: a blue box on white, as in the PNG seed."""
    return 16 <= x < 80 and 12 <= y < 52


def picture(fmt: str, frame: int = 0) -> list[list[tuple[int, int, int]]]:
    """The RGB pixels frame ``frame`` of the ``fmt`` seed holds."""
    box, paper = (_BLUE, _WHITE) if frame % 2 == 0 else (_WHITE, _BLUE)
    if fmt == "spi":
        box, paper = (0, 0, 0), (255, 255, 255)  # densities 0.25 and 1.5 stretched to 0..255
    return [[box if _inside(x, y) else paper for x in range(_WIDTH)] for y in range(_HEIGHT)]


def _chunk(kind: int, body: bytes) -> bytes:
    return struct.pack("<IH", 6 + len(body), kind) + body


def _flic(magic: int) -> bytes:
    # palette: index 0 white, 1 blue (COLOR_256, chunk 4: one packet, skip 0, count 2)
    palette = _chunk(4, struct.pack("<HBB", 1, 0, 2) + bytes(_WHITE) + bytes(_BLUE))
    brun = bytearray()  # chunk 15: per line a packet count, then runs (positive count: repeat a byte)
    for y in range(_HEIGHT):
        if 12 <= y < 52:
            brun += bytes((3, 16, 0, 64, 1, 16, 0))
        else:
            brun += bytes((1, _WIDTH, 0))
    swapped = bytes(0 if _inside(x, y) else 1 for y in range(_HEIGHT) for x in range(_WIDTH))  # chunk 16
    same = bytes(1 if _inside(x, y) else 0 for y in range(_HEIGHT) for x in range(_WIDTH))

    def frame(*chunks: bytes) -> bytes:
        body = b"".join(chunks)
        return struct.pack("<IHH8x", 16 + len(body), 0xF1FA, len(chunks)) + body

    first = frame(palette, _chunk(15, bytes(brun)))
    later = [frame(_chunk(16, swapped if index % 2 else same)) for index in range(1, FLIC_FRAMES)]
    frames = first + b"".join(later)
    speed = 5 if magic == 0xAF11 else 70  # FLI: 1/70 s ticks; FLC: milliseconds
    header = struct.pack("<IHHHHHHI", 128 + len(frames), magic, FLIC_FRAMES, _WIDTH, _HEIGHT, 8, 3, speed)
    header = header.ljust(80, b"\0")
    if magic == 0xAF12:  # FLC: offsets of frames one and two
        header = header[:80] + struct.pack("<II", 128, 128 + len(first))
    return header.ljust(128, b"\0") + frames


def _spider() -> bytes:
    record = _WIDTH * 4
    labrec = -(-1024 // record)  # header records: at least 1024 bytes
    header = [0.0] * (labrec * record // 4)
    header[0], header[1], header[2], header[4] = 1.0, float(_HEIGHT), float(_HEIGHT), 1.0  # nz, ny, irec, 2D
    header[11], header[12] = float(_WIDTH), float(labrec)
    header[21], header[22] = float(labrec * record), float(record)
    pixels = [0.25 if _inside(x, y) else 1.5 for y in range(_HEIGHT) for x in range(_WIDTH)]
    return struct.pack(f">{len(header)}f", *header) + struct.pack(f">{len(pixels)}f", *pixels)


def _utah_rle() -> bytes:
    # magic, origin, size, flags (2: no background, one filler byte), 3 channels of 8 bits, no colour map
    data = bytearray(struct.pack("<HHHHHBBBBB", 0xCC52, 0, 0, _WIDTH, _HEIGHT, 2, 3, 8, 0, 0) + b"\0")
    for y in reversed(range(_HEIGHT)):
        for channel in range(3):
            data += bytes((2, channel))  # set colour: this channel
            runs = ((16, _WHITE), (64, _BLUE), (16, _WHITE)) if 12 <= y < 52 else ((_WIDTH, _WHITE),)
            for count, colour in runs:  # run data: count - 1, then the value in a 16-bit word
                data += bytes((6, count - 1)) + struct.pack("<H", colour[channel])
        data += bytes((1, 1))  # skip to the next line
    return bytes(data + bytes((7, 0)))  # end of image


def _wpg() -> bytes:
    def record(kind: int, body: bytes) -> bytes:  # a length under 255 in one byte, else 0xFF and a word
        size = bytes((len(body),)) if len(body) < 0xFF else b"\xff" + struct.pack("<H", len(body))
        return bytes((kind,)) + size + body

    # file id, data offset, product 1 (WPG), file type 0x16, version 1.0, not encrypted
    header = struct.pack("<IIBBBBHH", 0x435057FF, 16, 1, 0x16, 1, 0, 0, 0)
    start = record(0x0F, struct.pack("<BBHH", 1, 0, _WIDTH * 12, _HEIGHT * 12))  # size in 1/1200 inch
    palette = record(0x0E, struct.pack("<HH", 0, 2) + bytes(_WHITE) + bytes(_BLUE))
    raster = bytearray()  # 0x80 | n: repeat the next byte n times
    for y in range(_HEIGHT):
        raster += (
            bytes((0x80 | 16, 0, 0x80 | 64, 1, 0x80 | 16, 0)) if 12 <= y < 52 else bytes((0x80 | _WIDTH, 0))
        )
    bitmap = record(0x0B, struct.pack("<HHHHH", _WIDTH, _HEIGHT, 8, 75, 75) + raster)
    return header + start + palette + bitmap + record(0x10, b"")


_MAKERS: dict[str, Callable[[], bytes]] = {
    "fli": lambda: _flic(0xAF11),
    "flc": lambda: _flic(0xAF12),
    "spi": _spider,
    "rle": _utah_rle,
    "wpg": _wpg,
}


def sample_bytes(fmt: str) -> bytes:
    """The ``fmt`` sample's bytes."""
    return _MAKERS[fmt]()


def write_sample(fmt: str, path: Path) -> Path:
    """The ``fmt`` sample, written to ``path``."""
    path.write_bytes(_MAKERS[fmt]())
    return path


def huge(fmt: str) -> bytes:
    """A ``fmt`` file whose header claims a picture of billions of pixels (and holds a few bytes)."""
    side = 65535
    if fmt in ("fli", "flc"):
        frame = struct.pack("<IHH8x", 16, 0xF1FA, 0)
        magic = 0xAF11 if fmt == "fli" else 0xAF12
        return struct.pack("<IHHHHHHI", 144, magic, 1, side, side, 8, 3, 5).ljust(128, b"\0") + frame
    if fmt == "spi":
        header = [0.0] * 256
        header[0], header[1], header[2], header[4], header[11] = 1.0, 60000.0, 60000.0, 1.0, 60000.0
        header[12], header[21], header[22] = 1.0, 240000.0, 240000.0  # one record of 60000 floats
        return struct.pack(">256f", *header)
    if fmt == "rle":
        head = struct.pack("<HHHHHBBBBB", 0xCC52, 0, 0, side, side, 2, 3, 8, 0, 0)
        return head + b"\0" + bytes((6, 126)) + struct.pack("<H", 7) + bytes((7, 0))
    if fmt == "wpg":
        bitmap = struct.pack("<HHHHH", side, side, 8, 75, 75) + bytes((0x80 | 127, 0)) * 4
        header = struct.pack("<IIBBBBHH", 0x435057FF, 16, 1, 0x16, 1, 0, 0, 0)
        return header + bytes((0x0B, 0xFF)) + struct.pack("<H", len(bitmap)) + bitmap + bytes((0x10, 0))
    raise KeyError(fmt)


def imgx_seeds(directory: Path, wanted: set[str]) -> dict[str, Path]:
    """The seeds of the formats in ``wanted`` this module writes."""
    seeds: dict[str, Path] = {}
    for fmt, make in _MAKERS.items():
        if fmt in wanted:
            seeds[fmt] = directory / f"sample.{fmt}"
            seeds[fmt].write_bytes(make())
    return seeds
