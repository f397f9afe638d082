"""MATLAB level 5 MAT-files written by hand: an 8-bit RGB picture as one uint8 matrix of rows x columns
x 3 planes, stored column by column as MATLAB stores arrays; optionally zlib-compressed as MATLAB 7
saves, big-endian, or declaring a size its data does not hold (a bomb's header)."""

from __future__ import annotations

import struct
import zlib
from collections.abc import Sequence

__all__ = ["mat_bytes"]

Pixel = tuple[int, int, int]
_DOUBLE_CLASS, _MATRIX, _COMPRESSED, _INT8, _UINT8, _INT32, _UINT32 = 6, 14, 15, 1, 2, 5, 6


def _element(order: str, kind: int, payload: bytes) -> bytes:
    padding = b"\x00" * (-len(payload) % 8)
    return struct.pack(order + "II", kind, len(payload)) + payload + padding


def mat_bytes(
    rows: Sequence[Sequence[Pixel]],
    *,
    compressed: bool = False,
    order: str = "<",
    declared: tuple[int, int] | None = None,
) -> bytes:
    """A MAT-file of one RGB picture (``rows`` of pixels); ``declared``: (width, height) to claim."""
    height, width = len(rows), len(rows[0])
    claimed_width, claimed_height = declared or (width, height)
    planes = bytes(rows[y][x][plane] for plane in range(3) for x in range(width) for y in range(height))
    matrix = (
        _element(order, _UINT32, struct.pack(order + "II", _DOUBLE_CLASS, 0))
        + _element(order, _INT32, struct.pack(order + "3i", claimed_height, claimed_width, 3))
        + struct.pack(order + "I", 3 << 16 | _INT8)
        + b"img\x00"  # the small form ImageMagick expects
        + _element(order, _UINT8, planes)
    )
    element = _element(order, _MATRIX, matrix)
    if compressed:
        packed = zlib.compress(element)
        element = struct.pack(order + "II", _COMPRESSED, len(packed)) + packed
    text = b"MATLAB 5.0 MAT-file, written by hand for a test".ljust(116, b" ")
    mark = b"IM" if order == "<" else b"MI"
    return text + b"\x00" * 8 + struct.pack(order + "H", 0x0100) + mark + element
