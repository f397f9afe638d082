"""The picture sizes a MATLAB level 5 MAT-file declares, read before ImageMagick decodes it.

ImageMagick's MAT coder fails when only pinged (``identify -ping``: "improper image header" for any
file), so the header check every ImageMagick input gets reads this format here instead. A MAT-file is
a 128-byte header and then data elements (a type and a byte count); a matrix (type 14), or a matrix
inside a zlib-compressed element (type 15, as MATLAB 7 saves), starts with its flags and then its
dimensions: rows, columns, then colour planes and frames. ImageMagick shows each matrix as a picture of
``columns`` x ``rows``, one per frame.
"""

from __future__ import annotations

import mmap
import struct
import zlib
from math import prod

__all__ = ["mat_picture_sizes"]

_HEADER = 128
_MATRIX, _COMPRESSED, _INT32 = 14, 15, 5
_MAX_ELEMENTS = 1024
_HEAD_OF_COMPRESSED = 4096  # enough of an inflated matrix for its flags and dimensions
_CHUNK = 65536

Data = bytes | mmap.mmap


def _order(data: Data) -> str:
    if len(data) < _HEADER or data[:19] != b"MATLAB 5.0 MAT-file":
        raise ValueError("it has no MATLAB 5.0 MAT-file header")
    marker = data[126:128]
    if marker == b"IM":
        return "<"
    if marker == b"MI":
        return ">"
    raise ValueError(f"its byte-order mark is {marker!r}, not 'IM' or 'MI'")


def _tag(data: Data, offset: int, order: str) -> tuple[int, int, int, int]:
    """(type, byte count, offset of the data, offset of the next element)."""
    (first,) = struct.unpack_from(order + "I", data, offset)
    if first >> 16:  # the small form: count and type in one word, at most four bytes of data
        return first & 0xFFFF, first >> 16, offset + 4, offset + 8
    kind, size = struct.unpack_from(order + "II", data, offset)
    padded = size if kind == _COMPRESSED else (size + 7) // 8 * 8
    return kind, size, offset + 8, offset + 8 + padded


def _dimensions(data: Data, start: int, order: str) -> tuple[int, ...]:
    """The dimensions subelement of the matrix whose data begins at ``start`` (after its flags)."""
    _, _, _, after_flags = _tag(data, start, order)
    kind, size, start, _ = _tag(data, after_flags, order)
    if kind != _INT32 or size < 8 or size % 4 or size > 4 * 32:
        raise ValueError("a matrix has no dimensions")
    return struct.unpack_from(f"{order}{size // 4}i", data, start)


def _inflated_head(data: Data, start: int, size: int) -> bytes:
    """The first bytes a compressed element inflates to, read a chunk at a time."""
    inflate = zlib.decompressobj()
    head = b""
    for at in range(start, start + size, _CHUNK):
        head += inflate.decompress(data[at : min(at + _CHUNK, start + size)], _HEAD_OF_COMPRESSED - len(head))
        if len(head) >= _HEAD_OF_COMPRESSED:
            break
    return head


def mat_picture_sizes(data: Data) -> list[tuple[int, int]]:
    """(width, height) of the pictures each matrix of ``data`` makes, frames stacked into the height.

    Raises ValueError (or struct.error, zlib.error) when ``data`` is no MAT-file or a matrix is cut
    short. ``data`` may be a map of the file: only tags and dimensions are read."""
    order = _order(data)
    sizes: list[tuple[int, int]] = []
    offset = _HEADER
    for _ in range(_MAX_ELEMENTS):
        if offset + 8 > len(data):
            break
        kind, size, start, offset = _tag(data, offset, order)
        if kind == _COMPRESSED:
            inflated = _inflated_head(data, start, size)
            kind, _, start_inside, _ = _tag(inflated, 0, order)
            if kind == _MATRIX:
                dims = _dimensions(inflated, start_inside, order)
                sizes.append((dims[1], dims[0] * prod(dims[3:])))
        elif kind == _MATRIX:
            dims = _dimensions(data, start, order)
            sizes.append((dims[1], dims[0] * prod(dims[3:])))
    if not sizes:
        raise ValueError("it holds no matrix")
    if any(width < 0 or height < 0 for width, height in sizes):
        raise ValueError("a matrix declares a negative dimension")
    return sizes
