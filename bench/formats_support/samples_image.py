"""Seeds of the image formats that are read but never written by the listing (issue 23, the image long
tail): made with ImageMagick from the PNG seed where it writes the format, else written by hand.

- cur: ImageMagick's CUR coder writes an icon (type 1); a cursor is the same file with type 2.
- pcd: ImageMagick writes Photo CD (always 768x512), which only Pillow reads here.
- blp: Pillow's writer (too slow to list for photos) from the PNG seed.
- mat: GraphicsMagick writes MATLAB's level 5 MAT-file (ImageMagick's writer is broken in Debian's build).
- gbr (GIMP brush), mac (MacPaint), tim (PlayStation TIM): small enough to write by hand.
"""

from __future__ import annotations

import struct
import subprocess
from collections.abc import Callable
from pathlib import Path

from PIL import Image

__all__ = ["image_seeds"]

_WIDTH, _HEIGHT = 96, 64


def _inside(x: int, y: int) -> bool:
    """The seed picture: a blue box on white, as in the PNG seed."""
    return 16 <= x < 80 and 12 <= y < 52


def _magick(png: Path, coder: str, path: Path) -> None:
    subprocess.run(["convert", str(png), f"{coder}:{path}"], check=True, capture_output=True, timeout=60)


def _graphicsmagick(png: Path, coder: str, path: Path) -> None:
    subprocess.run(
        ["gm", "convert", str(png), f"{coder}:{path}"], check=True, capture_output=True, timeout=60
    )


def _cursor(png: Path, path: Path) -> None:
    _magick(png, "ICO", path)
    data = bytearray(path.read_bytes())
    data[2] = 2  # ICONDIR type: 1 icon, 2 cursor
    path.write_bytes(bytes(data))


def _blizzard(png: Path, path: Path) -> None:
    with Image.open(png) as image:
        image.convert("RGB").convert("P", palette=Image.Palette.ADAPTIVE).save(path, "BLP")


def _gimp_brush(path: Path) -> None:
    name = b"Quokka\x00"
    header = struct.pack(">IIIII", 28 + len(name), 2, _WIDTH, _HEIGHT, 1) + b"GIMP" + struct.pack(">I", 10)
    pixels = bytes(200 if _inside(x, y) else 0 for y in range(_HEIGHT) for x in range(_WIDTH))
    path.write_bytes(header + name + pixels)


def _macpaint(path: Path) -> None:
    # 512-byte header, then 720 rows of 576 pixels, each row 72 bytes packed: one run of 72 bytes
    row = bytes((0x100 - 71, 0x0F))
    path.write_bytes(b"\x00" * 512 + row * 720)


def _psx_tim(path: Path) -> None:
    pixels = bytearray()
    for y in range(_HEIGHT):
        for x in range(_WIDTH):
            red, green, blue = (29, 78, 216) if _inside(x, y) else (255, 255, 255)
            pixels += struct.pack("<H", (red >> 3) | (green >> 3) << 5 | (blue >> 3) << 10)
    block = struct.pack("<IHHHH", 12 + len(pixels), 0, 0, _WIDTH, _HEIGHT) + pixels
    path.write_bytes(struct.pack("<II", 0x10, 2) + block)  # 16-bit pixels, no colour table


def image_seeds(directory: Path, wanted: set[str], png: Path | None) -> dict[str, Path]:
    """The seeds of the read-only image formats in ``wanted``; ``png``: the PNG seed, if made."""
    makers: dict[str, Callable[[Path], None]] = {"gbr": _gimp_brush, "mac": _macpaint, "tim": _psx_tim}
    if png is not None:
        makers["cur"] = lambda path: _cursor(png, path)
        makers["pcd"] = lambda path: _magick(png, "PCD", path)
        makers["blp"] = lambda path: _blizzard(png, path)
        makers["mat"] = lambda path: _graphicsmagick(png, "MAT", path)
    seeds: dict[str, Path] = {}
    for fmt, make in makers.items():
        if fmt in wanted:
            path = directory / f"sample.{fmt}"
            make(path)
            seeds[fmt] = path
    return seeds
