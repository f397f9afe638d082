"""The compressed RTF body of an Outlook message ([MS-OXRTFCP]), decompressed and reduced to its text.

A message saved with only an RTF body keeps it LZ77-compressed ("LZFu", against a 4096-byte dictionary
preset with RTF's common words) or stored ("MELA"). The text is what a reader needs of it: control
words dropped, ``\\par`` and ``\\line`` as new lines, ``\\'hh`` and ``\\uN`` as their characters, and the
groups that hold no text (font and colour tables, stylesheets, ``\\*`` destinations) skipped. No
formatting survives; the output stays within ``_MAX_RAW`` bytes whatever the header claims.
"""

from __future__ import annotations

import re
import struct

__all__ = ["decompress_rtf", "rtf_text"]

_PRESET = (
    b"{\\rtf1\\ansi\\mac\\deff0\\deftab720{\\fonttbl;}{\\f0\\fnil \\froman \\fswiss \\fmodern \\fscript "
    b"\\fdecor MS Sans SerifSymbolArialTimes New RomanCourier{\\colortbl\\red0\\green0\\blue0\r\n\\par "
    b"\\pard\\plain\\f0\\fs20\\b\\i\\u\\tab\\tx"
)
_LZFU, _MELA = 0x75465A4C, 0x414C454D
_MAX_RAW = 64 * 1024 * 1024
_TOKEN = re.compile(
    rb"\\([a-zA-Z]+)(-?\d+)? ?|\\'([0-9a-fA-F]{2})|\\(.)|([{}])|([^\\{}\r\n]+)|[\r\n]+", re.DOTALL
)
_SKIPPED = frozenset({b"fonttbl", b"colortbl", b"stylesheet", b"info", b"pict", b"header", b"footer",
                      b"listtable", b"listoverridetable", b"rsidtbl", b"generator", b"xmlnstbl"})  # fmt: skip
_BREAKS = {b"par": "\n", b"line": "\n", b"tab": "\t", b"row": "\n", b"cell": "\t", b"page": "\n"}


def decompress_rtf(data: bytes) -> bytes:
    """The RTF of a compressed RTF stream (ValueError when it is neither LZFu nor MELA)."""
    if len(data) < 16:
        raise ValueError("the RTF stream is shorter than its header")
    _size, raw_size, kind, _crc = struct.unpack_from("<IIII", data)
    body = data[16:]
    if kind == _MELA:
        return body[: min(raw_size, _MAX_RAW)]
    if kind != _LZFU:
        raise ValueError("the RTF stream is not compressed RTF")
    window = bytearray(4096)
    window[: len(_PRESET)] = _PRESET
    write = len(_PRESET)
    out = bytearray()
    limit = min(raw_size, _MAX_RAW)
    position = 0
    while position < len(body) and len(out) < limit:
        flags = body[position]
        position += 1
        for bit in range(8):
            if position >= len(body):
                break
            if not flags & (1 << bit):
                window[write] = body[position]
                out.append(body[position])
                write, position = (write + 1) % 4096, position + 1
                continue
            if position + 1 >= len(body):
                return bytes(out)
            token = (body[position] << 8) | body[position + 1]
            position += 2
            offset, length = token >> 4, (token & 0xF) + 2
            if offset == write:  # the end marker
                return bytes(out)
            for step in range(length):
                byte = window[(offset + step) % 4096]
                window[write] = byte
                out.append(byte)
                write = (write + 1) % 4096
    return bytes(out[:limit])


def rtf_text(data: bytes) -> str:
    """The text of a compressed RTF body ('' when it cannot be decompressed)."""
    try:
        rtf = decompress_rtf(data)
    except ValueError:
        return ""
    text: list[str] = []
    depth, skip_from = 0, None  # skip_from: the depth of the group being skipped
    fresh_group, fallback = False, 0  # fallback: characters after \\uN that stand in for it
    for match in _TOKEN.finditer(rtf):
        word, number, hexa, symbol, brace, plain = match.groups()
        if brace == b"{":
            depth, fresh_group = depth + 1, True
            continue
        if brace == b"}":
            if skip_from is not None and depth <= skip_from:
                skip_from = None
            depth, fresh_group = depth - 1, False
            continue
        starts = fresh_group
        fresh_group = False
        if skip_from is not None:
            continue
        if (symbol == b"*" and starts) or word in _SKIPPED:
            skip_from = depth
        elif word in _BREAKS:
            text.append(_BREAKS[word])
        elif word == b"u" and number:
            text.append(chr(int(number) % 65536))
            fallback = 1
        elif hexa and fallback:
            fallback = 0
        elif hexa:
            text.append(bytes([int(hexa, 16)]).decode("cp1252", "replace"))
        elif symbol in (b"\\", b"{", b"}"):
            text.append(symbol.decode())
        elif plain:
            text.append(plain.decode("cp1252", "replace")[fallback:])
            fallback = 0
    return re.sub(r"\n{3,}", "\n\n", "".join(text)).strip() + "\n"
