"""Samples of camera raw, medical and HDR images (issue 47), for the tests and bench/formats.py's seeds,
each written here by hand, never by the engine that reads it:

- dng: a 96x64 Bayer (RGGB) sensor in a TIFF with DNG's tags (CFA pattern, colour matrix, AsShotNeutral,
  Orientation 6), so a portrait picture stored landscape, with a green cast the camera's white balance
  removes. No maker raw (cr2, nef, arw, ...) is seeded: none with its image data could be had here.
- dcm: a DICOM Part 10 file (explicit VR little endian), 16-bit monochrome, two frames, a VOI window.
- exr: an uncompressed scanline OpenEXR file with half-float R, G, B channels.
- mpo: two JPEGs (Pillow's, as plain JPEG) joined with the APP2 MP index a stereo camera writes.
- ora: an OpenRaster zip: stack.xml, two PNG layers (one offset, one half transparent), the merged image.
- psb: Photoshop's large document format (PSD version 2), raw planar RGB, no layers.
- xcf: GIMP's format, version 0, one RGB layer in RLE tiles (GraphicsMagick reads it too).
- jls: JPEG-LS, encoded by DCMTK's dcmcjpls inside a DICOM (from img2dcm) and taken out of it.
"""

from __future__ import annotations

import functools
import io
import struct
import subprocess
import zipfile
from collections.abc import Sequence
from pathlib import Path

from PIL import Image, ImageDraw

__all__ = [
    "BIG_SIDE",
    "dicom_bytes",
    "dng_bytes",
    "exr_bytes",
    "mpo_bytes",
    "ora_bytes",
    "psb_bytes",
    "xcf_bytes",
]

_WIDTH, _HEIGHT = 96, 64
BIG_SIDE = 60000  # what the hostile headers claim: 60000 x 60000 pixels (3.6 gigapixels)
# how the bench's sensor answers to white: red and blue weaker than green (a green cast)
_NEUTRAL = (0.5, 1.0, 0.7)
_WHITE_LEVEL = 4095
# XYZ (D65) -> linear sRGB: a "camera" whose raw channels are sRGB's, so the daylight balance is 1, 1, 1
_XYZ_TO_SRGB = ((3.2406, -1.5372, -0.4986), (-0.9689, 1.8758, 0.0415), (0.0557, -0.2040, 1.0570))


def _scene(x: int, y: int) -> tuple[float, float, float]:
    """The seed picture: a blue box on a light grey ground, as in the PNG seed."""
    return (0.11, 0.3, 0.85) if 16 <= x < 80 and 12 <= y < 52 else (0.8, 0.8, 0.8)


# --- TIFF / DNG ----------------------------------------------------------------------------------

_TYPES = {"BYTE": (1, "B"), "ASCII": (2, "s"), "SHORT": (3, "H"), "LONG": (4, "I"), "RATIONAL": (5, "II"),
          "SRATIONAL": (10, "ii")}  # fmt: skip


def _tiff(tags: Sequence[tuple[int, str, Sequence[object] | bytes]], data: bytes) -> bytes:
    """A little-endian TIFF with one IFD of ``tags`` and ``data`` as its one strip (tag 273 points at
    it). Values that do not fit in four bytes follow the IFD."""
    ifd_at = 8
    entries = sorted(tags, key=lambda tag: tag[0])
    extra_at = ifd_at + 2 + 12 * len(entries) + 4
    packed: list[tuple[int, int, int, bytes]] = []
    for tag, kind, values in entries:
        code, fmt = _TYPES[kind]
        if kind == "ASCII":
            raw = bytes(values) + b"\x00"  # type: ignore[arg-type]  # ASCII values are bytes
            count = len(raw)
        elif kind in ("RATIONAL", "SRATIONAL"):
            flat = [part for value in values for part in _fraction(value)]  # type: ignore[arg-type]  # a RATIONAL tag holds numbers
            raw, count = struct.pack(f"<{len(flat)}{fmt[0]}", *flat), len(flat) // 2
        else:
            count = len(values)
            raw = struct.pack(f"<{count}{fmt}", *values)
        packed.append((tag, code, count, raw))
    blob = bytearray()
    data_at = extra_at + sum(len(raw) + len(raw) % 2 for *_, raw in packed if len(raw) > 4)
    ifd = bytearray(struct.pack("<H", len(packed)))
    for tag, code, count, raw in packed:
        if tag == 273:
            raw = struct.pack("<I", data_at)
        if len(raw) <= 4:
            ifd += struct.pack("<HHI", tag, code, count) + raw.ljust(4, b"\x00")
        else:
            ifd += struct.pack("<HHII", tag, code, count, extra_at + len(blob))
            blob += raw + b"\x00" * (len(raw) % 2)
    ifd += struct.pack("<I", 0)
    return b"II*\x00" + struct.pack("<I", ifd_at) + bytes(ifd) + bytes(blob) + data


