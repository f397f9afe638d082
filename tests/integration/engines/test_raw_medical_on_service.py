"""Camera raw (LibRaw), DICOM (DCMTK), OpenEXR, OpenRaster and MPO through the real local service:
what a user sees of the picture (turned as the camera held it, its white balance, every DICOM frame in
order, layers composited), and the clear errors of a broken file."""

from __future__ import annotations

import base64
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
from engine_job_helpers import download_all, run_job, task_named
from PIL import Image
from pypdf import PdfReader

from mcv_pipelines.service.engines.base import Engine
from mcv_pipelines.service.engines.image.dicom import DcmtkEngine
from raw_samples import (
    dicom_bytes,
    dng_bytes,
    exr_bytes,
    jls_bytes,
    jpegls_in_dicom,
    mpo_bytes,
    ora_bytes,
    psb_bytes,
    xcf_bytes,
)

RequireEngine = Callable[..., Engine]


def _job(client: httpx.Client, name: str, data: bytes, tasks: dict[str, dict[str, Any]]) -> dict[str, Any]:
    imported = {"operation": "import/base64", "file": base64.b64encode(data).decode(), "filename": name}
    converts = {key: {"operation": "convert", "input": "in", **task} for key, task in tasks.items()}
    export = {"operation": "export/url", "input": list(tasks)}
    return run_job(client, {"in": imported, **converts, "export": export})


def _rgb(path: Path, x: int, y: int) -> tuple[int, int, int]:
    with Image.open(path) as image:
        red, green, blue = image.convert("RGB").getpixel((x, y))  # type: ignore[misc]  # RGB: a 3-tuple
    return (red, green, blue)


