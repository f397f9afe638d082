"""Checkers of every archive output: its members listed and read by a reader independent of the
service's writer (zipfile, tarfile, py7zr; the zstd and lz4 programs under tarfile for tar.zst and
tar.lz4; genisoimage's isoinfo for the ISO images xorriso writes), their names and bytes compared
with the samples' (tests/archive_samples.py, the zip seed)."""

from __future__ import annotations

import io
import subprocess
import tarfile
import tempfile
import zipfile
from pathlib import Path, PurePosixPath

import py7zr

from archive_samples import SINGLE, TREE

__all__ = ["ARCHIVE_OUTPUTS", "check_archive"]

ARCHIVE_OUTPUTS = ("zip", "7z", "tar", "tar.gz", "tar.bz2", "tar.xz", "tar.zst", "tar.lz4", "iso")
_DECOMPRESSORS = {"tar.zst": ["zstd", "-dc"], "tar.lz4": ["lz4", "-dc"]}
# the members the seeds hold, by their base name (ar keeps no folders): the zip seed's and TREE's
_KNOWN = {PurePosixPath(name).name: data for name, data in TREE.items()}


def _iso(path: Path) -> dict[str, bytes]:
    """The files of an ISO image by their Rock Ridge names, listed and read by genisoimage's isoinfo."""

    def isoinfo(*argv: str) -> bytes:
        return subprocess.run(
            ["isoinfo", "-R", "-i", str(path), *argv], capture_output=True, check=True
        ).stdout

    listed = isoinfo("-l").decode()
    members: dict[str, bytes] = {}
    folder = ""
    for line in listed.splitlines():
        if line.startswith("Directory listing of "):
            folder = line.removeprefix("Directory listing of ").strip()
        elif line.startswith("-"):  # a regular file: its name is the listing's last column
            name = line.split("]", 1)[1].strip()
            members[(folder + name).lstrip("/")] = isoinfo("-x", folder + name)
    return members


def _members(path: Path, fmt: str) -> dict[str, bytes]:
    if fmt == "iso":
        return _iso(path)
    if fmt == "zip":
        with zipfile.ZipFile(path) as archive:
            return {name: archive.read(name) for name in archive.namelist() if not name.endswith("/")}
    if fmt == "7z":
        with tempfile.TemporaryDirectory() as scratch, py7zr.SevenZipFile(path) as archive:
            archive.extractall(scratch)  # noqa: S202 - the output of the bench's own conversion
            root = Path(scratch)
            return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}
    if fmt in _DECOMPRESSORS:
        tarred = subprocess.run([*_DECOMPRESSORS[fmt], str(path)], capture_output=True, check=True).stdout
    else:
        tarred = path.read_bytes()
    with tarfile.open(fileobj=io.BytesIO(tarred)) as archive:
        return {
            info.name: archive.extractfile(info).read()  # type: ignore[union-attr]  # a regular member has a file
            for info in archive
            if info.isfile()
        }


def _deb(members: dict[str, bytes]) -> None:
    if set(members) != {"debian-binary", "control.tar.xz", "data.tar.xz"}:
        raise ValueError(f"not the package's members: {sorted(members)}")
    with tarfile.open(fileobj=io.BytesIO(members["data.tar.xz"])) as data:
        inner = data.extractfile("./usr/share/doc/quokka/notes/quokka.txt")
        if inner is None or inner.read() != TREE["notes/quokka.txt"]:
            raise ValueError("the package's data lost its file")


def check_archive(path: Path, fmt: str) -> None:
    """Raise ValueError unless the ``fmt`` archive ``path`` holds a sample's members, bytes unchanged."""
    members = _members(path, fmt)
    if "debian-binary" in members:
        _deb(members)
        return
    if list(members) == ["sample"]:  # a single compressed file's one member
        if members["sample"] != SINGLE:
            raise ValueError("the compressed file's content changed")
        return
    if "notes/quokka.txt" not in members and "quokka.txt" not in members:
        raise ValueError(f"the sample's member is missing: {sorted(members)}")
    for name, data in members.items():
        known = _KNOWN.get(PurePosixPath(name).name)
        if known is not None and data != known:
            raise ValueError(f"{name} changed: {len(data)} bytes, not {len(known)}")
