"""Checks of camera raw, DICOM, OpenEXR, MPO and OpenRaster conversions (issue 47), independent of the
engines: Pillow decodes the output, and the picture must be the seed's (samples_raw.py): its size, its
orientation (the DNG seed is stored landscape with Orientation 6, so it must come out portrait), where
the box is, and the colours the source said (the DNG's camera white balance makes its grey ground grey).
An ORA output is read with zipfile and ElementTree, its layer with Pillow.
"""

from __future__ import annotations

import io
import re
import subprocess
import tempfile
import zipfile
from collections.abc import Callable
from pathlib import Path
from xml.etree import ElementTree

from PIL import Image

from raw_samples import jpegls_in_dicom

__all__ = ["raw_checks"]

Check = Callable[[Path], None]
# outputs Pillow decodes, whose pixels are checked (lossy ones loosely)
_PIXELS = {"png", "jpg", "tiff", "webp", "avif", "bmp", "gif", "tga", "ppm", "qoi", "sgi", "pcx", "jp2"}


def _ora(path: Path) -> None:
    with zipfile.ZipFile(path) as ora:
        first = ora.infolist()[0]
        if first.filename != "mimetype" or ora.read("mimetype") != b"image/openraster":
            raise ValueError("an ORA file starts with its stored mimetype")
        root = ElementTree.fromstring(ora.read("stack.xml"))  # noqa: S314 - the bench's own output
        size = (int(root.get("w", 0)), int(root.get("h", 0)))
        layers = [node.get("src", "") for node in root.iter("layer")]
        if not layers:
            raise ValueError("stack.xml names no layer")
        for source in [*layers, "mergedimage.png"]:
            with Image.open(io.BytesIO(ora.read(source))) as layer:
                layer.load()
        with Image.open(io.BytesIO(ora.read("mergedimage.png"))) as merged:
            if merged.size != size:
                raise ValueError(f"mergedimage is {merged.size}, stack.xml says {size}")


def _exr(path: Path) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            ["exrmaketiled", str(path), f"{tmp}/tiled.exr"], check=True, capture_output=True, timeout=60
        )
    header = subprocess.run(["exrheader", str(path)], check=True, capture_output=True, text=True, timeout=60)
    window = re.search(r"dataWindow \(type box2i\): \(0 0\) - \((\d+) (\d+)\)", header.stdout)
    if window is None or int(window[1]) < 1 or int(window[2]) < 1:
        raise ValueError(f"no data window of a picture in {header.stdout[:200]!r}")


def _jls(path: Path) -> None:
    """Decoded by DCMTK's JPEG-LS decoder (CharLS), not ffmpeg's: the stream wrapped in a DICOM."""
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "wrapped.dcm").write_bytes(jpegls_in_dicom(path.read_bytes()))
        subprocess.run(["dcml2pnm", "+on", f"{tmp}/wrapped.dcm", f"{tmp}/decoded.png"], check=True,
                       capture_output=True, timeout=60)  # fmt: skip
        with Image.open(f"{tmp}/decoded.png") as decoded:
            decoded.load()
            if min(decoded.size) < 1:
                raise ValueError("DCMTK decoded an empty picture")


def _near(found: tuple[int, ...], wanted: tuple[int, int, int], slack: int, what: str) -> None:
    if any(abs(a - b) > slack for a, b in zip(found[:3], wanted, strict=True)):
        raise ValueError(f"{what} is {found[:3]}, expected about {wanted}")


def _rgb(image: Image.Image, x: int, y: int) -> tuple[int, int, int]:
    red, green, blue = image.getpixel((x, y))  # type: ignore[misc]  # an RGB image's pixel
    return (red, green, blue)


def _picture(source: str) -> Check:
    def check(path: Path) -> None:
        with Image.open(path) as opened:
            image = opened.convert("RGB")
        if source == "dng":
            if image.size != (64, 96):
                raise ValueError(f"the DNG came out {image.size}, not portrait 64x96 as its orientation says")
            ground, box = _rgb(image, 4, 4), _rgb(image, 32, 48)
            if max(ground) - min(ground) > 24:
                raise ValueError(f"the grey ground came out {ground}: not the camera's white balance")
            if not box[2] > box[0] + 60:
                raise ValueError(f"the blue box came out {box}")
            return
        if image.size != (96, 64):
            raise ValueError(f"{image.size}, expected the seed's 96x64")
        ground, box = _rgb(image, 4, 4), _rgb(image, 40, 24)
        if source == "dcm":  # grey: the box bright, the ground dark
            if not box[0] > ground[0] + 80:
                raise ValueError(f"the DICOM's bright box came out {box} on {ground}")
        else:  # a blue box on light grey (mpo: its first view; the second is red)
            _near(box, (29, 78, 216), 40, "the box")
            if min(ground) < 180:
                raise ValueError(f"the ground came out {ground}")
        if source == "ora":
            _near(_rgb(image, 70, 40), (142, 39, 108), 40, "the half-transparent red over blue")

    return check


def raw_checks(path: Path, fmt: str) -> list[Check]:
    """The checks of this family for an output ``path`` in ``fmt`` (bench/formats.py names an output
    ``<source>-to-<file>``, which tells the source)."""
    checks: list[Check] = []
    if fmt == "ora":
        checks.append(_ora)
    if fmt == "exr":
        checks.append(_exr)
    if fmt == "jls":
        checks.append(_jls)
    source = path.name.split("-to-", 1)[0]
    if source in ("dng", "dcm", "exr", "mpo", "ora", "psb", "xcf", "jls") and fmt in _PIXELS:
        checks.append(_picture(source))
    return checks
