"""A comic's pages as a PDF, one picture a page at the picture's own size, written here by hand.

Pillow's PDF writer re-encodes every colour picture as a new JPEG (a generation lost for JPEG pages,
artefacts on PNG line art). Here a JPEG page (RGB or grey) goes in as its own bytes (DCTDecode) and
any other picture as its pixels, compressed without loss (FlateDecode), transparency flattened on
white. A page measures its picture at the picture's recorded resolution, 96 dpi when it records none.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import BinaryIO

from PIL import Image

from mcv_pipelines.service.engines.pages.comic_pages import Page

__all__ = ["write_pdf"]

_DEFAULT_DPI = 96.0


def _dpi(image: Image.Image) -> float:
    dpi = image.info.get("dpi")
    try:
        value = float(dpi[0]) if isinstance(dpi, tuple) else 0.0
    except (TypeError, ValueError):
        value = 0.0
    # PNG records dots per metre: 2835 of them are 72.009 dpi, meant as 72
    return float(round(value)) if 10 <= value <= 2400 else _DEFAULT_DPI


def _flat(image: Image.Image) -> Image.Image:
    if image.mode in ("1", "L"):
        return image.convert("L")
    if image.mode in ("RGBA", "LA", "PA") or (image.mode == "P" and "transparency" in image.info):
        rgba = image.convert("RGBA")
        flat = Image.new("RGB", rgba.size, "white")
        flat.paste(rgba, mask=rgba.getchannel("A"))
        return flat
    return image.convert("RGB")


def _image_object(page: Page) -> tuple[bytes, bytes, float]:
    """The image's dictionary entries, its stream bytes and its resolution."""
    with Image.open(page.path) as image:
        dpi = _dpi(image)
        if page.format == "JPEG" and image.mode in ("RGB", "L"):
            space = "DeviceRGB" if image.mode == "RGB" else "DeviceGray"
            data = page.path.read_bytes()
            kind = "DCTDecode"
        else:
            image.seek(0)
            flat = _flat(image)
            space = "DeviceRGB" if flat.mode == "RGB" else "DeviceGray"
            data = zlib.compress(flat.tobytes(), 6)
            kind = "FlateDecode"
    width, height = page.size
    entries = (
        f"/Type /XObject /Subtype /Image /Width {width} /Height {height} /ColorSpace /{space} "
        f"/BitsPerComponent 8 /Filter /{kind} /Length {len(data)}"
    )
    return entries.encode(), data, dpi


class _Writer:
    def __init__(self, out: BinaryIO) -> None:
        self.out = out
        self.offsets: list[int] = []
        self.position = 0

    def raw(self, data: bytes) -> None:
        self.out.write(data)
        self.position += len(data)

    def obj(self, number: int, body: bytes, stream: bytes | None = None) -> None:
        while len(self.offsets) < number:
            self.offsets.append(0)
        self.offsets[number - 1] = self.position
        self.raw(f"{number} 0 obj\n<< ".encode() + body + b" >>\n")
        if stream is not None:
            self.raw(b"stream\n" + stream + b"\nendstream\n")
        self.raw(b"endobj\n")


def write_pdf(pages: Sequence[Page], target: Path, check: Callable[[], None]) -> None:
    """Write ``pages`` in order as the PDF ``target``; ``check`` is called between pages (cancel)."""
    with target.open("wb") as stream:
        writer = _Writer(stream)
        writer.raw(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
        kids = " ".join(f"{3 + 3 * index} 0 R" for index in range(len(pages)))
        writer.obj(1, b"/Type /Catalog /Pages 2 0 R")
        writer.obj(2, f"/Type /Pages /Kids [{kids}] /Count {len(pages)}".encode())
        for index, page in enumerate(pages):
            check()
            number = 3 + 3 * index
            entries, data, dpi = _image_object(page)
            width, height = (round(side * 72 / dpi, 3) for side in page.size)
            content = f"q {width} 0 0 {height} 0 0 cm /Page Do Q".encode()
            writer.obj(
                number,
                f"/Type /Page /Parent 2 0 R /MediaBox [0 0 {width} {height}] "
                f"/Resources << /XObject << /Page {number + 2} 0 R >> >> /Contents {number + 1} 0 R".encode(),
            )
            writer.obj(number + 1, f"/Length {len(content)}".encode(), content)
            writer.obj(number + 2, entries, data)
        start = writer.position
        count = len(writer.offsets) + 1
        xref = [f"xref\n0 {count}\n0000000000 65535 f \n"]
        xref += [f"{offset:010d} 00000 n \n" for offset in writer.offsets]
        writer.raw("".join(xref).encode())
        writer.raw(f"trailer\n<< /Size {count} /Root 1 0 R >>\nstartxref\n{start}\n%%EOF\n".encode())