def _fraction(value: float) -> tuple[int, int]:
    return (round(value * 10000), 10000)


def dng_bytes(
    width: int = _WIDTH, height: int = _HEIGHT, orientation: int = 6, claim: int | None = None
) -> bytes:
    """The DNG seed; ``claim``: a width and height the header says instead (a hostile header)."""
    pixels = bytearray()
    for y in range(height):
        for x in range(width):
            channel = (0, 1)[x % 2] if y % 2 == 0 else (1, 2)[x % 2]  # RGGB
            value = _scene(x, y)[channel] * _NEUTRAL[channel] * _WHITE_LEVEL
            pixels += struct.pack("<H", round(value))
    side_w, side_h = (claim, claim) if claim else (width, height)
    tags: list[tuple[int, str, Sequence[object] | bytes]] = [
        (254, "LONG", [0]), (256, "LONG", [side_w]), (257, "LONG", [side_h]), (258, "SHORT", [16]),
        (259, "SHORT", [1]), (262, "SHORT", [32803]), (271, "ASCII", b"Quokka"), (272, "ASCII", b"Bench DNG"),
        (273, "LONG", [0]), (274, "SHORT", [orientation]), (277, "SHORT", [1]), (278, "LONG", [side_h]),
        (279, "LONG", [len(pixels)]), (284, "SHORT", [1]), (33421, "SHORT", [2, 2]),
        (33422, "BYTE", [0, 1, 1, 2]), (50706, "BYTE", [1, 4, 0, 0]), (50707, "BYTE", [1, 1, 0, 0]),
        (50708, "ASCII", b"Quokka Bench DNG"), (50717, "LONG", [_WHITE_LEVEL]),
        (50721, "SRATIONAL", [value for row in _XYZ_TO_SRGB for value in row]),
        (50728, "RATIONAL", list(_NEUTRAL)), (50778, "SHORT", [21]),
    ]  # fmt: skip
    return _tiff(tags, bytes(pixels))


# --- DICOM ---------------------------------------------------------------------------------------


def _element(group: int, element: int, vr: str, value: bytes) -> bytes:
    if len(value) % 2:
        value += b"\x00" if vr in ("UI", "OB") else b" "
    if vr in ("OB", "OW", "SQ", "UN", "UT"):
        return struct.pack("<HH2sHI", group, element, vr.encode(), 0, len(value)) + value
    return struct.pack("<HH2sH", group, element, vr.encode(), len(value)) + value


def dicom_bytes(
    frames: int = 2,
    rows: int = _HEIGHT,
    columns: int = _WIDTH,
    claim: int | None = None,
    claim_frames: int | None = None,
) -> bytes:
    """A secondary-capture DICOM of ``frames`` 16-bit frames (values 0-4000, the box bright); with
    ``claim`` the header says claim x claim pixels (``claim_frames``: that many frames) while holding
    only the real ones."""
    sop_class, sop_instance = b"1.2.840.10008.5.1.4.1.1.7", b"1.2.826.0.1.3680043.2.1125.47.1"
    pixels = bytearray()
    for frame in range(frames):
        for y in range(rows):
            for x in range(columns):
                inside = 16 <= x < 80 and 12 <= y < 52
                pixels += struct.pack("<H", (3000 + 500 * frame) if inside else 400)
    meta_body = (
        _element(0x0002, 0x0001, "OB", b"\x00\x01")
        + _element(0x0002, 0x0002, "UI", sop_class)
        + _element(0x0002, 0x0003, "UI", sop_instance)
        + _element(0x0002, 0x0010, "UI", b"1.2.840.10008.1.2.1")
        + _element(0x0002, 0x0012, "UI", b"1.2.826.0.1.3680043.2.1125.47")
    )
    meta = _element(0x0002, 0x0000, "UL", struct.pack("<I", len(meta_body))) + meta_body
    height, width = (claim, claim) if claim else (rows, columns)
    body = (
        _element(0x0008, 0x0016, "UI", sop_class)
        + _element(0x0008, 0x0018, "UI", sop_instance)
        + _element(0x0008, 0x0060, "CS", b"OT")
        + _element(0x0010, 0x0010, "PN", b"Quokka^Bench")
        + _element(0x0028, 0x0002, "US", struct.pack("<H", 1))
        + _element(0x0028, 0x0004, "CS", b"MONOCHROME2")
        + _element(0x0028, 0x0008, "IS", str(claim_frames or frames).encode())
        + _element(0x0028, 0x0010, "US", struct.pack("<H", min(height, 65535)))
        + _element(0x0028, 0x0011, "US", struct.pack("<H", min(width, 65535)))
        + _element(0x0028, 0x0100, "US", struct.pack("<H", 16))
        + _element(0x0028, 0x0101, "US", struct.pack("<H", 12))
        + _element(0x0028, 0x0102, "US", struct.pack("<H", 11))
        + _element(0x0028, 0x0103, "US", struct.pack("<H", 0))
        + _element(0x0028, 0x1050, "DS", b"1700")
        + _element(0x0028, 0x1051, "DS", b"3400")
        + _element(0x7FE0, 0x0010, "OW", bytes(pixels))
    )
    return b"\x00" * 128 + b"DICM" + meta + body


