"""Small samples of the image formats Pillow reads but does not write, written by hand (a blue box on
white, 48x32), for the tests that run every listed conversion."""

from __future__ import annotations

import io
import struct
from collections.abc import Callable

from PIL import Image

from imgx_samples import sample_bytes
from raw_samples import mpo_bytes

__all__ = ["READ_ONLY_SAMPLES"]

_W, _H = 48, 32
_BLUE, _WHITE = (29, 78, 216), (255, 255, 255)


def _rgb(x: int, y: int) -> tuple[int, int, int]:
    return _BLUE if 8 <= x < 40 and 6 <= y < 26 else _WHITE


def _psd() -> bytes:
    header = b"8BPS" + struct.pack(">H6xHIIHH", 1, 3, _H, _W, 8, 3)  # RGB, 8 bits, raw planes
    planes = b"".join(bytes(_rgb(x, y)[c] for y in range(_H) for x in range(_W)) for c in range(3))
    return header + struct.pack(">IIIH", 0, 0, 0, 0) + planes


def _sun_raster() -> bytes:
    rows = b"".join(bytes(v for x in range(_W) for v in reversed(_rgb(x, y))) for y in range(_H))
    return struct.pack(">8I", 0x59A66A95, _W, _H, 24, len(rows), 1, 0, 0) + rows  # BGR rows


def _dcx() -> bytes:
    pcx = io.BytesIO()
    Image.new("RGB", (_W, _H), _WHITE).save(pcx, "PCX")
    return struct.pack("<II", 0x3ADE68B1, 12) + struct.pack("<I", 0) + pcx.getvalue()  # one page


def _cur() -> bytes:
    ico = io.BytesIO()
    Image.new("RGBA", (32, 32), (*_BLUE, 255)).save(ico, "ICO", sizes=[(32, 32)], bitmap_format="bmp")
    data = bytearray(ico.getvalue())
    data[2] = 2  # an icon file with type 2 is a cursor
    return bytes(data)


def _pcd() -> bytes:
    # Photo CD: "PCD_IPI" in the second 2 KiB sector, the 768x512 base image (YCC) at sector 96
    head = bytearray(96 * 2048)
    head[2048 : 2048 + 7] = b"PCD_IPI"
    return bytes(head) + bytes([128]) * (768 * 512 * 3 // 2)


def _blp() -> bytes:
    blp = io.BytesIO()  # Pillow's writer, too slow to list for photos, makes a small sample quickly
    Image.new("RGB", (_W, _H), _BLUE).convert("P", palette=Image.Palette.ADAPTIVE).save(blp, "BLP")
    return blp.getvalue()


def _gimp_brush() -> bytes:
    name = b"sample\x00"
    header = struct.pack(">IIIII", 28 + len(name), 2, _W, _H, 1) + b"GIMP" + struct.pack(">I", 10)
    return header + name + bytes(200 if _rgb(x, y) == _BLUE else 0 for y in range(_H) for x in range(_W))


READ_ONLY_SAMPLES: dict[str, Callable[[], bytes]] = {
    "psd": _psd, "ras": _sun_raster, "dcx": _dcx, "cur": _cur, "pcd": _pcd, "gbr": _gimp_brush, "blp": _blp,
    "mpo": mpo_bytes,  # a stereo pair, two JPEGs and their MP index (raw_samples.py)
    # issue 47's second image wave, written by hand in imgx_samples.py
    **{fmt: (lambda fmt=fmt: sample_bytes(fmt)) for fmt in ("fli", "flc", "spi")},
}  # fmt: skip
