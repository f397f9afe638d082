"""A compound file (OLE2, [MS-CFB] version 3) written by hand: what Outlook's msg files are made of.

No program on the test machines writes msg, so the mail tests and bench/formats.py build their samples
with this writer, which shares nothing with the reader under test (olefile). ``compound_file`` takes a
tree: a name maps to bytes (a stream) or to a dict (a storage). Streams under the 4096-byte cutoff go
to the mini stream (64-byte sectors, the mini FAT), larger ones to 512-byte sectors of the FAT; the
directory holds each storage's children as a balanced red-black tree in the format's name order.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

__all__ = ["compound_file"]

Tree = dict[str, "bytes | Tree"]

_SECTOR, _MINI, _CUTOFF = 512, 64, 4096
_FREE, _END, _FATSECT, _NONE = 0xFFFFFFFF, 0xFFFFFFFE, 0xFFFFFFFD, 0xFFFFFFFF
_STORAGE, _STREAM, _ROOT = 1, 2, 5
_RED, _BLACK = 0, 1


@dataclass
class _Entry:
    name: str
    kind: int
    data: bytes = b""
    children: list[_Entry] = field(default_factory=list)
    index: int = 0
    left: int = _NONE
    right: int = _NONE
    child: int = _NONE
    color: int = _BLACK
    start: int = _END


def _entries(name: str, tree: Tree, kind: int) -> _Entry:
    node = _Entry(name, kind)
    for child_name, value in tree.items():
        if isinstance(value, dict):
            node.children.append(_entries(child_name, value, _STORAGE))
        else:
            node.children.append(_Entry(child_name, _STREAM, value))
    return node


def _flatten(node: _Entry, into: list[_Entry]) -> None:
    node.index = len(into)
    into.append(node)
    for child in node.children:
        _flatten(child, into)


def _order(entry: _Entry) -> tuple[int, str]:
    return len(entry.name), entry.name.upper()


def _tree(siblings: list[_Entry], depth: int, deepest: int, perfect: bool) -> int:
    """The root index of a balanced tree of ``siblings`` (sorted); the deepest level red unless perfect."""
    if not siblings:
        return _NONE
    middle = len(siblings) // 2
    node = siblings[middle]
    node.color = _RED if depth == deepest and not perfect else _BLACK
    node.left = _tree(siblings[:middle], depth + 1, deepest, perfect)
    node.right = _tree(siblings[middle + 1 :], depth + 1, deepest, perfect)
    return node.index


def _link(node: _Entry) -> None:
    ordered = sorted(node.children, key=_order)
    count = len(ordered)
    deepest = count.bit_length() - 1
    node.child = _tree(ordered, 0, deepest, count == (1 << (deepest + 1)) - 1)
    for child in node.children:
        _link(child)


def _sectors(data: bytes, size: int) -> int:
    return (len(data) + size - 1) // size


def _pad(data: bytes, size: int) -> bytes:
    return data + b"\x00" * (-len(data) % size)


def _start(entry: _Entry) -> int:
    if entry.kind == _STORAGE:
        return 0
    return entry.start if entry.data or entry.kind == _ROOT else _END


def compound_file(tree: Tree) -> bytes:
    """The bytes of a compound file holding ``tree`` under its Root Entry."""
    root = _entries("Root Entry", tree, _ROOT)
    entries: list[_Entry] = []
    _flatten(root, entries)
    _link(root)
    streams = [entry for entry in entries if entry.kind == _STREAM and entry.data]
    small = [entry for entry in streams if len(entry.data) < _CUTOFF]
    large = [entry for entry in streams if len(entry.data) >= _CUTOFF]
    # the mini stream and its FAT
    mini_stream, mini_fat = b"", []
    for entry in small:
        entry.start = len(mini_stream) // _MINI
        count = _sectors(entry.data, _MINI)
        mini_fat += [entry.start + n + 1 for n in range(count - 1)] + [_END]
        mini_stream += _pad(entry.data, _MINI)
    mini_fat_bytes = _pad(struct.pack(f"<{len(mini_fat)}I", *mini_fat), _SECTOR) if mini_fat else b""
    if mini_fat:  # the unused entries of its last sector are free
        used = len(mini_fat) * 4
        mini_fat_bytes = mini_fat_bytes[:used] + b"\xff" * (len(mini_fat_bytes) - used)
    directory = b""
    # the sectors in order: FAT, directory, mini FAT, mini stream, large streams
    chunks: list[tuple[str, bytes]] = [
        ("directory", b"\x00" * _SECTOR * _sectors(b"\x00" * 128 * len(entries), _SECTOR))
    ]
    chunks += [("minifat", mini_fat_bytes), ("ministream", _pad(mini_stream, _SECTOR))]
    chunks += [(f"stream{entry.index}", _pad(entry.data, _SECTOR)) for entry in large]
    body_sectors = sum(len(data) // _SECTOR for _, data in chunks)
    fat_sectors = 1
    while fat_sectors * (_SECTOR // 4) < body_sectors + fat_sectors:
        fat_sectors += 1
    if fat_sectors > 109:
        raise ValueError("this writer keeps the FAT's sectors in the header's 109 places")
    fat = [_FATSECT] * fat_sectors
    starts: dict[str, int] = {}
    for name, data in chunks:
        count = len(data) // _SECTOR
        starts[name] = len(fat) if count else _END
        fat += [len(fat) + n + 1 for n in range(count - 1)] + ([_END] if count else [])
    fat += [_FREE] * (fat_sectors * (_SECTOR // 4) - len(fat))
    for entry in large:
        entry.start = starts[f"stream{entry.index}"]
    root.start = starts["ministream"] if mini_stream else _END
    root.data = mini_stream  # its size is the mini stream's
    for entry in entries:
        name = entry.name.encode("utf-16-le") + b"\x00\x00"
        size = len(entry.data)
        directory += struct.pack(
            "<64sHBBIII16sIQQIQ", name, len(name), entry.kind, entry.color, entry.left, entry.right,
            entry.child, b"\x00" * 16, 0, 0, 0, _start(entry), size,
        )  # fmt: skip
    unused = struct.pack("<64sHBBIII16sIQQIQ", b"", 0, 0, 0, _NONE, _NONE, _NONE, b"\x00" * 16, 0, 0, 0, 0, 0)
    directory += unused * (-len(entries) % (_SECTOR // 128))
    chunks[0] = ("directory", directory)
    difat = list(range(fat_sectors)) + [_FREE] * (109 - fat_sectors)
    header = struct.pack(
        "<8s16sHHHHH6sIIIIIIIII109I", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", b"\x00" * 16, 0x3E, 3, 0xFFFE,
        9, 6, b"\x00" * 6, 0, fat_sectors, starts["directory"], 0, _CUTOFF,
        starts["minifat"], len(mini_fat_bytes) // _SECTOR, _END, 0, *difat,
    )  # fmt: skip
    fat_bytes = struct.pack(f"<{len(fat)}I", *fat)
    return header + fat_bytes + b"".join(data for _, data in chunks)