# --- OpenEXR -------------------------------------------------------------------------------------


def _attribute(name: str, kind: str, value: bytes) -> bytes:
    return name.encode() + b"\x00" + kind.encode() + b"\x00" + struct.pack("<i", len(value)) + value


def exr_bytes(width: int = _WIDTH, height: int = _HEIGHT, claim: int | None = None) -> bytes:
    """An uncompressed scanline EXR (half R, G, B: the seed picture in linear light). ``claim``: the
    data window the header says instead (a hostile header; the scanlines stay the real ones)."""
    channels = b"".join(name + b"\x00" + struct.pack("<iB3xii", 1, 0, 1, 1) for name in (b"B", b"G", b"R"))
    side_w, side_h = (claim, claim) if claim else (width, height)
    window = struct.pack("<iiii", 0, 0, side_w - 1, side_h - 1)
    header = (
        b"\x76\x2f\x31\x01" + struct.pack("<I", 2)
        + _attribute("channels", "chlist", channels + b"\x00")
        + _attribute("compression", "compression", b"\x00")
        + _attribute("dataWindow", "box2i", window)
        + _attribute("displayWindow", "box2i", window)
        + _attribute("lineOrder", "lineOrder", b"\x00")
        + _attribute("pixelAspectRatio", "float", struct.pack("<f", 1.0))
        + _attribute("screenWindowCenter", "v2f", struct.pack("<ff", 0, 0))
        + _attribute("screenWindowWidth", "float", struct.pack("<f", 1.0))
        + b"\x00"
    )  # fmt: skip
    line_size = 4 + 4 + 3 * 2 * width
    table_at = len(header)
    first = table_at + 8 * height
    table = b"".join(struct.pack("<Q", first + y * line_size) for y in range(height))
    lines = bytearray()
    for y in range(height):
        lines += struct.pack("<ii", y, 3 * 2 * width)
        for channel in (2, 1, 0):  # B, G, R: the channel list is sorted by name
            lines += b"".join(struct.pack("<e", _scene(x, y)[channel] ** 2.2) for x in range(width))
    return header + table + bytes(lines)


# --- MPO and OpenRaster --------------------------------------------------------------------------


def _picture(colour: tuple[int, int, int]) -> Image.Image:
    image = Image.new("RGB", (_WIDTH, _HEIGHT), "white")
    ImageDraw.Draw(image).rectangle((16, 12, 80, 52), fill=colour)
    return image


def _jpeg(image: Image.Image) -> bytes:
    out = io.BytesIO()
    image.save(out, "JPEG", quality=90)
    return out.getvalue()


def mpo_bytes() -> bytes:
    """Two JPEGs (left and right eye) after each other, the first with the APP2 "MPF" index that
    names both: its offsets count from the TIFF header inside that segment."""
    left, right = _jpeg(_picture((29, 78, 216))), _jpeg(_picture((216, 78, 29)))
    # APP2: "MPF\0", then a big-endian TIFF header and one IFD: version, count, the MP entries
    entries_at = 8 + 2 + 3 * 12 + 4
    ifd = struct.pack(">H", 3)
    ifd += struct.pack(">HHI", 0xB000, 7, 4) + b"0100"
    ifd += struct.pack(">HHII", 0xB001, 4, 1, 2)
    ifd += struct.pack(">HHII", 0xB002, 7, 32, entries_at)
    ifd += struct.pack(">I", 0)
    segment_size = 2 + 4 + 8 + len(ifd) + 32
    first_size = len(left) + 2 + segment_size
    header_at = 2 + 2 + 2 + 4  # SOI, APP2 marker, its length, "MPF\0": the TIFF header's offset
    entries = struct.pack(">IIIHH", 0x20030000, first_size, 0, 0, 0)  # representative, baseline MP
    entries += struct.pack(">IIIHH", 0x00020002, len(right), first_size - header_at, 0, 0)  # disparity
    app2 = b"\xff\xe2" + struct.pack(">H", segment_size) + b"MPF\x00" + b"MM\x00\x2a" + struct.pack(">I", 8)
    app2 += ifd + entries
    return left[:2] + app2 + left[2:] + right


