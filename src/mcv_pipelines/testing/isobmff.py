"""Boxes of ISO base media files (MP4, QuickTime, 3GP, HEIF, AVIF): the brands of ``ftyp`` that say
which of them a file is, and the picture size HEIF and AVIF keep in ``ispe`` properties, for when
Pillow has no plugin to open them.

A box is a 32-bit big-endian size (1: a 64-bit size follows the type; 0: to the end), then a 4-byte type.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

__all__ = ["brands", "ispe_size"]

_META_LIMIT = 4 * 1024 * 1024  # a meta box is a few KiB; more is not a picture's header
_TOP_BOXES_LIMIT = 10_000


def brands(head: bytes) -> tuple[str, frozenset[str]] | None:
    """The major brand and every brand (major and compatible) of the ``ftyp`` box ``head`` starts with,
    stripped of padding spaces (``qt``, ``M4A``), or None without one."""
    if len(head) < 16 or head[4:8] != b"ftyp":
        return None
    size = min(struct.unpack(">I", head[:4])[0], len(head))
    names = [head[i : i + 4] for i in range(16, size - 3, 4)]
    decoded = [_brand(head[8:12]), *(_brand(name) for name in names)]
    return decoded[0], frozenset(decoded)


def ispe_size(path: Path) -> tuple[int, int] | None:
    """Width and height from the ``ispe`` properties of the ``meta`` box of a HEIF or AVIF file.

    A picture may carry several (a grid's tiles, a thumbnail); the largest is the primary picture's.
    """
    with path.open("rb") as handle:
        meta = _top_level_box(handle, b"meta")
    if meta is None:
        return None
    sizes = list(_ispe_sizes(meta[4:]))  # meta is a full box: 4 bytes of version and flags first
    return max(sizes, key=lambda size: size[0] * size[1]) if sizes else None


def _brand(raw: bytes) -> str:
    return raw.decode("latin-1").strip(" \x00")


def _top_level_box(handle: BinaryIO, wanted: bytes) -> bytes | None:
    """The payload of the first top-level box of type ``wanted``, seeking past the others (mdat)."""
    offset = 0
    for _ in range(_TOP_BOXES_LIMIT):
        handle.seek(offset)
        header = handle.read(16)
        if len(header) < 8:
            return None
        size, kind = struct.unpack(">I4s", header[:8])
        start = 8
        if size == 1 and len(header) == 16:
            size, start = struct.unpack(">Q", header[8:16])[0], 16
        if kind == wanted:
            length = (size - start) if size else _META_LIMIT
            handle.seek(offset + start)
            return handle.read(min(length, _META_LIMIT))
        if size < start:  # 0 (to the end) or broken: nothing after it
            return None
        offset += size
    return None


def _children(data: bytes) -> Iterator[tuple[bytes, bytes]]:
    offset = 0
    while offset + 8 <= len(data):
        size, kind = struct.unpack(">I4s", data[offset : offset + 8])
        start = 8
        if size == 1 and offset + 16 <= len(data):
            size, start = struct.unpack(">Q", data[offset + 8 : offset + 16])[0], 16
        elif size == 0:
            size = len(data) - offset
        if size < start:
            return
        yield kind, data[offset + start : offset + size]
        offset += size


def _ispe_sizes(meta: bytes) -> Iterator[tuple[int, int]]:
    for kind, payload in _children(meta):
        if kind != b"iprp":
            continue
        for inner, properties in _children(payload):
            if inner != b"ipco":
                continue
            for prop, body in _children(properties):
                if prop == b"ispe" and len(body) >= 12:
                    yield struct.unpack(">II", body[4:12])
