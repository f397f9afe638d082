"""The pure parts of the camera raw, DICOM, OpenEXR and OpenRaster engines: what they read of a header
before any program decodes a pixel, and OpenRaster's compositing."""

from __future__ import annotations

import io
import zipfile

import pytest
from PIL import Image

from mcv_pipelines.service.engines.base import EngineError
from mcv_pipelines.service.engines.image.dicom import parse_dicom_header
from mcv_pipelines.service.engines.image.exr import exr_windows
from mcv_pipelines.service.engines.image.jpegls import jpegls_size
from mcv_pipelines.service.engines.image.openraster import read_openraster, write_openraster
from mcv_pipelines.service.engines.raw.identify import parse_identify
from raw_samples import BIG_SIDE, exr_bytes, ora_bytes

IDENTIFY = """
Filename: source.dng
Camera: Quokka Bench DNG ID: 0x0
Full size:     96 x 64
Image size:    96 x 64
Output size:   64 x 96
Image flip: 6
"""

DCMDUMP = """(0028,0010) US 64                                       #   2, 1 Rows
(0028,0011) US 96                                       #   2, 1 Columns
(0028,0008) IS [2]                                      #   2, 1 NumberOfFrames
(0028,1050) DS [1700]                                   #   4, 1 WindowCenter
"""


def test_raw_header_is_the_turned_output_size() -> None:
    header = parse_identify(IDENTIFY)
    assert header is not None
    assert (header.width, header.height, header.flip, header.camera) == (64, 96, 6, "Quokka Bench DNG")
    assert parse_identify("Cannot decode x.dng: Unsupported file format or not RAW file") is None


def test_dicom_header_rows_columns_frames_and_window() -> None:
    header = parse_dicom_header(DCMDUMP)
    assert header is not None
    assert (header.rows, header.columns, header.frames, header.has_window) == (64, 96, 2, True)
    single = parse_dicom_header("\n".join(DCMDUMP.splitlines()[:2]))
    assert single is not None
    assert (single.frames, single.has_window) == (1, False)
    assert parse_dicom_header("(0028,0010) US 64  # 2, 1 Rows") is None  # no columns: no picture
    assert not header.jpeg_ls
    lossless = parse_dicom_header(
        "(0002,0010) UI =JPEGLSLossless                 #  22, 1 TransferSyntaxUID\n" + DCMDUMP
    )
    assert lossless is not None
    assert lossless.jpeg_ls


def test_exr_data_window_read_from_the_header_alone() -> None:
    assert exr_windows(exr_bytes()) == [(96, 64)]
    claimed = exr_bytes(claim=BIG_SIDE)
    assert exr_windows(claimed[:400]) == [(BIG_SIDE, BIG_SIDE)]  # the header is enough
    with pytest.raises(ValueError, match="does not start"):
        exr_windows(b"\x89PNG\r\n\x1a\n")
    with pytest.raises(ValueError, match="runs past the end"):
        exr_windows(exr_bytes()[:60])


def test_openraster_composites_visible_layers_and_round_trips() -> None:
    picture = read_openraster(ora_bytes(), "art.ora")
    assert picture.size == (96, 64)
    assert picture.getpixel((40, 24)) == (29, 78, 216, 255)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as ora:  # a hidden layer is left out; a layer's source must be inside
        ora.writestr("stack.xml", '<image w="4" h="4"><stack><layer src="a.png" visibility="hidden"/>'
                     '<layer src="/etc/passwd"/></stack></image>')  # fmt: skip
        layer = io.BytesIO()
        Image.new("RGBA", (4, 4), "red").save(layer, "PNG")
        ora.writestr("a.png", layer.getvalue())
    assert set(read_openraster(out.getvalue(), "x.ora").getcolors() or []) == {(16, (0, 0, 0, 0))}
    written = io.BytesIO()
    write_openraster(picture, written)
    assert read_openraster(written.getvalue(), "again.ora").tobytes() == picture.tobytes()


def test_openraster_refuses_what_is_no_openraster() -> None:
    with pytest.raises(EngineError, match="no OpenRaster file"):
        read_openraster(b"PK not a zip", "x.ora")
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as ora:
        ora.writestr("stack.xml", f'<image w="{BIG_SIDE}" h="{BIG_SIDE}"><stack/></image>')
    with pytest.raises(EngineError, match=f"{BIG_SIDE}x{BIG_SIDE}"):
        read_openraster(out.getvalue(), "huge.ora")


def test_jpegls_size_from_its_frame_header() -> None:
    header = b"\xff\xd8\xff\xe0\x00\x04ab\xff\xf7" + bytes.fromhex("000b 08 0040 0060 01 011100")
    assert jpegls_size(header) == (96, 64)  # past an APP0 segment
    with pytest.raises(ValueError, match="SOF55"):
        jpegls_size(b"\xff\xd8\xff\xc0\x00\x0b\x08\x00\x40\x00\x60\x01\x01\x11\x00\xff\xda")  # baseline JPEG
    with pytest.raises(ValueError, match="does not start"):
        jpegls_size(b"GIF89a")


def _ora_of(layers: list[tuple[str, int, int]], size: int = 4) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as ora:
        nodes = "".join(f'<layer src="{src}" x="{x}" y="{y}"/>' for src, x, y in layers)
        ora.writestr("stack.xml", f'<image w="{size}" h="{size}"><stack>{nodes}</stack></image>')
        layer = io.BytesIO()
        Image.new("RGBA", (size, size), "red").save(layer, "PNG")
        ora.writestr("red.png", layer.getvalue())
    return out.getvalue()


def test_openraster_layer_off_the_canvas_is_clipped_and_layers_have_a_pixel_budget(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    picture = read_openraster(_ora_of([("red.png", -2, -2)]), "shifted.ora")
    assert picture.getpixel((1, 1)) == (255, 0, 0, 255)
    assert picture.getpixel((2, 2)) == (0, 0, 0, 0)
    assert read_openraster(_ora_of([("red.png", 9, 9)]), "away.ora").getbbox() is None
    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", 10)  # three 3x3 layers: 27 pixels, more than 2 x 10
    with pytest.raises(EngineError, match="layers hold more pixels"):
        read_openraster(_ora_of([("red.png", 0, 0)] * 3, size=3), "many.ora")