def ora_bytes() -> bytes:
    """An OpenRaster image: a white ground, a blue box layer at (16, 12), a red half-transparent one."""
    ground = Image.new("RGBA", (_WIDTH, _HEIGHT), "white")
    box = Image.new("RGBA", (64, 40), (29, 78, 216, 255))
    veil = Image.new("RGBA", (20, 20), (255, 0, 0, 128))
    merged = ground.copy()
    merged.alpha_composite(box, (16, 12))
    merged.alpha_composite(veil, (60, 30))

    def png(image: Image.Image) -> bytes:
        out = io.BytesIO()
        image.save(out, "PNG")
        return out.getvalue()

    stack = (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<image version="0.0.5" w="{_WIDTH}" h="{_HEIGHT}">'
        '<stack><layer name="veil" src="data/veil.png" x="60" y="30" opacity="1.0"/>'
        '<layer name="box" src="data/box.png" x="16" y="12"/>'
        '<layer name="ground" src="data/ground.png" x="0" y="0"/></stack></image>\n'
    )
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr(zipfile.ZipInfo("mimetype"), "image/openraster")  # first and stored
        archive.writestr("stack.xml", stack, zipfile.ZIP_DEFLATED)
        for name, layer in (("ground", ground), ("box", box), ("veil", veil)):
            archive.writestr(f"data/{name}.png", png(layer))
        archive.writestr("mergedimage.png", png(merged))
        thumbnail = merged.copy()
        thumbnail.thumbnail((48, 48))
        archive.writestr("Thumbnails/thumbnail.png", png(thumbnail))
    return out.getvalue()


# --- Photoshop's large document format and GIMP's own (ImageMagick reads both) -------------------


def psb_bytes() -> bytes:
    """A PSB (PSD version 2): header, no colour mode data, resources or layers, raw planar RGB."""
    header = b"8BPS" + struct.pack(">H6xHIIHH", 2, 3, _HEIGHT, _WIDTH, 8, 3)
    planes = b"".join(
        bytes(round(_scene(x, y)[channel] * 255) for y in range(_HEIGHT) for x in range(_WIDTH))
        for channel in range(3)
    )
    # colour mode data, image resources (4-byte lengths), layer and mask info (8 bytes in a PSB)
    return header + struct.pack(">IIQ", 0, 0, 0) + struct.pack(">H", 0) + planes


def _xcf_rle(channel: bytes) -> bytes:
    """One channel of a tile in XCF's RLE: literal runs of at most 127 bytes (a count byte 256 - n)."""
    out = bytearray()
    for at in range(0, len(channel), 127):
        run = channel[at : at + 127]
        out += bytes((256 - len(run),)) + run
    return bytes(out)


def xcf_bytes() -> bytes:
    """An XCF (version 0) with one visible RGB layer, its tiles (64x64) in XCF's RLE, as GIMP writes."""

    def props(*items: tuple[int, bytes]) -> bytes:
        return b"".join(struct.pack(">II", kind, len(value)) + value for kind, value in items) + b"\x00" * 8

    head = b"gimp xcf file\x00" + struct.pack(">III", _WIDTH, _HEIGHT, 0)
    head += props((17, b"\x01"))  # PROP_COMPRESSION: RLE
    layer_at = len(head) + 8 + 4  # after the layer pointers (one, then 0) and the channel pointers (0)
    name = b"Quokka\x00"
    layer = struct.pack(">III", _WIDTH, _HEIGHT, 0) + struct.pack(">I", len(name)) + name
    layer += props((6, struct.pack(">I", 255)), (8, struct.pack(">I", 1)), (15, struct.pack(">ii", 0, 0)))
    hierarchy_at = layer_at + len(layer) + 8
    layer += struct.pack(">II", hierarchy_at, 0)  # its hierarchy, no mask
    level_at = hierarchy_at + 4 * 3 + 8
    hierarchy = struct.pack(">IIIII", _WIDTH, _HEIGHT, 3, level_at, 0)
    tiles = [(x0, y0) for y0 in range(0, _HEIGHT, 64) for x0 in range(0, _WIDTH, 64)]
    tile_at = level_at + 8 + 4 * (len(tiles) + 1)
    level, data = struct.pack(">II", _WIDTH, _HEIGHT), b""
    for x0, y0 in tiles:
        level += struct.pack(">I", tile_at + len(data))
        spots = [(x, y) for y in range(y0, min(y0 + 64, _HEIGHT)) for x in range(x0, min(x0 + 64, _WIDTH))]
        for channel in range(3):
            data += _xcf_rle(bytes(round(_scene(x, y)[channel] * 255) for x, y in spots))
    level += struct.pack(">I", 0)
    return head + struct.pack(">III", layer_at, 0, 0) + layer + hierarchy + level + data


