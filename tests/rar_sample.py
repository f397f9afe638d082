"""A RAR 4 archive written by hand (no free program writes RAR): marker, archive header, one stored
file header per member, end block; each header's CRC is the low 16 bits of the CRC-32 of the header
after the CRC field. Used by the rar tests and by bench/formats.py's samples."""

from __future__ import annotations

import struct
import zlib

__all__ = ["rar4"]


def _block(head_type: int, flags: int, body: bytes) -> bytes:
    rest = struct.pack("<BHH", head_type, flags, 7 + len(body)) + body
    return struct.pack("<H", zlib.crc32(rest) & 0xFFFF) + rest


def rar4(members: list[tuple[str, bytes]], declared_size: int | None = None) -> bytes:
    """``members`` (name, data) stored; ``declared_size`` claims another unpacked size for each."""
    out = b"Rar!\x1a\x07\x00" + _block(0x73, 0, bytes(6))
    for name, data in members:
        encoded = name.encode()
        size = len(data) if declared_size is None else declared_size
        # packed size, unpacked size, host OS (Unix), CRC-32, DOS time, version 2.0, method store,
        # name length, Unix mode
        fields = (len(data), size, 3, zlib.crc32(data), 0x5C210000, 20, 0x30, len(encoded), 0o100644)
        out += _block(0x74, 0x8000, struct.pack("<IIBIIBBHI", *fields) + encoded) + data
    return out + _block(0x7B, 0x4000, b"")
