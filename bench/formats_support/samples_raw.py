"""Seeds of camera raw (dng), DICOM, OpenEXR, MPO, OpenRaster, PSB, XCF and
JPEG-LS (issue 47): written by hand in
tests/raw_samples.py (bench/formats.py puts tests/ on the path), never by the engine that reads them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from raw_samples import (
    dicom_bytes,
    dng_bytes,
    exr_bytes,
    jls_bytes,
    mpo_bytes,
    ora_bytes,
    psb_bytes,
    xcf_bytes,
)

__all__ = ["raw_seeds"]


def raw_seeds(directory: Path, wanted: set[str]) -> dict[str, Path]:
    """The seeds of this family's formats in ``wanted``."""
    makers: dict[str, Callable[[], bytes]] = {
        "dng": dng_bytes, "dcm": dicom_bytes, "exr": exr_bytes, "mpo": mpo_bytes, "ora": ora_bytes,
        "psb": psb_bytes, "xcf": xcf_bytes, "jls": lambda: jls_bytes(directory / "jls"),
    }  # fmt: skip
    seeds: dict[str, Path] = {}
    for fmt, make in makers.items():
        if fmt in wanted:
            path = directory / f"sample.{fmt}"
            path.write_bytes(make())
            seeds[fmt] = path
    return seeds
