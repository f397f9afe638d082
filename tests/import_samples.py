"""Hand-written samples of formats LibreOffice only reads (its import filters): AbiWord (abw, zabw),
T602 (602), dBase III (dbf), Lotus 1-2-3 (wk1, wks) and Gnumeric (gnumeric). Each says the word it is
given, so a conversion can be checked for it. Written from the formats' published layouts; no program
made them, so none of them is LibreOffice's own output read back.
"""

from __future__ import annotations

import gzip
import struct
from collections.abc import Callable
from pathlib import Path

__all__ = ["IMPORT_SAMPLES", "write_import_sample"]


def _abw(word: str, extra: str = "") -> bytes:
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<abiword template="false" xmlns="http://www.abisource.com/awml.dtd" '
        'xmlns:xlink="http://www.w3.org/1999/xlink" version="3.0.5" fileformat="1.1">\n'
        '<metadata><m key="dc.title">Notes</m></metadata>\n'
        f'<section><p style="Heading 1">{word} notes</p><p>About the <c props="font-weight:bold">{word}'
        f"</c>.</p>{extra}</section>\n</abiword>\n"
    ).encode()


def _t602(word: str) -> bytes:
    # dot commands ("@CT 0": code page Kamenicky, margins), then the text, lines ended by CR LF
    lines = ["@CT 0", "@LM 1", "@RM 72", "@PL 60", f"{word} notes", f"About the {word}.", ""]
    return "\r\n".join(lines).encode("ascii")


def _dbf(word: str) -> bytes:
    fields = [("ANIMAL", "C", 20, 0), ("COUNT", "N", 5, 0)]
    rows = [(word, "3"), ("Wombat", "5")]
    record = 1 + sum(size for _, _, size, _ in fields)
    header = struct.pack("<B3BIHH20x", 0x03, 126, 5, 1, len(rows), 32 + 32 * len(fields) + 1, record)
    for name, kind, size, decimals in fields:
        header += struct.pack("<11sc4xBB14x", name.encode(), kind.encode(), size, decimals)
    body = b"".join(b" " + text.encode().ljust(20) + number.encode().rjust(5) for text, number in rows)
    return header + b"\r" + body + b"\x1a"


def _lotus(version: int) -> Callable[[str], bytes]:
    def write(word: str) -> bytes:
        def rec(opcode: int, data: bytes) -> bytes:
            return struct.pack("<HH", opcode, len(data)) + data

        def label(col: int, row: int, text: str) -> bytes:
            return rec(0x0F, struct.pack("<BHH", 0xFF, col, row) + b"'" + text.encode("ascii") + b"\0")

        def number(col: int, row: int, value: float) -> bytes:
            return rec(0x0E, struct.pack("<BHHd", 0xFF, col, row, value))

        cells = [label(0, 0, "animal"), label(1, 0, "count"), label(0, 1, word), number(1, 1, 3.0),
                 label(0, 2, "Wombat"), number(1, 2, 5.0)]  # fmt: skip
        return (
            rec(0x00, struct.pack("<H", version))
            + rec(0x06, struct.pack("<4H", 0, 0, 1, 2))
            + b"".join(cells)
            + rec(0x01, b"")
        )

    return write


def _gnumeric(word: str) -> bytes:
    cells = [(0, 0, "animal"), (0, 1, "count"), (1, 0, word), (1, 1, "3"), (2, 0, "Wombat"), (2, 1, "5")]
    xml = (
        '<?xml version="1.0" encoding="UTF-8"?>\n<gnm:Workbook xmlns:gnm="http://www.gnumeric.org/v10.dtd">'
        "<gnm:SheetNameIndex><gnm:SheetName>Animals</gnm:SheetName></gnm:SheetNameIndex>"
        "<gnm:Sheets><gnm:Sheet><gnm:Name>Animals</gnm:Name><gnm:MaxCol>1</gnm:MaxCol><gnm:MaxRow>2</gnm:MaxRow>"
        "<gnm:Cells>"
        + "".join(
            f'<gnm:Cell Row="{r}" Col="{c}" ValueType="{40 if v.isdigit() else 60}">{v}</gnm:Cell>'
            for r, c, v in cells
        )
        + "</gnm:Cells></gnm:Sheet></gnm:Sheets></gnm:Workbook>\n"
    )
    return gzip.compress(xml.encode())


IMPORT_SAMPLES: dict[str, Callable[[str], bytes]] = {
    "abw": _abw,
    "zabw": lambda word: gzip.compress(_abw(word)),
    "602": _t602,
    "dbf": _dbf,
    "wk1": _lotus(0x0406),
    "wks": _lotus(0x0404),
    "gnumeric": _gnumeric,
}


def write_import_sample(path: Path, word: str) -> Path:
    """The hand-written sample of ``path``'s format (its extension), saying ``word``."""
    path.write_bytes(IMPORT_SAMPLES[path.suffix[1:]](word))
    return path