def test_dng_develops_portrait_with_the_cameras_white_balance(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("libraw", "convert", "dng", "jpg")
    job = _job(client, "IMG_0001.dng", dng_bytes(), {
        "camera": {"output_format": "png", "filename": "camera.png"},
        "daylight": {"output_format": "png", "white_balance": "daylight", "filename": "daylight.png"},
        "half": {"output_format": "jpg", "half_size": True, "quality": 90, "filename": "half.jpg"},
        "fitted": {"output_format": "webp", "height": 48, "filename": "fitted.webp"},
    })  # fmt: skip
    assert task_named(job, "camera")["engine"] == "libraw"
    files = download_all(job, tmp_path / "out")
    with Image.open(files["camera.png"]) as camera:
        assert camera.size == (64, 96)  # stored landscape, Orientation 6: held upright
    grey = _rgb(files["camera.png"], 4, 4)
    assert max(grey) - min(grey) <= 12, grey  # the sensor's green cast removed as shot
    cast = _rgb(files["daylight.png"], 4, 4)
    assert cast[1] - cast[0] > 40, cast  # the sensor's own daylight balance keeps it
    blue = _rgb(files["camera.png"], 32, 48)
    assert blue[2] > blue[0] + 60, blue
    with Image.open(files["half.jpg"]) as half, Image.open(files["fitted.webp"]) as fitted:
        assert half.format == "JPEG"
        assert half.size == (32, 48)
        assert fitted.size == (32, 48)


def test_truncated_dng_and_a_picture_that_is_no_raw_fail_clearly(
    require_engine: RequireEngine, client: httpx.Client
) -> None:
    require_engine("libraw", "convert", "dng", "png")
    job = _job(client, "cut.dng", dng_bytes()[:400], {"png": {"output_format": "png"}})
    task = task_named(job, "png")
    assert task["status"] == "error"
    assert task["code"] == "INVALID_INPUT_FILE"
    assert "cut.dng" in task["message"]
    assert "Unexpected end of file" in task["message"]
    job = _job(client, "note.dng", b"II*\x00 not a raw at all", {"png": {"output_format": "png"}})
    task = task_named(job, "png")
    assert task["code"] == "INVALID_INPUT_FILE"
    assert task["message"].startswith("note.dng is no camera raw file LibRaw reads")


def test_dicom_gives_a_file_per_frame_in_order_and_a_pdf_page_per_frame(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("dcmtk", "convert", "dcm", "png")
    job = _job(client, "scan.dcm", dicom_bytes(frames=3), {
        "png": {"output_format": "png"},
        "raw": {"output_format": "tiff", "window": "none", "filename": "raw-%d.tiff"},
        "pdf": {"output_format": "pdf"},
    })  # fmt: skip
    assert task_named(job, "png")["engine"] == "dcmtk"
    files = download_all(job, tmp_path / "out")
    frames = [files[f"scan-{n}.png"] for n in (1, 2, 3)]
    # the seed's box gets brighter frame by frame (3000, 3500, 4000 against a 400 ground); the file's
    # window (centre 1700, width 3400) shows the first two apart and clips the third
    boxes = [_rgb(path, 40, 24)[0] for path in frames]
    assert boxes[0] < boxes[1] <= boxes[2]
    assert _rgb(frames[0], 4, 4)[0] < 40
    assert sorted(name for name in files if name.startswith("raw-")) == [
        "raw-1.tiff",
        "raw-2.tiff",
        "raw-3.tiff",
    ]
    # no window: the stored 12 bits scaled as they are, so the box is dimmer than in the file's window
    assert _rgb(files["raw-1.tiff"], 40, 24)[0] < boxes[0]
    assert len(PdfReader(files["scan.pdf"]).pages) == 3


def test_compressed_dicom_jpeg_and_jpeg_ls_render(
    require_engine: RequireEngine, require_program: Callable[..., str], client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("dcmtk", "convert", "dcm", "png")
    plain = tmp_path / "plain.dcm"
    plain.write_bytes(dicom_bytes(frames=1))
    for compressor in ("dcmcjpeg", "dcmcjpls"):  # DCMTK's own encoders: the pixels are the hand-written ones
        packed = tmp_path / f"{compressor}.dcm"
        subprocess.run(
            [require_program(compressor), str(plain), str(packed)], check=True, capture_output=True
        )
        job = _job(client, packed.name, packed.read_bytes(), {"png": {"output_format": "png"}})
        png = download_all(job, tmp_path / compressor)[f"{compressor}.png"]
        assert _rgb(png, 40, 24)[0] > _rgb(png, 4, 4)[0] + 80


def test_exr_is_tone_mapped_to_srgb_and_written_back_linear(
    require_engine: RequireEngine, require_program: Callable[..., str], client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("openexr", "convert", "exr", "png")
    job = _job(
        client, "render.exr", exr_bytes(), {"png": {"output_format": "png"}, "jpg": {"output_format": "jpg"}}
    )
    assert task_named(job, "png")["engine"] == "openexr"
    files = download_all(job, tmp_path / "out")
    ground, box = _rgb(files["render.png"], 4, 4), _rgb(files["render.png"], 40, 24)
    assert all(abs(channel - 206) <= 3 for channel in ground), ground  # linear 0.8^2.2 back to sRGB 0.8
    assert box[2] > 200 > 100 > box[0], box
    # written back as EXR (linear half floats, which OpenEXR's own exrheader reads) and read again
    with files["render.png"].open("rb") as png:
        written = _job(client, "render.png", png.read(), {"exr": {"output_format": "exr"}})
    assert task_named(written, "exr")["engine"] == "openexr"
    exr = download_all(written, tmp_path / "written")["render.exr"]
    header = subprocess.run(
        [require_program("exrheader"), str(exr)], capture_output=True, text=True, check=True
    )
    assert "dataWindow (type box2i): (0 0) - (95 63)" in header.stdout
    assert "16-bit floating-point" in header.stdout
    again = download_all(
        _job(client, "render.exr", exr.read_bytes(), {"png": {"output_format": "png"}}), tmp_path / "again"
    )
    assert _rgb(again["render.png"], 40, 24) == box


def test_openraster_layers_composite_and_a_png_becomes_one_layer(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("openraster", "convert", "ora", "png")
    job = _job(client, "art.ora", ora_bytes(), {"png": {"output_format": "png"}})
    files = download_all(job, tmp_path / "out")
    assert _rgb(files["art.png"], 40, 24) == (29, 78, 216)  # the box layer, offset to (16, 12)
    veil = _rgb(files["art.png"], 70, 40)  # half-transparent red over the box
    assert abs(veil[0] - 142) <= 2, veil
    assert abs(veil[2] - 108) <= 2, veil
    with (tmp_path / "out" / "art.png").open("rb") as png:
        again = _job(client, "art.png", png.read(), {"ora": {"output_format": "ora"}})
    made = download_all(again, tmp_path / "again")["art.ora"]
    round_trip = _job(client, "art.ora", made.read_bytes(), {"png": {"output_format": "png"}})
    back = download_all(round_trip, tmp_path / "back")["art.png"]
    assert _rgb(back, 70, 40) == veil


def test_mpo_converts_its_first_view(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("pillow", "convert", "mpo", "png")
    job = _job(client, "stereo.mpo", mpo_bytes(), {"gif": {"output_format": "gif"}})
    files = download_all(job, tmp_path / "out")
    with Image.open(files["stereo.gif"]) as gif:
        assert getattr(gif, "n_frames", 1) == 1  # the right eye is no second frame of an animation
    box = _rgb(files["stereo.gif"], 40, 24)
    assert box[2] > 180 > 60 > box[0], box  # the left (blue) view, not the right (red) one


def test_psb_and_xcf_are_read_by_imagemagick(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("imagemagick", "convert", "xcf", "png")
    require_engine("imagemagick", "convert", "psb", "png")
    for name, data in (("poster.psb", psb_bytes()), ("sketch.xcf", xcf_bytes())):
        job = _job(client, name, data, {"png": {"output_format": "png"}})
        assert task_named(job, "png")["engine"] == "imagemagick"
        png = download_all(job, tmp_path / name)[name.replace(name[-3:], "png")]
        assert _rgb(png, 40, 24) == (28, 76, 217)  # the hand-written file's box (0.11, 0.3, 0.85)
        assert _rgb(png, 4, 4) == (204, 204, 204)


def test_jpeg_ls_from_dcmtk_decodes_and_png_encodes_losslessly(
    require_engine: RequireEngine, require_program: Callable[..., str], client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("jpegls", "convert", "jls", "png")
    dcmtk = require_engine("dcmtk", "convert", "dcm", "png")
    assert isinstance(dcmtk, DcmtkEngine)
    assert dcmtk.ls_renderer is not None
    require_program("img2dcm")
    require_program("dcmcjpls")
    job = _job(client, "scan.jls", jls_bytes(tmp_path / "made"), {"png": {"output_format": "png"}})
    assert task_named(job, "png")["engine"] == "jpegls"
    png = download_all(job, tmp_path / "out")["scan.png"]
    assert _rgb(png, 40, 24) == (28, 76, 217)  # lossless: the seed's very values
    again = _job(client, "scan.png", png.read_bytes(), {"jls": {"output_format": "jls"}})
    stream = download_all(again, tmp_path / "again")["scan.jls"].read_bytes()
    wrapped = tmp_path / "wrapped.dcm"
    wrapped.write_bytes(jpegls_in_dicom(stream))  # DCMTK's decoder reads what ffmpeg wrote
    subprocess.run([dcmtk.ls_renderer, "+on", str(wrapped), str(tmp_path / "back.png")], check=True)
    assert _rgb(tmp_path / "back.png", 40, 24) == (28, 76, 217)
