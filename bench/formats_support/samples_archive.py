"""Seeds of issue 47's wider archive formats (cab, iso, cpio, ar, deb, arj, Z, lzma, zst, lz4 and their
tar forms): made by their own programs in tests/archive_samples.py (bench/formats.py puts tests/ on the
path), never by unar, zstandard or lz4, which read them in the service."""

from __future__ import annotations

import shutil
from pathlib import Path

from archive_samples import MAKERS, PROGRAMS, make_archive

__all__ = ["archive_seeds"]


def archive_seeds(directory: Path, wanted: set[str]) -> dict[str, Path]:
    """The seeds of this family's formats in ``wanted`` whose program is installed."""
    return {
        fmt: make_archive(fmt, directory / "archives")
        for fmt in MAKERS
        if fmt in wanted and shutil.which(PROGRAMS[fmt])
    }