# --- JPEG-LS: made by DCMTK (its CharLS), not by ffmpeg, which the engine runs -------------------


def _encapsulated(item: bytes) -> bytes:
    return struct.pack("<HHI", 0xFFFE, 0xE000, len(item)) + item


def jpegls_in_dicom(stream: bytes) -> bytes:
    """A DICOM holding one JPEG-LS ``stream`` as its encapsulated pixel data, so DCMTK's decoder can
    read a stream it did not write (its size, components and precision taken from the SOF55)."""
    at = stream.index(b"\xff\xf7")
    precision, height, width, components = struct.unpack_from(">BHHB", stream, at + 4)
    sop_class, sop_instance = b"1.2.840.10008.5.1.4.1.1.7", b"1.2.826.0.1.3680043.2.1125.47.2"
    meta_body = (
        _element(0x0002, 0x0001, "OB", b"\x00\x01")
        + _element(0x0002, 0x0002, "UI", sop_class)
        + _element(0x0002, 0x0003, "UI", sop_instance)
        + _element(0x0002, 0x0010, "UI", b"1.2.840.10008.1.2.4.80")
    )
    meta = _element(0x0002, 0x0000, "UL", struct.pack("<I", len(meta_body))) + meta_body
    fragment = stream + b"\x00" * (len(stream) % 2)
    pixels = _encapsulated(b"") + _encapsulated(fragment) + struct.pack("<HHI", 0xFFFE, 0xE0DD, 0)
    body = (
        _element(0x0008, 0x0016, "UI", sop_class)
        + _element(0x0008, 0x0018, "UI", sop_instance)
        + _element(0x0028, 0x0002, "US", struct.pack("<H", components))
        + _element(0x0028, 0x0004, "CS", b"RGB" if components == 3 else b"MONOCHROME2")
        + (_element(0x0028, 0x0006, "US", struct.pack("<H", 0)) if components == 3 else b"")
        + _element(0x0028, 0x0010, "US", struct.pack("<H", height))
        + _element(0x0028, 0x0011, "US", struct.pack("<H", width))
        + _element(0x0028, 0x0100, "US", struct.pack("<H", 8 if precision <= 8 else 16))
        + _element(0x0028, 0x0101, "US", struct.pack("<H", precision))
        + _element(0x0028, 0x0102, "US", struct.pack("<H", precision - 1))
        + _element(0x0028, 0x0103, "US", struct.pack("<H", 0))
        + struct.pack("<HH2sHI", 0x7FE0, 0x0010, b"OB", 0, 0xFFFFFFFF)
        + pixels
    )
    return b"\x00" * 128 + b"DICM" + meta + body


def jls_bytes(work: Path) -> bytes:
    """The seed picture as JPEG-LS, encoded by DCMTK: a BMP (Pillow) into DICOM (img2dcm), compressed
    (dcmcjpls), and the stream taken out of its one fragment."""
    work.mkdir(parents=True, exist_ok=True)
    picture = Image.new("RGB", (_WIDTH, _HEIGHT))
    picture.putdata(
        [tuple(round(v * 255) for v in _scene(x, y)) for y in range(_HEIGHT) for x in range(_WIDTH)]
    )
    picture.save(work / "seed.bmp")
    run = functools.partial(subprocess.run, check=True, capture_output=True, timeout=60)
    run(["img2dcm", "-i", "BMP", str(work / "seed.bmp"), str(work / "seed.dcm")])
    run(["dcmcjpls", str(work / "seed.dcm"), str(work / "seed-jls.dcm")])
    data = (work / "seed-jls.dcm").read_bytes()
    start = data.index(b"\xff\xd8\xff\xf7")
    (length,) = struct.unpack_from("<I", data, start - 4)  # the fragment item's length, just before it
    stream = data[start : start + length]
    return stream[: stream.rindex(b"\xff\xd9") + 2]
